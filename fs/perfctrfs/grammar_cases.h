/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perfctrfs grammar's test vectors: one table of path components and
 * what each must decode to, the catalogue they are parsed against, and the
 * checks that run them.  The KUnit suite (grammar_kunit.c) and the
 * userspace runner (tests/unit/) each include this file once, after
 * grammar.h, walk the same tables and only report.
 *
 * Walkers copy every input into a buffer of exactly its length before
 * parsing it, so a parser that reads past len or relies on a NUL trips
 * KASAN or ASan.
 */
#ifndef _PERFCTRFS_GRAMMAR_CASES_H
#define _PERFCTRFS_GRAMMAR_CASES_H

#include "grammar.h"

/* ---- the test catalogue -------------------------------------------- */

/* An x86-like core PMU ("frontend" is config2 here, to cover config2). */
static const struct perfctrfs_format tc_cpu_formats[] = {
	{ "event",	0, 0x00000000000000ffULL },	/* config:0-7 */
	{ "umask",	0, 0x000000000000ff00ULL },	/* config:8-15 */
	{ "edge",	0, 0x0000000000040000ULL },	/* config:18 */
	{ "pc",		0, 0x0000000000080000ULL },	/* config:19 */
	{ "any",	0, 0x0000000000200000ULL },	/* config:21 */
	{ "inv",	0, 0x0000000000800000ULL },	/* config:23 */
	{ "cmask",	0, 0x00000000ff000000ULL },	/* config:24-31 */
	{ "ldlat",	1, 0x000000000000ffffULL },	/* config1:0-15 */
	{ "frontend",	2, 0x0000000000ffffffULL },	/* config2:0-23 */
};

static const struct perfctrfs_alias tc_cpu_aliases[] = {
	{ "cpu_cycles",			"event=0x3c" },
	{ "instructions",		"event=0xc0" },
	{ "ref_cycles",			"event=0x00,umask=0x03" },
	{ "mem_loads",			"event=0xcd,umask=0x1,ldlat=3" },
	{ "mem_loads_aux",		"event=0x03,umask=0x82" },
	{ "cycle_activity_stalls_total", "event=0xa3,umask=0x04,cmask=0x04" },
	{ "l1d_pend_miss_fb_full_periods", "event=0x48,umask=0x02,edge=1,cmask=0x1" },
	{ "uops_retired_total_cycles",	"event=0xc2,umask=0x01,inv=1,cmask=0x10" },
	{ "frontend_retired_dsb_miss",	"event=0xc6,umask=0x01,frontend=0x11" },
	{ "any_thread_cycles",		"event=0x3c,any=1" },
};

static const struct perfctrfs_format tc_msr_formats[] = {
	{ "event",	0, 0xffffffffffffffffULL },	/* config:0-63 */
};

static const struct perfctrfs_alias tc_msr_aliases[] = {
	{ "tsc",	"event=0x00" },
	{ "aperf",	"event=0x01" },
	{ "mperf",	"event=0x02" },
	{ "pperf",	"event=0x03" },
	{ "smi",	"event=0x04" },
};

/* AMD's event select is split: config:0-7,32-35. */
static const struct perfctrfs_format tc_amd_formats[] = {
	{ "event",	0, 0x0000000f000000ffULL },	/* config:0-7,32-35 */
	{ "umask",	0, 0x000000000000ff00ULL },	/* config:8-15 */
};

static const struct perfctrfs_alias tc_amd_aliases[] = {
	{ "ls_dispatch",	"event=0x129,umask=0x1" },
	{ "ex_ret_instr",	"event=0xc0" },
};

static const struct perfctrfs_format tc_imc_formats[] = {
	{ "event",	0, 0x00000000000000ffULL },	/* config:0-7 */
	{ "umask",	0, 0x000000000000ff00ULL },	/* config:8-15 */
};

static const struct perfctrfs_alias tc_imc_aliases[] = {
	{ "cas_count_read",	"event=0x04,umask=0x03" },
	{ "cas_count_write",	"event=0x04,umask=0x0c" },
	{ "clockticks",		"config=0xff" },
};

/* Driver strings the grammar cannot encode: these aliases are unusable. */
static const struct perfctrfs_format tc_broken_formats[] = {
	{ "event",	0, 0x00000000000000ffULL },	/* config:0-7 */
};

static const struct perfctrfs_alias tc_broken_aliases[] = {
	{ "ok_one",		"event=0x2" },
	{ "with_period",	"event=0x1,period=100" },
	{ "question",		"event=?" },
	{ "empty",		"" },
	{ "too_wide",		"event=0x100" },
	{ "no_value",		"event" },
	{ "duplicate",		"event=0x1,event=0x2" },
	{ "trailing_comma",	"event=0x1," },
	{ "space",		"event=0x1 " },
	{ "upper_x",		"event=0X1" },
};

static const struct perfctrfs_pmu tc_pmus[] = {
	{ "cpu", 4, tc_cpu_formats, ARRAY_SIZE(tc_cpu_formats),
	  tc_cpu_aliases, ARRAY_SIZE(tc_cpu_aliases) },
	{ "msr", 9, tc_msr_formats, ARRAY_SIZE(tc_msr_formats),
	  tc_msr_aliases, ARRAY_SIZE(tc_msr_aliases) },
	{ "amd_like", 10, tc_amd_formats, ARRAY_SIZE(tc_amd_formats),
	  tc_amd_aliases, ARRAY_SIZE(tc_amd_aliases) },
	{ "uncore_imc_0", 11, tc_imc_formats, ARRAY_SIZE(tc_imc_formats),
	  tc_imc_aliases, ARRAY_SIZE(tc_imc_aliases) },
	{ "broken", 12, tc_broken_formats, ARRAY_SIZE(tc_broken_formats),
	  tc_broken_aliases, ARRAY_SIZE(tc_broken_aliases) },
	{ "tracepoint", 2, NULL, 0, NULL, 0 },	/* no formats, no aliases */
};

static const struct perfctrfs_catalog perfctrfs_test_catalog = {
	tc_pmus, ARRAY_SIZE(tc_pmus),
};

/* ---- the case table ------------------------------------------------ */

enum perfctrfs_case_level {
	PCL_CPU,
	PCL_EVENT,
	PCL_PID,
	PCL_TYPE,
	PCL_PERIOD,
	PCL_TERMS,	/* perfctrfs_encode_terms() through @pmu */
	PCL_FORMAT,	/* perfctrfs_parse_format() */
};

static const char *const perfctrfs_case_level_names[] = {
	[PCL_CPU] = "cpu",
	[PCL_EVENT] = "event",
	[PCL_PID] = "pid",
	[PCL_TYPE] = "type",
	[PCL_PERIOD] = "period",
	[PCL_TERMS] = "terms",
	[PCL_FORMAT] = "format",
};

/* Exclusions a member must carry (perf_event_attr.exclude_*). */
#define EX_U	0x1
#define EX_K	0x2
#define EX_H	0x4
#define EX_I	0x8

struct perfctrfs_case_member {
	u32 type;
	u64 config;
	u64 config1;
	u64 config2;
	unsigned int excl;	/* EX_* */
};

struct perfctrfs_case_spec {
	unsigned int nr;
	struct perfctrfs_case_member ev[PERFCTRFS_MAX_GROUP];
};

struct perfctrfs_case {
	enum perfctrfs_case_level level;
	const char *in;
	size_t len;			/* NULs inside it are part of the name */
	int err;			/* 0, -ENOENT, or -EINVAL for formats */
	enum perfctrfs_type under;	/* period: the type level above */
	const char *pmu;		/* terms: the catalogue PMU */
	union {				/* what a success decodes to */
		struct perfctrfs_cpu cpu;
		const struct perfctrfs_case_spec *event;
		struct perfctrfs_pid pid;
		enum perfctrfs_type type;
		struct perfctrfs_period period;
		struct perfctrfs_case_member terms;	/* config words only */
		struct {
			u8 word;
			u64 mask;
		} format;
	} want;
};

#define CASE_IN(s)		.in = (s), .len = sizeof(s) - 1

#define CPU_OK(s, n)		{ .level = PCL_CPU, CASE_IN(s), .want.cpu = { false, (n) } }
#define CPU_ALL(s)		{ .level = PCL_CPU, CASE_IN(s), .want.cpu = { true, 0 } }
#define CPU_BAD(s)		{ .level = PCL_CPU, CASE_IN(s), .err = -ENOENT }

#define PID_OK(s, n)		{ .level = PCL_PID, CASE_IN(s), \
				  .want.pid = { PERFCTRFS_PID_NUM, (n), 0 } }
#define PID_SELF(s)		{ .level = PCL_PID, CASE_IN(s), \
				  .want.pid = { PERFCTRFS_PID_SELF, 0, 0 } }
