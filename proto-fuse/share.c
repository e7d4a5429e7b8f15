// SPDX-License-Identifier: GPL-2.0
/*
 * Each user's share of what the daemon holds for its callers: counters,
 * directory handles, and its budgets.
 *
 * A user is an accountable uid (pf_accountable_uid(), creds.c): a
 * caller's real uid in the daemon's own user namespace; for a caller in a
 * user namespace below it, the owner of the outermost one under the
 * daemon's.  Keyed by kuid, a user with an /etc/subuid range held 65,537
 * shares (one per uid it maps), enough for the daemon's whole fd table.
 *
 * Every counter is one of the daemon's file descriptors, and they are
 * shared by everybody the daemon serves: one user holding them all would
 * leave every other user, root included, with EMFILE.  So a share unit is
 * one fd the daemon holds for a user's leaves: each counter, each time
 * period's timerfd and each cgroup leaf's cgroup.events, with its cgroup
 * directory while it opens (counter.c), and the pidfd of each target it
 * started watching (watch.c).  Each user may hold at most pf_opts.max_counters
 * units at once (the mount option max_counters=, by default a quarter of
 * the daemon's open-file limit when it serves every user, no limit of its
 * own otherwise).  An open that would go over fails with EMFILE for that
 * user alone.  Callers with the daemon's own credentials (root, in its
 * user namespace) are counted under PF_UID_DAEMON and held to no share:
 * the administrator's opens never wait on anyone's, a container's that
 * root made included (that one is charged to uid 0, the namespace's
 * owner).
 *
 * The daemon also locks memory for a caller: it maps each irq ring, so
 * perf charges the ring to root, whose CAP_IPC_LOCK lifts every limit,
 * and it allocates each irq leaf's record queue.  So the pages an irq
 * leaf locks are charged to its caller here, as perf_mmap() would charge
 * them had the caller mapped the ring itself (budget.c), but to its
 * accountable uid, not its kuid: EPERM past the caller's limits.
 *
 * And it arms a timerfd for each time-period leaf, which wakes its event
 * loop at every interval: a user's timers together may fire at most
 * PF_TIMER_RATE_MAX times a second, as on the kernel filesystem; past
 * it, an open gets ENOSPC.
 *
 * Every open directory handle is some of the daemon's memory (its
 * listing: a few bytes a CPU or a process), which opening a directory
 * costs its user almost nothing of; so each user may hold at most
 * pf_opts.max_dirs of them (max_dirs=, by default PF_MAX_DIRS when the
 * daemon serves every user): EMFILE past it, for that user alone.  A
 * listing at the pid level also holds the ids of the cgroups its user
 * can open, 8 bytes each and up to PF_CGROUP_MAX: all of a user's open
 * listings together may hold PF_CGROUP_IDS_MAX ids (128 KiB), wherever
 * max_dirs holds it to a number of handles; an opendir past it gets
 * EMFILE too.
 *
 * A cgroup walk (a cgroup lookup, listing or open, opener.c) holds one
 * of the daemon's worker threads until the caller's opener has walked
 * the caller's tree, and an opener serves one request at a time: so each
 * user may have at most pf_opts.max_calls walks in the daemon at once (a
 * quarter of the workers); one more gets EAGAIN at once, for that user
 * alone, and the other workers stay free for everyone else.  Opens and
 * pidfds, the quick requests, are not counted: a user's threads may open
 * many leaves at once.
 *
 * share_lock guards the table, and no other lock is taken while it is
 * held (it is taken under pf_lock, by watch.c); the sysctls and /proc
 * files a charge needs are read before it is taken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define SHARE_BUCKETS	64

struct pf_share {
	struct pf_share *next;
	uid_t uid;
	unsigned long held;		/* share units: the daemon's fds */
	unsigned long dirs;		/* open directory handles */
	struct pf_mlock mlock;		/* pages its irq leaves lock */
	unsigned long timer_rate;	/* its timers' firings a second */
	unsigned long calls;		/* its requests with an opener now */
	unsigned long cgids;		/* cgroup ids its open listings hold */
	/* its period-0 reads: rlock guards refs, reading and the parked queue */
	pthread_mutex_t rlock;
	unsigned long refs;		/* its open leaves and its reads now */
	unsigned long reading;		/* workers in its reads now */
	struct pf_parked *parked, **ptail;
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pf_share *buckets[SHARE_BUCKETS];

