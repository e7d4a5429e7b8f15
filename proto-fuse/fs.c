// SPDX-License-Identifier: GPL-2.0
/*
 * The node table and the fuse_lowlevel_ops.
 *
 * Names are resolved on demand, one (parent, name) at a time, exactly as
 * a kernel ->lookup resolves them; a node exists while the kernel holds a
 * lookup reference on it, or a child or an open file needs it.  Its inode
 * number is a hash of (parent inode, name), so readdir can tell the number
 * a name will have before anyone looks it up: readdir, lookup and stat
 * agree.  Two names that hash alike take the next free number.
 *
 * The hash is keyed (SipHash-2-4, a key drawn at start), so the numbers
 * hold for the daemon's life only, and nobody who does not know the key
 * can choose names whose nodes share a chain of the table: every lookup,
 * getattr, open and forget of every user walks one under node_lock.  The
 * table doubles when it holds more nodes than it has buckets.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "pmuprop.h"
#include "siphash.h"

#define HASH_MIN	4096	/* buckets at start; a power of two */
#define XATTR_PREFIX	"user.perfctr."

/*
 * How long the kernel may trust an answer, in seconds.  Names whose
 * meaning cannot change get TTL_STABLE: an event under a CPU (the probe
 * answer is cached per CPU for the daemon's life), the type and period
 * levels, and "self" and "all" at the pid level.
 *
 * "self" is safe to cache although it means a different process to each
 * caller: its node holds no pid.  Every caller looks up the same name to
 * the same inode with the same attributes, and the process it names is
 * found only at open, from the opening request's own pid (pf_open()).
 * So one process's dentry handed to another by the dcache still opens
 * the other's counter, unlike /proc/self, a symlink whose target is the
 * resolution and which procfs therefore makes afresh for every walk.
 *
 * CPUs go offline and pids exit: their lookups must be asked again, so
 * that a vanished one is ENOENT at once (pids) or within a second (CPUs);
 * a dentry that fails revalidation takes its subtree with it.
 */
#define TTL_CPU		1.0
#define TTL_STABLE	3600.0
#define TTL_PID		0.0	/* numbered pids */
#define LEAF_SIZE	4096

static struct pf_node root = {
	.ino = FUSE_ROOT_ID,
	.level = PF_ROOT,
	.name = "",
	.nlookup = 1,
};

/* nodes by inode number, other than root; all under node_lock */
static struct pf_node **htab;
static size_t hsize, hcount;		/* buckets, a power of two; nodes */
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec mount_time;
static uint8_t hash_key[16];

static uint64_t name_hash(uint64_t parent, const char *name)
{
	uint8_t p[8];
	struct pf_sip s;
	int i;

	for (i = 0; i < 8; i++)
		p[i] = parent >> (8 * i);
	pf_sip_init(&s, hash_key);
	pf_sip_update(&s, p, sizeof(p));
	pf_sip_update(&s, name, strlen(name));
	return pf_sip_final(&s);
}

/*
 * The chain of @ino.  An inode number is a keyed hash, or one past a
 * number in use: its low bits are as good a bucket as any.
 */
static struct pf_node **bucket(uint64_t ino)
{
	return &htab[ino & (hsize - 1)];
}

static struct pf_node *node_by_ino(uint64_t ino)
{
	struct pf_node *n;

	if (ino == FUSE_ROOT_ID)
		return &root;
	for (n = *bucket(ino); n; n = n->hnext)
		if (n->ino == ino)
			return n;
	return NULL;
}

/*
 * Twice the buckets once there are more nodes than buckets, so chains stay
 * short on average however many names the kernel holds.  Without memory
 * for it, the table stays as it is: only slower.
 */
static void table_grow(void)
{
	struct pf_node **old = htab, *n;
	size_t i, osize = hsize;

	if (hcount <= hsize)
		return;
	htab = calloc(osize * 2, sizeof(*htab));
	if (!htab) {
		htab = old;
		return;
	}
	hsize = osize * 2;
	for (i = 0; i < osize; i++) {
		while ((n = old[i])) {
			old[i] = n->hnext;
			n->hnext = *bucket(n->ino);
			*bucket(n->ino) = n;
		}
	}
	free(old);
}

/* The inode number (parent, name) has, or will have. */
static uint64_t child_ino(struct pf_node *parent, const char *name,
			  struct pf_node **found)
{
	uint64_t ino = name_hash(parent->ino, name);

	*found = NULL;
	for (;; ino++) {
		struct pf_node *n;

		if (ino <= FUSE_ROOT_ID)
			continue;
		n = node_by_ino(ino);
		if (!n)
			return ino;
		if (n->parent == parent && !strcmp(n->name, name)) {
			*found = n;
			return ino;
		}
	}
}