#define PID_ALL(s)		{ .level = PCL_PID, CASE_IN(s), \
				  .want.pid = { PERFCTRFS_PID_ALL, 0, 0 } }
#define PID_CGROUP(s, n)	{ .level = PCL_PID, CASE_IN(s), \
				  .want.pid = { PERFCTRFS_PID_CGROUP, 0, (n) } }
#define PID_BAD(s)		{ .level = PCL_PID, CASE_IN(s), .err = -ENOENT }

#define TYPE_OK(s, t)		{ .level = PCL_TYPE, CASE_IN(s), .want.type = (t) }
#define TYPE_BAD(s)		{ .level = PCL_TYPE, CASE_IN(s), .err = -ENOENT }

#define COUNT_OK(u, s, n)	{ .level = PCL_PERIOD, .under = (u), CASE_IN(s), \
				  .want.period = { false, (n) } }
#define TIMED_OK(u, s, ns)	{ .level = PCL_PERIOD, .under = (u), CASE_IN(s), \
				  .want.period = { true, (ns) } }
#define PERIOD_BAD(u, s)	{ .level = PCL_PERIOD, .under = (u), CASE_IN(s), \
				  .err = -ENOENT }

#define EV_OK(s, n, ...)	{ .level = PCL_EVENT, CASE_IN(s), \
				  .want.event = &(const struct perfctrfs_case_spec) \
					{ (n), { __VA_ARGS__ } } }
#define EV_BAD(s)		{ .level = PCL_EVENT, CASE_IN(s), .err = -ENOENT }

#define TERMS_OK(p, s, c, c1, c2) { .level = PCL_TERMS, .pmu = (p), CASE_IN(s), \
				  .want.terms = { 0, (c), (c1), (c2), 0 } }
#define TERMS_BAD(p, s)		{ .level = PCL_TERMS, .pmu = (p), CASE_IN(s), .err = -ENOENT }

#define FMT_OK(s, w, m)		{ .level = PCL_FORMAT, CASE_IN(s), .want.format = { (w), (m) } }
#define FMT_BAD(s)		{ .level = PCL_FORMAT, CASE_IN(s), .err = -EINVAL }

/* Group members: type, config words and the EX_* exclusions they carry. */
#define MEMBER(t, c, c1, c2, x)	{ (t), (c), (c1), (c2), (x) }
#define HW(c)			MEMBER(PERFCTRFS_TYPE_HARDWARE, (c), 0, 0, 0)
#define HWX(c, x)		MEMBER(PERFCTRFS_TYPE_HARDWARE, (c), 0, 0, (x))
#define SW(c)			MEMBER(PERFCTRFS_TYPE_SOFTWARE, (c), 0, 0, 0)
#define HWC(c, op, r)		MEMBER(PERFCTRFS_TYPE_HW_CACHE, (c) | (op) << 8 | (r) << 16, \
				       0, 0, 0)
#define RAW(c)			MEMBER(PERFCTRFS_TYPE_RAW, (c), 0, 0, 0)
#define RAWX(c, x)		MEMBER(PERFCTRFS_TYPE_RAW, (c), 0, 0, (x))
#define PMUEV(t, c)		MEMBER((t), (c), 0, 0, 0)

/* Names of 4 KiB and more, with no NUL after them. */
static const char tc_a4k[] = { [0 ... 4095] = 'a' };
static const char tc_d4k[] = { [0 ... 4095] = '1' };
/* "cgroup." and 4089 ones: a cgroup id that overflows long before the end */
static const char tc_cg4k[] = { 'c', 'g', 'r', 'o', 'u', 'p', '.', [7 ... 4095] = '1' };
static const char tc_d4k_s[] = { [0 ... 4095] = '1', 's' };
static const char tc_cycles_a4k[] = { 'c', 'y', 'c', 'l', 'e', 's', ':', [7 ... 4102] = 'a' };
static const char tc_cpu_a4k[] = { 'c', 'p', 'u', '.', [4 ... 4099] = 'a' };
static const char tc_a4k_tsc[] = { [0 ... 4095] = 'a', '.', 't', 's', 'c' };
static const char tc_event_a4k[] = {
	'c', 'p', 'u', '.', 'e', 'v', 'e', 'n', 't', '=', '0', 'x', [12 ... 4107] = 'a'
};

#define LONG_BAD(l, a)		{ .level = (l), .in = (a), .len = sizeof(a), .err = -ENOENT }

/* Group names too long for one line of the table. */
#define GROUP8_HW	"cycles+instructions+cache_references+cache_misses+branch_instructions+branch_misses+bus_cycles+ref_cycles"
#define GROUP9_HW	"cycles+instructions+cache_references+cache_misses+branch_instructions+branch_misses+bus_cycles+ref_cycles+task_clock"
#define GROUP6_MIXED	"cycles:u+msr.tsc+cpu.event=0x3c,umask=0x1:k+0x4064:I+task_clock+l1d_read_miss:uk"

#define S_	PERFCTRFS_SIMPLE
#define T_	PERFCTRFS_TIMES
#define I_	PERFCTRFS_IRQ

