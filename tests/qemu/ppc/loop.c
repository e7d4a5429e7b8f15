// SPDX-License-Identifier: GPL-2.0
/*
 * loop - run a loop of a known number of instructions on POWER and count
 * it through perf_event_open(2) and through perfctrfs leaves, so that the
 * two can be compared in the same boot.
 *
 *	loop [-n ITERS] [-y SYSCALLS] [-e TYPE:CONFIG[:u]] [-s PERIOD] [-p]
 *	     [LEAF...]
 *
 * The loop is "mtctr; 1: addi; bdnz 1b": exactly 2 instructions an
 * iteration, ITERS iterations (default 10,000,000).
 *
 *	-p	first, count one loop with perf_event_open(2) (event -e,
 *		default hardware instructions, pid 0, any cpu) and print
 *		"perf <count>"
 *	-s	make that perf event sample every PERIOD events into a ring
 *		buffer and print "perf <count> samples <bytes written>"
 *	-y	also make SYSCALLS getppid() calls inside the counted region,
 *		to give the kernel something to count
 *	LEAF	then open every LEAF (one counter each), run the loop once
 *		more, pread each at offset 0 and print "leaf <line>" in the
 *		order given
 *
 * Exit status 0, or 1 (and a message on stderr naming the errno) when an
 * open or read fails; 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef __powerpc64__
#error "loop.c runs a POWER instruction loop: build it for ppc64le"
#endif

#define MAX_LEAVES 32

static void run_loop(unsigned long iters, unsigned long syscalls)
{
	unsigned long x = 0;

	/* 2 instructions an iteration, nothing else in the loop body */
	asm volatile("mtctr %1\n"
		     "1:	addi %0,%0,1\n"
		     "	bdnz 1b\n"
		     : "+r"(x)
		     : "r"(iters)
		     : "ctr");
	while (syscalls--)
		syscall(SYS_getppid);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: loop [-n ITERS] [-y SYSCALLS] [-e TYPE:CONFIG[:u]] [-s PERIOD] [-p] [LEAF...]\n");
	return 2;
}

static int parse_event(const char *s, struct perf_event_attr *a)
{
	char *end;

	a->type = strtoul(s, &end, 0);
	if (*end != ':')
		return -1;
	a->config = strtoull(end + 1, &end, 0);
	if (*end == ':' && !strcmp(end + 1, "u"))
		a->exclude_kernel = a->exclude_hv = 1;
	else if (*end)
		return -1;
	return 0;
}

static int count_perf(struct perf_event_attr *a, unsigned long iters,
		      unsigned long syscalls)
{
	long psize = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta = NULL;
	uint64_t count;
	int fd;

	a->size = sizeof(*a);
	a->disabled = 1;
	fd = syscall(SYS_perf_event_open, a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("perf-error %s\n", strerrorname_np(errno));
		return 1;
	}
	if (a->sample_period) {
		meta = mmap(NULL, 2 * psize, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
		if (meta == MAP_FAILED) {
			perror("loop: mmap of the perf ring buffer");
			return 1;
		}
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run_loop(iters, syscalls);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		perror("loop: read of the perf fd");
		return 1;
	}
	if (meta)
		printf("perf %llu samples %llu\n", (unsigned long long)count,
		       (unsigned long long)meta->data_head);
	else
		printf("perf %llu\n", (unsigned long long)count);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long iters = 10000000, syscalls = 0;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
	};
	int fds[MAX_LEAVES], nleaves, use_perf = 0, opt, i, ret = 0;
	char line[4096];

	while ((opt = getopt(argc, argv, "n:y:e:s:p")) != -1) {
		switch (opt) {
		case 'n':
			iters = strtoul(optarg, NULL, 0);
			break;
		case 'y':
			syscalls = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			if (parse_event(optarg, &attr))
				return usage();
			break;
		case 's':
			attr.sample_period = strtoull(optarg, NULL, 0);
			attr.sample_type = PERF_SAMPLE_IP;
			attr.wakeup_events = 1;
			break;
		case 'p':
			use_perf = 1;
			break;
		default:
			return usage();
		}
	}
	nleaves = argc - optind;
	if (!iters || nleaves > MAX_LEAVES)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (use_perf && count_perf(&attr, iters, syscalls))
		return 1;
	if (!nleaves)
		return 0;

	for (i = 0; i < nleaves; i++) {
		fds[i] = open(argv[optind + i], O_RDONLY);
		if (fds[i] < 0) {
			fprintf(stderr, "loop: open %s: %s\n", argv[optind + i],
				strerrorname_np(errno));
			return 1;
		}
	}
	run_loop(iters, syscalls);
	for (i = 0; i < nleaves; i++) {
		ssize_t n = pread(fds[i], line, sizeof(line) - 1, 0);

		if (n < 0) {
			fprintf(stderr, "loop: read %s: %s\n", argv[optind + i],
				strerrorname_np(errno));
			ret = 1;
			continue;
		}
		line[n] = '\0';
		printf("leaf %s%s", line, n && line[n - 1] == '\n' ? "" : "\n");
	}
	for (i = 0; i < nleaves; i++)
		close(fds[i]);
	return ret;
}
