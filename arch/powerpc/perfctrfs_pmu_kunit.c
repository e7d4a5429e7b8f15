// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for arch/powerpc/perfctrfs_pmu.c, included at its bottom
 * (as fs/ext4/mballoc.c includes its tests) so they reach its static
 * functions.  The codes are the POWER drivers' own (power9-events-list.h
 * and friends); the pure cases run on any POWER CPU, the live ones check
 * the driver's constraint code on the CPU they run on and say so when it
 * is not the one they need.
 */
#include <kunit/test.h>

/* ---- the drivers' lists --------------------------------------------- */

struct perfctrfs_ppc_find {
	const char *name;
	u64 code;
	bool found;
	unsigned int nr;
};

static int perfctrfs_ppc_find_fn(void *arg, const char *name, u64 code)
{
	struct perfctrfs_ppc_find *f = arg;

	f->nr++;
	if (!strcmp(name, f->name)) {
		f->code = code;
		f->found = true;
	}
	return 0;
}

struct perfctrfs_ppc_list_case {
	enum perfctrfs_ppc_gen gen;
	const char *name;
	u64 code;
};

/* Codes as the drivers' *-events-list.h files define them. */
static const struct perfctrfs_ppc_list_case perfctrfs_ppc_list_cases[] = {
	{ PERFCTRFS_PPC_P9, "PM_RUN_INST_CMPL", 0x500fa },
	{ PERFCTRFS_PPC_P9, "PM_RUN_CYC", 0x600f4 },
	{ PERFCTRFS_PPC_P9, "PM_CYC", 0x1e },
	{ PERFCTRFS_PPC_P9, "PM_INST_CMPL", 0x02 },
	{ PERFCTRFS_PPC_P9, "PM_RUN_INST_CMPL_ALT", 0x400fa },
	{ PERFCTRFS_PPC_P9, "PM_LD_REF_L1", 0x100fc },
	{ PERFCTRFS_PPC_P8, "PM_RUN_INST_CMPL", 0x500fa },
	{ PERFCTRFS_PPC_P8, "PM_CYC", 0x1e },
	{ PERFCTRFS_PPC_P10, "PM_CYC", 0x600f4 },
	{ PERFCTRFS_PPC_P10, "PM_INST_CMPL", 0x500fa },
	{ PERFCTRFS_PPC_P10, "PM_INST_FROM_L1MISS", 0x03f00000001c040ULL },
};

static void perfctrfs_ppc_list_desc(const struct perfctrfs_ppc_list_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "POWER%d %s", 7 + c->gen,
		 c->name);
}

KUNIT_ARRAY_PARAM(perfctrfs_ppc_list, perfctrfs_ppc_list_cases,
		  perfctrfs_ppc_list_desc);

static void perfctrfs_ppc_list_names_driver_codes(struct kunit *test)
{
	const struct perfctrfs_ppc_list_case *c = test->param_value;
	struct perfctrfs_ppc_find f = { .name = c->name };

	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_walk(c->gen, perfctrfs_ppc_find_fn,
						 &f), 0);
	KUNIT_ASSERT_TRUE(test, f.found);
	KUNIT_EXPECT_EQ(test, f.code, c->code);
}

/* Sizes of the 6.1 lists: a list that changes shape is noticed here. */
static void perfctrfs_ppc_lists_complete(struct kunit *test)
{
	struct perfctrfs_ppc_find f = { .name = "" };

	perfctrfs_ppc_walk(PERFCTRFS_PPC_P8, perfctrfs_ppc_find_fn, &f);
	KUNIT_EXPECT_EQ(test, f.nr, 42U);
	f.nr = 0;
	perfctrfs_ppc_walk(PERFCTRFS_PPC_P9, perfctrfs_ppc_find_fn, &f);
	KUNIT_EXPECT_EQ(test, f.nr, 59U);
	f.nr = 0;
	perfctrfs_ppc_walk(PERFCTRFS_PPC_P10, perfctrfs_ppc_find_fn, &f);
	KUNIT_EXPECT_EQ(test, f.nr, 28U);
	f.nr = 0;
	perfctrfs_ppc_walk(PERFCTRFS_PPC_OTHER, perfctrfs_ppc_find_fn, &f);
	KUNIT_EXPECT_EQ(test, f.nr, 0U);
}

