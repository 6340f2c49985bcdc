// SPDX-License-Identifier: GPL-2.0
/*
 * Divisions in the print formats of the running kernel
 * (/sys/kernel/tracing/events/X/Y/format). For every format whose print args
 * divide ('/' or '%'), the tracepoint decoder is given tracing data holding
 * that format, rewritten in turn:
 *   - as the kernel wrote it, and with each constant divisor written in every
 *     literal form a kernel format uses (suffixes u/l/ul/ull in either case,
 *     hex, octal, parentheses, casts, sizeof(type)): never flagged, and the
 *     text equals libtraceevent's for the same payload;
 *   - with the divisor 0 in some such form: the print format is not used (and
 *     nothing traps);
 *   - with the divisor a field of the event, plain, cast or in an expression:
 *     a sample where it is 0 is marked, that sample only; samples around it
 *     print as libtraceevent prints them.
 * Which divisor is a constant is told here from the format's text, not from
 * the decoder's parse.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* the tables of written forms */
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <rawfrag/decoder.h>
#include "internal/decoders.h"
#include "internal/tracepoint.h"
#include "fixture.h"

#define ROOT "/sys/kernel/tracing/events"
#define MARK_NEVER "print format not used"
#define MARK_ZERO "which is 0 here"

/* ---- the print args of a format, read as text ---- */

/* start of the args: just past the closing quote of the print fmt string */
static char *args_of(char *fmt)
{
	char *p = strstr(fmt, "print fmt: \"");

	if (!p)
		return NULL;
	for (p += 12; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : NULL;
}

/* the operand right of the operator at op: a (...) group, sizeof(...), or a token */
static size_t operand_len(const char *op)
{
	const char *p = op + 1, *s;
	int depth = 0;

	while (*p == ' ')
		p++;
	s = p;
	if (!strncmp(p, "sizeof", 6))
		p += 6;
	if (*p == '(') {
		do {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
			p++;
		} while (*p && depth);
		return (size_t)(p - op);
	}
	while (isalnum((unsigned char)*p) || *p == '_' || (*p == '-' && p[1] == '>') ||
	       (*p == '>' && p[-1] == '-'))
		p++;
	return p > s ? (size_t)(p - op) : 0;
}

/* the next division operator in args (outside string literals), or NULL */
static char *next_div(char *p)
{
	bool str = false;

	for (; *p && *p != '\n'; p++) {
		if (*p == '"' && p[-1] != '\\')
			str = !str;
		if (!str && (*p == '/' || *p == '%') && p[1] == ' ')
			return p;
	}
	return NULL;
}

/* the value of a constant divisor's text as a C compiler on x86_64 gives it */
static bool const_value(const char *t, size_t n, unsigned long long *v)
{
	char buf[128];
	char *e;

	if (n >= sizeof(buf) || memmem(t, n, "REC->", 5) || memmem(t, n, "__get_", 6))
		return false;
	memcpy(buf, t, n);
	buf[n] = '\0';
	e = buf;
	while (*e == ' ' || *e == '(')
		e++;
	if (!strncmp(e, "sizeof", 6)) {
		e += 6;
		while (*e == ' ' || *e == '(')
			e++;
		*v = !strncmp(e, "u8", 2) || !strncmp(e, "s8", 2) || !strncmp(e, "char", 4) ? 1 :
		     !strncmp(e, "u16", 3) || !strncmp(e, "short", 5) ? 2 :
		     !strncmp(e, "u32", 3) || !strncmp(e, "int", 3) || !strncmp(e, "unsigned int", 12) ? 4 : 8;
		return true;
	}
	if (!isdigit((unsigned char)*e))
		return false;
	*v = strtoull(e, NULL, 0);
	return true;
}

/* ---- one rewritten format through the decoder and through libtraceevent ---- */

struct run {
	struct fx_buf blob;
	struct rawfrag_env env;
	struct rawfrag_decoder_ctx ctx;
	void *priv;
	struct tep_handle *tep;
	struct tep_event *ev;
	struct trace_seq seq;
	struct rawfrag_out *out;
	uint8_t raw[4096];
	uint32_t size;
};

static const struct rawfrag_decoder *dec = &rawfrag_decoder_tracepoint;

static bool run_init(struct run *r, const char *sys, const char *fmt)
{
	memset(r, 0, sizeof(*r));
	r->tep = tep_alloc();
	assert_non_null(r->tep);
	tep_set_long_size(r->tep, 8);
	tep_set_file_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_format(r->tep, &r->ev, fmt, strlen(fmt), sys) || !r->ev) {
		tep_free(r->tep);
		return false;
	}
	/* tracing data (little-endian, 8-byte longs) with this one format */
	fx_tracing_data(&r->blob, false, sys, &fmt, 1, NULL, NULL);
	assert_int_equal(fx_tp__bind(&r->env, &r->ctx, &r->blob, (uint64_t)r->ev->id, &r->priv),
			 100);
	trace_seq_init(&r->seq);
	r->out = rawfrag_out__new(-1);
	assert_non_null(r->out);
	return true;
}

