// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --where expressions (rawfrag/where.h): compiled once into a small tree,
 * evaluated per sample on the JSON text of its fields (the emitter's output, so
 * the names and values are exactly those of report --format json), or on a
 * visit of the same fields (rawfrag_where__match_sample()): each comparison
 * takes its field's value as that JSON would give it, and the tree is then
 * evaluated as on the JSON, so both give the same answers and messages.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/visit.h>
#include <rawfrag/where.h>

#include "internal/decoder.h"
#include "internal/emit.h"
#include "internal/opts.h"
#include "internal/where.h"

#define WHERE_MAX_NODES 256
#define WHERE_MAX_DEPTH 64
#define WHERE_STR_MAX 4096

enum nk { N_OR, N_AND, N_NOT, N_CMP };
enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
enum vt { V_NUM, V_STR, V_BOOL, V_NULL };

struct node {
	enum nk kind;
	int a, b;
	/* N_CMP */
	char *field;
	bool seen;
	enum op op;
	enum vt vt;
	__int128 num;
	char *str;
	bool glob, bval;
	/* visits: the field's names end at seg[0..nseg-1] (lengths in field) */
	uint32_t *seg;
	uint32_t nseg;
	/* per visited sample: decided (found or known absent), found, result */
	bool done, found;
	int res; /* 1, 0, or -EINVAL: a type error, jc the JSON's first byte */
	char jc;
};

struct rawfrag_where {
	struct node *n;
	int nr;
	int root;
	/* the comparisons' nodes, for visits */
	int *cmp, nr_cmp;
};

struct parser {
	struct rawfrag_where *w;
	const char *src, *p;
	int depth;
	struct rawfrag_err *err;
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *ps, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (!ps->err || ps->err->err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ps->err->err = -EINVAL;
	ps->err->offset = -1;
	ps->err->rec_type = 0;
	snprintf(ps->err->reason, sizeof(ps->err->reason), "--where: %s at column %d of '%s'",
		 why, (int)(ps->p - ps->src) + 1, ps->src);
	return -1;
}

static void ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	ws(ps);
	if (strncmp(ps->p, tok, n))
		return false;
	ps->p += n;
	return true;
}

static int new_node(struct parser *ps, enum nk kind, int a, int b)
{
	struct rawfrag_where *w = ps->w;

	if (w->nr >= WHERE_MAX_NODES)
		return perr(ps, "expression too long");
	w->n[w->nr] = (struct node){ .kind = kind, .a = a, .b = b };
	return w->nr++;
}

static int parse_or(struct parser *ps);

static int parse_field(struct parser *ps, char **out)
{
	const char *s = ps->p;

	while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.')
		ps->p++;
	if (ps->p == s || *s == '.' || ps->p[-1] == '.')
		return perr(ps, "expected a field name");
	*out = strndup(s, (size_t)(ps->p - s));
	return *out ? 0 : perr(ps, "out of memory");
}

static int parse_op(struct parser *ps, enum op *op)
{
	static const struct {
		const char *t;
		enum op op;
	} ops[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		    { ">=", OP_GE }, { "<", OP_LT },  { ">", OP_GT } };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (eat(ps, ops[i].t)) {
			*op = ops[i].op;
			return 0;
		}
	return perr(ps, "expected one of == != < <= > >=");
}

static int parse_number(struct parser *ps, struct node *n)
{
	bool neg = *ps->p == '-';
	unsigned __int128 v = 0;
	int base = 10, digits = 0;

	if (neg)
		ps->p++;
	if (ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X')) {
		base = 16;
		ps->p += 2;
	}
	for (;; ps->p++, digits++) {
		int d = isdigit((unsigned char)*ps->p) ? *ps->p - '0' :
			base == 16 && isxdigit((unsigned char)*ps->p) ? tolower(*ps->p) - 'a' + 10 :
			-1;

		if (d < 0)
			break;
		v = v * base + d;
		if (v > (unsigned __int128)UINT64_MAX)
			return perr(ps, "number out of range");
	}
	if (!digits || isalnum((unsigned char)*ps->p))
		return perr(ps, "bad number");
	n->vt = V_NUM;
	n->num = neg ? -(__int128)v : (__int128)v;
	return 0;
}

