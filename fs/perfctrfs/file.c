// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - the leaf's file_operations: one open file, one counter (group).
 *
 * Period 0 is a seekable snapshot: a read at offset 0 makes a fresh line,
 * reads further on return the rest of it, so pread(0) is always fresh.
 * Every other leaf is a stream, whatever the offset, whose reads return
 * the next line once it is due, and the buffered rest of a line first:
 *
 *  - a count period N: due once the leader counted N more since the last
 *    line.  The leader samples every N events; its overflow kicks the
 *    waiters, and so does a 100ms watch timer, since a process's threads
 *    each count on their own and may reach N only together;
 *  - a time period: due once per interval of an hrtimer;
 *  - irq: due while overflow records are queued ("<count> 0x<ip>"), with a
 *    "lost <n>" line before the next record after drops.
 *
 * When the target exits, or the CPU of a CPU-bound leaf goes offline
 * (perf then retires its counter for good: see counter.c), the watch
 * timer sees it: a reader gets a final line (simple/times) or what is left
 * (irq), then EOF; poll says EPOLLHUP.
 *
 * Locking: o->lock (a mutex) serializes reads, writes, ioctls and polls of
 * one open file, and is the only consumer lock of the irq ring; it is
 * never held while waiting.  The timers and the irq_work only bump
 * counters and wake c.wq; they take no lock of ours.
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/xarray.h>
#include "internal.h"

/* 8 counts of up to 20 digits, two times, spaces and the newline: 211 */
#define PERFCTRFS_LINE_MAX	216
#define PERFCTRFS_WATCH		(HZ / 10)
static_assert((PERFCTRFS_MAX_GROUP + 2) * 21 + 1 <= PERFCTRFS_LINE_MAX);

/*
 * A stream's timers, apart: a period 0 leaf, the common one, has none;
 * and an irq stream's ring, as charged to the opener's locked memory.
 */
struct perfctrfs_timers {
	struct perfctrfs_open *o;
	struct hrtimer timer;
	struct timer_list watch;
	struct perfctrfs_charge charge;
	kuid_t timer_uid;		/* charged perfctrfs_timer_cost() */
};

/*
 * One open leaf.  Kept within 504 bytes, so that with kmalloc's header it
 * is a 512-byte block: SLOB packs eight to a page and drops the full page
 * from its free list (a 10,000-counter open walks that list on every new
 * page otherwise), and SLUB serves it from kmalloc-512.
 */
struct perfctrfs_open {
	struct mutex lock;	/* everything below but the atomics and timers */
	struct perfctrfs_counters c;
	const struct perfctrfs_leaf *leaf;
	char line[PERFCTRFS_LINE_MAX];
	size_t len;		/* bytes in @line */
	size_t pos;		/* streams: bytes of @line already read */
	bool have_line;		/* period 0: @line holds a snapshot */
	bool final;		/* streams: the target is gone, last line given */
	u64 last;		/* count period: leader count at the last line */
	int ticks_seen;		/* time period: @ticks at the last line */
	atomic_t ticks;		/* time period: intervals elapsed */
	bool closing;		/* the watch timer must not rearm */
	bool has_timer;
	bool has_watch;
	struct perfctrfs_timers *t;	/* streams only */
};

/*
 * Time-period hrtimers are interrupts that perf's throttling never sees:
 * a user's timers together may fire at most this many times a second
 * (100 leaves at the shortest period, 1ms).  Past it, an open gets
 * ENOSPC, perf's errno for a resource a user has used up.
 */
#define PERFCTRFS_TIMER_RATE_MAX	100000UL
static DEFINE_XARRAY(perfctrfs_timer_rate);	/* uid -> firings a second */
static DEFINE_MUTEX(perfctrfs_timer_lock);

static unsigned long perfctrfs_timer_cost(const struct perfctrfs_leaf *leaf)
{
	u64 ns = leaf->period.value;	/* >= PERFCTRFS_MIN_PERIOD_NS */

	return div64_u64(NSEC_PER_SEC + ns - 1, ns);
}

static int perfctrfs_timer_charge(kuid_t uid, unsigned long cost)
{
	unsigned long key = __kuid_val(uid), used;
	void *old;
	int err = 0;

	mutex_lock(&perfctrfs_timer_lock);
	old = xa_load(&perfctrfs_timer_rate, key);
	used = old ? xa_to_value(old) : 0;
	if (used + cost > PERFCTRFS_TIMER_RATE_MAX)
		err = -ENOSPC;
	else
		err = xa_err(xa_store(&perfctrfs_timer_rate, key,
				      xa_mk_value(used + cost),
				      GFP_KERNEL_ACCOUNT));
	mutex_unlock(&perfctrfs_timer_lock);
	return err;
}

