// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf report's call chains in the hists (6.1): the cumulative add of
 * --children (util/hist.c's cumulative iterator: a sample adds its period
 * once to each distinct entry of its chain), a call tree per entry
 * (util/callchain.c's, with its node boundaries where a chain ends or
 * branches), its sort (graph: by cumulative period, flat and folded: by
 * self period, children before parents on ties) and its printers
 * (ui/stdio/hist.c), so that the output is byte for byte perf's. With
 * inlined functions (DWARF-unwound chains) its entry trees too (pt_*).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "internal/hists_cc.h"
#include "internal/machine.h"
#include "internal/opts.h"
#include "internal/out.h"

#define NOFRAME UINT32_MAX
#define KCACHE 4096

struct ccframe {
	const char *dso, *sym; /* interned; sym NULL: unresolved ("0x.." of addr) */
	const char *base; /* an inlined function: the symbol at its container's start */
	uint64_t addr; /* the symbol's start, or the address when unresolved */
	uint64_t end; /* the symbol's end (an inlined function: its container's) */
	uint32_t dso_rank; /* perf orders a node's children by DSO first */
	uint32_t nlen; /* the name's length without " (inlined)" */
	char level; /* 'k', '.', or 0: no map, the previous frame's level holds */
	bool inlined, object;
};

/*
 * A trie node: a frame of perf's call tree node (a run of frames up to where
 * a chain ends or branches). Its children are also kept in a red-black tree
 * (rb_*) that works as perf's rb_root_in: perf finds a chain's next node by
 * walking that tree with its match (inlined functions by name, others by DSO
 * and address), which is not a total order, so both the order of equal
 * children and, rarely, a second node for one function follow its shape.
 */
struct ccnode {
	uint32_t parent, child, sibling, frame;
	uint32_t rb_root; /* of the children's tree: cc->rb[], 0 none (node 0 is never a child) */
	uint64_t ip; /* the address of the first chain here: perf orders by it unresolved */
	uint64_t hit, chit; /* period of chains ending here, of those going on */
	uint32_t count, ccount; /* the same in samples */
};

struct rbn {
	uint32_t l, r, p; /* 0: none */
	bool red;
};

struct kslot {
	uint64_t ip;
	uint32_t gen, frame;
	bool valid;
};

/*
 * A sample's chain seen before (same entry, same frames) adds to the same
 * entries and tree nodes: what it adds is kept here and summed, and the
 * sums go to the nodes when the slot is taken by another chain or before
 * printing. Additions commute, so the result is the same.
 */
#define CSLOTS 512
#define CSLOT_MAX 256 /* longer chains are not kept */

struct cslot {
	struct rf_hentry *e; /* NULL: empty */
	uint64_t hash, period;
	uint32_t count, n;
	uint32_t *frames;
	struct rf_hentry **acc; /* the entries the chain adds children to */
	uint32_t nacc, *mids, nmids, *ends, nends, cap;
};

struct rf_cc {
	struct rf_cc_params p;
	bool children;
	uint32_t max_stack;
	/*
	 * perf's entries_in tree, once a chain holds an inlined function: from
	 * then on it, not the key's hash, tells the entries (pt_*)
	 */
	bool pt_on, inl, obj; /* this chain has an inlined frame, a data symbol */
	int nr_keys, pt_sym; /* the symbol's key slot, -1: none */
	bool pt_collapse; /* perf's collapse pass (a comm key) */
	bool slot_dso; /* a DSO key: the symbol's compare leaves the DSO to it */
	enum rf_cc_slot kinds[RF_HISTS_MAX_KEYS];
	rf_cc_slot_cmp_fn slot_cmp;
	void *slot_ctx;
	struct rf_hentry **pe; /* every entry, by its number - 1: the order made */
	struct rbn *prb; /* their links in the tree, by number */
	uint32_t nr_pe, cap_pe, proot;
	uint32_t *maps; /* the chain's frames' maps */
	uint64_t *deltas; /* their maps' start - pgoff (perf's unmap_ip) */
	struct ccframe *fr;
	uint32_t nr_fr, cap_fr;
	uint32_t *fr_tab; /* open addressing, frame index + 1 */
	uint32_t fr_tabcap;
	const char **dsos; /* by rank - 1 */
	uint32_t nr_dsos;
	struct ccnode *nd;
	struct rbn *rb; /* the nodes' links in their parent's rb_root, by node index */
	uint32_t nr_nd, cap_nd;
	struct kslot *kc;
	uint32_t *chain, cap_chain, nr_chain;
	uint64_t *ips; /* the chain's addresses */
	struct rf_hentry **seen; /* the entries one sample added to */
	uint32_t cap_seen;
	struct rawfrag_callchain *dw;
	struct cslot *slots, *rec; /* rec: the slot being filled by this sample */
	struct rawfrag_out *o; /* while printing */
	uint64_t min_hit;
	/* report -j: the part of the entries this worker keeps trees and children for */
	uint32_t part, nparts;
};

static int pt_start(struct rf_cc *cc);

/* ---- -g ---- */

static bool prefix_of(const char *tok, const char *word)
{
	return !strncmp(tok, word, strlen(tok));
}

int rf_cc_params__parse(struct rf_cc_params *p, const char *s, struct rawfrag_err *err)
{
	char *dup = strdup(s), *save = NULL, *end, msg[160];
	bool minpcnt_set = false;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		/* perf takes each token as a prefix of a word, in this order */
		if (prefix_of(tok, "none")) {
			p->mode = RF_CC_NONE;
			break;
		}
		if (prefix_of(tok, "graph")) {
			p->mode = RF_CC_GRAPH;
		} else if (prefix_of(tok, "flat")) {
			p->mode = RF_CC_FLAT;
		} else if (prefix_of(tok, "fractal")) {
			p->mode = RF_CC_FRACTAL;
		} else if (prefix_of(tok, "folded")) {
			p->mode = RF_CC_FOLDED;
		} else if (prefix_of(tok, "callee") || prefix_of(tok, "caller")) {
			p->caller = prefix_of(tok, "caller") && !prefix_of(tok, "callee");
			p->order_set = true;
		} else if (prefix_of(tok, "function")) {
			/* the default key */
		} else if (prefix_of(tok, "address") || prefix_of(tok, "srcline") ||
			   prefix_of(tok, "branch")) {
			snprintf(msg, sizeof(msg), "table output: callgraph key '%.40s' is not "
						   "supported (function only)", tok);
			ret = -EINVAL;
			break;
		} else if (prefix_of(tok, "percent")) {
			p->value = RF_CC_PERCENT;
		} else if (prefix_of(tok, "period")) {
			p->value = RF_CC_PERIOD;
		} else if (prefix_of(tok, "count")) {
			p->value = RF_CC_COUNT;
		} else if (!minpcnt_set) {
			p->min_percent = strtod(tok, &end);
			if (end == tok || *end) {
				snprintf(msg, sizeof(msg), "table output: callgraph '%.40s': '%.30s' "
							   "is no type, order or threshold", s, tok);
				ret = -EINVAL;
				break;
			}
			minpcnt_set = p->threshold_set = true;
		} else {
			unsigned long v = strtoul(tok, &end, 0);

			if (end == tok || *end || v > UINT32_MAX) {
				snprintf(msg, sizeof(msg), "table output: callgraph '%.40s': '%.30s' "
							   "is no print limit", s, tok);
				ret = -EINVAL;
				break;
			}
			p->print_limit = (uint32_t)v;
		}
	}
	free(dup);
	if (ret)
		rf_err_set(err, ret, msg);
	return ret;
}

/* ---- frames ---- */

