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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/ordered_events.h"

#define OE_CHUNK_SIZE (1u << 20) /* > the largest record (64 KiB) */
/*
 * File bytes the pinned records of one chunk may span: the floor is kept per
 * chunk, and the reader keeps the pages from there on (big records, call
 * chains of a KiB, would otherwise let one chunk hold a whole window).
 */
#define OE_PIN_SPAN (1u << 20)
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
	struct oe_chunk *lprev, *lnext; /* the chunks holding records */
	uint64_t first_pin; /* offset of the first pinned record carved here (or UINT64_MAX) */
	uint32_t used, live;
	uint8_t data[];
};

/*
 * What the bound counts per kept record: the size of the header that stood in
 * front of each copy when every record was copied, so the early flushes come
 * where they came then.
 */
#define OE_ACCT_HDR 40u

/*
 * In the arena; the record's bytes follow it (a copy), or data points into the
 * reader's mapping (pinned) until oe_queue__release() copies them out.
 */
struct oe_hdr {
	struct oe_chunk *chunk;
	struct oe_chunk *dchunk; /* the chunk of a copy made at a release, or NULL */
	const void *data;
	void *priv;
	uint64_t offset;
	uint32_t type, acct;
	uint16_t size, misc;
	bool in_compressed, pinned;
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
	struct oe_chunk *live; /* list of the chunks holding records */
	int nr_spare;
};

static size_t queued(const struct oe_queue *q)
{
	return q->rem_end - q->rem_start + q->nb;
}

struct oe_queue *oe_queue__new(oe_deliver_fn deliver, void *ctx, uint64_t max_bytes)
{
	struct oe_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->deliver = deliver;
	q->ctx = ctx;
	q->max_bytes = max_bytes;
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
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else
		q->live = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
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

/* a kept record leaves the queue (delivered or dropped) */
static inline void hdr_put(struct oe_queue *q, struct oe_hdr *h)
{
	q->arena_bytes -= h->acct;
	if (h->dchunk)
		chunk_put(q, h->dchunk);
	chunk_put(q, h->chunk);
}

void oe_queue__reset(struct oe_queue *q)
{
	for (size_t i = q->rem_start; i < q->rem_end; i++)
		if (q->rem[i].h)
			hdr_put(q, q->rem[i].h);
	for (size_t i = 0; i < q->nb; i++)
		if (q->b[i].h)
			hdr_put(q, q->b[i].h);
	q->rem_start = q->rem_end = q->nb = 0;
	q->max_time = q->next_flush = 0;
	q->err = 0;
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
	if (!c->live) {
		/* holds records from now on (again) */
		c->first_pin = UINT64_MAX;
		c->lprev = NULL;
		c->lnext = q->live;
		if (q->live)
			q->live->lprev = c;
		q->live = c;
	}
	*chunk = c;
	c->live++;
	c->used += size;
	return c->data + c->used - size;
}

static int grow(struct oe_queue *q)
{
	size_t cap = q->cap ? 2 * q->cap : 4096;
	struct oe_ent **arr[] = { &q->rem, &q->b, &q->tmp };

	for (int i = 0; i < 3; i++) {
		struct oe_ent *n = realloc(*arr[i], cap * sizeof(*n));

		if (!n)
			return -ENOMEM; /* the old arrays stay valid at the old size */
		*arr[i] = n;
	}
	q->cap = cap;
	return 0;
}

static int flush_half(struct oe_queue *q);


/* the header, and the record's bytes: pinned where they are, or copied behind it */
static struct oe_hdr *keep_record(struct oe_queue *q, const struct rawfrag_record *rec, bool pin)
{
	struct oe_chunk *c = q->cur;
	struct oe_hdr *h;

