// SPDX-License-Identifier: GPL-2.0
/*
 * perfctrfs-fuse: options, mount, signals, the session loop.
 *
 *	perfctrfs-fuse [-f] [-d] [-o uid=N,gid=N,mode=0640,allow_other] MNT
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <syslog.h>
#include <unistd.h>

#include "internal.h"

struct pf_opts pf_opts = {
	.leaf_mode = 0666,
	.dir_mode = 0555,
	.foreground = true,
};

struct fuse_session *pf_se;
static bool use_syslog;

void pf_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
	} else if (prio <= LOG_INFO || getenv("PERFCTRFS_DEBUG")) {
		fprintf(stderr, PF_NAME ": ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

struct pf_cmdline {
	char *uid, *gid, *mode, *max_counters, *max_dirs, *max_threads;
	bool allow_other;
};

/*
 * The worker pool: by default PF_THREADS_PER_CPU per CPU we may run on
 * (a period-0 read is CPU work; opens wait for an opener; blocked reads
 * hold no worker), no fewer than libfuse's own default and no more than
 * PF_THREADS_DEFAULT_MAX; max_threads= sets it, up to PF_THREADS_MAX.
 */
#define PF_THREADS_PER_CPU	4
#define PF_THREADS_DEFAULT_MIN	10
#define PF_THREADS_DEFAULT_MAX	256
#define PF_THREADS_MAX		1024

enum { KEY_ALLOW_OTHER };

static const struct fuse_opt pf_fuse_opts[] = {
	{ "uid=%s", offsetof(struct pf_cmdline, uid), 0 },
	{ "gid=%s", offsetof(struct pf_cmdline, gid), 0 },
	{ "mode=%s", offsetof(struct pf_cmdline, mode), 0 },
	{ "max_counters=%s", offsetof(struct pf_cmdline, max_counters), 0 },
	{ "max_dirs=%s", offsetof(struct pf_cmdline, max_dirs), 0 },
	{ "max_threads=%s", offsetof(struct pf_cmdline, max_threads), 0 },
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_END
};

/* Note allow_other, and leave it (and everything else) to libfuse. */
static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct pf_cmdline *cl = data;

	(void)arg;
	(void)outargs;
	if (key == KEY_ALLOW_OTHER)
		cl->allow_other = true;
	return 1;
}

static int parse_id(const char *s, bool group, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && !*end && s[0] != '-' && v < 0xffffffffUL) {
		*out = v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(s);

		if (g) {
			*out = g->gr_gid;
			return 0;
		}
	} else {
		struct passwd *p = getpwnam(s);

		if (p) {
			*out = p->pw_uid;
			return 0;
		}
	}
	return -EINVAL;
}

/* Octal leaf mode; directories get r-x for every class that may use one. */
static int parse_mode(const char *s)
{
	unsigned long v = 0;
	const char *p;
	unsigned int shift;

	if (!*s || strlen(s) > 4)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '7')
			return -EINVAL;
		v = v * 8 + (*p - '0');
	}
	if (v > 0777)
		return -EINVAL;
	pf_opts.leaf_mode = v;
	pf_opts.dir_mode = 0;
	for (shift = 0; shift < 9; shift += 3)
		if (v & (07 << shift))
			pf_opts.dir_mode |= 05 << shift;
	return 0;
}

/*
 * Every counter is a file descriptor (one per thread of a process, per
 * CPU of "all"): take all the descriptors we may.  When they run out,
 * opens fail with EMFILE, which the client sees as it is.
 */
static void raise_nofile(void)
{
	struct rlimit rl;
	rlim_t was;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		pf_log(LOG_WARNING, "getrlimit(RLIMIT_NOFILE): %s",
		       strerror(errno));
		return;
	}
	was = rl.rlim_cur;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			pf_log(LOG_WARNING,
			       "cannot raise RLIMIT_NOFILE from %llu to %llu: %s",
			       (unsigned long long)was,
			       (unsigned long long)rl.rlim_max, strerror(errno));
			return;
		}
	}
	pf_log(LOG_INFO,
	       "open files: soft limit %llu (was %llu), hard limit %llu; each counter takes one per thread or CPU",
	       (unsigned long long)rl.rlim_cur, (unsigned long long)was,
	       (unsigned long long)rl.rlim_max);
}

