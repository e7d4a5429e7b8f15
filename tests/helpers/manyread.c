// SPDX-License-Identifier: GPL-2.0
/*
 * manyread - many threads of one process on one leaf at once, each with
 * its own open file, checking what every read says.
 *
 *	manyread [-s MS] [-r READERS] [-c CHURNERS] [-t SPAWNERS] PATH
 *
 * READERS (default 8) threads open PATH once each and pread(0) it until
 * MS (default 2000) ms have passed: each line must be a count line (one
 * or more decimal fields) and no field may fall below that fd's previous
 * read.  CHURNERS (default 2) threads open PATH, read it, disable it with
 * PERF_EVENT_IOC_DISABLE and check that two reads then agree (a disabled
 * count stands still), reset and enable it, read it, close it, again and
 * again; a backend that passes no ioctls (ENOTTY, ENOSYS) skips that part.
 * SPAWNERS (default 1) threads start short-lived threads that burn a
 * little CPU and exit, so the process's threads come and go under the
 * counters.
 *
 * Prints "ok reads=N opens=M" and exits 0, or prints the first thing that
 * went wrong and exits 1.  Bad usage exits 2.
 */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define MAX_THREADS	64
#define MAX_FIELDS	16

static const char *path;
static atomic_bool stop;
static atomic_long nreads, nopens;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[1024];

static void fail(const char *fmt, const char *a, const char *b)
{
	pthread_mutex_lock(&fail_lock);
	if (!fail_msg[0])
		snprintf(fail_msg, sizeof(fail_msg), fmt, a, b);
	pthread_mutex_unlock(&fail_lock);
	atomic_store(&stop, true);
}

/* The fields of one count line into @v; their number, or -1 if not one. */
static int parse_line(const char *s, uint64_t *v)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;

		if (*s < '0' || *s > '9' || n == MAX_FIELDS)
			return -1;
		v[n++] = strtoull(s, &end, 10);
		s = end;
		if (*s == ' ')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n && *s == '\n' && !s[1] ? n : -1;
}

/* One pread(0) of @fd into @v: its number of fields, or -1 (failed). */
static int read_count(int fd, uint64_t *v, char *line, size_t size)
{
	ssize_t n = pread(fd, line, size - 1, 0);
	int nf;

	if (n <= 0) {
		fail("pread: %s%s", n ? errname(errno) : "EOF", "");
		return -1;
	}
	line[n] = 0;
	nf = parse_line(line, v);
	if (nf < 0)
		fail("not a count line: '%s'%s", line, "");
	atomic_fetch_add(&nreads, 1);
	return nf;
}

static void *reader(void *arg)
{
	uint64_t prev[MAX_FIELDS], v[MAX_FIELDS];
	char line[256], a[300];
	int fd, n, pn = -1, i;

	(void)arg;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("reader open: %s%s", errname(errno), "");
		return NULL;
	}
	while (!atomic_load(&stop)) {
		n = read_count(fd, v, line, sizeof(line));
		if (n < 0)
			break;
		if (pn >= 0 && n != pn) {
			fail("a line changed its number of fields: %s%s", line, "");
			break;
		}
		for (i = 0; pn >= 0 && i < n; i++)
			if (v[i] < prev[i]) {
				snprintf(a, sizeof(a), "field %d went from %llu", i,
					 (unsigned long long)prev[i]);
				fail("%s down to: %s", a, line);
				break;
			}
		memcpy(prev, v, sizeof(prev));
		pn = n;
	}
	close(fd);
	return NULL;
}

static void *churner(void *arg)
{
	uint64_t v[MAX_FIELDS], w[MAX_FIELDS];
	char line[256], line2[256];
	bool ioctls = true;
	int fd, n;

	(void)arg;
	while (!atomic_load(&stop)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail("churner open: %s%s", errname(errno), "");
			break;
		}
		atomic_fetch_add(&nopens, 1);
		if (read_count(fd, v, line, sizeof(line)) < 0)
			goto out;
		if (ioctls && ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)) {
			if (errno != ENOTTY && errno != ENOSYS) {
				fail("PERF_EVENT_IOC_DISABLE: %s%s",
				     errname(errno), "");
				goto out;
			}
			ioctls = false;
		}
		if (ioctls) {
			n = read_count(fd, v, line, sizeof(line));
			usleep(1000);
			if (n < 0 || read_count(fd, w, line2, sizeof(line2)) < 0)
				goto out;
			if (strcmp(line, line2)) {
				fail("a disabled leaf moved: '%s' then '%s'", line,
				     line2);
				goto out;
			}
			if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
			    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
				fail("PERF_EVENT_IOC_RESET or _ENABLE: %s%s",
				     errname(errno), "");
				goto out;
			}
			if (read_count(fd, v, line, sizeof(line)) < 0)
				goto out;
		}
out:
		close(fd);
	}
	return NULL;
}

static void *burner(void *arg)
{
	volatile unsigned long x = 0;
	unsigned long i;

	(void)arg;
	for (i = 0; i < 200000; i++)
		x += i;
	return NULL;
}

static void *spawner(void *arg)
{
	pthread_t t;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (pthread_create(&t, NULL, burner, NULL)) {
			usleep(1000);
			continue;
		}
		pthread_join(t, NULL);
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	unsigned long ms = 2000, nr = 8, nc = 2, ns = 1, i, all = 0;
	pthread_t t[MAX_THREADS];
	struct timespec ts;
	int opt;

	while ((opt = getopt(argc, argv, "s:r:c:t:")) != -1) {
		switch (opt) {
		case 's':
			ms = num_arg(optarg);
			break;
		case 'r':
			nr = num_arg(optarg);
			break;
		case 'c':
			nc = num_arg(optarg);
			break;
		case 't':
			ns = num_arg(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || nr + nc + ns > MAX_THREADS) {
		fprintf(stderr, "usage: %s [-s MS] [-r N] [-c N] [-t N] PATH (%d threads at most)\n",
			argv[0], MAX_THREADS);
		return 2;
	}
	path = argv[optind];
	for (i = 0; i < nr + nc + ns; i++) {
		void *(*fn)(void *) = i < nr ? reader : i < nr + nc ? churner :
				      spawner;

		if (pthread_create(&t[i], NULL, fn, NULL)) {
			fail("pthread_create%s%s", "", "");
			break;
		}
		all++;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	atomic_store(&stop, true);
	for (i = 0; i < all; i++)
		pthread_join(t[i], NULL);
	if (fail_msg[0]) {
		printf("%s\n", fail_msg);
		return 1;
	}
	printf("ok reads=%ld opens=%ld\n", atomic_load(&nreads),
	       atomic_load(&nopens));
	return 0;
}
