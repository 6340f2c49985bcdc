// SPDX-License-Identifier: GPL-2.0
/*
 * The generic RAW rules (rawfrag_check_raw) on samples built in memory: each
 * violation kind, the figures (size/pad histograms, zero/stale pad, empty), and
 * strict. One sample goes through the real parser to tie the two together.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rawfrag/sample.h>
#include <rawfrag/check.h>
#include <rawfrag/writer.h>
#include "internal/check_sink.h"
#include "fixture.h"

#define MAX_FOUND 16

struct found {
	int n;
	const char *kind[MAX_FOUND];
	enum rawfrag_severity sev[MAX_FOUND];
	int64_t raw_off[MAX_FOUND];
	char msg[MAX_FOUND][256];
};

static void collect(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
		    const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct found *f = sink->ctx;

	assert_true(f->n < MAX_FOUND);
	f->kind[f->n] = kind;
	f->sev[f->n] = sev;
	f->raw_off[f->n] = raw_off;
	vsnprintf(f->msg[f->n], sizeof(f->msg[0]), fmt, ap);
	f->n++;
}

struct fixture {
	uint8_t buf[256];
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_check_evstats st;
	struct rawfrag_check_sink sink;
	struct found found;
};

/*
 * Layout of a TID|TIME|CPU|RAW sample: header 8, tid 8, time 8, cpu 8, raw_size
 * at 32, payload at 36 (the 4 mod 8 offset the kernel gives RAW).
 */
#define RAW_OFF 36

static struct fixture *fx_new(bool strict)
{
	struct fixture *f = calloc(1, sizeof(*f));

	rawfrag_check_sink__init(&f->sink, strict, &f->st);
	f->sink.report = collect;
	f->sink.ctx = &f->found;
	return f;
}

/* A sample whose raw area holds payload[0..n) and is raw_size long. */
static void fx_sample(struct fixture *f, const void *payload, uint32_t n, uint32_t raw_size)
{
	memset(f->buf, 0, sizeof(f->buf));
	memcpy(f->buf + 32, &raw_size, 4);
	memcpy(f->buf + RAW_OFF, payload, n);
	f->rec.type = PERF_RECORD_SAMPLE;
	f->rec.size = (uint16_t)(RAW_OFF + raw_size);
	f->rec.data = f->buf;
	f->smp.raw_size = raw_size;
	f->smp.raw_data = f->buf + RAW_OFF;
	f->smp.raw_offset = RAW_OFF;
	f->smp.end_offset = f->rec.size;
	f->found.n = 0;
	f->sink.nr_err = f->sink.nr_warn = 0;
}

static int fx_check(struct fixture *f, int64_t len)
{
	return rawfrag_check_raw(&f->rec, &f->smp, len, &f->sink);
}

static void assert_found(struct fixture *f, const char *kind, enum rawfrag_severity sev)
{
	for (int i = 0; i < f->found.n; i++)
		if (!strcmp(f->found.kind[i], kind) && f->found.sev[i] == sev)
			return;
	fail_msg("expected finding %s (sev %d), got %d findings (first: %s)", kind, sev,
		 f->found.n, f->found.n ? f->found.kind[0] : "-");
}

static const uint8_t payload[64] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28 };

static void test_clean(void **state)
{
	struct fixture *f = fx_new(false);

	fx_sample(f, payload, 12, 12);
	assert_int_equal(fx_check(f, 12), 0);
	assert_int_equal(f->found.n, 0);
	assert_int_equal(f->st.raw_samples, 1);
	assert_int_equal(f->st.raw_bytes, 12);
	assert_int_equal(f->st.size_hist[3], 1); /* 12 in [8,15] */
	assert_int_equal(f->st.pad_hist[0], 1);
	assert_int_equal(f->st.pad_zero, 1);
	assert_int_equal(f->st.pad_stale, 0);
	free(f);
}

