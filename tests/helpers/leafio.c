// SPDX-License-Identifier: GPL-2.0
/*
 * leafio - open one perfctrfs leaf and run a script of operations on the
 * open descriptor, printing one result line per operation, so a bats test
 * can see exactly what read(), pread(), write() and poll() returned.
 *
 *	leafio [-w] [-n] PATH OP...
 *
 *	-w	open O_RDWR (default O_RDONLY)
 *	-n	open O_NONBLOCK
 *
 * Operations, and what each prints:
 *	read		one read(4096): the data (a final newline dropped),
 *			"EOF", or the errno name ("EAGAIN", "EINTR")
 *	read1		read() 1 byte at a time until a newline or EOF:
 *			"<number of read calls> <line>"
 *	readall		read() until EOF: every line, then "EOF"
 *	sendfile	sendfile() to a memfd until it returns 0 or
 *			fails (what busybox cat does), then print what
 *			arrived, as read; "EOF" when nothing did
 *	badread		one read(4096) into a PROT_NONE page: as read
 *			("EFAULT" expected)
 *	pread=OFF	one pread(4096) at OFF: as read
 *	preads=N	N threads each pread(4096) at 0 on the descriptor
 *			and stay blocked there, as one reader's threads
 *			may: prints "blocked N" once all N sleep in the
 *			kernel, or "threads K ERRNO" when only K could be
 *			made.  The next operation runs meanwhile; their
 *			answers are never printed, and the process ends
 *			them at its exit (its last operation)
 *	seek=OFF	lseek(OFF, SEEK_SET): "ok" or the errno name
 *	write=WORD	one write() of WORD: "ok" or the errno name
 *	ioctl=WORD	PERF_EVENT_IOC_ENABLE, _DISABLE or _RESET for WORD
 *			enable, disable or reset: "ok" or the errno name
 *	poll=MS		poll(POLLIN) for MS ms: "timeout", or the revents
 *			as "POLLIN|POLLHUP..."
 *	alarm=MS	the next blocking call is interrupted after MS ms
 *			(it then prints "EINTR"); prints nothing
 *	sleep=MS	sleep; prints nothing
 *	spin=MS		burn MS ms of this process's CPU time (not wall time);
 *			prints nothing
 *	waitexit=PID	wait (at most 30 s) until PID has exited (gone or a
 *			zombie); prints nothing
 *	sh=COMMAND	run COMMAND with /bin/sh while the leaf stays open;
 *			prints nothing (its own output goes through)
 *	ms		print the milliseconds since the previous "ms" (or
 *			since open)
 *
 * If open() fails, prints "open <ERRNO>" and exits 1.  Bad usage exits 2.
 */
#include "common.h"
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/time.h>

static char buf[65536];