static void perfctrfs_ppc_pvr_picks_driver(struct kunit *test)
{
	/* PVRs of real parts: POWER8 DD2.1, POWER9 DD2.2, POWER10 DD2.0 */
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_gen_of(0x004d0201), PERFCTRFS_PPC_P8);
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_gen_of(0x004e1202), PERFCTRFS_PPC_P9);
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_gen_of(0x00801200), PERFCTRFS_PPC_P10);
	/* POWER7 (0x003f): no ISA 2.07 PMU */
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_gen_of(0x003f0201), PERFCTRFS_PPC_OTHER);
}

/* ---- raw codes against each ISA's encoding --------------------------- */

struct perfctrfs_ppc_raw_case {
	u64 code;
	int p8, p9, p10;
	const char *what;
};

static const struct perfctrfs_ppc_raw_case perfctrfs_ppc_raw_cases[] = {
	{ 0x500fa, 0, 0, 0, "PM_RUN_INST_CMPL" },
	{ 0x600f4, 0, 0, 0, "PM_RUN_CYC" },
	{ 0x1e, 0, 0, 0, "PM_CYC" },
	{ 0x02, 0, 0, 0, "PM_INST_CMPL" },
	{ 0x34340401e0ULL, 0, 0, 0, "POWER9 MEM_LOADS" },
	/* bit 9: POWER10's radix scope qualifier only */
	{ 0x200, -ENOENT, -ENOENT, 0, "bit 9" },
	/* bit 10: POWER9's two-bit combine field */
	{ 0x400, -ENOENT, 0, 0, "bit 10" },
	/* bits 50-51: SDAR mode on POWER9, MMCR3 on POWER10 */
	{ 0x4000000000000ULL, -ENOENT, 0, 0, "bit 50" },
	/* POWER10 PM_INST_FROM_L1MISS: MMCR3 bits 48-53 */
	{ 0x03f00000001c040ULL, -ENOENT, -ENOENT, 0, "POWER10 PM_INST_FROM_L1MISS" },
	{ 0x10000000000000ULL, -ENOENT, -ENOENT, 0, "bit 52" },
	{ 0x0800000000000000ULL, -ENOENT, -ENOENT, 0, "bit 59" },
	/* bits 60-63 are Linux's: EBB, BHRB, IFM */
	{ 0x80000000000500faULL, 0, 0, 0, "EBB PM_RUN_INST_CMPL" },
};

static void perfctrfs_ppc_raw_desc(const struct perfctrfs_ppc_raw_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#llx %s", c->code, c->what);
}

KUNIT_ARRAY_PARAM(perfctrfs_ppc_raw, perfctrfs_ppc_raw_cases,
		  perfctrfs_ppc_raw_desc);

static void perfctrfs_ppc_raw_fields_per_isa(struct kunit *test)
{
	const struct perfctrfs_ppc_raw_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_raw_fits(c->code, PERFCTRFS_PPC_P8),
			c->p8);
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_raw_fits(c->code, PERFCTRFS_PPC_P9),
			c->p9);
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_raw_fits(c->code, PERFCTRFS_PPC_P10),
			c->p10);
	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_raw_fits(c->code, PERFCTRFS_PPC_OTHER),
			0);
}

/* The hook on this CPU, with the driver's constraint rules. */
static void perfctrfs_ppc_raw_check_on_this_cpu(struct kunit *test)
{
	enum perfctrfs_ppc_gen gen = perfctrfs_ppc_this_gen();

	if (gen == PERFCTRFS_PPC_OTHER) {
		KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x500fb), 0);
		kunit_skip(test, "no POWER8/9/10 PMU (PVR %#lx)", mfspr(SPRN_PVR));
	}
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x500fa), 0);
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x1e), 0);
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x100fc), 0);
	/* PMC5 counts only 0x500fa, PMC6 only 0x600f4 */
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x500fb), -ENOENT);
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x600fa), -ENOENT);
	/* there is no PMC7 */
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x700f4), -ENOENT);
	/* EBB must name its PMC */
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x8000000000000002ULL),
			-ENOENT);
	/* BHRB only with EBB */
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x40000000000500faULL),
			-ENOENT);
	/* bits outside this ISA's encoding (52 is MMCR3's on POWER10) */
	if (gen != PERFCTRFS_PPC_P10)
		KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(BIT_ULL(52)),
				-ENOENT);
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x200),
			gen == PERFCTRFS_PPC_P10 ? 0 : -ENOENT);
}

/* ---- group constraints ------------------------------------------------ */

/*
 * Constraints built the way isa207_get_constraint() builds them for
 * plain (unmarked, non-threshold) codes, so the conflict finder is tested
 * on any CPU: a PMC number 1-6, 0 for "any of PMC1-4", and the EBB bit.
 * 0x500fa is PMC5 only, 0x100fc PMC1 only, 0x4080 any of PMC1-4.
 */
