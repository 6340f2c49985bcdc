// SPDX-License-Identifier: GPL-2.0
/*
 * visit-check FILE...: for every sample of every file, the typed visit of its
 * fields (rawfrag_session__sample_visit()) written back as JSON by the small
 * writer below must equal rawfrag_session__sample_fields()' JSON byte for
 * byte, and every name, path, depth and index must be the one the nesting
 * gives; then --where expressions built from the visited values (every
 * operator at the value, below and above it; strings, globs, hex, type errors,
 * missing fields) must give the same answer, message and unseen field through
 * rawfrag_where__match_sample() as through rawfrag_where__match() on the JSON.
 *
 * Prints one line per file ("FILE: N samples, N fields, N where checks") and
 * each difference; exits 1 on any difference, 2 when a file cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/rawfrag.h>

#define MAX_DEPTH 64
#define WHERE_PER_EVSEL 40 /* samples per evsel whose fields make --where checks */

/* the visit written back as JSON, and its own account of names and paths */
struct writer {
	struct rawfrag_out *o;
	bool first[MAX_DEPTH + 1];
	/* the open levels: array or not, the next element index, the path */
	bool array[MAX_DEPTH + 1];
	uint32_t next[MAX_DEPTH + 1];
	size_t plen[MAX_DEPTH + 1];
	char path[8192];
	int depth;
	char why[512]; /* the first inconsistency */
	long fields;
};

static void bad(struct writer *w, const char *what, const struct rawfrag_field *f)
{
	if (!w->why[0])
		snprintf(w->why, sizeof(w->why), "%s (path '%.*s' depth %u index %u type %d)",
			 what, (int)f->path_len, f->path, f->depth, f->index, f->type);
}

/* what name, path, depth and index f must have as the next member */
static void expect(struct writer *w, const struct rawfrag_field *f)
{
	size_t at = w->plen[w->depth];
	uint32_t index = 0;

	if ((int)f->depth != w->depth)
		bad(w, "depth is not the nesting", f);
	if (w->array[w->depth]) {
		index = w->next[w->depth]++;
		if (f->name)
			bad(w, "an array element has a name", f);
	} else if (!f->name) {
		bad(w, "a member has no name", f);
	} else if (at + 1 + f->name_len < sizeof(w->path)) {
		if (at)
			w->path[at++] = '.';
		memcpy(w->path + at, f->name, f->name_len);
		at += f->name_len;
	}
	if (f->index != index)
		bad(w, "wrong element index", f);
	if (f->path_len != at || memcmp(f->path, w->path, at))
		bad(w, "path is not the names joined", f);
}

static int w_field(void *ctx, const struct rawfrag_field *f)
{
	struct writer *w = ctx;
	static const char hx[] = "0123456789abcdef";
	const unsigned char *b;

	w->fields++;
	expect(w, f);
	if (!w->first[w->depth])
		rawfrag_out__putc(w->o, ',');
	w->first[w->depth] = false;
	if (f->name) {
		rawfrag_out__json_str(w->o, f->name, f->name_len);
		rawfrag_out__putc(w->o, ':');
	}
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
		rawfrag_out__printf(w->o, "%" PRIu64, f->v.u);
		break;
	case RAWFRAG_FIELD_S64:
		rawfrag_out__printf(w->o, "%" PRId64, f->v.s);
		break;
	case RAWFRAG_FIELD_BOOL:
		rawfrag_out__puts(w->o, f->v.b ? "true" : "false");
		break;
	case RAWFRAG_FIELD_HEX:
		rawfrag_out__printf(w->o, "\"0x%" PRIx64 "\"", f->v.u);
		break;
	case RAWFRAG_FIELD_STR:
		if (memchr(f->v.str.p, 0, f->v.str.len))
			bad(w, "a string holds a NUL", f);
		rawfrag_out__json_str(w->o, f->v.str.p, f->v.str.len);
		break;
	case RAWFRAG_FIELD_BYTES:
		b = (const unsigned char *)f->v.str.p;
		rawfrag_out__putc(w->o, '"');
		for (size_t i = 0; i < f->v.str.len; i++) {
			rawfrag_out__putc(w->o, hx[b[i] >> 4]);
			rawfrag_out__putc(w->o, hx[b[i] & 15]);
		}
		rawfrag_out__putc(w->o, '"');
		break;
	case RAWFRAG_FIELD_NULL:
		rawfrag_out__puts(w->o, "null");
		break;
	case RAWFRAG_FIELD_OBJECT:
	case RAWFRAG_FIELD_ARRAY:
		if (w->depth >= MAX_DEPTH) {
			bad(w, "too deep", f);
			return -E2BIG;
		}
		rawfrag_out__putc(w->o, f->type == RAWFRAG_FIELD_ARRAY ? '[' : '{');
		w->depth++;
		w->first[w->depth] = true;
		w->array[w->depth] = f->type == RAWFRAG_FIELD_ARRAY;
		w->next[w->depth] = 0;
		w->plen[w->depth] = f->path_len;
		return 0;
	default:
		bad(w, "unknown type", f);
	}
	return 0;
}

