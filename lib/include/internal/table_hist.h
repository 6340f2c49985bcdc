/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The table sink's --hist: a numeric field's distribution in buckets, as
 * bpftrace's hist() (log2) and lhist() (linear) print them. Memory is the
 * buckets, never the samples: log2 has 66 of them, linear at most
 * RF_THIST_LINEAR_MAX + 2 (the last one open-ended), grown to the highest
 * one used. Percentiles come from the buckets: a percentile is the upper
 * end of the bucket that holds it (capped by the exact maximum), exact for
 * linear:1, at most a factor of 2 above for log2.
 */
#ifndef __RAWFRAG_INTERNAL_TABLE_HIST_H
#define __RAWFRAG_INTERNAL_TABLE_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include <rawfrag/emit.h>

#define RF_THIST_LINEAR_MAX 1000

struct rf_thist_spec {
	bool linear;
	uint64_t step; /* linear */
};

struct rf_thist {
	uint64_t n; /* values counted */
	uint64_t max; /* exact, of the values not below 0 */
	uint64_t nneg; /* values below 0 (bucket 0) */
	uint32_t nb; /* buckets allocated */
	uint64_t *b;
};

/* "FIELD[,log2|linear:STEP]" -> field (malloc'd) and spec; -EINVAL with msg */
int rf_thist__parse(const char *arg, char **field, struct rf_thist_spec *spec, char *msg,
		    size_t msg_len);
/* count v, or a value below 0 (an S64 field's) when neg; 0 or -ENOMEM */
int rf_thist__add(struct rf_thist *h, const struct rf_thist_spec *spec, uint64_t v, bool neg);
/* report -j: o's values counted into h too; 0 or -ENOMEM */
int rf_thist__merge(struct rf_thist *h, const struct rf_thist *o);
void rf_thist__fini(struct rf_thist *h);
/* the buckets as bpftrace prints them, then "p50 ... max ..." on one line */
void rf_thist__print(const struct rf_thist *h, const struct rf_thist_spec *spec,
		     struct rawfrag_out *o);
/*
 * bucket i's range [lo, hi); bucket 0 is (..., 0) (lo_open), the last linear
 * one [lo, ...) (hi_open)
 */
void rf_thist__bucket(const struct rf_thist_spec *spec, uint32_t i, uint64_t *lo, uint64_t *hi,
		      bool *lo_open, bool *hi_open);
/*
 * The value at or below which a share q (0..1) of the values are, from the
 * buckets; *neg when it is below 0
 */
uint64_t rf_thist__percentile(const struct rf_thist *h, const struct rf_thist_spec *spec,
			      double q, bool *neg);

#endif /* __RAWFRAG_INTERNAL_TABLE_HIST_H */
