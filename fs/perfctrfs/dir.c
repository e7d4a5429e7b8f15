// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c - the five levels of <mount>/<cpu>/<event>/<pid>/<type>/<period>.
 *
 * Nothing is stored.  A lookup parses one component with the shared
 * grammar (grammar.c), checks that what it names exists now, and makes an
 * inode whose node is the parent's plus this level.  It never creates a
 * perf event and never acts with more privilege than the caller's:
 *
 *	cpu	"all", or an online CPU
 *	event	parses; each catalogue member is one the mount's probes found
 *		countable on that CPU (catalog.c); composed members (raw
 *		codes, PMU terms) are left to perf at open
 *	pid	"self" (resolved at open, as the opener), "all", a live
 *		process or thread in the caller's pid namespace, or a cgroup
 *		the caller reaches (cgroup.c; resolved again at open)
 *	type	simple, times, irq
 *	period	a count or a time; a regular file: the leaf
 *
 * Readdir lists what lookup accepts and instantiates each entry through
 * the dcache, as proc_fill_cache() does, so that the inode numbers it
 * reports are the ones stat() sees.  Dentries of a CPU that went offline
 * or of a pid that died stop revalidating and look up afresh, to ENOENT;
 * so does a cgroup's for a caller that does not reach it (another cgroup
 * namespace, no right to open its directory) or once it is removed.
 *
 * Nothing can be created, removed or renamed: the VFS refuses mkdir,
 * rmdir, unlink, rename, link and symlink with EPERM because the
 * operations are absent; create is present only to say EPERM rather than
 * the VFS's EACCES, and setattr says EPERM.
 */
#include <linux/cpumask.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/xattr.h>
#include "internal.h"

#define PERFCTRFS_XATTR_PREFIX	"user.perfctr."

/* ---- lookup --------------------------------------------------------- */

/* A live process or thread, by its number in the caller's pid namespace. */
static struct pid *perfctrfs_find_pid(u32 nr)
{
	struct pid *pid;

	rcu_read_lock();
	pid = find_pid_ns(nr, task_active_pid_ns(current));
	if (pid && !pid_task(pid, PIDTYPE_PID))
		pid = NULL;
	pid = get_pid(pid);
	rcu_read_unlock();
	return pid;
}

static bool perfctrfs_cpu_ok(const struct perfctrfs_cpu *cpu)
{
	return cpu->all || (cpu->cpu < nr_cpu_ids && cpu_online(cpu->cpu));
}

/* Fill in @node's own level from @name; the levels above are already there. */
static int perfctrfs_parse_level(struct super_block *sb,
				 struct perfctrfs_node *node,
				 const char *name, size_t len)
{
	struct perfctrfs_leaf *leaf = &node->leaf;
	int ret;

	switch (node->level) {
	case PERFCTRFS_LVL_CPU:
		ret = perfctrfs_parse_cpu(name, len, &leaf->cpu);
		if (!ret && !perfctrfs_cpu_ok(&leaf->cpu))
			ret = -ENOENT;
		return ret;
	case PERFCTRFS_LVL_EVENT:
		ret = perfctrfs_parse_event(name, len,
					    perfctrfs_cat_grammar(perfctrfs_sbi(sb)->cat),
					    &leaf->spec);
		/* series: until groups */
//		if (!ret && leaf->spec.nr > 1)
//			ret = -ENOENT;	/* "a+b": a perf group, not yet */
		/* series: end */
		if (!ret)
			ret = perfctrfs_cat_check(perfctrfs_sbi(sb)->cat,
						  &leaf->cpu, &leaf->spec);
		return ret;
	case PERFCTRFS_LVL_PID:
		ret = perfctrfs_parse_pid(name, len, &leaf->pid);
		/* series: cgroup */
		if (!ret && leaf->pid.kind == PERFCTRFS_PID_CGROUP)
			return perfctrfs_cgroup_check(leaf->pid.cgroup);
		/* series: end */
		/* series: until cgroup */
//		if (!ret && leaf->pid.kind == PERFCTRFS_PID_CGROUP)
//			return -ENOENT;	/* cgroup.<id>: not yet */
		/* series: end */
		if (ret || leaf->pid.kind != PERFCTRFS_PID_NUM)
			return ret;
		leaf->target = perfctrfs_find_pid(leaf->pid.pid);
		return leaf->target ? 0 : -ENOENT;
	case PERFCTRFS_LVL_TYPE:
		/* series: until irq */
//		if (len == 3 && !memcmp(name, "irq", 3))
//			return -ENOENT;	/* overflow sampling, not yet */
		/* series: end */
		return perfctrfs_parse_type(name, len, &leaf->type);
	case PERFCTRFS_LVL_LEAF:
		return perfctrfs_parse_period(name, len, leaf->type,
					      &leaf->period);
	default:
		return -ENOENT;
	}
}