static void on_alarm(int sig)
{
	(void)sig;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_data(ssize_t n)
{
	if (n < 0) {
		printf("%s\n", errname(errno));
		return;
	}
	if (n == 0) {
		printf("EOF\n");
		return;
	}
	if (buf[n - 1] == '\n')
		n--;
	printf("%.*s\n", (int)n, buf);
}

static void print_revents(short re)
{
	static const struct { short bit; const char *name; } bits[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" },
		{ POLLOUT, "POLLOUT" }, { POLLERR, "POLLERR" },
		{ POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
		{ POLLRDNORM, "POLLRDNORM" },
	};
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (re & bits[i].bit) {
			printf("%s%s", sep, bits[i].name);
			sep = "|";
		}
	printf("%s\n", *sep ? "" : "0");
}

static int exited(const char *pid)
{
	char path[64], stat[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	p = strrchr(stat, ')');
	return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

/* This process's own CPU time, in ms. */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Burn @ms of CPU time, not of wall time: a test that checks a CPU-time
 * count against it holds however loaded the machine is.
 */
static void spin_ms(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;
	unsigned long i;

	while (cpu_ms() < end)
		for (i = 0; i < 10000; i++)
			x += i;
}

static int pread_fd;
static volatile int preads_in;

static void *pread_thread(void *arg)
{
	char b[4096];

	(void)arg;
	__atomic_add_fetch(&preads_in, 1, __ATOMIC_SEQ_CST);
	if (pread(pread_fd, b, sizeof(b), 0) < 0)
		return NULL;
	return NULL;
}

/* How many of this process's threads sleep (state S or D), but the caller. */
static int threads_asleep(void)
{
	char path[300], stat[512], *p;
	struct dirent *d;
	int n = 0, self = gettid();
	DIR *dir = opendir("/proc/self/task");
	FILE *f;
	size_t len;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || atoi(d->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(stat, 1, sizeof(stat) - 1, f);
		fclose(f);
		stat[len] = '\0';
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D'))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * preads=N: N threads block in pread() of @fd, each a request of its own
 * in the filesystem (pread takes no file position lock).  Small stacks:
 * a few thousand threads fit anywhere RLIMIT_NPROC lets them.
 */
static int do_preads(int fd, unsigned long n)
{
	pthread_attr_t attr;
	pthread_t t;
	unsigned long k;
	int err = 0, i;

	pread_fd = fd;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (k = 0; k < n; k++) {
		err = pthread_create(&t, &attr, pread_thread, NULL);
		if (err)
			break;
	}
	pthread_attr_destroy(&attr);
	if (err) {
		printf("threads %lu %s\n", k, errname(err));
		fflush(stdout);
		return 0;
	}
	/* at most 60 s for all of them to get into their read */
	for (i = 0; i < 6000; i++) {
		if (__atomic_load_n(&preads_in, __ATOMIC_SEQ_CST) == (int)n &&
		    threads_asleep() == (int)n)
			break;
		usleep(10000);
	}
	printf("blocked %d\n", threads_asleep());
	return 0;
}

static int do_sendfile(int fd)
{
	int out = memfd_create("leafio", 0), i;
	ssize_t n = 0;

	if (out < 0)
		return -1;
	for (i = 0; i < 100000; i++) {
		n = sendfile(out, fd, NULL, 1 << 24);
		if (n <= 0)
			break;
	}
	if (n < 0) {
		printf("%s\n", errname(errno));
	} else {
		n = pread(out, buf, sizeof(buf) - 1, 0);
		print_data(n);
	}
	close(out);
	fflush(stdout);
	return 0;
}

static int run(int fd, const char *op, double *mark)
{
	const char *arg = strchr(op, '=');
	struct itimerval it = { 0 };
	struct pollfd pfd;
	unsigned int calls;
	size_t len;
	ssize_t n;
	double t;
	int r, i;

	arg = arg ? arg + 1 : "";
	if (!strcmp(op, "read")) {
		print_data(read(fd, buf, sizeof(buf) - 1));
	} else if (!strcmp(op, "read1")) {
		len = 0;
		for (calls = 1; len < sizeof(buf) - 1; calls++) {
			n = read(fd, buf + len, 1);
			if (n < 0) {
				printf("%u %s\n", calls, errname(errno));
				return 0;
			}
			if (n == 0 || buf[len] == '\n')
				break;
			len++;
		}
		printf("%u %.*s\n", calls, (int)len, buf);
	} else if (!strcmp(op, "readall")) {
		for (i = 0; i < 100000; i++) {
			n = read(fd, buf, sizeof(buf) - 1);
			if (n <= 0) {
				print_data(n);
				break;
			}
			fwrite(buf, 1, n, stdout);
			fflush(stdout);
		}
	} else if (!strcmp(op, "sendfile")) {
		return do_sendfile(fd);
	} else if (!strcmp(op, "badread")) {
		void *bad = mmap(NULL, 4096, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (bad == MAP_FAILED)
			return -1;
		n = read(fd, bad, 4096);
		if (n < 0)
			print_data(n);
		else
			printf("%zd bytes\n", n);
		munmap(bad, 4096);
	} else if (!strncmp(op, "pread=", 6)) {
		print_data(pread(fd, buf, sizeof(buf) - 1, num_arg(arg)));
	} else if (!strncmp(op, "preads=", 7)) {
		do_preads(fd, num_arg(arg));
	} else if (!strncmp(op, "seek=", 5)) {
		r = lseek(fd, num_arg(arg), SEEK_SET) < 0;
		printf("%s\n", r ? errname(errno) : "ok");
	} else if (!strncmp(op, "write=", 6)) {
		n = write(fd, arg, strlen(arg));
		printf("%s\n", n < 0 ? errname(errno) : "ok");
	} else if (!strncmp(op, "ioctl=", 6)) {
		unsigned long cmd = !strcmp(arg, "enable") ? PERF_EVENT_IOC_ENABLE :
				    !strcmp(arg, "disable") ? PERF_EVENT_IOC_DISABLE :
				    PERF_EVENT_IOC_RESET;

		r = ioctl(fd, cmd, 0);
		printf("%s\n", r < 0 ? errname(errno) : "ok");
	} else if (!strncmp(op, "poll=", 5)) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		r = poll(&pfd, 1, num_arg(arg));
		if (r < 0)
			printf("%s\n", errname(errno));
		else if (r == 0)
			printf("timeout\n");
		else
			print_revents(pfd.revents);
	} else if (!strncmp(op, "alarm=", 6)) {
		it.it_value.tv_sec = num_arg(arg) / 1000;
		it.it_value.tv_usec = num_arg(arg) % 1000 * 1000;
		setitimer(ITIMER_REAL, &it, NULL);
	} else if (!strncmp(op, "sleep=", 6)) {
		usleep(num_arg(arg) * 1000);
	} else if (!strncmp(op, "spin=", 5)) {
		spin_ms(num_arg(arg));
	} else if (!strncmp(op, "waitexit=", 9)) {
		for (i = 0; i < 3000 && !exited(arg); i++)
			usleep(10000);
	} else if (!strncmp(op, "sh=", 3)) {
		fflush(stdout);
		if (system(arg) == -1)
			return -1;
	} else if (!strcmp(op, "ms")) {
		t = now_ms();
		printf("%.0f\n", t - *mark);
		*mark = t;
	} else {
		fprintf(stderr, "leafio: unknown op %s\n", op);
		return -1;
	}
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int flags = O_RDONLY, fd, i;
	double mark;

	/* no SA_RESTART: an alarm must interrupt a blocked read */
	sigaction(SIGALRM, &sa, NULL);
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-w"))
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (!strcmp(argv[i], "-n"))
			flags |= O_NONBLOCK;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: leafio [-w] [-n] PATH OP...\n");
		return 2;
	}
	fd = open(argv[i], flags);
	if (fd < 0) {
		printf("open %s\n", errname(errno));
		return 1;
	}
	mark = now_ms();
	for (i++; i < argc; i++)
		if (run(fd, argv[i], &mark))
			return 2;
	close(fd);
	return 0;
}
