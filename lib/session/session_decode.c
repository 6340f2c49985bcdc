// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Decoding one sample through a session: the public face of the (private)
 * decoder table. Each call finds the decoder bound to the evsel (two loads) and
 * hands it the RAW payload; nothing is copied. The report's per-sample calls
 * (text, fields, length) are in session.c, which reads the tables in place.
 */
#include <errno.h>
#include <stdio.h>

#include "internal/check_sink.h"

const char *rawfrag_decoder__name(const struct rawfrag_decoder *d)
{
	return d ? d->name : NULL;
}

const char *rawfrag_decoder__description(const struct rawfrag_decoder *d)
{
	return d ? d->description : NULL;
}

/* the bound decoder and the payload, or NULL when there is nothing to decode */
static const struct rawfrag_decoder *bound(struct rawfrag_session *s,
					   const struct rawfrag_evsel *evsel,
					   const struct rawfrag_record *rec,
					   const struct rawfrag_sample *smp, struct rawfrag_raw *raw,
					   void **priv)
{
	const struct rawfrag_decoder *d;

	if (!s || !smp || !smp->raw_data || !evsel)
		return NULL;
	d = rf_session__bound(s, rawfrag_evsel__idx(evsel), priv);
	if (d)
		rawfrag_session__raw(s, rec, smp, raw);
	return d;
}

struct viol_ctx {
	rawfrag_violation_fn_t fn;
	void *ctx;
	struct rawfrag_violation v;
};

static void viol_report(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
			const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct viol_ctx *vc = sink->ctx;
	char msg[512];

	if (!vc->fn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	vc->v.kind = kind;
	vc->v.sev = sev;
	vc->v.raw_off = raw_off;
	vc->v.message = msg;
	vc->fn(vc->ctx, &vc->v);
}

int rawfrag_session__sample_violations(struct rawfrag_session *s,
				       const struct rawfrag_evsel *evsel,
				       const struct rawfrag_record *rec,
				       const struct rawfrag_sample *smp, bool strict,
				       rawfrag_violation_fn_t fn, void *ctx)
{
	struct viol_ctx vc = { .fn = fn, .ctx = ctx };
	struct rawfrag_check_sink sink;
	struct rawfrag_raw raw;
	void *priv = NULL;
	const struct rawfrag_decoder *d;
	int64_t len = -1;

	if (!s || !rec || !smp)
		return -EINVAL;
	rawfrag_check_sink__init(&sink, strict, NULL);
	sink.report = viol_report;
	sink.ctx = &vc;
	vc.v.rec_offset = rec->offset;
	vc.v.in_compressed = rec->in_compressed;
	vc.v.evsel_idx = evsel ? rawfrag_evsel__idx(evsel) : -1;
	d = bound(s, evsel, rec, smp, &raw, &priv);
	if (d && d->length && (uint64_t)raw.raw_offset + raw.size <= rec->size) {
		uint32_t l = 0;

		if (!d->length(priv, &raw, smp, &l, &sink))
			len = l;
	}
	rawfrag_check_raw(rec, smp, len, &sink);
	return sink.nr_err;
}