static int parse_string(struct parser *ps, struct node *n)
{
	char buf[WHERE_STR_MAX];
	size_t len = 0;

	for (ps->p++; *ps->p && *ps->p != '"'; ps->p++) {
		if (*ps->p == '\\' && ps->p[1])
			ps->p++;
		if (len + 1 >= sizeof(buf))
			return perr(ps, "string too long");
		buf[len++] = *ps->p;
	}
	if (*ps->p != '"')
		return perr(ps, "unterminated string");
	ps->p++;
	buf[len] = 0;
	n->vt = V_STR;
	n->glob = strpbrk(buf, "*?[") != NULL;
	n->str = strdup(buf);
	return n->str ? 0 : perr(ps, "out of memory");
}

static int parse_value(struct parser *ps, struct node *n)
{
	ws(ps);
	if (*ps->p == '"')
		return parse_string(ps, n);
	if (*ps->p == '-' || isdigit((unsigned char)*ps->p))
		return parse_number(ps, n);
	if (eat(ps, "true") || eat(ps, "false")) {
		n->vt = V_BOOL;
		n->bval = ps->p[-1] == 'e' && ps->p[-2] == 'u';
		return 0;
	}
	if (eat(ps, "null")) {
		n->vt = V_NULL;
		return 0;
	}
	return perr(ps, "expected a number, a \"string\", true, false or null");
}

/* where each name of the field's path ends (parse_field() allows no empty name) */
static int field_segments(struct parser *ps, struct node *n)
{
	size_t len = strlen(n->field);
	uint32_t k = 0;

	for (size_t i = 0; i < len; i++)
		k += n->field[i] == '.';
	n->seg = calloc(k + 1, sizeof(*n->seg));
	if (!n->seg)
		return perr(ps, "out of memory");
	k = 0;
	for (size_t i = 0; i <= len; i++)
		if (i == len || n->field[i] == '.')
			n->seg[k++] = (uint32_t)i;
	n->nseg = k;
	return 0;
}

static int parse_cmp(struct parser *ps)
{
	int i = new_node(ps, N_CMP, -1, -1);
	struct node *n;
	char *field = NULL;

	if (i < 0)
		return -1;
	n = &ps->w->n[i];
	ws(ps);
	if (parse_field(ps, &field))
		return -1;
	n->field = field;
	if (field_segments(ps, n) || parse_op(ps, &n->op) || parse_value(ps, n))
		return -1;
	if (n->vt == V_STR && n->glob && n->op != OP_EQ && n->op != OP_NE)
		return perr(ps, "a glob goes with == or != only");
	if ((n->vt == V_BOOL || n->vt == V_NULL) && n->op != OP_EQ && n->op != OP_NE)
		return perr(ps, "true, false and null go with == or != only");
	return i;
}

static int parse_unary(struct parser *ps)
{
	int a;

	if (++ps->depth > WHERE_MAX_DEPTH)
		return perr(ps, "nested too deep");
	if (eat(ps, "!")) {
		a = parse_unary(ps);
		a = a < 0 ? -1 : new_node(ps, N_NOT, a, -1);
	} else if (eat(ps, "(")) {
		a = parse_or(ps);
		if (a >= 0 && !eat(ps, ")"))
			a = perr(ps, "expected ')'");
	} else {
		a = parse_cmp(ps);
	}
	ps->depth--;
	return a;
}

static int parse_and(struct parser *ps)
{
	int a = parse_unary(ps);

	while (a >= 0 && eat(ps, "&&")) {
		int b = parse_unary(ps);

		a = b < 0 ? -1 : new_node(ps, N_AND, a, b);
	}
	return a;
}

static int parse_or(struct parser *ps)
{
	int a = parse_and(ps);

	while (a >= 0 && eat(ps, "||")) {
		int b = parse_and(ps);

		a = b < 0 ? -1 : new_node(ps, N_OR, a, b);
	}
	return a;
}

struct rawfrag_where *rawfrag_where__new(const char *expr, struct rawfrag_err *err)
{
	struct rawfrag_where *w = calloc(1, sizeof(*w));
	struct parser ps = { .w = w, .src = expr, .p = expr, .err = err };

