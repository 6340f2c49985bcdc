// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stack trie of internal/stacks.h: nodes in one array (a child's id is
 * above its parent's, so totals are one pass from the end), an open-addressing
 * table of (parent, name, kind) to node, names interned once in a pool, and a
 * self value per node for each weight.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/visit.h>

#include "internal/machine.h"
#include "internal/out.h"
#include "internal/report.h"
#include "internal/seqref.h"
#include "internal/stacks.h"

struct rf_stacks {
	struct rf_stack_node *nodes;
	uint32_t nr, cap;
	uint32_t *ntab; /* node ids, RF_STACKS_NONE for empty; ncap slots */
	uint32_t ncap;
	/* the name pool: NUL-terminated names, interned through stab */
	char *pool;
	size_t plen, pcap;
	uint32_t *stab; /* name ordinals + 1, 0 for empty */
	uint32_t scap, snr;
	uint32_t *noff; /* a name's pool offset by ordinal (snr of them) */
	uint32_t nocap;
	uint64_t **self; /* cap values each, made on first use */
	char **wname;
	uint64_t *wseq; /* -j: the sample that made each weight */
	int nr_w, wcap, max_w;
	/* -j: each node's first sample, cap of them once rf_stacks__set_seq() was called */
	uint64_t *seq;
	uint64_t cur_seq;
};

static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_node(uint32_t parent, uint32_t name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;

	return (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
}

static int64_t intern(struct rf_stacks *st, const char *name, size_t len);

int64_t rf_stacks__intern(struct rf_stacks *st, const char *name, size_t len)
{
	return intern(st, name, len);
}

struct rf_stacks *rf_stacks__new(const char *root_name)
{
	struct rf_stacks *st = calloc(1, sizeof(*st));
	int64_t root;

	if (!st)
		return NULL;
	st->cap = 1024;
	st->ncap = 2048;
	st->scap = 1024;
	st->pcap = 16384;
	st->nodes = malloc(st->cap * sizeof(*st->nodes));
	st->ntab = malloc(st->ncap * sizeof(*st->ntab));
	st->stab = calloc(st->scap, sizeof(*st->stab));
	st->pool = malloc(st->pcap);
	if (!st->nodes || !st->ntab || !st->stab || !st->pool)
		goto fail;
	memset(st->ntab, 0xff, st->ncap * sizeof(*st->ntab));
	/* the root is nobody's child: made here, never looked up */
	root = intern(st, root_name, strlen(root_name));
	if (root < 0)
		goto fail;
	st->max_w = RF_STACKS_MAX_WEIGHTS;
	st->nodes[RF_STACKS_ROOT] = (struct rf_stack_node){
		.parent = RF_STACKS_NONE, .first = RF_STACKS_NONE, .last = RF_STACKS_NONE,
		.next = RF_STACKS_NONE, .name = (uint32_t)root, .len = (uint32_t)strlen(root_name),
		.kind = RF_STACK_ROOT };
	st->nr = 1;
	return st;
fail:
	rf_stacks__delete(st);
	return NULL;
}

void rf_stacks__delete(struct rf_stacks *st)
{
	if (!st)
		return;
	for (int w = 0; w < st->nr_w; w++) {
		free(st->self[w]);
		free(st->wname[w]);
	}
	free(st->self);
	free(st->wname);
	free(st->wseq);
	free(st->nodes);
	free(st->seq);
	free(st->ntab);
	free(st->stab);
	free(st->noff);
	free(st->pool);
	free(st);
}

int rf_stacks__weight(struct rf_stacks *st, const char *name, size_t len)
{
	for (int w = 0; w < st->nr_w; w++)
		if (strlen(st->wname[w]) == len && !memcmp(st->wname[w], name, len))
			return w;
	if (st->nr_w == st->max_w)
		return -ENOSPC;
	if (st->nr_w == st->wcap) {
		int cap = st->wcap ? 2 * st->wcap : 8;
		uint64_t **self = realloc(st->self, (size_t)cap * sizeof(*self));
		char **wname;
		uint64_t *wseq;

		if (!self)
			return -ENOMEM;
		st->self = self;
		if (!(wname = realloc(st->wname, (size_t)cap * sizeof(*wname))))
			return -ENOMEM;
		st->wname = wname;
		if (!(wseq = realloc(st->wseq, (size_t)cap * sizeof(*wseq))))
			return -ENOMEM;
		st->wseq = wseq;
		st->wcap = cap;
	}
	st->self[st->nr_w] = NULL;
	st->wname[st->nr_w] = strndup(name, len);
	if (!st->wname[st->nr_w])
		return -ENOMEM;
	st->wseq[st->nr_w] = st->cur_seq;
	return st->nr_w++;
}

void rf_stacks__set_max_weights(struct rf_stacks *st, int max)
{
	st->max_w = max > st->nr_w ? max : st->nr_w;
}

int rf_stacks__nr_weights(const struct rf_stacks *st)
{
	return st->nr_w;
}

const char *rf_stacks__weight_name(const struct rf_stacks *st, int w)
{
	return w >= 0 && w < st->nr_w ? st->wname[w] : NULL;
}

static int stab_grow(struct rf_stacks *st)
{
	uint32_t cap = st->scap * 2, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < st->scap; i++) {
		uint32_t ord = st->stab[i], j;
		const char *s;

		if (!ord)
			continue;
		s = st->pool + st->noff[ord - 1];
		j = (uint32_t)hash_bytes(s, strlen(s)) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = ord;
	}
	free(st->stab);
	st->stab = t;
	st->scap = cap;
	return 0;
}

