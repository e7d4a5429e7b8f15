/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of perfctrfs-fuse share.
 *
 *   main.c     options, mount, signals, the fuse session loop
 *   fs.c       the node table and the fuse_lowlevel_ops
 *   catalog.c  sysfs PMU discovery and the per-CPU probe cache
 *   counter.c  open leaves: groups, reads, the file operations, open and
 *              release
 *   ring.c     irq leaves' ring buffers and records
 *   wait.c     reads that wait: waiters, deferred readers, interrupts
 *   loop.c     the event loop that answers blocked reads: epoll, the
 *              tick, overflow signals (these four share counter.h)
 *   watch.c    one pidfd per counted target, shared by its leaves
 *   opener.c   the processes that open counters with a caller's rights
 *   creds.c    which rights those are (pure rules, unit-tested)
 *   share.c    each user's share of the counters, directory handles
 *              and budgets
 *   budget.c   the rules of those budgets (pure, unit-tested)
 *   siphash.c  the keyed hash of the node table's inode numbers (unit-tested)
 *   cgroup.c   which cgroups a caller may name, and where they are
 *
 * One mutex (pf_lock) guards every open leaf and the node table: the
 * daemon is small, the machine has few cores, and one lock keeps the
 * deferred-reply and interrupt races easy to reason about.
 */
#ifndef PERFCTRFS_FUSE_INTERNAL_H
#define PERFCTRFS_FUSE_INTERNAL_H

#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../fs/perfctrfs/grammar.h"
#include "budget.h"
#include "creds.h"

#define PF_NAME		"perfctrfs-fuse"
#define PF_VERSION	"0.1"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * irq records queued per open leaf before new ones are dropped as lost;
 * the queue grows to that from PF_IRQ_QUEUE_MIN as records wait
 */
#define PF_IRQ_QUEUE	4096
#define PF_IRQ_QUEUE_MIN	64

/* directory handles one uid may hold open, by default, with allow_other */
#define PF_MAX_DIRS	256

/* longest line a leaf produces: 8 counts and two times, each <= 20 digits */
#define PF_LINE_MAX	256

enum pf_level {
	PF_ROOT,
	PF_CPU,
	PF_EVENT,
	PF_PID,
	PF_TYPE,
	PF_PERIOD,
};

struct pf_node {
	uint64_t ino;
	struct pf_node *parent;
	struct pf_node *hnext;		/* ino hash chain */
	enum pf_level level;
	char *name;
	uint64_t nlookup;		/* the kernel's references */
	unsigned int refs;		/* children and open files */
	union {
		struct perfctrfs_cpu cpu;
		struct perfctrfs_event_spec ev;
		struct perfctrfs_pid pid;
		enum perfctrfs_type type;
		struct perfctrfs_period period;
	} u;
};

struct pf_opts {
	uid_t uid;
	gid_t gid;
	mode_t leaf_mode;
	mode_t dir_mode;
	bool foreground;
	unsigned long max_counters;	/* per uid; 0: no limit of our own */
	unsigned long max_dirs;		/* open directories per uid; 0: none */
	unsigned long max_calls;	/* cgroup walks a uid may have in the
					 * daemon at once; 0: no limit */
};

extern struct pf_opts pf_opts;
extern pthread_mutex_t pf_lock;
extern struct fuse_session *pf_se;

void pf_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* fs.c */
extern const struct fuse_lowlevel_ops pf_ops;
int pf_fs_init(void);
void pf_fs_exit(void);

/* catalog.c */
extern struct perfctrfs_catalog pf_catalog;

struct pf_candidate {
	char *name;			/* path form: "task_clock", "msr.tsc" */
	struct perfctrfs_event_spec spec;
	const char *description;	/* NULL when the kernel has none */
};

int pf_catalog_init(void);
void pf_catalog_exit(void);
int pf_online_cpus(unsigned int **cpus);
int pf_cpu_online(unsigned int cpu);
unsigned int pf_nr_candidates(void);
const struct pf_candidate *pf_candidate(unsigned int i);
const struct pf_candidate *pf_candidate_find(const char *name);
int pf_probe_cached(const struct perfctrfs_cpu *cpu, unsigned int i);
int pf_cpu_events(const struct perfctrfs_cpu *cpu, const unsigned int **idx);
const char *pf_builtin_description(const char *name);

/* counter.c; pf_counter_init() and pf_counter_exit(): loop.c */
struct pf_file;

struct pf_target {
	const struct perfctrfs_cpu *cpu;
	const struct perfctrfs_event_spec *ev;
	struct perfctrfs_pid pid;	/* SELF: pf_file_open() resolves it */
	enum perfctrfs_type type;
	struct perfctrfs_period period;
};

/* reads of one shared set at once: main.c sets it to the usable CPUs */
extern unsigned int pf_src_readers;

int pf_counter_init(void);
void pf_counter_exit(void);
int pf_file_open(fuse_req_t req, const struct pf_target *t,
		 int flags, struct pf_file **out);
void pf_file_release(struct pf_file *f);
void pf_file_read(fuse_req_t req, struct pf_file *f, size_t size, off_t off,
		  int flags);
void pf_file_poll(fuse_req_t req, struct pf_file *f,
		  struct fuse_pollhandle *ph);
int pf_file_control(struct pf_file *f, const char *word, size_t len);
int pf_file_ioctl(struct pf_file *f, unsigned int cmd);
unsigned long pf_open_counters(void);

/* share.c: each user's share of the counters, directory handles, budgets */
struct pf_caller;

