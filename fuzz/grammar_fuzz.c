// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the shared path grammar (fs/perfctrfs/grammar.c).
 *
 * Input: one selector byte, one argument byte, then the name.  The name is
 * passed as libFuzzer's own exact-size heap buffer with its length and no
 * NUL, so ASan catches any read past @len, which the (name, len) API
 * promises never to make.  Each successful parse is checked against what
 * the grammar promises: canonical numbers print back to the same name, the
 * encoding fits the buffer it was given and is NUL-terminated.  A broken
 * promise aborts, and libFuzzer reports it as a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fs/perfctrfs/grammar.h"
#include "../fs/perfctrfs/grammar_cases.h"

enum {
	SEL_CPU,
	SEL_EVENT,
	SEL_PID,
	SEL_TYPE,
	SEL_PERIOD,
	SEL_TERMS,
	SEL_FORMAT,
	SEL_ALIAS,
	SEL_NR,
};

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "grammar_fuzz: %s:%d: broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/* Does the decimal @v print as exactly the @len bytes at @s? */
static int prints_as(unsigned long long v, const char *s, size_t len)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%llu", v);

	return (size_t)n == len && !memcmp(buf, s, len);
}

/* The encoding into a buffer of exactly @size bytes, on the heap. */
static void check_encoding(const struct perfctrfs_event_spec *spec,
			   size_t size)
{
	char *buf = malloc(size ? size : 1);
	int n;

	CHECK(buf);
	n = perfctrfs_format_encoding(spec, buf, size);
	if (n >= 0) {
		CHECK((size_t)n < size);
		CHECK(strlen(buf) == (size_t)n);
	} else {
		CHECK(n == -ENAMETOOLONG);
	}
	free(buf);
}

static void fuzz_event(const char *s, size_t len, unsigned int arg)
{
	struct perfctrfs_event_spec spec;
	unsigned int i;

	if (perfctrfs_parse_event(s, len, &perfctrfs_test_catalog, &spec))
		return;
	CHECK(spec.nr >= 1 && spec.nr <= PERFCTRFS_MAX_GROUP);
	for (i = 0; i < spec.nr; i++) {
		CHECK(spec.ev[i].exclude_user <= 1);
		CHECK(spec.ev[i].exclude_kernel <= 1);
		CHECK(spec.ev[i].exclude_hv <= 1);
		CHECK(spec.ev[i].exclude_idle <= 1);
	}
	check_encoding(&spec, 4096);
	check_encoding(&spec, arg);
}

static void fuzz_alias(const char *s, size_t len, unsigned int arg)
{
	const char *nul = memchr(s, 0, len);
	char *pmu, *alias, *buf;
	size_t plen, i;
	int n;

	/* "<pmu>\0<alias>": both need their NUL for this entry point */
	if (!nul)
		return;
	plen = nul - s;
	pmu = strndup(s, plen);
	alias = strndup(nul + 1, len - plen - 1);
	buf = malloc(arg ? arg : 1);
	CHECK(pmu && alias && buf);
	n = perfctrfs_alias_path(pmu, alias, buf, arg);
	if (n >= 0) {
		CHECK((size_t)n < arg);
		CHECK(strlen(buf) == (size_t)n);
		/* the alias part is in path form; the PMU's name is kept */
		CHECK((size_t)n >= plen + 1 && buf[plen] == '.');
		CHECK(!strchr(buf + plen + 1, '-'));
		for (i = plen + 1; i < (size_t)n; i++)
			CHECK(buf[i] < 'A' || buf[i] > 'Z');
	} else {
		CHECK(n == -ENAMETOOLONG);
	}
	free(pmu);
	free(alias);
	free(buf);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *s = (const char *)data + 2;
	struct perfctrfs_event ev;
	struct perfctrfs_period period;
	struct perfctrfs_cpu cpu;
	struct perfctrfs_pid pid;
	enum perfctrfs_type type;
	unsigned int sel, arg;
	size_t len;
	u64 mask;
	u8 word;
	int err;

	if (size < 2)
		return 0;
	sel = data[0] % SEL_NR;
	arg = data[1];
	len = size - 2;
	switch (sel) {
	case SEL_CPU:
		err = perfctrfs_parse_cpu(s, len, &cpu);
		CHECK(err == 0 || err == -ENOENT);
		if (!err && !cpu.all)
			CHECK(cpu.cpu <= PERFCTRFS_MAX_ID && prints_as(cpu.cpu, s, len));
		break;
	case SEL_EVENT:
		fuzz_event(s, len, arg);
		break;
	case SEL_PID:
		err = perfctrfs_parse_pid(s, len, &pid);
		CHECK(err == 0 || err == -ENOENT);
		if (!err && pid.kind == PERFCTRFS_PID_NUM)
			CHECK(pid.pid >= 1 && pid.pid <= PERFCTRFS_MAX_ID &&
			      prints_as(pid.pid, s, len));
		break;
	case SEL_TYPE:
		err = perfctrfs_parse_type(s, len, &type);
		CHECK(err == 0 || err == -ENOENT);
		if (!err)
			CHECK((unsigned int)type < 3 &&
			      strlen(perfctrfs_type_names[type]) == len &&
			      !memcmp(perfctrfs_type_names[type], s, len));
		break;
	case SEL_PERIOD:
		type = arg % 3;
		err = perfctrfs_parse_period(s, len, type, &period);
		CHECK(err == 0 || err == -ENOENT);
		if (err)
			break;
		if (period.is_time)
			CHECK(period.value >= PERFCTRFS_MIN_PERIOD_NS);
		else
			CHECK(period.value <= PERFCTRFS_MAX_COUNT &&
			      prints_as(period.value, s, len));
		if (type == PERFCTRFS_IRQ)
			CHECK(period.value != 0);
		break;
	case SEL_TERMS:
		memset(&ev, 0, sizeof(ev));
		err = perfctrfs_encode_terms(&tc_pmus[arg % ARRAY_SIZE(tc_pmus)],
					     s, len, &ev);
		CHECK(err == 0 || err == -ENOENT);
		CHECK(ev.type == 0 && !ev.exclude_user && !ev.exclude_kernel);
		break;
	case SEL_FORMAT:
		err = perfctrfs_parse_format(s, len, &word, &mask);
		CHECK(err == 0 || err == -EINVAL);
		if (!err)
			CHECK(word <= 2 && mask != 0);
		break;
	case SEL_ALIAS:
		fuzz_alias(s, len, arg);
		break;
	}
	return 0;
}
