// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit walk of the perfctrfs grammar's test vectors, grammar_cases.h:
 * the same tables, and the same checks, that tests/unit/ runs over the
 * same grammar.c in userspace.  Each input is copied into a kmalloc()ed
 * buffer of exactly its length, so KASAN sees a parser reading past it.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "grammar.h"
#include "grammar_cases.h"

static void perfctrfs_expect(struct kunit *test, bool ok,
			     const struct perfctrfs_case_fail *f)
{
	if (!ok)
		KUNIT_FAIL(test, "%s [%d]: got %llu (0x%llx), want %llu (0x%llx)",
			   f->what, f->member, f->got, f->got, f->want, f->want);
}

static void perfctrfs_case_to_desc(const struct perfctrfs_case *c, char *desc)
{
	perfctrfs_case_desc(c, desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(perfctrfs_grammar, perfctrfs_cases, perfctrfs_case_to_desc);

static void perfctrfs_grammar_test(struct kunit *test)
{
	const struct perfctrfs_case *c = test->param_value;
	struct perfctrfs_case_fail f;
	char *in;

	in = kunit_kmalloc(test, c->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in);
	memcpy(in, c->in, c->len);
	perfctrfs_expect(test, perfctrfs_case_run(c, in, &f), &f);
}

static void perfctrfs_encoding_to_desc(const struct perfctrfs_encoding_case *e,
				       char *desc)
{
	strscpy(desc, e->event, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(perfctrfs_encoding, perfctrfs_encoding_cases,
		  perfctrfs_encoding_to_desc);

static void perfctrfs_encoding_test(struct kunit *test)
{
	struct perfctrfs_case_fail f;
	char *buf;

	buf = kunit_kzalloc(test, PERFCTRFS_CASE_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	perfctrfs_expect(test, perfctrfs_encoding_check(test->param_value, buf, &f), &f);
}

static void perfctrfs_alias_path_to_desc(const struct perfctrfs_alias_path_case *a,
					 char *desc)
{
	strscpy(desc, a->path, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(perfctrfs_alias_path, perfctrfs_alias_path_cases,
		  perfctrfs_alias_path_to_desc);

static void perfctrfs_alias_path_test(struct kunit *test)
{
	struct perfctrfs_case_fail f;
	char *buf;

	buf = kunit_kzalloc(test, PERFCTRFS_CASE_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	perfctrfs_expect(test, perfctrfs_alias_path_check(test->param_value, buf, &f), &f);
}

static void perfctrfs_builtins_test(struct kunit *test)
{
	struct perfctrfs_case_fail f;
	char *buf;

	buf = kunit_kzalloc(test, PERFCTRFS_CASE_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	perfctrfs_expect(test, perfctrfs_builtins_check(buf, &f), &f);
}

static void perfctrfs_catalog_test(struct kunit *test)
{
	struct perfctrfs_case_fail f;
	char *buf;

	buf = kunit_kzalloc(test, PERFCTRFS_CASE_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	perfctrfs_expect(test, perfctrfs_catalog_check(buf, &f), &f);
}

static struct kunit_case perfctrfs_grammar_cases[] = {
	KUNIT_CASE_PARAM(perfctrfs_grammar_test, perfctrfs_grammar_gen_params),
	KUNIT_CASE_PARAM(perfctrfs_encoding_test, perfctrfs_encoding_gen_params),
	KUNIT_CASE_PARAM(perfctrfs_alias_path_test, perfctrfs_alias_path_gen_params),
	KUNIT_CASE(perfctrfs_builtins_test),
	KUNIT_CASE(perfctrfs_catalog_test),
	{}
};

static struct kunit_suite perfctrfs_grammar_suite = {
	.name = "perfctrfs_grammar",
	.test_cases = perfctrfs_grammar_cases,
};

kunit_test_suite(perfctrfs_grammar_suite);

MODULE_LICENSE("GPL");
