/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfctrfs.h - the only seam between fs/perfctrfs and arch code.
 *
 * The filesystem is generic: it walks the PMUs registered on the
 * event_source bus, probes what each CPU can count and serves it as paths.
 * An architecture tells it three things, through the hooks below:
 *
 *  - which named hardware events its PMUs offer
 *    (perfctrfs_arch_pmu_events());
 *  - whether a raw code is one its PMU defines (perfctrfs_arch_raw_check());
 *  - why a group cannot go on the PMU together
 *    (perfctrfs_arch_group_explain()).
 *
 * An architecture that selects CONFIG_PERFCTRFS_ARCH implements all three
 * in arch/<arch>/perfctrfs_pmu.c; every other architecture gets the
 * generic behaviour of the inline fallbacks.  Arch files hold tables and
 * encodings only, never VFS code.
 */
#ifndef _LINUX_PERFCTRFS_H
#define _LINUX_PERFCTRFS_H

#include <linux/errno.h>
#include <linux/types.h>

struct pmu;
struct perf_event_attr;

/**
 * typedef perfctrfs_emit_t - receive one named event of a PMU
 * @ctx: the caller's cookie
 * @name: the alias as the driver names it ("cpu-cycles", "PM_RUN_INST_CMPL");
 *	the filesystem turns it into path form ("cpu.pm_run_inst_cmpl")
 * @terms: its encoding in the PMU's format terms ("event=0x3c,umask=0x00")
 * @desc: a one-line description, or NULL
 *
 * Return: 0 to go on, or a negative errno to stop the walk with that errno.
 */
typedef int (*perfctrfs_emit_t)(void *ctx, const char *name,
				const char *terms, const char *desc);

/**
 * perfctrfs_pmu_walk_attrs() - emit the aliases a PMU publishes in sysfs
 * @pmu: a registered PMU
 * @emit: called once per alias in the PMU's "events" attribute group
 * @ctx: passed to @emit
 *
 * Generic, in fs/perfctrfs: reads the driver's own attribute table, the
 * one /sys/bus/event_source/devices/<pmu>/events shows.  Arch code calls it
 * to reuse that table and add to it.  Process context; may sleep.
 *
 * Return: 0, or the first negative value @emit returned.
 */
int perfctrfs_pmu_walk_attrs(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx);

#ifdef CONFIG_PERFCTRFS_ARCH
/**
 * perfctrfs_arch_pmu_events() - emit the named hardware events of a PMU
 * @pmu: a registered PMU, as found on the event_source bus
 * @emit: called once per named event
 * @ctx: passed to @emit
 *
 * Called from process context, with no locks held, when the filesystem
 * builds or refreshes its event catalogue (mount, CPU hotplug); may sleep.
 *
 * Return: 0 when the arch described @pmu; -EOPNOTSUPP for a PMU the arch
 * leaves to perfctrfs_pmu_walk_attrs(); another negative errno on failure.
 */
int perfctrfs_arch_pmu_events(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx);

/**
 * perfctrfs_arch_raw_check() - is a raw code one the core PMU defines?
 * @config: the code of a "0x..." event name, as PERF_TYPE_RAW's config
 *
 * Called from process context at lookup; must not sleep for long.
 *
 * Return: 0 when every set bit is a field the PMU defines, else -ENOENT.
 */
int perfctrfs_arch_raw_check(u64 config);

/**
 * perfctrfs_arch_group_explain() - say why a group cannot be scheduled
 * @attrs: the group's members, leader first
 * @nr: how many
 * @buf: where to write one line of explanation, NUL-terminated
 * @size: size of @buf
 *
 * Called from process context after perf refused the group, only to
 * explain that refusal to the user; it never decides it.
 *
 * Return: the length written, or 0 when the arch has nothing to say.
 */
int perfctrfs_arch_group_explain(const struct perf_event_attr *attrs,
				 unsigned int nr, char *buf, size_t size);
#else
static inline int perfctrfs_arch_pmu_events(struct pmu *pmu,
					    perfctrfs_emit_t emit, void *ctx)
{
	return -EOPNOTSUPP;
}

static inline int perfctrfs_arch_raw_check(u64 config)
{
	return 0;
}

static inline int perfctrfs_arch_group_explain(const struct perf_event_attr *attrs,
					       unsigned int nr, char *buf,
					       size_t size)
{
	return 0;
}
#endif /* CONFIG_PERFCTRFS_ARCH */

#endif /* _LINUX_PERFCTRFS_H */
