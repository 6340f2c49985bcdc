// SPDX-License-Identifier: GPL-2.0
/*
 * The public API added in LIBRAWFRAG_0.2.0 and the ABI rules around it: options
 * structs refused when they carry bytes this library does not know, per-type
 * record counts, decoder names, and decoding one sample through the session
 * (text, fields, length, violations) on a file written with the library's writer.
 * Only public headers are used here, as an outside program would.
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

#include <rawfrag/rawfrag.h>

#include "fixture.h"

/* a PMU no decoder claims: every evsel of the file goes to the hexdump fallback */
static const struct perf_event_attr raw_attr = {
	.type = 0x7ff0,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
};
/* no RAW in sample_type */
static const struct perf_event_attr noraw_attr = {
	.type = 0x7ff1,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER,
};

static const uint8_t clean[12] = { 0x01, 0x02, 0x03, 0x04, 0x41, 0x42, 0x43, 0x44,
				   0xfe, 0xff, 0x00, 0x7f };
static const uint8_t junk[4] = { 1, 0, 0, 0 }; /* the empty form, word not zero */
static const uint8_t zero[4];
static const uint8_t odd[8] = { 9, 9, 9, 9, 9, 9, 9, 9 }; /* raw_size 8: not 4 mod 8 */

struct fx {
	char path[64];
	struct rawfrag_file *f;
	struct rawfrag_session *s;
	struct rawfrag_out *out;
};

static void put(struct rawfrag_writer *w, int idx, const uint8_t *raw, uint32_t size)
{
	struct rawfrag_sample s = { .pid = 7, .tid = 8, .time = 1000, .cpu = 1 };

	s.identifier = s.id = 11 + idx; /* the ids given to add_evsel */

	s.raw_size = size;
	s.raw_data = raw;
	assert_int_equal(rawfrag_writer__write_sample(w, idx, &s, 0), 0);
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct rawfrag_err err = { 0 };
	const uint64_t id0 = 11, id1 = 12;
	struct rawfrag_writer *w;

	snprintf(x->path, sizeof(x->path), "%s", fx_tmpfile("rawfrag-test-api"));
	w = rawfrag_writer__new(x->path, NULL, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &raw_attr, "test:raw", &id0, 1), 0);
	assert_int_equal(rawfrag_writer__add_evsel(w, &noraw_attr, "test:noraw", &id1, 1), 1);
	assert_int_equal(rawfrag_writer__start(w), 0);
	assert_int_equal(rawfrag_writer__write_comm(w, 7, 8, "task", false, NULL), 0);
	put(w, 0, clean, sizeof(clean));
	put(w, 0, zero, sizeof(zero));
	put(w, 0, junk, sizeof(junk));
	put(w, 0, odd, sizeof(odd));
	put(w, 1, NULL, 0);
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
	x->f = rawfrag_file__open(x->path, NULL, &err);
	assert_non_null(x->f);
	x->s = rawfrag_session__new(x->f, NULL, &err);
	assert_non_null(x->s);
	x->out = rawfrag_out__new(-1);
	assert_non_null(x->out);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	rawfrag_out__delete(x->out);
	rawfrag_session__delete(x->s);
	rawfrag_file__close(x->f);
	unlink(x->path);
	free(x);
	return 0;
}

/* the next SAMPLE record, parsed; false at the end */
static bool next_sample(struct fx *x, struct rawfrag_record *rec, struct rawfrag_sample *smp,
			struct rawfrag_evsel **ev)
{
	struct rawfrag_err err;
	int ret;

	while ((ret = rawfrag_file__next(x->f, rec)) > 0) {
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		*ev = rawfrag_file__evsel_of(x->f, rec);
		assert_non_null(*ev);
		assert_int_equal(rawfrag_sample__parse(smp, rawfrag_evsel__attr(*ev), rec,
						       rawfrag_file__needs_swap(x->f), &err), 0);
		return true;
	}
	assert_int_equal(ret, 0);
	return false;
}

