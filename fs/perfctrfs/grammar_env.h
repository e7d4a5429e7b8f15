/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grammar_env.h - the types the perfctrfs path grammar needs, from the
 * kernel or from libc.  Nothing else belongs here: grammar.c is the same
 * file in fs/perfctrfs (kernel) and in proto-fuse (userspace), as lib/xz
 * and libfdt are shared the same way.
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
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#endif

#endif /* _PERFCTRFS_GRAMMAR_ENV_H */