/* @uid's entry, made when @create; NULL if none (or no memory for one). */
static struct pf_share *share_find(uid_t uid, bool create)
{
	struct pf_share **pp = &buckets[uid % SHARE_BUCKETS], *s;

	for (s = *pp; s && s->uid != uid; s = s->next)
		;
	if (s || !create)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (pthread_mutex_init(&s->rlock, NULL)) {
		free(s);
		return NULL;
	}
	s->ptail = &s->parked;
	s->uid = uid;
	s->next = *pp;
	*pp = s;
	return s;
}

/* Free @s once it holds nothing: the table has an entry per active uid. */
static void share_put(struct pf_share *s)
{
	struct pf_share **pp;
	unsigned long refs;

	if (s->held || s->dirs || s->mlock.user || s->mlock.pinned ||
	    s->timer_rate || s->calls || s->cgids)
		return;
	pthread_mutex_lock(&s->rlock);
	refs = s->refs;
	pthread_mutex_unlock(&s->rlock);
	if (refs)
		return;
	for (pp = &buckets[s->uid % SHARE_BUCKETS]; *pp != s; pp = &(*pp)->next)
		;
	*pp = s->next;
	pthread_mutex_destroy(&s->rlock);
	free(s);
}

/*
 * Add @n to what @uid holds of one kind (its fds, or with @dirs its
 * directory handles), unless that goes over @max (0: no limit; none for
 * the daemon's own credentials): 0, -EMFILE, or -ENOMEM.
 */
static int share_take(uid_t uid, bool dirs, unsigned long n,
		      unsigned long max)
{
	unsigned long *held;
	struct pf_share *s;
	int err = 0;

	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	if (!s) {
		err = -ENOMEM;
	} else {
		held = dirs ? &s->dirs : &s->held;
		if (uid != PF_UID_DAEMON && max && (n > max || *held > max - n))
			err = -EMFILE;
		else
			*held += n;
		share_put(s);
	}
	pthread_mutex_unlock(&share_lock);
	return err;
}

/* Give back @n of what @uid holds of one kind (never below 0). */
static void share_give(uid_t uid, bool dirs, unsigned long n)
{
	unsigned long *held;
	struct pf_share *s;

	if (!n)
		return;
	pthread_mutex_lock(&share_lock);
	s = share_find(uid, false);
	if (s) {
		held = dirs ? &s->dirs : &s->held;
		*held -= n < *held ? n : *held;
		share_put(s);
	}
	pthread_mutex_unlock(&share_lock);
}

/* Take @n units (fds) of @uid's share: 0, or -EMFILE when over it. */
int pf_share_take(uid_t uid, unsigned long n)
{
	return share_take(uid, false, n, pf_opts.max_counters);
}

void pf_share_give(uid_t uid, unsigned long n)
{
	share_give(uid, false, n);
}

/* Take one directory handle of @uid's share: 0, or -EMFILE when over it. */
int pf_share_dir_take(uid_t uid)
{
	return share_take(uid, true, 1, pf_opts.max_dirs);
}

void pf_share_dir_give(uid_t uid)
{
	share_give(uid, true, 1);
}

/*
 * One more cgroup walk of @uid's (opener.c): 0, or -EAGAIN when it
 * already has pf_opts.max_calls in the daemon (none for the daemon's own).
 */
int pf_share_call_take(uid_t uid)
{
	struct pf_share *s;
	int err = 0;

	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	if (!s)
		err = -ENOMEM;
	else if (uid != PF_UID_DAEMON && pf_opts.max_calls &&
		 s->calls >= pf_opts.max_calls)
		err = -EAGAIN;
	else
		s->calls++;
	if (s)
		share_put(s);
	pthread_mutex_unlock(&share_lock);
	return err;
}

void pf_share_call_give(uid_t uid)
{
	struct pf_share *s;

	pthread_mutex_lock(&share_lock);
	s = share_find(uid, false);
	if (s) {
		if (s->calls)
			s->calls--;
		share_put(s);
	}
	pthread_mutex_unlock(&share_lock);
}

/*
 * @n more cgroup ids held in @uid's open directory listings (fs.c): 0, or
 * -EMFILE past PF_CGROUP_IDS_MAX (none for the daemon's own), so that the
 * handles max_dirs allows cannot each keep PF_CGROUP_MAX of them.
 */
