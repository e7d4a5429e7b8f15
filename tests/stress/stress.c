// SPDX-License-Identifier: GPL-2.0
/*
 * stress - bounded stress scenarios against a perfctrfs mount (the FUSE
 * daemon or the kernel filesystem: only the mount point is needed).  Each
 * prints one summary line, "<counts> unexpected=<n>", and exits 0 when
 * nothing unexpected happened, 1 when something did, 2 on bad usage.
 *
 *	stress threads MNT SECS NTHREADS   open/read/close random valid and
 *	                                   invalid leaves from NTHREADS threads
 *	stress forkstorm MNT SECS          children fork and exit while their
 *	                                   counters are read and polled
 *	stress exitwait MNT NREADERS       NREADERS block in read on one
 *	                                   target; it exits; all must return
 *	stress killread MNT                a reader killed mid-read is reaped
 *	stress churn MNT SECS              threads of this process start and
 *	                                   exit without pause while it opens
 *	                                   its own self leaves: every open
 *	                                   must succeed (a thread that exits
 *	                                   between the daemon's listing and its
 *	                                   perf_event_open is not the process
 *	                                   exiting)
 *
 * Static like tests/helpers, for the kernel guests (busybox only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *mnt;
static atomic_ulong ops, unexpected, opened, denied;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void oops(const char *what, const char *path, int err)
{
	/* the first few only: a broken run should not flood the log */
	if (atomic_fetch_add(&unexpected, 1) < 10)
		fprintf(stderr, "stress: %s %s: %s\n", what, path,
			strerrorname_np(err) ? strerrorname_np(err) : "?");
}

/* leaves that exist on every machine with software events */
static const char *const valid[] = {
	"all/task_clock/self/simple/0", "all/page_faults/self/times/0",
	"0/cpu_clock/self/simple/0", "all/context_switches/all/simple/0",
	"all/task_clock/self/simple/10ms", "all/task_clock/self/irq/1000000",
	"all/task_clock+page_faults/self/simple/0", "all/cpu_clock:u/self/times/1",
	"all/task_clock/1/simple/0", "0/page_faults/self/simple/1000",
};

/* names every backend must refuse with ENOENT */
static const char *const invalid[] = {
	"all/nonesuch/self/simple/0", "all/task_clock/self/simple/00",
	"99999/task_clock/self/simple/0", "all/task_clock/2147483647/simple/0",
	"all/task_clock/self/bogus/0", "all/task_clock/self/irq/0",
	"all/task_clock/self/simple/1ns", "all/0x/self/simple/0",
	"all/task_clock:uu/self/simple/0", "-1/task_clock/self/simple/0",
};

static unsigned int seed_of(void)
{
	return (unsigned int)(now() * 1e6) ^ (unsigned int)gettid();
}

static void *thread_main(void *arg)
{
	double end = *(double *)arg;
	unsigned int seed = seed_of();
	char path[4096], buf[4096];

	while (now() < end) {
		bool ok = rand_r(&seed) % 2;
		const char *leaf = ok ? valid[rand_r(&seed) % 10] :
				   invalid[rand_r(&seed) % 10];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", mnt, leaf);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		atomic_fetch_add(&ops, 1);
		if (fd < 0) {
			/* a valid leaf may be refused by perf (paranoid, pid 1) */
			if (!ok && errno == ENOENT)
				continue;
			if (ok && (errno == EACCES || errno == EPERM)) {
				atomic_fetch_add(&denied, 1);
				continue;
			}
			oops("open", leaf, errno);
			continue;
		}
		if (!ok)
			oops("open succeeded", leaf, 0);
		atomic_fetch_add(&opened, 1);
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			oops("read", leaf, errno);
		if (close(fd))
			oops("close", leaf, errno);
	}
	return NULL;
}

static int do_threads(double secs, int n)
{
	pthread_t t[256];
	double end = now() + secs;
	int i;

	if (n < 1 || n > 256)
		return 2;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread_main, &end);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads=%d ops=%lu opened=%lu denied=%lu unexpected=%lu\n", n,
	       (unsigned long)ops, (unsigned long)opened,
	       (unsigned long)denied, (unsigned long)unexpected);
	return unexpected ? 1 : 0;
}

static void spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		;
}

/* read one leaf of @pid until EOF (the target gone); 0 or an errno */
static int read_to_eof(const char *leaf, pid_t pid, double limit, int *lines)
{
	char path[4096], buf[4096];
	struct pollfd pfd;
	double end = now() + limit;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/all/task_clock/%d/%s", mnt, pid, leaf);
	pfd.fd = open(path, O_RDONLY);
	if (pfd.fd < 0)
		return errno;
	pfd.events = POLLIN;
	*lines = 0;
	while (now() < end) {
		if (poll(&pfd, 1, 1000) < 0)
			break;
		n = read(pfd.fd, buf, sizeof(buf));
		if (n == 0) {
			close(pfd.fd);
			return 0;
		}
		if (n < 0) {
			int err = errno;

			close(pfd.fd);
			return err;
		}
		(*lines)++;
	}
	close(pfd.fd);
	return ETIMEDOUT;
}

