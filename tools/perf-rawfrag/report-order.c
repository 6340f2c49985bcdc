// SPDX-License-Identifier: GPL-2.0
/*
 * perf's ordered-events queue for perf rawfrag report (see report-order.h).
 *
 * perf keeps a sorted list and inserts each record from the last insertion
 * point. Here records are appended to an array; at a round marker the array is
 * sorted (natural merge sort: what is left from earlier rounds is one sorted
 * run, each CPU's records of the round are nearly one more) and the head up to
 * the limit goes out. The order is perf's: by time, ties in arrival order;
 * merges only ever join neighbouring runs, so taking the left one on a tie
 * keeps arrival order without storing it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-order.h"

#define RO_CHUNK_SIZE (1u << 20) /* > the largest record (64 KiB) */
#define RO_SPARE_CHUNKS 4	 /* empty chunks kept for reuse */

/* arena chunk: records are carved from data[]; live counts those not delivered */
struct ro_chunk {
	struct ro_chunk *next; /* free list */
	uint32_t used, live;
	uint8_t data[];
};

/* in the arena, in front of the record's copy */
struct ro_hdr {
	struct ro_chunk *chunk;
	void *priv;
	uint64_t offset;
	uint32_t type;
	uint16_t size, misc;
	bool in_compressed;
};

/* what is sorted: small, so the merges move little */
struct ro_ent {
	uint64_t time;
	struct ro_hdr *h; /* NULL: time only */
};

struct ro_queue {
	ro_deliver_fn deliver;
	void *ctx;
	int err; /* sticky deliver error */
	/* q[0..n): queued; q[0..sorted) is sorted, the rest arrived since */
	struct ro_ent *q, *tmp;
	size_t n, sorted, cap;
	uint64_t max_time; /* perf's max_timestamp: time of the newest tail record */
	uint64_t next_flush; /* perf's next_flush: limit of the next round */
	uint64_t peak;
	struct ro_chunk *cur, *spare;
	int nr_spare;
};

struct ro_queue *ro_queue__new(ro_deliver_fn deliver, void *ctx)
{
	struct ro_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->deliver = deliver;
	q->ctx = ctx;
	return q;
}

static void chunk_put(struct ro_queue *q, struct ro_chunk *c)
{
	if (--c->live || c == q->cur)
		return;
	if (q->nr_spare < RO_SPARE_CHUNKS) {
		c->next = q->spare;
		q->spare = c;
		q->nr_spare++;
		return;
	}
	free(c);
}

void ro_queue__delete(struct ro_queue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		if (q->q[i].h)
			chunk_put(q, q->q[i].h->chunk);
	free(q->cur);
	while (q->spare) {
		struct ro_chunk *c = q->spare;

		q->spare = c->next;
		free(c);
	}
	free(q->q);
	free(q->tmp);
	free(q);
}

/* room for size bytes (8-aligned) in the current chunk */
static uint8_t *arena_alloc(struct ro_queue *q, uint32_t size, struct ro_chunk **chunk)
{
	struct ro_chunk *c = q->cur;

	size = (size + 7u) & ~7u;
	if (c && c->used + size > RO_CHUNK_SIZE) {
		if (!c->live) {
			c->used = 0; /* nothing of it is held: start over */
		} else {
			q->cur = NULL;
			c = NULL;
		}
	}
	if (!c) {
		if (q->spare) {
			c = q->spare;
			q->spare = c->next;
			q->nr_spare--;
		} else {
			c = malloc(sizeof(*c) + RO_CHUNK_SIZE);
			if (!c)
				return NULL;
		}
		c->used = c->live = 0;
		q->cur = c;
	}
	*chunk = c;
	c->live++;
	c->used += size;
	return c->data + c->used - size;
}

