// SPDX-License-Identifier: GPL-2.0
/*
 * spin - burn CPU for a bounded time, in one or more threads.
 *
 *	spin [-g] [-c] [-n] [-L LINGER] [-i] [-T THREADS] SECONDS
 *
 * Every thread burns until SECONDS of wall time have passed since start
 * (fractions allowed: 0.5), then the process exits 0.  With -c, until
 * the process has burned SECONDS of CPU time instead: a test that checks
 * a count of CPU time against it holds however loaded the machine is.  With -T, it first
 * prints the thread ids, one a line, so the suite can count one thread.
 *
 * With -g (gated) it blocks SIGUSR1, prints "gated" and waits for
 * SIGUSR1 before its clock starts: a test opens its counter first, then
 * lets a short-lived target run, so a slow machine cannot lose the target
 * before the open.
 *
 * With -n it makes itself non-dumpable first (prctl PR_SET_DUMPABLE 0), as
 * ssh-agent does: perf then refuses its own user, without CAP_PERFMON or
 * CAP_SYS_PTRACE, a counter opened on it (ptrace's rule), while counters
 * it inherited stay.  With -L, once the threads are done the process
 * lives on in its main thread alone, sleeping LINGER seconds: a target
 * whose threads went and that stays.  With -i its threads sleep until
 * the deadline instead of burning: a target of up to 4096 idle threads
 * (small stacks).
 */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double deadline;
static clockid_t clock_id = CLOCK_MONOTONIC;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int idle;

static double now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	unsigned long i;

	pthread_mutex_lock(&lock);
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&lock);
	while (now() < deadline)
		if (idle)
			usleep(100000);
		else
			for (i = 0; i < 100000; i++)
				x += i;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t *th;
	pthread_attr_t attr;
	unsigned long nt = 1, i;
	double secs, linger = 0;
	char *end;
	sigset_t usr1;
	int gated = 0, sig;
	struct timespec ts;

	if (argc >= 3 && !strcmp(argv[1], "-g")) {
		gated = 1;
		argv++;
		argc--;
	}
	if (argc >= 3 && !strcmp(argv[1], "-c")) {
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
		argv++;
		argc--;
	}
	if (argc >= 3 && !strcmp(argv[1], "-n")) {
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
			perror("spin: PR_SET_DUMPABLE");
			return 1;
		}
		argv++;
		argc--;
	}
	if (argc >= 4 && !strcmp(argv[1], "-L")) {
		linger = strtod(argv[2], &end);
		if (*end || linger < 0 || linger > 3600) {
			fprintf(stderr, "spin: bad LINGER %s\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc >= 3 && !strcmp(argv[1], "-i")) {
		idle = 1;
		argv++;
		argc--;
	}
	if (argc == 4 && !strcmp(argv[1], "-T")) {
		nt = num_arg(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || nt < 1 || nt > (idle ? 4096 : 64)) {
		fprintf(stderr, "usage: spin [-g] [-c] [-n] [-L LINGER] [-i] [-T THREADS] SECONDS\n");
		return 2;
	}
	secs = strtod(argv[1], &end);
	if (*end || secs < 0 || secs > 3600) {
		fprintf(stderr, "spin: bad SECONDS %s\n", argv[1]);
		return 2;
	}
	if (gated) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		if (sigprocmask(SIG_BLOCK, &usr1, NULL)) {
			perror("spin: sigprocmask");
			return 1;
		}
		printf("gated\n");
		fflush(stdout);
		if (sigwait(&usr1, &sig)) {
			fprintf(stderr, "spin: sigwait failed\n");
			return 1;
		}
	}
	deadline = now() + secs;
	th = calloc(nt, sizeof(*th));
	if (!th || pthread_attr_init(&attr)) {
		fprintf(stderr, "spin: out of memory\n");
		return 1;
	}
	/*
	 * many idle threads: small stacks (at least PTHREAD_STACK_MIN, 128
	 * KiB on ppc64le); left at the default where even that is refused
	 */
	if (idle)
		pthread_attr_setstacksize(&attr, 256 * 1024);
	for (i = 1; i < nt; i++)
		if (pthread_create(&th[i], &attr, burn, NULL)) {
			fprintf(stderr, "spin: pthread_create failed\n");
			return 1;
		}
	burn(NULL);
	for (i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	ts.tv_sec = (time_t)linger;
	ts.tv_nsec = (long)((linger - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}
