// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_emit: typed fields rendered as JSON or as "name=value" text.
 *
 * The emitter keeps only a nesting stack (is this the first member at this
 * level?) so separators come out right; it writes straight into its out.
 * Ownership: the emitter does not own its out.
 *
 * Text form: members separated by one space, objects as name={a=1 b=2}, arrays
 * as name=[1 2 3], strings as they are, bytes as lowercase hex.
 *
 * Visit form (rawfrag/visit.h): no bytes; each member is handed to the visitor
 * with its type, value and dotted path. The emitter then owns its rf_visit (the
 * path buffer and the out that never has room, see internal/emit.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/emit.h"
#include "internal/opts.h"

/* one open object or array of a visit */
struct rf_visit_level {
	uint32_t plen; /* its path's length: its members' paths start with it */
	uint32_t name_off, name_len; /* its name, inside the path */
	uint32_t index; /* its index in the array holding it */
	uint32_t next; /* an array's next element index */
	bool named, array;
};

struct rf_visit {
	int (*field)(void *ctx, const struct rawfrag_field *f);
	int (*end)(void *ctx, const struct rawfrag_field *f);
	void *ctx;
	int stop; /* the visitor's non-zero return; later calls do nothing */
	/* the library's own visitors: RF_VISIT_SKIP leaves out a level's members */
	bool can_skip;
	int skip; /* the depth of the members left out, 0: none */
	char *path; /* the path of the current member (grows, never shrinks) */
	size_t cap;
	/* the emitter's out: it never has room, so no byte is rendered */
	struct rawfrag_out none;
	struct rf_visit_level lv[EMIT_MAX_DEPTH];
};

static void visit_stop(struct rf_visit *v, int ret)
{
	if (ret && !v->stop)
		v->stop = ret;
}

/*
 * Name and path of a member at the current level into f; -ENOMEM when the path
 * cannot grow. Members of an array are its elements: no name, the array's path.
 * The path is built in v->path, but for a scalar at the top, whose path is its
 * name (no copy: most fields are such); an object's or array's stays there
 * for its members and its end.
 */
static inline int visit_begin(struct rawfrag_emit *e, const char *name, size_t nlen,
			      struct rawfrag_field *f, bool level)
{
	struct rf_visit *v = e->vis;
	struct rf_visit_level *up = &v->lv[e->depth];
	size_t at = up->plen;

	f->depth = (uint32_t)e->depth;
	f->index = 0;
	if (up->array) {
		f->index = up->next++;
		name = NULL;
	}
	f->name = NULL;
	f->name_len = 0;
	if (name && !at && !level) {
		f->name = f->path = name;
		f->name_len = f->path_len = nlen;
		return 0;
	}
	if (name) {
		if (at + 1 + nlen > v->cap || !v->path) {
			size_t cap = v->cap ? v->cap : 256;
			char *np;

			while (cap < at + 1 + nlen)
				cap *= 2;
			if (nlen > UINT32_MAX / 2 || !(np = realloc(v->path, cap)))
				return -ENOMEM;
			v->path = np;
			v->cap = cap;
		}
		if (at)
			v->path[at++] = '.';
		memcpy(v->path + at, name, nlen);
		f->name = v->path + at;
		f->name_len = nlen;
		at += nlen;
	}
	f->path = v->path ? v->path : "";
	f->path_len = at;
	return 0;
}

static void visit_call(struct rf_visit *v, const struct rawfrag_field *f)
{
	visit_stop(v, v->field(v->ctx, f));
}

static void visit_scalar(struct rawfrag_emit *e, const char *name, size_t nlen,
			 enum rawfrag_field_type type, uint64_t u)
{
	struct rf_visit *v = e->vis;
	struct rawfrag_field f;

	if (v->stop | v->skip)
		return;
	if (visit_begin(e, name, nlen, &f, false)) {
		visit_stop(v, -ENOMEM);
		return;
	}
	f.type = type;
	if (type == RAWFRAG_FIELD_BOOL)
		f.v.b = u != 0;
	else
		f.v.u = u;
	visit_call(v, &f);
}

/* STR (stopping at NUL, as JSON and text do; no string is the JSON's null) or BYTES */
static void visit_str(struct rawfrag_emit *e, const char *name, size_t nlen,
		      enum rawfrag_field_type type, const void *p, size_t len)
{
	struct rf_visit *v = e->vis;
	struct rawfrag_field f;

	if (v->stop | v->skip)
		return;
	if (type == RAWFRAG_FIELD_STR && !p) {
		visit_scalar(e, name, nlen, RAWFRAG_FIELD_NULL, 0);
		return;
	}
	if (visit_begin(e, name, nlen, &f, false)) {
		visit_stop(v, -ENOMEM);
		return;
	}
	if (type == RAWFRAG_FIELD_STR)
		len = len == (size_t)-1 ? strlen(p) : strnlen(p, len);
	f.type = type;
	f.v.str.p = p;
	f.v.str.len = len;
	visit_call(v, &f);
}

static void visit_open(struct rawfrag_emit *e, const char *name, size_t nlen, bool array)
{
	struct rf_visit *v = e->vis;
	struct rf_visit_level *in;
	struct rawfrag_field f;
	int ret;

	if (v->stop)
		return;
	/* the JSON renderer goes on flattened; a visit cannot name such a level */
	if (e->depth >= EMIT_MAX_DEPTH - 1) {
		visit_stop(v, -E2BIG);
		return;
	}
	if (v->skip) {
		e->depth++;
		return;
	}
	if (visit_begin(e, name, nlen, &f, true)) {
		visit_stop(v, -ENOMEM);
		return;
	}
	f.type = array ? RAWFRAG_FIELD_ARRAY : RAWFRAG_FIELD_OBJECT;
	ret = v->field(v->ctx, &f);
	if (ret == RF_VISIT_SKIP && v->can_skip) {
		ret = 0;
		v->skip = e->depth + 1;
	}
	visit_stop(v, ret);
	in = &v->lv[++e->depth];
	in->plen = (uint32_t)f.path_len;
	in->named = f.name != NULL;
	in->name_off = f.name ? (uint32_t)(f.name - v->path) : 0;
	in->name_len = (uint32_t)f.name_len;
	in->index = f.index;
	in->next = 0;
	in->array = array;
}

static void visit_close(struct rawfrag_emit *e)
{
	struct rf_visit *v = e->vis;
	struct rf_visit_level *in = &v->lv[e->depth];
	struct rawfrag_field f = { 0 };

	if (v->stop || !e->depth)
		return;
	/* in a level left out: only its own end is visited */
	if (v->skip && e->depth > v->skip) {
		e->depth--;
		return;
	}
	v->skip = 0;
	e->depth--;
	if (!v->end)
		return;
	f.name = in->named ? v->path + in->name_off : NULL;
	f.name_len = in->name_len;
	f.path = v->path ? v->path : "";
	f.path_len = in->plen;
	f.depth = (uint32_t)e->depth;
	f.index = in->index;
	f.type = in->array ? RAWFRAG_FIELD_ARRAY : RAWFRAG_FIELD_OBJECT;
	visit_stop(v, v->end(v->ctx, &f));
}

static inline size_t name_len(const char *name)
{
	return name ? strlen(name) : 0;
}

#define KNAME(k) ((k) ? (k)->form[RAWFRAG_EMIT_VISIT] : NULL)
#define KLEN(k) ((k) ? (size_t)(k)->len[RAWFRAG_EMIT_VISIT] : 0)

void rf_emit__visit_num(struct rawfrag_emit *e, const struct rf_emit_key *k,
			enum rawfrag_field_type type, uint64_t v)
{
	/* an out that failed, or a visit stopped or leaving out this level: nothing */
	if (e->vis && !(e->vis->stop | e->vis->skip))
		visit_scalar(e, KNAME(k), KLEN(k), type, v);
}

int rf_emit__set_visitor(struct rawfrag_emit *e, const struct rawfrag_visitor *v, bool can_skip)
{
	/* a visitor of this library's size has no unknown bytes to look at */
	if (!e->vis || !v ||
	    (v->sz != sizeof(*v) && RF_OPTS_CHECK(v, rawfrag_visitor, NULL)) ||
	    !RAWFRAG_OPTS_GET(v, field, NULL)) {
		errno = EINVAL;
		return -EINVAL;
	}
	e->vis->field = v->field;
	e->vis->end = RAWFRAG_OPTS_GET(v, end, NULL);
	e->vis->ctx = RAWFRAG_OPTS_GET(v, ctx, NULL);
	e->vis->can_skip = can_skip;
	return 0;
}

struct rawfrag_emit *rawfrag_emit__new_visitor(const struct rawfrag_visitor *v)
{
	struct rawfrag_emit *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->vis = calloc(1, sizeof(*e->vis));
	if (!e->vis || rf_emit__set_visitor(e, v, false)) {
		int err = e->vis ? EINVAL : ENOMEM;

		rawfrag_emit__delete(e);
		errno = err;
		return NULL;
	}
	e->fmt = RAWFRAG_EMIT_VISIT;
	e->vis->none.fd = -1;
	e->vis->none.err = -EOPNOTSUPP;
	e->out = &e->vis->none;
	rawfrag_emit__reset(e);
	return e;
}

int rawfrag_emit__visit_status(const struct rawfrag_emit *e)
{
	return e && e->vis ? e->vis->stop : 0;
}

struct rawfrag_emit *rawfrag_emit__new(struct rawfrag_out *o, enum rawfrag_emit_format fmt)
{
	struct rawfrag_emit *e;

	if (!o || (fmt != RAWFRAG_EMIT_TEXT && fmt != RAWFRAG_EMIT_JSON)) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->out = o;
	e->fmt = fmt;
	rawfrag_emit__reset(e);
	return e;
}

void rawfrag_emit__delete(struct rawfrag_emit *e)
{
	if (!e)
		return;
	if (e->vis)
		free(e->vis->path);
	free(e->vis);
	free(e);
}

enum rawfrag_emit_format rawfrag_emit__format(const struct rawfrag_emit *e)
{
	return e->fmt;
}

struct rawfrag_out *rawfrag_emit__out(const struct rawfrag_emit *e)
{
	return e->out;
}

void rawfrag_emit__reset(struct rawfrag_emit *e)
{
	e->depth = 0;
	e->first[0] = true;
	if (e->vis) {
		e->vis->stop = 0;
		e->vis->skip = 0;
		memset(&e->vis->lv[0], 0, sizeof(e->vis->lv[0]));
	}
}

/* Separator and name before a value. */
static void emit_key(struct rawfrag_emit *e, const char *name)
{
	struct rawfrag_out *o = e->out;

	if (!e->first[e->depth])
		rf_out_putc(o, e->fmt == RAWFRAG_EMIT_JSON ? ',' : ' ');
	e->first[e->depth] = false;
	if (!name)
		return;
	if (e->fmt == RAWFRAG_EMIT_JSON) {
		rawfrag_out__json_str(o, name, (size_t)-1);
		rf_out_putc(o, ':');
	} else {
		rf_out_write(o, name, strlen(name));
		rf_out_putc(o, '=');
	}
}

static void emit_open(struct rawfrag_emit *e, const char *name, char c)
{
	emit_key(e, name);
	rf_out_putc(e->out, c);
	/* deeper than the stack: keep rendering at the last level (separators may
	 * be off, but output stays bounded and memory safe) */
	if (e->depth < EMIT_MAX_DEPTH - 1)
		e->depth++;
	e->first[e->depth] = true;
}

static void emit_close(struct rawfrag_emit *e, char c)
{
	struct rawfrag_out *o = e->out;

	/* rf_out_putc(), with the visit on the side where the out has no room */
	if (__builtin_expect(o->len < o->cap, 1)) {
		o->buf[o->len++] = c;
	} else if (e->vis) {
		visit_close(e);
		return;
	} else {
		rawfrag_out__write(o, &c, 1);
	}
	if (e->depth > 0)
		e->depth--;
}

static void emit_str_value(struct rawfrag_emit *e, const char *s, size_t len)
{
	if (!s) {
		rawfrag_out__puts(e->out, e->fmt == RAWFRAG_EMIT_JSON ? "null" : "(null)");
		return;
	}
	if (e->fmt == RAWFRAG_EMIT_JSON) {
		rawfrag_out__json_str(e->out, s, len);
		return;
	}
	if (len == (size_t)-1)
		len = strlen(s);
	else
		len = strnlen(s, len);
	rf_out_write(e->out, s, len);
}

static void emit_bytes_value(struct rawfrag_emit *e, const void *p, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	const uint8_t *b = p;
	char tmp[256];
	size_t n = 0;

	if (e->fmt == RAWFRAG_EMIT_JSON)
		rf_out_putc(e->out, '"');
	for (size_t i = 0; i < len; i++) {
		tmp[n++] = hx[b[i] >> 4];
		tmp[n++] = hx[b[i] & 0xf];
		if (n == sizeof(tmp)) {
			rf_out_write(e->out, tmp, n);
			n = 0;
		}
	}
	rf_out_write(e->out, tmp, n);
	if (e->fmt == RAWFRAG_EMIT_JSON)
		rf_out_putc(e->out, '"');
}

int rf_emit_key__init(struct rf_emit_key *k, const char *name)
{
	struct rawfrag_out *mem;
	size_t n;
	char *j, *t;

	memset(k, 0, sizeof(*k));
	if (!name)
		return 0;
	n = strlen(name);
	mem = rawfrag_out__new(-1);
	if (!mem)
		return -ENOMEM;
	rawfrag_out__json_str(mem, name, n);
	rawfrag_out__putc(mem, ':');
	/* zeroed slack: keys are copied RF_KEY_COPY bytes at a time */
	j = calloc(1, mem->len + RF_KEY_COPY);
	t = calloc(1, n + 1 + RF_KEY_COPY);
	if (!j || !t || mem->err) {
		free(j);
		free(t);
		rawfrag_out__delete(mem);
		return -ENOMEM;
	}
	memcpy(j, mem->buf, mem->len);
	memcpy(t, name, n);
	t[n] = '=';
	k->form[RAWFRAG_EMIT_JSON] = j;
	k->len[RAWFRAG_EMIT_JSON] = (uint32_t)mem->len;
	k->form[RAWFRAG_EMIT_TEXT] = t;
	k->len[RAWFRAG_EMIT_TEXT] = (uint32_t)n + 1;
	k->form[RAWFRAG_EMIT_VISIT] = t;
	k->len[RAWFRAG_EMIT_VISIT] = (uint32_t)n;
	rawfrag_out__delete(mem);
	return 0;
}

void rf_emit_key__fini(struct rf_emit_key *k)
{
	/* the visit form is the text form's */
	free(k->form[RAWFRAG_EMIT_TEXT]);
	free(k->form[RAWFRAG_EMIT_JSON]);
	memset(k, 0, sizeof(*k));
}

void rf_emit__openk(struct rawfrag_emit *e, const struct rf_emit_key *k, char c)
{
	char *p = rf_emit__key(e, k, 1);

	if (!p && e->vis) {
		visit_open(e, KNAME(k), KLEN(k), c == '[');
		return;
	}
	if (p) {
		*p++ = c;
		rf_emit__commit(e, p);
	}
	/* deeper than the stack: keep rendering at the last level (separators may
	 * be off, but output stays bounded and memory safe) */
	if (e->depth < EMIT_MAX_DEPTH - 1)
		e->depth++;
	e->first[e->depth] = true;
}

void rf_emit__close(struct rawfrag_emit *e, char c)
{
	emit_close(e, c);
}

void rf_emit__strk(struct rawfrag_emit *e, const struct rf_emit_key *k, const char *s,
		   size_t len)
{
	char *p = rf_emit__key(e, k, 0);

	if (!p) {
		if (e->vis)
			visit_str(e, KNAME(k), KLEN(k), RAWFRAG_FIELD_STR, s, len);
		return;
	}
	rf_emit__commit(e, p);
	emit_str_value(e, s, len);
}

void rf_emit__bytesk(struct rawfrag_emit *e, const struct rf_emit_key *k, const void *p,
		     size_t len)
{
	char *d = rf_emit__key(e, k, 0);

	if (!d) {
		if (e->vis)
			visit_str(e, KNAME(k), KLEN(k), RAWFRAG_FIELD_BYTES, p, len);
		return;
	}
	rf_emit__commit(e, d);
	emit_bytes_value(e, p, len);
}

void rawfrag_emit__begin_object(struct rawfrag_emit *e, const char *name)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_open(e, name, name_len(name), false);
		return;
	}
	emit_open(e, name, '{');
}

