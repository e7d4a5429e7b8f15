// SPDX-License-Identifier: GPL-2.0
/*
 * The counters behind an open leaf: opening and releasing them, reading
 * them into lines, and the file operations on them.
 *
 * An open leaf (struct pf_file) holds one perf group per target: per
 * thread for a process, per CPU for the system-wide counter, else one.
 * Its line is the member-wise sum of their reads.
 *
 * The rest of an open leaf's machinery shares counter.h: irq leaves'
 * records are ring.c's, reads that must wait are wait.c's, and the event
 * loop that answers them is loop.c's.
 *
 * Everything here runs under pf_lock, except the read of a period-0 leaf
 * (read_period0()), which takes only its own file's line0_lock and the
 * lock of the counters it reads (struct pf_src), and the making and
 * closing of a leaf's counters (open_sets(), file_destroy()), done
 * without the lock while the event loop cannot see the file.
 *
 * The period-0 leaves opened with one set of credentials (one opener's)
 * on one target, event and type read one set of counters (struct
 * pf_src), each from its own baseline: a process whose T threads each
 * read such a leaf of "self" held T sets of T counters and read T of them
 * per read, so its reads cost T times more as it grew.  Now the T leaves
 * hold one set, and reads that arrive while it is being read are answered
 * by the next read of it, made once for all of them by whichever worker
 * comes (src_read(); src_sample() for opens and ioctls).  Counters that one opener made
 * are never read for a caller another opener serves: see src_attach().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"
#include "counter.h"

/*
 * Data pages of irq rings, over all the sets of a leaf: while nobody
 * reads, samples wait in the kernel's rings (see drain_ring()), so they
 * hold at least PF_IRQ_QUEUE records of 24 bytes (32 pages: 5461).
 */
#define RB_PAGES_IRQ	32
#define RB_PAGES_MIN	2	/* a set's ring, when many share the budget */
#define MAX_SETS	65000	/* fits the 16-bit index in epoll data */

pthread_mutex_t pf_lock = PTHREAD_MUTEX_INITIALIZER;

struct pf_file **files;
unsigned int nr_files_alloc;
static struct pf_src *srcs;		/* joinable shared sets */
unsigned int pf_src_readers = 1;	/* reads of one set at once */
static uint32_t next_gen = 1;
static unsigned long nr_counters;	/* perf fds held by open leaves */
static bool warned_pidfd;		/* logged once: no pidfd_open here */
long page_size;

unsigned long pf_open_counters(void)
{
	unsigned long n;

	pthread_mutex_lock(&pf_lock);
	n = nr_counters;
	pthread_mutex_unlock(&pf_lock);
	return n;
}

/* An errno from /proc about a task: a task that is gone is ENOENT. */
static int proc_err(int err)
{
	return err == ENOENT || err == ESRCH ? -ENOENT : -err;
}

/* ---- reading counts --------------------------------------------------- */

/*
 * One read of a perf group.  An inherited child group is taken apart
 * member by member when its thread exits, and perf refuses (ECHILD) to
 * sum a group whose child is half gone: wait for the exit to finish, a
 * matter of microseconds, rather than answer a zero line.  Bounded: the
 * read's error if it does not.
 */
static ssize_t group_read(int fd, uint64_t *buf, size_t size)
{
	unsigned int tries;
	ssize_t n;

	for (tries = 0; ; tries++) {
		n = read(fd, buf, size);
		if (n >= 0 || errno != ECHILD || tries == 100)
			return n;
		if (tries < 10)
			sched_yield();
		else
			usleep(100);
	}
}

static int sets_sample(const struct pf_set *sets, unsigned int nr_sets,
		       unsigned int nr_members, bool group, uint64_t *vals,
		       uint64_t *ena, uint64_t *run)
{
	uint64_t buf[3 + PERFCTRFS_MAX_GROUP];
	unsigned int s, m;

	memset(vals, 0, nr_members * sizeof(*vals));
	*ena = 0;
	*run = 0;
	for (s = 0; s < nr_sets; s++) {
		ssize_t n = group_read(sets[s].fd[0], buf, sizeof(buf));

		if (group) {
			/* { nr, time_enabled, time_running, value[nr] } */
			if (n < (ssize_t)(3 * sizeof(uint64_t)) ||
			    buf[0] != nr_members)
				return -EIO;
			*ena += buf[1];
			*run += buf[2];
			for (m = 0; m < nr_members; m++)
				vals[m] += buf[3 + m];
		} else {
			/* { value, time_enabled, time_running } */
			if (n < (ssize_t)(3 * sizeof(uint64_t)))
				return -EIO;
			vals[0] += buf[0];
			*ena += buf[1];
			*run += buf[2];
		}
	}
	return 0;
}

int file_sample(struct pf_file *f, uint64_t *vals, uint64_t *ena,
		uint64_t *run)
{
	return sets_sample(f->sets, f->nr_sets, f->nr_members, f->group, vals,
			   ena, run);
}

/* Under src->lock: the read of the set numbered @gen is @v, @ena, @run. */
static void src_publish(struct pf_src *src, uint64_t gen, const uint64_t *v,
			uint64_t ena, uint64_t run, int err)
{
	/* reads of the set may end out of order (src_read()) */
	if (gen > src->done) {
		memcpy(src->vals, v, src->nr_members * sizeof(*v));
		src->ena = ena;
		src->run = run;
		src->err = err;
		src->done = gen;
	}
	pthread_cond_broadcast(&src->cond);
}

/*
 * A read of @src's counters made after this call began, into @vals,
 * @ena and @run.  One reader reads them; those who come meanwhile wait,
 * and the first of them to wake reads them once more for all of them:
 * however many readers pile up, one read of the set answers them.  A
 * read of src_read()'s that ends meanwhile serves too, if it began after
 * this call did (src->started, src->done).
 */
