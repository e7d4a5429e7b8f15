// SPDX-License-Identifier: GPL-2.0
/*
 * super.c - mounting perfctrfs: options, superblock, inode life cycle.
 *
 *	mount -t perfctrfs [-o uid=N,gid=N,mode=0NNN] perfctrfs /dev/perfctr
 *
 * Each mount is its own superblock with its own event catalogue (a PMU
 * that a module registers later appears in the next mount).  Nothing is
 * stored: every directory and leaf is made on demand by dir.c.
 *
 * uid= and gid= own every inode.  mode= is the leaves' mode (default
 * 0666); directories get r-x for every class that has any right on the
 * leaves (0666 -> 0555, 0660 -> 0550, 0600 -> 0500), so whoever may use
 * a leaf may also reach it, as the FUSE daemon does.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/init.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/user_namespace.h>
#include "internal.h"

#define PERFCTRFS_DEFAULT_MODE	0666

static void perfctrfs_node_free_rcu(struct rcu_head *head)
{
	struct perfctrfs_node *node = container_of(head, struct perfctrfs_node,
						   rcu);

	put_pid(node->leaf.target);
	kfree(node);
}

/**
 * perfctrfs_leaf_free() - free what an inode's node holds, and the node
 * @node: from a lookup, or NULL
 *
 * Drops the reference on the target pid a pid-level lookup took, after
 * an RCU grace period: d_revalidate() in RCU-walk mode may still be
 * reading both.
 */
void perfctrfs_leaf_free(struct perfctrfs_node *node)
{
	if (node)
		call_rcu(&node->rcu, perfctrfs_node_free_rcu);
}

/* r-x for every class (user, group, other) that has any right on leaves */
static umode_t perfctrfs_dir_mode(umode_t leaf_mode)
{
	umode_t mode = S_IFDIR;
	int shift;

	for (shift = 0; shift < 9; shift += 3)
		if (leaf_mode & (07 << shift))
			mode |= 05 << shift;
	return mode;
}

/*
 * The mount options as one whole: a remount rewrites them while lookups
 * make inodes from them and mountinfo prints them.
 */
static void perfctrfs_get_opts(struct super_block *sb,
			       struct perfctrfs_mount_opts *opts)
{
	struct perfctrfs_fs_info *fsi = perfctrfs_sbi(sb);

	spin_lock(&fsi->opts_lock);
	*opts = fsi->opts;
	spin_unlock(&fsi->opts_lock);
}

/**
 * perfctrfs_new_inode() - make the inode of a directory or leaf
 * @sb: the mount's superblock
 * @node: what it names, allocated by the caller; the inode owns it from
 *	here on, even on failure
 *
 * The level in @node picks the operations; the mount options pick owner
 * and mode.
 *
 * Return: the new inode, or NULL when out of memory.
 */
struct inode *perfctrfs_new_inode(struct super_block *sb,
				  struct perfctrfs_node *node)
{
	struct perfctrfs_mount_opts opts;
	struct inode *inode;

	inode = new_inode(sb);
	if (!inode) {
		perfctrfs_leaf_free(node);
		return NULL;
	}
	perfctrfs_get_opts(sb, &opts);
	inode->i_ino = get_next_ino();
	inode->i_uid = opts.uid;
	inode->i_gid = opts.gid;
	perfctrfs_inode_init_ts(inode);
	inode->i_private = node;
	if (node->level == PERFCTRFS_LVL_LEAF) {
		inode->i_mode = S_IFREG | opts.mode;
		/* series: lookup */
		inode->i_op = &perfctrfs_leaf_iops;
		/* series: end */
		/* series: counters */
		inode->i_fop = &perfctrfs_leaf_fops;
		/* series: end */
	} else {
		inode->i_mode = perfctrfs_dir_mode(opts.mode);
		/* series: until lookup */
//		inode->i_op = &simple_dir_inode_operations;
//		inode->i_fop = &simple_dir_operations;
		/* series: end */
		/* series: lookup */
		inode->i_op = &perfctrfs_dir_iops[node->level];
		inode->i_fop = &perfctrfs_dir_fops[node->level];
		/* series: end */
		set_nlink(inode, 2);
	}
	return inode;
}

static void perfctrfs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	perfctrfs_leaf_free(perfctrfs_node(inode));
	inode->i_private = NULL;
}

/* As the reader of /proc/<pid>/mountinfo sees ids: its user namespace. */
static int perfctrfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct perfctrfs_mount_opts opts;

	perfctrfs_get_opts(root->d_sb, &opts);
	if (!uid_eq(opts.uid, GLOBAL_ROOT_UID))
		seq_printf(m, ",uid=%u",
			   from_kuid_munged(seq_user_ns(m), opts.uid));
	if (!gid_eq(opts.gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u",
			   from_kgid_munged(seq_user_ns(m), opts.gid));
	if (opts.mode != PERFCTRFS_DEFAULT_MODE)
		seq_printf(m, ",mode=%04o", opts.mode);
	return 0;
}

static const struct super_operations perfctrfs_sops = {
	.statfs		= simple_statfs,
	.drop_inode	= generic_delete_inode,
	.evict_inode	= perfctrfs_evict_inode,
	.show_options	= perfctrfs_show_options,
};

enum { OPT_UID, OPT_GID, OPT_MODE };

