// SPDX-License-Identifier: GPL-2.0
/*
 * nullfs: the floor of the FUSE transport for bench/.
 *
 * A do-nothing libfuse3 low-level filesystem served with the options
 * perfctrfs-fuse uses (proto-fuse/fs.c, main.c), so that what it costs is
 * what any FUSE file costs on this host and the difference to perfctrfs is
 * the daemon's own work:
 *
 *   /line          a leaf whose read returns a fixed 20-byte line
 *   /f0 ... /fN-1  NULLFS_ENTRIES more such leaves (default 16): the root
 *                  is the floor of listing a perfctrfs cpu directory
 *   /big/          a directory of NULLFS_BIG leaves (default 2002): the
 *                  floor of listing the pid level
 *
 * Matched with the daemon (proto-fuse/fs.c): entry timeouts 3600 s,
 * attribute timeouts 0 on leaves (a period-0 leaf's, attr_ttl()) and
 * 3600 s on directories, st_size 4096 on leaves, direct_io and no
 * keep_cache at open, READDIRPLUS always (not _AUTO), /big's names listed
 * by readdirplus without an entry (as the daemon lists numbered pids), no
 * AUTO_INVAL_DATA, -o default_permissions, the multithreaded loop with
 * the daemon's worker pool: 4 threads per CPU it may run on, 10 to 256,
 * or -o max_threads=N (proto-fuse/main.c).
 *
 * Usage: nullfs [libfuse options] <mountpoint>   (-f to stay in front)
 */
#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE		"12345678901234567890"	/* 20 bytes, as a count line */
#define LEAF_SIZE	4096
#define TTL_ENTRY	3600.0
#define TTL_DIR		3600.0	/* attributes */
#define TTL_LEAF	0.0	/* attributes */
#define INO_BIG		2
#define INO_LINE	3
#define INO_F0		16
#define INO_BIG0	(1u << 20)

static unsigned int nentries = 16, nbig = 2002;

/* Inode numbers: 1 root, 2 big/, 3 line, 16+i f<i>, 2^20+i big/<i>. */
static int fill_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_blksize = 4096;
	if (ino == FUSE_ROOT_ID || ino == INO_BIG) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	if (ino == INO_LINE ||
	    (ino >= INO_F0 && ino < INO_F0 + nentries) ||
	    (ino >= INO_BIG0 && ino < INO_BIG0 + nbig)) {
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
		st->st_size = LEAF_SIZE;
		return 0;
	}
	return -ENOENT;
}

static int parse_index(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v >= max)
		return -1;
	*out = v;
	return 0;
}

static void nf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	fuse_ino_t ino = 0;
	unsigned int i;

	if (parent == FUSE_ROOT_ID) {
		if (!strcmp(name, "line"))
			ino = INO_LINE;
		else if (!strcmp(name, "big"))
			ino = INO_BIG;
		else if (name[0] == 'f' && !parse_index(name + 1, nentries, &i))
			ino = INO_F0 + i;
	} else if (parent == INO_BIG && !parse_index(name, nbig, &i)) {
		ino = INO_BIG0 + i;
	}
	if (!ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.generation = 1;
	fill_stat(ino, &e.attr);
	e.entry_timeout = TTL_ENTRY;
	e.attr_timeout = S_ISDIR(e.attr.st_mode) ? TTL_DIR : TTL_LEAF;
	fuse_reply_entry(req, &e);
}

static void nf_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (fill_stat(ino, &st)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fuse_reply_attr(req, &st, S_ISDIR(st.st_mode) ? TTL_DIR : TTL_LEAF);
}

/* Entry @i of directory @ino: its name and inode, or 0 past the end. */
static fuse_ino_t dir_entry(fuse_ino_t ino, unsigned int i, char *name,
			    size_t size)
{
	if (i == 0) {
		snprintf(name, size, ".");
		return ino;
	}
	if (i == 1) {
		snprintf(name, size, "..");
		return FUSE_ROOT_ID;
	}
	i -= 2;
	if (ino == INO_BIG) {
		if (i >= nbig)
			return 0;
		snprintf(name, size, "%u", i);
		return INO_BIG0 + i;
	}
	if (i == 0) {
		snprintf(name, size, "line");
		return INO_LINE;
	}
	if (i == 1) {
		snprintf(name, size, "big");
		return INO_BIG;
	}
	i -= 2;
	if (i >= nentries)
		return 0;
	snprintf(name, size, "f%u", i);
	return INO_F0 + i;
}

