// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A compiled print fmt: the fast path of the tracepoint decoder's text().
 *
 * libtraceevent re-walks the print arguments and goes through vsnprintf for every
 * piece of every sample; that is most of the cost of decoding a tracepoint file.
 * Here the format string and argument tree of one event are turned once into a
 * list of pieces (literal text, number, string, pointer) over a small expression
 * tree whose field reads are precomputed offsets. The semantics are
 * libtraceevent's (event-parse.c pretty_print/print_arg_number/print_str_arg/
 * eval_num_arg), the reference perf 6.1 prints with:
 *   - field values are read unsigned, never sign-extended, then cast by the
 *     conversion's length modifier (so %d of an s8 -1 prints 255, %ld of an
 *     int -1 prints 4294967295, as perf does);
 *   - arithmetic is on unsigned 64-bit values;
 *   - __print_flags/__print_symbolic, ?:, REC->a[N], __get_str/__get_rel_str.
 * Anything else (%ps and other pointer extensions, casts, functions, bprint,
 * '*' widths, / and %) is not compiled: the event keeps libtraceevent's path.
 * The caller also checks the result against libtraceevent on a sample of
 * records and drops the program on any difference.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal/tracepoint.h"

#define MAX_NODES 256
#define MAX_PIECES 64
#define MAX_SYMS 2048
#define LIT_COPY 16 /* literals up to this long are copied in one fixed-size move */
/* a folded prefix and the longest number: "0x" and 16 digits, or a sign and 20 */
#define PIECE_ROOM (LIT_COPY + 24)

enum node_type {
	N_CONST, N_FIELD, N_OP, N_COND, N_CAST, /* numbers */
	N_DYNSTR, N_CHARS, N_LIT, N_FLAGS, N_SYMBOL, /* strings */
};
enum piece_type { P_LIT, P_NUM, P_STR, P_PTR, P_FUNC };

struct sym {
	int64_t val;
	const char *str;
};

struct node {
	uint8_t type;
	char op[3];
	uint64_t val; /* N_CONST; N_CAST: the mask (0: none) */
	const char *lit; /* N_LIT: a string atom */
	uint32_t off, size; /* N_FIELD, N_CHARS, N_DYNSTR (the locator) */
	bool rel; /* N_DYNSTR: __rel_loc */
	struct node *l, *r, *r2; /* N_FLAGS, N_SYMBOL: l is the value */
	const char *delim; /* N_FLAGS */
	int nr_syms;
	struct sym *syms;
};

struct piece {
	uint8_t type;
	char conv; /* d i u x X o; P_FUNC: the %p extension (s S f F) */
	int8_t ls; /* length modifier: -2 hh .. 2 ll */
	bool plain; /* the format is just "%<conv>" with ls: no flags or width */
	char fmt[32]; /* the conversion as written, for snprintf */
	const char *lit; /* P_LIT */
	size_t litlen;
	struct node *arg;
	/*
	 * Set by finish() for the common plain conversions, so the run loop needs
	 * neither eval() nor put_num()'s decisions per sample.
	 */
	uint8_t how; /* H_* */
	uint8_t bits; /* H_DEC_S: the cast's width */
	uint8_t fsize; /* arg is a field of this size at foff (0: eval the arg) */
	uint32_t foff;
	uint64_t umask; /* the cast of the length modifier, as a mask */
	/* a short literal that came before the conversion, folded into it */
	const char *pre;
	size_t prelen;
};

/*
 * how a piece is rendered: one switch in the run loop. The _F8 forms read an
 * 8-byte field in host order straight (most syscall and pointer arguments),
 * with no cast to apply: no size switch per piece.
 */
enum { H_SLOW, H_HEX, H_HEX_UPPER, H_DEC_U, H_DEC_S, H_PTR, H_LIT, H_STR, H_HEX_F8, H_DEC_S_F8,
       H_DEC_U_F8 };

struct rawfrag_tp_prog {
	const struct tep_event *ev;
	bool swap;
	int nr_pieces, nr_nodes;
	struct piece pieces[MAX_PIECES];
	struct node nodes[MAX_NODES];
	char *strings; /* owned copies of literal text */
	size_t strings_len, strings_cap;
	struct sym *symtab; /* all pieces' symbols */
	int nr_symtab;
	/*
	 * The most one sample can write when no piece is a string or printf's
	 * (0: unbounded): the run loop then makes room once per sample, not per
	 * piece.
	 */
	size_t bound;
};

