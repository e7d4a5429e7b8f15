// SPDX-License-Identifier: GPL-2.0
/*
 * Reads that must wait (period N, a time period, irq).  Such a read never
 * holds a libfuse worker: its fuse_req_t is queued on the file as a
 * waiter, and answered later, oldest reader first, by file_kick(), which
 * the event loop (loop.c) and the file operations (counter.c) call when
 * something may have changed.
 *
 * A read interrupted by a signal it sleeps through (a stop, SIGCONT) is
 * deferred: the tick reads its reader's /proc status again, to end it when
 * a fatal signal follows, after a backoff (100 ms doubling to 1.6 s) and
 * for at most DEFER_CHECKS readers a tick, earliest due first; those reads
 * run after the lock is let go, and what they found is applied under it to
 * the readers still there (deferred_collect(), deferred_apply()).  A
 * user's stopped threads thus cost at most 2,560 status reads a second,
 * none under the lock; an interrupt finds its reader by a hash, whash[].
 *
 * Everything here runs under pf_lock, except pid_wants_interrupt(): an
 * interrupt's own look at /proc (read_interrupted()) and the loop's looks
 * for deferred readers are made without it.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "counter.h"

#define WHASH_BITS	12		/* waiters by request: 4096 chains */

static struct pf_waiter *whash[1U << WHASH_BITS];
/* deferred waiters by backoff level; each in order of due time */
static struct {
	struct pf_waiter *head, **tail;
} deferq[DEFER_LEVELS];

/* ---- waiters ---------------------------------------------------------- */

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct pf_waiter **whash_chain(fuse_req_t req)
{
	uint64_t h = (uint64_t)(uintptr_t)req * 0x9e3779b97f4a7c15ULL;

	return &whash[h >> (64 - WHASH_BITS)];
}

/* The waiter of @req, without walking every file's readers. */
static struct pf_waiter *waiter_find(fuse_req_t req)
{
	struct pf_waiter *w;

	for (w = *whash_chain(req); w; w = w->hnext)
		if (w->req == req)
			return w;
	return NULL;
}

/* Queue @w, a new reader of @f, as the newest. */
void waiter_add(struct pf_file *f, struct pf_waiter *w)
{
	struct pf_waiter **chain = whash_chain(w->req);

	w->f = f;
	w->next = NULL;
	w->pprev = f->wtail;
	*f->wtail = w;
	f->wtail = &w->next;
	w->hnext = *chain;
	if (*chain)
		(*chain)->hpprev = &w->hnext;
	w->hpprev = chain;
	*chain = w;
}

static void deferq_del(struct pf_waiter *w)
{
	if (!w->queued)
		return;
	*w->dpprev = w->dnext;
	if (w->dnext)
		w->dnext->dpprev = w->dpprev;
	else
		deferq[w->level].tail = w->dpprev;
	w->queued = false;
}

/* @w's next look at its /proc status: TICK_NS << w->level from @now. */
static void deferq_add(struct pf_waiter *w, uint64_t now)
{
	unsigned int l = w->level;

	if (!deferq[l].tail)
		deferq[l].tail = &deferq[l].head;
	w->due = now + (TICK_NS << l);
	w->dnext = NULL;
	w->dpprev = deferq[l].tail;
	*deferq[l].tail = w;
	deferq[l].tail = &w->dnext;
	w->queued = true;
}

/* Take @w out of its file's readers and every index; not freed. */
static void waiter_unlink(struct pf_waiter *w)
{
	struct pf_file *f = w->f;

	*w->pprev = w->next;
	if (w->next)
		w->next->pprev = w->pprev;
	else
		f->wtail = w->pprev;
	*w->hpprev = w->hnext;
	if (w->hnext)
		w->hnext->hpprev = w->hpprev;
	deferq_del(w);
	if (w->deferred)
		f->ndeferred--;
}

/* Answer @w, still queued, with -@err. */
void waiter_fail(struct pf_waiter *w, int err)
{
	waiter_unlink(w);
	fuse_reply_err(w->req, err);
	free(w);
}

/*
 * An interrupt @w's reader honours: end the read with EINTR, or, while
 * its registration is still in flight, leave that to the registration.
 */
static void waiter_interrupt(struct pf_waiter *w)
{
	struct pf_file *f = w->f;

	if (w->registering) {
		w->interrupted = true;
		return;
	}
	waiter_fail(w, EINTR);
	file_kick(f);
}

static void reply_waiter(struct pf_file *f, struct pf_waiter *w)
{
	char buf[PF_LINE_MAX * 64];
	size_t size = w->size < sizeof(buf) ? w->size : sizeof(buf);
	size_t n = file_take(f, buf, size);

	fuse_reply_buf(w->req, buf, n);
	free(w);
}