static struct dentry *perfctrfs_lookup(struct inode *dir, struct dentry *dentry,
				       unsigned int flags)
{
	struct perfctrfs_node *parent = perfctrfs_node(dir);
	struct perfctrfs_node *node;
	struct inode *inode;

	node = kmemdup(parent, sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return ERR_PTR(-ENOMEM);
	node->level = parent->level + 1;
	/* below the pid level, each node holds its own reference */
	node->leaf.target = get_pid(parent->leaf.target);
	/*
	 * A directory held open (a cwd, an fd) below a CPU that went offline
	 * is not revalidated on the way in: nothing below it exists now.
	 */
	if ((parent->level >= PERFCTRFS_LVL_CPU &&
	     !perfctrfs_cpu_ok(&parent->leaf.cpu)) ||
	    perfctrfs_parse_level(dir->i_sb, node, dentry->d_name.name,
				  dentry->d_name.len)) {
		put_pid(node->leaf.target);
		kfree(node);
		/* negative, and dropped at its last dput: see perfctrfs_d_delete */
		d_add(dentry, NULL);
		return NULL;
	}
	inode = perfctrfs_new_inode(dir->i_sb, node);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	return d_splice_alias(inode, dentry);
}

/* ---- readdir -------------------------------------------------------- */

static int perfctrfs_d_revalidate(struct dentry *dentry, unsigned int flags);

/*
 * Emit @name, instantiating it through the dcache so that its inode
 * number is the one lookup and stat give.  A name that no longer looks
 * up (the pid exited meanwhile) is left out rather than listed wrongly.
 */
static bool perfctrfs_fill(struct file *file, struct dir_context *ctx,
			   const char *name, unsigned int len)
{
	struct dentry *child, *dir = file->f_path.dentry;
	struct qstr qname = QSTR_INIT(name, len);
	struct inode *inode;
	unsigned int type;
	ino_t ino;

	child = d_hash_and_lookup(dir, &qname);
	/*
	 * A dentry of a pid that died, whose number a new task has now, is
	 * still hashed until a lookup revalidates it: list what a lookup
	 * would give, as __lookup_slow() does with a stale dentry.
	 */
	if (child && perfctrfs_d_revalidate(child, 0) <= 0) {
		d_invalidate(child);
		dput(child);
		child = NULL;
	}
	if (!child) {
		DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);

		child = d_alloc_parallel(dir, &qname, &wq);
		if (IS_ERR(child))
			return true;
		if (d_in_lookup(child)) {
			struct dentry *res;

			res = perfctrfs_lookup(d_inode(dir), child, 0);
			d_lookup_done(child);
			if (unlikely(res)) {
				dput(child);
				child = res;
				if (IS_ERR(child))
					return true;
			}
		}
	}
	inode = d_inode(child);
	if (!inode) {
		dput(child);
		return true;
	}
	ino = inode->i_ino;
	type = inode->i_mode >> 12;
	dput(child);
	return dir_emit(ctx, name, len, ino, type);
}

/* ctx->pos: 0 ".", 1 "..", then 2 + slot, slot numbers per level below */
#define PERFCTRFS_POS0	2

