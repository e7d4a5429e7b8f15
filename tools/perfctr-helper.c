// SPDX-License-Identifier: GPL-2.0
/*
 * perfctr-helper - the two things the perfctr tools cannot do in shell.
 *
 *	perfctr-helper run GOFIFO REPORT -- COMMAND [ARGS...]
 *	perfctr-helper read FD...
 *
 * run: fork a child that blocks reading one byte from GOFIFO, then exec()s
 * COMMAND.  Write the child's pid to REPORT (a FIFO the caller reads; the
 * command keeps this program's stdout) at once, so that the caller can
 * open pid leaves on it before it runs; then wait4() for it and print
 * "exit STATUS USER SYS END": the shell's exit status of the command (128 +
 * signal when killed) and the user and system time of the command and its
 * waited-for descendants alone, from wait4()'s rusage, in seconds, and
 * the CLOCK_REALTIME time in ns when wait4() returned.  Bash's
 * `times' cannot give this: it adds the tool's own children.  SIGINT and
 * SIGQUIT are ignored here and restored in the child, as perf stat does,
 * so that ^C ends the command and its counts are still printed.  Each
 * line is flushed at once, and REPORT's end of file also tells the caller
 * that the command has ended.
 *
 * read: one pread() at offset 0 of each descriptor (inherited from the
 * caller), so that a period 0 leaf gives a fresh line each time, all of
 * them within one process and a few microseconds.  Prints "T <ns>" (the
 * CLOCK_REALTIME time, the clock of bash's EPOCHREALTIME, taken halfway
 * through the reads), then "<fd> <line>" for each descriptor, or
 * "<fd> EOF" when its counter has ended, or "<fd> ERR <errno text>".
 *
 * Exit status: 0; 2 for a usage error; 1 when the child cannot be made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

#define MAX_FDS 4096

static int usage(void)
{
	fprintf(stderr, "usage: perfctr-helper run GOFIFO REPORT -- COMMAND [ARGS...]\n"
			"       perfctr-helper read FD...\n");
	return 2;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int do_read(int argc, char **argv)
{
	static char line[MAX_FDS][4096];
	static ssize_t got[MAX_FDS];
	static int err[MAX_FDS];
	long long t0, t1;
	int i, n = argc;

	if (n < 1 || n > MAX_FDS)
		return usage();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		char *end;
		long fd = strtol(argv[i], &end, 10);

		if (*argv[i] == '\0' || *end || fd < 0 || fd > 1 << 20)
			return usage();
		got[i] = pread(fd, line[i], sizeof(line[i]) - 1, 0);
		err[i] = errno;
	}
	t1 = now_ns();
	printf("T %lld\n", t0 + (t1 - t0) / 2);
	for (i = 0; i < n; i++) {
		char *nl;

		if (got[i] < 0) {
			printf("%s ERR %s\n", argv[i], strerror(err[i]));
			continue;
		}
		if (got[i] == 0) {
			printf("%s EOF\n", argv[i]);
			continue;
		}
		line[i][got[i]] = '\0';
		nl = strchr(line[i], '\n');
		if (nl)
			*nl = '\0';
		printf("%s %s\n", argv[i], line[i]);
	}
	return fflush(stdout) ? 1 : 0;
}

static int do_run(int argc, char **argv)
{
	struct rusage ru;
	FILE *report;
	pid_t pid;
	int status, code, fd;
	char go;

	if (argc < 4 || strcmp(argv[2], "--"))
		return usage();
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	report = fd < 0 ? NULL : fdopen(fd, "w");
	if (!report) {
		perror("perfctr-helper: report");
		return 1;
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		perror("perfctr-helper: fork");
		return 1;
	}
	if (pid == 0) {
		int fd;

		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		fd = open(argv[0], O_RDONLY | O_CLOEXEC);
		/* No go (the caller gave up): leave without running anything. */
		if (fd < 0 || read(fd, &go, 1) != 1)
			_exit(127);
		close(fd);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "%s: %s\n", argv[3], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	fprintf(report, "%d\n", (int)pid);
	fflush(report);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("perfctr-helper: wait4");
			return 1;
		}
	}
	code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	fprintf(report, "exit %d %ld.%06ld %ld.%06ld %lld\n", code,
	       (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
	       (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, now_ns());
	return fclose(report) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return do_run(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "read"))
		return do_read(argc - 2, argv + 2);
	return usage();
}