static void node_put(struct pf_node *n)
{
	while (n != &root && !n->nlookup && !n->refs) {
		struct pf_node *parent = n->parent, **pp;

		for (pp = bucket(n->ino); *pp != n; pp = &(*pp)->hnext)
			;
		*pp = n->hnext;
		hcount--;
		free(n->name);
		free(n);
		parent->refs--;
		n = parent;
	}
}

/* Find or make the child; takes one lookup reference.  Under node_lock. */
static struct pf_node *node_child(struct pf_node *parent, const char *name,
				  const struct pf_node *tmpl)
{
	struct pf_node *n;
	uint64_t ino = child_ino(parent, name, &n);

	if (!n) {
		n = malloc(sizeof(*n));
		if (!n)
			return NULL;
		*n = *tmpl;
		n->name = strdup(name);
		if (!n->name) {
			free(n);
			return NULL;
		}
		n->ino = ino;
		n->parent = parent;
		n->nlookup = 0;
		n->refs = 0;
		n->hnext = *bucket(ino);
		*bucket(ino) = n;
		hcount++;
		parent->refs++;
		table_grow();
	}
	n->nlookup++;
	return n;
}

static struct pf_node *ancestor(struct pf_node *n, enum pf_level level)
{
	while (n && n->level != level)
		n = n->parent;
	return n;
}

enum pf_want {
	WANT_ANY,
	WANT_DIR,	/* else ENOTDIR */
	WANT_LEAF,	/* else EISDIR */
};

/*
 * The node of @ino for a request about it, or NULL once the request has
 * been answered ENOENT (an inode we do not know) or ENOTDIR/EISDIR (not
 * the kind @want asks for).  The kernel holds a lookup reference on every
 * inode it sends a request about, so the node stays while the request
 * runs, and its level and level data never change.
 */
static struct pf_node *req_node(fuse_req_t req, fuse_ino_t ino,
				enum pf_want want)
{
	struct pf_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return NULL;
	}
	if (want == WANT_DIR && n->level == PF_PERIOD) {
		fuse_reply_err(req, ENOTDIR);
		return NULL;
	}
	if (want == WANT_LEAF && n->level != PF_PERIOD) {
		fuse_reply_err(req, EISDIR);
		return NULL;
	}
	return n;
}

static double entry_ttl(const struct pf_node *n)
{
	switch (n->level) {
	case PF_CPU:
		return TTL_CPU;
	case PF_PID:
		/* pids and cgroups vanish; a cgroup's reach is the caller's */
		return n->u.pid.kind == PERFCTRFS_PID_NUM ||
		       n->u.pid.kind == PERFCTRFS_PID_CGROUP ? TTL_PID :
							       TTL_STABLE;
	default:
		return TTL_STABLE;
	}
}

static double attr_ttl(const struct pf_node *n)
{
	/*
	 * A period-0 leaf says i_size 4096 (fill_stat()), and a short
	 * splice read trims i_size to its line.  With attributes that expire
	 * at once, the permission check of the next open (the mount has
	 * default_permissions) asks GETATTR, which says a page again; else
	 * the next sendfile would stop at the last line's length.
	 */
	if (n->level == PF_PERIOD && !n->u.period.value)
		return 0.0;
	return entry_ttl(n);
}

static void fill_stat(const struct pf_node *n, uint64_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = pf_opts.uid;
	st->st_gid = pf_opts.gid;
	if (n->level == PF_PERIOD) {
		st->st_mode = S_IFREG | pf_opts.leaf_mode;
		st->st_nlink = 1;
		/*
		 * The kernel's FUSE serves splice and sendfile (busybox cat)
		 * of a direct_io file from the page cache up to i_size, so a
		 * period-0 leaf says one page, as sysfs files do; a short
		 * read then trims i_size to the line, until the next GETATTR
		 * (attr_ttl() is 0) says a page again.  Leaves that block keep
		 * 0: a page-cache read could not stream their lines.
		 */
		if (!n->u.period.value)
			st->st_size = LEAF_SIZE;
	} else {
		st->st_mode = S_IFDIR | pf_opts.dir_mode;
		st->st_nlink = 2;
	}
	st->st_blksize = 4096;
	st->st_atim = mount_time;
	st->st_mtim = mount_time;
	st->st_ctim = mount_time;
}

/* The entry the kernel caches for @n (inode @ino), with its lifetimes. */
static void fill_entry(const struct pf_node *n, uint64_t ino,
		       struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = ino;
	e->generation = 1;
	e->entry_timeout = entry_ttl(n);
	e->attr_timeout = attr_ttl(n);
	fill_stat(n, ino, &e->attr);
}

