/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Call chains in the hists (perf report's --children and -g): a sample's
 * chain resolved into interned frames, the cumulative add (one add of the
 * sample's period to every distinct entry its chain holds), and a call
 * tree per entry printed as perf's graph, fractal, flat or folded.
 *
 * The trees are tries of one frame per node in one arena per section
 * (hists_cc.c); perf's nodes (runs of frames no chain ends in or branches
 * at) are found when printing. Memory grows with distinct chain suffixes
 * per entry, never with samples.
 */
#ifndef __RAWFRAG_INTERNAL_HISTS_CC_H
#define __RAWFRAG_INTERNAL_HISTS_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rawfrag/machine.h>

#include "internal/hists.h"

struct rawfrag_out;
struct rawfrag_err;

enum rf_cc_mode { RF_CC_GRAPH, RF_CC_FRACTAL, RF_CC_FLAT, RF_CC_FOLDED, RF_CC_NONE };
enum rf_cc_value { RF_CC_PERCENT, RF_CC_PERIOD, RF_CC_COUNT };

/* perf report's -g and --children, as parsed by rf_cc_params__parse() */
struct rf_cc_params {
	enum rf_cc_mode mode;
	enum rf_cc_value value;
	double min_percent; /* 0.5 */
	uint32_t print_limit; /* 0: no limit */
	bool caller, order_set, threshold_set;
	/* the first frame of a lone root is the entry's own symbol (sort by sym first) */
	bool skip_first;
};

/*
 * -g's string ("graph,0.5,caller", "folded", "none", ...) as perf parses
 * it: each token a prefix of a mode, order, key or value, then a threshold
 * and a print limit. -EINVAL with a message naming the token.
 */
int rf_cc_params__parse(struct rf_cc_params *p, const char *s, struct rawfrag_err *err);

/* what a key slot is to the cumulative add: the frame's DSO, its symbol, or neither */
enum rf_cc_slot { RF_CC_SLOT_OTHER, RF_CC_SLOT_DSO, RF_CC_SLOT_SYM };

struct rf_cc;

struct rf_cc *rf_cc__new(const struct rf_cc_params *p, bool children, uint32_t max_stack);
void rf_cc__delete(struct rf_cc *cc);

/*
 * The sample's chain as frames, in the order of the params (caller: root
 * first); kernel frames cached by address while kgen stays. Strings
 * interned in h. Returns the number of frames or -ENOMEM.
 */
int rf_cc__chain(struct rf_cc *cc, struct rf_hists *h, struct rawfrag_machine *m, uint32_t kgen,
		 const struct rawfrag_sample *s, const struct perf_event_attr *a);

/* an entry the cumulative add made: its display strings, by the caller */
typedef int (*rf_cc_new_fn)(void *ctx, struct rf_hentry *e);

/*
 * After the sample's own entry e (its key: key, sample's level in
 * key[sym].level) was added with period: its call tree gets the chain,
 * and with --children every other distinct entry of the chain's frames
 * (key slots of kinds[] replaced) gets the period as children and its
 * tree the chain from that frame on. 0 or -ENOMEM.
 */
int rf_cc__add(struct rf_cc *cc, struct rf_hists *h, struct rf_hentry *e,
	       const struct rf_hkey *key, const enum rf_cc_slot *kinds, uint64_t period,
	       uint32_t tid, rf_cc_new_fn fn, void *ctx);

/* a key slot's order in perf's trees (a, the new entry's, before b: < 0) */
typedef int (*rf_cc_slot_cmp_fn)(void *ctx, int i, const struct rf_hkey *a,
				 const struct rf_hkey *b);

/*
 * The sections' keys, for perf's entry trees: their kinds, the order of
 * the slots other than the symbol's, and whether perf collapses (a comm
 * key). Before the first sample.
 */
void rf_cc__keys(struct rf_cc *cc, int nr_keys, const enum rf_cc_slot *kinds,
		 rf_cc_slot_cmp_fn cmp, void *ctx, bool collapse);

/*
 * The sample's own entry (after rf_cc__chain()): its key's, or with
 * --children once a chain held an inlined function the one perf's tree
 * finds; samples, period, weight and children counted, the map (x) as
 * perf's entry keeps it. NULL on ENOMEM.
 */
struct rf_hentry *rf_cc__self(struct rf_cc *cc, struct rf_hists *h, const struct rf_hkey *key,
			      const struct rf_hmap *x, uint64_t period, uint64_t weight);

/*
 * perf's entries in its collapsed order (its trees, merged where perf's
 * collapse pass merges) into *v (the caller's to free): 1; 0 when the key's
 * hash is their identity (rf_hists__sorted() then), -ENOMEM.
 */
int rf_cc__entries(struct rf_cc *cc, struct rf_hentry ***v, size_t *n);

/*
 * report -j: trees and children's period of only the entries whose keys
 * are in part of n (rf_hists__part()); every sample's own entry is counted
 */
void rf_cc__set_part(struct rf_cc *cc, uint32_t part, uint32_t n);

/* what repeated chains added, to the entries and trees: before reading them */
void rf_cc__flush(struct rf_cc *cc);

/* perf's order of two entries of equal children: the caller first; 0 when perf has none */
int rf_cc__depth_cmp(const struct rf_cc_params *p, bool children, const struct rf_hentry *a,
		     const struct rf_hentry *b);

/*
 * A copy of cc to print from on another thread (its own output; the trees
 * shared, read only): for rf_cc__print() alone, and free()d, not deleted
 */
struct rf_cc *rf_cc__view(const struct rf_cc *cc);

/*
 * The call graph under entry e as perf prints it; total: the section's
 * period (what percentages are of), cc_total: the period of samples with
 * call chains (what the threshold is of).
 */
void rf_cc__print(struct rf_cc *cc, struct rawfrag_out *o, const struct rf_hentry *e,
		  uint64_t total);

/*
 * v (in perf's collapsed order) into perf's output order by cmp (negative:
 * a first), as perf's red-black tree insertion gives it. 0 or -ENOMEM.
 */
int rf_cc__rb_order(struct rf_hentry **v, size_t n,
		    int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);

#endif /* __RAWFRAG_INTERNAL_HISTS_CC_H */