struct rf_cc *rf_cc__new(const struct rf_cc_params *p, bool children, uint32_t max_stack)
{
	struct rf_cc *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->p = *p;
	cc->children = children;
	cc->pt_sym = -1;
	cc->max_stack = max_stack ? max_stack : 127; /* perf's default, the kernel's too */
	cc->fr_tabcap = 1024;
	cc->fr_tab = calloc(cc->fr_tabcap, sizeof(*cc->fr_tab));
	cc->dw = rawfrag_callchain__new();
	if (!cc->fr_tab || !cc->dw) {
		rf_cc__delete(cc);
		return NULL;
	}
	return cc;
}

void rf_cc__delete(struct rf_cc *cc)
{
	if (!cc)
		return;
	free(cc->fr);
	free(cc->fr_tab);
	free(cc->dsos);
	free(cc->nd);
	free(cc->rb);
	free(cc->kc);
	free(cc->chain);
	free(cc->ips);
	free(cc->maps);
	free(cc->deltas);
	free(cc->pe);
	free(cc->prb);
	free(cc->seen);
	rawfrag_callchain__delete(cc->dw);
	for (uint32_t i = 0; cc->slots && i < CSLOTS; i++) {
		free(cc->slots[i].frames);
		free(cc->slots[i].acc);
		free(cc->slots[i].mids);
		free(cc->slots[i].ends);
	}
	free(cc->slots);
	free(cc);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static uint64_t frame_hash(const struct ccframe *f)
{
	return mix((uintptr_t)f->dso * 31 + (uintptr_t)f->sym * 17 + f->addr * 7 + f->inlined);
}

static bool frame_eq(const struct ccframe *a, const struct ccframe *b)
{
	return a->dso == b->dso && a->sym == b->sym && a->addr == b->addr &&
	       a->inlined == b->inlined;
}

static int fr_grow(struct rf_cc *cc)
{
	uint32_t cap = cc->fr_tabcap * 2, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < cc->nr_fr; i++) {
		uint64_t j = frame_hash(&cc->fr[i]) & (cap - 1);

		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = i + 1;
	}
	free(cc->fr_tab);
	cc->fr_tab = t;
	cc->fr_tabcap = cap;
	return 0;
}

static uint32_t dso_rank(struct rf_cc *cc, const char *dso)
{
	if (!dso)
		return 0;
	/* perf makes the kernel's first: it is the least of the others */
	if (!strcmp(dso, "[kernel.kallsyms]"))
		return 1;
	/* a handful of DSOs: a scan is enough */
	for (uint32_t i = 0; i < cc->nr_dsos; i++)
		if (cc->dsos[i] == dso)
			return i + 2;
	if (!(cc->nr_dsos & (cc->nr_dsos + 1)) || !cc->dsos) {
		const char **v = realloc(cc->dsos, (cc->nr_dsos * 2 + 2) * sizeof(*v));

		if (!v)
			return 0;
		cc->dsos = v;
	}
	cc->dsos[cc->nr_dsos++] = dso;
	return cc->nr_dsos + 1;
}

/* perf's short name of a DSO: its base name, a [bracketed] one as it is */
static const char *dso_short(const char *dso)
{
	const char *s;

	if (!dso || dso[0] == '[')
		return dso;
	s = strrchr(dso, '/');
	return s ? s + 1 : dso;
}

/* the index of frame f, interned (nlen and dso_rank filled in); NOFRAME on ENOMEM */
static uint32_t intern_ccframe(struct rf_cc *cc, struct ccframe *f)
{
	uint64_t j;

	if (cc->nr_fr * 2 >= cc->fr_tabcap && fr_grow(cc))
		return NOFRAME;
	for (j = frame_hash(f) & (cc->fr_tabcap - 1); cc->fr_tab[j];
	     j = (j + 1) & (cc->fr_tabcap - 1))
		if (frame_eq(&cc->fr[cc->fr_tab[j] - 1], f))
			return cc->fr_tab[j] - 1;
	if (cc->nr_fr == cc->cap_fr) {
		uint32_t cap = cc->cap_fr ? cc->cap_fr * 2 : 256;
		struct ccframe *v = realloc(cc->fr, cap * sizeof(*v));

		if (!v)
			return NOFRAME;
		cc->fr = v;
		cc->cap_fr = cap;
	}
	if (f->dso && !f->dso_rank)
		f->dso_rank = dso_rank(cc, f->dso);
	cc->fr[cc->nr_fr] = *f;
	cc->fr_tab[j] = ++cc->nr_fr;
	return cc->nr_fr - 1;
}

/* the index of the frame fr, interned; NOFRAME on ENOMEM */
static uint32_t intern_frame(struct rf_cc *cc, struct rf_hists *h, const struct rawfrag_frame *fr)
{
	struct ccframe f = { .addr = fr->sym ? fr->ip - fr->symoff : fr->addr,
			     .inlined = fr->inlined, .dso_rank = fr->dso ? fr->dso_order : 0,
			     .object = fr->sym && fr->object && !fr->inlined };

	f.end = f.addr + (fr->sym ? fr->symlen : 0);
	const char *d = dso_short(fr->dso);

	if (d && !(f.dso = rf_hists__intern(h, d, strlen(d))))
		return NOFRAME;
	if (fr->sym && fr->inlined) {
		char b[512];
		int n = snprintf(b, sizeof(b), "%s (inlined)", fr->sym);

		f.sym = rf_hists__intern(h, b, n < (int)sizeof(b) ? (size_t)n : sizeof(b) - 1);
		f.base = rf_hists__intern(h, fr->base_sym ? fr->base_sym : fr->sym,
					  strlen(fr->base_sym ? fr->base_sym : fr->sym));
		if (!f.sym || !f.base)
			return NOFRAME;
	} else if (fr->sym && !(f.sym = rf_hists__intern(h, fr->sym, strlen(fr->sym)))) {
		return NOFRAME;
	}
	if (fr->dso || fr->sym)
		f.level = fr->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' :
			  fr->cpumode == PERF_RECORD_MISC_GUEST_KERNEL ? 'g' : '.';
	f.nlen = fr->sym ? (uint32_t)strlen(fr->sym) : 0;
	return intern_ccframe(cc, &f);
}

/* *p resized to cap elements of size sz; -ENOMEM leaves it as it was */
static int grow(void **p, size_t cap, size_t sz)
{
	void *v = realloc(*p, cap * sz);

	if (!v)
		return -ENOMEM;
	*p = v;
	return 0;
}

static int chain_push(struct rf_cc *cc, uint32_t f, uint64_t ip, uint32_t map, uint64_t delta)
{
	if (f == NOFRAME)
		return -ENOMEM;
	if (cc->nr_chain == cc->cap_chain) {
		uint32_t cap = cc->cap_chain ? cc->cap_chain * 2 : 256;

		/* the chain's parallel arrays; the capacity grows once all have */
		if (grow((void **)&cc->chain, cap, sizeof(*cc->chain)) ||
		    grow((void **)&cc->ips, cap, sizeof(*cc->ips)) ||
		    grow((void **)&cc->maps, cap, sizeof(*cc->maps)) ||
		    grow((void **)&cc->deltas, cap, sizeof(*cc->deltas)))
			return -ENOMEM;
		cc->cap_chain = cap;
	}
	cc->ips[cc->nr_chain] = ip;
	cc->maps[cc->nr_chain] = map;
	cc->deltas[cc->nr_chain] = delta;
	cc->inl |= cc->fr[f].inlined;
	cc->obj |= cc->fr[f].object;
	cc->chain[cc->nr_chain++] = f;
	return 0;
}