/* A positive decimal count. */
static int parse_count(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s < '1' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Each user's share (share.c), when serving every user: of the counters,
 * a quarter of our open-file limit, so that one user cannot take the fds
 * of all others; of open directories, PF_MAX_DIRS, so that one user
 * cannot fill our memory with listings.  max_counters= and max_dirs=
 * when given.  Serving only our own user, no share but the limits
 * themselves.
 */
static void set_shares(const struct pf_cmdline *cl)
{
	struct rlimit rl;

	if (!cl->allow_other)
		return;
	if (!cl->max_dirs)
		pf_opts.max_dirs = PF_MAX_DIRS;
	if (!cl->max_counters) {
		if (getrlimit(RLIMIT_NOFILE, &rl) ||
		    rl.rlim_cur == RLIM_INFINITY)
			rl.rlim_cur = 1 << 20;
		pf_opts.max_counters = rl.rlim_cur / 4 ? rl.rlim_cur / 4 : 1;
	}
	pf_log(LOG_INFO,
	       "each user may hold %lu counters (max_counters=) and %lu open directories (max_dirs=)",
	       pf_opts.max_counters, pf_opts.max_dirs);
}

/* CPUs this process may run on (its affinity), at least 1 */
static unsigned int usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static unsigned int default_threads(void)
{
	unsigned long n = (unsigned long)usable_cpus() * PF_THREADS_PER_CPU;

	if (n < PF_THREADS_DEFAULT_MIN)
		n = PF_THREADS_DEFAULT_MIN;
	if (n > PF_THREADS_DEFAULT_MAX)
		n = PF_THREADS_DEFAULT_MAX;
	return n;
}

static void usage(const char *prog)
{
	printf("usage: %s [options] <mountpoint>\n\n"
	       "perf counters as files: <mnt>/<cpu>/<event>/<pid>/<type>/<period>\n\n"
	       "perfctrfs options:\n"
	       "    -o uid=N               owner of every node (default 0)\n"
	       "    -o gid=N               group of every node (default 0)\n"
	       "    -o mode=0NNN           leaf mode, octal (default 0666);\n"
	       "                           directories get the matching r-x bits\n"
	       "    -o allow_other         let every user in; opens are judged\n"
	       "                           with the caller's credentials\n"
	       "    -o max_counters=N      counters one user may hold at once\n"
	       "                           (default with allow_other: a quarter\n"
	       "                           of the open-file limit; else none)\n"
	       "    -o max_dirs=N          directories one user may hold open\n"
	       "                           at once (default with allow_other:\n"
	       "                           %d; else none)\n"
	       "    -o max_threads=N       worker threads, 1 to %u (default %u\n"
	       "                           per CPU it may run on, %u to %u: %u\n"
	       "                           here; not libfuse's 10 below)\n\n"
	       "Every counter is an open file of the daemon (one per thread of\n"
	       "a process, one per CPU of \"all\"): at start it raises its soft\n"
	       "RLIMIT_NOFILE to the hard limit and logs both.  When they run\n"
	       "out, an open fails with EMFILE (ENFILE: the system's limit).\n\n",
	       prog, PF_MAX_DIRS, PF_THREADS_MAX, PF_THREADS_PER_CPU,
	       PF_THREADS_DEFAULT_MIN, PF_THREADS_DEFAULT_MAX,
	       default_threads());
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *cfg;
	struct pf_cmdline cl = { 0 };
	unsigned long threads = 0;
	const char *why = NULL;
	int ret = 1, err;

	if (fuse_opt_parse(&args, &cl, pf_fuse_opts, opt_proc) == -1)
		return 1;
	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (opts.show_help) {
		usage(argv[0]);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out_args;
	}
	if (opts.show_version) {
		printf(PF_NAME " " PF_VERSION "\n");
		fuse_lowlevel_version();
		ret = 0;
		goto out_args;
	}
	if (!opts.mountpoint) {
		fprintf(stderr, "%s: no mountpoint (see --help)\n", argv[0]);
		goto out_args;
	}
	if ((cl.uid && parse_id(cl.uid, false, &pf_opts.uid)) ||
	    (cl.gid && parse_id(cl.gid, true, &pf_opts.gid)) ||
	    (cl.mode && parse_mode(cl.mode)) ||
	    (cl.max_counters && parse_count(cl.max_counters,
					    &pf_opts.max_counters)) ||
	    (cl.max_dirs && parse_count(cl.max_dirs, &pf_opts.max_dirs))) {
		fprintf(stderr,
			"%s: bad uid=, gid=, mode=, max_counters= or max_dirs= value\n",
			argv[0]);
		goto out_args;
	}
	if (cl.max_threads && (parse_count(cl.max_threads, &threads) ||
			       threads > PF_THREADS_MAX)) {
		fprintf(stderr, "%s: max_threads= must be 1 to %u\n", argv[0],
			PF_THREADS_MAX);
		goto out_args;
	}
	if (!threads)
		threads = default_threads();
	/*
	 * A cgroup walk holds a worker until the caller's opener has walked
	 * its tree: each user may hold a quarter of them in walks, so that
	 * no one user's requests hold every worker (share.c).
	 */
	pf_opts.max_calls = threads / 4 ? threads / 4 : 1;
	pf_opts.foreground = opts.foreground;
	/* the kernel enforces uid/gid/mode; our name in mtab */
	if (fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args,
			     "default_permissions,fsname=perfctrfs,subtype=perfctrfs"))
		goto out_args;

	/*
	 * Fail closed: serving every user is only safe when each open runs
	 * with that user's rights.  Without allow_other the kernel lets only
	 * our own user in, and opens run here for callers that are us.
	 */
	if (pf_opener_init(&why) && cl.allow_other) {
		fprintf(stderr, "%s: refusing allow_other: %s\n", argv[0], why);
		goto out_args;
	}
	raise_nofile();
	set_shares(&cl);
	pf_cgroup_init();
	if (pf_catalog_init()) {
		fprintf(stderr, "%s: cannot read the PMUs in sysfs\n", argv[0]);
		goto out_args;
	}
	err = pf_fs_init();
	if (err) {
		fprintf(stderr, "%s: cannot draw the node table's hash key: %s\n",
			argv[0], strerror(-err));
		goto out_catalog;
	}
	pf_se = fuse_session_new(&args, &pf_ops, sizeof(pf_ops), NULL);
	if (!pf_se)
		goto out_catalog;
	if (fuse_set_signal_handlers(pf_se))
		goto out_session;
	if (fuse_session_mount(pf_se, opts.mountpoint))
		goto out_signals;
	if (!opts.foreground) {
		use_syslog = true;
		openlog(PF_NAME, LOG_PID, LOG_DAEMON);
	}
	/* before any thread: fork keeps only the calling one */
	if (fuse_daemonize(opts.foreground))
		goto out_unmount;
	/* a CPU a read of one shared set, no more than the workers */
	pf_src_readers = opts.singlethread ? 1 : usable_cpus();
	if (pf_src_readers > threads)
		pf_src_readers = threads;
	if (pf_counter_init()) {
		pf_log(LOG_ERR, "cannot start the event loop");
		goto out_unmount;
	}
	if (opts.singlethread) {
		ret = fuse_session_loop(pf_se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (!cfg)
			goto out_counter;
		fuse_loop_cfg_set_clone_fd(cfg, opts.clone_fd);
		pf_log(LOG_INFO, "up to %lu worker threads (max_threads=)",
		       threads);
		fuse_loop_cfg_set_max_threads(cfg, threads);
		/* libfuse 3.14 leaves it UINT_MAX when unset, and warns on it */
		if (opts.max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(cfg,
						       opts.max_idle_threads);
		ret = fuse_session_loop_mt(pf_se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/* a signal ends the loop cleanly: that is a normal exit */
	if (ret > 0)
		ret = 0;
	/* -errno from /dev/fuse, or -1 when libfuse could not start a thread */
	if (ret < 0)
		pf_log(LOG_ERR, "the session loop failed: %d (%s)", ret,
		       strerror(-ret));
out_counter:
	pf_counter_exit();
out_unmount:
	fuse_session_unmount(pf_se);
out_signals:
	fuse_remove_signal_handlers(pf_se);
out_session:
	fuse_session_destroy(pf_se);
out_catalog:
	pf_fs_exit();
	pf_catalog_exit();
	pf_opener_exit();
out_args:
	free(opts.mountpoint);
	free(cl.uid);
	free(cl.gid);
	free(cl.mode);
	free(cl.max_counters);
	free(cl.max_dirs);
	free(cl.max_threads);
	fuse_opt_free_args(&args);
	return ret ? 1 : 0;
}
