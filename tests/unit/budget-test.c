// SPDX-License-Identifier: GPL-2.0
/*
 * proto-fuse/budget.c: what a user's open leaves may cost beyond their
 * counters, each rule as the kernel filesystem keeps it:
 *  - irq rings and queues are locked pages, charged as perf_mmap()
 *    charges a ring: the perf_event_mlock_kb allowance (per online CPU)
 *    first, then RLIMIT_MEMLOCK; EPERM past both, unless waived by
 *    CAP_IPC_LOCK in the daemon's user namespace or paranoid -1;
 *  - the caller's RLIMIT_MEMLOCK as /proc/<tid>/limits writes it;
 *  - time-period timers: ceil(1e9 / period) firings a second each,
 *    100000 a uid; ENOSPC past it.
 *
 *	budget-test [-s first]	run, numbering the TAP lines from first
 *	budget-test -c		print how many tests there are
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../proto-fuse/budget.h"

static unsigned int next = 1, failed, count_only, counted;

static void report(bool ok, const char *desc)
{
	if (count_only) {
		counted++;
		return;
	}
	printf("%s %u - budget: %s\n", ok ? "ok" : "not ok", next++, desc);
	if (!ok)
		failed++;
}

#define CAP_IPC_LOCK_BIT	(1ULL << 14)

/* the default perf_event_mlock_kb on 2 CPUs, 4 KiB pages: 258 pages */
static const struct pf_mlock_limits two_cpus = {
	.allowance = 258, .rlimit = 0, .waived = false,
};

/* An irq leaf of one set on FUSE: a ring of 1 + 32 pages, a 24-page queue. */
#define LEAF_PAGES	57

/* How many leaves of @pages a uid holds before EPERM, from nothing. */
static unsigned int leaves_held(const struct pf_mlock_limits *lim,
				unsigned long pages, unsigned int max)
{
	struct pf_mlock held = { 0, 0 }, c;
	unsigned int n;

	for (n = 0; n < max; n++) {
		if (pf_mlock_charge(&held, lim, pages, &c))
			break;
		held.user += c.user;
		held.pinned += c.pinned;
	}
	return n;
}

static void test_allowance(void)
{
	report(pf_mlock_allowance(516, 2, 4096) == 258,
	       "516 KiB on 2 CPUs of 4 KiB pages: 258 pages, as perf_mmap()");
	report(pf_mlock_allowance(516, 8, 65536) == 64,
	       "516 KiB on 8 CPUs of 64 KiB pages: 64 pages (8 a CPU, rounded down)");
	report(pf_mlock_allowance(0, 64, 4096) == 0,
	       "perf_event_mlock_kb 0: no allowance");
	report(pf_bytes_to_pages(65536, 4096) == 16 &&
	       pf_bytes_to_pages(4095, 4096) == 0 &&
	       pf_bytes_to_pages(UINT64_MAX, 4096) == UINT64_MAX / 4096,
	       "RLIMIT_MEMLOCK in whole pages, rounded down; unlimited stays huge");
}

static void test_mlock(void)
{
	struct pf_mlock held = { 0, 0 }, c = { 9, 9 };
	struct pf_mlock_limits lim = two_cpus;

	report(!pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) &&
	       c.user == LEAF_PAGES && c.pinned == 0,
	       "within the allowance: all of it charged there");
	report(leaves_held(&two_cpus, LEAF_PAGES, 64) == 4,
	       "RLIMIT_MEMLOCK 0 on 2 CPUs: 4 irq leaves, EPERM at the fifth");
	held.user = 230;
	report(pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) == -EPERM,
	       "past the allowance with RLIMIT_MEMLOCK 0: EPERM");
	lim.rlimit = 2048;	/* 8 MiB */
	report(!pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) &&
	       c.user == 28 && c.pinned == 29,
	       "past the allowance: the rest charged against RLIMIT_MEMLOCK");
	held.pinned = 2048 - 28;
	report(pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) == -EPERM,
	       "past the allowance and RLIMIT_MEMLOCK by a page: EPERM");
	held.pinned = 2048 - 29;
	report(!pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) && c.pinned == 29,
	       "exactly up to RLIMIT_MEMLOCK: admitted");
	lim.rlimit = 10;
	held.pinned = 20;
	report(pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) == -EPERM,
	       "RLIMIT_MEMLOCK lowered below what is pinned already: EPERM");
	lim.rlimit = 0;
	lim.waived = true;
	report(!pf_mlock_charge(&held, &lim, LEAF_PAGES, &c) &&
	       c.user == 28 && c.pinned == 29,
	       "waived: admitted past both, still counted as perf counts it");
	lim = two_cpus;
	held.user = 1000;
	held.pinned = 0;
	report(pf_mlock_charge(&held, &lim, 1, &c) == -EPERM,
	       "an allowance lowered below what is held lets nothing more in");
	lim.rlimit = 1;
	report(!pf_mlock_charge(&held, &lim, 1, &c) && c.user == 0 &&
	       c.pinned == 1,
	       "... but RLIMIT_MEMLOCK still does");
	report(leaves_held(&(struct pf_mlock_limits){ .allowance = ~0UL },
			   LEAF_PAGES, 3) == 3 &&
	       leaves_held(&(struct pf_mlock_limits){ .rlimit = ~0UL },
			   LEAF_PAGES, 3) == 3,
	       "huge limits do not wrap around");
}

