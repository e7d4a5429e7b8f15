// SPDX-License-Identifier: GPL-2.0
/*
 * perfctrfs_kunit.c - the namespace of a live perfctrfs mount, from inside
 * the kernel: every level looks up to what it names, bad names are
 * ENOENT, readdir agrees with lookup, event directories carry their
 * encoding, cgroup targets resolve.  The bats suite checks the same from
 * user space; these run at boot, before any user space exists, on an
 * internal mount.
 *
 * Only software events are used: every perf kernel has them, with or
 * without a hardware PMU.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/xattr.h>
#include "internal.h"

struct perfctrfs_kunit_ctx {
	struct vfsmount *mnt;
};

static int perfctrfs_kunit_init(struct kunit *test)
{
	struct perfctrfs_kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ctx->mnt = kern_mount(&perfctrfs_fs_type);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->mnt);
	test->priv = ctx;
	return 0;
}

static void perfctrfs_kunit_exit(struct kunit *test)
{
	struct perfctrfs_kunit_ctx *ctx = test->priv;

	kern_unmount(ctx->mnt);
}

/* Walk "a/b/c" from the mount's root, one component at a time. */
static struct dentry *perfctrfs_kunit_walk(struct kunit *test, const char *path)
{
	struct perfctrfs_kunit_ctx *ctx = test->priv;
	struct dentry *d = dget(ctx->mnt->mnt_root), *next;
	const char *p = path, *slash;
	size_t len;

	while (*p) {
		slash = strchrnul(p, '/');
		len = slash - p;
		next = lookup_positive_unlocked(p, d, len);
		dput(d);
		if (IS_ERR(next))
			return next;
		d = next;
		p = *slash ? slash + 1 : slash;
	}
	return d;
}

static void perfctrfs_kunit_levels(struct kunit *test)
{
	struct perfctrfs_leaf *leaf;
	struct dentry *d;
	struct pid *pid1;

	d = perfctrfs_kunit_walk(test, "all/task_clock/self/times/100ms");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	KUNIT_EXPECT_TRUE(test, d_is_reg(d));
	leaf = perfctrfs_leaf(d_inode(d));
	KUNIT_EXPECT_TRUE(test, leaf->cpu.all);
	KUNIT_EXPECT_EQ(test, leaf->spec.nr, 1U);
	KUNIT_EXPECT_EQ(test, leaf->spec.ev[0].type, (u32)PERFCTRFS_TYPE_SOFTWARE);
	KUNIT_EXPECT_EQ(test, leaf->spec.ev[0].config, 1ULL);
	KUNIT_EXPECT_EQ(test, leaf->pid.kind, PERFCTRFS_PID_SELF);
	KUNIT_EXPECT_EQ(test, leaf->type, PERFCTRFS_TIMES);
	KUNIT_EXPECT_TRUE(test, leaf->period.is_time);
	KUNIT_EXPECT_EQ(test, leaf->period.value, 100000000ULL);
	dput(d);

	/* pid 1 exists by the time KUnit runs: it is running us */
	d = perfctrfs_kunit_walk(test, "0/page_faults/1/simple/0");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	leaf = perfctrfs_leaf(d_inode(d));
	KUNIT_EXPECT_FALSE(test, leaf->cpu.all);
	KUNIT_EXPECT_EQ(test, leaf->cpu.cpu, 0U);
	KUNIT_EXPECT_EQ(test, leaf->pid.kind, PERFCTRFS_PID_NUM);
	KUNIT_EXPECT_EQ(test, leaf->pid.pid, 1U);
	rcu_read_lock();
	pid1 = find_vpid(1);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, leaf->target, pid1);
	KUNIT_EXPECT_EQ(test, leaf->period.value, 0ULL);
	dput(d);
}

static const char *const perfctrfs_kunit_bad[] = {
	"01",					/* not canonical */
	"-1",
	"4294967296",				/* overflows */
	"all/no_such_event",
	"all/task_clock/0",			/* no pid 0 */
	"all/task_clock/01",
	"all/task_clock/2147483647",		/* beyond any pid */
	"all/task_clock/self/Simple",
	"all/task_clock/self/irq/0",		/* no sampling every 0 events */
	"all/task_clock/self/simple/01",
	"all/task_clock/self/simple/1ks",
	"all/task_clock+no_such_event",
	"all/task_clock/cgroup.0",		/* no cgroup 0 */
	"all/task_clock/cgroup.01",
	"all/task_clock/cgroup.",
	"all/task_clock/cgroup.18446744073709551616",
	"0/task_clock/cgroup.18446744073709551615",	/* no such cgroup */
};

static void perfctrfs_kunit_enoent(struct kunit *test)
{
	struct dentry *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(perfctrfs_kunit_bad); i++) {
		d = perfctrfs_kunit_walk(test, perfctrfs_kunit_bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(d), -ENOENT, "%s",
				    perfctrfs_kunit_bad[i]);
		if (!IS_ERR(d))
			dput(d);
	}
}