/* ---- compiling ---- */

static struct node *new_node(struct rawfrag_tp_prog *p, int type)
{
	struct node *n;

	if (p->nr_nodes >= MAX_NODES)
		return NULL;
	n = &p->nodes[p->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->type = type;
	return n;
}

static bool read_size_ok(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static const struct tep_format_field *find_field(const struct tep_event *ev, const char *name)
{
	return name ? tep_find_any_field((struct tep_event *)ev, name) : NULL;
}

static struct node *compile_num(struct rawfrag_tp_prog *p, struct tep_print_arg *a);

static bool is_number(const char *s)
{
	return s && isdigit((unsigned char)s[0]);
}

static uint64_t eval(const struct rawfrag_tp_prog *p, const struct node *n, const uint8_t *d);

/*
 * An operator or cast of constants becomes its value, as eval() computes it:
 * kernel formats spell masks as expressions (sched_switch's prev_state mask is
 * eight ORs, an add, a shift and a subtract per sample otherwise).
 */
static struct node *fold(const struct rawfrag_tp_prog *p, struct node *n)
{
	if (!n || (n->type != N_OP && n->type != N_CAST))
		return n;
	if (n->type == N_CAST ? n->l->type != N_CONST :
	    n->r->type != N_CONST || (n->l && n->l->type != N_CONST))
		return n;
	n->val = eval(p, n, NULL);
	n->type = N_CONST;
	n->l = n->r = NULL;
	return n;
}

static struct node *compile_op(struct rawfrag_tp_prog *p, struct tep_print_arg *a)
{
	const char *op = a->op.op;
	struct node *n;

	if (!strcmp(op, "[")) {
		const struct tep_format_field *f;
		struct tep_print_arg *l = a->op.left, *r = a->op.right;
		unsigned long long idx;

		/* REC->array[constant] only */
		if (l->type != TEP_PRINT_FIELD || r->type != TEP_PRINT_ATOM || !is_number(r->atom.atom))
			return NULL;
		f = find_field(p->ev, l->field.name);
		idx = strtoull(r->atom.atom, NULL, 0);
		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
		    !read_size_ok((int)f->elementsize) || idx >= f->arraylen)
			return NULL;
		n = new_node(p, N_FIELD);
		if (!n)
			return NULL;
		n->off = (uint32_t)(f->offset + idx * f->elementsize);
		n->size = f->elementsize;
		return n;
	}
	if (!strcmp(op, "?")) {
		struct tep_print_arg *r = a->op.right;

		if (!r || r->type != TEP_PRINT_OP || strcmp(r->op.op, ":"))
			return NULL;
		n = new_node(p, N_COND);
		if (!n)
			return NULL;
		n->l = compile_num(p, a->op.left);
		n->r = compile_num(p, r->op.left);
		n->r2 = compile_num(p, r->op.right);
		return n->l && n->r && n->r2 ? n : NULL;
	}
	/* the binary and unary operators of eval_num_arg, without / and % (div by 0) */
	if (strlen(op) > 2 || !strchr("!~|&<>=-+*", op[0]))
		return NULL;
	if (op[1] && !strchr("=|&<>", op[1]))
		return NULL;
	n = new_node(p, N_OP);
	if (!n)
		return NULL;
	memcpy(n->op, op, strlen(op) + 1);
	/* unary ! and ~ have no left operand */
	n->l = a->op.left ? compile_num(p, a->op.left) : NULL;
	n->r = compile_num(p, a->op.right);
	if (!n->r || (!n->l && strcmp(op, "!") && strcmp(op, "~")))
		return NULL;
	return fold(p, n);
}

static struct node *compile_num(struct rawfrag_tp_prog *p, struct tep_print_arg *a)
{
	const struct tep_format_field *f;
	struct node *n;

