// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A pprof profile (internal/pprof.h): tables that intern strings, mappings,
 * functions, locations and samples by their bytes, and the encoder that
 * fills protobuf-c's messages from them and streams the packed profile
 * through zlib's deflate (gzip framing) to a descriptor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "internal/pprof.h"
#include "internal/seqref.h"
#include "gen/profile.pb-c.h" /* $(O)/gen: made by protoc-c */

/* ---- an arena for keys: freed at once with the profile ---- */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	unsigned char b[];
};

static void *arena_copy(struct chunk **a, const void *p, size_t len)
{
	size_t room = (len + 7) & ~(size_t)7; /* keys of 8-byte numbers stay aligned */
	struct chunk *c = *a;
	void *d;

	if (!c || c->cap - c->used < room) {
		size_t cap = room > 65536 ? room : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *a;
		c->used = 0;
		c->cap = cap;
		*a = c;
	}
	d = c->b + c->used;
	c->used += room;
	return memcpy(d, p, len);
}

/* ---- a table of keys: each key once, by index in the order first seen ---- */

struct kent {
	uint64_t hash;
	const void *key;
	uint32_t len;
};

/* a slot holds its entry's hash too: a probe reads no entry that cannot match */
struct kslot {
	uint32_t idx; /* entry index + 1, 0 empty */
	uint32_t hash;
};

struct ktab {
	struct kent *v;
	size_t nr, cap;
	struct kslot *slot;
	size_t scap;
};

/* eight bytes a step: stacks make keys of hundreds of bytes, hashed per sample */
static uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; c += 8, len -= 8) {
		memcpy(&w, c, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, c, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static int ktab_grow(struct ktab *t)
{
	size_t scap = t->scap ? 2 * t->scap : 1024;
	struct kslot *s = calloc(scap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		size_t j = t->v[i].hash & (scap - 1);

		while (s[j].idx)
			j = (j + 1) & (scap - 1);
		s[j] = (struct kslot){ (uint32_t)(i + 1), (uint32_t)(t->v[i].hash >> 32) };
	}
	free(t->slot);
	t->slot = s;
	t->scap = scap;
	return 0;
}

/* the index of key (added when new, *added then true); -ENOMEM */
static int64_t ktab_get(struct ktab *t, struct chunk **a, const void *key, uint32_t len,
			bool *added)
{
	uint64_t h = hash_bytes(key, len);
	size_t j;

	*added = false;
	if ((t->nr + 1) * 2 > t->scap && ktab_grow(t))
		return -ENOMEM;
	for (j = h & (t->scap - 1); t->slot[j].idx; j = (j + 1) & (t->scap - 1)) {
		const struct kent *e;

		if (t->slot[j].hash != (uint32_t)(h >> 32))
			continue;
		e = &t->v[t->slot[j].idx - 1];
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len))
			return t->slot[j].idx - 1;
	}
	if (t->nr == UINT32_MAX - 1)
		return -ENOMEM;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct kent *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->nr] = (struct kent){ .hash = h, .len = len, .key = arena_copy(a, key, len) };
	if (!t->v[t->nr].key)
		return -ENOMEM;
	t->slot[j] = (struct kslot){ (uint32_t)(t->nr + 1), (uint32_t)(h >> 32) };
	*added = true;
	return (int64_t)t->nr++;
}

static void ktab_free(struct ktab *t)
{
	free(t->v);
	free(t->slot);
}

/* ---- the profile ---- */

struct pmap {
	int64_t file, bid;
	uint64_t start, limit, offset;
	bool bare, lines, inl; /* a location without lines, one with, one with several */
};

/* the key of a mapping: which DSO and where */
struct mkey {
	const void *dso;
	uint64_t start, limit, offset;
};

struct psample {
	int64_t *v;
	uint32_t nr;
};

/* what was made, in order: -j merges profiles by the samples that made their entries */
enum { PL_STR, PL_MAP, PL_FUNC, PL_LOC, PL_SAMPLE };

struct plog {
	uint64_t seq;
	uint32_t idx;
	uint8_t kind;
};

struct rf_pprof {
	struct chunk *arena;
	struct ktab strs, maps, funcs, locs, samples;
	struct pmap *pm; /* by mapping index */
	struct psample *ps; /* by sample index */
	size_t pm_cap, ps_cap;
	struct plog *log;
	size_t nr_log, cap_log;
	uint64_t seq; /* the sample being added (rf_pprof__set_seq()) */
};

