// SPDX-License-Identifier: GPL-2.0
/*
 * perfctrfs_pmu.c - the arch tables and encodings behind
 * include/linux/perfctrfs.h.
 *
 * First cut: the hooks exist so the kernel links; each says "nothing to
 * add" until the tables land.
 */
#include <linux/errno.h>
#include <linux/perfctrfs.h>

/**
 * perfctrfs_arch_pmu_events() - see include/linux/perfctrfs.h
 * @pmu: a registered PMU
 * @emit: called once per named event
 * @ctx: passed to @emit
 *
 * Return: -EOPNOTSUPP until the tables land.
 */
int perfctrfs_arch_pmu_events(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx)
{
	return -EOPNOTSUPP;
}

/**
 * perfctrfs_arch_raw_check() - see include/linux/perfctrfs.h
 * @config: a raw code
 *
 * Return: 0 (every code accepted) until the masks land.
 */
int perfctrfs_arch_raw_check(u64 config)
{
	return 0;
}

/**
 * perfctrfs_arch_group_explain() - see include/linux/perfctrfs.h
 * @attrs: the group's members, leader first
 * @nr: how many
 * @buf: where to write the explanation
 * @size: size of @buf
 *
 * Return: 0, nothing to say yet.
 */
int perfctrfs_arch_group_explain(const struct perf_event_attr *attrs,
				 unsigned int nr, char *buf, size_t size)
{
	return 0;
}
