// SPDX-License-Identifier: GPL-2.0
/*
 * perfopen - ask perf_event_open(2) directly for what a perfctrfs path
 * describes, as the calling user, and print what perf answered: the
 * suite compares perfctrfs's errno with perf's for the same caller.
 *
 *	perfopen [-p PID | -G DIR] [-C CPU] [-s MS] EV[+EV...]
 *
 *	EV	TYPE:CONFIG[:MODS], MODS from u k h I as in perfctrfs names
 *		(1:0x1 is task_clock, 1:0x1:u the same in user mode only);
 *		CONFIG may be CONFIG/CONFIG1[/CONFIG2], the other two
 *		words (what <pmu>.config1=,config2= set: kprobe_addr...)
 *		'+' opens a group led by the first
 *	-p	target pid (default 0, the caller; -1 every task)
 *	-G	count the tasks of the cgroup v2 directory DIR instead, as
 *		perf stat -G does: DIR is opened, its fd passed as the pid
 *		with PERF_FLAG_PID_CGROUP (needs -C); failing to open DIR
 *		prints "opendir <ERRNO>"
 *	-C	cpu (default -1, any)
 *	-s	after opening, burn MS ms of CPU before reading
 *
 * Prints "ok <count>..." (one count per member) or the errno name of the
 * first failing perf_event_open, and exits 0 either way; 2 on bad usage.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#define MAX_EV 16

static int parse_ev(char *s, struct perf_event_attr *a)
{
	char *type = strtok(s, ":"), *config = strtok(NULL, ":");
	char *mods = strtok(NULL, ":");
	int u = 0, k = 0, h = 0;
	char *c1, *c2;

	if (!type || !config)
		return -1;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = num_arg(type);
	c1 = strchr(config, '/');
	if (c1) {
		*c1++ = '\0';
		c2 = strchr(c1, '/');
		if (c2) {
			*c2++ = '\0';
			a->config2 = num_arg(c2);
		}
		a->config1 = num_arg(c1);
	}
	a->config = num_arg(config);
	a->disabled = 0;
	a->read_format = PERF_FORMAT_GROUP;
	for (; mods && *mods; mods++) {
		switch (*mods) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'I': a->exclude_idle = 1; break;
		default: return -1;
		}
	}
	/* perf's rule: naming any of u/k/h excludes the ones not named */
	if (u || k || h) {
		a->exclude_user = !u;
		a->exclude_kernel = !k;
		a->exclude_hv = !h;
	}
	return 0;
}

static void spin_ms(long ms)
{
	volatile unsigned long x = 0;
	struct timespec t0, t;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 10000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr[MAX_EV];
	uint64_t vals[MAX_EV + 1];
	long pid = 0, cpu = -1, ms = 0;
	int fd[MAX_EV], nr = 0, opt, i;
	unsigned long flags = 0;
	char *s, *next, *cgroup = NULL;

	while ((opt = getopt(argc, argv, "p:G:C:s:")) != -1) {
		switch (opt) {
		case 'p': pid = strtol(optarg, NULL, 10); break;
		case 'G': cgroup = optarg; break;
		case 'C': cpu = strtol(optarg, NULL, 10); break;
		case 's': ms = strtol(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	for (s = argv[optind];; s = next + 1) {
		next = strchr(s, '+');
		if (next)
			*next = '\0';
		if (nr == MAX_EV || parse_ev(s, &attr[nr]))
			goto usage;
		nr++;
		if (!next)
			break;
	}
	if (cgroup) {
		pid = open(cgroup, O_RDONLY | O_DIRECTORY);
		if (pid < 0) {
			printf("opendir %s\n", errname(errno));
			return 0;
		}
		flags = PERF_FLAG_PID_CGROUP;
	}
	for (i = 0; i < nr; i++) {
		fd[i] = syscall(SYS_perf_event_open, &attr[i], pid, cpu,
				i ? fd[0] : -1, flags);
		if (fd[i] < 0) {
			printf("%s\n", errname(errno));
			return 0;
		}
	}
	if (ms)
		spin_ms(ms);
	if (read(fd[0], vals, sizeof(vals)) < 0) {
		printf("read %s\n", errname(errno));
		return 0;
	}
	printf("ok");
	for (i = 0; i < nr; i++)
		printf(" %llu", (unsigned long long)vals[1 + i]);
	printf("\n");
	return 0;
usage:
	fprintf(stderr, "usage: perfopen [-p PID | -G DIR] [-C CPU] [-s MS] TYPE:CONFIG[:MODS][+...]\n");
	return 2;
}
