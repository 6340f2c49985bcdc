// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf report's aggregation: a hash table of entries keyed by a tuple of
 * sort keys (numbers and interned strings, so a key compares by value and
 * pointer), and a string table. Memory is bounded by entries and strings.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "internal/hists.h"

struct rf_istr {
	uint64_t hash;
	size_t len;
	char s[];
};

static uint64_t hash_bytes(const void *p, size_t len, uint64_t h)
{
	const unsigned char *c = p;

	/* FNV-1a: short keys, no need for more */
	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

int rf_hists__init(struct rf_hists *h, int nr_keys)
{
	memset(h, 0, sizeof(*h));
	if (nr_keys < 0 || nr_keys > RF_HISTS_MAX_KEYS)
		return -EINVAL;
	h->nr_keys = nr_keys;
	h->cap = 256;
	h->scap = 256;
	h->tab = calloc(h->cap, sizeof(*h->tab));
	h->strs = calloc(h->scap, sizeof(*h->strs));
	if (!h->tab || !h->strs) {
		rf_hists__fini(h);
		return -ENOMEM;
	}
	return 0;
}

void rf_hists__fini(struct rf_hists *h)
{
	for (size_t i = 0; h->tab && i < h->cap; i++) {
		struct rf_hentry *e = h->tab[i], *n;

		for (; e; e = n) {
			n = e->next;
			free(e);
		}
	}
	for (size_t i = 0; h->strs && i < h->scap; i++)
		free(h->strs[i]);
	free(h->tab);
	free(h->strs);
	memset(h, 0, sizeof(*h));
}

static int strs_grow(struct rf_hists *h)
{
	size_t cap = h->scap * 2;
	struct rf_istr **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < h->scap; i++) {
		struct rf_istr *s = h->strs[i];
		size_t j;

		if (!s)
			continue;
		for (j = s->hash & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = s;
	}
	free(h->strs);
	h->strs = t;
	h->scap = cap;
	return 0;
}

const char *rf_hists__intern(struct rf_hists *h, const char *s, size_t len)
{
	uint64_t hash = hash_bytes(s, len, 0xcbf29ce484222325ull);
	struct rf_istr *is;
	size_t j;

	if (h->snr * 2 >= h->scap && strs_grow(h))
		return NULL;
	for (j = hash & (h->scap - 1); (is = h->strs[j]); j = (j + 1) & (h->scap - 1))
		if (is->hash == hash && is->len == len && !memcmp(is->s, s, len))
			return is->s;
	is = malloc(sizeof(*is) + len + 1);
	if (!is)
		return NULL;
	is->hash = hash;
	is->len = len;
	memcpy(is->s, s, len);
	is->s[len] = '\0';
	h->strs[j] = is;
	h->snr++;
	return is->s;
}

size_t rf_hists__str_len(const char *s)
{
	return ((const struct rf_istr *)(s - offsetof(struct rf_istr, s)))->len;
}

/* a key is words (a number and a pointer per slot): mixed a word at a time */
static uint64_t key_hash(const struct rf_hists *h, const struct rf_hkey *k)
{
	uint64_t v = 0xcbf29ce484222325ull;

	/* two words a slot, mixed a word at a time: --children hashes a key per frame */
	for (int i = 0; i < h->nr_keys; i++) {
		v = (v ^ k[i].u) * 0x9e3779b97f4a7c15ull;
		v = (v ^ (v >> 29) ^ (uintptr_t)k[i].id) * 0xbf58476d1ce4e5b9ull;
		v ^= v >> 31;
	}
	return v;
}

uint32_t rf_hists__part(const struct rf_hists *h, const struct rf_hkey *k, uint32_t n)
{
	uint64_t v = 0xcbf29ce484222325ull;

	if (n <= 1)
		return 0;
	for (int i = 0; i < h->nr_keys; i++) {
		const struct rf_istr *is = k[i].id ?
			(const struct rf_istr *)(k[i].id - offsetof(struct rf_istr, s)) : NULL;

		v = (v ^ k[i].u) * 0x9e3779b97f4a7c15ull;
		v = (v ^ (v >> 29) ^ (is ? is->hash : 0)) * 0xbf58476d1ce4e5b9ull;
		v ^= v >> 31;
	}
	return (uint32_t)(v % n);
}

static bool key_eq(const struct rf_hists *h, const struct rf_hkey *a, const struct rf_hkey *b)
{
	for (int i = 0; i < h->nr_keys; i++)
		if (a[i].u != b[i].u || a[i].id != b[i].id)
			return false;
	return true;
}

static int tab_grow(struct rf_hists *h)
{
	size_t cap = h->cap * 2;
	struct rf_hentry **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		struct rf_hentry *e = h->tab[i], *n;

		for (; e; e = n) {
			n = e->next;
			e->next = t[e->hash & (cap - 1)];
			t[e->hash & (cap - 1)] = e;
		}
	}
	free(h->tab);
	h->tab = t;
	h->cap = cap;
	return 0;
}