static void test_pad_zero_and_stale(void **state)
{
	struct fixture *f = fx_new(false);
	uint8_t stale[20];

	/* true length 9, 3 pad bytes left zero */
	fx_sample(f, payload, 9, 12);
	assert_int_equal(fx_check(f, 9), 0);
	assert_int_equal(f->found.n, 0);
	assert_int_equal(f->st.pad_hist[3], 1);
	assert_int_equal(f->st.pad_zero, 1);

	/* true length 13, pad 7 bytes, two of them stale */
	memcpy(stale, payload, 20);
	memset(stale + 13, 0, 7);
	stale[15] = 0xaa;
	stale[19] = 0x55;
	fx_sample(f, stale, 20, 20);
	assert_int_equal(fx_check(f, 13), 0); /* a warning, not an error */
	assert_found(f, "pad_nonzero", RAWFRAG_SEV_WARN);
	assert_int_equal(f->found.raw_off[0], 15);
	assert_non_null(strstr(f->found.msg[0], "2 of 7 pad bytes"));
	assert_int_equal(f->sink.nr_warn, 1);
	assert_int_equal(f->st.pad_hist[7], 1);
	assert_int_equal(f->st.pad_stale, 1);
	assert_int_equal(f->st.pad_zero, 1);
	free(f);

	/* strict: the same stale pad is an error */
	f = fx_new(true);
	fx_sample(f, stale, 20, 20);
	assert_int_equal(fx_check(f, 13), 1);
	assert_found(f, "pad_nonzero", RAWFRAG_SEV_ERROR);
	free(f);
}

/*
 * Every pad length 1..7 with a stale byte at every position of the pad, alone: the
 * first pad byte, the last, and each between must be found, counted once, and named
 * by its raw offset; the same pad all zero is counted as zero. Raw areas of 4 bytes
 * (shorter than one 8-byte word; pads 1..3 leave a payload), 12 and 68 bytes take
 * different paths.
 */
static void test_pad_every_position(void **state)
{
	static const uint32_t sizes[] = { 4, 12, 68 };
	struct fixture *f = fx_new(false);
	uint8_t raw[80];
	int cases = 0;

	for (unsigned int l = 0; l < sizeof(sizes) / sizeof(sizes[0]); l++) {
		for (uint32_t pad = 1; pad <= 7 && pad < sizes[l]; pad++) {
			uint32_t size = sizes[l], len = size - pad;

			for (uint32_t pos = 0; pos < pad; pos++) {
				memset(raw, 0x11, sizeof(raw)); /* payload bytes all non-zero */
				memset(raw + len, 0, pad);
				raw[len + pos] = 0x80 >> pos;
				memset(&f->st, 0, sizeof(f->st));
				fx_sample(f, raw, size, size);
				assert_int_equal(fx_check(f, len), 0);
				if (f->found.n != 1 || strcmp(f->found.kind[0], "pad_nonzero") ||
				    f->found.raw_off[0] != (int64_t)(len + pos))
					fail_msg("size %u pad %u stale at pad+%u: %d findings, first %s at %lld",
						 size, pad, pos, f->found.n,
						 f->found.n ? f->found.kind[0] : "-",
						 f->found.n ? (long long)f->found.raw_off[0] : -1LL);
				assert_non_null(strstr(f->found.msg[0], "1 of"));
				assert_int_equal(f->st.pad_stale, 1);
				assert_int_equal(f->st.pad_zero, 0);
				assert_int_equal(f->st.pad_hist[pad], 1);
				cases++;
			}
			/* the same pad all zero, the payload before it all non-zero */
			memset(raw, 0x11, sizeof(raw));
			memset(raw + len, 0, pad);
			memset(&f->st, 0, sizeof(f->st));
			fx_sample(f, raw, size, size);
			assert_int_equal(fx_check(f, len), 0);
			assert_int_equal(f->found.n, 0);
			assert_int_equal(f->st.pad_zero, 1);
		}
	}
	/* 4 bytes: pads 1..3 (6 positions); 12 and 68 bytes: pads 1..7 (28 each) */
	assert_int_equal(cases, 6 + 28 + 28);
	free(f);
}

