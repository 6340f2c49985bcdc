// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_session__process(): the one read loop over a session's records
 * (see rawfrag/tool.h). Per record: user records are applied (describing
 * ones refresh the session's decoder binding, FINISHED_ROUND releases a round
 * of the ordering queue); kernel records are delivered at once or through the
 * queue; at delivery a sample is parsed once and handed to the tool, other
 * records feed the thread table, the observer, then the tool.
 *
 * Only what someone wants is copied into the queue: samples, COMM/FORK/EXIT
 * (the thread table), and the types the tool or an observer handles; other
 * records queue their time only, which moves the round limits as in perf.
 *
 * Ownership: struct rf_stream (the thread table, the queue, the observer)
 * belongs to the session and lives until rawfrag_session__delete().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/evsel.h"
#include "internal/ordered_events.h"
#include "internal/stream.h"
#include "internal/threads.h"

#define OE_DEFAULT_MAX_BYTES (64ULL << 20)

struct rf_stream {
	struct rf_threads *threads;
	struct oe_queue *oq;
	rawfrag_observer_fn obs;
	void *obs_ctx;
	/* the running rawfrag_session__process() */
	struct rawfrag_session *s;
	struct rawfrag_file *f;
	struct rawfrag_tool *user_tool; /* handed to the handlers */
	struct rawfrag_tool t; /* the caller's fields, zero-extended */
	struct rawfrag_err *err;
	bool swap;
	bool stepping; /* rawfrag_session__next() is under way with user_tool */
	/*
	 * A paused delivery (rawfrag_session__pause()): the input ended with it,
	 * or a FINISHED_ROUND's user handler waits for its round (the record's
	 * pointers stay valid: nothing is read before the round is out).
	 */
	bool at_end, round_user;
	struct rawfrag_record round_rec;
	uint64_t peak, early;
};

void rf_stream__delete(struct rf_stream *st)
{
	if (!st)
		return;
	oe_queue__delete(st->oq);
	rf_threads__delete(st->threads);
	free(st);
}

static struct rf_stream *stream_get(struct rawfrag_session *s)
{
	struct rf_stream **slot = rf_session__stream(s);

	if (!*slot)
		*slot = calloc(1, sizeof(**slot));
	return *slot;
}

bool rawfrag_record__describes(uint32_t type)
{
	return type == RAWFRAG_RECORD_HEADER_ATTR || type == RAWFRAG_RECORD_HEADER_TRACING_DATA ||
	       type == RAWFRAG_RECORD_HEADER_FEATURE || type == RAWFRAG_RECORD_EVENT_UPDATE;
}

static void set_err(struct rawfrag_err *err, int e, const struct rawfrag_record *rec,
		    const char *reason)
{
	err->err = e;
	err->offset = rec ? (int64_t)rec->offset : -1;
	err->rec_type = rec ? rec->type : 0;
	snprintf(err->reason, sizeof(err->reason), "%s", reason);
}

static void __attribute__((noinline)) handler_failed(struct rf_stream *st, int ret)
{
	if (!st->err->err)
		set_err(st->err, ret, NULL, ret == -ENOMEM ? "out of memory" : strerror(-ret));
}

/* a handler failed: keep what it said, else say it here */
static inline int handler_ret(struct rf_stream *st, int ret)
{
	if (__builtin_expect(ret < 0, 0))
		handler_failed(st, ret);
	return ret;
}

static rawfrag_tool_fn handler_of(const struct rawfrag_tool *t, uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM: return t->comm;
	case PERF_RECORD_FORK: return t->fork;
	case PERF_RECORD_EXIT: return t->exit;
	case PERF_RECORD_MMAP: return t->mmap;
	case PERF_RECORD_MMAP2: return t->mmap2;
	case PERF_RECORD_KSYMBOL: return t->ksymbol;
	case PERF_RECORD_LOST: return t->lost;
	case PERF_RECORD_LOST_SAMPLES: return t->lost_samples;
	default: return t->other;
	}
}

/*
 * perf's evlist__parse_sample_timestamp(): the TIME of a sample (its place is
 * fixed: after IDENTIFIER, IP, TID) or of a sample_id_all trailer; 0 when
 * there is none.
 */