static void perfctrfs_timer_uncharge(kuid_t uid, unsigned long cost)
{
	unsigned long key = __kuid_val(uid), used;
	void *old;

	mutex_lock(&perfctrfs_timer_lock);
	old = xa_load(&perfctrfs_timer_rate, key);
	used = old ? xa_to_value(old) : 0;
	if (WARN_ON_ONCE(used < cost))
		used = cost;
	if (used == cost)
		xa_erase(&perfctrfs_timer_rate, key);
	else
		xa_store(&perfctrfs_timer_rate, key, xa_mk_value(used - cost),
			 GFP_KERNEL);	/* an existing slot: no allocation */
	mutex_unlock(&perfctrfs_timer_lock);
}

static bool perfctrfs_is_stream(const struct perfctrfs_leaf *leaf)
{
	return leaf->type == PERFCTRFS_IRQ || leaf->period.value;
}

static enum hrtimer_restart perfctrfs_tick(struct hrtimer *t)
{
	struct perfctrfs_open *o = container_of(t, struct perfctrfs_timers,
						timer)->o;

	atomic_inc(&o->ticks);
	perfctrfs_counters_kick(&o->c);
	hrtimer_forward_now(t, ns_to_ktime(o->leaf->period.value));
	return HRTIMER_RESTART;
}

/* Softirq: wake readers to recount, and until the target is gone. */
static void perfctrfs_watch(struct timer_list *t)
{
	struct perfctrfs_timers *pt = from_timer(pt, t, watch);
	struct perfctrfs_open *o = pt->o;

	perfctrfs_counters_kick(&o->c);
	if (!READ_ONCE(o->closing) && !perfctrfs_counters_ended(&o->c))
		mod_timer(&pt->watch, jiffies + PERFCTRFS_WATCH);
}

/* Append @v in decimal at @p; return the end.  num_to_str(): no format. */
static char *perfctrfs_put_u64(char *p, char sep, u64 v)
{
	if (sep)
		*p++ = sep;
	/* 20 digits at most: PERFCTRFS_LINE_MAX leaves room for all of them */
	return p + num_to_str(p, 20, v, 0);
}

/*
 * Format a simple or times line of @v into o->line.  This is the hot read's
 * formatting: a number at a time, not vsnprintf() and its format parsing.
 */
static void perfctrfs_format(struct perfctrfs_open *o,
			     const struct perfctrfs_values *v)
{
	char *p = o->line;
	unsigned int m;

	for (m = 0; m < o->c.nr; m++)
		p = perfctrfs_put_u64(p, m ? ' ' : 0, v->count[m]);
	if (o->leaf->type == PERFCTRFS_TIMES) {
		p = perfctrfs_put_u64(p, ' ', v->enabled);
		p = perfctrfs_put_u64(p, ' ', v->running);
	}
	*p++ = '\n';
	o->len = p - o->line;
	o->pos = 0;
}

static int perfctrfs_snapshot(struct perfctrfs_open *o)
{
	struct perfctrfs_values v;
	int err;

	err = perfctrfs_counters_read(&o->c, &v);
	if (err)
		return err;
	perfctrfs_format(o, &v);
	return 0;
}

/*
 * Streams: put the next due line in o->line.  With @peek, only say whether
 * one is due.  Return 1 when one is (made), 0 when not yet, -ENODATA at
 * the end (the target is gone and everything was read), or an errno.
 * Called with o->lock held.
 */
