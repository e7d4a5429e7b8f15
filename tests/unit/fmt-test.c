// SPDX-License-Identifier: GPL-2.0
/*
 * proto-fuse/fmt.h, the hand-written number formatting of every leaf
 * read, against printf: the edges (0, each power of ten and of two on
 * either side, UINT64_MAX) and a million pseudo-random values of every
 * magnitude, in decimal and hex.  Writes into a buffer poisoned past the
 * end, so a formatter that writes a byte too many fails too.
 *
 *	fmt-test [-s first]	run, numbering the TAP lines from first
 *	fmt-test -c		print how many tests there are
 *
 * Exits 1 when a test failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../proto-fuse/fmt.h"

#define NR_TESTS	5
#define POISON		'#'

static unsigned int next = 1, failed;

static void report(bool ok, const char *desc)
{
	printf("%s %u - fmt: %s\n", ok ? "ok" : "not ok", next++, desc);
	if (!ok)
		failed++;
}

/* Does @put write exactly what printf's @fmt does for @v? */
static bool same(char *(*put)(char *, uint64_t), const char *fmt, uint64_t v)
{
	char want[32], got[40];
	char *end;
	int n = snprintf(want, sizeof(want), fmt, v);

	memset(got, POISON, sizeof(got));
	end = put(got, v);
	if (end - got != n || memcmp(got, want, n) || got[n] != POISON) {
		printf("#   %s of %" PRIu64 ": got '%.*s', want '%s'\n", fmt, v,
		       (int)(end - got), got, want);
		return false;
	}
	return true;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static bool edges(char *(*put)(char *, uint64_t), const char *fmt)
{
	uint64_t p;
	bool ok = same(put, fmt, 0) && same(put, fmt, UINT64_MAX);
	unsigned int k;

	for (p = 1; ok; p *= 10) {
		ok = same(put, fmt, p - 1) && same(put, fmt, p) &&
		     same(put, fmt, p + 1);
		if (p > UINT64_MAX / 10)
			break;
	}
	for (k = 0; ok && k < 64; k++)
		ok = same(put, fmt, (1ULL << k) - 1) &&
		     same(put, fmt, 1ULL << k) &&
		     same(put, fmt, (1ULL << k) + 1);
	return ok;
}

static bool randoms(char *(*put)(char *, uint64_t), const char *fmt)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < 1000000; i++) {
		/* every magnitude, not only 20-digit numbers */
		uint64_t v = xorshift(&s) >> (i % 64);

		if (!same(put, fmt, v))
			return false;
	}
	return true;
}

int main(int argc, char *argv[])
{
	char buf[8], *end;
	int opt;

	while ((opt = getopt(argc, argv, "cs:")) != -1) {
		switch (opt) {
		case 'c':
			printf("%d\n", NR_TESTS);
			return 0;
		case 's':
			next = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-s first]\n", argv[0]);
			return 2;
		}
	}
	report(edges(pf_put_u64, "%" PRIu64), "decimal: 0, UINT64_MAX, powers of 10 and 2 +-1");
	report(randoms(pf_put_u64, "%" PRIu64), "decimal: 1e6 values of every magnitude");
	report(edges(pf_put_hex, "%" PRIx64), "hex: 0, UINT64_MAX, powers of 10 and 2 +-1");
	report(randoms(pf_put_hex, "%" PRIx64), "hex: 1e6 values of every magnitude");
	memset(buf, POISON, sizeof(buf));
	end = pf_put_str(buf, "lost ");
	report(end == buf + 5 && !memcmp(buf, "lost ", 5) && buf[5] == POISON,
	       "a string: its bytes, no NUL");
	return failed ? 1 : 0;
}
