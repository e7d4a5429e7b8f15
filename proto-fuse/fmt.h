/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers into a leaf's line without snprintf: every read of a leaf
 * formats one to ten of them, and vfprintf's parsing and locale work
 * cost more than the rest of the daemon's part of a read.
 *
 * Each writes at @p, which must have room for the longest form (20
 * decimal or 16 hex digits), and returns the end; no terminating NUL.
 * tests/unit/fmt-test.c checks them against printf.
 */
#ifndef PERFCTRFS_FUSE_FMT_H
#define PERFCTRFS_FUSE_FMT_H

#include <stdint.h>
#include <string.h>

#define PF_U64_DIGITS	20	/* UINT64_MAX is 18446744073709551615 */

/* @v in decimal, as "%" PRIu64 writes it. */
static inline char *pf_put_u64(char *p, uint64_t v)
{
	char tmp[PF_U64_DIGITS];
	unsigned int n = PF_U64_DIGITS;

	do {
		tmp[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	memcpy(p, tmp + n, PF_U64_DIGITS - n);
	return p + PF_U64_DIGITS - n;
}

/* @v in lower-case hex without a prefix, as "%" PRIx64 writes it. */
static inline char *pf_put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	unsigned int n = 16;

	do {
		tmp[--n] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	memcpy(p, tmp + n, 16 - n);
	return p + 16 - n;
}

/* @s, a string literal or any NUL-terminated string. */
static inline char *pf_put_str(char *p, const char *s)
{
	size_t len = strlen(s);

	memcpy(p, s, len);
	return p + len;
}

#endif /* PERFCTRFS_FUSE_FMT_H */
