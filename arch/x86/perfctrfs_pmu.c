// SPDX-License-Identifier: GPL-2.0
/*
 * perfctrfs_pmu.c - x86 event tables and raw encodings behind
 * include/linux/perfctrfs.h.
 *
 * Tables and encodings only: the filesystem in fs/perfctrfs asks, this
 * file answers from what the x86 perf driver (arch/x86/events) and CPUID
 * say.  The pure parts (CPUID leaf 0xA bits to a list of events, the raw
 * code mask, the group arithmetic) are small static functions that the
 * KUnit cases at the bottom call with recorded inputs, so they are tested
 * on machines without a PMU too.
 */
#include <linux/cpufeature.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/perfctrfs.h>
#include <linux/processor.h>
#include <linux/string.h>
#include <asm/perf_event.h>

#include "events/perf_event.h"
#include "../../fs/perfctrfs/compat.h"

/* Longer than anything x86_event_sysfs_show() writes (about 60 bytes). */
#define PERFCTRFS_X86_TERMS_MAX	96

struct perfctrfs_x86_event {
	const char *name;
	u64 config;		/* event select, unit mask, AMD event bits 32-35 */
	const char *desc;
};

/*
 * The Intel architectural performance events, indexed by their bit in
 * CPUID.0AH:EBX (Intel SDM Vol. 3B, "Pre-defined Architectural Performance
 * Events").  The encodings agree with intel_perfmon_event_map[] in
 * arch/x86/events/intel/core.c: cycles 0x003c, instructions 0x00c0, bus
 * cycles 0x013c, cache references 0x4f2e, cache misses 0x412e, branches
 * 0x00c4, branch misses 0x00c5.  Bit 7 (topdown slots, Ice Lake and later)
 * is not in 6.1's table; its encoding is the SDM's, event 0xa4 umask 0x01.
 */
static const struct perfctrfs_x86_event perfctrfs_intel_arch_events[] = {
	{ "unhalted_core_cycles",	0x003c, "core cycles while not halted" },
	{ "instruction_retired",	0x00c0, "instructions retired" },
	{ "unhalted_reference_cycles",	0x013c,
	  "reference cycles while not halted" },
	{ "llc_reference",		0x4f2e, "last level cache references" },
	{ "llc_misses",			0x412e, "last level cache misses" },
	{ "branch_instruction_retired",	0x00c4, "branch instructions retired" },
	{ "branch_misses_retired",	0x00c5,
	  "mispredicted branch instructions retired" },
	{ "topdown_slots",		0x01a4,
	  "issue slots available to the pipeline" },
};

/*
 * AMD family 17h and later (Zen 1 to Zen 4, and Hygon): the core events
 * behind the kernel's generic events, as amd_f17h_perfmon_event_map[] in
 * arch/x86/events/amd/core.c (6.1) lists them, named after the AMD PPR
 * mnemonics.  Only the six encodings that stayed the same in every later
 * map (amd_zen2/zen4_perfmon_event_map) are here; the stalled-cycles ones
 * changed meaning between generations, so they are left out.
 */
static const struct perfctrfs_x86_event perfctrfs_amd_f17h_events[] = {
	{ "ls_not_halted_cyc",		0x0076, "core cycles not in halt" },
	{ "ex_ret_instr",		0x00c0, "retired instructions" },
	{ "l2_request_g1_all",		0xff60, "all L2 cache requests" },
	{ "l2_cache_req_stat_ic_dc_miss_in_l2", 0x0964,
	  "L2 misses of instruction and data cache requests" },
	{ "ex_ret_brn",			0x00c2, "retired branch instructions" },
	{ "ex_ret_brn_misp",		0x00c3,
	  "retired mispredicted branch instructions" },
};

/*
 * Which architectural events a CPU has, from its CPUID.0AH EAX and EBX:
 * EAX[31:24] is the length of the EBX bit vector; a set EBX bit i means
 * event i is NOT available, and an event beyond the vector's length is
 * not enumerated, so not available either.  Returns a bitmap of indices
 * into perfctrfs_intel_arch_events[].
 */
/* Every AMD entry: that table has no CPUID bit vector. */
#define PERFCTRFS_AMD_ALL	GENMASK(ARRAY_SIZE(perfctrfs_amd_f17h_events) - 1, 0)

static u32 perfctrfs_x86_arch_present(u32 eax, u32 ebx)
{
	unsigned int len = eax >> 24;
	unsigned int i;
	u32 present = 0;

	for (i = 0; i < ARRAY_SIZE(perfctrfs_intel_arch_events); i++)
		if (i < len && !(ebx & BIT(i)))
			present |= BIT(i);
	return present;
}

/*
 * The sysfs form of a config, exactly as the driver's own aliases show
 * it (x86_event_sysfs_show(): "event=0x2e,umask=0x41"), so that an arch
 * event and a driver alias for the same counter read the same.  AMD event
 * bits 32-35 join the event select, as amd_event_sysfs_show() does.
 */