static const char *text_of(struct fx *x, struct rawfrag_evsel *ev, struct rawfrag_record *rec,
			   struct rawfrag_sample *smp, bool verbose, int *ret)
{
	static char buf[1024];
	const char *m;
	size_t len;

	rawfrag_out__reset(x->out);
	*ret = rawfrag_session__sample_text(x->s, ev, rec, smp, x->out, verbose);
	m = rawfrag_out__mem(x->out, &len);
	assert_true(len < sizeof(buf));
	memcpy(buf, m, len);
	buf[len] = 0;
	return buf;
}

static void test_sample_text(void **state)
{
	struct fx *x = *state;
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_evsel *ev;
	int ret;

	assert_true(next_sample(x, &rec, &smp, &ev));
	assert_string_equal(text_of(x, ev, &rec, &smp, false, &ret),
			    " 01 02 03 04 41 42 43 44 fe ff 00 7f");
	assert_int_equal(ret, 0);
	/* verbose: offsets and the printable bytes */
	assert_non_null(strstr(text_of(x, ev, &rec, &smp, true, &ret), "ABCD"));
	assert_int_equal(ret, 0);
	/* no session, no sample, an evsel the session does not know: nothing to decode */
	assert_int_equal(rawfrag_session__sample_text(NULL, ev, &rec, &smp, x->out, false),
			 -ENODATA);
	assert_int_equal(rawfrag_session__sample_text(x->s, ev, &rec, NULL, x->out, false),
			 -ENODATA);
	assert_int_equal(rawfrag_session__sample_text(x->s, NULL, &rec, &smp, x->out, false),
			 -ENODATA);
	while (next_sample(x, &rec, &smp, &ev))
		if (!strcmp(rawfrag_evsel__name(ev), "test:noraw"))
			break;
	assert_string_equal(rawfrag_evsel__name(ev), "test:noraw");
	assert_string_equal(text_of(x, ev, &rec, &smp, false, &ret), "");
	assert_int_equal(ret, -ENODATA);
}

static void test_sample_fields(void **state)
{
	struct fx *x = *state;
	struct rawfrag_emit *em = rawfrag_emit__new(x->out, RAWFRAG_EMIT_JSON);
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_evsel *ev;
	const char *m;
	size_t len;

	assert_non_null(em);
	assert_true(next_sample(x, &rec, &smp, &ev));
	rawfrag_out__reset(x->out);
	rawfrag_emit__begin_object(em, NULL);
	assert_int_equal(rawfrag_session__sample_fields(x->s, ev, &rec, &smp, em), 0);
	rawfrag_emit__end_object(em);
	m = rawfrag_out__mem(x->out, &len);
	assert_int_equal(len, strlen("{\"hex\":\"0102030441424344feff007f\"}"));
	assert_memory_equal(m, "{\"hex\":\"0102030441424344feff007f\"}", len);
	assert_int_equal(rawfrag_session__sample_fields(x->s, NULL, &rec, &smp, em), -ENODATA);
	rawfrag_emit__delete(em);
}