/* What one open leaf holds of its caller's budgets (budget.h). */
struct pf_budget {
	uid_t uid;			/* the caller's accountable uid */
	struct pf_mlock mlock;		/* irq rings and queue: locked pages */
	unsigned long timer_rate;	/* a time period: firings a second */
};

/* the share of callers with the daemon's own credentials: no limit */
#define PF_UID_DAEMON	((uid_t)-1)

int pf_share_take(uid_t uid, unsigned long n);
void pf_share_give(uid_t uid, unsigned long n);
int pf_share_dir_take(uid_t uid);
void pf_share_dir_give(uid_t uid);
int pf_share_call_take(uid_t uid);
int pf_share_cgids_take(uid_t uid, unsigned long n);
void pf_share_cgids_give(uid_t uid, unsigned long n);
void pf_share_call_give(uid_t uid);
struct pf_share;
struct pf_share *pf_share_files_get(uid_t uid);
void pf_share_files_put(struct pf_share *s);
bool pf_share_read_enter(struct pf_share *s, fuse_req_t req,
			 struct pf_file *f, size_t size, off_t off);
struct pf_parked *pf_share_read_next(struct pf_share *s);

/* A period-0 read parked for one of its user's workers (share.c). */
struct pf_parked {
	struct pf_parked *next;
	fuse_req_t req;
	struct pf_file *f;
	size_t size;
	off_t off;
};

/* the shared sets whose parked reads a worker queues before it reads */
#define PF_PARKED_SETS	16
int pf_budget_lock(const struct pf_caller *c, unsigned long pages,
		   struct pf_budget *b);
int pf_budget_timer(const struct pf_caller *c, uint64_t period_ns,
		    struct pf_budget *b);
void pf_budget_give(struct pf_budget *b);

/* opener.c: perf_event_open for a caller, with the caller's rights */
struct perf_event_attr;

struct pf_caller {
	pid_t tid;			/* in the daemon's pid namespace */
	struct pf_status st;
	struct pf_creds creds;		/* what its opener holds */
	uid_t acct_uid;			/* its share's: pf_accountable_uid() */
	bool same_userns;		/* as the daemon's */
	bool same_pidns;		/* as the daemon's */
	bool same_cgns;			/* as the daemon's (and cgroups exist) */
};

int pf_opener_init(const char **why);
void pf_opener_exit(void);
unsigned int pf_nr_openers(void);
int pf_task_status(pid_t tid, struct pf_status *st);
int pf_task_memlock(pid_t tid, uint64_t *bytes);
int pf_caller_get(pid_t tid, struct pf_caller *c);
int pf_caller_acct_uid(pid_t tid, uid_t fallback, uid_t *uid);
bool pf_target_refused(const struct pf_caller *c, pid_t tgid);
pid_t pf_caller_pid(const struct pf_caller *c, pid_t pid);
pid_t pf_pid_from_caller(const struct pf_caller *c, pid_t nr);
int pf_pid_visible(pid_t tid, pid_t nr);
int pf_open_group(const struct pf_caller *c, struct perf_event_attr *attr,
		  unsigned int nr, pid_t pid, int cgfd, int cpu, bool fallback,
		  int *fds, bool *no_signal);
int pf_cgroup_find(const struct pf_caller *c, uint64_t id, char *path,
		   size_t size, int *dirfd, int *eventsfd);
int pf_cgroup_visible(pid_t tid, uint64_t id, char *path, size_t size);
int pf_cgroup_list(pid_t tid, uint64_t **ids);

/* cgroup.c */
#define PF_CGROUP_MAX	8192	/* cgroups one caller may list */
#define PF_CGROUP_IDS_MAX 16384	/* cgroup ids one user's open directory
				 * handles may hold together: 128 KiB */
#define PF_CGROUP_WALK_MAX 16384 /* directories one walk may try to open */

struct pf_cgwalk {
	uint64_t want;			/* the id to find, or 0: list */
	bool want_fds;			/* find: keep dirfd and eventsfd */
	bool found;
	unsigned int nr;		/* list: ids[0, nr) */
	unsigned int tried;		/* directories the walk tried to open */
	uint64_t ids[PF_CGROUP_MAX];
	char path[PATH_MAX];		/* find: relative to the walk's root */
	size_t len;
	int dirfd, eventsfd;
};

void pf_cgroup_init(void);
bool pf_cgroup_available(void);
bool pf_cgroup_same_ns(uint64_t dev, uint64_t ino);
int pf_cgroup_root(char *out, size_t size);
int pf_cgroup_walk(int at, const char *root, struct pf_cgwalk *w);

/*
 * The daemon itself short of fds or memory: an answer about us, not about
 * what was asked, so never ENOENT and never remembered.
 */
static inline bool pf_err_transient(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* watch.c: under pf_lock */
struct pf_watch;

#define PF_WATCH_SLOT	0xfffffeULL	/* epoll keys: (slot << 40) | ... */

uint64_t pf_watch_key(const struct pf_watch *w);
int pf_watch_get(pid_t pid, bool thread, int epfd, uid_t uid,
		 struct pf_watch **out);
int pf_watch_add(struct pf_watch *w, void *owner, int epfd);
bool pf_watch_alive(const struct pf_watch *w);
void pf_watch_del(struct pf_watch *w, void *owner, int epfd);
void pf_watch_fire(uint64_t key, int epfd, void (*gone)(void *owner));

#endif /* PERFCTRFS_FUSE_INTERNAL_H */