static const struct fs_parameter_spec perfctrfs_fs_parameters[] = {
	fsparam_u32("uid", OPT_UID),
	fsparam_u32("gid", OPT_GID),
	fsparam_u32oct("mode", OPT_MODE),
	{}
};

static int perfctrfs_parse_param(struct fs_context *fc,
				 struct fs_parameter *param)
{
	struct perfctrfs_mount_opts *opts = fc->fs_private;
	struct fs_parse_result result;
	kuid_t uid;
	kgid_t gid;
	int opt;

	opt = fs_parse(fc, perfctrfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;	/* -ENOPARAM: the VFS handles "source" or refuses */

	switch (opt) {
	case OPT_UID:
		uid = make_kuid(current_user_ns(), result.uint_32);
		if (!uid_valid(uid))
			return invalfc(fc, "Invalid uid %u", result.uint_32);
		opts->uid = uid;
		break;
	case OPT_GID:
		gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(gid))
			return invalfc(fc, "Invalid gid %u", result.uint_32);
		opts->gid = gid;
		break;
	case OPT_MODE:
		/* no setuid, setgid or sticky bit on a counter */
		if (result.uint_32 & ~0777U)
			return invalfc(fc, "Invalid mode %o", result.uint_32);
		opts->mode = result.uint_32;
		break;
	}
	return 0;
}

static int perfctrfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct perfctrfs_mount_opts *opts = fc->fs_private;
	struct perfctrfs_fs_info *fsi;
	struct perfctrfs_node *node;
	/* series: lookup */
	struct perfctrfs_cat *cat;
	/* series: end */
	struct inode *root;

	fsi = kzalloc(sizeof(*fsi), GFP_KERNEL_ACCOUNT);
	if (!fsi)
		return -ENOMEM;
	spin_lock_init(&fsi->opts_lock);
	fsi->opts = *opts;
	sb->s_fs_info = fsi;	/* freed by perfctrfs_kill_sb(), even on error */

	/* series: lookup */
	cat = perfctrfs_cat_build();
	if (IS_ERR(cat))
		return PTR_ERR(cat);
	fsi->cat = cat;

	/* series: end */
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = PERFCTRFS_MAGIC;
	sb->s_op = &perfctrfs_sops;
	/* series: lookup */
	sb->s_xattr = perfctrfs_xattr_handlers;
	sb->s_d_op = &perfctrfs_dops;
	/* series: end */
	sb->s_time_gran = 1;
	sb->s_iflags |= SB_I_NOEXEC | SB_I_NODEV;

	node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return -ENOMEM;
	node->level = PERFCTRFS_LVL_ROOT;
	root = perfctrfs_new_inode(sb, node);
	if (!root)
		return -ENOMEM;
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

static int perfctrfs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, perfctrfs_fill_super);
}

/*
 * A remount changes owner and mode of what is looked up from then on;
 * inodes already in the dcache keep theirs, as on procfs.
 */
static int perfctrfs_reconfigure(struct fs_context *fc)
{
	struct perfctrfs_mount_opts *opts = fc->fs_private;
	struct perfctrfs_fs_info *fsi = perfctrfs_sbi(fc->root->d_sb);

	spin_lock(&fsi->opts_lock);
	fsi->opts = *opts;
	spin_unlock(&fsi->opts_lock);
	return 0;
}

static void perfctrfs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations perfctrfs_context_ops = {
	.free		= perfctrfs_free_fc,
	.parse_param	= perfctrfs_parse_param,
	.get_tree	= perfctrfs_get_tree,
	.reconfigure	= perfctrfs_reconfigure,
};

static int perfctrfs_init_fs_context(struct fs_context *fc)
{
	struct perfctrfs_mount_opts *opts;

	opts = kzalloc(sizeof(*opts), GFP_KERNEL_ACCOUNT);
	if (!opts)
		return -ENOMEM;
	opts->uid = GLOBAL_ROOT_UID;
	opts->gid = GLOBAL_ROOT_GID;
	opts->mode = PERFCTRFS_DEFAULT_MODE;
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE && fc->root)
		perfctrfs_get_opts(fc->root->d_sb, opts);
	fc->fs_private = opts;
	fc->ops = &perfctrfs_context_ops;
	return 0;
}

static void perfctrfs_kill_sb(struct super_block *sb)
{
	struct perfctrfs_fs_info *fsi = perfctrfs_sbi(sb);

	kill_anon_super(sb);
	/* series: until lookup */
//	kfree(fsi);
	/* series: end */
	/* series: lookup */
	if (fsi) {
		perfctrfs_cat_free(fsi->cat);
		kfree(fsi);
	}
	/* series: end */
}

struct file_system_type perfctrfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "perfctrfs",
	.init_fs_context	= perfctrfs_init_fs_context,
	.parameters		= perfctrfs_fs_parameters,
	.kill_sb		= perfctrfs_kill_sb,
};

static int __init perfctrfs_init(void)
{
	/* series: lookup */
	int ret;

	ret = perfctrfs_catalog_init();
	if (ret)
		return ret;
	/* series: end */
	/* series: cgroup */
	perfctrfs_cgroup_init();
	/* series: end */
	return register_filesystem(&perfctrfs_fs_type);
}
fs_initcall(perfctrfs_init);