static int perfctrfs_readdir_cpu(struct file *file, struct dir_context *ctx)
{
	char buf[16];
	unsigned int cpu;
	loff_t slot;

	/* slot 0: "all"; slot 1 + n: CPU n */
	for (slot = ctx->pos - PERFCTRFS_POS0; slot <= nr_cpu_ids; slot++) {
		ctx->pos = slot + PERFCTRFS_POS0;
		if (slot == 0) {
			if (!perfctrfs_fill(file, ctx, "all", 3))
				return 0;
			continue;
		}
		cpu = slot - 1;
		if (!cpu_online(cpu))
			continue;
		if (!perfctrfs_fill(file, ctx, buf,
				    snprintf(buf, sizeof(buf), "%u", cpu)))
			return 0;
	}
	ctx->pos = nr_cpu_ids + 1 + PERFCTRFS_POS0;
	return 0;
}

static int perfctrfs_readdir_event(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct perfctrfs_cat *cat = perfctrfs_sbi(dir->i_sb)->cat;
	const struct perfctrfs_cpu *cpu = &perfctrfs_node(dir)->leaf.cpu;
	unsigned int nr = perfctrfs_cat_nr(cat);
	const char *name;
	loff_t slot;

	/* slot n: catalogue entry n, when this CPU can count it */
	for (slot = ctx->pos - PERFCTRFS_POS0; slot < nr; slot++) {
		ctx->pos = slot + PERFCTRFS_POS0;
		if (!perfctrfs_cat_countable(cat, cpu, slot))
			continue;
		name = perfctrfs_cat_name(cat, slot);
		if (!perfctrfs_fill(file, ctx, name, strlen(name)))
			return 0;
	}
	ctx->pos = nr + PERFCTRFS_POS0;
	return 0;
}

/* series: cgroup */
/* pid level: slots of cgroup.<id>, after the processes; the end */
#define PERFCTRFS_POS_CGROUP	(PERFCTRFS_POS0 + PID_MAX_LIMIT + 2)
#define PERFCTRFS_POS_END	LLONG_MAX

/*
 * The cgroups at and below the caller's cgroup namespace root, cgroup.<id>
 * at slot PERFCTRFS_POS_CGROUP + id, in id order; perfctrfs_fill() leaves
 * out those the caller does not reach.
 */
static int perfctrfs_readdir_cgroups(struct file *file,
				     struct dir_context *ctx)
{
	char buf[sizeof(PERFCTRFS_CGROUP_PREFIX) + 20];
	u64 *ids;
	int nr, i;

	if (ctx->pos == PERFCTRFS_POS_END)
		return 0;
	nr = perfctrfs_cgroup_list(ctx->pos - PERFCTRFS_POS_CGROUP, &ids);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr; i++) {
		/* an id past loff_t has no slot; kernfs makes none such */
		if (ids[i] >= PERFCTRFS_POS_END - PERFCTRFS_POS_CGROUP)
			break;
		ctx->pos = PERFCTRFS_POS_CGROUP + ids[i];
		if (!perfctrfs_fill(file, ctx, buf,
				    snprintf(buf, sizeof(buf),
					     PERFCTRFS_CGROUP_PREFIX "%llu",
					     ids[i])))
			break;
		cond_resched();
	}
	if (i == nr)
		ctx->pos = PERFCTRFS_POS_END;
	kvfree(ids);
	return 0;
}

/* series: end */
static int perfctrfs_readdir_pid(struct file *file, struct dir_context *ctx)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct pid *pid;
	char buf[16];
	bool leader;
	loff_t slot;
	int nr;

	/* series: cgroup */
	if (ctx->pos >= PERFCTRFS_POS_CGROUP)
		return perfctrfs_readdir_cgroups(file, ctx);
	/* slot 0: "self", 1: "all", 1 + n: process n; then the cgroups */
	/* series: end */
	/* series: until cgroup */
