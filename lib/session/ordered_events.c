// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf's ordered-events queue for rawfrag_session__process() (see
 * internal/ordered_events.h).
 *
 * perf keeps a sorted list and inserts each record from the last insertion
 * point. Here records are appended to an array; at a round marker that array
 * is sorted (natural merge sort: each CPU's records of a round are nearly one
 * run) and merged with the sorted remainder of earlier rounds while the times
 * are within the limit; what is left becomes the new remainder. The order is
 * perf's: by time, ties in arrival order. Merges only ever join neighbouring
 * runs (and the remainder arrived before the new records), so taking the left
 * one on a tie keeps arrival order without storing it.
 *
 * Why not a k-way merge of the rounds' runs instead of sorting: on the bench
 * files the runs of two CPUs take turns every two records or so, with three
 * or four runs live at a round; a heap step per switch cost more than the
 * sort and the two-way merge it saved (measured: +1% instructions).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/ordered_events.h"

struct oe_queue *oe_queue__new(oe_deliver_fn deliver, void *ctx, uint64_t max_bytes)
{
	struct oe_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->deliver = deliver;
	q->ctx = ctx;
	q->max_bytes = max_bytes ? max_bytes : UINT64_MAX; /* no bound: one never passed */
	return q;
}

static uint64_t held_bytes(const struct oe_queue *q)
{
	return q->arena_bytes + 3 * sizeof(struct oe_ent) * (q->rem_end - q->rem_start + q->nb);
}

static void chunk_put(struct oe_queue *q, struct oe_chunk *c)
{
	if (--c->live)
		return;
	q->arena_bytes -= c->used;
	if (c == q->cur) {
		c->used = 0; /* nothing of it is held: start over */
		return;
	}
	if (q->nr_spare < OE_SPARE_CHUNKS) {
		c->next = q->spare;
		q->spare = c;
		q->nr_spare++;
		return;
	}
	free(c);
}

void oe_queue__reset(struct oe_queue *q)
{
	if (oe_queued(q) > q->peak)
		q->peak = oe_queued(q);
	for (size_t i = q->rem_start; i < q->rem_end; i++)
		if (q->rem[i].h)
			chunk_put(q, q->rem[i].h->chunk);
	for (size_t i = 0; i < q->nb; i++)
		if (q->b[i].h)
			chunk_put(q, q->b[i].h->chunk);
	q->rem_start = q->rem_end = q->nb = 0;
	q->b_last = 0;
	q->b_desc = 0;
	q->max_time = q->next_flush = 0;
	q->err = 0;
	q->pause_req = q->paused = false;
}

void oe_queue__delete(struct oe_queue *q)
{
	if (!q)
		return;
	oe_queue__reset(q);
	free(q->cur);
	while (q->spare) {
		struct oe_chunk *c = q->spare;

		q->spare = c->next;
		free(c);
	}
	free(q->rem);
	free(q->b);
	free(q->tmp);
	free(q);
}

/* room for size bytes (8-aligned) in the current chunk */
static uint8_t *arena_alloc(struct oe_queue *q, uint32_t size, struct oe_chunk **chunk)
{
	struct oe_chunk *c = q->cur;

	size = (size + 7u) & ~7u;
	if (c && c->used + size > OE_CHUNK_SIZE) {
		q->cur = NULL; /* full: freed by its last chunk_put() */
		c = NULL;
	}
	if (!c) {
		if (q->spare) {
			c = q->spare;
			q->spare = c->next;
			q->nr_spare--;
		} else {
			c = malloc(sizeof(*c) + OE_CHUNK_SIZE);
			if (!c)
				return NULL;
		}
		c->used = c->live = 0;
		q->cur = c;
	}
	*chunk = c;
	c->live++;
	c->used += size;
	q->arena_bytes += size;
	return c->data + c->used - size;
}

