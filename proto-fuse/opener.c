// SPDX-License-Identifier: GPL-2.0
/*
 * Openers: the only code that calls perf_event_open(2) for a caller, in a
 * process that has exactly the caller's rights (privilege separation, as
 * OpenSSH does it).
 *
 * A root daemon with allow_other serves every user, root of a user
 * namespace and containers included.  perf must judge each open by the
 * caller, and the daemon must never lend its own rights, so:
 *
 *  - the daemon's threads never change credentials;
 *  - an opener is a process forked from the daemon that takes the
 *    credentials creds.c decides for the caller (its uids, gids and
 *    groups), joins the caller's user namespace and holds its
 *    capabilities there, drops every other capability and descriptor,
 *    becomes non-dumpable, and enters the caller's pid namespace, so that
 *    pid numbers and ptrace checks mean there what they mean to the
 *    caller;
 *  - it reads requests ("open this group on pid P, cpu C") from a
 *    SOCK_SEQPACKET socket, makes the calls, and sends the fds back with
 *    SCM_RIGHTS; perf's errno goes back as it is;
 *  - it walks the cgroup2 tree for cgroup targets (cgroup.c), so that
 *    a caller finds, lists and opens only the cgroup directories it can
 *    open itself (for a caller in another cgroup namespace, from a
 *    cgroup2 mount it made in that namespace as it started: openers are
 *    keyed by cgroup namespace too); a cgroup counter is opened on the
 *    directory fd that walk opened, sent back with the request, so perf
 *    judges the caller on both the cgroup and the CPU-wide counter;
 *  - openers are kept per credential set (struct pf_creds) and reused;
 *    one idle for PF_OPENER_IDLE seconds is retired, and there are at
 *    most PF_OPENER_MAX;
 *  - a caller may signal, stop, prlimit or kill its own opener (it has
 *    its uid): that only fails its own opens.  An opener found stopped
 *    while a reply is late is retired at once (EAGAIN), and the requests
 *    queued behind that one give up with it, so a stopped one never
 *    holds a daemon thread for long; one that is merely slow (a loaded
 *    machine) is waited for, up to PF_OPENER_TIMEOUT seconds;
 *  - a retired opener is killed (SIGKILL, through a pidfd taken while
 *    its parent still held its pid): one its user stopped would never
 *    read the EOF, and would stay in the daemon's cgroup, outside its
 *    user's limits.  Each live opener costs the daemon two fds, its
 *    socket and its pidfd: at most 2 * PF_OPENER_MAX;
 *  - a pid namespace that dies takes its openers with it; a new one may
 *    get the same inode number, and so the stale pool entry: its socket
 *    is dead, and the one retry makes a fresh opener.
 *
 * If the daemon cannot make openers (not root, or the start-up check
 * fails), allow_other is refused (main.c), and opens run in the daemon
 * for callers with the daemon's own credentials only.
 *
 * Locking: pool_lock guards the list; each opener's lock serialises its
 * requests and guards its failed.  Neither is pf_lock.  pool_lock is
 * never held while an opener is made (fork, the caller's namespaces, the
 * first reply): a caller may stall its own new opener (a SIGSTOP before
 * it answers), and that must stall nobody else.  The one making it puts a
 * placeholder ("spawning", with its credentials) in the pool, counted in
 * PF_OPENER_MAX; callers with the same credentials wait for it on
 * pool_cond, at most PF_OPENER_TIMEOUT s, and share its failure; others
 * go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define PF_OPENER_MAX		128
#define PF_OPENER_IDLE		60	/* seconds */
#define PF_OPENER_TIMEOUT	60	/* seconds for one reply, at most */
#define PF_OPENER_PATIENCE	1	/* seconds before a late reply's opener
					 * is looked at: stopped, it is retired */

#ifndef PIDFD_THREAD
#define PIDFD_THREAD		O_EXCL
#endif

#ifndef NS_GET_PARENT
#define NS_GET_PARENT		_IO(0xb7, 0x2)
#endif

/*
 * OP_OPEN: a group; OP_PIDFD: pid's pidfd; OP_CGFIND: the path of cgroup
 * cgid under root (and with want_fds, its directory and cgroup.events);
 * OP_CGLIST: the ids of the cgroups under root.
 */
enum { OP_OPEN, OP_PIDFD, OP_CGFIND, OP_CGLIST };

struct pf_open_req {
	uint32_t op;
	uint32_t nr;
	int32_t pid;
	int32_t cpu;
	uint32_t fallback;		/* leader may drop sample_period */
	uint32_t cgroup;		/* OP_OPEN: pid is the attached cgroup fd */
	uint32_t want_fds;
	uint32_t in_ns;			/* OP_CG*: from the opener's cgroup ns root */
	uint64_t cgid;
	struct perf_event_attr attr[PERFCTRFS_MAX_GROUP];
	char root[PATH_MAX];
};

struct pf_open_rep {
	int32_t err;			/* 0 or -errno */
	uint32_t nr;			/* fds attached */
	uint32_t no_signal;
	uint32_t plen;			/* payload bytes after this header */
};

/* the largest payload: the ids of OP_CGLIST */
#define PF_PAYLOAD_MAX	(PF_CGROUP_MAX * sizeof(uint64_t))

struct pf_opener {
	struct pf_opener *next;
	struct pf_creds creds;
	pid_t pid;			/* in the daemon's pid namespace */
	int pidfd;			/* killed through it when retired;
					 * -1: no pidfd_open here */
	int sock;
	pthread_mutex_t lock;		/* one request at a time */
	int failed;			/* under lock: the -errno that ended it;
					 * later requests give up at once */
	unsigned int users;		/* holders; under pool_lock */
	bool dead;			/* under pool_lock: out of the pool,
					 * freed at its last put */
	bool spawning;			/* under pool_lock: a placeholder, being
					 * made; pid, under pool_lock, is set
					 * once forked */
	int spawn_err;			/* under pool_lock: why it was not made */
	time_t used;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond;	/* a placeholder was made or failed */
static struct pf_opener *pool;
static unsigned int nr_openers;		/* placeholders included */
static unsigned int nr_spawning;	/* under pool_lock; read atomically */
static bool separated;			/* openers work here */
static struct pf_creds own;
static uint64_t own_permitted;
static struct stat own_userns, own_pidns;
static int cg_root = -1;	/* an opener's: its caller's cgroup ns root */

#ifndef PROC_CGROUP_INIT_INO
#define PROC_CGROUP_INIT_INO	0xEFFFFFFBU
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC		0x1
#define FSCONFIG_CMD_CREATE	6
#define FSMOUNT_CLOEXEC		0x1
#define MOUNT_ATTR_RDONLY	0x1
#define MOUNT_ATTR_NOSUID	0x2
#define MOUNT_ATTR_NODEV	0x4
#define MOUNT_ATTR_NOEXEC	0x8
#endif
#ifndef SYS_fsopen
#define SYS_fsopen		430
#define SYS_fsconfig		431
#define SYS_fsmount		432
#endif

/* ---- the opens themselves: in an opener, or in the daemon ------------ */

/*
 * A member of a group on the task @r->pid was refused: by perf, for what
 * the member is?  Then perf refuses it alone on that task too, and not
 * with ESRCH or ENODEV, what a lone counter on an exiting task gets.
 * Otherwise the task exited under the group: perf refuses the member
 * then whichever way its leader left (ENODEV, EINVAL or ESRCH, by kernel
 * version and by whether the tid already names a new thread), where a
 * lone counter gets ESRCH.  The leader's fd cannot tell: a perf fd
 * without a ring buffer polls POLLHUP whether its task lives or not.
 */
static bool member_refused_alone(const struct pf_open_req *r, unsigned int m)
{
	struct perf_event_attr a = r->attr[m];
	long fd;

	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, r->pid, r->cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		syscall(SYS_close, fd);
		return false;
	}
	return errno != ESRCH && errno != ENODEV;
}