static void perfctrfs_kunit_offline_cpu(struct kunit *test)
{
	char name[16];
	struct dentry *d;

	if (nr_cpu_ids >= 100000)
		kunit_skip(test, "no CPU number is impossible here");
	snprintf(name, sizeof(name), "%u", nr_cpu_ids);
	d = perfctrfs_kunit_walk(test, name);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(d), -ENOENT);
	if (!IS_ERR(d))
		dput(d);
}

struct perfctrfs_kunit_names {
	struct dir_context dctx;
	unsigned int nr;
	char name[64][NAME_MAX + 1];
	u64 ino[64];
};

static bool perfctrfs_kunit_actor(struct dir_context *dctx, const char *name,
				  int len, loff_t pos, u64 ino,
				  unsigned int type)
{
	struct perfctrfs_kunit_names *n =
		container_of(dctx, struct perfctrfs_kunit_names, dctx);

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (n->nr == ARRAY_SIZE(n->name))
		return false;
	memcpy(n->name[n->nr], name, len);
	n->name[n->nr][len] = '\0';
	n->ino[n->nr] = ino;
	n->nr++;
	return true;
}

/* Every name readdir gives looks up, to the inode number readdir gave. */
static void perfctrfs_kunit_check_dir(struct kunit *test, const char *dir,
				      const char *must)
{
	struct perfctrfs_kunit_ctx *ctx = test->priv;
	struct perfctrfs_kunit_names *n;
	char *path = kunit_kzalloc(test, PATH_MAX, GFP_KERNEL);
	struct path p;
	struct file *f;
	struct dentry *d;
	bool found = false;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, path);
	n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	n->dctx.actor = perfctrfs_kunit_actor;

	d = perfctrfs_kunit_walk(test, dir);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	p.mnt = ctx->mnt;
	p.dentry = d;
	f = dentry_open(&p, O_RDONLY | O_DIRECTORY, current_cred());
	dput(d);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_EXPECT_EQ(test, iterate_dir(f, &n->dctx), 0);
	fput(f);
	KUNIT_EXPECT_GT_MSG(test, n->nr, 0U, "%s lists nothing", dir);

	for (i = 0; i < n->nr; i++) {
		snprintf(path, PATH_MAX, "%s%s%s", dir, *dir ? "/" : "",
			 n->name[i]);
		d = perfctrfs_kunit_walk(test, path);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(d), "%s does not look up",
				       path);
		if (IS_ERR(d))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, (u64)d_inode(d)->i_ino, n->ino[i],
				    "%s", path);
		dput(d);
		if (!strcmp(n->name[i], must))
			found = true;
	}
	KUNIT_EXPECT_TRUE_MSG(test, found, "%s does not list %s", dir, must);
}

static void perfctrfs_kunit_readdir(struct kunit *test)
{
	perfctrfs_kunit_check_dir(test, "", "all");
	perfctrfs_kunit_check_dir(test, "all", "task_clock");
	perfctrfs_kunit_check_dir(test, "0", "page_faults");
	perfctrfs_kunit_check_dir(test, "all/task_clock", "1");
	perfctrfs_kunit_check_dir(test, "all/task_clock/self", "irq");
	perfctrfs_kunit_check_dir(test, "all/task_clock/self/simple", "0");
}

static void perfctrfs_kunit_xattr(struct kunit *test)
{
	char buf[64] = { };
	struct dentry *d;
	ssize_t len;

	d = perfctrfs_kunit_walk(test, "all/page_faults:u");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	len = vfs_getxattr(PERFCTRFS_NOP_IDMAP, d, "user.perfctr.encoding", buf,
			   sizeof(buf) - 1);
	KUNIT_EXPECT_GT(test, len, 0L);
	KUNIT_EXPECT_STREQ(test, buf,
			   "type=1,config=0x2,exclude_kernel=1,exclude_hv=1");
	KUNIT_EXPECT_EQ(test, vfs_setxattr(PERFCTRFS_NOP_IDMAP, d,
					   "user.perfctr.encoding", "x", 1, 0),
			-EPERM);
	dput(d);
}

/*
 * perf numbers every event it allocates from one global counter
 * (event->id): the id of a fresh event tells how many were made since the
 * last one.  Nothing else makes perf events while KUnit runs at boot.
 */
static u64 perfctrfs_kunit_next_id(struct kunit *test)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	struct perf_event *ev;
	u64 id;

	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ev));
	id = ev->id;
	perf_event_release_kernel(ev);
	return id;
}

/*
 * Names a user composes, several aimed at PMUs whose event_init acts: a
 * kprobe at a kernel address, a uprobe on a path read from the looker's
 * memory, ftrace's function tracepoint, a hardware breakpoint.
 */
