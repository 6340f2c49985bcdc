// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_session__process() and its companions on files written by the
 * writer: file order and perf's time order (two-round lag worked out by hand
 * from perf's rules), the early flush past ordered_max_bytes, the thread
 * table (COMM, FORK, swapper), the observer, unknown ids and parse errors with
 * and without a sample_error handler, stopping, rewinding, pipe mode's
 * describing records, a tool whose unknown trailing fields are set, and
 * truncated input.
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

#include <rawfrag/check.h>
#include <rawfrag/tool.h>
#include <rawfrag/writer.h>

#include "fixture.h"

#define MAX_SEEN 64

/* the handlers' log; the tool comes first so they find it */
struct seen {
	struct rawfrag_tool tool;
	uint64_t time[MAX_SEEN];
	int nr, nr_bad, nr_comm, nr_fork, nr_obs, nr_describe, stop_after;
	int order; /* observer before handler: obs sets 1, comm handler checks */
	bool obs_first;
	char comm_of_101[16];
};

/* the software events of every file here */
static void init_attr(struct perf_event_attr *a, uint64_t config)
{
	fx_sw_attr(a, config, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_RAW, 1);
}

static void put_sample(struct rawfrag_writer *w, uint64_t id, uint32_t tid, uint64_t time)
{
	static const uint8_t raw[4];
	struct rawfrag_sample s = { .identifier = id, .id = id, .pid = 100, .tid = tid,
				    .time = time, .raw_size = 4, .raw_data = raw };

	assert_int_equal(rawfrag_writer__write_sample(w, id == 21 ? 1 : 0, &s, 0), 0);
}

/*
 * Three rounds: 10 30 20 | 25 40 | 15 50, a COMM of 100 ("alpha") at time 5, a
 * FORK of 101 from 100 at time 6 and, when bad_id, a sample of an id no evsel has.
 */
static const char *write_file(bool pipe, bool bad_id)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .pipe = pipe);
	struct perf_event_attr a, b;
	uint64_t ida = 11, idb = 21;
	struct rawfrag_sample id = { .pid = 100, .tid = 100, .time = 5, .identifier = 11 };
	const char *path = fx_tmpfile("test_session");
	struct rawfrag_writer *w;
	struct rawfrag_err err;

	init_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	init_attr(&b, PERF_COUNT_SW_TASK_CLOCK);
	w = rawfrag_writer__new(path, &wo, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "a", &ida, 1), 0);
	assert_int_equal(rawfrag_writer__add_evsel(w, &b, "b", &idb, 1), 1);
	assert_int_equal(rawfrag_writer__start(w), 0);
	assert_int_equal(rawfrag_writer__write_comm(w, 100, 100, "alpha", false, &id), 0);
	id.time = 6;
	assert_int_equal(rawfrag_writer__write_fork(w, false, 101, 100, 101, 100, 6, &id), 0);
	put_sample(w, 11, 101, 10);
	put_sample(w, 21, 100, 30);
	put_sample(w, 11, 100, 20);
	assert_int_equal(rawfrag_writer__finished_round(w), 0);
	put_sample(w, 21, 100, 25);
	if (bad_id)
		put_sample(w, 999, 100, 26);
	put_sample(w, 11, 100, 40);
	assert_int_equal(rawfrag_writer__finished_round(w), 0);
	put_sample(w, 11, 100, 15);
	put_sample(w, 21, 100, 50);
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
	return path;
}

static int on_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		     const struct rawfrag_event *ev)
{
	struct seen *z = (struct seen *)tool;
	const char *c;
	int len;

	assert_non_null(ev->sample);
	assert_int_equal(ev->time, ev->sample->time);
	if (z->nr < MAX_SEEN)
		z->time[z->nr] = ev->sample->time;
	z->nr++;
	c = rawfrag_session__thread_comm(s, (int32_t)ev->sample->pid, 101, &len);
	if (c)
		memcpy(z->comm_of_101, c, 16);
	return z->stop_after && z->nr == z->stop_after ? 1 : 0;
}

static int on_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		  const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	struct seen *z = (struct seen *)tool;

	assert_null(ev->evsel);
	assert_int_equal(err->err, -ENOENT);
	assert_int_equal(err->offset, (int64_t)ev->rec->offset);
	z->nr_bad++;
	return 0;
}

static int on_comm(struct rawfrag_tool *tool, struct rawfrag_session *s,
		   const struct rawfrag_event *ev)
{
	struct seen *z = (struct seen *)tool;

	z->obs_first = z->nr_obs > z->nr_comm + z->nr_fork;
	z->nr_comm++;
	assert_non_null(ev->sample); /* the sample_id_all trailer */
	assert_int_equal(ev->time, 5);
	return 0;
}

