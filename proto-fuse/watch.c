// SPDX-License-Identifier: GPL-2.0
/*
 * One pidfd per counted target, shared by every open leaf that counts it.
 *
 * A leaf on a pid must learn when its target exits (its blocked readers
 * get the last line, then EOF), and a pidfd in the event loop's epoll set
 * tells it.  One pidfd per leaf made each leaf two fds: 10,000 leaves on
 * one process ran into a 20,000-fd limit at 9,995.  Now the leaves of one
 * target share its pidfd; the watch goes when its last leaf does, or when
 * the target exits.
 *
 * Each pidfd is one of the daemon's fds, so it is one unit of the share
 * (share.c) of the leaf that made the watch: charged to that leaf's
 * accountable uid when the watch is made, given back when it goes (which
 * may be after that leaf, while other leaves of the target hold it).
 *
 * Its epoll key (pf_watch_key()) names the pid and a generation, so that
 * an event still queued for a watch that is gone finds nothing, not the
 * watch of a new process that got the same pid.
 *
 * Everything here runs under pf_lock; the share's share_lock is taken
 * under it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

#define WATCH_BUCKETS	256
#define KEY_PID_BITS	23	/* pids stay below 2^22 (PID_MAX_LIMIT) */
#define KEY_THREAD	(1ULL << KEY_PID_BITS)
#define KEY_GEN_SHIFT	24

struct pf_watch {
	struct pf_watch *next;		/* in its bucket */
	pid_t pid;
	bool thread;			/* a thread's pidfd, not a process's */
	uint16_t gen;
	int pidfd;
	uid_t uid;			/* whose share its pidfd is in */
	unsigned int nr, alloc;
	void **owners;
};

static struct pf_watch *buckets[WATCH_BUCKETS];
static uint16_t next_gen;

static struct pf_watch **bucket(pid_t pid)
{
	return &buckets[(unsigned int)pid % WATCH_BUCKETS];
}

uint64_t pf_watch_key(const struct pf_watch *w)
{
	return (PF_WATCH_SLOT << 40) | ((uint64_t)w->gen << KEY_GEN_SHIFT) |
	       (w->thread ? KEY_THREAD : 0) | (uint64_t)w->pid;
}

static void watch_free(struct pf_watch *w, int epfd)
{
	struct pf_watch **pp;

	for (pp = bucket(w->pid); *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->pidfd, NULL);
	close(w->pidfd);
	pf_share_give(w->uid, 1);
	free(w->owners);
	free(w);
}

/* Has the target of @w exited?  Its pidfd is readable then. */
static bool watch_fired(const struct pf_watch *w)
{
	struct pollfd p = { .fd = w->pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* Is the target of @w still there (so its pid is still its own)? */
bool pf_watch_alive(const struct pf_watch *w)
{
	return !watch_fired(w);
}

/*
 * The watch of @pid (a thread's if @thread), shared or new, in the epoll
 * set @epfd; a new one's pidfd is charged to @uid's share.  -ENOENT when
 * the target is gone, -EMFILE (the daemon's, or @uid out of its share),
 * -ENFILE or -ENOMEM, or -ENOSYS when this kernel (or valgrind) has no
 * pidfd_open: the caller watches by other means then.
 */
int pf_watch_get(pid_t pid, bool thread, int epfd, uid_t uid,
		 struct pf_watch **out)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct pf_watch *w;
	int err;

	for (w = *bucket(pid); w; w = w->next) {
		if (w->pid != pid || w->thread != thread)
			continue;
		/*
		 * Its target exited and the loop has not seen it yet, so the
		 * pid may be another process's now: a watch of its own.  The
		 * loop ends this one's leaves when it gets there.
		 */
		if (watch_fired(w))
			continue;
		*out = w;
		return 0;
	}
	err = pf_share_take(uid, 1);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w) {
		pf_share_give(uid, 1);
		return -ENOMEM;
	}
	w->pidfd = syscall(SYS_pidfd_open, pid, thread ? PIDFD_THREAD : 0);
	if (w->pidfd < 0) {
		err = errno;
		free(w);
		pf_share_give(uid, 1);
		if (err == ESRCH)
			return -ENOENT;
		if (pf_err_transient(err))
			return -err;
		return -ENOSYS;
	}
	w->pid = pid;
	w->thread = thread;
	w->uid = uid;
	w->gen = next_gen++;
	ev.data.u64 = pf_watch_key(w);
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, w->pidfd, &ev)) {
		err = -errno;
		close(w->pidfd);
		free(w);
		pf_share_give(uid, 1);
		return err;
	}
	w->next = *bucket(pid);
	*bucket(pid) = w;
	*out = w;
	return 0;
}

/*
 * @owner now counts on @w.  On failure (-ENOMEM) a watch nobody else
 * holds is freed.
 */
int pf_watch_add(struct pf_watch *w, void *owner, int epfd)
{
	if (w->nr == w->alloc) {
		unsigned int n = w->alloc ? 2 * w->alloc : 4;
		void **p = realloc(w->owners, n * sizeof(*p));

		if (!p) {
			if (!w->nr)
				watch_free(w, epfd);
			return -ENOMEM;
		}
		w->owners = p;
		w->alloc = n;
	}
	w->owners[w->nr++] = owner;
	return 0;
}

/* @owner is done with @w; the last one's leaving frees it. */
void pf_watch_del(struct pf_watch *w, void *owner, int epfd)
{
	unsigned int i;

	for (i = 0; i < w->nr; i++)
		if (w->owners[i] == owner) {
			w->owners[i] = w->owners[--w->nr];
			break;
		}
	if (!w->nr)
		watch_free(w, epfd);
}

/*
 * The loop got @key: if its watch is still there, its target exited.
 * Calls @gone for each owner, then frees the watch; @gone must not call
 * pf_watch_del().
 */
void pf_watch_fire(uint64_t key, int epfd, void (*gone)(void *owner))
{
	pid_t pid = key & (KEY_THREAD - 1);
	struct pf_watch *w;
	unsigned int i;

	for (w = *bucket(pid); w; w = w->next)
		if (pf_watch_key(w) == key)
			break;
	if (!w)
		return;
	for (i = 0; i < w->nr; i++)
		gone(w->owners[i]);
	watch_free(w, epfd);
}
