// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer: what it writes reads back through librawfrag's reader in
 * every form (file/pipe x LE/BE x plain/zstd): attrs, ids, names, features,
 * samples byte for byte. Plus the BE attr flag layout, write errors through
 * rawfrag_err (/dev/full), finish() idempotence and the tracing-data blob.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rawfrag/writer.h>

#include "fixture.h"

#define NR_SAMPLES 3000
static const bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

static void init_attr(struct perf_event_attr *a, uint64_t config)
{
	fx_sw_attr(a, config, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_RAW, 4000);
	a->read_format = PERF_FORMAT_ID;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->mmap2 = 1;
	a->comm_exec = 1;
	a->clockid = 1;
	a->use_clockid = 1;
}

/* a pseudo-random, incompressible-ish raw payload of the kernel's shape */
static uint32_t fill_raw(uint8_t *raw, int i)
{
	uint32_t n = 4 + (uint32_t)(i * 37 % 700);
	uint32_t x = 2463534242u + i;

	for (uint32_t k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		raw[k] = (uint8_t)x;
	}
	return n;
}

static void sample_of(struct rawfrag_sample *s, uint8_t *raw, int i)
{
	memset(s, 0, sizeof(*s));
	s->identifier = i % 3 ? 11 : 21;
	s->ip = 0x401000 + i;
	s->pid = 100 + i % 7;
	s->tid = 200 + i % 5;
	s->time = 1000000 + 10ULL * i;
	s->cpu = i & 1;
	s->period = 4000;
	s->raw_size = fill_raw(raw, i);
	s->raw_data = raw;
}

static void write_file(const char *path, bool be, bool pipe, bool z)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, o, .big_endian = be, .pipe = pipe, .compress = z);
	const char *argv[] = { "test_writer", "--flag", "x y" };
	struct perf_event_attr a;
	struct rawfrag_sample s;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	uint64_t ids0[] = { 11, 12 }, ids1[] = { 21 };
	uint8_t raw[1024];
	struct rawfrag_sample id = { .pid = 100, .tid = 200, .time = 5, .identifier = 11 };

	w = rawfrag_writer__new(path, &o, &err);
	assert_non_null(w);
	init_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "first:ev", ids0, 2), 0);
	init_attr(&a, PERF_COUNT_SW_TASK_CLOCK);
	a.size = 64; /* VER0: the writer uses one attr size for all */
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "second", ids1, 1), 1);
	assert_int_equal(rawfrag_writer__set_string(w, RAWFRAG_FEAT_HOSTNAME, "host-x"), 0);
	assert_int_equal(rawfrag_writer__set_string(w, RAWFRAG_FEAT_ARCH, "s390x"), 0);
	assert_int_equal(rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUID, "IBM,3931"), 0);
	assert_int_equal(rawfrag_writer__set_cmdline(w, 3, argv), 0);
	assert_int_equal(rawfrag_writer__set_nrcpus(w, 8, 6), 0);
	assert_int_equal(rawfrag_writer__add_pmu_mapping(w, 1, "software"), 0);
	assert_int_equal(rawfrag_writer__add_pmu_mapping(w, 7, "ibs_op"), 0);
	assert_int_equal(rawfrag_writer__add_pmu_cap(w, "ibs_op", "caps", "0x3ff"), 0);
	assert_int_equal(rawfrag_writer__add_pmu_cap(w, "ibs_op", "zen4_ibs_extensions", "1"), 0);
	assert_int_equal(rawfrag_writer__set_clock_data(w, 1, 1700000000000000000ULL, 12345), 0);
	assert_int_equal(rawfrag_writer__write_comm(w, 1, 1, "x", false, NULL), -EINVAL);
	assert_int_equal(rawfrag_writer__start(w), 0);
	assert_int_equal(rawfrag_writer__set_nrcpus(w, 1, 1), -EBUSY);
	assert_int_equal(rawfrag_writer__write_comm(w, 100, 200, "worker", true, &id), 0);
	assert_int_equal(rawfrag_writer__write_fork(w, false, 100, 1, 200, 1, 4, &id), 0);
	assert_int_equal(rawfrag_writer__write_mmap2(w, PERF_RECORD_MISC_USER, 100, 200, 0x400000,
						     0x1000, 0, 5, 2, "/bin/true", &id), 0);
	for (int i = 0; i < NR_SAMPLES; i++) {
		sample_of(&s, raw, i);
		assert_int_equal(rawfrag_writer__write_sample(w, i % 3 ? 0 : 1, &s,
							      PERF_RECORD_MISC_USER), 0);
		if (i % 500 == 499)
			assert_int_equal(rawfrag_writer__finished_round(w), 0);
	}
	assert_int_equal(rawfrag_writer__write_lost(w, 11, 42, &id), 0);
	assert_int_equal(rawfrag_writer__finish(w), 0);
	assert_int_equal(rawfrag_writer__finish(w), 0); /* idempotent */
	assert_true(rawfrag_writer__bytes(w) > NR_SAMPLES * 8ULL);
	assert_int_not_equal(rawfrag_writer__write_sample(w, 0, &s, 0), 0);
	rawfrag_writer__delete(w);
}

