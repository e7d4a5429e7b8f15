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
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/perfctrfs.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "events/perf_event.h"

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

	x86_event_sysfs_show(buf, config, event);
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

			if (h->num_counters + h->num_counters_fixed > gp + fixed) {
				gp = h->num_counters;
				fixed = h->num_counters_fixed;
			}
		}
	} else if (x86_pmu.name) {
		gp = x86_pmu.num_counters;
		fixed = x86_pmu.num_counters_fixed;
	}
	return perfctrfs_x86_explain(nr_hw, gp, fixed, buf, size);
}

#if IS_ENABLED(CONFIG_PERFCTRFS_KUNIT_TEST)
#include "perfctrfs_pmu_kunit.c"
#endif
