/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pprof profile being built (pprof.c): its string table, mappings,
 * functions and locations each interned once, samples aggregated by (stack,
 * labels) with one value per column, then written as the gzipped
 * profile.proto (protobuf-c). The sink (sink_pprof.c) decides what the
 * columns, frames and labels are; this file only keeps and encodes them.
 *
 * Ids are dense and start at 1; string index 0 is "".
 *
 * Ownership: the profile owns copies of every string, key and value given
 * to it; memory grows with distinct stacks, labels and strings, never with
 * samples.
 */
#ifndef __RAWFRAG_INTERNAL_PPROF_H
#define __RAWFRAG_INTERNAL_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rf_pprof;

struct rf_pprof_label {
	int64_t key; /* string indices */
	int64_t str; /* a string label (0: numeric) */
	int64_t num;
	int64_t unit; /* of a numeric label, 0 for none */
};

struct rf_pprof_mapping {
	uint64_t start, limit, offset;
	const char *file;
	const uint8_t *bid;
	uint8_t bid_size;
	const void *key; /* the same for the same file (its DSO) */
};

/* a sample's value of one column */
struct rf_pprof_value {
	uint32_t col;
	int64_t v;
};

/* what the profile says about itself; strings are string indices */
struct rf_pprof_meta {
	int64_t *types, *units; /* nr_cols of each, in the columns' order */
	uint32_t *order; /* the columns as written: order[i] is the i-th sample type */
	uint32_t nr_cols;
	int64_t default_type;
	int64_t period_type, period_unit, period;
	int64_t time_nanos, duration_nanos;
	int64_t *comments;
	uint32_t nr_comments;
};

struct rf_pprof *rf_pprof__new(void);
void rf_pprof__delete(struct rf_pprof *p);
/* the index of the string s[0..len) (-ENOMEM) */
int64_t rf_pprof__str(struct rf_pprof *p, const char *s, size_t len);
/* the id of a mapping (0 on ENOMEM) */
uint64_t rf_pprof__mapping(struct rf_pprof *p, const struct rf_pprof_mapping *m);
/* the id of the function of this name and file (string indices; 0 on ENOMEM) */
uint64_t rf_pprof__function(struct rf_pprof *p, int64_t name, int64_t file);
/*
 * The id of the location at addr of mapping (0: none) with these lines
 * (function ids, the innermost inlined first; none: not symbolized). 0 on
 * ENOMEM.
 */
uint64_t rf_pprof__location(struct rf_pprof *p, uint64_t mapping, uint64_t addr,
			    const uint64_t *fns, uint32_t nr_fns);
/* add values to the sample of this stack (leaf first) and labels; 0 or -ENOMEM */
int rf_pprof__add(struct rf_pprof *p, const uint64_t *locs, uint32_t nr_locs,
		  const struct rf_pprof_label *labels, uint32_t nr_labels,
		  const struct rf_pprof_value *vals, uint32_t nr_vals);
uint64_t rf_pprof__nr_samples(const struct rf_pprof *p);
/* -j: the number of the sample whose entries are made next (0 before any) */
void rf_pprof__set_seq(struct rf_pprof *p, uint64_t seq);
/*
 * -j: the profiles pp[0..n) (each of disjoint samples, set_seq'd) merged into
 * pp[0]: strings, mappings, functions, locations and samples made again in
 * the order of the samples that first made them, which is one profile's
 * order; values added, column c of profile k going to colmap[k][c] (colmap
 * or colmap[k] NULL: the same column). *smap[k][i]: where string i of profile
 * k went (the caller frees each and the array). 0 or -ENOMEM (pp[0] as it was).
 */
int rf_pprof__merge(struct rf_pprof *const *pp, int n, uint32_t *const *colmap, int64_t ***smap);
/*
 * The profile, gzipped, to fd. 0 or -errno (-ENOMEM, a write error); *what
 * names the step that failed.
 */
int rf_pprof__write(struct rf_pprof *p, const struct rf_pprof_meta *meta, int fd,
		    const char **what);

#endif /* __RAWFRAG_INTERNAL_PPROF_H */
