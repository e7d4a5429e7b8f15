// SPDX-License-Identifier: GPL-2.0
/*
 * proto-fuse/creds.c: who an opener acts as.  Each rule of the FUSE
 * daemon's privilege separation, on statuses written as the kernel writes
 * /proc/<tid>/status:
 *  - every line an opener depends on must be there, or nothing is decided;
 *  - uids, gids and groups are the caller's, each of the four ids as is;
 *  - capabilities kept, and keyed by the caller's user namespace, where
 *    its opener holds them (unshare -Ur and rootless containers: there);
 *  - one opener per credential set and user and pid namespace, groups as
 *    a set;
 *  - only the daemon's own credentials may target the daemon;
 *  - pid numbers in the caller's pid namespace;
 *  - "Threads:" read but never required: it decides no credentials.
 *
 *	creds-test [-s first]	run, numbering the TAP lines from first
 *	creds-test -c		print how many tests there are
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../proto-fuse/creds.h"

static unsigned int next = 1, failed, count_only, counted;

static void report(bool ok, const char *desc)
{
	if (count_only) {
		counted++;
		return;
	}
	printf("%s %u - creds: %s\n", ok ? "ok" : "not ok", next++, desc);
	if (!ok)
		failed++;
}

#define ROOT_ST \
	"Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\n" \
	"Ngid:\t0\nPid:\t4243\nPPid:\t1\nTracerPid:\t0\n" \
	"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t0 \n" \
	"NStgid:\t4242\nNSpid:\t4243\nThreads:\t3\n" \
	"CapInh:\t0000000000000000\n" \
	"CapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n"

static int parse(const char *text, struct pf_status *st)
{
	char *buf = strdup(text);
	int err = pf_status_parse(buf, st);

	free(buf);
	return err;
}

static void test_parse(void)
{
	struct pf_status st;
	char big[8192], *p;
	int i;

	report(!parse(ROOT_ST, &st) && st.tgid == 4242 && st.uid[3] == 0 &&
	       st.cap_eff == 0x1ffffffffffULL && st.nr_groups == 1 &&
	       st.nr_nspid == 1 && st.nspid[0] == 4243,
	       "a root status parses: tgid, ids, CapEff, groups, NSpid");
	report(!parse("Tgid:\t7\nUid:\t1000\t1001\t1002\t1003\n"
		      "Gid:\t4294967294\t5\t6\t7\nGroups:\t\n"
		      "NSpid:\t9\t3\t1\nCapEff:\t0000000000000000\n", &st) &&
	       st.uid[0] == 1000 && st.uid[1] == 1001 && st.uid[2] == 1002 &&
	       st.uid[3] == 1003 && st.gid[0] == 4294967294U &&
	       st.nr_groups == 0 && st.nr_nspid == 3 && st.nspid[2] == 1,
	       "each of the four ids kept apart; no groups; nested NSpid");
	report(st.nr_threads == 0,
	       "no Threads line: accepted, the count unknown (0)");
	report(!parse(ROOT_ST, &st) && st.nr_threads == 3 &&
	       !parse("Tgid:\t7\nThreads:\t1\nUid:\t0\t0\t0\t0\n"
		      "Gid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n"
		      "NSpid:\t7\n", &st) && st.nr_threads == 1 &&
	       !parse("Tgid:\t7\nThreads:\t\nUid:\t0\t0\t0\t0\n"
		      "Gid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n"
		      "NSpid:\t7\n", &st) && st.nr_threads == 0 &&
	       !parse("Tgid:\t7\nThreads:\t-1\nUid:\t0\t0\t0\t0\n"
		      "Gid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t0\n"
		      "NSpid:\t7\n", &st) && st.nr_threads == 0,
	       "Threads: the count kept; empty or bad is unknown (0), not refused");
	report(parse("Tgid:\t7\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		     "Groups:\t\nNSpid:\t7\n", &st) == -EIO,
	       "no CapEff: refused, never guessed as none");
	report(parse("Tgid:\t7\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		     "CapEff:\t0\nNSpid:\t7\n", &st) == -EIO,
	       "no Groups line: refused");
	report(parse("Tgid:\t7\nUid:\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		     "Groups:\t\nCapEff:\t0\nNSpid:\t7\n", &st) == -EIO,
	       "a cut Uid line: refused");
	report(parse("Tgid:\t7\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		     "Groups:\t\nCapEff:\t0\n", &st) == -EIO,
	       "no NSpid: refused (the pid namespace is part of the rule)");
	p = big + sprintf(big, "Tgid:\t7\nUid:\t5\t5\t5\t5\nGid:\t5\t5\t5\t5\n"
			  "CapEff:\t0\nNSpid:\t7\nGroups:\t");
	for (i = 0; i <= PF_MAX_GROUPS; i++)
		p += sprintf(p, "%d ", 100 + i);
	strcpy(p, "\n");
	report(parse(big, &st) == -EIO,
	       "more groups than an opener takes: refused, never truncated");
}

static void status(struct pf_status *st, uid_t uid, uint64_t caps,
		   const gid_t *groups, int n)
{
	int i;

	memset(st, 0, sizeof(*st));
	st->tgid = 100;
	for (i = 0; i < 4; i++) {
		st->uid[i] = uid;
		st->gid[i] = uid;
	}
	st->cap_eff = caps;
	memcpy(st->groups, groups, n * sizeof(gid_t));
	st->nr_groups = n;
	st->nr_nspid = 1;
	st->nspid[0] = 100;
}

static void test_decide(void)
{
	static const gid_t g1[] = { 30, 10, 20, 10 }, g2[] = { 10, 20, 30 };
	struct pf_status st;
	struct pf_creds a, b, own;
	const uint64_t full = 0x1ffffffffffULL;

	status(&st, 0, full, g2, 0);
	pf_creds_decide(&st, 1, 1, 1, 2, &own);

	status(&st, 1000, full, g1, 4);
	pf_creds_decide(&st, 1, 5, 1, 2, &b);
	pf_creds_decide(&st, 1, 1, 1, 2, &a);
	report(a.caps == full, "the daemon's user ns: CapEff is kept");
	report(b.caps == full && b.uid[0] == 1000 && b.uid[3] == 1000 &&
	       b.userns_ino == 5 && !pf_creds_equal(&a, &b),
	       "unshare -Ur: CapEff is its user ns's, held there by an opener of its own");
	report(a.nr_groups == 3 && a.groups[0] == 10 && a.groups[1] == 20 &&
	       a.groups[2] == 30, "groups become a sorted set");
	status(&st, 1000, full, g2, 3);
	pf_creds_decide(&st, 1, 1, 1, 2, &b);
	report(pf_creds_equal(&a, &b),
	       "group order and repeats do not make a second opener");
	pf_creds_decide(&st, 1, 1, 1, 3, &b);
	report(!pf_creds_equal(&a, &b),
	       "another pid namespace is another opener");
	pf_creds_decide(&st, 1, 1, 1, 2, &b);
	b.cgns_dev = 1;
	b.cgns_ino = 7;
	report(!pf_creds_equal(&a, &b),
	       "another cgroup namespace is another opener (its mount is rooted there)");
	status(&st, 1000, 0, g2, 3);
	st.uid[1] = 0;		/* a setuid-root program: euid 0 */
	pf_creds_decide(&st, 1, 1, 1, 2, &b);
	report(b.uid[0] == 1000 && b.uid[1] == 0 && b.uid[2] == 1000 &&
	       !pf_creds_equal(&a, &b), "a setuid program keeps its euid only");

	status(&st, 0, full, g2, 0);
	pf_creds_decide(&st, 1, 1, 9, 9, &a);
	report(pf_creds_privileged_as(&a, &own),
	       "root with every capability may target the daemon, in any pid ns");
	pf_creds_decide(&st, 1, 5, 1, 2, &a);
	report(!pf_creds_privileged_as(&a, &own),
	       "root of a user namespace may not target the daemon");
	status(&st, 0, full & ~(1ULL << 38), g2, 0);	/* no CAP_PERFMON */
	pf_creds_decide(&st, 1, 1, 1, 2, &a);
	report(!pf_creds_privileged_as(&a, &own),
	       "root short of one capability may not target the daemon");
	status(&st, 1000, 0, g2, 0);
	pf_creds_decide(&st, 1, 1, 1, 2, &a);
	report(!pf_creds_privileged_as(&a, &own),
	       "a user may not target the daemon");
}