static int src_sample(struct pf_src *src, uint64_t *vals, uint64_t *ena,
		      uint64_t *run)
{
	uint64_t want, gen, v[PERFCTRFS_MAX_GROUP], e, r;
	int err;

	pthread_mutex_lock(&src->lock);
	/* one under way began before us: the next one is ours */
	want = src->started + 1;
	while (src->done < want) {
		if (src->sampling || src->reading) {
			pthread_cond_wait(&src->cond, &src->lock);
			continue;
		}
		gen = ++src->started;
		src->sampling = true;
		pthread_mutex_unlock(&src->lock);
		err = sets_sample(src->sets, src->nr_sets, src->nr_members,
				  src->group, v, &e, &r);
		pthread_mutex_lock(&src->lock);
		src->sampling = false;
		src_publish(src, gen, v, e, r, err);
	}
	memcpy(vals, src->vals, src->nr_members * sizeof(*vals));
	*ena = src->ena;
	*run = src->run;
	err = src->err;
	pthread_mutex_unlock(&src->lock);
	return err;
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * @f's view of a read of its shared set, in place: since its open, less
 * what its disable and reset took out (disabled: what it froze at).
 * Under f->line0_lock.
 */
static void view_apply(const struct pf_file *f, uint64_t *vals, uint64_t *ena,
		       uint64_t *run)
{
	const struct pf_view *v = &f->view;
	unsigned int m;

	if (v->disabled) {
		memcpy(vals, v->frozen, f->nr_members * sizeof(*vals));
		*ena = v->frozen_ena;
		*run = v->frozen_run;
		return;
	}
	for (m = 0; m < f->nr_members; m++)
		vals[m] = sub_sat(vals[m], v->base[m]);
	*ena = sub_sat(*ena, v->base_ena);
	*run = sub_sat(*run, v->base_run);
}

/*
 * What @f's own counters would read, from its shared set: since its open,
 * less what its disable and reset took out.  Under f->line0_lock.
 */
static int view_sample(struct pf_file *f, uint64_t *vals, uint64_t *ena,
		       uint64_t *run)
{
	int err = 0;

	if (!f->view.disabled)
		err = src_sample(f->src, vals, ena, run);
	if (!err)
		view_apply(f, vals, ena, run);
	return err;
}

/*
 * PERF_EVENT_IOC_ENABLE, _DISABLE or _RESET on @f's view of its shared
 * set, as perf does them on counters of its own: disabled, the count and
 * times stand still; reset zeroes the count, not the times.
 */
static int view_ioc(struct pf_file *f, unsigned long cmd)
{
	struct pf_view *v = &f->view;
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;
	unsigned int m;
	int err = 0;

	pthread_mutex_lock(&f->line0_lock);
	if (cmd == PERF_EVENT_IOC_DISABLE && !v->disabled) {
		err = view_sample(f, v->frozen, &v->frozen_ena,
				  &v->frozen_run);
		if (!err)
			v->disabled = true;
	} else if (cmd == PERF_EVENT_IOC_ENABLE && v->disabled) {
		err = src_sample(f->src, vals, &ena, &run);
		if (!err) {
			for (m = 0; m < f->nr_members; m++)
				v->base[m] = sub_sat(vals[m], v->frozen[m]);
			v->base_ena = sub_sat(ena, v->frozen_ena);
			v->base_run = sub_sat(run, v->frozen_run);
			v->disabled = false;
		}
	} else if (cmd == PERF_EVENT_IOC_RESET && v->disabled) {
		memset(v->frozen, 0, sizeof(v->frozen));
	} else if (cmd == PERF_EVENT_IOC_RESET) {
		err = src_sample(f->src, vals, &ena, &run);
		if (!err)
			memcpy(v->base, vals, sizeof(v->base));
	}
	pthread_mutex_unlock(&f->line0_lock);
	return err;
}

/* the longest line: PERFCTRFS_MAX_GROUP counts and two times, spaced */
_Static_assert(PF_LINE_MAX >= (PERFCTRFS_MAX_GROUP + 2) * (PF_U64_DIGITS + 1) + 1,
	       "PF_LINE_MAX cannot hold the longest line");

/*
 * The line of a simple or times leaf of counts @vals and times @ena and
 * @run, into @buf of PF_LINE_MAX bytes; returns its length.  The digits
 * written by hand, no snprintf and no allocation.
 */
static size_t put_line(const struct pf_file *f, char *buf,
		       const uint64_t *vals, uint64_t ena, uint64_t run)
{
	char *p = buf;
	unsigned int m;

	for (m = 0; m < f->nr_members; m++) {
		if (m)
			*p++ = ' ';
		p = pf_put_u64(p, vals[m]);
	}
	if (f->type == PERFCTRFS_TIMES) {
		*p++ = ' ';
		p = pf_put_u64(p, ena);
		*p++ = ' ';
		p = pf_put_u64(p, run);
	}
	*p++ = '\n';
	return p - buf;
}

/*
 * The line of a simple or times leaf, read now, into @buf of PF_LINE_MAX
 * bytes; returns its length.  One read() per perf group.
 */
static size_t format_line(struct pf_file *f, char *buf, uint64_t *leader)
{
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;

	if (f->src ? view_sample(f, vals, &ena, &run) :
		     file_sample(f, vals, &ena, &run)) {
		/* a failed read is a zero line, never a hang or garbage */
		memset(vals, 0, sizeof(vals));
		ena = 0;
		run = 0;
	}
	if (leader)
		*leader = vals[0];
	return put_line(f, buf, vals, ena, run);
}

/* ---- readiness and replies -------------------------------------------- */

static bool count_ready(struct pf_file *f)
{
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;

	if (file_sample(f, vals, &ena, &run))
		return false;
	return vals[0] >= f->last && vals[0] - f->last >= f->period.value;
}

/* Can a read be answered now (with data or EOF)? */
bool file_ready(struct pf_file *f)
{
	if (f->rem_off < f->rem_len || f->dead)
		return true;
	switch (f->type) {
	case PERFCTRFS_IRQ:
		/* what the kernel wrote since the loop last looked counts */
		irq_gather(f);
		return f->qlen || f->lost_pending;
	default:
		if (!f->period.value)
			return true;
		if (f->period.is_time)
			return f->tick;
		return count_ready(f);
	}
}

/* The next irq line (a sample or a "lost <n>") into @buf of PF_LINE_MAX. */
static size_t irq_line(struct pf_file *f, char *buf)
{
	struct pf_irq_rec *r;
	char *p = buf;

	if (!f->qlen) {
		p = pf_put_str(p, "lost ");
		p = pf_put_u64(p, f->lost_pending);
		f->lost_pending = 0;
	} else {
		r = &f->q[f->qhead];
		if (r->lost) {
			p = pf_put_str(p, "lost ");
			p = pf_put_u64(p, r->count);
		} else {
			p = pf_put_u64(p, r->count);
			p = pf_put_str(p, " 0x");
			p = pf_put_hex(p, r->ip);
		}
		f->qhead = (f->qhead + 1) % f->qcap;
		f->qlen--;
	}
	*p++ = '\n';
	return p - buf;
}

/*
 * Fill @out with what a ready file gives a read of @size bytes: the rest
 * of a line first, else a fresh line (or, for irq, as many whole lines as
 * fit).  Returns the length; 0 is EOF.
 */
size_t file_take(struct pf_file *f, char *out, size_t size)
{
	size_t len = 0, n;

	if (f->rem_off < f->rem_len) {
		n = f->rem_len - f->rem_off;
		if (n > size)
			n = size;
		memcpy(out, f->rem + f->rem_off, n);
		f->rem_off += n;
		return n;
	}
	if (f->type == PERFCTRFS_IRQ) {
		irq_gather(f);
		while (f->qlen || f->lost_pending) {
			char line[PF_LINE_MAX];
			struct pf_irq_rec save;
			unsigned int savehead = f->qhead, saveqlen = f->qlen;
			uint64_t savelost = f->lost_pending;

			if (f->qlen)
				save = f->q[f->qhead];
			n = irq_line(f, line);
			if (len + n <= size) {
				memcpy(out + len, line, n);
				len += n;
				continue;
			}
			if (len) {
				/* keep it for the next read */
				f->qhead = savehead;
				f->qlen = saveqlen;
				f->lost_pending = savelost;
				if (saveqlen)
					f->q[f->qhead] = save;
				break;
			}
			/* a read smaller than one line gets it piecewise */
			memcpy(out, line, size);
			memcpy(f->rem, line, n);
			f->rem_len = n;
			f->rem_off = size;
			return size;
		}
		return len;
	}
	if (f->dead && f->final_done)
		return 0;
	n = format_line(f, f->rem, &f->last);
	f->tick = false;
	if (f->dead)
		f->final_done = true;
	f->rem_len = n;
	f->rem_off = n < size ? n : size;
	memcpy(out, f->rem, f->rem_off);
	return f->rem_off;
}

static unsigned int poll_events(struct pf_file *f)
{
	unsigned int ev = 0;

	if (file_ready(f))
		ev |= POLLIN | POLLRDNORM;
	if (f->dead)
		ev |= POLLHUP;
	return ev;
}

/* ---- the file operations ---------------------------------------------- */

/*
 * Answer @r, a read of its leaf's shared set, from the read of the set
 * it holds, as read_period0() would have: the line of the leaf's view,
 * kept for reads at later offsets.  The leaf is not touched after the
 * reply, which may be the last thing its release waited for.
 */
static void src_reply(struct pf_src_read *r)
{
	struct pf_file *f = r->f;
	char line[PF_LINE_MAX];
	size_t len;

	if (r->err) {
		/* a failed read is a zero line, never a hang or garbage */
		memset(r->vals, 0, sizeof(r->vals));
		r->ena = 0;
		r->run = 0;
	}
	pthread_mutex_lock(&f->line0_lock);
	if (!r->err || f->view.disabled)
		view_apply(f, r->vals, &r->ena, &r->run);
	len = put_line(f, line, r->vals, r->ena, r->run);
	memcpy(f->line0, line, len);
	f->line0_len = len;
	pthread_mutex_unlock(&f->line0_lock);
	fuse_reply_buf(r->req, line, len < r->size ? len : r->size);
}

/*
 * Queue a read at offset 0 of @f, a leaf of a shared set, for
 * src_drive(): false when out of memory.  The set is held (src->inside)
 * for the src_drive() that follows, since the read may be answered by
 * another worker at once, and its leaf released.
 */
static bool src_enqueue(struct pf_file *f, fuse_req_t req, size_t size)
{
	struct pf_src *src = f->src;
	struct pf_src_read *r;

	pthread_mutex_lock(&src->lock);
	r = src->qfree;
	if (r) {
		src->qfree = r->next;
	} else {
		r = malloc(sizeof(*r));
		if (!r) {
			pthread_mutex_unlock(&src->lock);
			return false;
		}
	}
	r->next = NULL;
	r->req = req;
	r->f = f;
	r->size = size;
	*src->qtail = r;
	src->qtail = &r->next;
	src->inside++;
	pthread_mutex_unlock(&src->lock);
	return true;
}

/*
 * Answer what is queued on @src, reading the set as src_read() says, and
 * let go of the @held holds that src_enqueue() took.
 */
static void src_drive(struct pf_src *src, unsigned int held)
{
	struct pf_src_read *r, *batch;
	uint64_t gen;

	pthread_mutex_lock(&src->lock);
	for (;;) {
		if ((r = src->ready)) {
			src->ready = r->next;
			if (!src->ready)
				src->readytail = &src->ready;
			src->replying++;
			pthread_mutex_unlock(&src->lock);
			src_reply(r);
			pthread_mutex_lock(&src->lock);
			src->replying--;
			r->next = src->qfree;
			src->qfree = r;
			continue;
		}
		/* read the set again, unless enough read it or answer */
		if (!src->q || src->reading + src->replying >= pf_src_readers)
			break;
		/* an open's or ioctl's read (src_sample()) under way */
		if (src->sampling) {
			pthread_cond_wait(&src->cond, &src->lock);
			continue;
		}
		batch = src->q;
		src->q = NULL;
		src->qtail = &src->q;
		gen = ++src->started;
		src->reading++;
		pthread_mutex_unlock(&src->lock);
		batch->err = sets_sample(src->sets, src->nr_sets,
					 src->nr_members, src->group,
					 batch->vals, &batch->ena, &batch->run);
		for (r = batch->next; r; r = r->next) {
			memcpy(r->vals, batch->vals, sizeof(r->vals));
			r->ena = batch->ena;
			r->run = batch->run;
			r->err = batch->err;
		}
		pthread_mutex_lock(&src->lock);
		src_publish(src, gen, batch->vals, batch->ena, batch->run,
			    batch->err);
		src->reading--;
		*src->readytail = batch;
		for (r = batch; r->next; r = r->next)
			;
		src->readytail = &r->next;
	}
	/* src_free() waits for the last to leave */
	src->inside -= held;
	if (!src->inside)
		pthread_cond_broadcast(&src->cond);
	pthread_mutex_unlock(&src->lock);
}

/*
 * A read at offset 0 of @f, a leaf of a shared set: queued, and answered
 * by a read of the set begun after it was (struct pf_src).  The workers
 * that come share the work and none sleeps on another: one reads the set
 * for all the reads queued (src->reading), and goes on while more came
 * meanwhile; the reads it has read for wait on src->ready for whoever
 * comes first to answer them, it or a worker that brings a read of its
 * own.  A worker leaves once no answer is waiting and no read of the set
 * is owed that another is not making, so that however many readers pile
 * up, one read of the set (one read() per thread of the target) answers
 * them all, and a worker that stalls (preempted) stalls nobody else's
 * answers but those it holds.  False (out of memory): @f is to be read
 * the old way.
 *
 * Up to pf_src_readers reads of the set (and answers) run at once, one
 * a CPU: a worker that brings a read while another reads the set reads
 * it again for the reads queued meanwhile, on its own CPU, rather than
 * leave them for the reader to read once it has answered its own.  With
 * one at a time, a set of one counter ran at 0.7-0.8 of the FUSE floor
 * from 4 readers up on 2 CPUs; two at a time, 0.9-1.0 (bench part 7).
 * Each batch is still read after all its reads came, so a reader whose
 * answer came before its next read sees a read begun after that answer.
 */
static bool src_read(struct pf_file *f, fuse_req_t req, size_t size)
{
	struct pf_src *src = f->src;

	if (!src_enqueue(f, req, size))
		return false;
	src_drive(src, 1);
	return true;
}

/*
 * Period 0, the hot path: answered without pf_lock, with one read() per
 * perf group, and no allocation once warm.  A leaf of its own counters
 * is answered here, on the libfuse worker that took the request; a leaf
 * of a shared set, at offset 0, by whichever worker reads the set next
 * for every read waiting (src_read()).  The counters of an open file do not change until its
 * release, and the kernel sends FUSE_RELEASE only once no read of the
 * file is in flight, so they are read without pf_lock, which would make
 * a read wait behind another leaf's open (perf_event_open under the
 * caller's credentials) or the event loop; a shared set (struct pf_src)
 * lives as long as any leaf that reads it.  The file's own line0_lock
 * guards line0, the line a read at offset 0 made, which reads at later
 * offsets (dd bs=1) continue, and the view of a shared set, which a
 * control word or ioctl moves.
 */
static void read_period0(fuse_req_t req, struct pf_file *f, size_t size,
			 off_t off)
{
	char line[PF_LINE_MAX];
	size_t len = 0;

	if (off == 0 && f->src && src_read(f, req, size))
		return;
	if (off == 0) {
		pthread_mutex_lock(&f->line0_lock);
		len = format_line(f, line, NULL);
		memcpy(f->line0, line, len);
		f->line0_len = len;
		pthread_mutex_unlock(&f->line0_lock);
	} else if (off > 0) {
		pthread_mutex_lock(&f->line0_lock);
		if ((size_t)off < f->line0_len) {
			len = f->line0_len - off;
			memcpy(line, f->line0 + off, len);
		}
		pthread_mutex_unlock(&f->line0_lock);
	}
	fuse_reply_buf(req, line, len < size ? len : size);
}

/*
 * Do the reads of one user that were parked while its workers read
 * (share.c), and free @list.  The reads of one shared set among them are
 * all queued before the set is read, so that one read of it answers them
 * together, as it would have had each come to a worker of its own.
 */
static void read_parked(struct pf_parked *list)
{
	struct pf_src *src[PF_PARKED_SETS];
	unsigned int held[PF_PARKED_SETS], n = 0, i;
	struct pf_parked *p;

	while ((p = list)) {
		struct pf_src *ps = p->off == 0 ? p->f->src : NULL;

		list = p->next;
		for (i = 0; ps && i < n && src[i] != ps; i++)
			;
		if (ps && (i < n || n < PF_PARKED_SETS) &&
		    src_enqueue(p->f, p->req, p->size)) {
			if (i == n) {
				src[n] = ps;
				held[n++] = 0;
			}
			held[i]++;
		} else {
			read_period0(p->req, p->f, p->size, p->off);
		}
		free(p);
	}
	for (i = 0; i < n; i++)
		src_drive(src[i], held[i]);
}

void pf_file_read(fuse_req_t req, struct pf_file *f, size_t size, off_t off,
		  int flags)
{
	char buf[PF_LINE_MAX * 64];
	struct pf_waiter *w;
	size_t n;

	if (f->type != PERFCTRFS_IRQ && !f->period.value) {
		struct pf_share *rs = f->rshare;
		struct pf_parked *list;

		/* at most max_calls workers a user (share.c) */
		if (!pf_share_read_enter(rs, req, f, size, off))
			return;
		read_period0(req, f, size, off);
		while ((list = pf_share_read_next(rs)))
			read_parked(list);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	pthread_mutex_lock(&pf_lock);
	file_check_cgroup(f);
	if (!f->waiters && file_ready(f)) {
		n = file_take(f, buf, size);
		pthread_mutex_unlock(&pf_lock);
		fuse_reply_buf(req, buf, n);
		return;
	}
	if (flags & O_NONBLOCK) {
		pthread_mutex_unlock(&pf_lock);
		fuse_reply_err(req, EAGAIN);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		pthread_mutex_unlock(&pf_lock);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	w->req = req;
	w->size = size;
	w->registering = true;
	waiter_add(f, w);
	if (needs_tick(f))
		tick_arm(true);
	/* a count that got there meanwhile: file_kick() below sees it */
	file_signals(f, true);
	file_listen(f);
	pthread_mutex_unlock(&pf_lock);

	fuse_req_interrupt_func(req, read_interrupted, NULL);

	pthread_mutex_lock(&pf_lock);
	w->registering = false;
	if (w->interrupted)
		waiter_fail(w, EINTR);
	file_kick(f);
	pthread_mutex_unlock(&pf_lock);
}

void pf_file_poll(fuse_req_t req, struct pf_file *f,
		  struct fuse_pollhandle *ph)
{
	unsigned int ev;

	pthread_mutex_lock(&pf_lock);
	file_check_cpu(f);
	file_check_cgroup(f);
	if (f->type != PERFCTRFS_IRQ && !f->period.value)
		ev = POLLIN | POLLRDNORM |
		     (f->cpu_gone || f->cg_gone ? POLLHUP : 0);
	else
		ev = poll_events(f);
	if (ph) {
		if (ev) {
			fuse_pollhandle_destroy(ph);
		} else {
			if (f->ph)
				fuse_pollhandle_destroy(f->ph);
			f->ph = ph;
			if (needs_tick(f))
				tick_arm(true);
			file_signals(f, true);
			file_listen(f);
			/* ready since we looked: notify now, not at the tick */
			file_kick(f);
		}
	}
	pthread_mutex_unlock(&pf_lock);
	fuse_reply_poll(req, ev);
}

static int file_ioc(struct pf_file *f, unsigned long cmd)
{
	unsigned int s;
	int err = 0;

	for (s = 0; s < f->nr_sets; s++)
		if (ioctl(f->sets[s].fd[0], cmd,
			  f->group ? PERF_IOC_FLAG_GROUP : 0) && !err)
			err = -errno;
	if (cmd == PERF_EVENT_IOC_RESET)
		f->last = 0;
	return err;
}

int pf_file_control(struct pf_file *f, const char *word, size_t len)
{
	static const struct {
		const char *word;
		unsigned long cmd;
	} words[] = {
		{ "enable", PERF_EVENT_IOC_ENABLE },
		{ "disable", PERF_EVENT_IOC_DISABLE },
		{ "reset", PERF_EVENT_IOC_RESET },
	};
	unsigned int i;
	int err = -EINVAL;

	if (len && word[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strlen(words[i].word) != len ||
		    memcmp(words[i].word, word, len))
			continue;
		pthread_mutex_lock(&pf_lock);
		err = file_check_cpu(f) ? -ENODEV :
		      f->src ? view_ioc(f, words[i].cmd) :
		      file_ioc(f, words[i].cmd);
		file_kick(f);
		pthread_mutex_unlock(&pf_lock);
		break;
	}
	return err;
}

int pf_file_ioctl(struct pf_file *f, unsigned int cmd)
{
	int err;

	if (cmd != PERF_EVENT_IOC_ENABLE && cmd != PERF_EVENT_IOC_DISABLE &&
	    cmd != PERF_EVENT_IOC_RESET)
		return -ENOTTY;
	pthread_mutex_lock(&pf_lock);
	err = file_check_cpu(f) ? -ENODEV :
	      f->src ? view_ioc(f, cmd) : file_ioc(f, cmd);
	file_kick(f);
	pthread_mutex_unlock(&pf_lock);
	return err;
}

/* ---- open and release ------------------------------------------------- */

/*
 * Under pf_lock: take @f out of the event loop's sight.  Its counters stay
 * open, for file_destroy() to close without the lock.
 */
static void file_unhook(struct pf_file *f)
{
	unsigned int s, m;

	for (s = 0; f->sets && s < f->nr_sets; s++) {
		struct pf_set *set = &f->sets[s];

		if (set->polled)
			ep_del(set->fd[0]);
		set->polled = false;
		for (m = 0; m < f->nr_members; m++)
			if (set->fd[m] >= 0) {
				if ((unsigned int)set->fd[m] < nr_fd_keys)
					fd_keys[set->fd[m]] = 0;
				nr_counters--;
			}
	}
	if (f->timerfd >= 0) {
		ep_del(f->timerfd);
		close(f->timerfd);
		f->timerfd = -1;
	}
	if (f->watch)
		pf_watch_del(f->watch, f, epfd);
	f->watch = NULL;
	if (f->cgevents >= 0) {
		close(f->cgevents);
		f->cgevents = -1;
	}
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	f->ph = NULL;
	if (f->src && !--f->src->refs) {
		struct pf_src **pp;

		for (pp = &srcs; *pp; pp = &(*pp)->next)
			if (*pp == f->src) {
				*pp = f->src->next;
				break;
			}
		nr_counters -= f->src->nr_sets * f->src->nr_members;
		f->src_last = true;
	}
}

static void src_free(struct pf_src *src)
{
	struct pf_src_read *r;
	unsigned int s, m;

	/*
	 * Its last leaf's last read may have been answered by a worker
	 * still answering the queue: let it leave first.
	 */
	pthread_mutex_lock(&src->lock);
	while (src->inside)
		pthread_cond_wait(&src->cond, &src->lock);
	pthread_mutex_unlock(&src->lock);
	while ((r = src->qfree)) {
		src->qfree = r->next;
		free(r);
	}
	for (s = 0; s < src->nr_sets; s++)
		for (m = 0; m < src->nr_members; m++)
			if (src->sets[s].fd[m] >= 0)
				close(src->sets[s].fd[m]);
	pthread_mutex_destroy(&src->lock);
	pthread_cond_destroy(&src->cond);
	free(src->sets);
	free(src);
}

/*
 * Close @f's counters and free it, without pf_lock: closing the counters
 * of a process of thousands of threads is slow, and nobody else's read
 * waits for it.
 */
static void file_destroy(struct pf_file *f)
{
	unsigned int s, m;

	for (s = 0; f->sets && s < f->nr_sets; s++) {
		struct pf_set *set = &f->sets[s];

		if (set->meta)
			munmap(set->meta, set->rb_len);
		for (m = 0; m < f->nr_members; m++)
			if (set->fd[m] >= 0)
				close(set->fd[m]);
	}
	if (f->src_last)
		src_free(f->src);
	pf_share_give(f->uid, f->share);
	pf_share_files_put(f->rshare);
	free(f->sets);
	free(f->q);
	pf_budget_give(&f->budget);
	if (f->cgdir >= 0)
		close(f->cgdir);
	pthread_mutex_destroy(&f->line0_lock);
	free(f);
}

void file_free(struct pf_file *f)
{
	if (!f)
		return;
	file_unhook(f);
	file_destroy(f);
}

static int file_slot(struct pf_file *f)
{
	unsigned int s;

	for (s = 0; s < nr_files_alloc; s++)
		if (!files[s])
			break;
	if (s == nr_files_alloc) {
		unsigned int n = nr_files_alloc ? nr_files_alloc * 2 : 64;
		struct pf_file **tmp;

		if (n > SLOT_GLOBAL)
			return -ENFILE;
		tmp = realloc(files, n * sizeof(*files));
		if (!tmp)
			return -ENOMEM;
		memset(tmp + nr_files_alloc, 0,
		       (n - nr_files_alloc) * sizeof(*tmp));
		files = tmp;
		nr_files_alloc = n;
	}
	files[s] = f;
	f->slot = s;
	f->gen = next_gen++;
	return 0;
}

/* (pid, cpu) pairs to open one group on */
struct pf_where {
	pid_t pid;
	int cpu;
};

static int add_where(struct pf_where **w, unsigned int *nr, pid_t pid,
		     int cpu)
{
	struct pf_where *tmp;

	if (*nr >= MAX_SETS)
		return -E2BIG;
	tmp = realloc(*w, (*nr + 1) * sizeof(**w));
	if (!tmp)
		return -ENOMEM;
	*w = tmp;
	tmp[*nr].pid = pid;
	tmp[*nr].cpu = cpu;
	(*nr)++;
	return 0;
}

/*
 * Where to open one group each: per thread of a process, per CPU of all.
 * @pid is the target with "self" resolved; @is_process and @nr_threads
 * (its process's "Threads:", 0 when its status did not say) from its
 * status.
 */
static int list_targets(const struct pf_target *t,
			const struct perfctrfs_pid *pid, bool is_process,
			int nr_threads, struct pf_where **out)
{
	struct pf_where *w = NULL;
	unsigned int *cpus = NULL, nr = 0, nr_tids = 0, i;
	pid_t *tids = NULL;
	int nr_cpus = 1, err = 0;
	bool per_cpu = pid->kind == PERFCTRFS_PID_ALL ||
		       pid->kind == PERFCTRFS_PID_CGROUP;

	if (t->cpu->all && per_cpu) {
		nr_cpus = pf_online_cpus(&cpus);
		if (nr_cpus <= 0)
			return nr_cpus < 0 ? nr_cpus : -ENODEV;
	}
	if (per_cpu) {
		if (!t->cpu->all)
			err = add_where(&w, &nr, -1, t->cpu->cpu);
		for (i = 0; t->cpu->all && i < (unsigned int)nr_cpus && !err;
		     i++)
			err = add_where(&w, &nr, -1, cpus[i]);
		goto out;
	}
	if (is_process && nr_threads == 1) {
		/*
		 * One thread, which can only be the tgid (a group leader is
		 * counted until the last thread is reaped): no listing of
		 * /proc/<pid>/task (opendir + readdir, ~9 us).  Threads made
		 * after this are the inherit counters' to follow, exactly as
		 * threads made after a listing were: nothing changes but
		 * that the window starts at the status read, not the listing.
		 */
		tids = malloc(sizeof(*tids));
		if (!tids) {
			err = -ENOMEM;
			goto out;
		}
		tids[nr_tids++] = pid->pid;
	} else if (is_process) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%u/task", pid->pid);
		d = opendir(path);
		if (!d) {
			err = proc_err(errno);
			goto out;
		}
		while ((de = readdir(d))) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);
			pid_t *tmp;

			if (*end || tid <= 0)
				continue;
			tmp = realloc(tids, (nr_tids + 1) * sizeof(*tids));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			tids = tmp;
			tids[nr_tids++] = tid;
		}
		closedir(d);
	} else {
		tids = malloc(sizeof(*tids));
		if (!tids) {
			err = -ENOMEM;
			goto out;
		}
		tids[nr_tids++] = pid->pid;
	}
	if (!err && !nr_tids)
		err = -ENOENT;
	for (i = 0; i < nr_tids && !err; i++) {
		err = add_where(&w, &nr, tids[i],
				t->cpu->all ? -1 : (int)t->cpu->cpu);
	}
out:
	free(cpus);
	free(tids);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return nr;
}

