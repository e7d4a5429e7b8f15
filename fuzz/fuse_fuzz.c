// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the FUSE daemon's handlers, in-process: whole paths
 * walked through pf_ops.lookup one component at a time (as the kernel's
 * path walk does), leaves opened, read, written and released, every
 * lookup reference forgotten again.  The daemon's own fs.c, counter.c and
 * catalog.c run against this machine's sysfs and real perf_event_open;
 * fakefuse.c stands in for libfuse.
 *
 * Input: one flags byte, then up to MAX_PATHS paths separated by '\n'.
 * Afterwards every counter must be closed and every node forgotten: a node
 * that outlives its last reference, or a counter its last release, aborts.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakefuse.h"

#define MAX_PATHS	8
#define MAX_DEPTH	8
#define MAX_INOS	(MAX_PATHS * MAX_DEPTH)

/* flags byte */
#define F_FAIL_LOOKUP	0x01	/* the last lookup's reply finds the request interrupted */
#define F_FAIL_OPEN	0x02	/* so does the open's */
#define F_WRITE		0x04	/* write a control word */
#define F_OFFSET	0x08	/* a second read at an offset */
#define F_XATTR		0x10	/* getxattr on every node */
#define F_IOCTL		0x20	/* PERF_EVENT_IOC_RESET */
#define F_WRONLY	0x40	/* open for writing only */

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuse_fuzz: %s:%d: broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

static fuse_ino_t inos[MAX_INOS];
static unsigned int nr_inos;
static pid_t self_pid;		/* the caller of every request: us */

static void req_init(struct fuse_req *req, bool fail)
{
	memset(req, 0, offsetof(struct fuse_req, buf));
	req->ctx.pid = self_pid;
	req->ctx.umask = 022;
	req->fail_reply = fail;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* a syscall per request otherwise: 10 an input, 12% of its syscalls */
	self_pid = getpid();
	if (pf_catalog_init() || pf_fs_init() || pf_counter_init()) {
		fprintf(stderr, "fuse_fuzz: cannot start the daemon's parts\n");
		exit(1);
	}
	return 0;
}

static void do_xattr(fuse_ino_t ino)
{
	static const char *const names[] = {
		"user.perfctr.encoding", "user.perfctr.counters",
		"user.perfctr.description", "user.perfctr.nothing",
	};
	struct fuse_req req;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		req_init(&req, false);
		pf_ops.getxattr(&req, ino, names[i], 4096);
		CHECK(req.kind == FR_BUF || req.kind == FR_ERR);
	}
	req_init(&req, false);
	pf_ops.listxattr(&req, ino, 4096);
	CHECK(req.kind == FR_BUF || req.kind == FR_ERR);
}

static void do_leaf(fuse_ino_t ino, unsigned int flags)
{
	struct fuse_file_info fi;
	struct fuse_req req;

	memset(&fi, 0, sizeof(fi));
	fi.flags = (flags & F_WRONLY ? O_WRONLY : O_RDONLY) | O_NONBLOCK;
	req_init(&req, flags & F_FAIL_OPEN);
	pf_ops.open(&req, ino, &fi);
	CHECK(req.kind == FR_OPEN || req.kind == FR_ERR);
	if (req.kind != FR_OPEN || req.fail_reply)
		return;
	fi = req.fi;
	req_init(&req, false);
	pf_ops.read(&req, ino, 4096, 0, &fi);
	CHECK(req.kind == FR_BUF || (req.kind == FR_ERR && req.err == EAGAIN));
	CHECK(req.kind != FR_BUF || req.size < PF_LINE_MAX * 64);
	if (flags & F_OFFSET) {
		req_init(&req, false);
		pf_ops.read(&req, ino, 7, flags >> 4, &fi);
		CHECK(req.kind == FR_BUF || req.kind == FR_ERR);
	}
	if (flags & F_WRITE) {
		static const char *const words[] = { "reset\n", "enable", "disable", "bogus" };

		req_init(&req, false);
		pf_ops.write(&req, ino, words[flags >> 6], strlen(words[flags >> 6]), 0, &fi);
		CHECK(req.kind == FR_WRITE || (req.kind == FR_ERR && req.err == EINVAL));
	}
	if (flags & F_IOCTL) {
		req_init(&req, false);
		pf_ops.ioctl(&req, ino, 0x2403 /* PERF_EVENT_IOC_RESET */, NULL, &fi,
			     0, NULL, 0, 0);
		CHECK(req.kind == FR_IOCTL || req.kind == FR_ERR);
	}
	req_init(&req, false);
	pf_ops.release(&req, ino, &fi);
	CHECK(req.kind == FR_ERR && req.err == 0);
}

static void walk(const char *p, size_t len, unsigned int flags)
{
	fuse_ino_t ino = FUSE_ROOT_ID;
	unsigned int depth = 0;
	struct fuse_req req;
	size_t i = 0;

	while (i < len && depth < MAX_DEPTH) {
		size_t j = i;
		char *name;
		bool last;

		while (j < len && p[j] != '/')
			j++;
		if (j == i || (j - i == 1 && p[i] == '.') ||
		    (j - i == 2 && p[i] == '.' && p[i + 1] == '.')) {
			/* the kernel resolves these itself */
			i = j + 1;
			continue;
		}
		/* a NUL ends a name the kernel sends, as in strndup */
		name = strndup(p + i, j - i);
		CHECK(name);
		last = j >= len;
		req_init(&req, last && (flags & F_FAIL_LOOKUP));
		pf_ops.lookup(&req, ino, name);
		free(name);
		CHECK(req.kind == FR_ENTRY || req.kind == FR_ERR);
		if (req.kind != FR_ENTRY || req.fail_reply)
			return;
		CHECK(req.entry.ino > FUSE_ROOT_ID);
		ino = req.entry.ino;
		inos[nr_inos++] = ino;
		depth++;
		if (flags & F_XATTR)
			do_xattr(ino);
		i = j + 1;
	}
	if (depth == 5)
		do_leaf(ino, flags);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *p = (const char *)data + 1;
	unsigned int flags, paths = 0, i;
	struct fuse_req req;
	size_t len;

	if (size < 1)
		return 0;
	flags = data[0];
	len = size - 1;
	nr_inos = 0;
	while (len && paths < MAX_PATHS) {
		const char *nl = memchr(p, '\n', len);
		size_t n = nl ? (size_t)(nl - p) : len;

		walk(p, n, flags);
		paths++;
		p += n;
		len -= n;
		if (nl) {
			p++;
			len--;
		}
	}
	CHECK(pf_open_counters() == 0);
	/* the kernel forgets in any order: children first is the hard one */
	for (i = 0; i < nr_inos; i++) {
		req_init(&req, false);
		pf_ops.forget(&req, inos[i], 1);
		CHECK(req.kind == FR_NONE_REPLY);
	}
	/* every node is gone once nothing refers to it */
	for (i = 0; i < nr_inos; i++) {
		req_init(&req, false);
		pf_ops.getattr(&req, inos[i], NULL);
		CHECK(req.kind == FR_ERR && req.err == ENOENT);
	}
	return 0;
}