/* the ordinal of name, added on first use; -ENOMEM */
static int64_t intern(struct rf_stacks *st, const char *name, size_t len)
{
	uint64_t h = hash_bytes(name, len);
	uint32_t j;

	if (st->snr * 2 >= st->scap && stab_grow(st))
		return -ENOMEM;
	for (j = (uint32_t)h & (st->scap - 1); st->stab[j]; j = (j + 1) & (st->scap - 1)) {
		const char *s = st->pool + st->noff[st->stab[j] - 1];

		if (!strncmp(s, name, len) && !s[len])
			return st->stab[j] - 1;
	}
	if (st->snr == st->nocap) {
		uint32_t cap = st->nocap ? st->nocap * 2 : 1024, *t;

		if (!(t = realloc(st->noff, cap * sizeof(*t))))
			return -ENOMEM;
		st->noff = t;
		st->nocap = cap;
	}
	if (st->plen + len + 1 > st->pcap) {
		size_t cap = st->pcap * 2;
		char *p;

		while (cap < st->plen + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(st->pool, cap)))
			return -ENOMEM;
		st->pool = p;
		st->pcap = cap;
	}
	memcpy(st->pool + st->plen, name, len);
	st->pool[st->plen + len] = '\0';
	st->noff[st->snr] = (uint32_t)st->plen;
	st->plen += len + 1;
	st->stab[j] = ++st->snr;
	return st->snr - 1;
}

static int ntab_grow(struct rf_stacks *st)
{
	uint32_t cap = st->ncap * 2, *t = malloc(cap * sizeof(*t));

	if (!t)
		return -ENOMEM;
	memset(t, 0xff, cap * sizeof(*t));
	for (uint32_t id = 1; id < st->nr; id++) {
		const struct rf_stack_node *n = &st->nodes[id];
		uint32_t j = (uint32_t)hash_node(n->parent, n->name) & (cap - 1);

		while (t[j] != RF_STACKS_NONE)
			j = (j + 1) & (cap - 1);
		t[j] = id;
	}
	free(st->ntab);
	st->ntab = t;
	st->ncap = cap;
	return 0;
}