	if (err)
		memset(err, 0, sizeof(*err));
	if (!w || !(w->n = calloc(WHERE_MAX_NODES, sizeof(*w->n)))) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->root = parse_or(&ps);
	ws(&ps);
	if (w->root >= 0 && *ps.p)
		w->root = perr(&ps, "unexpected '%c'", *ps.p);
	if (w->root < 0) {
		rawfrag_where__delete(w);
		errno = EINVAL;
		return NULL;
	}
	w->cmp = calloc(w->nr, sizeof(*w->cmp));
	if (!w->cmp) {
		rawfrag_where__delete(w);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < w->nr; i++)
		if (w->n[i].kind == N_CMP)
			w->cmp[w->nr_cmp++] = i;
	return w;
}

void rawfrag_where__delete(struct rawfrag_where *w)
{
	if (!w)
		return;
	for (int i = 0; w->n && i < w->nr; i++) {
		free(w->n[i].field);
		free(w->n[i].str);
		free(w->n[i].seg);
	}
	free(w->n);
	free(w->cmp);
	free(w);
}

void rf_where__merge_seen(struct rawfrag_where *dst, const struct rawfrag_where *src)
{
	for (int i = 0; i < dst->nr && i < src->nr; i++)
		dst->n[i].seen |= src->n[i].seen;
}

const char *rawfrag_where__unseen_field(const struct rawfrag_where *w)
{
	for (int i = 0; i < w->nr; i++)
		if (w->n[i].kind == N_CMP && !w->n[i].seen)
			return w->n[i].field;
	return NULL;
}

/* ---- the JSON side: find a member, read a value ---- */

/* end of the JSON value at p (strings, nesting), or NULL when it does not end */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
			if (!depth)
				return p + 1;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth < 0)
				return p;
			if (!depth)
				return p + 1;
		} else if (!depth && (*p == ',')) {
			return p;
		}
	}
	return depth ? NULL : p;
}

/* the value of member path (dotted) in the object at p; false when absent */
static bool find(const char *p, const char *end, const char *path, const char **vs,
		 const char **ve)
{
	const char *dot = strchr(path, '.');
	size_t seg = dot ? (size_t)(dot - path) : strlen(path);

	if (p >= end || *p != '{')
		return false;
	for (p++; p < end && *p != '}';) {
		const char *k = p + 1, *ke, *v;

		if (*p != '"')
			return false;
		ke = memchr(k, '"', (size_t)(end - k));
		if (!ke || ke + 1 >= end || ke[1] != ':')
			return false;
		v = ke + 2;
		p = skip_value(v, end);
		if (!p)
			return false;
		if ((size_t)(ke - k) == seg && !memcmp(k, path, seg)) {
			if (dot)
				return find(v, p, dot + 1, vs, ve);
			*vs = v;
			*ve = p;
			return true;
		}
		if (p < end && *p == ',')
			p++;
	}
	return false;
}

static const char *json_type(char c)
{
	return c == '"' ? "a string" : c == '{' ? "an object" : c == '[' ? "an array" :
	       c == 't' || c == 'f' ? "a boolean" : c == 'n' ? "null" : "a number";
}

static const char *lit_type(enum vt vt)
{
	return vt == V_STR ? "a string" : vt == V_BOOL ? "a boolean" : vt == V_NULL ? "null" :
							"a number";
}

static bool parse_int(const char *s, const char *e, int base, __int128 *out)
{
	bool neg = s < e && *s == '-';
	unsigned __int128 v = 0;

	if (neg)
		s++;
	if (s >= e)
		return false;
	for (; s < e; s++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' :
			base == 16 && isxdigit((unsigned char)*s) ? tolower(*s) - 'a' + 10 : -1;

		if (d < 0 || v > (unsigned __int128)UINT64_MAX)
			return false;
		v = v * base + d;
	}
	*out = neg ? -(__int128)v : (__int128)v;
	return true;
}

/* a JSON string's contents, unescaped (as much as fits) */
static void unescape(const char *s, const char *e, char *buf, size_t len)
{
	size_t o = 0;

	for (; s < e && o + 1 < len; s++) {
		if (*s == '\\' && s + 1 < e) {
			s++;
			if (*s == 'u' && e - s >= 5) {
				unsigned int cp = 0;

				sscanf(s + 1, "%4x", &cp);
				s += 4;
				buf[o++] = cp < 0x80 ? (char)cp : '?';
				continue;
			}
			buf[o++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
			continue;
		}
		buf[o++] = *s;
	}
	buf[o] = 0;
}

static bool ordered(enum op op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	default: return c >= 0;
	}
}

