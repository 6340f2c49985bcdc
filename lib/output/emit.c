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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/emit.h"

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
	rf_out_putc(e->out, c);
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
	rawfrag_out__delete(mem);
	return 0;
}

void rf_emit_key__fini(struct rf_emit_key *k)
{
	free(k->form[0]);
	free(k->form[1]);
	memset(k, 0, sizeof(*k));
}

void rf_emit__openk(struct rawfrag_emit *e, const struct rf_emit_key *k, char c)
{
	char *p = rf_emit__key(e, k, 1);

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

	if (!p)
		return;
	rf_emit__commit(e, p);
	emit_str_value(e, s, len);
}

void rf_emit__bytesk(struct rawfrag_emit *e, const struct rf_emit_key *k, const void *p,
		     size_t len)
{
	char *d = rf_emit__key(e, k, 0);

	if (!d)
		return;
	rf_emit__commit(e, d);
	emit_bytes_value(e, p, len);
}

void rawfrag_emit__begin_object(struct rawfrag_emit *e, const char *name)
{
	emit_open(e, name, '{');
}

void rawfrag_emit__end_object(struct rawfrag_emit *e)
{
	emit_close(e, '}');
}

void rawfrag_emit__begin_array(struct rawfrag_emit *e, const char *name)
{
	emit_open(e, name, '[');
}

void rawfrag_emit__end_array(struct rawfrag_emit *e)
{
	emit_close(e, ']');
}

void rawfrag_emit__u64(struct rawfrag_emit *e, const char *name, uint64_t v)
{
	emit_key(e, name);
	rawfrag_out__u64(e->out, v);
}

void rawfrag_emit__s64(struct rawfrag_emit *e, const char *name, int64_t v)
{
	emit_key(e, name);
	rawfrag_out__s64(e->out, v);
}

void rawfrag_emit__bool(struct rawfrag_emit *e, const char *name, bool v)
{
	emit_key(e, name);
	rawfrag_out__puts(e->out, v ? "true" : "false");
}

void rawfrag_emit__hex(struct rawfrag_emit *e, const char *name, uint64_t v)
{
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
	emit_key(e, name);
	emit_str_value(e, s, len);
}

void rawfrag_emit__bytes(struct rawfrag_emit *e, const char *name, const void *p, size_t len)
{
	emit_key(e, name);
	emit_bytes_value(e, p, len);
}

void rawfrag_emit__null(struct rawfrag_emit *e, const char *name)
{
	emit_key(e, name);
	rawfrag_out__puts(e->out, "null");
}