/*
 * A composed name (modifiers, groups, raw codes, PMU terms) that already
 * parsed against the grammar and the PMUs' sysfs formats.  Lookup is pure:
 * no event is made for it.  Only its members that name a catalogue event
 * are checked, against the probe the daemon made of its own catalogue
 * (cycles:u is no more there than cycles is); raw codes and terms are
 * perf's to judge at open, for the opener.
 */
static int composed_check(const struct pf_node *cpu, const char *name)
{
	const struct pf_candidate *c;
	char member[NAME_MAX + 1];
	const char *p = name, *end;
	size_t len;
	int err;

	for (; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '+');
		if (!end)
			end = p + strlen(p);
		len = end - p;
		if (memchr(p, ':', len))
			len = (const char *)memchr(p, ':', len) - p;
		if (len > NAME_MAX)
			return -ENOENT;
		memcpy(member, p, len);
		member[len] = 0;
		c = pf_candidate_find(member);
		if (!c)
			continue;
		err = pf_probe_cached(&cpu->u.cpu, c - pf_candidate(0));
		if (err)
			return err;
	}
	return 0;
}

/*
 * Does @name name something at the level below @parent?  Fills the level
 * data of @tmpl.  Returns 0 or -ENOENT.
 */
static int resolve(struct pf_node *parent, const char *name,
		   struct pf_node *tmpl, pid_t caller)
{
	size_t len = strlen(name);
	const struct pf_candidate *c;
	struct pf_node *cpu;

	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->level = parent->level + 1;
	switch (tmpl->level) {
	case PF_CPU:
		if (perfctrfs_parse_cpu(name, len, &tmpl->u.cpu))
			return -ENOENT;
		if (!tmpl->u.cpu.all) {
			int on = pf_cpu_online(tmpl->u.cpu.cpu);

			return on < 0 ? on : on ? 0 : -ENOENT;
		}
		return 0;
	case PF_EVENT:
		if (perfctrfs_parse_event(name, len, &pf_catalog, &tmpl->u.ev))
			return -ENOENT;
		cpu = ancestor(parent, PF_CPU);
		c = pf_candidate_find(name);
		if (c) {
			unsigned int i = c - pf_candidate(0);

			return pf_probe_cached(&cpu->u.cpu, i);
		}
		return composed_check(cpu, name);
	case PF_PID:
		if (perfctrfs_parse_pid(name, len, &tmpl->u.pid))
			return -ENOENT;
		if (tmpl->u.pid.kind == PERFCTRFS_PID_CGROUP) {
			char path[PATH_MAX];

			/* below the caller's cgroup ns root, and its to open */
			return pf_cgroup_visible(caller, tmpl->u.pid.cgroup,
						 path, sizeof(path));
		}
		if (tmpl->u.pid.kind != PERFCTRFS_PID_NUM)
			return 0;
		/* a number is a task, or a thread, in the caller's pid ns */
		return pf_pid_visible(caller, tmpl->u.pid.pid);
	case PF_TYPE:
		return perfctrfs_parse_type(name, len, &tmpl->u.type) ?
		       -ENOENT : 0;
	case PF_PERIOD:
		return perfctrfs_parse_period(name, len, parent->u.type,
					      &tmpl->u.period) ? -ENOENT : 0;
	default:
		return -ENOTDIR;
	}
}

static void pf_lookup(fuse_req_t req, fuse_ino_t pino, const char *name)
{
	struct fuse_entry_param e;
	struct pf_node *parent, *n, tmpl;
	int err;

	parent = req_node(req, pino, WANT_DIR);
	if (!parent)
		return;
	if (strlen(name) > NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	err = resolve(parent, name, &tmpl, fuse_req_ctx(req)->pid);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	pthread_mutex_lock(&node_lock);
	n = node_child(parent, name, &tmpl);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fill_entry(n, n->ino, &e);
	if (fuse_reply_entry(req, &e) == -ENOENT) {
		/* the lookup was interrupted: the kernel holds no reference */
		pthread_mutex_lock(&node_lock);
		n->nlookup--;
		node_put(n);
		pthread_mutex_unlock(&node_lock);
	}
}

static void forget_one(fuse_ino_t ino, uint64_t nlookup)
{
	struct pf_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	if (n && n != &root) {
		n->nlookup -= nlookup < n->nlookup ? nlookup : n->nlookup;
		node_put(n);
	}
	pthread_mutex_unlock(&node_lock);
}

static void pf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(ino, nlookup);
	fuse_reply_none(req);
}

