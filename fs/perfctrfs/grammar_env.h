/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types the perfctrfs path grammar needs, from the kernel or from
 * libc.  Nothing else belongs here: grammar.c is the same file in
 * fs/perfctrfs (kernel) and in proto-fuse (userspace), as lib/xz and
 * libfdt are shared the same way.
 */
#ifndef _PERFCTRFS_GRAMMAR_ENV_H
#define _PERFCTRFS_GRAMMAR_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* The kernel's own definitions (int-ll64.h), so "%llx" prints a u64 on both. */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

#endif /* _PERFCTRFS_GRAMMAR_ENV_H */
