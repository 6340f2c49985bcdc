/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time-ordered delivery of records, as perf's ordered-events queue
 * (tools/perf/util/ordered-events.c, 6.1) gives them to perf script:
 *
 * - records are queued with their time; ties keep arrival (file) order;
 * - at each FINISHED_ROUND (ro_queue__round()) the records with time <= the
 *   newest time queued as of the previous round marker go out (two-round lag),
 *   and nothing happens when the queue is empty at that marker;
 * - ro_queue__flush() delivers everything left, sorted (end of input; files
 *   without FINISHED_ROUND are thus sorted whole).
 *
 * Records with time 0 or -1 (or without TIME) are not queued: the caller
 * delivers them at once, as perf does.
 *
 * Ownership: the queue copies every kept record into its arena (chunks of
 * 1 MiB, recycled once all their records went out): the reader's pointers die
 * at its next call. Memory follows what the queue holds (about two rounds).
 * Delivered records point into the arena and are valid during the callback.
 */
#ifndef __PERF_RAWFRAG_REPORT_ORDER_H
#define __PERF_RAWFRAG_REPORT_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include <rawfrag/file.h>

struct ro_queue;

/*
 * priv: what was given to ro_queue__add(). Non-zero stops the delivery; the
 * queue returns that value from then on.
 */
typedef int (*ro_deliver_fn)(void *ctx, const struct rawfrag_record *rec, void *priv);

struct ro_queue *ro_queue__new(ro_deliver_fn deliver, void *ctx);
/* frees whatever is still queued, undelivered; accepts NULL */
void ro_queue__delete(struct ro_queue *q);
/*
 * Queue rec at time (neither 0 nor -1). keep false: only the time counts (as
 * perf queues every kernel record), nothing is copied or delivered.
 * 0, -ENOMEM, or the deliver callback's error from an earlier flush.
 */
int ro_queue__add(struct ro_queue *q, const struct rawfrag_record *rec, uint64_t time,
		  bool keep, void *priv);
/* FINISHED_ROUND */
int ro_queue__round(struct ro_queue *q);
/* end of input: everything left, sorted */
int ro_queue__flush(struct ro_queue *q);
/* most records held at once (for tests and -v) */
uint64_t ro_queue__peak(const struct ro_queue *q);

#endif