static const struct perfctrfs_case perfctrfs_cases[] = {
	/* cpu: "all" or a canonical decimal up to 2^31-1 */
	CPU_OK("0", 0),
	CPU_OK("1", 1),
	CPU_OK("7", 7),
	CPU_OK("10", 10),
	CPU_OK("63", 63),
	CPU_OK("1023", 1023),
	CPU_OK("2147483647", 2147483647),
	CPU_ALL("all"),
	CPU_BAD(""),
	CPU_BAD("00"),
	CPU_BAD("01"),
	CPU_BAD("007"),
	CPU_BAD("-1"),
	CPU_BAD("+1"),
	CPU_BAD("1a"),
	CPU_BAD("a"),
	CPU_BAD("ALL"),
	CPU_BAD("All"),
	CPU_BAD("al"),
	CPU_BAD("alll"),
	CPU_BAD("all\0"),
	CPU_BAD("0\0"),
	CPU_BAD("\0"),
	CPU_BAD("1\0002"),
	CPU_BAD(" 1"),
	CPU_BAD("1 "),
	CPU_BAD("1\n"),
	CPU_BAD("2147483648"),
	CPU_BAD("4294967295"),
	CPU_BAD("4294967296"),
	CPU_BAD("18446744073709551616"),
	CPU_BAD("0x1"),
	CPU_BAD("1.0"),
	CPU_BAD("1e3"),
	CPU_BAD("self"),
	CPU_BAD("cpu0"),
	CPU_BAD("\xd9\xa1"),		/* ARABIC-INDIC DIGIT ONE */
	LONG_BAD(PCL_CPU, tc_d4k),
	LONG_BAD(PCL_CPU, tc_a4k),

	/* pid: "self", "all", or a canonical decimal 1 .. 2^31-1 */
	PID_OK("1", 1),
	PID_OK("42", 42),
	PID_OK("4194304", 4194304),
	PID_OK("2147483647", 2147483647),
	PID_SELF("self"),
	PID_ALL("all"),
	PID_BAD("0"),
	PID_BAD("00"),
	PID_BAD("01"),
	PID_BAD("-1"),
	PID_BAD("+1"),
	PID_BAD("2147483648"),
	PID_BAD("4294967295"),
	PID_BAD("4294967296"),
	PID_BAD("SELF"),
	PID_BAD("Self"),
	PID_BAD("sel"),
	PID_BAD("selff"),
	PID_BAD("self\0"),
	PID_BAD("se\0lf"),
	PID_BAD("all "),
	PID_BAD(""),
	PID_BAD("\0"),
	PID_BAD("1\0"),
	PID_BAD("0x10"),
	PID_BAD("self:u"),
	PID_BAD("thread"),
	LONG_BAD(PCL_PID, tc_d4k),
	LONG_BAD(PCL_PID, tc_a4k),
	/* pid: "cgroup." and a cgroup id, a canonical decimal 1 .. 2^64-1 */
	PID_CGROUP("cgroup.1", 1),
	PID_CGROUP("cgroup.9", 9),
	PID_CGROUP("cgroup.10", 10),
	PID_CGROUP("cgroup.4026531835", 4026531835ULL),
	PID_CGROUP("cgroup.4294967296", 4294967296ULL),
	PID_CGROUP("cgroup.18446744073709551615", 18446744073709551615ULL),
	PID_BAD("cgroup.18446744073709551616"),
	PID_BAD("cgroup.18446744073709551620"),
	PID_BAD("cgroup.99999999999999999999"),
	PID_BAD("cgroup.184467440737095516150"),
	PID_BAD("cgroup.0"),
	PID_BAD("cgroup.00"),
	PID_BAD("cgroup.01"),
	PID_BAD("cgroup.007"),
	PID_BAD("cgroup."),
	PID_BAD("cgroup"),
	PID_BAD("cgroup.."),
	PID_BAD("cgroup..1"),
	PID_BAD("cgroup.1."),
	PID_BAD("cgroup.1.2"),
	PID_BAD("cgroup.-1"),
	PID_BAD("cgroup.+1"),
	PID_BAD("cgroup. 1"),
	PID_BAD("cgroup.1 "),
	PID_BAD(" cgroup.1"),
	PID_BAD("cgroup.0x1"),
	PID_BAD("cgroup.1a"),
	PID_BAD("cgroup.1e3"),
	PID_BAD("cgroup.self"),
	PID_BAD("cgroup.all"),
	PID_BAD("cgroup.cgroup.1"),
	PID_BAD("CGROUP.1"),
	PID_BAD("Cgroup.1"),
	PID_BAD("cgroups.1"),
	PID_BAD("cgroup_1"),
	PID_BAD("cgroup:1"),
	PID_BAD("cgroup/1"),
	PID_BAD(".1"),
	PID_BAD("group.1"),
	PID_BAD("cgroup.1\0"),
	PID_BAD("cgroup.\0001"),	/* a NUL, then 1 */
	PID_BAD("cgroup\0.1"),
	PID_BAD("cgroup.1\n"),
	LONG_BAD(PCL_PID, tc_cg4k),

	/* type */
	TYPE_OK("simple", PERFCTRFS_SIMPLE),
	TYPE_OK("times", PERFCTRFS_TIMES),
	TYPE_OK("irq", PERFCTRFS_IRQ),
	TYPE_BAD(""),
	TYPE_BAD("Simple"),
	TYPE_BAD("SIMPLE"),
	TYPE_BAD("simpl"),
	TYPE_BAD("simplex"),
	TYPE_BAD("time"),
	TYPE_BAD("timesx"),
	TYPE_BAD("irq\0"),
	TYPE_BAD("ir\0q"),
	TYPE_BAD("irqs"),
	TYPE_BAD(" irq"),
	TYPE_BAD("0"),
	TYPE_BAD("1"),
	TYPE_BAD("2"),
	LONG_BAD(PCL_TYPE, tc_a4k),

	/* period: counts, canonical, 0 .. 2^63-1; 0 is not a period of irq */
	COUNT_OK(S_, "0", 0),
	COUNT_OK(T_, "0", 0),
	COUNT_OK(S_, "1", 1),
	COUNT_OK(S_, "300", 300),
	COUNT_OK(S_, "1000000", 1000000),
	COUNT_OK(S_, "9223372036854775807", 9223372036854775807ULL),
	COUNT_OK(I_, "1", 1),
	COUNT_OK(I_, "300", 300),
	COUNT_OK(I_, "9223372036854775807", 9223372036854775807ULL),
	PERIOD_BAD(I_, "0"),
	PERIOD_BAD(S_, "9223372036854775808"),
	PERIOD_BAD(S_, "18446744073709551615"),
	PERIOD_BAD(S_, "18446744073709551616"),
	PERIOD_BAD(S_, "00"),
	PERIOD_BAD(S_, "01"),
	PERIOD_BAD(S_, "-1"),
	PERIOD_BAD(S_, "+1"),
	PERIOD_BAD(S_, ""),
	PERIOD_BAD(S_, "\0"),
	PERIOD_BAD(S_, "1\0"),
	PERIOD_BAD(S_, "0x10"),
	PERIOD_BAD(S_, "1e3"),
	PERIOD_BAD(S_, "1.5"),
	PERIOD_BAD(S_, " 1"),
	PERIOD_BAD(S_, "1 "),
	LONG_BAD(PCL_PERIOD, tc_d4k),
	LONG_BAD(PCL_PERIOD, tc_a4k),

	/* period: times, a canonical decimal and ns/us/ms/s, >= 1ms */
	TIMED_OK(S_, "1ms", 1000000),
	TIMED_OK(S_, "100ms", 100000000),
	TIMED_OK(S_, "1s", 1000000000),
	TIMED_OK(S_, "10s", 10000000000ULL),
	TIMED_OK(S_, "1000us", 1000000),
	TIMED_OK(S_, "1001us", 1001000),
	TIMED_OK(S_, "1000000ns", 1000000),
	TIMED_OK(T_, "1s", 1000000000),
	TIMED_OK(I_, "10ms", 10000000),
	TIMED_OK(S_, "2147483648s", 2147483648000000000ULL),
	TIMED_OK(S_, "9223372036s", 9223372036000000000ULL),
	TIMED_OK(S_, "9223372036854ms", 9223372036854000000ULL),
	TIMED_OK(S_, "9223372036854775us", 9223372036854775000ULL),
	TIMED_OK(S_, "9223372036854775807ns", 9223372036854775807ULL),
	PERIOD_BAD(S_, "0ms"),
	PERIOD_BAD(S_, "0s"),
	PERIOD_BAD(S_, "0ns"),
	PERIOD_BAD(I_, "0us"),
	PERIOD_BAD(S_, "999us"),
	PERIOD_BAD(S_, "999999ns"),
	PERIOD_BAD(S_, "1ns"),
	PERIOD_BAD(S_, "1us"),
	PERIOD_BAD(S_, "1ms0"),
	PERIOD_BAD(S_, "1 s"),
	PERIOD_BAD(S_, "1S"),
	PERIOD_BAD(S_, "1MS"),
	PERIOD_BAD(S_, "1Ms"),
	PERIOD_BAD(S_, "01s"),
	PERIOD_BAD(S_, "00ms"),
	PERIOD_BAD(S_, "s"),
	PERIOD_BAD(S_, "ms"),
	PERIOD_BAD(S_, "1m"),
	PERIOD_BAD(S_, "1h"),
	PERIOD_BAD(S_, "1sec"),
	PERIOD_BAD(S_, "1mss"),
	PERIOD_BAD(S_, "1.5s"),
	PERIOD_BAD(S_, "-1s"),
	PERIOD_BAD(S_, "1e3ms"),
	PERIOD_BAD(S_, "0x1s"),
	PERIOD_BAD(S_, "1ms\0"),
	PERIOD_BAD(S_, "1\0ms"),
	PERIOD_BAD(S_, "1m\0s"),
	PERIOD_BAD(S_, "9223372037s"),
	PERIOD_BAD(S_, "9223372036855ms"),
	PERIOD_BAD(S_, "9223372036854776us"),
	PERIOD_BAD(S_, "9223372036854775808ns"),
	PERIOD_BAD(S_, "18446744073709551616ns"),
	LONG_BAD(PCL_PERIOD, tc_d4k_s),

	/* event: generic hardware events */
	EV_OK("cycles", 1, HW(0)),
	EV_OK("instructions", 1, HW(1)),
	EV_OK("cache_references", 1, HW(2)),
	EV_OK("cache_misses", 1, HW(3)),
	EV_OK("branch_instructions", 1, HW(4)),
	EV_OK("branch_misses", 1, HW(5)),
	EV_OK("bus_cycles", 1, HW(6)),
	EV_OK("stalled_cycles_frontend", 1, HW(7)),
	EV_OK("stalled_cycles_backend", 1, HW(8)),
	EV_OK("ref_cycles", 1, HW(9)),

	/* event: software events */
	EV_OK("cpu_clock", 1, SW(0)),
	EV_OK("task_clock", 1, SW(1)),
	EV_OK("page_faults", 1, SW(2)),
	EV_OK("context_switches", 1, SW(3)),
	EV_OK("cpu_migrations", 1, SW(4)),
	EV_OK("minor_faults", 1, SW(5)),
	EV_OK("major_faults", 1, SW(6)),
	EV_OK("alignment_faults", 1, SW(7)),
	EV_OK("emulation_faults", 1, SW(8)),

	/* event: hardware cache events, cache | op << 8 | result << 16 */
	EV_OK("l1d_read_access", 1, HWC(0, 0, 0)),
	EV_OK("l1d_read_miss", 1, HWC(0, 0, 1)),
	EV_OK("l1d_write_miss", 1, HWC(0, 1, 1)),
	EV_OK("l1i_read_miss", 1, HWC(1, 0, 1)),
	EV_OK("llc_read_access", 1, HWC(2, 0, 0)),
	EV_OK("llc_prefetch_miss", 1, HWC(2, 2, 1)),
	EV_OK("dtlb_read_miss", 1, HWC(3, 0, 1)),
	EV_OK("itlb_read_miss", 1, HWC(4, 0, 1)),
	EV_OK("branch_read_miss", 1, HWC(5, 0, 1)),
	EV_OK("node_write_access", 1, HWC(6, 1, 0)),
	EV_OK("node_prefetch_miss", 1, HWC(6, 2, 1)),
	EV_BAD("l1d_load_miss"),
	EV_BAD("l1d_read_misses"),
	EV_BAD("l1d_read"),
	EV_BAD("l1d_miss"),
	EV_BAD("l2_read_miss"),
	EV_BAD("llc_read_hit"),
	EV_BAD("node_execute_access"),
	EV_BAD("L1-dcache-load-misses"),

	/* event: names are exact */
	EV_BAD(""),
	EV_BAD("\0"),
	EV_BAD("CYCLES"),
	EV_BAD("Cycles"),
	EV_BAD("cycle"),
	EV_BAD("cyclesx"),
	EV_BAD("cycles\0"),
	EV_BAD("cyc\0les"),
	EV_BAD("\0cycles"),
	EV_BAD(" cycles"),
	EV_BAD("cycles "),
	EV_BAD("cycles\n"),
	EV_BAD("cpu-cycles"),
	EV_BAD("cache-misses"),
	EV_BAD("task-clock"),
	EV_BAD("0"),
	EV_BAD("42"),
	LONG_BAD(PCL_EVENT, tc_a4k),
	LONG_BAD(PCL_EVENT, tc_cycles_a4k),

	/* event: modifiers, as perf: naming a level excludes the others */
	EV_OK("cycles:u", 1, HWX(0, EX_K | EX_H)),
	EV_OK("cycles:k", 1, HWX(0, EX_U | EX_H)),
	EV_OK("cycles:h", 1, HWX(0, EX_U | EX_K)),
	EV_OK("cycles:uk", 1, HWX(0, EX_H)),
	EV_OK("cycles:ku", 1, HWX(0, EX_H)),
	EV_OK("cycles:uh", 1, HWX(0, EX_K)),
	EV_OK("cycles:ukh", 1, HWX(0, 0)),
	EV_OK("cycles:hku", 1, HWX(0, 0)),
	EV_OK("cycles:I", 1, HWX(0, EX_I)),
	EV_OK("cycles:uI", 1, HWX(0, EX_K | EX_H | EX_I)),
	EV_OK("cycles:Iu", 1, HWX(0, EX_K | EX_H | EX_I)),
	EV_OK("cycles:kI", 1, HWX(0, EX_U | EX_H | EX_I)),
	EV_OK("cycles:ukhI", 1, HWX(0, EX_I)),
	EV_OK("task_clock:u", 1, MEMBER(1, 1, 0, 0, EX_K | EX_H)),
	EV_OK("l1d_read_miss:k", 1, MEMBER(3, 0x10000, 0, 0, EX_U | EX_H)),
	EV_BAD("cycles:"),
	EV_BAD("cycles:uu"),
	EV_BAD("cycles:kk"),
	EV_BAD("cycles:II"),
	EV_BAD("cycles:ukhu"),
	EV_BAD("cycles:x"),
	EV_BAD("cycles:U"),
	EV_BAD("cycles:K"),
	EV_BAD("cycles:i"),
	EV_BAD("cycles:p"),
	EV_BAD("cycles:pp"),
	EV_BAD("cycles:G"),
	EV_BAD("cycles:H"),
	EV_BAD("cycles::u"),
	EV_BAD("cycles:u:k"),
	EV_BAD("cycles: u"),
	EV_BAD("cycles:u "),
	EV_BAD("cycles:uk\0"),
	EV_BAD("cycles:u\0k"),
	EV_BAD(":u"),
	EV_BAD(":uu"),
	EV_BAD(":"),
	EV_BAD("CYCLES:u"),

	/* event: raw codes, "0x" and 1..16 canonical lower-case hex digits */
	EV_OK("0x0", 1, RAW(0)),
	EV_OK("0x1", 1, RAW(1)),
	EV_OK("0x3c", 1, RAW(0x3c)),
	EV_OK("0x4064", 1, RAW(0x4064)),
	EV_OK("0x1234567890abcdef", 1, RAW(0x1234567890abcdefULL)),
	EV_OK("0x8000000000000000", 1, RAW(0x8000000000000000ULL)),
	EV_OK("0xffffffffffffffff", 1, RAW(0xffffffffffffffffULL)),
	EV_OK("0x3c:u", 1, RAWX(0x3c, EX_K | EX_H)),
	EV_BAD("0x"),
	EV_BAD("0X1"),
	EV_BAD("0x01"),
	EV_BAD("0x00"),
	EV_BAD("0x0000000000000000"),
	EV_BAD("0xA"),
	EV_BAD("0x3C"),
	EV_BAD("0xg"),
	EV_BAD("0x-1"),
	EV_BAD("0x 1"),
	EV_BAD("0x1 "),
	EV_BAD("0x10000000000000000"),
	EV_BAD("0x1ffffffffffffffff"),
	EV_BAD("00x1"),
	EV_BAD("0x1x"),
	EV_BAD("0x1:"),
	EV_BAD("x1"),
	EV_BAD("0x1.0"),
	EV_BAD("0x1.tsc"),
	EV_BAD("0x1\0"),
	EV_BAD("0x\0001"),

	/* event: PMU aliases, "<pmu>.<alias>", matched exactly */
	EV_OK("msr.tsc", 1, PMUEV(9, 0)),
	EV_OK("msr.aperf", 1, PMUEV(9, 1)),
	EV_OK("msr.smi", 1, PMUEV(9, 4)),
	EV_OK("cpu.cpu_cycles", 1, PMUEV(4, 0x3c)),
	EV_OK("cpu.instructions", 1, PMUEV(4, 0xc0)),
	EV_OK("cpu.ref_cycles", 1, PMUEV(4, 0x300)),
	EV_OK("cpu.mem_loads", 1, MEMBER(4, 0x1cd, 3, 0, 0)),
	EV_OK("cpu.mem_loads_aux", 1, PMUEV(4, 0x8203)),
	EV_OK("cpu.cycle_activity_stalls_total", 1, PMUEV(4, 0x040004a3)),
	EV_OK("cpu.l1d_pend_miss_fb_full_periods", 1, PMUEV(4, 0x01040248)),
	EV_OK("cpu.uops_retired_total_cycles", 1, PMUEV(4, 0x108001c2)),
	EV_OK("cpu.frontend_retired_dsb_miss", 1, MEMBER(4, 0x1c6, 0, 0x11, 0)),
	EV_OK("cpu.any_thread_cycles", 1, PMUEV(4, 0x20003c)),
	EV_OK("amd_like.ls_dispatch", 1, PMUEV(10, 0x100000129ULL)),
	EV_OK("amd_like.ex_ret_instr", 1, PMUEV(10, 0xc0)),
	EV_OK("uncore_imc_0.cas_count_read", 1, PMUEV(11, 0x304)),
	EV_OK("uncore_imc_0.cas_count_write", 1, PMUEV(11, 0xc04)),
	EV_OK("uncore_imc_0.clockticks", 1, PMUEV(11, 0xff)),
	EV_OK("broken.ok_one", 1, PMUEV(12, 2)),
	EV_OK("msr.tsc:u", 1, MEMBER(9, 0, 0, 0, EX_K | EX_H)),
	EV_OK("cpu.mem_loads:kI", 1, MEMBER(4, 0x1cd, 3, 0, EX_U | EX_H | EX_I)),
	EV_BAD("msr."),
	EV_BAD(".tsc"),
	EV_BAD("."),
	EV_BAD("msr"),
	EV_BAD("msr.TSC"),
	EV_BAD("MSR.tsc"),
	EV_BAD("msr.ts"),
	EV_BAD("msr.tscx"),
	EV_BAD("msr.tsc."),
	EV_BAD("msr..tsc"),
	EV_BAD("msr.tsc\0"),
	EV_BAD("msr.t\0sc"),
	EV_BAD("msr\0.tsc"),
	EV_BAD("msr.tsc:uu"),
	EV_BAD("nopmu.tsc"),
	EV_BAD("cpu.mem_load"),
	EV_BAD("cpu.mem-loads"),
	EV_BAD("cpu.cycles"),
	EV_BAD("cpu.cpu_cycles=1"),
	EV_BAD("cpu.event"),
	EV_BAD("uncore_imc.cas_count_read"),
	EV_BAD("uncore_imc_1.cas_count_read"),
	EV_BAD("uncore.imc_0.cas_count_read"),
	EV_BAD("uncore_imc_0..cas_count_read"),
	LONG_BAD(PCL_EVENT, tc_cpu_a4k),
	LONG_BAD(PCL_EVENT, tc_a4k_tsc),

	/* event: aliases whose driver terms do not encode are unusable */
	EV_BAD("broken.with_period"),
	EV_BAD("broken.question"),
	EV_BAD("broken.empty"),
	EV_BAD("broken.too_wide"),
	EV_BAD("broken.no_value"),
	EV_BAD("broken.duplicate"),
	EV_BAD("broken.trailing_comma"),
	EV_BAD("broken.space"),
	EV_BAD("broken.upper_x"),

	/* event: PMU terms, "<pmu>.<term>=<value>,...", through the formats */
	EV_OK("cpu.event=0x3c", 1, PMUEV(4, 0x3c)),
	EV_OK("cpu.event=0x3c,umask=0x0", 1, PMUEV(4, 0x3c)),
	EV_OK("cpu.umask=0x1,event=0xc0", 1, PMUEV(4, 0x1c0)),
	EV_OK("cpu.event=60", 1, PMUEV(4, 0x3c)),
	EV_OK("cpu.event=0", 1, PMUEV(4, 0)),
	EV_OK("cpu.event=0x3c,edge=1", 1, PMUEV(4, 0x4003c)),
	/*
	 * A composed value has one spelling, as every number in a path:
	 * no leading zero, lower-case hex (a driver's alias may have both).
	 */
	EV_BAD("cpu.event=0x3c,umask=0x00"),
	EV_BAD("cpu.event=0x3C"),
	EV_BAD("cpu.event=0x003c"),
	EV_BAD("cpu.event=060"),
	EV_BAD("cpu.event=00"),
	EV_BAD("cpu.config2=0x0000000000000001"),
	EV_OK("cpu.cmask=0xff", 1, PMUEV(4, 0xff000000)),
	EV_OK("cpu.config=0x1234", 1, PMUEV(4, 0x1234)),
	EV_OK("cpu.config=0xffffffffffffffff", 1, PMUEV(4, 0xffffffffffffffffULL)),
	EV_OK("cpu.config1=0x5", 1, MEMBER(4, 0, 5, 0, 0)),
	EV_OK("cpu.config2=0x7", 1, MEMBER(4, 0, 0, 7, 0)),
	EV_OK("cpu.ldlat=0xffff", 1, MEMBER(4, 0, 0xffff, 0, 0)),
	EV_OK("cpu.frontend=0xffffff", 1, MEMBER(4, 0, 0, 0xffffff, 0)),
	EV_OK("cpu.event=0xcd,umask=0x1,ldlat=3", 1, MEMBER(4, 0x1cd, 3, 0, 0)),
	EV_OK("cpu.config=0x100,event=0x3c", 1, PMUEV(4, 0x13c)),
	EV_OK("cpu.event=0x3c:u", 1, MEMBER(4, 0x3c, 0, 0, EX_K | EX_H)),
	EV_OK("msr.event=0x3", 1, PMUEV(9, 3)),
	EV_OK("msr.event=0xffffffffffffffff", 1, PMUEV(9, 0xffffffffffffffffULL)),
	EV_OK("amd_like.event=0xfff", 1, PMUEV(10, 0xf000000ffULL)),
	EV_OK("amd_like.event=0x100", 1, PMUEV(10, 0x100000000ULL)),
	EV_OK("amd_like.event=0x1ff", 1, PMUEV(10, 0x1000000ffULL)),
	EV_OK("amd_like.event=0x129,umask=0x1", 1, PMUEV(10, 0x100000129ULL)),
	EV_OK("uncore_imc_0.event=0x4,umask=0x3", 1, PMUEV(11, 0x304)),
	EV_OK("tracepoint.config=0x10", 1, PMUEV(2, 0x10)),
	EV_BAD("cpu.event="),
	EV_BAD("cpu.=0x3c"),
	EV_BAD("cpu.="),
	EV_BAD("cpu.event=0x3c,"),
	EV_BAD("cpu.,event=0x3c"),
	EV_BAD("cpu.event=0x3c,,umask=1"),
	EV_BAD("cpu.event=0x100"),
	EV_BAD("cpu.umask=0x100"),
	EV_BAD("cpu.edge=2"),
	EV_BAD("cpu.edge=1,edge=1"),
	EV_BAD("cpu.event=0x3c,event=0x3c"),
	EV_BAD("cpu.EVENT=0x3c"),
	EV_BAD("cpu.event=0X3c"),
	EV_BAD("cpu.event=0x"),
	EV_BAD("cpu.event=0xg"),
	EV_BAD("cpu.event=-1"),
	EV_BAD("cpu.event= 1"),
	EV_BAD("cpu.event =1"),
	EV_BAD("cpu.event==1"),
	EV_BAD("cpu.event=1=2"),
	EV_BAD("cpu.event=0x3c;umask=1"),
	EV_BAD("cpu.period=100"),
	EV_BAD("cpu.event=?"),
	EV_BAD("cpu.config3=1"),
	EV_BAD("cpu.even=1"),
	EV_BAD("cpu.eventx=1"),
	EV_BAD("cpu.config=0x10000000000000000"),
	EV_BAD("cpu.ldlat=0x10000"),
	EV_BAD("cpu.event=0x3c\0"),
	EV_BAD("cpu.event=0x3c:"),
	EV_BAD("amd_like.event=0x1000"),
	EV_BAD("msr.umask=0x1"),
	EV_BAD("tracepoint.event=1"),
	LONG_BAD(PCL_EVENT, tc_event_a4k),

	/* event: groups, 1..8 members joined by '+' */
	EV_OK("cycles+instructions", 2, HW(0), HW(1)),
	EV_OK("cycles+instructions+cache_misses", 3, HW(0), HW(1), HW(3)),
	EV_OK("cycles+cycles", 2, HW(0), HW(0)),
	EV_OK("cycles:u+instructions:k", 2, HWX(0, EX_K | EX_H), HWX(1, EX_U | EX_H)),
	EV_OK("msr.tsc+cpu.cpu_cycles+0x3c+task_clock", 4,
	      PMUEV(9, 0), PMUEV(4, 0x3c), RAW(0x3c), SW(1)),
	EV_OK("cpu.event=0x3c,umask=0x0+cpu.event=0xc0", 2, PMUEV(4, 0x3c), PMUEV(4, 0xc0)),
	EV_OK(GROUP8_HW, 8,
	      HW(0), HW(1), HW(2), HW(3), HW(4), HW(5), HW(6), HW(9)),
	EV_OK("0x1+0x2+0x3+0x4+0x5+0x6+0x7+0x8", 8,
	      RAW(1), RAW(2), RAW(3), RAW(4), RAW(5), RAW(6), RAW(7), RAW(8)),
	EV_OK(GROUP6_MIXED, 6,
	      HWX(0, EX_K | EX_H), PMUEV(9, 0), MEMBER(4, 0x13c, 0, 0, EX_U | EX_H),
	      RAWX(0x4064, EX_I), SW(1), MEMBER(3, 0x10000, 0, 0, EX_H)),
	EV_BAD("cycles+cycles+cycles+cycles+cycles+cycles+cycles+cycles+cycles"),
	EV_BAD("0x1+0x2+0x3+0x4+0x5+0x6+0x7+0x8+0x9"),
	EV_BAD(GROUP9_HW),
	EV_BAD("+cycles"),
	EV_BAD("cycles+"),
	EV_BAD("cycles++instructions"),
	EV_BAD("+"),
	EV_BAD("++"),
	EV_BAD("+a"),
	EV_BAD("a++b"),
	EV_BAD("cycles+CYCLES"),
	EV_BAD("cycles + instructions"),
	EV_BAD("cycles+instructions:"),
	EV_BAD("cycles+:u"),
	EV_BAD("cycles:u+"),
	EV_BAD("cycles+\0"),
	EV_BAD("cycles+nopmu.x"),
	EV_BAD("cycles+broken.question"),

	/* terms, straight through perfctrfs_encode_terms() */
	TERMS_OK("cpu", "event=0x3c", 0x3c, 0, 0),
	TERMS_OK("cpu", "event=0x3c,umask=0x00", 0x3c, 0, 0),
	TERMS_OK("cpu", "umask=0x01,event=0xc0", 0x1c0, 0, 0),
	TERMS_OK("cpu", "event=60", 0x3c, 0, 0),
	TERMS_OK("cpu", "event=0060", 0x3c, 0, 0),
	TERMS_OK("cpu", "event=0x3C", 0x3c, 0, 0),
	TERMS_OK("cpu", "event=0x0", 0, 0, 0),
	TERMS_OK("cpu", "event=0xff,umask=0xff,edge=1,pc=1,any=1,inv=1,cmask=0xff",
		 0xffacffff, 0, 0),
	TERMS_OK("cpu", "ldlat=3", 0, 3, 0),
	TERMS_OK("cpu", "frontend=0x11", 0, 0, 0x11),
	TERMS_OK("cpu", "config=0x1234", 0x1234, 0, 0),
	TERMS_OK("cpu", "config=18446744073709551615", 0xffffffffffffffffULL, 0, 0),
	TERMS_OK("cpu", "config=0x00000000000000000001", 1, 0, 0),
	TERMS_OK("cpu", "config1=0x1,config2=0x2,config=0x3", 3, 1, 2),
	TERMS_OK("cpu", "config=0x100,event=0x3c", 0x13c, 0, 0),
	TERMS_OK("cpu", "event=0x3c,config=0x3c", 0x3c, 0, 0),
	TERMS_OK("amd_like", "event=0xfff,umask=0xff", 0xf0000ffffULL, 0, 0),
	TERMS_OK("amd_like", "event=0x129,umask=0x1", 0x100000129ULL, 0, 0),
	TERMS_OK("msr", "event=0xffffffffffffffff", 0xffffffffffffffffULL, 0, 0),
	TERMS_OK("tracepoint", "config=0x10", 0x10, 0, 0),
	TERMS_BAD("cpu", ""),
	TERMS_BAD("cpu", ","),
	TERMS_BAD("cpu", "event"),
	TERMS_BAD("cpu", "event="),
	TERMS_BAD("cpu", "=0x3c"),
	TERMS_BAD("cpu", "event=0x3c,"),
	TERMS_BAD("cpu", ",event=0x3c"),
	TERMS_BAD("cpu", "event=0x3c,,umask=1"),
	TERMS_BAD("cpu", "event=0x100"),
	TERMS_BAD("cpu", "umask=0x100"),
	TERMS_BAD("cpu", "edge=2"),
	TERMS_BAD("cpu", "cmask=256"),
	TERMS_BAD("cpu", "ldlat=0x10000"),
	TERMS_BAD("cpu", "event=0x3c,event=0x3c"),
	TERMS_BAD("cpu", "config=1,config=1"),
	TERMS_BAD("cpu", "EVENT=0x3c"),
	TERMS_BAD("cpu", "event=0X3c"),
	TERMS_BAD("cpu", "event=0x"),
	TERMS_BAD("cpu", "event=+1"),
	TERMS_BAD("cpu", "event=1 "),
	TERMS_BAD("cpu", "event=1e3"),
	TERMS_BAD("cpu", "event=1.0"),
	TERMS_BAD("cpu", "period=100"),
	TERMS_BAD("cpu", "event=0x3c,period=2000003"),
	TERMS_BAD("cpu", "event=?"),
	TERMS_BAD("cpu", "config=18446744073709551616"),
	TERMS_BAD("cpu", "event=1\0"),
	TERMS_BAD("cpu", "event=1\0,umask=1"),
	TERMS_BAD("amd_like", "event=0x1000"),
	TERMS_BAD("msr", "umask=0x1"),
	TERMS_BAD("tracepoint", "event=1"),

	/* format fields, as sysfs shows them */
	FMT_OK("config:0-7", 0, 0xff),
	FMT_OK("config:8-15", 0, 0xff00),
	FMT_OK("config:18", 0, 0x40000),
	FMT_OK("config:0", 0, 0x1),
	FMT_OK("config:63", 0, 0x8000000000000000ULL),
	FMT_OK("config:0-63", 0, 0xffffffffffffffffULL),
	FMT_OK("config:5-5", 0, 0x20),
	FMT_OK("config1:0-31", 1, 0xffffffff),
	FMT_OK("config2:0-23", 2, 0xffffff),
	FMT_OK("config:0-7,32-35", 0, 0xf000000ffULL),
	FMT_OK("config:0-7,21", 0, 0x2000ff),
	FMT_OK("config:0,2,4", 0, 0x15),
	FMT_OK("config:0-7\n", 0, 0xff),
	FMT_BAD(""),
	FMT_BAD("\n"),
	FMT_BAD("config"),
	FMT_BAD("config:"),
	FMT_BAD(":0-7"),
	FMT_BAD("config:8-7"),
	FMT_BAD("config:64"),
	FMT_BAD("config:0-64"),
	FMT_BAD("config:-1"),
	FMT_BAD("config:-7"),
	FMT_BAD("config:0-"),
	FMT_BAD("config:0-7-9"),
	FMT_BAD("config3:0-7"),
	FMT_BAD("configx:0"),
	FMT_BAD("Config:0"),
	FMT_BAD("config :0"),
	FMT_BAD("config: 0"),
	FMT_BAD("config:0 "),
	FMT_BAD("config:0-7,"),
	FMT_BAD("config:,0-7"),
	FMT_BAD("config:0-7,,8"),
	FMT_BAD("config:07"),
	FMT_BAD("config:0x1"),
	FMT_BAD("config:0-7,4-9"),
	FMT_BAD("config:3,3"),
	FMT_BAD("config:0-7\n\n"),
	FMT_BAD("config:0\0"),
	FMT_BAD("config\0:0"),
};

