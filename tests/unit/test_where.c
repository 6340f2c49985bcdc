// SPDX-License-Identifier: GPL-2.0
/* rawfrag_where: parsing (with errors), and evaluation on JSON field objects. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/where.h>

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
		cmocka_unit_test(test_hostile_json),  cmocka_unit_test(test_ops_numbers),
		cmocka_unit_test(test_ops_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
