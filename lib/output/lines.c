// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The line-per-sample sinks' shared part (internal/lines.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/lines.h"
#include "internal/opts.h"


static int parse_fields(const char *s, unsigned int *out, struct rawfrag_err *err)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = { { "comm", F_COMM },     { "pid", F_PID },	      { "tid", F_TID },
		      { "cpu", F_CPU },	      { "time", F_TIME },     { "event", F_EVENT },
		      { "trace", F_TRACE },   { "raw", F_TRACE },     { "ip", F_IP },
		      { "sym", F_SYM },	      { "symoff", F_SYMOFF }, { "dso", F_DSO },
		      { "addr", F_ADDR },     { "period", F_PERIOD }, { "iregs", F_IREGS },
		      { "uregs", F_UREGS },   { "tod", F_TOD },	      { "flags", F_FLAGS } };
	unsigned int f = 0;
	char *dup = strdup(s), *save = NULL;
	char msg[256];

	if (!dup) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(t, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			snprintf(msg, sizeof(msg),
				 "unknown field '%.40s' in -F (comm,pid,tid,cpu,time,event,trace,"
				 "ip,sym,symoff,dso,addr,period,iregs,uregs,tod,flags)", t);
			rf_err_set(err, -EINVAL, msg);
			free(dup);
			return -EINVAL;
		}
		f |= names[i].bit;
	}
	free(dup);
	if (!f) {
		rf_err_set(err, -EINVAL, "no field in -F");
		return -EINVAL;
	}
	*out = f;
	return 0;
}