static int type_error(struct node *n, char jc, struct rawfrag_err *err)
{
	if (err) {
		err->err = -EINVAL;
		err->offset = -1;
		err->rec_type = 0;
		snprintf(err->reason, sizeof(err->reason),
			 "--where: field '%s' is %s, compared with %s", n->field, json_type(jc),
			 lit_type(n->vt));
	}
	return -EINVAL;
}

static int cmp_eval(struct node *n, const char *json, size_t len, struct rawfrag_err *err)
{
	const char *vs, *ve;
	char buf[WHERE_STR_MAX];
	__int128 x;

	if (!find(json, json + len, n->field, &vs, &ve) || vs >= ve)
		return 0;
	n->seen = true;
	if (*vs == 'n') /* null: only "== null" holds */
		return (n->vt == V_NULL) == (n->op == OP_EQ);
	if (n->vt == V_NULL)
		return n->op == OP_NE;
	if (*vs == '"') {
		unescape(vs + 1, ve - 1, buf, sizeof(buf));
		if (n->vt == V_STR) {
			if (n->glob)
				return (fnmatch(n->str, buf, 0) == 0) == (n->op == OP_EQ);
			return ordered(n->op, strcmp(buf, n->str));
		}
		/* "0x..." strings are how the JSON writes addresses and registers */
		if (n->vt == V_NUM && buf[0] == '0' && buf[1] == 'x' &&
		    parse_int(buf + 2, buf + strlen(buf), 16, &x))
			return ordered(n->op, x < n->num ? -1 : x > n->num);
		return type_error(n, '"', err);
	}
	if (*vs == 't' || *vs == 'f') {
		if (n->vt != V_BOOL)
			return type_error(n, *vs, err);
		return ((*vs == 't') == n->bval) == (n->op == OP_EQ);
	}
	if (*vs == '{' || *vs == '[' || n->vt != V_NUM)
		return type_error(n, *vs, err);
	if (!parse_int(vs, ve, 10, &x))
		return type_error(n, *vs, err);
	return ordered(n->op, x < n->num ? -1 : x > n->num);
}

/* a comparison decided by a visit (cmp_visit()), as cmp_eval() answers it */
static int cmp_visited(struct node *n, struct rawfrag_err *err)
{
	if (!n->found)
		return 0;
	return n->res < 0 ? type_error(n, n->jc, err) : n->res;
}

static int eval(struct rawfrag_where *w, int i, const char *json, size_t len,
		struct rawfrag_err *err)
{
	struct node *n = &w->n[i];
	int a, b;

	switch (n->kind) {
	case N_CMP:
		return json ? cmp_eval(n, json, len, err) : cmp_visited(n, err);
	case N_NOT:
		a = eval(w, n->a, json, len, err);
		return a < 0 ? a : !a;
	default:
		/* both sides always: every field the sample has counts as seen */
		a = eval(w, n->a, json, len, err);
		b = eval(w, n->b, json, len, err);
		if (a < 0 || b < 0)
			return a < 0 ? a : b;
		return n->kind == N_AND ? a && b : a || b;
	}
}

int rawfrag_where__match(struct rawfrag_where *w, const char *json, size_t len,
			 struct rawfrag_err *err)
{
	return eval(w, w->root, json, len, err);
}

/* ---- the visit side: each comparison's field as the JSON would give it ---- */

/*
 * A STR field's bytes as the JSON string reads back: the writer keeps ASCII
 * and valid UTF-8, escapes other bytes as \u00XX, which unescape() reads as
 * '?'; as much as fits, as unescape() keeps.
 */
static void json_roundtrip(const char *str, size_t len, char *buf, size_t cap)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0, i = 0, n;

	while (i < len && o + 1 < cap) {
		if (s[i] < 0x80) {
			buf[o++] = (char)s[i++];
			continue;
		}
		n = rf_utf8_seq(s + i, len - i);
		if (!n) {
			buf[o++] = '?';
			i++;
			continue;
		}
		for (; n && o + 1 < cap; n--)
			buf[o++] = (char)s[i++];
	}
	buf[o] = 0;
}

