// SPDX-License-Identifier: GPL-2.0
/*
 * perfctrfs_pmu.c - POWER event tables, raw codes and group constraints
 * behind include/linux/perfctrfs.h.
 *
 * Tables and encodings only.  The POWER8, POWER9 and POWER10 drivers in
 * arch/powerpc/perf name far more events in their *-events-list.h files
 * than their sysfs "events" group shows (24 generic aliases on POWER9);
 * this file includes those very lists, so cpu.pm_run_inst_cmpl means
 * exactly the code the driver calls PM_RUN_INST_CMPL.  Raw codes and
 * group refusals are judged with the drivers' own ISA 2.07/3.0/3.1 field
 * masks and isa207_get_constraint().
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/perfctrfs.h>
#include <linux/string.h>
#include <asm/cputable.h>
#include <asm/reg.h>

#include "perf/isa207-common.h"

enum perfctrfs_ppc_gen {
	PERFCTRFS_PPC_OTHER,	/* no ISA 2.07+ server PMU: nothing to add */
	PERFCTRFS_PPC_P8,
	PERFCTRFS_PPC_P9,
	PERFCTRFS_PPC_P10,
};

struct perfctrfs_ppc_event {
	const char *name;
	u64 code;
};

/* The drivers' own lists; POWER10's ends each line with ';', see below. */
#define EVENT(_name, _code)	{ #_name, _code },
static const struct perfctrfs_ppc_event perfctrfs_power8_events[] = {
#include "perf/power8-events-list.h"
};

static const struct perfctrfs_ppc_event perfctrfs_power9_events[] = {
#include "perf/power9-events-list.h"
};

#undef EVENT

typedef int (*perfctrfs_ppc_fn_t)(void *arg, const char *name, u64 code);

/*
 * power10-events-list.h writes "EVENT(name, code);", which cannot sit in
 * an initializer, so it is walked as statements instead: the same names
 * and codes, stopping at the first error.
 */
static int perfctrfs_power10_walk(perfctrfs_ppc_fn_t fn, void *arg)
{
	int err = 0;

#define EVENT(_name, _code)	(err = err ?: fn(arg, #_name, _code))
#include "perf/power10-events-list.h"
#undef EVENT
	return err;
}

static int perfctrfs_ppc_walk_table(const struct perfctrfs_ppc_event *tab,
				    unsigned int nr, perfctrfs_ppc_fn_t fn,
				    void *arg)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = fn(arg, tab[i].name, tab[i].code);
		if (err)
			return err;
	}
	return 0;
}

/* Every event the driver of @gen names, in its list's order. */
static int perfctrfs_ppc_walk(enum perfctrfs_ppc_gen gen,
			      perfctrfs_ppc_fn_t fn, void *arg)
{
	switch (gen) {
	case PERFCTRFS_PPC_P8:
		return perfctrfs_ppc_walk_table(perfctrfs_power8_events,
						ARRAY_SIZE(perfctrfs_power8_events),
						fn, arg);
	case PERFCTRFS_PPC_P9:
		return perfctrfs_ppc_walk_table(perfctrfs_power9_events,
						ARRAY_SIZE(perfctrfs_power9_events),
						fn, arg);
	case PERFCTRFS_PPC_P10:
		return perfctrfs_power10_walk(fn, arg);
	default:
		return 0;
	}
}

/* Which driver a PVR gets: the tests of init_power{8,9,10}_pmu(). */
static enum perfctrfs_ppc_gen perfctrfs_ppc_gen_of(unsigned int pvr)
{
	switch (PVR_VER(pvr)) {
	case PVR_POWER8E:
	case PVR_POWER8NVL:
	case PVR_POWER8:
		return PERFCTRFS_PPC_P8;
	case PVR_POWER9:
		return PERFCTRFS_PPC_P9;
	case PVR_POWER10:
		return PERFCTRFS_PPC_P10;
	}
	return PERFCTRFS_PPC_OTHER;
}

static enum perfctrfs_ppc_gen perfctrfs_ppc_this_gen(void)
{
	if (!IS_ENABLED(CONFIG_PPC_PERF_CTRS) ||
	    !IS_ENABLED(CONFIG_PPC_BOOK3S_64))
		return PERFCTRFS_PPC_OTHER;
	return perfctrfs_ppc_gen_of(mfspr(SPRN_PVR));
}

