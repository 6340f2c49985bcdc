// SPDX-License-Identifier: GPL-2.0
/* Reader.stats() and Reader.check(): whole-input passes, as report --stats and check. */
#include "pyrawfrag.h"

#include <errno.h>

#include <rawfrag/tool.h>

static int dict_set_u64(PyObject *d, const char *k, uint64_t v)
{
	PyObject *o = PyLong_FromUnsignedLongLong(v);
	int ret = o ? PyDict_SetItemString(d, k, o) : -1;

	Py_XDECREF(o);
	return ret;
}

/* d[name] (a new dict when absent), borrowed */
static PyObject *sub_dict(PyObject *d, const char *name)
{
	PyObject *s = PyDict_GetItemString(d, name);

	if (s)
		return s;
	s = PyDict_New();
	if (!s || PyDict_SetItemString(d, name, s)) {
		Py_XDECREF(s);
		return NULL;
	}
	Py_DECREF(s);
	return s;
}

static const char *ev_name(struct rawfrag_file *f, int idx)
{
	struct rawfrag_evsel *ev = idx >= 0 ? rawfrag_file__evsel(f, idx) : NULL;
	const char *n = ev ? rawfrag_evsel__name(ev) : NULL;

	return n ? n : "(unknown id)";
}

struct walk {
	struct rawfrag_tool tool; /* first: the handlers get it */
	int (*fn)(void *ctx, const struct rawfrag_record *rec);
	void *ctx;
	uint64_t n;
};

/* every record, of any type, in file order; a Python error stops the pass */
static int walk_one(struct rawfrag_tool *tool, struct rawfrag_session *s,
		    const struct rawfrag_event *ev)
{
	struct walk *w = (struct walk *)tool;

	if (w->fn(w->ctx, ev->rec))
		return -ECANCELED;
	if (!(++w->n & 0xffff) && PyErr_CheckSignals())
		return -ECANCELED;
	return 0;
}

static int walk_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		    const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return walk_one(tool, s, ev);
}

/*
 * Every record of the pass through the session (which applies the describing
 * ones), each handed to fn. 0 at the end, -1 with an exception.
 */
static int walk(PyObject *self, struct rawfrag_file *f, struct rawfrag_session *s,
		int (*fn)(void *ctx, const struct rawfrag_record *rec), void *ctx)
{
	struct walk w = {
		.tool = { .sz = sizeof(w.tool), .sample = walk_one, .sample_error = walk_bad,
			  .comm = walk_one, .fork = walk_one, .exit = walk_one,
			  .mmap = walk_one, .mmap2 = walk_one, .ksymbol = walk_one,
			  .lost = walk_one, .lost_samples = walk_one, .other = walk_one,
			  .user = walk_one, .no_parse = true },
		.fn = fn,
		.ctx = ctx,
	};
	struct rawfrag_err err;

	if (rawfrag_session__process(s, &w.tool, &err) >= 0)
		return 0;
	if (!PyErr_Occurred())
		rfpy_raise(rfpy_reader_name(self), &err);
	return -1;
}

struct stats_ctx {
	struct rawfrag_file *f;
	bool swap;
	uint64_t *samples, *lost;
	int nr;
};

static int stats_rec(void *ctx, const struct rawfrag_record *rec)
{
	struct stats_ctx *c = ctx;
	struct rawfrag_evsel *ev;
	int idx;

	if (rec->type != PERF_RECORD_SAMPLE && rec->type != PERF_RECORD_LOST_SAMPLES)
		return 0;
	ev = rawfrag_file__evsel_of(c->f, rec);
	idx = ev ? rawfrag_evsel__idx(ev) : -1;
	if (idx < 0)
		return 0;
	if (idx >= c->nr) {
		int n = rawfrag_file__nr_evsels(c->f);
		uint64_t *s = PyMem_Realloc(c->samples, n * sizeof(*s));
		uint64_t *l = s ? PyMem_Realloc(c->lost, n * sizeof(*l)) : NULL;

		if (s)
			c->samples = s;
		if (!s || !l) {
			PyErr_NoMemory();
			return -1;
		}
		c->lost = l;
		for (int i = c->nr; i < n; i++)
			c->samples[i] = c->lost[i] = 0;
		c->nr = n;
	}
	if (rec->type == PERF_RECORD_SAMPLE)
		c->samples[idx]++;
	else if (rec->size >= 16)
		c->lost[idx] += rawfrag__get64((const uint8_t *)rec->data + 8, c->swap);
	return 0;
}

