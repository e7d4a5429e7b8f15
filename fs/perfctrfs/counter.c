// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c - the perf counters behind an open perfctrfs leaf.
 *
 * Counters are made with the perf core's kernel-counter API, as
 * arch/x86/kvm/pmu.c and kernel/watchdog_hld.c make theirs: the attr is
 * built here, the events are kept, read with the group read and released
 * with perf_event_release_kernel().
 *
 * Groups.  perf_event_create_kernel_counter() has no group_leader argument
 * and perf_event_alloc() is static, so a kernel user cannot build a perf
 * group in stock 6.1; reading members one by one is not a group (they
 * would be scheduled apart and read at different moments).
 * kernel/patches/0002-perf-kernel-counter-group.patch adds three small
 * functions that reuse the syscall's own code:
 * perf_event_create_kernel_group() (the group_fd rules of
 * perf_event_open(2)), perf_event_read_group_kernel() (PERF_FORMAT_GROUP's
 * read) and perf_event_ioctl_kernel() (the ENABLE, DISABLE and RESET
 * ioctls, children and siblings included).
 *
 * Cgroups.  perf_event_open(2) attaches a counter to a cgroup only through
 * the fd of its directory (PERF_FLAG_PID_CGROUP); kernel/patches/0004 lets
 * perf_event_create_kernel_group() take the cgroup itself, and attaches it
 * with the syscall's own code.  A cgroup target is CPU-wide, one group
 * per CPU counted, as the system-wide target is.  Its id is resolved at
 * open, for the opener (cgroup.c): a cgroup the opener could not open as
 * a directory, or outside its cgroup namespace, is ENOENT, as at lookup.
 *
 * Permissions.  Kernel counters skip the checks of perf_event_open(2), so
 * perfctrfs_counters_open() has perf core make them for the opener, with
 * the syscall's own code (kernel/patches/0003): perf_event_open_permitted()
 * for each member (perf_event_paranoid, the LSM's open hook, counting the
 * kernel), then the task lookup (ESRCH), perf_allow_cpu() for a CPU-wide
 * counter (made by find_get_context() inside the create call, for current,
 * as the syscall gets it), then perf_check_permission() (CAP_PERFMON or
 * ptrace read access by the opener's real credentials) under
 * exec_update_lock held across the install.  A cgroup target is judged as
 * the syscall judges one: the directory first (cgroup.c stands in for the
 * opener's open(2) of it), then perf_event_open_permitted(), then
 * perf_allow_cpu() when its context is found.  Every read passes the
 * LSM's read hook, as perf_read() does.
 *
 * Contexts.  Everything here but the overflow handler runs in process
 * context and may sleep; file.c holds its per-file mutex around reads and
 * control.  The overflow handler runs in NMI (hardware PMU) or hard irq
 * (hrtimer, software events) context: it only reserves a ring slot with a
 * cmpxchg, bumps atomics and queues an irq_work, whose callback wakes the
 * readers.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/sched/task.h>
#include <linux/security.h>
#include <linux/slab.h>
#include "internal.h"

/* Live perf events made for open leaves: user.perfctr.counters. */
static atomic_long_t perfctrfs_live = ATOMIC_LONG_INIT(0);

/**
 * perfctrfs_nr_counters() - how many perf events open leaves hold now
 *
 * Inherited child events belong to perf and are not counted.
 *
 * Return: the number of live events perfctrfs created.
 */
unsigned long perfctrfs_nr_counters(void)
{
	return atomic_long_read(&perfctrfs_live);
}

/**
 * perfctrfs_counters_kick() - tell readers and pollers to look again
 * @c: the counters of an open leaf
 *
 * Any context but NMI (the overflow handler goes through @c->work).
 */
void perfctrfs_counters_kick(struct perfctrfs_counters *c)
{
	atomic_inc(&c->gen);
	wake_up_interruptible_all(&c->wq);
}

static void perfctrfs_work(struct irq_work *work)
{
	perfctrfs_counters_kick(container_of(work, struct perfctrfs_counters,
					     work));
}

/* series: irq */
/*
 * The irq ring is a bounded multi-producer queue (Vyukov's): several CPUs
 * can overflow at once (one group per CPU, or threads of one process), and
 * an NMI may interrupt a producer on its own CPU, so there is no lock.  A
 * slot is free for position p when its seq is p, and holds a record for
 * position p when its seq is p + 1.  The one consumer is the reader, under
 * the file's mutex.
 */
static bool perfctrfs_ring_push(struct perfctrfs_counters *c, u64 count,
				u64 ip)
{
	long pos = atomic_long_read(&c->head);
	struct perfctrfs_rec *rec;
	long diff;

	for (;;) {
		rec = &c->ring[pos & (PERFCTRFS_RING_SIZE - 1)];
		/* Pairs with the consumer's release: the slot is free to write. */
		diff = (long)(smp_load_acquire(&rec->seq) - pos);
		if (diff < 0)
			return false;	/* full: the reader is behind */
		if (diff > 0) {
			/* Another producer took @pos: start from the new head. */
			pos = atomic_long_read(&c->head);
			continue;
		}
		if (atomic_long_try_cmpxchg(&c->head, &pos, pos + 1))
			break;
	}
	rec->count = count;
	rec->ip = ip;
	/* Publish: the consumer's acquire of seq sees count and ip. */
	smp_store_release(&rec->seq, pos + 1);
	return true;
}

/**
 * perfctrfs_ring_pop() - take the oldest irq record
 * @c: the counters of an open irq leaf
 * @count: receives its cumulative count
 * @ip: receives its instruction pointer
 *
 * Single consumer: the caller holds the open file's mutex.
 *
 * Return: true if a record was taken.
 */
bool perfctrfs_ring_pop(struct perfctrfs_counters *c, u64 *count, u64 *ip)
{
	unsigned long pos = c->tail;
	struct perfctrfs_rec *rec;

	if (!c->ring)
		return false;
	rec = &c->ring[pos & (PERFCTRFS_RING_SIZE - 1)];
	/*
	 * Pairs with the producer's release.  Empty, or its producer is
	 * still writing it: that producer will kick us.
	 */
	if (smp_load_acquire(&rec->seq) != pos + 1)
		return false;
	*count = rec->count;
	*ip = rec->ip;
	/* Our reads of the record are done before producers may reuse it. */
	smp_store_release(&rec->seq, pos + PERFCTRFS_RING_SIZE);
	c->tail = pos + 1;
	return true;
}

/**
 * perfctrfs_ring_ready() - is there something for an irq reader?
 * @c: the counters of an open irq leaf
 *
 * The caller holds the open file's mutex, as for perfctrfs_ring_pop().
 *
 * Return: true if a record or a count of lost records is waiting.
 */
bool perfctrfs_ring_ready(struct perfctrfs_counters *c)
{
	unsigned long pos = c->tail;

	if (!c->ring)
		return false;
	if (atomic_long_read(&c->lost))
		return true;
	/* Pairs with the producer's release, as in perfctrfs_ring_pop(). */
	return smp_load_acquire(&c->ring[pos & (PERFCTRFS_RING_SIZE - 1)].seq) ==
	       pos + 1;
}

/* The pages an irq ring is charged as locked memory. */
#define PERFCTRFS_RING_PAGES \
	DIV_ROUND_UP(PERFCTRFS_RING_SIZE * sizeof(struct perfctrfs_rec), PAGE_SIZE)

/**
 * perfctrfs_ring_charge() - charge an irq ring to the opener
 * @ch: zeroed; receives what was charged, for perfctrfs_ring_uncharge()
 *
 * An irq ring is to an open leaf what a perf ring buffer is to
 * perf_mmap(): memory a user pins to receive samples.  It is charged as
 * perf_mmap() charges one: to the user's perf_event_mlock_kb allowance
 * (per online CPU) first, the rest to the opener's RLIMIT_MEMLOCK
 * (pinned_vm), which only CAP_IPC_LOCK or perf_event_paranoid -1 lets a
 * caller exceed.  Process context, as the opener.
 *
 * Return: 0, or -EPERM (mmap()'s errno on a perf fd) when over the limit.
 */
int perfctrfs_ring_charge(struct perfctrfs_charge *ch)
{
	unsigned long user_lock_limit, user_locked, lock_limit, extra = 0;
	unsigned long user_extra = PERFCTRFS_RING_PAGES;
	struct user_struct *user = current_user();
	struct mm_struct *mm = current->mm;
	u64 locked;

	user_lock_limit = sysctl_perf_event_mlock >> (PAGE_SHIFT - 10);
	user_lock_limit *= num_online_cpus();
	user_locked = atomic_long_read(&user->perf_mlock);
	/* the sysctl may have been lowered below what is charged already */
	if (user_locked > user_lock_limit)
		user_locked = user_lock_limit;
	user_locked += user_extra;
	if (user_locked > user_lock_limit) {
		extra = user_locked - user_lock_limit;
		user_extra -= extra;
	}
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	locked = (mm ? atomic64_read(&mm->pinned_vm) : 0) + extra;
	if (extra && (locked > lock_limit || !mm) && perf_is_paranoid() &&
	    !capable(CAP_IPC_LOCK))
		return -EPERM;

	atomic_long_add(user_extra, &user->perf_mlock);
	ch->user = get_uid(user);
	ch->user_pages = user_extra;
	if (extra && mm) {
		atomic64_add(extra, &mm->pinned_vm);
		mmgrab(mm);
		ch->mm = mm;
		ch->mm_pages = extra;
	}
	return 0;
}

/**
 * perfctrfs_ring_uncharge() - undo perfctrfs_ring_charge()
 * @ch: what it charged; zeroed after
 */
void perfctrfs_ring_uncharge(struct perfctrfs_charge *ch)
{
	if (ch->user) {
		atomic_long_sub(ch->user_pages, &ch->user->perf_mlock);
		free_uid(ch->user);
	}
	if (ch->mm) {
		atomic64_sub(ch->mm_pages, &ch->mm->pinned_vm);
		mmdrop(ch->mm);
	}
	memset(ch, 0, sizeof(*ch));
}

/* series: end */
/* NMI or hard irq context: record, count, queue; nothing that locks. */
static void perfctrfs_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct perfctrfs_counters *c = event->overflow_handler_context;

	/* series: irq */
	if (c->type == PERFCTRFS_IRQ) {
		u64 count = atomic64_add_return(data->period, &c->irq_total);

		atomic64_inc(&c->overflows);
		if (!perfctrfs_ring_push(c, count,
					 regs ? perf_instruction_pointer(regs) : 0))
			atomic_long_inc(&c->lost);
	}
	/* series: end */
	irq_work_queue(&c->work);
}

static bool perfctrfs_is_clock(const struct perfctrfs_event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE &&
	       (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * Build one attr per member.  A count period becomes the leader's
 * sample_period: its overflow wakes readers (an irq record for irq, a
 * "maybe ready" kick otherwise).  A time period under irq samples by time,
 * which only the clock events can do (their sample_period is in ns); any
 * other event with a time period under irq is EINVAL.  Under simple and
 * times a time period needs no sampling: file.c's hrtimer drives it.
 */
static int perfctrfs_build_attrs(const struct perfctrfs_leaf *leaf,
				 struct perf_event_attr *attrs, bool task,
				 bool sample)
{
	const struct perfctrfs_event_spec *spec = &leaf->spec;
	unsigned int i;

	for (i = 0; i < spec->nr; i++) {
		struct perf_event_attr *a = &attrs[i];
		const struct perfctrfs_event *ev = &spec->ev[i];

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = ev->type;
		a->config = ev->config;
		a->config1 = ev->config1;
		a->config2 = ev->config2;
		a->exclude_user = ev->exclude_user;
		a->exclude_kernel = ev->exclude_kernel;
		a->exclude_hv = ev->exclude_hv;
		a->exclude_idle = ev->exclude_idle;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* Children the target creates after open are counted too. */
		a->inherit = task;
	}

	if (leaf->type == PERFCTRFS_IRQ && leaf->period.is_time &&
	    !perfctrfs_is_clock(&spec->ev[0]))
		return -EINVAL;
	if (sample && (leaf->type == PERFCTRFS_IRQ || !leaf->period.is_time))
		attrs[0].sample_period = leaf->period.value;
	return 0;
}

/* perf_event_open(2)'s checks that do not depend on the target. */
static int perfctrfs_check_open(struct perf_event_attr *attrs, unsigned int nr)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = perf_event_open_permitted(&attrs[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Reference every thread of @leader, for a process target.  Threads born
 * between this walk and the install are missed, as `perf stat -p` misses
 * those born while it walks /proc/<pid>/task.
 */
static int perfctrfs_collect_threads(struct task_struct *leader,
				     struct task_struct **few,
				     unsigned int nr_few,
				     struct task_struct ***out,
				     unsigned int *nr)
{
	struct task_struct **arr, *t;
	unsigned int n, i, tries;
	bool more;

	for (tries = 0; ; tries++) {
		n = get_nr_threads(leader) + 4;
		/* @few, the caller's, holds a process of a few threads */
		arr = n <= nr_few ? few :
		      kcalloc(n, sizeof(*arr), GFP_KERNEL_ACCOUNT);
		if (!arr)
			return -ENOMEM;
		i = 0;
		more = false;
		rcu_read_lock();
		for_each_thread(leader, t) {
			if (i == n) {
				more = true;
				break;
			}
			get_task_struct(t);
			arr[i++] = t;
		}
		rcu_read_unlock();
		if (!more || tries == 2)
			break;
		while (i)
			put_task_struct(arr[--i]);
		if (arr != few)
			kfree(arr);
	}
	if (!i) {
		if (arr != few)
			kfree(arr);
		return -ESRCH;
	}
	*out = arr;
	*nr = i;
	return 0;
}

static int perfctrfs_create(struct perfctrfs_counters *c,
			    struct perf_event_attr *attrs, int cpu,
			    struct task_struct *task)
{
	struct perf_event **ev = &c->ev[c->nr_inst * c->nr];
	int err;

	err = perf_event_create_kernel_group(attrs, c->nr, cpu, task, c->cgrp,
					     perfctrfs_overflow, c, ev);
	if (err)
		return err;
	c->tasks[c->nr_inst++] = task;
	if (task)
		get_task_struct(task);
	atomic_long_add(c->nr, &perfctrfs_live);
	return 0;
}

static void perfctrfs_release(struct perfctrfs_counters *c)
{
	unsigned int i, m;

	for (i = 0; i < c->nr_inst; i++) {
		/* Members first, so the leader goes last, as it came first. */
		for (m = c->nr; m-- > 0;)
			perf_event_release_kernel(c->ev[i * c->nr + m]);
		atomic_long_sub(c->nr, &perfctrfs_live);
		if (c->tasks[i])
			put_task_struct(c->tasks[i]);
	}
	c->nr_inst = 0;
}

/* Create the groups of a task target; exec_update_lock is held. */
static int perfctrfs_open_tasks(struct perfctrfs_counters *c,
				struct perf_event_attr *attrs, int cpu,
				struct task_struct **threads, unsigned int nr)
{
	unsigned int i;
	int err;

	/* CAP_PERFMON, or the opener may ptrace-read every thread. */
	for (i = 0; i < nr; i++)
		if (!perf_check_permission(attrs, threads[i]))
			return -EACCES;
	for (i = 0; i < nr; i++) {
		err = perfctrfs_create(c, attrs, cpu, threads[i]);
		/*
		 * A thread may have exited since the walk (a process's leader
		 * too, while its other threads run): count the others.
		 */
		if (err && err != -ESRCH)
			return err;
	}
	return c->nr_inst ? 0 : -ESRCH;
}

/*
 * One group per online CPU, or on one CPU, counting every task, or those
 * of c->cgrp.
 */
static int perfctrfs_open_cpus(struct perfctrfs_counters *c,
			       struct perf_event_attr *attrs,
			       const struct perfctrfs_cpu *cpu)
{
	unsigned int i;
	int err = 0;

	if (!cpu->all)
		return perfctrfs_create(c, attrs, cpu->cpu, NULL);

	/* No CPU comes or goes while we make one group on each. */
	cpus_read_lock();
	for_each_online_cpu(i) {
		err = perfctrfs_create(c, attrs, i, NULL);
		if (err)
			break;
	}
	cpus_read_unlock();
	return err;
}

/* Room for @n groups: in @c itself for one group of one, the common case. */
static int perfctrfs_alloc_inst(struct perfctrfs_counters *c, unsigned int n)
{
	if (n == 1 && c->nr == ARRAY_SIZE(c->ev_one)) {
		c->ev = c->ev_one;
		c->tasks = &c->task_one;
		return 0;
	}
	c->tasks = kcalloc(n, sizeof(*c->tasks), GFP_KERNEL_ACCOUNT);
	c->ev = kcalloc(n * c->nr, sizeof(*c->ev), GFP_KERNEL_ACCOUNT);
	return c->tasks && c->ev ? 0 : -ENOMEM;
}

static void perfctrfs_free_inst(struct perfctrfs_counters *c)
{
	if (c->ev != c->ev_one) {
		kfree(c->ev);
		kfree(c->tasks);
	}
	c->ev = NULL;
	c->tasks = NULL;
}

static int perfctrfs_resolve(const struct perfctrfs_leaf *leaf,
			     struct task_struct **task, bool *proc)
{
	switch (leaf->pid.kind) {
	case PERFCTRFS_PID_SELF:
		*task = get_task_struct(current->group_leader);
		*proc = true;
		return 0;
	case PERFCTRFS_PID_NUM:
		*task = leaf->target ? get_pid_task(leaf->target, PIDTYPE_PID) :
				       NULL;
		if (!*task)
			return -ESRCH;
		/* A process id counts all its threads; a thread id, itself. */
		*proc = thread_group_leader(*task);
		return 0;
	case PERFCTRFS_PID_ALL:
	case PERFCTRFS_PID_CGROUP:
	default:
		*task = NULL;
		*proc = false;
		return 0;
	}
}

static int perfctrfs_open_all(struct perfctrfs_counters *c,
			      const struct perfctrfs_leaf *leaf,
			      struct perf_event_attr *attrs)
{
	struct task_struct *task, **threads = NULL, *few[8];
	unsigned int nr_threads = 1, i;
	int cpu = leaf->cpu.all ? -1 : (int)leaf->cpu.cpu;
	bool proc;
	int err;

	err = perfctrfs_resolve(leaf, &task, &proc);
	if (err)
		return err;
	if (!task) {
		err = perfctrfs_alloc_inst(c, leaf->cpu.all ? nr_cpu_ids : 1);
		if (err)
			return err;
		return perfctrfs_open_cpus(c, attrs, &leaf->cpu);
	}

	if (proc) {
		err = perfctrfs_collect_threads(task, few, ARRAY_SIZE(few),
						&threads, &nr_threads);
		if (err)
			goto out_task;
	} else {
		threads = &task;
	}
	err = perfctrfs_alloc_inst(c, nr_threads);
	if (err)
		goto out_threads;

	/*
	 * As the syscall does: hold exec_update_lock across the check and
	 * the install, so an exec cannot change the target's credentials
	 * in between.
	 */
	err = down_read_interruptible(&task->signal->exec_update_lock);
	if (err)
		goto out_threads;
	err = perfctrfs_open_tasks(c, attrs, cpu, threads, nr_threads);
	up_read(&task->signal->exec_update_lock);
	if (!err && proc)
		c->proc = get_task_struct(task);

out_threads:
	if (proc) {
		for (i = 0; i < nr_threads; i++)
			put_task_struct(threads[i]);
		if (threads != few)
			kfree(threads);
	}
out_task:
	put_task_struct(task);
	return err;
}

/**
 * perfctrfs_counters_open() - make the counters an open of @leaf names
 * @c: zeroed storage, owned by the open file
 * @leaf: what the path names
 *
 * Checks the opener's permission as perf_event_open(2) would, resolves the
 * target and creates every group, started.  Process context; sleeps.
 *
 * Return: 0, or the errno perf_event_open(2) would give; on failure
 * nothing is left to release.
 */
int perfctrfs_counters_open(struct perfctrfs_counters *c,
			    const struct perfctrfs_leaf *leaf)
{
	struct perf_event_attr *attrs, one;
	bool task = leaf->pid.kind == PERFCTRFS_PID_NUM ||
		    leaf->pid.kind == PERFCTRFS_PID_SELF;
	/* series: irq */
	unsigned int i;
	/* series: end */
	int err;

	c->nr = leaf->spec.nr;
	c->type = leaf->type;
	init_waitqueue_head(&c->wq);
	init_irq_work(&c->work, perfctrfs_work);
	atomic_set(&c->gen, 0);
	/* series: irq */
	atomic_long_set(&c->head, 0);
	atomic_long_set(&c->lost, 0);
	atomic64_set(&c->irq_total, 0);
	atomic64_set(&c->overflows, 0);
	c->unsampled = 0;
	c->period = leaf->type == PERFCTRFS_IRQ ? leaf->period.value : 0;
	/* series: end */
	if (!c->nr || c->nr > PERFCTRFS_MAX_GROUP)
		return -EINVAL;

	/* a single event's attr on the stack: one allocation less an open */
	attrs = c->nr == 1 ? &one : kcalloc(c->nr, sizeof(*attrs), GFP_KERNEL_ACCOUNT);
	if (!attrs)
		return -ENOMEM;
	err = perfctrfs_build_attrs(leaf, attrs, task, leaf->period.value);
	if (err)
		goto out;
	/* series: cgroup */
	/* The opener's open(2) of the directory, before perf_event_open(2). */
	if (leaf->pid.kind == PERFCTRFS_PID_CGROUP) {
		c->cgrp = perfctrfs_cgroup_get(leaf->pid.cgroup);
		if (IS_ERR(c->cgrp)) {
			err = PTR_ERR(c->cgrp);
			c->cgrp = NULL;
			goto out;
		}
	}
	/* series: end */
	err = perfctrfs_check_open(attrs, c->nr);
	if (err)
		goto out;

	/* series: irq */
	if (c->type == PERFCTRFS_IRQ) {
		c->ring = kvcalloc(PERFCTRFS_RING_SIZE, sizeof(*c->ring),
				   GFP_KERNEL_ACCOUNT);
		err = -ENOMEM;
		if (!c->ring)
			goto out;
		for (i = 0; i < PERFCTRFS_RING_SIZE; i++)
			c->ring[i].seq = i;
	}

	/* series: end */
	err = perfctrfs_open_all(c, leaf, attrs);
	/*
	 * A count period under simple/times only hints readers awake; on a
	 * PMU that cannot interrupt (msr) count without it, and let file.c's
	 * watch timer notice the count instead.
	 */
	if (err == -EOPNOTSUPP && c->type != PERFCTRFS_IRQ &&
	    attrs[0].sample_period) {
		perfctrfs_release(c);
		perfctrfs_free_inst(c);
		c->proc = NULL;
		attrs[0].sample_period = 0;
		err = perfctrfs_open_all(c, leaf, attrs);
	}
out:
	if (attrs != &one)
		kfree(attrs);
	if (err)
		perfctrfs_counters_close(c);
	return err;
}

/**
 * perfctrfs_counters_close() - release every counter of an open leaf
 * @c: the counters; may be partly built
 *
 * After this no overflow handler runs and no irq_work is pending.
 * Process context; sleeps.
 */
void perfctrfs_counters_close(struct perfctrfs_counters *c)
{
	perfctrfs_release(c);
	/* perf_event_release_kernel() has stopped every handler: drain. */
	irq_work_sync(&c->work);
	if (c->proc)
		put_task_struct(c->proc);
	c->proc = NULL;
	/* series: cgroup */
	perfctrfs_cgroup_put(c->cgrp);
	c->cgrp = NULL;
	/* series: end */
	perfctrfs_free_inst(c);
	/* series: irq */
	kvfree(c->ring);
	c->ring = NULL;
	/* series: end */
}

/*
 * CPU hotplug.  When a CPU goes offline, perf_event_exit_cpu_context()
 * takes every CPU-wide event of that CPU out of its context: it is left
 * OFF, split from its group, and keeps its last count, time enabled and
 * time running.  Nothing puts it back when the CPU returns (perf stat -a
 * shows such a CPU as not counted), so the counter is over for good.  Task
 * events bound to a CPU stay in their task's context and count again
 * whenever the task runs there.
 *
 * PERF_ATTACH_CONTEXT is perf's own record of the removal: a live
 * CPU-wide event loses it only there (an event installed on a CPU that
 * was just going offline never gets it).  Read without the context's
 * lock: it only ever goes from set to clear while the event lives.
 */
static bool perfctrfs_group_unplugged(struct perfctrfs_counters *c,
				      unsigned int i)
{
	return !c->tasks[i] &&
	       !(READ_ONCE(c->ev[i * c->nr]->attach_state) &
		 PERF_ATTACH_CONTEXT);
}

/*
 * Has every CPU a CPU-wide leaf counted on gone offline?  For cpu=all,
 * never while one of them is online.  False for a task target.
 */
static bool perfctrfs_cpus_gone(struct perfctrfs_counters *c)
{
	unsigned int i;

	if (!c->nr_inst || c->tasks[0])
		return false;
	for (i = 0; i < c->nr_inst; i++)
		if (!perfctrfs_group_unplugged(c, i))
			return false;
	return true;
}

/* Read one group member by member: a group CPU hotplug took apart. */
static void perfctrfs_read_members(struct perfctrfs_counters *c,
				   unsigned int i, struct perfctrfs_values *v)
{
	u64 enabled, running;
	unsigned int m;

	for (m = 0; m < c->nr; m++) {
		v->count[m] += perf_event_read_value(c->ev[i * c->nr + m],
						     &enabled, &running);
		if (!m) {
			v->enabled += enabled;
			v->running += running;
		}
	}
}

/* series: groups */
/*
 * The group read of one group, children summed in.  An inherited child
 * group is taken apart member by member when its thread exits, and perf
 * refuses (-ECHILD) to sum a group whose child is half gone: wait for the
 * exit to finish, a matter of microseconds, rather than mix members read
 * apart.  Bounded: perf's errno if it does not.
 */
static int perfctrfs_read_group(struct perf_event *leader, u64 *vals,
				unsigned int nr)
{
	unsigned int tries;
	int n;

	for (tries = 0; ; tries++) {
		n = perf_event_read_group_kernel(leader, vals, nr);
		if (n != -ECHILD || tries == 100)
			return n;
		if (tries < 10)
			cond_resched();
		else
			usleep_range(100, 200);
	}
}

/* series: end */
/**
 * perfctrfs_counters_may_read() - the LSM's word on a read by current
 * @c: the counters of an open leaf
 *
 * perf_read() asks security_perf_event_read() on every read of a perf
 * fd; a read of a leaf asks it for each group it reads.  Process context.
 *
 * Return: 0, or the LSM's refusal.
 */
int perfctrfs_counters_may_read(struct perfctrfs_counters *c)
{
	unsigned int i;
	int err;

	for (i = 0; i < c->nr_inst; i++) {
		err = security_perf_event_read(c->ev[i * c->nr]);
		if (err)
			return err;
	}
	return 0;
}

/**
 * perfctrfs_counters_read() - read an open leaf's counters, summed
 * @c: the counters
 * @v: receives each member's count and the times, summed over the groups
 *
 * Each group is read at once, as PERF_FORMAT_GROUP reads it; inherited
 * children are included.  Process context; sleeps.
 *
 * Return: 0, or the errno of a group read perf refused.
 */
int perfctrfs_counters_read(struct perfctrfs_counters *c,
			    struct perfctrfs_values *v)
{
	/* series: until groups */
//	unsigned int i;
	/* series: end */
	/* series: groups */
	u64 vals[2 + PERFCTRFS_MAX_GROUP];
	unsigned int i, m;
	int n;
	/* series: end */

	memset(v, 0, sizeof(*v));
	for (i = 0; i < c->nr_inst; i++) {
		/*
		 * A group of one is its leader: perf_event_read_value() is
		 * read(2) on a perf fd, without the group read's allocation.
		 */
		if (c->nr == 1) {
			perfctrfs_read_members(c, i, v);
			continue;
		}
		/* series: groups */
		n = perfctrfs_read_group(c->ev[i * c->nr], vals, 2 + c->nr);
		if (n == c->nr) {
			v->enabled += vals[0];
			v->running += vals[1];
			for (m = 0; m < c->nr; m++)
				v->count[m] += vals[2 + m];
			continue;
		}
		/*
		 * A CPU-wide group whose CPU went offline was taken apart by
		 * perf at one moment: its members stopped counting together,
		 * and their last counts, read one by one, are still one
		 * measurement.  Any other failure is perf's error to report:
		 * members read apart would be no measurement at all.
		 */
		if (!perfctrfs_group_unplugged(c, i))
			return n < 0 ? n : -EIO;
		perfctrfs_read_members(c, i, v);
		/* series: end */
	}
	return 0;
}

/* series: control */
/**
 * perfctrfs_counters_control() - enable, disable or reset an open leaf
 * @c: the counters
 * @cmd: PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE or PERF_EVENT_IOC_RESET
 *
 * Acts on every group, members and inherited children, as the ioctl with
 * PERF_IOC_FLAG_GROUP does on a perf fd.  Reset also restarts the
 * cumulative count of irq records.  Process context; sleeps.
 *
 * Groups whose CPU went offline are not enabled: they cannot count again.
 *
 * Return: 0, -ENOTTY for another @cmd, -ENODEV when every CPU the leaf
 * counted on went offline (not when its cgroup was removed: its counters
 * are there to reset, as a dead process's are), or the LSM's refusal.
 */
int perfctrfs_counters_control(struct perfctrfs_counters *c, unsigned int cmd)
{
	unsigned int i;
	int err;

	if (cmd != PERF_EVENT_IOC_ENABLE && cmd != PERF_EVENT_IOC_DISABLE &&
	    cmd != PERF_EVENT_IOC_RESET)
		return -ENOTTY;
	/* Every CPU it counted on went offline: it can never count again. */
	if (perfctrfs_cpus_gone(c))
		return -ENODEV;
	/* perf_ioctl() treats these as writes to the event. */
	for (i = 0; i < c->nr_inst; i++) {
		err = security_perf_event_write(c->ev[i * c->nr]);
		if (err)
			return err;
	}
	for (i = 0; i < c->nr_inst; i++) {
		struct perf_event *leader = c->ev[i * c->nr];

		/*
		 * Out of its context: enabling it would make it INACTIVE in
		 * no context, counting enabled time it never runs.
		 */
		if (cmd == PERF_EVENT_IOC_ENABLE &&
		    perfctrfs_group_unplugged(c, i))
			continue;
		err = perf_event_ioctl_kernel(leader, cmd, PERF_IOC_FLAG_GROUP);
		if (err)
			return err;
	}
	if (cmd == PERF_EVENT_IOC_RESET) {
		atomic64_set(&c->irq_total, 0);
		atomic64_set(&c->overflows, 0);
		c->unsampled = 0;
	}
	perfctrfs_counters_kick(c);
	return 0;
}

/* series: end */
/* series: irq */
/**
 * perfctrfs_counters_unsampled() - periods that passed without a sample
 * @c: the counters of an open irq leaf
 *
 * perf does not take every sample a period asks for: it throttles an event
 * that interrupts too often, and a sampling hrtimer that fires late moves
 * its next expiry on from when it fired.  Those periods are counted but
 * never reach the overflow handler; the reader reports them as lost, so
 * that records plus lost always account for the count.  One period of
 * slack is kept, for an overflow that is on its way.  The caller holds the
 * open file's mutex.  Process context; sleeps.
 *
 * Return: how many periods to report lost now, usually 0.
 */
u64 perfctrfs_counters_unsampled(struct perfctrfs_counters *c)
{
	struct perfctrfs_values v;
	u64 due, seen;

	if (!c->period || perfctrfs_counters_read(c, &v))
		return 0;
	due = div64_u64(v.count[0], c->period);
	seen = atomic64_read(&c->overflows) + c->unsampled;
	if (due <= seen + 1)
		return 0;
	c->unsampled += due - seen - 1;
	return due - seen - 1;
}

/* series: end */
/**
 * perfctrfs_counters_ended() - is the counted process, thread, cgroup or
 *	CPU gone?
 * @c: the counters
 *
 * True once every counted thread's event has been through perf's task
 * exit (its final count is in) and, for a process, once no thread of it
 * is left alive or nothing of it is counted any more (after a setuid
 * exec, which perf handles as an exit); for a cgroup target, once the
 * cgroup is removed; for any CPU-wide leaf, once every CPU it counted on
 * has gone offline (see perfctrfs_cpus_gone()).  Any context but NMI;
 * reads state only.
 *
 * Return: whether the target is gone.
 */
bool perfctrfs_counters_ended(struct perfctrfs_counters *c)
{
	unsigned int i;

	if (!c->nr_inst)
		return false;
	if (!c->tasks[0])
		/* series: cgroup */
		return perfctrfs_cpus_gone(c) ||
		       (c->cgrp && perfctrfs_cgroup_removed(c->cgrp));
		/* series: end */
		/* series: until cgroup */
//		return perfctrfs_cpus_gone(c);
		/* series: end */
	for (i = 0; i < c->nr_inst; i++)
		if (READ_ONCE(c->ev[i * c->nr]->state) != PERF_EVENT_STATE_EXIT)
			return false;
	if (!c->proc || !atomic_read(&c->proc->signal->live))
		return true;
	/*
	 * Every thread counted from the open is through perf's exit, yet
	 * the process lives: on in threads (or children) born since, whose
	 * events are children of ours; or on after a setuid exec, which
	 * perf treats as an exit (perf_event_exit_task() in begin_new_exec())
	 * and after which nothing of it is counted.  Unlocked peek: a child
	 * list only empties for good once no thread of ours is left.
	 */
	for (i = 0; i < c->nr_inst; i++)
		if (!list_empty_careful(&c->ev[i * c->nr]->child_list))
			return false;
	return true;
}
