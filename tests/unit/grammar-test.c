// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace walker of fs/perfctrfs/grammar_cases.h, over the very
 * grammar.c the kernel builds: one TAP line per case, then one per
 * encoding and alias-path entry, then the builtins and catalogue checks.
 *
 *	grammar-test [-t tag] [-s first]	run, numbering from first
 *	grammar-test -c				print how many tests there are
 *
 * Each input is copied into a malloc()ed buffer of exactly its length, so
 * under ASan a parser that reads past len fails loudly.  Exits 1 when a
 * test failed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grammar.h"
#include "grammar_cases.h"

#define NR_TESTS (ARRAY_SIZE(perfctrfs_cases) + ARRAY_SIZE(perfctrfs_encoding_cases) + \
		  ARRAY_SIZE(perfctrfs_alias_path_cases) + 2)

static unsigned int next = 1, failed;
static const char *tag = "";

static void report(bool ok, const char *desc, const struct perfctrfs_case_fail *f)
{
	printf("%s %u - %s%s\n", ok ? "ok" : "not ok", next++, desc, tag);
	if (ok)
		return;
	failed++;
	if (f->member >= 0)
		printf("#   %s [%d]: got %llu (0x%llx), want %llu (0x%llx)\n", f->what,
		       f->member, f->got, f->got, f->want, f->want);
	else
		printf("#   %s: got %llu (0x%llx), want %llu (0x%llx)\n", f->what,
		       f->got, f->got, f->want, f->want);
}

int main(int argc, char **argv)
{
	char desc[160], tagbuf[64];
	struct perfctrfs_case_fail f;
	static char buf[PERFCTRFS_CASE_BUF];
	unsigned int i;
	int opt;

	while ((opt = getopt(argc, argv, "ct:s:")) != -1) {
		switch (opt) {
		case 'c':
			printf("%zu\n", NR_TESTS);
			return 0;
		case 't':
			snprintf(tagbuf, sizeof(tagbuf), " (%s)", optarg);
			tag = tagbuf;
			break;
		case 's':
			next = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-t tag] [-s first]\n", argv[0]);
			return 2;
		}
	}

	for (i = 0; i < ARRAY_SIZE(perfctrfs_cases); i++) {
		const struct perfctrfs_case *c = &perfctrfs_cases[i];
		char *in = malloc(c->len);
		bool ok;

		if (!in && c->len) {
			perror("malloc");
			return 2;
		}
		memcpy(in, c->in, c->len);
		ok = perfctrfs_case_run(c, in, &f);
		free(in);
		perfctrfs_case_desc(c, desc, sizeof(desc));
		if (ok)
			snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " %s",
				 c->err ? "is refused" : "decodes");
		report(ok, desc, &f);
	}
	for (i = 0; i < ARRAY_SIZE(perfctrfs_encoding_cases); i++) {
		const struct perfctrfs_encoding_case *e = &perfctrfs_encoding_cases[i];

		snprintf(desc, sizeof(desc), "encoding '%s' is '%s'", e->event, e->encoding);
		report(perfctrfs_encoding_check(e, buf, &f), desc, &f);
	}
	for (i = 0; i < ARRAY_SIZE(perfctrfs_alias_path_cases); i++) {
		const struct perfctrfs_alias_path_case *a = &perfctrfs_alias_path_cases[i];

		snprintf(desc, sizeof(desc), "alias_path '%s' '%s' is '%s'",
			 a->pmu, a->alias, a->path);
		report(perfctrfs_alias_path_check(a, buf, &f), desc, &f);
	}
	report(perfctrfs_builtins_check(buf, &f),
	       "builtins: 10 hardware, 9 software, 42 cache, unique, each parses back", &f);
	report(perfctrfs_catalog_check(buf, &f),
	       "catalogue: each alias parses exactly when its terms encode; none without one",
	       &f);

	fprintf(stderr, "grammar-test%s: %u tests, %u failed\n", tag, (unsigned int)NR_TESTS,
		failed);
	return failed ? 1 : 0;
}