static PyObject *stats_dict(struct stats_ctx *c)
{
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(c->f);
	PyObject *d = PyDict_New(), *recs = d ? sub_dict(d, "records") : NULL;
	PyObject *evs = recs ? sub_dict(d, "events") : NULL;
	uint64_t total = fs->nr_other_records;
	bool ok = evs;

	for (int t = 0; ok && t < RAWFRAG_RECORD_USER_MAX; t++) {
		uint64_t n = rawfrag_file__nr_records(c->f, t);

		total += n;
		if (n)
			ok = !dict_set_u64(recs, rawfrag_record_type__perf_name(t), n);
	}
	if (ok && fs->nr_other_records)
		ok = !dict_set_u64(recs, "UNKNOWN", fs->nr_other_records);
	ok = ok && !dict_set_u64(d, "total", total) && !dict_set_u64(d, "lost", fs->nr_lost) &&
	     !dict_set_u64(d, "lost_samples", fs->nr_lost_samples) &&
	     !dict_set_u64(d, "skipped", fs->nr_skipped);
	for (int i = 0; ok && i < c->nr; i++) {
		PyObject *e;

		if (!c->samples[i] && !c->lost[i])
			continue;
		e = sub_dict(evs, ev_name(c->f, i));
		ok = e && !dict_set_u64(e, "samples", c->samples[i]) &&
		     !dict_set_u64(e, "lost_samples", c->lost[i]);
	}
	if (!ok)
		Py_CLEAR(d);
	return d;
}

PyObject *rfpy_reader_stats(PyObject *self, PyObject *unused)
{
	struct rawfrag_session *s;
	struct stats_ctx c = { 0 };
	PyObject *d = NULL;
	bool own;

	if (rfpy_reader_pass(self, &c.f, &s, &own))
		return NULL;
	c.swap = rawfrag_file__needs_swap(c.f);
	if (!walk(self, c.f, s, stats_rec, &c))
		d = stats_dict(&c);
	PyMem_Free(c.samples);
	PyMem_Free(c.lost);
	if (own) {
		rawfrag_session__delete(s);
		rawfrag_file__close(c.f);
	}
	return d;
}

/* ---- check() ---- */

struct check_ctx {
	struct rawfrag_checker *chk;
};

