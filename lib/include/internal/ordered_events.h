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
int oe_queue__add(struct oe_queue *q, const struct rawfrag_record *rec, uint64_t time,
		  bool keep, void *priv);
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

#endif
