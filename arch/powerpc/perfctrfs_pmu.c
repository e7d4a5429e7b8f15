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
 *
 * Measured with perf_event_open(2) in the QEMU pseries POWER9 guest:
 * 0x500fa+0x500fa opens, per task and per CPU; three of 0x500fa open per
 * task but are EINVAL per CPU (no PM_INST_CMPL alternative there), and so
 * are three of 0x600f4; 0x100fc+0x100fc, five of 0x4080, seven of 0x1e,
 * and 0x16880 (an L2 event) alone are EINVAL.
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
/*
 * KUnit cases, in this file so they reach its static functions (and so
 * the kernel tree needs only this one file linked in).  The codes are the
 * POWER drivers' own (power9-events-list.h and friends); the pure cases
 * run on any POWER CPU, the live ones check the driver's constraint code
 * on the CPU they run on and say so when it is not the one they need.
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
#endif /* CONFIG_PERFCTRFS_KUNIT_TEST */
