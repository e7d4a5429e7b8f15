// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup targets: which cgroup v2 directories a caller may name as
 * cgroup.<id>, and where they are.
 *
 * A cgroup's id is the inode number of its directory.  A caller sees the
 * cgroups at and below its cgroup namespace root, and of those only the
 * ones it could open as a directory: the walk that finds them
 * (pf_cgroup_walk()) runs in the caller's opener, with the caller's
 * rights, from that root down, and never enters a directory the caller
 * cannot open.  Lookup, readdir and open therefore agree, and nobody
 * learns of a cgroup that the cgroup2 mount would not show them.
 *
 * The walk makes only syscalls: it runs in an opener, a process forked
 * from the threaded daemon (opener.c).  It runs in the daemon only when
 * the daemon cannot separate privileges and so serves its own user alone.
 *
 * The daemon's own cgroup2 mount is the one place paths are resolved:
 * the first cgroup2 mount in its /proc/self/mountinfo, found at start.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define WALK_DEPTH	128	/* deeper cgroups are not walked into */

static char mnt[PATH_MAX];	/* the daemon's cgroup2 mount point, or "" */
static char mnt_root[PATH_MAX];	/* its root in the daemon's cgroup ns */
static struct stat own_cgns;

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 |
			       (s[3] - '0');
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

/*
 * Find the cgroup2 mount.  Without one (or without /proc), there are no
 * cgroup targets: every cgroup.<id> is ENOENT and none is listed.
 */
void pf_cgroup_init(void)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	mnt[0] = 0;
	if (stat("/proc/self/ns/cgroup", &own_cgns))
		return;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		/* id parent maj:min root point opts [tags] - type source super */
		char *sep = strstr(line, " - "), *root, *point;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		strtok(line, " ");
		strtok(NULL, " ");
		strtok(NULL, " ");
		root = strtok(NULL, " ");
		point = strtok(NULL, " ");
		if (!root || !point || strlen(root) >= sizeof(mnt_root) ||
		    strlen(point) >= sizeof(mnt))
			continue;
		unescape(root);
		unescape(point);
		strcpy(mnt_root, strcmp(root, "/") ? root : "");
		strcpy(mnt, point);
		break;
	}
	free(line);
	fclose(f);
	if (mnt[0])
		pf_log(LOG_INFO, "cgroup targets from the cgroup2 mount at %s",
		       mnt);
}

bool pf_cgroup_available(void)
{
	return mnt[0];
}

/* The "0::<path>" line of a /proc/<pid>/cgroup text, into @out. */
static int v2_path(const char *text, char *out, size_t size)
{
	const char *p = text, *nl;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (!strncmp(p, "0::/", 4)) {
			size_t len = nl - p - 3;

			if (len >= size)
				return -ENAMETOOLONG;
			memcpy(out, p + 3, len);
			out[len] = 0;
			return 0;
		}
		if (!*nl)
			break;
	}
	return -ENOENT;
}

/* Read a small file with syscalls only: safe in a forked child. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1 &&
	       (n = syscall(SYS_read, fd, buf + len, size - 1 - len)) > 0)
		len += n;
	syscall(SYS_close, fd);
	buf[len] = 0;
	return len;
}

/*
 * @tid's cgroup path as a process in @tid's cgroup namespace sees it:
 * a child that enters that namespace reads it.  Only a read: the child
 * holds the daemon's rights but gives nothing back but the text.
 */