	if (!a)
		return NULL;
	switch (a->type) {
	case TEP_PRINT_TYPE:
		if (!a->typecast.type)
			return NULL;
		n = new_node(p, N_CAST);
		if (!n)
			return NULL;
		n->val = rawfrag_tp__cast_mask(a->typecast.type);
		n->l = compile_num(p, a->typecast.item);
		return n->l ? fold(p, n) : NULL;
	case TEP_PRINT_ATOM:
		if (!is_number(a->atom.atom))
			return NULL;
		n = new_node(p, N_CONST);
		if (n)
			n->val = strtoull(a->atom.atom, NULL, 0);
		return n;
	case TEP_PRINT_FIELD:
		f = find_field(p->ev, a->field.name);
		if (!f || !read_size_ok(f->size) || (f->flags & TEP_FIELD_IS_ARRAY))
			return NULL;
		n = new_node(p, N_FIELD);
		if (n) {
			n->off = f->offset;
			n->size = f->size;
		}
		return n;
	case TEP_PRINT_OP:
		return compile_op(p, a);
	default:
		return NULL;
	}
}

static int compile_syms(struct rawfrag_tp_prog *p, struct node *n, struct tep_print_flag_sym *fs);

/* A string argument: char[] field, __get_str(), string atom, or ?: of those. */
static struct node *compile_str(struct rawfrag_tp_prog *p, struct tep_print_arg *a, int long_size)
{
	const struct tep_format_field *f;
	struct node *n;

	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = new_node(p, N_LIT);
		if (n)
			n->lit = a->atom.atom;
		return n;
	case TEP_PRINT_FIELD:
		f = find_field(p->ev, a->field.name);
		/* char[] only: tep prints a long-sized scalar as a printk string */
		if (!f || f->size <= 0 || !(f->flags & TEP_FIELD_IS_ARRAY) ||
		    (f->flags & TEP_FIELD_IS_DYNAMIC))
			return NULL;
		n = new_node(p, N_CHARS);
		if (n) {
			n->off = f->offset;
			n->size = f->size;
		}
		return n;
	case TEP_PRINT_STRING:
		f = find_field(p->ev, a->string.string);
		if (!f || f->size != 4)
			return NULL;
		n = new_node(p, N_DYNSTR);
		if (n) {
			n->off = f->offset;
			n->size = f->size;
			n->rel = f->flags & TEP_FIELD_IS_RELATIVE;
		}
		return n;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL: {
		bool fl = a->type == TEP_PRINT_FLAGS;

		n = new_node(p, fl ? N_FLAGS : N_SYMBOL);
		if (!n)
			return NULL;
		n->l = compile_num(p, fl ? a->flags.field : a->symbol.field);
		n->delim = fl ? a->flags.delim : NULL;
		if (!n->l || compile_syms(p, n, fl ? a->flags.flags : a->symbol.symbols))
			return NULL;
		return n;
	}
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?") || !a->op.right || a->op.right->type != TEP_PRINT_OP)
			return NULL;
		n = new_node(p, N_COND);
		if (!n)
			return NULL;
		n->l = compile_num(p, a->op.left);
		n->r = compile_str(p, a->op.right->op.left, long_size);
		n->r2 = compile_str(p, a->op.right->op.right, long_size);
		return n->l && n->r && n->r2 ? n : NULL;
	default:
		return NULL;
	}
}

static const char *add_text(struct rawfrag_tp_prog *p, const char *s, size_t n, size_t *off)
{
	if (p->strings_len + n + 1 > p->strings_cap)
		return NULL;
	memcpy(p->strings + p->strings_len, s, n);
	p->strings[p->strings_len + n] = '\0';
	*off = p->strings_len;
	p->strings_len += n + 1;
	return p->strings;
}

/*
 * eval_flag(): a value the kernel left as a name is looked up in libtraceevent's
 * short table (the same names in 1.7.1 and in perf 6.1's copy), else -1.
 */
static int64_t flag_value(const char *v)
{
	static const struct {
		const char *name;
		int val;
	} names[] = {
		{ "HI_SOFTIRQ", 0 },	   { "TIMER_SOFTIRQ", 1 },   { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 },   { "BLOCK_SOFTIRQ", 4 },   { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 },  { "SCHED_SOFTIRQ", 7 },   { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 },	   { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};

	if (is_number(v))
		return (int64_t)strtoull(v, NULL, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, v))
			return names[i].val;
	return -1;
}

static int compile_syms(struct rawfrag_tp_prog *p, struct node *n, struct tep_print_flag_sym *fs)
{
	n->syms = p->symtab + p->nr_symtab;
	for (; fs; fs = fs->next) {
		if (!fs->value || !fs->str || p->nr_symtab >= MAX_SYMS)
			return -1;
		p->symtab[p->nr_symtab].val = flag_value(fs->value);
		p->symtab[p->nr_symtab].str = fs->str;
		p->nr_symtab++;
		n->nr_syms++;
	}
	return 0;
}

