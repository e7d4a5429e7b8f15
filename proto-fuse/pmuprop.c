// SPDX-License-Identifier: GPL-2.0
/*
 * pmuprop.c - the scale and unit of PMU event aliases, from sysfs.
 *
 * A driver publishes, beside an alias such as power/events/energy-pkg, the
 * files energy-pkg.scale (2.3283064365386962890625e-10) and energy-pkg.unit
 * (Joules): perf multiplies the count by the scale and prints the unit.
 * The leaf keeps the raw count; these xattrs let a reader do what perf
 * does.  Looked up at getxattr time, so nothing here is cached.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuprop.h"
#include "../fs/perfctrfs/grammar.h"

#define PROP_MAX	64	/* longer than any scale or unit perf knows */

static bool valid(const char *prop, const char *v)
{
	const char *p;
	char *end;
	double d;

	if (!*v)
		return false;
	if (!strcmp(prop, "scale")) {
		errno = 0;
		d = strtod(v, &end);
		return !*end && !errno && isfinite(d) && d > 0;
	}
	for (p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("%/_.-", *p)))
			return false;
	return true;
}

static int read_prop(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENODATA;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ENODATA;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int pf_pmu_prop(const char *root, const char *event, const char *prop,
		char *buf, size_t size)
{
	char pmu[256], want[512], have[512], path[1024], val[PROP_MAX];
	const char *dot = strchr(event, '.');
	size_t plen, elen = strcspn(event, ":");
	struct dirent *de;
	int len = -ENODATA;
	DIR *d;

	if (strcmp(prop, "scale") && strcmp(prop, "unit"))
		return -ENODATA;
	/* one named alias: no group, no terms, no raw code */
	if (!dot || dot - event >= (long)elen || strpbrk(event, "+=") ||
	    elen >= sizeof(want))
		return -ENODATA;
	plen = dot - event;
	if (plen >= sizeof(pmu))
		return -ENODATA;
	memcpy(pmu, event, plen);
	pmu[plen] = '\0';
	memcpy(want, event, elen);
	want[elen] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s/events", root, pmu) >=
	    (int)sizeof(path))
		return -ENODATA;
	d = opendir(path);
	if (!d)
		return -ENODATA;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		if (perfctrfs_alias_path(pmu, de->d_name, have, sizeof(have)) < 0 ||
		    strcmp(have, want))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/events/%s.%s", root,
			     pmu, de->d_name, prop) >= (int)sizeof(path))
			break;
		len = read_prop(path, val, sizeof(val));
		if (len < 0 || !valid(prop, val) || (size_t)len >= size) {
			len = -ENODATA;
			break;
		}
		memcpy(buf, val, len + 1);
		break;
	}
	closedir(d);
	return len;
}