static int perfctrfs_next(struct perfctrfs_open *o, bool peek)
{
	/* Before reading: once it says ended, the counts are final. */
	bool ended = perfctrfs_counters_ended(&o->c);
	struct perfctrfs_values v;
	/* series: irq */
	u64 count, ip;
	long lost;
	/* series: end */
	int err;

	if (o->final)
		return -ENODATA;

	/* series: irq */
	if (o->leaf->type == PERFCTRFS_IRQ) {
		if (peek) {
			if (perfctrfs_ring_ready(&o->c))
				return 1;
			return ended ? -ENODATA : 0;
		}
		lost = atomic_long_xchg(&o->c.lost, 0);
		if (!lost && !perfctrfs_ring_ready(&o->c))
			lost = perfctrfs_counters_unsampled(&o->c);
		if (lost) {
			o->len = scnprintf(o->line, sizeof(o->line),
					   "lost %ld\n", lost);
		} else if (perfctrfs_ring_pop(&o->c, &count, &ip)) {
			o->len = scnprintf(o->line, sizeof(o->line),
					   "%llu 0x%llx\n", count, ip);
		} else {
			if (ended)
				o->final = true;
			return ended ? -ENODATA : 0;
		}
		o->pos = 0;
		return 1;
	}

	/* series: end */
	if (o->leaf->period.is_time) {
		int ticks = atomic_read(&o->ticks);

		if (ticks == o->ticks_seen && !ended)
			return 0;
		if (peek)
			return 1;
		o->ticks_seen = ticks;
		err = perfctrfs_snapshot(o);
		if (err)
			return err;
		o->final = ended;
		return 1;
	}

	err = perfctrfs_counters_read(&o->c, &v);
	if (err)
		return err;
	if (!ended && (v.count[0] < o->last ||
		       v.count[0] - o->last < o->leaf->period.value))
		return 0;
	if (peek)
		return 1;
	o->last = v.count[0];
	o->final = ended;
	perfctrfs_format(o, &v);
	return 1;
}

/* Copy out of o->line; with @whole, only if the rest of it fits. */
static ssize_t perfctrfs_copy(struct perfctrfs_open *o, struct iov_iter *to,
			      bool whole)
{
	size_t n = min(iov_iter_count(to), o->len - o->pos);

	if (whole && n < o->len - o->pos)
		return 0;
	n = copy_to_iter(o->line + o->pos, n, to);
	if (!n)
		return -EFAULT;
	o->pos += n;
	return n;
}

static ssize_t perfctrfs_read_stream(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct perfctrfs_open *o = file->private_data;
	ssize_t done = 0, n;
	int gen, ret;

	for (;;) {
		if (mutex_lock_interruptible(&o->lock))
			return -ERESTARTSYS;
		gen = atomic_read(&o->c.gen);
		ret = 0;
		/* Fill @buf with what is due, whole lines after the first. */
		while (iov_iter_count(to)) {
			if (o->pos == o->len) {
				ret = perfctrfs_next(o, false);
				if (ret <= 0)
					break;
			}
			n = perfctrfs_copy(o, to, done);
			if (n <= 0) {
				ret = n;
				break;
			}
			done += n;
			iocb->ki_pos += n;
			/* One line of simple/times per read, as perf stat -I. */
			if (o->leaf->type != PERFCTRFS_IRQ && o->pos == o->len)
				break;
		}
		mutex_unlock(&o->lock);

		if (done)
			return done;
		if (ret == -ENODATA)
			return 0;
		if (ret < 0)
			return ret;
		if ((file->f_flags & O_NONBLOCK) ||
		    (iocb->ki_flags & IOCB_NOWAIT))
			return -EAGAIN;
		if (wait_event_interruptible(o->c.wq,
					     atomic_read(&o->c.gen) != gen))
			return -ERESTARTSYS;
	}
}

/*
 * Period 0: make @pos's line current and lock it; pread(0) is always fresh.
 * Return 0 with o->lock held, or an errno without it.
 */
static int perfctrfs_snapshot_lock(struct perfctrfs_open *o, loff_t pos)
{
	int err;

	if (pos < 0)
		return -EINVAL;
	if (mutex_lock_interruptible(&o->lock))
		return -ERESTARTSYS;
	if (pos == 0 || !o->have_line) {
		err = perfctrfs_snapshot(o);
		if (err) {
			mutex_unlock(&o->lock);
			return err;
		}
		o->have_line = true;
	}
	return 0;
}

/*
 * read_iter serves splice() and sendfile() (generic_file_splice_read(),
 * which busybox cat uses), readv() and aio; read(2) and pread(2) come
 * through perfctrfs_leaf_read() below, without a kiocb and an iov_iter.
 */
static ssize_t perfctrfs_leaf_read_iter(struct kiocb *iocb,
					struct iov_iter *to)
{
	struct perfctrfs_open *o = iocb->ki_filp->private_data;
	size_t n;
	int err;

	err = perfctrfs_counters_may_read(&o->c);
	if (err)
		return err;
	if (perfctrfs_is_stream(o->leaf))
		return perfctrfs_read_stream(iocb, to);

