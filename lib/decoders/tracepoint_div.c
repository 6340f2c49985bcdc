// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Divisions in a tracepoint print fmt. libtraceevent 1.7.1 evaluates "x / y"
 * and "x % y" in unsigned 64-bit arithmetic without looking at y: a zero
 * divisor is SIGFPE in tep_print_event(). This file evaluates divisors the way
 * eval_num_arg() does (atoms through strtoull(), so "1000L", "0x3e8UL", "01750"
 * are 1000; casts keep what eval_type_str() keeps; sizeof(type) is already an
 * atom after parsing; ?: takes one branch) in two passes:
 *   - once per event without a payload: a divisor that is a non-zero constant
 *     needs nothing, one that reads the payload needs the per-sample pass, one
 *     that is 0 or cannot be evaluated keeps libtraceevent away from the event;
 *   - per sample, for events with a payload divisor: is any divisor 0 here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal/tracepoint.h"

/* deeper than any kernel format nests; a hostile one is refused, not followed */
#define DIV_MAX_DEPTH 64

enum dv_res {
	DV_OK, /* value known */
	DV_PAYLOAD, /* reads the payload, none given */
	DV_UNKNOWN, /* cannot be evaluated here */
};

struct dv {
	const struct tep_event *ev;
	const uint8_t *data; /* NULL: the per-event pass */
	uint32_t size;
	bool swap;
	enum rawfrag_tp_div verdict;
	const struct tep_print_arg *culprit; /* the first divisor found 0 or unknown */
};

uint64_t rawfrag_tp__cast_mask(const char *type)
{
	size_t len = strlen(type);

	if (!len || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return 0;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return 0;
}

static enum dv_res dv_num(struct dv *d, const struct tep_print_arg *a, uint64_t *v, int depth);

/* the numeric operands of a flags, symbol, hex or array print */
static void dv_parts(struct dv *d, const struct tep_print_arg *a, int depth)
{
	uint64_t x;

	switch (a->type) {
	case TEP_PRINT_FLAGS:
		dv_num(d, a->flags.field, &x, depth);
		break;
	case TEP_PRINT_SYMBOL:
		dv_num(d, a->symbol.field, &x, depth);
		break;
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		dv_num(d, a->hex.field, &x, depth);
		dv_num(d, a->hex.size, &x, depth);
		break;
	default:
		dv_num(d, a->int_array.field, &x, depth);
		dv_num(d, a->int_array.count, &x, depth);
		dv_num(d, a->int_array.el_size, &x, depth);
		break;
	}
}

static uint64_t dv_read(const struct dv *d, uint32_t off, uint32_t n)
{
	const uint8_t *p = d->data + off;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		return rawfrag__get16(p, d->swap);
	case 4:
		return rawfrag__get32(p, d->swap);
	case 8:
		return rawfrag__get64(p, d->swap);
	default:
		return 0; /* tep_read_number() */
	}
}

/* a field's value as tep_read_number() gives it */
static enum dv_res dv_field(const struct dv *d, const struct tep_format_field *f, uint64_t *v)
{
	if (!f)
		return DV_OK; /* "field not found": eval_num_arg() gives 0 */
	if (!d->data)
		return DV_PAYLOAD;
	if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + (uint64_t)f->size > d->size)
		return DV_UNKNOWN;
	*v = dv_read(d, (uint32_t)f->offset, (uint32_t)f->size);
	return DV_OK;
}

/* a divisor: 0 makes libtraceevent trap, unknown is as bad */
static void dv_divisor(struct dv *d, const struct tep_print_arg *r, enum dv_res res, uint64_t v)
{
	enum rawfrag_tp_div verdict;

	if (res == DV_OK && v)
		return;
	verdict = res == DV_PAYLOAD ? RAWFRAG_TP_DIV_SAMPLE : RAWFRAG_TP_DIV_NEVER;
	if (verdict > d->verdict) {
		d->verdict = verdict;
		d->culprit = r;
	}
}

static uint64_t dv_binop(const char *op, uint64_t l, uint64_t r)
{
	switch (op[0]) {
	case '!':
		return op[1] == '=' ? l != r : !r;
	case '~':
		return ~r;
	case '|':
		return op[1] ? l || r : l | r;
	case '&':
		return op[1] ? l && r : l & r;
	case '<':
		return op[1] == '<' ? l << (r & 63) : op[1] == '=' ? l <= r : l < r;
	case '>':
		return op[1] == '>' ? l >> (r & 63) : op[1] == '=' ? l >= r : l > r;
	case '=':
		return l == r;
	case '-':
		return l - r;
	case '+':
		return l + r;
	case '*':
		return l * r;
	case '/':
		return r ? l / r : 0;
	case '%':
		return r ? l % r : 0;
	default:
		return 0; /* "unknown op": eval_num_arg() gives 0 */
	}
}

