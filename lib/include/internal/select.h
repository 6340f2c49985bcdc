/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A report's selection: perf-style lists (--cpu/--pid/--tid) and --time ranges.
 *
 * Ownership: each struct owns its ranges (freed by its __free()).
 */
#ifndef __RAWFRAG_INTERNAL_SELECT_H
#define __RAWFRAG_INTERNAL_SELECT_H

#include <stdbool.h>
#include <stdint.h>

/* "1,3-5,7": sorted, merged ranges */
struct rf_list {
	int nr;
	struct {
		uint64_t lo, hi;
	} *r;
};
/* 0 or -EINVAL; an empty list matches nothing; minus_one: "-1" is an entry (pid/tid lists) */
int rf_list__parse(struct rf_list *l, const char *s, bool minus_one);
bool rf_list__has(const struct rf_list *l, uint64_t v);
struct rawfrag_err;
/*
 * An option's list: s NULL leaves *has as it is; else it is parsed and *has
 * set. 0, or -EINVAL with err ("bad list '...'").
 */
int rf_list__parse_opt(struct rf_list *l, bool *has, const char *s, bool minus_one,
		       struct rawfrag_err *err);
void rf_list__free(struct rf_list *l);

/*
 * perf's --time: "start,stop" in seconds (either side may be empty; fraction up
 * to ns), or percentages of the recorded span: "10%-20%", "10%/2" (the 2nd
 * 10% slice), several separated by commas.
 * Both ends inclusive, as perf's perf_time__skip_sample().
 */
struct rf_time {
	int nr;
	struct {
		uint64_t start, end; /* end 0 = open */
	} *r;
	/* percentages need the span: resolved by rf_time__resolve() */
	int nr_pct;
	struct {
		double lo, hi; /* fractions 0..1 */
	} *pct;
};
int rf_time__parse(struct rf_time *t, const char *s);
/* turn percentages into times for the span [first, last] */
int rf_time__resolve(struct rf_time *t, uint64_t first, uint64_t last);
bool rf_time__has(const struct rf_time *t, uint64_t time);
void rf_time__free(struct rf_time *t);

#endif /* __RAWFRAG_INTERNAL_SELECT_H */
