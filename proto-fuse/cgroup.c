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
 * A caller in the daemon's own cgroup namespace is walked from the
 * daemon's cgroup2 mount: the first in its /proc/self/mountinfo, found at
 * start.  A caller in another is walked from a cgroup2 mount that its
 * opener made inside that namespace, where the kernel roots it at the
 * namespace's root (opener.c): nothing here reads where a caller is, so a
 * caller that moves between cgroups cannot move its root, and no request
 * forks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include "internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define WALK_DEPTH	128	/* deeper cgroups are not walked into */

static char mnt[PATH_MAX];	/* the daemon's cgroup2 mount point, or "" */
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
		if (!root || !point || strlen(point) >= sizeof(mnt))
			continue;
		unescape(point);
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

/* Is the cgroup namespace (@dev, @ino) the daemon's own? */
bool pf_cgroup_same_ns(uint64_t dev, uint64_t ino)
{
	return mnt[0] && dev == own_cgns.st_dev && ino == own_cgns.st_ino;
}

/*
 * Where the cgroup namespace root of a caller in the daemon's own cgroup
 * namespace is: the daemon's mount (absolute, into @out).  A caller in
 * another one is walked from its own root, which only the kernel says:
 * its opener mounts cgroup2 inside that namespace (opener.c), and the
 * daemon never computes it from paths read at different moments.
 */
int pf_cgroup_root(char *out, size_t size)
{
	if (!mnt[0])
		return -ENOENT;
	if ((size_t)snprintf(out, size, "%s", mnt) >= size)
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
			/*
			 * Every directory tried costs: a walk stops at
			 * PF_CGROUP_WALK_MAX, so that no subtree, however
			 * large, makes one request long.  A listing ends
			 * there; a search fails with ELOOP (it may exist
			 * beyond), never with a false ENOENT.
			 */
			if (++w->tried > PF_CGROUP_WALK_MAX)
				return w->want ? -ELOOP : 1;
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
 * pf_cgroup_walk() - walk the cgroups under @root with the rights we hold,
 *	at most PF_CGROUP_WALK_MAX directories of them
 * @at: the directory @root is relative to (AT_FDCWD for an absolute one)
 * @root: the caller's cgroup namespace root
 * @w: w->want is the id to find (0: list every id into w->ids); on a
 *	find, w->path is its path relative to @root ("/" for @root) and,
 *	when w->want_fds, w->dirfd and w->eventsfd (-1 if it has no
 *	cgroup.events, as the hierarchy's root has none) are open on it
 *
 * Return: 0 (listed, at most PF_CGROUP_MAX, or found), -ENOENT (not
 * found), -ELOOP (not found in the first PF_CGROUP_WALK_MAX directories
 * tried), or the errno that stopped the walk.
 */
int pf_cgroup_walk(int at, const char *root, struct pf_cgwalk *w)
{
	struct statfs sfs;
	struct stat st;
	int fd, ret;

	w->nr = 0;
	w->tried = 0;
	w->found = false;
	w->dirfd = -1;
	w->eventsfd = -1;
	w->path[0] = 0;
	w->len = 0;
	fd = syscall(SYS_openat, at, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
