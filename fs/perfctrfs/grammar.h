/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perfctrfs path grammar, shared by the kernel filesystem and the FUSE
 * daemon.
 *
 *	<mount>/<cpu>/<event>/<pid>/<type>/<period>
 *
 * Each level is parsed alone, one path component at a time, the way a
 * ->lookup sees it: (name, len) in, a decoded value or -ENOENT out.  The
 * parser allocates nothing, keeps no state and knows no architecture: the
 * PMUs, their format fields and their aliases arrive in a
 * struct perfctrfs_catalog that the caller builds (from sysfs in the
 * daemon, from the PMU drivers through the arch hooks in the kernel).
 *
 * Whether a parsed name names something that exists (an online CPU, a live
 * pid, an event this CPU can count) is the caller's question, not the
 * grammar's.
 */
#ifndef _PERFCTRFS_GRAMMAR_H
#define _PERFCTRFS_GRAMMAR_H

#include "grammar_env.h"

#define PERFCTRFS_MAX_GROUP	8	/* members in one '+' group */
#define PERFCTRFS_MIN_PERIOD_NS	1000000ULL	/* time periods: at least 1ms */
#define PERFCTRFS_MAX_COUNT	0x7fffffffffffffffULL	/* 2^63 - 1 */
#define PERFCTRFS_MAX_ID	0x7fffffffU	/* largest cpu or pid number */

/* perf_event_attr.type values, as in <uapi/linux/perf_event.h> */
#define PERFCTRFS_TYPE_HARDWARE	0
#define PERFCTRFS_TYPE_SOFTWARE	1
#define PERFCTRFS_TYPE_HW_CACHE	3
#define PERFCTRFS_TYPE_RAW	4

/* ---- level 1: cpu -------------------------------------------------- */

/* "all" or a canonical decimal number (no sign, no leading zero). */
struct perfctrfs_cpu {
	bool all;
	u32 cpu;		/* valid when !all */
};

int perfctrfs_parse_cpu(const char *name, size_t len, struct perfctrfs_cpu *out);

/* ---- level 2: event ------------------------------------------------- */

/* One member of an event name, already encoded as perf_event_attr fields. */
struct perfctrfs_event {
	u32 type;		/* perf_event_attr.type */
	u64 config;
	u64 config1;
	u64 config2;
	u8 exclude_user;	/* from the :u/:k/:h modifiers */
	u8 exclude_kernel;
	u8 exclude_hv;
	u8 exclude_idle;	/* from the I modifier */
};

/* A whole event level name: one member, or a '+' group led by ev[0]. */
struct perfctrfs_event_spec {
	unsigned int nr;	/* 1 .. PERFCTRFS_MAX_GROUP */
	struct perfctrfs_event ev[PERFCTRFS_MAX_GROUP];
};

/*
 * A PMU format field, as /sys/bus/event_source/devices/<pmu>/format/<name>
 * shows it ("config:0-7", "config1:0-31", "config:0-7,32-35"): which config
 * word it lives in and which bits of it, possibly not contiguous.  A term's
 * value is deposited into the mask's bits from the lowest up.
 */
struct perfctrfs_format {
	const char *name;
	u8 word;		/* 0: config, 1: config1, 2: config2 */
	u64 mask;
};

/*
 * A PMU event alias, as /sys/bus/event_source/devices/<pmu>/events/<name>
 * shows it.  @name is already in path form: lower case, '-' turned into
 * '_'.  @terms is the driver's own string, "event=0x3c,umask=0x00".
 */
struct perfctrfs_alias {
	const char *name;
	const char *terms;
};

struct perfctrfs_pmu {
	const char *name;	/* "cpu", "msr", "power", ... */
	u32 type;		/* its perf_event_attr.type */
	const struct perfctrfs_format *formats;
	unsigned int nr_formats;
	const struct perfctrfs_alias *aliases;
	unsigned int nr_aliases;
};

struct perfctrfs_catalog {
	const struct perfctrfs_pmu *pmus;
	unsigned int nr_pmus;
};

/*
 * The arch-neutral events every perf kernel defines: generic hardware,
 * software and hardware-cache (<cache>_<op>_<result>), in perf's order.
 * Readdir offers these, and the catalogue's aliases, to its probe.
 */
struct perfctrfs_builtin {
	const char *name;
	u32 type;
	u64 config;
};

extern const struct perfctrfs_builtin perfctrfs_builtins[];
extern const unsigned int perfctrfs_nr_builtins;

