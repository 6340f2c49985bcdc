/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The check sink behind rawfrag_check_sink__report(), shared with the in-tree
 * tests so they can collect findings of rawfrag_check_raw() or of a decoder's
 * length() without a whole checker (check.c is the real consumer).
 */
#ifndef __RAWFRAG_INTERNAL_CHECK_SINK_H
#define __RAWFRAG_INTERNAL_CHECK_SINK_H

#include <stdarg.h>
#include <string.h>

#include "internal/decoder.h"

struct rawfrag_check_sink {
	/* pad_nonzero is an error rather than a warning */
	bool strict;
	/* findings in the current record */
	int nr_err, nr_warn;
	/* figures rawfrag_check_raw() keeps (NULL: none) */
	struct rawfrag_check_evstats *st;
	/* called for every finding (NULL: only counted); ap is the caller's args */
	void (*report)(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
		       const char *kind, int64_t raw_off, const char *fmt, va_list ap);
	void *ctx;
};

static inline void rawfrag_check_sink__init(struct rawfrag_check_sink *sink, bool strict,
					    struct rawfrag_check_evstats *st)
{
	memset(sink, 0, sizeof(*sink));
	sink->strict = strict;
	sink->st = st;
}

/*
 * The generic RAW rules alone, for one parsed sample with a known (or unknown:
 * len < 0) true length: used by the checker, rawfrag_session__sample_violations()
 * and the tests. Findings go to sink.
 */
int rawfrag_check_raw(const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
		      int64_t len, struct rawfrag_check_sink *sink);

struct rawfrag_checker;
/*
 * report -j: the number of the sample checked next, so that checkers of
 * disjoint samples merge into the one checker of all of them would be: figures
 * add, kinds and the first examples in the order of their samples. 0 or -ENOMEM.
 */
void rf_checker__set_seq(struct rawfrag_checker *c, uint64_t seq);
int rf_checker__merge(struct rawfrag_checker *dst, struct rawfrag_checker *const *v, int n);

#endif
