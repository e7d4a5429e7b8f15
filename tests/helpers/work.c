// SPDX-License-Identifier: GPL-2.0
/*
 * work - a fixed amount of one kind of work, for comparing perfctr-stat
 * with perf stat on the same command line (tests/tools).
 *
 *	work touch N	write one byte into each of N fresh anonymous pages:
 *			N page faults, plus the program's own few dozen
 *	work switch N	sleep 50 us, N times: N voluntary context switches
 *	work loop N	N million iterations of a loop: the same CPU time
 *			(task-clock) each run, whatever the load
 */
#include "common.h"
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	unsigned long long n, i;

	if (argc != 3) {
		fprintf(stderr, "usage: work touch|switch|loop N\n");
		return 2;
	}
	n = num_arg(argv[2]);
	if (!strcmp(argv[1], "touch")) {
		long page = sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("work: mmap");
			return 1;
		}
		for (i = 0; i < n; i++)
			p[i * page] = 1;
		return 0;
	}
	if (!strcmp(argv[1], "switch")) {
		struct timespec ts = { 0, 50000 };

		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "loop")) {
		volatile unsigned long long x = 0;

		for (i = 0; i < n * 1000000; i++)
			x += i;
		return 0;
	}
	fprintf(stderr, "work: unknown work '%s'\n", argv[1]);
	return 2;
}
