/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Aggregation as perf report's hists: entries keyed by a tuple of sort keys,
 * each holding its samples, period and weight. An entry's key is nr_keys
 * slots; a slot's identity is its number and its interned bytes (compared by
 * pointer), its display string is the one of the entry's first sample.
 *
 * Ownership: the hists own their entries and every interned string; memory
 * grows with the number of entries and distinct strings, never with samples.
 */
#ifndef __RAWFRAG_INTERNAL_HISTS_H
#define __RAWFRAG_INTERNAL_HISTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RF_HISTS_MAX_KEYS 16

struct rf_hkey {
	uint64_t u; /* a number of the identity: pid, cpu, a symbol's start, an ip */
	const char *id; /* interned bytes of the identity, or NULL */
	const char *show; /* interned display string (not part of the identity) */
	uint32_t id_len;
	char level; /* a symbol's '[k]' or '[.]' */
	/*
	 * A symbol's, for perf's entry trees (hists_cc.c), not part of the
	 * identity: inlined (show is "name (inlined)"), data (perf shows
	 * name+offset), its end
	 */
	bool inl, obj;
	uint64_t end;
};

/* the length of a symbol key's name, without an inlined one's " (inlined)" */
static inline size_t rf_hkey__name_len(const struct rf_hkey *k)
{
	size_t n = strlen(k->show);

	return k->inl && n >= 10 ? n - 10 : n;
}

/* strcmp() of two symbol keys' names */
static inline int rf_hkey__name_cmp(const struct rf_hkey *a, const struct rf_hkey *b)
{
	size_t x = rf_hkey__name_len(a), y = rf_hkey__name_len(b);
	int r = memcmp(a->show, b->show, x < y ? x : y);

	return r ? r : x < y ? -1 : x > y;
}

/*
 * What perf's entry keeps of the map of its symbol key (hists_cc.c): the
 * map object it was last found in, that map's start - pgoff, the address
 * that made it (perf's he->ip) and, for an inlined function, the symbol at
 * its container's start (what it turns into in another map)
 */
struct rf_hmap {
	uint32_t map;
	uint64_t delta, ip;
	const char *base;
};

struct rf_hentry {
	struct rf_hentry *next; /* hash chain */
	uint64_t hash;
	uint64_t samples, period, weight;
	/* with call chains (hists_cc.c): own period + that of samples whose chain holds the key */
	uint64_t acc;
	uint32_t cc_root, cc_depth, cc_tid; /* the entry's call tree, its deepest chain, its thread */
	uint32_t cc_of; /* report -j: 0 the tree is in the hists' own arena, else the owner's */
	int32_t pid, tid; /* its first sample's thread (perf's he->thread) */
	/*
	 * Its first sample was left out by --comms, --dsos, --pid or --tid:
	 * perf's he->filtered, kept for the entry's life (later samples only
	 * add to it), so the entry is not shown and its samples count as left out
	 */
	bool filtered;
	uint32_t seq; /* made as the seq-th entry: the order perf inserts them in */
	/*
	 * report -j: the number of the sample that made it (UINT64_MAX until
	 * set) and the entry's place among those that sample made (0 its own,
	 * c + 1 the entry of its chain's frame c with --children)
	 */
	uint64_t first;
	uint32_t first_pos;
	uint32_t pt; /* hists_cc.c: its number in perf's entry trees, 0 before */
	struct rf_hmap m; /* with call chains */
	void *ext; /* the owner's (the hists never read or free it) */
	struct rf_hkey k[];
};

struct rf_istr; /* an interned string */

struct rf_hists {
	int nr_keys;
	struct rf_hentry **tab;
	size_t cap, nr;
	struct rf_istr **strs;
	size_t scap, snr;
	uint64_t nr_samples, total_period, total_weight;
	struct rf_hentry *last; /* the entry of the last sample added */
};

/* the length of s, a string rf_hists__intern() gave */
size_t rf_hists__str_len(const char *s);
int rf_hists__init(struct rf_hists *h, int nr_keys);
void rf_hists__fini(struct rf_hists *h);
/* the one copy of bytes s[0..len) (NUL-terminated), NULL on ENOMEM */
const char *rf_hists__intern(struct rf_hists *h, const char *s, size_t len);
/*
 * Add a sample of period and weight to the entry of key (nr_keys slots, ids
 * and shows interned); the entry is made on its first sample, filtered when
 * that one is. The totals count the samples of entries not filtered. NULL on
 * ENOMEM.
 */
struct rf_hentry *rf_hists__add(struct rf_hists *h, const struct rf_hkey *key,
				uint64_t period, uint64_t weight, bool filtered);
/*
 * The entry of key, made (nothing counted) when there is none; *made tells.
 * NULL on ENOMEM.
 */
struct rf_hentry *rf_hists__findnew(struct rf_hists *h, const struct rf_hkey *key, bool *made);
/* a sample of period and weight counted in e (its own and, until chains add more, acc) */
static inline void rf_hentry__count(struct rf_hentry *e, uint64_t period, uint64_t weight)
{
	e->samples++;
	e->period += period;
	e->weight += weight;
	e->acc += period;
}
/*
 * A new entry of key, even when one with the same key exists (perf's trees
 * tell entries apart, hists_cc.c); nothing counted. NULL on ENOMEM.
 */
struct rf_hentry *rf_hists__new(struct rf_hists *h, const struct rf_hkey *key);
/*
 * Which of n parts key belongs to, from the bytes of its identity (not the
 * interned pointers): the same in every worker's hists
 */
uint32_t rf_hists__part(const struct rf_hists *h, const struct rf_hkey *key, uint32_t n);

/*
 * Every entry, sorted with cmp (qsort's, with ctx) and stable: equals stay in
 * the order they were made in, as does everything when cmp is NULL (so that
 * the result never depends on where entries lie in memory). The array is the
 * caller's to free. NULL with *n 0 on ENOMEM or when empty.
 */
struct rf_hentry **rf_hists__sorted(struct rf_hists *h, size_t *n,
				    int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);

#endif /* __RAWFRAG_INTERNAL_HISTS_H */
