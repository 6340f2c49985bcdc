/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What rawfrag_session__process() keeps in a session between calls (the
 * thread table, the ordering queue, the observer): stream.c owns it,
 * session.c holds the pointer and frees it with the session.
 */
#ifndef __RAWFRAG_INTERNAL_STREAM_H
#define __RAWFRAG_INTERNAL_STREAM_H

#include <rawfrag/tool.h>

struct rf_stream;

/* the first member of struct rawfrag_session (session.c): reached without a call */
struct rf_session_head {
	struct rf_stream *stream;
};

/* the session's slot for its stream state */
static inline struct rf_stream **rf_session__stream(struct rawfrag_session *s)
{
	return &((struct rf_session_head *)s)->stream;
}
void rf_stream__delete(struct rf_stream *st);
/* a message through the session's print callback ("rawfrag: " prefixed) */
void rf_session__log(const struct rawfrag_session *s, enum rawfrag_print_level lvl,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* a session of s's options over f, another opening of its file (-j), quiet */
struct rawfrag_session *rf_session__clone(const struct rawfrag_session *s,
					  struct rawfrag_file *f, struct rawfrag_err *err);

/* where the session's and its decoders' messages go (report -j moves them for a run) */
void rf_session__set_print(struct rawfrag_session *s, rawfrag_print_fn_t print, void *ctx);
/* report -j: the workers' shared tracing data probes (internal/probes.h); NULL: none */
struct rf_probes;
void rf_session__set_probes(struct rawfrag_session *s, struct rf_probes *p);
struct rf_probes *rf_session__probes(const struct rawfrag_session *s);
void rf_session__get_print(const struct rawfrag_session *s, rawfrag_print_fn_t *print,
			   void **ctx);

#endif
