/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what every perfctrfs test helper shares: errno names, so the
 * suite compares "EACCES" with "EACCES" instead of locale-dependent text.
 */
#ifndef _PERFCTRFS_HELPERS_COMMON_H
#define _PERFCTRFS_HELPERS_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The symbolic name of @err ("ENOENT"), or its number for an odd one. */
static inline const char *errname(int err)
{
	static char buf[16];
	const char *s = strerrorname_np(err);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* A non-negative decimal or 0x-hex argument, or exit(2) with a message. */
static inline unsigned long long num_arg(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "bad number: %s\n", s);
		exit(2);
	}
	return v;
}

#endif /* _PERFCTRFS_HELPERS_COMMON_H */
