// SPDX-License-Identifier: GPL-2.0
/*
 * rawfrag_where: parsing (with errors), evaluation on JSON field objects, and
 * evaluation on a visit of the same fields (rawfrag_where__match_sample()'s
 * path) against the JSON's for every operator at, below and above each value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/where.h>

#include "internal/emit.h"
#include "internal/where.h"

static const char sw[] =
	"{\"common\":{\"common_type\":372,\"common_pid\":17},\"prev_comm\":\"ksoftirqd/1\","
	"\"prev_pid\":17,\"prev_state\":1,\"next_comm\":\"sw\\\"ap\\\\per/0\",\"next_pid\":0,"
	"\"addr\":\"0xffff888100001000\",\"neg\":-5,\"big\":18446744073709551615,"
	"\"ok\":true,\"none\":null,\"arr\":[1,2,{\"x\":\"}\"}],\"s\":\"a,b}\"}";

/* 1, 0, or -1 for an evaluation error; -2 when expr does not compile */
static int run(const char *expr)
{
	struct rawfrag_err err;
	struct rawfrag_where *w = rawfrag_where__new(expr, &err);
	int r;

	if (!w)
		return -2;
	r = rawfrag_where__match(w, sw, strlen(sw), &err);
	if (r < 0)
		assert_non_null(strstr(err.reason, "compared with"));
	rawfrag_where__delete(w);
	return r < 0 ? -1 : r;
}

static void test_compare(void **state)
{
	assert_int_equal(run("prev_state == 1"), 1);
	assert_int_equal(run("prev_state != 1"), 0);
	assert_int_equal(run("prev_pid > 16 && prev_pid <= 17"), 1);
	assert_int_equal(run("prev_pid < 17"), 0);
	assert_int_equal(run("prev_pid >= 18"), 0);
	assert_int_equal(run("neg < -4"), 1);
	assert_int_equal(run("neg == -5"), 1);
	assert_int_equal(run("big == 0xffffffffffffffff"), 1);
	assert_int_equal(run("big > 18446744073709551614"), 1);
	assert_int_equal(run("common.common_pid == 17"), 1);
	assert_int_equal(run("common.common_type == 373"), 0);
	assert_int_equal(run("addr == 0xffff888100001000"), 1);
	assert_int_equal(run("addr > 0xffff888100000fff && addr < 0xffff888100001001"), 1);
	assert_int_equal(run("ok == true"), 1);
	assert_int_equal(run("ok != true"), 0);
	assert_int_equal(run("none == null"), 1);
	assert_int_equal(run("prev_pid == null"), 0);
	assert_int_equal(run("prev_pid != null"), 1);
}

static void test_strings(void **state)
{
	assert_int_equal(run("prev_comm == \"ksoftirqd/1\""), 1);
	assert_int_equal(run("prev_comm == \"ksoftirqd/*\""), 1);
	assert_int_equal(run("prev_comm != \"ksoftirqd/*\""), 0);
	assert_int_equal(run("prev_comm == \"ksoftirqd/[0-9]\""), 1);
	assert_int_equal(run("prev_comm == \"kworker*\""), 0);
	assert_int_equal(run("prev_comm < \"l\" && prev_comm > \"k\""), 1);
	/* escapes in the JSON and in the literal */
	assert_int_equal(run("next_comm == \"sw\\\"ap\\\\per/0\""), 1);
	assert_int_equal(run("s == \"a,b}\""), 1);
	/* a value with braces inside an array does not end the object early */
	assert_int_equal(run("s == \"a,b*\" && next_pid == 0"), 1);
}

static void test_logic(void **state)
{
	assert_int_equal(run("prev_state == 1 && next_comm == \"sw*\""), 1);
	assert_int_equal(run("prev_state == 2 || next_pid == 0"), 1);
	assert_int_equal(run("!(prev_state == 2) && !(next_pid != 0)"), 1);
	assert_int_equal(run("!prev_state == 1"), 0);
	assert_int_equal(run("(prev_state == 2 || prev_state == 1) && (next_pid == 1 || neg == -5)"), 1);
	/* absent fields are false, whatever the operator */
	assert_int_equal(run("nosuch == 1"), 0);
	assert_int_equal(run("nosuch != 1"), 0);
	assert_int_equal(run("!(nosuch == 1)"), 1);
}

