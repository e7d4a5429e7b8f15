// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for arch/x86/perfctrfs_pmu.c, included at its bottom (as
 * fs/ext4/mballoc.c includes its tests) so they reach its static
 * functions.  The inputs are recorded from real CPUs and real drivers and
 * the source of each is named beside it; the pure functions run the same
 * with or without a PMU, the live cases check what this machine answers.
 */
#include <kunit/test.h>

/* ---- CPUID leaf 0xA -> architectural events ------------------------- */

struct perfctrfs_x86_cpuid_case {
	const char *cpu;	/* where the registers come from */
	u32 eax, ebx;
	/* the event names, in bit order */
	const char *want[ARRAY_SIZE(perfctrfs_intel_arch_events) + 1];
};

static const struct perfctrfs_x86_cpuid_case perfctrfs_x86_cpuid_cases[] = {
	{
		/*
		 * Intel Core i7-8650U (Kaby Lake R) as a KVM guest sees it,
		 * "cpuid -r" in "Re: Windows fails to boot after rebase to
		 * QEMU master", kvm@vger.kernel.org, 2021-05-27: version 2,
		 * 4 counters, 48 bits, 7 events, none marked missing.
		 */
		"i7-8650U KVM guest", 0x07300402, 0x00000000,
		{ "unhalted_core_cycles", "instruction_retired",
		  "unhalted_reference_cycles", "llc_reference", "llc_misses",
		  "branch_instruction_retired", "branch_misses_retired", },
	},
	{
		/*
		 * An AMD host, whose leaf 0xA is all zero, quoted in kernel
		 * commit 7234c362ccb3 ("KVM: x86/pmu: Clear anythread
		 * deprecated bit when 0xa leaf is unsupported on the SVM").
		 */
		"AMD host", 0x00000000, 0x00000000, { },
	},
	{
		/*
		 * Nehalem with erratum AAJ80: CPUID marks branch misses
		 * retired (EBX bit 6) unavailable, which is what
		 * intel_nehalem_quirk() in arch/x86/events/intel/core.c
		 * tests for; EAX is Nehalem's version 3, 4 counters,
		 * 48 bits, 7 events.
		 */
		"Nehalem AAJ80", 0x07300403, 0x00000040,
		{ "unhalted_core_cycles", "instruction_retired",
		  "unhalted_reference_cycles", "llc_reference", "llc_misses",
		  "branch_instruction_retired", },
	},
	{
		/*
		 * Ice Lake's layout per the SDM (version 5, 8 counters,
		 * 48 bits, an 8-bit vector): the first to enumerate topdown
		 * slots, bit 7.
		 */
		"Ice Lake layout", 0x08300805, 0x00000000,
		{ "unhalted_core_cycles", "instruction_retired",
		  "unhalted_reference_cycles", "llc_reference", "llc_misses",
		  "branch_instruction_retired", "branch_misses_retired",
		  "topdown_slots", },
	},
	{
		/*
		 * The i7-8650U guest's EAX with EBX bit 7 set: a bit beyond
		 * the 7-bit vector says nothing, and topdown slots stays
		 * absent because the vector does not reach it.
		 */
		"bit beyond the vector", 0x07300402, 0x00000080,
		{ "unhalted_core_cycles", "instruction_retired",
		  "unhalted_reference_cycles", "llc_reference", "llc_misses",
		  "branch_instruction_retired", "branch_misses_retired", },
	},
	{
		/* A vector of 2 bits with bit 0 set: instructions only. */
		"short vector, cycles missing", 0x02300402, 0x00000001,
		{ "instruction_retired" },
	},
};

static void perfctrfs_x86_cpuid_desc(const struct perfctrfs_x86_cpuid_case *c,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s eax=%#010x ebx=%#010x",
		 c->cpu, c->eax, c->ebx);
}

KUNIT_ARRAY_PARAM(perfctrfs_x86_cpuid, perfctrfs_x86_cpuid_cases,
		  perfctrfs_x86_cpuid_desc);