/* a kernel address's frame, cached while the kernel's maps stay the same */
static uint32_t kernel_frame(struct rf_cc *cc, struct rf_hists *h, struct rawfrag_machine *m,
			     uint32_t kgen, const struct rawfrag_sample *s, uint64_t ip)
{
	struct rawfrag_frame fr;
	struct kslot *k;

	if (!cc->kc && !(cc->kc = calloc(KCACHE, sizeof(*cc->kc))))
		return NOFRAME;
	k = &cc->kc[mix(ip) % KCACHE];
	if (k->valid && k->ip == ip && k->gen == kgen)
		return k->frame;
	rawfrag_machine__resolve(m, (int32_t)s->pid, (int32_t)s->tid, ip, PERF_RECORD_MISC_KERNEL,
				 &fr);
	*k = (struct kslot){ .ip = ip, .gen = kgen, .frame = intern_frame(cc, h, &fr),
			     .valid = true };
	if (k->frame == NOFRAME)
		k->valid = false;
	return k->frame;
}

/*
 * PERF_SAMPLE_CALLCHAIN callee first, as rawfrag_callchain__resolve() walks
 * it (its context markers switch the address space, an unknown one
 * discards the chain), with kernel frames from the cache
 */
static int fp_chain(struct rf_cc *cc, struct rf_hists *h, struct rawfrag_machine *m,
		    uint32_t kgen, const struct rawfrag_sample *s, uint32_t max)
{
	uint8_t cpumode = PERF_RECORD_MISC_USER;

	for (uint64_t i = 0; i < s->callchain_nr && cc->nr_chain < max; i++) {
		uint64_t ip = rawfrag_sample__callchain_ip(s, i);
		struct rawfrag_frame fr;
		uint32_t f;
		int ctx;

		ctx = rf_callchain__context(ip, &cpumode);
		if (ctx < 0) {
			cc->nr_chain = 0;
			return 0;
		}
		if (ctx)
			continue;
		/* kernel maps are the same objects in every process, mapped as they are */
		fr.map_id = 0;
		fr.addr = fr.ip = 0;
		if (cpumode == PERF_RECORD_MISC_KERNEL) {
			f = kernel_frame(cc, h, m, kgen, s, ip);
		} else {
			rawfrag_machine__resolve(m, (int32_t)s->pid, (int32_t)s->tid, ip, cpumode,
						 &fr);
			f = intern_frame(cc, h, &fr);
		}
		if (chain_push(cc, f, ip, fr.map_id, fr.addr - fr.ip))
			return -ENOMEM;
	}
	return 0;
}

static void swap_frames(struct rf_cc *cc, uint32_t i, uint32_t j)
{
	uint32_t x = cc->chain[i], z = cc->maps[i];
	uint64_t y = cc->ips[i], o = cc->deltas[i];

	cc->chain[i] = cc->chain[j];
	cc->chain[j] = x;
	cc->ips[i] = cc->ips[j];
	cc->ips[j] = y;
	cc->maps[i] = cc->maps[j];
	cc->maps[j] = z;
	cc->deltas[i] = cc->deltas[j];
	cc->deltas[j] = o;
}

static void reverse(struct rf_cc *cc, uint32_t from, uint32_t to)
{
	while (from + 1 < to)
		swap_frames(cc, from++, --to);
}

/* root first; cut: at most max_stack frames from the root as perf counts them in caller order */
static void caller_order(struct rf_cc *cc, bool cut)
{
	/* inlined functions too: perf lists them in the chain's order (inline_list__append) */
	reverse(cc, 0, cc->nr_chain);
	if (cut && cc->nr_chain > cc->max_stack)
		cc->nr_chain = cc->max_stack;
}

int rf_cc__chain(struct rf_cc *cc, struct rf_hists *h, struct rawfrag_machine *m, uint32_t kgen,
		 const struct rawfrag_sample *s, const struct perf_event_attr *a)
{
	/* perf counts --max-stack from the root in caller order: keep the outermost */
	uint32_t max = cc->p.caller ? UINT32_MAX : cc->max_stack;
	int ret;

	cc->nr_chain = 0;
	cc->inl = cc->obj = false;
	if (rf_sample__unwound(s)) {
		uint32_t nk, from = 0;

		/*
		 * each part has its own limit: in the caller order perf takes the
		 * kernel's outermost frames, yet the unwinder's innermost ones
		 * (it unwinds max_stack addresses, then turns them round)
		 */
		ret = rf_callchain__resolve_parts(cc->dw, m, s, a, cc->p.caller ? UINT32_MAX : max,
						  cc->max_stack, &nk);
		if (ret < 0)
			return ret;
		if (cc->p.caller && nk > cc->max_stack)
			from = nk - cc->max_stack;
		for (uint32_t i = from; i < cc->dw->nr; i++)
			if (chain_push(cc, intern_frame(cc, h, &cc->dw->frames[i]),
				       cc->dw->frames[i].addr, cc->dw->frames[i].map_id,
				       cc->dw->frames[i].addr - cc->dw->frames[i].ip))
				return -ENOMEM;
	} else if ((s->sample_type & PERF_SAMPLE_CALLCHAIN) && s->callchain) {
		ret = fp_chain(cc, h, m, kgen, s, max);
		if (ret < 0)
			return ret;
	}
	if (cc->p.caller)
		caller_order(cc, !rf_sample__unwound(s));
	/* perf's entries part by its compare from the first inlined function on */
	if (cc->inl && cc->children && !cc->pt_on && cc->pt_sym >= 0 && (ret = pt_start(cc)))
		return ret;
	return (int)cc->nr_chain;
}

/* ---- trees ---- */

/* a new node; UINT32_MAX on ENOMEM (indices stay valid, pointers do not) */
static uint32_t node_new(struct rf_cc *cc, uint32_t parent, uint32_t frame)
{
	if (cc->nr_nd == cc->cap_nd) {
		uint32_t cap = cc->cap_nd ? cc->cap_nd * 2 : 1024;
		struct ccnode *v = realloc(cc->nd, cap * sizeof(*v));
		struct rbn *r;

		if (!v)
			return UINT32_MAX;
		cc->nd = v;
		if (!(r = realloc(cc->rb, cap * sizeof(*r))))
			return UINT32_MAX;
		cc->rb = r;
		cc->cap_nd = cap;
	}
	cc->nd[cc->nr_nd] = (struct ccnode){ .parent = parent, .frame = frame };
	cc->rb[cc->nr_nd] = (struct rbn){ 0 };
	return cc->nr_nd++;
}

/*
 * perf's match_chain() of a new frame x (at address xip) against a node's
 * first frame y (yip): 0 the same node, < 0 x before y in perf's order of
 * children (a new chain goes left of a lesser one: greatest first)
 */
static int frame_cmp(const struct ccframe *x, uint64_t xip, const struct ccframe *y,
		     uint64_t yip)
{
	uint64_t p = x->addr, q = y->addr;

	/* an inlined function by its name alone */
	if ((x->inlined || y->inlined) && x->sym && y->sym) {
		int r = memcmp(x->sym, y->sym, x->nlen < y->nlen ? x->nlen : y->nlen);

		if (!r && x->nlen != y->nlen)
			r = x->nlen < y->nlen ? -1 : 1;
		return -r;
	}
	if (x->dso_rank != y->dso_rank)
		return x->dso_rank > y->dso_rank ? -1 : 1;
	/* symbols by their start; else (either unresolved) the addresses */
	if (!x->sym || !y->sym) {
		p = xip;
		q = yip;
	}
	if (p != q)
		return p > q ? -1 : 1;
	return 0;
}


static void rb_rotate(struct rbn *t, uint32_t *root, uint32_t x, bool left)
{
	/* t[0] is never a node: 0 links to none */
	uint32_t y = left ? t[x].r : t[x].l, mid = left ? t[y].l : t[y].r;

	if (left)
		t[x].r = mid;
	else
		t[x].l = mid;
	if (mid)
		t[mid].p = x;
	t[y].p = t[x].p;
	if (!t[x].p)
		*root = y;
	else if (t[t[x].p].l == x)
		t[t[x].p].l = y;
	else
		t[t[x].p].r = y;
	if (left)
		t[y].l = x;
	else
		t[y].r = x;
	t[x].p = y;
}