static void check_file(const char *path, bool be, bool pipe, bool z)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fo);
	struct rawfrag_err err = { 0 };
	struct rawfrag_file *f = rawfrag_file__open(path, &fo, &err);
	struct rawfrag_record rec;
	struct rawfrag_sample s, want;
	const struct rawfrag_env *env;
	const struct perf_event_attr *a;
	uint8_t raw[1024];
	int n = 0, comm = 0, lost = 0, ret;

	if (!f)
		fail_msg("%s: %s", path, err.reason);
	assert_int_equal(rawfrag_file__needs_swap(f), be != host_be);
	assert_int_equal(rawfrag_file__mode(f), pipe ? RAWFRAG_MODE_PIPE : RAWFRAG_MODE_FILE);
	/* pipe mode learns evsels and features from records: read them all first */
	while ((ret = rawfrag_file__next(f, &rec)) == 1) {
		struct rawfrag_evsel *ev;

		if (rec.type == PERF_RECORD_COMM) {
			comm++;
			assert_int_equal(rawfrag_sample__parse_id_trailer(
						 &s, rawfrag_evsel__attr(rawfrag_file__evsel(f, 0)),
						 &rec, rawfrag_file__needs_swap(f), &err),
					 0);
			assert_int_equal(s.pid, 100);
			assert_int_equal(s.time, 5);
			assert_int_equal(s.identifier, 11);
		}
		lost += rec.type == PERF_RECORD_LOST;
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		ev = rawfrag_file__evsel_of(f, &rec);
		assert_non_null(ev);
		assert_int_equal(rawfrag_evsel__idx(ev), n % 3 ? 0 : 1);
		assert_int_equal(rawfrag_sample__parse(&s, rawfrag_evsel__attr(ev), &rec,
						       rawfrag_file__needs_swap(f), &err),
				 0);
		sample_of(&want, raw, n);
		assert_int_equal(s.identifier, want.identifier);
		assert_int_equal(s.ip, want.ip);
		assert_int_equal(s.pid, want.pid);
		assert_int_equal(s.tid, want.tid);
		assert_int_equal(s.time, want.time);
		assert_int_equal(s.cpu, want.cpu);
		assert_int_equal(s.raw_size, want.raw_size);
		assert_memory_equal(s.raw_data, raw, want.raw_size);
		assert_int_equal(s.end_offset, rec.size);
		n++;
	}
	if (ret < 0)
		fail_msg("%s: %s", path, rawfrag_file__error(f)->reason);
	assert_int_equal(n, NR_SAMPLES);
	assert_int_equal(comm, 1);
	assert_int_equal(lost, 1);

	assert_int_equal(rawfrag_file__nr_evsels(f), 2);
	a = rawfrag_evsel__attr(rawfrag_file__evsel(f, 0));
	assert_int_equal(a->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(a->sample_period, 4000);
	assert_true(a->disabled && a->exclude_hv && a->mmap2 && a->comm_exec && a->use_clockid);
	assert_false(a->exclude_kernel || a->inherit);
	assert_int_equal(a->sample_id_all, 1);
	assert_int_equal(rawfrag_evsel__nr_ids(rawfrag_file__evsel(f, 0)), 2);
	assert_int_equal(rawfrag_evsel__ids(rawfrag_file__evsel(f, 0))[1], 12);
	assert_int_equal(rawfrag_evsel__ids(rawfrag_file__evsel(f, 1))[0], 21);
	assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 0)), "first:ev");
	assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 1)), "second");

	env = rawfrag_file__env(f);
	assert_string_equal(env->hostname, "host-x");
	assert_string_equal(env->arch, "s390x");
	assert_string_equal(env->cpuid, "IBM,3931");
	assert_int_equal(env->nr_cpus_avail, 8);
	assert_int_equal(env->nr_cpus_online, 6);
	assert_int_equal(env->nr_cmdline, 3);
	assert_string_equal(env->cmdline[2], "x y");
	assert_int_equal(env->nr_pmu_mappings, 2);
	assert_int_equal(env->pmu_mappings[1].type, 7);
	assert_string_equal(env->pmu_mappings[1].name, "ibs_op");
	assert_int_equal(env->nr_pmu_caps, 2);
	assert_string_equal(env->pmu_caps[1].pmu, "ibs_op");
	assert_string_equal(env->pmu_caps[1].name, "zen4_ibs_extensions");
	assert_string_equal(env->pmu_caps[1].value, "1");
	assert_true(env->has_clock_data);
	assert_int_equal(env->clock_tod_ns, 1700000000000000000ULL);
	assert_int_equal(env->clock_clockid_ns, 12345);
	if (!pipe) {
		/* SAMPLE_TIME from the samples written (file mode only) */
		assert_int_equal(env->first_sample_time, 1000000);
		assert_int_equal(env->last_sample_time, 1000000 + 10ULL * (NR_SAMPLES - 1));
	}
	assert_int_equal(env->has_compressed, z);
	if (z)
		assert_int_equal(env->comp_type, 1);
	rawfrag_file__close(f);
}