static void perfctrfs_x86_cpuid_lists_present_events(struct kunit *test)
{
	const struct perfctrfs_x86_cpuid_case *c = test->param_value;
	u32 present = perfctrfs_x86_arch_present(c->eax, c->ebx);
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(perfctrfs_intel_arch_events); i++) {
		if (!(present & BIT(i)))
			continue;
		KUNIT_ASSERT_NOT_NULL_MSG(test, c->want[n], "extra event %s",
					  perfctrfs_intel_arch_events[i].name);
		KUNIT_EXPECT_STREQ(test, perfctrfs_intel_arch_events[i].name,
				   c->want[n]);
		n++;
	}
	KUNIT_EXPECT_PTR_EQ(test, c->want[n], NULL);
}

/* ---- encodings, as the drivers print them --------------------------- */

struct perfctrfs_x86_terms_case {
	u64 config;
	const char *want;
	const char *source;
};

/*
 * The strings /sys/bus/event_source/devices/cpu/events/<alias> shows on Intel
 * (x86_event_sysfs_show() over intel_perfmon_event_map[]) and on AMD
 * (amd_event_sysfs_show()).  Each arch table entry must read exactly like
 * the driver alias for the same counter.
 */
static const struct perfctrfs_x86_terms_case perfctrfs_x86_terms_cases[] = {
	{ 0x003c, "event=0x3c", "Intel cpu-cycles" },
	{ 0x00c0, "event=0xc0", "Intel instructions" },
	{ 0x013c, "event=0x3c,umask=0x01", "Intel bus-cycles" },
	{ 0x4f2e, "event=0x2e,umask=0x4f", "Intel cache-references" },
	{ 0x412e, "event=0x2e,umask=0x41", "Intel cache-misses" },
	{ 0x00c5, "event=0xc5", "Intel branch-misses" },
	{ 0x0076, "event=0x76", "AMD Fam17h cpu-cycles" },
	{ 0xff60, "event=0x60,umask=0xff", "AMD Fam17h cache-references" },
	{ 0x0964, "event=0x64,umask=0x09", "AMD Fam17h cache-misses" },
	/*
	 * Zen 4 ref-cycles, PMCx120: event bits 32-35 join the select
	 * ("perf/x86/amd/core: Add ref-cycles event for Zen 4 and later",
	 * linux-kernel, 2024-03-25).
	 */
	{ 0x100000120ULL, "event=0x120", "AMD Zen 4 ref-cycles" },
};

static void perfctrfs_x86_terms_desc(const struct perfctrfs_x86_terms_case *c,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %#llx", c->source, c->config);
}

KUNIT_ARRAY_PARAM(perfctrfs_x86_terms, perfctrfs_x86_terms_cases,
		  perfctrfs_x86_terms_desc);

static void perfctrfs_x86_terms_read_like_sysfs(struct kunit *test)
{
	const struct perfctrfs_x86_terms_case *c = test->param_value;
	char buf[PERFCTRFS_X86_TERMS_MAX];

	perfctrfs_x86_terms(c->config, buf);
	KUNIT_EXPECT_STREQ(test, buf, c->want);
}

/* The arch tables agree with the kernel's own generic-event maps. */
static void perfctrfs_x86_tables_match_driver_maps(struct kunit *test)
{
	/* intel_perfmon_event_map[] in arch/x86/events/intel/core.c */
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[0].config, 0x003cULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[1].config, 0x00c0ULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[2].config, 0x013cULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[3].config, 0x4f2eULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[4].config, 0x412eULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[5].config, 0x00c4ULL);
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[6].config, 0x00c5ULL);
	/* SDM: topdown slots, event 0xa4 umask 0x01 */
	KUNIT_EXPECT_EQ(test, perfctrfs_intel_arch_events[7].config, 0x01a4ULL);
	/* One entry per CPUID.0AH:EBX bit the driver names, plus slots. */
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(perfctrfs_intel_arch_events),
			(size_t)ARCH_PERFMON_EVENTS_COUNT + 1);
}

/* ---- emitting ------------------------------------------------------- */

