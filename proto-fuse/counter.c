// SPDX-License-Identifier: GPL-2.0
/*
 * The counters behind an open leaf, and the event loop that answers reads
 * which must wait.
 *
 * An open leaf (struct pf_file) holds one perf group per target: per
 * thread for a process, per CPU for the system-wide counter, else one.
 * Its line is the member-wise sum of their reads.
 *
 * A read that must wait (period N, a time period, irq) never holds a
 * libfuse worker: its fuse_req_t is queued on the file and answered later
 * by pf_loop(), one thread that epolls the timerfds of time periods, the
 * targets' pidfds, the irq leaders' ring buffers (POLLIN on each sample,
 * wakeup_events = 1, heard only while a reader waits or polls: see
 * file_service()), a signalfd and a coarse fallback tick.  The leaves of
 * one target share its pidfd (watch.c).
 *
 * Period N leaves count with sample_period set on the leader and wake us
 * by signal, not by ring buffer: perf refuses to mmap an inherited counter
 * that follows its task across CPUs (cpu = -1), but it does deliver
 * F_SETSIG signals on every overflow of such a counter, its inherited
 * children's included, without any buffer.  The signals stay blocked in
 * every thread and arrive through the signalfd with the perf fd in
 * ssi_fd.  They are on (O_ASYNC) only while a reader waits for a line,
 * and go off at the first signal that finds nobody waiting: a period-1
 * counter on a busy CPU overflows at every event, and a signal per event
 * would fill the user's signal queue (RLIMIT_SIGPENDING: other processes
 * of the user then fail timer_create() with EAGAIN) and keep this loop
 * and pf_lock busy for nobody.  The tick keeps "N events since the last line" sound when the
 * count is a sum whose rise need not make any one counter overflow
 * (inherited children count on their own period), and when the signal
 * queue overflowed (SIGIO, no fd).
 *
 * Everything here runs under pf_lock, except the read of a period-0
 * leaf (read_period0()), which takes only its own file's line0_lock and
 * the lock of the counters it reads (struct pf_src).
 *
 * The period-0 leaves opened with one set of credentials (one opener's)
 * on one target, event and type read one set of counters (struct
 * pf_src), each from its own baseline: a process whose T threads each
 * read such a leaf of "self" held T sets of T counters and read T of them
 * per read, so its reads cost T times more as it grew.  Now the T leaves
 * hold one set, and reads that arrive while it is being read are answered
 * by the next read of it (src_sample()).  Counters that one opener made
 * are never read for a caller another opener serves: see src_attach().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"

/*
 * Data pages of irq rings, over all the sets of a leaf: while nobody
 * reads, samples wait in the kernel's rings (see drain_ring()), so they
 * hold at least PF_IRQ_QUEUE records of 24 bytes (32 pages: 5461).
 */
#define RB_PAGES_IRQ	32
#define RB_PAGES_MIN	2	/* a set's ring, when many share the budget */
#define TICK_NS		100000000ULL	/* fallback tick: 100ms */
#define SIG_READS	4		/* signalfd reads a wakeup, see read_signals() */
#define MAX_SETS	65000	/* fits the 16-bit index in epoll data */

#define IDX_TIMER	0
#define IDX_SET0	2
#define SLOT_GLOBAL	0xffffffULL
#define GLOBAL_STOP	0
#define GLOBAL_TICK	1
#define GLOBAL_SIG	2
#define SIG_WAKE	(SIGRTMIN + 2)

struct pf_set {
	int fd[PERFCTRFS_MAX_GROUP];
	struct perf_event_mmap_page *meta;	/* leader's ring, or NULL */
	size_t rb_len;
	bool polled;			/* leader fd is in the epoll set */
	bool hup;			/* ... and its thread exited: never again */
	bool no_signal;			/* leader cannot sample: tick only */
	bool sigio;			/* leader can signal its overflows */
	bool async;			/* ... and does now (O_ASYNC) */
	uint64_t wake_period;		/* the leader's sample_period */
};

struct pf_waiter {
	struct pf_waiter *next;
	fuse_req_t req;
	size_t size;
	bool registering;		/* read handler still owns it */
	bool interrupted;
	bool deferred;			/* a signal it sleeps through: rechecked */
};

struct pf_irq_rec {
	uint64_t count;			/* cumulative count, or lost records */
	uint64_t ip;
	bool lost;
};

/*
 * One set of counters that several period-0 leaves read (see the top of
 * this file).  Its key and refs are under pf_lock; its sample under
 * @lock: reads that find one under way wait for the next, which one of
 * them makes for all, so that each answer was read after its request came.
 */
