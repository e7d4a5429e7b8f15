/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the parts of fs/perfctrfs tell each other.
 *
 *	super.c    mount, options, superblock, inode life cycle
 *	dir.c      lookup + readdir of the five levels, revalidation, xattrs
 *	catalog.c  the PMUs, their formats and aliases, per-CPU probing
 *	cgroup.c   which cgroups a caller reaches as cgroup.<id>
 *	file.c     the leaf's file_operations            (counter side)
 *	counter.c  perf counters behind an open leaf      (counter side)
 *
 * Every inode carries, in i_private, what the path down to it names: a
 * struct perfctrfs_node whose first member is the struct perfctrfs_leaf
 * that the counter side reads.  A directory's node has the levels above
 * and including it filled in; a leaf's node has all five.  Nodes are
 * built at lookup, never change, and are freed when the inode is evicted.
 */
#ifndef _PERFCTRFS_INTERNAL_H
#define _PERFCTRFS_INTERNAL_H

#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include "compat.h"
#include "grammar.h"

#define PERFCTRFS_MAGIC		0x70637466	/* "pctf" */

/* What a leaf names; built by dir.c at lookup; immutable; inode->i_private */
struct perfctrfs_leaf {
	struct perfctrfs_cpu cpu;
	struct perfctrfs_event_spec spec;
	struct perfctrfs_pid pid;
	/* PERFCTRFS_PID_NUM: a reference, dropped by perfctrfs_leaf_free() */
	struct pid *target;
	enum perfctrfs_type type;
	struct perfctrfs_period period;
};

/* series: counters */
extern const struct file_operations perfctrfs_leaf_fops;	/* file.c */

#include "counter.h"	/* the counter side's declarations */

/* series: end */
static inline struct perfctrfs_leaf *perfctrfs_leaf(struct inode *inode)
{
	return inode->i_private;
}

/* ---- the namespace side (super.c, dir.c, catalog.c) ------------------ */

/* The depth of an inode: which fields of its leaf are valid. */
enum perfctrfs_level {
	PERFCTRFS_LVL_ROOT,	/* nothing */
	PERFCTRFS_LVL_CPU,	/* .cpu */
	PERFCTRFS_LVL_EVENT,	/* + .spec */
	PERFCTRFS_LVL_PID,	/* + .pid, .target */
	PERFCTRFS_LVL_TYPE,	/* + .type */
	PERFCTRFS_LVL_LEAF,	/* + .period: a regular file */
};

struct perfctrfs_node {
	struct perfctrfs_leaf leaf;	/* first: perfctrfs_leaf() casts */
	enum perfctrfs_level level;
	struct rcu_head rcu;		/* RCU-walk revalidation reads it */
};

static inline struct perfctrfs_node *perfctrfs_node(struct inode *inode)
{
	return inode->i_private;
}

struct perfctrfs_mount_opts {
	kuid_t uid;
	kgid_t gid;
	umode_t mode;		/* leaves; directories r-x where it grants any */
};

struct perfctrfs_cat;		/* catalog.c: opaque */

/* sb->s_fs_info */
struct perfctrfs_fs_info {
	spinlock_t opts_lock;		/* guards opts: remount rewrites them */
	struct perfctrfs_mount_opts opts;
	struct perfctrfs_cat *cat;
};

static inline struct perfctrfs_fs_info *perfctrfs_sbi(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* super.c */
extern struct file_system_type perfctrfs_fs_type;
struct inode *perfctrfs_new_inode(struct super_block *sb,
				  struct perfctrfs_node *node);
void perfctrfs_leaf_free(struct perfctrfs_node *node);

/* dir.c */
extern const struct inode_operations perfctrfs_dir_iops[PERFCTRFS_LVL_LEAF];
extern const struct file_operations perfctrfs_dir_fops[PERFCTRFS_LVL_LEAF];
extern const struct inode_operations perfctrfs_leaf_iops;
extern const struct dentry_operations perfctrfs_dops;
extern const struct xattr_handler *perfctrfs_xattr_handlers[];

/* catalog.c */
struct perfctrfs_cat *perfctrfs_cat_build(void);
void perfctrfs_cat_free(struct perfctrfs_cat *cat);
const struct perfctrfs_catalog *perfctrfs_cat_grammar(const struct perfctrfs_cat *cat);
unsigned int perfctrfs_cat_nr(const struct perfctrfs_cat *cat);
const char *perfctrfs_cat_name(const struct perfctrfs_cat *cat, unsigned int i);
const char *perfctrfs_cat_desc(const struct perfctrfs_cat *cat,
			       const char *name, size_t len);
int perfctrfs_cat_prop(const char *name, size_t len, const char *prop,
		       char *buf, size_t size);
bool perfctrfs_cat_countable(struct perfctrfs_cat *cat,
			     const struct perfctrfs_cpu *cpu, unsigned int i);
int perfctrfs_cat_check(struct perfctrfs_cat *cat,
			const struct perfctrfs_cpu *cpu,
			const struct perfctrfs_event_spec *spec);
int perfctrfs_catalog_init(void);
/* series: cgroup */

/* cgroup.c; without cgroups, no cgroup.<id> names anything */
struct cgroup;
#ifdef CONFIG_CGROUPS
void perfctrfs_cgroup_init(void);
struct cgroup *perfctrfs_cgroup_get(u64 id);
void perfctrfs_cgroup_put(struct cgroup *cgrp);
int perfctrfs_cgroup_check(u64 id);
int perfctrfs_cgroup_path(u64 id, char *buf, size_t size);
bool perfctrfs_cgroup_removed(struct cgroup *cgrp);
int perfctrfs_cgroup_list(u64 from, u64 **ids);
#else
static inline void perfctrfs_cgroup_init(void)
{
}

static inline struct cgroup *perfctrfs_cgroup_get(u64 id)
{
	return ERR_PTR(-ENOENT);
}

static inline void perfctrfs_cgroup_put(struct cgroup *cgrp)
{
}

static inline int perfctrfs_cgroup_check(u64 id)
{
	return -ENOENT;
}

static inline int perfctrfs_cgroup_path(u64 id, char *buf, size_t size)
{
	return -ENOENT;
}

static inline bool perfctrfs_cgroup_removed(struct cgroup *cgrp)
{
	return false;
}

static inline int perfctrfs_cgroup_list(u64 from, u64 **ids)
{
	*ids = NULL;
	return 0;
}
#endif
/* series: end */

#endif /* _PERFCTRFS_INTERNAL_H */