static int log_made(struct rf_pprof *p, uint8_t kind, int64_t idx)
{
	if (p->nr_log == p->cap_log) {
		size_t cap = p->cap_log ? 2 * p->cap_log : 1024;
		struct plog *v = realloc(p->log, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->log = v;
		p->cap_log = cap;
	}
	p->log[p->nr_log++] = (struct plog){ .seq = p->seq, .idx = (uint32_t)idx, .kind = kind };
	return 0;
}

void rf_pprof__set_seq(struct rf_pprof *p, uint64_t seq)
{
	p->seq = seq;
}

struct rf_pprof *rf_pprof__new(void)
{
	struct rf_pprof *p = calloc(1, sizeof(*p));

	if (!p || rf_pprof__str(p, "", 0) != 0) {
		rf_pprof__delete(p);
		return NULL;
	}
	return p;
}

void rf_pprof__delete(struct rf_pprof *p)
{
	if (!p)
		return;
	for (struct chunk *c = p->arena, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	for (size_t i = 0; i < p->ps_cap; i++)
		free(p->ps[i].v);
	ktab_free(&p->strs);
	ktab_free(&p->maps);
	ktab_free(&p->funcs);
	ktab_free(&p->locs);
	ktab_free(&p->samples);
	free(p->pm);
	free(p->ps);
	free(p->log);
	free(p);
}

/* room for entry i in an array parallel to a table */
static int parallel(void **arr, size_t *cap, size_t i, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *v;

	if (i < *cap)
		return 0;
	while (n <= i)
		n *= 2;
	v = realloc(*arr, n * size);
	if (!v)
		return -ENOMEM;
	memset((char *)v + *cap * size, 0, (n - *cap) * size);
	*arr = v;
	*cap = n;
	return 0;
}

int64_t rf_pprof__str(struct rf_pprof *p, const char *s, size_t len)
{
	char buf[256], *z = buf;
	bool added;
	int64_t i;

	/* kept NUL-terminated: the encoder hands them to protobuf-c as C strings */
	if (len >= sizeof(buf) && !(z = malloc(len + 1)))
		return -ENOMEM;
	memcpy(z, s, len);
	z[len] = '\0';
	i = ktab_get(&p->strs, &p->arena, z, (uint32_t)len + 1, &added);
	if (z != buf)
		free(z);
	if (added && log_made(p, PL_STR, i))
		return -ENOMEM;
	return i;
}

/* the mapping of key with these facts (bid: its hex form); its id, 0 on ENOMEM */
static uint64_t mapping_add(struct rf_pprof *p, const struct mkey *k, const char *file,
			    const char *bid, size_t bid_len)
{
	bool added;
	int64_t i = ktab_get(&p->maps, &p->arena, k, sizeof(*k), &added);

	if (i < 0 || !added)
		return i < 0 ? 0 : (uint64_t)i + 1;
	if (log_made(p, PL_MAP, i) || parallel((void **)&p->pm, &p->pm_cap, (size_t)i, sizeof(*p->pm)))
		return 0;
	p->pm[i] = (struct pmap){ .start = k->start, .limit = k->limit, .offset = k->offset,
				  .file = rf_pprof__str(p, file, strlen(file)),
				  .bid = rf_pprof__str(p, bid, bid_len) };
	if (p->pm[i].file < 0 || p->pm[i].bid < 0)
		return 0;
	return (uint64_t)i + 1;
}

uint64_t rf_pprof__mapping(struct rf_pprof *p, const struct rf_pprof_mapping *m)
{
	struct mkey k = { .dso = m->key, .start = m->start, .limit = m->limit,
			  .offset = m->offset };
	char hex[41];

	for (int b = 0; b < m->bid_size && b < 20; b++)
		snprintf(hex + 2 * b, 3, "%02x", m->bid[b]);
	return mapping_add(p, &k, m->file, hex, m->bid_size ? 2 * (size_t)m->bid_size : 0);
}

uint64_t rf_pprof__function(struct rf_pprof *p, int64_t name, int64_t file)
{
	int64_t k[2] = { name, file };
	bool added;
	int64_t i = ktab_get(&p->funcs, &p->arena, k, sizeof(k), &added);

	if (i >= 0 && added && log_made(p, PL_FUNC, i))
		return 0;
	return i < 0 ? 0 : (uint64_t)i + 1;
}

uint64_t rf_pprof__location(struct rf_pprof *p, uint64_t mapping, uint64_t addr,
			    const uint64_t *fns, uint32_t nr_fns)
{
	uint64_t k[2 + 64];
	bool added;
	int64_t i;

	if (nr_fns > 64)
		nr_fns = 64; /* deeper inline nests are cut at the outer end */
	k[0] = mapping;
	k[1] = addr;
	if (nr_fns)
		memcpy(k + 2, fns, nr_fns * sizeof(*fns));
	i = ktab_get(&p->locs, &p->arena, k, (2 + nr_fns) * sizeof(*k), &added);
	if (i < 0 || (added && log_made(p, PL_LOC, i)))
		return 0;
	if (added && mapping) {
		struct pmap *m = &p->pm[mapping - 1];

		m->bare |= !nr_fns;
		m->lines |= nr_fns > 0;
		m->inl |= nr_fns > 1;
	}
	return (uint64_t)i + 1;
}

/* the index of the sample of this stack and labels, made when new; -ENOMEM */
static int64_t sample_get(struct rf_pprof *p, const uint64_t *locs, uint32_t nr_locs,
			  const struct rf_pprof_label *labels, uint32_t nr_labels)
{
	size_t len = 8 + nr_locs * 8 + nr_labels * sizeof(*labels);
	unsigned char stack_key[4096], *key = stack_key;
	uint32_t n[2] = { nr_locs, nr_labels };
	bool added;
	int64_t i;

	if (len > sizeof(stack_key) && !(key = malloc(len)))
		return -ENOMEM;
	memcpy(key, n, 8);
	if (nr_locs)
		memcpy(key + 8, locs, nr_locs * 8);
	if (nr_labels)
		memcpy(key + 8 + nr_locs * 8, labels, nr_labels * sizeof(*labels));
	i = ktab_get(&p->samples, &p->arena, key, (uint32_t)len, &added);
	if (key != stack_key)
		free(key);
	if (i < 0)
		return -ENOMEM;
	if (added && (parallel((void **)&p->ps, &p->ps_cap, (size_t)i, sizeof(*p->ps)) ||
		      log_made(p, PL_SAMPLE, i)))
		return -ENOMEM;
	return i;
}

/* v added to column c of sample s */
static int sample_add(struct psample *s, uint32_t c, int64_t v)
{
	if (c >= s->nr) {
		int64_t *nv = realloc(s->v, (c + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		memset(nv + s->nr, 0, (c + 1 - s->nr) * sizeof(*nv));
		s->v = nv;
		s->nr = c + 1;
	}
	s->v[c] += v;
	return 0;
}

int rf_pprof__add(struct rf_pprof *p, const uint64_t *locs, uint32_t nr_locs,
		  const struct rf_pprof_label *labels, uint32_t nr_labels,
		  const struct rf_pprof_value *vals, uint32_t nr_vals)
{
	int64_t i = sample_get(p, locs, nr_locs, labels, nr_labels);

	if (i < 0)
		return -ENOMEM;
	for (uint32_t j = 0; j < nr_vals; j++)
		if (sample_add(&p->ps[i], vals[j].col, vals[j].v))
			return -ENOMEM;
	return 0;
}

uint64_t rf_pprof__nr_samples(const struct rf_pprof *p)
{
	return p->samples.nr;
}

/* ---- -j: profiles of disjoint samples as the one profile of them all ---- */

/* entry idx of profile q made again in out; its index there in *id (mapped ids: + 1) */
static int remake(struct rf_pprof *out, struct rf_pprof *q, const struct plog *l,
		  int64_t *const m[5])
{
	const struct kent *e;

	switch (l->kind) {
	case PL_STR:
		e = &q->strs.v[l->idx];
		m[PL_STR][l->idx] = rf_pprof__str(out, e->key, e->len - 1);
		return m[PL_STR][l->idx] < 0 ? -ENOMEM : 0;
	case PL_MAP: {
		const struct pmap *pm = &q->pm[l->idx];
		const char *file = q->strs.v[pm->file].key, *bid = q->strs.v[pm->bid].key;
		int64_t fi = rf_pprof__str(out, file, strlen(file));
		int64_t bi = rf_pprof__str(out, bid, strlen(bid));
		/* the DSO by its file and build-id: each profile had its own DSO objects */
		struct mkey k = { .dso = (const void *)(uintptr_t)((uint64_t)fi << 32 | (uint64_t)bi),
				  .start = pm->start, .limit = pm->limit, .offset = pm->offset };

		if (fi < 0 || bi < 0)
			return -ENOMEM;
		m[PL_MAP][l->idx] = (int64_t)mapping_add(out, &k, file, bid, strlen(bid));
		return m[PL_MAP][l->idx] ? 0 : -ENOMEM;
	}
	case PL_FUNC: {
		const int64_t *k = q->funcs.v[l->idx].key;

		m[PL_FUNC][l->idx] =
			(int64_t)rf_pprof__function(out, m[PL_STR][k[0]], m[PL_STR][k[1]]);
		return m[PL_FUNC][l->idx] ? 0 : -ENOMEM;
	}
	case PL_LOC: {
		const uint64_t *k = q->locs.v[l->idx].key;
		uint32_t nf = q->locs.v[l->idx].len / 8 - 2;
		uint64_t fns[64];

		for (uint32_t j = 0; j < nf; j++)
			fns[j] = (uint64_t)m[PL_FUNC][k[2 + j] - 1];
		m[PL_LOC][l->idx] = (int64_t)rf_pprof__location(
			out, k[0] ? (uint64_t)m[PL_MAP][k[0] - 1] : 0, k[1], fns, nf);
		return m[PL_LOC][l->idx] ? 0 : -ENOMEM;
	}
	case PL_SAMPLE: {
		const unsigned char *k = q->samples.v[l->idx].key;
		uint32_t n[2];
		uint64_t *locs;
		struct rf_pprof_label *labs;
		int64_t id;

		memcpy(n, k, 8);
		locs = malloc((n[0] ? n[0] : 1) * sizeof(*locs));
		labs = malloc((n[1] ? n[1] : 1) * sizeof(*labs));
		if (!locs || !labs) {
			free(locs);
			free(labs);
			return -ENOMEM;
		}
		memcpy(locs, k + 8, n[0] * 8);
		memcpy(labs, k + 8 + n[0] * 8, n[1] * sizeof(*labs));
		for (uint32_t j = 0; j < n[0]; j++)
			locs[j] = (uint64_t)m[PL_LOC][locs[j] - 1];
		for (uint32_t j = 0; j < n[1]; j++) {
			labs[j].key = m[PL_STR][labs[j].key];
			labs[j].str = m[PL_STR][labs[j].str];
			labs[j].unit = m[PL_STR][labs[j].unit];
		}
		id = sample_get(out, locs, n[0], labs, n[1]);
		free(locs);
		free(labs);
		m[PL_SAMPLE][l->idx] = id;
		return id < 0 ? -ENOMEM : 0;
	}
	}
	return -EINVAL;
}

int rf_pprof__merge(struct rf_pprof *const *pp, int n, uint32_t *const *colmap, int64_t ***smap)
{
	struct rf_pprof *out = rf_pprof__new(), tmp;
	int64_t *(*m)[5] = calloc((size_t)n, sizeof(*m));
	struct rf_seqref *refs = NULL;
	size_t nr = 0, r;
	int ret = -ENOMEM;

	*smap = NULL;
	if (!out || !m)
		goto out;
	for (int k = 0; k < n; k++) {
		const struct rf_pprof *q = pp[k];
		size_t sz[5] = { q->strs.nr, q->maps.nr, q->funcs.nr, q->locs.nr, q->samples.nr };

		for (int t = 0; t < 5; t++)
			if (!(m[k][t] = calloc(sz[t] ? sz[t] : 1, sizeof(int64_t))))
				goto out;
		nr += q->nr_log;
	}
	refs = malloc((nr ? nr : 1) * sizeof(*refs));
	if (!refs)
		goto out;
	nr = 0;
	for (int k = 0; k < n; k++)
		for (size_t i = 0; i < pp[k]->nr_log; i++)
			refs[nr++] = (struct rf_seqref){ .seq = pp[k]->log[i].seq, .k = (uint32_t)k,
							 .i = (uint32_t)i };
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (r = 0; r < nr; r++) {
		struct rf_pprof *q = pp[refs[r].k];

		/* the merged profile keeps the order: it can be merged again */
		out->seq = refs[r].seq;
		if (remake(out, q, &q->log[refs[r].i], m[refs[r].k]))
			goto out;
	}
	for (int k = 0; k < n; k++) {
		const struct rf_pprof *q = pp[k];

		for (size_t i = 0; i < q->samples.nr; i++)
			for (uint32_t c = 0; c < q->ps[i].nr; c++)
				if (q->ps[i].v[c] &&
				    sample_add(&out->ps[m[k][PL_SAMPLE][i]],
					       colmap && colmap[k] ? colmap[k][c] : c, q->ps[i].v[c]))
					goto out;
	}
	/* pp[0] takes the merged profile; its old one goes with out */
	tmp = *pp[0];
	*pp[0] = *out;
	*out = tmp;
	*smap = calloc((size_t)n, sizeof(**smap));
	if (!*smap)
		goto out;
	for (int k = 0; k < n; k++) {
		(*smap)[k] = m[k][PL_STR];
		m[k][PL_STR] = NULL;
	}
	ret = 0;
out:
	rf_pprof__delete(out);
	for (int k = 0; m && k < n; k++)
		for (int t = 0; t < 5; t++)
			free(m[k][t]);
	free(m);
	free(refs);
	return ret;
}

/* ---- gzip through deflate, as protobuf-c hands over the packed bytes ---- */

struct gzbuf {
	ProtobufCBuffer base; /* first: protobuf-c calls append() with it */
	z_stream z;
	int fd;
	int err;
	/* protobuf-c appends a few bytes at a time: deflate sees them 64 KiB at once */
	size_t in_len;
	unsigned char in[1 << 16];
	unsigned char out[1 << 16];
};

static int gz_flush(struct gzbuf *g, int mode)
{
	int zr;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		zr = deflate(&g->z, mode);
		if (zr == Z_STREAM_ERROR)
			return -EIO;
		for (size_t off = 0, n = sizeof(g->out) - g->z.avail_out; off < n;) {
			ssize_t w = write(g->fd, g->out + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			off += (size_t)w;
		}
	} while (g->z.avail_out == 0 || (mode == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

/* the input buffered so far through deflate (mode Z_FINISH: and the end) */
static void gz_drain(struct gzbuf *g, int mode)
{
	if (g->err)
		return;
	g->z.next_in = g->in;
	g->z.avail_in = (uInt)g->in_len;
	g->err = gz_flush(g, mode);
	g->in_len = 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzbuf *g = (struct gzbuf *)b;

	while (!g->err && len) {
		size_t n = sizeof(g->in) - g->in_len;

		if (n > len)
			n = len;
		memcpy(g->in + g->in_len, data, n);
		g->in_len += n;
		data += n;
		len -= n;
		if (g->in_len == sizeof(g->in))
			gz_drain(g, Z_NO_FLUSH);
	}
}

/* ---- the encoder ---- */

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

/* every message of the profile, in arrays freed at once */
struct msgs {
	PValueType *vt, period_type;
	PValueType **vtp;
	PSample *s;
	PSample **sp;
	PLabel *l;
	PLabel **lp;
	int64_t *vals;
	uint64_t *lids;
	PMapping *m;
	PMapping **mp;
	PLocation *loc;
	PLocation **locp;
	PLine *line;
	PLine **linep;
	PFunction *f;
	PFunction **fp;
	char **strs;
};

static void msgs_free(struct msgs *x)
{
	free(x->vt);
	free(x->vtp);
	free(x->s);
	free(x->sp);
	free(x->l);
	free(x->lp);
	free(x->vals);
	free(x->lids);
	free(x->m);
	free(x->mp);
	free(x->loc);
	free(x->locp);
	free(x->line);
	free(x->linep);
	free(x->f);
	free(x->fp);
	free(x->strs);
}

/* each sample's locations and labels are in its key: [nr_locs, nr_labels, locs, labels] */
static int fill_samples(struct rf_pprof *p, const struct rf_pprof_meta *meta, struct msgs *x,
			PProfile *pr)
{
	size_t n = p->samples.nr, nl = 0, nloc = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t c[2];

		memcpy(c, p->samples.v[i].key, 8);
		nloc += c[0];
		nl += c[1];
	}
	x->s = calloc(n ? n : 1, sizeof(*x->s));
	x->sp = calloc(n ? n : 1, sizeof(*x->sp));
	x->vals = calloc(n * meta->nr_cols + 1, sizeof(*x->vals));
	x->lids = calloc(nloc + 1, sizeof(*x->lids));
	x->l = calloc(nl + 1, sizeof(*x->l));
	x->lp = calloc(nl + 1, sizeof(*x->lp));
	if (!x->s || !x->sp || !x->vals || !x->lids || !x->l || !x->lp)
		return -ENOMEM;
	nl = nloc = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *k = p->samples.v[i].key;
		PSample *s = &x->s[i];
		uint32_t c[2];

		memcpy(c, k, 8);
		perftools__profiles__sample__init(s);
		s->n_location_id = c[0];
		s->location_id = x->lids + nloc;
		memcpy(s->location_id, k + 8, c[0] * 8);
		nloc += c[0];
		s->n_value = meta->nr_cols;
		s->value = x->vals + i * meta->nr_cols;
		for (uint32_t j = 0; j < meta->nr_cols; j++) {
			uint32_t col = meta->order[j];

			s->value[j] = col < p->ps[i].nr ? p->ps[i].v[col] : 0;
		}
		s->n_label = c[1];
		s->label = x->lp + nl;
		for (uint32_t j = 0; j < c[1]; j++) {
			struct rf_pprof_label lb;
			PLabel *l = &x->l[nl];

			memcpy(&lb, k + 8 + c[0] * 8 + j * sizeof(lb), sizeof(lb));
			perftools__profiles__label__init(l);
			l->key = lb.key;
			l->str = lb.str;
			l->num = lb.num;
			l->num_unit = lb.unit;
			x->lp[nl++] = l;
		}
		x->sp[i] = s;
	}
	pr->n_sample = n;
	pr->sample = x->sp;
	return 0;
}

/*
 * pprof takes mapping 1 for the main binary (the File: line of its reports):
 * the first mapping of a program, not a library or [kernel.kallsyms], moves
 * there, as pprof's own guess for legacy profiles does.
 */
static uint64_t main_mapping(const struct rf_pprof *p)
{
	for (size_t i = 0; i < p->maps.nr; i++) {
		const char *f = p->strs.v[p->pm[i].file].key, *b = strrchr(f, '/');

		b = b ? b + 1 : f;
		if (f[0] != '/' || strstr(b, ".so") || !strncmp(b, "ld-", 3))
			continue;
		return i + 1;
	}
	return 1;
}

static uint64_t map_id(uint64_t id, uint64_t main)
{
	return id == main ? 1 : id == 1 ? main : id;
}

static int fill_locations(struct rf_pprof *p, struct msgs *x, PProfile *pr)
{
	uint64_t main = main_mapping(p);
	size_t n = p->locs.nr, nlines = 0;

	for (size_t i = 0; i < n; i++)
		nlines += (p->locs.v[i].len - 16) / 8;
	x->loc = calloc(n + 1, sizeof(*x->loc));
	x->locp = calloc(n + 1, sizeof(*x->locp));
	x->line = calloc(nlines + 1, sizeof(*x->line));
	x->linep = calloc(nlines + 1, sizeof(*x->linep));
	if (!x->loc || !x->locp || !x->line || !x->linep)
		return -ENOMEM;
	nlines = 0;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *k = p->locs.v[i].key;
		size_t nf = (p->locs.v[i].len - 16) / 8;
		PLocation *l = &x->loc[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = map_id(k[0], main);
		l->address = k[1];
		l->n_line = nf;
		l->line = x->linep + nlines;
		for (size_t j = 0; j < nf; j++) {
			PLine *ln = &x->line[nlines];

			perftools__profiles__line__init(ln);
			ln->function_id = k[2 + j];
			x->linep[nlines++] = ln;
		}
		x->locp[i] = l;
	}
	pr->n_location = n;
	pr->location = x->locp;
	return 0;
}

static int fill_tables(struct rf_pprof *p, struct msgs *x, PProfile *pr)
{
	size_t nm = p->maps.nr, nf = p->funcs.nr, ns = p->strs.nr;
	uint64_t main = main_mapping(p);

	x->m = calloc(nm + 1, sizeof(*x->m));
	x->mp = calloc(nm + 1, sizeof(*x->mp));
	x->f = calloc(nf + 1, sizeof(*x->f));
	x->fp = calloc(nf + 1, sizeof(*x->fp));
	x->strs = calloc(ns + 1, sizeof(*x->strs));
	if (!x->m || !x->mp || !x->f || !x->fp || !x->strs)
		return -ENOMEM;
	for (size_t i = 0; i < nm; i++) {
		PMapping *m = &x->m[map_id(i + 1, main) - 1];
		const struct pmap *pm = &p->pm[i];

		perftools__profiles__mapping__init(m);
		m->id = map_id(i + 1, main);
		m->memory_start = pm->start;
		m->memory_limit = pm->limit;
		m->file_offset = pm->offset;
		m->filename = pm->file;
		m->build_id = pm->bid;
		/* every location of the mapping has its function: no need to symbolize it */
		m->has_functions = pm->lines && !pm->bare;
		m->has_inline_frames = m->has_functions && pm->inl;
	}
	for (size_t i = 0; i < nm; i++)
		x->mp[i] = &x->m[i];
	for (size_t i = 0; i < nf; i++) {
		const int64_t *k = p->funcs.v[i].key;
		PFunction *f = &x->f[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = k[0];
		f->filename = k[1];
		x->fp[i] = f;
	}
	for (size_t i = 0; i < ns; i++)
		x->strs[i] = (char *)p->strs.v[i].key;
	pr->n_mapping = nm;
	pr->mapping = x->mp;
	pr->n_function = nf;
	pr->function = x->fp;
	pr->n_string_table = ns;
	pr->string_table = x->strs;
	return 0;
}

static int fill_types(const struct rf_pprof_meta *meta, struct msgs *x, PProfile *pr)
{
	x->vt = calloc(meta->nr_cols + 1, sizeof(*x->vt));
	x->vtp = calloc(meta->nr_cols + 1, sizeof(*x->vtp));
	if (!x->vt || !x->vtp)
		return -ENOMEM;
	for (uint32_t i = 0; i < meta->nr_cols; i++) {
		perftools__profiles__value_type__init(&x->vt[i]);
		x->vt[i].type = meta->types[meta->order[i]];
		x->vt[i].unit = meta->units[meta->order[i]];
		x->vtp[i] = &x->vt[i];
	}
	pr->n_sample_type = meta->nr_cols;
	pr->sample_type = x->vtp;
	perftools__profiles__value_type__init(&x->period_type);
	if (meta->period_type) {
		x->period_type.type = meta->period_type;
		x->period_type.unit = meta->period_unit;
		pr->period_type = &x->period_type;
		pr->period = meta->period;
	}
	pr->default_sample_type = meta->default_type;
	pr->time_nanos = meta->time_nanos;
	pr->duration_nanos = meta->duration_nanos;
	pr->n_comment = meta->nr_comments;
	pr->comment = meta->comments;
	return 0;
}

int rf_pprof__write(struct rf_pprof *p, const struct rf_pprof_meta *meta, int fd,
		    const char **what)
{
	PProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct msgs x = { 0 };
	struct gzbuf *g = NULL;
	int ret;

	*what = "out of memory";
	ret = fill_types(meta, &x, &pr);
	if (!ret)
		ret = fill_samples(p, meta, &x, &pr);
	if (!ret)
		ret = fill_locations(p, &x, &pr);
	if (!ret)
		ret = fill_tables(p, &x, &pr);
	if (!ret && !(g = calloc(1, sizeof(*g))))
		ret = -ENOMEM;
	if (ret)
		goto out;
	g->base.append = gz_append;
	g->fd = fd;
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	/* the speed Go's runtime/pprof writes its profiles with */
	if (deflateInit2(&g->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		g = NULL;
		*what = "zlib: deflateInit2 failed";
		ret = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack_to_buffer(&pr, &g->base);
	gz_drain(g, Z_FINISH);
	ret = g->err;
	*what = "write";
	deflateEnd(&g->z);
out:
	free(g);
	msgs_free(&x);
	return ret;
}
