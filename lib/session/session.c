// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_session: a file with every evsel bound to the decoder that scores
 * highest in its probe (the hexdump fallback scores 1).
 *
 * Binding happens once per evsel; the result sits in arrays indexed by the evsel
 * index so the per-sample path is two loads, no lookup. In pipe mode evsels and
 * the tracing data arrive as records: rawfrag_session__refresh() binds new
 * evsels; when the tracing data appeared or changed it restarts every decoder
 * (file_fini + file_init) and binds all evsels again; when what probes look at
 * changed (CPUID, PMU mappings/caps, ARCH, OSRELEASE, evsel names, which come as
 * HEADER_FEATURE/EVENT_UPDATE records after the attrs) it probes all again.
 *
 * Ownership: the session owns the decoders' per-file and per-evsel state and a
 * copy of the decoder options; it does not own the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/decoder.h"
#include "internal/emit.h"
#include "internal/file.h"
#include "internal/opts.h"
#include "internal/session_json.h"

#include "internal/stream.h"

struct rawfrag_session {
	struct rf_session_head head; /* first: see internal/stream.h */
	struct rawfrag_file *file;
	rawfrag_print_fn_t print;
	void *print_ctx;
	char **dopts; /* NULL-terminated copy */
	const struct rawfrag_decoder *forced;
	/* per decoder of rawfrag_decoders() */
	int nr_dec;
	const struct rawfrag_decoder *const *decs;
	struct rawfrag_decoder_ctx *ctx;
	bool *inited;
	/* per evsel idx */
	int nr_bound, cap_bound;
	const struct rawfrag_decoder **ev_dec;
	void **ev_priv;
	int *ev_dec_idx;
	/* the tracing data the decoders were initialised with */
	const void *tracing_data;
	uint64_t tracing_data_size;
	/* what probes may look at, as of the last binding */
	struct env_snap {
		const void *p[6];
		int n[3];
		uint64_t names; /* evsel names (EVENT_UPDATE renames) */
	} snap;
	/* rawfrag_session__sample_visit()'s emitter, made at its first call */
	struct rawfrag_emit *vem;
	struct rf_probes *probes; /* report -j: tracing data probes shared (not owned) */
};

/*
 * n: the evsels bound so far. Evsels added since are bound by bind_new(): they
 * are no reason to probe the others again (that made a pipe of n HEADER_ATTR
 * records cost n^2 probes).
 */
static void env_take(struct env_snap *e, const struct rawfrag_file *f,
		     const struct rawfrag_env *env, int n)
{
	memset(e, 0, sizeof(*e));
	for (int i = 0; i < n; i++) {
		/* a rename is a new string (names live until the file closes) */
		const char *name = rawfrag_evsel__name(rawfrag_file__evsel(f, i));

		e->names = e->names * 31 + (uintptr_t)name;
	}
	if (!env)
		return;
	e->p[0] = env->cpuid;
	e->p[1] = env->pmu_mappings;
	e->p[2] = env->pmu_caps;
	e->p[3] = env->arch;
	e->p[4] = env->osrelease;
	e->p[5] = env->cpudesc;
	e->n[0] = env->nr_pmu_mappings;
	e->n[1] = env->nr_pmu_caps;
	e->n[2] = (int)env->nr_cpus_avail;
}

static bool env_changed(const struct rawfrag_session *s, const struct rawfrag_env *env)
{
	struct env_snap now;

	env_take(&now, s->file, env, s->nr_bound);
	return memcmp(&now, &s->snap, sizeof(now)) != 0;
}

static void env_snapshot(struct rawfrag_session *s, const struct rawfrag_env *env)
{
	env_take(&s->snap, s->file, env, s->nr_bound);
}

static void call_print(rawfrag_print_fn_t fn, enum rawfrag_print_level lvl, void *ctx,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(lvl, ctx, fmt, ap);
	va_end(ap);
}

const char *rawfrag_decoder_ctx__opt(const struct rawfrag_decoder_ctx *ctx, const char *key)
{
	size_t kl = strlen(key);

	if (!ctx || !ctx->dopts)
		return NULL;
	/* last one wins, so a later -x overrides an earlier one */
	const char *val = NULL;
	for (int i = 0; ctx->dopts[i]; i++)
		if (!strncmp(ctx->dopts[i], key, kl) && ctx->dopts[i][kl] == '=')
			val = ctx->dopts[i] + kl + 1;
	return val;
}