static bool is_clock(const struct perfctrfs_event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE &&
	       (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * Open one group on @w for the caller, through its opener: @w->pid is an
 * id in the caller's pid namespace, or -1.
 */
/* Data pages of each of @nr_sets irq rings: a power of two, as perf asks. */
static unsigned int rb_pages(unsigned int nr_sets)
{
	unsigned int pages = RB_PAGES_IRQ;

	while (pages > RB_PAGES_MIN && pages / 2 * nr_sets >= RB_PAGES_IRQ)
		pages /= 2;
	return pages;
}

/*
 * The pages an irq leaf of @nr_sets sets locks: each set's ring, its
 * header page and data, and the record queue at its largest.  Charged to
 * the caller at open as perf_mmap() charges a ring (share.c), so that
 * neither root's locked memory nor the daemon's heap is a user's to fill.
 */
static unsigned long irq_pages(unsigned int nr_sets)
{
	unsigned long queue = PF_IRQ_QUEUE * sizeof(struct pf_irq_rec);

	return (unsigned long)nr_sets * (1 + rb_pages(nr_sets)) +
	       (queue + page_size - 1) / page_size;
}

static int open_set(struct pf_file *f, struct pf_set *set,
		    const struct pf_caller *caller, const struct pf_where *w,
		    bool inherit)
{
	struct perf_event_attr attr[PERFCTRFS_MAX_GROUP];
	bool no_signal = false;
	unsigned int m;
	int err;

	memset(attr, 0, sizeof(attr));
	for (m = 0; m < f->nr_members; m++) {
		const struct perfctrfs_event *ev = &f->spec.ev[m];
		struct perf_event_attr *a = &attr[m];

		a->size = sizeof(*a);
		a->type = ev->type;
		a->config = ev->config;
		a->config1 = ev->config1;
		a->config2 = ev->config2;
		a->exclude_user = ev->exclude_user;
		a->exclude_kernel = ev->exclude_kernel;
		a->exclude_hv = ev->exclude_hv;
		a->exclude_idle = ev->exclude_idle;
		a->inherit = inherit;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (f->group)
			a->read_format |= PERF_FORMAT_GROUP;
	}
	/* the leader gates the group: enabled once all exist */
	attr[0].disabled = 1;
	if (f->type == PERFCTRFS_IRQ) {
		attr[0].sample_period = f->period.value;
		attr[0].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
		attr[0].wakeup_events = 1;
	} else if (f->period.value && !f->period.is_time) {
		/*
		 * Overflows only wake us: with several counters summed, each
		 * fires at its share so that the sum crossing N always
		 * crosses one of them.
		 */
		uint64_t p = f->period.value / f->nr_sets;

		attr[0].sample_period = p ? p : 1;
		set->wake_period = attr[0].sample_period;
		attr[0].wakeup_events = 1;
	}
	/* a PMU that cannot sample (msr, uncore) still counts, by the tick */
	err = pf_open_group(caller, attr, f->nr_members, w->pid, f->cgdir,
			    w->cpu,
			    f->type != PERFCTRFS_IRQ && attr[0].sample_period,
			    set->fd, &no_signal);
	if (err)
		return err;
	set->no_signal = no_signal;
	if (f->type == PERFCTRFS_IRQ) {
		void *p;

		set->rb_len = (1 + rb_pages(f->nr_sets)) * page_size;
		p = mmap(NULL, set->rb_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 set->fd[0], 0);
		if (p == MAP_FAILED)
			return -errno;
		set->meta = p;
	}
	return 0;
}

/* The executable @pid runs (device and inode), or zeros. */
static void target_exe(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st)) {
		*dev = 0;
		*ino = 0;
		return;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
}

/*
 * Under pf_lock, at the end of the open of a period-0 leaf on a pid: read
 * @f through the shared set of @caller's opener, target, event and type,
 * joined from a baseline taken now, or made of @f's own counters when
 * there is none.  @f's own counters, after a join, go to *@spare for the
 * caller to close without the lock.  Out of memory, @f reads its own
 * counters, as every other leaf does.
 *
 * Only a set made by an opener with @caller's very credentials is
 * joined, not one of the same uid alone: @f's own open shows that perf
 * lets @caller count the target now, but a set made earlier, by an
 * opener with more rights (CAP_PERFMON, CAP_SYS_PTRACE, other gids),
 * also counts the children the target forked since, through inheritance,
 * and those may be processes perf refuses @caller.  Equal credentials
 * are one opener, which could have made that set for @caller itself.
 *
 * Nor is a set joined that holds more counters than @f is charged for
 * (its own, one per thread of the target at its open): any one leaf may
 * be the last to hold a set, and then its share must cover all of it.
 * Else a leaf opened on a process whose threads had gone, charged one
 * counter, kept alive the set of thousands that an earlier leaf, since
 * closed and given back its share, had made, and max_counters held no
 * user to anything.  The charge is f->share, taken from @caller's
 * accountable uid (f->uid, PF_UID_DAEMON included): a period-0 leaf has
 * no timerfd, so all of it is counter units; the target's pidfd, a unit
 * too, is the watch's, charged once to whoever started watching, and
 * stays with every leaf's own watch, never with the set.  A joiner keeps
 * its whole charge while it holds the set, so every leaf of a set is
 * charged for at least all of it, and to the uid that made it: only a
 * set of @f's accountable uid is joined (equal credentials give one, but
 * the share's owner is said, not inferred).
 *
 * Nor is a set joined once its target has run another program: an exec
 * that leaves it not dumpable (a setuid program, one it may not read)
 * makes perf take every counter off it for good, and a leaf that joined
 * would stand still where a counter of its own counts.  @pid ran @exe_dev,
 * @exe_ino before @f's counters were opened; the set keeps what its
 * target ran before its own were.  (An exec back to the program the set
 * began with goes unseen.)
 */
static void src_attach(struct pf_file *f, const struct pf_target *t,
		       const struct pf_caller *caller, pid_t pid,
		       dev_t exe_dev, ino_t exe_ino,
		       struct pf_set **spare, unsigned int *nr_spare)
{
	/* what @f is charged for: counters alone (no timer at period 0) */
	unsigned long charged = f->share;
	struct pf_src *src;
	dev_t dev;
	ino_t ino;

	for (src = srcs; src; src = src->next)
		if (src->ev == t->ev && src->cpu == t->cpu &&
		    src->watch == f->watch && src->type == f->type &&
		    !src->dead && src->uid == f->uid &&
		    pf_creds_equal(&src->creds, &caller->creds) &&
		    (unsigned long)src->nr_sets * src->nr_members <= charged)
			break;
	/* exited, and not yet seen by the loop: its pid may be reused */
	if (src && !pf_watch_alive(src->watch)) {
		src->dead = true;
		src = NULL;
	}
	if (src) {
		target_exe(pid, &dev, &ino);
		if (dev != src->exe_dev || ino != src->exe_ino) {
			src->dead = true;
			src = NULL;
		}
	}
	if (src) {
		if (src_sample(src, f->view.base, &f->view.base_ena,
			       &f->view.base_run))
			return;
		src->refs++;
		f->src = src;
		nr_counters -= f->nr_sets * f->nr_members;
		*spare = f->sets;
		*nr_spare = f->nr_sets;
		f->sets = NULL;
		f->nr_sets = 0;
		return;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return;
	src->ev = t->ev;
	src->cpu = t->cpu;
	src->watch = f->watch;
	src->type = f->type;
	src->creds = caller->creds;
	src->uid = f->uid;
	src->exe_dev = exe_dev;
	src->exe_ino = exe_ino;
	src->refs = 1;
	src->nr_sets = f->nr_sets;
	src->nr_members = f->nr_members;
	src->group = f->group;
	src->sets = f->sets;
	pthread_mutex_init(&src->lock, NULL);
	pthread_cond_init(&src->cond, NULL);
	src->qtail = &src->q;
	src->readytail = &src->ready;
	f->sets = NULL;
	f->nr_sets = 0;
	f->src = src;
	src->next = srcs;
	srcs = src;
}

/* Close what open_set() made of @set; it was never counted. */
static void close_set(struct pf_file *f, struct pf_set *set)
{
	unsigned int m;

	for (m = 0; m < f->nr_members; m++)
		if (set->fd[m] >= 0) {
			close(set->fd[m]);
			set->fd[m] = -1;
		}
	if (set->meta)
		munmap(set->meta, set->rb_len);
	set->meta = NULL;
}

/*
 * Every group of @f, made for @caller without pf_lock: a slow open (a
 * process of thousands of threads) holds nobody else's read.  @where's
 * pids are ours; each is given to the opener in the caller's terms.
 */
static int open_sets(struct pf_file *f, const struct pf_caller *caller,
		     struct pf_where *where, bool is_process, bool inherit)
{
	unsigned int s;
	int err = 0;

	for (s = 0; s < f->nr_sets; s++) {
		struct pf_where w = where[s];

		w.pid = pf_caller_pid(caller, w.pid);
		err = w.pid < -1 ? w.pid : open_set(f, &f->sets[s], caller,
						    &w, inherit);
		/* a thread that exited since we listed it counts nothing */
		if (err == -ESRCH && is_process && f->nr_sets > 1) {
			close_set(f, &f->sets[s]);
			memmove(&f->sets[s], &f->sets[s + 1],
				(f->nr_sets - s - 1) * sizeof(*f->sets));
			memmove(&where[s], &where[s + 1],
				(f->nr_sets - s - 1) * sizeof(*where));
			f->nr_sets--;
			s--;
			/*
			 * Dropped, not failed: without this, a drop of the
			 * last listed thread ended the loop with -ESRCH and
			 * failed the whole open as ENOENT.
			 */
			err = 0;
			continue;
		}
		if (err) {
			close_set(f, &f->sets[s]);
			break;
		}
	}
	if (err)
		for (s = 0; s < f->nr_sets; s++)
			close_set(f, &f->sets[s]);
	return err;
}

int pf_file_open(fuse_req_t req, const struct pf_target *t, int flags,
		 struct pf_file **out)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct perfctrfs_pid pid = t->pid;
	struct pf_set *spare = NULL;
	unsigned int nr_spare = 0;
	dev_t exe_dev = 0;
	ino_t exe_ino = 0;
	struct pf_where *where = NULL;
	struct pf_caller *caller;
	struct pf_status *target;
	struct pf_file *f;
	bool is_process = false, inherit;
	unsigned long units;
	unsigned int s, m;
	int nr, err, nr_threads = 0;

	(void)flags;
	if (t->type == PERFCTRFS_IRQ && t->period.is_time &&
	    !(t->ev->nr >= 1 && is_clock(&t->ev->ev[0])))
		return -EINVAL;	/* only the clocks count time */
	if (t->type == PERFCTRFS_IRQ && !t->period.value)
		return -ENOENT;
	f = calloc(1, sizeof(*f));
	if (f)
		f->cgdir = f->cgevents = -1;
	caller = malloc(sizeof(*caller));
	target = malloc(sizeof(*target));
	if (!f || !caller || !target) {
		err = -ENOMEM;
		goto fail_early;
	}
	f->spec = *t->ev;
	f->type = t->type;
	f->period = t->period;
	f->cpu = (t->pid.kind == PERFCTRFS_PID_ALL ||
		  t->pid.kind == PERFCTRFS_PID_CGROUP) && !t->cpu->all ?
		 (int)t->cpu->cpu : -1;
	f->nr_members = t->ev->nr;
	f->group = t->ev->nr > 1;
	f->timerfd = -1;
	f->wtail = &f->waiters;
	pthread_mutex_init(&f->line0_lock, NULL);
	if (f->type == PERFCTRFS_IRQ) {
		f->qcap = PF_IRQ_QUEUE_MIN;
		f->q = calloc(f->qcap, sizeof(*f->q));
		if (!f->q) {
			err = -ENOMEM;
			goto fail_early;
		}
	}

	/*
	 * Who asks (a tid: FUSE names the thread) decides the opener and
	 * "self"; the target's status tells a process from a thread, and
	 * whether it is one of ours.
	 */
	err = pf_caller_get(ctx->pid, caller);
	if (!err && pid.kind == PERFCTRFS_PID_SELF) {
		pid.kind = PERFCTRFS_PID_NUM;
		pid.pid = caller->st.tgid;
		is_process = true;
		/* a tid's status counts its whole process's threads */
		nr_threads = caller->st.nr_threads;
	} else if (!err && pid.kind == PERFCTRFS_PID_NUM) {
		/* the name is an id in the caller's pid namespace: ours, now */
		pid_t here = pf_pid_from_caller(caller, pid.pid);

		err = here < 0 ? here : pf_task_status(here, target);
		if (!err)
			pid.pid = here;
		is_process = !err && target->tgid == here;
		if (is_process)
			nr_threads = target->nr_threads;
		if (!err && pf_target_refused(caller, target->tgid))
			err = -EACCES;
	} else if (!err && pid.kind == PERFCTRFS_PID_CGROUP) {
		/* the opener opens the directory: perf's pid, and our watch */
		char path[PATH_MAX];

		err = pf_cgroup_available() ?
		      pf_cgroup_find(caller, pid.cgroup, path, sizeof(path),
				     &f->cgdir, &f->cgevents) : -ENOENT;
	}
	nr = err ? err : list_targets(t, &pid, is_process, nr_threads,
				      &where);
	if (nr < 0) {
		err = nr;
		goto fail_early;
	}
	f->sets = calloc(nr, sizeof(*f->sets));
	if (!f->sets) {
		err = -ENOMEM;
		goto fail_early;
	}
	f->nr_sets = nr;
	for (s = 0; s < f->nr_sets; s++)
		for (m = 0; m < PERFCTRFS_MAX_GROUP; m++)
			f->sets[s].fd[m] = -1;
	/*
	 * the caller's share, before any counter exists: a unit is one of
	 * the daemon's fds, so each counter and a time period's timerfd (a
	 * new target's pidfd is charged by pf_watch_get()), and a cgroup's
	 * directory (until its counters hold it) and cgroup.events
	 */
	f->uid = caller->acct_uid;
	units = (unsigned long)nr * f->nr_members +
		(f->period.is_time && f->type != PERFCTRFS_IRQ) +
		(f->cgdir >= 0) + (f->cgevents >= 0);
	err = pf_share_take(f->uid, units);
	if (err)
		goto fail_early;
	f->share = units;
	/*
	 * and its budgets: an irq leaf's locked memory (EPERM, perf's errno,
	 * past its limits); a time period's timer, which wakes the event
	 * loop at every interval (ENOSPC past PF_TIMER_RATE_MAX a second)
	 */
	if (f->type == PERFCTRFS_IRQ)
		err = pf_budget_lock(caller, irq_pages(nr), &f->budget);
	else if (f->period.is_time)
		err = pf_budget_timer(caller, f->period.value, &f->budget);
	if (err)
		goto fail_early;

	/*
	 * Pid counters follow the children the target makes after the open;
	 * except irq on cpu "all": perf cannot mmap an inherited counter with
	 * cpu = -1, and samples need the ring buffer.
	 */
	inherit = pid.kind == PERFCTRFS_PID_NUM &&
		  !(f->type == PERFCTRFS_IRQ && t->cpu->all);
	if (pid.kind == PERFCTRFS_PID_NUM)
		target_exe(pid.pid, &exe_dev, &exe_ino);
	err = open_sets(f, caller, where, is_process, inherit);
	if (f->cgdir >= 0) {
		close(f->cgdir);	/* perf holds the cgroup now */
		f->cgdir = -1;
		pf_share_give(f->uid, 1);
		f->share--;
	}
	if (err)
		goto fail_early;
	/* its user's entry, for the gate on its reads (share.c) */
	f->rshare = pf_share_files_get(f->uid);

	pthread_mutex_lock(&pf_lock);
	nr_counters += f->nr_sets * f->nr_members;
	if (pid.kind == PERFCTRFS_PID_NUM) {
		/* gone is ENOENT; out of fds or memory fails the open */
		err = pf_watch_get(pid.pid, !is_process, epfd, f->uid,
				   &f->watch);
		if (!err)
			err = pf_watch_add(f->watch, f, epfd);
		if (err)
			f->watch = NULL;
		if (err == -ENOSYS) {
			f->nopidfd_pid = pid.pid;
			if (!warned_pidfd)
				pf_log(LOG_WARNING,
				       "no pidfd_open: target exits are seen by the tick");
			warned_pidfd = true;
			err = 0;
		}
		if (err)
			goto fail;
	}
	err = file_slot(f);
	if (err)
		goto fail;
	/* removed since it was found: the leaf is over already */
	file_check_cgroup(f);
	if (f->period.is_time && f->type != PERFCTRFS_IRQ) {
		struct itimerspec its;

		f->timerfd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_NONBLOCK | TFD_CLOEXEC);
		if (f->timerfd < 0) {
			err = -errno;
			goto fail_slot;
		}
		its.it_interval.tv_sec = f->period.value / 1000000000ULL;
		its.it_interval.tv_nsec = f->period.value % 1000000000ULL;
		its.it_value = its.it_interval;
		timerfd_settime(f->timerfd, 0, &its, NULL);
		err = ep_add(f->timerfd, ep_key(f, IDX_TIMER));
		if (err)
			goto fail_slot;
	}
	for (s = 0; s < f->nr_sets; s++) {
		if (f->period.value && !f->period.is_time &&
		    f->type != PERFCTRFS_IRQ && !f->sets[s].no_signal) {
			err = fd_async(f->sets[s].fd[0], ep_key(f, IDX_SET0 + s));
			if (err)
				goto fail_slot;
			f->sets[s].sigio = true;
		}
		if (f->sets[s].meta) {
			err = ep_add(f->sets[s].fd[0], ep_key(f, IDX_SET0 + s));
			if (err)
				goto fail_slot;
			f->sets[s].polled = true;
		}
	}
	/* counting starts at open */
	for (s = 0; s < f->nr_sets; s++)
		ioctl(f->sets[s].fd[0], PERF_EVENT_IOC_ENABLE,
		      f->group ? PERF_IOC_FLAG_GROUP : 0);
	if (pid.kind == PERFCTRFS_PID_NUM && f->watch &&
	    f->type != PERFCTRFS_IRQ && !f->period.value)
		src_attach(f, t, caller, pid.pid, exe_dev, exe_ino, &spare,
			   &nr_spare);
	pthread_mutex_unlock(&pf_lock);
	for (s = 0; s < nr_spare; s++)
		close_set(f, &spare[s]);
	free(spare);
	free(where);
	free(caller);
	free(target);
	*out = f;
	return 0;

fail_slot:
	files[f->slot] = NULL;
fail:
	file_unhook(f);
	pthread_mutex_unlock(&pf_lock);
	file_destroy(f);
	free(where);
	free(caller);
	free(target);
	/* a target (or caller) that is gone is a name that does not resolve */
	return err == -ESRCH ? -ENOENT : err;

fail_early:
	if (f) {
		if (f->cgdir >= 0)
			close(f->cgdir);
		if (f->cgevents >= 0)
			close(f->cgevents);
		pf_share_give(f->uid, f->share);
		free(f->sets);
		free(f->q);
		pf_budget_give(&f->budget);
		pthread_mutex_destroy(&f->line0_lock);
	}
	free(f);
	free(where);
	free(caller);
	free(target);
	return err == -ESRCH ? -ENOENT : err;
}


void pf_file_release(struct pf_file *f)
{
	struct pf_waiter *w;

	pthread_mutex_lock(&pf_lock);
	files[f->slot] = NULL;
	/* no read can be pending at release, but never leave one hanging */
	while ((w = f->waiters))
		waiter_fail(w, EBADF);
	file_unhook(f);
	pthread_mutex_unlock(&pf_lock);
	file_destroy(f);
}