static int do_forkstorm(double secs)
{
	static const char *const leaves[] = { "times/10ms", "simple/1ms", "simple/1000000" };
	double end = now() + secs;
	unsigned long children = 0, eofs = 0, gone = 0, lines_total = 0;
	unsigned int seed = seed_of();

	while (now() < end) {
		pid_t pid = fork();
		int err, lines = 0, st;

		if (pid < 0) {
			oops("fork", "", errno);
			break;
		}
		if (!pid) {
			/* a short life with a child of its own (inherit) */
			if (!fork()) {
				spin(0.005);
				_exit(0);
			}
			spin(0.002 * (1 + getpid() % 10));
			wait(NULL);
			_exit(0);
		}
		children++;
		err = read_to_eof(leaves[rand_r(&seed) % 3], pid, 10, &lines);
		lines_total += lines;
		if (!err)
			eofs++;
		else if (err == ENOENT || err == ESRCH)
			gone++;	/* exited before the open: perf's answer */
		else
			oops("read to EOF", "forkstorm", err);
		if (waitpid(pid, &st, 0) != pid)
			oops("waitpid", "forkstorm", errno);
	}
	printf("children=%lu eof=%lu gone_before_open=%lu lines=%lu unexpected=%lu\n",
	       children, eofs, gone, lines_total, (unsigned long)unexpected);
	return unexpected || !eofs ? 1 : 0;
}

struct reader {
	pthread_t t;
	pid_t pid;
	int err;
	int lines;
	double done;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	/* a count period never reached: only the exit ends the read */
	r->err = read_to_eof("simple/" "9000000000000000000", r->pid, 30, &r->lines);
	r->done = now();
	return NULL;
}

static int do_exitwait(int n)
{
	struct reader *r = calloc(n, sizeof(*r));
	int pipefd[2], i, st, eof = 0;
	double t_exit, worst = 0;
	pid_t pid;
	char c;

	if (!r || n < 1 || pipe(pipefd))
		return 2;
	pid = fork();
	if (!pid) {
		close(pipefd[1]);
		/* lives until the parent says so */
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	for (i = 0; i < n; i++) {
		r[i].pid = pid;
		pthread_create(&r[i].t, NULL, reader_main, &r[i]);
	}
	sleep(2);	/* every reader is blocked in read by now */
	t_exit = now();
	close(pipefd[1]);
	waitpid(pid, &st, 0);
	for (i = 0; i < n; i++) {
		pthread_join(r[i].t, NULL);
		if (r[i].err) {
			oops("reader", "exitwait", r[i].err);
			continue;
		}
		eof++;
		if (r[i].done - t_exit > worst)
			worst = r[i].done - t_exit;
	}
	printf("readers=%d eof=%d slowest=%.3fs unexpected=%lu\n", n, eof,
	       worst, (unsigned long)unexpected);
	free(r);
	return eof == n && worst < 5 ? 0 : 1;
}

static int do_killread(void)
{
	char path[4096], buf[64];
	int rounds = 20, i, reaped = 0, st;
	double worst = 0;

	snprintf(path, sizeof(path), "%s/all/task_clock/self/simple/9000000000000000000", mnt);
	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();
		double t0, waited;

		if (!pid) {
			int fd = open(path, O_RDONLY);

			if (fd < 0)
				_exit(3);
			/* blocks: the period is never reached */
			if (read(fd, buf, sizeof(buf)) < 0)
				_exit(4);
			_exit(5);
		}
		usleep(100000 + 20000 * (i % 5));
		t0 = now();
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, WNOHANG) == 0 && now() - t0 < 5)
			usleep(1000);
		waited = now() - t0;
		if (waited >= 5) {
			oops("reader not reaped after SIGKILL", path, ETIMEDOUT);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			continue;
		}
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
			oops("reader returned before the kill", path, EIO);
			continue;
		}
		reaped++;
		if (waited > worst)
			worst = waited;
	}
	printf("killed=%d reaped=%d slowest=%.3fs unexpected=%lu\n", rounds,
	       reaped, worst, (unsigned long)unexpected);
	return unexpected || reaped != rounds ? 1 : 0;
}

static atomic_bool churn_stop;

static void *short_life(void *arg)
{
	(void)arg;
	spin(0.0002);
	return NULL;
}

/* one thread after another, each a moment long, until told to stop */
static void *churner(void *arg)
{
	unsigned long *made = arg;

	while (!atomic_load(&churn_stop)) {
		pthread_t t[4];
		int i;

		for (i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, short_life, NULL))
				break;
		*made += i;
		while (i--)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

static int do_churn(double secs)
{
	static const char *const leaves[] = {
		"all/task_clock/self/simple/0", "0/page_faults/self/simple/0",
		"all/task_clock+page_faults/self/times/0",
		"all/task_clock/self/simple/1000000",
	};
	unsigned long made[2] = { 0, 0 }, opens = 0;
	double end = now() + secs;
	char path[4096], buf[256];
	pthread_t c[2];
	int i;

	for (i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, churner, &made[i]);
	while (now() < end) {
		const char *leaf = leaves[opens % 4];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", mnt, leaf);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		opens++;
		if (fd < 0) {
			oops("open", leaf, errno);
			continue;
		}
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			oops("read", leaf, errno);
		close(fd);
	}
	atomic_store(&churn_stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("opens=%lu threads_made=%lu unexpected=%lu\n", opens,
	       made[0] + made[1], (unsigned long)unexpected);
	return unexpected || !opens ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		goto usage;
	mnt = argv[2];
	if (!strcmp(argv[1], "threads") && argc == 5)
		return do_threads(atof(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "forkstorm") && argc == 4)
		return do_forkstorm(atof(argv[3]));
	if (!strcmp(argv[1], "exitwait") && argc == 4)
		return do_exitwait(atoi(argv[3]));
	if (!strcmp(argv[1], "killread") && argc == 3)
		return do_killread();
	if (!strcmp(argv[1], "churn") && argc == 4)
		return do_churn(atof(argv[3]));
usage:
	fprintf(stderr, "usage: stress threads|forkstorm|exitwait|killread|churn MNT ...\n");
	return 2;
}
