/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who an opener acts as: the rules that turn what /proc says about a
 * caller into the credentials its perf_event_open calls run with.  Pure
 * functions over text and structs, no FUSE and no syscalls, so that
 * tests/unit/creds-test.c checks every rule on its own.
 */
#ifndef PERFCTRFS_FUSE_CREDS_H
#define PERFCTRFS_FUSE_CREDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PF_MAX_GROUPS	256	/* supplementary groups an opener takes */
#define PF_MAX_NSLEVEL	33	/* pid namespaces nest at most 32 deep */
#define PF_MAX_USERNS	32	/* user namespaces nest at most 32 deep */

/* What one read of /proc/<tid>/status tells about a task. */
struct pf_status {
	pid_t tgid;
	int nr_threads;			/* of its process; 0: not said */
	uid_t uid[4];			/* real, effective, saved, fs */
	gid_t gid[4];
	uint64_t cap_eff;		/* relative to the task's user ns */
	int nr_groups;
	gid_t groups[PF_MAX_GROUPS];
	int nr_nspid;			/* its id in each pid ns, ours first */
	pid_t nspid[PF_MAX_NSLEVEL];
};

/*
 * The credentials of one opener.  Two callers with equal pf_creds share
 * an opener; groups are kept as a sorted set so that order and repeats
 * (which setgroups() ignores) do not make two openers for one user.
 */
struct pf_creds {
	uid_t uid[4];
	gid_t gid[4];
	uint64_t caps;			/* effective = permitted, ours to grant */
	int nr_groups;
	gid_t groups[PF_MAX_GROUPS];
	uint64_t userns_dev, userns_ino;	/* the user ns @caps are in */
	uint64_t pidns_dev, pidns_ino;	/* the pid namespace it lives in */
	uint64_t cgns_dev, cgns_ino;	/* the cgroup namespace it walks */
};

/*
 * A caller's user namespace and those above it, up to the daemon's: what
 * decides whom the caller's share of the daemon is charged to.
 */
struct pf_userns_walk {
	int depth;			/* namespaces below the daemon's: 0 */
					/* for a caller in the daemon's own */
	bool reached;			/* the walk ended at the daemon's */
	uid_t owner[PF_MAX_USERNS];	/* each one's owner, the caller's */
					/* first, as the daemon sees them */
};

int pf_status_parse(char *buf, struct pf_status *st);
void pf_creds_decide(const struct pf_status *caller,
		     uint64_t userns_dev, uint64_t userns_ino,
		     uint64_t pidns_dev, uint64_t pidns_ino,
		     struct pf_creds *out);
bool pf_creds_equal(const struct pf_creds *a, const struct pf_creds *b);
bool pf_creds_privileged_as(const struct pf_creds *c,
			    const struct pf_creds *own);
uid_t pf_accountable_uid(uid_t ruid, const struct pf_userns_walk *w);
pid_t pf_pid_in_ns(const struct pf_status *target, int caller_level);

#endif /* PERFCTRFS_FUSE_CREDS_H */
