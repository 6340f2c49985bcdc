// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf's symbol tree, replayed. perf keeps a DSO's symbols in a red-black
 * tree keyed by start address and looks an address up by walking it from
 * the root, taking the first node whose [start, end) holds it. Where symbols
 * overlap (a sizeless _init stretched over the .plt stubs synthesized after
 * it), the answer depends on the tree's shape: which node the walk meets
 * first. The shape follows from the insertions (the .symtab in file order,
 * then the @plt symbols), the erasures of aliases and the balancing, so
 * the same operations are done here on a tree of the same kind. DSOs
 * without overlaps never need it: a binary search gives the same answer.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal/machine.h"

#define NIL UINT32_MAX

struct node {
	uint64_t start;
	uint32_t id; /* the symbol's name offset: unique, growing with insertion order */
	uint32_t sym; /* index in the DSO's sorted symbols, once finished */
	uint32_t l, r, p;
	uint8_t red;
};

struct rf_symtree {
	struct node *n;
	uint32_t nr, cap, root;
	uint32_t live; /* nodes not erased */
};

static void rotate(struct rf_symtree *t, uint32_t x, bool left)
{
	struct node *v = t->n;
	uint32_t y = left ? v[x].r : v[x].l;
	uint32_t b = left ? v[y].l : v[y].r;

	if (left) {
		v[x].r = b;
		v[y].l = x;
	} else {
		v[x].l = b;
		v[y].r = x;
	}
	if (b != NIL)
		v[b].p = x;
	v[y].p = v[x].p;
	if (v[x].p == NIL)
		t->root = y;
	else if (v[v[x].p].l == x)
		v[v[x].p].l = y;
	else
		v[v[x].p].r = y;
	v[x].p = y;
}

static bool is_red(const struct rf_symtree *t, uint32_t x)
{
	return x != NIL && t->n[x].red;
}

/* equal starts go right, as perf's __symbols__insert() does */
static void insert(struct rf_symtree *t, uint32_t z)
{
	struct node *v = t->n;
	uint32_t y = NIL, x = t->root;

	while (x != NIL) {
		y = x;
		x = v[z].start < v[x].start ? v[x].l : v[x].r;
	}
	v[z].p = y;
	v[z].l = v[z].r = NIL;
	v[z].red = 1;
	if (y == NIL)
		t->root = z;
	else if (v[z].start < v[y].start)
		v[y].l = z;
	else
		v[y].r = z;
	while (is_red(t, v[z].p)) {
		uint32_t p = v[z].p, g = v[p].p;
		bool pl = v[g].l == p;
		uint32_t u = pl ? v[g].r : v[g].l;

		if (is_red(t, u)) {
			v[p].red = v[u].red = 0;
			v[g].red = 1;
			z = g;
			continue;
		}
		if (z == (pl ? v[p].r : v[p].l)) {
			z = p;
			rotate(t, z, pl);
			p = v[z].p;
		}
		v[p].red = 0;
		v[g].red = 1;
		rotate(t, g, !pl);
	}
	v[t->root].red = 0;
}

static void transplant(struct rf_symtree *t, uint32_t u, uint32_t w)
{
	struct node *v = t->n;

	if (v[u].p == NIL)
		t->root = w;
	else if (v[v[u].p].l == u)
		v[v[u].p].l = w;
	else
		v[v[u].p].r = w;
	if (w != NIL)
		v[w].p = v[u].p;
}

static void erase_fixup(struct rf_symtree *t, uint32_t x, uint32_t xp)
{
	struct node *v = t->n;

	while (x != t->root && !is_red(t, x)) {
		/* x is a left child unless it is its parent's right one (x may be NIL) */
		bool xl = v[xp].r != x;
		uint32_t w = xl ? v[xp].r : v[xp].l;

		if (is_red(t, w)) {
			v[w].red = 0;
			v[xp].red = 1;
			rotate(t, xp, xl);
			w = xl ? v[xp].r : v[xp].l;
		}
		if (!is_red(t, v[w].l) && !is_red(t, v[w].r)) {
			v[w].red = 1;
			x = xp;
			xp = v[x].p;
			continue;
		}
		if (!is_red(t, xl ? v[w].r : v[w].l)) {
			v[xl ? v[w].l : v[w].r].red = 0;
			v[w].red = 1;
			rotate(t, w, !xl);
			w = xl ? v[xp].r : v[xp].l;
		}
		v[w].red = v[xp].red;
		v[xp].red = 0;
		v[xl ? v[w].r : v[w].l].red = 0;
		rotate(t, xp, xl);
		x = t->root;
		break;
	}
	if (x != NIL)
		v[x].red = 0;
}

