// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a program as another user: the same on a host and in a
 * busybox guest, whose setpriv has no --reuid and whose build may lack
 * setuidgid.
 *
 *	runas UID GID PROG [ARGS...]
 *
 * Drops every supplementary group, sets the real, effective and saved
 * gid and uid, and execs PROG (searched in PATH), so the caller's $! is
 * PROG's pid.  Exits 127 if PROG cannot be run, 126 if the ids cannot be
 * set, 2 on bad usage.
 */
#include "common.h"
#include <grp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID PROG [ARGS...]\n");
		return 2;
	}
	uid = num_arg(argv[1]);
	gid = num_arg(argv[2]);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
