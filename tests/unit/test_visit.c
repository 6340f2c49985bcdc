// SPDX-License-Identifier: GPL-2.0
/*
 * Typed field visits (rawfrag/visit.h) at the emitter: the visitor's options
 * checked as other options structs are; the public calls and the fast forms
 * with pre-encoded keys give the same visit, with the names, dotted paths,
 * depths, element indexes, types and values written out below; a non-zero
 * return stops the visit until the next reset; nesting past the emitter's
 * stack stops it with -E2BIG. The visit of real files against their JSON is
 * tests/gen/visit-check (t23).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/rawfrag.h>

#include "internal/emit.h"

/* the visit as text, one line per call */
struct log {
	char buf[8192];
	size_t len;
	int calls, stop_at, stop_with;
};

static void log_add(struct log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_add(struct log *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	l->len += (size_t)vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	assert_true(l->len < sizeof(l->buf));
}

static const char *const tname[] = { "u64", "s64", "bool", "hex", "str",
				     "bytes", "null", "object", "array" };

static void head(struct log *l, const char *what, const struct rawfrag_field *f)
{
	log_add(l, "%s %s d%u i%u %.*s@%.*s", what, tname[f->type], f->depth, f->index,
	     f->name ? (int)f->name_len : 1, f->name ? f->name : "-", (int)f->path_len, f->path);
}

static int on_field(void *ctx, const struct rawfrag_field *f)
{
	struct log *l = ctx;

	head(l, "F", f);
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX:
		log_add(l, " %" PRIu64, f->v.u);
		break;
	case RAWFRAG_FIELD_S64:
		log_add(l, " %" PRId64, f->v.s);
		break;
	case RAWFRAG_FIELD_BOOL:
		log_add(l, " %d", f->v.b);
		break;
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES:
		log_add(l, " %zu:", f->v.str.len);
		for (size_t i = 0; i < f->v.str.len; i++)
			log_add(l, "%02x", (unsigned char)f->v.str.p[i]);
		break;
	default:
		break;
	}
	log_add(l, "\n");
	return ++l->calls == l->stop_at ? l->stop_with : 0;
}

static int on_end(void *ctx, const struct rawfrag_field *f)
{
	struct log *l = ctx;

	head(l, "E", f);
	log_add(l, "\n");
	return ++l->calls == l->stop_at ? l->stop_with : 0;
}

static void test_opts(void **state)
{
	struct log l = { 0 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = on_field, .ctx = &l };
	struct {
		struct rawfrag_visitor v;
		uint64_t newer;
	} big = { .v = v };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *e;

	errno = 0;
	assert_null(rawfrag_emit__new_visitor(NULL));
	assert_int_equal(errno, EINVAL);
	v.field = NULL;
	errno = 0;
	assert_null(rawfrag_emit__new_visitor(&v));
	assert_int_equal(errno, EINVAL);
	v.field = on_field;
	v.sz = 4;
	assert_null(rawfrag_emit__new_visitor(&v));
	v.sz = sizeof(v);
	/* a newer caller's field this library does not know: refused unless zero */
	big.v.sz = sizeof(big);
	big.newer = 1;
	errno = 0;
	assert_null(rawfrag_emit__new_visitor(&big.v));
	assert_int_equal(errno, EINVAL);
	big.newer = 0;
	e = rawfrag_emit__new_visitor(&big.v);
	assert_non_null(e);
	rawfrag_emit__delete(e);
	/* an older caller's struct without end and ctx: only field() */
	v.sz = offsetof(struct rawfrag_visitor, end);
	e = rawfrag_emit__new_visitor(&v);
	assert_non_null(e);
	assert_int_equal(rawfrag_emit__format(e), RAWFRAG_EMIT_VISIT);
	/* its out writes nowhere */
	assert_int_not_equal(rawfrag_out__error(rawfrag_emit__out(e)), 0);
	rawfrag_emit__delete(e);
	rawfrag_emit__delete(NULL);
	/* a visit emitter is not made from an out */
	errno = 0;
	assert_null(rawfrag_emit__new(o, RAWFRAG_EMIT_VISIT));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rawfrag_session__sample_visit(NULL, NULL, NULL, NULL, &v), -EINVAL);
	rawfrag_out__delete(o);
}