//	/* slot 0: "self", 1: "all", 1 + n: process n */
	/* series: end */
	slot = ctx->pos - PERFCTRFS_POS0;
	if (slot == 0) {
		if (!perfctrfs_fill(file, ctx, "self", 4))
			return 0;
		ctx->pos = ++slot + PERFCTRFS_POS0;
	}
	if (slot == 1) {
		if (!perfctrfs_fill(file, ctx, "all", 3))
			return 0;
		ctx->pos = ++slot + PERFCTRFS_POS0;
	}
	/* thread-group leaders in pid order, as next_tgid() walks them */
	for (nr = slot - 1; nr > 0 && nr <= PID_MAX_LIMIT; nr++) {
		rcu_read_lock();
		pid = find_ge_pid(nr, ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr_ns(pid, ns);
		leader = pid_task(pid, PIDTYPE_TGID);
		rcu_read_unlock();
		ctx->pos = nr + 1 + PERFCTRFS_POS0;
		if (leader && !perfctrfs_fill(file, ctx, buf,
					      snprintf(buf, sizeof(buf), "%d", nr)))
			return 0;
		cond_resched();
	}
	/* series: cgroup */
	ctx->pos = PERFCTRFS_POS_CGROUP;
	return perfctrfs_readdir_cgroups(file, ctx);
	/* series: end */
	/* series: until cgroup */
//	ctx->pos = PID_MAX_LIMIT + 2 + PERFCTRFS_POS0;
//	return 0;
	/* series: end */
}

static int perfctrfs_readdir_type(struct file *file, struct dir_context *ctx)
{
	const char *name;
	loff_t slot;

	for (slot = ctx->pos - PERFCTRFS_POS0;
	     slot < ARRAY_SIZE(perfctrfs_type_names); slot++) {
		ctx->pos = slot + PERFCTRFS_POS0;
		name = perfctrfs_type_names[slot];
		if (!perfctrfs_fill(file, ctx, name, strlen(name)))
			return 0;
	}
	ctx->pos = ARRAY_SIZE(perfctrfs_type_names) + PERFCTRFS_POS0;
	return 0;
}

static int perfctrfs_readdir_period(struct file *file, struct dir_context *ctx)
{
	enum perfctrfs_type type = perfctrfs_leaf(file_inode(file))->type;

	/*
	 * Periods are unbounded; "0" is the one every reader can start with.
	 * It does not exist under irq (no sampling every 0 events), where
	 * nothing is listed and any period looks up.
	 */
	if (ctx->pos == PERFCTRFS_POS0 && type != PERFCTRFS_IRQ) {
		if (!perfctrfs_fill(file, ctx, "0", 1))
			return 0;
	}
	if (ctx->pos == PERFCTRFS_POS0)
		ctx->pos++;
	return 0;
}

static int perfctrfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct perfctrfs_node *node = perfctrfs_node(file_inode(file));

	if (!dir_emit_dots(file, ctx))
		return 0;
	/* Held open below a CPU that went offline: empty, as lookup says. */
	if (node->level >= PERFCTRFS_LVL_CPU &&
	    !perfctrfs_cpu_ok(&node->leaf.cpu))
		return 0;
	switch (node->level) {
	case PERFCTRFS_LVL_ROOT:
		return perfctrfs_readdir_cpu(file, ctx);
	case PERFCTRFS_LVL_CPU:
		return perfctrfs_readdir_event(file, ctx);
	case PERFCTRFS_LVL_EVENT:
		return perfctrfs_readdir_pid(file, ctx);
	case PERFCTRFS_LVL_PID:
		return perfctrfs_readdir_type(file, ctx);
	case PERFCTRFS_LVL_TYPE:
		return perfctrfs_readdir_period(file, ctx);
	default:
		return -ENOTDIR;
	}
}

/* ---- revalidation --------------------------------------------------- */

/*
 * Called in RCU-walk mode too: inodes and nodes are freed after a grace
 * period (perfctrfs_leaf_free()), and pid_task() is RCU-safe.
 */