static void test_type_errors(void **state)
{
	assert_int_equal(run("prev_comm == 1"), -1);
	assert_int_equal(run("prev_pid == \"17\""), -1);
	assert_int_equal(run("common == 1"), -1);
	assert_int_equal(run("arr == 1"), -1);
	assert_int_equal(run("ok == 1"), -1);
}

static void test_syntax_errors(void **state)
{
	static const char *const bad[] = {
		"", "prev_pid", "prev_pid ==", "prev_pid = 1", "== 1", "prev_pid == 1 &&",
		"(prev_pid == 1", "prev_pid == 1)", "prev_pid == \"x", "prev_pid == 1x",
		"prev_pid == 99999999999999999999999", "prev_comm < \"k*\"", "ok < true",
		"a. == 1", ".a == 1", "prev_pid == 1 & next_pid == 0", "prev_pid == abc",
	};
	struct rawfrag_err err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rawfrag_where *w = rawfrag_where__new(bad[i], &err);

		if (w)
			fail_msg("'%s' compiled", bad[i]);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(err.err, -EINVAL);
		assert_non_null(strstr(err.reason, "--where: "));
		assert_non_null(strstr(err.reason, "column"));
	}
	/* deep nesting is refused, not a stack overflow */
	char deep[4096];
	size_t n = 0;

	for (int i = 0; i < 1000; i++)
		deep[n++] = '(';
	strcpy(deep + n, "a == 1");
	assert_null(rawfrag_where__new(deep, &err));
}

static void test_unseen(void **state)
{
	struct rawfrag_err err;
	struct rawfrag_where *w = rawfrag_where__new("prev_pid == 1 || typo == 2", &err);

	assert_non_null(w);
	assert_string_equal(rawfrag_where__unseen_field(w), "prev_pid");
	assert_int_equal(rawfrag_where__match(w, sw, strlen(sw), &err), 0);
	assert_string_equal(rawfrag_where__unseen_field(w), "typo");
	assert_int_equal(rawfrag_where__match(w, "{\"typo\":2}", 10, &err), 1);
	assert_null(rawfrag_where__unseen_field(w));
	rawfrag_where__delete(w);
	rawfrag_where__delete(NULL);
}

static void test_hostile_json(void **state)
{
	static const char *const bad[] = { "", "{", "{\"a\"", "{\"a\":", "{\"a\":\"x", "[1]",
					   "{\"a\":1,", "{\"a\":{\"b\":}", "{\"a\":]}" };
	struct rawfrag_err err;
	struct rawfrag_where *w = rawfrag_where__new("a == 1 || a.b == 1", &err);

	assert_non_null(w);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_true(rawfrag_where__match(w, bad[i], strlen(bad[i]), &err) <= 1);
	rawfrag_where__delete(w);
}

/*
 * One description, the sw object's fields and more: non-UTF-8 and UTF-8
 * strings, bytes, a string that reads as hex, a name given twice (the first
 * counts), nested objects, an object in an array, a name holding a dot.
 */