struct pf_src {
	struct pf_src *next;		/* in srcs, while joinable */
	const void *ev, *cpu;		/* the event and CPU nodes' data */
	struct pf_watch *watch;		/* the target (one process, one pid) */
	enum perfctrfs_type type;
	struct pf_creds creds;		/* of the opener that made it */
	dev_t exe_dev;			/* what the target ran before it was */
	ino_t exe_ino;			/* ... opened: see src_attach() */
	unsigned int refs;		/* leaves reading it */
	bool dead;			/* target gone: nobody joins */
	unsigned int nr_sets, nr_members;
	bool group;
	struct pf_set *sets;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool sampling;
	uint64_t started, done;		/* samples begun and finished */
	int err;
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;
};

/* A leaf's own view of a shared set: what perf's ioctls would have done */
struct pf_view {
	uint64_t base[PERFCTRFS_MAX_GROUP], base_ena, base_run;
	uint64_t frozen[PERFCTRFS_MAX_GROUP], frozen_ena, frozen_run;
	bool disabled;
};

struct pf_file {
	uint32_t slot, gen;
	struct perfctrfs_event_spec spec;
	enum perfctrfs_type type;
	struct perfctrfs_period period;
	unsigned int nr_members, nr_sets;
	struct pf_set *sets;
	bool group;
	int timerfd;
	struct pf_watch *watch;		/* the target's pidfd, shared */
	int cpu;			/* CPU-wide on this CPU, else -1 */
	bool cpu_gone;			/* ... and that CPU went offline */
	bool dead;			/* the target exited */
	pid_t nopidfd_pid;		/* target watched by the tick: no pidfd */
	bool final_done;		/* the line after its death was given */
	bool tick;			/* a time interval elapsed */
	uint64_t last;			/* leader count at the previous line */
	char rem[PF_LINE_MAX];		/* part of a line not read yet */
	size_t rem_len, rem_off;
	pthread_mutex_t line0_lock;	/* line0 and view: never pf_lock */
	struct pf_src *src;		/* period 0 on a pid: shared counters */
	bool src_last;			/* ... and we were its last leaf */
	struct pf_view view;
	char line0[PF_LINE_MAX];	/* period 0: line made at offset 0 */
	size_t line0_len;
	struct pf_waiter *waiters, **wtail;
	struct fuse_pollhandle *ph;
	struct pf_irq_rec *q;		/* irq: ring of PF_IRQ_QUEUE records */
	unsigned int qhead, qlen;
	uint64_t lost_pending;
	uint64_t irq_sum;
	uint64_t overflows;		/* samples and kernel-lost records seen */
	uint64_t unsampled;		/* periods reported lost, never sampled */
	uid_t uid;			/* whose share its counters are */
	unsigned long share;
};

pthread_mutex_t pf_lock = PTHREAD_MUTEX_INITIALIZER;

static struct pf_file **files;
static struct pf_src *srcs;		/* joinable shared sets */
static unsigned int nr_files_alloc;
static uint32_t next_gen = 1;
static unsigned long nr_counters;	/* perf fds held by open leaves */
static int epfd = -1, stopfd = -1, tickfd = -1, sigfd = -1;
static uint64_t *fd_keys;		/* perf fd -> its file's key + 1 */
static unsigned int nr_fd_keys;
static pthread_t loop_thread;
static bool loop_started;
static bool tick_armed;
static bool warned_pidfd;		/* logged once: no pidfd_open here */
static long page_size;

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

static uint64_t ep_key(const struct pf_file *f, unsigned int idx)
{
	return ((uint64_t)f->slot << 40) | ((uint64_t)(f->gen & 0xffffff) << 16) |
	       idx;
}

static int ep_add(int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = key };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static void ep_del(int fd)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
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

static int file_sample(struct pf_file *f, uint64_t *vals, uint64_t *ena,
		       uint64_t *run)
{
	return sets_sample(f->sets, f->nr_sets, f->nr_members, f->group, vals,
			   ena, run);
}

/*
 * A read of @src's counters made after this call began, into @vals,
 * @ena and @run.  One reader reads them; those who come meanwhile wait,
 * and the first of them to wake reads them once more for all of them:
 * however many readers pile up, one read of the set answers them.
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
		if (src->sampling) {
			pthread_cond_wait(&src->cond, &src->lock);
			continue;
		}
		gen = ++src->started;
		src->sampling = true;
		pthread_mutex_unlock(&src->lock);
		err = sets_sample(src->sets, src->nr_sets, src->nr_members,
				  src->group, v, &e, &r);
		pthread_mutex_lock(&src->lock);
		memcpy(src->vals, v, src->nr_members * sizeof(*v));
		src->ena = e;
		src->run = r;
		src->err = err;
		src->done = gen;
		src->sampling = false;
		pthread_cond_broadcast(&src->cond);
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
 * What @f's own counters would read, from its shared set: since its open,
 * less what its disable and reset took out.  Under f->line0_lock.
 */