static void pf_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	size_t i;

	for (i = 0; i < count; i++)
		forget_one(forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void pf_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct pf_node *n;
	struct stat st;

	(void)fi;
	n = req_node(req, ino, WANT_ANY);
	if (!n)
		return;
	fill_stat(n, n->ino, &st);
	fuse_reply_attr(req, &st, attr_ttl(n));
}

/* ---- directories ------------------------------------------------------- */

/*
 * Every open leaf and directory handle, so that what the kernel never
 * released is freed at exit: after a lazy umount the last close ends the
 * connection, and the RELEASE it sent can be dropped with it.  First
 * member of struct pf_dir and struct pf_handle.
 */
struct pf_live {
	struct pf_live *prev, *next;
	bool dir;
};

static struct pf_live live = { &live, &live, false };
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(struct pf_live *l, bool dir)
{
	l->dir = dir;
	pthread_mutex_lock(&live_lock);
	l->next = live.next;
	l->prev = &live;
	live.next->prev = l;
	live.next = l;
	pthread_mutex_unlock(&live_lock);
}

static void live_del(struct pf_live *l)
{
	pthread_mutex_lock(&live_lock);
	l->prev->next = l->next;
	l->next->prev = l->prev;
	pthread_mutex_unlock(&live_lock);
}

/*
 * A listing, fixed at opendir so that offsets stay stable across the
 * getdents calls of one directory stream.  It keeps only what says which
 * names it lists; each readdir makes, for the entries it returns, their
 * names, their inode numbers (those lookup gives them then) and the node
 * templates readdirplus hands them with:
 *
 *   level   listed after "." and ".."
 *   root    cpus[0..nr-2], the CPUs online at opendir, then "all"
 *   cpu     the catalogue events events[0..nr-1]: one array that every
 *           handle on that CPU shares (pf_cpu_events())
 *   event   "self", "all", then pids[0..nr_pids-1]: the processes of
 *           the caller's pid namespace at opendir, by their numbers
 *           there, then cgroups[]: the ids of the cgroups the caller's
 *           opener could open below its cgroup namespace root, listed
 *           as "cgroup.<id>" (at most PF_CGROUP_MAX: 64 KiB a handle;
 *           PF_CGROUP_IDS_MAX over all of a user's handles, share.c)
 *   pid     the three types
 *   type    "0", except under irq
 *
 * So a handle costs the daemon a few bytes a CPU or a process, where
 * opening a directory needs no permission and costs its user next to
 * nothing; and each user may hold at most pf_opts.max_dirs of them
 * (share.c), which bounds what the pid level costs on a busy machine.
 *
 * Numbered pids and cgroups get no template: their entries expire at
 * once (TTL_PID), so a readdirplus entry for each would only make the
 * daemon allocate a node, and the kernel an inode, that the next use
 * looks up again anyway; they are listed with their inode number alone,
 * as plain readdir lists them.
 *
 * Nothing in it changes after opendir: readdirs on other threads only
 * read it, and RELEASEDIR frees only what is its own.
 */
struct pf_dir {
	struct pf_live live;
	enum pf_level level;		/* of the directory listed */
	uid_t uid;			/* whose share of handles it takes */
	size_t nr;			/* names listed after "." and ".." */
	unsigned int *cpus;		/* root */
	const unsigned int *events;	/* cpu: catalog.c's, not freed here */
	pid_t *pids;			/* event */
	size_t nr_pids;			/* ... of pids, then */
	uint64_t *cgroups;		/* ... the cgroups' ids */
	size_t nr_cgroups;		/* ... charged to uid's share */
};

static int grow(void **p, size_t *alloc, size_t need, size_t elem)
{
	size_t n = *alloc ? *alloc : 64;
	void *tmp;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	tmp = realloc(*p, n * elem);
	if (!tmp)
		return -ENOMEM;
	*p = tmp;
	*alloc = n;
	return 0;
}

static void dir_free(struct pf_dir *d)
{
	pf_share_dir_give(d->uid);
	pf_share_cgids_give(d->uid, d->nr_cgroups);
	free(d->cpus);
	free(d->pids);
	free(d->cgroups);
	free(d);
}

/*
 * The numbered pids the thread @tid may name: the processes of its own
 * pid namespace, by their ids there.  None for a caller FUSE could not
 * name (pid 0).
 */