/* Answer whatever can be answered now, oldest reader first. */
void file_kick(struct pf_file *f)
{
	struct pf_waiter *w = f->waiters;

	while (w) {
		struct pf_waiter *next = w->next;

		if (!w->registering) {
			if (!file_ready(f))
				break;
			waiter_unlink(w);
			reply_waiter(f, w);
		}
		w = next;
	}
	if (f->ph && file_ready(f)) {
		fuse_lowlevel_notify_poll(f->ph);
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
}

/* ---- deferred readers ------------------------------------------------ */

/*
 * Under pf_lock: take the deferred readers due for a look (at most
 * DEFER_CHECKS, earliest due first: each level's queue is in due order)
 * out of their queues and note what to look at.  Their /proc is read
 * after the lock is let go; deferred_apply() finds them again by request.
 */
unsigned int deferred_collect(struct defer_check *c, uint64_t now)
{
	unsigned int n, l;

	for (n = 0; n < DEFER_CHECKS; n++) {
		struct pf_waiter *w = NULL;

		for (l = 0; l < DEFER_LEVELS; l++)
			if (deferq[l].head && (!w || deferq[l].head->due < w->due))
				w = deferq[l].head;
		/* the tick that comes a little early still takes it */
		if (!w || w->due > now + TICK_NS / 2)
			break;
		deferq_del(w);
		w->checking = true;
		c[n].req = w->req;
		c[n].pid = fuse_req_ctx(w->req)->pid;
		c[n].wanted = false;
	}
	return n;
}

/*
 * Under pf_lock again: end the reads whose deferred interrupt became one
 * to honour, and queue the others for a look twice as late.  A reader
 * answered meanwhile is gone from whash[]; a new one that got the same
 * request pointer since is not "checking".
 */
void deferred_apply(const struct defer_check *c, unsigned int n,
		    uint64_t now)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct pf_waiter *w = waiter_find(c[i].req);

		if (!w || !w->checking)
			continue;
		w->checking = false;
		if (!c[i].wanted) {
			if (w->level < DEFER_LEVELS - 1)
				w->level++;
			deferq_add(w, now);
		} else {
			waiter_interrupt(w);
		}
	}
}

/* ---- interrupts ------------------------------------------------------- */

/*
 * Should an interrupt end the blocked read of thread @pid with EINTR?
 *
 * On a perf fd (or any kernel file) a read cut by a signal returns
 * -ERESTARTSYS, and the kernel restarts it after a stop, or after a
 * handler installed with SA_RESTART.  A FUSE daemon cannot say that: the
 * kernel refuses reply errors at or below -512, the restart codes.  What
 * it can see is which signals the reader has pending (/proc status), not
 * a handler's SA_RESTART.  So: a fatal signal (SIGKILL, queued for every
 * thread of a dying process) or a signal the reader handles ends the read
 * with EINTR, so the handler runs now (one without SA_RESTART, an alarm
 * for a timeout, gets what it wants; one with SA_RESTART sees EINTR: the
 * documented limit).  Anything else, a stop (SIGSTOP, SIGTSTP, SIGTTIN),
 * SIGCONT, or a signal whose default is to be ignored, must not break the
 * read: it goes on, as a restarted read would.
 */
bool pid_wants_interrupt(pid_t pid)
{
	uint64_t pnd = 0, blk = 0, cgt = 0;
	char path[64], buf[16384], *line, *save;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return true;	/* gone, or not ours to see: let it go */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7))
			pnd |= strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigBlk:", 7))
			blk = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigCgt:", 7))
			cgt = strtoull(line + 7, NULL, 16);
	}
	pnd &= ~blk | (1ULL << (SIGKILL - 1));
	return (pnd & (1ULL << (SIGKILL - 1))) || (pnd & cgt);
}

/*
 * libfuse calls this with the request's own lock held, maybe before the
 * read handler has finished queueing it (then it only marks it), maybe
 * after the loop answered it (then it is no longer queued and nothing
 * happens: the lookup by pointer is safe because libfuse holds a
 * reference to the request while it calls us).  The waiter is found by
 * its request (whash[]), not by walking every file's readers under
 * pf_lock: a group stop of W threads blocked in reads interrupts all W.
 * A deferred one is looked at again by the loop (deferred_collect()),
 * with a backoff, until it is answered.
 */
void read_interrupted(fuse_req_t req, void *data)
{
	struct pf_waiter *w;
	bool wanted;

	(void)data;
	wanted = pid_wants_interrupt(fuse_req_ctx(req)->pid);
	pthread_mutex_lock(&pf_lock);
	w = waiter_find(req);
	if (!w) {
		/* answered already */
	} else if (!wanted) {
		/* the tick ends it if a fatal signal follows */
		if (!w->deferred) {
			w->deferred = true;
			w->f->ndeferred++;
			w->level = 0;
			deferq_add(w, mono_ns());
		}
		tick_arm(true);
	} else {
		waiter_interrupt(w);
	}
	pthread_mutex_unlock(&pf_lock);
}