static int grow(struct ro_queue *q)
{
	size_t cap = q->cap ? 2 * q->cap : 4096;
	struct ro_ent *n = realloc(q->q, cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	q->q = n;
	n = realloc(q->tmp, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	q->tmp = n;
	q->cap = cap;
	return 0;
}

int ro_queue__add(struct ro_queue *q, const struct rawfrag_record *rec, uint64_t time,
		  bool keep, void *priv)
{
	struct ro_ent *e;

	if (q->err)
		return q->err;
	if (q->n == q->cap && grow(q))
		return -ENOMEM;
	e = &q->q[q->n];
	e->time = time;
	e->h = NULL;
	if (keep) {
		struct ro_chunk *c;
		struct ro_hdr *h = (void *)arena_alloc(q, sizeof(*h) + rec->size, &c);

		if (!h)
			return -ENOMEM;
		*h = (struct ro_hdr){ .chunk = c, .priv = priv, .offset = rec->offset,
				      .type = rec->type, .size = rec->size, .misc = rec->misc,
				      .in_compressed = rec->in_compressed };
		memcpy(h + 1, rec->data, rec->size);
		e->h = h;
	}
	/* perf: an insertion at the tail (or into an empty queue) sets max_timestamp */
	if (!q->n || time >= q->max_time)
		q->max_time = time;
	q->n++;
	if (q->n > q->peak)
		q->peak = q->n;
	return 0;
}

/* end of the ascending run starting at i */
static size_t run_end(const struct ro_ent *a, size_t i, size_t n)
{
	while (++i < n && a[i].time >= a[i - 1].time)
		;
	return i;
}

/* stable natural merge sort of q[0..n) (q[0..sorted) is already one run) */
static void sort_queue(struct ro_queue *q)
{
	struct ro_ent *a = q->q, *t = q->tmp;
	size_t n = q->n;

	for (;;) {
		size_t i = 0, runs = 0;

		while (i < n) {
			size_t m = i ? run_end(a, i, n) : (q->sorted ? q->sorted : run_end(a, 0, n));
			size_t j, k, o = i;

			/* a[i..m) and a[m..e) merged into t[i..e) */
			size_t e = m < n ? run_end(a, m, n) : n;

			runs++;
			for (j = i, k = m; j < m && k < e;)
				t[o++] = a[k].time < a[j].time ? a[k++] : a[j++];
			memcpy(&t[o], &a[j], (m - j) * sizeof(*a));
			o += m - j;
			memcpy(&t[o], &a[k], (e - k) * sizeof(*a));
			i = e;
		}
		/* t holds the merged pass; one run means it is sorted */
		q->q = t;
		q->tmp = a;
		a = q->q;
		t = q->tmp;
		q->sorted = 0;
		if (runs <= 1)
			break;
	}
	q->sorted = n;
}

/* deliver the sorted head with time <= limit */
static int deliver_upto(struct ro_queue *q, uint64_t limit)
{
	size_t i = 0;
	int ret = 0;

	if (q->sorted < q->n)
		sort_queue(q);
	for (; i < q->n && q->q[i].time <= limit; i++) {
		const struct ro_hdr *h = q->q[i].h;

		if (!h)
			continue;
		if (!ret) {
			struct rawfrag_record rec = {
				.type = h->type,
				.misc = h->misc,
				.size = h->size,
				.data = h + 1,
				.offset = h->offset,
				.in_compressed = h->in_compressed,
			};

			ret = q->deliver(q->ctx, &rec, h->priv);
		}
		chunk_put(q, h->chunk);
	}
	q->n -= i;
	q->sorted -= i;
	memmove(q->q, q->q + i, q->n * sizeof(*q->q));
	if (ret)
		q->err = ret;
	return ret;
}

int ro_queue__round(struct ro_queue *q)
{
	int ret;

	if (q->err)
		return q->err;
	/* perf returns early on an empty queue, keeping next_flush as it was */
	if (!q->n)
		return 0;
	/* perf's do_flush() does nothing while the limit is 0 (the first round) */
	ret = q->next_flush ? deliver_upto(q, q->next_flush) : 0;
	if (!ret)
		q->next_flush = q->max_time;
	return ret;
}

int ro_queue__flush(struct ro_queue *q)
{
	if (q->err)
		return q->err;
	return q->n ? deliver_upto(q, UINT64_MAX) : 0;
}

uint64_t ro_queue__peak(const struct ro_queue *q)
{
	return q->peak;
}