static void test_waived(void)
{
	report(!pf_mlock_waived(0, true, 2) && !pf_mlock_waived(0, true, 0),
	       "no CAP_IPC_LOCK, paranoid 0 or 2: limited");
	report(pf_mlock_waived(CAP_IPC_LOCK_BIT, true, 2),
	       "CAP_IPC_LOCK in the daemon's user namespace: waived");
	report(!pf_mlock_waived(CAP_IPC_LOCK_BIT, false, 2),
	       "CAP_IPC_LOCK of another user namespace (unshare -Ur): limited");
	report(!pf_mlock_waived(~CAP_IPC_LOCK_BIT, true, 2),
	       "every capability but CAP_IPC_LOCK: limited");
	report(pf_mlock_waived(0, false, -1),
	       "perf_event_paranoid -1: waived for everyone, as perf does");
}

#define LIMITS_HEAD \
	"Limit                     Soft Limit           Hard Limit           Units     \n" \
	"Max cpu time              unlimited            unlimited            seconds   \n" \
	"Max open files            20000                20000                files     \n"

static void test_limits(void)
{
	uint64_t b = 7;

	report(!pf_limits_memlock(LIMITS_HEAD
		"Max locked memory         8388608              16777216             bytes     \n"
		"Max address space         unlimited            unlimited            bytes     \n",
		&b) && b == 8388608,
	       "the soft RLIMIT_MEMLOCK, not the hard one");
	report(!pf_limits_memlock(LIMITS_HEAD
		"Max locked memory         0                    0                    bytes     \n",
		&b) && b == 0,
	       "ulimit -l 0: 0");
	report(!pf_limits_memlock(LIMITS_HEAD
		"Max locked memory         unlimited            unlimited            bytes     \n",
		&b) && b == UINT64_MAX,
	       "unlimited");
	report(pf_limits_memlock(LIMITS_HEAD, &b) == -EIO,
	       "no Max locked memory line: refused, never guessed");
	report(pf_limits_memlock(LIMITS_HEAD
		"Max locked memory         -1                   0                    bytes     \n",
		&b) == -EIO &&
	       pf_limits_memlock(LIMITS_HEAD
		"Max locked memory         99999999999999999999999 0                 bytes     \n",
		&b) == -EIO &&
	       pf_limits_memlock("Max locked memory", &b) == -EIO,
	       "a sign, an overflow or a cut line: refused");
}

static void test_timers(void)
{
	unsigned long held = 0;
	unsigned int n;

	report(pf_timer_cost(1000000) == 1000 && pf_timer_cost(3000000) == 334 &&
	       pf_timer_cost(1000000000) == 1 &&
	       pf_timer_cost(10000000000ULL) == 1 &&
	       pf_timer_cost(UINT64_MAX) == 1,
	       "a period's firings a second, rounded up; at least 1");
	for (n = 0; n < 120 && !pf_timer_charge(held, pf_timer_cost(1000000)); n++)
		held += pf_timer_cost(1000000);
	report(n == 100 && held == PF_TIMER_RATE_MAX,
	       "100 leaves of 1ms fit, the 101st does not");
	report(pf_timer_charge(held, 1) == -ENOSPC,
	       "a full budget takes not even a 1s timer: ENOSPC");
	report(!pf_timer_charge(held - 1000, 1),
	       "one 1ms leaf closed: a 1s leaf fits");
	report(pf_timer_charge(0, ~0UL) == -ENOSPC &&
	       pf_timer_charge(~0UL, 1) == -ENOSPC,
	       "no wrap-around");
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "cs:")) != -1) {
		if (opt == 'c')
			count_only = 1;
		else if (opt == 's')
			next = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	test_allowance();
	test_mlock();
	test_waived();
	test_limits();
	test_timers();
	if (count_only)
		printf("%u\n", counted);
	return failed ? 1 : 0;
}
