// SPDX-License-Identifier: GPL-2.0
/*
 * lookupid - do path lookups and say how many perf events the system made
 * meanwhile, by perf's own count: every perf event gets the next number of
 * one global counter (PERF_EVENT_IOC_ID), so an event of our own opened
 * before and after the lookups tells how many were allocated in between,
 * by anyone, the kernel and daemons included.
 *
 *	lookupid [-s STRING] PATH...
 *
 *	PATH	looked up with stat(2); one ending in '/' is a directory
 *		read to its end with readdir(3) instead
 *
 *	-s	keep STRING in this process's memory; "%p" in a PATH becomes
 *		its address (0x...), for names whose terms a PMU reads as a
 *		pointer into the caller (uprobe's config1 is a path string)
 *
 * Prints one line per PATH, what stat(2) gave ("dir", "file" or the errno
 * name) or "listed N" for a directory read, then "made N": the perf events made by anyone during the lookups.
 * Prints "noperf <errno>" and exits 0 when perf_event_open(2) refuses this
 * caller the event it counts with; exits 2 on bad usage.
 */
#include "common.h"
#include <stdint.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

static int next_id(unsigned long long *id)
{
	struct perf_event_attr a;
	uint64_t v;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &v) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	*id = v;
	return 0;
}

/* PATH with each "%p" replaced by @addr in hex. */
static char *expand(const char *path, const void *addr)
{
	size_t n = strlen(path) + 1;
	const char *p;
	char *out, *o;

	for (p = path; (p = strstr(p, "%p")); p += 2)
		n += 2 + 2 * sizeof(void *);
	out = malloc(n);
	if (!out)
		exit(2);
	for (o = out, p = path; *p;) {
		if (p[0] == '%' && p[1] == 'p') {
			o += sprintf(o, "0x%lx", (unsigned long)(uintptr_t)addr);
			p += 2;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

int main(int argc, char **argv)
{
	static char str[4096];
	unsigned long long before, after;
	const char **res;
	struct stat st;
	int i, first = 1, err;

	if (argc > 2 && !strcmp(argv[1], "-s")) {
		if (strlen(argv[2]) >= sizeof(str))
			return 2;
		strcpy(str, argv[2]);
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: lookupid [-s STRING] PATH...\n");
		return 2;
	}
	res = calloc(argc, sizeof(*res));
	if (!res)
		return 2;
	err = next_id(&before);
	if (err) {
		printf("noperf %s\n", errname(-err));
		return 0;
	}
	for (i = first; i < argc; i++) {
		char *path = expand(argv[i], str);
		size_t len = strlen(path);

		if (len && path[len - 1] == '/') {
			DIR *d = opendir(path);
			char buf[32];
			int n = 0;

			if (!d) {
				res[i] = strdup(errname(errno));
			} else {
				while (readdir(d))
					n++;
				closedir(d);
				snprintf(buf, sizeof(buf), "listed %d", n);
				res[i] = strdup(buf);
			}
		} else if (stat(path, &st) < 0)
			res[i] = strdup(errname(errno));
		else
			res[i] = S_ISDIR(st.st_mode) ? "dir" :
				 S_ISREG(st.st_mode) ? "file" : "other";
		free(path);
	}
	err = next_id(&after);
	if (err) {
		printf("noperf %s\n", errname(-err));
		return 0;
	}
	for (i = first; i < argc; i++)
		printf("%s\n", res[i]);
	printf("made %llu\n", after - before - 1);
	return 0;
}
