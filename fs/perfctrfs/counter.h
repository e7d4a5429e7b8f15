/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counter.h - the perf counters behind one open leaf (counter.c), as the
 * leaf's file_operations (file.c) use them.
 *
 * One open file owns one struct perfctrfs_counters: an array of groups
 * ("instances"), each holding one perf event per member of the leaf's event
 * name, leader first.  There is one instance per counted thread (a process
 * target), or per online CPU (cpu=all with pid=all or a cgroup), or just
 * one.  Reads sum the instances member by member.
 *
 * Context: perfctrfs_counters_open(), _read(), _control() and _close() run
 * in process context and may sleep; the overflow handler runs in NMI (or
 * hard irq) context and only touches the lock-free ring, atomics and an
 * irq_work, which wakes @wq from hard irq context.
 */
#ifndef _PERFCTRFS_COUNTER_H
#define _PERFCTRFS_COUNTER_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include "grammar.h"

struct perfctrfs_leaf;
struct cgroup;
struct perf_event;
struct task_struct;
struct user_struct;
struct mm_struct;

/* irq records queued per open file before new ones are dropped as lost */
#define PERFCTRFS_RING_SIZE	4096

/* One overflow record: the cumulative count and where it happened. */
struct perfctrfs_rec {
	unsigned long seq;	/* ring slot sequence, see counter.c */
	u64 count;
	u64 ip;
};

/**
 * struct perfctrfs_counters - every perf event behind one open leaf
 * @nr: members per group (the leaf's spec.nr)
 * @nr_inst: groups
 * @ev: @nr_inst * @nr events, group by group, leader first
 * @tasks: the task of each group, referenced, or NULL (CPU-wide)
 * @proc: the thread-group leader when a whole process is counted, else NULL
 * @cgrp: the cgroup counted, referenced, for a cgroup target; else NULL
 * @type: the leaf's type
 * @wq: readers and pollers wait here
 * @gen: bumped whenever a reader may have something new to read
 * @work: queued from the overflow handler (NMI-safe) to wake @wq
 * @ring: irq records, PERFCTRFS_RING_SIZE slots (irq type only)
 * @head: next slot producers reserve
 * @tail: next slot the (single, mutex-held) consumer reads
 * @lost: records dropped because @ring was full, not yet reported
 * @irq_total: sum of the periods of every overflow so far (irq type)
 * @overflows: overflows so far, queued or dropped (irq type)
 * @period: the irq sampling period, in the leader's count (irq type)
 * @unsampled: periods already reported lost that perf never sampled
 * @ev_one: @ev for a single event in one group (a thread, a CPU), the
 *	common case: no allocation
 * @task_one: @tasks then
 */
struct perfctrfs_counters {
	unsigned int nr;
	unsigned int nr_inst;
	struct perf_event **ev;
	struct task_struct **tasks;
	struct task_struct *proc;
	struct cgroup *cgrp;
	enum perfctrfs_type type;
	wait_queue_head_t wq;
	atomic_t gen;
	struct irq_work work;
	struct perfctrfs_rec *ring;
	atomic_long_t head;
	unsigned long tail;
	atomic_long_t lost;
	atomic64_t irq_total;
	atomic64_t overflows;
	u64 period;
	u64 unsampled;
	struct perf_event *ev_one[1];
	struct task_struct *task_one;
};

/**
 * struct perfctrfs_charge - the locked memory an irq ring is charged
 * @user: the user charged (perf_event_mlock_kb), or NULL
 * @user_pages: pages charged to @user's perf_mlock
 * @mm: the opener's mm charged the rest (RLIMIT_MEMLOCK), or NULL
 * @mm_pages: pages charged to @mm's pinned_vm
 */
struct perfctrfs_charge {
	struct user_struct *user;
	unsigned long user_pages;
	struct mm_struct *mm;
	unsigned long mm_pages;
};

/**
 * struct perfctrfs_values - one read of a leaf, summed over its groups
 * @count: each member's count, leader first
 * @enabled: time enabled, ns
 * @running: time running, ns
 */
struct perfctrfs_values {
	u64 count[PERFCTRFS_MAX_GROUP];
	u64 enabled;
	u64 running;
};

/* series: irq */
int perfctrfs_ring_charge(struct perfctrfs_charge *ch);
void perfctrfs_ring_uncharge(struct perfctrfs_charge *ch);
/* series: end */
int perfctrfs_counters_open(struct perfctrfs_counters *c,
			    const struct perfctrfs_leaf *leaf);
void perfctrfs_counters_close(struct perfctrfs_counters *c);
int perfctrfs_counters_may_read(struct perfctrfs_counters *c);
int perfctrfs_counters_read(struct perfctrfs_counters *c,
			    struct perfctrfs_values *v);
/* series: control */
int perfctrfs_counters_control(struct perfctrfs_counters *c, unsigned int cmd);
/* series: end */
bool perfctrfs_counters_ended(struct perfctrfs_counters *c);
void perfctrfs_counters_kick(struct perfctrfs_counters *c);
/* series: irq */
bool perfctrfs_ring_pop(struct perfctrfs_counters *c, u64 *count, u64 *ip);
bool perfctrfs_ring_ready(struct perfctrfs_counters *c);
u64 perfctrfs_counters_unsampled(struct perfctrfs_counters *c);
/* series: end */
unsigned long perfctrfs_nr_counters(void);

#endif /* _PERFCTRFS_COUNTER_H */