static void round_trip(bool be, bool pipe, bool z)
{
	char *path = strdup(fx_tmpfile("test_writer"));

	write_file(path, be, pipe, z);
	check_file(path, be, pipe, z);
	unlink(path);
	free(path);
}

static void test_file_le(void **state) { round_trip(false, false, false); }
static void test_file_be(void **state) { round_trip(true, false, false); }
static void test_pipe_le(void **state) { round_trip(false, true, false); }
static void test_pipe_be(void **state) { round_trip(true, true, false); }
static void test_file_le_z(void **state) { round_trip(false, false, true); }
static void test_file_be_z(void **state) { round_trip(true, false, true); }
static void test_pipe_le_z(void **state) { round_trip(false, true, true); }

/* BE attr: bytes swapped, flag bytes bit-reversed (disabled = MSB of byte 0) */
static void test_be_attr_bytes(void **state)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, o, .big_endian = true);
	char *path = strdup(fx_tmpfile("test_writer"));
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .sample_type = PERF_SAMPLE_IP, .disabled = 1,
				     .exclude_kernel = 1 };
	struct rawfrag_writer *w = rawfrag_writer__new(path, &o, NULL);
	uint8_t hdr[104], attr[128];
	int fd;

	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, NULL, NULL, 0), 0);
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, hdr, sizeof(hdr), 0), sizeof(hdr));
	assert_memory_equal(hdr, "2ELIFREP", 8);
	assert_int_equal(rawfrag__get64(hdr + 16, !host_be), 144); /* attr_size */
	assert_int_equal(pread(fd, attr, sizeof(attr), rawfrag__get64(hdr + 24, !host_be)),
			 sizeof(attr));
	assert_int_equal(attr[3], PERF_TYPE_SOFTWARE);
	assert_int_equal(attr[7], 128);
	/* disabled is bit 0, exclude_kernel bit 5: 0x80 | 0x04 after reversal */
	assert_int_equal(attr[40], 0x84);
	assert_int_equal(attr[31], PERF_SAMPLE_IP);
	/* HOSTNAME (bit 3) always present */
	assert_true(hdr[72 + 7] & 0x08);
	close(fd);
	unlink(path);
	free(path);
}