/*
 * What the user.perfctr.encoding xattr says for an event name: each is
 * also written into a buffer one byte short (-ENAMETOOLONG).
 */
struct perfctrfs_encoding_case {
	const char *event;
	const char *encoding;
};

#define ENCODING_MIXED2	"type=0,config=0x0,exclude_kernel=1,exclude_hv=1+type=9,config=0x0,exclude_user=1,exclude_hv=1"

static const struct perfctrfs_encoding_case perfctrfs_encoding_cases[] = {
	{ "cycles", "type=0,config=0x0" },
	{ "instructions", "type=0,config=0x1" },
	{ "task_clock", "type=1,config=0x1" },
	{ "l1d_read_miss", "type=3,config=0x10000" },
	{ "cycles:u", "type=0,config=0x0,exclude_kernel=1,exclude_hv=1" },
	{ "cycles:I", "type=0,config=0x0,exclude_idle=1" },
	{ "cycles:kI", "type=0,config=0x0,exclude_user=1,exclude_hv=1,exclude_idle=1" },
	{ "cpu.mem_loads", "type=4,config=0x1cd,config1=0x3" },
	{ "cpu.frontend_retired_dsb_miss", "type=4,config=0x1c6,config2=0x11" },
	{ "cpu.config1=0x5,config2=0x7", "type=4,config=0x0,config1=0x5,config2=0x7" },
	{ "0xffffffffffffffff", "type=4,config=0xffffffffffffffff" },
	{ "msr.tsc", "type=9,config=0x0" },
	{ "amd_like.ls_dispatch", "type=10,config=0x100000129" },
	{ "cycles+instructions", "type=0,config=0x0+type=0,config=0x1" },
	{ "cycles:u+msr.tsc:k", ENCODING_MIXED2 },
};