/*
 * links x below p (its left or right; p 0: x is the root) and rebalances as
 * perf's rbtree does: a red-black insert has one outcome, so the shapes and
 * with them the orders of perf's not quite total comparisons agree
 */
static void rb_link(struct rbn *t, uint32_t *root, uint32_t p, bool left, uint32_t x)
{
	t[x] = (struct rbn){ .p = p, .red = true };
	if (!p)
		*root = x;
	else if (left)
		t[p].l = x;
	else
		t[p].r = x;
	while (t[x].p && t[t[x].p].red) {
		uint32_t par = t[x].p, g = t[par].p;
		bool pl = t[g].l == par;
		uint32_t u = pl ? t[g].r : t[g].l;

		if (u && t[u].red) {
			t[par].red = t[u].red = false;
			t[g].red = true;
			x = g;
			continue;
		}
		if (x == (pl ? t[par].r : t[par].l)) {
			rb_rotate(t, root, par, pl);
			x = par;
			par = t[x].p;
		}
		t[par].red = false;
		t[g].red = true;
		rb_rotate(t, root, g, !pl);
	}
	t[*root].red = false;
}

/* append_chain_children(): the child of parent that frame matches, made when none does */
static uint32_t node_child(struct rf_cc *cc, uint32_t parent, uint32_t frame, uint64_t ip)
{
	const struct ccframe *f = &cc->fr[frame];
	uint32_t x = cc->nd[parent].rb_root, up = 0, n;
	bool left = false;

	while (x) {
		int r = frame_cmp(f, ip, &cc->fr[cc->nd[x].frame], cc->nd[x].ip);

		if (!r)
			return x;
		up = x;
		left = r < 0;
		x = left ? cc->rb[x].l : cc->rb[x].r;
	}
	n = node_new(cc, parent, frame);
	if (n == UINT32_MAX)
		return n;
	cc->nd[n].ip = ip;
	cc->nd[n].sibling = cc->nd[parent].child;
	cc->nd[parent].child = n;
	rb_link(cc->rb, &cc->nd[parent].rb_root, up, left, n);
	return n;
}

/* callchain_append(): chain c[0..n) with period into e's tree */
static int tree_add(struct rf_cc *cc, struct rf_hentry *e, const uint32_t *c,
		    const uint64_t *ips, uint32_t n, uint64_t period)
{
	uint32_t cur;

	if (!n)
		return 0;
	if (!e->cc_root) {
		/* node 0 is never a root: 0 means "no tree" */
		if (!cc->nr_nd && node_new(cc, 0, NOFRAME) == UINT32_MAX)
			return -ENOMEM;
		e->cc_root = node_new(cc, 0, NOFRAME);
		if (e->cc_root == UINT32_MAX) {
			e->cc_root = 0;
			return -ENOMEM;
		}
	}
	cur = e->cc_root;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t next;

		cc->nd[cur].chit += period;
		cc->nd[cur].ccount++;
		if (cc->rec)
			cc->rec->mids[cc->rec->nmids++] = cur;
		next = node_child(cc, cur, c[i], ips[i]);
		if (next == UINT32_MAX)
			return -ENOMEM;
		cur = next;
	}
	cc->nd[cur].hit += period;
	cc->nd[cur].count++;
	if (cc->rec)
		cc->rec->ends[cc->rec->nends++] = cur;
	if (n > e->cc_depth)
		e->cc_depth = n;
	return 0;
}


/*
 * ---- perf's entry trees ----
 *
 * perf keeps the entries in a red-black tree (hists->entries_in) searched
 * with its sort keys' compare; an inlined function is a symbol object of
 * its own with its container's range, and compares by name, then as equal
 * when the ranges overlap (_sort__sym_cmp). That is no total order: which
 * entry a frame adds to depends on the tree's shape. And an entry found
 * from another map object (another process) takes the symbol found at its
 * start there (hists__findnew_entry): an inlined function's entry becomes
 * its container's. Entries that then compare equal are merged by the
 * collapse pass (a comm key), which walks the first tree in order. Until a
 * chain has an inlined function the compare is a total order, the same as
 * the hash's identity; then the tree is built from the entries in the
 * order they were made and is the identity from then on.
 */

static void in_order(const struct rf_cc *cc, uint32_t x, uint32_t *v, uint32_t *k);

static int sgn64(uint64_t d)
{
	return (int64_t)d < 0 ? -1 : d != 0;
}

/* perf's cmp_null(l, r): what has none sorts last */
static int cmp_null(const void *l, const void *r)
{
	return !l ? (r ? -1 : 0) : 1;
}

/* sort__sym_cmp(he, en): < 0 en goes left of he */
static int sym_cmp(const struct rf_cc *cc, const struct rf_hkey *he, const struct rf_hkey *en)
{
	int r;

	if (!he->id_len && !en->id_len)
		return sgn64(en->u - he->u);
	if (!cc->slot_dso) {
		/* _sort__dso_cmp(en, he) */
		if (!he->id || !en->id)
			r = cmp_null(he->id, en->id);
		else
			r = strcmp(en->id, he->id);
		if (r)
			return r;
	}
	if (!he->id_len || !en->id_len)
		return !he->id_len ? -1 : 1;
	if (he->inl || en->inl) {
		r = rf_hkey__name_cmp(he, en);
		if (r)
			return r;
		if (he->u <= en->end && he->end >= en->u)
			return 0;
	}
	if (he->u != en->u)
		return sgn64(en->u - he->u);
	return sgn64(en->end - he->end);
}

/* hist_entry__cmp(he, en) */
static int pt_cmp(const struct rf_cc *cc, const struct rf_hkey *he, const struct rf_hkey *en)
{
	for (int i = 0; i < cc->nr_keys; i++) {
		int r = cc->kinds[i] == RF_CC_SLOT_SYM ? sym_cmp(cc, &he[i], &en[i]) :
							 cc->slot_cmp(cc->slot_ctx, i, &en[i], &he[i]);

		if (r)
			return r;
	}
	return 0;
}

/* an entry made: numbered in the order made */
static int pt_register(struct rf_cc *cc, struct rf_hentry *e)
{
	if (e->pt)
		return 0;
	if (cc->nr_pe + 1 >= cc->cap_pe) {
		uint32_t cap = cc->cap_pe ? cc->cap_pe * 2 : 1024;
		struct rf_hentry **v = realloc(cc->pe, cap * sizeof(*v));
		struct rbn *r;

		if (!v)
			return -ENOMEM;
		cc->pe = v;
		if (!(r = realloc(cc->prb, (cap + 1) * sizeof(*r))))
			return -ENOMEM;
		cc->prb = r;
		cc->cap_pe = cap;
	}
	cc->pe[cc->nr_pe] = e;
	e->pt = ++cc->nr_pe;
	cc->prb[e->pt] = (struct rbn){ 0 };
	return 0;
}

/*
 * where key goes in the tree: the entry that compares equal, else its
 * parent and side; all: never an equal one (it goes right of it)
 */
static struct rf_hentry *pt_find(const struct rf_cc *cc, struct rbn *t, uint32_t root,
				 const struct rf_hkey *key, uint32_t *up, bool *left, bool all)
{
	uint32_t x = root;

	*up = 0;
	*left = false;
	while (x) {
		int r = pt_cmp(cc, cc->pe[x - 1]->k, key);

		if (!r && !all)
			return cc->pe[x - 1];
		*up = x;
		*left = r < 0;
		x = *left ? t[x].l : t[x].r;
	}
	return NULL;
}

