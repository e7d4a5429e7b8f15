// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of a user's budgets (see budget.h and share.c).
 *
 * The daemon, not the caller, maps each irq ring and allocates each irq
 * record queue, and it arms each time period's timer: left alone, perf
 * would charge the rings to root (whose CAP_IPC_LOCK lifts every limit)
 * and nothing would bound the timers.  So the daemon charges them to the
 * caller's uid as the kernel filesystem charges its own, each rule tested
 * in tests/unit/budget-test.c:
 *  - locked pages follow perf_mmap(): the user's perf_event_mlock_kb
 *    allowance (per online CPU) first, the rest against the caller's
 *    RLIMIT_MEMLOCK; past both, EPERM, perf's errno, unless the caller
 *    has CAP_IPC_LOCK in the daemon's user namespace or
 *    perf_event_paranoid is -1.  perf counts the rest per process
 *    (pinned_vm); the daemon counts it per uid, which is stricter;
 *  - an allowance lowered below what is held already lets no more in,
 *    and takes nothing back;
 *  - a time period costs ceil(1e9 / period_ns) firings a second, and a
 *    uid's together may reach PF_TIMER_RATE_MAX; past it, ENOSPC.
 */
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"

#define NSEC_PER_SEC	1000000000ULL

/* perf_event_mlock_kb in pages, for each online CPU: perf_mmap()'s limit. */
unsigned long pf_mlock_allowance(unsigned long mlock_kb, unsigned long cpus,
				 unsigned long page_size)
{
	unsigned long per_cpu;

	if (page_size < 1024)
		return 0;
	per_cpu = mlock_kb / (page_size / 1024);
	if (cpus && per_cpu > ULONG_MAX / cpus)
		return ULONG_MAX;
	return per_cpu * cpus;
}

/* An rlimit in bytes as whole pages (RLIM_INFINITY: as many as fit). */
unsigned long pf_bytes_to_pages(uint64_t bytes, unsigned long page_size)
{
	uint64_t pages = page_size ? bytes / page_size : 0;

	return pages > ULONG_MAX ? ULONG_MAX : (unsigned long)pages;
}

/*
 * May this caller lock past its limits?  perf_mmap() asks capable(),
 * which is the initial user namespace; for the daemon, capabilities count
 * only in its own (interface.md).
 */
bool pf_mlock_waived(uint64_t cap_eff, bool same_userns, int paranoid)
{
	if (paranoid < 0)
		return true;	/* perf_is_paranoid() is false */
	return same_userns && (cap_eff & (1ULL << CAP_IPC_LOCK));
}

/*
 * Charge @pages more to a uid that holds @held: into @charge, the part
 * its allowance takes and the part beyond it.  0, or -EPERM over both.
 */
int pf_mlock_charge(const struct pf_mlock *held,
		    const struct pf_mlock_limits *lim, unsigned long pages,
		    struct pf_mlock *charge)
{
	unsigned long used = held->user < lim->allowance ?
			     held->user : lim->allowance;
	unsigned long room = lim->allowance - used, extra = 0;

	if (pages > room)
		extra = pages - room;
	if (extra && !lim->waived &&
	    (held->pinned > lim->rlimit || extra > lim->rlimit - held->pinned))
		return -EPERM;
	charge->user = pages - extra;
	charge->pinned = extra;
	return 0;
}

/*
 * The soft "Max locked memory" of a /proc/<tid>/limits text, in bytes
 * (UINT64_MAX for unlimited).  -EIO when the line is not there: a limit
 * is never guessed.
 */
int pf_limits_memlock(const char *buf, uint64_t *bytes)
{
	static const char key[] = "Max locked memory";
	const char *line, *next;
	char *end;

	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		line += sizeof(key) - 1;
		if (*line != ' ')
			return -EIO;
		while (*line == ' ')
			line++;
		if (!strncmp(line, "unlimited", 9) && line[9] == ' ') {
			*bytes = UINT64_MAX;
			return 0;
		}
		if (*line < '0' || *line > '9')
			return -EIO;
		errno = 0;
		*bytes = strtoull(line, &end, 10);
		return errno || *end != ' ' ? -EIO : 0;
	}
	return -EIO;
}

/* The firings a second of a timer of @period_ns, rounded up. */
unsigned long pf_timer_cost(uint64_t period_ns)
{
	if (!period_ns)
		return ULONG_MAX;
	if (period_ns >= NSEC_PER_SEC)
		return 1;
	return (NSEC_PER_SEC + period_ns - 1) / period_ns;
}

/* May a uid whose timers fire @held times a second add @cost?  0 or -ENOSPC. */
int pf_timer_charge(unsigned long held, unsigned long cost)
{
	if (cost > PF_TIMER_RATE_MAX || held > PF_TIMER_RATE_MAX - cost)
		return -ENOSPC;
	return 0;
}
