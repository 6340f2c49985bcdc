// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --where expressions (rawfrag/where.h): compiled once into a small tree,
 * evaluated per sample on the JSON text of its fields (the emitter's output, so
 * the names and values are exactly those of report --format json).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/where.h>

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
};

struct rawfrag_where {
	struct node *n;
	int nr;
	int root;
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
	if (parse_op(ps, &n->op) || parse_value(ps, n))
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
	return w;
}

void rawfrag_where__delete(struct rawfrag_where *w)
{
	if (!w)
		return;
	for (int i = 0; w->n && i < w->nr; i++) {
		free(w->n[i].field);
		free(w->n[i].str);
	}
	free(w->n);
	free(w);
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

static int eval(struct rawfrag_where *w, int i, const char *json, size_t len,
		struct rawfrag_err *err)
{
	struct node *n = &w->n[i];
	int a, b;

	switch (n->kind) {
	case N_CMP:
		return cmp_eval(n, json, len, err);
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