struct perfctrfs_x86_sink {
	char name[8][40];
	char terms[8][PERFCTRFS_X86_TERMS_MAX];
	unsigned int calls;
	unsigned int stop_after;	/* 0: never stop */
	bool no_desc;
};

static int perfctrfs_x86_sink_emit(void *ctx, const char *name,
				   const char *terms, const char *desc)
{
	struct perfctrfs_x86_sink *s = ctx;

	if (s->stop_after && s->calls == s->stop_after)
		return -ENOSPC;
	if (s->calls < ARRAY_SIZE(s->name)) {
		strscpy(s->name[s->calls], name, sizeof(s->name[0]));
		strscpy(s->terms[s->calls], terms, sizeof(s->terms[0]));
	}
	s->no_desc |= !desc;
	s->calls++;
	return 0;
}

static void perfctrfs_x86_emit_follows_cpuid(struct kunit *test)
{
	static const char *const want[][2] = {
		{ "unhalted_core_cycles", "event=0x3c" },
		{ "instruction_retired", "event=0xc0" },
		{ "unhalted_reference_cycles", "event=0x3c,umask=0x01" },
		{ "llc_reference", "event=0x2e,umask=0x4f" },
		{ "llc_misses", "event=0x2e,umask=0x41" },
		{ "branch_instruction_retired", "event=0xc4" },
	};
	struct perfctrfs_x86_sink *s;
	unsigned int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* Nehalem AAJ80 again: seven bits, bit 6 marked missing */
	KUNIT_EXPECT_EQ(test, perfctrfs_x86_emit_table(perfctrfs_intel_arch_events,
						       ARRAY_SIZE(perfctrfs_intel_arch_events),
						       perfctrfs_x86_arch_present(0x07300403, 0x40),
						       perfctrfs_x86_sink_emit, s), 0);
	KUNIT_ASSERT_EQ(test, s->calls, (unsigned int)ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_STREQ(test, s->name[i], want[i][0]);
		KUNIT_EXPECT_STREQ(test, s->terms[i], want[i][1]);
	}
	KUNIT_EXPECT_FALSE(test, s->no_desc);
}

static void perfctrfs_x86_emit_error_stops_walk(struct kunit *test)
{
	struct perfctrfs_x86_sink *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->stop_after = 2;
	KUNIT_EXPECT_EQ(test, perfctrfs_x86_emit_table(perfctrfs_amd_f17h_events,
						       ARRAY_SIZE(perfctrfs_amd_f17h_events),
						       PERFCTRFS_AMD_ALL,
						       perfctrfs_x86_sink_emit, s), -ENOSPC);
	KUNIT_EXPECT_EQ(test, s->calls, 2U);
	KUNIT_EXPECT_STREQ(test, s->name[0], "ls_not_halted_cyc");
	KUNIT_EXPECT_STREQ(test, s->name[1], "ex_ret_instr");
}

/* ---- raw codes ------------------------------------------------------- */

struct perfctrfs_x86_raw_case {
	u64 config;
	int intel, amd;		/* expected result with each vendor's mask */
	const char *what;
};

static const struct perfctrfs_x86_raw_case perfctrfs_x86_raw_cases[] = {
	/* hpa's example: event select 0x64, unit mask 0x40 */
	{ 0x4064, 0, 0, "event 0x64 umask 0x40" },
	/* perf-list(1): "perf stat -e r1a8 -a sleep 1" */
	{ 0x01a8, 0, 0, "perf-list r1a8" },
	{ 0x412e, 0, 0, "Intel LLC misses" },
	{ 0x0004003c, 0, 0, "edge" },
	{ 0x0080003c, 0, 0, "inv" },
	{ 0x0100003c, 0, 0, "cmask=1" },
	{ 0xff00ffff, 0, 0, "every event, umask and cmask bit" },
	{ 0x0001003c, -ENOENT, -ENOENT, "usr: use :u" },
	{ 0x0002003c, -ENOENT, -ENOENT, "os: use :k" },
	{ 0x0008003c, -ENOENT, -ENOENT, "pc: use a PMU term" },
	{ 0x0010003c, -ENOENT, -ENOENT, "int: the driver's" },
	{ 0x0020003c, -ENOENT, -ENOENT, "any: use a PMU term" },
	{ 0x0040003c, -ENOENT, -ENOENT, "en: the driver's" },
	/* Zen 4 ref-cycles, PMCx120: AMD event bits 32-35 */
	{ 0x100000120ULL, -ENOENT, 0, "AMD PMCx120" },
	{ 0xf000000ffULL, -ENOENT, 0, "AMD event bits 32-35" },
	{ 0x1000000000ULL, -ENOENT, -ENOENT, "bit 36" },
	{ 0x8000000000000000ULL, -ENOENT, -ENOENT, "bit 63" },
};