	err = perfctrfs_snapshot_lock(o, iocb->ki_pos);
	if (err)
		return err;
	n = 0;
	if (iocb->ki_pos < o->len) {
		n = copy_to_iter(o->line + iocb->ki_pos,
				 o->len - iocb->ki_pos, to);
		if (!n && iov_iter_count(to)) {
			mutex_unlock(&o->lock);
			return -EFAULT;
		}
		iocb->ki_pos += n;
	}
	mutex_unlock(&o->lock);
	return n;
}

/* read(2) and pread(2): the hot path of a period 0 leaf. */
static ssize_t perfctrfs_leaf_read(struct file *file, char __user *buf,
				   size_t count, loff_t *ppos)
{
	struct perfctrfs_open *o = file->private_data;
	size_t n;
	int err;

	/* as perf_read(): the LSM judges every read, not only the open */
	err = perfctrfs_counters_may_read(&o->c);
	if (err)
		return err;
	if (perfctrfs_is_stream(o->leaf)) {
		struct kiocb kiocb;
		struct iov_iter iter;
		ssize_t ret;

		/* as vfs_read() does for a file with read_iter only */
		init_sync_kiocb(&kiocb, file);
		kiocb.ki_pos = *ppos;
		iov_iter_ubuf(&iter, ITER_DEST, buf, count);
		ret = perfctrfs_read_stream(&kiocb, &iter);
		*ppos = kiocb.ki_pos;
		return ret;
	}

	err = perfctrfs_snapshot_lock(o, *ppos);
	if (err)
		return err;
	n = 0;
	if (*ppos < o->len) {
		n = min_t(size_t, count, o->len - *ppos);
		/* a partial copy returns what reached the user, as read_iter */
		n -= copy_to_user(buf, o->line + *ppos, n);
		if (!n && count) {
			mutex_unlock(&o->lock);
			return -EFAULT;
		}
		*ppos += n;
	}
	mutex_unlock(&o->lock);
	return n;
}

/* series: control */
static long perfctrfs_control(struct perfctrfs_open *o, unsigned int cmd)
{
	long ret;

	mutex_lock(&o->lock);
	ret = perfctrfs_counters_control(&o->c, cmd);
	/* Counts restart at zero: a count period counts from there. */
	if (!ret && cmd == PERF_EVENT_IOC_RESET)
		o->last = 0;
	mutex_unlock(&o->lock);
	return ret;
}

/* One control word a write, newline optional; anything else is EINVAL. */
static ssize_t perfctrfs_leaf_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	static const struct {
		const char *word;
		unsigned int cmd;
	} words[] = {
		{ "enable", PERF_EVENT_IOC_ENABLE },
		{ "disable", PERF_EVENT_IOC_DISABLE },
		{ "reset", PERF_EVENT_IOC_RESET },
	};
	char word[16];
	size_t len = count;
	unsigned int i;
	long ret;

	if (!count || count >= sizeof(word))
		return -EINVAL;
	if (copy_from_user(word, buf, count))
		return -EFAULT;
	if (word[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (len == strlen(words[i].word) &&
		    !memcmp(word, words[i].word, len)) {
			ret = perfctrfs_control(file->private_data,
						words[i].cmd);
			return ret ? ret : count;
		}
	}
	return -EINVAL;
}

static long perfctrfs_leaf_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
	case PERF_EVENT_IOC_RESET:
		/*
		 * As on a perf fd, whatever the open mode: the counter is the
		 * opener's own, no one else's.
		 */
		return perfctrfs_control(file->private_data, cmd);
	default:
		return -ENOTTY;
	}
}

/* series: end */
static __poll_t perfctrfs_leaf_poll(struct file *file, poll_table *wait)
{
	struct perfctrfs_open *o = file->private_data;
	__poll_t mask = 0;
	int ret;

	poll_wait(file, &o->c.wq, wait);
	if (!perfctrfs_is_stream(o->leaf)) {
		mask = EPOLLIN | EPOLLRDNORM;
	} else {
		mutex_lock(&o->lock);
		ret = o->pos < o->len ? 1 : perfctrfs_next(o, true);
		mutex_unlock(&o->lock);
		/* A read would not block: a line, or the EOF at the end. */
		if (ret)
			mask = EPOLLIN | EPOLLRDNORM;
	}
	if (perfctrfs_counters_ended(&o->c))
		mask |= EPOLLHUP;
	return mask;
}

