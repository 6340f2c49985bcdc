// SPDX-License-Identifier: GPL-2.0
/* rawfrag_out and rawfrag_emit: formatting against snprintf, escaping, buffering. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rawfrag/emit.h>

/* contents of a memory out as a NUL-terminated string (static buffer) */
static const char *mem(struct rawfrag_out *o)
{
	static char buf[1 << 16];
	size_t len;
	const char *p = rawfrag_out__mem(o, &len);

	assert_true(len < sizeof(buf));
	memcpy(buf, p, len);
	buf[len] = 0;
	return buf;
}

static void test_integers(void **state)
{
	static const uint64_t u[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535,
				      4294967295ULL, 4294967296ULL, 1000000000000000000ULL,
				      9999999999999999999ULL, UINT64_MAX };
	static const int64_t s[] = { 0, -1, 1, -10, 123456789, INT64_MIN, INT64_MAX };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	char want[64];

	assert_non_null(o);
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		rawfrag_out__reset(o);
		rawfrag_out__u64(o, u[i]);
		snprintf(want, sizeof(want), "%" PRIu64, u[i]);
		assert_string_equal(mem(o), want);
		rawfrag_out__reset(o);
		rawfrag_out__hex(o, u[i]);
		snprintf(want, sizeof(want), "0x%" PRIx64, u[i]);
		assert_string_equal(mem(o), want);
	}
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		rawfrag_out__reset(o);
		rawfrag_out__s64(o, s[i]);
		snprintf(want, sizeof(want), "%" PRId64, s[i]);
		assert_string_equal(mem(o), want);
	}
	/* random values: every digit pair path */
	srand(1);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ rand();

		v >>= rand() % 64;
		rawfrag_out__reset(o);
		rawfrag_out__u64(o, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		assert_string_equal(mem(o), want);
	}
	rawfrag_out__delete(o);
}

static void test_json_str(void **state)
{
	struct rawfrag_out *o = rawfrag_out__new(-1);

	rawfrag_out__json_str(o, "plain", (size_t)-1);
	assert_string_equal(mem(o), "\"plain\"");
	rawfrag_out__reset(o);
	rawfrag_out__json_str(o, "a\"b\\c\nd\te\x01" "f", (size_t)-1);
	assert_string_equal(mem(o), "\"a\\\"b\\\\c\\nd\\te\\u0001f\"");
	/* valid UTF-8 passes, invalid bytes become \u00XX */
	rawfrag_out__reset(o);
	rawfrag_out__json_str(o, "\xc3\xa9|\xff|\xc3|\xed\xa0\x80", (size_t)-1);
	assert_string_equal(mem(o), "\"\xc3\xa9|\\u00ff|\\u00c3|\\u00ed\\u00a0\\u0080\"");
	/* len limits, and a NUL ends the string early */
	rawfrag_out__reset(o);
	rawfrag_out__json_str(o, "abcdef", 3);
	assert_string_equal(mem(o), "\"abc\"");
	rawfrag_out__reset(o);
	rawfrag_out__json_str(o, "ab\0cd", 5);
	assert_string_equal(mem(o), "\"ab\"");
	rawfrag_out__delete(o);
}

static void build(struct rawfrag_emit *e)
{
	rawfrag_emit__begin_object(e, NULL);
	rawfrag_emit__u64(e, "u", UINT64_MAX);
	rawfrag_emit__s64(e, "s", -5);
	rawfrag_emit__hex(e, "p", 0xffffffff81000000ULL);
	rawfrag_emit__str(e, "c", "swapper/0", (size_t)-1);
	rawfrag_emit__bool(e, "b", true);
	rawfrag_emit__null(e, "n");
	rawfrag_emit__begin_array(e, "a");
	rawfrag_emit__u64(e, NULL, 1);
	rawfrag_emit__u64(e, NULL, 2);
	rawfrag_emit__begin_object(e, NULL);
	rawfrag_emit__bytes(e, "hex", "\x00\xab\x10", 3);
	rawfrag_emit__end_object(e);
	rawfrag_emit__end_array(e);
	rawfrag_emit__begin_object(e, "o");
	rawfrag_emit__end_object(e);
	rawfrag_emit__end_object(e);
}

