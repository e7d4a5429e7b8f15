/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed hash: without the
 * key nobody can tell which inputs collide.  The node table's inode
 * numbers (fs.c) hash (parent inode, name) with a key drawn at start.
 * Streamed a byte at a time: the inputs are short names.
 */
#ifndef PF_SIPHASH_H
#define PF_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct pf_sip {
	uint64_t v[4];
	uint64_t m;		/* the bytes of the partial word */
	uint64_t len;		/* all bytes so far */
};

/* @key: 16 bytes, read as two little-endian words, as the reference does */
void pf_sip_init(struct pf_sip *s, const uint8_t key[16]);
void pf_sip_update(struct pf_sip *s, const void *data, size_t len);
uint64_t pf_sip_final(struct pf_sip *s);
uint64_t pf_siphash(const uint8_t key[16], const void *data, size_t len);

#endif