static void nf_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	char *buf, name[32];
	size_t len = 0;
	fuse_ino_t child;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != INO_BIG) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (; (child = dir_entry(ino, off, name, sizeof(name))); off++) {
		struct fuse_entry_param e;
		size_t n;

		memset(&e, 0, sizeof(e));
		fill_stat(child, &e.attr);
		/*
		 * . and .. carry no entry: the kernel takes no reference;
		 * nor do /big's names, as the daemon's numbered pids
		 */
		if (off >= 2 && ino != INO_BIG) {
			e.ino = child;
			e.generation = 1;
			e.entry_timeout = TTL_ENTRY;
			e.attr_timeout = S_ISDIR(e.attr.st_mode) ?
					 TTL_DIR : TTL_LEAF;
		}
		n = fuse_add_direntry_plus(req, buf + len, size - len, name,
					   &e, off + 1);
		if (n > size - len)
			break;
		len += n;
	}
	fuse_reply_buf(req, buf, len);
	free(buf);
}

static void nf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	char *buf, name[32];
	size_t len = 0;
	fuse_ino_t child;

	(void)fi;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (; (child = dir_entry(ino, off, name, sizeof(name))); off++) {
		struct stat st;
		size_t n;

		fill_stat(child, &st);
		n = fuse_add_direntry(req, buf + len, size - len, name, &st,
				      off + 1);
		if (n > size - len)
			break;
		len += n;
	}
	fuse_reply_buf(req, buf, len);
	free(buf);
}

static void nf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (fill_stat(ino, &st)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fuse_reply_open(req, fi);
}

static void nf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	static const char line[] = LINE "\n";
	size_t len = sizeof(line) - 1;

	(void)ino;
	(void)fi;
	if ((size_t)off >= len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	len -= off;
	fuse_reply_buf(req, line + off, len < size ? len : size);
}

static void nf_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void nf_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static const struct fuse_lowlevel_ops nf_ops = {
	.init		= nf_init,
	.lookup		= nf_lookup,
	.getattr	= nf_getattr,
	.open		= nf_open,
	.read		= nf_read,
	.release	= nf_release,
	.readdir	= nf_readdir,
	.readdirplus	= nf_readdirplus,
};

static unsigned int env_count(const char *name, unsigned int def)
{
	const char *s = getenv(name);
	unsigned int v;

	if (s && !parse_index(s, 1000000, &v))
		return v;
	return def;
}

/* the daemon's default_threads() */
static unsigned int default_threads(void)
{
	cpu_set_t set;
	unsigned long n = 1;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	n *= 4;
	return n < 10 ? 10 : n > 256 ? 256 : n;
}

struct nf_cmdline {
	char *max_threads;
};

static const struct fuse_opt nf_opts[] = {
	{ "max_threads=%s", offsetof(struct nf_cmdline, max_threads), 0 },
	FUSE_OPT_END
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct nf_cmdline cl = { 0 };
	unsigned int threads;
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *cfg;
	struct fuse_session *se;
	int ret = 1;

	nentries = env_count("NULLFS_ENTRIES", nentries);
	nbig = env_count("NULLFS_BIG", nbig);
	if (fuse_opt_parse(&args, &cl, nf_opts, NULL) == -1)
		return 1;
	threads = default_threads();
	if (cl.max_threads &&
	    (parse_index(cl.max_threads, 1025, &threads) || !threads)) {
		fprintf(stderr, "nullfs: max_threads= must be 1 to 1024\n");
		return 1;
	}
	free(cl.max_threads);
	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (!opts.mountpoint) {
		fprintf(stderr, "usage: %s [options] <mountpoint>\n", argv[0]);
		goto out_args;
	}
	if (fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args,
			     "default_permissions,fsname=nullfs,subtype=nullfs"))
		goto out_args;
	se = fuse_session_new(&args, &nf_ops, sizeof(nf_ops), NULL);
	if (!se)
		goto out_args;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, opts.mountpoint))
		goto out_signals;
	if (fuse_daemonize(opts.foreground))
		goto out_unmount;
	if (opts.singlethread) {
		ret = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (!cfg)
			goto out_unmount;
		fuse_loop_cfg_set_clone_fd(cfg, opts.clone_fd);
		fuse_loop_cfg_set_max_threads(cfg, threads);
		ret = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	if (ret > 0)
		ret = 0;
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret ? 1 : 0;
}