static int nodes_grow(struct rf_stacks *st)
{
	uint32_t cap = st->cap * 2;
	struct rf_stack_node *n;

	if (cap < st->cap)
		return -ENOMEM;
	n = realloc(st->nodes, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->nodes = n;
	if (st->seq) {
		uint64_t *q = realloc(st->seq, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		st->seq = q;
	}
	for (int w = 0; w < st->nr_w; w++) {
		uint64_t *v;

		if (!st->self[w])
			continue;
		v = realloc(st->self[w], cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + st->cap, 0, (cap - st->cap) * sizeof(*v));
		st->self[w] = v;
	}
	st->cap = cap;
	return 0;
}

int rf_stacks__child(struct rf_stacks *st, uint32_t parent, const char *name, size_t len,
		     uint8_t kind, uint32_t *node)
{
	int64_t off = intern(st, name, len);

	if (off < 0)
		return -ENOMEM;
	return rf_stacks__child_ord(st, parent, (uint32_t)off, (uint32_t)len, kind, node);
}

int rf_stacks__child_ord(struct rf_stacks *st, uint32_t parent, uint32_t off, uint32_t len,
			 uint8_t kind, uint32_t *node)
{
	struct rf_stack_node *n;
	uint32_t j, id;

	if (st->nr * 2 >= st->ncap && ntab_grow(st))
		return -ENOMEM;
	j = (uint32_t)hash_node(parent, off) & (st->ncap - 1);
	for (; (id = st->ntab[j]) != RF_STACKS_NONE; j = (j + 1) & (st->ncap - 1)) {
		n = &st->nodes[id];
		if (n->parent == parent && n->name == off) {
			*node = id;
			return 0;
		}
	}
	if (st->nr == st->cap && nodes_grow(st))
		return -ENOMEM;
	id = st->nr++;
	st->nodes[id] = (struct rf_stack_node){ .parent = parent, .first = RF_STACKS_NONE,
						.last = RF_STACKS_NONE, .next = RF_STACKS_NONE,
						.name = off, .len = len, .kind = kind };
	for (int w = 0; w < st->nr_w; w++)
		if (st->self[w])
			st->self[w][id] = 0;
	if (st->seq)
		st->seq[id] = st->cur_seq;
	if (parent != RF_STACKS_NONE) {
		struct rf_stack_node *p = &st->nodes[parent];

		if (p->last == RF_STACKS_NONE)
			p->first = id;
		else
			st->nodes[p->last].next = id;
		p->last = id;
	}
	st->ntab[j] = id;
	*node = id;
	return 0;
}

int rf_stacks__add(struct rf_stacks *st, uint32_t node, int w, uint64_t v)
{
	if (w < 0 || w >= st->nr_w || node >= st->nr)
		return -EINVAL;
	if (!st->self[w] && !(st->self[w] = calloc(st->cap, sizeof(uint64_t))))
		return -ENOMEM;
	st->self[w][node] += v;
	return 0;
}

int rf_stacks__set_seq(struct rf_stacks *st, uint64_t seq)
{
	if (!st->seq) {
		st->seq = calloc(st->cap, sizeof(*st->seq));
		if (!st->seq)
			return -ENOMEM;
	}
	st->cur_seq = seq;
	return 0;
}

/*
 * One job makes a node at the first sample through it, a sample's nodes root
 * first, and lists a node's children in the order it made them: the nodes of
 * all tries made again in (first sample, trie, id) order are the ones one job
 * makes, in its order. Weights likewise, by the sample that first had each
 * (a weight past the maximum keeps no values, as in one job). Self values
 * add up.
 */
int rf_stacks__merge(struct rf_stacks *dst, struct rf_stacks *const *v, int n)
{
	struct rf_stacks *out = NULL, tmp;
	uint32_t **map = NULL;
	int **wmap = NULL;
	struct rf_seqref *refs = NULL;
	size_t nr = 0, r = 0, nw = 0;
	int ret = -ENOMEM, k, w;

	/* dst is trie 0, v[k - 1] trie k */
	map = calloc((size_t)n + 1, sizeof(*map));
	wmap = calloc((size_t)n + 1, sizeof(*wmap));
	if (!map || !wmap)
		goto out;
	for (k = 0; k <= n; k++) {
		struct rf_stacks *a = k ? v[k - 1] : dst;

		/* a trie of the root alone met no sample: it has no order to give */
		if (!a->seq && a->nr > 1) {
			ret = -EINVAL;
			goto out;
		}
		nr += a->nr - 1;
		nw += (size_t)a->nr_w;
		if (!(map[k] = malloc(a->nr * sizeof(**map))) ||
		    !(wmap[k] = malloc((a->nr_w ? (size_t)a->nr_w : 1) * sizeof(**wmap))))
			goto out;
		map[k][RF_STACKS_ROOT] = RF_STACKS_ROOT;
	}
	refs = malloc((nr > nw ? nr : nw ? nw : 1) * sizeof(*refs));
	out = rf_stacks__new(rf_stacks__name(dst, RF_STACKS_ROOT));
	if (!refs || !out)
		goto out;
	for (k = 0, r = 0; k <= n; k++) {
		struct rf_stacks *a = k ? v[k - 1] : dst;

		for (w = 0; w < a->nr_w; w++)
			refs[r++] = (struct rf_seqref){ .seq = a->wseq[w], .k = (uint32_t)k,
							.i = (uint32_t)w };
	}
	qsort(refs, nw, sizeof(*refs), rf_seqref_cmp);
	for (r = 0; r < nw; r++) {
		struct rf_stacks *a = refs[r].k ? v[refs[r].k - 1] : dst;
		const char *name = a->wname[refs[r].i];

		out->cur_seq = refs[r].seq;
		w = rf_stacks__weight(out, name, strlen(name));
		if (w == -ENOMEM)
			goto out;
		wmap[refs[r].k][refs[r].i] = w;
	}
	for (k = 0, r = 0; k <= n; k++) {
		struct rf_stacks *a = k ? v[k - 1] : dst;

		for (uint32_t id = 1; id < a->nr; id++)
			refs[r++] = (struct rf_seqref){ .seq = a->seq[id], .k = (uint32_t)k,
							 .i = id };
	}
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (r = 0; r < nr; r++) {
		struct rf_stacks *a = refs[r].k ? v[refs[r].k - 1] : dst;
		const struct rf_stack_node *nd = &a->nodes[refs[r].i];

		/* the merged trie keeps the order: it can be merged again */
		if (rf_stacks__set_seq(out, refs[r].seq) ||
		    rf_stacks__child(out, map[refs[r].k][nd->parent], a->pool + a->noff[nd->name],
				     nd->len, nd->kind, &map[refs[r].k][refs[r].i]))
			goto out;
	}
	for (k = 0; k <= n; k++) {
		struct rf_stacks *a = k ? v[k - 1] : dst;

		for (w = 0; w < a->nr_w; w++) {
			if (wmap[k][w] < 0)
				continue;
			for (uint32_t id = 0; a->self[w] && id < a->nr; id++)
				if (a->self[w][id] &&
				    rf_stacks__add(out, map[k][id], wmap[k][w], a->self[w][id]))
					goto out;
		}
	}
	/* dst takes the merged trie; its old one goes with out */
	tmp = *dst;
	*dst = *out;
	*out = tmp;
	ret = 0;
out:
	rf_stacks__delete(out);
	for (k = 0; map && wmap && k <= n; k++) {
		free(map[k]);
		free(wmap[k]);
	}
	free(map);
	free(wmap);
	free(refs);
	return ret;
}

uint32_t rf_stacks__nr_nodes(const struct rf_stacks *st)
{
	return st->nr;
}

const struct rf_stack_node *rf_stacks__node(const struct rf_stacks *st, uint32_t id)
{
	return id < st->nr ? &st->nodes[id] : NULL;
}

const char *rf_stacks__name(const struct rf_stacks *st, uint32_t id)
{
	return st->pool + st->noff[st->nodes[id].name];
}

uint32_t rf_stacks__nr_names(const struct rf_stacks *st)
{
	return st->snr;
}

const char *rf_stacks__name_at(const struct rf_stacks *st, uint32_t ord)
{
	return ord < st->snr ? st->pool + st->noff[ord] : NULL;
}

uint64_t rf_stacks__self(const struct rf_stacks *st, uint32_t id, int w)
{
	return w >= 0 && w < st->nr_w && st->self[w] && id < st->nr ? st->self[w][id] : 0;
}

uint64_t *rf_stacks__totals(const struct rf_stacks *st, int w)
{
	uint64_t *t = calloc(st->nr, sizeof(*t));

	if (!t)
		return NULL;
	/* a child's id is above its parent's: from the end, each adds to its parent */
	for (uint32_t id = st->nr; id-- > 1;) {
		t[id] += rf_stacks__self(st, id, w);
		if (st->nodes[id].parent != RF_STACKS_NONE)
			t[st->nodes[id].parent] += t[id];
	}
	return t;
}

/* ---- folded ---- */

struct fline {
	char *s;
	uint64_t v;
};

static int fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->s, ((const struct fline *)b)->s);
}

