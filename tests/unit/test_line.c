// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_line: the text columns against perf script's printf formats
 * ("%16s %5d/%-5d [%03d] %5lu.%06lu: "), built here with snprintf, for edge
 * values (negative ids and cpu, long names, big times, each column alone);
 * the JSON members against snprintf too, with and without TIME/CPU/TID, the
 * time cache across 0.1 s steps, and the raw summary (pad zero or not,
 * length unknown, no RAW); the members kept per task and per CPU against
 * renames, reused ids, tids sharing a slot, big CPUs and times going back.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/line.h>

static const char *mem(struct rawfrag_out *o)
{
	static char buf[4096];
	size_t len;
	const char *p = rawfrag_out__mem(o, &len);

	assert_true(len < sizeof(buf));
	memcpy(buf, p, len);
	buf[len] = 0;
	return buf;
}

static void test_text(void **state)
{
	static const struct {
		int32_t pid, tid, cpu;
		uint64_t time;
		const char *comm;
	} c[] = {
		{ 1, 1, 0, 0, "a" },
		{ 12345, 123456, 7, 1234567891234ULL, "swapper" },
		{ -1, -1, -1, 999999999ULL, "sixteen-chars-xx" },
		{ 2147483647, -2147483647 - 1, 1000, 18446744073709551615ULL,
		  "a-name-longer-than-sixteen-bytes" },
	};
	static const unsigned int sets[] = { 63, 1, 2, 4, 6, 8, 16, 32, 6 | 16 };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	char want[512], *w;

	assert_non_null(o);
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		struct rawfrag_line *l = rawfrag_line__new(o, sets[s]);
		unsigned int f = sets[s];

		assert_non_null(l);
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			struct rawfrag_sample smp = { .pid = (uint32_t)c[i].pid,
						      .tid = (uint32_t)c[i].tid,
						      .cpu = (uint32_t)c[i].cpu, .time = c[i].time };

			rawfrag_out__reset(o);
			rawfrag_line__text_head(l, &smp, c[i].comm, strlen(c[i].comm),
						"  sched:x: ", 11);
			w = want;
			if (f & RAWFRAG_LINE_COMM)
				w += sprintf(w, "%16s ", c[i].comm);
			if ((f & RAWFRAG_LINE_PID) && (f & RAWFRAG_LINE_TID))
				w += sprintf(w, "%5d/%-5d ", c[i].pid, c[i].tid);
			else if (f & (RAWFRAG_LINE_PID | RAWFRAG_LINE_TID))
				w += sprintf(w, "%5d ", f & RAWFRAG_LINE_PID ? c[i].pid : c[i].tid);
			if (f & RAWFRAG_LINE_CPU)
				w += sprintf(w, "[%03d] ", c[i].cpu);
			if (f & RAWFRAG_LINE_TIME)
				w += sprintf(w, "%5" PRIu64 ".%06" PRIu64 ": ", c[i].time / 1000000000,
					     c[i].time % 1000000000 / 1000);
			if (f & RAWFRAG_LINE_EVENT)
				w += sprintf(w, "  sched:x: ");
			assert_string_equal(mem(o), want);
		}
		rawfrag_line__delete(l);
	}
	rawfrag_out__delete(o);
}