static void test_sample_length(void **state)
{
	struct fx *x = *state;
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_evsel *ev;
	uint32_t len = 99;

	/* hexdump knows no length for data ... */
	assert_true(next_sample(x, &rec, &smp, &ev));
	assert_int_equal(rawfrag_session__sample_length(x->s, ev, &rec, &smp, &len), -ENODATA);
	/* ... but the zero word of the no-data form is length 0, pad 4 */
	assert_true(next_sample(x, &rec, &smp, &ev));
	assert_int_equal(smp.raw_size, 4);
	assert_int_equal(rawfrag_session__sample_length(x->s, ev, &rec, &smp, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(rawfrag_session__sample_length(x->s, ev, &rec, &smp, NULL), -ENODATA);
}

struct seen {
	int n, nr_err;
	char kind[8][32];
	uint64_t off[8];
	int idx[8];
};

static void on_violation(void *ctx, const struct rawfrag_violation *v)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	assert_non_null(v->message);
	assert_true(v->message[0] != 0);
	snprintf(s->kind[s->n], sizeof(s->kind[0]), "%s", v->kind);
	s->off[s->n] = v->rec_offset;
	s->idx[s->n] = v->evsel_idx;
	s->nr_err += v->sev == RAWFRAG_SEV_ERROR;
	s->n++;
}

static void test_sample_violations(void **state)
{
	struct fx *x = *state;
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_evsel *ev;
	struct seen s;
	int ret;

	/* clean and zero: nothing */
	for (int i = 0; i < 2; i++) {
		memset(&s, 0, sizeof(s));
		assert_true(next_sample(x, &rec, &smp, &ev));
		assert_int_equal(rawfrag_session__sample_violations(x->s, ev, &rec, &smp, true,
								    on_violation, &s), 0);
		assert_int_equal(s.n, 0);
	}
	/* junk: a warning, no error */
	memset(&s, 0, sizeof(s));
	assert_true(next_sample(x, &rec, &smp, &ev));
	ret = rawfrag_session__sample_violations(x->s, ev, &rec, &smp, false, on_violation, &s);
	assert_int_equal(ret, 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.kind[0], "raw_empty_nonzero");
	assert_int_equal(s.off[0], rec.offset);
	assert_int_equal(s.idx[0], 0);
	/* raw_size 8: an error, counted in the return value as the callback saw it */
	memset(&s, 0, sizeof(s));
	assert_true(next_sample(x, &rec, &smp, &ev));
	ret = rawfrag_session__sample_violations(x->s, ev, &rec, &smp, false, on_violation, &s);
	assert_true(ret >= 1);
	assert_int_equal(ret, s.nr_err);
	assert_string_equal(s.kind[0], "raw_size_align");
	/* without a callback: the same count */
	assert_int_equal(rawfrag_session__sample_violations(x->s, ev, &rec, &smp, false, NULL,
							    NULL), ret);
	assert_int_equal(rawfrag_session__sample_violations(NULL, ev, &rec, &smp, false, NULL,
							    NULL), -EINVAL);
}

static void test_nr_records(void **state)
{
	struct fx *x = *state;
	struct rawfrag_record rec;
	int ret;

	assert_int_equal(rawfrag_file__nr_records(x->f, PERF_RECORD_SAMPLE), 0);
	while ((ret = rawfrag_file__next(x->f, &rec)) > 0)
		;
	assert_int_equal(ret, 0);
	assert_int_equal(rawfrag_file__nr_records(x->f, PERF_RECORD_SAMPLE), 5);
	assert_int_equal(rawfrag_file__nr_records(x->f, PERF_RECORD_COMM), 1);
	assert_int_equal(rawfrag_file__nr_records(x->f, PERF_RECORD_MMAP), 0);
	assert_int_equal(rawfrag_file__nr_records(x->f, 100000), 0);
	assert_int_equal(rawfrag_file__nr_records(NULL, PERF_RECORD_SAMPLE), 0);
	/* counted again from the start after a rewind */
	assert_int_equal(rawfrag_file__rewind(x->f), 0);
	assert_int_equal(rawfrag_file__nr_records(x->f, PERF_RECORD_SAMPLE), 0);
}

static void test_decoder_names(void **state)
{
	const struct rawfrag_decoder *const *d = rawfrag_decoders();
	struct fx *x = *state;
	int n = 0;

	for (; *d; d++, n++) {
		assert_non_null(rawfrag_decoder__name(*d));
		assert_non_null(rawfrag_decoder__description(*d));
		assert_ptr_equal(rawfrag_decoder__find(rawfrag_decoder__name(*d)), *d);
	}
	assert_true(n >= 2);
	assert_null(rawfrag_decoder__name(NULL));
	assert_null(rawfrag_decoder__description(NULL));
	assert_string_equal(rawfrag_decoder__name(rawfrag_session__decoder(
				    x->s, rawfrag_file__evsel(x->f, 0))), "hexdump");
}

/* ---- options structs from a newer (larger) or broken caller ---- */

/* what a caller built against a newer header passes: our struct plus a new field */
#define NEWER(TYPE)                                                                      \
	struct {                                                                         \
		struct TYPE o;                                                           \
		uint64_t added;                                                          \
	}

static void expect_einval(const void *p, const struct rawfrag_err *err, const char *type)
{
	assert_null(p);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(err->err, -EINVAL);
	assert_non_null(strstr(err->reason, type));
}

static void test_file_opts(void **state)
{
	struct fx *x = *state;
	NEWER(rawfrag_file_opts) n;
	struct rawfrag_err err;
	struct rawfrag_file *f;
	size_t end = offsetof(struct rawfrag_file_opts, use_fd) + sizeof(bool);

	/* larger, unknown part zero: fine */
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	f = rawfrag_file__open(x->path, &n.o, &err);
	assert_non_null(f);
	rawfrag_file__close(f);
	/* a field this library does not know is set */
	n.added = 1;
	errno = 0;
	expect_einval(rawfrag_file__open(x->path, &n.o, &err), &err, "rawfrag_file_opts");
	/* a byte just past the last known field (inside this struct's padding) */
	n.added = 0;
	((uint8_t *)&n)[end] = 1;
	expect_einval(rawfrag_file__open(x->path, &n.o, &err), &err, "rawfrag_file_opts");
	/* an older caller's smaller struct is fine; less than sz itself is not */
	memset(&n, 0, sizeof(n));
	n.o.sz = offsetof(struct rawfrag_file_opts, force);
	n.o.force = true; /* past the caller's sz: never read */
	f = rawfrag_file__open(x->path, &n.o, &err);
	assert_non_null(f);
	rawfrag_file__close(f);
	n.o.sz = 4;
	expect_einval(rawfrag_file__open(x->path, &n.o, &err), &err, "rawfrag_file_opts");
}

static void test_session_check_opts(void **state)
{
	struct fx *x = *state;
	NEWER(rawfrag_session_opts) sn;
	NEWER(rawfrag_check_opts) cn;
	struct rawfrag_checker *c;
	struct rawfrag_session *s;
	struct rawfrag_err err;

	memset(&sn, 0, sizeof(sn));
	sn.o.sz = sizeof(sn);
	s = rawfrag_session__new(x->f, &sn.o, &err);
	assert_non_null(s);
	rawfrag_session__delete(s);
	sn.added = 0x100;
	expect_einval(rawfrag_session__new(x->f, &sn.o, &err), &err, "rawfrag_session_opts");

	memset(&cn, 0, sizeof(cn));
	cn.o.sz = sizeof(cn);
	c = rawfrag_checker__new(x->s, &cn.o, &err);
	assert_non_null(c);
	rawfrag_checker__delete(c);
	cn.added = 1ULL << 63;
	expect_einval(rawfrag_checker__new(x->s, &cn.o, &err), &err, "rawfrag_check_opts");
	/* the other failure of checker__new says why too */
	expect_einval(rawfrag_checker__new(NULL, NULL, &err), &err, "session");
	/* err may be NULL */
	assert_null(rawfrag_checker__new(x->s, &cn.o, NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_writer_opts(void **state)
{
	struct fx *x = *state;
	NEWER(rawfrag_writer_opts) n;
	struct rawfrag_err err;
	char path[80];

	snprintf(path, sizeof(path), "%s.w", x->path);
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.added = 2;
	expect_einval(rawfrag_writer__new(path, &n.o, &err), &err, "rawfrag_writer_opts");
	assert_int_equal(access(path, F_OK), -1); /* refused before creating anything */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sample_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_violations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nr_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decoder_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_opts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_check_opts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_opts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