/* the path below the root ("all") to id, ';'-joined; NULL on ENOMEM */
static char *path_of(const struct rf_stacks *st, uint32_t id)
{
	size_t len = 0, at;
	char *s;

	if (id == RF_STACKS_ROOT)
		return strdup("");
	for (uint32_t n = id; n != RF_STACKS_ROOT; n = st->nodes[n].parent)
		len += st->nodes[n].len + 1;
	len--; /* n names, n - 1 separators */
	s = malloc(len + 1);
	if (!s)
		return NULL;
	at = len;
	s[at] = '\0';
	for (uint32_t n = id; n != RF_STACKS_ROOT; n = st->nodes[n].parent) {
		at -= st->nodes[n].len;
		memcpy(s + at, st->pool + st->noff[st->nodes[n].name], st->nodes[n].len);
		if (at)
			s[--at] = ';';
	}
	return s;
}

int rf_stacks__folded(const struct rf_stacks *st, int w, struct rawfrag_out *o)
{
	struct fline *v = NULL;
	size_t n = 0, cap = 0;
	int ret = -ENOMEM;

	for (uint32_t id = 0; id < st->nr; id++) {
		uint64_t self = rf_stacks__self(st, id, w);

		if (!self)
			continue;
		if (n == cap) {
			struct fline *t = realloc(v, (cap = cap ? cap * 2 : 1024) * sizeof(*v));

			if (!t)
				goto out;
			v = t;
		}
		v[n].v = self;
		if (!(v[n].s = path_of(st, id)))
			goto out;
		n++;
	}
	qsort(v, n, sizeof(*v), fline_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = v[i].v;

		/* two paths can give one string (a ';' in a comm): one line, as a dict does */
		while (i + 1 < n && !strcmp(v[i].s, v[i + 1].s))
			sum += v[++i].v;
		rawfrag_out__puts(o, v[i].s);
		rf_out_putc(o, ' ');
		rawfrag_out__u64(o, sum);
		rf_out_putc(o, '\n');
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].s);
	free(v);
	return ret;
}