static int grow(struct oe_queue *q)
{
	size_t cap = q->cap ? 2 * q->cap : 4096;
	struct oe_ent **arr[] = { &q->rem, &q->b, &q->tmp };

	for (int i = 0; i < 3; i++) {
		/* + 1: room for deliver_merge()'s sentinel */
		struct oe_ent *n = realloc(*arr[i], (cap + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM; /* the old arrays stay valid at the old size */
		*arr[i] = n;
	}
	q->cap = cap;
	return 0;
}

static int flush_half(struct oe_queue *q);

/* oe_queue__add() but for its common case */
int oe_queue__add_slow(struct oe_queue *q, const struct rawfrag_record *rec, uint64_t time,
		       bool keep, void *priv)
{
	struct oe_ent *e;

	size_t n = oe_queued(q);

	if (q->err)
		return q->err;
	if (n == q->cap && grow(q))
		return -ENOMEM;
	e = &q->b[q->nb];
	e->time = time;
	e->h = NULL;
	if (keep) {
		struct oe_chunk *c;
		struct oe_hdr *h = (void *)arena_alloc(q, sizeof(*h) + rec->size, &c);

		if (!h)
			return -ENOMEM;
		h->chunk = c;
		h->priv = priv;
		h->rec = *rec;
		h->rec.data = h + 1;
		memcpy(h + 1, rec->data, rec->size);
		e->h = h;
	}
	/* perf: an insertion at the tail (or into an empty queue) sets max_timestamp */
	if (!n || time >= q->max_time)
		q->max_time = time;
	if (time < q->b_last && !q->b_desc++)
		q->b_first_desc = q->nb;
	q->b_last = time;
	q->nb++;
	if (held_bytes(q) > q->max_bytes)
		return flush_half(q);
	return 0;
}

/* end of the ascending run starting at i */
static size_t run_end(const struct oe_ent *a, size_t i, size_t n)
{
	while (++i < n && a[i].time >= a[i - 1].time)
		;
	return i;
}

/* a[i..m) and a[m..e) (both sorted) into t[i..e); ties from the left */
static void merge(const struct oe_ent *a, size_t i, size_t m, size_t e, struct oe_ent *t)
{
	size_t j = i, k = m, o = i;

	while (j < m && k < e)
		t[o++] = a[k].time < a[j].time ? a[k++] : a[j++];
	memcpy(&t[o], &a[j], (m - j) * sizeof(*a));
	o += m - j;
	memcpy(&t[o], &a[k], (e - k) * sizeof(*a));
}

/* stable natural merge sort of b[0..nb), tmp as the other buffer */
static void sort_batch(struct oe_queue *q)
{
	size_t n = q->nb, desc = q->b_desc;
	struct oe_ent *t;

	if (!desc)
		return; /* one run: sorted where it is */
	q->b_desc = 0;
	if (desc == 1) {
		/* two runs, the add told where the second starts */
		merge(q->b, 0, q->b_first_desc, n, q->tmp);
		t = q->b;
		q->b = q->tmp;
		q->tmp = t;
		return;
	}
	for (;;) {
		size_t i = 0, runs = 0;

		while (i < n) {
			size_t m = run_end(q->b, i, n);
			size_t e = m < n ? run_end(q->b, m, n) : n;

			runs++;
			if (runs == 1 && e == n && m == n)
				return; /* one run: sorted where it is */
			merge(q->b, i, m, e, q->tmp);
			i = e;
		}
		t = q->b;
		q->b = q->tmp;
		q->tmp = t;
		if (runs <= 1)
			return;
	}
}

static int deliver_one(struct oe_queue *q, const struct oe_ent *e, int ret)
{
	const struct oe_hdr *h = e->h;

	if (!h)
		return ret;
	if (!ret)
		ret = q->deliver(q->ctx, &h->rec, h->priv);
	chunk_put(q, h->chunk);
	return ret;
}



/*
 * A queued record is read back long after it was copied in when the queue
 * holds megabytes: then ask for the one PREFETCH_AHEAD places on while the
 * current one is delivered, or each delivery starts with a cache miss. A
 * queue under PREFETCH_MIN records is still in the cache: no prefetch.
 */
#define PREFETCH_AHEAD 8
#define PREFETCH_MIN 4096

static inline void prefetch_ent(const struct oe_ent *e)
{
	const char *h = (const char *)e->h;

	if (h) {
		__builtin_prefetch(h);
		__builtin_prefetch(h + 64);
		__builtin_prefetch(h + 128);
	}
}

/*
 * Deliver, sorted, what is queued with time <= limit: the new records are
 * sorted, then merged with what was left (which arrived first, so it wins
 * ties); what stays becomes the new remainder.
 */
static inline __attribute__((always_inline)) int deliver_merge(struct oe_queue *q, uint64_t limit,
							       size_t *pi, size_t *pj, bool pf)
{
	struct oe_ent *rem = q->rem, *b = q->b;
	size_t i = *pi, j = 0, re = q->rem_end, nb = q->nb;
	int ret = 0;

	/*
	 * A sentinel after each array (no record has time -1) makes the choice
	 * one comparison; it is never delivered as the limit stays below it.
	 */
	rem[re].time = UINT64_MAX;
	b[nb].time = UINT64_MAX;
	if (limit == UINT64_MAX)
		limit--;
	for (;;) {
		bool from_rem = rem[i].time <= b[j].time;
		const struct oe_ent *e = from_rem ? &rem[i] : &b[j];

		if (e->time > limit)
			break;
		if (pf && i + PREFETCH_AHEAD < re)
			prefetch_ent(&rem[i + PREFETCH_AHEAD]);
		if (pf && j + PREFETCH_AHEAD < nb)
			prefetch_ent(&b[j + PREFETCH_AHEAD]);
		i += from_rem;
		j += !from_rem;
		ret = deliver_one(q, e, ret);
		if (__builtin_expect(q->pause_req, 0) && !ret) {
			q->pause_req = false;
			q->paused = true;
			q->resume_limit = limit;
			break;
		}
	}
	*pi = i;
	*pj = j;
	return ret;
}

static int deliver_upto(struct oe_queue *q, uint64_t limit)
{
	size_t i = q->rem_start, j = 0, re = q->rem_end, nb = q->nb;
	int ret;

	/* the queue only shrinks here: its peak is taken before, not per add */
	if (oe_queued(q) > q->peak)
		q->peak = oe_queued(q);
	sort_batch(q);
	if (oe_queued(q) >= PREFETCH_MIN)
		ret = deliver_merge(q, limit, &i, &j, true);
	else
		ret = deliver_merge(q, limit, &i, &j, false);
	if (j == nb) {
		q->rem_start = i;
	} else if (i == re) {
		struct oe_ent *t = q->rem;

		q->rem = q->b;
		q->b = t;
		q->rem_start = j;
		q->rem_end = nb;
	} else {
		struct oe_ent *t = q->rem;

		/* rem[i..re) then b[j..nb) side by side in tmp, merged into rem */
		memcpy(q->tmp, &q->rem[i], (re - i) * sizeof(*t));
		memcpy(q->tmp + (re - i), &q->b[j], (nb - j) * sizeof(*t));
		merge(q->tmp, 0, re - i, re - i + nb - j, t);
		q->rem_start = 0;
		q->rem_end = re - i + nb - j;
	}
	q->nb = 0;
	q->b_last = 0;
	if (q->rem_start == q->rem_end)
		q->rem_start = q->rem_end = 0;
	if (ret)
		q->err = ret;
	return ret;
}

/*
 * perf's OE_FLUSH__HALF: over the bound, deliver what lies in the older half
 * of the queued time span (at least the oldest time, so it always shrinks);
 * the next round's limit becomes that half point, as in perf.
 */
static int flush_half(struct oe_queue *q)
{
	uint64_t first, last, limit;
	int ret;

	sort_batch(q);
	first = q->nb ? q->b[0].time : UINT64_MAX;
	last = q->nb ? q->b[q->nb - 1].time : 0;
	if (q->rem_end > q->rem_start) {
		if (q->rem[q->rem_start].time < first)
			first = q->rem[q->rem_start].time;
		if (q->rem[q->rem_end - 1].time > last)
			last = q->rem[q->rem_end - 1].time;
	}
	limit = first + (last - first) / 2;
	q->nr_half++;
	ret = deliver_upto(q, limit);
	if (!ret)
		q->next_flush = limit;
	return ret;
}

int oe_queue__round(struct oe_queue *q)
{
	int ret;

	if (q->err)
		return q->err;
	/* perf returns early on an empty queue, keeping next_flush as it was */
	if (!oe_queued(q))
		return 0;
	/* perf's do_flush() does nothing while the limit is 0 (the first round) */
	ret = q->next_flush ? deliver_upto(q, q->next_flush) : 0;
	if (!ret)
		q->next_flush = q->max_time;
	return ret;
}

int oe_queue__flush(struct oe_queue *q)
{
	if (q->err)
		return q->err;
	return oe_queued(q) ? deliver_upto(q, UINT64_MAX) : 0;
}

void oe_queue__request_pause(struct oe_queue *q, bool on)
{
	q->pause_req = on;
}

bool oe_queue__paused(const struct oe_queue *q)
{
	return q->paused;
}

/*
 * Nothing was queued since the pause (the caller resumes first), so going on
 * with the same limit gives what the whole delivery would have given.
 */
int oe_queue__resume(struct oe_queue *q)
{
	if (!q->paused)
		return 0;
	q->paused = false;
	if (q->err)
		return q->err;
	return deliver_upto(q, q->resume_limit);
}

uint64_t oe_queue__peak(const struct oe_queue *q)
{
	return oe_queued(q) > q->peak ? oe_queued(q) : q->peak;
}

uint64_t oe_queue__nr_half_flushes(const struct oe_queue *q)
{
	return q->nr_half;
}
