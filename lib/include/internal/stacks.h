/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Call stacks aggregated as a trie, for the folded, flamegraph-json and
 * flamegraph sinks: a node is (parent, name, kind), made on its first sample,
 * and holds a self value per weight (samples, period, a decoded field...).
 * Children come after their parent and in the order first seen, as perf's
 * flamegraph.py makes them.
 *
 * Ownership: the trie owns its nodes, names and values; memory grows with the
 * distinct stacks (nodes) and weights, never with samples.
 */
#ifndef __RAWFRAG_INTERNAL_STACKS_H
#define __RAWFRAG_INTERNAL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rawfrag_out;

#define RF_STACKS_ROOT 0
#define RF_STACKS_MAX_WEIGHTS 48
#define RF_STACKS_NONE UINT32_MAX

struct rf_stack_node {
	uint32_t parent, first, last, next; /* RF_STACKS_NONE: none */
	uint32_t name; /* the name's ordinal (rf_stacks__name_at()) */
	uint32_t len;
	uint8_t kind; /* the sink's: kernel/user frame, comm... */
};

struct rf_stacks;

struct rf_stacks *rf_stacks__new(const char *root_name);
void rf_stacks__delete(struct rf_stacks *st);
/* the index of weight name, made on first use; -ENOSPC past the maximum, -ENOMEM */
int rf_stacks__weight(struct rf_stacks *st, const char *name, size_t len);
int rf_stacks__nr_weights(const struct rf_stacks *st);
const char *rf_stacks__weight_name(const struct rf_stacks *st, int w);
/*
 * The child of parent named name[0..len), made on first use with kind (a
 * name's first kind stays, as flamegraph.py matches children by name); 0 or
 * -ENOMEM.
 */
int rf_stacks__child(struct rf_stacks *st, uint32_t parent, const char *name, size_t len,
		     uint8_t kind, uint32_t *node);
/* the ordinal of name[0..len), made on first use; -ENOMEM */
int64_t rf_stacks__intern(struct rf_stacks *st, const char *name, size_t len);
/* rf_stacks__child() for a name already interned (ord, its length len) */
int rf_stacks__child_ord(struct rf_stacks *st, uint32_t parent, uint32_t ord, uint32_t len,
			 uint8_t kind, uint32_t *node);
/* add v to node's self value of weight w; 0 or -ENOMEM */
int rf_stacks__add(struct rf_stacks *st, uint32_t node, int w, uint64_t v);

uint32_t rf_stacks__nr_nodes(const struct rf_stacks *st);
const struct rf_stack_node *rf_stacks__node(const struct rf_stacks *st, uint32_t id);
const char *rf_stacks__name(const struct rf_stacks *st, uint32_t id);
/* names by ordinal, each once, in the order first seen */
uint32_t rf_stacks__nr_names(const struct rf_stacks *st);
const char *rf_stacks__name_at(const struct rf_stacks *st, uint32_t ord);
uint64_t rf_stacks__self(const struct rf_stacks *st, uint32_t id, int w);
/* every node's self plus its descendants' for weight w (nr_nodes, the caller frees) */
uint64_t *rf_stacks__totals(const struct rf_stacks *st, int w);

/*
 * -j: nodes made from now on were first met at sample seq (their order in
 * a merge). 0 or -ENOMEM.
 */
int rf_stacks__set_seq(struct rf_stacks *st, uint64_t seq);
/*
 * At most max weights (RF_STACKS_MAX_WEIGHTS unless set): a -j worker's trie
 * takes more, since which weights are the file's first is known only once
 * the tries merge (the merged trie has the default again)
 */
void rf_stacks__set_max_weights(struct rf_stacks *st, int max);
/*
 * The tries v[0..n-1] merged into dst, nodes and weights in the order one job
 * would have made them (all set_seq'd from their start, or the root alone;
 * weights by name, made in the order of the samples that first had them).
 * 0, -EINVAL or -ENOMEM (dst unchanged).
 */
int rf_stacks__merge(struct rf_stacks *dst, struct rf_stacks *const *v, int n);