static const char *const perfctrfs_kunit_composed[] = {
	"all/kprobe.config2=0xffffffff81000000",
	"0/kprobe.retprobe=1,config2=0x1",
	"all/uprobe.config1=0x1000,config2=0x10",
	"0/uprobe.config1=0x1000",
	"all/tracepoint.config=1",
	"0/tracepoint.config=0x2",
	"all/breakpoint.config=0x1",
	"all/software.config=0x3",
	"0/software.config=0x5",
	"all/0x4064",
	"0/0x4064:u",
	"all/task_clock:u+page_faults:k+software.config=0x2",
};

static void perfctrfs_kunit_lookup_creates_nothing(struct kunit *test)
{
	unsigned int i, found = 0;
	struct dentry *d;
	u64 before, after;

	/* the mount's catalogue probes are done: kern_mount() waited */
	before = perfctrfs_kunit_next_id(test);
	for (i = 0; i < ARRAY_SIZE(perfctrfs_kunit_composed); i++) {
		d = perfctrfs_kunit_walk(test, perfctrfs_kunit_composed[i]);
		if (IS_ERR(d)) {
			/* a PMU this kernel lacks: the name does not parse */
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(d), -ENOENT, "%s",
					    perfctrfs_kunit_composed[i]);
			continue;
		}
		found++;
		dput(d);
	}
	after = perfctrfs_kunit_next_id(test);
	KUNIT_EXPECT_EQ_MSG(test, after - before, 1ULL,
			    "%llu perf events made by %u lookups",
			    after - before - 1,
			    (unsigned int)ARRAY_SIZE(perfctrfs_kunit_composed));
	/* at least the software PMU's names resolve: the lookups ran */
	KUNIT_EXPECT_GE(test, found, 3U);
}

#ifdef CONFIG_CGROUPS
/* Find one name in a directory's listing, however long it is. */
struct perfctrfs_kunit_find {
	struct dir_context dctx;
	const char *want;
	u64 ino;
	bool found;
};

static bool perfctrfs_kunit_find_actor(struct dir_context *dctx,
				       const char *name, int len, loff_t pos,
				       u64 ino, unsigned int type)
{
	struct perfctrfs_kunit_find *f =
		container_of(dctx, struct perfctrfs_kunit_find, dctx);

	if (len == strlen(f->want) && !memcmp(name, f->want, len)) {
		f->found = true;
		f->ino = ino;
	}
	return true;
}

/* @path looks up to ENOENT; a dentry it gave anyway is put back. */
static void perfctrfs_kunit_expect_enoent(struct kunit *test,
					  const char *path)
{
	struct dentry *d = perfctrfs_kunit_walk(test, path);

	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(d), -ENOENT, "%s", path);
	if (!IS_ERR(d))
		dput(d);
}

/* One read of an open leaf into @buf, as read(2) through ->read_iter. */
static ssize_t perfctrfs_kunit_read(struct file *f, char *buf, size_t size)
{
	struct kvec kv = { .iov_base = buf, .iov_len = size };
	struct iov_iter iter;
	struct kiocb kiocb;

	init_sync_kiocb(&kiocb, f);
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, size);
	return f->f_op->read_iter(&kiocb, &iter);
}

/*
 * cgroup.<id> on the cgroup2 root.  Nothing has mounted cgroup2 at boot,
 * and a cgroup that no mount shows is one nobody could open: the test
 * makes an internal mount (the hierarchy's options are still unset at
 * boot; a mount without options leaves them so).  KUnit runs as root in
 * the initial cgroup namespace, so the root looks up, is listed at the
 * inode number lookup gives, has the path "/" and a leaf below it; an
 * inode of cgroupfs that is not a directory is ENOENT; a lookup makes no
 * perf event.  Opening a leaf counts on the cgroup, or, without
 * CONFIG_CGROUP_PERF, gets the EINVAL that perf_event_open(2) gives for
 * PERF_FLAG_PID_CGROUP there.
 */
