/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one user's open leaves may cost the machine beyond their counters:
 * the rules of the two budgets that the kernel filesystem keeps per user
 * (fs/perfctrfs/counter.c perfctrfs_ring_charge(), fs/perfctrfs/file.c
 * PERFCTRFS_TIMER_RATE_MAX), as pure functions over numbers and /proc
 * text, so that tests/unit/budget-test.c checks each on its own.  share.c
 * keeps what each uid holds.
 */
#ifndef PERFCTRFS_FUSE_BUDGET_H
#define PERFCTRFS_FUSE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* a user's time-period timers together: firings a second (100 x 1ms) */
#define PF_TIMER_RATE_MAX	100000UL

/* Locked pages as perf_mmap() counts them. */
struct pf_mlock {
	unsigned long user;	/* of the perf_event_mlock_kb allowance */
	unsigned long pinned;	/* beyond it, against RLIMIT_MEMLOCK */
};

/* What a caller may lock, in pages. */
struct pf_mlock_limits {
	unsigned long allowance;	/* perf_event_mlock_kb x online CPUs */
	unsigned long rlimit;		/* the caller's RLIMIT_MEMLOCK */
	bool waived;			/* CAP_IPC_LOCK, or paranoid -1 */
};

unsigned long pf_mlock_allowance(unsigned long mlock_kb, unsigned long cpus,
				 unsigned long page_size);
unsigned long pf_bytes_to_pages(uint64_t bytes, unsigned long page_size);
bool pf_mlock_waived(uint64_t cap_eff, bool same_userns, int paranoid);
int pf_mlock_charge(const struct pf_mlock *held,
		    const struct pf_mlock_limits *lim, unsigned long pages,
		    struct pf_mlock *charge);
int pf_limits_memlock(const char *buf, uint64_t *bytes);

unsigned long pf_timer_cost(uint64_t period_ns);
int pf_timer_charge(unsigned long held, unsigned long cost);

#endif /* PERFCTRFS_FUSE_BUDGET_H */