static void test_write_error(void **state)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, o);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID };
	struct rawfrag_sample s = { .ip = 1 };
	struct rawfrag_writer *w;
	struct rawfrag_err err;
	int ret = 0;

	w = rawfrag_writer__new("/nonexistent/dir/x.data", &o, &err);
	assert_null(w);
	assert_int_equal(err.err, -ENOENT);
	assert_non_null(strstr(err.reason, "/nonexistent/dir/x.data"));

	w = rawfrag_writer__new("/dev/full", &o, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "e", NULL, 0), 0);
	/* the header (magic, attrs, data size 0) goes out at start: it may fail there */
	ret = rawfrag_writer__start(w);
	for (int i = 0; i < 100000 && !ret; i++)
		ret = rawfrag_writer__write_sample(w, 0, &s, 0);
	if (!ret)
		ret = rawfrag_writer__finish(w);
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(rawfrag_writer__error(w)->err, -ENOSPC);
	assert_non_null(strstr(rawfrag_writer__error(w)->reason, "No space left"));
	/* sticky, and finish stays idempotent */
	assert_int_equal(rawfrag_writer__finish(w), -ENOSPC);
	assert_int_equal(rawfrag_writer__finish(w), -ENOSPC);
	rawfrag_writer__delete(w);
}

static void test_tracing_data(void **state)
{
	const char *ev[] = { "sched:sched_switch", "sched:sched_wakeup", "sched:sched_switch" };
	const char *bad[] = { "sched:no_such_event_x" }, *bad2[] = { "nocolon" };
	struct rawfrag_err err;
	uint8_t *blob;
	size_t len;

	if (access("/sys/kernel/tracing/events/sched/sched_switch/format", R_OK)) {
		skip();
		return;
	}
	for (int be = 0; be < 2; be++) {
		assert_int_equal(rawfrag_tracing_data__build(NULL, ev, 3, be, (void **)&blob, &len,
							     &err),
				 0);
		assert_memory_equal(blob, "\027\010\104tracing0.6", 14);
		assert_int_equal(blob[14], be);
		assert_int_equal(blob[15], sizeof(long));
		assert_int_equal(rawfrag__get32(blob + 16, be != host_be), getpagesize());
		assert_memory_equal(blob + 20, "header_page", 12);
		/* both formats, the duplicate once */
		assert_non_null(memmem(blob, len, "name: sched_switch", 18));
		assert_non_null(memmem(blob, len, "name: sched_wakeup", 18));
		assert_null(memmem(memmem(blob, len, "name: sched_switch", 18) + 1,
				   len - ((uint8_t *)memmem(blob, len, "name: sched_switch", 18) -
					  blob) - 1,
				   "name: sched_switch", 18));
		free(blob);
	}
	assert_int_equal(rawfrag_tracing_data__build(NULL, bad, 1, false, (void **)&blob, &len,
						     &err),
			 -ENOENT);
	assert_non_null(strstr(err.reason, "sched:no_such_event_x"));
	assert_int_equal(rawfrag_tracing_data__build(NULL, bad2, 1, false, (void **)&blob, &len,
						     &err),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_le),	  cmocka_unit_test(test_file_be),
		cmocka_unit_test(test_pipe_le),	  cmocka_unit_test(test_pipe_be),
		cmocka_unit_test(test_file_le_z), cmocka_unit_test(test_file_be_z),
		cmocka_unit_test(test_pipe_le_z), cmocka_unit_test(test_be_attr_bytes),
		cmocka_unit_test(test_write_error), cmocka_unit_test(test_tracing_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