static int on_fork(struct rawfrag_tool *tool, struct rawfrag_session *s,
		   const struct rawfrag_event *ev)
{
	((struct seen *)tool)->nr_fork++;
	return 0;
}

static int on_describe(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	assert_true(rawfrag_record__describes(ev->rec->type));
	((struct seen *)tool)->nr_describe++;
	return 0;
}

static int observe(void *ctx, struct rawfrag_session *s, const struct rawfrag_event *ev)
{
	assert_int_not_equal(ev->rec->type, PERF_RECORD_SAMPLE);
	((struct seen *)ctx)->nr_obs++;
	return 0;
}

struct open {
	struct rawfrag_file *f;
	struct rawfrag_session *s;
};

static void open_session(struct open *o, const char *path)
{
	struct rawfrag_err err;

	o->f = rawfrag_file__open(path, NULL, &err);
	assert_non_null(o->f);
	o->s = rawfrag_session__new(o->f, NULL, &err);
	assert_non_null(o->s);
}

static void close_session(struct open *o, const char *path)
{
	rawfrag_session__delete(o->s);
	rawfrag_file__close(o->f);
	unlink(path);
}

static void init_seen(struct seen *z, bool ordered)
{
	memset(z, 0, sizeof(*z));
	z->tool.sz = sizeof(z->tool);
	z->tool.sample = on_sample;
	z->tool.sample_error = on_bad;
	z->tool.comm = on_comm;
	z->tool.fork = on_fork;
	z->tool.describe = on_describe;
	z->tool.ordered = ordered;
}