static enum dv_res worst(enum dv_res a, enum dv_res b)
{
	return a > b ? a : b;
}

static enum dv_res dv_op(struct dv *d, const struct tep_print_arg *a, uint64_t *v, int depth)
{
	const struct tep_print_arg *r = a->op.right;
	uint64_t l = 0, rv = 0, c = 0;
	enum dv_res lr, rr, cr;

	if (!strcmp(a->op.op, "?") && r && r->type == TEP_PRINT_OP) {
		cr = dv_num(d, a->op.left, &c, depth);
		if (cr == DV_OK)
			return dv_num(d, c ? r->op.left : r->op.right, v, depth);
		/* the branch depends on the payload: both may be taken */
		lr = dv_num(d, r->op.left, &l, depth);
		rr = dv_num(d, r->op.right, &rv, depth);
		return worst(cr, worst(lr, rr));
	}
	lr = a->op.left ? dv_num(d, a->op.left, &l, depth) : DV_OK;
	rr = r ? dv_num(d, r, &rv, depth) : DV_OK;
	if (!strcmp(a->op.op, "["))
		return DV_UNKNOWN; /* array element: not needed for any kernel divisor */
	if (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%"))
		dv_divisor(d, r, rr, rv);
	*v = dv_binop(a->op.op, l, rv);
	return worst(lr, rr);
}

/* the value eval_num_arg() gives a; every division met on the way is checked */
static enum dv_res dv_num(struct dv *d, const struct tep_print_arg *a, uint64_t *v, int depth)
{
	uint64_t x = 0, mask;
	enum dv_res res;

	*v = 0;
	if (!a)
		return DV_OK;
	if (++depth > DIV_MAX_DEPTH)
		return DV_UNKNOWN;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = a->atom.atom ? strtoull(a->atom.atom, NULL, 0) : 0;
		return DV_OK;
	case TEP_PRINT_FIELD:
		return dv_field(d, tep_find_any_field((struct tep_event *)d->ev, a->field.name), v);
	case TEP_PRINT_TYPE:
		res = dv_num(d, a->typecast.item, &x, depth);
		mask = a->typecast.type ? rawfrag_tp__cast_mask(a->typecast.type) : 0;
		*v = mask ? x & mask : x;
		return res;
	case TEP_PRINT_OP:
		return dv_op(d, a, v, depth);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		res = dv_field(d, a->dynarray.field, &x);
		*v = x >> 16;
		return res;
	case TEP_PRINT_DYNAMIC_ARRAY:
		*v = 1; /* an address into the record: never 0 */
		return dv_field(d, a->dynarray.field, &x);
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
	case TEP_PRINT_INT_ARRAY:
		/* 0 as a number; their operands are printed, so walked */
		dv_parts(d, a, depth);
		return DV_OK;
	case TEP_PRINT_FUNC:
		/* a plugin function: its arguments are walked, its value is unknown */
		res = DV_UNKNOWN;
		for (const struct tep_print_arg *p = a->func.args; p; p = p->next)
			dv_num(d, p, &x, depth);
		return res;
	default:
		return DV_OK; /* strings, bitmasks, NULL: 0 */
	}
}

static void dv_walk(struct dv *d, const struct tep_print_arg *args)
{
	uint64_t v;

	for (const struct tep_print_arg *a = args; a; a = a->next)
		dv_num(d, a, &v, 0);
}

enum rawfrag_tp_div rawfrag_tp_div__classify(const struct tep_event *ev)
{
	struct dv d = { .ev = ev };

	dv_walk(&d, ev->print_fmt.args);
	return d.verdict;
}

/* "REC->x" for a field divisor, else a word for the expression */
static void describe(const struct tep_print_arg *r, char *buf, size_t len)
{
	while (r && r->type == TEP_PRINT_TYPE)
		r = r->typecast.item;
	if (r && r->type == TEP_PRINT_FIELD && r->field.name)
		snprintf(buf, len, "REC->%s", r->field.name);
	else if (r && r->type == TEP_PRINT_DYNAMIC_ARRAY_LEN && r->dynarray.field)
		snprintf(buf, len, "__get_dynamic_array_len(%s)", r->dynarray.field->name);
	else
		snprintf(buf, len, "an expression");
}

bool rawfrag_tp_div__zero(const struct tep_event *ev, const uint8_t *data, uint32_t size,
			  bool swap, char *why, size_t whylen)
{
	struct dv d = { .ev = ev, .data = data, .size = size, .swap = swap };
	char what[96];

	dv_walk(&d, ev->print_fmt.args);
	if (d.verdict == RAWFRAG_TP_DIV_NONE)
		return false;
	describe(d.culprit, what, sizeof(what));
	snprintf(why, whylen, "the print format divides by %s, which is 0 here", what);
	return true;
}