static void perfctrfs_x86_terms(u64 config, char *buf)
{
	u64 event = (config & ARCH_PERFMON_EVENTSEL_EVENT) |
		    ((config & AMD64_EVENTSEL_EVENT) >> 24);
	ssize_t len = x86_event_sysfs_show(buf, config, event);

	/* sysfs ends the line with '\n'; terms are the line's text only */
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
}

static int perfctrfs_x86_emit_table(const struct perfctrfs_x86_event *tab,
				    unsigned int nr, u32 present,
				    perfctrfs_emit_t emit, void *ctx)
{
	char terms[PERFCTRFS_X86_TERMS_MAX];
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		if (!(present & BIT(i)))
			continue;
		perfctrfs_x86_terms(tab[i].config, terms);
		err = emit(ctx, tab[i].name, terms, tab[i].desc);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The raw config bits a user may set in a "0x..." name, by vendor.  The
 * driver's x86_pmu_hw_config() keeps only these bits of a PERF_TYPE_RAW
 * config and silently drops the others, so a code with any other bit set
 * would be a second name for a counter that already has one.  Rejected on
 * purpose:
 *  - usr (16), os (17): spell them with the :u and :k modifiers, which set
 *    exclude_kernel/exclude_user; the driver sets these bits itself;
 *  - int (20), en (22): owned by the driver (overflow interrupt, enable);
 *  - pc (19), any (21) and Intel's in_tx/in_tx_cp (32, 33): reachable with
 *    PMU terms (cpu.event=0x3c,any=1), which go through the driver's format
 *    fields and permission checks.
 * AMD adds event select bits 32-35 (AMD64_EVENTSEL_EVENT).
 */
static u64 perfctrfs_x86_raw_mask(u8 vendor)
{
	if (vendor == X86_VENDOR_AMD || vendor == X86_VENDOR_HYGON)
		return AMD64_RAW_EVENT_MASK;
	return X86_RAW_EVENT_MASK;
}

static int perfctrfs_x86_raw_fits(u64 config, u64 mask)
{
	return (config & ~mask) ? -ENOENT : 0;
}

/*
 * Why a group of @nr_hw members that each need a hardware counter did
 * not fit a PMU with @gp general-purpose and @fixed fixed counters.  The
 * fixed counters count only their own event (cycles, instructions,
 * reference cycles, slots), so a group may fail with fewer members than
 * gp + fixed; then the general-purpose count is the one to tell.
 */
static int perfctrfs_x86_explain(unsigned int nr_hw, unsigned int gp,
				 unsigned int fixed, char *buf, size_t size)
{
	if (!nr_hw || !size)
		return 0;
	if (!gp && !fixed)
		return scnprintf(buf, size,
				 "no hardware PMU: %u group member%s need%s a hardware counter",
				 nr_hw, nr_hw == 1 ? "" : "s",
				 nr_hw == 1 ? "s" : "");
	if (nr_hw > gp + fixed)
		return scnprintf(buf, size,
				 "group needs %u counters, PMU has %u (%u general-purpose, %u fixed)",
				 nr_hw, gp + fixed, gp, fixed);
	if (nr_hw > gp)
		return scnprintf(buf, size,
				 "group needs %u counters, PMU has %u general-purpose (+%u fixed, each for its own event)",
				 nr_hw, gp, fixed);
	return 0;
}

/* Is @pmu the core PMU: "cpu", or cpu_core/cpu_atom on a hybrid part? */
static bool perfctrfs_x86_is_core_pmu(struct pmu *pmu)
{
	int i;

	/* x86_pmu is zeroed when no PMU was found (QEMU TCG, most VMs). */
	if (!x86_pmu.name)
		return false;
	if (!is_hybrid())
		return pmu->type == PERF_TYPE_RAW && !strcmp(pmu->name, "cpu");
	for (i = 0; i < x86_pmu.num_hybrid_pmus; i++)
		if (pmu == &x86_pmu.hybrid_pmu[i].pmu)
			return true;
	return false;
}

/**
 * perfctrfs_arch_pmu_events() - emit the named hardware events of a PMU
 * @pmu: a registered PMU, as found on the event_source bus
 * @emit: called once per named event
 * @ctx: passed to @emit
 *
 * For the core PMU: the driver's own aliases first (its sysfs "events"
 * group), then what the CPU itself documents: on Intel the architectural
 * events CPUID leaf 0xA reports present (read fresh, not from x86_pmu,
 * whose copy the driver's errata quirks rewrite), on AMD and Hygon family
 * 17h and later the core events of that family.  On a hybrid part CPUID
 * is the boot CPU's, as the 6.1 driver reads it.
 *
 * Context: process context, may sleep.
 * Return: 0, -EOPNOTSUPP for a PMU other than the core one, or the first
 * error @emit returned.
 */
int perfctrfs_arch_pmu_events(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx)
{
	u32 eax, ebx, ecx, edx;
	int err;

	if (!perfctrfs_x86_is_core_pmu(pmu))
		return -EOPNOTSUPP;

	err = perfctrfs_pmu_walk_attrs(pmu, emit, ctx);
	if (err)
		return err;

	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
		if (!boot_cpu_has(X86_FEATURE_ARCH_PERFMON))
			return 0;
		cpuid(0xa, &eax, &ebx, &ecx, &edx);
		return perfctrfs_x86_emit_table(perfctrfs_intel_arch_events,
						ARRAY_SIZE(perfctrfs_intel_arch_events),
						perfctrfs_x86_arch_present(eax, ebx),
						emit, ctx);
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		if (boot_cpu_data.x86 < 0x17)
			return 0;
		return perfctrfs_x86_emit_table(perfctrfs_amd_f17h_events,
						ARRAY_SIZE(perfctrfs_amd_f17h_events),
						PERFCTRFS_AMD_ALL, emit, ctx);
	}
	return 0;
}