/* Path forms of sysfs alias names. */
struct perfctrfs_alias_path_case {
	const char *pmu;
	const char *alias;
	const char *path;
};

static const struct perfctrfs_alias_path_case perfctrfs_alias_path_cases[] = {
	{ "msr", "tsc", "msr.tsc" },
	{ "cpu", "cpu-cycles", "cpu.cpu_cycles" },
	{ "cpu", "mem-loads-aux", "cpu.mem_loads_aux" },
	{ "cpu", "Topdown-Retiring", "cpu.topdown_retiring" },
	{ "power", "PM_RUN_INST_CMPL", "power.pm_run_inst_cmpl" },
	{ "uncore_imc_0", "cas_count_read", "uncore_imc_0.cas_count_read" },
	{ "cpu_core", "L1-dcache-loads", "cpu_core.l1_dcache_loads" },
};

/* ---- running them --------------------------------------------------- */

/* Why a check failed: the first value that differed. */
struct perfctrfs_case_fail {
	const char *what;	/* "errno", "config", ...; NULL when it passed */
	int member;		/* the group member, or -1 */
	u64 got;
	u64 want;
};

static bool perfctrfs_case_differs(struct perfctrfs_case_fail *f, const char *what,
				   int member, u64 got, u64 want)
{
	if (got == want)
		return false;
	f->what = what;
	f->member = member;
	f->got = got;
	f->want = want;
	return true;
}