struct perfctrfs_ppc_member {
	u64 code;
	unsigned int pmc;
	bool ebb;
};

static void perfctrfs_ppc_fake_constraint(const struct perfctrfs_ppc_member *m,
					  unsigned long *mask,
					  unsigned long *val)
{
	*mask = CNST_EBB_MASK;
	*val = CNST_EBB_VAL(m->ebb);
	if (m->pmc) {
		*mask |= CNST_PMC_MASK(m->pmc);
		*val |= CNST_PMC_VAL(m->pmc);
	}
	if (m->pmc <= 4) {
		*mask |= CNST_NC_MASK;
		*val |= CNST_NC_VAL;
	}
}

struct perfctrfs_ppc_group_case {
	const char *what;
	unsigned int nr;
	struct perfctrfs_ppc_member m[PERFCTRFS_PPC_MAX_COUNTERS];
	const char *want;
};

static const struct perfctrfs_ppc_group_case perfctrfs_ppc_group_cases[] = {
	{ "cycles and instructions fit", 2,
	  { { 0x600f4, 6 }, { 0x500fa, 5 } }, "" },
	{ "PM_RUN_INST_CMPL twice", 2,
	  { { 0x500fa, 5 }, { 0x500fa, 5 } },
	  "0x500fa and 0x500fa both need PMC5" },
	{ "PM_LD_REF_L1 twice", 3,
	  { { 0x500fa, 5 }, { 0x100fc, 1 }, { 0x100fc, 1 } },
	  "0x100fc and 0x100fc both need PMC1" },
	{ "four on PMC1-4 fit", 4,
	  { { 0x4080 }, { 0x4080 }, { 0x4080 }, { 0x4080 } }, "" },
	{ "five on PMC1-4", 5,
	  { { 0x4080 }, { 0x4080 }, { 0x4080 }, { 0x4080 }, { 0x4082 } },
	  "0x4082 is one event too many for PMC1-4 (PMC5/6 count only 0x500fa/0x600f4)" },
	{ "EBB with non-EBB", 2,
	  { { 0x80000000000100fcULL, 1, true }, { 0x200fd, 2 } },
	  "0x80000000000100fc and 0x200fd need different EBB settings" },
};

static void perfctrfs_ppc_group_desc(const struct perfctrfs_ppc_group_case *c,
				     char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(perfctrfs_ppc_group, perfctrfs_ppc_group_cases,
		  perfctrfs_ppc_group_desc);

static void perfctrfs_ppc_group_conflict_named(struct kunit *test)
{
	const struct perfctrfs_ppc_group_case *c = test->param_value;
	unsigned long mask[PERFCTRFS_PPC_MAX_COUNTERS];
	unsigned long val[PERFCTRFS_PPC_MAX_COUNTERS];
	u64 codes[PERFCTRFS_PPC_MAX_COUNTERS];
	struct perfctrfs_ppc_conflict conflict;
	char buf[128] = "";
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		codes[i] = c->m[i].code;
		perfctrfs_ppc_fake_constraint(&c->m[i], &mask[i], &val[i]);
	}
	if (perfctrfs_ppc_find_conflict(mask, val, c->nr, CNST_CACHE_PMC4_MASK,
					CNST_CACHE_PMC4_VAL, &conflict))
		perfctrfs_ppc_explain(codes, &conflict, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, c->want);
}

/*
 * The same groups through the hook, with the driver's real constraints,
 * on a POWER9 (the QEMU pseries guest with -cpu POWER9 is one).
 */