void rawfrag_emit__end_object(struct rawfrag_emit *e)
{
	emit_close(e, '}');
}

void rawfrag_emit__begin_array(struct rawfrag_emit *e, const char *name)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_open(e, name, name_len(name), true);
		return;
	}
	emit_open(e, name, '[');
}

void rawfrag_emit__end_array(struct rawfrag_emit *e)
{
	emit_close(e, ']');
}

void rawfrag_emit__u64(struct rawfrag_emit *e, const char *name, uint64_t v)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_scalar(e, name, name_len(name), RAWFRAG_FIELD_U64, v);
		return;
	}
	emit_key(e, name);
	rawfrag_out__u64(e->out, v);
}

void rawfrag_emit__s64(struct rawfrag_emit *e, const char *name, int64_t v)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_scalar(e, name, name_len(name), RAWFRAG_FIELD_S64, (uint64_t)v);
		return;
	}
	emit_key(e, name);
	rawfrag_out__s64(e->out, v);
}

void rawfrag_emit__bool(struct rawfrag_emit *e, const char *name, bool v)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_scalar(e, name, name_len(name), RAWFRAG_FIELD_BOOL, v);
		return;
	}
	emit_key(e, name);
	rawfrag_out__puts(e->out, v ? "true" : "false");
}

void rawfrag_emit__hex(struct rawfrag_emit *e, const char *name, uint64_t v)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_scalar(e, name, name_len(name), RAWFRAG_FIELD_HEX, v);
		return;
	}
	emit_key(e, name);
	if (e->fmt == RAWFRAG_EMIT_JSON) {
		rf_out_putc(e->out, '"');
		rawfrag_out__hex(e->out, v);
		rf_out_putc(e->out, '"');
	} else {
		rawfrag_out__hex(e->out, v);
	}
}

void rawfrag_emit__str(struct rawfrag_emit *e, const char *name, const char *s, size_t len)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_str(e, name, name_len(name), RAWFRAG_FIELD_STR, s, len);
		return;
	}
	emit_key(e, name);
	emit_str_value(e, s, len);
}

void rawfrag_emit__bytes(struct rawfrag_emit *e, const char *name, const void *p, size_t len)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_str(e, name, name_len(name), RAWFRAG_FIELD_BYTES, p, len);
		return;
	}
	emit_key(e, name);
	emit_bytes_value(e, p, len);
}

void rawfrag_emit__null(struct rawfrag_emit *e, const char *name)
{
	if (__builtin_expect(e->vis != NULL, 0)) {
		visit_scalar(e, name, name_len(name), RAWFRAG_FIELD_NULL, 0);
		return;
	}
	emit_key(e, name);
	rawfrag_out__puts(e->out, "null");
}
