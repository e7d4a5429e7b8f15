// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - cgroup targets: which cgroup v2 directories the current task
 * reaches as cgroup.<id>, and where they are.
 *
 * A cgroup's id is its kernfs id, the inode number of its directory.  A
 * task reaches a cgroup when both hold:
 *
 *  - the cgroup is at or below the task's cgroup namespace root, as
 *    cgroup_get_from_id() requires;
 *  - the task could open the cgroup's directory from that root, as it must
 *    to give perf_event_open(2) the fd of PERF_FLAG_PID_CGROUP: search
 *    permission on every directory from the root down to the parent, read
 *    permission on the directory itself.  inode_permission() judges each
 *    one on cgroup2's inodes, as a path walk and open(2) would: the mode
 *    and owner cgroupfs keeps (a delegated subtree's chown and chmod), and
 *    the LSM's inode hook.
 *
 * cgroup2 has one superblock, whatever the mount or the cgroup namespace,
 * and it exists only while cgroup2 is mounted somewhere.  Where it is
 * not, nobody could open a cgroup directory, and no cgroup is reached.
 *
 * Lookup, readdir, the xattr and open ask the same question for the task
 * that asks; a cgroup it does not reach does not exist for it (ENOENT),
 * so a lookup tells nothing that cgroupfs would not tell it.  Nothing here
 * pins a cgroup between a lookup and an open: open asks again and hands
 * perf the cgroup, and perf refuses one that is being removed.
 */
#include <linux/cgroup.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernfs.h>
#include <linux/nsproxy.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "internal.h"

/* cgroup2's file_system_type: built in, never unregistered */
static struct file_system_type *perfctrfs_cgroup2;

/**
 * perfctrfs_cgroup_init() - find cgroup2, whose inodes judge who reaches what
 *
 * Called once, from perfctrfs_init(): cgroup_init() registered cgroup2
 * long before.
 */
void __init perfctrfs_cgroup_init(void)
{
	perfctrfs_cgroup2 = get_fs_type("cgroup2");
}

/* current's cgroup namespace root on the default hierarchy */
static struct cgroup *perfctrfs_cgroup_ns_root(void)
{
	return current->nsproxy->cgroup_ns->root_cset->dfl_cgrp;
}

struct perfctrfs_cgroup_open {
	struct cgroup *cgrp;	/* the cgroup asked about */
	bool asked;
	int err;		/* 0: current could open its directory */
};

/*
 * iterate_supers_type()'s callback, s_umount held: could current open
 * q->cgrp's directory on cgroup2's superblock @sb?  Its ancestors up to
 * current's namespace root need search permission (the path walk), the
 * directory itself read permission (open(2) of a directory).  A cgroup
 * holds its parent, so the ancestors stay while we sleep.
 */
static void perfctrfs_cgroup_may_open(struct super_block *sb, void *arg)
{
	struct perfctrfs_cgroup_open *q = arg;
	struct cgroup *root = perfctrfs_cgroup_ns_root();
	struct cgroup *cg = q->cgrp;
	int mask = MAY_OPEN | MAY_READ;
	struct inode *inode;

	if (q->asked)
		return;		/* cgroup2 has one superblock; one answer */
	q->asked = true;
	for (;;) {
		inode = kernfs_get_inode(sb, cg->kn);
		if (!inode) {
			q->err = -ENOMEM;
			return;
		}
		q->err = inode_permission(PERFCTRFS_NOP_IDMAP, inode, mask);
		iput(inode);
		if (q->err || cg == root)
			return;
		cg = cgroup_parent(cg);
		if (!cg) {
			q->err = -ENOENT;	/* not below root after all */
			return;
		}
		mask = MAY_EXEC;
	}
}

/**
 * perfctrfs_cgroup_get() - the cgroup @id, if current reaches it
 * @id: a cgroup id, the inode number of its cgroup2 directory
 *
 * Process context; sleeps.
 *
 * Return: the cgroup, referenced (perfctrfs_cgroup_put() it), or
 * ERR_PTR(-ENOENT) when current does not reach it (see above), or
 * ERR_PTR(-ENOMEM).
 */
struct cgroup *perfctrfs_cgroup_get(u64 id)
{
	struct perfctrfs_cgroup_open q = { .err = -ENOENT };
	struct cgroup *cgrp;

	if (!perfctrfs_cgroup2 || !current->nsproxy)
		return ERR_PTR(-ENOENT);
	/* a cgroup2 directory, in current's cgroup namespace, not removed */
	cgrp = cgroup_get_from_id(id);
	if (IS_ERR(cgrp))
		return ERR_PTR(-ENOENT);
	q.cgrp = cgrp;
	iterate_supers_type(perfctrfs_cgroup2, perfctrfs_cgroup_may_open, &q);
	if (q.err) {
		cgroup_put(cgrp);
		return ERR_PTR(q.err == -ENOMEM ? -ENOMEM : -ENOENT);
	}
	return cgrp;
}

/**
 * perfctrfs_cgroup_put() - drop what perfctrfs_cgroup_get() gave
 * @cgrp: the cgroup, or NULL
 */
void perfctrfs_cgroup_put(struct cgroup *cgrp)
{
	if (cgrp)
		cgroup_put(cgrp);
}

/**
 * perfctrfs_cgroup_check() - does current reach cgroup @id?
 * @id: a cgroup id
 *
 * Process context; sleeps.
 *
 * Return: 0, -ENOENT, or -ENOMEM.
 */
int perfctrfs_cgroup_check(u64 id)
{
	struct cgroup *cgrp = perfctrfs_cgroup_get(id);

	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	cgroup_put(cgrp);
	return 0;
}

/**
 * perfctrfs_cgroup_path() - cgroup @id's path from current's namespace root
 * @id: a cgroup id
 * @buf: receives the path, NUL-terminated ("/" for the root itself)
 * @size: room in @buf
 *
 * Process context; sleeps.
 *
 * Return: the path's length, -ENOENT when current does not reach the
 * cgroup, or -ENAMETOOLONG when @buf is too small.
 */
int perfctrfs_cgroup_path(u64 id, char *buf, size_t size)
{
	struct cgroup *cgrp = perfctrfs_cgroup_get(id);
	int len;

	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	len = cgroup_path_ns(cgrp, buf, size, current->nsproxy->cgroup_ns);
	cgroup_put(cgrp);
	if (len >= 0 && (size_t)len >= size)
		return -ENAMETOOLONG;
	return len;
}

/**
 * perfctrfs_cgroup_removed() - was this counted cgroup removed (rmdir)?
 * @cgrp: a cgroup from perfctrfs_cgroup_get()
 *
 * A removed cgroup has no task and can get none: what its counters hold
 * is final.  rmdir takes CSS_ONLINE off the cgroup's own css before it
 * returns (cgroup_is_dead(), private to kernel/cgroup).  Not
 * css_is_dying(): 6.12's tests CSS_DYING, which kill_css() sets on the
 * controllers' csses only, never on the cgroup's own.  Any context but
 * NMI.
 *
 * Return: true once it is removed.
 */
bool perfctrfs_cgroup_removed(struct cgroup *cgrp)
{
	return !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE);
}

