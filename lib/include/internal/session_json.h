/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The JSON report's sample tail in one call: the raw summary and the fields
 * through the same decoder look-up and raw description. The three public calls
 * (rawfrag_session__raw, __sample_length, __sample_fields) each found both
 * again; for the library's own tool, linked statically.
 */
#ifndef __RAWFRAG_INTERNAL_SESSION_JSON_H
#define __RAWFRAG_INTERNAL_SESSION_JSON_H

#include <rawfrag/emit.h>
#include <rawfrag/line.h>
#include <rawfrag/decoder.h>

/*
 * rawfrag_line__json_raw() of smp's payload (NULL without one: the line is
 * then complete) and, with a payload, the bound decoder's fields into em
 * (reset first), as the public calls give them. Returns whether the caller
 * closes the line (a payload was there).
 */
bool rf_session__json_tail(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
			   const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
			   struct rawfrag_line *line, struct rawfrag_emit *em);

#endif /* __RAWFRAG_INTERNAL_SESSION_JSON_H */
