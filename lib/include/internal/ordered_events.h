/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Time-ordered delivery of records, as perf's ordered-events queue
 * (tools/perf/util/ordered-events.c, 6.1) gives them to perf script; used by
 * rawfrag_session__process() when the tool asks for order:
 *
 * - records are queued with their time; ties keep arrival (file) order;
 * - at each FINISHED_ROUND (oe_queue__round()) the records with time <= the
 *   newest time queued as of the previous round marker go out (two-round lag),
 *   and nothing happens when the queue is empty at that marker;
 * - oe_queue__flush() delivers everything left, sorted (end of input; files
 *   without FINISHED_ROUND are thus sorted whole).
 *
 * Records with time 0 or -1 (or without TIME) are not queued: the caller
 * delivers them at once, as perf does.
 *
 * - when what the queue holds passes max_bytes, it delivers the older half of
 *   its time span at once (perf's OE_FLUSH__HALF when the queue is full), so
 *   memory stays bounded whatever the input claims; nr_half_flushes counts it.
 *
 * Ownership: the queue copies every kept record into its arena (chunks of
 * 1 MiB, recycled once all their records went out): the reader's pointers die
 * at its next call. Memory follows what the queue holds (about two rounds).
 * Delivered records point into the arena and are valid during the callback.
 */
#ifndef __RAWFRAG_INTERNAL_ORDERED_EVENTS_H
#define __RAWFRAG_INTERNAL_ORDERED_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rawfrag/file.h>

struct oe_queue;

/*
 * priv: what was given to oe_queue__add(). Non-zero stops the delivery; the
 * queue returns that value from then on.
 */
typedef int (*oe_deliver_fn)(void *ctx, const struct rawfrag_record *rec, void *priv);

/* max_bytes: what the queue may hold before it flushes early (0: no bound) */
struct oe_queue *oe_queue__new(oe_deliver_fn deliver, void *ctx, uint64_t max_bytes);
/* frees whatever is still queued, undelivered; accepts NULL */
void oe_queue__delete(struct oe_queue *q);
/*
 * Queue rec at time (neither 0 nor -1). keep false: only the time counts (as
 * perf queues every kernel record), nothing is copied or delivered.
 * 0, -ENOMEM, or the deliver callback's error from an earlier flush.
 */
int oe_queue__add_slow(struct oe_queue *q, const struct rawfrag_record *rec, uint64_t time,
		       bool keep, void *priv);
static inline int oe_queue__add(struct oe_queue *q, const struct rawfrag_record *rec,
				uint64_t time, bool keep, void *priv);
/* FINISHED_ROUND */
int oe_queue__round(struct oe_queue *q);
/* end of input: everything left, sorted */
int oe_queue__flush(struct oe_queue *q);
/*
 * From a deliver callback: stop the running delivery after this record
 * (on: true). The round's, half flush's or final flush's bookkeeping is done
 * as if it had finished; the records it still had to release wait until
 * oe_queue__resume(), which the caller must call before it adds, rounds or
 * flushes again. Lets a pulling reader take a round a few records at a time.
 */
void oe_queue__request_pause(struct oe_queue *q, bool on);
bool oe_queue__paused(const struct oe_queue *q);
/* go on with a paused delivery (it may pause again); 0 when none is paused */
int oe_queue__resume(struct oe_queue *q);
/* most records held at once (for tests and -v) */
uint64_t oe_queue__peak(const struct oe_queue *q);
/* early flushes because of max_bytes */
uint64_t oe_queue__nr_half_flushes(const struct oe_queue *q);
/* drop everything queued, undelivered (rewind) */
void oe_queue__reset(struct oe_queue *q);

/* ---- the queue's layout: for oe_queue__add()'s inline common case ---- */

#define OE_CHUNK_SIZE (1u << 20) /* > the largest record (64 KiB) */
/*
 * Empty chunks kept for reuse, up to the bound's worth: a chunk freed goes back
 * to the kernel, and its next use faulted in every page again (a tenth of a
 * report's time when a busy file's queue swings by megabytes between rounds).
 * What is kept never exceeds what the queue held at its peak.
 */
#define OE_SPARE_CHUNKS 64

/* arena chunk: records are carved from data[]; live counts those not delivered */
struct oe_chunk {
	struct oe_chunk *next; /* free list */
	uint32_t used, live;
	uint8_t data[];
};

/* in the arena, in front of the record's copy */
struct oe_hdr {
	struct oe_chunk *chunk;
	void *priv;
	struct rawfrag_record rec; /* data: the copy after this header */
};

/* what is sorted: small, so the merges move little */
struct oe_ent {
	uint64_t time;
	struct oe_hdr *h; /* NULL: time only */
};

struct oe_queue {
	oe_deliver_fn deliver;
	void *ctx;
	int err; /* sticky deliver error */
	/*
	 * rem[rem_start..rem_end): sorted, left from earlier rounds; b[0..nb):
	 * arrived since the last round, in arrival order. rem, b and tmp have
	 * the same capacity (at least everything queued) so they can swap.
	 */
	struct oe_ent *rem, *b, *tmp;
	size_t rem_start, rem_end, nb, cap;
	/* b's time order: b_last that of b[nb - 1] (0: none), b_desc where it goes down */
	uint64_t b_last;
	size_t b_desc, b_first_desc;
	uint64_t max_time; /* perf's max_timestamp: time of the newest tail record */
	uint64_t next_flush; /* perf's next_flush: limit of the next round */
	uint64_t peak;
	/*
	 * The bound: arena bytes of chunks that hold records (added as records
	 * are carved, dropped when a chunk empties) plus the entries' share of
	 * the arrays; counted per chunk so the per-record cost is one add.
	 */
	uint64_t arena_bytes, max_bytes;
	uint64_t nr_half;
	struct oe_chunk *cur, *spare;
	int nr_spare;
	/*
	 * A pause asked for during a delivery: the delivery stops after that
	 * record, the rest up to resume_limit waits in rem for oe_queue__resume().
	 */
	bool pause_req, paused;
	uint64_t resume_limit;
};

static inline size_t oe_queued(const struct oe_queue *q)
{
	return q->rem_end - q->rem_start + q->nb;
}

/*
 * The common case inline in the reader's loop: a kept record, room in the
 * arrays and the current chunk, under the bound after it. Anything else:
 * oe_queue__add_slow(), the same steps with their checks.
 */
static inline int oe_queue__add(struct oe_queue *q, const struct rawfrag_record *rec,
				uint64_t time, bool keep, void *priv)
{
	size_t n = oe_queued(q);
	uint32_t size = (uint32_t)(sizeof(struct oe_hdr) + rec->size + 7u) & ~7u;
	struct oe_chunk *c = q->cur;
	struct oe_hdr *h;
	struct oe_ent *e;

	if (__builtin_expect(q->err || n == q->cap || !keep || !c || time < q->b_last ||
			     c->used + size > OE_CHUNK_SIZE ||
			     q->arena_bytes + size + 3 * sizeof(struct oe_ent) * (n + 1) > q->max_bytes,
			     0))
		return oe_queue__add_slow(q, rec, time, keep, priv);
	h = (struct oe_hdr *)(c->data + c->used);
	c->used += size;
	c->live++;
	q->arena_bytes += size;
	h->chunk = c;
	h->priv = priv;
	h->rec = *rec;
	h->rec.data = h + 1;
	e = &q->b[q->nb++];
	e->time = time;
	e->h = h;
	q->b_last = time;
	/* perf: an insertion at the tail (or into an empty queue) sets max_timestamp */
	if (!n || time >= q->max_time)
		q->max_time = time;
	memcpy(h + 1, rec->data, rec->size);
	return 0;
}

#endif