static void perfctrfs_x86_raw_desc(const struct perfctrfs_x86_raw_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#llx %s", c->config, c->what);
}

KUNIT_ARRAY_PARAM(perfctrfs_x86_raw, perfctrfs_x86_raw_cases,
		  perfctrfs_x86_raw_desc);

static void perfctrfs_x86_raw_accepts_driver_fields_only(struct kunit *test)
{
	const struct perfctrfs_x86_raw_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, perfctrfs_x86_raw_fits(c->config,
						     perfctrfs_x86_raw_mask(X86_VENDOR_INTEL)),
			c->intel);
	KUNIT_EXPECT_EQ(test, perfctrfs_x86_raw_fits(c->config,
						     perfctrfs_x86_raw_mask(X86_VENDOR_AMD)),
			c->amd);
	KUNIT_EXPECT_EQ(test, perfctrfs_x86_raw_fits(c->config,
						     perfctrfs_x86_raw_mask(X86_VENDOR_HYGON)),
			c->amd);
}

/* What this machine's hook answers, with or without a PMU. */
static void perfctrfs_x86_raw_check_on_this_machine(struct kunit *test)
{
	u64 mask = perfctrfs_x86_raw_mask(boot_cpu_data.x86_vendor);

	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x4064), 0);
	if (!x86_pmu.name) {
		/* no PMU: nothing to check against, perf decides at open */
		KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x1003c), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x1003c), -ENOENT);
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_raw_check(0x100000120ULL),
			(mask & BIT_ULL(32)) ? 0 : -ENOENT);
}

/* ---- group explanations ---------------------------------------------- */

struct perfctrfs_x86_explain_case {
	unsigned int nr_hw, gp, fixed;
	const char *want;
};

/*
 * gp 4 and fixed 3 are the i7-8650U guest's: CPUID.0AH EAX[15:8] = 4,
 * EDX[4:0] = 3 (eax=0x07300402 edx=0x00008603 in the same dump).
 */
static const struct perfctrfs_x86_explain_case perfctrfs_x86_explain_cases[] = {
	{ 0, 4, 3, "" },
	{ 4, 4, 3, "" },
	{ 5, 4, 3,
	  "group needs 5 counters, PMU has 4 general-purpose (+3 fixed, each for its own event)" },
	{ 8, 4, 3, "group needs 8 counters, PMU has 7 (4 general-purpose, 3 fixed)" },
	{ 1, 0, 0, "no hardware PMU: 1 group member needs a hardware counter" },
	{ 2, 0, 0, "no hardware PMU: 2 group members need a hardware counter" },
};

static void perfctrfs_x86_explain_desc(const struct perfctrfs_x86_explain_case *c,
				       char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u members, %u+%u counters",
		 c->nr_hw, c->gp, c->fixed);
}

KUNIT_ARRAY_PARAM(perfctrfs_x86_explain, perfctrfs_x86_explain_cases,
		  perfctrfs_x86_explain_desc);

static void perfctrfs_x86_explain_counts_counters(struct kunit *test)
{
	const struct perfctrfs_x86_explain_case *c = test->param_value;
	char buf[160] = "";
	int len;

	len = perfctrfs_x86_explain(c->nr_hw, c->gp, c->fixed, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, len, (int)strlen(c->want));
	KUNIT_EXPECT_STREQ(test, buf, c->want);
}