	if (pin && c && c->live && c->first_pin != UINT64_MAX &&
	    rec->offset - c->first_pin > OE_PIN_SPAN)
		q->cur = NULL; /* as when full: freed by its last chunk_put() */
	h = (void *)arena_alloc(q, sizeof(*h) + (pin ? 0 : rec->size), &c);
	if (!h)
		return NULL;
	h->chunk = c;
	h->dchunk = NULL;
	h->offset = rec->offset;
	h->type = rec->type;
	h->size = rec->size;
	h->misc = rec->misc;
	h->in_compressed = rec->in_compressed;
	h->acct = (OE_ACCT_HDR + rec->size + 7u) & ~7u;
	h->pinned = pin;
	h->data = pin ? rec->data : memcpy(h + 1, rec->data, rec->size);
	if (pin && c->first_pin == UINT64_MAX)
		c->first_pin = rec->offset;
	q->arena_bytes += h->acct;
	return h;
}

/*
 * Records are carved in file order, so a chunk's first pinned record is at or
 * below all it holds: the lowest of those over the chunks still holding
 * records bounds what is pinned (a little low: delivered records keep their
 * chunk's bound until it empties).
 */
uint64_t oe_queue__floor(struct oe_queue *q)
{
	uint64_t low = UINT64_MAX;

	for (const struct oe_chunk *c = q->live; c; c = c->lnext)
		if (c->first_pin < low)
			low = c->first_pin;
	return low;
}

static void unpin(struct oe_queue *q, struct oe_hdr *h)
{
	struct oe_chunk *c;
	void *p;

	if (!h || !h->pinned)
		return;
	h->pinned = false;
	p = arena_alloc(q, h->size, &c);
	if (!p) {
		/* never delivered: the error stops every delivery from now on */
		q->err = -ENOMEM;
		h->data = NULL;
		return;
	}
	h->data = memcpy(p, h->data, h->size);
	h->dchunk = c;
}

/* walks everything queued: once per window of the reader */
void oe_queue__release(struct oe_queue *q)
{
	for (size_t i = q->rem_start; i < q->rem_end; i++)
		unpin(q, q->rem[i].h);
	for (size_t i = 0; i < q->nb; i++)
		unpin(q, q->b[i].h);
	for (struct oe_chunk *c = q->live; c; c = c->lnext)
		c->first_pin = UINT64_MAX;
}

int oe_queue__add(struct oe_queue *q, const struct rawfrag_record *rec, uint64_t time,
		  bool keep, bool pin, void *priv)
{
	struct oe_ent *e;

	size_t n = queued(q);

	if (q->err)
		return q->err;
	if (n == q->cap && grow(q))
		return -ENOMEM;
	e = &q->b[q->nb];
	e->time = time;
	e->h = NULL;
	if (keep) {
		struct oe_hdr *h = keep_record(q, rec, pin);

		if (!h)
			return -ENOMEM;
		h->priv = priv;
		e->h = h;
	}
	/* perf: an insertion at the tail (or into an empty queue) sets max_timestamp */
	if (!n || time >= q->max_time)
		q->max_time = time;
	q->nb++;
	if (n >= q->peak)
		q->peak = n + 1;
	if (q->max_bytes && held_bytes(q) > q->max_bytes)
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
	size_t n = q->nb;

	for (;;) {
		size_t i = 0, runs = 0;
		struct oe_ent *t;

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
	struct oe_hdr *h = e->h;

	if (!h)
		return ret;
	if (!ret) {
		struct rawfrag_record rec = {
			.type = h->type,
			.misc = h->misc,
			.size = h->size,
			.data = h->data,
			.offset = h->offset,
			.in_compressed = h->in_compressed,
		};

		ret = q->deliver(q->ctx, &rec, h->priv);
	}
	hdr_put(q, h);
	return ret;
}



/*
 * A queued record is read back long after it was queued (a busy file's
 * queue holds megabytes): ask for the one PREFETCH_AHEAD places on while the
 * current one is delivered, or each delivery starts with a cache miss.
 */
#define PREFETCH_AHEAD 8

static inline void prefetch_hdr(const struct oe_ent *e)
{
	if (e->h)
		__builtin_prefetch(e->h);
}

/* the record's bytes, its header asked for PREFETCH_AHEAD / 2 places earlier */
static inline void prefetch_data(const struct oe_ent *e)
{
	const char *d = e->h ? (const char *)e->h->data : NULL;

	if (d) {
		__builtin_prefetch(d);
		__builtin_prefetch(d + 64);
		__builtin_prefetch(d + 128);
	}
}

/*
 * Deliver, sorted, what is queued with time <= limit: the new records are
 * sorted, then merged with what was left (which arrived first, so it wins
 * ties); what stays becomes the new remainder.
 */
static int deliver_upto(struct oe_queue *q, uint64_t limit)
{
	size_t i = q->rem_start, j = 0, re = q->rem_end, nb = q->nb;
	int ret = q->err;

	sort_batch(q);
	for (;;) {
		bool from_rem = i < re && (j >= nb || q->rem[i].time <= q->b[j].time);
		const struct oe_ent *e = from_rem ? &q->rem[i] : j < nb ? &q->b[j] : NULL;

		if (!e || e->time > limit)
			break;
		if (i + PREFETCH_AHEAD < re)
			prefetch_hdr(&q->rem[i + PREFETCH_AHEAD]);
		if (i + PREFETCH_AHEAD / 2 < re)
			prefetch_data(&q->rem[i + PREFETCH_AHEAD / 2]);
		if (j + PREFETCH_AHEAD < nb)
			prefetch_hdr(&q->b[j + PREFETCH_AHEAD]);
		if (j + PREFETCH_AHEAD / 2 < nb)
			prefetch_data(&q->b[j + PREFETCH_AHEAD / 2]);
		ret = deliver_one(q, e, ret);
		if (from_rem)
			i++;
		else
			j++;
	}
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
	if (!queued(q))
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
	return queued(q) ? deliver_upto(q, UINT64_MAX) : 0;
}

uint64_t oe_queue__peak(const struct oe_queue *q)
{
	return q->peak;
}

uint64_t oe_queue__nr_half_flushes(const struct oe_queue *q)
{
	return q->nr_half;
}