static void describe(struct rawfrag_emit *e)
{
	static const uint8_t raw[] = { 0x0a, 0xbc };

	rawfrag_emit__begin_object(e, "common");
	rawfrag_emit__u64(e, "common_type", 372);
	rawfrag_emit__u64(e, "common_pid", 17);
	rawfrag_emit__end_object(e);
	rawfrag_emit__str(e, "prev_comm", "ksoftirqd/1", (size_t)-1);
	rawfrag_emit__u64(e, "prev_pid", 17);
	rawfrag_emit__u64(e, "prev_state", 1);
	rawfrag_emit__str(e, "next_comm", "sw\"ap\\per/0", (size_t)-1);
	rawfrag_emit__u64(e, "next_pid", 0);
	rawfrag_emit__hex(e, "addr", 0xffff888100001000ULL);
	rawfrag_emit__s64(e, "neg", -5);
	rawfrag_emit__u64(e, "big", UINT64_MAX);
	rawfrag_emit__bool(e, "ok", true);
	rawfrag_emit__null(e, "none");
	rawfrag_emit__begin_array(e, "arr");
	rawfrag_emit__u64(e, NULL, 1);
	rawfrag_emit__u64(e, NULL, 2);
	rawfrag_emit__begin_object(e, NULL);
	rawfrag_emit__str(e, "x", "}", 1);
	rawfrag_emit__end_object(e);
	rawfrag_emit__end_array(e);
	rawfrag_emit__str(e, "s", "a,b}", (size_t)-1);
	rawfrag_emit__str(e, "latin", "\xff\xfe" "ab\x01", (size_t)-1);
	rawfrag_emit__str(e, "utf8", "\xc3\xa9t\xc3\xa9", (size_t)-1);
	rawfrag_emit__str(e, "nostr", NULL, 0);
	rawfrag_emit__bytes(e, "raw", raw, sizeof(raw));
	rawfrag_emit__str(e, "hexs", "0x1f", (size_t)-1);
	rawfrag_emit__str(e, "nothex", "0x1g", (size_t)-1);
	rawfrag_emit__begin_object(e, "o");
	rawfrag_emit__begin_object(e, "p");
	rawfrag_emit__u64(e, "q", 5);
	rawfrag_emit__end_object(e);
	rawfrag_emit__u64(e, "r", 6);
	rawfrag_emit__end_object(e);
	rawfrag_emit__begin_object(e, "o2");
	rawfrag_emit__end_object(e);
	rawfrag_emit__begin_object(e, "d");
	rawfrag_emit__u64(e, "x", 1);
	rawfrag_emit__end_object(e);
	rawfrag_emit__u64(e, "a.b", 3);
	rawfrag_emit__begin_object(e, "a");
	rawfrag_emit__u64(e, "c", 4);
	rawfrag_emit__end_object(e);
	rawfrag_emit__u64(e, "prev_pid", 99);
	rawfrag_emit__begin_object(e, "o");
	rawfrag_emit__u64(e, "r", 7);
	rawfrag_emit__end_object(e);
	/* found in the second "d" only: find() looks in the first */
	rawfrag_emit__begin_object(e, "d");
	rawfrag_emit__u64(e, "q", 2);
	rawfrag_emit__end_object(e);
}

static int visit_describe(void *arg, const struct rawfrag_visitor *v)
{
	bool skip = *(bool *)arg;
	struct rawfrag_emit *e = rawfrag_emit__new_visitor(v);
	int ret;

	assert_non_null(e);
	assert_int_equal(rf_emit__set_visitor(e, v, skip), 0);
	describe(e);
	ret = rawfrag_emit__visit_status(e);
	rawfrag_emit__delete(e);
	return ret;
}

/* every path, operator and value: the visit's answer is the JSON's */
static void test_visit_as_json(void **state)
{
	static const char *const paths[] = {
		"common", "common.common_type", "common.common_pid", "common.nosuch", "prev_comm",
		"prev_pid", "prev_state", "next_comm", "next_pid", "addr", "neg", "big", "ok",
		"none", "arr", "arr.x", "s", "latin", "utf8", "nostr", "raw", "hexs", "nothex",
		"o", "o.p", "o.p.q", "o.r", "o.p.q.z", "o2", "o2.q", "d.x", "d.q", "a.b", "a.c", "nosuch",
		"prev_pid.x",
	};
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	static const char *const vals[] = {
		"0", "1", "2", "4", "5", "6", "16", "17", "18", "99", "372", "-4", "-5", "-6",
		"0xffff888100000fff", "0xffff888100001000", "0xffff888100001001", "30", "31",
		"0x1f", "0x20", "18446744073709551614", "18446744073709551615", "-18446744073709551615",
		"\"ksoftirqd/0\"", "\"ksoftirqd/1\"", "\"ksoftirqd/2\"", "\"ksoft*\"",
		"\"sw\\\"ap\\\\per/0\"", "\"a,b}\"", "\"??ab\x01\"", "\"??ab\x02\"",
		"\"\xc3\xa9t\xc3\xa9\"", "\"\xc3\xa9*\"", "\"0abc\"", "\"0abd\"", "\"0x1f\"",
		"\"0xffff888100001000\"", "\"0x*\"", "\"\"", "\"[a-z]*\"", "true", "false",
		"null",
	};
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *je = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
	const char *json;
	size_t len;
	int n = 0;

	assert_non_null(je);
	rawfrag_out__putc(o, '{');
	describe(je);
	rawfrag_out__putc(o, '}');
	json = rawfrag_out__mem(o, &len);
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		for (size_t k = 0; k < 6; k++) {
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				char expr[256];
				struct rawfrag_err e1, e2, e3;
				struct rawfrag_where *w1, *w2, *w3;
				bool skip = false, noskip = false;
				int r1, r2, r3;

				snprintf(expr, sizeof(expr), "%s %s %s || (prev_pid == 17 && %s %s %s)",
					 paths[p], ops[k], vals[v], paths[p], ops[k], vals[v]);
				expr[strcspn(expr, "|") - 1] = v & 1 ? ' ' : '\0';
				w1 = rawfrag_where__new(expr, &e1);
				if (!w1)
					continue; /* a glob or a literal the operator does not take */
				w2 = rawfrag_where__new(expr, &e2);
				w3 = rawfrag_where__new(expr, &e3);
				assert_non_null(w2);
				assert_non_null(w3);
				memset(&e1, 0, sizeof(e1));
				memset(&e2, 0, sizeof(e2));
				memset(&e3, 0, sizeof(e3));
				skip = true;
				r1 = rawfrag_where__match(w1, json, len, &e1);
				r2 = rf_where__match_visit(w2, visit_describe, &skip, true, &e2);
				r3 = rf_where__match_visit(w3, visit_describe, &noskip, false, &e3);
				if (r1 != r2 || r1 != r3 || strcmp(e1.reason, e2.reason) ||
				    strcmp(e1.reason, e3.reason))
					fail_msg("'%s': JSON %d '%s', visit %d '%s', no skip %d '%s'",
						 expr, r1, e1.reason, r2, e2.reason, r3, e3.reason);
				assert_true((rawfrag_where__unseen_field(w1) == NULL) ==
					    (rawfrag_where__unseen_field(w2) == NULL));
				if (rawfrag_where__unseen_field(w1))
					assert_string_equal(rawfrag_where__unseen_field(w1),
							    rawfrag_where__unseen_field(w2));
				n += r1 == 1;
				rawfrag_where__delete(w1);
				rawfrag_where__delete(w2);
				rawfrag_where__delete(w3);
			}
		}
	}
	/* the comparisons both ways, not all false */
	assert_true(n > 500);
	rawfrag_emit__delete(je);
	rawfrag_out__delete(o);
}

