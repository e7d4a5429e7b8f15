// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a program as another user: the same on a host and in a
 * busybox guest, whose setpriv has no --reuid and whose build may lack
 * setuidgid.
 *
 *	runas [--perfmon] UID GID PROG [ARGS...]
 *
 * Drops every supplementary group, sets the real, effective and saved
 * gid and uid, and execs PROG (searched in PATH), so the caller's $! is
 * PROG's pid.  With --perfmon, CAP_PERFMON and no other capability
 * survives into PROG (permitted, effective, inheritable and ambient: what
 * util-linux's setpriv --inh-caps=-all,+perfmon --ambient-caps=-all,+perfmon
 * gives, for a busybox guest that has no such setpriv).  Exits 127 if
 * PROG cannot be run, 126 if the ids or capabilities cannot be set, 2 on
 * bad usage.
 */
#include "common.h"
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* After the uid change (with PR_SET_KEEPCAPS): keep only CAP_PERFMON. */
static int keep_perfmon(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	__u32 bit = 1u << (CAP_PERFMON % 32);
	int i = CAP_PERFMON / 32;

	d[i].permitted = d[i].effective = d[i].inheritable = bit;
	if (syscall(SYS_capset, &h, d))
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_PERFMON, 0, 0);
}

int main(int argc, char **argv)
{
	int perfmon = argc > 1 && !strcmp(argv[1], "--perfmon");
	uid_t uid;
	gid_t gid;

	argv += perfmon;
	argc -= perfmon;
	if (argc < 4) {
		fprintf(stderr, "usage: runas [--perfmon] UID GID PROG [ARGS...]\n");
		return 2;
	}
	uid = num_arg(argv[1]);
	gid = num_arg(argv[2]);
	if (perfmon && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		perror("runas: PR_SET_KEEPCAPS");
		return 126;
	}
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 126;
	}
	if (perfmon && keep_perfmon()) {
		perror("runas: CAP_PERFMON");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