/*
 * Open one group; only syscalls, so that it is safe in a process forked
 * from a threaded one.  A leader that cannot sample (msr, uncore) is
 * opened as a plain counter when @r->fallback allows it.
 */
static int open_group(struct pf_open_req *r, int *fds, uint32_t *no_signal)
{
	unsigned int m;
	long fd;

	*no_signal = 0;
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;

	if (r->cgroup)
		flags |= PERF_FLAG_PID_CGROUP;
	for (m = 0; m < r->nr; m++) {
		fd = syscall(SYS_perf_event_open, &r->attr[m], r->pid, r->cpu,
			     m ? fds[0] : -1, flags);
		if (fd < 0 && !m && r->fallback && r->attr[0].sample_period &&
		    (errno == EINVAL || errno == EOPNOTSUPP)) {
			r->attr[0].sample_period = 0;
			r->attr[0].wakeup_events = 0;
			fd = syscall(SYS_perf_event_open, &r->attr[0], r->pid,
				     r->cpu, -1, flags);
			*no_signal = fd >= 0;
		}
		if (fd < 0) {
			int err = errno;

			if (m && r->pid > 0 && !member_refused_alone(r, m))
				err = ESRCH;
			while (m--)
				syscall(SYS_close, fds[m]);
			return -err;
		}
		fds[m] = fd;
	}
	return 0;
}

/*
 * A pidfd for the task @pid names in this pid namespace, a thread's
 * included: what the daemon reads its own id of the task from.
 */
static int pidfd_of(pid_t pid, int *fd)
{
	long r = syscall(SYS_pidfd_open, pid, PIDFD_THREAD);

	if (r < 0 && errno == EINVAL)	/* before 6.9: processes only */
		r = syscall(SYS_pidfd_open, pid, 0);
	if (r < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	*fd = r;
	return 0;
}

/* ---- the opener process ---------------------------------------------- */

static void opener_send(int s, const struct pf_open_rep *rep, const int *fds,
			const void *payload)
{
	char cbuf[CMSG_SPACE(sizeof(int) * PERFCTRFS_MAX_GROUP)];
	struct iovec iov[2] = {
		{ .iov_base = (void *)rep, .iov_len = sizeof(*rep) },
		{ .iov_base = (void *)payload, .iov_len = rep->plen },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = rep->plen ? 2 : 1 };
	struct cmsghdr *cm;

	if (rep->nr) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * rep->nr);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * rep->nr);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * rep->nr);
	}
	syscall(SYS_sendmsg, s, &mh, MSG_NOSIGNAL);
}

static int capset_raw(uint64_t eff, uint64_t perm)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)eff, (uint32_t)perm, 0 },
		{ (uint32_t)(eff >> 32), (uint32_t)(perm >> 32), 0 },
	};

	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

static int capget_raw(uint64_t *eff, uint64_t *perm)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/*
 * Become the caller: groups, gids, uids, fs ids, its user namespace
 * (@unsfd, or ours when -1), then exactly @c->caps (within what we hold)
 * as both effective and permitted, in that namespace: perf's checks see
 * a caller's capabilities only where it holds them (ptrace_may_access()
 * in the target's user ns, perfmon_capable() in the initial one), and a
 * caller in a user ns of its own is not the same uid outside it for
 * commoncap's ptrace check either.  Checked after: an opener that is not
 * what it should be never serves.
 */
static int become(const struct pf_creds *c, int unsfd)
{
	uint64_t eff, perm;
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    syscall(SYS_setgroups, c->nr_groups, c->groups) ||
	    syscall(SYS_setresgid, c->gid[0], c->gid[1], c->gid[2]) ||
	    syscall(SYS_setresuid, c->uid[0], c->uid[1], c->uid[2]))
		return -errno;
	/*
	 * KEEPCAPS kept the permitted set: use it for the fs ids and to
	 * enter the caller's user ns, then drop.
	 */
	if (capget_raw(&eff, &perm) || capset_raw(perm, perm))
		return -EPERM;
	syscall(SYS_setfsuid, c->uid[3]);
	syscall(SYS_setfsgid, c->gid[3]);
	/* ids read back in our user ns, before they are seen from another */
	if (syscall(SYS_getresuid, &r, &e, &s) ||
	    syscall(SYS_getresgid, &rg, &eg, &sg) ||
	    r != c->uid[0] || e != c->uid[1] || s != c->uid[2] ||
	    rg != c->gid[0] || eg != c->gid[1] || sg != c->gid[2] ||
	    (uid_t)syscall(SYS_setfsuid, -1) != c->uid[3] ||
	    (gid_t)syscall(SYS_setfsgid, -1) != c->gid[3])
		return -EPERM;
	/* the ids stay; the capabilities are now the namespace's, all */
	if (unsfd >= 0 && syscall(SYS_setns, unsfd, CLONE_NEWUSER))
		return -EPERM;
	if (capset_raw(c->caps & own_permitted, c->caps & own_permitted) ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -EPERM;
	if (capget_raw(&eff, &perm) || eff != (c->caps & own_permitted) ||
	    perm != eff)
		return -EPERM;
	return 0;
}

/*
 * One request, and the fd that came with it (or -1); the fd is dropped,
 * and the request refused, unless it is one cgroup fd for an OP_OPEN.
 */