/*
 * ---- every operator at its boundary: a property over generated cases ----
 * For each field value and a literal one below, equal and one above it, each of
 * == != < <= > >= must agree with a reference computed here from the two
 * values alone (and "!(...)" with its negation). Numbers as JSON numbers
 * (signed and unsigned, up to the 64-bit limits), as the JSON's "0x..." hex
 * strings, literals in decimal and hex; strings ordered by bytes; globs for
 * == and != against a matcher written here.
 */
static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=" };

static bool ref_op(int op, int c)
{
	static const bool table[6][3] = {
		/* c < 0, c == 0, c > 0 */
		{ false, true, false }, { true, false, true }, { true, false, false },
		{ true, true, false },	{ false, false, true }, { false, true, true },
	};
	return table[op][c < 0 ? 0 : c == 0 ? 1 : 2];
}

/* v in decimal ("-" and up to 20 digits) or, for v >= 0, as 0x hex */
static void fmt128(char *buf, __int128 v, bool hex)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	char tmp[48];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[u % (hex ? 16 : 10)];
		u /= hex ? 16 : 10;
	} while (u);
	if (v < 0)
		*buf++ = '-';
	if (hex) {
		*buf++ = '0';
		*buf++ = 'x';
	}
	while (n)
		*buf++ = tmp[--n];
	*buf = 0;
}

/* 1 match, 0 not, -1 error/compile failure */
static int match1(const char *expr, const char *json)
{
	struct rawfrag_err err;
	struct rawfrag_where *w = rawfrag_where__new(expr, &err);
	int r;

	if (!w)
		fail_msg("'%s' does not compile: %s", expr, err.reason);
	r = rawfrag_where__match(w, json, strlen(json), &err);
	rawfrag_where__delete(w);
	return r;
}

static int checks;

static void expect(const char *field, int op, const char *lit, const char *json, bool want)
{
	char expr[256];
	int got;

	snprintf(expr, sizeof(expr), "%s %s %s", field, op_names[op], lit);
	got = match1(expr, json);
	if (got != want)
		fail_msg("%s on %s: expected %d, got %d", expr, json, want, got);
	snprintf(expr, sizeof(expr), "!(%s %s %s)", field, op_names[op], lit);
	got = match1(expr, json);
	if (got != !want)
		fail_msg("%s on %s: expected %d, got %d", expr, json, !want, got);
	checks++;
}