/* the tree of the entries made so far, in the order made */
static int pt_start(struct rf_cc *cc)
{
	rf_cc__flush(cc);
	for (uint32_t i = 1; i <= cc->nr_pe; i++) {
		uint32_t up;
		bool left;

		/*
		 * a total order so far: equal ones only where the hash is finer
		 * than perf (unresolved addresses of two DSOs without a DSO key)
		 */
		pt_find(cc, cc->prb, cc->proot, cc->pe[i - 1]->k, &up, &left, true);
		rb_link(cc->prb, &cc->proot, up, left, i);
	}
	cc->pt_on = true;
	return 0;
}

/*
 * an entry found again (hists__findnew_entry): from another map object it
 * takes that map, and the symbol found at its start there (an inlined
 * function's entry becomes its container's)
 */
static void pt_touch(const struct rf_cc *cc, struct rf_hentry *e, const struct rf_hmap *x)
{
	struct rf_hkey *s;

	if (cc->pt_sym < 0 || e->m.map == x->map)
		return;
	e->m.map = x->map;
	e->m.delta = x->delta;
	s = &e->k[cc->pt_sym];
	if (s->id_len && s->inl && e->m.base) {
		s->show = e->m.base;
		s->inl = false;
	}
}

/* an entry made: its map and address */
static void pt_made(struct rf_hentry *e, const struct rf_hmap *x)
{
	e->m = *x;
}

/* hists__findnew_entry(): the entry of key, made when none compares equal */
static struct rf_hentry *pt_findnew(struct rf_cc *cc, struct rf_hists *h,
				    const struct rf_hkey *key, const struct rf_hmap *x, bool *made)
{
	struct rf_hentry *e;
	uint32_t up;
	bool left;

	*made = false;
	e = pt_find(cc, cc->prb, cc->proot, key, &up, &left, false);
	if (e) {
		pt_touch(cc, e, x);
		return e;
	}
	e = rf_hists__new(h, key);
	if (!e || pt_register(cc, e))
		return NULL;
	pt_made(e, x);
	rb_link(cc->prb, &cc->proot, up, left, e->pt);
	*made = true;
	return e;
}

void rf_cc__keys(struct rf_cc *cc, int nr_keys, const enum rf_cc_slot *kinds,
		 rf_cc_slot_cmp_fn cmp, void *ctx, bool collapse)
{
	cc->nr_keys = nr_keys;
	cc->pt_sym = -1;
	cc->slot_dso = false;
	for (int i = 0; i < nr_keys; i++) {
		cc->kinds[i] = kinds[i];
		if (kinds[i] == RF_CC_SLOT_SYM && cc->pt_sym < 0)
			cc->pt_sym = i;
		cc->slot_dso |= kinds[i] == RF_CC_SLOT_DSO;
	}
	cc->slot_cmp = cmp;
	cc->slot_ctx = ctx;
	cc->pt_collapse = collapse;
}

struct rf_hentry *rf_cc__self(struct rf_cc *cc, struct rf_hists *h, const struct rf_hkey *key,
			      const struct rf_hmap *x, uint64_t period, uint64_t weight)
{
	struct rf_hentry *e;
	bool made;

	h->nr_samples++;
	h->total_period += period;
	h->total_weight += weight;
	if (cc->pt_on) {
		e = pt_findnew(cc, h, key, x, &made);
	} else {
		e = rf_hists__findnew(h, key, &made);
		if (e && made && cc->children && pt_register(cc, e))
			return NULL;
		if (e && made)
			pt_made(e, x);
		else if (e)
			pt_touch(cc, e, x);
	}
	if (!e)
		return NULL;
	rf_hentry__count(e, period, weight);
	return e;
}

/*
 * merge_chain_branch(): every chain of src's tree that ends in a node, in
 * its order (a node, then its children as its tree has them), appended to
 * dst's tree with that node's period; dst's depth stays
 */
static int merge_node(struct rf_cc *cc, struct rf_hentry *dst, uint32_t n, uint32_t depth,
		      uint32_t **path, uint64_t **ips, uint32_t *cap)
{
	uint32_t nk = 0, k = 0, *v, d;
	int ret = 0;

	if (depth >= *cap) {
		uint32_t c = *cap ? *cap * 2 : 64, *p = realloc(*path, c * sizeof(*p));
		uint64_t *q;

		if (!p)
			return -ENOMEM;
		*path = p;
		if (!(q = realloc(*ips, c * sizeof(*q))))
			return -ENOMEM;
		*ips = q;
		*cap = c;
	}
	(*path)[depth] = cc->nd[n].frame;
	(*ips)[depth] = cc->nd[n].ip;
	if (cc->nd[n].hit) {
		d = dst->cc_depth;
		ret = tree_add(cc, dst, *path, *ips, depth + 1, cc->nd[n].hit);
		dst->cc_depth = d;
		if (ret)
			return ret;
	}
	for (uint32_t c = cc->nd[n].child; c; c = cc->nd[c].sibling)
		nk++;
	if (!nk)
		return 0;
	if (!(v = malloc(nk * sizeof(*v))))
		return -ENOMEM;
	in_order(cc, cc->nd[n].rb_root, v, &k);
	for (uint32_t i = 0; i < k && !ret; i++)
		ret = merge_node(cc, dst, v[i], depth + 1, path, ips, cap);
	free(v);
	return ret;
}

static int merge_tree(struct rf_cc *cc, struct rf_hentry *dst, const struct rf_hentry *src)
{
	uint32_t *path = NULL, cap = 0, nk = 0, k = 0, *v;
	uint64_t *ips = NULL;
	int ret = 0;

	if (!src->cc_root)
		return 0;
	for (uint32_t c = cc->nd[src->cc_root].child; c; c = cc->nd[c].sibling)
		nk++;
	if (!nk)
		return 0;
	if (!(v = malloc(nk * sizeof(*v))))
		return -ENOMEM;
	in_order(cc, cc->nd[src->cc_root].rb_root, v, &k);
	for (uint32_t i = 0; i < k && !ret; i++)
		ret = merge_node(cc, dst, v[i], 0, &path, &ips, &cap);
	free(v);
	free(path);
	free(ips);
	return ret;
}

static void tree_walk(const struct rbn *t, uint32_t root, uint32_t *out, uint32_t *k)
{
	uint32_t x = root;

	/* in order, without recursion: leftmost, then successors */
	while (x && t[x].l)
		x = t[x].l;
	while (x) {
		out[(*k)++] = x;
		if (t[x].r) {
			for (x = t[x].r; t[x].l;)
				x = t[x].l;
		} else {
			while (t[x].p && t[t[x].p].r == x)
				x = t[x].p;
			x = t[x].p;
		}
	}
}

int rf_cc__entries(struct rf_cc *cc, struct rf_hentry ***out, size_t *n)
{
	const bool graph = cc->p.mode != RF_CC_NONE;
	uint32_t *ord, k = 0, croot = 0, m = 0;
	struct rf_hentry **v;
	struct rbn *ct;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!cc->pt_on)
		return 0;
	rf_cc__flush(cc);
	ord = malloc((cc->nr_pe + 1) * sizeof(*ord));
	v = malloc((cc->nr_pe + 1) * sizeof(*v));
	ct = calloc(cc->nr_pe + 1, sizeof(*ct));
	if (!ord || !v || !ct) {
		ret = -ENOMEM;
		goto out;
	}
	tree_walk(cc->prb, cc->proot, ord, &k);
	if (!cc->pt_collapse) {
		for (uint32_t i = 0; i < k; i++)
			v[i] = cc->pe[ord[i] - 1];
		m = k;
		goto done;
	}
	/* hists__collapse_resort(): in that order into a second tree, merging equals */
	for (uint32_t i = 0; i < k; i++) {
		struct rf_hentry *he = cc->pe[ord[i] - 1], *it;
		uint32_t up;
		bool left;

		it = pt_find(cc, ct, croot, he->k, &up, &left, false);
		if (!it) {
			rb_link(ct, &croot, up, left, ord[i]);
			continue;
		}
		it->samples += he->samples;
		it->period += he->period;
		it->weight += he->weight;
		it->acc += he->acc;
		if (graph && (ret = merge_tree(cc, it, he)))
			goto out;
	}
	k = 0;
	tree_walk(ct, croot, ord, &k);
	for (uint32_t i = 0; i < k; i++)
		v[i] = cc->pe[ord[i] - 1];
	m = k;