static const struct perfctrfs_pmu *perfctrfs_test_pmu(const char *name)
{
	unsigned int i;

	for (i = 0; i < perfctrfs_test_catalog.nr_pmus; i++)
		if (!strcmp(perfctrfs_test_catalog.pmus[i].name, name))
			return &perfctrfs_test_catalog.pmus[i];
	return NULL;
}

static bool perfctrfs_member_differs(struct perfctrfs_case_fail *f, int i,
				     const struct perfctrfs_event *got,
				     const struct perfctrfs_case_member *want)
{
	return perfctrfs_case_differs(f, "type", i, got->type, want->type) ||
	       perfctrfs_case_differs(f, "config", i, got->config, want->config) ||
	       perfctrfs_case_differs(f, "config1", i, got->config1, want->config1) ||
	       perfctrfs_case_differs(f, "config2", i, got->config2, want->config2) ||
	       perfctrfs_case_differs(f, "exclude_user", i, got->exclude_user,
				      !!(want->excl & EX_U)) ||
	       perfctrfs_case_differs(f, "exclude_kernel", i, got->exclude_kernel,
				      !!(want->excl & EX_K)) ||
	       perfctrfs_case_differs(f, "exclude_hv", i, got->exclude_hv,
				      !!(want->excl & EX_H)) ||
	       perfctrfs_case_differs(f, "exclude_idle", i, got->exclude_idle,
				      !!(want->excl & EX_I));
}