static int dir_fill_pids(struct pf_dir *d, pid_t tid)
{
	struct pf_caller *caller;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	pid_t *tmp;
	DIR *proc;
	int err;

	if (tid <= 0)
		return 0;
	caller = malloc(sizeof(*caller));
	if (!caller)
		return -ENOMEM;
	err = pf_caller_get(tid, caller);
	if (err) {
		free(caller);
		return err == -ENOENT || err == -EACCES ? 0 : err;
	}
	proc = opendir("/proc");
	if (!proc) {
		err = -errno;
		free(caller);
		return err;
	}
	/* what /proc lists exists now: no access() per pid */
	while (!err && (de = readdir(proc))) {
		struct perfctrfs_pid pid;
		pid_t id = 0;

		if (perfctrfs_parse_pid(de->d_name, strlen(de->d_name), &pid) ||
		    pid.kind != PERFCTRFS_PID_NUM)
			continue;
		id = caller->same_pidns ? (pid_t)pid.pid :
		     pf_caller_pid(caller, pid.pid);
		if (id <= 0)
			continue;	/* not in its namespace, or gone */
		err = grow((void **)&d->pids, &alloc, nr + 1, sizeof(*d->pids));
		if (!err)
			d->pids[nr++] = id;
	}
	closedir(proc);
	free(caller);
	if (err)
		return err;
	/* kept until releasedir: without the doubling's slack */
	if (nr && nr < alloc) {
		tmp = realloc(d->pids, nr * sizeof(*d->pids));
		if (tmp)
			d->pids = tmp;
	}
	d->nr += nr;
	d->nr_pids = nr;
	return 0;
}

/*
 * The cgroups the thread @tid could open as directories, below its cgroup
 * namespace root (pf_cgroup_list(): a walk in its opener, at most
 * PF_CGROUP_MAX); listed after the pids, without an entry, as they are.
 */
static int dir_fill_cgroups(struct pf_dir *d, pid_t tid)
{
	int nr = pf_cgroup_list(tid, &d->cgroups), err;

	if (nr < 0)
		return nr;
	/* the ids are the daemon's memory: charged to the user's share */
	err = pf_share_cgids_take(d->uid, nr);
	if (err)
		return err;
	d->nr_cgroups = nr;
	d->nr += nr;
	return 0;
}

/* What readdir lists at each level: a subset of what lookup accepts. */
static int dir_fill(struct pf_node *n, struct pf_dir *d, pid_t tid)
{
	int nr, err;

	d->level = n->level;
	switch (n->level) {
	case PF_ROOT:
		nr = pf_online_cpus(&d->cpus);
		if (nr < 0)
			return nr;
		d->nr = nr + 1;
		return 0;
	case PF_CPU:
		nr = pf_cpu_events(&n->u.cpu, &d->events);
		if (nr < 0)
			return nr;
		d->nr = nr;
		return 0;
	case PF_EVENT:
		d->nr = 2;
		err = dir_fill_pids(d, tid);
		return err ? err : dir_fill_cgroups(d, tid);
	case PF_PID:
		d->nr = ARRAY_SIZE(perfctrfs_type_names);
		return 0;
	case PF_TYPE:
		/* periods are unbounded; irq has no period 0: nothing listed */
		d->nr = n->u.type != PERFCTRFS_IRQ;
		return 0;
	default:
		return -ENOTDIR;
	}
}

/* The name of listed entry @i, made in @buf where it is a number. */
static const char *dir_name(const struct pf_dir *d, size_t i, char *buf,
			    size_t size)
{
	switch (d->level) {
	case PF_ROOT:
		if (i + 1 == d->nr)
			return "all";
		snprintf(buf, size, "%u", d->cpus[i]);
		return buf;
	case PF_CPU:
		return pf_candidate(d->events[i])->name;
	case PF_EVENT:
		if (i < 2)
			return i ? "all" : "self";
		if (i - 2 < d->nr_pids)
			snprintf(buf, size, "%d", (int)d->pids[i - 2]);
		else
			snprintf(buf, size, PERFCTRFS_CGROUP_PREFIX "%llu",
				 (unsigned long long)
				 d->cgroups[i - 2 - d->nr_pids]);
		return buf;
	case PF_PID:
		return perfctrfs_type_names[i];
	default:
		return "0";
	}
}

/*
 * The node template of listed entry @i, named @name, under @n: what
 * readdirplus hands the kernel, and where plain readdir's d_type comes
 * from.  What resolve() makes, without asking again what the listing
 * already knows (that the CPU was online, that the event probed).  False
 * for an entry listed without one.
 */
static bool dir_tmpl(const struct pf_dir *d, struct pf_node *n, size_t i,
		     const char *name, struct pf_node *tmpl)
{
	switch (d->level) {
	case PF_ROOT:
		memset(tmpl, 0, sizeof(*tmpl));
		tmpl->level = PF_CPU;
		return !perfctrfs_parse_cpu(name, strlen(name), &tmpl->u.cpu);
	case PF_CPU:
		memset(tmpl, 0, sizeof(*tmpl));
		tmpl->level = PF_EVENT;
		tmpl->u.ev = pf_candidate(d->events[i])->spec;
		return true;
	case PF_EVENT:
		if (i >= 2)
			return false;	/* a numbered pid, or a cgroup */
		/* fall through */
	default:
		return !resolve(n, name, tmpl, 0);
	}
}