/* the text of a field the JSON writes as a string (STR, BYTES, HEX) */
static void field_text(const struct rawfrag_field *f, char *buf, size_t cap)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *b = (const unsigned char *)f->v.str.p;
	size_t o = 0;

	switch (f->type) {
	case RAWFRAG_FIELD_STR:
		json_roundtrip(f->v.str.p, f->v.str.len, buf, cap);
		return;
	case RAWFRAG_FIELD_HEX:
		snprintf(buf, cap, "0x%llx", (unsigned long long)f->v.u);
		return;
	default: /* BYTES: lowercase hex */
		for (size_t i = 0; i < f->v.str.len && o + 1 < cap; i++) {
			buf[o++] = hx[b[i] >> 4];
			if (o + 1 < cap)
				buf[o++] = hx[b[i] & 0xf];
		}
		buf[o] = 0;
	}
}

/* the first byte of the field's JSON value (for messages: json_type()) */
static char field_jc(const struct rawfrag_field *f)
{
	switch (f->type) {
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES:
	case RAWFRAG_FIELD_HEX:
		return '"';
	case RAWFRAG_FIELD_BOOL:
		return f->v.b ? 't' : 'f';
	case RAWFRAG_FIELD_NULL:
		return 'n';
	case RAWFRAG_FIELD_OBJECT:
		return '{';
	case RAWFRAG_FIELD_ARRAY:
		return '[';
	default:
		return '0';
	}
}

/* cmp_eval() on the field's value: n->res 1, 0 or -EINVAL (n->jc for the message) */
static void cmp_visit(struct node *n, const struct rawfrag_field *f)
{
	char buf[WHERE_STR_MAX];
	__int128 x;

	n->seen = n->found = n->done = true;
	n->jc = field_jc(f);
	n->res = -EINVAL;
	if (n->jc == 'n') {
		n->res = (n->vt == V_NULL) == (n->op == OP_EQ);
		return;
	}
	if (n->vt == V_NULL) {
		n->res = n->op == OP_NE;
		return;
	}
	if (n->jc == '"') {
		/* a HEX field is the number its "0x..." string parses to */
		if (n->vt == V_NUM && f->type == RAWFRAG_FIELD_HEX) {
			x = f->v.u;
			n->res = ordered(n->op, x < n->num ? -1 : x > n->num);
			return;
		}
		if (n->vt == V_NUM && f->type != RAWFRAG_FIELD_STR)
			return;
		field_text(f, buf, sizeof(buf));
		if (n->vt == V_STR) {
			if (n->glob)
				n->res = (fnmatch(n->str, buf, 0) == 0) == (n->op == OP_EQ);
			else
				n->res = ordered(n->op, strcmp(buf, n->str));
			return;
		}
		if (n->vt == V_NUM && buf[0] == '0' && buf[1] == 'x' &&
		    parse_int(buf + 2, buf + strlen(buf), 16, &x))
			n->res = ordered(n->op, x < n->num ? -1 : x > n->num);
		return;
	}
	if (n->jc == 't' || n->jc == 'f') {
		if (n->vt == V_BOOL)
			n->res = (f->v.b == n->bval) == (n->op == OP_EQ);
		return;
	}
	if (n->jc != '0' || n->vt != V_NUM)
		return;
	x = f->type == RAWFRAG_FIELD_S64 ? (__int128)f->v.s : (__int128)f->v.u;
	n->res = ordered(n->op, x < n->num ? -1 : x > n->num);
}

struct where_visit {
	struct rawfrag_where *w;
	bool can_skip; /* the visit takes RF_VISIT_SKIP */
	int pending; /* comparisons not decided yet */
	int array; /* depth of the outermost open array, -1: none */
};

/*
 * Is f, a member of objects only, the first d+1 names of n's path? Its path
 * holds as many dots as its depth unless a name holds one; the JSON side
 * never takes such a name for two.
 */
static bool on_path(const struct node *n, const struct rawfrag_field *f)
{
	return f->name && f->depth < n->nseg && f->path_len == n->seg[f->depth] &&
	       !memcmp(f->path, n->field, f->path_len);
}

