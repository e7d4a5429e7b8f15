// SPDX-License-Identifier: GPL-2.0
/*
 * fsop - one filesystem system call, its result as a word: busybox's
 * stat, mkdir and friends print messages, not errno names, and the suite
 * asserts errnos.
 *
 *	fsop stat PATH		"dir|file|other ino=N mode=0NNN uid=N gid=N
 *				 nlink=N size=N", or the errno name
 *	fsop readdir DIR	"<d_ino> <name>" per entry (no . and ..)
 *	fsop open PATH [rdonly|wronly|rdwr|creat|trunc]	"ok" or errno
 *	fsop mkdir|rmdir|unlink|creat|truncate PATH
 *	fsop rename|link|symlink FROM TO
 *	fsop chmod PATH MODE	(octal)
 *	fsop chown PATH UID GID
 *	fsop mknod PATH
 *	fsop setxattr PATH NAME VALUE
 *	fsop removexattr PATH NAME
 *	fsop umount PATH [lazy]	umount2(PATH, 0 or MNT_DETACH): busybox's
 *				and util-linux's umount print messages
 *
 * Everything but stat and readdir prints "ok" or the errno name.  Exits 0
 * when the call succeeded, 1 when it failed, 2 on bad usage.
 */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>

static int result(int r)
{
	printf("%s\n", r < 0 ? errname(errno) : "ok");
	return r < 0;
}

static int do_stat(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return result(-1);
	printf("%s ino=%llu mode=0%o uid=%u gid=%u nlink=%lu size=%lld\n",
	       S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" :
	       "other", (unsigned long long)st.st_ino, st.st_mode & 07777,
	       st.st_uid, st.st_gid, (unsigned long)st.st_nlink,
	       (long long)st.st_size);
	return 0;
}

static int do_readdir(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d)
		return result(-1);
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		printf("%llu %s\n", (unsigned long long)de->d_ino, de->d_name);
	}
	if (errno)
		return result(-1);
	closedir(d);
	return 0;
}

static int do_open(const char *path, const char *how)
{
	int flags = O_RDONLY, fd;

	if (!strcmp(how, "wronly"))
		flags = O_WRONLY;
	else if (!strcmp(how, "rdwr"))
		flags = O_RDWR;
	else if (!strcmp(how, "creat"))
		flags = O_WRONLY | O_CREAT;
	else if (!strcmp(how, "trunc"))
		flags = O_WRONLY | O_TRUNC;
	fd = open(path, flags, 0644);
	if (fd >= 0)
		close(fd);
	return result(fd);
}

int main(int argc, char **argv)
{
	const char *op = argc > 2 ? argv[1] : "", *p = argc > 2 ? argv[2] : "";

	if (!strcmp(op, "stat") && argc == 3)
		return do_stat(p);
	if (!strcmp(op, "readdir") && argc == 3)
		return do_readdir(p);
	if (!strcmp(op, "open") && (argc == 3 || argc == 4))
		return do_open(p, argc == 4 ? argv[3] : "rdonly");
	if (!strcmp(op, "mkdir") && argc == 3)
		return result(mkdir(p, 0755));
	if (!strcmp(op, "rmdir") && argc == 3)
		return result(rmdir(p));
	if (!strcmp(op, "unlink") && argc == 3)
		return result(unlink(p));
	if (!strcmp(op, "creat") && argc == 3)
		return result(creat(p, 0644));
	if (!strcmp(op, "truncate") && argc == 3)
		return result(truncate(p, 0));
	if (!strcmp(op, "mknod") && argc == 3)
		return result(mknod(p, S_IFIFO | 0644, 0));
	if (!strcmp(op, "rename") && argc == 4)
		return result(rename(p, argv[3]));
	if (!strcmp(op, "link") && argc == 4)
		return result(link(p, argv[3]));
	if (!strcmp(op, "symlink") && argc == 4)
		return result(symlink(p, argv[3]));
	if (!strcmp(op, "chmod") && argc == 4)
		return result(chmod(p, strtoul(argv[3], NULL, 8)));
	if (!strcmp(op, "chown") && argc == 5)
		return result(chown(p, num_arg(argv[3]), num_arg(argv[4])));
	if (!strcmp(op, "setxattr") && argc == 5)
		return result(setxattr(p, argv[3], argv[4], strlen(argv[4]), 0));
	if (!strcmp(op, "removexattr") && argc == 4)
		return result(removexattr(p, argv[3]));
	if (!strcmp(op, "umount") && argc == 3)
		return result(umount2(p, 0));
	if (!strcmp(op, "umount") && argc == 4 && !strcmp(argv[3], "lazy"))
		return result(umount2(p, MNT_DETACH));
	fprintf(stderr, "usage: see the comment at the top of fsop.c\n");
	return 2;
}