static void pf_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct pf_dir *d;
	struct pf_node *n;
	uid_t uid;
	int err;

	n = req_node(req, ino, WANT_DIR);
	if (!n)
		return;
	/*
	 * first: a user out of handles costs the daemon no listing; charged
	 * to whom the caller's leaves are (its accountable uid)
	 */
	err = pf_caller_acct_uid(ctx->pid, ctx->uid, &uid);
	if (!err)
		err = pf_share_dir_take(uid);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		pf_share_dir_give(uid);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	d->uid = uid;
	err = dir_fill(n, d, fuse_req_ctx(req)->pid);
	if (err) {
		dir_free(d);
		fuse_reply_err(req, -err);
		return;
	}
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	/* before the reply: its RELEASEDIR may come on another thread */
	live_add(&d->live, true);
	if (fuse_reply_open(req, fi) == -ENOENT) {
		live_del(&d->live);
		dir_free(d);
	}
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	struct pf_dir *d = (struct pf_dir *)(uintptr_t)fi->fh;
	struct pf_node *n, *child, *found, tmpl;
	size_t len = 0, ent;
	char *buf, num[sizeof(PERFCTRFS_CGROUP_PREFIX) + 20];
	off_t i;

	n = req_node(req, ino, WANT_DIR);
	if (!n)
		return;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* offsets: 0 ".", 1 "..", 2.. the names */
	for (i = off < 0 ? 0 : off; i < (off_t)d->nr + 2; i++) {
		struct fuse_entry_param e;
		bool entry = false;
		const char *name;
		uint64_t cino;

		memset(&e, 0, sizeof(e));
		e.attr.st_mode = S_IFDIR;
		if (i < 2) {
			name = i ? ".." : ".";
			e.attr.st_ino = i ? (n->parent ? n->parent->ino :
					     FUSE_ROOT_ID) : n->ino;
		} else {
			name = dir_name(d, i - 2, num, sizeof(num));
			entry = dir_tmpl(d, n, i - 2, name, &tmpl);
			pthread_mutex_lock(&node_lock);
			cino = child_ino(n, name, &found);
			pthread_mutex_unlock(&node_lock);
			if (entry)
				fill_entry(&tmpl, cino, &e);
			else
				e.attr.st_ino = cino;
		}
		if (plus)
			ent = fuse_add_direntry_plus(req, buf + len, size - len,
						     name, &e, i + 1);
		else
			ent = fuse_add_direntry(req, buf + len, size - len,
						name, &e.attr, i + 1);
		if (ent > size - len)
			break;
		if (plus && entry) {
			/* the kernel now holds a lookup reference */
			pthread_mutex_lock(&node_lock);
			child = node_child(n, name, &tmpl);
			if (child && child->ino != e.ino) {
				/* a collision appeared meanwhile: undo */
				child->nlookup--;
				node_put(child);
				child = NULL;
			}
			pthread_mutex_unlock(&node_lock);
			if (!child)
				break;
		}
		len += ent;
	}
	fuse_reply_buf(req, buf, len);
	free(buf);
}

static void pf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, false);
}

static void pf_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, true);
}

static void pf_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	struct pf_dir *d = (struct pf_dir *)(uintptr_t)fi->fh;

	(void)ino;
	live_del(&d->live);
	dir_free(d);
	fuse_reply_err(req, 0);
}

/* ---- leaves ------------------------------------------------------------ */

struct pf_handle {
	struct pf_live live;
	struct pf_file *file;
	struct pf_node *node;
};

static void pf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pf_node *n, *cpu, *ev, *pid, *type;
	struct pf_handle *h;
	struct pf_target t;
	int err;

	n = req_node(req, ino, WANT_LEAF);
	if (!n)
		return;
	pthread_mutex_lock(&node_lock);
	n->refs++;
	pthread_mutex_unlock(&node_lock);
	type = n->parent;
	pid = type->parent;
	ev = pid->parent;
	cpu = ev->parent;
	memset(&t, 0, sizeof(t));
	t.cpu = &cpu->u.cpu;
	t.ev = &ev->u.ev;
	t.pid = pid->u.pid;
	t.type = type->u.type;
	t.period = n->u.period;
	err = 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		err = -ENOMEM;
	if (!err)
		err = pf_file_open(req, &t, fi->flags, &h->file);
	if (err) {
		free(h);
		pthread_mutex_lock(&node_lock);
		n->refs--;
		node_put(n);
		pthread_mutex_unlock(&node_lock);
		fuse_reply_err(req, -err);
		return;
	}
	h->node = n;
	fi->fh = (uintptr_t)h;
	/* every read is a fresh answer: never from the page cache */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	live_add(&h->live, false);
	if (fuse_reply_open(req, fi) == -ENOENT) {
		live_del(&h->live);
		pf_file_release(h->file);
		pthread_mutex_lock(&node_lock);
		n->refs--;
		node_put(n);
		pthread_mutex_unlock(&node_lock);
		free(h);
	}
}