static void expect_times(const struct seen *z, const uint64_t *want, int n)
{
	assert_int_equal(z->nr, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(z->time[i], want[i]);
}

static void test_file_order(void **state)
{
	static const uint64_t want[] = { 10, 30, 20, 25, 40, 15, 50 };
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	open_session(&o, path);
	init_seen(&z, false);
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	expect_times(&z, want, 7);
	assert_int_equal(z.nr_comm, 1);
	assert_int_equal(z.nr_fork, 1);
	close_session(&o, path);
}

/*
 * perf: round 1 delivers nothing (no limit yet) and sets the limit to 30 (the
 * newest time at the tail); round 2 delivers up to 30, limit 40; the end
 * delivers the rest sorted. 15 arrived after 30 went out, so it comes late.
 */
static void test_time_order(void **state)
{
	static const uint64_t want[] = { 10, 20, 25, 30, 15, 40, 50 };
	const char *path = write_file(false, false);
	struct rawfrag_process_stats ps = { .sz = sizeof(ps) };
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	open_session(&o, path);
	init_seen(&z, true);
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	expect_times(&z, want, 7);
	/* the FORK (time 6) came before the first sample: 101 is named after its parent */
	assert_string_equal(z.comm_of_101, "alpha");
	assert_int_equal(rawfrag_session__process_stats(o.s, &ps), 0);
	assert_true(ps.queue_peak >= 3);
	assert_int_equal(ps.queue_early_flushes, 0);
	close_session(&o, path);
}

static int warnings;
static int count_warn(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (level == RAWFRAG_WARN && strstr(msg, "flushed early"))
		warnings++;
	return 0;
}

/* a bound smaller than one record: every record goes out as it comes, with one warning */
static void test_early_flush(void **state)
{
	static const uint64_t want[] = { 10, 30, 20, 25, 40, 15, 50 };
	RAWFRAG_OPTS(rawfrag_session_opts, so, .print = count_warn);
	const char *path = write_file(false, false);
	struct rawfrag_process_stats ps = { .sz = sizeof(ps) };
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	o.f = rawfrag_file__open(path, NULL, &err);
	assert_non_null(o.f);
	o.s = rawfrag_session__new(o.f, &so, &err);
	assert_non_null(o.s);
	init_seen(&z, true);
	z.tool.ordered_max_bytes = 1;
	warnings = 0;
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	expect_times(&z, want, 7);
	assert_int_equal(warnings, 1);
	assert_int_equal(rawfrag_session__process_stats(o.s, &ps), 0);
	assert_true(ps.queue_early_flushes >= 7);
	close_session(&o, path);
}

static void test_threads(void **state)
{
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	const char *c;
	struct open o;
	struct seen z;
	int len = -1;

	open_session(&o, path);
	c = rawfrag_session__thread_comm(o.s, 0, 0, &len);
	assert_non_null(c);
	assert_int_equal(len, 7);
	assert_memory_equal(c, "swapper", 8);
	assert_null(rawfrag_session__thread_comm(o.s, 100, 100, &len));
	init_seen(&z, false);
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	c = rawfrag_session__thread_comm(o.s, 100, 100, &len);
	assert_non_null(c);
	assert_int_equal(len, 5);
	assert_string_equal(c, "alpha");
	c = rawfrag_session__thread_comm(o.s, 100, 101, &len);
	assert_non_null(c);
	assert_string_equal(c, "alpha");
	assert_null(rawfrag_session__thread_comm(o.s, 300, 300, &len));
	/* rewind empties the table */
	assert_int_equal(rawfrag_session__rewind(o.s), 0);
	assert_null(rawfrag_session__thread_comm(o.s, 100, 101, &len));
	close_session(&o, path);
}

static void test_observer(void **state)
{
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	for (int ordered = 0; ordered < 2; ordered++) {
		open_session(&o, path);
		init_seen(&z, ordered);
		rawfrag_session__set_observer(o.s, observe, &z);
		assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
		assert_int_equal(z.nr_obs, 2); /* COMM and FORK */
		assert_true(z.obs_first);
		rawfrag_session__set_observer(o.s, NULL, NULL);
		assert_int_equal(rawfrag_session__rewind(o.s), 0);
		z.nr_obs = 0;
		assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
		assert_int_equal(z.nr_obs, 0);
		rawfrag_session__delete(o.s);
		rawfrag_file__close(o.f);
	}
	unlink(path);
}

static void test_unknown_id(void **state)
{
	const char *path = write_file(false, true);
	struct rawfrag_err err;
	struct open o;
	struct seen z;
	int ret;

	for (int ordered = 0; ordered < 2; ordered++) {
		/* with a handler: it sees the sample, the rest goes on */
		open_session(&o, path);
		init_seen(&z, ordered);
		assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
		assert_int_equal(z.nr_bad, 1);
		assert_int_equal(z.nr, 7);
		/* without: the error, with the record's offset and type */
		assert_int_equal(rawfrag_session__rewind(o.s), 0);
		init_seen(&z, ordered);
		z.tool.sample_error = NULL;
		ret = rawfrag_session__process(o.s, &z.tool, &err);
		assert_int_equal(ret, -ENOENT);
		assert_int_equal(err.err, -ENOENT);
		assert_true(err.offset > 0);
		assert_int_equal(err.rec_type, PERF_RECORD_SAMPLE);
		assert_non_null(strstr(err.reason, "matches no event"));
		rawfrag_session__delete(o.s);
		rawfrag_file__close(o.f);
	}
	unlink(path);
}

static void test_stop(void **state)
{
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	open_session(&o, path);
	init_seen(&z, true);
	z.stop_after = 2;
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 1);
	assert_int_equal(z.nr, 2);
	close_session(&o, path);
}

static void test_pipe(void **state)
{
	static const uint64_t want[] = { 10, 20, 25, 30, 15, 40, 50 };
	const char *path = write_file(true, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	open_session(&o, path);
	assert_int_equal(rawfrag_file__nr_evsels(o.f), 0);
	init_seen(&z, true);
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	assert_int_equal(rawfrag_file__nr_evsels(o.f), 2);
	assert_true(z.nr_describe >= 2);
	expect_times(&z, want, 7);
	assert_int_equal(rawfrag_session__rewind(o.s), -ESPIPE);
	close_session(&o, path);
}

/*
 * Pull one record at a time: the same order as process(), 1 per record, 0 at
 * the end. after5: samples delivered after five records (-1: not checked).
 */
static void step_all(bool pipe, bool ordered, const uint64_t *want, int after5)
{
	const char *path = write_file(pipe, false);
	struct rawfrag_err err;
	int ret, steps = 0, nr5 = -1;
	struct open o;
	struct seen z;

	open_session(&o, path);
	init_seen(&z, ordered);
	while ((ret = rawfrag_session__next(o.s, &z.tool, &err)) == 1) {
		if (++steps == 5)
			nr5 = z.nr;
		assert_true(steps < 100);
	}
	assert_int_equal(ret, 0);
	assert_true(steps >= 11); /* COMM, FORK, 7 samples, 2 rounds at least */
	expect_times(&z, want, 7);
	assert_string_equal(z.comm_of_101, "alpha");
	if (after5 >= 0)
		assert_int_equal(nr5, after5);
	/* the end stays the end */
	assert_int_equal(rawfrag_session__next(o.s, &z.tool, &err), 0);
	assert_int_equal(z.nr, 7);
	close_session(&o, path);
}

static void test_next(void **state)
{
	static const uint64_t in_file[] = { 10, 30, 20, 25, 40, 15, 50 };
	static const uint64_t in_time[] = { 10, 20, 25, 30, 15, 40, 50 };

	/* COMM, FORK, 3 samples: delivered at once in file order, queued in time order */
	step_all(false, false, in_file, 3);
	step_all(false, true, in_time, 0);
	step_all(true, true, in_time, -1);
}

/* a handler's failure ends the stepping with its error */
static int fail_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	return -EIO;
}

