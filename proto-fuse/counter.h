/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts behind an open leaf share, and no other file includes:
 * internal.h stays the daemon-wide interface (pf_file_open() and the other
 * file operations), this is the inside of struct pf_file and of the event
 * loop that answers reads which must wait.
 *
 * Locking: all of it is pf_lock's, except a pf_file's line0, line0_len
 * and view, which are its line0_lock's alone (read_period0(), which reads
 * the counters without pf_lock: they do not change between open and
 * release), a shared set's sample and queued reads (struct pf_src),
 * which are its own lock's, and a pf_file that is not in files[] yet or any longer (its
 * open, its destruction), which is its opener's or releaser's alone.
 */
#ifndef PERFCTRFS_FUSE_COUNTER_H
#define PERFCTRFS_FUSE_COUNTER_H

#include <linux/perf_event.h>

#include "internal.h"

#define TICK_NS		100000000ULL	/* fallback tick: 100ms */
/*
 * Deferred readers (read_interrupted()): a reader's /proc status is looked
 * at again TICK_NS after its interrupt, then after twice as long each
 * time, up to TICK_NS << DEFER_LEVELS - 1 (1.6 s); at most DEFER_CHECKS
 * of them a tick, earliest due first, read without pf_lock.
 */
#define DEFER_LEVELS	5
#define DEFER_CHECKS	256

#define IDX_TIMER	0
#define IDX_SET0	2
#define SLOT_GLOBAL	0xffffffULL

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
	struct pf_waiter *next, **pprev;	/* its file's readers, oldest first */
	struct pf_waiter *hnext, **hpprev;	/* whash[]: found by request */
	struct pf_waiter *dnext, **dpprev;	/* deferq[level], while queued */
	struct pf_file *f;
	fuse_req_t req;
	size_t size;
	uint64_t due;			/* deferred: next look, monotonic ns */
	unsigned int level;		/* deferred: looked at TICK_NS << level */
	bool registering;		/* read handler still owns it */
	bool interrupted;
	bool deferred;			/* a signal it sleeps through: rechecked */
	bool queued;			/* ... in deferq[level] */
	bool checking;			/* ... its /proc being read, unlocked */
};

struct pf_irq_rec {
	uint64_t count;			/* cumulative count, or lost records */
	uint64_t ip;
	bool lost;
};

/* A read of a leaf at offset 0 waiting for a read of its set, or answer */
struct pf_src_read {
	struct pf_src_read *next;
	fuse_req_t req;
	struct pf_file *f;
	size_t size;
	int err;			/* the read of the set it got */
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run;
};

/*
 * One set of counters that several period-0 leaves read (counter.c: see
 * its top and src_attach()).  Its key, refs and dead are under pf_lock;
 * its sample and queues under @lock.  A read at offset 0 queues (@q) for
 * the next read of the set and its worker joins the others in reading
 * the set for all the queue holds and answering what was read (@ready):
 * see src_read().  Opens and ioctls that find a read under way wait for
 * the next (src_sample()).  Either way each answer was read after its
 * request came.
 */
struct pf_src {
	struct pf_src *next;		/* in srcs, while joinable */
	const void *ev, *cpu;		/* the event and CPU nodes' data */
	struct pf_watch *watch;		/* the target (one process, one pid) */
	enum perfctrfs_type type;
	struct pf_creds creds;		/* of the opener that made it */
	uid_t uid;			/* ... and its accountable uid */
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
	struct pf_src_read *q, **qtail;	/* reads owed a read of the set */
	struct pf_src_read *ready, **readytail;	/* ... read, to answer */
	struct pf_src_read *qfree;	/* entries to reuse */
	unsigned int reading;		/* src_read()s reading it for q */
	unsigned int replying;		/* ... answering what it read */
	unsigned int inside;		/* workers in src_read() */
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
	int cgdir;			/* cgroup target: its directory, at open */
	int cgevents;			/* ... its cgroup.events, or -1 */
	bool cg_gone;			/* ... and the cgroup was removed */
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
	unsigned int ndeferred;		/* of its waiters, deferred */
	struct fuse_pollhandle *ph;
	struct pf_irq_rec *q;		/* irq: ring of qcap records */
	unsigned int qhead, qlen, qcap;
	uint64_t lost_pending;
	uint64_t irq_sum;
	uint64_t overflows;		/* samples and kernel-lost records seen */
	uint64_t unsampled;		/* periods reported lost, never sampled */
	uid_t uid;			/* whose share its counters are */
	unsigned long share;
	struct pf_share *rshare;	/* its uid's entry: the read gate */
	struct pf_budget budget;	/* what its caller is charged */
};

struct defer_check {
	fuse_req_t req;
	pid_t pid;
	bool wanted;
};

/* counter.c: reading counts, readiness and replies, open and release */
extern struct pf_file **files;
extern unsigned int nr_files_alloc;
extern long page_size;

int file_sample(struct pf_file *f, uint64_t *vals, uint64_t *ena,
		uint64_t *run);
bool file_ready(struct pf_file *f);
size_t file_take(struct pf_file *f, char *out, size_t size);
void file_free(struct pf_file *f);

/* ring.c: ring buffers and irq records */
void irq_gather(struct pf_file *f);

/* wait.c: waiters, deferred readers, interrupts */
uint64_t mono_ns(void);
void waiter_add(struct pf_file *f, struct pf_waiter *w);
void waiter_fail(struct pf_waiter *w, int err);
void file_kick(struct pf_file *f);
unsigned int deferred_collect(struct defer_check *c, uint64_t now);
void deferred_apply(const struct defer_check *c, unsigned int n,
		    uint64_t now);
bool pid_wants_interrupt(pid_t pid);
void read_interrupted(fuse_req_t req, void *data);

/* loop.c: the event loop, its epoll set, the tick, overflow signals */
extern int epfd;
extern uint64_t *fd_keys;
extern unsigned int nr_fd_keys;

uint64_t ep_key(const struct pf_file *f, unsigned int idx);
int ep_add(int fd, uint64_t key);
void ep_del(int fd);
bool file_check_cpu(struct pf_file *f);
bool file_check_cgroup(struct pf_file *f);
void file_listen(struct pf_file *f);
bool needs_tick(const struct pf_file *f);
void tick_arm(bool on);
void file_signals(struct pf_file *f, bool on);
int fd_async(int fd, uint64_t key);

#endif /* PERFCTRFS_FUSE_COUNTER_H */
