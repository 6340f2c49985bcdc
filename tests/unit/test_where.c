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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare),	     cmocka_unit_test(test_strings),
		cmocka_unit_test(test_logic),	     cmocka_unit_test(test_type_errors),
		cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_hostile_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