static const char want[] =
	"F u64 d0 i0 pid@pid 18446744073709551615\n"
	"F s64 d0 i0 neg@neg -5\n"
	"F hex d0 i0 addr@addr 65535\n"
	"F bool d0 i0 ok@ok 1\n"
	"F null d0 i0 none@none\n"
	"F str d0 i0 comm@comm 3:782279\n"
	"F null d0 i0 nostr@nostr\n"
	"F str d0 i0 cut@cut 2:6162\n"
	"F bytes d0 i0 hex@hex 3:00ab10\n"
	"F object d0 i0 regs@regs\n"
	"F object d1 i0 IbsOpData3@regs.IbsOpData3\n"
	"F u64 d2 i0 DcMissLat@regs.IbsOpData3.DcMissLat 9\n"
	"E object d1 i0 IbsOpData3@regs.IbsOpData3\n"
	"F array d1 i0 args@regs.args\n"
	"F u64 d2 i0 -@regs.args 7\n"
	"F hex d2 i1 -@regs.args 8\n"
	"F object d2 i2 -@regs.args\n"
	"F str d3 i0 name@regs.args.name 1:78\n"
	"E object d2 i2 -@regs.args\n"
	"F array d2 i3 -@regs.args\n"
	"E array d2 i3 -@regs.args\n"
	"E array d1 i0 args@regs.args\n"
	"E object d0 i0 regs@regs\n"
	"F u64 d0 i0 a.b@a.b 1\n";

/* one description, through the public calls (keys NULL) or the fast forms */
static void describe(struct rawfrag_emit *e, struct rf_emit_key *k)
{
	static const uint8_t bytes[] = { 0, 0xab, 0x10 };
	bool fast = k != NULL;

	if (fast) {
		rf_emit__u64k(e, &k[0], UINT64_MAX);
		rf_emit__s64k(e, &k[1], -5);
		rf_emit__hexk(e, &k[2], 0xffff);
	} else {
		rawfrag_emit__u64(e, "pid", UINT64_MAX);
		rawfrag_emit__s64(e, "neg", -5);
		rawfrag_emit__hex(e, "addr", 0xffff);
	}
	rawfrag_emit__bool(e, "ok", true);
	if (fast)
		rf_emit__nullk(e, &k[3]);
	else
		rawfrag_emit__null(e, "none");
	if (fast) {
		rf_emit__strk(e, &k[4], "x\"y", (size_t)-1);
		rf_emit__strk(e, &k[5], NULL, 0);
		rf_emit__strk(e, &k[6], "ab\0cd", 5);
		rf_emit__bytesk(e, &k[7], bytes, sizeof(bytes));
		rf_emit__openk(e, &k[8], '{');
	} else {
		rawfrag_emit__str(e, "comm", "x\"y", (size_t)-1);
		rawfrag_emit__str(e, "nostr", NULL, 0);
		rawfrag_emit__str(e, "cut", "ab\0cd", 5);
		rawfrag_emit__bytes(e, "hex", bytes, sizeof(bytes));
		rawfrag_emit__begin_object(e, "regs");
	}
	rawfrag_emit__begin_object(e, "IbsOpData3");
	rawfrag_emit__u64(e, "DcMissLat", 9);
	rawfrag_emit__end_object(e);
	if (fast) {
		rf_emit__openk(e, &k[9], '[');
		rf_emit__u64k(e, NULL, 7);
		rf_emit__hexk(e, NULL, 8);
		rf_emit__openk(e, NULL, '{');
	} else {
		rawfrag_emit__begin_array(e, "args");
		rawfrag_emit__u64(e, NULL, 7);
		rawfrag_emit__hex(e, NULL, 8);
		rawfrag_emit__begin_object(e, NULL);
	}
	/* a name inside an array's object: the array's path, then the name */
	rawfrag_emit__str(e, "name", "x", 1);
	rawfrag_emit__end_object(e);
	rawfrag_emit__begin_array(e, NULL);
	if (fast) {
		rf_emit__close(e, ']');
		rf_emit__close(e, ']');
		rf_emit__close(e, '}');
	} else {
		rawfrag_emit__end_array(e);
		rawfrag_emit__end_array(e);
		rawfrag_emit__end_object(e);
	}
	rawfrag_emit__u64(e, "a.b", 1);
}