static void test_emit(void **state)
{
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *e = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);

	assert_non_null(e);
	assert_int_equal(rawfrag_emit__format(e), RAWFRAG_EMIT_JSON);
	assert_ptr_equal(rawfrag_emit__out(e), o);
	build(e);
	assert_string_equal(mem(o),
			    "{\"u\":18446744073709551615,\"s\":-5,\"p\":\"0xffffffff81000000\","
			    "\"c\":\"swapper/0\",\"b\":true,\"n\":null,"
			    "\"a\":[1,2,{\"hex\":\"00ab10\"}],\"o\":{}}");
	rawfrag_emit__delete(e);
	rawfrag_out__reset(o);
	e = rawfrag_emit__new(o, RAWFRAG_EMIT_TEXT);
	build(e);
	assert_string_equal(mem(o), "{u=18446744073709551615 s=-5 p=0xffffffff81000000 "
				    "c=swapper/0 b=true n=null a=[1 2 {hex=00ab10}] o={}}");
	/* reset starts a new top-level value: no separator */
	rawfrag_out__reset(o);
	rawfrag_emit__reset(e);
	rawfrag_emit__u64(e, "x", 1);
	rawfrag_emit__u64(e, "y", 2);
	assert_string_equal(mem(o), "x=1 y=2");
	rawfrag_emit__delete(e);
	rawfrag_out__delete(o);
	assert_null(rawfrag_emit__new(NULL, RAWFRAG_EMIT_JSON));
}

/* Many small writes through a pipe arrive intact and in order. */
static void test_fd_flush(void **state)
{
	int fds[2];
	char *got = malloc(4 << 20);
	size_t total = 0, want = 0;

	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rawfrag_out *o = rawfrag_out__new(fds[1]);

		close(fds[0]);
		for (uint64_t i = 0; i < 200000; i++) {
			rawfrag_out__u64(o, i);
			rawfrag_out__putc(o, '\n');
		}
		rawfrag_out__printf(o, "%s", "end\n");
		_exit(rawfrag_out__flush(o) ? 1 : 0);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = read(fds[0], got + total, (4 << 20) - total);

		if (n <= 0)
			break;
		total += n;
	}
	close(fds[0]);
	char line[32];
	char *p = got;
	for (uint64_t i = 0; i < 200000; i++) {
		int l = snprintf(line, sizeof(line), "%" PRIu64 "\n", i);

		assert_true(want + l <= total);
		assert_memory_equal(p, line, l);
		p += l;
		want += l;
	}
	assert_int_equal(total, want + 4);
	free(got);
}

/* A closed pipe shows up as -EPIPE and stops further writing. */
static void test_epipe(void **state)
{
	int fds[2];
	struct rawfrag_out *o;

	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	o = rawfrag_out__new(fds[1]);
	for (int i = 0; i < 100000; i++)
		rawfrag_out__puts(o, "some text that fills the buffer\n");
	rawfrag_out__flush(o);
	assert_int_equal(rawfrag_out__error(o), -EPIPE);
	rawfrag_out__delete(o);
	close(fds[1]);
}

/* A write bigger than the buffer in memory mode grows it. */
static void test_mem_big(void **state)
{
	struct rawfrag_out *o = rawfrag_out__new(-1);
	size_t n = 3 << 20, len;
	char *big = malloc(n);

	memset(big, 'x', n);
	rawfrag_out__write(o, "a", 1);
	rawfrag_out__write(o, big, n);
	rawfrag_out__printf(o, "%0*d", 300000, 7);
	const char *p = rawfrag_out__mem(o, &len);
	assert_int_equal(len, 1 + n + 300000);
	assert_int_equal(p[0], 'a');
	assert_int_equal(p[n], 'x');
	assert_int_equal(p[len - 1], '7');
	assert_int_equal(rawfrag_out__error(o), 0);
	free(big);
	rawfrag_out__delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers), cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_emit),	 cmocka_unit_test(test_fd_flush),
		cmocka_unit_test(test_epipe),	 cmocka_unit_test(test_mem_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
