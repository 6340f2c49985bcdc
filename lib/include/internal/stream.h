/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What rawfrag_session__process() keeps in a session between calls (the
 * thread table, the ordering queue, the observer): lib/stream.c owns it,
 * lib/session.c holds the pointer and frees it with the session.
 */
#ifndef __RAWFRAG_INTERNAL_STREAM_H
#define __RAWFRAG_INTERNAL_STREAM_H

#include <rawfrag/tool.h>

struct rf_stream;

/* the session's slot for its stream state */
struct rf_stream **rf_session__stream(struct rawfrag_session *s);
void rf_stream__delete(struct rf_stream *st);
/* a message through the session's print callback ("rawfrag: " prefixed) */
void rf_session__log(const struct rawfrag_session *s, enum rawfrag_print_level lvl,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
