// SPDX-License-Identifier: GPL-2.0
/*
 * proto-fuse/siphash.c, the keyed hash of the daemon's inode numbers:
 * the 64 SipHash-2-4 vectors of the paper (key 00..0f, message
 * 00..len-1 for len 0..63), the same outputs when the input comes in
 * pieces, and a set of names that share one bucket of the old unkeyed
 * hash spread over the buckets under a key, differently under another.
 *
 *	siphash-test [-s first]	run, numbering the TAP lines from first
 *	siphash-test -c		print how many tests there are
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../proto-fuse/siphash.h"

static unsigned int next = 1, failed, count_only, counted;

static void report(bool ok, const char *desc)
{
	if (count_only) {
		counted++;
		return;
	}
	printf("%s %u - siphash: %s\n", ok ? "ok" : "not ok", next++, desc);
	if (!ok)
		failed++;
}

/* SipHash-2-4, 64-bit output: the reference implementation's vectors */
static const uint64_t vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL, 0xbed65cf21aa2ee98ULL,
	0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL,
	0x2f2e6163076bcfadULL, 0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL, 0x7127512f72f27cceULL,
	0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL,
	0x9abfd8766a33735cULL, 0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL, 0xf935451de4f21df2ULL,
	0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL,
	0xa192d576b245165aULL, 0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL, 0xb78dbfaf3a8d83bdULL,
	0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL,
	0x958a324ceb064572ULL,
};

/* proto-fuse/fs.c's inode hash before it was keyed */
static uint64_t old_hash(uint64_t parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ parent;

	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* as fs.c hashes: the parent's number, little-endian, then the name */
static uint64_t keyed(const uint8_t key[16], uint64_t parent, const char *name)
{
	uint8_t p[8];
	struct pf_sip s;
	int i;

	for (i = 0; i < 8; i++)
		p[i] = parent >> (8 * i);
	pf_sip_init(&s, key);
	pf_sip_update(&s, p, sizeof(p));
	pf_sip_update(&s, name, strlen(name));
	return pf_sip_final(&s);
}

#define SET	2000		/* names in one old bucket */
#define BUCKETS	4096

/* The longest chain the set makes in BUCKETS buckets under @key. */
static unsigned int longest(const uint8_t key[16], char (*names)[24],
			    uint64_t parent, unsigned int *same_bucket)
{
	static unsigned short chain[BUCKETS];
	unsigned int i, max = 0;
	uint64_t first = keyed(key, parent, names[0]) % BUCKETS;

	memset(chain, 0, sizeof(chain));
	*same_bucket = 0;
	for (i = 0; i < SET; i++) {
		uint64_t b = keyed(key, parent, names[i]) % BUCKETS;

		if (++chain[b] > max)
			max = chain[b];
		*same_bucket += b == first;
	}
	return max;
}

static void run(void)
{
	uint8_t key[16], msg[64], k2[16];
	static char names[SET][24];
	unsigned int i, n, ok = 0, split_ok = 0, m1, m2, s1, s2, diff = 0;
	uint64_t parent = 0x1234abcd5678ef01ULL, target;
	unsigned long long v;
	char desc[128];

	for (i = 0; i < 16; i++)
		key[i] = i;
	for (i = 0; i < 64; i++)
		msg[i] = i;
	for (i = 0; i < 64; i++)
		ok += pf_siphash(key, msg, i) == vectors[i];
	report(ok == 64, "the 64 SipHash-2-4 vectors of the reference");

	/* pieces: every split of each message gives the same output */
	for (n = 0; n < 64; n++) {
		for (i = 0; i <= n; i++) {
			struct pf_sip s;

			pf_sip_init(&s, key);
			pf_sip_update(&s, msg, i);
			pf_sip_update(&s, msg + i, n - i);
			split_ok += pf_sip_final(&s) == vectors[n];
		}
	}
	report(split_ok == 64 * 65 / 2, "a message hashed in two pieces hashes as one");

	/* names an attacker finds offline for one bucket of the old hash */
	target = old_hash(parent, "1") % BUCKETS;
	for (n = 0, v = 1; n < SET; v++) {
		snprintf(names[n], sizeof(names[n]), "%llu", v);
		if (old_hash(parent, names[n]) % BUCKETS == target)
			n++;
	}
	for (i = 0; i < 16; i++)
		k2[i] = 0xa5 ^ (i * 37);
	m1 = longest(key, names, parent, &s1);
	m2 = longest(k2, names, parent, &s2);
	for (i = 0; i < SET; i++)
		diff += keyed(key, parent, names[i]) != keyed(k2, parent, names[i]);
	/* 2000 random balls in 4096 bins: the longest is 4 or 5, rarely 7 */
	snprintf(desc, sizeof(desc),
		 "%u names of one old bucket spread under a key: longest chain %u and %u, not %u",
		 SET, m1, m2, SET);
	report(m1 <= 8 && m2 <= 8 && s1 <= 8 && s2 <= 8, desc);
	report(diff == SET, "two keys give each name different numbers");
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "cs:")) != -1) {
		switch (c) {
		case 'c':
			count_only = 1;
			break;
		case 's':
			next = strtoul(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	run();
	if (count_only) {
		printf("%u\n", counted);
		return 0;
	}
	return failed ? 1 : 0;
}
