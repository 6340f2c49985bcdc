/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report -j merges what its workers made (trie nodes, weights, histograms,
 * check examples) in the order one job would have made them: by the number
 * of the sample that first made each, then by worker and the worker's own
 * order (a sample's items come from one worker, in its order).
 */
#ifndef __RAWFRAG_INTERNAL_SEQREF_H
#define __RAWFRAG_INTERNAL_SEQREF_H

#include <stdint.h>

/* an item of worker k: its first sample, then its index in the worker */
struct rf_seqref {
	uint64_t seq;
	uint32_t k, i;
};

/* qsort() order of struct rf_seqref */
static inline int rf_seqref_cmp(const void *a, const void *b)
{
	const struct rf_seqref *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

#endif /* __RAWFRAG_INTERNAL_SEQREF_H */