static bool perfctrfs_event_differs(struct perfctrfs_case_fail *f,
				    const struct perfctrfs_event_spec *got,
				    const struct perfctrfs_case_spec *want)
{
	unsigned int i;

	if (perfctrfs_case_differs(f, "nr", -1, got->nr, want->nr))
		return true;
	for (i = 0; i < want->nr; i++)
		if (perfctrfs_member_differs(f, i, &got->ev[i], &want->ev[i]))
			return true;
	return false;
}

/**
 * perfctrfs_case_run() - parse one case's input and compare the result
 * @c: the case
 * @in: a copy of c->in, exactly c->len bytes long
 * @f: receives the first difference
 *
 * Return: true when the case passed.
 */
static bool perfctrfs_case_run(const struct perfctrfs_case *c, const char *in,
			       struct perfctrfs_case_fail *f)
{
	union {
		struct perfctrfs_cpu cpu;
		struct perfctrfs_event_spec event;
		struct perfctrfs_pid pid;
		enum perfctrfs_type type;
		struct perfctrfs_period period;
		struct perfctrfs_event terms;
		struct {
			u8 word;
			u64 mask;
		} format;
	} got;
	const struct perfctrfs_pmu *pmu;
	int ret = -ENOENT;

	memset(&got, 0, sizeof(got));
	f->what = NULL;
	f->member = -1;
	switch (c->level) {
	case PCL_CPU:
		ret = perfctrfs_parse_cpu(in, c->len, &got.cpu);
		break;
	case PCL_EVENT:
		ret = perfctrfs_parse_event(in, c->len, &perfctrfs_test_catalog, &got.event);
		break;
	case PCL_PID:
		ret = perfctrfs_parse_pid(in, c->len, &got.pid);
		break;
	case PCL_TYPE:
		ret = perfctrfs_parse_type(in, c->len, &got.type);
		break;
	case PCL_PERIOD:
		ret = perfctrfs_parse_period(in, c->len, c->under, &got.period);
		break;
	case PCL_TERMS:
		pmu = perfctrfs_test_pmu(c->pmu);
		if (perfctrfs_case_differs(f, "pmu in the test catalogue", -1, !!pmu, 1))
			return false;
		ret = perfctrfs_encode_terms(pmu, in, c->len, &got.terms);
		break;
	case PCL_FORMAT:
		ret = perfctrfs_parse_format(in, c->len, &got.format.word, &got.format.mask);
		break;
	}
	/* errnos compare as positive numbers, to read well */
	if (perfctrfs_case_differs(f, "errno", -1, -ret, -c->err))
		return false;
	if (ret)
		return true;

	switch (c->level) {
	case PCL_CPU:
		return !perfctrfs_case_differs(f, "all", -1, got.cpu.all, c->want.cpu.all) &&
		       !perfctrfs_case_differs(f, "cpu", -1, got.cpu.cpu, c->want.cpu.cpu);
	case PCL_EVENT:
		return !perfctrfs_event_differs(f, &got.event, c->want.event);
	case PCL_PID:
		return !perfctrfs_case_differs(f, "kind", -1, got.pid.kind, c->want.pid.kind) &&
		       !perfctrfs_case_differs(f, "pid", -1, got.pid.pid, c->want.pid.pid) &&
		       !perfctrfs_case_differs(f, "cgroup", -1, got.pid.cgroup,
					       c->want.pid.cgroup);
	case PCL_TYPE:
		return !perfctrfs_case_differs(f, "type", -1, got.type, c->want.type);
	case PCL_PERIOD:
		return !perfctrfs_case_differs(f, "is_time", -1, got.period.is_time,
					       c->want.period.is_time) &&
		       !perfctrfs_case_differs(f, "value", -1, got.period.value,
					       c->want.period.value);
	case PCL_TERMS:
		return !perfctrfs_case_differs(f, "config", -1, got.terms.config,
					       c->want.terms.config) &&
		       !perfctrfs_case_differs(f, "config1", -1, got.terms.config1,
					       c->want.terms.config1) &&
		       !perfctrfs_case_differs(f, "config2", -1, got.terms.config2,
					       c->want.terms.config2);
	case PCL_FORMAT:
		return !perfctrfs_case_differs(f, "word", -1, got.format.word,
					       c->want.format.word) &&
		       !perfctrfs_case_differs(f, "mask", -1, got.format.mask,
					       c->want.format.mask);
	}
	f->what = "level";
	return false;
}

/*
 * Describe a case in @buf, for TAP and KUnit: "<level> '<input>'", bytes
 * outside printable ASCII as \xNN, long inputs cut with their length.
 */
static void perfctrfs_case_desc(const struct perfctrfs_case *c, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const char *level = perfctrfs_case_level_names[c->level];
	size_t n = 0, i;

	if (size < 64) {
		if (size)
			buf[0] = '\0';
		return;
	}
	size -= 32;	/* room for the cut marker and the NUL */
	while (*level && n < size)
		buf[n++] = *level++;
	buf[n++] = ' ';
	buf[n++] = '\'';
	for (i = 0; i < c->len && i < 48 && n + 4 < size; i++) {
		unsigned char ch = c->in[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			buf[n++] = ch;
		} else {
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 0xf];
		}
	}
	buf[n++] = '\'';
	if (i < c->len) {
		const char *cut = "...";
		char digits[20];
		size_t len = c->len;
		int d = 0;

		while (*cut)
			buf[n++] = *cut++;
		do {
			digits[d++] = '0' + len % 10;
			len /= 10;
		} while (len && d < (int)sizeof(digits));
		buf[n++] = '(';
		while (d)
			buf[n++] = digits[--d];
		buf[n++] = ')';
	}
	buf[n] = '\0';
}

#define PERFCTRFS_CASE_BUF	2048	/* scratch the checks below need */

/**
 * perfctrfs_encoding_check() - check one perfctrfs_encoding_cases[] entry
 * @e: the entry
 * @buf: scratch of PERFCTRFS_CASE_BUF bytes
 * @f: receives the first difference
 *
 * Return: true when it passed.
 */
static bool perfctrfs_encoding_check(const struct perfctrfs_encoding_case *e,
				     char *buf, struct perfctrfs_case_fail *f)
{
	struct perfctrfs_event_spec spec;
	size_t want = strlen(e->encoding);
	int ret;

	f->what = NULL;
	f->member = -1;
	ret = perfctrfs_parse_event(e->event, strlen(e->event),
				    &perfctrfs_test_catalog, &spec);
	if (perfctrfs_case_differs(f, "parse errno", -1, -ret, 0))
		return false;

	/* exactly enough room, then one byte short, then none */
	memset(buf, 0x5a, PERFCTRFS_CASE_BUF);
	ret = perfctrfs_format_encoding(&spec, buf, want + 1);
	if (perfctrfs_case_differs(f, "length", -1, ret, want) ||
	    perfctrfs_case_differs(f, "text", -1, !!strcmp(buf, e->encoding), 0) ||
	    perfctrfs_case_differs(f, "byte after the NUL", -1, buf[want + 1], 0x5a))
		return false;
	memset(buf, 0x5a, PERFCTRFS_CASE_BUF);
	ret = perfctrfs_format_encoding(&spec, buf, want);
	if (perfctrfs_case_differs(f, "short buffer errno", -1, -ret, ENAMETOOLONG) ||
	    perfctrfs_case_differs(f, "short buffer overrun", -1, buf[want], 0x5a))
		return false;
	ret = perfctrfs_format_encoding(&spec, NULL, 0);
	return !perfctrfs_case_differs(f, "empty buffer errno", -1, -ret, ENAMETOOLONG);
}

/**
 * perfctrfs_alias_path_check() - check one perfctrfs_alias_path_cases[] entry
 * @a: the entry
 * @buf: scratch of PERFCTRFS_CASE_BUF bytes
 * @f: receives the first difference
 *
 * Return: true when it passed.
 */
