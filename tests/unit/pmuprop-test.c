// SPDX-License-Identifier: GPL-2.0
/*
 * proto-fuse/pmuprop.c, the user.perfctr.scale and user.perfctr.unit
 * xattrs, against a sysfs tree this test builds in a temporary directory:
 * a "power" PMU with perf's RAPL files (energy-pkg and its .scale and
 * .unit), a "cpu" PMU whose alias has neither, and broken values.
 *
 *	pmuprop-test [-s first]	run, numbering the TAP lines from first
 *	pmuprop-test -c		print how many tests there are
 *
 * Exits 1 when a test failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../proto-fuse/pmuprop.h"

#define NR_TESTS	12

static unsigned int next = 1, failed;
static char root[64];

static void report(bool ok, const char *desc)
{
	printf("%s %u - pmuprop: %s\n", ok ? "ok" : "not ok", next++, desc);
	if (!ok)
		failed++;
}

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755)) {
		perror(path);
		exit(1);
	}
}

/* pf_pmu_prop() of @event gives @want (NULL: -ENODATA). */
static bool gives(const char *event, const char *prop, const char *want)
{
	char buf[64];
	int n = pf_pmu_prop(root, event, prop, buf, sizeof(buf));

	if (!want) {
		if (n != -ENODATA)
			printf("#   %s %s: %d, want -ENODATA\n", event, prop, n);
		return n == -ENODATA;
	}
	if (n != (int)strlen(want) || strcmp(buf, want)) {
		printf("#   %s %s: %d '%s', want '%s'\n", event, prop, n,
		       n >= 0 ? buf : "", want);
		return false;
	}
	return true;
}

static void build(void)
{
	strcpy(root, "/tmp/pmuprop-test.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	dir("power");
	dir("power/events");
	put("power/events/energy-pkg", "event=0x02\n");
	put("power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n");
	put("power/events/energy-pkg.unit", "Joules\n");
	put("power/events/energy-cores", "event=0x01\n");
	put("power/events/energy-cores.scale", "not a number\n");
	put("power/events/energy-cores.unit", "Jou les\n");
	put("power/events/energy-gpu", "event=0x04\n");
	put("power/events/energy-gpu.scale", "-1\n");
	dir("cpu");
	dir("cpu/events");
	put("cpu/events/cpu-cycles", "event=0x3c\n");
	put("cpu/events/Mem-Loads", "event=0xcd,umask=0x1\n");
	put("cpu/events/Mem-Loads.unit", "MiB/s\n");
}

static void clean(void)
{
	static const char *const files[] = {
		"power/events/energy-pkg", "power/events/energy-pkg.scale",
		"power/events/energy-pkg.unit", "power/events/energy-cores",
		"power/events/energy-cores.scale", "power/events/energy-cores.unit",
		"power/events/energy-gpu", "power/events/energy-gpu.scale",
		"power/events", "power", "cpu/events/cpu-cycles",
		"cpu/events/Mem-Loads", "cpu/events/Mem-Loads.unit",
		"cpu/events", "cpu", "",
	};
	char path[256];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		remove(path);
	}
}

int main(int argc, char *argv[])
{
	char small[4];
	int opt;

	while ((opt = getopt(argc, argv, "cs:")) != -1) {
		switch (opt) {
		case 'c':
			printf("%d\n", NR_TESTS);
			return 0;
		case 's':
			next = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-s first]\n", argv[0]);
			return 2;
		}
	}
	build();
	report(gives("power.energy_pkg", "scale", "2.3283064365386962890625e-10"),
	       "a RAPL alias's .scale, as sysfs writes it, without the newline");
	report(gives("power.energy_pkg", "unit", "Joules"), "its .unit");
	report(gives("power.energy_pkg:u", "unit", "Joules"),
	       "modifiers do not change the alias");
	report(gives("cpu.mem_loads", "unit", "MiB/s"),
	       "the path form is lower case with '_': Mem-Loads is mem_loads");
	report(gives("cpu.cpu_cycles", "scale", NULL) &&
	       gives("cpu.cpu_cycles", "unit", NULL),
	       "an alias without the files has neither");
	report(gives("power.energy_cores", "scale", NULL) &&
	       gives("power.energy_cores", "unit", NULL),
	       "a scale that is not a number, a unit with a space: not published");
	report(gives("power.energy_gpu", "scale", NULL), "a negative scale: not published");
	report(gives("power.energy_pkg+power.energy_cores", "unit", NULL) &&
	       gives("power.event=0x02", "unit", NULL) &&
	       gives("task_clock", "unit", NULL) && gives("0x1c2", "unit", NULL),
	       "groups, terms, builtins and raw codes have none");
	report(gives("nopmu.energy_pkg", "unit", NULL) &&
	       gives("power.energy_nope", "unit", NULL),
	       "an unknown PMU or alias has none");
	report(gives("power.energy_pkg", "description", NULL),
	       "only scale and unit are read");
	report(pf_pmu_prop(root, "power.energy_pkg", "unit", small, sizeof(small)) ==
	       -ENODATA, "a value that does not fit the buffer is not cut");
	report(gives("power.energy.pkg", "unit", NULL) &&
	       gives("power.", "unit", NULL) && gives(".x", "unit", NULL),
	       "names that are no alias's path form have none");
	clean();
	return failed ? 1 : 0;
}