static int perfctrfs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(dentry);
	struct perfctrfs_node *node;
	struct pid *target;
	bool alive;

	if (!inode)
		return 0;	/* negative: look up again, the pid may exist now */
	node = READ_ONCE(inode->i_private);
	if (!node)
		return 0;
	if (node->level >= PERFCTRFS_LVL_CPU &&
	    !perfctrfs_cpu_ok(&node->leaf.cpu))
		return 0;
	/* series: cgroup */
	/*
	 * Who reaches a cgroup depends on who asks: ask again for each
	 * caller, which may sleep.  Levels below are reached through this
	 * one, or through a directory held open, whose opens ask anyway.
	 */
	if (node->level == PERFCTRFS_LVL_PID &&
	    node->leaf.pid.kind == PERFCTRFS_PID_CGROUP) {
		if (flags & LOOKUP_RCU)
			return -ECHILD;
		if (perfctrfs_cgroup_check(node->leaf.pid.cgroup))
			return 0;
	}
	/* series: end */
	target = node->leaf.target;
	if (node->level >= PERFCTRFS_LVL_PID && target) {
		/*
		 * Dead, or a number that means another task in the caller's
		 * pid namespace than in the one that looked it up.
		 */
		rcu_read_lock();
		alive = pid_task(target, PIDTYPE_PID) &&
			pid_nr_ns(target, task_active_pid_ns(current)) ==
			node->leaf.pid.pid;
		rcu_read_unlock();
		if (!alive)
			return 0;
	}
	return 1;
}

/* Negative dentries are not kept: a pid or CPU may exist by the next look. */
static int perfctrfs_d_delete(const struct dentry *dentry)
{
	return d_really_is_negative(dentry);
}

const struct dentry_operations perfctrfs_dops = {
	.d_revalidate	= perfctrfs_d_revalidate,
	.d_delete	= perfctrfs_d_delete,
};

/* ---- attributes ----------------------------------------------------- */

static int perfctrfs_setattr(struct perfctrfs_idmap *idmap,
			     struct dentry *dentry, struct iattr *attr)
{
	return -EPERM;
}

static int perfctrfs_create(struct perfctrfs_idmap *idmap,
			    struct inode *dir, struct dentry *dentry,
			    umode_t mode, bool excl)
{
	return -EPERM;
}

/* The value of "user.perfctr.<name>" on @dentry, written into @buf. */
static int perfctrfs_xattr_value(struct dentry *dentry, struct inode *inode,
				 const char *name, char *buf, size_t size)
{
	struct perfctrfs_node *node = perfctrfs_node(inode);
	const char *desc;

	switch (node->level) {
	case PERFCTRFS_LVL_ROOT:
		/* series: counters */
		if (!strcmp(name, "counters"))
			return scnprintf(buf, size, "%lu",
					 perfctrfs_nr_counters());
		/* series: end */
		return -ENODATA;
	case PERFCTRFS_LVL_EVENT:
		if (!strcmp(name, "encoding"))
			return perfctrfs_format_encoding(&node->leaf.spec,
							 buf, size);
		if (!strcmp(name, "scale") || !strcmp(name, "unit"))
			return perfctrfs_cat_prop(dentry->d_name.name,
						  dentry->d_name.len, name,
						  buf, size);
		if (strcmp(name, "description"))
			return -ENODATA;
		desc = perfctrfs_cat_desc(perfctrfs_sbi(inode->i_sb)->cat,
					  dentry->d_name.name,
					  dentry->d_name.len);
		if (!desc)
			return -ENODATA;
		return strscpy(buf, desc, size) < 0 ? -ENAMETOOLONG : strlen(buf);
	/* series: cgroup */
	case PERFCTRFS_LVL_PID:
		/* the path from the caller's own cgroup namespace root */
		if (strcmp(name, "cgroup") ||
		    node->leaf.pid.kind != PERFCTRFS_PID_CGROUP)
			return -ENODATA;
		return perfctrfs_cgroup_path(node->leaf.pid.cgroup, buf, size);
	/* series: end */
	default:
		return -ENODATA;
	}
}

static int perfctrfs_xattr_get(const struct xattr_handler *handler,
			       struct dentry *dentry, struct inode *inode,
			       const char *name, void *value, size_t size)
{
	char *buf;
	int len;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	len = perfctrfs_xattr_value(dentry, inode, name, buf, PAGE_SIZE);
	if (len == -ENAMETOOLONG)
		len = -E2BIG;
	if (len >= 0 && size) {
		if (len > size)
			len = -ERANGE;
		else
			memcpy(value, buf, len);
	}
	kfree(buf);
	return len;
}