static struct rf_hentry *insert(struct rf_hists *h, const struct rf_hkey *key, uint64_t hash)
{
	struct rf_hentry *e;

	if (h->nr >= h->cap && tab_grow(h))
		return NULL;
	e = calloc(1, sizeof(*e) + h->nr_keys * sizeof(e->k[0]));
	if (!e)
		return NULL;
	e->hash = hash;
	e->seq = (uint32_t)h->nr;
	e->first = UINT64_MAX;
	memcpy(e->k, key, h->nr_keys * sizeof(e->k[0]));
	e->next = h->tab[hash & (h->cap - 1)];
	h->tab[hash & (h->cap - 1)] = e;
	h->nr++;
	return e;
}

struct rf_hentry *rf_hists__new(struct rf_hists *h, const struct rf_hkey *key)
{
	return insert(h, key, key_hash(h, key));
}

struct rf_hentry *rf_hists__findnew(struct rf_hists *h, const struct rf_hkey *key, bool *made)
{
	struct rf_hentry *e = h->last;
	uint64_t hash;

	*made = false;
	/* runs of samples of one entry (a process in a loop) skip the hash */
	if (e && key_eq(h, e->k, key))
		return e;
	hash = key_hash(h, key);
	for (e = h->tab[hash & (h->cap - 1)]; e; e = e->next)
		if (e->hash == hash && key_eq(h, e->k, key))
			goto found;
	e = insert(h, key, hash);
	if (!e)
		return NULL;
	*made = true;
found:
	h->last = e;
	return e;
}

struct rf_hentry *rf_hists__add(struct rf_hists *h, const struct rf_hkey *key,
				uint64_t period, uint64_t weight, bool filtered)
{
	struct rf_hentry *e;
	bool made;

	e = rf_hists__findnew(h, key, &made);
	if (!e)
		return NULL;
	if (made)
		e->filtered = filtered;
	if (!e->filtered) {
		h->nr_samples++;
		h->total_period += period;
		h->total_weight += weight;
	}
	rf_hentry__count(e, period, weight);
	return e;
}

static int seq_cmp(const void *pa, const void *pb)
{
	const struct rf_hentry *a = *(const struct rf_hentry *const *)pa;
	const struct rf_hentry *b = *(const struct rf_hentry *const *)pb;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* a stable merge sort of v[0..n) through tmp */
static void merge_sort(struct rf_hentry **v, struct rf_hentry **tmp, size_t n,
		       int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(v, tmp, h, cmp, ctx);
	merge_sort(v + h, tmp, n - h, cmp, ctx);
	while (i < h && j < n)
		tmp[k++] = cmp(&v[j], &v[i], ctx) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

struct rf_hentry **rf_hists__sorted(struct rf_hists *h, size_t *n,
				    int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	struct rf_hentry **v, **tmp;
	size_t k = 0;

	*n = 0;
	if (!h->nr)
		return NULL;
	v = malloc(h->nr * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < h->cap; i++)
		for (struct rf_hentry *e = h->tab[i]; e; e = e->next)
			v[k++] = e;
	qsort(v, k, sizeof(*v), seq_cmp);
	if (cmp) {
		if (!(tmp = malloc(k * sizeof(*tmp)))) {
			free(v);
			return NULL;
		}
		merge_sort(v, tmp, k, cmp, ctx);
		free(tmp);
	}
	*n = k;
	return v;
}
