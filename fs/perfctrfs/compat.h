/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel interfaces that changed between Linux 6.1 and 6.12.
 *
 * perfctrfs is one source for both LTS bases.  Every difference between
 * their VFS, driver-core and x86 perf interfaces that the code meets is
 * here, and only here, each under the version that made it:
 *
 *   6.3   inode and xattr operations take a struct mnt_idmap (idmapped
 *         mounts) where 6.1 passes a struct user_namespace
 *   6.4   the driver core takes const struct bus_type
 *   6.5   generic_file_splice_read() is gone: copy_splice_read() splices
 *         from ->read_iter() as it did
 *   6.7   inode timestamps are reached through accessors only
 *   6.11  the x86 PMU describes its counters as masks, not counts
 *
 * The perf-core interfaces perfctrfs calls (kernel/patches/) keep one
 * signature on both bases.  A series for one base (scripts/series.sh)
 * resolves this file for that base, and code that reads as if written for
 * that kernel alone is what a maintainer sees.
 */
#ifndef _PERFCTRFS_COMPAT_H
#define _PERFCTRFS_COMPAT_H

#include <linux/fs.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/* struct perfctrfs_idmap *: what inode and xattr operations are passed */
#define perfctrfs_idmap		mnt_idmap
#define PERFCTRFS_NOP_IDMAP	(&nop_mnt_idmap)
#else
#define perfctrfs_idmap		user_namespace
#define PERFCTRFS_NOP_IDMAP	(&init_user_ns)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define perfctrfs_bus_type	const struct bus_type
#else
#define perfctrfs_bus_type	struct bus_type
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define perfctrfs_splice_read	copy_splice_read
#else
#define perfctrfs_splice_read	generic_file_splice_read
#endif

/* A new inode's access, modification and change times: now. */
static inline void perfctrfs_inode_init_ts(struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	simple_inode_init_ts(inode);
#else
	inode->i_atime = current_time(inode);
	inode->i_mtime = inode->i_atime;
	inode->i_ctime = inode->i_atime;
#endif
}

/* General-purpose and fixed counters of a struct x86_pmu or x86_hybrid_pmu */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define perfctrfs_x86_nr_gp(p)		hweight64((p)->cntr_mask64)
#define perfctrfs_x86_nr_fixed(p)	hweight64((p)->fixed_cntr_mask64)
#else
#define perfctrfs_x86_nr_gp(p)		((p)->num_counters)
#define perfctrfs_x86_nr_fixed(p)	((p)->num_counters_fixed)
#endif

#endif /* _PERFCTRFS_COMPAT_H */
