// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "text" sink: one line per sample as perf script prints it
 * (builtin-script.c, 6.1): "%16s " comm, "%5d " tid (or "%5d/%-5d "
 * pid/tid), "[%03d] " cpu, "%5lu.%06lu: " time, "%*s: " event padded to the
 * longest event name, then the decoder's text and the ip/sym/dso columns or
 * the call chain. With header=1 the file's header comes first, with tasks=1
 * the COMM, FORK and EXIT records have their lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal/header_print.h"
#include "internal/lines.h"
#include "internal/opts.h"
#include "internal/out.h"


struct text_sink {
	struct rf_lines l;
	bool verbose, show_task, header;
	char *input; /* the input's name in the header */
};

/*
 * The columns before the trace text when they are more than the library's
 * line gives (perf script's per-event defaults, a chain's unpadded comm, tod,
 * --ns, period).
 */
static void text_head(struct text_sink *t, const struct rf_ev_cache *c,
		      const struct rawfrag_sample *smp, const char *comm, int len)
{
	struct rawfrag_out *o = t->l.out;
	struct rs_ctx *rs = &t->l.rs;
	unsigned int f = c->fields;

	if (f & F_COMM)
		rs_text_comm(o, comm, len, !rs_chain_line(rs, c->attr, f));
	if (f & (F_PID | F_TID))
		rs_text_pid_tid(o, f, (int32_t)smp->pid, (int32_t)smp->tid);
	if (f & F_CPU)
		rawfrag_out__printf(o, "[%03d] ", (int32_t)smp->cpu);
	if (f & F_TOD) {
		char buf[64];

		rawfrag_out__write(o, buf, (size_t)(rs_text_tod(rs, buf, smp->time) - buf));
	}
	if ((f & F_TIME) && !rs->ns)
		rs_text_time(o, smp->time);
	else if (f & F_TIME)
		rawfrag_out__printf(o, rs->ns ? "%5" PRIu64 ".%09" PRIu64 ": " :
						"%5" PRIu64 ".%06" PRIu64 ": ",
				    smp->time / 1000000000,
				    rs->ns ? smp->time % 1000000000 : smp->time % 1000000000 / 1000);
	/* without PERIOD in the sample, perf shows the attr's period */
	if (f & F_PERIOD)
		rawfrag_out__printf(o, "%10" PRIu64 " ", smp->sample_type & PERF_SAMPLE_PERIOD ?
						       smp->period : (uint64_t)c->attr->sample_period);
	if (f & F_EVENT)
		rawfrag_out__write(o, c->text, c->text_len);
}

static int text_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct text_sink *t = priv;
	struct rawfrag_out *o = t->l.out;
	const struct rawfrag_sample *smp = ev->sample;
	const struct rf_ev_cache *c = rf_lines__evc(&t->l, rep->cur_idx);
	unsigned int f;
	const char *comm = NULL;
	int len = 0;

	if (!c)
		return -ENOMEM;
	f = c->fields;
	if (f & F_COMM)
		comm = rf_report__comm(rep, smp, &len);
	/* the library's line when the columns are its own */
	if (!t->l.rs.ns && (f & ~F_TRACE) == (t->l.fields & LINE_MASK))
		rawfrag_line__text_head(t->l.line, smp, comm, (size_t)len, c->text, c->text_len);
	else
		text_head(t, c, smp, comm, len);
	if (f & F_FLAGS) /* perf's flags are those of branch samples (PT, BTS): none here */
		rawfrag_out__printf(o, "  %-21s ", "");
	if (f & F_TRACE)
		rawfrag_session__sample_text(t->l.sess, c->ev, ev->rec, smp, o, t->verbose);
	if (f & (F_ADDR | F_IP | F_IREGS | F_UREGS))
		rs_text_tail(&t->l.rs, o, f, smp, c->attr);
	rf_out_putc(o, '\n');
	/* output closed or failed: stop quietly */
	return o->err ? 1 : 0;
}

/*
 * tasks=1: perf script's line for a COMM, FORK or EXIT record, the start
 * columns of its event (its sample_id_all tid, cpu and time) and
 * perf_event__fprintf()'s text; the name is that of the record's thread.
 */