/* the successor takes the place of a node with two children, as in perf's rbtree */
static void erase(struct rf_symtree *t, uint32_t z)
{
	struct node *v = t->n;
	uint32_t x, xp, y = z;
	uint8_t was_red = v[z].red;

	if (v[z].l == NIL || v[z].r == NIL) {
		x = v[z].l == NIL ? v[z].r : v[z].l;
		xp = v[z].p;
		transplant(t, z, x);
	} else {
		y = v[z].r;
		while (v[y].l != NIL)
			y = v[y].l;
		was_red = v[y].red;
		x = v[y].r;
		if (v[y].p == z) {
			xp = y;
		} else {
			xp = v[y].p;
			transplant(t, y, x);
			v[y].r = v[z].r;
			v[v[y].r].p = y;
		}
		transplant(t, z, y);
		v[y].l = v[z].l;
		v[v[y].l].p = y;
		v[y].red = v[z].red;
	}
	if (!was_red)
		erase_fixup(t, x, xp);
}

/* the node of the symbol named at offset id (ids grow with the node index) */
static uint32_t by_id(const struct rf_symtree *t, uint32_t id)
{
	uint32_t lo = 0, hi = t->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->n[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr && t->n[lo].id == id ? lo : NIL;
}

int rf_symtree__add(struct rf_symtree *t, const struct rf_dso *d, size_t from)
{
	size_t need = t->nr + (d->nr_syms - from);

	if (need >= NIL)
		return -E2BIG;
	if (need > t->cap) {
		struct node *n = realloc(t->n, need * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->n = n;
		t->cap = (uint32_t)need;
	}
	for (size_t i = from; i < d->nr_syms; i++) {
		uint32_t z = t->nr++;

		t->n[z].start = d->syms[i].start;
		t->n[z].id = d->syms[i].name;
		t->n[z].sym = NIL;
		insert(t, z);
		t->live++;
	}
	return 0;
}

struct rf_symtree *rf_symtree__new(const struct rf_dso *d)
{
	struct rf_symtree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->root = NIL;
	if (rf_symtree__add(t, d, 0)) {
		rf_symtree__free(t);
		return NULL;
	}
	return t;
}

void rf_symtree__drop(struct rf_symtree *t, uint32_t id)
{
	uint32_t z = by_id(t, id);

	if (z != NIL && t->n[z].sym == NIL) {
		erase(t, z);
		t->n[z].sym = NIL - 1; /* erased: never twice */
		t->live--;
	}
}

bool rf_symtree__finish(struct rf_symtree *t, const struct rf_dso *d)
{
	uint64_t maxend = 0;
	bool overlap = false;

	if (t->live != d->nr_syms)
		return false;
	for (size_t i = 0; i < d->nr_syms; i++) {
		uint32_t z = by_id(t, d->syms[i].name);

		if (z == NIL || t->n[z].sym != NIL)
			return false;
		t->n[z].sym = (uint32_t)i;
		if (i && d->syms[i].start < maxend)
			overlap = true;
		if (d->syms[i].end > maxend)
			maxend = d->syms[i].end;
	}
	return overlap;
}

/* perf's symbols__find(): the first node on the path from the root that holds addr */
const struct rf_sym *rf_symtree__find(const struct rf_symtree *t, const struct rf_dso *d,
				      uint64_t addr)
{
	uint32_t x = t->root;

	while (x != NIL) {
		const struct rf_sym *s = &d->syms[t->n[x].sym];

		if (addr < s->start)
			x = t->n[x].l;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = t->n[x].r;
		else
			return s;
	}
	return NULL;
}

void rf_symtree__free(struct rf_symtree *t)
{
	if (!t)
		return;
	free(t->n);
	free(t);
}
