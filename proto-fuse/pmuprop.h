/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuprop.h - the scale and unit a PMU publishes for one of its event
 * aliases, for the user.perfctr.scale and user.perfctr.unit xattrs.
 * Plain libc, so that tests/unit can run it against a sysfs tree it
 * builds.
 */
#ifndef PF_PMUPROP_H
#define PF_PMUPROP_H

#include <stddef.h>

#define PF_SYSFS_PMUS	"/sys/bus/event_source/devices"

/*
 * pf_pmu_prop() - a PMU alias's "scale" or "unit", as perf reads them
 * @root: the PMUs' directory, PF_SYSFS_PMUS
 * @event: an event level name, "<pmu>.<alias>" in path form, modifiers
 *	allowed ("power.energy_pkg:u")
 * @prop: "scale" or "unit"
 * @buf: receives the value, NUL-terminated, without the newline
 * @size: size of @buf
 *
 * Reads <root>/<pmu>/events/<alias>.<prop>, where <alias> is the sysfs
 * name whose path form (lower case, '-' as '_') is @event's.  A scale
 * must be a positive finite number, a unit a short word: anything else
 * is not published.
 *
 * Return: the value's length, or -ENODATA when there is none (groups,
 * composed names, PMUs or aliases without the file, a bad value).
 */
int pf_pmu_prop(const char *root, const char *event, const char *prop,
		char *buf, size_t size);

#endif
