// SPDX-License-Identifier: GPL-2.0
/*
 * pagetouch - fault in N fresh anonymous pages, so page_faults has a known
 * lower bound.
 *
 *	pagetouch [-w] N [LINGER_SECONDS]
 *
 * With -w it first prints "ready" and waits for SIGUSR1 (so the suite can
 * open a counter on its pid before anything is touched), touches N pages of a fresh mapping
 * one write each, then lingers LINGER_SECONDS (default 0) and exits 0.
 */
#include "common.h"
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long n, i;
	unsigned int linger = 0;
	int wait_sig = 0;
	sigset_t set, old;
	char *p;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		wait_sig = 1;
		argv++;
		argc--;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pagetouch [-w] N [LINGER_SECONDS]\n");
		return 2;
	}
	n = num_arg(argv[1]);
	if (argc == 3)
		linger = num_arg(argv[2]);
	if (wait_sig) {
		int sig;

		/* block first, so a SIGUSR1 sent early is not lost */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, &old);
		printf("ready\n");
		fflush(stdout);
		if (sigwait(&set, &sig))
			return 1;
	}
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* one fault per page: no transparent huge page may cover several */
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	if (linger)
		sleep(linger);
	return 0;
}