/*
 * find() takes the first member of a name at each level: a member on the path
 * decides the comparison when it is the last name (its value) or is not an
 * object (absent); an object on the path that ends without it decides absent.
 */
static int where_field(void *ctx, const struct rawfrag_field *f)
{
	struct where_visit *wv = ctx;
	struct rawfrag_where *w = wv->w;
	bool inside = false;

	/* find() does not look into arrays */
	if (wv->array >= 0 && (int)f->depth > wv->array)
		return 0;
	for (int i = 0; i < w->nr_cmp; i++) {
		struct node *n = &w->n[w->cmp[i]];

		if (n->done || !on_path(n, f))
			continue;
		if (f->depth + 1 == n->nseg) {
			cmp_visit(n, f);
		} else if (f->type != RAWFRAG_FIELD_OBJECT) {
			n->done = true;
		} else {
			inside = true;
			continue;
		}
		wv->pending--;
	}
	/* every comparison decided: the rest of the sample is not needed */
	if (!wv->pending)
		return 1;
	if (f->type == RAWFRAG_FIELD_ARRAY && wv->array < 0)
		wv->array = (int)f->depth;
	/* an object or array no comparison looks into: its members are not needed */
	if ((f->type == RAWFRAG_FIELD_OBJECT || f->type == RAWFRAG_FIELD_ARRAY) && !inside &&
	    wv->can_skip)
		return RF_VISIT_SKIP;
	return 0;
}

static int where_end(void *ctx, const struct rawfrag_field *f)
{
	struct where_visit *wv = ctx;
	struct rawfrag_where *w = wv->w;

	if (wv->array >= 0) {
		if (f->type == RAWFRAG_FIELD_ARRAY && (int)f->depth == wv->array)
			wv->array = -1;
		return 0;
	}
	for (int i = 0; i < w->nr_cmp; i++) {
		struct node *n = &w->n[w->cmp[i]];

		if (!n->done && on_path(n, f)) {
			n->done = true;
			wv->pending--;
		}
	}
	return wv->pending ? 0 : 1;
}

int rf_where__match_visit(struct rawfrag_where *w, rf_where_visit_fn run, void *arg,
			  bool can_skip, struct rawfrag_err *err)
{
	struct where_visit wv = { .w = w, .can_skip = can_skip, .array = -1 };
	struct rawfrag_visitor v = {
		.sz = sizeof(v), .field = where_field, .end = where_end, .ctx = &wv,
	};
	int ret;

	for (int i = 0; i < w->nr_cmp; i++) {
		struct node *n = &w->n[w->cmp[i]];

		n->done = n->found = false;
	}
	wv.pending = w->nr_cmp;
	/*
	 * 1: where_field() had all it needed. A malformed payload's error is not
	 * one: its fields are what could be decoded, as in the JSON.
	 */
	ret = run(arg, &v);
	if (ret == -ENOMEM || ret == -E2BIG) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->err = ret;
			err->offset = -1;
			snprintf(err->reason, sizeof(err->reason),
				 "--where: cannot visit the fields (%s)", strerror(-ret));
		}
		return ret;
	}
	return eval(w, w->root, NULL, 0, err);
}

struct sample_ref {
	struct rawfrag_session *s;
	const struct rawfrag_evsel *evsel;
	const struct rawfrag_record *rec;
	const struct rawfrag_sample *smp;
};

static int visit_sample(void *arg, const struct rawfrag_visitor *v)
{
	const struct sample_ref *r = arg;

	return rf_session__sample_visit(r->s, r->evsel, r->rec, r->smp, v, true);
}

int rawfrag_where__match_sample(struct rawfrag_where *w, struct rawfrag_session *s,
				const struct rawfrag_evsel *evsel,
				const struct rawfrag_record *rec,
				const struct rawfrag_sample *smp, struct rawfrag_err *err)
{
	struct sample_ref r = { .s = s, .evsel = evsel, .rec = rec, .smp = smp };

	if (!s) {
		rf_err_set(err, -EINVAL, "--where: no session");
		return -EINVAL;
	}
	return rf_where__match_visit(w, visit_sample, &r, true, err);
}