static void test_next_error(void **state)
{
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;
	int ret;

	open_session(&o, path);
	init_seen(&z, false);
	z.tool.sample = fail_sample;
	while ((ret = rawfrag_session__next(o.s, &z.tool, &err)) == 1)
		;
	assert_int_equal(ret, -EIO);
	assert_int_equal(err.err, -EIO);
	assert_int_equal(rawfrag_session__next(NULL, &z.tool, &err), -EINVAL);
	close_session(&o, path);
}

static void test_describes(void **state)
{
	assert_true(rawfrag_record__describes(RAWFRAG_RECORD_HEADER_ATTR));
	assert_true(rawfrag_record__describes(RAWFRAG_RECORD_HEADER_TRACING_DATA));
	assert_true(rawfrag_record__describes(RAWFRAG_RECORD_HEADER_FEATURE));
	assert_true(rawfrag_record__describes(RAWFRAG_RECORD_EVENT_UPDATE));
	assert_false(rawfrag_record__describes(RAWFRAG_RECORD_FINISHED_ROUND));
	assert_false(rawfrag_record__describes(PERF_RECORD_SAMPLE));
	assert_false(rawfrag_record__describes(PERF_RECORD_COMM));
}

/* a newer caller's tool: what this library does not know must be zero */
static void test_tool_size(void **state)
{
	const char *path = write_file(false, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;

	open_session(&o, path);
	init_seen(&z, false);
	z.tool.sz = offsetof(struct seen, time) + sizeof(z.time[0]);
	z.time[0] = 7;
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), -EINVAL);
	assert_int_equal(err.err, -EINVAL);
	assert_int_equal(z.nr, 0);
	z.time[0] = 0;
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	assert_int_equal(z.nr, 7);
	close_session(&o, path);
}

/* a pipe cut inside a record: what came before is delivered, then the error */
static void test_truncated(void **state)
{
	const char *path = write_file(true, false);
	struct rawfrag_err err;
	struct open o;
	struct seen z;
	FILE *f = fopen(path, "r+");
	long size;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	/* inside the last sample (the last record is the 24+ byte sample of 50) */
	assert_int_equal(truncate(path, size - 6), 0);
	for (int ordered = 0; ordered < 2; ordered++) {
		open_session(&o, path);
		init_seen(&z, ordered);
		assert_true(rawfrag_session__process(o.s, &z.tool, &err) < 0);
		assert_true(err.err < 0);
		assert_true(err.offset > 0);
		assert_int_equal(z.nr, 6);
		rawfrag_session__delete(o.s);
		rawfrag_file__close(o.f);
	}
	unlink(path);
}

struct chk {
	struct rawfrag_tool tool;
	struct rawfrag_checker *c;
};

static int chk_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		      const struct rawfrag_event *ev)
{
	return rawfrag_checker__event(((struct chk *)tool)->c, ev) < 0 ? -ENOMEM : 0;
}

static int chk_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		   const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return rawfrag_checker__event(((struct chk *)tool)->c, ev) < 0 ? -ENOMEM : 0;
}

static int chk_record(struct rawfrag_tool *tool, struct rawfrag_session *s,
		      const struct rawfrag_event *ev)
{
	/* non-sample records are not the checker's: 0 */
	assert_int_equal(rawfrag_checker__event(((struct chk *)tool)->c, ev), 0);
	return 0;
}

