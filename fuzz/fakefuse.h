/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fake request the in-process FUSE harness hands the daemon's
 * handlers: libfuse keeps struct fuse_req private, so the harness defines
 * its own, and fakefuse.c's fuse_reply_*() fill it in.
 */
#ifndef PERFCTRFS_FAKEFUSE_H
#define PERFCTRFS_FAKEFUSE_H

#include "../proto-fuse/internal.h"

enum {
	FR_NONE,
	FR_ERR,
	FR_NONE_REPLY,
	FR_ENTRY,
	FR_ATTR,
	FR_OPEN,
	FR_BUF,
	FR_WRITE,
	FR_XATTR,
	FR_IOCTL,
	FR_POLL,
	FR_STATFS,
};

struct fuse_req {
	struct fuse_ctx ctx;
	bool fail_reply;	/* the reply reports an interrupted request */
	int kind;		/* FR_*: which reply came */
	int err;
	struct fuse_entry_param entry;
	struct fuse_file_info fi;
	size_t size;
	char buf[PF_LINE_MAX * 64];
};

#endif /* PERFCTRFS_FAKEFUSE_H */
