// SPDX-License-Identifier: GPL-2.0
/*
 * SipHash-2-4: two compression rounds a word, four at the end.  Checked
 * against the paper's 64 vectors by tests/unit/siphash-test.c.
 */
#include "siphash.h"

static inline uint64_t rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = rotl(v[2], 32);
}

static void sip_word(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t x = 0;
	int i;

	for (i = 7; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

void pf_sip_init(struct pf_sip *s, const uint8_t key[16])
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);

	s->v[0] = k0 ^ 0x736f6d6570736575ULL;
	s->v[1] = k1 ^ 0x646f72616e646f6dULL;
	s->v[2] = k0 ^ 0x6c7967656e657261ULL;
	s->v[3] = k1 ^ 0x7465646279746573ULL;
	s->m = 0;
	s->len = 0;
}

void pf_sip_update(struct pf_sip *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len--) {
		s->m |= (uint64_t)*p++ << (8 * (s->len & 7));
		if ((++s->len & 7) == 0) {
			sip_word(s->v, s->m);
			s->m = 0;
		}
	}
}

uint64_t pf_sip_final(struct pf_sip *s)
{
	uint64_t *v = s->v;

	sip_word(v, s->m | s->len << 56);
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t pf_siphash(const uint8_t key[16], const void *data, size_t len)
{
	struct pf_sip s;

	pf_sip_init(&s, key);
	pf_sip_update(&s, data, len);
	return pf_sip_final(&s);
}