int pf_share_cgids_take(uid_t uid, unsigned long n)
{
	struct pf_share *s;
	int err = 0;

	if (!n)
		return 0;
	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	if (!s)
		err = -ENOMEM;
	else if (uid != PF_UID_DAEMON && pf_opts.max_dirs &&
		 (n > PF_CGROUP_IDS_MAX || s->cgids > PF_CGROUP_IDS_MAX - n))
		err = -EMFILE;
	else
		s->cgids += n;
	if (s)
		share_put(s);
	pthread_mutex_unlock(&share_lock);
	return err;
}

void pf_share_cgids_give(uid_t uid, unsigned long n)
{
	struct pf_share *s;

	if (!n)
		return;
	pthread_mutex_lock(&share_lock);
	s = share_find(uid, false);
	if (s) {
		s->cgids -= n < s->cgids ? n : s->cgids;
		share_put(s);
	}
	pthread_mutex_unlock(&share_lock);
}

/* A sysctl's number, or @fallback when it cannot be read. */
static long sysctl_long(const char *path, long fallback)
{
	FILE *f = fopen(path, "re");
	long v;

	if (!f)
		return fallback;
	if (fscanf(f, "%ld", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

/* What perf_mmap() would let @c lock, read now, as perf reads it. */
static int mlock_limits(const struct pf_caller *c, unsigned long page_size,
			struct pf_mlock_limits *lim)
{
	/* unreadable: no allowance, and as paranoid as perf can be */
	long kb = sysctl_long("/proc/sys/kernel/perf_event_mlock_kb", 0);
	long paranoid = sysctl_long("/proc/sys/kernel/perf_event_paranoid", 4);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t bytes;
	int err;

	memset(lim, 0, sizeof(*lim));
	if (kb < 0)
		kb = 0;
	if (cpus < 1)
		cpus = 1;
	if (paranoid < -1 || paranoid > 4)
		paranoid = paranoid < 0 ? -1 : 4;
	lim->allowance = pf_mlock_allowance(kb, cpus, page_size);
	lim->waived = pf_mlock_waived(c->st.cap_eff, c->same_userns,
				      (int)paranoid);
	if (lim->waived)
		return 0;
	/* the thread that asked: its limit, as perf_mmap() takes current's */
	err = pf_task_memlock(c->tid, &bytes);
	if (err)
		return err;
	lim->rlimit = pf_bytes_to_pages(bytes, page_size);
	return 0;
}

/*
 * Charge @pages locked for the caller @c (an irq leaf's rings and queue)
 * to its accountable uid, into @b: 0, or -EPERM past its limits.
 */
int pf_budget_lock(const struct pf_caller *c, unsigned long pages,
		   struct pf_budget *b)
{
	struct pf_mlock_limits lim;
	struct pf_mlock charge;
	struct pf_share *s;
	uid_t uid = c->acct_uid;
	int err;

	if (!pages)
		return 0;
	err = mlock_limits(c, sysconf(_SC_PAGESIZE), &lim);
	if (err)
		return err;
	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	err = s ? pf_mlock_charge(&s->mlock, &lim, pages, &charge) : -ENOMEM;
	if (!err) {
		s->mlock.user += charge.user;
		s->mlock.pinned += charge.pinned;
		b->uid = uid;
		b->mlock.user += charge.user;
		b->mlock.pinned += charge.pinned;
	}
	if (s)
		share_put(s);
	pthread_mutex_unlock(&share_lock);
	return err;
}

/*
 * Charge a timer of @period_ns for the caller @c to its accountable uid,
 * into @b: 0, or -ENOSPC when its timers would fire too often.
 */
int pf_budget_timer(const struct pf_caller *c, uint64_t period_ns,
		    struct pf_budget *b)
{
	unsigned long cost = pf_timer_cost(period_ns);
	struct pf_share *s;
	uid_t uid = c->acct_uid;
	int err;

	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	err = s ? pf_timer_charge(s->timer_rate, cost) : -ENOMEM;
	if (!err) {
		s->timer_rate += cost;
		b->uid = uid;
		b->timer_rate += cost;
	}
	if (s)
		share_put(s);
	pthread_mutex_unlock(&share_lock);
	return err;
}

/* Give back all that @b holds; @b is then empty. */
void pf_budget_give(struct pf_budget *b)
{
	struct pf_share *s;

	if (!b->mlock.user && !b->mlock.pinned && !b->timer_rate)
		return;
	pthread_mutex_lock(&share_lock);
	s = share_find(b->uid, false);
	if (s) {
		s->mlock.user -= b->mlock.user < s->mlock.user ?
				 b->mlock.user : s->mlock.user;
		s->mlock.pinned -= b->mlock.pinned < s->mlock.pinned ?
				   b->mlock.pinned : s->mlock.pinned;
		s->timer_rate -= b->timer_rate < s->timer_rate ?
				 b->timer_rate : s->timer_rate;
		share_put(s);
	}
	pthread_mutex_unlock(&share_lock);
	memset(b, 0, sizeof(*b));
}

/*
 * A period-0 read is done on the worker that took it, as long as the
 * read of a set takes: one read() a counter, up to max_counters of them.
 * One user's reads of many large sets could hold every worker, and
 * another user's read would wait behind them in the FUSE queue, so each
 * user's reads may hold at most pf_opts.max_calls workers at once (a
 * quarter of them).  A read past that is parked, and the worker goes back
 * to the queue; the user's next worker to finish a read takes every read
 * parked meanwhile (counter.c's read_parked(), which answers the reads of
 * one shared set among them with one read of it).  No read is refused,
 * and the other workers stay free for everyone else.  The daemon's own
 * (root's) reads have no limit.
 *
 * A leaf holds its user's entry from its open to its release
 * (pf_share_files_get()), so the hot read takes only that user's rlock;
 * a worker reading holds it too, until its last read is answered, for
 * the answer may be what the leaf's release waited for.
 */
struct pf_share *pf_share_files_get(uid_t uid)
{
	struct pf_share *s;

	if (uid == PF_UID_DAEMON)
		return NULL;
	pthread_mutex_lock(&share_lock);
	s = share_find(uid, true);
	if (s) {
		pthread_mutex_lock(&s->rlock);
		s->refs++;
		pthread_mutex_unlock(&s->rlock);
	}
	pthread_mutex_unlock(&share_lock);
	return s;
}

void pf_share_files_put(struct pf_share *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&share_lock);
	pthread_mutex_lock(&s->rlock);
	s->refs--;
	pthread_mutex_unlock(&s->rlock);
	share_put(s);
	pthread_mutex_unlock(&share_lock);
}

/*
 * A period-0 read of @f by @s's user: true when the caller is to do it
 * now (then pf_share_read_next() when done), false when it was parked
 * for one of the user's workers already reading.  Out of memory to park
 * it, it is done now.
 */
bool pf_share_read_enter(struct pf_share *s, fuse_req_t req,
			 struct pf_file *f, size_t size, off_t off)
{
	struct pf_parked *p;

	if (!s)
		return true;
	pthread_mutex_lock(&s->rlock);
	if (!pf_opts.max_calls || s->reading < pf_opts.max_calls ||
	    !(p = malloc(sizeof(*p)))) {
		s->reading++;
		s->refs++;
		pthread_mutex_unlock(&s->rlock);
		return true;
	}
	p->next = NULL;
	p->req = req;
	p->f = f;
	p->size = size;
	p->off = off;
	*s->ptail = p;
	s->ptail = &p->next;
	pthread_mutex_unlock(&s->rlock);
	return false;
}

/*
 * Done with the reads of @s's user that this worker had: those parked for
 * it meanwhile, in order, to do now and free; NULL when none waits (and
 * the worker is no longer one of the user's).
 */
struct pf_parked *pf_share_read_next(struct pf_share *s)
{
	struct pf_parked *p;
	uid_t uid;
	bool last = false;

	if (!s)
		return NULL;
	pthread_mutex_lock(&s->rlock);
	p = s->parked;
	if (p) {
		s->parked = NULL;
		s->ptail = &s->parked;
	} else {
		s->reading--;
		last = !--s->refs;
	}
	uid = s->uid;
	pthread_mutex_unlock(&s->rlock);
	/* @s may be gone as soon as rlock is free: found again */
	if (last) {
		pthread_mutex_lock(&share_lock);
		s = share_find(uid, false);
		if (s)
			share_put(s);
		pthread_mutex_unlock(&share_lock);
	}
	return p;
}