static void test_pid_in_ns(void)
{
	struct pf_status st;

	memset(&st, 0, sizeof(st));
	st.nr_nspid = 3;
	st.nspid[0] = 5000;
	st.nspid[1] = 40;
	st.nspid[2] = 1;
	report(pf_pid_in_ns(&st, 1) == 5000 && pf_pid_in_ns(&st, 2) == 40 &&
	       pf_pid_in_ns(&st, 3) == 1,
	       "a pid's number at each pid namespace level");
	report(pf_pid_in_ns(&st, 4) == -1 && pf_pid_in_ns(&st, 0) == -1,
	       "no number below its own namespace, nor at level 0");
}

/* A walk @depth namespaces deep, owned by @owners (the caller's first). */
static struct pf_userns_walk walk(bool reached, int depth, const uid_t *owners)
{
	struct pf_userns_walk w;
	int i;

	memset(&w, 0, sizeof(w));
	w.reached = reached;
	w.depth = depth;
	for (i = 0; i < depth && i < PF_MAX_USERNS; i++)
		w.owner[i] = owners[i];
	return w;
}

static void test_accountable_uid(void)
{
	/* U1 (1001) made a namespace, its ns root made one inside it */
	static const uid_t nested[] = { 200000, 1001 };
	uid_t deep[PF_MAX_USERNS];
	struct pf_userns_walk w;
	int i;

	w = walk(true, 0, NULL);
	report(pf_accountable_uid(1001, &w) == 1001,
	       "in the daemon's user namespace: the real uid");
	w = walk(true, 0, NULL);
	report(pf_accountable_uid(0, &w) == 0,
	       "root in the daemon's user namespace: root's own share");
	w = walk(true, 1, nested + 1);
	report(pf_accountable_uid(200003, &w) == 1001,
	       "a subuid of a namespace U1 made: U1");
	w = walk(true, 1, nested + 1);
	report(pf_accountable_uid(65534, &w) == 1001,
	       "an unmapped caller (overflow uid) in U1's namespace: U1");
	w = walk(true, 2, nested);
	report(pf_accountable_uid(200007, &w) == 1001,
	       "a namespace nested in U1's, made by a subuid: still U1, the outermost's owner");
	for (i = 0; i < PF_MAX_USERNS; i++)
		deep[i] = 300000 + i;
	deep[PF_MAX_USERNS - 1] = 1002;
	w = walk(true, PF_MAX_USERNS, deep);
	report(pf_accountable_uid(300000, &w) == 1002,
	       "32 namespaces deep: the outermost's owner");
	w = walk(false, 1, nested + 1);
	report(pf_accountable_uid(4242, &w) == 4242,
	       "a namespace not below the daemon's: its real uid");
	w = walk(true, 1, nested + 1);
	w.depth = PF_MAX_USERNS + 1;
	report(pf_accountable_uid(4242, &w) == 4242,
	       "a depth past the walk's array: its real uid, no read past it");
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "cs:")) != -1) {
		if (opt == 'c')
			count_only = 1;
		else if (opt == 's')
			next = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	test_parse();
	test_decide();
	test_pid_in_ns();
	test_accountable_uid();
	if (count_only)
		printf("%u\n", counted);
	return failed ? 1 : 0;
}
