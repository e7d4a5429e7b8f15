// SPDX-License-Identifier: GPL-2.0
/*
 * Each user's share of what the daemon holds for its callers.
 *
 * Every counter is one of the daemon's file descriptors, and they are
 * shared by everybody the daemon serves: one user holding them all would
 * leave every other user, root included, with EMFILE.  So each uid may
 * hold at most pf_opts.max_counters counters at once (the mount option
 * max_counters=, by default a quarter of the daemon's open-file limit
 * when it serves every user, no limit of its own otherwise).
 *
 * Every open directory handle is some of the daemon's memory (its
 * listing: a few bytes a CPU or a process), which opening a directory
 * costs its user almost nothing of; so each uid may hold at most
 * pf_opts.max_dirs of them (max_dirs=, by default PF_MAX_DIRS when the
 * daemon serves every user).
 *
 * An open that would go over either fails with EMFILE for that user
 * alone.  share_lock guards the table and is never held with another
 * lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

#define SHARE_BUCKETS	64

struct pf_share {
	struct pf_share *next;
	uid_t uid;
	unsigned long held;		/* counters */
	unsigned long dirs;		/* open directory handles */
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pf_share *buckets[SHARE_BUCKETS];

/* The link to @uid's entry, or NULL when it has none. */
static struct pf_share **share_find(uid_t uid)
{
	struct pf_share **pp, *s;

	for (pp = &buckets[uid % SHARE_BUCKETS]; (s = *pp); pp = &s->next)
		if (s->uid == uid)
			return pp;
	return NULL;
}

/* @uid's entry, made if it has none; NULL only out of memory. */
static struct pf_share *share_get(uid_t uid)
{
	struct pf_share **pp = share_find(uid), *s;

	if (pp)
		return *pp;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->uid = uid;
	s->next = buckets[uid % SHARE_BUCKETS];
	buckets[uid % SHARE_BUCKETS] = s;
	return s;
}

/* An entry that holds nothing goes, so that idle uids cost nothing. */
static void share_drop_if_idle(struct pf_share **pp)
{
	struct pf_share *s = *pp;

	if (!s->held && !s->dirs) {
		*pp = s->next;
		free(s);
	}
}

/* Add @n to *@held unless that goes over @max (0: no limit). */
static int share_add(unsigned long *held, unsigned long n, unsigned long max)
{
	if (max && (n > max || *held > max - n))
		return -EMFILE;
	*held += n;
	return 0;
}

/* Take @n counters of @uid's share: 0, or -EMFILE when over it. */
int pf_share_take(uid_t uid, unsigned long n)
{
	struct pf_share *s;
	int err = -ENOMEM;

	pthread_mutex_lock(&share_lock);
	s = share_get(uid);
	if (s) {
		err = share_add(&s->held, n, pf_opts.max_counters);
		if (err)
			share_drop_if_idle(share_find(uid));
	}
	pthread_mutex_unlock(&share_lock);
	return err;
}

void pf_share_give(uid_t uid, unsigned long n)
{
	struct pf_share **pp;

	if (!n)
		return;
	pthread_mutex_lock(&share_lock);
	pp = share_find(uid);
	if (pp) {
		(*pp)->held -= n < (*pp)->held ? n : (*pp)->held;
		share_drop_if_idle(pp);
	}
	pthread_mutex_unlock(&share_lock);
}

/* Take one directory handle of @uid's share: 0, or -EMFILE when over it. */
int pf_share_dir_take(uid_t uid)
{
	struct pf_share *s;
	int err = -ENOMEM;

	pthread_mutex_lock(&share_lock);
	s = share_get(uid);
	if (s) {
		err = share_add(&s->dirs, 1, pf_opts.max_dirs);
		if (err)
			share_drop_if_idle(share_find(uid));
	}
	pthread_mutex_unlock(&share_lock);
	return err;
}

void pf_share_dir_give(uid_t uid)
{
	struct pf_share **pp;

	pthread_mutex_lock(&share_lock);
	pp = share_find(uid);
	if (pp) {
		if ((*pp)->dirs)
			(*pp)->dirs--;
		share_drop_if_idle(pp);
	}
	pthread_mutex_unlock(&share_lock);
}