static int perfctrfs_leaf_open(struct inode *inode, struct file *file)
{
	const struct perfctrfs_leaf *leaf = perfctrfs_leaf(inode);
	struct perfctrfs_open *o;
	int err;

	o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	if (!o)
		return -ENOMEM;
	mutex_init(&o->lock);
	o->leaf = leaf;
	atomic_set(&o->ticks, 0);
	if (perfctrfs_is_stream(leaf)) {
		o->t = kzalloc(sizeof(*o->t), GFP_KERNEL_ACCOUNT);
		err = -ENOMEM;
		if (!o->t)
			goto out_free;
		o->t->o = o;
	}
	/* series: irq */
	if (leaf->type == PERFCTRFS_IRQ) {
		err = perfctrfs_ring_charge(&o->t->charge);
		if (err)
			goto out_free;
	} else if (leaf->period.is_time) {
	/* series: end */
	/* series: until irq */
//	if (leaf->period.is_time) {
	/* series: end */
		o->t->timer_uid = current_uid();
		err = perfctrfs_timer_charge(o->t->timer_uid,
					     perfctrfs_timer_cost(leaf));
		if (err)
			goto out_free;
		o->has_timer = true;	/* charged: uncharged with the timer */
	}

	err = perfctrfs_counters_open(&o->c, leaf);
	if (err)
		goto out_uncharge;

	/*
	 * Streams stay "seekable" (they ignore the offset): sendfile() and
	 * splice, which busybox cat uses, refuse a file without FMODE_LSEEK.
	 */
	if (perfctrfs_is_stream(leaf)) {
		if (leaf->type != PERFCTRFS_IRQ && leaf->period.is_time) {
			hrtimer_init(&o->t->timer, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL);
			o->t->timer.function = perfctrfs_tick;
			hrtimer_start(&o->t->timer,
				      ns_to_ktime(leaf->period.value),
				      HRTIMER_MODE_REL);
		}
		/*
		 * Needed to see a target exit, a count reached by sums, or
		 * the CPU of a CPU-bound leaf go offline (its irq records
		 * then stop for good: nothing else would wake a reader).
		 */
		if (leaf->pid.kind != PERFCTRFS_PID_ALL || !leaf->cpu.all ||
		    (leaf->type != PERFCTRFS_IRQ && !leaf->period.is_time)) {
			timer_setup(&o->t->watch, perfctrfs_watch, 0);
			o->has_watch = true;
			mod_timer(&o->t->watch, jiffies + PERFCTRFS_WATCH);
		}
	}
	file->private_data = o;
	return 0;

out_uncharge:
	/* series: irq */
	if (o->t)
		perfctrfs_ring_uncharge(&o->t->charge);
	/* series: end */
	if (o->has_timer)
		perfctrfs_timer_uncharge(o->t->timer_uid,
					 perfctrfs_timer_cost(leaf));
out_free:
	kfree(o->t);
	mutex_destroy(&o->lock);
	kfree(o);
	return err;
}

static int perfctrfs_leaf_release(struct inode *inode, struct file *file)
{
	struct perfctrfs_open *o = file->private_data;

	WRITE_ONCE(o->closing, true);
	if (o->has_watch)
		del_timer_sync(&o->t->watch);
	if (o->has_timer) {
		hrtimer_cancel(&o->t->timer);
		perfctrfs_timer_uncharge(o->t->timer_uid,
					 perfctrfs_timer_cost(o->leaf));
	}
	perfctrfs_counters_close(&o->c);
	/* series: irq */
	if (o->t)
		perfctrfs_ring_uncharge(&o->t->charge);
	/* series: end */
	kfree(o->t);
	mutex_destroy(&o->lock);
	kfree(o);
	return 0;
}

const struct file_operations perfctrfs_leaf_fops = {
	.owner		= THIS_MODULE,
	.open		= perfctrfs_leaf_open,
	.release	= perfctrfs_leaf_release,
	.read		= perfctrfs_leaf_read,
	.read_iter	= perfctrfs_leaf_read_iter,
	.splice_read	= perfctrfs_splice_read,
	/* series: control */
	.write		= perfctrfs_leaf_write,
	/* series: end */
	.poll		= perfctrfs_leaf_poll,
	/* series: control */
	.unlocked_ioctl	= perfctrfs_leaf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	/* series: end */
	.llseek		= default_llseek,
};