/* ---- flamegraph.py's JSON tree ---- */

static void json_node(const struct rf_stacks *st, int w, const char *const *kinds,
		      const uint64_t *tot, uint32_t id, struct rawfrag_out *o)
{
	const struct rf_stack_node *n = &st->nodes[id];
	bool first = true;

	rawfrag_out__puts(o, "{\"n\": ");
	rawfrag_out__json_str(o, st->pool + st->noff[n->name], n->len);
	rawfrag_out__puts(o, ", \"l\": ");
	rawfrag_out__json_str(o, kinds[n->kind], (size_t)-1);
	rawfrag_out__puts(o, ", \"v\": ");
	rawfrag_out__u64(o, rf_stacks__self(st, id, w));
	rawfrag_out__puts(o, ", \"c\": [");
	for (uint32_t c = n->first; c != RF_STACKS_NONE; c = st->nodes[c].next) {
		if (!tot[c])
			continue;
		if (!first)
			rawfrag_out__puts(o, ", ");
		first = false;
		json_node(st, w, kinds, tot, c, o);
	}
	rawfrag_out__puts(o, "]}");
}

int rf_stacks__json(const struct rf_stacks *st, int w, const char *const *kinds,
		    struct rawfrag_out *o)
{
	uint64_t *tot = rf_stacks__totals(st, w);

	if (!tot)
		return -ENOMEM;
	json_node(st, w, kinds, tot, RF_STACKS_ROOT, o);
	free(tot);
	return 0;
}

/* ---- samples to stacks ---- */

const char *const rf_stack_kinds[] = { [RF_STACK_USER] = "", [RF_STACK_KERNEL] = "kernel",
				       [RF_STACK_ROOT] = "root" };

void rf_stack_walk__fini(struct rf_stack_walk *w)
{
	rawfrag_callchain__delete(w->cc);
	free(w->buf);
	free(w->memo);
	free(w->chains);
	free(w->chain_ips);
	w->chains = NULL;
	w->chain_ips = NULL;
	w->chains_nr = w->chain_ips_nr = 0;
	w->cc = NULL;
	w->buf = NULL;
	w->memo = NULL;
	w->memo_cap = w->memo_nr = 0;
}

static uint32_t memo_slot(const struct rf_stack_walk *w, const char *sym, bool k)
{
	uint64_t h = ((uint64_t)(uintptr_t)sym ^ k) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (w->memo_cap - 1);
}

static struct rf_stack_memo *memo_find(struct rf_stack_walk *w, const struct rf_stacks *st,
				       const char *sym, bool k)
{
	struct rf_stack_memo *e;

	if (w->memo_st != st) {
		w->memo_nr = 0;
		if (w->memo)
			memset(w->memo, 0, w->memo_cap * sizeof(*w->memo));
		w->memo_st = st;
	}
	if (!w->memo_nr)
		return NULL;
	for (uint32_t j = memo_slot(w, sym, k);; j = (j + 1) & (w->memo_cap - 1)) {
		e = &w->memo[j];
		if (!e->sym)
			return NULL;
		if (e->sym == sym && e->k == k)
			return e;
	}
}