static int check_rec(void *ctx, const struct rawfrag_record *rec)
{
	struct check_ctx *c = ctx;

	if (rawfrag_checker__record(c->chk, rec, NULL) < 0) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static PyObject *kinds_dict(const struct rawfrag_check_evstats *st)
{
	PyObject *k = PyDict_New();

	for (int i = 0; k && i < st->nr_kinds; i++)
		if (dict_set_u64(k, st->kinds[i].kind, st->kinds[i].count))
			Py_CLEAR(k);
	return k;
}

static int event_row(PyObject *evs, struct rawfrag_session *s, int idx,
		     const struct rawfrag_check_evstats *st)
{
	struct rawfrag_file *f = rawfrag_session__file(s);
	const struct rawfrag_decoder *d =
		idx >= 0 ? rawfrag_session__decoder(s, rawfrag_file__evsel(f, idx)) : NULL;
	PyObject *row = Py_BuildValue(
		"{s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:N}", "producer",
		d ? rawfrag_decoder__name(d) : "-",
		"samples", st->samples, "raw_samples", st->raw_samples, "raw_bytes",
		st->raw_bytes, "pad_zero", st->pad_zero, "pad_stale", st->pad_stale,
		"pad_unknown", st->pad_unknown, "empty", st->empty, "errors", st->errors,
		"warnings", st->warnings, "kinds", kinds_dict(st));
	int ret = row ? PyDict_SetItemString(evs, ev_name(f, idx), row) : -1;

	Py_XDECREF(row);
	return ret;
}

static PyObject *violation_list(struct rawfrag_session *s, struct rawfrag_checker *chk)
{
	int n = rawfrag_checker__nr_violations(chk);
	PyObject *l = PyList_New(n);

	for (int i = 0; l && i < n; i++) {
		const struct rawfrag_violation *v = rawfrag_checker__violation(chk, i);
		PyObject *o = rfpy_violation(v), *x;

		x = o ? PyLong_FromUnsignedLongLong(v->rec_offset) : NULL;
		if (!x || PyDict_SetItemString(o, "offset", x)) {
			Py_XDECREF(x);
			Py_XDECREF(o);
			Py_CLEAR(l);
			break;
		}
		Py_DECREF(x);
		x = PyUnicode_FromString(ev_name(rawfrag_session__file(s), v->evsel_idx));
		if (!x || PyDict_SetItemString(o, "event", x)) {
			Py_XDECREF(x);
			Py_DECREF(o);
			Py_CLEAR(l);
			break;
		}
		Py_DECREF(x);
		PyList_SET_ITEM(l, i, o);
	}
	return l;
}

/* check exits 2 on a sample that does not parse (unless --force): so do we */
static int unparsable(PyObject *self, struct rawfrag_file *f, struct rawfrag_checker *chk)
{
	uint64_t count = 0;

	for (int i = -1; i < rawfrag_file__nr_evsels(f); i++) {
		const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(chk, i);

		for (int k = 0; st && k < st->nr_kinds; k++)
			if (!strcmp(st->kinds[k].kind, "sample_parse"))
				count += st->kinds[k].count;
	}
	if (!count)
		return 0;
	for (int i = 0; i < rawfrag_checker__nr_violations(chk); i++) {
		const struct rawfrag_violation *v = rawfrag_checker__violation(chk, i);

		if (!strcmp(v->kind, "sample_parse")) {
			rfpy_raisef(rfpy_reader_name(self), (int64_t)v->rec_offset, "SAMPLE: %s",
				    v->message);
			return -1;
		}
	}
	rfpy_raisef(rfpy_reader_name(self), -1, "%llu samples do not parse",
		    (unsigned long long)count);
	return -1;
}

static PyObject *check_dict(PyObject *self, struct rawfrag_session *s,
			    struct rawfrag_checker *chk)
{
	struct rawfrag_file *f = rawfrag_session__file(s);
	uint64_t errors = rawfrag_checker__nr_errors(chk);
	PyObject *evs = PyDict_New(), *d;

	if (!rfpy_reader_force(self) && unparsable(self, f, chk)) {
		Py_XDECREF(evs);
		return NULL;
	}
	for (int i = -1; evs && i < rawfrag_file__nr_evsels(f); i++) {
		const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(chk, i);

		if (st && st->samples && event_row(evs, s, i, st))
			Py_CLEAR(evs);
	}
	if (!evs)
		return NULL;
	d = Py_BuildValue("{s:K,s:K,s:K,s:O,s:N,s:N}", "samples",
			  rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE), "errors", errors, "warnings",
			  rawfrag_checker__nr_warnings(chk), "clean", errors ? Py_False : Py_True,
			  "events", evs, "violations", violation_list(s, chk));
	return d;
}

PyObject *rfpy_reader_check(PyObject *self, PyObject *unused)
{
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .strict = rfpy_reader_strict(self),
		     .max_examples = 1000);
	struct rawfrag_session *s;
	struct rawfrag_file *f;
	struct check_ctx c;
	PyObject *d = NULL;
	struct rawfrag_err err;
	bool own;

	if (rfpy_reader_pass(self, &f, &s, &own))
		return NULL;
	c.chk = rawfrag_checker__new(s, &copts, &err);
	if (!c.chk)
		rfpy_raise(rfpy_reader_name(self), &err);
	else if (!walk(self, f, s, check_rec, &c))
		d = check_dict(self, s, c.chk);
	rawfrag_checker__delete(c.chk);
	if (own) {
		rawfrag_session__delete(s);
		rawfrag_file__close(f);
	}
	return d;
}