done:
	*out = v;
	*n = m;
	v = NULL;
	ret = 1;
out:
	free(ord);
	free(ct);
	free(v);
	return ret;
}

static bool key_same(int nr, const struct rf_hkey *a, const struct rf_hkey *b)
{
	for (int i = 0; i < nr; i++)
		if (a[i].u != b[i].u || a[i].id != b[i].id)
			return false;
	return true;
}

/*
 * report -j without perf's entry trees: every worker makes every sample's
 * chain and own entry, but an entry's tree and its children's period are
 * kept by one worker (its part of the keys), which sees all its samples in
 * order, so its tree is the one a single job builds
 */
void rf_cc__set_part(struct rf_cc *cc, uint32_t part, uint32_t n)
{
	cc->part = part;
	cc->nparts = n;
}

static bool owned(const struct rf_cc *cc, const struct rf_hists *h, const struct rf_hkey *k)
{
	return cc->nparts <= 1 || rf_hists__part(h, k, cc->nparts) == cc->part;
}

static int cc_add(struct rf_cc *cc, struct rf_hists *h, struct rf_hentry *e,
		  const struct rf_hkey *key, const enum rf_cc_slot *kinds, uint64_t period,
		  uint32_t tid, rf_cc_new_fn fn, void *ctx)
{
	const bool graph = cc->p.mode != RF_CC_NONE;
	struct rf_hkey k[RF_HISTS_MAX_KEYS];
	uint32_t nseen = 0;
	char level = '.';
	int ret;

	if (e->samples == 1 && !e->cc_tid)
		e->cc_tid = tid + 1;
	if (graph && owned(cc, h, e->k) &&
	    (ret = tree_add(cc, e, cc->chain, cc->ips, cc->nr_chain, period)))
		return ret;
	if (!cc->children || !cc->nr_chain)
		return 0;
	if (cc->cap_seen < cc->nr_chain + 1) {
		struct rf_hentry **v = realloc(cc->seen, (cc->nr_chain + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cc->seen = v;
		cc->cap_seen = cc->nr_chain + 1;
	}
	cc->seen[nseen++] = e;
	memcpy(k, key, h->nr_keys * sizeof(k[0]));
	for (int i = 0; i < h->nr_keys; i++)
		if (kinds[i] == RF_CC_SLOT_SYM)
			level = key[i].level;
	for (uint32_t c = 0; c < cc->nr_chain; c++) {
		const struct ccframe *f = &cc->fr[cc->chain[c]];
		struct rf_hentry *x;
		struct rf_hmap xm;
		bool made, dup = false;

		/* a frame without a map keeps the level of the one before (perf's al) */
		if (f->level)
			level = f->level;
		for (int i = 0; i < h->nr_keys; i++) {
			if (kinds[i] == RF_CC_SLOT_DSO) {
				k[i].id = k[i].show = f->dso;
			} else if (kinds[i] == RF_CC_SLOT_SYM) {
				/*
				 * by the hash, perf's inlined function is a symbol of its
				 * container's range: the same entry (perf's trees part them)
				 */
				k[i].id = f->dso;
				k[i].show = f->sym;
				k[i].inl = f->inlined;
				k[i].obj = f->object;
				k[i].end = f->end;
				k[i].u = f->addr;
				k[i].id_len = f->sym ? 1 : 0;
				k[i].level = level;
			}
		}
		/* another worker's entry: it adds this sample there */
		if (!owned(cc, h, k))
			continue;
		/* recursion: an entry gets a sample's period once (perf's he_cache) */
		for (uint32_t j = 0; j < nseen && !dup; j++)
			dup = cc->pt_on ? !pt_cmp(cc, cc->seen[j]->k, k) :
					  key_same(h->nr_keys, cc->seen[j]->k, k);
		if (dup)
			continue;
		xm = (struct rf_hmap){ .map = cc->maps[c], .delta = cc->deltas[c], .ip = cc->ips[c],
				       .base = f->base };
		x = cc->pt_on ? pt_findnew(cc, h, k, &xm, &made) : rf_hists__findnew(h, k, &made);
		if (!x || (made && cc->children && !cc->pt_on && pt_register(cc, x)))
			return -ENOMEM;
		if (made)
			pt_made(x, &xm);
		else
			pt_touch(cc, x, &xm);
		if (made) {
			x->cc_tid = tid + 1;
			x->first_pos = c + 1;
			if ((ret = fn(ctx, x)))
				return ret;
		}
		x->acc += period;
		cc->seen[nseen++] = x;
		if (cc->rec)
			cc->rec->acc[cc->rec->nacc++] = x;
		if (graph && (ret = tree_add(cc, x, cc->chain + c, cc->ips + c, cc->nr_chain - c,
					     period)))
			return ret;
	}
	return 0;
}

/* the sums of a slot to its nodes and entries */
static void slot_flush(struct rf_cc *cc, struct cslot *sl)
{
	if (!sl->e || (!sl->count && !sl->period))
		return;
	for (uint32_t i = 0; i < sl->nmids; i++) {
		cc->nd[sl->mids[i]].chit += sl->period;
		cc->nd[sl->mids[i]].ccount += sl->count;
	}
	for (uint32_t i = 0; i < sl->nends; i++) {
		cc->nd[sl->ends[i]].hit += sl->period;
		cc->nd[sl->ends[i]].count += sl->count;
	}
	for (uint32_t i = 0; i < sl->nacc; i++)
		sl->acc[i]->acc += sl->period;
	sl->period = 0;
	sl->count = 0;
}

void rf_cc__flush(struct rf_cc *cc)
{
	for (uint32_t i = 0; cc->slots && i < CSLOTS; i++)
		slot_flush(cc, &cc->slots[i]);
}

/* the slot for this chain, emptied, with room for it; NULL: not kept */
static struct cslot *slot_take(struct rf_cc *cc, struct cslot *sl, uint32_t n)
{
	/* the entry's tree n deep, then n more at most, n, n-1, ... deep */
	uint32_t need = n * (n + 1) / 2 + n + 1;

	slot_flush(cc, sl);
	sl->e = NULL;
	if (sl->cap < need) {
		uint32_t *m = realloc(sl->mids, need * sizeof(*m));
		uint32_t *f;
		struct rf_hentry **a;

		if (!m)
			return NULL;
		sl->mids = m;
		f = realloc(sl->frames, (n + 1) * sizeof(*f));
		if (!f)
			return NULL;
		sl->frames = f;
		a = realloc(sl->acc, (n + 1) * sizeof(*a));
		if (!a)
			return NULL;
		sl->acc = a;
		f = realloc(sl->ends, (n + 1) * sizeof(*f));
		if (!f)
			return NULL;
		sl->ends = f;
		sl->cap = need;
	}
	sl->nacc = sl->nmids = sl->nends = 0;
	return sl;
}

int rf_cc__add(struct rf_cc *cc, struct rf_hists *h, struct rf_hentry *e,
	       const struct rf_hkey *key, const enum rf_cc_slot *kinds, uint64_t period,
	       uint32_t tid, rf_cc_new_fn fn, void *ctx)
{
	uint32_t n = cc->nr_chain;
	uint64_t hash = mix((uintptr_t)e);
	struct cslot *sl;
	int ret;

	/*
	 * perf's trees may part a repeated chain's entries another way, and a
	 * data symbol's entry shows its last map: no reuse
	 */
	if (!n || n > CSLOT_MAX || (!cc->children && cc->p.mode == RF_CC_NONE) || cc->pt_on ||
	    cc->obj)
		return cc_add(cc, h, e, key, kinds, period, tid, fn, ctx);
	if (!cc->slots && !(cc->slots = calloc(CSLOTS, sizeof(*cc->slots))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		hash = mix(hash ^ (hash << 7) ^ cc->chain[i]);
	sl = &cc->slots[hash % CSLOTS];
	if (sl->e == e && sl->hash == hash && sl->n == n &&
	    !memcmp(sl->frames, cc->chain, n * sizeof(*cc->chain))) {
		sl->period += period;
		sl->count++;
		return 0;
	}
	cc->rec = slot_take(cc, sl, n);
	ret = cc_add(cc, h, e, key, kinds, period, tid, fn, ctx);
	if (!ret && cc->rec) {
		sl->e = e;
		sl->hash = hash;
		sl->n = n;
		memcpy(sl->frames, cc->chain, n * sizeof(*cc->chain));
	}
	cc->rec = NULL;
	return ret;
}

int rf_cc__depth_cmp(const struct rf_cc_params *p, bool children, const struct rf_hentry *a,
		     const struct rf_hentry *b)
{
	int r;

	/* perf's "caller above callee" among equal children of one thread */
	if (!children || p->mode == RF_CC_NONE || a->cc_tid != b->cc_tid)
		return 0;
	r = a->cc_depth < b->cc_depth ? -1 : a->cc_depth > b->cc_depth;
	return p->caller ? -r : r;
}

/* ---- printing ---- */

static uint64_t cumul(const struct rf_cc *cc, uint32_t n)
{
	return cc->nd[n].hit + cc->nd[n].chit;
}

static uint32_t cumul_count(const struct rf_cc *cc, uint32_t n)
{
	return cc->nd[n].count + cc->nd[n].ccount;
}

/* the last trie node of perf's node that starts at n: on while no chain ends or branches */
static uint32_t run_end(const struct rf_cc *cc, uint32_t n)
{
	while (!cc->nd[n].count && cc->nd[n].child && !cc->nd[cc->nd[n].child].sibling)
		n = cc->nd[n].child;
	return n;
}

/* perf's rb_root_in in order: the children of n as its match placed them */
static void in_order(const struct rf_cc *cc, uint32_t x, uint32_t *v, uint32_t *k)
{
	while (x) {
		in_order(cc, cc->rb[x].l, v, k);
		v[(*k)++] = x;
		x = cc->rb[x].r;
	}
}

/* a node, its value and its place before the sort */
struct ranked {
	uint64_t value;
	uint32_t pos, node;
};

/* greatest value first; perf's trees put equals to the right, in their order */
static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* the children of n (perf's nodes' first trie nodes) of at least min_hit, sorted; NULL: none */
static uint32_t *kids(const struct rf_cc *cc, uint32_t n, uint64_t min_hit, bool by_cumul,
		      uint32_t *nr)
{
	uint32_t k = 0, m = 0, *v;
	struct ranked *s;

	*nr = 0;
	for (uint32_t c = cc->nd[n].child; c; c = cc->nd[c].sibling)
		k++;
	if (!k || !(v = malloc(k * sizeof(*v))))
		return NULL;
	k = 0;
	in_order(cc, cc->nd[n].rb_root, v, &k);
	if (!by_cumul) {
		*nr = k;
		return v;
	}
	if (!(s = malloc(k * sizeof(*s)))) {
		free(v);
		return NULL;
	}
	for (uint32_t i = 0; i < k; i++)
		if (cumul(cc, v[i]) >= min_hit)
			s[m++] = (struct ranked){ .value = cumul(cc, v[i]), .pos = i, .node = v[i] };
	qsort(s, m, sizeof(*s), ranked_cmp);
	for (uint32_t i = 0; i < m; i++)
		v[i] = s[i].node;
	free(s);
	*nr = m;
	return v;
}

static void frame_name(struct rf_cc *cc, uint32_t n)
{
	const struct ccframe *f = &cc->fr[cc->nd[n].frame];

	if (f->sym)
		rawfrag_out__puts(cc->o, f->sym);
	else
		rawfrag_out__printf(cc->o, "%#" PRIx64, f->addr);
}

static void margin(struct rf_cc *cc, int left)
{
	rawfrag_out__printf(cc->o, "%*s", 12 + left, "");
}

static void value(struct rf_cc *cc, uint64_t period, uint32_t count, uint64_t total)
{
	switch (cc->p.value) {
	case RF_CC_PERIOD:
		rawfrag_out__printf(cc->o, "%" PRIu64, period);
		break;
	case RF_CC_COUNT:
		rawfrag_out__printf(cc->o, "%u", count);
		break;
	default:
		rawfrag_out__printf(cc->o, "%.2f%%", total ? period * 100.0 / total : 0.0);
	}
}

static void graph_line(struct rf_cc *cc, int depth, uint64_t mask, int left)
{
	margin(cc, left);
	for (int i = 0; i < depth; i++)
		rawfrag_out__puts(cc->o, mask & (1ull << (i & 63)) ? "|          " :
								       "           ");
	rawfrag_out__putc(cc->o, '\n');
}

/* one frame of a graph; name_of: a trie node, or NOFRAME for perf's "[...]" */
static void graph_frame(struct rf_cc *cc, uint64_t period, uint32_t count, uint32_t name_of,
			int depth, uint64_t mask, int first, uint64_t total, int left)
{
	margin(cc, left);
	for (int i = 0; i < depth; i++) {
		rawfrag_out__putc(cc->o, mask & (1ull << (i & 63)) ? '|' : ' ');
		if (!first && i == depth - 1) {
			rawfrag_out__puts(cc->o, "--");
			value(cc, period, count, total);
			rawfrag_out__puts(cc->o, "--");
		} else {
			rawfrag_out__puts(cc->o, "          ");
		}
	}
	if (name_of == NOFRAME)
		rawfrag_out__puts(cc->o, "[...]");
	else
		frame_name(cc, name_of);
	rawfrag_out__putc(cc->o, '\n');
}

static uint64_t rel_min(const struct rf_cc *cc, uint32_t n)
{
	return (uint64_t)ceil(cc->nd[n].chit * (cc->p.min_percent / 100.0));
}

/* the sorted children of perf's node that ends at trie node n */
static uint32_t *graph_kids(const struct rf_cc *cc, uint32_t n, uint32_t *nr)
{
	return kids(cc, n, cc->p.mode == RF_CC_FRACTAL ? rel_min(cc, n) : cc->min_hit, true, nr);
}

/* __callchain__fprintf_graph(): the children of perf's node ending at n; true if it printed */
static bool graph_level(struct rf_cc *cc, uint32_t n, uint64_t total, int depth, uint64_t mask,
			int left)
{
	const bool rel = cc->p.mode == RF_CC_FRACTAL;
	uint64_t remaining = total, new_mask = mask;
	uint32_t nr, printed = 0, *v = graph_kids(cc, n, &nr);
	int64_t counted = 0;
	bool any = false;

	for (uint32_t i = 0; i < nr; i++) {
		uint32_t x = v[i], end = run_end(cc, x), first = 0;

		remaining -= cumul(cc, x);
		counted += cumul_count(cc, x);
		if (i == nr - 1 && (!rel || !remaining))
			new_mask &= ~(1ull << ((depth - 1) & 63));
		graph_line(cc, depth, mask, left);
		for (uint32_t t = x;; t = cc->nd[t].child) {
			graph_frame(cc, cumul(cc, x), cumul_count(cc, x), t, depth, new_mask, first++,
				    total, left);
			if (t == end)
				break;
		}
		graph_level(cc, end, rel ? cc->nd[end].chit : total, depth + 1,
			    new_mask | (1ull << (depth & 63)), left);
		any = true;
		if (++printed == cc->p.print_limit)
			break;
	}
	if (rel && remaining && remaining != total) {
		int64_t rc = 0;

		if (cc->p.value == RF_CC_COUNT && nr) {
			rc = (int64_t)cc->nd[n].ccount - counted;
			if (rc <= 0)
				goto out;
		}
		new_mask &= ~(1ull << ((depth - 1) & 63));
		graph_frame(cc, remaining, (uint32_t)rc, NOFRAME, depth, new_mask, 0, total, left);
		any = true;
	}
out:
	free(v);
	return any;
}

static void print_graph(struct rf_cc *cc, const struct rf_hentry *e, uint64_t total,
			uint64_t parent)
{
	uint32_t nr, *v = graph_kids(cc, e->cc_root, &nr), from = e->cc_root;
	bool printed = false;
	int left = 0;

	/* one root of the entry's whole period: perf prints it as "---" and no percentage */
	if (nr == 1 && cumul(cc, v[0]) == parent) {
		uint32_t end = run_end(cc, v[0]), i = 0, shown = 0;

		for (uint32_t t = v[0];; t = cc->nd[t].child) {
			if (!(!i++ && cc->p.skip_first)) {
				if (!printed) {
					margin(cc, left);
					rawfrag_out__puts(cc->o, "|\n");
					margin(cc, left);
					rawfrag_out__puts(cc->o, "---");
					left += 3;
					printed = true;
				} else {
					margin(cc, left);
				}
				frame_name(cc, t);
				rawfrag_out__putc(cc->o, '\n');
				if (++shown == cc->p.print_limit)
					break;
			}
			if (t == end)
				break;
		}
		from = end;
	}
	free(v);
	if (cc->p.mode == RF_CC_FRACTAL)
		total = parent;
	if (graph_level(cc, from, total, 1, 1, left) || printed)
		rawfrag_out__putc(cc->o, '\n');
}

/* __sort_chain_flat(): nodes with hits, children first, in perf's order of children */
static int flat_collect(const struct rf_cc *cc, uint32_t n, uint32_t **v, uint32_t *nr,
			uint32_t *cap)
{
	uint32_t k, *c = kids(cc, n, 0, false, &k);

	if (k && !c)
		return -ENOMEM;
	for (uint32_t i = 0; i < k; i++)
		if (flat_collect(cc, c[i], v, nr, cap)) {
			free(c);
			return -ENOMEM;
		}
	free(c);
	if (cc->nd[n].hit && cc->nd[n].hit >= cc->min_hit) {
		if (*nr == *cap) {
			uint32_t ncap = *cap ? *cap * 2 : 64, *x = realloc(*v, ncap * sizeof(*x));

			if (!x)
				return -ENOMEM;
			*v = x;
			*cap = ncap;
		}
		(*v)[(*nr)++] = n;
	}
	return 0;
}


/* the frames from the root down to n: flat one a line, folded joined by ';' */
static void path(struct rf_cc *cc, uint32_t n, uint32_t root, bool flat, bool *first)
{
	if (n == root)
		return;
	path(cc, cc->nd[n].parent, root, flat, first);
	/* perf leaves out what looks like a context marker (an unwinder's -1) */
	if (cc->nd[n].ip >= (uint64_t)PERF_CONTEXT_MAX)
		return;
	if (flat)
		rawfrag_out__puts(cc->o, "                ");
	else if (!*first)
		rawfrag_out__putc(cc->o, ';');
	*first = false;
	frame_name(cc, n);
	if (flat)
		rawfrag_out__putc(cc->o, '\n');
}

static void print_flat(struct rf_cc *cc, const struct rf_hentry *e, uint64_t total)
{
	const bool flat = cc->p.mode == RF_CC_FLAT;
	uint32_t *v = NULL, nr = 0, cap = 0;
	struct ranked *it = NULL;

	if (flat_collect(cc, e->cc_root, &v, &nr, &cap) || !nr ||
	    !(it = malloc(nr * sizeof(*it))))
		goto out;
	for (uint32_t i = 0; i < nr; i++)
		it[i] = (struct ranked){ .value = cc->nd[v[i]].hit, .pos = i, .node = v[i] };
	qsort(it, nr, sizeof(*it), ranked_cmp);
	for (uint32_t j = 0; j < nr; j++) {
		uint32_t n = it[j].node;
		bool first = true;

		if (flat) {
			rawfrag_out__puts(cc->o, "           ");
			value(cc, cumul(cc, n), cumul_count(cc, n), total);
			rawfrag_out__putc(cc->o, '\n');
		} else {
			value(cc, cc->nd[n].hit, cc->nd[n].count, total);
			rawfrag_out__putc(cc->o, ' ');
		}
		path(cc, n, e->cc_root, flat, &first);
		rawfrag_out__putc(cc->o, '\n');
		if (j + 1 == cc->p.print_limit)
			break;
	}
out:
	free(it);
	free(v);
}

struct rf_cc *rf_cc__view(const struct rf_cc *cc)
{
	struct rf_cc *v = malloc(sizeof(*v));

	/* printing writes only o and min_hit of its rf_cc */
	if (v)
		*v = *cc;
	return v;
}

void rf_cc__print(struct rf_cc *cc, struct rawfrag_out *o, const struct rf_hentry *e,
		  uint64_t total)
{
	if (cc->p.mode == RF_CC_NONE || !e->cc_root)
		return;
	cc->o = o;
	/* perf's threshold is of the period of samples with call chains: all of them here */
	cc->min_hit = (uint64_t)((double)total * (cc->p.min_percent / 100));
	if (cc->p.mode == RF_CC_GRAPH || cc->p.mode == RF_CC_FRACTAL)
		print_graph(cc, e, total, cc->children ? e->acc : e->period);
	else
		print_flat(cc, e, total);
}

/* ---- perf's output order ---- */

/*
 * perf's output_resort(): each entry, in the order of its collapsed tree,
 * inserted into a red-black tree by hist_entry__sort() (left when it sorts
 * first), then read in order. The comparison of --children is not a total
 * order (the caller-first rule holds within one thread only), so the result
 * depends on this very sequence and tree shape; a red-black insert has one
 * outcome, any correct implementation gives perf's.
 */
int rf_cc__rb_order(struct rf_hentry **v, size_t n,
		    int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	struct rbn *t = calloc(n + 1, sizeof(*t));
	struct rf_hentry **out;
	uint32_t root = 0, x, k = 0;

	out = malloc((n ? n : 1) * sizeof(*out));
	if (!t || !out) {
		free(t);
		free(out);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t p = 0, y = root;
		bool left = false;

		while (y) {
			p = y;
			left = cmp(&v[i - 1], &v[p - 1], ctx) < 0;
			y = left ? t[p].l : t[p].r;
		}
		rb_link(t, &root, p, left, i);
	}
	/* in order, without recursion: leftmost, then successors */
	for (x = root; x && t[x].l;)
		x = t[x].l;
	while (x) {
		out[k++] = v[x - 1];
		if (t[x].r) {
			for (x = t[x].r; t[x].l;)
				x = t[x].l;
		} else {
			while (t[x].p && t[t[x].p].r == x)
				x = t[x].p;
			x = t[x].p;
		}
	}
	memcpy(v, out, n * sizeof(*v));
	free(out);
	free(t);
	return 0;
}