static void perfctrfs_ppc_group_explain_on_power9(struct kunit *test)
{
	static const u64 five[] = { 0x4080, 0x4080, 0x4080, 0x4080, 0x4080 };
	struct perf_event_attr *attrs;
	char buf[128];
	unsigned int i;

	if (perfctrfs_ppc_this_gen() != PERFCTRFS_PPC_P9)
		kunit_skip(test, "not a POWER9 (PVR %#lx)", mfspr(SPRN_PVR));

	attrs = kunit_kcalloc(test, 8, sizeof(*attrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attrs);
	for (i = 0; i < 8; i++) {
		attrs[i].size = sizeof(*attrs);
		attrs[i].type = PERF_TYPE_RAW;
	}

	attrs[0].config = 0x600f4;
	attrs[1].config = 0x500fa;
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_group_explain(attrs, 2, buf,
							   sizeof(buf)), 0);

	attrs[0].config = 0x500fa;
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, 2, buf,
							   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "0x500fa and 0x500fa both need PMC5");

	attrs[0].config = 0x100fc;
	attrs[1].config = 0x100fc;
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, 2, buf,
							   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "0x100fc and 0x100fc both need PMC1");

	for (i = 0; i < ARRAY_SIZE(five); i++)
		attrs[i].config = five[i];
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, 5, buf,
							   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf,
			   "0x4080 is one event too many for PMC1-4 (PMC5/6 count only 0x500fa/0x600f4)");

	attrs[0].config = 0x500fb;
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, 1, buf,
							   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf,
			   "0x500fb is not an event code this PMU defines");

	for (i = 0; i < 7; i++)
		attrs[i].config = 0x1e;
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, 7, buf,
							   sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "group needs 7 counters, PMU has 6");

	/* software members need no PMC */
	for (i = 0; i < 8; i++) {
		attrs[i].type = PERF_TYPE_SOFTWARE;
		attrs[i].config = PERF_COUNT_SW_TASK_CLOCK;
	}
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_group_explain(attrs, 8, buf,
							   sizeof(buf)), 0);
}

/* ---- emitting --------------------------------------------------------- */

struct perfctrfs_ppc_sink {
	unsigned int calls;
	bool saw_run_inst_cmpl, saw_mem, saw_bad_terms;
};

static int perfctrfs_ppc_sink_emit(void *ctx, const char *name,
				   const char *terms, const char *desc)
{
	struct perfctrfs_ppc_sink *s = ctx;

	s->calls++;
	if (!strcmp(name, "PM_RUN_INST_CMPL"))
		s->saw_run_inst_cmpl = !strcmp(terms, "event=0x500fa");
	if (!strncmp(name, "MEM_", 4))
		s->saw_mem = true;
	if (strncmp(terms, "event=0x", 8))
		s->saw_bad_terms = true;
	return 0;
}

static void perfctrfs_ppc_emits_pm_names_only(struct kunit *test)
{
	struct perfctrfs_ppc_sink s = { };
	struct perfctrfs_ppc_emit_ctx e = {
		.gen = PERFCTRFS_PPC_P9,
		.emit = perfctrfs_ppc_sink_emit,
		.ctx = &s,
	};

	KUNIT_EXPECT_EQ(test, perfctrfs_ppc_walk(PERFCTRFS_PPC_P9,
						 perfctrfs_ppc_emit_one, &e), 0);
	KUNIT_EXPECT_TRUE(test, s.saw_run_inst_cmpl);
	KUNIT_EXPECT_FALSE(test, s.saw_mem);
	KUNIT_EXPECT_FALSE(test, s.saw_bad_terms);
	/* 59 entries, 2 of them MEM_*; on a POWER9 none is refused */
	if (perfctrfs_ppc_this_gen() == PERFCTRFS_PPC_P9)
		KUNIT_EXPECT_EQ(test, s.calls, 57U);
	else
		KUNIT_EXPECT_LE(test, s.calls, 57U);
}

static void perfctrfs_ppc_other_pmu_not_described(struct kunit *test)
{
	struct perfctrfs_ppc_sink s = { };
	struct pmu *other;

	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	other->name = "hv_24x7";
	other->type = PERF_TYPE_MAX + 1;
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_pmu_events(other,
							perfctrfs_ppc_sink_emit,
							&s), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, s.calls, 0U);
}

static struct kunit_case perfctrfs_ppc_cases[] = {
	KUNIT_CASE_PARAM(perfctrfs_ppc_list_names_driver_codes,
			 perfctrfs_ppc_list_gen_params),
	KUNIT_CASE(perfctrfs_ppc_lists_complete),
	KUNIT_CASE(perfctrfs_ppc_pvr_picks_driver),
	KUNIT_CASE_PARAM(perfctrfs_ppc_raw_fields_per_isa,
			 perfctrfs_ppc_raw_gen_params),
	KUNIT_CASE(perfctrfs_ppc_raw_check_on_this_cpu),
	KUNIT_CASE_PARAM(perfctrfs_ppc_group_conflict_named,
			 perfctrfs_ppc_group_gen_params),
	KUNIT_CASE(perfctrfs_ppc_group_explain_on_power9),
	KUNIT_CASE(perfctrfs_ppc_emits_pm_names_only),
	KUNIT_CASE(perfctrfs_ppc_other_pmu_not_described),
	{}
};

static struct kunit_suite perfctrfs_ppc_suite = {
	.name = "perfctrfs_powerpc_pmu",
	.test_cases = perfctrfs_ppc_cases,
};

kunit_test_suite(perfctrfs_ppc_suite);