static int w_end(void *ctx, const struct rawfrag_field *f)
{
	struct writer *w = ctx;

	if (w->depth <= 0) {
		bad(w, "end without a start", f);
		return -EINVAL;
	}
	if (f->type != (w->array[w->depth] ? RAWFRAG_FIELD_ARRAY : RAWFRAG_FIELD_OBJECT))
		bad(w, "end of another type than its start", f);
	if (f->path_len != w->plen[w->depth] || memcmp(f->path, w->path, f->path_len))
		bad(w, "end's path is not its start's", f);
	w->depth--;
	if ((int)f->depth != w->depth)
		bad(w, "end's depth is not its start's", f);
	rawfrag_out__putc(w->o, f->type == RAWFRAG_FIELD_ARRAY ? ']' : '}');
	return 0;
}

/* ---- --where: expressions from the visited values ---- */

struct exprs {
	char **e;
	int nr, cap;
};

static void add(struct exprs *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct exprs *x, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	if (x->nr == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->e = realloc(x->e, x->cap * sizeof(*x->e));
		if (!x->e)
			abort();
	}
	x->e[x->nr++] = s;
}

static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };

/* the string as a --where literal: quotes and backslashes escaped */
static void literal(char *d, size_t cap, const char *s, size_t len)
{
	size_t o = 0;

	d[o++] = '"';
	for (size_t i = 0; i < len && o + 4 < cap; i++) {
		if (s[i] == '"' || s[i] == '\\')
			d[o++] = '\\';
		d[o++] = s[i];
	}
	d[o++] = '"';
	d[o] = 0;
}

struct gen {
	struct exprs *x;
	int array; /* depth of the open array, -1: none */
	char prev[256]; /* a name-only path seen before, for && and || */
};