void rawfrag_decoder_ctx__log(const struct rawfrag_decoder_ctx *ctx,
			      enum rawfrag_print_level lvl, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!ctx || !ctx->print)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	call_print(ctx->print, lvl, ctx->print_ctx, "rawfrag: %s", msg);
}

void rf_session__log(const struct rawfrag_session *s, enum rawfrag_print_level lvl,
		     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!s->print)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	call_print(s->print, lvl, s->print_ctx, "rawfrag: %s", msg);
}

static void sess_err(struct rawfrag_err *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void sess_err(struct rawfrag_err *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->err = e;
	err->offset = -1;
	err->rec_type = 0;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
}

static void unbind_all(struct rawfrag_session *s)
{
	for (int i = 0; i < s->nr_bound; i++) {
		const struct rawfrag_decoder *d = s->ev_dec[i];

		if (d && d->release && s->ev_priv[i])
			d->release(s->ev_priv[i]);
		s->ev_dec[i] = NULL;
		s->ev_priv[i] = NULL;
	}
	s->nr_bound = 0;
}

static void fini_all(struct rawfrag_session *s)
{
	for (int i = 0; i < s->nr_dec; i++) {
		if (s->inited[i] && s->decs[i]->file_fini)
			s->decs[i]->file_fini(s->ctx[i].file_priv);
		s->inited[i] = false;
		s->ctx[i].file_priv = NULL;
	}
}

/*
 * file_init of every decoder. A decoder whose init fails is left out (its
 * evsels fall back to another decoder) rather than making the file unusable:
 * e.g. a tracepoint file with corrupt formats still gets checked.
 */
static void init_all(struct rawfrag_session *s)
{
	const struct rawfrag_env *env = rawfrag_file__env(s->file);

	s->tracing_data = env ? env->tracing_data : NULL;
	s->tracing_data_size = env ? env->tracing_data_size : 0;
	for (int i = 0; i < s->nr_dec; i++) {
		struct rawfrag_decoder_ctx *c = &s->ctx[i];
		int ret = 0;

		c->env = env;
		c->file_priv = NULL;
		if (s->forced && s->decs[i] != s->forced)
			continue;
		if (s->decs[i]->file_init)
			ret = s->decs[i]->file_init(c, &c->file_priv);
		if (ret < 0) {
			rawfrag_decoder_ctx__log(c, RAWFRAG_WARN,
						 "decoder %s: cannot use this file (%s)",
						 s->decs[i]->name, strerror(-ret));
			continue;
		}
		s->inited[i] = true;
	}
}

static int grow_bound(struct rawfrag_session *s, int n)
{
	if (n <= s->cap_bound)
		return 0;
	int cap = s->cap_bound ? s->cap_bound : 8;
	while (cap < n)
		cap *= 2;
	const struct rawfrag_decoder **d = realloc(s->ev_dec, cap * sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->ev_dec = d;
	void **p = realloc(s->ev_priv, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->ev_priv = p;
	int *x = realloc(s->ev_dec_idx, cap * sizeof(*x));
	if (!x)
		return -ENOMEM;
	s->ev_dec_idx = x;
	for (int i = s->cap_bound; i < cap; i++) {
		s->ev_dec[i] = NULL;
		s->ev_priv[i] = NULL;
		s->ev_dec_idx[i] = -1;
	}
	s->cap_bound = cap;
	return 0;
}

/* Probe every usable decoder for one evsel; highest score wins, ties: first. */
static int bind_one(struct rawfrag_session *s, int idx, struct rawfrag_err *err)
{
	const struct rawfrag_evsel *ev = rawfrag_file__evsel(s->file, idx);
	int best = -1, best_score = 0;
	void *best_priv = NULL;

	if (!ev) {
		sess_err(err, -ENOENT, "evsel %d vanished", idx);
		return -ENOENT;
	}
	for (int i = 0; i < s->nr_dec; i++) {
		const struct rawfrag_decoder *d = s->decs[i];
		void *priv = NULL;
		int score;

		if (!s->inited[i] || !d->probe)
			continue;
		score = d->probe(&s->ctx[i], ev, &priv);
		if (score < 0) {
			rawfrag_decoder_ctx__log(&s->ctx[i], RAWFRAG_WARN,
						 "decoder %s: probe of %s failed (%s)", d->name,
						 rawfrag_evsel__name(ev), strerror(-score));
			continue;
		}
		if (score > best_score) {
			if (best >= 0 && s->decs[best]->release && best_priv)
				s->decs[best]->release(best_priv);
			best = i;
			best_score = score;
			best_priv = priv;
		} else if (score > 0 && d->release && priv) {
			d->release(priv);
		}
	}
	s->ev_dec[idx] = best >= 0 ? s->decs[best] : NULL;
	s->ev_priv[idx] = best_priv;
	s->ev_dec_idx[idx] = best;
	return 0;
}

static int bind_new(struct rawfrag_session *s, struct rawfrag_err *err)
{
	int n = rawfrag_file__nr_evsels(s->file);
	int ret = grow_bound(s, n);

	if (ret) {
		sess_err(err, ret, "out of memory");
		return ret;
	}
	for (int i = s->nr_bound; i < n; i++) {
		ret = bind_one(s, i, err);
		if (ret)
			return ret;
		s->nr_bound = i + 1;
	}
	return 0;
}

struct rawfrag_session *rawfrag_session__new(struct rawfrag_file *f,
					     const struct rawfrag_session_opts *opts,
					     struct rawfrag_err *err)
{
	struct rawfrag_session *s;
	const char *forced = RAWFRAG_OPTS_GET(opts, decoder, NULL);
	int ret = -ENOMEM;

	if (!f) {
		sess_err(err, -EINVAL, "no file");
		errno = EINVAL;
		return NULL;
	}
	if (RF_OPTS_CHECK(opts, rawfrag_session_opts, err))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		sess_err(err, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->file = f;
	s->print = RAWFRAG_OPTS_GET(opts, print, NULL);
	s->print_ctx = RAWFRAG_OPTS_GET(opts, print_ctx, NULL);
	s->decs = rawfrag_decoders();
	while (s->decs[s->nr_dec])
		s->nr_dec++;
	s->dopts = rf_strv__dup(RAWFRAG_OPTS_GET(opts, dopts, NULL));
	s->ctx = calloc(s->nr_dec, sizeof(*s->ctx));
	s->inited = calloc(s->nr_dec, sizeof(*s->inited));
	if (!s->dopts || !s->ctx || !s->inited) {
		sess_err(err, ret, "out of memory");
		goto err_out;
	}
	if (forced) {
		s->forced = rawfrag_decoder__find(forced);
		if (!s->forced) {
			ret = -EINVAL;
			sess_err(err, ret, "unknown decoder '%s'", forced);
			goto err_out;
		}
	}
	for (int i = 0; i < s->nr_dec; i++) {
		s->ctx[i].session = s;
		s->ctx[i].file = f;
		s->ctx[i].dopts = (const char *const *)s->dopts;
		s->ctx[i].print = s->print;
		s->ctx[i].print_ctx = s->print_ctx;
	}
	init_all(s);
	ret = bind_new(s, err);
	if (ret)
		goto err_out;
	env_snapshot(s, rawfrag_file__env(f));
	return s;

err_out:
	rawfrag_session__delete(s);
	errno = -ret;
	return NULL;
}

void rawfrag_session__delete(struct rawfrag_session *s)
{
	if (!s)
		return;
	rf_stream__delete(s->head.stream);
	if (s->ctx && s->inited) {
		unbind_all(s);
		fini_all(s);
	}
	rawfrag_emit__delete(s->vem);
	free(s->ev_dec);
	free(s->ev_priv);
	free(s->ev_dec_idx);
	free(s->ctx);
	free(s->inited);
	rf_strv__free(s->dopts);
	free(s);
}

struct rawfrag_file *rawfrag_session__file(const struct rawfrag_session *s)
{
	return s->file;
}

const struct rawfrag_decoder *rawfrag_session__decoder(const struct rawfrag_session *s,
							const struct rawfrag_evsel *evsel)
{
	int idx = evsel ? rawfrag_evsel__idx(evsel) : -1;

	if (idx < 0 || idx >= s->nr_bound)
		return NULL;
	return s->ev_dec[idx];
}

void *rawfrag_session__decoder_priv(const struct rawfrag_session *s,
				    const struct rawfrag_evsel *evsel)
{
	int idx = evsel ? rawfrag_evsel__idx(evsel) : -1;

	if (idx < 0 || idx >= s->nr_bound)
		return NULL;
	return s->ev_priv[idx];
}

int rawfrag_session__refresh(struct rawfrag_session *s, struct rawfrag_err *err)
{
	const struct rawfrag_env *env = rawfrag_file__env(s->file);
	const void *td = env ? env->tracing_data : NULL;
	uint64_t tds = env ? env->tracing_data_size : 0;
	int ret;

	if (td != s->tracing_data || tds != s->tracing_data_size) {
		/* the formats decoders compiled their evsel state from changed */
		unbind_all(s);
		fini_all(s);
		init_all(s);
	} else {
		/* env may have been reallocated by a HEADER_FEATURE record */
		for (int i = 0; i < s->nr_dec; i++)
			s->ctx[i].env = env;
		/*
		 * Pipe mode: CPUID, PMU_MAPPINGS, OSRELEASE ... arrive after the
		 * attrs, and probes depend on them (IBS by PMU type): probe again,
		 * but only when what probes look at changed.
		 */
		if (env_changed(s, env))
			unbind_all(s);
	}
	ret = bind_new(s, err);
	/* after binding: probes may rename evsels (tracepoint "sys:name") */
	env_snapshot(s, env);
	return ret;
}

/* the per-sample path of session_decode.c: decoder and state of evsel idx in one step */
const struct rawfrag_decoder *rf_session__bound(const struct rawfrag_session *s, int idx,
						void **priv)
{
	if (idx < 0 || idx >= s->nr_bound)
		return NULL;
	*priv = s->ev_priv[idx];
	return s->ev_dec[idx];
}

const char *rawfrag_session__saved_comm(const struct rawfrag_session *s, uint32_t pid)
{
	for (int i = 0; i < s->nr_dec; i++) {
		const char *c;

		if (!s->inited[i] || !s->decs[i]->pid_comm)
			continue;
		c = s->decs[i]->pid_comm(s->ctx[i].file_priv, pid);
		if (c)
			return c;
	}
	return NULL;
}

/*
 * Here, not with the other decoding calls (session_decode.c): the evsel table
 * and the file's byte order are read in place, no call per layer on the
 * report's paths (text, JSON fields and lengths).
 */
static inline void fill_raw(const struct rawfrag_session *s, const struct rawfrag_record *rec,
			    const struct rawfrag_sample *smp, struct rawfrag_raw *raw)
{
	static const bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	raw->data = smp->raw_data;
	raw->size = smp->raw_size;
	raw->swap = smp->swap;
	raw->big_endian = s->file->swap ? !host_be : host_be;
	raw->rec_offset = rec ? rec->offset : 0;
	raw->raw_offset = smp->raw_offset;
}

/* a payload reaching past the record is the checker's raw_outside, not decodable */
static inline bool raw_past_record(const struct rawfrag_record *rec,
				   const struct rawfrag_sample *smp)
{
	return rec && (uint64_t)smp->raw_offset + smp->raw_size > rec->size;
}

/* the decoder bound to evsel, NULL when there is none or no payload to decode */
static inline const struct rawfrag_decoder *bound_dec(const struct rawfrag_session *s,
						      const struct rawfrag_evsel *evsel,
						      const struct rawfrag_sample *smp, int *idx)
{
	if (!s || !smp || !smp->raw_data || !evsel)
		return NULL;
	*idx = evsel->idx;
	if (*idx < 0 || *idx >= s->nr_bound)
		return NULL;
	return s->ev_dec[*idx];
}

int rawfrag_session__sample_text(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
				 const struct rawfrag_record *rec,
				 const struct rawfrag_sample *smp, struct rawfrag_out *out,
				 bool verbose)
{
	struct rawfrag_raw raw;
	int idx;
	const struct rawfrag_decoder *d = bound_dec(s, evsel, smp, &idx);

	if (!d || !d->text)
		return -ENODATA;
	fill_raw(s, rec, smp, &raw);
	return d->text(s->ev_priv[idx], &raw, smp, out, verbose);
}

int rawfrag_session__sample_fields(struct rawfrag_session *s,
				   const struct rawfrag_evsel *evsel,
				   const struct rawfrag_record *rec,
				   const struct rawfrag_sample *smp, struct rawfrag_emit *em)
{
	struct rawfrag_raw raw;
	int idx;
	const struct rawfrag_decoder *d = bound_dec(s, evsel, smp, &idx);

	if (!d || !d->fields)
		return -ENODATA;
	fill_raw(s, rec, smp, &raw);
	return d->fields(s->ev_priv[idx], &raw, smp, em);
}

int rawfrag_session__sample_visit(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
				  const struct rawfrag_record *rec,
				  const struct rawfrag_sample *smp, const struct rawfrag_visitor *v)
{
	return rf_session__sample_visit(s, evsel, rec, smp, v, false);
}

int rf_session__sample_visit(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
			     const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
			     const struct rawfrag_visitor *v, bool can_skip)
{
	int ret, stop;

	if (!s)
		return -EINVAL;
	if (!s->vem) {
		s->vem = rawfrag_emit__new_visitor(v);
		if (!s->vem)
			return -errno;
	}
	if (rf_emit__set_visitor(s->vem, v, can_skip))
		return -EINVAL;
	rawfrag_emit__reset(s->vem);
	ret = rawfrag_session__sample_fields(s, evsel, rec, smp, s->vem);
	stop = rawfrag_emit__visit_status(s->vem);
	return stop ? stop : ret;
}

int rawfrag_session__sample_length(struct rawfrag_session *s,
				   const struct rawfrag_evsel *evsel,
				   const struct rawfrag_record *rec,
				   const struct rawfrag_sample *smp, uint32_t *len)
{
	struct rawfrag_raw raw;
	int idx;
	const struct rawfrag_decoder *d = bound_dec(s, evsel, smp, &idx);

	if (!d || !d->length || !len)
		return -ENODATA;
	if (raw_past_record(rec, smp))
		return -EINVAL;
	fill_raw(s, rec, smp, &raw);
	return d->length(s->ev_priv[idx], &raw, smp, len, NULL);
}

bool rawfrag_session__raw(const struct rawfrag_session *s, const struct rawfrag_record *rec,
			  const struct rawfrag_sample *smp, struct rawfrag_raw *raw)
{
	if (!smp->raw_data)
		return false;
	fill_raw(s, rec, smp, raw);
	return true;
}

bool rf_session__json_tail(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
			   const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
			   struct rawfrag_line *line, struct rawfrag_emit *em)
{
	const struct rawfrag_decoder *d;
	struct rawfrag_raw raw;
	void *priv = NULL;
	uint32_t len = 0;
	bool known = false;
	int idx;

	if (!smp->raw_data) {
		rawfrag_line__json_raw(line, NULL, -1);
		return false;
	}
	fill_raw(s, rec, smp, &raw);
	d = bound_dec(s, evsel, smp, &idx);
	if (d)
		priv = s->ev_priv[idx];
	if (d && d->length && !raw_past_record(rec, smp))
		known = !d->length(priv, &raw, smp, &len, NULL) && len <= raw.size;
	rawfrag_line__json_raw(line, &raw, known ? (int64_t)len : -1);
	rawfrag_emit__reset(em);
	if (d && d->fields)
		d->fields(priv, &raw, smp, em);
	return true;
}

/* a session of the same options over another opening of its file (-j), quiet */
struct rawfrag_session *rf_session__clone(const struct rawfrag_session *s,
					  struct rawfrag_file *f, struct rawfrag_err *err)
{
	RAWFRAG_OPTS(rawfrag_session_opts, o, .dopts = (const char *const *)s->dopts,
		     .decoder = s->forced ? rawfrag_decoder__name(s->forced) : NULL);

	return rawfrag_session__new(f, &o, err);
}

void rf_session__set_probes(struct rawfrag_session *s, struct rf_probes *p)
{
	s->probes = p;
}

struct rf_probes *rf_session__probes(const struct rawfrag_session *s)
{
	return s ? s->probes : NULL;
}

void rf_session__set_print(struct rawfrag_session *s, rawfrag_print_fn_t print, void *ctx)
{
	s->print = print;
	s->print_ctx = ctx;
	for (int i = 0; i < s->nr_dec; i++) {
		s->ctx[i].print = print;
		s->ctx[i].print_ctx = ctx;
	}
}

void rf_session__get_print(const struct rawfrag_session *s, rawfrag_print_fn_t *print,
			   void **ctx)
{
	*print = s->print;
	*ctx = s->print_ctx;
}