static bool perfctrfs_alias_path_check(const struct perfctrfs_alias_path_case *a,
				       char *buf, struct perfctrfs_case_fail *f)
{
	size_t want = strlen(a->path);
	int ret;

	f->what = NULL;
	f->member = -1;
	memset(buf, 0x5a, PERFCTRFS_CASE_BUF);
	ret = perfctrfs_alias_path(a->pmu, a->alias, buf, want + 1);
	if (perfctrfs_case_differs(f, "length", -1, ret, want) ||
	    perfctrfs_case_differs(f, "text", -1, !!strcmp(buf, a->path), 0) ||
	    perfctrfs_case_differs(f, "byte after the NUL", -1, buf[want + 1], 0x5a))
		return false;
	memset(buf, 0x5a, PERFCTRFS_CASE_BUF);
	ret = perfctrfs_alias_path(a->pmu, a->alias, buf, want);
	return !perfctrfs_case_differs(f, "short buffer errno", -1, -ret, ENAMETOOLONG) &&
	       !perfctrfs_case_differs(f, "short buffer overrun", -1, buf[want], 0x5a);
}

/**
 * perfctrfs_builtins_check() - check perfctrfs_builtins[] against perf
 * @buf: scratch of PERFCTRFS_CASE_BUF bytes
 * @f: receives the first difference; ->member is the builtin's index
 *
 * 10 hardware, 9 software and all 42 cache events, each named once, each
 * cache event named <cache>_<op>_<result> after its config, and each
 * parsing back to its own type and config.
 *
 * Return: true when it passed.
 */
static bool perfctrfs_builtins_check(char *buf, struct perfctrfs_case_fail *f)
{
	static const char *const caches[] = {
		"l1d", "l1i", "llc", "dtlb", "itlb", "branch", "node",
	};
	static const char *const ops[] = { "read", "write", "prefetch" };
	static const char *const results[] = { "access", "miss" };
	unsigned int nr_type[5] = { 0 };
	u64 cache_seen = 0;
	unsigned int i, j;

	f->what = NULL;
	f->member = -1;
	for (i = 0; i < perfctrfs_nr_builtins; i++) {
		const struct perfctrfs_builtin *b = &perfctrfs_builtins[i];
		struct perfctrfs_event_spec spec;
		int ret;

		for (j = 0; j < i; j++)
			if (perfctrfs_case_differs(f, "name unique", i,
						   !strcmp(b->name, perfctrfs_builtins[j].name), 0))
				return false;
		ret = perfctrfs_parse_event(b->name, strlen(b->name),
					    &perfctrfs_test_catalog, &spec);
		if (perfctrfs_case_differs(f, "parse errno", i, -ret, 0) ||
		    perfctrfs_case_differs(f, "parsed nr", i, spec.nr, 1) ||
		    perfctrfs_case_differs(f, "parsed type", i, spec.ev[0].type, b->type) ||
		    perfctrfs_case_differs(f, "parsed config", i, spec.ev[0].config, b->config))
			return false;
		if (b->type == PERFCTRFS_TYPE_HW_CACHE) {
			u64 c = b->config & 0xff, op = b->config >> 8 & 0xff;
			u64 r = b->config >> 16;
			unsigned int bit;
			size_t n = 0;

			if (perfctrfs_case_differs(f, "cache", i, c < ARRAY_SIZE(caches), 1) ||
			    perfctrfs_case_differs(f, "cache op", i, op < ARRAY_SIZE(ops), 1) ||
			    perfctrfs_case_differs(f, "cache result", i,
						   r < ARRAY_SIZE(results), 1))
				return false;
			bit = (c * ARRAY_SIZE(ops) + op) * ARRAY_SIZE(results) + r;
			if (perfctrfs_case_differs(f, "cache config unique", i,
						   cache_seen >> bit & 1, 0))
				return false;
			cache_seen |= 1ULL << bit;
			n = strlen(caches[c]);
			memcpy(buf, caches[c], n);
			buf[n++] = '_';
			memcpy(buf + n, ops[op], strlen(ops[op]));
			n += strlen(ops[op]);
			buf[n++] = '_';
			memcpy(buf + n, results[r], strlen(results[r]) + 1);
			if (perfctrfs_case_differs(f, "cache name", i, !!strcmp(buf, b->name), 0))
				return false;
		}
		if (perfctrfs_case_differs(f, "type", i, b->type < ARRAY_SIZE(nr_type), 1))
			return false;
		nr_type[b->type]++;
	}
	return !perfctrfs_case_differs(f, "hardware events", -1,
				       nr_type[PERFCTRFS_TYPE_HARDWARE], 10) &&
	       !perfctrfs_case_differs(f, "software events", -1,
				       nr_type[PERFCTRFS_TYPE_SOFTWARE], 9) &&
	       !perfctrfs_case_differs(f, "cache events", -1,
				       nr_type[PERFCTRFS_TYPE_HW_CACHE], 42) &&
	       !perfctrfs_case_differs(f, "builtins", -1, perfctrfs_nr_builtins, 61);
}

/**
 * perfctrfs_catalog_check() - every test alias resolves as its terms do
 * @buf: scratch of PERFCTRFS_CASE_BUF bytes
 * @f: receives the first difference; ->member is the alias's index
 *
 * "<pmu>.<alias>" parses exactly when the alias's terms encode, to the
 * PMU's type and those config words: what a catalogue builder relies on
 * when it skips the aliases that do not encode.  Without a catalogue,
 * builtins and raw codes still parse and aliases do not.
 *
 * Return: true when it passed.
 */
static bool perfctrfs_catalog_check(char *buf, struct perfctrfs_case_fail *f)
{
	struct perfctrfs_event_spec spec;
	unsigned int p, i;

	f->what = NULL;
	f->member = -1;
	/* without a catalogue, only the builtins and raw codes exist */
	if (perfctrfs_case_differs(f, "no catalogue: cycles", -1,
				   -perfctrfs_parse_event("cycles", 6, NULL, &spec), 0) ||
	    perfctrfs_case_differs(f, "no catalogue: 0x3c", -1,
				   -perfctrfs_parse_event("0x3c", 4, NULL, &spec), 0) ||
	    perfctrfs_case_differs(f, "no catalogue: msr.tsc", -1,
				   -perfctrfs_parse_event("msr.tsc", 7, NULL, &spec), ENOENT))
		return false;
	for (p = 0; p < perfctrfs_test_catalog.nr_pmus; p++) {
		const struct perfctrfs_pmu *pmu = &perfctrfs_test_catalog.pmus[p];

		for (i = 0; i < pmu->nr_aliases; i++) {
			const struct perfctrfs_alias *a = &pmu->aliases[i];
			struct perfctrfs_event ev = { 0 };
			int len, want, ret;

			len = perfctrfs_alias_path(pmu->name, a->name, buf, PERFCTRFS_CASE_BUF);
			if (perfctrfs_case_differs(f, "alias path errno", i, len < 0, 0))
				return false;
			want = perfctrfs_encode_terms(pmu, a->terms, strlen(a->terms), &ev);
			ret = perfctrfs_parse_event(buf, len, &perfctrfs_test_catalog, &spec);
			if (perfctrfs_case_differs(f, "alias errno", i, -ret, -want))
				return false;
			if (ret)
				continue;
			if (perfctrfs_case_differs(f, "alias nr", i, spec.nr, 1) ||
			    perfctrfs_case_differs(f, "alias type", i, spec.ev[0].type,
						   pmu->type) ||
			    perfctrfs_case_differs(f, "alias config", i, spec.ev[0].config,
						   ev.config) ||
			    perfctrfs_case_differs(f, "alias config1", i, spec.ev[0].config1,
						   ev.config1) ||
			    perfctrfs_case_differs(f, "alias config2", i, spec.ev[0].config2,
						   ev.config2))
				return false;
		}
	}
	return true;
}

#undef CASE_IN
#undef CPU_OK
#undef CPU_ALL
#undef CPU_BAD
#undef PID_OK
#undef PID_SELF
#undef PID_ALL
#undef PID_BAD
#undef TYPE_OK
#undef TYPE_BAD
#undef COUNT_OK
#undef TIMED_OK
#undef PERIOD_BAD
#undef EV_OK
#undef EV_BAD
#undef TERMS_OK
#undef TERMS_BAD
#undef FMT_OK
#undef FMT_BAD
#undef MEMBER
#undef HW
#undef HWX
#undef SW
#undef HWC
#undef RAW
#undef RAWX
#undef PMUEV
#undef LONG_BAD
#undef GROUP8_HW
#undef GROUP9_HW
#undef GROUP6_MIXED
#undef ENCODING_MIXED2
#undef S_
#undef T_
#undef I_

#endif /* _PERFCTRFS_GRAMMAR_CASES_H */