/*
 * The bits of a raw code that the ISA's event encoding defines, as
 * is_event_valid() in isa207-common.c chooses them: ISA 2.07 (POWER8)
 * EVENT_VALID_MASK, ISA 3.0 (POWER9) adds the two-bit combine field and
 * SDAR mode (bits 50-51), ISA 3.1 (POWER10) the radix scope qualifier
 * (bit 9) and MMCR3 selection (bits 45-59).  All three keep Linux's own
 * EBB/BHRB/IFM bits 60-63.
 */
static int perfctrfs_ppc_raw_fits(u64 config, enum perfctrfs_ppc_gen gen)
{
	u64 valid;

	switch (gen) {
	case PERFCTRFS_PPC_P8:
		valid = EVENT_VALID_MASK;
		break;
	case PERFCTRFS_PPC_P9:
		valid = p9_EVENT_VALID_MASK;
		break;
	case PERFCTRFS_PPC_P10:
		valid = p10_EVENT_VALID_MASK;
		break;
	default:
		return 0;
	}
	return (config & ~valid) ? -ENOENT : 0;
}

/*
 * The driver's own verdict on one code: the field rules the mask alone
 * does not catch (PMC 7-15, PMC5/6 with anything but PM_RUN_INST_CMPL and
 * PM_RUN_CYC, EBB without a PMC, BHRB without EBB, bad threshold or L2/L3
 * cache selectors).  isa207_get_constraint() reads the CPU features, so
 * it is only asked on the generation it was built for.
 */
static int perfctrfs_ppc_constraint(u64 code, unsigned long *mask,
				    unsigned long *val)
{
#ifdef CONFIG_PPC_PERF_CTRS
	if (isa207_get_constraint(code, mask, val, 0))
		return -ENOENT;
	return 0;
#else
	*mask = 0;
	*val = 0;
	return 0;
#endif
}

/**
 * perfctrfs_arch_raw_check() - is a raw code one the core PMU defines?
 * @config: the code of a "0x..." event name, as PERF_TYPE_RAW's config
 *
 * On POWER8, POWER9 and POWER10: the code must use only the fields of its
 * ISA's event encoding and pass the driver's own constraint check, so
 * "0x500fa" is accepted and "0x500fb" (PMC5 counts nothing but 0x500fa)
 * is not.  Elsewhere every code is accepted and perf decides at open.
 *
 * Context: any; does not sleep.
 * Return: 0 when every set bit is a field the PMU defines, else -ENOENT.
 */
int perfctrfs_arch_raw_check(u64 config)
{
	enum perfctrfs_ppc_gen gen = perfctrfs_ppc_this_gen();
	unsigned long mask, val;

	if (gen == PERFCTRFS_PPC_OTHER)
		return 0;
	if (perfctrfs_ppc_raw_fits(config, gen))
		return -ENOENT;
	return perfctrfs_ppc_constraint(config, &mask, &val);
}

struct perfctrfs_ppc_emit_ctx {
	enum perfctrfs_ppc_gen gen;
	perfctrfs_emit_t emit;
	void *ctx;
};

/*
 * One list entry to the filesystem, as "event=0x500fa" (the form
 * power_events_sysfs_show() gives the sysfs aliases).  Only PM_ names:
 * the lists also carry MEM_LOADS/MEM_STORES/MEM_ACCESS, which the sysfs
 * group already shows as mem-loads etc.  Codes this CPU's encoding does
 * not define are skipped, not offered.
 */
static int perfctrfs_ppc_emit_one(void *arg, const char *name, u64 code)
{
	struct perfctrfs_ppc_emit_ctx *e = arg;
	char terms[32];

	if (strncmp(name, "PM_", 3))
		return 0;
	if (perfctrfs_ppc_raw_fits(code, e->gen))
		return 0;
	if (e->gen == perfctrfs_ppc_this_gen()) {
		unsigned long mask, val;

		if (perfctrfs_ppc_constraint(code, &mask, &val))
			return 0;
	}
	snprintf(terms, sizeof(terms), "event=0x%02llx", code);
	return e->emit(e->ctx, name, terms, NULL);
}

/**
 * perfctrfs_arch_pmu_events() - emit the named hardware events of a PMU
 * @pmu: a registered PMU, as found on the event_source bus
 * @emit: called once per named event
 * @ctx: passed to @emit
 *
 * For the core PMU ("cpu", registered by core-book3s.c): the driver's
 * sysfs aliases, then on POWER8/9/10 every PM_ event of the driver's
 * event list (POWER9: PM_RUN_INST_CMPL, path cpu.pm_run_inst_cmpl).
 *
 * Context: process context, may sleep.
 * Return: 0, -EOPNOTSUPP for any other PMU, or the first error @emit
 * returned.
 */