static void test_paths(void **state)
{
	static const char *const names[] = { "pid", "neg", "addr", "none", "comm",
					     "nostr", "cut", "hex", "regs", "args" };
	struct rf_emit_key k[10];
	struct log l = { 0 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = on_field, .end = on_end, .ctx = &l };
	struct rawfrag_emit *e = rawfrag_emit__new_visitor(&v);

	assert_non_null(e);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rf_emit_key__init(&k[i], names[i]), 0);
	describe(e, NULL);
	assert_string_equal(l.buf, want);
	assert_int_equal(rawfrag_emit__visit_status(e), 0);
	memset(&l, 0, sizeof(l));
	rawfrag_emit__reset(e);
	describe(e, k);
	assert_string_equal(l.buf, want);
	for (int i = 0; i < 10; i++)
		rf_emit_key__fini(&k[i]);
	rawfrag_emit__delete(e);
}

static void test_stop(void **state)
{
	struct log l = { .stop_at = 11, .stop_with = 7 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = on_field, .end = on_end, .ctx = &l };
	struct rawfrag_emit *e = rawfrag_emit__new_visitor(&v);
	const char *nl = want;

	assert_non_null(e);
	describe(e, NULL);
	/* the first 11 calls, the 11th (IbsOpData3's start) returning 7, nothing after */
	assert_int_equal(l.calls, 11);
	for (int i = 0; i < 11; i++)
		nl = strchr(nl, '\n') + 1;
	assert_int_equal(l.len, (size_t)(nl - want));
	assert_memory_equal(l.buf, want, l.len);
	assert_int_equal(rawfrag_emit__visit_status(e), 7);
	/* a reset starts a new visit */
	memset(&l, 0, sizeof(l));
	rawfrag_emit__reset(e);
	assert_int_equal(rawfrag_emit__visit_status(e), 0);
	describe(e, NULL);
	assert_string_equal(l.buf, want);
	rawfrag_emit__delete(e);
}

/* deeper than the emitter's stack: the visit stops, no path is made up */
static void test_too_deep(void **state)
{
	struct log l = { 0 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = on_field, .ctx = &l };
	struct rawfrag_emit *e = rawfrag_emit__new_visitor(&v);

	assert_non_null(e);
	for (int i = 0; i < 100; i++)
		rawfrag_emit__begin_object(e, "o");
	rawfrag_emit__u64(e, "x", 1);
	for (int i = 0; i < 100; i++)
		rawfrag_emit__end_object(e);
	assert_int_equal(rawfrag_emit__visit_status(e), -E2BIG);
	assert_int_equal(l.calls, EMIT_MAX_DEPTH - 1);
	assert_null(strstr(l.buf, "F u64"));
	rawfrag_emit__delete(e);
}

/* long names and paths: the path grows */
static void test_long_path(void **state)
{
	struct log l = { 0 };
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = on_field, .ctx = &l };
	struct rawfrag_emit *e = rawfrag_emit__new_visitor(&v);
	char name[301];

	assert_non_null(e);
	memset(name, 'n', 300);
	name[300] = 0;
	for (int i = 0; i < 5; i++)
		rawfrag_emit__begin_object(e, name);
	rawfrag_emit__u64(e, "x", 1);
	assert_int_equal(rawfrag_emit__visit_status(e), 0);
	assert_int_equal(l.calls, 6);
	/* the last line's path: five names, dots, and x */
	assert_non_null(strstr(l.buf, "F u64 d5 i0 x@"));
	assert_true(l.len > 5 * 301 + 2);
	rawfrag_emit__delete(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts),	 cmocka_unit_test(test_paths),
		cmocka_unit_test(test_stop),	 cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_long_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