static void test_align(void **state)
{
	struct fixture *f = fx_new(false);

	fx_sample(f, payload, 16, 16);
	assert_int_equal(fx_check(f, -1), 1);
	assert_found(f, "raw_size_align", RAWFRAG_SEV_ERROR);
	assert_int_equal(f->st.pad_unknown, 1);
	assert_int_equal(f->st.size_hist[4], 1);
	free(f);
}

static void test_outside_and_trailing(void **state)
{
	struct fixture *f = fx_new(false);

	fx_sample(f, payload, 28, 28);
	f->rec.size = 56; /* raw needs 36 + 28 = 64 */
	assert_int_equal(fx_check(f, -1), 1);
	assert_found(f, "raw_outside", RAWFRAG_SEV_ERROR);

	fx_sample(f, payload, 12, 12);
	f->rec.size = 56; /* 8 bytes after RAW that no field explains */
	assert_int_equal(fx_check(f, 12), 1);
	assert_found(f, "raw_trailing", RAWFRAG_SEV_ERROR);
	free(f);
}

static void test_empty(void **state)
{
	struct fixture *f = fx_new(false);
	static const uint8_t zero[4], junk[4] = { 0xde, 0xad, 0, 0 };

	fx_sample(f, zero, 4, 4);
	assert_int_equal(fx_check(f, 0), 0);
	assert_int_equal(f->found.n, 0);
	assert_int_equal(f->st.empty, 1);
	assert_int_equal(f->st.pad_hist[4], 1);

	fx_sample(f, junk, 4, 4);
	assert_int_equal(fx_check(f, -1), 0);
	assert_found(f, "raw_empty_nonzero", RAWFRAG_SEV_WARN);
	assert_int_equal(f->st.empty, 1);
	free(f);
}

static void test_pad_range(void **state)
{
	struct fixture *f = fx_new(false);

	fx_sample(f, payload, 20, 20);
	assert_int_equal(fx_check(f, 21), 1); /* length beyond raw_size */
	assert_found(f, "pad_range", RAWFRAG_SEV_ERROR);
	fx_sample(f, payload, 20, 20);
	assert_int_equal(fx_check(f, 12), 1); /* pad 8 */
	assert_found(f, "pad_range", RAWFRAG_SEV_ERROR);
	fx_sample(f, payload, 20, 20);
	assert_int_equal(fx_check(f, 13), 0); /* pad 7 is fine */
	free(f);
}

/* No sink: nothing is kept, nothing crashes. */
static void test_null_sink(void **state)
{
	struct fixture *f = fx_new(false);

	fx_sample(f, payload, 16, 16);
	assert_int_equal(rawfrag_check_raw(&f->rec, &f->smp, 3, NULL), 0);
	rawfrag_check_sink__report(NULL, RAWFRAG_SEV_ERROR, "x", -1, "nothing");
	free(f);
}

/* A record synthesized and parsed for real: the parser's raw_offset/end_offset agree. */
static void test_parsed(void **state)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct rawfrag_sample in = { 0 }, out;
	struct rawfrag_err err = { 0 };
	uint8_t raw[20] = { 0 }, buf[256];
	struct rawfrag_record rec = { 0 };
	struct fixture *f = fx_new(false);
	int n;

	memcpy(raw, payload, 13);
	raw[18] = 0x77; /* stale pad */
	in.pid = 1, in.tid = 2, in.time = 3, in.cpu = 1, in.period = 1;
	in.raw_size = sizeof(raw);
	in.raw_data = raw;
	n = rawfrag_sample__synthesize(&attr, &in, 0, false, buf, sizeof(buf));
	assert_true(n > 0);
	rec.type = PERF_RECORD_SAMPLE;
	rec.size = (uint16_t)n;
	rec.data = buf;
	assert_int_equal(rawfrag_sample__parse(&out, &attr, &rec, false, &err), 0);
	assert_int_equal(out.raw_offset % 8, 4);
	assert_int_equal(rawfrag_check_raw(&rec, &out, 13, &f->sink), 0);
	assert_found(f, "pad_nonzero", RAWFRAG_SEV_WARN);
	assert_int_equal(f->found.raw_off[0], 18);
	assert_int_equal(f->st.pad_stale, 1);
	free(f);
}

