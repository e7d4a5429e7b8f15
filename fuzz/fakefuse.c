// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the parts of libfuse3 the daemon's handlers call, so that
 * fs.c, counter.c (with ring.c, wait.c and loop.c) and catalog.c run
 * in-process without a kernel mount: a request is a struct on the
 * caller's stack, and each fuse_reply_*() records its answer there.  The
 * handlers are the daemon's own objects, unchanged; only main.c (mount,
 * session loop) is left out, and its three globals are defined here.
 * Nothing here links libfuse3: a reply function the daemon starts using
 * without a stand-in is a link error, not a silent gap.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "fakefuse.h"

struct pf_opts pf_opts = {
	.leaf_mode = 0666,
	.dir_mode = 0555,
	.foreground = true,
};

struct fuse_session *pf_se;

void pf_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > LOG_ERR || !getenv("PERFCTRFS_DEBUG"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Every request gets exactly one reply: a second one is a daemon bug. */
static int reply(fuse_req_t req, int kind, int err)
{
	if (req->kind != FR_NONE) {
		fprintf(stderr, "fakefuse: second reply (%d after %d)\n",
			kind, req->kind);
		abort();
	}
	req->kind = kind;
	req->err = err;
	return req->fail_reply ? -ENOENT : 0;
}

int fuse_reply_err(fuse_req_t req, int err)
{
	if (err < 0 || err > 4095) {
		fprintf(stderr, "fakefuse: bad errno %d\n", err);
		abort();
	}
	return reply(req, FR_ERR, err);
}

void fuse_reply_none(fuse_req_t req)
{
	reply(req, FR_NONE_REPLY, 0);
}

int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	req->entry = *e;
	return reply(req, FR_ENTRY, 0);
}

int fuse_reply_attr(fuse_req_t req, const struct stat *attr, double timeout)
{
	(void)timeout;
	req->entry.attr = *attr;
	return reply(req, FR_ATTR, 0);
}

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	req->fi = *fi;
	return reply(req, FR_OPEN, 0);
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	if (size > sizeof(req->buf)) {
		fprintf(stderr, "fakefuse: reply of %zu bytes\n", size);
		abort();
	}
	/* touch every byte: ASan sees a reply that reads past its buffer */
	memcpy(req->buf, buf, size);
	req->size = size;
	return reply(req, FR_BUF, 0);
}

int fuse_reply_write(fuse_req_t req, size_t count)
{
	req->size = count;
	return reply(req, FR_WRITE, 0);
}

int fuse_reply_xattr(fuse_req_t req, size_t count)
{
	req->size = count;
	return reply(req, FR_XATTR, 0);
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size)
{
	(void)buf;
	(void)size;
	return reply(req, FR_IOCTL, result);
}

int fuse_reply_poll(fuse_req_t req, unsigned int revents)
{
	req->size = revents;
	return reply(req, FR_POLL, 0);
}

int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf)
{
	(void)stbuf;
	return reply(req, FR_STATFS, 0);
}

size_t fuse_add_direntry(fuse_req_t req, char *buf, size_t bufsize,
			 const char *name, const struct stat *stbuf, off_t off)
{
	size_t need = 24 + ((strlen(name) + 7) & ~(size_t)7);

	(void)req;
	(void)stbuf;
	(void)off;
	if (buf && need <= bufsize)
		memset(buf, 0, need);
	return need;
}

size_t fuse_add_direntry_plus(fuse_req_t req, char *buf, size_t bufsize,
			      const char *name,
			      const struct fuse_entry_param *e, off_t off)
{
	size_t need = 152 + ((strlen(name) + 7) & ~(size_t)7);

	(void)req;
	(void)e;
	(void)off;
	if (buf && need <= bufsize)
		memset(buf, 0, need);
	return need;
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	return &req->ctx;
}

int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[])
{
	(void)req;
	(void)size;
	(void)list;
	return 0;
}

void fuse_req_interrupt_func(fuse_req_t req, fuse_interrupt_func_t func,
			     void *data)
{
	(void)req;
	(void)func;
	(void)data;
}

int fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph)
{
	(void)ph;
	return 0;
}

void fuse_pollhandle_destroy(struct fuse_pollhandle *ph)
{
	free(ph);
}