int perfctrfs_arch_pmu_events(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx)
{
	struct perfctrfs_ppc_emit_ctx e = {
		.gen = perfctrfs_ppc_this_gen(),
		.emit = emit,
		.ctx = ctx,
	};
	int err;

	if (pmu->type != PERF_TYPE_RAW || strcmp(pmu->name, "cpu"))
		return -EOPNOTSUPP;

	err = perfctrfs_pmu_walk_attrs(pmu, emit, ctx);
	if (err)
		return err;
	return perfctrfs_ppc_walk(e.gen, perfctrfs_ppc_emit_one, &e);
}

/*
 * Group constraints, the scheme of power_check_constraints() in
 * core-book3s.c: each event's (mask, value) from isa207_get_constraint();
 * PMC1..6 and "number of counters" (NC, PMC1-4) are adder fields that
 * overflow into their mask bit when over-subscribed, everything else must
 * agree among the members that set it.  What fails, on POWER9:
 *  - two events pinned to one PMC with no alternative code, e.g.
 *    0x100fc+0x100fc (PM_LD_REF_L1 is PMC1 only);
 *  - five or more events that need PMC1-4, e.g. five of 0x4080
 *    (PM_INST_FROM_L1, any of PMC1-4): PMC5 and PMC6 only count
 *    PM_RUN_INST_CMPL (0x500fa) and PM_RUN_CYC (0x600f4);
 *  - L2/L3 events (unit 6-9) with different PMCxSEL, threshold events with
 *    different thresholds, marked events with different sampling modes,
 *    L1 events with different I/D qualifiers, EBB mixed with non-EBB;
 *  - more than 6 members.
 * The driver first retries with alternative codes: 0x500fa+0x500fa is
 * accepted, as 0x500fa on PMC5 and 0x400fa (PM_RUN_INST_CMPL_ALT) on PMC4,
 * and for a task counter PM_RUN_* may become PM_CYC/PM_INST_CMPL.  This
 * runs only after perf refused, so the conflict found among the codes as
 * written is one no alternative resolved.
 */
#define PERFCTRFS_PPC_MAX_COUNTERS	MAX_PMU_COUNTERS

struct perfctrfs_ppc_conflict {
	unsigned int i, j;	/* the member that failed, the one it hit */
	unsigned long bits;	/* the constraint bits that overflowed */
	bool group;		/* the whole-group PMC4 rule failed */
};

/* The first member that does not fit those before it; false if all fit. */
static bool perfctrfs_ppc_find_conflict(const unsigned long *mask,
					const unsigned long *val,
					unsigned int nr, unsigned long grp_mask,
					unsigned long grp_val,
					struct perfctrfs_ppc_conflict *c)
{
	unsigned long addf = ISA207_ADD_FIELDS, tadd = ISA207_TEST_ADDER;
	unsigned long value = 0, m = 0, nv, bad;
	unsigned int i, j;

	for (i = 0; i < nr; i++) {
		nv = (value | val[i]) + (value & val[i] & addf);
		bad = (((nv + tadd) ^ value) & m) |
		      (((nv + tadd) ^ val[i]) & mask[i]);
		bad &= ~grp_mask;
		if (bad) {
			c->i = i;
			c->j = i;
			c->bits = bad;
			c->group = false;
			/* the earlier member that set the field overflowed */
			for (j = 0; j < i; j++) {
				if (mask[j] & bad) {
					c->j = j;
					break;
				}
			}
			return true;
		}
		value = nv;
		m |= mask[i];
	}
	if ((value & m & grp_mask) != (m & grp_val)) {
		c->i = nr - 1;
		c->j = nr - 1;
		c->bits = grp_mask;
		c->group = true;
		return true;
	}
	return false;
}

/* Which of the PMCs an adder overflow names, 0 for none. */
static unsigned int perfctrfs_ppc_pmc_of(unsigned long bits)
{
	unsigned int pmc;

	for (pmc = 1; pmc <= PERFCTRFS_PPC_MAX_COUNTERS; pmc++)
		if (bits & CNST_PMC_MASK(pmc))
			return pmc;
	return 0;
}