/* ---- the checker over a whole file written with the library's writer ---- */

static const struct perf_event_attr file_attr = {
	.type = 0x7ff0, /* a PMU no decoder claims: the hexdump fallback */
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
};

static void write_raw_sample(struct rawfrag_writer *w, const void *raw, uint32_t size)
{
	struct rawfrag_sample s = { .pid = 7, .tid = 7, .time = 1000, .cpu = 1 };

	s.raw_size = size;
	s.raw_data = raw;
	assert_int_equal(rawfrag_writer__write_sample(w, 0, &s, 0), 0);
}

/* A record whose raw_size claims more than header.size holds. */
static void write_bad_raw(struct rawfrag_writer *w, uint32_t raw_size)
{
	uint8_t rec[40] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(rec) };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 32, &raw_size, 4);
	assert_int_equal(rawfrag_writer__write_record(w, rec, sizeof(rec)), 0);
}

static char *write_file(void)
{
	static const uint8_t clean[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const uint8_t zero[4], junk[4] = { 1, 0, 0, 0 };
	char *path = strdup(fx_tmpfile("rawfrag-test-check"));
	struct rawfrag_err err = { 0 };
	struct rawfrag_writer *w;

	w = rawfrag_writer__new(path, NULL, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &file_attr, "test:raw", NULL, 0), 0);
	assert_int_equal(rawfrag_writer__start(w), 0);
	write_raw_sample(w, clean, sizeof(clean));
	write_raw_sample(w, zero, 4);
	write_raw_sample(w, junk, 4);
	write_bad_raw(w, 70000); /* more than a u16 size can hold: wrapped */
	write_bad_raw(w, 100); /* fits a u16, not this record: outside */
	write_raw_sample(w, clean, sizeof(clean));
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
	return path;
}

static struct rawfrag_checker *check_file(const char *path, int max_examples,
					  struct rawfrag_file **fp, struct rawfrag_session **sp)
{
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .max_examples = max_examples);
	struct rawfrag_err err = { 0 };
	struct rawfrag_record rec;
	struct rawfrag_checker *c;
	int ret;

	*fp = rawfrag_file__open(path, NULL, &err);
	assert_non_null(*fp);
	*sp = rawfrag_session__new(*fp, NULL, &err);
	assert_non_null(*sp);
	c = rawfrag_checker__new(*sp, &copts, &err);
	assert_non_null(c);
	while ((ret = rawfrag_file__next(*fp, &rec)) > 0)
		assert_true(rawfrag_checker__record(c, &rec, NULL) >= 0);
	assert_int_equal(ret, 0);
	return c;
}

static bool has_kind(const struct rawfrag_check_evstats *st, const char *kind,
		     enum rawfrag_severity sev, uint64_t count)
{
	for (int i = 0; i < st->nr_kinds; i++)
		if (!strcmp(st->kinds[i].kind, kind) && st->kinds[i].sev == sev)
			return st->kinds[i].count == count;
	return false;
}