static void pf_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct pf_handle *h = (struct pf_handle *)(uintptr_t)fi->fh;

	(void)ino;
	live_del(&h->live);
	pf_file_release(h->file);
	pthread_mutex_lock(&node_lock);
	h->node->refs--;
	node_put(h->node);
	pthread_mutex_unlock(&node_lock);
	free(h);
	fuse_reply_err(req, 0);
}

static void pf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct pf_handle *h = (struct pf_handle *)(uintptr_t)fi->fh;

	(void)ino;
	pf_file_read(req, h->file, size, off, fi->flags);
}

static void pf_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct pf_handle *h = (struct pf_handle *)(uintptr_t)fi->fh;
	int err;

	(void)ino;
	(void)off;
	err = pf_file_control(h->file, buf, size);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_write(req, size);
}

static void pf_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct pf_handle *h = (struct pf_handle *)(uintptr_t)fi->fh;

	(void)ino;
	pf_file_poll(req, h->file, ph);
}

static void pf_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
		     void *arg, struct fuse_file_info *fi, unsigned int flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct pf_handle *h = (struct pf_handle *)(uintptr_t)fi->fh;
	int err;

	(void)ino;
	(void)arg;
	(void)in_buf;
	(void)in_bufsz;
	(void)out_bufsz;
	if (flags & FUSE_IOCTL_DIR) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	err = pf_file_ioctl(h->file, cmd);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_ioctl(req, 0, NULL, 0);
}

/* ---- extended attributes ---------------------------------------------- */

/*
 * The value of user.perfctr.<name> on @n, for the thread @tid, into @buf;
 * -ENODATA if none.
 */
static int xattr_value(struct pf_node *n, const char *name, char *buf,
		       size_t size, pid_t tid)
{
	const struct pf_candidate *c;
	int len;

	if (strncmp(name, XATTR_PREFIX, strlen(XATTR_PREFIX)))
		return -ENODATA;
	name += strlen(XATTR_PREFIX);
	switch (n->level) {
	case PF_ROOT:
		if (strcmp(name, "counters"))
			return -ENODATA;
		return snprintf(buf, size, "%lu", pf_open_counters());
	case PF_EVENT:
		if (!strcmp(name, "encoding")) {
			len = perfctrfs_format_encoding(&n->u.ev, buf, size);
			return len < 0 ? -E2BIG : len;
		}
		if (!strcmp(name, "scale") || !strcmp(name, "unit"))
			return pf_pmu_prop(PF_SYSFS_PMUS, n->name, name, buf,
					   size);
		if (strcmp(name, "description"))
			return -ENODATA;
		c = pf_candidate_find(n->name);
		if (!c || !c->description)
			return -ENODATA;
		return snprintf(buf, size, "%s", c->description);
	case PF_PID:
		/* the path from the caller's own cgroup ns root */
		if (strcmp(name, "cgroup") ||
		    n->u.pid.kind != PERFCTRFS_PID_CGROUP)
			return -ENODATA;
		len = pf_cgroup_visible(tid, n->u.pid.cgroup, buf, size);
		if (len == -ENAMETOOLONG)
			return -E2BIG;
		return len ? len : (int)strlen(buf);
	default:
		return -ENODATA;
	}
}

static void pf_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			size_t size)
{
	char buf[4096];
	struct pf_node *n;
	int len;

	n = req_node(req, ino, WANT_ANY);
	if (!n)
		return;
	len = xattr_value(n, name, buf, sizeof(buf), fuse_req_ctx(req)->pid);
	if (len < 0)
		fuse_reply_err(req, -len);
	else if (!size)
		fuse_reply_xattr(req, len);
	else if ((size_t)len > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, buf, len);
}

static void pf_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	static const char *const names[] = {
		XATTR_PREFIX "counters",
		XATTR_PREFIX "encoding",
		XATTR_PREFIX "description",
		XATTR_PREFIX "scale",
		XATTR_PREFIX "unit",
		XATTR_PREFIX "cgroup",
	};
	char list[256], val[4096];
	size_t total = 0;
	struct pf_node *n;
	unsigned int i;

	n = req_node(req, ino, WANT_ANY);
	if (!n)
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		/* listed exactly when it can be read */
		if (xattr_value(n, names[i], val, sizeof(val),
				fuse_req_ctx(req)->pid) < 0)
			continue;
		memcpy(list + total, names[i], strlen(names[i]) + 1);
		total += strlen(names[i]) + 1;
	}
	if (!size)
		fuse_reply_xattr(req, total);
	else if (total > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, list, total);
}