/**
 * perfctrfs_arch_raw_check() - is a raw code one the core PMU defines?
 * @config: the code of a "0x..." event name, as PERF_TYPE_RAW's config
 *
 * Accepts exactly the bits the driver passes on for a raw event
 * (X86_RAW_EVENT_MASK, AMD64_RAW_EVENT_MASK on AMD and Hygon); see
 * perfctrfs_x86_raw_mask() for the bits refused and why.  With no PMU
 * there is nothing to check against: the code is accepted and opening it
 * fails with perf's own errno, as on every arch without this file.
 *
 * Context: any; does not sleep.
 * Return: 0 when every set bit is a field the PMU defines, else -ENOENT.
 */
int perfctrfs_arch_raw_check(u64 config)
{
	if (!x86_pmu.name)
		return 0;
	return perfctrfs_x86_raw_fits(config,
				      perfctrfs_x86_raw_mask(boot_cpu_data.x86_vendor));
}

/* Does @attr need a counter of the core PMU? */
static bool perfctrfs_x86_needs_counter(const struct perf_event_attr *attr)
{
	int i;

	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return true;
	}
	if (is_hybrid())
		for (i = 0; i < x86_pmu.num_hybrid_pmus; i++)
			if (attr->type == x86_pmu.hybrid_pmu[i].pmu.type)
				return true;
	return false;
}

/**
 * perfctrfs_arch_group_explain() - say why a group cannot be scheduled
 * @attrs: the group's members, leader first
 * @nr: how many
 * @buf: where to write one line of explanation, NUL-terminated
 * @size: size of @buf
 *
 * Counts the members that need a core PMU counter and compares them with
 * the counters the PMU has (on a hybrid part, the larger of its PMUs).
 * Refusals for other reasons (an event that only runs on some counters,
 * PEBS or LBR limits) are left unexplained.
 *
 * Context: process context.
 * Return: the length written, or 0 when the arch has nothing to say.
 */
int perfctrfs_arch_group_explain(const struct perf_event_attr *attrs,
				 unsigned int nr, char *buf, size_t size)
{
	unsigned int nr_hw = 0, gp = 0, fixed = 0, i;

	for (i = 0; i < nr; i++)
		if (perfctrfs_x86_needs_counter(&attrs[i]))
			nr_hw++;

	if (x86_pmu.name && is_hybrid()) {
		for (i = 0; i < x86_pmu.num_hybrid_pmus; i++) {
			struct x86_hybrid_pmu *h = &x86_pmu.hybrid_pmu[i];

			unsigned int hgp = perfctrfs_x86_nr_gp(h);
			unsigned int hfixed = perfctrfs_x86_nr_fixed(h);

			if (hgp + hfixed > gp + fixed) {
				gp = hgp;
				fixed = hfixed;
			}
		}
	} else if (x86_pmu.name) {
		gp = perfctrfs_x86_nr_gp(&x86_pmu);
		fixed = perfctrfs_x86_nr_fixed(&x86_pmu);
	}
	return perfctrfs_x86_explain(nr_hw, gp, fixed, buf, size);
}

#if IS_ENABLED(CONFIG_PERFCTRFS_KUNIT_TEST)
/*
 * KUnit cases, in this file so they reach its static functions (and so
 * the kernel tree needs only this one file linked in).  The inputs are
 * recorded from real CPUs and real drivers and the source of each is
 * named beside it; the pure functions run the same with or without a PMU,
 * the live cases check what this machine answers.
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
	 * Zen 4 ref-cycles 0x100000120 ("perf/x86/amd/core: Add ref-cycles
	 * event for Zen 4 and later", linux-kernel, 2024-03-25): event
	 * bits 32-35 join the select, PMCx120, and bits 8-15 are umask 1.
	 */
	{ 0x100000120ULL, "event=0x120,umask=0x01", "AMD Zen 4 ref-cycles" },
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
#endif /* CONFIG_PERFCTRFS_KUNIT_TEST */
