// SPDX-License-Identifier: GPL-2.0
/*
 * The records of an irq leaf: what the kernel wrote in its leaders' ring
 * buffers (a sample's count and ip, or a count of lost records), taken
 * into the file's own queue of records, and the periods that passed
 * without a sample.  counter.c turns them into lines (file_take()).
 *
 * A ring is drained only for a reader (a read, a waiter, a poll): the
 * event loop never drains a ring that nobody reads (file_service() in
 * loop.c), so what nobody reads waits in the kernel's ring.
 *
 * Everything here runs under pf_lock.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "counter.h"

/* ---- ring buffers and irq records ------------------------------------ */

/*
 * Room for one more record?  The queue starts at PF_IRQ_QUEUE_MIN records
 * and doubles as records wait, up to PF_IRQ_QUEUE: a leaf that is read as
 * fast as it samples never holds the 96 KiB its caller is charged for.
 * Out of memory, it is full: records are dropped and counted as lost.
 */
static bool irq_room(struct pf_file *f)
{
	struct pf_irq_rec *q;
	unsigned int cap, i;

	if (f->qlen < f->qcap)
		return true;
	if (f->qcap >= PF_IRQ_QUEUE)
		return false;
	cap = f->qcap * 2 < PF_IRQ_QUEUE ? f->qcap * 2 : PF_IRQ_QUEUE;
	q = malloc(cap * sizeof(*q));
	if (!q)
		return false;
	for (i = 0; i < f->qlen; i++)
		q[i] = f->q[(f->qhead + i) % f->qcap];
	free(f->q);
	f->q = q;
	f->qcap = cap;
	f->qhead = 0;
	return true;
}

/* Queue one record; irq_room() said there is room. */
static void irq_push(struct pf_file *f, uint64_t count, uint64_t ip, bool lost)
{
	struct pf_irq_rec *r;

	r = &f->q[(f->qhead + f->qlen) % f->qcap];
	r->count = count;
	r->ip = ip;
	r->lost = lost;
	f->qlen++;
}

/*
 * Queue one sample.  A full queue drops it and counts it; the count goes
 * in as a "lost <n>" line at the place the losses happened, as soon as
 * there is room again.
 */
static void irq_enqueue(struct pf_file *f, uint64_t ip, uint64_t period)
{
	f->irq_sum += period;
	f->overflows++;
	if (!irq_room(f)) {
		f->lost_pending++;
		return;
	}
	if (f->lost_pending) {
		irq_push(f, f->lost_pending, 0, true);
		f->lost_pending = 0;
		if (!irq_room(f)) {
			f->lost_pending = 1;
			return;
		}
	}
	irq_push(f, f->irq_sum, ip, false);
}

/* @len bytes at ring position @pos into @dst, across the wrap */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	uint64_t off = pos % size;
	size_t first = len < size - off ? len : size - off;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

/*
 * Take what the kernel wrote: per record its header and the two words
 * after it (a sample's ip and period, a lost record's id and count).
 * A busy irq leaf fills the ring between two reads, so this is per
 * sample: fixed-size copies where the record does not wrap (all but one
 * a lap), ring_copy() where it does.
 *
 * Bounded: it stops when the queue is full, and leaves the rest in the
 * kernel's ring, which counts what it cannot hold as lost
 * (PERF_RECORD_LOST).  It runs only for a reader (a read, a waiter, a
 * poll): the event loop never drains a ring that nobody reads, so a
 * leaf sampling every 10 us costs the daemon nothing until it is read.
 */
static void drain_ring(struct pf_file *f, struct pf_set *set)
{
	struct perf_event_mmap_page *meta = set->meta;
	unsigned char *data;
	uint64_t head, tail, size;

	if (!meta)
		return;
	data = (unsigned char *)meta + page_size;
	size = set->rb_len - page_size;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head &&
	       irq_room(f)) {
		struct perf_event_header hdr;
		uint64_t w[2], off = tail % size;

		/* past head is ring memory too: w is used only if hdr says */
		if (off + sizeof(hdr) + sizeof(w) <= size) {
			memcpy(&hdr, data + off, sizeof(hdr));
			memcpy(w, data + off + sizeof(hdr), sizeof(w));
		} else {
			ring_copy(data, size, tail, &hdr, sizeof(hdr));
			ring_copy(data, size, tail + sizeof(hdr), w, sizeof(w));
		}
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;
		if (hdr.size >= sizeof(hdr) + sizeof(w) &&
		    (hdr.type == PERF_RECORD_SAMPLE ||
		     hdr.type == PERF_RECORD_LOST)) {
			if (hdr.type == PERF_RECORD_SAMPLE) {
				irq_enqueue(f, w[0], w[1]);
			} else {
				f->lost_pending += w[1];
				f->overflows += w[1];
			}
		}
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * Periods that passed without a sample.  perf does not take every sample
 * a period asks for: it throttles an event that interrupts too often, and
 * a sampling hrtimer that fires late moves its next expiry on from when
 * it fired.  Those periods are counted but never reach the ring; they
 * are reported lost, so that records plus lost always account for the
 * count, as the kernel filesystem does (perfctrfs_counters_unsampled()).
 * One period of slack is kept, for a sample on its way.  Asked only when
 * nothing else is queued.
 */
static void irq_unsampled(struct pf_file *f)
{
	uint64_t vals[PERFCTRFS_MAX_GROUP], ena, run, due, seen;

	if (!f->period.value || file_sample(f, vals, &ena, &run))
		return;
	due = vals[0] / f->period.value;
	seen = f->overflows + f->unsampled;
	if (due <= seen + 1)
		return;
	f->unsampled += due - seen - 1;
	f->lost_pending += due - seen - 1;
}

/* Everything an irq leaf has to say: its rings, then unsampled periods. */
void irq_gather(struct pf_file *f)
{
	unsigned int s;

	for (s = 0; s < f->nr_sets; s++)
		drain_ring(f, &f->sets[s]);
	if (!f->qlen && !f->lost_pending)
		irq_unsampled(f);
}