static const char *perfctrfs_ppc_field_of(unsigned long bits)
{
	if (bits & (CNST_CACHE_GROUP_MASK | CNST_L2L3_GROUP_MASK))
		return "L2/L3 event selections";
	if (bits & (CNST_THRESH_MASK | p10_CNST_THRESH_CMP_MASK))
		return "threshold settings";
	if (bits & CNST_SAMPLE_MASK)
		return "sampling modes";
	if (bits & CNST_L1_QUAL_MASK)
		return "L1 I/D qualifiers";
	if (bits & CNST_EBB_MASK)
		return "EBB settings";
	if (bits & CNST_IFM_MASK)
		return "BHRB filter modes";
	if (bits & CNST_RADIX_SCOPE_GROUP_MASK)
		return "radix scope qualifiers";
	return "PMU constraints";
}

/* One line for a conflict among @codes. */
static int perfctrfs_ppc_explain(const u64 *codes,
				 const struct perfctrfs_ppc_conflict *c,
				 char *buf, size_t size)
{
	unsigned int pmc = perfctrfs_ppc_pmc_of(c->bits);

	if (c->group)
		return scnprintf(buf, size,
				 "L2/L3 events in one group need one of them on PMC4");
	if (pmc)
		return scnprintf(buf, size,
				 "%#llx and %#llx both need PMC%u",
				 codes[c->j], codes[c->i], pmc);
	if (c->bits & CNST_NC_MASK)
		return scnprintf(buf, size,
				 "%#llx is one event too many for PMC1-4 (PMC5/6 count only 0x500fa/0x600f4)",
				 codes[c->i]);
	return scnprintf(buf, size, "%#llx and %#llx need different %s",
			 codes[c->j], codes[c->i],
			 perfctrfs_ppc_field_of(c->bits));
}

static bool perfctrfs_ppc_is_core(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_RAW ||
	       attr->type == PERF_TYPE_HARDWARE ||
	       attr->type == PERF_TYPE_HW_CACHE;
}

/**
 * perfctrfs_arch_group_explain() - say why a group cannot be scheduled
 * @attrs: the group's members, leader first
 * @nr: how many
 * @buf: where to write one line of explanation, NUL-terminated
 * @size: size of @buf
 *
 * On POWER8/9/10: more members than the 6 PMCs, a raw code the driver
 * refuses, or the first constraint conflict among the raw members (see
 * the comment above perfctrfs_ppc_find_conflict()).  Generic hardware
 * and cache members count toward the 6 but their codes are the driver's
 * private table, so their conflicts go unexplained.
 *
 * Context: process context.
 * Return: the length written, or 0 when the arch has nothing to say.
 */
int perfctrfs_arch_group_explain(const struct perf_event_attr *attrs,
				 unsigned int nr, char *buf, size_t size)
{
	enum perfctrfs_ppc_gen gen = perfctrfs_ppc_this_gen();
	unsigned long mask[PERFCTRFS_PPC_MAX_COUNTERS];
	unsigned long val[PERFCTRFS_PPC_MAX_COUNTERS];
	u64 codes[PERFCTRFS_PPC_MAX_COUNTERS];
	struct perfctrfs_ppc_conflict c;
	unsigned int i, n = 0, nr_hw = 0;
	unsigned long grp_mask = 0, grp_val = 0;

	if (gen == PERFCTRFS_PPC_OTHER || !size)
		return 0;

	for (i = 0; i < nr; i++)
		if (perfctrfs_ppc_is_core(&attrs[i]))
			nr_hw++;
	if (nr_hw > PERFCTRFS_PPC_MAX_COUNTERS)
		return scnprintf(buf, size, "group needs %u counters, PMU has %u",
				 nr_hw, PERFCTRFS_PPC_MAX_COUNTERS);

	for (i = 0; i < nr; i++) {
		if (attrs[i].type != PERF_TYPE_RAW)
			continue;
		codes[n] = attrs[i].config;
		if (perfctrfs_ppc_raw_fits(codes[n], gen) ||
		    perfctrfs_ppc_constraint(codes[n], &mask[n], &val[n]))
			return scnprintf(buf, size,
					 "%#llx is not an event code this PMU defines",
					 codes[n]);
		n++;
	}

	/* POWER9 and POWER10 want L2/L3 events to include one on PMC4. */
	if (gen != PERFCTRFS_PPC_P8) {
		grp_mask = CNST_CACHE_PMC4_MASK;
		grp_val = CNST_CACHE_PMC4_VAL;
	}
	if (!perfctrfs_ppc_find_conflict(mask, val, n, grp_mask, grp_val, &c))
		return 0;
	return perfctrfs_ppc_explain(codes, &c, buf, size);
}

#if IS_ENABLED(CONFIG_PERFCTRFS_KUNIT_TEST)
#include "perfctrfs_pmu_kunit.c"
#endif