static int text_task(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct text_sink *t = priv;
	const struct rawfrag_record *rec = ev->rec;
	struct rawfrag_evsel *evsel = rawfrag_file__evsel_of(t->l.file, rec);
	struct rawfrag_out *o = t->l.out;
	const uint8_t *p = rec->data;
	struct rawfrag_sample id = { 0 }, who = { 0 };
	const struct perf_event_attr *a;
	const struct rf_ev_cache *c;
	bool ns = t->l.rs.ns;
	unsigned int f;
	const char *comm;
	int len;

	if (!evsel || rec->size < 24 || !(c = rf_lines__evc(&t->l, rawfrag_evsel__idx(evsel))))
		return 0;
	a = rawfrag_evsel__attr(evsel);
	f = c->fields;
	if (!a->sample_id_all || rawfrag_sample__parse_id_trailer(&id, a, rec, t->l.swap, NULL))
		id = (struct rawfrag_sample){ 0 };
	who.pid = rawfrag__get32(p + 8, t->l.swap);
	who.tid = rawfrag__get32(p + (rec->type == PERF_RECORD_COMM ? 12 : 16), t->l.swap);
	comm = rf_report__comm(rep, &who, &len);
	if (f & F_COMM)
		rawfrag_out__printf(o, rs_chain_line(&t->l.rs, a, f) ? "%.*s " : "%16.*s ", len, comm);
	if ((f & F_PID) && (f & F_TID))
		rawfrag_out__printf(o, "%5d/%-5d ", (int32_t)id.pid, (int32_t)id.tid);
	else if (f & (F_PID | F_TID))
		rawfrag_out__printf(o, "%5d ", (int32_t)(f & F_PID ? id.pid : id.tid));
	if (f & F_CPU)
		rawfrag_out__printf(o, "[%03d] ", (int32_t)id.cpu);
	if (f & F_TIME)
		rawfrag_out__printf(o, ns ? "%5" PRIu64 ".%09" PRIu64 ": " :
					    "%5" PRIu64 ".%06" PRIu64 ": ",
				    id.time / 1000000000,
				    ns ? id.time % 1000000000 : id.time % 1000000000 / 1000);
	if (rec->type == PERF_RECORD_COMM) {
		const char *name = (const char *)p + 16;

		rawfrag_out__printf(o, "PERF_RECORD_COMM%s: %.*s:%d/%d\n",
				    rec->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "",
				    (int)strnlen(name, rec->size - 16), name, (int32_t)who.pid,
				    (int32_t)who.tid);
	} else {
		rawfrag_out__printf(o, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
				    rec->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
				    (int32_t)who.pid, (int32_t)who.tid,
				    (int32_t)rawfrag__get32(p + 12, t->l.swap),
				    (int32_t)rawfrag__get32(p + 20, t->l.swap));
	}
	return o->err ? 1 : 0;
}

/* header=1 on a pipe: each feature as its HEADER_FEATURE record arrives, as perf prints them */
static int text_user(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct text_sink *t = priv;
	uint64_t feat;

	if (ev->rec->type != RAWFRAG_RECORD_HEADER_FEATURE || ev->rec->size < 16)
		return 0;
	feat = rawfrag__get64((const uint8_t *)ev->rec->data + 8, t->l.swap);
	if (feat >= RAWFRAG_FEAT_LAST)
		return 0;
	rh_feature(t->l.out, t->l.file, (int)feat);
	return rawfrag_out__error(t->l.out) ? 1 : 0;
}

static int text_begin(void *priv, struct rawfrag_report *rep)
{
	struct text_sink *t = priv;
	int ret = rf_lines__begin(&t->l, rep);

	if (ret)
		return ret;
	if (t->header)
		rh_top(t->l.out, t->l.file, t->input ? t->input : rawfrag_file__path(t->l.file));
	return 0;
}

static int text_describe(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	return rf_lines__update(priv) ? -ENOMEM : 0;
}

static int text_end(void *priv, struct rawfrag_report *rep, int status)
{
	return rf_lines__end(priv);
}

static int text_error(void *priv)
{
	return rf_lines__error(priv);
}

static void text_free(void *priv)
{
	struct text_sink *t = priv;

	rf_lines__fini(&t->l);
	free(t->input);
	free(t);
}

int rf_sink_text_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		      void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "fields", "verbose", "ns", "tasks", "header",
					    "callchain", "max_stack", "input", NULL };
	struct text_sink *t;
	const char *input;

	if (rf_sink_opts_known("text", opts->kv, keys, err))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	input = rf_sink_opt(opts->kv, "input");
	if (rf_lines__init(&t->l, "text", RAWFRAG_EMIT_TEXT, opts, err) ||
	    rf_sink_opt_bool("text", opts->kv, "verbose", &t->verbose, err) ||
	    rf_sink_opt_bool("text", opts->kv, "ns", &t->l.rs.ns, err) ||
	    rf_sink_opt_bool("text", opts->kv, "tasks", &t->show_task, err) ||
	    rf_sink_opt_bool("text", opts->kv, "header", &t->header, err) ||
	    (input && !(t->input = strdup(input)))) {
		if (!err->err)
			rf_err_set(err, -ENOMEM, "out of memory");
		text_free(t);
		return err->err;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "text",
		.begin = text_begin,
		.sample = text_sample,
		.task = t->show_task ? text_task : NULL,
		.describe = text_describe,
		.user = t->header ? text_user : NULL,
		.end = text_end,
		.error = text_error,
		.free = text_free,
	};
	*priv = t;
	return 0;
}