static void run_fini(struct run *r)
{
	fx_tp__unbind(&r->ctx, r->priv);
	rawfrag_out__delete(r->out);
	trace_seq_destroy(&r->seq);
	tep_free(r->tep);
}

/* fixed fields all byte b; every dynamic field 8 bytes "abcdefg" */
static void payload(struct run *r, uint8_t b)
{
	struct tep_format_field *f;
	uint32_t end = 0;

	for (int pass = 0; pass < 2; pass++)
		for (f = pass ? r->ev->format.fields : r->ev->format.common_fields; f; f = f->next)
			if ((uint32_t)(f->offset + f->size) > end)
				end = (uint32_t)(f->offset + f->size);
	assert_true(end + 512 < sizeof(r->raw));
	memset(r->raw, b, end);
	r->raw[0] = (uint8_t)r->ev->id;
	r->raw[1] = (uint8_t)(r->ev->id >> 8);
	for (f = r->ev->format.fields; f; f = f->next) {
		uint32_t off = end;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
			continue;
		memcpy(r->raw + end, "abcdefg", 8);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off -= (uint32_t)(f->offset + f->size);
		for (int i = 0; i < 4; i++)
			r->raw[f->offset + i] = (uint8_t)(((8u << 16) | off) >> (8 * i));
		end += 8;
	}
	r->size = ((end + 4 + 7) & ~7u) - 4;
	memset(r->raw + end, 0, r->size - end);
}

static void set_field(struct run *r, const struct tep_format_field *f, uint64_t v)
{
	for (int i = 0; i < f->size; i++)
		r->raw[f->offset + i] = (uint8_t)(v >> (8 * i));
}

/* the decoder's text of the current payload; its return value in *ret */
static const char *text(struct run *r, int *ret)
{
	struct rawfrag_raw raw = { .data = r->raw, .size = r->size };
	struct rawfrag_sample s = { .cpu = 1, .time = 1000 };
	size_t len;
	const char *p;

	rawfrag_out__reset(r->out);
	*ret = dec->text(r->priv, &raw, &s, r->out, false);
	rawfrag_out__putc(r->out, '\0');
	p = rawfrag_out__mem(r->out, &len);
	return p;
}

/* the decoder's text equals libtraceevent's on the current payload */
static void same_as_tep(struct run *r, const char *what)
{
	struct tep_record rec = { .cpu = 1, .size = (int)r->size, .data = r->raw };
	int ret;
	const char *mine = text(r, &ret);

	/* a payload another check refuses is not handed to libtraceevent */
	if (!strncmp(mine, "[bad ", 5) && !strstr(mine, MARK_ZERO))
		return;
	if (strstr(mine, MARK_NEVER) || strstr(mine, MARK_ZERO))
		fail_msg("%s:%s (%s): flagged: %s", r->ev->system, r->ev->name, what, mine);
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	if (strcmp(mine, r->seq.buffer))
		fail_msg("%s:%s (%s)\n  tep:  %s\n  ours: %s", r->ev->system, r->ev->name, what,
			 r->seq.buffer, mine);
}

/* the format with the divisor at [at, at + n) replaced by repl */
static char *rewrite(const char *fmt, size_t at, size_t n, const char *repl)
{
	size_t len = strlen(fmt), rl = strlen(repl);
	char *s = malloc(len - n + rl + 1);

	assert_non_null(s);
	memcpy(s, fmt, at);
	memcpy(s + at, repl, rl);
	memcpy(s + at + rl, fmt + at + n, len - at - n + 1);
	return s;
}

static struct {
	int formats, const_divs, forms, field_divs, zero_marked;
} st;

static void check_const(const char *sys, const char *fmt, size_t at, size_t n,
			unsigned long long v)
{
	/* every form a kernel format writes a constant in; %1$ is the value */
	static const char *const forms[] = {
		"%llu", "%lluL", "%llul", "%lluU", "%lluUL", "%llulu", "%lluLL", "%lluULL",
		"%lluull", "0x%llxUL", "0X%llXul", "0%llou", "0%lloLL", "(%llu)", "(%lluUL)",
		"((%llu))", "(u64)%llu", "(unsigned long)%lluUL", "((u32)(%llu))", "(long)(0x%llx)",
	};
	/*
	 * Not sizeof(int) or sizeof(unsigned int) before another argument:
	 * libtraceevent 1.7.1's parser reads freed memory there (ASan).
	 */
	static const char *const sizeofs[] = {
		"sizeof(u8)", "sizeof(u16)", "sizeof(u32)", "sizeof(u64)", "sizeof(short)",
		"sizeof(char)", "sizeof(long)", "sizeof(unsigned long)",
	};
	static const char *const zeros[] = { "0", "0UL", "0x0ull", "(0)", "(u8)256", "(u16)0x10000" };
	char repl[96];
	struct run r;
	int ret;

	if (!v)
		v = 1000;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) + 8; i++) {
		char *f;

		if (i < sizeof(forms) / sizeof(forms[0]))
			snprintf(repl, sizeof(repl), forms[i], v);
		else
			snprintf(repl, sizeof(repl), "%s", sizeofs[i - sizeof(forms) / sizeof(forms[0])]);
		f = rewrite(fmt, at, n, repl);
		if (run_init(&r, sys, f)) {
			st.forms++;
			payload(&r, 0x01);
			same_as_tep(&r, repl);
			payload(&r, 0x00);
			same_as_tep(&r, repl);
			run_fini(&r);
		}
		free(f);
	}
	for (size_t i = 0; i < sizeof(zeros) / sizeof(zeros[0]); i++) {
		char *f = rewrite(fmt, at, n, zeros[i]);

		if (run_init(&r, sys, f)) {
			payload(&r, 0x01);
			/* a print fmt libtraceevent does not parse prints no division */
			if (r.ev->flags & TEP_EVENT_FL_FAILED)
				same_as_tep(&r, zeros[i]);
			else if (!strstr(text(&r, &ret), MARK_NEVER))
				fail_msg("%s:%s: divisor %s not flagged: %s", sys, r.ev->name, zeros[i], text(&r, &ret));
			run_fini(&r);
		}
		free(f);
	}
}