static void perfctrfs_x86_explain_truncates(struct kunit *test)
{
	char buf[12];

	KUNIT_EXPECT_EQ(test, perfctrfs_x86_explain(8, 4, 3, buf, sizeof(buf)),
			11);
	KUNIT_EXPECT_STREQ(test, buf, "group needs");
	KUNIT_EXPECT_EQ(test, perfctrfs_x86_explain(8, 4, 3, buf, 0), 0);
}

/* The hook itself, over attrs, on this machine. */
static void perfctrfs_x86_group_explain_on_this_machine(struct kunit *test)
{
	struct perf_event_attr *attrs;
	char buf[160];
	unsigned int i, n = 12;

	attrs = kunit_kcalloc(test, n, sizeof(*attrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attrs);
	for (i = 0; i < n; i++) {
		attrs[i].size = sizeof(*attrs);
		attrs[i].type = PERF_TYPE_SOFTWARE;
		attrs[i].config = PERF_COUNT_SW_TASK_CLOCK;
	}
	/* software members never need a PMU counter */
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_group_explain(attrs, n, buf,
							   sizeof(buf)), 0);

	for (i = 0; i < n; i++) {
		attrs[i].type = i % 2 ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW;
		attrs[i].config = i % 2 ? PERF_COUNT_HW_INSTRUCTIONS : 0x4064;
	}
	KUNIT_EXPECT_GT(test, perfctrfs_arch_group_explain(attrs, n, buf,
							   sizeof(buf)), 0);
	if (!x86_pmu.name)
		KUNIT_EXPECT_STREQ(test, buf,
				   "no hardware PMU: 12 group members need a hardware counter");
	else
		KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "group needs 12 counters"));
}

/* A PMU that is not the core one is left to the generic walk. */
static void perfctrfs_x86_other_pmu_not_described(struct kunit *test)
{
	struct perfctrfs_x86_sink *s;
	struct pmu *other;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, other);
	other->name = "msr";
	other->type = PERF_TYPE_MAX + 1;
	KUNIT_EXPECT_EQ(test, perfctrfs_arch_pmu_events(other,
							perfctrfs_x86_sink_emit, s),
			-EOPNOTSUPP);
	/* "cpu" by name only: without a PMU it is not the core PMU either */
	other->name = "cpu";
	other->type = PERF_TYPE_RAW;
	if (!x86_pmu.name || is_hybrid())
		KUNIT_EXPECT_EQ(test, perfctrfs_arch_pmu_events(other,
								perfctrfs_x86_sink_emit, s),
				-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, s->calls, 0U);
}

static struct kunit_case perfctrfs_x86_cases[] = {
	KUNIT_CASE_PARAM(perfctrfs_x86_cpuid_lists_present_events,
			 perfctrfs_x86_cpuid_gen_params),
	KUNIT_CASE_PARAM(perfctrfs_x86_terms_read_like_sysfs,
			 perfctrfs_x86_terms_gen_params),
	KUNIT_CASE(perfctrfs_x86_tables_match_driver_maps),
	KUNIT_CASE(perfctrfs_x86_emit_follows_cpuid),
	KUNIT_CASE(perfctrfs_x86_emit_error_stops_walk),
	KUNIT_CASE_PARAM(perfctrfs_x86_raw_accepts_driver_fields_only,
			 perfctrfs_x86_raw_gen_params),
	KUNIT_CASE(perfctrfs_x86_raw_check_on_this_machine),
	KUNIT_CASE_PARAM(perfctrfs_x86_explain_counts_counters,
			 perfctrfs_x86_explain_gen_params),
	KUNIT_CASE(perfctrfs_x86_explain_truncates),
	KUNIT_CASE(perfctrfs_x86_group_explain_on_this_machine),
	KUNIT_CASE(perfctrfs_x86_other_pmu_not_described),
	{}
};

static struct kunit_suite perfctrfs_x86_suite = {
	.name = "perfctrfs_x86_pmu",
	.test_cases = perfctrfs_x86_cases,
};

kunit_test_suite(perfctrfs_x86_suite);