static void test_ops_numbers(void **state)
{
	const __int128 lim = (__int128)UINT64_MAX;
	const __int128 vals[] = {
		-(__int128)INT64_MAX - 1, -(__int128)INT32_MAX - 2, -(__int128)INT32_MAX - 1,
		-256, -1, 0, 1, 127, 128, 255, INT32_MAX, (__int128)INT32_MAX + 1,
		(__int128)UINT32_MAX, (__int128)UINT32_MAX + 1, INT64_MAX, (__int128)INT64_MAX + 1,
		lim - 1, lim,
	};

	checks = 0;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (int d = -1; d <= 1; d++) {
			__int128 v = vals[i], l = v + d;
			char json[128], num[64], lit[64], hex[64];
			int c = v < l ? -1 : v > l;

			if (l > lim || l < -lim)
				continue;
			fmt128(num, v, false);
			for (int hexlit = 0; hexlit < 2; hexlit++) {
				if (hexlit && l < 0)
					continue;
				fmt128(lit, l, hexlit);
				for (int op = 0; op < 6; op++) {
					/* a JSON number: signed and unsigned fields */
					snprintf(json, sizeof(json), "{\"pid\":3,\"f\":%s}", num);
					expect("f", op, lit, json, ref_op(op, c));
					/* nested, as "common" fields are */
					snprintf(json, sizeof(json), "{\"c\":{\"f\":%s},\"f\":\"x\"}", num);
					expect("c.f", op, lit, json, ref_op(op, c));
					/* the JSON's hex strings (addresses, registers) */
					if (v < 0)
						continue;
					fmt128(hex, v, true);
					snprintf(json, sizeof(json), "{\"h\":\"%s\"}", hex);
					expect("h", op, lit, json, ref_op(op, c));
				}
			}
		}
	}
	/* a field the sample lacks: false under every operator */
	for (int op = 0; op < 6; op++) {
		char expr[64];

		snprintf(expr, sizeof(expr), "nosuch %s 0", op_names[op]);
		assert_int_equal(match1(expr, "{\"f\":0}"), 0);
	}
	print_message("# %d number cases x 2 (negated too)\n", checks);
	assert_true(checks > 500);
}

/* glob(7) without classes: * ? [...] [!...] */
static bool glob_ref(const char *p, const char *s)
{
	if (!*p)
		return !*s;
	if (*p == '*')
		return glob_ref(p + 1, s) || (*s && glob_ref(p, s + 1));
	if (!*s)
		return false;
	if (*p == '?')
		return glob_ref(p + 1, s + 1);
	if (*p == '[') {
		bool neg = p[1] == '!', in = false;
		const char *q = p + 1 + neg;

		for (; *q && *q != ']'; q++)
			if (q[1] == '-' && q[2] && q[2] != ']') {
				in |= *s >= q[0] && *s <= q[2];
				q += 2;
			} else {
				in |= *s == *q;
			}
		return *q && in != neg && glob_ref(q + 1, s + 1);
	}
	return *p == *s && glob_ref(p + 1, s + 1);
}

static void test_ops_strings(void **state)
{
	static const char *const strs[] = { "",	   "a",	  "ab",	 "abc",	  "abd",
					    "abb", "abcd", "b",	 "B",	  "ksoftirqd/1",
					    "a b", "~",	   "0",	 "ab\\\\c" };
	static const char *const globs[] = { "a*",     "*c",	 "?bc",	 "[ab]bc", "ab[!c]",
					     "*",      "a?",	 "[0-9]", "k*/[0-9]",
					     "*b*",    "[a-c]*d" };
	char json[128], lit[64];

	checks = 0;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		snprintf(json, sizeof(json), "{\"n\":1,\"s\":\"%s\"}", strs[i]);
		for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++) {
			int c = strcmp(strs[i], strs[j]);

			snprintf(lit, sizeof(lit), "\"%s\"", strs[j]);
			for (int op = 0; op < 6; op++)
				expect("s", op, lit, json, ref_op(op, c));
		}
		for (size_t j = 0; j < sizeof(globs) / sizeof(globs[0]); j++) {
			bool m = glob_ref(globs[j], strs[i]);

			snprintf(lit, sizeof(lit), "\"%s\"", globs[j]);
			expect("s", 0, lit, json, m);
			expect("s", 1, lit, json, !m);
		}
	}
	print_message("# %d string and glob cases x 2 (negated too)\n", checks);
	assert_true(checks > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare),	     cmocka_unit_test(test_strings),
		cmocka_unit_test(test_logic),	     cmocka_unit_test(test_type_errors),
		cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_hostile_json), cmocka_unit_test(test_visit_as_json),
		cmocka_unit_test(test_ops_numbers), cmocka_unit_test(test_ops_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
