/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --where on a visit that the caller runs: rawfrag_where__match_sample() runs
 * a sample's visit; the unit test runs an emitter's, whose same description
 * it also writes as JSON for rawfrag_where__match().
 */
#ifndef __RAWFRAG_INTERNAL_WHERE_H
#define __RAWFRAG_INTERNAL_WHERE_H

#include <stdbool.h>

#include <rawfrag/visit.h>
#include <rawfrag/where.h>

/* visit the fields with v; returns the visit's result (the stop value, if any) */
typedef int (*rf_where_visit_fn)(void *arg, const struct rawfrag_visitor *v);

/*
 * rawfrag_where__match_sample() on the fields run() visits; can_skip: run()'s
 * emitter takes RF_VISIT_SKIP (rf_emit__set_visitor()), so objects and arrays
 * no comparison looks into are left out
 */
int rf_where__match_visit(struct rawfrag_where *w, rf_where_visit_fn run, void *arg,
			  bool can_skip, struct rawfrag_err *err);

/* the fields src's samples had count as seen by dst too (one expression, two readers) */
void rf_where__merge_seen(struct rawfrag_where *dst, const struct rawfrag_where *src);

#endif /* __RAWFRAG_INTERNAL_WHERE_H */
