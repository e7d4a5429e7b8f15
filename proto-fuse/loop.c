// SPDX-License-Identifier: GPL-2.0
/*
 * The event loop that answers reads which must wait, and its sources.
 *
 * A read that must wait (period N, a time period, irq) never holds a
 * libfuse worker: its fuse_req_t is queued on the file and answered later
 * by pf_loop(), one thread that epolls the timerfds of time periods, the
 * targets' pidfds, the irq leaders' ring buffers (POLLIN on each sample,
 * wakeup_events = 1, heard only while a reader waits or polls: see
 * file_service()), a signalfd and a coarse fallback tick.  The leaves of
 * one target share its pidfd (watch.c).  A cgroup target is one counter
 * per CPU, as the system-wide one, opened with PERF_FLAG_PID_CGROUP on the
 * directory the caller's opener opened.  perf says nothing when a cgroup
 * it counts is removed, and kernfs wakes no poller of a file that goes
 * (its cgroup.events wakes on "populated" changes only), so removal is
 * seen as a CPU going offline is: at a read, a poll, and on the tick
 * while a reader waits (file_check_cgroup()).
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
 * and pf_lock busy for nobody; while they are on, sigq_cap() bounds how
 * many can wait in the queue.  The tick keeps "N events since the last
 * line" sound when the count is a sum whose rise need not make any one
 * counter overflow (inherited children count on their own period).  A
 * SIGIO says the queue was full (no fd): every waiting file is looked at,
 * which in a storm is routine, not rare.
 *
 * A pass of the loop holds pf_lock for the events epoll gave (at most
 * 64), and on a tick for one look at every open file with a reader, and
 * hands what it found to file_kick() (wait.c).  Everything here runs
 * under pf_lock, except the deferred readers' /proc looks, which a pass
 * makes after letting the lock go (pf_loop()), and the start and stop of
 * the loop's thread (pf_counter_init(), pf_counter_exit()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "counter.h"

#define SIG_READS	4		/* signalfd reads a wakeup, see read_signals() */
#define SIGQ_MAX	1024		/* signals queued to us, see sigq_cap() */
#define GLOBAL_STOP	0
#define GLOBAL_TICK	1
#define GLOBAL_SIG	2
#define SIG_WAKE	(SIGRTMIN + 2)

int epfd = -1;
static int stopfd = -1, tickfd = -1, sigfd = -1;
uint64_t *fd_keys;		/* perf fd -> its file's key + 1 */
unsigned int nr_fd_keys;
static pthread_t loop_thread;
static bool loop_started;
static bool tick_armed;

/* ---- the epoll set ---------------------------------------------------- */

uint64_t ep_key(const struct pf_file *f, unsigned int idx)
{
	return ((uint64_t)f->slot << 40) | ((uint64_t)(f->gen & 0xffffff) << 16) |
	       idx;
}

int ep_add(int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = key };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

void ep_del(int fd)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* ---- what the loop hears of a file ------------------------------------ */

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
bool file_check_cpu(struct pf_file *f)
{
	if (f->cpu < 0 || f->cpu_gone)
		return f->cpu_gone;
	if (pf_cpu_online(f->cpu) == 0) {
		f->cpu_gone = true;
		file_mark_dead(f);
	}
	return f->cpu_gone;
}

/*
 * Was the cgroup of a cgroup leaf removed?  Its cgroup.events then fails
 * a read with ENODEV (any failure counts: the file is ours, read-only).
 * The leaf ends as at a target's exit, and a cgroup id is never reused;
 * the fd is closed and its share unit given back then, not at release.
 * Under pf_lock (share_lock may be taken under it).
 */
