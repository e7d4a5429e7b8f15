// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpora from the grammar's test vectors (grammar_cases.h), written
 * at build time instead of committed:
 *
 *   gen_seeds GRAMMAR_DIR FUSE_DIR
 *
 * GRAMMAR_DIR gets one input per case in grammar_fuzz's format (selector,
 * argument, name); FUSE_DIR gets whole paths for fuse_fuzz: each case put
 * at its level of a path that is otherwise valid on any machine, and every
 * builtin event under each type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fs/perfctrfs/grammar.h"
#include "../fs/perfctrfs/grammar_cases.h"

static unsigned int nr_written;

static void put(const char *dir, const char *prefix, const void *data,
		size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%05u", dir, prefix, nr_written++);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* grammar_fuzz's selectors, in its order */
static const int sel_of[] = {
	[PCL_CPU] = 0, [PCL_EVENT] = 1, [PCL_PID] = 2, [PCL_TYPE] = 3,
	[PCL_PERIOD] = 4, [PCL_TERMS] = 5, [PCL_FORMAT] = 6,
};

static void grammar_seed(const char *dir, const struct perfctrfs_case *c)
{
	size_t len = c->len > 4096 ? 4096 : c->len;
	unsigned char *buf = malloc(len + 2);
	unsigned int arg = 64, i;

	if (!buf)
		exit(1);
	if (c->level == PCL_PERIOD)
		arg = c->under;
	if (c->level == PCL_TERMS)
		for (i = 0; i < ARRAY_SIZE(tc_pmus); i++)
			if (!strcmp(tc_pmus[i].name, c->pmu))
				arg = i;
	buf[0] = sel_of[c->level];
	buf[1] = arg;
	memcpy(buf + 2, c->in, len);
	put(dir, "g", buf, len + 2);
	free(buf);
}

static void fuse_path(const char *dir, unsigned char flags, const char *cpu,
		      const char *ev, const char *pid, const char *type,
		      const char *period)
{
	char buf[8192];
	int n;

	buf[0] = flags;
	n = snprintf(buf + 1, sizeof(buf) - 1, "%s/%s/%s/%s/%s",
		     cpu, ev, pid, type, period);
	if (n > 0 && (size_t)n < sizeof(buf) - 1)
		put(dir, "f", buf, n + 1);
}

int main(int argc, char **argv)
{
	static const char *const types[] = { "simple/0", "times/0", "simple/100ms",
					     "irq/1000", "times/1" };
	unsigned int i, t;
	char name[4097];

	if (argc != 3) {
		fprintf(stderr, "usage: gen_seeds GRAMMAR_DIR FUSE_DIR\n");
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(perfctrfs_cases); i++) {
		const struct perfctrfs_case *c = &perfctrfs_cases[i];
		size_t len = c->len > 255 ? 255 : c->len;

		grammar_seed(argv[1], c);
		/* the kernel never sends a NUL or a '/' inside a name */
		if (memchr(c->in, 0, len) || memchr(c->in, '/', len))
			continue;
		memcpy(name, c->in, len);
		name[len] = 0;
		switch (c->level) {
		case PCL_CPU:
			fuse_path(argv[2], 0, name, "task_clock", "self", "simple", "0");
			break;
		case PCL_EVENT:
			fuse_path(argv[2], 0x10, "all", name, "self", "simple", "0");
			break;
		case PCL_PID:
			fuse_path(argv[2], 0, "all", "task_clock", name, "simple", "0");
			break;
		case PCL_TYPE:
			fuse_path(argv[2], 0, "0", "context_switches", "self", name, "0");
			break;
		case PCL_PERIOD:
			fuse_path(argv[2], 0, "all", "page_faults", "self",
				  perfctrfs_type_names[c->under], name);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < perfctrfs_nr_builtins; i++)
		for (t = 0; t < ARRAY_SIZE(types); t++) {
			char tp[32];
			char *slash;

			strcpy(tp, types[t]);
			slash = strchr(tp, '/');
			*slash = 0;
			fuse_path(argv[2], (i * 7 + t) & 0xff, t & 1 ? "0" : "all",
				  perfctrfs_builtins[i].name, t == 2 ? "all" : "self",
				  tp, slash + 1);
		}
	printf("%u seeds\n", nr_written);
	return 0;
}
