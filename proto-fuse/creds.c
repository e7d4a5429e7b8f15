// SPDX-License-Identifier: GPL-2.0
/*
 * Who an opener acts as (see creds.h and opener.c).
 *
 * The rules, each tested in tests/unit/creds-test.c:
 *  - an opener holds the caller's real, effective, saved and fs uids and
 *    gids and its supplementary groups, as /proc shows them to the daemon
 *    (the daemon's user namespace: ids the caller's namespace does not
 *    map are still the kernel's ids);
 *  - it holds the caller's effective capabilities in the caller's user
 *    namespace, which it joins (opener.c): capabilities of unshare -Ur or
 *    a rootless container are relative to that namespace, and there they
 *    reach what they reach for perf (not CAP_PERFMON, which perf asks of
 *    the initial one);
 *  - it lives in the caller's user and pid namespaces, so two callers
 *    alike in every id but in different namespaces get different openers;
 *  - only a caller with the daemon's ids and capabilities, in the
 *    daemon's user namespace, may target the daemon;
 *  - a status that lacks any of these lines is refused (EIO): an opener is
 *    never made from a guess.
 * "Threads:" is read too, but decides no credentials: it only spares the
 * listing of a one-thread process's threads (counter.c), so a status
 * without it (or with it garbled) is not refused; nr_threads is 0 then,
 * and the threads are listed as before.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "creds.h"

static int parse_ids(char *p, unsigned int *out)
{
	char *end;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			return -EIO;
		out[i] = v;
		p = end;
	}
	return 0;
}

/* A space-separated list of numbers into @out; its length, or -EIO. */
static int parse_list(char *p, long *out, int max)
{
	char *end;
	int n = 0;

	for (;;) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (n == max)
			return -EIO;
		out[n++] = v;
		p = end;
	}
	return n;
}

/*
 * Parse the text of /proc/<tid>/status (modified in place).  Only a status
 * with every line an opener depends on is accepted.
 */
int pf_status_parse(char *buf, struct pf_status *st)
{
	enum { TGID = 1, UID = 2, GID = 4, CAP = 8, GROUPS = 16, NSPID = 32,
	       ALL = 63 };
	long tmp[PF_MAX_GROUPS];
	char *line, *save, *end;
	unsigned int seen = 0;
	int i, n;

	memset(st, 0, sizeof(*st));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Tgid:", 5)) {
			st->tgid = strtol(line + 5, &end, 10);
			if (end == line + 5 || st->tgid <= 0)
				return -EIO;
			seen |= TGID;
		} else if (!strncmp(line, "Threads:", 8)) {
			long v = strtol(line + 8, &end, 10);

			st->nr_threads = end == line + 8 || v <= 0 ||
					 v > INT_MAX ? 0 : (int)v;
		} else if (!strncmp(line, "Uid:", 4)) {
			if (parse_ids(line + 4, st->uid))
				return -EIO;
			seen |= UID;
		} else if (!strncmp(line, "Gid:", 4)) {
			if (parse_ids(line + 4, st->gid))
				return -EIO;
			seen |= GID;
		} else if (!strncmp(line, "CapEff:", 7)) {
			st->cap_eff = strtoull(line + 7, &end, 16);
			if (end == line + 7)
				return -EIO;
			seen |= CAP;
		} else if (!strncmp(line, "Groups:", 7)) {
			/* more groups than we can pass: refuse, never drop */
			n = parse_list(line + 7, tmp, PF_MAX_GROUPS);
			if (n < 0)
				return n;
			for (i = 0; i < n; i++)
				st->groups[i] = tmp[i];
			st->nr_groups = n;
			seen |= GROUPS;
		} else if (!strncmp(line, "NSpid:", 6)) {
			n = parse_list(line + 6, tmp, PF_MAX_NSLEVEL);
			if (n <= 0)
				return -EIO;
			for (i = 0; i < n; i++)
				st->nspid[i] = tmp[i];
			st->nr_nspid = n;
			seen |= NSPID;
		}
	}
	return seen == ALL ? 0 : -EIO;
}

