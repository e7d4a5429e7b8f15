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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define HASH_SIZE	4096
#define XATTR_PREFIX	"user.perfctr."

/* cache lifetimes in seconds: how long the kernel may trust an answer */
#define TTL_CPU		1.0	/* a CPU can go offline */
#define TTL_STABLE	3600.0	/* events of a CPU, types */
#define TTL_PID		0.0	/* pids vanish */
#define TTL_LEAF	0.0	/* i_size is reset at each lookup (fill_stat) */
#define LEAF_SIZE	4096

static struct pf_node root = {
	.ino = FUSE_ROOT_ID,
	.level = PF_ROOT,
	.name = "",
	.nlookup = 1,
};

static struct pf_node *htab[HASH_SIZE];
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec mount_time;

static uint64_t name_hash(uint64_t parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ parent;

	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3ULL;
	}
	/* splitmix64 finaliser: spread FNV's low bits */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static struct pf_node *node_by_ino(uint64_t ino)
{
	struct pf_node *n;

	if (ino == FUSE_ROOT_ID)
		return &root;
	for (n = htab[ino % HASH_SIZE]; n; n = n->hnext)
		if (n->ino == ino)
			return n;
	return NULL;
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

		for (pp = &htab[n->ino % HASH_SIZE]; *pp != n;
		     pp = &(*pp)->hnext)
			;
		*pp = n->hnext;
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
		n->hnext = htab[ino % HASH_SIZE];
		htab[ino % HASH_SIZE] = n;
		parent->refs++;
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

static double ttl_of(enum pf_level level)
{
	switch (level) {
	case PF_CPU:
		return TTL_CPU;
	case PF_PID:
		return TTL_PID;
	case PF_PERIOD:
		return TTL_LEAF;
	default:
		return TTL_STABLE;
	}
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
		 * read then trims i_size to the line, until the next lookup
		 * (TTL_LEAF is 0) says a page again.  Leaves that block keep
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

/*
 * Does @name name something at the level below @parent?  Fills the level
 * data of @tmpl.  Returns 0 or -ENOENT.
 */
static int resolve(struct pf_node *parent, const char *name,
		   struct pf_node *tmpl)
{
	size_t len = strlen(name);
	const struct pf_candidate *c;
	struct pf_node *cpu;
	char path[64];

	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->level = parent->level + 1;
	switch (tmpl->level) {
	case PF_CPU:
		if (perfctrfs_parse_cpu(name, len, &tmpl->u.cpu))
			return -ENOENT;
		if (!tmpl->u.cpu.all && !pf_cpu_online(tmpl->u.cpu.cpu))
			return -ENOENT;
		return 0;
	case PF_EVENT:
		if (perfctrfs_parse_event(name, len, &pf_catalog, &tmpl->u.ev))
			return -ENOENT;
		cpu = ancestor(parent, PF_CPU);
		c = pf_candidate_find(name);
		if (c) {
			unsigned int i = c - pf_candidate(0);

			return pf_probe_cached(&cpu->u.cpu, i) ? 0 : -ENOENT;
		}
		return pf_probe_spec(&cpu->u.cpu, &tmpl->u.ev) ? 0 : -ENOENT;
	case PF_PID:
		if (perfctrfs_parse_pid(name, len, &tmpl->u.pid))
			return -ENOENT;
		if (tmpl->u.pid.kind != PERFCTRFS_PID_NUM)
			return 0;
		/* /proc/<tid> exists for threads too, though not listed */
		snprintf(path, sizeof(path), "/proc/%u", tmpl->u.pid.pid);
		return access(path, F_OK) ? -ENOENT : 0;
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

	pthread_mutex_lock(&node_lock);
	parent = node_by_ino(pino);
	/* the kernel pins the parent while it looks up in it */
	pthread_mutex_unlock(&node_lock);
	if (!parent) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (parent->level == PF_PERIOD) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (strlen(name) > NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	err = resolve(parent, name, &tmpl);
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
	memset(&e, 0, sizeof(e));
	e.ino = n->ino;
	e.generation = 1;
	e.entry_timeout = ttl_of(n->level);
	e.attr_timeout = ttl_of(n->level);
	fill_stat(n, n->ino, &e.attr);
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
	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	if (n)
		fill_stat(n, n->ino, &st);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fuse_reply_attr(req, &st, ttl_of(n->level));
}

/* ---- directories ------------------------------------------------------- */

struct pf_dir {
	char **names;
	size_t nr;
};

static int dir_add(struct pf_dir *d, const char *name)
{
	char **tmp = realloc(d->names, (d->nr + 1) * sizeof(*d->names));

	if (!tmp)
		return -ENOMEM;
	d->names = tmp;
	d->names[d->nr] = strdup(name);
	if (!d->names[d->nr])
		return -ENOMEM;
	d->nr++;
	return 0;
}

static void dir_free(struct pf_dir *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->names[i]);
	free(d->names);
	free(d);
}

/* What readdir lists at each level: a subset of what lookup accepts. */
static int dir_fill(struct pf_node *n, struct pf_dir *d)
{
	unsigned int *cpus = NULL, i;
	struct pf_node *cpu;
	char buf[32];
	struct dirent *de;
	DIR *proc;
	int nr, err = 0;

	switch (n->level) {
	case PF_ROOT:
		nr = pf_online_cpus(&cpus);
		for (i = 0; nr > 0 && i < (unsigned int)nr && !err; i++) {
			snprintf(buf, sizeof(buf), "%u", cpus[i]);
			err = dir_add(d, buf);
		}
		free(cpus);
		return err ? err : dir_add(d, "all");
	case PF_CPU:
		cpu = n;
		for (i = 0; i < pf_nr_candidates() && !err; i++)
			if (pf_probe_cached(&cpu->u.cpu, i))
				err = dir_add(d, pf_candidate(i)->name);
		return err;
	case PF_EVENT:
		err = dir_add(d, "self");
		if (!err)
			err = dir_add(d, "all");
		proc = opendir("/proc");
		if (!proc)
			return err;
		while (!err && (de = readdir(proc))) {
			struct perfctrfs_pid pid;

			if (perfctrfs_parse_pid(de->d_name, strlen(de->d_name),
						&pid) ||
			    pid.kind != PERFCTRFS_PID_NUM)
				continue;
			err = dir_add(d, de->d_name);
		}
		closedir(proc);
		return err;
	case PF_PID:
		for (i = 0; i < 3 && !err; i++)
			err = dir_add(d, perfctrfs_type_names[i]);
		return err;
	case PF_TYPE:
		/* periods are unbounded; irq has no period 0: nothing listed */
		if (n->u.type != PERFCTRFS_IRQ)
			err = dir_add(d, "0");
		return err;
	default:
		return -ENOTDIR;
	}
}

static void pf_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct pf_dir *d;
	struct pf_node *n;
	int err;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n->level == PF_PERIOD) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* a snapshot at opendir: offsets stay stable across readdir calls */
	err = dir_fill(n, d);
	if (err) {
		dir_free(d);
		fuse_reply_err(req, -err);
		return;
	}
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	if (fuse_reply_open(req, fi) == -ENOENT)
		dir_free(d);
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	struct pf_dir *d = (struct pf_dir *)(uintptr_t)fi->fh;
	struct pf_node *n, *child, tmpl;
	size_t len = 0, ent;
	char *buf;
	off_t i;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* offsets: 0 ".", 1 "..", 2.. the names */
	for (i = off; i < (off_t)d->nr + 2; i++) {
		struct fuse_entry_param e;
		const char *name;

		memset(&e, 0, sizeof(e));
		if (i < 2) {
			name = i ? ".." : ".";
			e.attr.st_ino = i ? (n->parent ? n->parent->ino :
					     FUSE_ROOT_ID) : n->ino;
			e.attr.st_mode = S_IFDIR;
		} else {
			name = d->names[i - 2];
			if (resolve(n, name, &tmpl))
				continue;	/* gone since opendir */
			pthread_mutex_lock(&node_lock);
			e.ino = child_ino(n, name, &child);
			pthread_mutex_unlock(&node_lock);
			fill_stat(&tmpl, e.ino, &e.attr);
			e.generation = 1;
			e.entry_timeout = ttl_of(tmpl.level);
			e.attr_timeout = ttl_of(tmpl.level);
		}
		if (plus)
			ent = fuse_add_direntry_plus(req, buf + len, size - len,
						     name, &e, i + 1);
		else
			ent = fuse_add_direntry(req, buf + len, size - len,
						name, &e.attr, i + 1);
		if (ent > size - len)
			break;
		if (plus && i >= 2) {
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
	(void)ino;
	dir_free((struct pf_dir *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* ---- leaves ------------------------------------------------------------ */

struct pf_handle {
	struct pf_file *file;
	struct pf_node *node;
};

static void pf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pf_node *n, *cpu, *ev, *pid, *type;
	struct pf_handle *h;
	struct pf_target t;
	int err;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	if (n && n->level == PF_PERIOD)
		n->refs++;
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n->level != PF_PERIOD) {
		fuse_reply_err(req, EISDIR);
		return;
	}
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
	if (fuse_reply_open(req, fi) == -ENOENT) {
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

/* The value of user.perfctr.<name> on @n into @buf; -ENODATA if none. */
static int xattr_value(struct pf_node *n, const char *name, char *buf,
		       size_t size)
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
		if (strcmp(name, "description"))
			return -ENODATA;
		c = pf_candidate_find(n->name);
		if (!c || !c->description)
			return -ENODATA;
		return snprintf(buf, size, "%s", c->description);
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

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	len = xattr_value(n, name, buf, sizeof(buf));
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
	};
	char list[256], val[4096];
	size_t total = 0;
	struct pf_node *n;
	unsigned int i;

	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		/* listed exactly when it can be read */
		if (xattr_value(n, names[i], val, sizeof(val)) < 0)
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
	pthread_mutex_lock(&node_lock);
	n = node_by_ino(ino);
	if (n)
		fill_stat(n, n->ino, &st);
	pthread_mutex_unlock(&node_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* O_TRUNC on a leaf asks for size 0, which it already has */
	if (n->level == PF_PERIOD && (to_set & FUSE_SET_ATTR_SIZE) &&
	    !(to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID |
			FUSE_SET_ATTR_GID)) && attr->st_size == 0) {
		fuse_reply_attr(req, &st, ttl_of(n->level));
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

int pf_fs_init(void)
{
	clock_gettime(CLOCK_REALTIME, &mount_time);
	return 0;
}

void pf_fs_exit(void)
{
	unsigned int i;

	for (i = 0; i < HASH_SIZE; i++) {
		while (htab[i]) {
			struct pf_node *n = htab[i];

			htab[i] = n->hnext;
			free(n->name);
			free(n);
		}
	}
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