static void test_checker_file(void **state)
{
	char *path = write_file();
	if (getenv("KEEP_FILE"))
		fprintf(stderr, "# %s\n", path);
	struct rawfrag_session *s;
	struct rawfrag_file *f;
	struct rawfrag_checker *c = check_file(path, 0, &f, &s);
	const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(c, 0);
	const struct rawfrag_decoder *d = rawfrag_session__decoder(s, rawfrag_file__evsel(f, 0));

	assert_non_null(d);
	assert_string_equal(d->name, "hexdump");
	assert_int_equal(rawfrag_checker__nr_errors(c), 2);
	assert_int_equal(rawfrag_checker__nr_warnings(c), 1);
	assert_non_null(st);
	assert_int_equal(st->samples, 6);
	assert_int_equal(st->raw_samples, 6);
	assert_int_equal(st->empty, 1);
	assert_int_equal(st->pad_unknown, 3); /* hexdump knows no length but the empty form's */
	assert_int_equal(st->pad_hist[4], 1); /* the zero no-data form: length 0 */
	assert_true(has_kind(st, "size_wrapped", RAWFRAG_SEV_ERROR, 1));
	assert_true(has_kind(st, "raw_outside", RAWFRAG_SEV_ERROR, 1));
	assert_true(has_kind(st, "raw_empty_nonzero", RAWFRAG_SEV_WARN, 1));
	/* by CPU: the four samples that parse, all on CPU 1; the two broken ones none */
	assert_int_equal(rawfrag_checker__max_cpu(c), 1);
	assert_int_equal(rawfrag_checker__cpu_samples(c, 1), 4);
	assert_int_equal(rawfrag_checker__cpu_samples(c, 0), 0);
	assert_int_equal(rawfrag_checker__cpu_samples(c, RAWFRAG_CHECK_MAX_CPUS + 5), 0);
	assert_int_equal(rawfrag_checker__max_cpu(NULL), -1);
	assert_int_equal(rawfrag_checker__nr_violations(c), 3);
	/* examples in file order, with the record offsets */
	const struct rawfrag_violation *v0 = rawfrag_checker__violation(c, 0);
	const struct rawfrag_violation *v1 = rawfrag_checker__violation(c, 1);
	const struct rawfrag_violation *v2 = rawfrag_checker__violation(c, 2);
	assert_string_equal(v0->kind, "raw_empty_nonzero");
	assert_string_equal(v1->kind, "size_wrapped");
	assert_string_equal(v2->kind, "raw_outside");
	assert_true(v0->rec_offset < v1->rec_offset && v1->rec_offset + 40 == v2->rec_offset);
	assert_non_null(strstr(v1->message, "raw_size 70000"));
	assert_int_equal(v1->evsel_idx, 0);
	assert_null(rawfrag_checker__violation(c, 3));
	assert_null(rawfrag_checker__evstats(c, 5));
	rawfrag_checker__delete(c);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);

	/* max_examples 1: counts the same, one example kept */
	c = check_file(path, 1, &f, &s);
	assert_int_equal(rawfrag_checker__nr_errors(c), 2);
	assert_int_equal(rawfrag_checker__nr_violations(c), 1);
	rawfrag_checker__delete(c);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	unlink(path);
	free(path);
}

static void test_decoder_opts(void **state)
{
	static const char *const dopts[] = { "meta=auto", "hex=1", "metax=no", "hex=0", NULL };
	struct rawfrag_decoder_ctx ctx = { .dopts = dopts };

	assert_string_equal(rawfrag_decoder_ctx__opt(&ctx, "meta"), "auto");
	assert_string_equal(rawfrag_decoder_ctx__opt(&ctx, "hex"), "0"); /* last wins */
	assert_null(rawfrag_decoder_ctx__opt(&ctx, "met"));
	assert_null(rawfrag_decoder_ctx__opt(NULL, "meta"));
	ctx.dopts = NULL;
	assert_null(rawfrag_decoder_ctx__opt(&ctx, "meta"));
	rawfrag_decoder_ctx__log(&ctx, RAWFRAG_WARN, "no print callback: %d", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),	       cmocka_unit_test(test_pad_zero_and_stale),
		cmocka_unit_test(test_pad_every_position),
		cmocka_unit_test(test_align),	       cmocka_unit_test(test_outside_and_trailing),
		cmocka_unit_test(test_empty),	       cmocka_unit_test(test_pad_range),
		cmocka_unit_test(test_null_sink),      cmocka_unit_test(test_parsed),
		cmocka_unit_test(test_checker_file),   cmocka_unit_test(test_decoder_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