/*
 * Parse an event level name:
 *
 *   event   := member { '+' member }          at most PERFCTRFS_MAX_GROUP
 *   member  := base [ ':' mods ]
 *   mods    := one or more of 'u' 'k' 'h' 'I', each at most once
 *   base    := builtin                        cycles, task_clock, l1d_read_miss
 *            | pmu '.' alias                  msr.tsc, cpu.mem_loads
 *            | pmu '.' term '=' value { ',' term '=' value }
 *            | '0x' hex                       raw code, PERF_TYPE_RAW
 *   term    := a format field of pmu, or config, config1, config2
 *   value   := decimal | '0x' hexdigits       must fit the field; written
 *                                             as sysfs writes it, so leading
 *                                             zeros are allowed ("0x00")
 *   hex     := 1..16 lower-case hex digits, no leading zero ("0x0" is zero):
 *              one raw code, one name, as /proc's numbers
 *
 * Modifiers follow perf: any of u/k/h excludes the privilege levels not
 * named; I sets exclude_idle.  Returns 0 or -ENOENT.
 */
int perfctrfs_parse_event(const char *name, size_t len,
			  const struct perfctrfs_catalog *cat,
			  struct perfctrfs_event_spec *out);

/*
 * Encode a PMU term string ("event=0x3c,umask=0x00", an alias's terms or
 * the part after "<pmu>.") through @pmu's format fields into @ev's config
 * words, leaving its type and exclusions alone.  Returns 0 or -ENOENT
 * (unknown or repeated term, value too wide, bad syntax).
 */
int perfctrfs_encode_terms(const struct perfctrfs_pmu *pmu,
			   const char *terms, size_t len,
			   struct perfctrfs_event *ev);

/*
 * Parse a format field's sysfs text ("config1:0-7,32-35") into @word and
 * @mask; one trailing newline, as sysfs shows it, is allowed.  Returns 0
 * or -EINVAL.
 */
int perfctrfs_parse_format(const char *text, size_t len, u8 *word, u64 *mask);

/*
 * Write the path form of a sysfs alias name ("<pmu>.<alias>", lower case,
 * '-' as '_') into @buf.  Returns the length, or -ENAMETOOLONG if it does
 * not fit with its NUL.
 */
int perfctrfs_alias_path(const char *pmu, const char *alias,
			 char *buf, size_t size);

/*
 * Write what @spec opens, for the user.perfctr.encoding xattr:
 * "type=0,config=0x1", then ",config1=0x..", ",config2=0x.." when not 0
 * and ",exclude_user=1" (and _kernel, _hv, _idle) when set; group members
 * are joined with '+'.  Returns the length, or -ENAMETOOLONG.
 */
int perfctrfs_format_encoding(const struct perfctrfs_event_spec *spec,
			      char *buf, size_t size);

/* ---- level 3: pid --------------------------------------------------- */

enum perfctrfs_pid_kind {
	PERFCTRFS_PID_NUM,	/* a process (all its threads) or a thread */
	PERFCTRFS_PID_SELF,	/* the process that opens the leaf */
	PERFCTRFS_PID_ALL,	/* every task: a CPU-wide counter */
	PERFCTRFS_PID_CGROUP,	/* the tasks of a cgroup v2 directory */
};

struct perfctrfs_pid {
	enum perfctrfs_pid_kind kind;
	u32 pid;		/* valid for PERFCTRFS_PID_NUM, >= 1 */
	u64 cgroup;		/* valid for PERFCTRFS_PID_CGROUP, >= 1 */
};

#define PERFCTRFS_CGROUP_PREFIX	"cgroup."

/*
 * Parse a pid level name:
 *
 *   pid     := 'self' | 'all'
 *            | decimal                        1 .. PERFCTRFS_MAX_ID
 *            | 'cgroup.' decimal              1 .. 2^64 - 1
 *   decimal := canonical: no sign, no leading zero, no overflow
 *
 * A cgroup's number is its id, the inode number of its cgroup2 directory
 * (a kernfs id is 64 bits wide).  Returns 0 or -ENOENT.
 */
int perfctrfs_parse_pid(const char *name, size_t len, struct perfctrfs_pid *out);

/* ---- level 4: type -------------------------------------------------- */

enum perfctrfs_type {
	PERFCTRFS_SIMPLE,
	PERFCTRFS_TIMES,
	PERFCTRFS_IRQ,
};

extern const char *const perfctrfs_type_names[3];	/* "simple", ... */

int perfctrfs_parse_type(const char *name, size_t len, enum perfctrfs_type *out);

/* ---- level 5: period ------------------------------------------------ */

/*
 * A count ("0", "300", up to 2^63-1) or a time: a canonical decimal and a
 * unit, ns/us/ms/s, at least PERFCTRFS_MIN_PERIOD_NS in all ("100ms",
 * "1s", "1000us").  Period 0 does not exist under irq.
 */
struct perfctrfs_period {
	bool is_time;
	u64 value;		/* events, or nanoseconds when is_time */
};

int perfctrfs_parse_period(const char *name, size_t len,
			   enum perfctrfs_type type,
			   struct perfctrfs_period *out);

#endif /* _PERFCTRFS_GRAMMAR_H */