static int perfctrfs_xattr_set(const struct xattr_handler *handler,
			       struct perfctrfs_idmap *idmap,
			       struct dentry *dentry, struct inode *inode,
			       const char *name, const void *value,
			       size_t size, int flags)
{
	return -EPERM;	/* they say what the kernel counts: read-only */
}

static const struct xattr_handler perfctrfs_xattr_handler = {
	.prefix	= PERFCTRFS_XATTR_PREFIX,
	.get	= perfctrfs_xattr_get,
	.set	= perfctrfs_xattr_set,
};

const struct xattr_handler *perfctrfs_xattr_handlers[] = {
	&perfctrfs_xattr_handler,
	NULL
};

static ssize_t perfctrfs_listxattr(struct dentry *dentry, char *list,
				   size_t size)
{
	static const char *const names[] = {
		"counters", "encoding", "description", "scale", "unit",
		/* series: cgroup */
		"cgroup",
		/* series: end */
	};
	struct inode *inode = d_inode(dentry);
	size_t total = 0, n;
	unsigned int i;
	char one;
	int err;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		/* listed exactly when it can be read */
		err = perfctrfs_xattr_value(dentry, inode, names[i], &one, 1);
		if (err == -ENOMEM)
			return err;
		if (err == -ENODATA || err == -ENOENT)
			continue;
		n = strlen(PERFCTRFS_XATTR_PREFIX) + strlen(names[i]) + 1;
		if (size) {
			if (total + n > size)
				return -ERANGE;
			snprintf(list + total, n, "%s%s",
				 PERFCTRFS_XATTR_PREFIX, names[i]);
		}
		total += n;
	}
	return total;
}

/* ---- operations, one set per level ---------------------------------- */

#define PERFCTRFS_DIR_IOPS {				\
	.lookup		= perfctrfs_lookup,		\
	.create		= perfctrfs_create,		\
	.setattr	= perfctrfs_setattr,		\
	.listxattr	= perfctrfs_listxattr,		\
}

/*
 * One entry per directory level, indexed by the level of the directory;
 * what differs between levels is decided by the node's level, so all
 * entries are alike, and exist so that a level can grow its own ops.
 */
const struct inode_operations perfctrfs_dir_iops[PERFCTRFS_LVL_LEAF] = {
	[PERFCTRFS_LVL_ROOT]	= PERFCTRFS_DIR_IOPS,
	[PERFCTRFS_LVL_CPU]	= PERFCTRFS_DIR_IOPS,
	[PERFCTRFS_LVL_EVENT]	= PERFCTRFS_DIR_IOPS,
	[PERFCTRFS_LVL_PID]	= PERFCTRFS_DIR_IOPS,
	[PERFCTRFS_LVL_TYPE]	= PERFCTRFS_DIR_IOPS,
};

#define PERFCTRFS_DIR_FOPS {				\
	.read		= generic_read_dir,		\
	.iterate_shared	= perfctrfs_readdir,		\
	.llseek		= generic_file_llseek,		\
}

const struct file_operations perfctrfs_dir_fops[PERFCTRFS_LVL_LEAF] = {
	[PERFCTRFS_LVL_ROOT]	= PERFCTRFS_DIR_FOPS,
	[PERFCTRFS_LVL_CPU]	= PERFCTRFS_DIR_FOPS,
	[PERFCTRFS_LVL_EVENT]	= PERFCTRFS_DIR_FOPS,
	[PERFCTRFS_LVL_PID]	= PERFCTRFS_DIR_FOPS,
	[PERFCTRFS_LVL_TYPE]	= PERFCTRFS_DIR_FOPS,
};

const struct inode_operations perfctrfs_leaf_iops = {
	.setattr	= perfctrfs_setattr,
	.listxattr	= perfctrfs_listxattr,
};