/* best effort: without memory the name is hashed again next time */
static void memo_add(struct rf_stack_walk *w, const char *sym, bool k, uint32_t ord, uint32_t len)
{
	uint32_t j;

	if ((w->memo_nr + 1) * 2 > w->memo_cap) {
		uint32_t cap = w->memo_cap ? w->memo_cap * 2 : 4096, old = w->memo_cap;
		struct rf_stack_memo *t = calloc(cap, sizeof(*t)), *o = w->memo;

		if (!t)
			return;
		w->memo = t;
		w->memo_cap = cap;
		for (uint32_t i = 0; i < old; i++) {
			if (!o[i].sym)
				continue;
			for (j = memo_slot(w, o[i].sym, o[i].k); t[j].sym; j = (j + 1) & (cap - 1))
				;
			t[j] = o[i];
		}
		free(o);
	}
	for (j = memo_slot(w, sym, k); w->memo[j].sym; j = (j + 1) & (w->memo_cap - 1))
		;
	w->memo[j] = (struct rf_stack_memo){ .sym = sym, .ord = ord, .len = len, .k = k };
	w->memo_nr++;
}

static char *walk_room(struct rf_stack_walk *w, size_t n)
{
	if (n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		char *b;

		while (cap < n)
			cap *= 2;
		b = realloc(w->buf, cap);
		if (!b)
			return NULL;
		w->buf = b;
		w->cap = cap;
	}
	return w->buf;
}

/* stackcollapse.py's first frame: comm (spaces as '_'), "-pid", "/tid" */
static int comm_node(struct rf_stack_walk *w, struct rf_stacks *st, struct rawfrag_report *rep,
		     const struct rawfrag_sample *smp, uint32_t *node)
{
	int len, n;
	const char *comm = rf_report__comm(rep, smp, &len);
	char *b = walk_room(w, (size_t)len + 48);

	if (!b)
		return -ENOMEM;
	memcpy(b, comm, (size_t)len);
	/* perf's Python gives the sample's pid and tid unsigned: -1 is 4294967295 */
	if (w->flame) {
		/* flamegraph.py: pid 0 is the kernel's, others "comm (pid)" */
		if (smp->pid == 0)
			return rf_stacks__child(st, RF_STACKS_ROOT, b, (size_t)len,
						RF_STACK_KERNEL, node);
		n = len + snprintf(b + len, 48, " (%u)", smp->pid);
		return rf_stacks__child(st, RF_STACKS_ROOT, b, (size_t)n, RF_STACK_USER, node);
	}
	for (int i = 0; i < len; i++)
		if (b[i] == ' ')
			b[i] = '_';
	n = len;
	if (w->pid)
		n += snprintf(b + n, 24, "-%u", smp->pid);
	if (w->tid)
		n += snprintf(b + n, 24, "%c%u", w->pid ? '/' : '-', smp->tid);
	return rf_stacks__child(st, RF_STACKS_ROOT, b, (size_t)n, RF_STACK_USER, node);
}

static bool kernel_dso(const char *dso, bool flame)
{
	size_t n;

	if (!dso)
		return false;
	if (!strcmp(dso, "[kernel.kallsyms]"))
		return true;
	/* flamegraph.py: a vmlinux with debug info is the kernel too */
	n = strlen(dso);
	return flame && n >= 8 && !strcmp(dso + n - 8, "/vmlinux");
}

static int frame_node(struct rf_stack_walk *w, struct rf_stacks *st, uint32_t parent,
		      const struct rawfrag_frame *fr, uint32_t *node)
{
	const char *sym = fr->sym ? fr->sym : "[unknown]";
	bool k;
	uint8_t kind;
	const struct rf_stack_memo *e = NULL;
	const char *name = sym;
	size_t len;
	int64_t ord;
	char *b;

	/* a chain's frames run through one DSO after another: compare names once a run */
	if (!fr->dso || fr->dso != w->last_dso) {
		w->last_dso = fr->dso;
		w->last_kernel = kernel_dso(fr->dso, w->flame);
	}
	k = w->last_kernel;
	kind = w->flame && k ? RF_STACK_KERNEL : RF_STACK_USER;
	if (!fr->inlined && (e = memo_find(w, st, sym, k)))
		return rf_stacks__child_ord(st, parent, e->ord, e->len, kind, node);
	len = strlen(sym);
	/* stackcollapse.py: ';' is its separator, --kernel marks kernel frames */
	if (!w->flame && (strchr(sym, ';') || (k && w->kernel))) {
		b = walk_room(w, len + 5);
		if (!b)
			return -ENOMEM;
		for (size_t i = 0; i < len; i++)
			b[i] = sym[i] == ';' ? ':' : sym[i];
		if (k && w->kernel) {
			memcpy(b + len, "_[k]", 4);
			len += 4;
		}
		name = b;
	}
	ord = rf_stacks__intern(st, name, len);
	if (ord < 0)
		return -ENOMEM;
	if (!fr->inlined)
		memo_add(w, sym, k, (uint32_t)ord, (uint32_t)len);
	return rf_stacks__child_ord(st, parent, (uint32_t)ord, (uint32_t)len, kind, node);
}

