/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the line-per-sample sinks share (text: perf script's lines, JSON: JSON
 * Lines): the output buffer and emitter, the line head writer, the symbol and
 * chain columns, and per evsel the parts of a line rendered once (the event
 * column padded to the longest name, '{"event":..,"producer":..', the columns).
 *
 * Ownership: struct rf_lines owns its out, emitter, line, the per-evsel cache
 * and the descriptor it opened (not one it was given).
 */
#ifndef __RAWFRAG_INTERNAL_LINES_H
#define __RAWFRAG_INTERNAL_LINES_H

#include <rawfrag/line.h>

#include "internal/report.h"
#include "internal/sym.h"

/* the columns the library's line writes (rawfrag_line), the rest are the sinks' */
#define LINE_MASK (F_COMM | F_PID | F_TID | F_CPU | F_TIME | F_EVENT)

/* per evsel idx: the text event column and the JSON line up to "producer" */
struct rf_ev_cache {
	char *text, *json;
	uint32_t text_len, json_len;
	const struct rawfrag_evsel *ev;
	unsigned int fields; /* fields=, else perf script's default for the event */
	const struct perf_event_attr *attr;
	/* what the lines were built from (a rename is a new string) */
	const struct rawfrag_decoder *d;
	const char *name;
};

struct rf_lines {
	const char *sink; /* "text", "json" */
	enum rawfrag_emit_format fmt;
	char *path; /* NULL: fd */
	int fd, own_fd;
	unsigned int fields;
	bool fields_set;
	struct rs_ctx rs;
	struct rawfrag_out *out;
	struct rawfrag_emit *em;
	struct rawfrag_line *line;
	struct rawfrag_report *rep;
	struct rawfrag_file *file;
	struct rawfrag_session *sess;
	bool swap;
	int nr_known;
	int name_width;
	struct rf_ev_cache *evc;
};

/* the options both take (fields, callchain, max_stack) into l; 0 or -EINVAL */
int rf_lines__init(struct rf_lines *l, const char *sink, enum rawfrag_emit_format fmt,
		   const struct rawfrag_sink_opts *opts, struct rawfrag_err *err);
/* begin(): the file's evsels, the -F checks, the output opened */
int rf_lines__begin(struct rf_lines *l, struct rawfrag_report *rep);
/* describe(): new evsels, renames, rebound decoders */
int rf_lines__update(struct rf_lines *l);
/* end(): flush (and close what was opened) */
int rf_lines__end(struct rf_lines *l);
int rf_lines__error(const struct rf_lines *l);
/* the output of a sink whose priv starts with its struct rf_lines (text, json) */
struct rawfrag_out *rf_lines__out(void *priv);
void rf_lines__fini(struct rf_lines *l);

/* the cache of evsel idx, rebuilt first when the evsel is new */
static inline struct rf_ev_cache *rf_lines__evc(struct rf_lines *l, int idx)
{
	if (__builtin_expect(idx >= l->nr_known, 0) && rf_lines__update(l))
		return NULL;
	return &l->evc[idx];
}

#endif /* __RAWFRAG_INTERNAL_LINES_H */
