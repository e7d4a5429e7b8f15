// SPDX-License-Identifier: GPL-2.0
/*
 * Each user's share of the daemon's counters.
 *
 * Every counter is one of the daemon's file descriptors, and they are
 * shared by everybody the daemon serves: one user holding them all would
 * leave every other user, root included, with EMFILE.  So each uid may
 * hold at most pf_opts.max_counters counters at once (the mount option
 * max_counters=, by default a quarter of the daemon's open-file limit
 * when it serves every user, no limit of its own otherwise).  An open
 * that would go over fails with EMFILE for that user alone.
 *
 * share_lock guards the table and is never held with another lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

#define SHARE_BUCKETS	64

struct pf_share {
	struct pf_share *next;
	uid_t uid;
	unsigned long held;
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pf_share *buckets[SHARE_BUCKETS];

/* Take @n counters of @uid's share: 0, or -EMFILE when over it. */
int pf_share_take(uid_t uid, unsigned long n)
{
	struct pf_share **pp, *s;
	int err = 0;

	pthread_mutex_lock(&share_lock);
	pp = &buckets[uid % SHARE_BUCKETS];
	for (s = *pp; s && s->uid != uid; s = s->next)
		;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			err = -ENOMEM;
			goto out;
		}
		s->uid = uid;
		s->next = *pp;
		*pp = s;
	}
	if (pf_opts.max_counters && (n > pf_opts.max_counters ||
				     s->held > pf_opts.max_counters - n))
		err = -EMFILE;
	else
		s->held += n;
out:
	pthread_mutex_unlock(&share_lock);
	return err;
}

void pf_share_give(uid_t uid, unsigned long n)
{
	struct pf_share **pp, *s;

	if (!n)
		return;
	pthread_mutex_lock(&share_lock);
	for (pp = &buckets[uid % SHARE_BUCKETS]; (s = *pp); pp = &s->next)
		if (s->uid == uid)
			break;
	if (s) {
		s->held -= n < s->held ? n : s->held;
		if (!s->held) {
			*pp = s->next;
			free(s);
		}
	}
	pthread_mutex_unlock(&share_lock);
}