static int path_in_its_ns(pid_t tid, char *out, size_t size)
{
	char path[64], buf[PATH_MAX + 64];
	int pp[2], st, err;
	ssize_t n, len = 0;
	pid_t child;

	if (pipe2(pp, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		close(pp[0]);
		close(pp[1]);
		return err;
	}
	if (child == 0) {
		int ns;

		close(pp[0]);
		snprintf(path, sizeof(path), "/proc/%d/ns/cgroup", (int)tid);
		ns = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || syscall(SYS_setns, ns, CLONE_NEWCGROUP))
			_exit(1);
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
		n = slurp(path, buf, sizeof(buf));
		if (n > 0 && syscall(SYS_write, pp[1], buf, n) != n)
			_exit(1);
		_exit(0);
	}
	close(pp[1]);
	while ((size_t)len < sizeof(buf) - 1 &&
	       (n = read(pp[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(pp[0]);
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = 0;
	return v2_path(buf, out, size);
}

/*
 * Where the cgroup namespace root of the caller @tid is, as a path under
 * the daemon's mount (absolute, into @out).  The same namespace as ours:
 * the mount's root.  Another: its root is @tid's cgroup as we see it,
 * less the part that @tid sees below its own root.  A caller outside its
 * own root ("/.." in its view), or one that moves while we look, sees
 * no cgroup: -ENOENT.
 */
int pf_cgroup_root(pid_t tid, char *out, size_t size)
{
	char path[64], buf[PATH_MAX + 64], ours[PATH_MAX], theirs[PATH_MAX];
	size_t ol, tl, ml = strlen(mnt_root);
	struct stat ns;
	ssize_t n;
	int err;

	if (!mnt[0] || tid <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/ns/cgroup", (int)tid);
	if (stat(path, &ns))
		return errno == ESRCH ? -ENOENT : -errno;
	if (ns.st_dev == own_cgns.st_dev && ns.st_ino == own_cgns.st_ino) {
		if ((size_t)snprintf(out, size, "%s", mnt) >= size)
			return -ENAMETOOLONG;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
	n = slurp(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ESRCH ? -ENOENT : (int)n;
	err = v2_path(buf, ours, sizeof(ours));
	if (!err)
		err = path_in_its_ns(tid, theirs, sizeof(theirs));
	if (err)
		return err == -ENAMETOOLONG ? err : -ENOENT;
	if (!strncmp(theirs, "/..", 3))
		return -ENOENT;
	ol = strlen(ours);
	tl = strcmp(theirs, "/") ? strlen(theirs) : 0;
	if (tl > ol || (tl && strcmp(ours + ol - tl, theirs)))
		return -ENOENT;
	ol -= tl;
	/* now ours[0, ol) is the root in our namespace; under the mount? */
	if (ol < ml || strncmp(ours, mnt_root, ml) ||
	    (ol > ml && ours[ml] != '/'))
		return -ENOENT;
	if ((size_t)snprintf(out, size, "%s%.*s", mnt, (int)(ol - ml),
			     ours + ml) >= size)
		return -ENAMETOOLONG;
	return 0;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One directory of the walk, @fd open on it, w->path its relative path. */
static int walk_dir(int fd, uint64_t ino, struct pf_cgwalk *w,
		    unsigned int depth)
{
	char buf[1024];
	long n, off;

	if (w->want && ino == w->want) {
		w->found = true;
		return 1;
	}
	if (!w->want) {
		/*
		 * A listing stops at PF_CGROUP_MAX rather than fail: a user
		 * with a delegated subtree could otherwise fail everyone's
		 * readdir.  Those not listed still look up.
		 */
		if (w->nr >= PF_CGROUP_MAX)
			return 1;
		w->ids[w->nr++] = ino;
	}
	if (depth >= WALK_DEPTH)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			struct linux_dirent64 *de = (void *)(buf + off);
			size_t len = strlen(de->d_name), plen = w->len;
			struct stat st;
			int sub, ret;

			off += de->d_reclen;
			if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			/* a directory the caller cannot open: not its */
			sub = syscall(SYS_openat, fd, de->d_name,
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC);
			if (sub < 0)
				continue;
			if (syscall(SYS_fstat, sub, &st) ||
			    plen + 1 + len >= sizeof(w->path)) {
				syscall(SYS_close, sub);
				continue;
			}
			w->path[plen] = '/';
			memcpy(w->path + plen + 1, de->d_name, len + 1);
			w->len = plen + 1 + len;
			ret = walk_dir(sub, st.st_ino, w, depth + 1);
			if (ret > 0) {
				if (w->found && w->dirfd < 0)
					w->dirfd = sub;
				else
					syscall(SYS_close, sub);
				return ret;
			}
			syscall(SYS_close, sub);
			w->len = plen;
			w->path[plen] = 0;
			if (ret < 0)
				return ret;
		}
	}
	return n < 0 ? -errno : 0;
}

/**
 * pf_cgroup_walk() - walk the cgroups under @root with the rights we hold
 * @root: absolute path of the caller's cgroup namespace root
 * @w: w->want is the id to find (0: list every id into w->ids); on a
 *	find, w->path is its path relative to @root ("/" for @root) and,
 *	when w->want_fds, w->dirfd and w->eventsfd (-1 if it has no
 *	cgroup.events, as the hierarchy's root has none) are open on it
 *
 * Return: 0 (listed, at most PF_CGROUP_MAX, or found), -ENOENT (not
 * found), or the errno that stopped the walk.
 */
int pf_cgroup_walk(const char *root, struct pf_cgwalk *w)
{
	struct statfs sfs;
	struct stat st;
	int fd, ret;

	w->nr = 0;
	w->found = false;
	w->dirfd = -1;
	w->eventsfd = -1;
	w->path[0] = 0;
	w->len = 0;
	fd = syscall(SYS_openat, AT_FDCWD, root,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (syscall(SYS_fstatfs, fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC ||
	    syscall(SYS_fstat, fd, &st)) {
		syscall(SYS_close, fd);
		return -ENOENT;
	}
	ret = walk_dir(fd, st.st_ino, w, 0);
	if (ret > 0 && w->found && w->dirfd < 0)
		w->dirfd = fd;
	else
		syscall(SYS_close, fd);
	if (ret < 0)
		return ret;
	if (!w->want)
		return 0;
	if (!w->found)
		return -ENOENT;
	if (!w->len)
		memcpy(w->path, "/", 2);
	if (w->want_fds)
		w->eventsfd = syscall(SYS_openat, w->dirfd, "cgroup.events",
				      O_RDONLY | O_CLOEXEC);
	else {
		syscall(SYS_close, w->dirfd);
		w->dirfd = -1;
	}
	return 0;
}
