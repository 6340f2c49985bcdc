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

#include "internal/emit.h"

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

/*
 * Long names are scanned 8 bytes at a time: one byte that needs a look, at
 * every place in a 24-byte name, is escaped as when it is alone.
 */
static void test_json_str_words(void **state)
{
	static const char *const odd[] = { "\"", "\\", "\n", "\x1f", "\x01", "\xc3\xa9", "\xff",
					   "\x7f", " " };
	static const char *const want[] = { "\\\"", "\\\\", "\\n", "\\u001f", "\\u0001",
					    "\xc3\xa9", "\\u00ff", "\x7f", " " };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	char in[64], exp[96];

	for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
		for (int at = 0; at < 24; at++) {
			snprintf(in, sizeof(in), "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwx", odd[k],
				 23 - at, "ABCDEFGHIJKLMNOPQRSTUVW");
			snprintf(exp, sizeof(exp), "\"%.*s%s%.*s\"", at, "abcdefghijklmnopqrstuvwx",
				 want[k], 23 - at, "ABCDEFGHIJKLMNOPQRSTUVW");
			rawfrag_out__reset(o);
			rawfrag_out__json_str(o, in, (size_t)-1);
			assert_string_equal(mem(o), exp);
		}
	}
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
/*
 * The one formatter (internal/dec.h) against snprintf at every digit count:
 * 10^k - 1, 10^k, 10^k + 1 and pseudo-random values, decimal both signs, hex
 * in both cases (16^k boundaries).
 */
static void test_formatter(void **state)
{
	uint64_t x = 88172645463325252ULL;
	char got[64], want[64];

	for (int i = 0; i < 4000; i++) {
		uint64_t v;
		int k = i % 20;
		uint64_t p10 = 1;

		for (int j = 0; j < k; j++)
			p10 *= 10;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		switch (i / 20 % 5) {
		case 0: v = p10 - 1; break;
		case 1: v = p10; break;
		case 2: v = p10 + 1; break;
		case 3: v = x >> (i % 64); break;
		default: v = ((uint64_t)1 << (4 * (i % 16))) - (i & 1); break;
		}
		memset(got, 'Z', sizeof(got));
		*rf_put_u64(got, v) = 0;
		snprintf(want, sizeof(want), "%" PRIu64, v);
		assert_string_equal(got, want);
		got[32] = 0;
		assert_string_equal(rf_dec_back(got + 32, v), want);
		*rf_put_s64(got, (int64_t)v) = 0;
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
		assert_string_equal(got, want);
		*rf_put_hexc(got, v, false) = 0;
		snprintf(want, sizeof(want), "%" PRIx64, v);
		assert_string_equal(got, want);
		*rf_put_hexc(got, v, true) = 0;
		snprintf(want, sizeof(want), "%" PRIX64, v);
		assert_string_equal(got, want);
	}
}

/* the emitter's pre-encoded keys give the bytes of its public calls, both formats */
static void test_emit_keys(void **state)
{
	static const char *const names[] = { "pid", "prev_comm", "a\"b\\c\n",
					     "a_name_well_past_thirty_two_bytes_long_x" };
	struct rawfrag_out *a = rawfrag_out__new(-1), *b = rawfrag_out__new(-1);
	struct rf_emit_key keys[4];

	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rf_emit_key__init(&keys[i], names[i]), 0);
	for (int fmt = RAWFRAG_EMIT_TEXT; fmt <= RAWFRAG_EMIT_JSON; fmt++) {
		struct rawfrag_emit *ea = rawfrag_emit__new(a, fmt), *eb = rawfrag_emit__new(b, fmt);
		static const uint8_t bytes[] = { 0, 0xab, 0x10 };
		char *s;

		assert_non_null(ea);
		assert_non_null(eb);
		rawfrag_out__reset(a);
		rawfrag_out__reset(b);
		rawfrag_emit__begin_object(ea, NULL);
		rawfrag_emit__begin_object(eb, NULL);
		for (int i = 0; i < 4; i++) {
			rawfrag_emit__u64(ea, names[i], UINT64_MAX - i);
			rf_emit__u64k(eb, &keys[i], UINT64_MAX - i);
			rawfrag_emit__s64(ea, names[i], INT64_MIN + i);
			rf_emit__s64k(eb, &keys[i], INT64_MIN + i);
			rawfrag_emit__hex(ea, names[i], 0xffffULL << (4 * i));
			rf_emit__hexk(eb, &keys[i], 0xffffULL << (4 * i));
			rawfrag_emit__null(ea, names[i]);
			rf_emit__nullk(eb, &keys[i]);
			rawfrag_emit__str(ea, names[i], "x\"y", 3);
			rf_emit__strk(eb, &keys[i], "x\"y", 3);
			rawfrag_emit__bytes(ea, names[i], bytes, sizeof(bytes));
			rf_emit__bytesk(eb, &keys[i], bytes, sizeof(bytes));
			rawfrag_emit__begin_array(ea, names[i]);
			rf_emit__openk(eb, &keys[i], '[');
			rawfrag_emit__u64(ea, NULL, 7);
			rf_emit__u64k(eb, NULL, 7);
			rawfrag_emit__u64(ea, NULL, 8);
			rf_emit__u64k(eb, NULL, 8);
			rawfrag_emit__end_array(ea);
			rf_emit__close(eb, ']');
		}
		rawfrag_emit__end_object(ea);
		rf_emit__close(eb, '}');
		s = strdup(mem(a));
		assert_non_null(s);
		assert_string_equal(mem(b), s);
		if (fmt == RAWFRAG_EMIT_JSON)
			assert_non_null(strstr(s, "{\"pid\":18446744073709551615,\"pid\":-9223372036854775808,\"pid\":\"0xffff\""));
		else
			assert_non_null(strstr(s, "{pid=18446744073709551615 pid=-9223372036854775808 pid=0xffff"));
		free(s);
		rawfrag_emit__delete(ea);
		rawfrag_emit__delete(eb);
	}
	for (int i = 0; i < 4; i++)
		rf_emit_key__fini(&keys[i]);
	rawfrag_out__delete(a);
	rawfrag_out__delete(b);
}

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
		cmocka_unit_test(test_json_str_words),
		cmocka_unit_test(test_emit),	 cmocka_unit_test(test_fd_flush),
		cmocka_unit_test(test_epipe),	 cmocka_unit_test(test_mem_big),
		cmocka_unit_test(test_formatter), cmocka_unit_test(test_emit_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