/* One % conversion at *fmt with its argument; returns chars consumed or -1. */
static int compile_conv(struct rawfrag_tp_prog *p, const char *fmt, struct tep_print_arg **argp,
			int long_size)
{
	struct tep_print_arg *a = *argp;
	struct piece *pc;
	const char *s = fmt + 1;
	int ls = 0, len;
	bool flags = false, size_t_len = false;

	if (p->nr_pieces >= MAX_PIECES || !a)
		return -1;
	pc = &p->pieces[p->nr_pieces];
	memset(pc, 0, sizeof(*pc));
	for (;; s++) {
		if (*s == 'h')
			ls--;
		else if (*s == 'l')
			ls++;
		else if (*s == 'L')
			ls = 2;
		else if (*s == 'z' || *s == 'Z')
			size_t_len = true;
		else if (*s == '#' || *s == '.' || *s == '-' || (*s >= '0' && *s <= '9'))
			flags = true;
		else
			break;
	}
	/* '*' widths and unknown conversions: leave to libtraceevent */
	if (!*s || !strchr("duixXops", *s) || ls < -2 || ls > 2)
		return -1;
	len = (int)(s - fmt) + 1;
	if (len >= (int)sizeof(pc->fmt))
		return -1;
	memcpy(pc->fmt, fmt, len);
	pc->fmt[len] = '\0';
	pc->conv = *s;
	/*
	 * libtraceevent takes z for a flag and passes an int cast, but printf then
	 * reads a whole size_t: the full 64-bit value is what comes out (x86-64)
	 */
	pc->ls = (int8_t)(size_t_len ? 2 : ls);
	pc->plain = !flags;
	if (*s == 'p' && s[1] && strchr("FfSs", s[1])) {
		/* kernel function: name (+offset for S and F) from tep's function map */
		pc->type = P_FUNC;
		pc->conv = s[1];
		pc->arg = compile_num(p, a);
		len++;
	} else if (*s == 'p') {
		/* %pM, %pI4, ... are other extensions; plain %p is printf's */
		if (s[1] && strchr("MmIiUh", s[1]))
			return -1;
		pc->type = P_PTR;
		pc->arg = compile_num(p, a);
	} else if (*s == 's') {
		pc->type = P_STR;
		pc->arg = compile_str(p, a, long_size);
	} else {
		pc->type = P_NUM;
		pc->arg = compile_num(p, a);
	}
	if (!pc->arg)
		return -1;
	p->nr_pieces++;
	*argp = a->next;
	return len;
}