static int perfctrfs_cmp_id(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * perfctrfs_cgroup_list() - the ids of the cgroups readdir may list
 * @from: the smallest id wanted
 * @ids: receives a kvmalloc()ed array, ascending (kvfree() it), or NULL
 *
 * Every cgroup at and below current's cgroup namespace root that is not
 * being removed, with an id of @from or more.  Whether current reaches
 * each is for lookup to say, as it says for pids.  Cgroups made while the
 * list is taken may be missed, as readdir of cgroupfs may miss them.
 * Process context; sleeps.
 *
 * Return: how many ids, or -ENOMEM.
 */
int perfctrfs_cgroup_list(u64 from, u64 **ids)
{
	struct cgroup_subsys_state *pos;
	unsigned int n, room = 0, tries;
	struct cgroup *root;
	u64 *arr = NULL, id;

	*ids = NULL;
	if (!perfctrfs_cgroup2 || !current->nsproxy)
		return 0;
	root = perfctrfs_cgroup_ns_root();
	for (tries = 0; ; tries++) {
		n = 0;
		rcu_read_lock();
		css_for_each_descendant_pre(pos, &root->self) {
			if (!(READ_ONCE(pos->flags) & CSS_ONLINE))
				continue;
			id = cgroup_id(pos->cgroup);
			if (id < from)
				continue;
			if (n < room)
				arr[n] = id;
			n++;
		}
		rcu_read_unlock();
		/* the third walk keeps what fits: cgroups come and go */
		if (n <= room || tries == 2)
			break;
		kvfree(arr);
		room = n + n / 8 + 16;
		arr = kvmalloc_array(room, sizeof(*arr), GFP_KERNEL_ACCOUNT);
		if (!arr)
			return -ENOMEM;
	}
	n = min(n, room);
	sort(arr, n, sizeof(*arr), perfctrfs_cmp_id, NULL);
	*ids = arr;
	return n;
}