/*
 * One "frame;frame;... value" line per node with a self value of w, the path
 * from the root's child down, sorted by bytes (Python's sorted() of the
 * strings) and equal strings merged. 0 or -ENOMEM.
 */
int rf_stacks__folded(const struct rf_stacks *st, int w, struct rawfrag_out *o);
/*
 * perf's flamegraph.py tree of w: {"n": name, "l": kinds[kind], "v": self,
 * "c": [children]}, subtrees without value left out. 0 or -ENOMEM.
 */
int rf_stacks__json(const struct rf_stacks *st, int w, const char *const *kinds,
		    struct rawfrag_out *o);

/* ---- samples to stacks, as perf's scripts name the frames ---- */

struct rawfrag_report;
struct rawfrag_event;
struct rawfrag_callchain;

/* node kinds: flamegraph.py's "l" */
enum { RF_STACK_USER, RF_STACK_KERNEL, RF_STACK_ROOT };
extern const char *const rf_stack_kinds[];

struct rf_stack_walk {
	/* flamegraph.py's names ("comm (pid)", libtype); else stackcollapse.py's */
	bool flame;
	/* stackcollapse.py's --kernel, --include-pid, --include-tid, not --no-comm */
	bool kernel, pid, tid, comm;
	uint32_t max_stack; /* 0: perf's 127 */
	struct rawfrag_callchain *cc;
	char *buf; /* a name being made */
	size_t cap;
	/*
	 * A frame's symbol name lives as long as the session's DSO that holds it,
	 * so its address stands for its text: (address, kernel mark) to the name's
	 * ordinal, which saves hashing and comparing the bytes of every frame.
	 * Inlined frames' names come from a cache that frees them: not memoized.
	 */
	struct rf_stack_memo {
		const char *sym;
		uint32_t ord, len;
		bool k;
	} *memo;
	uint32_t memo_cap, memo_nr;
	const struct rf_stacks *memo_st; /* the trie the ordinals are of */
	/* the last frame's DSO name (the session's, by address) and whether it is the kernel */
	const char *last_dso;
	bool last_kernel;
	/*
	 * Whole chains: a frame-pointer chain's nodes depend only on its comm
	 * node, its addresses and the maps they are resolved in, so (comm node,
	 * the process's and the kernel's maps generations, addresses) to the leaf
	 * spares resolving and walking a chain seen before. Bounded: when the
	 * table or the address pool is full it starts again empty. Lookups
	 * rest while few chains repeat (chains_rest samples left).
	 */
	struct rf_chain_memo {
		uint64_t hash, ugen, kgen;
		uint32_t parent, leaf, off, nr;
	} *chains;
	uint32_t chains_nr;
	uint32_t chains_tried, chains_hit, chains_rest;
	uint64_t *chain_ips;
	uint32_t chain_ips_nr;
	const struct rf_stacks *chains_st; /* the trie the leaves are of */
};

/*
 * The sample's stack in st: the comm level, then its call chain root first
 * (the sample's own ip when it has no chain and is resolved so); *leaf is the
 * last node. 0 or -ENOMEM.
 */
int rf_stack_walk__sample(struct rf_stack_walk *w, struct rf_stacks *st,
			  struct rawfrag_report *rep, const struct rawfrag_event *ev,
			  uint32_t *leaf);
void rf_stack_walk__fini(struct rf_stack_walk *w);

/*
 * The sample's weight: "samples" 1, "period" its period (the attr's without
 * PERF_SAMPLE_PERIOD), else the numeric decoded field of that path (negative
 * values count 0). 1 with *v, 0 when the sample has no such numeric field.
 */
int rf_stacks__sample_weight(struct rawfrag_report *rep, const struct rawfrag_event *ev,
			     const char *name, uint64_t *v);

/* the weight= and max_stack= options of a stack sink (sink_folded.c); *weight NULL: samples */
struct rawfrag_err;
int rf_stack_opts(const char *sink, const char *const *kv, char **weight, uint32_t *max_stack,
		  struct rawfrag_err *err);

#endif /* __RAWFRAG_INTERNAL_STACKS_H */