/* the checker fed by the session gives what it finds walking the records itself */
static void test_checker_event(void **state)
{
	const char *path = write_file(false, true);
	struct chk z = { .tool = { .sz = sizeof(z.tool), .sample = chk_sample,
				   .sample_error = chk_bad, .comm = chk_record } };
	struct rawfrag_checker *ref;
	struct rawfrag_record rec;
	struct rawfrag_err err;
	struct open o;

	open_session(&o, path);
	z.c = rawfrag_checker__new(o.s, NULL, &err);
	ref = rawfrag_checker__new(o.s, NULL, &err);
	assert_non_null(z.c);
	assert_non_null(ref);
	assert_int_equal(rawfrag_session__process(o.s, &z.tool, &err), 0);
	assert_int_equal(rawfrag_session__rewind(o.s), 0);
	while (rawfrag_file__next(o.f, &rec) > 0)
		rawfrag_checker__record(ref, &rec, NULL);
	/* the unknown id is one sample_parse error in both */
	assert_int_equal(rawfrag_checker__nr_errors(z.c), 1);
	assert_int_equal(rawfrag_checker__nr_errors(ref), 1);
	for (int i = -1; i < 2; i++) {
		const struct rawfrag_check_evstats *a = rawfrag_checker__evstats(z.c, i);
		const struct rawfrag_check_evstats *b = rawfrag_checker__evstats(ref, i);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->samples, b->samples);
		assert_int_equal(a->raw_samples, b->raw_samples);
		assert_int_equal(a->errors, b->errors);
	}
	assert_int_equal(rawfrag_checker__evstats(z.c, -1)->samples, 1);
	rawfrag_checker__delete(z.c);
	rawfrag_checker__delete(ref);
	close_session(&o, path);
}

/*
 * A file of several reader windows (16 MiB) in time order: records queued
 * across the window remaps (the second half has no round marker: everything
 * stays queued to the end) and while the reader drops the pages behind it
 * (the first half, flushed by rounds). Each payload carries its index and a
 * pattern of it: a queued record that pointed into memory gone shows as a
 * wrong byte or a crash.
 */
#define BIG_RAW 1020 /* + its u32 size: 1024, a sample of 1064 bytes */
#define BIG_N 40000 /* 42 MB */

struct big {
	struct rawfrag_tool tool;
	uint64_t nr, last_time, bad;
};

static int on_big(struct rawfrag_tool *tool, struct rawfrag_session *s,
		  const struct rawfrag_event *ev)
{
	struct big *b = (struct big *)tool;
	const struct rawfrag_sample *smp = ev->sample;
	uint32_t i;

	if (smp->raw_size != BIG_RAW || smp->time < b->last_time) {
		b->bad++;
		return 0;
	}
	b->last_time = smp->time;
	memcpy(&i, smp->raw_data, 4);
	for (uint32_t k = 4; k < BIG_RAW; k++)
		if (((const uint8_t *)smp->raw_data)[k] != (uint8_t)(i * 7 + k))
			b->bad++;
	b->nr++;
	return 0;
}

static void test_big_windows(void **state)
{
	const char *path = fx_tmpfile("test_session_big");
	struct perf_event_attr a;
	uint64_t id = 11;
	struct rawfrag_writer *w;
	struct rawfrag_err err;
	struct big b = { .tool = { .sz = sizeof(b.tool), .sample = on_big, .ordered = true } };
	static uint8_t raw[BIG_RAW];
	struct open o;

	init_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	w = rawfrag_writer__new(path, NULL, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "a", &id, 1), 0);
	assert_int_equal(rawfrag_writer__start(w), 0);
	for (uint32_t i = 0; i < BIG_N; i++) {
		/* odd ones come a little late: the queue has to reorder them */
		struct rawfrag_sample smp = { .identifier = id, .id = id, .pid = 100, .tid = 100,
					      .time = 1000 + 10ULL * i - (i % 2 ? 15 : 0),
					      .raw_size = BIG_RAW, .raw_data = raw };

		memcpy(raw, &i, 4);
		for (uint32_t k = 4; k < BIG_RAW; k++)
			raw[k] = (uint8_t)(i * 7 + k);
		assert_int_equal(rawfrag_writer__write_sample(w, 0, &smp, 0), 0);
		if (i < BIG_N / 2 && i % 100 == 99)
			assert_int_equal(rawfrag_writer__finished_round(w), 0);
	}
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
	open_session(&o, path);
	assert_int_equal(rawfrag_session__process(o.s, &b.tool, &err), 0);
	assert_int_equal(b.nr, BIG_N);
	assert_int_equal(b.bad, 0);
	close_session(&o, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_order), cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_early_flush), cmocka_unit_test(test_threads),
		cmocka_unit_test(test_observer),   cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_stop),	   cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_describes),  cmocka_unit_test(test_tool_size),
		cmocka_unit_test(test_truncated),  cmocka_unit_test(test_checker_event),
		cmocka_unit_test(test_next),	   cmocka_unit_test(test_next_error),
		cmocka_unit_test(test_big_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