static void test_json(void **state)
{
	static const uint64_t times[] = { 5, 99999999, 100000000, 100000001, 1234567891234ULL,
					  1234567899999ULL, 1234600000000ULL, UINT64_MAX };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_line *l = rawfrag_line__new(o, 0);
	uint8_t data[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0 };
	uint8_t mixed[12] = { 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
	struct rawfrag_raw raw = { .data = data, .size = 12 };
	char want[512];

	assert_non_null(l);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		struct rawfrag_sample smp = {
			.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_TID,
			.pid = (uint32_t)(i ? 4242 : -5), .tid = (uint32_t)(i & 1 ? 4242 : 77),
			.cpu = (uint32_t)i, .time = times[i] };

		rawfrag_out__reset(o);
		rawfrag_line__json_head(l, "{\"event\":\"e\"", 12, &smp, "x\"y", 3);
		snprintf(want, sizeof(want),
			 "{\"event\":\"e\",\"time_ns\":%" PRIu64 ",\"cpu\":%zu,\"pid\":%d,\"tid\":%d,\"comm\":\"x\\\"y\"",
			 times[i], i, (int32_t)smp.pid, (int32_t)smp.tid);
		assert_string_equal(mem(o), want);
	}
	{
		struct rawfrag_sample smp = { .sample_type = 0 };

		rawfrag_out__reset(o);
		rawfrag_line__json_head(l, "{", 1, &smp, NULL, 0);
		assert_string_equal(mem(o),
				    "{,\"time_ns\":null,\"cpu\":null,\"pid\":null,\"tid\":null,\"comm\":null");
	}
	rawfrag_out__reset(o);
	rawfrag_line__json_raw(l, &raw, 8);
	assert_string_equal(mem(o), ",\"raw\":{\"size\":12,\"len\":8,\"pad\":4,\"pad_zero\":true},\"fields\":{");
	rawfrag_out__reset(o);
	rawfrag_line__json_raw(l, &raw, 6);
	assert_string_equal(mem(o), ",\"raw\":{\"size\":12,\"len\":6,\"pad\":6,\"pad_zero\":false},\"fields\":{");
	rawfrag_out__reset(o);
	rawfrag_line__json_raw(l, &raw, -1);
	assert_string_equal(mem(o), ",\"raw\":{\"size\":12,\"len\":null,\"pad\":null,\"pad_zero\":null},\"fields\":{");
	rawfrag_out__reset(o);
	rawfrag_line__json_raw(l, &raw, 13); /* longer than the area: not known */
	assert_string_equal(mem(o), ",\"raw\":{\"size\":12,\"len\":null,\"pad\":null,\"pad_zero\":null},\"fields\":{");
	/* pad_zero for every length, pads under and over 8 bytes, areas under 8 */
	for (uint32_t k = 0; k < 24; k++) {
		const uint8_t *d = k < 12 ? data : mixed;
		uint32_t size = k % 12 + 1;

		for (int64_t len = 0; len <= size; len++) {
			struct rawfrag_raw r = { .data = d, .size = size };
			bool zero = true;

			for (uint32_t i = (uint32_t)len; i < size; i++)
				zero &= !d[i];
			snprintf(want, sizeof(want),
				 ",\"raw\":{\"size\":%u,\"len\":%" PRId64 ",\"pad\":%" PRId64
				 ",\"pad_zero\":%s},\"fields\":{",
				 size, len, size - len, zero ? "true" : "false");
			rawfrag_out__reset(o);
			rawfrag_line__json_raw(l, &r, len);
			assert_string_equal(mem(o), want);
		}
	}
	rawfrag_out__reset(o);
	rawfrag_line__json_raw(l, NULL, -1);
	assert_string_equal(mem(o), ",\"raw\":null,\"fields\":{}}\n");
	rawfrag_line__delete(l);
	assert_null(rawfrag_line__new(NULL, 0));
	rawfrag_out__delete(o);
}

static void test_json_kept(void **state)
{
	/* tids 1 and 56 share a slot of the 64 (the tid times 2654435761, top 6 bits) */
	static const struct {
		int32_t pid, tid;
		uint32_t cpu;
		uint64_t time;
		const char *comm;
	} c[] = {
		{ 10, 1, 0, 300000000, "a" },	{ 10, 1, 0, 300000001, "a" },
		{ 11, 56, 3, 300000002, "b" },	{ 10, 1, 3, 300000003, "a" },
		{ 10, 1, 3, 300000004, "renamed" }, { 12, 1, 3, 200000000, "renamed" },
		{ 12, 1, 300, 200000001, "renamed" }, { 12, 1, 4, 399999999, "sixteen-chars-xx" },
		{ 12, 1, 4, 400000000, "sixteen-chars-xy" }, { 12, 1, 4, 5, "seventeen-chars-x" },
		{ 12, 1, 4, 6, "seventeen-chars-y" }, { 11, 56, 300, 7, "b" },
		{ -1, -1, 255, 1234567891234ULL, "q\\" }, { -1, -1, 256, 0, "q\\" },
		{ 12, 1, 4, 8, "ab" }, { 12, 1, 4, 9, "ac" }, { 12, 1, 4, 9, "bc" },
		{ 12, 1, 4, 9, "xbc" }, { 12, 1, 4, 9, "xzc" }, { 12, 1, 4, 9, "xzd" },
		{ 12, 1, 4, 9, "x" }, { 12, 1, 4, 9, "y" }, { 12, 1, 4, 9, "" },
	};
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_line *l = rawfrag_line__new(o, 0);
	char want[512], comm[64];

	assert_non_null(l);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			struct rawfrag_sample smp = {
				.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_TID,
				.pid = (uint32_t)c[i].pid, .tid = (uint32_t)c[i].tid,
				.cpu = c[i].cpu, .time = c[i].time };
			char *w = comm;

			for (const char *s = c[i].comm; *s; s++) {
				if (*s == '\\')
					*w++ = '\\';
				*w++ = *s;
			}
			*w = 0;
			rawfrag_out__reset(o);
			rawfrag_line__json_head(l, "{", 1, &smp, c[i].comm, strlen(c[i].comm));
			snprintf(want, sizeof(want),
				 "{,\"time_ns\":%" PRIu64 ",\"cpu\":%u,\"pid\":%d,\"tid\":%d,\"comm\":\"%s\"",
				 c[i].time, c[i].cpu, c[i].pid, c[i].tid, comm);
			assert_string_equal(mem(o), want);
		}
	}
	rawfrag_line__delete(l);
	rawfrag_out__delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
