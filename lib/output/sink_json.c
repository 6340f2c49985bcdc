// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "json" sink: JSON Lines, one object per sample: "event", "producer",
 * "time_ns", "cpu", "pid", "tid", "comm", then where it happened ("ip",
 * "sym", "symoff", "dso", "addr", "period", "callchain", "regs") as the sample
 * has them, "raw" (size, len, pad, pad_zero) and the decoder's "fields".
 */
#include <errno.h>
#include <stdlib.h>

#include "internal/lines.h"
#include "internal/opts.h"
#include "internal/out.h"
#include "internal/session_json.h"

/*
 * The event and producer part was rendered once per evsel, the sample's
 * members by the library's line; the decoder's fields go through the
 * emitter, which starts at the top level inside "fields".
 */
static int json_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct rf_lines *l = priv;
	struct rawfrag_out *o = l->out;
	const struct rawfrag_sample *smp = ev->sample;
	const struct rf_ev_cache *c = rf_lines__evc(l, rep->cur_idx);
	const char *comm = NULL;
	int len = 0;

	if (!c)
		return -ENOMEM;
	if (smp->sample_type & PERF_SAMPLE_TID)
		comm = rf_report__comm(rep, smp, &len);
	rawfrag_line__json_head(l->line, c->json, c->json_len, smp, comm, (size_t)len);
	if (smp->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
				PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_REGS_INTR))
		rs_json(&l->rs, o, smp, c->attr);
	/* the raw summary and the fields with one decoder look-up */
	if (rf_session__json_tail(l->sess, c->ev, ev->rec, smp, l->line, l->em))
		rf_out_write(o, "}}\n", 3);
	/* output closed or failed: stop quietly */
	return o->err ? 1 : 0;
}

static int json_begin(void *priv, struct rawfrag_report *rep)
{
	return rf_lines__begin(priv, rep);
}

static int json_describe(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	return rf_lines__update(priv) ? -ENOMEM : 0;
}

static int json_end(void *priv, struct rawfrag_report *rep, int status)
{
	return rf_lines__end(priv);
}

static int json_error(void *priv)
{
	return rf_lines__error(priv);
}

static void json_free(void *priv)
{
	rf_lines__fini(priv);
	free(priv);
}

int rf_sink_json_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		      void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "fields", "callchain", "max_stack", NULL };
	struct rf_lines *l;

	if (rf_sink_opts_known("json", opts->kv, keys, err))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (rf_lines__init(l, "json", RAWFRAG_EMIT_JSON, opts, err)) {
		json_free(l);
		return err->err;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "json",
		.begin = json_begin,
		.sample = json_sample,
		.describe = json_describe,
		.end = json_end,
		.error = json_error,
		.free = json_free,
	};
	*priv = l;
	return 0;
}