static bool plain_path(const struct rawfrag_field *f)
{
	for (size_t i = 0; i < f->path_len; i++) {
		char c = f->path[i];

		if (!(c == '.' || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			return false;
	}
	return f->path_len && f->path_len < 200;
}

static void gen_num(struct exprs *x, const char *p, __int128 v, bool hex)
{
	__int128 vals[3] = { v, v - 1, v + 1 };

	for (int k = 0; k < 3; k++) {
		__int128 a = vals[k];
		char lit[48];

		if (a > (__int128)UINT64_MAX || a < -(__int128)UINT64_MAX)
			continue;
		if (hex && a >= 0)
			snprintf(lit, sizeof(lit), "0x%" PRIx64, (uint64_t)a);
		else if (a < 0)
			snprintf(lit, sizeof(lit), "-%" PRIu64, (uint64_t)-a);
		else
			snprintf(lit, sizeof(lit), "%" PRIu64, (uint64_t)a);
		for (int o = 0; o < 6; o++)
			add(x, "%s %s %s", p, ops[o], lit);
	}
}

static int g_field(void *ctx, const struct rawfrag_field *f)
{
	struct gen *g = ctx;
	char p[256], lit[600], s[300];
	size_t n;

	if (g->array >= 0 && (int)f->depth > g->array)
		return 0;
	if (f->type == RAWFRAG_FIELD_ARRAY)
		g->array = (int)f->depth;
	if (!f->name || !plain_path(f))
		return 0;
	snprintf(p, sizeof(p), "%.*s", (int)f->path_len, f->path);
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
		gen_num(g->x, p, f->v.u, false);
		add(g->x, "%s == \"x\"", p); /* a number with a string */
		add(g->x, "%s == true", p);
		break;
	case RAWFRAG_FIELD_S64:
		gen_num(g->x, p, f->v.s, false);
		break;
	case RAWFRAG_FIELD_HEX:
		gen_num(g->x, p, f->v.u, true);
		snprintf(s, sizeof(s), "0x%" PRIx64, f->v.u);
		for (int o = 0; o < 6; o++)
			add(g->x, "%s %s \"%s\"", p, ops[o], s);
		add(g->x, "%s == \"0x*\"", p);
		add(g->x, "%s == false", p);
		break;
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES:
		if (f->type == RAWFRAG_FIELD_BYTES) {
			n = 0;
			for (size_t i = 0; i < f->v.str.len && n + 2 < sizeof(s); i++)
				n += (size_t)snprintf(s + n, sizeof(s) - n, "%02x",
						      (unsigned char)f->v.str.p[i]);
		} else {
			n = f->v.str.len < sizeof(s) - 2 ? f->v.str.len : sizeof(s) - 2;
			memcpy(s, f->v.str.p, n);
		}
		s[n] = 0;
		/* equal, a prefix (lower), one more character (higher) */
		literal(lit, sizeof(lit), s, n);
		for (int o = 0; o < 6; o++)
			add(g->x, "%s %s %s", p, ops[o], lit);
		if (n) {
			literal(lit, sizeof(lit), s, n - 1);
			for (int o = 0; o < 6; o++)
				add(g->x, "%s %s %s", p, ops[o], lit);
		}
		s[n] = '~';
		s[n + 1] = 0;
		literal(lit, sizeof(lit), s, n + 1);
		for (int o = 0; o < 6; o++)
			add(g->x, "%s %s %s", p, ops[o], lit);
		if (n) {
			/* globs: the first character and a star, and a miss */
			snprintf(lit, sizeof(lit), "\"%c*\"", s[0] == '"' || s[0] == '\\' ? '?' : s[0]);
			add(g->x, "%s == %s", p, lit);
			add(g->x, "%s != %s", p, lit);
			add(g->x, "%s == \"*[~]\"", p);
		}
		add(g->x, "%s == 0", p);
		add(g->x, "%s > 0x0", p);
		add(g->x, "%s == null", p);
		break;
	case RAWFRAG_FIELD_BOOL:
		add(g->x, "%s == %s", p, f->v.b ? "true" : "false");
		add(g->x, "%s != true", p);
		add(g->x, "%s == 1", p);
		break;
	case RAWFRAG_FIELD_NULL:
		add(g->x, "%s == null", p);
		add(g->x, "%s != null", p);
		add(g->x, "%s < 1", p);
		add(g->x, "%s == \"x\"", p);
		break;
	case RAWFRAG_FIELD_OBJECT:
	case RAWFRAG_FIELD_ARRAY:
		add(g->x, "%s == 1", p);
		add(g->x, "%s != null", p);
		add(g->x, "%s.nosuch == 1", p);
		break;
	default:
		break;
	}
	/* two comparisons in one tree: both evaluated, errors in tree order */
	if (g->prev[0]) {
		add(g->x, "%s == \"x\" && %s == 1", g->prev, p);
		add(g->x, "!(%s == 1) || %s != \"y\"", p, g->prev);
	}
	snprintf(g->prev, sizeof(g->prev), "%s", p);
	return 0;
}

static int g_end(void *ctx, const struct rawfrag_field *f)
{
	struct gen *g = ctx;

	if (f->type == RAWFRAG_FIELD_ARRAY && (int)f->depth == g->array)
		g->array = -1;
	return 0;
}

/* ---- one file ---- */

struct check {
	struct rawfrag_tool tool;
	struct rawfrag_out *json, *vjson;
	struct rawfrag_emit *em;
	const char *path;
	long samples, fields, wchecks, diffs;
	int *where_done; /* per evsel index */
	int nr_where_done;
};

static void diff(struct check *c, const struct rawfrag_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diff(struct check *c, const struct rawfrag_event *ev, const char *fmt, ...)
{
	va_list ap;

	if (++c->diffs > 20)
		return;
	fprintf(stderr, "%s: offset 0x%" PRIx64 " (%s): ", c->path, ev->rec->offset,
		rawfrag_evsel__name(ev->evsel));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void where_checks(struct check *c, struct rawfrag_session *s,
			 const struct rawfrag_event *ev, const char *json, size_t len)
{
	struct exprs x = { 0 };
	struct gen g = { .x = &x, .array = -1 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = g_field, .end = g_end, .ctx = &g };

	rawfrag_session__sample_visit(s, ev->evsel, ev->rec, ev->sample, &v);
	add(&x, "nosuch == 1");
	add(&x, "nosuch.deeper != \"a\"");
	for (int i = 0; i < x.nr; i++) {
		struct rawfrag_err e1, e2;
		struct rawfrag_where *w1 = rawfrag_where__new(x.e[i], &e1);
		struct rawfrag_where *w2 = rawfrag_where__new(x.e[i], &e2);
		int r1, r2;

		if (!w1 || !w2) {
			diff(c, ev, "does not compile: %s: %s", x.e[i], e1.reason);
			goto next;
		}
		memset(&e1, 0, sizeof(e1));
		memset(&e2, 0, sizeof(e2));
		r1 = rawfrag_where__match(w1, json, len, &e1);
		r2 = rawfrag_where__match_sample(w2, s, ev->evsel, ev->rec, ev->sample, &e2);
		c->wchecks++;
		if (r1 != r2 || (r1 < 0 && strcmp(e1.reason, e2.reason)))
			diff(c, ev, "where '%s': JSON %d '%s', visit %d '%s'", x.e[i], r1,
			     r1 < 0 ? e1.reason : "", r2, r2 < 0 ? e2.reason : "");
		else if ((rawfrag_where__unseen_field(w1) == NULL) !=
			 (rawfrag_where__unseen_field(w2) == NULL))
			diff(c, ev, "where '%s': unseen fields differ", x.e[i]);
next:
		rawfrag_where__delete(w1);
		rawfrag_where__delete(w2);
		free(x.e[i]);
	}
	free(x.e);
}

static int on_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		     const struct rawfrag_event *ev)
{
	struct check *c = (struct check *)tool;
	struct writer w = { .depth = 0 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = w_field, .end = w_end, .ctx = &w };
	const char *a, *b;
	size_t alen, blen;
	int r1, r2, idx;

	if (!ev->evsel || !ev->sample)
		return 0;
	c->samples++;
	rawfrag_out__reset(c->json);
	rawfrag_emit__reset(c->em);
	r1 = rawfrag_session__sample_fields(s, ev->evsel, ev->rec, ev->sample, c->em);
	rawfrag_out__reset(c->vjson);
	w.o = c->vjson;
	w.first[0] = true;
	r2 = rawfrag_session__sample_visit(s, ev->evsel, ev->rec, ev->sample, &v);
	c->fields += w.fields;
	a = rawfrag_out__mem(c->json, &alen);
	b = rawfrag_out__mem(c->vjson, &blen);
	if (r1 != r2)
		diff(c, ev, "sample_fields returned %d, sample_visit %d", r1, r2);
	if (w.why[0])
		diff(c, ev, "visit: %s", w.why);
	if (w.depth)
		diff(c, ev, "visit: %d levels not ended", w.depth);
	if (alen != blen || memcmp(a, b, alen)) {
		size_t k = 0;

		while (k < alen && k < blen && a[k] == b[k])
			k++;
		diff(c, ev, "JSON differs at byte %zu:\n  fields: %.*s\n  visit:  %.*s", k,
		     (int)(alen - k < 160 ? alen - k : 160), a + k,
		     (int)(blen - k < 160 ? blen - k : 160), b + k);
	}
	idx = rawfrag_evsel__idx(ev->evsel);
	if (idx >= 0 && idx < c->nr_where_done && c->where_done[idx] < WHERE_PER_EVSEL) {
		char *json = malloc(alen + 2);

		if (!json)
			return -ENOMEM;
		json[0] = '{';
		memcpy(json + 1, a, alen);
		json[alen + 1] = '}';
		c->where_done[idx]++;
		where_checks(c, s, ev, json, alen + 2);
		free(json);
	}
	return 0;
}

static int skip_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		    const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

static int check_file(const char *path)
{
	struct rawfrag_err err = { 0 };
	struct rawfrag_file *f = rawfrag_file__open(path, NULL, &err);
	struct rawfrag_session *s = NULL;
	struct check c = { .tool = { .sz = sizeof(c.tool), .sample = on_sample,
				     .sample_error = skip_bad, .ordered = true },
			   .path = path };
	char buf[512];
	int ret = 2;

	if (!f)
		goto out;
	s = rawfrag_session__new(f, NULL, &err);
	c.json = rawfrag_out__new(-1);
	c.vjson = rawfrag_out__new(-1);
	c.em = c.json ? rawfrag_emit__new(c.json, RAWFRAG_EMIT_JSON) : NULL;
	c.nr_where_done = 4096;
	c.where_done = calloc(c.nr_where_done, sizeof(int));
	if (!s || !c.em || !c.vjson || !c.where_done)
		goto out;
	if (rawfrag_session__process(s, &c.tool, &err) < 0)
		goto out;
	printf("%s: %ld samples, %ld fields, %ld where checks, %ld differences\n", path,
	       c.samples, c.fields, c.wchecks, c.diffs);
	ret = c.diffs || !c.samples ? 1 : 0;
out:
	if (ret == 2)
		fprintf(stderr, "visit-check: %s\n", rawfrag_err__format(&err, path, buf, sizeof(buf)));
	free(c.where_done);
	rawfrag_emit__delete(c.em);
	rawfrag_out__delete(c.json);
	rawfrag_out__delete(c.vjson);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: visit-check FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int r = check_file(argv[i]);

		if (r > ret)
			ret = r;
	}
	return ret;
}