/* an integer field of the event that is neither an array nor dynamic */
static const struct tep_format_field *int_field(const struct tep_event *ev)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		    (f->size == 2 || f->size == 4 || f->size == 8))
			return f;
	return NULL;
}

static void check_field(const char *sys, const char *fmt, size_t at, size_t n,
			const struct tep_format_field *fld)
{
	static const char *const forms[] = { " REC->%s", " (REC->%s)", " (u64)REC->%s",
					     " (REC->%s + 0)", " (REC->%s ? REC->%s : 0)" };
	const struct tep_format_field *f;
	char repl[160];
	struct run r;
	int ret;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *t;

		snprintf(repl, sizeof(repl), forms[i], fld->name, fld->name);
		t = rewrite(fmt, at, n, repl + 1);
		if (!run_init(&r, sys, t)) {
			free(t);
			continue;
		}
		f = tep_find_field(r.ev, fld->name);
		assert_non_null(f);
		payload(&r, 0x01);
		same_as_tep(&r, repl);
		set_field(&r, f, 0);
		if (r.ev->flags & TEP_EVENT_FL_FAILED) {
			/* libtraceevent does not parse it: no division to guard */
			same_as_tep(&r, repl);
			run_fini(&r);
			free(t);
			continue;
		}
		st.field_divs++;
		/* "x ? y : 0" divides by 0 only where it takes the 0 */
		if (!strstr(text(&r, &ret), MARK_ZERO) || ret != -EINVAL)
			fail_msg("%s:%s: divisor %s = 0 not marked: %s", sys, r.ev->name, repl,
				 text(&r, &ret));
		else
			st.zero_marked++;
		set_field(&r, f, 3);
		same_as_tep(&r, repl);
		run_fini(&r);
		free(t);
	}
}

static void one_format(const char *sys, char *fmt)
{
	char *args = args_of(fmt), *op;
	struct run r;

	if (!args || !next_div(args) || !run_init(&r, sys, fmt))
		return;
	st.formats++;
	payload(&r, 0x01);
	same_as_tep(&r, "as the kernel wrote it");
	payload(&r, 0x00);
	same_as_tep(&r, "as the kernel wrote it");
	const struct tep_format_field *fld = int_field(r.ev);
	char *fname = fld ? strdup(fld->name) : NULL;
	struct tep_format_field copy = { .name = fname };

	run_fini(&r);
	for (op = next_div(args); op; op = next_div(op + 1)) {
		size_t n = operand_len(op), at = (size_t)(op - fmt) + 2;
		unsigned long long v;

		if (n < 2)
			continue;
		if (const_value(op + 2, n - 2, &v)) {
			st.const_divs++;
			check_const(sys, fmt, at, n - 2, v);
		}
		if (fname)
			check_field(sys, fmt, at, n - 2, &copy);
	}
	free(fname);
}

static void test_kernel_divisions(void **state)
{
	DIR *sd = opendir(ROOT);
	struct dirent *se;

	(void)state;
	if (!sd)
		skip();
	while ((se = readdir(sd))) {
		char path[1024];
		struct dirent *ee;
		DIR *ed;

		if (se->d_name[0] == '.' || !strcmp(se->d_name, "ftrace"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ROOT, se->d_name);
		ed = opendir(path);
		if (!ed)
			continue;
		while ((ee = readdir(ed))) {
			size_t len;
			char *fmt;

			if (ee->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/format", ROOT, se->d_name, ee->d_name);
			fmt = fx_slurp(path, &len);
			if (fmt)
				one_format(se->d_name, fmt);
			free(fmt);
		}
		closedir(ed);
	}
	closedir(sd);
	print_message("# %d formats of this kernel divide: %d constant divisors, rewritten into %d "
		      "forms in all, never flagged; %d field-divisor rewrites, a 0 marked "
		      "in %d samples, that sample only\n",
		      st.formats, st.const_divs, st.forms, st.field_divs, st.zero_marked);
	if (!st.formats)
		skip();
	assert_true(st.const_divs > 0 && st.field_divs > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_divisions),
	};

	return cmocka_run_group_tests_name("tp_divide", tests, NULL, NULL);
}