int rf_lines__init(struct rf_lines *l, const char *sink, enum rawfrag_emit_format fmt,
		   const struct rawfrag_sink_opts *opts, struct rawfrag_err *err)
{
	const char *v;
	bool cg = true;

	l->sink = sink;
	l->fmt = fmt;
	l->fd = opts->fd;
	l->own_fd = -1;
	l->fields = F_DEFAULT;
	if (opts->path && !(l->path = strdup(opts->path))) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	v = rf_sink_opt(opts->kv, "fields");
	if (v) {
		if (parse_fields(v, &l->fields, err))
			return -EINVAL;
		l->fields_set = true;
	}
	if (rf_sink_opt_bool(sink, opts->kv, "callchain", &cg, err))
		return -EINVAL;
	l->rs.hide_cg = !cg;
	v = rf_sink_opt(opts->kv, "max_stack");
	if (v) {
		char *end, msg[200];
		unsigned long n = strtoul(v, &end, 10);

		if (*end || end == v || n > 65535) {
			snprintf(msg, sizeof(msg), "bad --max-stack '%.40s' (a number of frames)", v);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		l->rs.max_stack = n ? (uint32_t)n : 1;
	}
	return 0;
}

void rf_lines__fini(struct rf_lines *l)
{
	rawfrag_line__delete(l->line);
	rs_ctx__fini(&l->rs);
	rawfrag_callchain__delete(l->rs.cc);
	rawfrag_emit__delete(l->em);
	rawfrag_out__delete(l->out);
	if (l->own_fd >= 0)
		close(l->own_fd);
	for (int i = 0; l->evc && i < l->nr_known; i++) {
		free(l->evc[i].text);
		free(l->evc[i].json);
	}
	free(l->evc);
	free(l->path);
	memset(l, 0, sizeof(*l));
}

/* perf script shows symbols for all tracepoints when one of them has call chains */
static bool any_tp_chain(struct rf_lines *l)
{
	for (int i = 0; i < rawfrag_file__nr_evsels(l->file); i++) {
		const struct perf_event_attr *a = rawfrag_evsel__attr(rawfrag_file__evsel(l->file, i));

		if (a->type == PERF_TYPE_TRACEPOINT && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
			return !l->rs.hide_cg;
	}
	return false;
}

/*
 * perf script's evsel__check_attr(): a column asked for with -F that the
 * event did not sample is an error (a default one is just left out).
 */
static int check_fields(struct rf_lines *l, struct rawfrag_err *err)
{
	static const struct {
		unsigned int f;
		uint64_t need;
		const char *msg, *name;
	} req[] = {
		{ F_IP, PERF_SAMPLE_IP, "IP", "ip" },
		{ F_ADDR, PERF_SAMPLE_ADDR, "ADDR", "addr" },
		{ F_PID | F_TID, PERF_SAMPLE_TID, "TID", "tid" },
		{ F_TIME, PERF_SAMPLE_TIME, "TIME", "time" },
		{ F_CPU, PERF_SAMPLE_CPU, "CPU", "cpu" },
		{ F_IREGS, PERF_SAMPLE_REGS_INTR, "IREGS", "iregs" },
		{ F_UREGS, PERF_SAMPLE_REGS_USER, "UREGS", "uregs" },
	};
	char msg[256];

	if (!l->fields_set)
		return 0;
	if ((l->fields & F_SYMOFF) && !(l->fields & F_SYM)) {
		rf_err_set(err, -EINVAL, "Display of offsets requested but symbol is not selected.");
		return -EINVAL;
	}
	for (int i = 0; i < rawfrag_file__nr_evsels(l->file); i++) {
		struct rawfrag_evsel *ev = rawfrag_file__evsel(l->file, i);
		uint64_t st = rawfrag_evsel__attr(ev)->sample_type;

		for (size_t k = 0; k < sizeof(req) / sizeof(req[0]); k++) {
			if (!(l->fields & req[k].f) || (st & req[k].need))
				continue;
			snprintf(msg, sizeof(msg),
				 "Samples for '%.80s' event do not have %s attribute set. "
				 "Cannot print '%s' field.", rawfrag_evsel__name(ev), req[k].msg,
				 req[k].name);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		if ((l->fields & (F_SYM | F_DSO)) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
			rf_err_set(err, -EINVAL, "Display of symbols requested but neither sample IP nor "
						 "sample address available.");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The constant parts of an evsel's lines, rendered once: "%*s: " of the event
 * name (perf script pads to the longest name) and '{"event":..,"producer":..'.
 */
static int build_evc(struct rf_lines *l, int i, struct rawfrag_out *mem)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel(l->file, i);
	const struct rawfrag_decoder *d = rawfrag_session__decoder(l->sess, ev);
	const char *name = rawfrag_evsel__name(ev);
	struct rf_ev_cache *c = &l->evc[i];
	size_t len;
	int n;

	free(c->text);
	free(c->json);
	c->json = NULL;
	c->ev = ev;
	c->attr = rawfrag_evsel__attr(ev);
	c->fields = l->fields_set ? l->fields :
		    rs_default_fields(rawfrag_evsel__attr(ev), any_tp_chain(l)) &
			    rs_available(rawfrag_evsel__attr(ev));
	c->d = d;
	c->name = name;
	name = name ? name : "";
	n = (int)strlen(name);
	c->text = calloc(1, (size_t)(n > l->name_width ? n : l->name_width) + 3);
	if (!c->text)
		return -ENOMEM;
	c->text_len = (uint32_t)sprintf(c->text, "%*s: ", l->name_width, name);
	rawfrag_out__reset(mem);
	rawfrag_out__puts(mem, "{\"event\":");
	rawfrag_out__json_str(mem, name, (size_t)-1);
	rawfrag_out__puts(mem, ",\"producer\":");
	if (rawfrag_decoder__name(d))
		rawfrag_out__json_str(mem, rawfrag_decoder__name(d), (size_t)-1);
	else
		rawfrag_out__puts(mem, "null");
	rawfrag_out__mem(mem, &len);
	c->json = malloc(len);
	if (!c->json || rawfrag_out__error(mem))
		return -ENOMEM;
	memcpy(c->json, rawfrag_out__mem(mem, NULL), len);
	c->json_len = (uint32_t)len;
	return 0;
}

/* the cached lines of evsel i are still what build_evc() would make */
static bool evc_current(struct rf_lines *l, int i)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel(l->file, i);
	const struct rf_ev_cache *c = &l->evc[i];

	return c->text && c->ev == ev && c->name == rawfrag_evsel__name(ev) &&
	       c->d == rawfrag_session__decoder(l->sess, ev);
}

/*
 * After records that describe the file: new evsels, renames, rebound decoders.
 * Only what changed is rebuilt (all of it when the name column widens): a pipe
 * of n HEADER_ATTR records must not cost n^2 line builds.
 */
int rf_lines__update(struct rf_lines *l)
{
	int n = rawfrag_file__nr_evsels(l->file), ret = 0, width = 0, old_width = l->name_width;
	struct rawfrag_out *mem;

	if (n > l->nr_known) {
		struct rf_ev_cache *evc = realloc(l->evc, n * sizeof(*evc));

		if (!evc)
			return -ENOMEM;
		l->evc = evc;
		for (int i = l->nr_known; i < n; i++)
			l->evc[i] = (struct rf_ev_cache){ 0 };
	}
	l->nr_known = n;
	/* names can change with tracing data or EVENT_UPDATE: recompute all */
	for (int i = 0; i < n; i++) {
		const char *name = rawfrag_evsel__name(rawfrag_file__evsel(l->file, i));
		int w = name ? (int)strlen(name) : 0;

		if (w > width)
			width = w;
	}
	l->name_width = width;
	mem = rawfrag_out__new(-1);
	if (!mem)
		return -ENOMEM;
	for (int i = 0; i < n && !ret; i++)
		if (width != old_width || !evc_current(l, i))
			ret = build_evc(l, i, mem);
	rawfrag_out__delete(mem);
	return ret;
}

int rf_lines__begin(struct rf_lines *l, struct rawfrag_report *rep)
{
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	l->rep = rep;
	l->sess = rawfrag_report__session(rep);
	l->file = rawfrag_session__file(l->sess);
	l->swap = rawfrag_file__needs_swap(l->file);
	l->rs.m = rawfrag_report__machine(rep);
	l->rs.kgen = &rep->kgen;
	l->rs.env = rawfrag_file__env(l->file);
	l->rs.arch = l->rs.env ? l->rs.env->arch : NULL;
	if (!l->rs.m || !(l->rs.cc = rawfrag_callchain__new()) || rf_lines__update(l))
		goto oom;
	if (check_fields(l, err))
		return -EINVAL;
	fd = rf_sink_open_fd(l->path, l->fd, err);
	if (fd < 0)
		return fd;
	if (l->path && strcmp(l->path, "-"))
		l->own_fd = fd;
	l->out = rawfrag_out__new(fd);
	if (!l->out || !(l->em = rawfrag_emit__new(l->out, l->fmt)) ||
	    !(l->line = rawfrag_line__new(l->out, l->fields & LINE_MASK)))
		goto oom;
	return 0;
oom:
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

int rf_lines__end(struct rf_lines *l)
{
	if (l->out)
		rawfrag_out__flush(l->out);
	return 0;
}

int rf_lines__error(const struct rf_lines *l)
{
	return l->out ? rawfrag_out__error(l->out) : 0;
}

struct rawfrag_out *rf_lines__out(void *priv)
{
	return ((struct rf_lines *)priv)->out;
}