static ssize_t opener_read(int s, struct pf_open_req *req, int *cgfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { .iov_base = req, .iov_len = sizeof(*req) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	unsigned int got = 0, i;
	int *fds = NULL;
	ssize_t n;

	*cgfd = -1;
	n = syscall(SYS_recvmsg, s, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			got = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			fds = (int *)CMSG_DATA(cm);
		}
	if (n == sizeof(*req) && req->op == OP_OPEN && req->cgroup &&
	    got == 1) {
		*cgfd = fds[0];
		return n;
	}
	for (i = 0; i < got; i++)
		syscall(SYS_close, fds[i]);
	if (got || (mh.msg_flags & MSG_CTRUNC) ||
	    (n == sizeof(*req) && req->op == OP_OPEN && req->cgroup))
		req->op = ~0U;		/* refused below as EINVAL */
	return n;
}

/*
 * The root of the caller's cgroup namespace, as the kernel gives it: a
 * cgroup2 mount made inside that namespace (@nsfd) is rooted there.  A
 * detached mount (fsopen/fsmount), read-only, seen by no one; made with
 * the daemon's rights, before the opener becomes the caller, and only
 * opened with the caller's.  Never in the initial cgroup namespace: a
 * cgroup2 mount made there resets the hierarchy's mount options
 * (nsdelegate).  -1 when it cannot be made: that caller sees no cgroup.
 */
static int cgns_mount(int nsfd)
{
	struct stat st;
	int fs, m;

	if (syscall(SYS_fstat, nsfd, &st) || st.st_ino == PROC_CGROUP_INIT_INO ||
	    syscall(SYS_setns, nsfd, CLONE_NEWCGROUP))
		return -1;
	fs = syscall(SYS_fsopen, "cgroup2", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	m = -1;
	if (!syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		m = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	syscall(SYS_close, fs);
	return m;
}

/* OP_CGFIND and OP_CGLIST, with the caller's rights */
static void opener_cgroup(int s, struct pf_open_req *req)
{
	static struct pf_cgwalk w;	/* the opener is one thread */
	struct pf_open_rep rep = { 0 };
	int fds[2];
	const void *payload = NULL;

	req->root[sizeof(req->root) - 1] = 0;
	w.want = req->op == OP_CGFIND ? req->cgid : 0;
	w.want_fds = req->want_fds;
	if (req->op == OP_CGFIND && !req->cgid)
		rep.err = -ENOENT;
	else if (req->in_ns)
		/* another cgroup ns: from its root, opened as the caller */
		rep.err = cg_root < 0 ? -ENOENT :
			  pf_cgroup_walk(cg_root, ".", &w);
	else
		rep.err = pf_cgroup_walk(AT_FDCWD, req->root, &w);
	if (!rep.err && req->op == OP_CGLIST) {
		rep.plen = w.nr * sizeof(w.ids[0]);
		payload = w.ids;
	} else if (!rep.err) {
		rep.plen = w.len ? w.len + 1 : 2;
		payload = w.path;
		if (w.dirfd >= 0)
			fds[rep.nr++] = w.dirfd;
		if (w.eventsfd >= 0)
			fds[rep.nr++] = w.eventsfd;
	}
	opener_send(s, &rep, fds, payload);
	while (rep.nr)
		syscall(SYS_close, fds[--rep.nr]);
}

/*
 * The opener's life, in the caller's pid namespace, and in its user
 * namespace (@unsfd) once it has the caller's ids; never returns.
 */
static void __attribute__((noreturn)) opener_main(int s, int unsfd,
						  int cgnsfd,
						  const struct pf_creds *c)
{
	struct pf_open_rep rep = { 0 };
	struct pf_open_req req;
	sigset_t none;
	int fds[PERFCTRFS_MAX_GROUP], sig, cgfd;
	unsigned int i;
	ssize_t n;

	/*
	 * Nothing of the daemon's: not its fds (the user ns one kept as
	 * s + 1 until it is entered, the cgroup ns one as s + 2: each first
	 * copied above s + 2, so that neither move overwrites the other),
	 * handlers or blocked signals.
	 */
	if (unsfd >= 0 &&
	    (unsfd = syscall(SYS_fcntl, unsfd, F_DUPFD, s + 3)) < 0)
		_exit(1);
	if (cgnsfd >= 0 &&
	    (cgnsfd = syscall(SYS_fcntl, cgnsfd, F_DUPFD, s + 3)) < 0)
		_exit(1);
	if (unsfd >= 0 && syscall(SYS_dup2, unsfd, s + 1) < 0)
		_exit(1);
	if (cgnsfd >= 0 && syscall(SYS_dup2, cgnsfd, s + 2) < 0)
		_exit(1);
	unsfd = unsfd >= 0 ? s + 1 : -1;
	cgnsfd = cgnsfd >= 0 ? s + 2 : -1;
	if (s > 0)
		syscall(SYS_close_range, 0, s - 1, 0);
	if (unsfd < 0)
		syscall(SYS_close, s + 1);
	syscall(SYS_close_range, s + 3, ~0U, 0);
	if (cgnsfd < 0)
		syscall(SYS_close, s + 2);
	for (sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* while we still hold the daemon's rights: the caller's ns root */
	if (cgnsfd >= 0) {
		cg_root = cgns_mount(cgnsfd);
		syscall(SYS_close, cgnsfd);
	}
	rep.err = become(c, unsfd);
	if (unsfd >= 0)
		syscall(SYS_close, unsfd);
	opener_send(s, &rep, NULL, NULL);
	if (rep.err)
		_exit(1);
	for (;;) {
		n = opener_read(s, &req, &cgfd);
		if (n == 0 || (n < 0 && errno != EINTR))
			_exit(0);	/* the daemon is gone or retired us */
		if (n < 0)
			continue;
		rep.nr = 0;
		rep.no_signal = 0;
		if (n == sizeof(req) &&
		    (req.op == OP_CGFIND || req.op == OP_CGLIST)) {
			opener_cgroup(s, &req);
			continue;
		}
		if (n == sizeof(req) && req.op == OP_PIDFD) {
			rep.err = pidfd_of(req.pid, fds);
			req.nr = 1;
		} else if (n != sizeof(req) || req.op != OP_OPEN || !req.nr ||
			   req.nr > PERFCTRFS_MAX_GROUP) {
			rep.err = -EINVAL;
		} else {
			if (cgfd >= 0)
				req.pid = cgfd;
			rep.err = open_group(&req, fds, &rep.no_signal);
		}
		if (cgfd >= 0)
			syscall(SYS_close, cgfd);
		if (!rep.err)
			rep.nr = req.nr;
		opener_send(s, &rep, fds, NULL);
		for (i = 0; i < rep.nr; i++)
			syscall(SYS_close, fds[i]);
	}
}

/* ---- the daemon's side ---------------------------------------------- */

static int read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	if (n < 0)
		err = errno == ESRCH ? -ENOENT : -errno;
	close(fd);
	if (err)
		return err;
	if (!len)
		return -ENOENT;		/* it died between open and read */
	buf[len] = 0;
	return 0;
}

/*
 * Is the opener @pid stopped (SIGSTOP, or a tracer's stop)?  Its state is
 * the field after the parenthesised command, which cannot contain ") ".
 */
static char task_state(pid_t pid, pid_t *ppid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	*ppid = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* gone */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return 0;
	*ppid = strtol(p + 4, NULL, 10);
	return p[2];
}

static bool opener_stopped(pid_t pid)
{
	pid_t ppid;
	char st = task_state(pid, &ppid);

	return st == 'T' || st == 't';	/* gone: the socket says so */
}

/*
 * Wait for one reply from the opener @pid on @s, its fds into @fds and up
 * to @psize bytes of payload into @payload; -ETIMEDOUT (stopped, or no
 * reply in PF_OPENER_TIMEOUT s), -EPIPE or -EIO.  A loaded machine may
 * keep a running opener from answering for seconds: only a stopped one is
 * given up on early.
 */
static int opener_recv(int s, pid_t pid, struct pf_open_rep *rep, int *fds,
		       void *payload, size_t psize)
{
	char cbuf[CMSG_SPACE(sizeof(int) * PERFCTRFS_MAX_GROUP)];
	struct iovec iov[2] = {
		{ .iov_base = rep, .iov_len = sizeof(*rep) },
		{ .iov_base = payload, .iov_len = psize },
	};
	struct msghdr mh = {
		.msg_iov = iov, .msg_iovlen = payload ? 2 : 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct cmsghdr *cm;
	unsigned int got = 0, i, waited = 0;
	ssize_t n;
	int r;

	for (;;) {
		r = poll(&p, 1, 1000);
		if (r > 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EPIPE;
		if (++waited >= PF_OPENER_TIMEOUT ||
		    (waited >= PF_OPENER_PATIENCE && opener_stopped(pid)))
			return -ETIMEDOUT;
	}
	n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n <= 0)
		return -EPIPE;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			got = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (!fds || got > PERFCTRFS_MAX_GROUP) {
				/* never keep what we did not ask for */
				int *p = (int *)CMSG_DATA(cm);

				for (i = 0; i < got; i++)
					close(p[i]);
				return -EIO;
			}
			memcpy(fds, CMSG_DATA(cm), got * sizeof(int));
		}
	if (n >= (ssize_t)sizeof(*rep) && (mh.msg_flags & MSG_CTRUNC)) {
		/* the reply came, its fds found no room here: we are full */
		for (i = 0; i < got; i++)
			close(fds[i]);
		return -EMFILE;
	}
	if (n < (ssize_t)sizeof(*rep) || n != (ssize_t)(sizeof(*rep) + rep->plen) ||
	    (mh.msg_flags & MSG_TRUNC) || got != rep->nr ||
	    rep->nr > PERFCTRFS_MAX_GROUP || (rep->err && rep->nr)) {
		for (i = 0; i < got; i++)
			close(fds[i]);
		return -EIO;
	}
	return 0;
}

/*
 * SIGKILL the opener @pidfd names, and close it.  A pidfd, never a
 * kill(): the opener is nobody's child, and its pid may be another
 * process's by now.  Its uid is its user's, so this takes CAP_KILL in
 * its user namespace: the daemon's or one below (FUSE admits no caller
 * from elsewhere), where root of the daemon's has it; its pid namespace
 * is ours or one below, as pidfd_send_signal requires.
 */
static void opener_kill(pid_t pid, int pidfd)
{
	if (pidfd < 0)
		return;
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) &&
	    errno != ESRCH)
		pf_log(LOG_WARNING, "cannot kill the retired opener %d: %s",
		       (int)pid, strerror(errno));
	close(pidfd);
}

/*
 * Retire @o for good.  The EOF on its socket ends a running opener; one
 * that its user stopped never reads it, and would stay, stopped, in the
 * daemon's cgroup, outside every limit of its user's: so it is killed.
 * Without pidfd_open (before Linux 5.3) only the EOF is left, and a
 * stopped opener stays until its user continues it.
 */
static void opener_free(struct pf_opener *o)
{
	opener_kill(o->pid, o->pidfd);
	if (o->sock >= 0)
		close(o->sock);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

/*
 * A pidfd for the opener @pid that the intermediate child forked: taken
 * while that child lives, so the pid cannot be anyone else's yet.  0 with
 * -1 in @pidfd where this kernel (or a seccomp filter) has no pidfd_open.
 */
static int opener_pidfd(pid_t pid, int *pidfd)
{
	long r = syscall(SYS_pidfd_open, pid, 0);

	*pidfd = -1;
	if (r >= 0) {
		*pidfd = r;
		return 0;
	}
	return errno == ENOSYS || errno == EPERM ? 0 : -errno;
}

/*
 * Fork the opener for @c.  The first child ("mid") enters the caller's
 * pid namespace (@nsfd, or ours when -1) and forks the opener there,
 * tells us its pid, and waits for the EOF on @hold before it exits, so
 * the opener is nobody's child to reap.  While mid waits, the opener is
 * its unreaped child, whose pid no other process can have: we take the
 * pidfd that kills it at retirement then (or kill it by its pid, when
 * that fails).  The opener joins the caller's user namespace (@unsfd, or
 * ours when -1) once it has the caller's ids, and mounts cgroup2 in the
 * caller's cgroup namespace (@cgnsfd, or none when -1) before that.
 *
 * @o holds the credentials and its lock; its pid, pidfd and sock are
 * set here (-1 left in pidfd and sock on failure).  Called without
 * pool_lock: @o->pid is set under it, before mid may exit, so that
 * pf_target_refused() always knows the opener (see there).
 */
static int opener_spawn(int nsfd, int unsfd, int cgnsfd, struct pf_opener *o)
{
	const struct pf_creds *c = &o->creds;
	struct pf_open_rep rep;
	int sv[2], pp[2], hold[2], pidfd = -1, err, st;
	pid_t mid, pid = -EIO;
	ssize_t n;
	char b;

	if (pipe2(pp, O_CLOEXEC))
		return -errno;
	if (pipe2(hold, O_CLOEXEC)) {
		err = -errno;
		goto out_pipe;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto out_hold;
	}
	mid = fork();
	if (mid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		goto out_hold;
	}
	if (mid == 0) {
		/* the opener must not hold hold[1]: only our EOF frees mid */
		close(sv[0]);
		close(hold[1]);
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWPID))
			pid = -errno;
		else
			pid = fork();
		if (pid == 0)
			opener_main(sv[1], unsfd, cgnsfd, c);
		if (pid < 0)
			pid = -errno;
		if (write(pp[1], &pid, sizeof(pid)) != sizeof(pid)) {
			if (pid > 0)
				kill(pid, SIGKILL);	/* nobody could */
			_exit(1);
		}
		while (pid > 0 && read(hold[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(sv[1]);
	close(pp[1]);
	close(hold[0]);
	while ((n = read(pp[0], &pid, sizeof(pid))) < 0 && errno == EINTR)
		;
	err = n != sizeof(pid) ? -EIO : pid < 0 ? pid : 0;
	if (!err) {
		err = opener_pidfd(pid, &pidfd);
		if (err)
			kill(pid, SIGKILL);	/* still mid's, unreaped */
	}
	if (!err) {
		/* known before mid goes, while the opener is still its child */
		pthread_mutex_lock(&pool_lock);
		o->pid = pid;
		pthread_mutex_unlock(&pool_lock);
	}
	close(hold[1]);			/* mid may go */
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	close(pp[0]);
	if (err) {
		close(sv[0]);
		return err;
	}
	o->pidfd = pidfd;
	o->sock = sv[0];
	/* its first word says whether it became the caller */
	err = opener_recv(o->sock, pid, &rep, NULL, NULL, 0);
	if (!err && rep.err)
		err = rep.err;
	if (err) {
		pf_log(LOG_ERR, "an opener for uid %u could not start: %s",
		       (unsigned int)c->uid[0], strerror(-err));
		opener_kill(pid, pidfd);
		close(o->sock);
		o->pidfd = o->sock = -1;
		return err == -ETIMEDOUT || err == -EPIPE ? -EIO : err;
	}
	return 0;

out_hold:
	close(hold[0]);
	close(hold[1]);
out_pipe:
	close(pp[0]);
	close(pp[1]);
	return err;
}

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Unlink @o (under pool_lock); it is freed at its last put. */
static void pool_unlink(struct pf_opener *o)
{
	struct pf_opener **pp;

	for (pp = &pool; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			nr_openers--;
			return;
		}
}

/* Retire idle openers, and one more when the pool is full. */
static void pool_retire(bool need_room)
{
	struct pf_opener *o, *next, *lru = NULL;
	time_t t = now_s();

	for (o = pool; o; o = next) {
		next = o->next;
		if (o->users)
			continue;
		if (t - o->used >= PF_OPENER_IDLE) {
			pool_unlink(o);
			opener_free(o);
			continue;
		}
		if (!lru || o->used < lru->used)
			lru = o;
	}
	if (need_room && nr_openers >= PF_OPENER_MAX && lru) {
		pool_unlink(lru);
		opener_free(lru);
	}
}

/*
 * The caller's namespace @ns, opened in @fd, checked to be the one its
 * credentials were keyed by (@dev, @ino): not one a reused tid names now.
 */
static int open_ns(pid_t tid, const char *ns, uint64_t dev, uint64_t ino,
		   int *fd)
{
	struct stat st;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)tid, ns);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return pf_err_transient(errno) ? -errno : -ENOENT;
	if (fstat(*fd, &st) || st.st_dev != dev || st.st_ino != ino) {
		close(*fd);
		*fd = -1;
		return -ENOENT;
	}
	return 0;
}

/* Drop a hold on @o (under pool_lock): freed at the last, once dead. */
static void opener_unhold(struct pf_opener *o)
{
	if (!--o->users && o->dead)
		opener_free(o);
}

/*
 * Make the opener for @c into the placeholder @o, without pool_lock, and
 * publish it, or take it out of the pool and tell its waiters why not.
 * Called and returns with pool_lock held; @o keeps the caller's hold on
 * success.
 */
static int opener_make(const struct pf_caller *c, struct pf_opener *o)
{
	int nsfd = -1, unsfd = -1, cgnsfd = -1, err = 0;

	pthread_mutex_unlock(&pool_lock);
	if (!c->same_pidns)
		err = open_ns(c->tid, "pid", c->creds.pidns_dev,
			      c->creds.pidns_ino, &nsfd);
	if (!err && !c->same_userns)
		err = open_ns(c->tid, "user", c->creds.userns_dev,
			      c->creds.userns_ino, &unsfd);
	if (!err && !c->same_cgns && c->creds.cgns_ino &&
	    pf_cgroup_available())
		err = open_ns(c->tid, "cgroup", c->creds.cgns_dev,
			      c->creds.cgns_ino, &cgnsfd);
	if (!err)
		err = opener_spawn(nsfd, unsfd, cgnsfd, o);
	if (nsfd >= 0)
		close(nsfd);
	if (unsfd >= 0)
		close(unsfd);
	if (cgnsfd >= 0)
		close(cgnsfd);
	pthread_mutex_lock(&pool_lock);
	__atomic_sub_fetch(&nr_spawning, 1, __ATOMIC_RELEASE);
	o->spawning = false;
	if (!err && o->dead)
		err = -EIO;	/* pf_opener_exit() took it out meanwhile */
	if (err) {
		o->spawn_err = err;
		if (!o->dead) {
			o->dead = true;
			pool_unlink(o);
		}
		opener_unhold(o);
	}
	o->used = now_s();
	pthread_cond_broadcast(&pool_cond);
	return err;
}

/*
 * The opener for @c's credentials, held: a pooled one, the one another
 * caller with them is making (waited for, PF_OPENER_TIMEOUT s at most),
 * or a new one.  pool_lock is never held while one is made.
 */
static int opener_get(const struct pf_caller *c, struct pf_opener **out)
{
	struct pf_opener *o;
	struct timespec until;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += PF_OPENER_TIMEOUT;
	pthread_mutex_lock(&pool_lock);
	pool_retire(false);
	for (o = pool; o; o = o->next)
		if (pf_creds_equal(&o->creds, &c->creds))
			break;
	if (o && o->spawning) {
		/* another caller with these credentials is making it */
		o->users++;
		while (o->spawning && !err)
			err = pthread_cond_timedwait(&pool_cond, &pool_lock,
						     &until);
		if (o->spawning || o->dead) {
			err = o->spawning ? -EAGAIN : o->spawn_err;
			if (!err)
				err = -EAGAIN;
			opener_unhold(o);
			pthread_mutex_unlock(&pool_lock);
			return err;
		}
		err = 0;
	} else if (o) {
		o->users++;
	} else {
		pool_retire(true);
		if (nr_openers >= PF_OPENER_MAX) {
			pthread_mutex_unlock(&pool_lock);
			return -EAGAIN;
		}
		o = calloc(1, sizeof(*o));
		if (!o) {
			pthread_mutex_unlock(&pool_lock);
			return -ENOMEM;
		}
		o->creds = c->creds;
		o->sock = o->pidfd = -1;
		o->spawning = true;
		o->users = 1;
		pthread_mutex_init(&o->lock, NULL);
		o->next = pool;
		pool = o;
		nr_openers++;
		__atomic_add_fetch(&nr_spawning, 1, __ATOMIC_RELEASE);
		err = opener_make(c, o);
	}
	pthread_mutex_unlock(&pool_lock);
	if (!err)
		*out = o;
	return err;
}

static void opener_put(struct pf_opener *o, bool dead)
{
	pthread_mutex_lock(&pool_lock);
	o->used = now_s();
	if (dead && !o->dead) {
		o->dead = true;
		pool_unlink(o);
	}
	opener_unhold(o);
	pthread_mutex_unlock(&pool_lock);
}

/* Send @req, with @fd attached when it is not -1. */
static int opener_ask(int s, struct pf_open_req *req, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = req, .iov_len = sizeof(*req) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(s, &mh, MSG_NOSIGNAL) == sizeof(*req) ? 0 : -EPIPE;
}

/*
 * One request to @c's opener (with @fd attached, unless -1), its reply
 * into @rep, @fds and @payload: 0, or the daemon's own -errno when the
 * opener could not answer.
 */
static int opener_call(const struct pf_caller *c, struct pf_open_req *req,
		       int fd, struct pf_open_rep *rep, int *fds,
		       void *payload, size_t psize)
{
	struct pf_opener *o;
	int err, tries;
	bool asked;

	/* a caller that killed its own opener gets one fresh try */
	for (tries = 0; tries < 2; tries++) {
		err = opener_get(c, &o);
		if (err)
			return err;
		pthread_mutex_lock(&o->lock);
		/*
		 * Requests queued behind the one that found the opener dead
		 * share its answer, not one PF_OPENER_PATIENCE each.
		 */
		err = o->failed;
		asked = !err;
		if (asked) {
			err = opener_ask(o->sock, req, fd);
			if (!err)
				err = opener_recv(o->sock, o->pid, rep, fds,
						  payload, psize);
			if (err != -EMFILE)
				o->failed = err;
		}
		pthread_mutex_unlock(&o->lock);
		if (asked && err == -ETIMEDOUT)
			pf_log(LOG_WARNING, "the opener of uid %u (pid %d) is stopped, or gave no reply in %d s: retired",
			       (unsigned int)c->creds.uid[0], (int)o->pid,
			       PF_OPENER_TIMEOUT);
		/* a dead opener leaves the pool: the retry makes a new one */
		opener_put(o, err && err != -EMFILE);
		if (err == -ETIMEDOUT)
			return -EAGAIN;	/* stopped: the caller's own doing */
		if (!err || pf_err_transient(-err))
			break;
	}
	if (err)
		return pf_err_transient(-err) ? err : -EIO;
	return 0;
}

/*
 * Open one perf group for @c: @nr attrs on (@pid, @cpu), @pid in the
 * caller's pid namespace.  0 and the fds in @fds, or perf's -errno.
 */
int pf_open_group(const struct pf_caller *c, struct perf_event_attr *attr,
		  unsigned int nr, pid_t pid, int cgfd, int cpu, bool fallback,
		  int *fds, bool *no_signal)
{
	struct pf_open_req req;
	struct pf_open_rep rep;
	uint32_t nosig;
	int err;

	memset(&req, 0, sizeof(req));
	req.op = OP_OPEN;
	req.nr = nr;
	req.pid = pid;
	req.cpu = cpu;
	req.fallback = fallback;
	req.cgroup = cgfd >= 0;
	memcpy(req.attr, attr, nr * sizeof(*attr));
	if (!separated) {
		/* only the daemon's own user reaches us (main.c) */
		if (!pf_creds_privileged_as(&c->creds, &own))
			return -EACCES;
		if (cgfd >= 0)
			req.pid = cgfd;
		err = open_group(&req, fds, &nosig);
		*no_signal = nosig;
		return err;
	}
	err = opener_call(c, &req, cgfd, &rep, fds, NULL, 0);
	if (err)
		return err;
	*no_signal = rep.no_signal;
	return rep.err;
}

/*
 * The id in our pid namespace of the task that @c calls @nr in its own:
 * its opener lives there, takes a pidfd for @nr, and the pidfd's fdinfo
 * says who that is here.  -ESRCH when @c has no such task.
 */
pid_t pf_pid_from_caller(const struct pf_caller *c, pid_t nr)
{
	struct pf_open_req req;
	struct pf_open_rep rep;
	char path[64], buf[4096], *p;
	int fd, err;
	pid_t pid;

	if (c->same_pidns) {
		snprintf(path, sizeof(path), "/proc/%d", (int)nr);
		return access(path, F_OK) ? -ESRCH : nr;
	}
	if (!separated)
		return -ESRCH;	/* we cannot enter its namespace */
	memset(&req, 0, sizeof(req));
	req.op = OP_PIDFD;
	req.pid = nr;
	err = opener_call(c, &req, -1, &rep, &fd, NULL, 0);
	if (!err)
		err = rep.err;
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	err = read_file(path, buf, sizeof(buf));
	close(fd);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	p = strstr(buf, "\nPid:");
	if (!p)
		return -ESRCH;
	pid = strtol(p + 5, NULL, 10);
	return pid > 0 ? pid : -ESRCH;	/* -1: it has exited */
}

/*
 * A cgroup walk for @c (cgroup.c): in its opener, or here when we serve
 * only our own user.  @w->want and @w->want_fds say what to do; on
 * success @w holds the answer (its fds are ours to close).
 */
static int cgroup_call(const struct pf_caller *c, struct pf_cgwalk *w)
{
	struct pf_open_req *req;
	struct pf_open_rep rep;
	int fds[PERFCTRFS_MAX_GROUP], err;
	void *payload;
	size_t psize;

	if (!separated) {
		/* no opener to mount in another cgroup ns: ours alone */
		if (!pf_creds_privileged_as(&c->creds, &own) || !c->same_cgns)
			return -ENOENT;
		req = malloc(sizeof(*req));
		if (!req)
			return -ENOMEM;
		err = pf_cgroup_root(req->root, sizeof(req->root));
		if (!err)
			err = pf_cgroup_walk(AT_FDCWD, req->root, w);
		free(req);
		return err;
	}
	if (!c->same_cgns && !c->creds.cgns_ino)
		return -ENOENT;
	req = calloc(1, sizeof(*req));
	if (!req)
		return -ENOMEM;
	req->op = w->want ? OP_CGFIND : OP_CGLIST;
	req->cgid = w->want;
	req->want_fds = w->want_fds;
	req->in_ns = !c->same_cgns;
	err = req->in_ns ? 0 : pf_cgroup_root(req->root, sizeof(req->root));
	/*
	 * A walk is the one slow request (the caller's whole tree, up to
	 * PF_CGROUP_WALK_MAX directories), its opener serves one at a time,
	 * and a worker waits on each: each user's share of them (share.c)
	 */
	if (!err)
		err = pf_share_call_take(c->acct_uid);
	if (err) {
		free(req);
		return err;
	}
	payload = w->want ? (void *)w->path : (void *)w->ids;
	psize = w->want ? sizeof(w->path) - 1 : PF_PAYLOAD_MAX;
	w->dirfd = w->eventsfd = -1;
	w->nr = 0;
	err = opener_call(c, req, -1, &rep, fds, payload, psize);
	pf_share_call_give(c->acct_uid);
	free(req);
	if (!err)
		err = rep.err;
	if (err)
		return err;
	if (w->want) {
		w->path[rep.plen < sizeof(w->path) ? rep.plen : 0] = 0;
		w->len = strlen(w->path);
		w->found = true;
		if (rep.nr > 0)
			w->dirfd = fds[0];
		if (rep.nr > 1)
			w->eventsfd = fds[1];
		if (w->want_fds && w->dirfd < 0)
			return -EIO;
	} else {
		w->nr = rep.plen / sizeof(w->ids[0]);
	}
	return 0;
}

/**
 * pf_cgroup_find() - find cgroup @id for @c
 * @c: the caller
 * @id: the cgroup's id
 * @path: receives its path from the caller's cgroup namespace root
 * @size: size of @path
 * @dirfd: if not NULL, receives its directory, opened by the caller's
 *	opener (what perf is given, as PERF_FLAG_PID_CGROUP's pid)
 * @eventsfd: with @dirfd, its cgroup.events, or -1 where it has none
 *
 * Return: 0, or -ENOENT when the caller cannot reach such a cgroup.
 */
int pf_cgroup_find(const struct pf_caller *c, uint64_t id, char *path,
		   size_t size, int *dirfd, int *eventsfd)
{
	struct pf_cgwalk *w = malloc(sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->want = id;
	w->want_fds = dirfd != NULL;
	err = cgroup_call(c, w);
	if (!err && (size_t)snprintf(path, size, "%s", w->path) >= size)
		err = -ENAMETOOLONG;
	if (!err && dirfd) {
		*dirfd = w->dirfd;
		*eventsfd = w->eventsfd;
	} else if (!err) {
		if (w->dirfd >= 0)
			close(w->dirfd);
		if (w->eventsfd >= 0)
			close(w->eventsfd);
	}
	free(w);
	return err;
}

/*
 * Does the thread @tid reach cgroup @id?  0 and its path into @path, or
 * -ENOENT.  No file of it stays open.
 */
int pf_cgroup_visible(pid_t tid, uint64_t id, char *path, size_t size)
{
	struct pf_caller *c;
	int err;

	if (tid <= 0 || !pf_cgroup_available())
		return -ENOENT;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = pf_caller_get(tid, c);
	if (!err)
		err = pf_cgroup_find(c, id, path, size, NULL, NULL);
	free(c);
	return err == -EACCES ? -ENOENT : err;
}

/*
 * The ids of the cgroups the thread @tid could open, into a malloc()ed
 * *@ids: their number, or -errno.
 */
int pf_cgroup_list(pid_t tid, uint64_t **ids)
{
	struct pf_cgwalk *w;
	struct pf_caller *c;
	int err;

	*ids = NULL;
	if (tid <= 0 || !pf_cgroup_available())
		return 0;
	c = malloc(sizeof(*c));
	w = malloc(sizeof(*w));
	err = c && w ? 0 : -ENOMEM;
	if (!err)
		err = pf_caller_get(tid, c);
	if (!err) {
		w->want = 0;
		w->want_fds = false;
		err = cgroup_call(c, w);
	}
	if (!err && w->nr) {
		*ids = malloc(w->nr * sizeof(**ids));
		if (*ids)
			memcpy(*ids, w->ids, w->nr * sizeof(**ids));
		else
			err = -ENOMEM;
	}
	if (!err)
		err = w->nr;
	free(c);
	free(w);
	/* a caller gone, or one we cannot name, lists no cgroup */
	return err == -ENOENT || err == -EACCES ? 0 : err;
}

/* ---- callers -------------------------------------------------------- */

/* /proc/<tid>/status, parsed; -ENOENT when the task is gone. */
int pf_task_status(pid_t tid, struct pf_status *st)
{
	char path[64], buf[16384];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	err = read_file(path, buf, sizeof(buf));
	return err ? err : pf_status_parse(buf, st);
}

/*
 * The soft RLIMIT_MEMLOCK of the thread @tid, in bytes, from
 * /proc/<tid>/limits: what perf_mmap() would hold that thread's mmap of a
 * ring to.  -ENOENT when the task is gone, -EIO when the line is not there.
 */
int pf_task_memlock(pid_t tid, uint64_t *bytes)
{
	char path[64], buf[4096];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)tid);
	err = read_file(path, buf, sizeof(buf));
	return err ? err : pf_limits_memlock(buf, bytes);
}

static int ns_of(pid_t tid, const char *ns, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)tid, ns);
	return stat(path, st) ? (errno == ESRCH ? -ENOENT : -errno) : 0;
}