static uint64_t record_time(const struct rf_stream *st, const struct rawfrag_evsel *ev,
			    const struct rawfrag_record *rec)
{
	const struct perf_event_attr *a;
	struct rawfrag_sample id;
	uint64_t t;

	if (!ev)
		return 0;
	a = &ev->attr;
	if (!(a->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		uint64_t stype = a->sample_type;
		uint32_t pos = 8 + 8 * (!!(stype & PERF_SAMPLE_IDENTIFIER) +
					!!(stype & PERF_SAMPLE_IP) + !!(stype & PERF_SAMPLE_TID));

		if (rec->size < pos + 8u)
			return 0;
		t = rawfrag__get64((const uint8_t *)rec->data + pos, st->swap);
	} else {
		if (!a->sample_id_all ||
		    rawfrag_sample__parse_id_trailer(&id, a, rec, st->swap, NULL))
			return 0;
		t = id.time;
	}
	return t == UINT64_MAX ? 0 : t;
}

static int sample_error(struct rf_stream *st, struct rawfrag_event *ev, struct rawfrag_err *e)
{
	if (e->err >= 0)
		e->err = -EINVAL;
	if (st->t.sample_error)
		return handler_ret(st, st->t.sample_error(st->user_tool, st->s, ev, e));
	*st->err = *e;
	return e->err;
}

static inline __attribute__((always_inline)) int deliver_sample(struct rf_stream *st,
								struct rawfrag_event *ev)
{
	const struct rawfrag_record *rec = ev->rec;
	struct rawfrag_err e; /* set only on the error paths: it is 272 bytes */
	struct rawfrag_sample smp;

	if (!ev->evsel) {
		set_err(&e, -ENOENT, rec, "sample id matches no event");
		return sample_error(st, ev, &e);
	}
	if (!st->t.no_parse) {
		e.err = 0;
		e.offset = -1;
		e.reason[0] = 0;
		if (rawfrag_sample__parse(&smp, &ev->evsel->attr, rec, st->swap, &e)) {
			if (e.offset < 0)
				e.offset = (int64_t)rec->offset;
			e.rec_type = rec->type;
			return sample_error(st, ev, &e);
		}
		ev->sample = &smp;
		ev->time = smp.time;
	}
	return st->t.sample ? handler_ret(st, st->t.sample(st->user_tool, st->s, ev)) : 0;
}

static int deliver_other(struct rf_stream *st, struct rawfrag_event *ev)
{
	const struct rawfrag_record *rec = ev->rec;
	rawfrag_tool_fn fn = handler_of(&st->t, rec->type);
	struct rawfrag_sample id;
	int ret;

	if (rec->type == PERF_RECORD_COMM || rec->type == PERF_RECORD_FORK) {
		if (!st->threads && !(st->threads = rf_threads__new()))
			return handler_ret(st, -ENOMEM);
		if (rf_threads__event(st->threads, rec, st->swap))
			return handler_ret(st, -ENOMEM);
	}
	if (!fn && !st->obs)
		return 0;
	if (ev->evsel && rawfrag_evsel__attr(ev->evsel)->sample_id_all &&
	    !rawfrag_sample__parse_id_trailer(&id, rawfrag_evsel__attr(ev->evsel), rec, st->swap,
					      NULL)) {
		ev->sample = &id;
		ev->time = id.time;
	}
	if (st->obs) {
		ret = handler_ret(st, st->obs(st->obs_ctx, st->s, ev));
		if (ret)
			return ret;
	}
	return fn ? handler_ret(st, fn(st->user_tool, st->s, ev)) : 0;
}

static inline __attribute__((always_inline)) int deliver(struct rf_stream *st,
							const struct rawfrag_record *rec,
							struct rawfrag_evsel *evsel, uint64_t time)
{
	struct rawfrag_event ev = { .rec = rec, .evsel = evsel, .time = time };

	if (rec->type == PERF_RECORD_SAMPLE)
		return deliver_sample(st, &ev);
	return deliver_other(st, &ev);
}

/* from the queue: priv is the evsel found when the record was queued */
static int oe_deliver(void *ctx, const struct rawfrag_record *rec, void *priv)
{
	return deliver(ctx, rec, priv, 0);
}

/* does the record need its bytes in the queue, or only its time? */
static bool wanted(const struct rf_stream *st, uint32_t type)
{
	if (type == PERF_RECORD_SAMPLE || type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
	    type == PERF_RECORD_EXIT)
		return true;
	return st->obs || handler_of(&st->t, type);
}

/*
 * rawfrag_file__evsel_of() for a sample of a multi-evsel file in host order,
 * read in place (once per queued sample); anything else asks it.
 */
static inline struct rawfrag_evsel *record_evsel(const struct rawfrag_file *f,
						 const struct rawfrag_record *rec)
{
	if (rec->type == PERF_RECORD_SAMPLE && f->nr_evsels > 1 && !f->swap &&
	    !f->id_hash_dirty && f->id_hash && f->id_pos >= 0 &&
	    (uint32_t)f->id_pos < (rec->size - 8u) / 8) {
		uint64_t id;

		memcpy(&id, (const uint8_t *)rec->data + 8 + 8 * f->id_pos, 8);
		if (id) {
			struct rawfrag_evsel *e = rf_find_id(f, id);

			if (e)
				return e;
		}
	}
	return rawfrag_file__evsel_of(f, rec);
}

static int queue_record(struct rf_stream *st, const struct rawfrag_record *rec)
{
	struct rawfrag_evsel *ev = record_evsel(st->f, rec);
	uint64_t t = record_time(st, ev, rec);
	bool keep = wanted(st, rec->type);
	int ret;

	if (!t)
		return keep ? deliver(st, rec, ev, 0) : 0;
	ret = oe_queue__add(st->oq, rec, t, keep, ev);
	return ret == -ENOMEM ? handler_ret(st, ret) : ret;
}

static int user_record(struct rf_stream *st, const struct rawfrag_record *rec)
{
	struct rawfrag_event ev = { .rec = rec };
	int ret = 0;

	if (rawfrag_record__describes(rec->type)) {
		ret = rawfrag_session__refresh(st->s, st->err);
		if (ret)
			return ret;
		if (st->t.describe)
			ret = handler_ret(st, st->t.describe(st->user_tool, st->s, &ev));
	} else if (rec->type == RAWFRAG_RECORD_FINISHED_ROUND && st->oq) {
		ret = handler_ret(st, oe_queue__round(st->oq));
		if (!ret && st->t.user && oe_queue__paused(st->oq)) {
			st->round_rec = *rec;
			st->round_user = true;
			return 0;
		}
	} else if (rec->type == RAWFRAG_RECORD_HEADER_BUILD_ID && st->obs) {
		/* a pipe's build-id table (perf inject -b): maps met later use it */
		ret = handler_ret(st, st->obs(st->obs_ctx, st->s, &ev));
	}
	if (!ret && st->t.user)
		ret = handler_ret(st, st->t.user(st->user_tool, st->s, &ev));
	return ret;
}

/* the caller's tool, zero-extended; unknown non-zero trailing bytes: -EINVAL */
static int take_tool(struct rf_stream *st, struct rawfrag_tool *tool)
{
	size_t sz = tool->sz;

	memset(&st->t, 0, sizeof(st->t));
	if (sz > sizeof(st->t)) {
		for (size_t i = sizeof(st->t); i < sz; i++)
			if (((const char *)tool)[i])
				return -EINVAL;
		sz = sizeof(st->t);
	}
	if (sz < sizeof(size_t))
		return -EINVAL;
	memcpy(&st->t, tool, sz);
	st->user_tool = tool;
	return 0;
}

/*
 * A file whose first attr lacks sample_id_all (perf before 2.6.38) gives no
 * time to its other records: perf reads it in file order. perf decides before a
 * pipe's attrs arrive, so a pipe stays in time order.
 */
static bool file_order_only(const struct rawfrag_file *f)
{
	struct rawfrag_evsel *e;

	if (rawfrag_file__mode(f) == RAWFRAG_MODE_PIPE || !(e = rawfrag_file__evsel(f, 0)))
		return false;
	return !rawfrag_evsel__attr(e)->sample_id_all;
}

static int setup(struct rf_stream *st, struct rawfrag_session *s, struct rawfrag_tool *tool,
		 struct rawfrag_err *err)
{
	uint64_t max;

	if (take_tool(st, tool)) {
		set_err(err, -EINVAL, NULL, "tool: unknown fields set (size mismatch)");
		return -EINVAL;
	}
	st->s = s;
	st->f = rawfrag_session__file(s);
	/*
	 * A directory recording (perf record --threads) has no FINISHED_ROUND:
	 * perf orders it whole in memory, and so do we unless the caller set a
	 * bound; the queue then holds at most the input's records.
	 */
	if (!st->t.ordered_max_bytes)
		st->t.ordered_max_bytes = rawfrag_file__nr_data_files(st->f) > 1 ?
						  UINT64_MAX : OE_DEFAULT_MAX_BYTES;
	st->swap = rawfrag_file__needs_swap(st->f);
	st->err = err;
	st->at_end = st->round_user = false;
	oe_queue__delete(st->oq);
	st->oq = NULL;
	if (st->t.ordered && !file_order_only(st->f)) {
		max = st->t.ordered_max_bytes == UINT64_MAX ? 0 : st->t.ordered_max_bytes;
		st->oq = oe_queue__new(oe_deliver, st, max);
		if (!st->oq) {
			set_err(err, -ENOMEM, NULL, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static inline __attribute__((always_inline)) int one_record(struct rf_stream *st,
							   const struct rawfrag_record *rec)
{
	if (rec->type >= RAWFRAG_RECORD_HEADER_ATTR)
		return user_record(st, rec);
	if (st->oq)
		return queue_record(st, rec);
	return deliver(st, rec, rawfrag_file__evsel_of(st->f, rec), 0);
}

/* everything queued, through any pause a handler asks for */
static int flush_all(struct oe_queue *q)
{
	int ret = oe_queue__flush(q);

	while (!ret && oe_queue__paused(q))
		ret = oe_queue__resume(q);
	return ret;
}

/* the reader's ret (0 end, < 0 error): flush what is queued, or the error */
static int input_end(struct rf_stream *st, int ret)
{
	if (ret < 0) {
		/* a bad sample still queued comes first in the file: its error wins */
		if (st->oq && flush_all(st->oq) < 0 && st->err->err)
			return st->err->err;
		*st->err = *rawfrag_file__error(st->f);
		if (st->err->err >= 0)
			st->err->err = ret;
		return st->err->err;
	}
	return st->oq ? handler_ret(st, oe_queue__flush(st->oq)) : 0;
}

static int read_all(struct rf_stream *st)
{
	struct rawfrag_record rec;
	int ret;

	while ((ret = rawfrag_file__next(st->f, &rec)) > 0) {
		ret = one_record(st, &rec);
		if (ret)
			return ret;
	}
	return input_end(st, ret);
}

static void finish(struct rf_stream *st)
{
	st->stepping = false;
	if (st->oq) {
		st->peak = oe_queue__peak(st->oq);
		st->early = oe_queue__nr_half_flushes(st->oq);
	}
	if (st->early)
		rf_session__log(st->s, RAWFRAG_WARN,
				"%s: the ordering queue passed %llu bytes: flushed early %llu times (time order may differ from perf's)",
				rawfrag_file__path(st->f),
				(unsigned long long)st->t.ordered_max_bytes,
				(unsigned long long)st->early);
}

/* err zeroed, the session's stream state; NULL with err set */
static struct rf_stream *begin(struct rawfrag_session *s, struct rawfrag_tool *tool,
			       struct rawfrag_err *err)
{
	struct rf_stream *st;

	memset(err, 0, sizeof(*err));
	err->offset = -1;
	if (!s || !tool) {
		set_err(err, -EINVAL, NULL, "no session or tool");
		return NULL;
	}
	st = stream_get(s);
	if (!st)
		set_err(err, -ENOMEM, NULL, "out of memory");
	return st;
}

int rawfrag_session__process(struct rawfrag_session *s, struct rawfrag_tool *tool,
			     struct rawfrag_err *err)
{
	struct rawfrag_err local;
	struct rf_stream *st;
	int ret;

	if (!err)
		err = &local;
	st = begin(s, tool, err);
	if (!st)
		return err->err;
	ret = setup(st, s, tool, err);
	if (ret)
		return ret;
	ret = read_all(st);
	finish(st);
	return ret;
}

/* a paused delivery goes on: 1 while records are left, else the step's end */
static int resume(struct rf_stream *st)
{
	int ret = handler_ret(st, oe_queue__resume(st->oq));

	if (!ret && oe_queue__paused(st->oq))
		return 1;
	if (!ret && st->round_user) {
		struct rawfrag_event ev = { .rec = &st->round_rec };

		st->round_user = false;
		ret = handler_ret(st, st->t.user(st->user_tool, st->s, &ev));
	}
	oe_queue__request_pause(st->oq, false);
	if (!ret && !st->at_end)
		return 1;
	finish(st);
	return ret;
}

int rawfrag_session__pause(struct rawfrag_session *s)
{
	struct rf_stream *st = s ? *rf_session__stream(s) : NULL;

	if (!st || !st->stepping)
		return -EINVAL;
	if (st->oq)
		oe_queue__request_pause(st->oq, true);
	return 0;
}

int rawfrag_session__next(struct rawfrag_session *s, struct rawfrag_tool *tool,
			  struct rawfrag_err *err)
{
	struct rawfrag_err local;
	struct rawfrag_record rec;
	struct rf_stream *st;
	int ret;

	if (!err)
		err = &local;
	st = s ? *rf_session__stream(s) : NULL;
	if (st && st->stepping && st->user_tool == tool) {
		/* per record: no 272-byte clear, only what "no error yet" needs */
		err->err = 0;
		err->offset = -1;
		if (st->oq && oe_queue__paused(st->oq)) {
			st->err = err;
			return resume(st);
		}
	} else {
		st = begin(s, tool, err);
		if (!st)
			return err->err;
		ret = setup(st, s, tool, err);
		if (ret)
			return ret;
		st->stepping = true;
	}
	st->err = err;
	ret = rawfrag_file__next(st->f, &rec);
	if (ret > 0) {
		ret = one_record(st, &rec);
		if (!ret) {
			/* a request made outside a queue delivery has nothing to stop */
			if (st->oq && !oe_queue__paused(st->oq))
				oe_queue__request_pause(st->oq, false);
			return 1;
		}
	} else {
		ret = input_end(st, ret);
		if (!ret && st->oq && oe_queue__paused(st->oq)) {
			st->at_end = true;
			return 1;
		}
	}
	finish(st);
	return ret;
}

int rawfrag_session__rewind(struct rawfrag_session *s)
{
	struct rf_stream *st = *rf_session__stream(s);
	int ret = rawfrag_file__rewind(rawfrag_session__file(s));

	if (ret)
		return ret;
	if (st) {
		rf_threads__delete(st->threads);
		st->threads = NULL;
		st->stepping = false;
		if (st->oq)
			oe_queue__reset(st->oq);
	}
	return 0;
}

/* the session's thread table, made on first use; NULL: no memory */
static struct rf_threads *threads_of(struct rawfrag_session *s)
{
	struct rf_stream *st = stream_get(s);

	if (st && !st->threads)
		st->threads = rf_threads__new();
	return st ? st->threads : NULL;
}

int rawfrag_session__thread_pid(struct rawfrag_session *s, int32_t pid, int32_t tid,
				int32_t *out)
{
	struct rf_threads *t = threads_of(s);

	return t ? rf_threads__pid(t, pid, tid, out) : -ENOMEM;
}

const char *rawfrag_session__thread_comm(struct rawfrag_session *s, int32_t pid, int32_t tid,
					 int *len)
{
	struct rf_stream *st = s ? *rf_session__stream(s) : NULL;
	struct rf_threads *t;

	if (st && st->threads) /* per sample: no calloc check */
		return rf_threads__comm(st->threads, pid, tid, len);
	t = threads_of(s);
	return t ? rf_threads__comm(t, pid, tid, len) : NULL;
}

void rawfrag_session__set_observer(struct rawfrag_session *s, rawfrag_observer_fn fn, void *ctx)
{
	struct rf_stream *st = stream_get(s);

	if (!st)
		return;
	st->obs = fn;
	st->obs_ctx = ctx;
}

int rawfrag_session__process_stats(const struct rawfrag_session *s,
				   struct rawfrag_process_stats *out)
{
	const struct rf_stream *st = *rf_session__stream((struct rawfrag_session *)s);
	struct rawfrag_process_stats v = { .sz = sizeof(v) };
	size_t sz;

	if (!out || out->sz < sizeof(size_t))
		return -EINVAL;
	if (st) {
		v.queue_peak = st->peak;
		v.queue_early_flushes = st->early;
	}
	sz = out->sz < sizeof(v) ? out->sz : sizeof(v);
	memcpy((char *)out + sizeof(size_t), (char *)&v + sizeof(size_t), sz - sizeof(size_t));
	return 0;
}