/* ---- whole chains ---- */

/* slots of the chain table and addresses of its pool: 2.5 and 4 MiB */
#define CHAINS_CAP (1u << 16)
#define CHAIN_IPS_CAP (1u << 19)
/*
 * A miss costs a lookup and a copy: where fewer than a quarter of a window's
 * chains were seen before (a compiler's stacks), lookups rest for a while
 */
#define CHAINS_WINDOW 4096
#define CHAINS_REST (64 * CHAINS_WINDOW)

/* the chain's bytes as recorded: a file's byte order is the same throughout */
static uint64_t chain_hash(uint32_t parent, uint64_t ugen, uint64_t kgen, const uint8_t *ips,
			   uint32_t nr)
{
	uint64_t h = (parent ^ ugen * 0x9e3779b97f4a7c15ull ^ kgen << 32) * 0xff51afd7ed558ccdull;
	uint64_t ip;

	for (uint32_t i = 0; i < nr; i++) {
		memcpy(&ip, ips + 8 * (size_t)i, 8);
		h = (h ^ ip) * 0xc4ceb9fe1a85ec53ull;
	}
	return h ^ h >> 29;
}

static struct rf_chain_memo *chain_find(struct rf_stack_walk *w, const struct rf_stacks *st,
					uint64_t h, uint32_t parent, uint64_t ugen, uint64_t kgen,
					const uint8_t *ips, uint32_t nr)
{
	struct rf_chain_memo *e;

	if (w->chains_st != st) {
		w->chains_nr = w->chain_ips_nr = 0;
		if (w->chains)
			memset(w->chains, 0, CHAINS_CAP * sizeof(*w->chains));
		w->chains_st = st;
	}
	if (!w->chains_nr)
		return NULL;
	for (uint32_t j = (uint32_t)h & (CHAINS_CAP - 1);; j = (j + 1) & (CHAINS_CAP - 1)) {
		e = &w->chains[j];
		if (!e->nr)
			return NULL;
		if (e->hash == h && e->parent == parent && e->ugen == ugen && e->kgen == kgen &&
		    e->nr == nr + 1 && !memcmp(&w->chain_ips[e->off], ips, (size_t)nr * 8))
			return e;
	}
}

/* best effort: without memory the chain is resolved again next time */
static void chain_add(struct rf_stack_walk *w, uint64_t h, uint32_t parent, uint64_t ugen,
		      uint64_t kgen, const uint8_t *ips, uint32_t nr, uint32_t leaf)
{
	uint32_t j;

	if (nr > CHAIN_IPS_CAP)
		return;
	if (!w->chains) {
		w->chains = calloc(CHAINS_CAP, sizeof(*w->chains));
		w->chain_ips = malloc(CHAIN_IPS_CAP * sizeof(*w->chain_ips));
		if (!w->chains || !w->chain_ips) {
			free(w->chains);
			free(w->chain_ips);
			w->chains = NULL;
			w->chain_ips = NULL;
			return;
		}
	}
	/* full (the table half): start again rather than grow, memory stays flat */
	if ((w->chains_nr + 1) * 2 > CHAINS_CAP || w->chain_ips_nr + nr > CHAIN_IPS_CAP) {
		memset(w->chains, 0, CHAINS_CAP * sizeof(*w->chains));
		w->chains_nr = w->chain_ips_nr = 0;
	}
	for (j = (uint32_t)h & (CHAINS_CAP - 1); w->chains[j].nr; j = (j + 1) & (CHAINS_CAP - 1))
		;
	memcpy(&w->chain_ips[w->chain_ips_nr], ips, (size_t)nr * 8);
	/* nr + 1: an empty slot is 0 */
	w->chains[j] = (struct rf_chain_memo){ .hash = h, .ugen = ugen, .kgen = kgen, .parent = parent,
					       .leaf = leaf, .off = w->chain_ips_nr, .nr = nr + 1 };
	w->chain_ips_nr += nr;
	w->chains_nr++;
}