/*
 * The user namespaces of the thread @tid, its own first, up to the daemon's (NS_GET_PARENT, one level at a time), with
 * each one's owner (NS_GET_OWNER_UID: a uid as the daemon's namespace
 * sees it).  A namespace whose parent is not below the daemon's ends the
 * walk unreached (EPERM: the kernel will not show a parent outside the
 * asker's namespace).  -ENOENT when the task is gone.
 */
static int userns_walk(pid_t tid, struct pf_userns_walk *w)
{
	struct stat st;
	char path[64];
	int fd, parent, err = 0;

	memset(w, 0, sizeof(*w));
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	for (;;) {
		if (fstat(fd, &st)) {
			err = -errno;
			break;
		}
		if (st.st_dev == own_userns.st_dev &&
		    st.st_ino == own_userns.st_ino) {
			w->reached = true;
			break;
		}
		if (w->depth == PF_MAX_USERNS)
			break;		/* deeper than the kernel nests */
		if (ioctl(fd, NS_GET_OWNER_UID, &w->owner[w->depth])) {
			err = -errno;
			break;
		}
		w->depth++;
		parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0) {
			if (errno != EPERM)
				err = -errno;
			break;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	return err;
}

/*
 * Who the thread @tid that sent a request is, what its opener holds, and
 * whom its share is charged to.  FUSE gives pid 0 for a caller in a pid
 * namespace the daemon cannot see: such a caller cannot be identified and
 * is refused with EACCES.
 */
int pf_caller_get(pid_t tid, struct pf_caller *c)
{
	struct pf_userns_walk walk = { 0 };
	struct stat uns, pns, cns;
	int err;

	if (tid <= 0)
		return -EACCES;
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	/*
	 * Fresh from /proc at every call, by path, one file open at a time:
	 * a daemon with a single fd left still answers (140's "out of fds").
	 */
	err = pf_task_status(tid, &c->st);
	if (!err)
		err = ns_of(tid, "user", &uns);
	if (!err)
		err = ns_of(tid, "pid", &pns);
	c->same_userns = !err && uns.st_dev == own_userns.st_dev &&
			 uns.st_ino == own_userns.st_ino;
	/* below the daemon's user namespace: who answers for it */
	if (!err && !c->same_userns)
		err = userns_walk(tid, &walk);
	/* gone is ENOENT, our own shortage is ours; anything else, refused */
	if (err)
		return err == -ENOENT || pf_err_transient(-err) ? err : -EACCES;
	pf_creds_decide(&c->st, uns.st_dev, uns.st_ino, pns.st_dev, pns.st_ino,
			&c->creds);
	/*
	 * The daemon's own credentials (root's, as a rule) answer for the
	 * machine and are held to no share: a user namespace root made, a
	 * container's, is charged to root's uid and may exhaust that share,
	 * never the administrator's own opens.
	 */
	c->acct_uid = pf_creds_privileged_as(&c->creds, &own) ? PF_UID_DAEMON :
		      pf_accountable_uid(c->st.uid[0], &walk);
	c->same_pidns = pns.st_dev == own_pidns.st_dev &&
			pns.st_ino == own_pidns.st_ino;
	/*
	 * Its cgroup namespace keys its opener, which walks the cgroups
	 * from that namespace's root; unreadable, it sees no cgroup.
	 */
	if (!ns_of(tid, "cgroup", &cns)) {
		c->creds.cgns_dev = cns.st_dev;
		c->creds.cgns_ino = cns.st_ino;
		c->same_cgns = pf_cgroup_same_ns(cns.st_dev, cns.st_ino);
	}
	return 0;
}

/*
 * The accountable uid (pf_caller_get()'s acct_uid) of the thread @tid that
 * sent a request, for one that needs no more of the caller: @fallback
 * (the uid FUSE gives) for a caller FUSE could not name (pid 0).
 */
int pf_caller_acct_uid(pid_t tid, uid_t fallback, uid_t *uid)
{
	struct pf_caller *c;
	int err;

	if (tid <= 0) {
		*uid = fallback;
		return 0;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = pf_caller_get(tid, c);
	if (!err)
		*uid = c->acct_uid;
	free(c);
	return err;
}

/*
 * Does the thread @tid's pid namespace have a task @nr?  0, -ENOENT, or
 * -EACCES for a caller FUSE could not name (pid 0: a pid namespace that
 * ours does not contain).
 */
int pf_pid_visible(pid_t tid, pid_t nr)
{
	struct pf_caller *c;
	pid_t pid;
	int err;

	if (tid <= 0)
		return -EACCES;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = pf_caller_get(tid, c);
	pid = err ? err : pf_pid_from_caller(c, nr);
	free(c);
	if (pid == -ESRCH)
		return -ENOENT;
	return pid < 0 ? pid : 0;
}

/*
 * Is @tgid one of the daemon's own processes, which only a caller with
 * the daemon's credentials may count?  Its samples would show a root
 * process's addresses; perf's ptrace rule lets a thread of the same
 * process through, so this is not left to perf.
 *
 * An opener being made (without pool_lock) is in the pool from the time
 * its pid is known, which is before its parent, mid, exits; until then
 * it is mid's child, and mid is ours.  So while one is being made, the
 * parent and grandparent of @tgid are read first: a process that was
 * mid or a new opener then and is not in the pool now has exited, or is
 * a later opener whose spawn the old pool_lock did not cover either.
 */
bool pf_target_refused(const struct pf_caller *c, pid_t tgid)
{
	struct pf_opener *o;
	pid_t self = getpid(), p = 0, g = 0;
	bool ours = false, lineage = false, busy;

	if (pf_creds_privileged_as(&c->creds, &own))
		return false;
	if (tgid == self)
		return true;
	busy = __atomic_load_n(&nr_spawning, __ATOMIC_ACQUIRE) > 0;
	for (;;) {
		if (busy && !lineage) {
			lineage = true;
			if (task_state(tgid, &p) && p > 0 && p != self)
				task_state(p, &g);
		}
		pthread_mutex_lock(&pool_lock);
		for (o = pool; o && !ours; o = o->next)
			ours = o->pid > 0 && tgid == o->pid;
		busy = nr_spawning > 0;
		pthread_mutex_unlock(&pool_lock);
		if (ours || !busy)
			return ours;
		if (lineage)
			return p == self || g == self;
	}
}

/*
 * The id in the caller's pid namespace of task @pid (an id in ours), or
 * -ESRCH when the caller cannot see it: its pid namespace must be the
 * caller's or one below it.
 */
pid_t pf_caller_pid(const struct pf_caller *c, pid_t pid)
{
	struct pf_status st;
	struct stat s;
	char path[64];
	int fd, up, err;
	pid_t in;

	if (pid < 0 || c->same_pidns)
		return pid;
	err = pf_task_status(pid, &st);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	/* up from the task's namespace to the caller's level */
	for (up = st.nr_nspid - c->st.nr_nspid; up > 0; up--) {
		int parent = ioctl(fd, NS_GET_PARENT);

		close(fd);
		if (parent < 0)
			return -ESRCH;
		fd = parent;
	}
	in = -ESRCH;
	if (up == 0 && !fstat(fd, &s) && s.st_dev == c->creds.pidns_dev &&
	    s.st_ino == c->creds.pidns_ino)
		in = pf_pid_in_ns(&st, c->st.nr_nspid);
	close(fd);
	return in > 0 ? in : -ESRCH;
}

/*
 * Can this daemon separate privileges?  Only as root, and only if a test
 * opener really becomes another user.  @why says why not.
 */
int pf_opener_init(const char **why)
{
	struct pf_status st = { 0 };
	struct pf_opener *o;
	uint64_t eff;
	int err;

	if (ns_of(getpid(), "user", &own_userns) ||
	    ns_of(getpid(), "pid", &own_pidns)) {
		*why = "cannot read the daemon's own namespaces";
		return -EIO;
	}
	err = pf_task_status(getpid(), &st);
	if (err || capget_raw(&eff, &own_permitted)) {
		*why = "cannot read the daemon's own credentials";
		return -EIO;
	}
	pf_creds_decide(&st, own_userns.st_dev, own_userns.st_ino,
			own_pidns.st_dev, own_pidns.st_ino, &own);
	{
		pthread_condattr_t ca;

		if (pthread_condattr_init(&ca) ||
		    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
		    pthread_cond_init(&pool_cond, &ca)) {
			*why = "cannot make the opener pool's condition variable";
			return -ENOMEM;
		}
		pthread_condattr_destroy(&ca);
	}
	if (geteuid() != 0) {
		*why = "the daemon is not root, so it cannot act as each caller";
		return -EPERM;
	}
	/* nobody: the check must change every id, as a real caller's will */
	st.uid[0] = st.uid[1] = st.uid[2] = st.uid[3] = 65534;
	st.gid[0] = st.gid[1] = st.gid[2] = st.gid[3] = 65534;
	st.nr_groups = 0;
	st.cap_eff = 0;
	{
		struct pf_creds probe;

		pf_creds_decide(&st, own_userns.st_dev, own_userns.st_ino,
				own_pidns.st_dev, own_pidns.st_ino, &probe);
		o = calloc(1, sizeof(*o));
		if (!o) {
			*why = "out of memory";
			return -ENOMEM;
		}
		o->creds = probe;
		o->sock = o->pidfd = -1;
		pthread_mutex_init(&o->lock, NULL);
		err = opener_spawn(-1, -1, -1, o);
		if (err)
			opener_free(o);
	}
	if (err) {
		*why = "a test opener could not take another user's credentials (needs CAP_SETUID, CAP_SETGID, CAP_SETPCAP, CAP_SYS_ADMIN)";
		return err;
	}
	/* signal 0: may we kill an opener that is another user's? */
	if (o->pidfd < 0)
		pf_log(LOG_WARNING, "no pidfd_open here: an opener that its user stopped stays, stopped, until continued");
	else if (syscall(SYS_pidfd_send_signal, o->pidfd, 0, NULL, 0))
		pf_log(LOG_WARNING, "cannot signal openers (%s; CAP_KILL?): an opener that its user stopped stays, stopped, until continued",
		       strerror(errno));
	opener_free(o);
	separated = true;
	return 0;
}

void pf_opener_exit(void)
{
	struct pf_opener *o;

	pthread_mutex_lock(&pool_lock);
	while ((o = pool)) {
		pool = o->next;
		nr_openers--;
		/* one being made, or held, is freed by its last holder */
		o->dead = true;
		if (!o->users)
			opener_free(o);
	}
	pthread_mutex_unlock(&pool_lock);
}

unsigned int pf_nr_openers(void)
{
	unsigned int n;

	pthread_mutex_lock(&pool_lock);
	n = nr_openers;
	pthread_mutex_unlock(&pool_lock);
	return n;
}