static void perfctrfs_kunit_cgroup(struct kunit *test)
{
	struct perfctrfs_kunit_ctx *ctx = test->priv;
	struct perfctrfs_kunit_find *find;
	struct file_system_type *type;
	u64 root_id, procs_id, count;
	char path[96], buf[32] = { };
	struct dentry *d, *procs;
	struct vfsmount *cg;
	struct path p;
	struct file *f;
	u64 before;
	ssize_t len;

	find = kunit_kzalloc(test, sizeof(*find), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, find);
	type = get_fs_type("cgroup2");
	KUNIT_ASSERT_NOT_NULL(test, type);
	cg = kern_mount(type);
	put_filesystem(type);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cg);
	root_id = d_inode(cg->mnt_root)->i_ino;
	procs = lookup_positive_unlocked("cgroup.procs", cg->mnt_root,
					 strlen("cgroup.procs"));
	procs_id = IS_ERR(procs) ? 0 : d_inode(procs)->i_ino;
	if (!IS_ERR(procs))
		dput(procs);
	KUNIT_EXPECT_NE(test, procs_id, 0ULL);

	before = perfctrfs_kunit_next_id(test);
	snprintf(path, sizeof(path), "all/cpu_clock/cgroup.%llu", root_id);
	d = perfctrfs_kunit_walk(test, path);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(d), "%s", path);
	if (!IS_ERR(d)) {
		KUNIT_EXPECT_TRUE(test, d_is_dir(d));
		KUNIT_EXPECT_EQ(test, perfctrfs_leaf(d_inode(d))->pid.kind,
				PERFCTRFS_PID_CGROUP);
		KUNIT_EXPECT_EQ(test, perfctrfs_leaf(d_inode(d))->pid.cgroup,
				root_id);
		len = vfs_getxattr(PERFCTRFS_NOP_IDMAP, d,
				   "user.perfctr.cgroup", buf, sizeof(buf) - 1);
		KUNIT_EXPECT_EQ(test, len, 1L);
		KUNIT_EXPECT_STREQ(test, buf, "/");
		dput(d);
	}
	if (procs_id) {
		snprintf(path, sizeof(path), "all/cpu_clock/cgroup.%llu",
			 procs_id);
		perfctrfs_kunit_expect_enoent(test, path);
	}
	snprintf(path, sizeof(path), "0/cpu_clock/cgroup.%llu/simple/0",
		 root_id);
	d = perfctrfs_kunit_walk(test, path);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(d), "%s", path);
	KUNIT_EXPECT_EQ(test, perfctrfs_kunit_next_id(test) - before, 1ULL);

	/* readdir lists it, at the inode number lookup gave */
	snprintf(buf, sizeof(buf), "cgroup.%llu", root_id);
	find->dctx.actor = perfctrfs_kunit_find_actor;
	find->want = buf;
	p.mnt = ctx->mnt;
	p.dentry = perfctrfs_kunit_walk(test, "all/cpu_clock");
	f = IS_ERR(p.dentry) ? ERR_CAST(p.dentry) :
			       dentry_open(&p, O_RDONLY | O_DIRECTORY,
					   current_cred());
	if (!IS_ERR(p.dentry))
		dput(p.dentry);
	KUNIT_EXPECT_FALSE(test, IS_ERR(f));
	if (!IS_ERR(f)) {
		KUNIT_EXPECT_EQ(test, iterate_dir(f, &find->dctx), 0);
		fput(f);
	}
	KUNIT_EXPECT_TRUE_MSG(test, find->found, "%s not listed", buf);
	snprintf(path, sizeof(path), "all/cpu_clock/%s", buf);
	p.dentry = perfctrfs_kunit_walk(test, path);
	if (find->found && !IS_ERR(p.dentry))
		KUNIT_EXPECT_EQ(test, (u64)d_inode(p.dentry)->i_ino, find->ino);
	if (!IS_ERR(p.dentry))
		dput(p.dentry);

	/* the leaf: a count on CPU 0, or perf's EINVAL without cgroup perf */
	if (!IS_ERR(d)) {
		p.dentry = d;
		f = dentry_open(&p, O_RDONLY, current_cred());
		dput(d);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f),
				IS_ENABLED(CONFIG_CGROUP_PERF) ? 0 : -EINVAL);
		if (!IS_ERR(f)) {
			memset(buf, 0, sizeof(buf));
			len = perfctrfs_kunit_read(f, buf, sizeof(buf) - 1);
			fput(f);
			KUNIT_EXPECT_GT(test, len, 1L);
			KUNIT_EXPECT_EQ_MSG(test, kstrtou64(buf, 10, &count), 0,
					    "read '%s'", buf);
		}
	}
	kern_unmount(cg);
}
#endif

static struct kunit_case perfctrfs_kunit_cases[] = {
	KUNIT_CASE(perfctrfs_kunit_levels),
	KUNIT_CASE(perfctrfs_kunit_enoent),
	KUNIT_CASE(perfctrfs_kunit_offline_cpu),
	KUNIT_CASE(perfctrfs_kunit_readdir),
	KUNIT_CASE(perfctrfs_kunit_xattr),
	KUNIT_CASE(perfctrfs_kunit_lookup_creates_nothing),
#ifdef CONFIG_CGROUPS
	KUNIT_CASE(perfctrfs_kunit_cgroup),
#endif
	{}
};

static struct kunit_suite perfctrfs_kunit_suite = {
	.name = "perfctrfs_namespace",
	.init = perfctrfs_kunit_init,
	.exit = perfctrfs_kunit_exit,
	.test_cases = perfctrfs_kunit_cases,
};

kunit_test_suite(perfctrfs_kunit_suite);