static void pf_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	(void)ino;
	(void)name;
	(void)value;
	(void)size;
	(void)flags;
	fuse_reply_err(req, EPERM);	/* they say what is counted */
}

static void pf_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino;
	(void)name;
	fuse_reply_err(req, EPERM);
}

/* ---- what cannot be done ---------------------------------------------- */

static void pf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct pf_node *n;
	struct stat st;

	(void)attr;
	(void)fi;
	n = req_node(req, ino, WANT_ANY);
	if (!n)
		return;
	fill_stat(n, n->ino, &st);
	/* O_TRUNC on a leaf asks for size 0, which it already has */
	if (n->level == PF_PERIOD && (to_set & FUSE_SET_ATTR_SIZE) &&
	    !(to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID |
			FUSE_SET_ATTR_GID)) && attr->st_size == 0) {
		fuse_reply_attr(req, &st, attr_ttl(n));
		return;
	}
	fuse_reply_err(req, EPERM);
}

static void pf_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)rdev;
	fuse_reply_err(req, EROFS);
}

static void pf_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	(void)parent;
	(void)name;
	(void)mode;
	fuse_reply_err(req, EROFS);
}

static void pf_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void pf_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	(void)link;
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void pf_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	(void)parent;
	(void)name;
	(void)newparent;
	(void)newname;
	(void)flags;
	fuse_reply_err(req, EROFS);
}

static void pf_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EROFS);
}

static void pf_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void pf_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = 4096;
	sv.f_frsize = 4096;
	sv.f_namemax = NAME_MAX;
	fuse_reply_statfs(req, &sv);
}

static void pf_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* always readdirplus: its entries carry the numbers lookup gives */
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

/* The hash key: from getrandom(2), else /dev/urandom, else fail. */
static int draw_key(void)
{
	size_t got = 0;
	ssize_t r;
	int fd;

	while (got < sizeof(hash_key)) {
		r = getrandom(hash_key + got, sizeof(hash_key) - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += r;
	}
	if (got == sizeof(hash_key))
		return 0;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (got = 0; got < sizeof(hash_key); got += r) {
		r = read(fd, hash_key + got, sizeof(hash_key) - got);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0) {
			close(fd);
			return r < 0 ? -errno : -EIO;
		}
	}
	close(fd);
	return 0;
}

int pf_fs_init(void)
{
	int err;

	clock_gettime(CLOCK_REALTIME, &mount_time);
	err = draw_key();
	if (err)
		return err;
	htab = calloc(HASH_MIN, sizeof(*htab));
	if (!htab)
		return -ENOMEM;
	hsize = HASH_MIN;
	return 0;
}

void pf_fs_exit(void)
{
	size_t i;

	/* handles never released; pf_counter_exit() freed their files */
	while (live.next != &live) {
		struct pf_live *l = live.next;

		live_del(l);
		if (l->dir)
			dir_free((struct pf_dir *)l);
		else
			free(l);
	}

	for (i = 0; i < hsize; i++) {
		while (htab[i]) {
			struct pf_node *n = htab[i];

			htab[i] = n->hnext;
			free(n->name);
			free(n);
		}
	}
	free(htab);
	htab = NULL;
	hsize = hcount = 0;
}

const struct fuse_lowlevel_ops pf_ops = {
	.init		= pf_init,
	.lookup		= pf_lookup,
	.forget		= pf_forget,
	.forget_multi	= pf_forget_multi,
	.getattr	= pf_getattr,
	.setattr	= pf_setattr,
	.mknod		= pf_mknod,
	.mkdir		= pf_mkdir,
	.unlink		= pf_unlink,
	.rmdir		= pf_unlink,
	.symlink	= pf_symlink,
	.rename		= pf_rename,
	.link		= pf_link,
	.create		= pf_create,
	.open		= pf_open,
	.read		= pf_read,
	.write		= pf_write,
	.release	= pf_release,
	.opendir	= pf_opendir,
	.readdir	= pf_readdir,
	.readdirplus	= pf_readdirplus,
	.releasedir	= pf_releasedir,
	.statfs		= pf_statfs,
	.setxattr	= pf_setxattr,
	.getxattr	= pf_getxattr,
	.listxattr	= pf_listxattr,
	.removexattr	= pf_removexattr,
	.ioctl		= pf_ioctl,
	.poll		= pf_poll,
};