/* Literal text up to the next conversion, unescaped as parse_arg_string() does. */
static int compile_lit(struct rawfrag_tp_prog *p, const char *fmt)
{
	char buf[512];
	size_t n = 0, off;
	const char *s = fmt;
	struct piece *pc;

	while (*s && n < sizeof(buf) - 1) {
		if (*s == '\\' && s[1]) {
			s++;
			buf[n++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
		} else if (*s == '%') {
			if (s[1] != '%')
				break;
			buf[n++] = '%';
			s++;
		} else {
			buf[n++] = *s;
		}
		s++;
	}
	if (p->nr_pieces >= MAX_PIECES || !add_text(p, buf, n, &off))
		return -1;
	pc = &p->pieces[p->nr_pieces++];
	memset(pc, 0, sizeof(*pc));
	pc->type = P_LIT;
	pc->lit = (const char *)(uintptr_t)off; /* made a pointer once strings is final */
	pc->litlen = n;
	return (int)(s - fmt);
}

/* Pick the run loop's shortcut for a conversion (put_num()'s choices, made once). */
static void finish(struct piece *pc)
{
	static const uint8_t width[] = { 8, 16, 32, 64, 64 }; /* ls -2 .. 2 */
	const struct node *a = pc->arg;

	pc->how = pc->type == P_LIT ? H_LIT : pc->type == P_STR ? H_STR : H_SLOW;
	if (pc->type != P_NUM && pc->type != P_PTR)
		return;
	if (a->type == N_FIELD) {
		pc->fsize = (uint8_t)a->size;
		pc->foff = a->off;
	}
	if (pc->type == P_PTR) {
		pc->how = H_PTR;
		return;
	}
	if (!pc->plain || pc->conv == 'o')
		return;
	pc->bits = width[pc->ls + 2];
	pc->umask = pc->bits == 64 ? ~0ULL : (1ULL << pc->bits) - 1;
	if (pc->conv == 'd' || pc->conv == 'i')
		pc->how = H_DEC_S;
	else if (pc->conv == 'u')
		pc->how = H_DEC_U;
	else
		pc->how = pc->conv == 'X' ? H_HEX_UPPER : H_HEX;
}

/* A plain conversion of an 8-byte host-order field with no narrowing cast */
static void finish_f8(const struct rawfrag_tp_prog *p, struct piece *pc)
{
	if (p->swap || pc->fsize != 8 || pc->umask != ~0ULL)
		return;
	if (pc->how == H_HEX)
		pc->how = H_HEX_F8;
	else if (pc->how == H_DEC_S)
		pc->how = H_DEC_S_F8;
	else if (pc->how == H_DEC_U)
		pc->how = H_DEC_U_F8;
}

/* see struct rawfrag_tp_prog's bound */
static size_t prog_bound(const struct rawfrag_tp_prog *p)
{
	size_t n = 0;

	for (int i = 0; i < p->nr_pieces; i++) {
		const struct piece *pc = &p->pieces[i];

		if (pc->how == H_STR || pc->how == H_SLOW)
			return 0;
		n += PIECE_ROOM + (pc->how == H_LIT ? pc->litlen : 0);
	}
	return n <= RAWFRAG_TP_SB_MIN ? n : 0;
}

/* A short literal before a conversion becomes its prefix: half the loop turns. */
static void fold_literals(struct rawfrag_tp_prog *p)
{
	int n = 0;

	for (int i = 0; i < p->nr_pieces; i++) {
		struct piece *pc = &p->pieces[i];

		if (pc->type == P_LIT && pc->litlen <= LIT_COPY && i + 1 < p->nr_pieces &&
		    p->pieces[i + 1].type != P_LIT) {
			p->pieces[i + 1].pre = pc->lit;
			p->pieces[i + 1].prelen = pc->litlen;
			continue;
		}
		p->pieces[n++] = *pc;
	}
	p->nr_pieces = n;
}

void rawfrag_tp_prog__free(struct rawfrag_tp_prog *p)
{
	if (!p)
		return;
	free(p->strings);
	free(p->symtab);
	free(p);
}

/*
 * The symbol table is sized for the worst format while compiling; keep only
 * what was used (most formats use none): one event's program then costs about
 * half as much, which a file binding thousands of formats feels.
 */
static void shrink_symtab(struct rawfrag_tp_prog *p)
{
	struct sym *t = malloc((p->nr_symtab ? p->nr_symtab : 1) * sizeof(*t));

	if (!t)
		return;
	memcpy(t, p->symtab, p->nr_symtab * sizeof(*t));
	for (int i = 0; i < p->nr_nodes; i++)
		if (p->nodes[i].syms)
			p->nodes[i].syms = t + (p->nodes[i].syms - p->symtab);
	free(p->symtab);
	p->symtab = t;
}

struct rawfrag_tp_prog *rawfrag_tp_prog__compile(const struct tep_event *ev, bool swap,
						 int long_size)
{
	struct rawfrag_tp_prog *p;
	struct tep_print_arg *arg;
	const char *fmt = ev->print_fmt.format;

	if (!fmt || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->ev = ev;
	p->swap = swap;
	p->strings_cap = strlen(fmt) + 1 + MAX_PIECES;
	/* zeroed slack after the last string: literals are copied 16 bytes at a time */
	p->strings = calloc(1, p->strings_cap + LIT_COPY);
	p->symtab = calloc(MAX_SYMS, sizeof(*p->symtab));
	if (!p->strings || !p->symtab)
		goto fail;
	arg = ev->print_fmt.args;
	while (*fmt) {
		int n = (*fmt == '%' && fmt[1] != '%') ? compile_conv(p, fmt, &arg, long_size) :
							  compile_lit(p, fmt);

		if (n <= 0)
			goto fail;
		fmt += n;
	}
	for (int i = 0; i < p->nr_pieces; i++) {
		if (p->pieces[i].type == P_LIT)
			p->pieces[i].lit = p->strings + (uintptr_t)p->pieces[i].lit;
		finish(&p->pieces[i]);
	}
	fold_literals(p);
	for (int i = 0; i < p->nr_pieces; i++)
		finish_f8(p, &p->pieces[i]);
	p->bound = prog_bound(p);
	shrink_symtab(p);
	return p;
fail:
	rawfrag_tp_prog__free(p);
	return NULL;
}

/* ---- running ---- */

static uint64_t rd(const uint8_t *d, uint32_t size, bool swap)
{
	switch (size) {
	case 1:
		return d[0];
	case 2:
		return rawfrag__get16(d, swap);
	case 4:
		return rawfrag__get32(d, swap);
	default:
		return rawfrag__get64(d, swap);
	}
}

static uint64_t eval(const struct rawfrag_tp_prog *p, const struct node *n, const uint8_t *d)
{
	uint64_t l, r;

	switch (n->type) {
	case N_CONST:
		return n->val;
	case N_FIELD:
		return rd(d + n->off, n->size, p->swap);
	case N_COND:
		return eval(p, n->l, d) ? eval(p, n->r, d) : eval(p, n->r2, d);
	case N_CAST:
		l = eval(p, n->l, d);
		return n->val ? l & n->val : l;
	default:
		break;
	}
	l = n->l ? eval(p, n->l, d) : 0;
	r = eval(p, n->r, d);
	switch (n->op[0]) {
	case '!':
		return n->op[1] ? l != r : !r;
	case '~':
		return ~r;
	case '|':
		return n->op[1] ? l || r : l | r;
	case '&':
		return n->op[1] ? l && r : l & r;
	/* libtraceevent shifts by r as the CPU does: x86 takes r mod 64 */
	case '<':
		return n->op[1] == '<' ? l << (r & 63) : n->op[1] ? l <= r : l < r;
	case '>':
		return n->op[1] == '>' ? l >> (r & 63) : n->op[1] ? l >= r : l > r;
	case '=':
		return l == r;
	case '-':
		return l - r;
	case '+':
		return l + r;
	default:
		return l * r;
	}
}

/*
 * The conversions with flags or a width are rendered by printf from the format
 * as the event wrote it, as libtraceevent does: the format is data here, checked
 * at compile time to be one conversion of the kind the argument matches.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void put_str(struct rawfrag_tp_sb *o, const struct piece *pc, const char *s, size_t len)
{
	char buf[512], tmp[256];

	if (pc->plain) {
		rawfrag_tp_sb__write(o, s, len);
		return;
	}
	/* width/flags: printf's own rendering, on a NUL-terminated copy */
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	snprintf(buf, sizeof(buf), pc->fmt, tmp);
	rawfrag_tp_sb__puts(o, buf);
}

/* v in hex where the caller made room for 16 bytes (the library's one formatter) */
static inline __attribute__((always_inline)) void put_hex_room(struct rawfrag_tp_sb *o,
								uint64_t v, bool upper)
{
	char *d = o->b + o->len;

	o->len += (size_t)(rf_put_hexc(d, v, upper) - d);
}

static inline void put_hex(struct rawfrag_tp_sb *o, uint64_t v, bool upper)
{
	rawfrag_tp_sb__reserve(o, 16);
	put_hex_room(o, v, upper);
}

/*
 * print_arg_number() for a conversion with flags, a width or a precision, or
 * %o: the value cast as the length modifier says, then printf'd. The plain
 * %d %i %u %x %X never come here: finish() gave them a run-loop shortcut.
 */
static void put_num(struct rawfrag_tp_sb *o, const struct piece *pc, uint64_t val)
{
	char buf[64];

	switch (pc->ls) {
	case -2:
		snprintf(buf, sizeof(buf), pc->fmt, (char)val);
		break;
	case -1:
		snprintf(buf, sizeof(buf), pc->fmt, (short)val);
		break;
	case 0:
		snprintf(buf, sizeof(buf), pc->fmt, (int)val);
		break;
	case 1:
		snprintf(buf, sizeof(buf), pc->fmt, (long)val);
		break;
	default:
		snprintf(buf, sizeof(buf), pc->fmt, (long long)val);
		break;
	}
	rawfrag_tp_sb__puts(o, buf);
}

#pragma GCC diagnostic pop

/* print_str_arg() for __print_flags / __print_symbolic (values are long long) */
static void put_flags(struct rawfrag_tp_sb *o, const struct piece *pc, const struct node *n,
		      int64_t val)
{
	bool printed = false;

	for (int i = 0; i < n->nr_syms; i++) {
		int64_t fval = n->syms[i].val;
		const char *s = n->syms[i].str;

		if (n->type == N_SYMBOL) {
			if (val == fval) {
				put_str(o, pc, s, strlen(s));
				return;
			}
			continue;
		}
		if (!val && fval < 0) {
			put_str(o, pc, s, strlen(s));
			break;
		}
		if (fval > 0 && (val & fval) == fval) {
			if (printed && n->delim)
				rawfrag_tp_sb__puts(o, n->delim);
			put_str(o, pc, s, strlen(s));
			printed = true;
			val &= ~fval;
		}
	}
	if (n->type == N_FLAGS && !val)
		return;
	if (n->type == N_FLAGS && printed && n->delim)
		rawfrag_tp_sb__puts(o, n->delim);
	rawfrag_tp_sb__write(o, "0x", 2);
	put_hex(o, (uint64_t)val, false);
}

/* print_str_arg() for the string nodes, bounded by the raw area */
static void put_strnode(const struct rawfrag_tp_prog *p, struct rawfrag_tp_sb *o,
			const struct piece *pc, const struct node *n, const uint8_t *d,
			uint32_t size)
{
	const char *s;
	uint32_t off;

	switch (n->type) {
	case N_LIT:
		put_str(o, pc, n->lit, strlen(n->lit));
		break;
	case N_CHARS:
		s = (const char *)d + n->off;
		put_str(o, pc, s, strnlen(s, n->size));
		break;
	case N_DYNSTR:
		/* the locator was checked to lie inside the raw area */
		off = rawfrag__get32(d + n->off, p->swap) & 0xffff;
		if (n->rel)
			off += n->off + n->size;
		if (off < size)
			put_str(o, pc, (const char *)d + off, strnlen((const char *)d + off, size - off));
		else
			put_str(o, pc, "", 0);
		break;
	case N_FLAGS:
	case N_SYMBOL:
		put_flags(o, pc, n, (int64_t)eval(p, n->l, d));
		break;
	default: /* N_COND */
		put_strnode(p, o, pc, eval(p, n->l, d) ? n->r : n->r2, d, size);
		break;
	}
}

/* print_function(): symbol[+0xoff], or the address */
static void put_func(const struct rawfrag_tp_prog *p, struct rawfrag_tp_sb *o,
		     const struct piece *pc, uint64_t val)
{
	struct tep_handle *tep = p->ev->tep;
	const char *name = tep_find_function(tep, val);

	if (name) {
		rawfrag_tp_sb__puts(o, name);
		if (pc->conv == 'F' || pc->conv == 'S') {
			rawfrag_tp_sb__write(o, "+0x", 3);
			put_hex(o, val - tep_find_function_address(tep, val), false);
		}
		return;
	}
	rawfrag_tp_sb__write(o, "0x", 2);
	put_hex(o, tep_get_long_size(tep) == 4 ? (uint64_t)(uint32_t)val : val, false);
}

/* the conversion's argument: a field read straight, or the expression */
static inline uint64_t piece_value(const struct rawfrag_tp_prog *p, const struct piece *pc,
				   const uint8_t *data)
{
	return pc->fsize ? rd(data + pc->foff, pc->fsize, p->swap) : eval(p, pc->arg, data);
}

/*
 * A bounded program (numbers and literals only) with its bound free in the
 * out: written through a pointer held in a register, no room checks, no sb.
 * The cases are the run loop's below for the same pieces.
 */
static inline void print_bounded(const struct rawfrag_tp_prog *p, const uint8_t *data,
				 struct rawfrag_out *out)
{
	char *w = out->buf + out->len;

	for (int i = 0; i < p->nr_pieces; i++) {
		const struct piece *pc = &p->pieces[i];
		uint64_t v;

		if (pc->prelen) {
			/* the strings buffer has LIT_COPY bytes of slack */
			memcpy(w, pc->pre, LIT_COPY);
			w += pc->prelen;
		}
		switch (pc->how) {
		case H_LIT:
			if (pc->litlen <= LIT_COPY)
				memcpy(w, pc->lit, LIT_COPY);
			else
				memcpy(w, pc->lit, pc->litlen);
			w += pc->litlen;
			break;
		case H_HEX_F8:
			w = rf_put_hexc(w, rawfrag__get64(data + pc->foff, false), false);
			break;
		case H_DEC_S_F8:
			w = rf_put_s64(w, (int64_t)rawfrag__get64(data + pc->foff, false));
			break;
		case H_DEC_U_F8:
			w = rf_put_u64(w, rawfrag__get64(data + pc->foff, false));
			break;
		case H_HEX:
		case H_HEX_UPPER:
			v = piece_value(p, pc, data);
			w = rf_put_hexc(w, v & pc->umask, pc->how == H_HEX_UPPER);
			break;
		case H_DEC_U:
			w = rf_put_u64(w, piece_value(p, pc, data) & pc->umask);
			break;
		case H_DEC_S:
			v = piece_value(p, pc, data);
			w = rf_put_s64(w, (int64_t)(v << (64 - pc->bits)) >> (64 - pc->bits));
			break;
		default: /* H_PTR: printf's %p */
			v = piece_value(p, pc, data);
			if (v) {
				memcpy(w, "0x", 2);
				w = rf_put_hexc(w + 2, v, false);
			} else {
				memcpy(w, "(nil)", 5);
				w += 5;
			}
			break;
		}
	}
	out->len = (size_t)(w - out->buf);
}

static __attribute__((noinline)) void print_any(const struct rawfrag_tp_prog *p,
						const uint8_t *data, uint32_t size,
						struct rawfrag_out *out);

/* a bounded program in a small frame (no sb on the stack), else print_any() */
void rawfrag_tp_prog__print(const struct rawfrag_tp_prog *p, const uint8_t *data, uint32_t size,
			    struct rawfrag_out *out)
{
	if (p->bound && out->cap - out->len >= p->bound && !out->err)
		print_bounded(p, data, out);
	else
		print_any(p, data, size, out);
}

static void print_any(const struct rawfrag_tp_prog *p, const uint8_t *data, uint32_t size,
		      struct rawfrag_out *out)
{
	struct rawfrag_tp_sb sb, *o = &sb;

	/* a fresh sb has RAWFRAG_TP_SB_MIN bytes of room: enough for a bounded program */
	rawfrag_tp_sb__init(&sb, out);
	for (int i = 0; i < p->nr_pieces; i++) {
		const struct piece *pc = &p->pieces[i];
		uint64_t v;

		/* room for the prefix and any number: the cases below write without checks */
		if (!p->bound)
			rawfrag_tp_sb__reserve(o, PIECE_ROOM);
		if (pc->prelen) {
			/* the strings buffer has LIT_COPY bytes of slack */
			memcpy(o->b + o->len, pc->pre, LIT_COPY);
			o->len += pc->prelen;
		}
		switch (pc->how) {
		case H_LIT:
			if (pc->litlen <= LIT_COPY) {
				rawfrag_tp_sb__reserve(o, LIT_COPY);
				memcpy(o->b + o->len, pc->lit, LIT_COPY);
				o->len += pc->litlen;
			} else {
				rawfrag_tp_sb__write(o, pc->lit, pc->litlen);
			}
			break;
		case H_STR:
			put_strnode(p, o, pc, pc->arg, data, size);
			break;
		case H_HEX_F8:
			put_hex_room(o, rawfrag__get64(data + pc->foff, false), false);
			break;
		case H_DEC_S_F8:
			rawfrag_tp_sb__s64_room(o, (int64_t)rawfrag__get64(data + pc->foff, false));
			break;
		case H_DEC_U_F8:
			rawfrag_tp_sb__u64_room(o, rawfrag__get64(data + pc->foff, false));
			break;
		case H_HEX:
		case H_HEX_UPPER:
			v = piece_value(p, pc, data);
			put_hex_room(o, v & pc->umask, pc->how == H_HEX_UPPER);
			break;
		case H_DEC_U:
			rawfrag_tp_sb__u64_room(o, piece_value(p, pc, data) & pc->umask);
			break;
		case H_DEC_S:
			/* the cast to the modifier's width, sign-extended */
			v = piece_value(p, pc, data);
			rawfrag_tp_sb__s64_room(o, (int64_t)(v << (64 - pc->bits)) >> (64 - pc->bits));
			break;
		case H_PTR:
			/* printf's %p */
			v = piece_value(p, pc, data);
			if (v) {
				memcpy(o->b + o->len, "0x", 2);
				o->len += 2;
				put_hex_room(o, v, false);
			} else {
				memcpy(o->b + o->len, "(nil)", 5);
				o->len += 5;
			}
			break;
		default:
			v = piece_value(p, pc, data);
			if (pc->type == P_FUNC)
				put_func(p, o, pc, v);
			else
				put_num(o, pc, v);
			break;
		}
	}
	rawfrag_tp_sb__flush(o);
}