static int gid_cmp(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

void pf_creds_decide(const struct pf_status *caller,
		     uint64_t userns_dev, uint64_t userns_ino,
		     uint64_t pidns_dev, uint64_t pidns_ino,
		     struct pf_creds *out)
{
	int i, k = 0;

	memset(out, 0, sizeof(*out));
	memcpy(out->uid, caller->uid, sizeof(out->uid));
	memcpy(out->gid, caller->gid, sizeof(out->gid));
	/* relative to the caller's user ns: the opener holds them there */
	out->caps = caller->cap_eff;
	memcpy(out->groups, caller->groups,
	       caller->nr_groups * sizeof(gid_t));
	qsort(out->groups, caller->nr_groups, sizeof(gid_t), gid_cmp);
	for (i = 0; i < caller->nr_groups; i++)
		if (!i || out->groups[i] != out->groups[k - 1])
			out->groups[k++] = out->groups[i];
	out->nr_groups = k;
	out->userns_dev = userns_dev;
	out->userns_ino = userns_ino;
	out->pidns_dev = pidns_dev;
	out->pidns_ino = pidns_ino;
}

static bool same_userns(const struct pf_creds *a, const struct pf_creds *b)
{
	return a->userns_dev == b->userns_dev && a->userns_ino == b->userns_ino;
}

static bool ids_equal(const struct pf_creds *a, const struct pf_creds *b)
{
	return !memcmp(a->uid, b->uid, sizeof(a->uid)) &&
	       !memcmp(a->gid, b->gid, sizeof(a->gid)) && a->caps == b->caps &&
	       a->nr_groups == b->nr_groups &&
	       !memcmp(a->groups, b->groups, a->nr_groups * sizeof(gid_t));
}

/* One opener serves both: every id, every capability and both ns. */
bool pf_creds_equal(const struct pf_creds *a, const struct pf_creds *b)
{
	return ids_equal(a, b) && same_userns(a, b) &&
	       a->pidns_dev == b->pidns_dev &&
	       a->pidns_ino == b->pidns_ino &&
	       a->cgns_dev == b->cgns_dev && a->cgns_ino == b->cgns_ino;
}

/*
 * May @c target the daemon's own processes?  Only a caller that is the
 * daemon in every id and capability, in its user namespace, wherever its
 * pid namespace: anyone else could read a root process's addresses from
 * its samples.
 */
bool pf_creds_privileged_as(const struct pf_creds *c,
			    const struct pf_creds *own)
{
	return ids_equal(c, own) && same_userns(c, own);
}

/*
 * Whom the share of a caller whose real uid is @ruid (as the daemon's
 * user namespace sees it) is charged to, given its user namespaces @w.
 *
 * In the daemon's own user namespace, its real uid, as perf charges a
 * ring.  Below it, the owner of the outermost namespace under the
 * daemon's: whoever made that namespace controls every uid it maps (an
 * /etc/subuid range is 65,536 of them), and every namespace made inside
 * it, so all of them are one user.  A namespace that is not below the
 * daemon's (the walk never reached it) gives no owner the daemon can
 * answer for: the real uid again, the most the daemon knows.
 */
uid_t pf_accountable_uid(uid_t ruid, const struct pf_userns_walk *w)
{
	if (!w->reached || w->depth < 1 || w->depth > PF_MAX_USERNS)
		return ruid;
	return w->owner[w->depth - 1];
}

/*
 * The id of @target in a pid namespace @caller_level deep (1: the
 * daemon's own), given that the target is known to live in that namespace
 * or one below it; -1 when it is not that deep.
 */
pid_t pf_pid_in_ns(const struct pf_status *target, int caller_level)
{
	if (caller_level < 1 || target->nr_nspid < caller_level)
		return -1;
	return target->nspid[caller_level - 1];
}