static int view_sample(struct pf_file *f, uint64_t *vals, uint64_t *ena,
		       uint64_t *run)
{
	struct pf_view *v = &f->view;
	unsigned int m;
	int err;

	if (v->disabled) {
		memcpy(vals, v->frozen, f->nr_members * sizeof(*vals));
		*ena = v->frozen_ena;
		*run = v->frozen_run;
		return 0;
	}
	err = src_sample(f->src, vals, ena, run);
	if (err)
		return err;
	for (m = 0; m < f->nr_members; m++)
		vals[m] = sub_sat(vals[m], v->base[m]);
	*ena = sub_sat(*ena, v->base_ena);
	*run = sub_sat(*run, v->base_run);
	return 0;
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
 * The line of a simple or times leaf, into @buf of PF_LINE_MAX bytes;
 * returns its length.  Called on every read: one read() per perf group
 * and the digits written by hand, no snprintf and no allocation.
 */
static size_t format_line(struct pf_file *f, char *buf, uint64_t *leader)
{
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;
	char *p = buf;
	unsigned int m;

	if (f->src ? view_sample(f, vals, &ena, &run) :
		     file_sample(f, vals, &ena, &run)) {
		/* a failed read is a zero line, never a hang or garbage */
		memset(vals, 0, sizeof(vals));
		ena = 0;
		run = 0;
	}
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
	if (leader)
		*leader = vals[0];
	return p - buf;
}

/* ---- ring buffers and irq records ------------------------------------ */

static void irq_push(struct pf_file *f, uint64_t count, uint64_t ip, bool lost)
{
	struct pf_irq_rec *r;

	r = &f->q[(f->qhead + f->qlen) % PF_IRQ_QUEUE];
	r->count = count;
	r->ip = ip;
	r->lost = lost;
	f->qlen++;
}

/*
 * Queue one sample.  A full queue drops it and counts it; the count goes
 * in as a "lost <n>" line at the place the losses happened, as soon as
 * there is room again.
 */
static void irq_enqueue(struct pf_file *f, uint64_t ip, uint64_t period)
{
	f->irq_sum += period;
	f->overflows++;
	if (f->qlen == PF_IRQ_QUEUE) {
		f->lost_pending++;
		return;
	}
	if (f->lost_pending) {
		irq_push(f, f->lost_pending, 0, true);
		f->lost_pending = 0;
		if (f->qlen == PF_IRQ_QUEUE) {
			f->lost_pending = 1;
			return;
		}
	}
	irq_push(f, f->irq_sum, ip, false);
}

/* @len bytes at ring position @pos into @dst, across the wrap */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	uint64_t off = pos % size;
	size_t first = len < size - off ? len : size - off;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

/*
 * Take what the kernel wrote: per record its header and the two words
 * after it (a sample's ip and period, a lost record's id and count).
 * A busy irq leaf fills the ring between two reads, so this is per
 * sample: fixed-size copies where the record does not wrap (all but one
 * a lap), ring_copy() where it does.
 *
 * Bounded: it stops when the queue is full, and leaves the rest in the
 * kernel's ring, which counts what it cannot hold as lost
 * (PERF_RECORD_LOST).  It runs only for a reader (a read, a waiter, a
 * poll): the event loop never drains a ring that nobody reads, so a
 * leaf sampling every 10 us costs the daemon nothing until it is read.
 */
static void drain_ring(struct pf_file *f, struct pf_set *set)
{
	struct perf_event_mmap_page *meta = set->meta;
	unsigned char *data;
	uint64_t head, tail, size;

	if (!meta)
		return;
	data = (unsigned char *)meta + page_size;
	size = set->rb_len - page_size;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head &&
	       f->qlen < PF_IRQ_QUEUE) {
		struct perf_event_header hdr;
		uint64_t w[2], off = tail % size;

		/* past head is ring memory too: w is used only if hdr says */
		if (off + sizeof(hdr) + sizeof(w) <= size) {
			memcpy(&hdr, data + off, sizeof(hdr));
			memcpy(w, data + off + sizeof(hdr), sizeof(w));
		} else {
			ring_copy(data, size, tail, &hdr, sizeof(hdr));
			ring_copy(data, size, tail + sizeof(hdr), w, sizeof(w));
		}
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;
		if (hdr.size >= sizeof(hdr) + sizeof(w) &&
		    (hdr.type == PERF_RECORD_SAMPLE ||
		     hdr.type == PERF_RECORD_LOST)) {
			if (hdr.type == PERF_RECORD_SAMPLE) {
				irq_enqueue(f, w[0], w[1]);
			} else {
				f->lost_pending += w[1];
				f->overflows += w[1];
			}
		}
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * Periods that passed without a sample.  perf does not take every sample
 * a period asks for: it throttles an event that interrupts too often, and
 * a sampling hrtimer that fires late moves its next expiry on from when
 * it fired.  Those periods are counted but never reach the ring; they
 * are reported lost, so that records plus lost always account for the
 * count, as the kernel filesystem does (perfctrfs_counters_unsampled()).
 * One period of slack is kept, for a sample on its way.  Asked only when
 * nothing else is queued.
 */
static void irq_unsampled(struct pf_file *f)
{
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run, due, seen;

	if (!f->period.value || file_sample(f, vals, &ena, &run))
		return;
	due = vals[0] / f->period.value;
	seen = f->overflows + f->unsampled;
	if (due <= seen + 1)
		return;
	f->unsampled += due - seen - 1;
	f->lost_pending += due - seen - 1;
}

/* Everything an irq leaf has to say: its rings, then unsampled periods. */
static void irq_gather(struct pf_file *f)
{
	unsigned int s;

	for (s = 0; s < f->nr_sets; s++)
		drain_ring(f, &f->sets[s]);
	if (!f->qlen && !f->lost_pending)
		irq_unsampled(f);
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
static bool file_ready(struct pf_file *f)
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
		f->qhead = (f->qhead + 1) % PF_IRQ_QUEUE;
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
static size_t file_take(struct pf_file *f, char *out, size_t size)
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

static void reply_waiter(struct pf_file *f, struct pf_waiter *w)
{
	char buf[PF_LINE_MAX * 64];
	size_t size = w->size < sizeof(buf) ? w->size : sizeof(buf);
	size_t n = file_take(f, buf, size);

	fuse_reply_buf(w->req, buf, n);
	free(w);
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

/* Answer whatever can be answered now, oldest reader first. */
static void file_kick(struct pf_file *f)
{
	struct pf_waiter **pp = &f->waiters;

	while (*pp) {
		struct pf_waiter *w = *pp;

		if (w->registering) {
			pp = &w->next;
			continue;
		}
		if (!file_ready(f))
			break;
		*pp = w->next;
		reply_waiter(f, w);
	}
	f->wtail = pp;
	while (*f->wtail)
		f->wtail = &(*f->wtail)->next;
	if (f->ph && file_ready(f)) {
		fuse_lowlevel_notify_poll(f->ph);
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
}

static void file_mark_dead(struct pf_file *f)
{
	if (f->src)
		f->src->dead = true;
	if (f->watch) {
		pf_watch_del(f->watch, f, epfd);
		f->watch = NULL;
	}
	f->dead = true;
}

/*
 * Did the CPU of a CPU-wide leaf go offline?  perf then takes its counter
 * out for good and says nothing on the fd (read answers the frozen count,
 * poll stays quiet), so we look at sysfs: at a poll, a control word, and
 * on the tick while a reader waits.  The leaf then ends as on a target's
 * exit, and stays ended when the CPU returns, as its counter does.
 */
static bool file_check_cpu(struct pf_file *f)
{
	if (f->cpu < 0 || f->cpu_gone)
		return f->cpu_gone;
	if (pf_cpu_online(f->cpu) == 0) {
		f->cpu_gone = true;
		file_mark_dead(f);
	}
	return f->cpu_gone;
}

/* pf_watch_fire(): the target of @owner, a pf_file, exited */
static void file_target_gone(void *owner)
{
	struct pf_file *f = owner;

	/* its pid may be another process's soon: nobody joins its counters */
	if (f->src)
		f->src->dead = true;
	f->watch = NULL;
	f->dead = true;
	file_kick(f);
}

static void file_service(struct pf_file *f, unsigned int idx, uint32_t events)
{
	uint64_t exp;

	if (idx == IDX_TIMER) {
		if (read(f->timerfd, &exp, sizeof(exp)) == sizeof(exp))
			f->tick = true;
	} else if (idx - IDX_SET0 < f->nr_sets) {
		struct pf_set *set = &f->sets[idx - IDX_SET0];

		/* a thread that exited HUPs forever: stop listening */
		if (events & (EPOLLHUP | EPOLLERR)) {
			ep_del(set->fd[0]);
			set->polled = false;
			set->hup = true;
			if (!f->watch && !f->dead)
				file_mark_dead(f);
		} else if (!f->waiters && !f->ph) {
			/*
			 * Nobody to answer: the records stay in the kernel's
			 * ring, and so does its wakeup until someone reads
			 * (file_listen()).  Draining here instead woke this
			 * loop per sample, under pf_lock, for nobody.
			 */
			ep_del(set->fd[0]);
			set->polled = false;
		}
	}
	file_kick(f);
}

/* A reader waits or polls: hear the irq rings again (see file_service()). */
static void file_listen(struct pf_file *f)
{
	unsigned int s;

	for (s = 0; s < f->nr_sets; s++) {
		struct pf_set *set = &f->sets[s];

		if (!set->meta || set->polled || set->hup)
			continue;
		/* a failure leaves the tick and the next read to find it */
		if (!ep_add(set->fd[0], ep_key(f, IDX_SET0 + s)))
			set->polled = true;
	}
}

static struct pf_file *file_by_key(uint64_t key)
{
	uint32_t slot = key >> 40, gen = (key >> 16) & 0xffffff;
	struct pf_file *f;

	if (slot >= nr_files_alloc)
		return NULL;
	f = files[slot];
	if (!f || (f->gen & 0xffffff) != gen)
		return NULL;
	return f;
}

/*
 * Forward: see read_interrupted().
 */
static bool interrupt_wanted(fuse_req_t req);

/* End the reads of @f whose deferred interrupt has become one to honour. */
static bool recheck_deferred(struct pf_file *f)
{
	struct pf_waiter **pp, *w;
	bool any = false;

	for (pp = &f->waiters; (w = *pp);) {
		if (w->deferred && !w->registering && interrupt_wanted(w->req)) {
			*pp = w->next;
			if (f->wtail == &w->next)
				f->wtail = pp;
			fuse_reply_err(w->req, EINTR);
			free(w);
			continue;
		}
		any |= w->deferred;
		pp = &w->next;
	}
	return any;
}

static bool needs_tick(const struct pf_file *f)
{
	struct pf_waiter *w;

	for (w = f->waiters; w; w = w->next)
		if (w->deferred)
			return true;
	if (!(f->waiters || f->ph) || f->dead)
		return false;
	/* only the tick sees a CPU go offline */
	if (f->cpu >= 0)
		return true;
	/* without a pidfd only the tick sees the target exit */
	if (f->nopidfd_pid)
		return true;
	return f->type != PERFCTRFS_IRQ && f->period.value &&
	       !f->period.is_time;
}

/*
 * Has @pid exited (gone, or a zombie)?  Only where pidfd_open is missing
 * (before 5.3, or under valgrind, which does not know the syscall).
 */
static bool pid_exited(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	/* "pid (comm) S ...": comm may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

/* The tick runs only while some period-N reader waits. */
static void tick_arm(bool on)
{
	struct itimerspec its = { 0 };

	if (on == tick_armed)
		return;
	if (on) {
		its.it_interval.tv_nsec = TICK_NS;
		its.it_value.tv_nsec = TICK_NS;
	}
	timerfd_settime(tickfd, 0, &its, NULL);
	tick_armed = on;
}

static void kick_all(void)
{
	bool again = false;
	unsigned int s;

	for (s = 0; s < nr_files_alloc; s++) {
		if (!files[s] || !(files[s]->waiters || files[s]->ph))
			continue;
		if (files[s]->nopidfd_pid && !files[s]->dead &&
		    pid_exited(files[s]->nopidfd_pid))
			file_mark_dead(files[s]);
		recheck_deferred(files[s]);
		file_check_cpu(files[s]);
		file_kick(files[s]);
		again |= needs_tick(files[s]);
	}
	tick_arm(again);
}

/*
 * Overflow signals of @f's counters on or off.  A failure leaves them as
 * they were: off, the tick still answers within TICK_NS; on, the next
 * signal tries again.
 */
static void file_signals(struct pf_file *f, bool on)
{
	unsigned int s;

	for (s = 0; s < f->nr_sets; s++) {
		struct pf_set *set = &f->sets[s];
		int fl;

		if (!set->sigio || set->async == on)
			continue;
		/*
		 * Overflows come every wake_period events from the open, but
		 * a line is due N events after the previous line: waiting
		 * for the next overflow after that made a line late by up
		 * to a whole period, half the lines of a fast stream.
		 * Setting the period again restarts it from now (from the
		 * next event for software events, which overflow once at
		 * it): the next overflow is then N events after the reader
		 * came back, which it had to wait for anyway.
		 */
		if (on && set->wake_period)
			ioctl(set->fd[0], PERF_EVENT_IOC_PERIOD,
			      &set->wake_period);
		fl = fcntl(set->fd[0], F_GETFL);
		if (fl < 0 || fcntl(set->fd[0], F_SETFL,
				    on ? fl | O_ASYNC : fl & ~O_ASYNC))
			continue;
		set->async = on;
	}
}

/*
 * Overflow signals: each names the perf fd that overflowed.  At most
 * SIG_READS reads a wakeup: a counter with a tiny period (cpu_clock at
 * period 1) raises signals faster than one thread reads them, and reading
 * until the queue is empty, under pf_lock, would hold the lock forever and
 * stall every open, read and release.  epoll reports the rest next round.
 */
static bool read_signals(void)
{
	struct signalfd_siginfo si[16];
	unsigned int reads = 0;
	bool all = false;
	ssize_t n;
	int i;

	while (reads++ < SIG_READS && (n = read(sigfd, si, sizeof(si))) > 0) {
		for (i = 0; i < n / (ssize_t)sizeof(si[0]); i++) {
			struct pf_file *f;
			uint32_t fd = si[i].ssi_fd;

			/* SIGIO: the signal queue overflowed, fd unknown */
			if ((int)si[i].ssi_signo != SIG_WAKE ||
			    fd >= nr_fd_keys) {
				all = true;
				continue;
			}
			f = fd_keys[fd] ? file_by_key(fd_keys[fd] - 1) : NULL;
			if (!f)
				continue;
			if (f->waiters || f->ph)
				file_kick(f);
			/* answered, or queued before we turned them off */
			if (!f->waiters && !f->ph)
				file_signals(f, false);
		}
	}
	if (all)
		kick_all();
	return reads > SIG_READS;
}

static int fd_key_set(int fd, uint64_t key)
{
	if ((unsigned int)fd >= nr_fd_keys) {
		unsigned int n = nr_fd_keys ? nr_fd_keys : 256;
		uint64_t *tmp;

		while (n <= (unsigned int)fd)
			n *= 2;
		tmp = realloc(fd_keys, n * sizeof(*fd_keys));
		if (!tmp)
			return -ENOMEM;
		memset(tmp + nr_fd_keys, 0, (n - nr_fd_keys) * sizeof(*tmp));
		fd_keys = tmp;
		nr_fd_keys = n;
	}
	fd_keys[fd] = key + 1;
	return 0;
}

/*
 * Name us and SIG_WAKE as where @fd's overflows go; file_signals() turns
 * them on while somebody waits.
 */
static int fd_async(int fd, uint64_t key)
{
	int err = fd_key_set(fd, key);

	if (err)
		return err;
	if (fcntl(fd, F_SETOWN, getpid()) ||
	    fcntl(fd, F_SETSIG, SIG_WAKE))
		return -errno;
	return 0;
}

static void *pf_loop(void *arg)
{
	/* a signal storm: let the lock's waiters in before the next round */
	const struct timespec backoff = { 0, 2000000 };
	/*
	 * Rings wake us per sample (wakeup_events = 1, so that a reader
	 * gets its first record at once): a clock sampled every 10 us is
	 * 100k wakeups a second, each a round under pf_lock, and glibc's
	 * mutex is not fair, so a worker waiting for it (a release, an
	 * open) could wait for seconds: fuse_fuzz timed out in
	 * pf_file_release() so.  After a round that drained a ring, pause:
	 * the rings fill meanwhile and the next round takes all of it.
	 */
	const struct timespec ring_pause = { 0, 1000000 };
	struct epoll_event evs[64];

	(void)arg;
	for (;;) {
		int i, n = epoll_wait(epfd, evs, 64, -1);
		bool storm = false, rings = false;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		pthread_mutex_lock(&pf_lock);
		for (i = 0; i < n; i++) {
			uint64_t key = evs[i].data.u64, v;
			struct pf_file *f;

			if (key >> 40 == PF_WATCH_SLOT) {
				pf_watch_fire(key, epfd, file_target_gone);
				continue;
			}
			if (key >> 40 == SLOT_GLOBAL) {
				if ((key & 0xffff) == GLOBAL_STOP) {
					pthread_mutex_unlock(&pf_lock);
					return NULL;
				}
				if ((key & 0xffff) == GLOBAL_SIG) {
					storm |= read_signals();
					continue;
				}
				if (read(tickfd, &v, sizeof(v)) < 0)
					continue;
				kick_all();
				continue;
			}
			f = file_by_key(key);
			if (!f)
				continue;
			rings |= f->type == PERFCTRFS_IRQ &&
				 (key & 0xffff) >= IDX_SET0;
			file_service(f, key & 0xffff, evs[i].events);
		}
		pthread_mutex_unlock(&pf_lock);
		if (storm)
			nanosleep(&backoff, NULL);
		else if (rings)
			nanosleep(&ring_pause, NULL);
	}
	return NULL;
}

/* ---- interrupts ------------------------------------------------------- */

/*
 * libfuse calls this with the request's own lock held, maybe before the
 * read handler has finished queueing it (then it only marks it), maybe
 * after the loop answered it (then it is no longer queued and nothing
 * happens: the pointer compare is safe because libfuse holds a reference
 * to the request while it calls us).
 */
/*
 * Should this interrupt end the blocked read @req with EINTR?
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
static bool interrupt_wanted(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	uint64_t pnd = 0, blk = 0, cgt = 0;
	char path[64], buf[16384], *line, *save;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)ctx->pid);
	fd = ctx->pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
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

static void read_interrupted(fuse_req_t req, void *data)
{
	unsigned int s;
	bool wanted;

	(void)data;
	wanted = interrupt_wanted(req);
	pthread_mutex_lock(&pf_lock);
	for (s = 0; s < nr_files_alloc; s++) {
		struct pf_file *f = files[s];
		struct pf_waiter **pp;

		if (!f)
			continue;
		for (pp = &f->waiters; *pp; pp = &(*pp)->next) {
			struct pf_waiter *w = *pp;

			if (w->req != req)
				continue;
			if (!wanted) {
				/* the tick ends it if a fatal signal follows */
				w->deferred = true;
				tick_arm(true);
			} else if (w->registering) {
				w->interrupted = true;
			} else {
				*pp = w->next;
				fuse_reply_err(req, EINTR);
				free(w);
				file_kick(f);
			}
			goto out;
		}
	}
out:
	pthread_mutex_unlock(&pf_lock);
}

/* ---- the file operations ---------------------------------------------- */

/*
 * Period 0, the hot path: answered here, on the libfuse worker that took
 * the request, with one read() per perf group, no allocation and no
 * other thread.  The counters of an open file do not change until its
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

void pf_file_read(fuse_req_t req, struct pf_file *f, size_t size, off_t off,
		  int flags)
{
	char buf[PF_LINE_MAX * 64];
	struct pf_waiter *w, **pp;
	size_t n;

	if (f->type != PERFCTRFS_IRQ && !f->period.value) {
		read_period0(req, f, size, off);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	pthread_mutex_lock(&pf_lock);
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
	*f->wtail = w;
	f->wtail = &w->next;
	if (needs_tick(f))
		tick_arm(true);
	/* a count that got there meanwhile: file_kick() below sees it */
	file_signals(f, true);
	file_listen(f);
	pthread_mutex_unlock(&pf_lock);

	fuse_req_interrupt_func(req, read_interrupted, NULL);

	pthread_mutex_lock(&pf_lock);
	w->registering = false;
	if (w->interrupted) {
		for (pp = &f->waiters; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		fuse_reply_err(req, EINTR);
		free(w);
	}
	file_kick(f);
	pthread_mutex_unlock(&pf_lock);
}

void pf_file_poll(fuse_req_t req, struct pf_file *f,
		  struct fuse_pollhandle *ph)
{
	unsigned int ev;

	pthread_mutex_lock(&pf_lock);
	file_check_cpu(f);
	if (f->type != PERFCTRFS_IRQ && !f->period.value)
		ev = POLLIN | POLLRDNORM | (f->cpu_gone ? POLLHUP : 0);
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
	unsigned int s, m;

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
	free(f->sets);
	free(f->q);
	pthread_mutex_destroy(&f->line0_lock);
	free(f);
}

static void file_free(struct pf_file *f)
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
 * @pid is the target with "self" resolved; @is_process from its status.
 */
static int list_targets(const struct pf_target *t,
			const struct perfctrfs_pid *pid, bool is_process,
			struct pf_where **out)
{
	struct pf_where *w = NULL;
	unsigned int *cpus = NULL, nr = 0, nr_tids = 0, i;
	pid_t *tids = NULL;
	int nr_cpus = 1, err = 0;

	if (t->cpu->all && pid->kind == PERFCTRFS_PID_ALL) {
		nr_cpus = pf_online_cpus(&cpus);
		if (nr_cpus <= 0)
			return nr_cpus < 0 ? nr_cpus : -ENODEV;
	}
	if (pid->kind == PERFCTRFS_PID_ALL) {
		if (!t->cpu->all)
			err = add_where(&w, &nr, -1, t->cpu->cpu);
		for (i = 0; t->cpu->all && i < (unsigned int)nr_cpus && !err;
		     i++)
			err = add_where(&w, &nr, -1, cpus[i]);
		goto out;
	}
	if (is_process) {
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
	err = pf_open_group(caller, attr, f->nr_members, w->pid, w->cpu,
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
 * user to anything.
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
	struct pf_src *src;
	dev_t dev;
	ino_t ino;

	for (src = srcs; src; src = src->next)
		if (src->ev == t->ev && src->cpu == t->cpu &&
		    src->watch == f->watch && src->type == f->type &&
		    !src->dead && pf_creds_equal(&src->creds, &caller->creds) &&
		    (unsigned long)src->nr_sets * src->nr_members <= f->share)
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
	src->exe_dev = exe_dev;
	src->exe_ino = exe_ino;
	src->refs = 1;
	src->nr_sets = f->nr_sets;
	src->nr_members = f->nr_members;
	src->group = f->group;
	src->sets = f->sets;
	pthread_mutex_init(&src->lock, NULL);
	pthread_cond_init(&src->cond, NULL);
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
	unsigned int s, m;
	int nr, err;

	(void)flags;
	if (t->type == PERFCTRFS_IRQ && t->period.is_time &&
	    !(t->ev->nr >= 1 && is_clock(&t->ev->ev[0])))
		return -EINVAL;	/* only the clocks count time */
	if (t->type == PERFCTRFS_IRQ && !t->period.value)
		return -ENOENT;
	f = calloc(1, sizeof(*f));
	caller = malloc(sizeof(*caller));
	target = malloc(sizeof(*target));
	if (!f || !caller || !target) {
		err = -ENOMEM;
		goto fail_early;
	}
	f->spec = *t->ev;
	f->type = t->type;
	f->period = t->period;
	f->cpu = t->pid.kind == PERFCTRFS_PID_ALL && !t->cpu->all ?
		 (int)t->cpu->cpu : -1;
	f->nr_members = t->ev->nr;
	f->group = t->ev->nr > 1;
	f->timerfd = -1;
	f->wtail = &f->waiters;
	pthread_mutex_init(&f->line0_lock, NULL);
	if (f->type == PERFCTRFS_IRQ) {
		f->q = calloc(PF_IRQ_QUEUE, sizeof(*f->q));
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
	} else if (!err && pid.kind == PERFCTRFS_PID_NUM) {
		/* the name is an id in the caller's pid namespace: ours, now */
		pid_t here = pf_pid_from_caller(caller, pid.pid);

		err = here < 0 ? here : pf_task_status(here, target);
		if (!err)
			pid.pid = here;
		is_process = !err && target->tgid == here;
		if (!err && pf_target_refused(caller, target->tgid))
			err = -EACCES;
	}
	nr = err ? err : list_targets(t, &pid, is_process, &where);
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
	/* the caller's share, before any counter exists */
	f->uid = ctx->uid;
	err = pf_share_take(f->uid, (unsigned long)nr * f->nr_members);
	if (err)
		goto fail_early;
	f->share = (unsigned long)nr * f->nr_members;

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
	if (err)
		goto fail_early;

	pthread_mutex_lock(&pf_lock);
	nr_counters += f->nr_sets * f->nr_members;
	if (pid.kind == PERFCTRFS_PID_NUM) {
		/* gone is ENOENT; out of fds or memory fails the open */
		err = pf_watch_get(pid.pid, !is_process, epfd, &f->watch);
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
		pf_share_give(f->uid, f->share);
		free(f->sets);
		free(f->q);
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
	while ((w = f->waiters)) {
		f->waiters = w->next;
		fuse_reply_err(w->req, EBADF);
		free(w);
	}
	file_unhook(f);
	pthread_mutex_unlock(&pf_lock);
	file_destroy(f);
}

int pf_counter_init(void)
{
	sigset_t mask;
	int err;

	page_size = sysconf(_SC_PAGESIZE);
	/* blocked in every thread (they inherit this mask): read by sigfd */
	sigemptyset(&mask);
	sigaddset(&mask, SIG_WAKE);
	sigaddset(&mask, SIGIO);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	tickfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (epfd < 0 || stopfd < 0 || tickfd < 0 || sigfd < 0)
		return -errno;
	err = ep_add(stopfd, SLOT_GLOBAL << 40);
	if (!err)
		err = ep_add(tickfd, (SLOT_GLOBAL << 40) | GLOBAL_TICK);
	if (!err)
		err = ep_add(sigfd, (SLOT_GLOBAL << 40) | GLOBAL_SIG);
	if (err)
		return err;
	err = pthread_create(&loop_thread, NULL, pf_loop, NULL);
	if (err)
		return -err;
	/* named, so that ps and the tests can tell it from the workers */
	pthread_setname_np(loop_thread, "perfctrfs-loop");
	loop_started = true;
	return 0;
}

void pf_counter_exit(void)
{
	uint64_t one = 1;
	unsigned int s;

	if (loop_started) {
		if (write(stopfd, &one, sizeof(one)) < 0)
			pf_log(LOG_ERR, "cannot stop the event loop");
		pthread_join(loop_thread, NULL);
		loop_started = false;
	}
	pthread_mutex_lock(&pf_lock);
	for (s = 0; s < nr_files_alloc; s++)
		if (files[s]) {
			file_free(files[s]);
			files[s] = NULL;
		}
	free(files);
	files = NULL;
	nr_files_alloc = 0;
	pthread_mutex_unlock(&pf_lock);
	if (tickfd >= 0)
		close(tickfd);
	if (stopfd >= 0)
		close(stopfd);
	if (sigfd >= 0)
		close(sigfd);
	free(fd_keys);
	fd_keys = NULL;
	nr_fd_keys = 0;
	if (epfd >= 0)
		close(epfd);
	tickfd = -1;
	stopfd = -1;
	epfd = -1;
	sigfd = -1;
}