bool file_check_cgroup(struct pf_file *f)
{
	char buf[256];

	if (f->cgevents < 0 || f->cg_gone)
		return f->cg_gone;
	if (pread(f->cgevents, buf, sizeof(buf), 0) >= 0)
		return false;
	close(f->cgevents);
	f->cgevents = -1;
	/* that fd was a unit of its user's share: back at once */
	pf_share_give(f->uid, 1);
	f->share--;
	f->cg_gone = true;
	file_mark_dead(f);
	return true;
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
void file_listen(struct pf_file *f)
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

/* ---- the tick --------------------------------------------------------- */

bool needs_tick(const struct pf_file *f)
{
	if (f->ndeferred)
		return true;
	if (!(f->waiters || f->ph) || f->dead)
		return false;
	/* only the tick sees a CPU go offline, or a cgroup removed */
	if (f->cpu >= 0 || f->cgevents >= 0)
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
void tick_arm(bool on)
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
		file_check_cpu(files[s]);
		file_check_cgroup(files[s]);
		file_kick(files[s]);
		again |= needs_tick(files[s]);
	}
	tick_arm(again);
}

/* ---- overflow signals ------------------------------------------------- */

/*
 * Overflow signals of @f's counters on or off.  A failure leaves them as
 * they were: off, the tick still answers within TICK_NS; on, the next
 * signal tries again.
 */
void file_signals(struct pf_file *f, bool on)
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

			/* SIGIO: past SIGQ_MAX queued (sigq_cap()), fd unknown */
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
int fd_async(int fd, uint64_t key)
{
	int err = fd_key_set(fd, key);

	if (err)
		return err;
	if (fcntl(fd, F_SETOWN, getpid()) ||
	    fcntl(fd, F_SETSIG, SIG_WAKE))
		return -errno;
	return 0;
}

/* ---- the loop --------------------------------------------------------- */

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
	static struct defer_check checks[DEFER_CHECKS];
	struct epoll_event evs[64];
	unsigned int nc, c;

	(void)arg;
	for (;;) {
		int i, n = epoll_wait(epfd, evs, 64, -1);
		bool storm = false, rings = false, ticked = false;

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
				ticked = true;
				continue;
			}
			f = file_by_key(key);
			if (!f)
				continue;
			rings |= f->type == PERFCTRFS_IRQ &&
				 (key & 0xffff) >= IDX_SET0;
			file_service(f, key & 0xffff, evs[i].events);
		}
		/*
		 * Deferred readers' /proc status: read without pf_lock, which
		 * every user's open and blocking read needs.
		 */
		nc = ticked ? deferred_collect(checks, mono_ns()) : 0;
		if (nc) {
			pthread_mutex_unlock(&pf_lock);
			for (c = 0; c < nc; c++)
				checks[c].wanted = pid_wants_interrupt(checks[c].pid);
			pthread_mutex_lock(&pf_lock);
			deferred_apply(checks, nc, mono_ns());
		}
		pthread_mutex_unlock(&pf_lock);
		if (storm)
			nanosleep(&backoff, NULL);
		else if (rings)
			nanosleep(&ring_pause, NULL);
	}
	return NULL;
}

/* ---- start and stop --------------------------------------------------- */

/*
 * Overflow signals are queued to the daemon and charged to its user's
 * pending-signal count, which every process of that user (root) shares.
 * A user's two period-1 page_faults readers queued 79,226 of root's
 * 96,367: sigqueue(), timer_create() and mq_notify() of any root process
 * then fail with EAGAIN, and this loop read the stale signals for seconds
 * after the readers had gone.  The kernel checks the count against the
 * receiver's own RLIMIT_SIGPENDING, so lowering ours bounds what we can
 * take; past it an overflow is sent as a plain SIGIO (one pending at
 * most), and read_signals() kicks every waiting file.
 */
static void sigq_cap(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_SIGPENDING, &rl) || rl.rlim_cur <= SIGQ_MAX)
		return;
	rl.rlim_cur = SIGQ_MAX;
	if (setrlimit(RLIMIT_SIGPENDING, &rl))
		pf_log(LOG_WARNING, "cannot cap queued signals at %d: %m",
		       SIGQ_MAX);
}

int pf_counter_init(void)
{
	sigset_t mask;
	int err;

	page_size = sysconf(_SC_PAGESIZE);
	sigq_cap();
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