int rf_stack_walk__sample(struct rf_stack_walk *w, struct rf_stacks *st,
			  struct rawfrag_report *rep, const struct rawfrag_event *ev,
			  uint32_t *leaf)
{
	const struct rawfrag_sample *smp = ev->sample;
	struct rawfrag_machine *m = rawfrag_report__machine(rep);
	uint32_t node = RF_STACKS_ROOT, parent, nips = 0;
	uint64_t h = 0, ugen = 0, kgen = 0, ugen2, kgen2;
	const uint8_t *ips = NULL; /* set: the chain is kept once resolved */
	int nr, ret;

	if (!w->cc && !(w->cc = rawfrag_callchain__new()))
		return -ENOMEM;
	if ((w->comm || w->flame) && (ret = comm_node(w, st, rep, smp, &node)))
		return ret;
	parent = node;
	/*
	 * A chain the kernel's frame pointers gave, in maps seen with it before:
	 * its leaf. Unwound chains depend on the stack's bytes too: not kept.
	 */
	if ((smp->sample_type & PERF_SAMPLE_CALLCHAIN) && smp->callchain && m &&
	    !rf_sample__unwound(smp) && smp->callchain_nr <= CHAIN_IPS_CAP &&
	    (!w->chains_rest || --w->chains_rest == 0)) {
		const struct rf_chain_memo *e;

		nips = (uint32_t)smp->callchain_nr;
		ugen = rf_machine__maps_gen(m, (int32_t)smp->pid, &kgen);
		h = chain_hash(parent, ugen, kgen, smp->callchain, nips);
		e = chain_find(w, st, h, parent, ugen, kgen, smp->callchain, nips);
		w->chains_hit += e != NULL;
		if (++w->chains_tried == CHAINS_WINDOW) {
			if (w->chains_hit * 4 < CHAINS_WINDOW)
				w->chains_rest = CHAINS_REST;
			w->chains_tried = w->chains_hit = 0;
		}
		if (e) {
			*leaf = e->leaf;
			return 0;
		}
		ips = smp->callchain;
	}
	/*
	 * perf's scripts see the chain perf script prints; a sample without one
	 * stops at its comm (perf hands the scripts an empty chain then)
	 */
	nr = rawfrag_callchain__resolve(w->cc, m, smp, rawfrag_evsel__attr(ev->evsel),
					w->max_stack);
	if (nr < 0)
		return nr;
	for (uint32_t i = w->cc->nr; i-- > 0;)
		if ((ret = frame_node(w, st, node, &w->cc->frames[i], &node)))
			return ret;
	*leaf = node;
	/* resolving may have loaded symbols that moved a map: the chain is kept by the maps after */
	if (ips) {
		ugen2 = rf_machine__maps_gen(m, (int32_t)smp->pid, &kgen2);
		if (ugen2 == ugen && kgen2 == kgen)
			chain_add(w, h, parent, ugen, kgen, ips, nips, node);
	}
	return 0;
}

/* ---- weights ---- */

struct wvisit {
	const char *path;
	size_t len;
	uint64_t v;
	bool found;
};

static int weight_field(void *ctx, const struct rawfrag_field *f)
{
	struct wvisit *wv = ctx;

	if (f->path_len != wv->len || memcmp(f->path, wv->path, wv->len))
		return 0;
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: wv->v = f->v.u; break;
	case RAWFRAG_FIELD_S64: wv->v = f->v.s > 0 ? (uint64_t)f->v.s : 0; break;
	case RAWFRAG_FIELD_BOOL: wv->v = f->v.b; break;
	default: return 0;
	}
	wv->found = true;
	return 1; /* found: the visit stops */
}

int rf_stacks__sample_weight(struct rawfrag_report *rep, const struct rawfrag_event *ev,
			     const char *name, uint64_t *v)
{
	const struct rawfrag_sample *smp = ev->sample;
	struct wvisit wv = { .path = name, .len = strlen(name) };
	struct rawfrag_visitor vis = { .sz = sizeof(vis), .field = weight_field, .ctx = &wv };

	if (!strcmp(name, "samples")) {
		*v = 1;
		return 1;
	}
	if (!strcmp(name, "period")) {
		*v = smp->sample_type & PERF_SAMPLE_PERIOD ?
			     smp->period : rawfrag_evsel__attr(ev->evsel)->sample_period;
		return 1;
	}
	rawfrag_session__sample_visit(rawfrag_report__session(rep), ev->evsel, ev->rec, smp, &vis);
	*v = wv.v;
	return wv.found;
}
