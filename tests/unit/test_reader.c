// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the perf.data reader. Every image is built here by hand, in
 * either byte order: file mode with features, EVENT_DESC and several attrs with
 * IDENTIFIER, pipe mode (file and fd), PERF_RECORD_COMPRESSED made with libzstd,
 * every attr size, and corrupt variants, each with its exact error.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include <rawfrag/file.h>

#define MAGIC 0x32454c4946524550ULL

/* ---- image builder: values written in the image's byte order ---- */

struct img {
	uint8_t *p;
	size_t len, cap;
	bool be;
};

static void put(struct img *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void p16(struct img *b, uint16_t v)
{
	v = b->be ? __builtin_bswap16(v) : v;
	put(b, &v, 2);
}

static void p32(struct img *b, uint32_t v)
{
	v = b->be ? __builtin_bswap32(v) : v;
	put(b, &v, 4);
}

static void p64(struct img *b, uint64_t v)
{
	v = b->be ? __builtin_bswap64(v) : v;
	put(b, &v, 8);
}

static void set32(struct img *b, size_t off, uint32_t v)
{
	v = b->be ? __builtin_bswap32(v) : v;
	memcpy(b->p + off, &v, 4);
}

static void set64(struct img *b, size_t off, uint64_t v)
{
	v = b->be ? __builtin_bswap64(v) : v;
	memcpy(b->p + off, &v, 8);
}

static void img_free(struct img *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static uint8_t bitrev8(uint8_t x)
{
	uint8_t r = 0;
	int i;

	for (i = 0; i < 8; i++)
		if (x & (1u << i))
			r |= (uint8_t)(0x80u >> i);
	return r;
}

/* perf_event_attr field by field; a big-endian writer's flag bytes are bit-reversed */
static void put_attr(struct img *b, const struct perf_event_attr *a, uint32_t size)
{
	struct img t = { .be = b->be };
	uint8_t fl[8];
	int i;

	p32(&t, a->type);
	p32(&t, size);
	p64(&t, a->config);
	p64(&t, a->sample_period);
	p64(&t, a->sample_type);
	p64(&t, a->read_format);
	memcpy(fl, (const uint8_t *)&a->read_format + 8, 8);
	for (i = 0; b->be && i < 8; i++)
		fl[i] = bitrev8(fl[i]);
	put(&t, fl, 8);
	p32(&t, a->wakeup_events);
	p32(&t, a->bp_type);
	p64(&t, a->config1);
	p64(&t, a->config2);
	p64(&t, a->branch_sample_type);
	p64(&t, a->sample_regs_user);
	p32(&t, a->sample_stack_user);
	p32(&t, (uint32_t)a->clockid);
	p64(&t, a->sample_regs_intr);
	p32(&t, a->aux_watermark);
	p16(&t, a->sample_max_stack);
	p16(&t, 0);
	p32(&t, a->aux_sample_size);
	p32(&t, 0);
	p64(&t, a->sig_data);
	assert_int_equal(t.len, 128);
	if (size > t.len)
		put(&t, NULL, size - t.len);
	put(b, t.p, size);
	img_free(&t);
}

/* perf_header_string: u32 len (strlen+1 rounded to 64), NUL padded */
static void put_str(struct img *b, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);

	p32(b, len);
	put(b, s, strlen(s));
	put(b, NULL, len - strlen(s));
}

static void put_hdr(struct img *b, uint32_t type, uint16_t misc, uint16_t size)
{
	p32(b, type);
	p16(b, misc);
	p16(b, size);
}

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/* a SAMPLE of sample_type ST with a raw area of rawlen bytes (rawlen % 8 == 4) */
static void put_sample(struct img *b, uint64_t id, uint32_t pid, uint64_t time, uint32_t rawlen)
{
	uint32_t i;

	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)(8 + 6 * 8 + 4 + rawlen));
	p64(b, id);
	p64(b, 0x400000 + time);
	p32(b, pid);
	p32(b, pid + 1);
	p64(b, time);
	p32(b, 1);
	p32(b, 0);
	p64(b, 1);
	p32(b, rawlen);
	for (i = 0; i < rawlen; i++)
		put(b, &(uint8_t){ (uint8_t)i }, 1);
}

/* COMM with a sample_id_all trailer for ST: TID, TIME, CPU, IDENTIFIER */
static void put_comm(struct img *b, uint32_t pid, const char *comm, uint64_t id)
{
	put_hdr(b, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 32);
	p32(b, pid);
	p32(b, pid);
	put(b, NULL, 16);
	memcpy(b->p + b->len - 16, comm, strlen(comm));
	p32(b, pid);
	p32(b, pid);
	p64(b, 10);
	p32(b, 0);
	p32(b, 0);
	p64(b, id);
}

struct feat_in {
	int bit;
	struct img pl;
};

struct spec {
	int nr_attrs;
	struct perf_event_attr attr[4];
	uint32_t attr_sz;
	int nr_ids[4];
	uint64_t ids[4][4];
	struct img data;
	int nr_feats;
	struct feat_in feats[8]; /* ascending bits */
};

struct layout {
	size_t attrs_off, data_off, data_size, table_off;
};

static struct img build_file(bool be, struct spec *s, struct layout *lay)
{
	struct img b = { .be = be };
	size_t ids_off[4], attrs_off, data_off, table_off;
	uint64_t bm[4] = { 0 };
	int i, j;

	put(&b, NULL, 104);
	for (i = 0; i < s->nr_attrs; i++) {
		ids_off[i] = b.len;
		for (j = 0; j < s->nr_ids[i]; j++)
			p64(&b, s->ids[i][j]);
	}
	attrs_off = b.len;
	for (i = 0; i < s->nr_attrs; i++) {
		put_attr(&b, &s->attr[i], s->attr_sz);
		p64(&b, ids_off[i]);
		p64(&b, 8 * (uint64_t)s->nr_ids[i]);
	}
	data_off = b.len;
	put(&b, s->data.p, s->data.len);
	table_off = b.len;
	put(&b, NULL, 16 * (size_t)s->nr_feats);
	for (i = 0; i < s->nr_feats; i++) {
		set64(&b, table_off + 16 * i, b.len);
		set64(&b, table_off + 16 * i + 8, s->feats[i].pl.len);
		put(&b, s->feats[i].pl.p, s->feats[i].pl.len);
		bm[s->feats[i].bit / 64] |= 1ULL << (s->feats[i].bit % 64);
	}
	set64(&b, 0, MAGIC);
	set64(&b, 8, 104);
	set64(&b, 16, s->attr_sz + 16);
	set64(&b, 24, attrs_off);
	set64(&b, 32, data_off - attrs_off);
	set64(&b, 40, data_off);
	set64(&b, 48, s->data.len);
	for (i = 0; i < 4; i++)
		set64(&b, 72 + 8 * i, bm[i]);
	if (lay) {
		lay->attrs_off = attrs_off;
		lay->data_off = data_off;
		lay->data_size = s->data.len;
		lay->table_off = table_off;
	}
	return b;
}

static void spec_free(struct spec *s)
{
	int i;

	img_free(&s->data);
	for (i = 0; i < s->nr_feats; i++)
		img_free(&s->feats[i].pl);
}

static struct img *add_feat(struct spec *s, int bit, bool be)
{
	struct feat_in *f = &s->feats[s->nr_feats++];

	f->bit = bit;
	f->pl.be = be;
	return &f->pl;
}

/*
 * The reference file: a tracepoint attr (ids 101, 102) and a software attr
 * (id 201), IDENTIFIER everywhere, features HOSTNAME, NRCPUS, CMDLINE,
 * EVENT_DESC (names both), PMU_MAPPINGS; COMM, 3 samples, LOST, FINISHED_ROUND.
 */
static void ref_spec(struct spec *s, bool be)
{
	struct perf_event_attr *a;
	struct img *p;
	int i;

	memset(s, 0, sizeof(*s));
	s->nr_attrs = 2;
	s->attr_sz = 128;
	for (i = 0; i < 2; i++) {
		a = &s->attr[i];
		a->type = i ? PERF_TYPE_SOFTWARE : PERF_TYPE_TRACEPOINT;
		a->size = 128;
		a->config = i ? 10 : 372;
		a->sample_period = 1;
		a->sample_type = ST;
		a->sample_id_all = 1;
		a->disabled = 1;
		a->inherit = 1;
		a->exclude_kernel = (unsigned)i;
		a->precise_ip = 2;
		a->wakeup_events = 1;
		a->sample_regs_user = 0xff0;
		a->sample_stack_user = 8192;
		a->aux_sample_size = 4096;
	}
	s->nr_ids[0] = 2;
	s->ids[0][0] = 101;
	s->ids[0][1] = 102;
	s->nr_ids[1] = 1;
	s->ids[1][0] = 201;

	s->data.be = be;
	put_comm(&s->data, 42, "mytool", 0);
	put_sample(&s->data, 101, 42, 100, 12);
	put_sample(&s->data, 102, 42, 101, 68);
	put_sample(&s->data, 201, 42, 102, 4);
	put_hdr(&s->data, PERF_RECORD_LOST, 0, 24 + 32);
	p64(&s->data, 101);
	p64(&s->data, 7);
	put(&s->data, NULL, 24);
	p64(&s->data, 201); /* trailer IDENTIFIER */
	put_hdr(&s->data, RAWFRAG_RECORD_FINISHED_ROUND, 0, 8);

	put_str(add_feat(s, RAWFRAG_FEAT_HOSTNAME, be), "testhost");
	p = add_feat(s, RAWFRAG_FEAT_NRCPUS, be);
	p32(p, 8);
	p32(p, 4);
	p = add_feat(s, RAWFRAG_FEAT_CMDLINE, be);
	p32(p, 2);
	put_str(p, "perf");
	put_str(p, "record");
	p = add_feat(s, RAWFRAG_FEAT_EVENT_DESC, be);
	p32(p, 2);
	p32(p, 128);
	for (i = 0; i < 2; i++) {
		put_attr(p, &s->attr[i], 128);
		p32(p, (uint32_t)s->nr_ids[i]);
		put_str(p, i ? "my:bpf" : "sched:sched_switch");
		p64(p, s->ids[i][0]);
		if (s->nr_ids[i] > 1)
			p64(p, s->ids[i][1]);
	}
	p = add_feat(s, RAWFRAG_FEAT_PMU_MAPPINGS, be);
	p32(p, 2);
	p32(p, 2);
	put_str(p, "tracepoint");
	p32(p, 42);
	put_str(p, "ibs_op");
}

/* ---- running the reader ---- */

struct msgs {
	char buf[2048];
	int n;
};

static int print_cb(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct msgs *m = ctx;
	size_t len = strlen(m->buf);

	m->n++;
	vsnprintf(m->buf + len, sizeof(m->buf) - len, fmt, ap);
	return 0;
}

static char *write_tmp(const struct img *b)
{
	char *path = strdup("/tmp/rawfrag-test-reader.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->p, b->len), (ssize_t)b->len);
	close(fd);
	return path;
}

static struct rawfrag_file *open_img(const struct img *b, bool force, struct msgs *m,
				     struct rawfrag_err *err)
{
	RAWFRAG_OPTS(rawfrag_file_opts, opts, .force = force);
	struct rawfrag_file *f;
	char *path = write_tmp(b);

	if (m) {
		opts.print = print_cb;
		opts.print_ctx = m;
	}
	f = rawfrag_file__open(path, &opts, err);
	unlink(path); /* the open fd/mapping keeps it */
	free(path);
	return f;
}

static void expect_open_err(const struct img *b, int64_t off, uint32_t type, const char *reason)
{
	struct rawfrag_err err;
	struct rawfrag_file *f;

	memset(&err, 0, sizeof(err));
	f = open_img(b, false, NULL, &err);
	assert_null(f);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(err.err, -EINVAL);
	assert_string_equal(err.reason, reason);
	assert_int_equal(err.offset, off);
	assert_int_equal(err.rec_type, type);
}

/*
 * An interrupted recording: refused with where and how many complete records,
 * and --force reads exactly those records.
 */
static void expect_interrupted(const struct img *b, const char *why)
{
	struct rawfrag_err err;
	struct rawfrag_record rec;
	struct rawfrag_file *f;
	char want[256];
	unsigned long long off = 0, n = 0, walked = 0, end;

	memset(&err, 0, sizeof(err));
	f = open_img(b, false, NULL, &err);
	assert_null(f);
	assert_int_equal(err.err, -EINVAL);
	assert_int_equal(sscanf(err.reason, "DATA: recording was interrupted at offset %llu; %llu complete",
				&off, &n), 2);
	snprintf(want, sizeof(want),
		 "DATA: recording was interrupted at offset %llu; %llu complete records (%s; --force reads them)",
		 off, n, why);
	assert_string_equal(err.reason, want);
	assert_int_equal(err.offset, (int64_t)off);
	f = open_img(b, true, NULL, &err);
	assert_non_null(f);
	end = rawfrag_file__data_offset(f);
	while (rawfrag_file__next(f, &rec) == 1) {
		walked++;
		end = rec.offset + rec.size;
	}
	assert_int_equal(walked, n);
	assert_int_equal(end, off);
	assert_true(off <= b->len);
	rawfrag_file__close(f);
}

/* walk to the end; returns the last next() result, counts records */
static int walk(struct rawfrag_file *f, int *nr)
{
	struct rawfrag_record rec;
	int r;

	*nr = 0;
	while ((r = rawfrag_file__next(f, &rec)) == 1)
		(*nr)++;
	return r;
}

static void expect_walk_err(const struct img *b, int64_t off, uint32_t type, const char *reason)
{
	const struct rawfrag_err *e;
	struct rawfrag_file *f;
	int nr;

	f = open_img(b, false, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(walk(f, &nr), -EINVAL);
	e = rawfrag_file__error(f);
	assert_string_equal(e->reason, reason);
	assert_int_equal(e->offset, off);
	assert_int_equal(e->rec_type, type);
	/* a failed walk stays failed */
	assert_int_equal(walk(f, &nr), -EINVAL);
	rawfrag_file__close(f);
}

/* ---- tests ---- */

static void test_names(void **state)
{
	struct rawfrag_err e = { .err = -EINVAL, .offset = 0x1a8, .rec_type = 9 };
	char buf[128];

	assert_string_equal(rawfrag_record_type__name(9), "SAMPLE");
	assert_string_equal(rawfrag_record_type__name(10), "MMAP2");
	assert_string_equal(rawfrag_record_type__name(13), "LOST_SAMPLES");
	assert_string_equal(rawfrag_record_type__name(21), "AUX_OUTPUT_HW_ID");
	assert_string_equal(rawfrag_record_type__name(64), "HEADER_ATTR");
	assert_string_equal(rawfrag_record_type__name(68), "FINISHED_ROUND");
	assert_string_equal(rawfrag_record_type__name(81), "COMPRESSED");
	assert_string_equal(rawfrag_record_type__name(82), "FINISHED_INIT");
	assert_string_equal(rawfrag_record_type__name(0), "UNKNOWN(0)");
	assert_string_equal(rawfrag_record_type__name(22), "UNKNOWN(22)");
	assert_string_equal(rawfrag_record_type__name(83), "UNKNOWN(83)");
	assert_string_equal(rawfrag_record_type__name(200), "UNKNOWN(200)");

	/* perf_event__name(): what perf report --stats prints */
	assert_string_equal(rawfrag_record_type__perf_name(0), "TOTAL");
	assert_string_equal(rawfrag_record_type__perf_name(9), "SAMPLE");
	assert_string_equal(rawfrag_record_type__perf_name(21), "AUX_OUTPUT_HW_ID");
	assert_string_equal(rawfrag_record_type__perf_name(22), "UNKNOWN");
	assert_string_equal(rawfrag_record_type__perf_name(63), "UNKNOWN");
	assert_string_equal(rawfrag_record_type__perf_name(64), "ATTR");
	assert_string_equal(rawfrag_record_type__perf_name(65), "EVENT_TYPE");
	assert_string_equal(rawfrag_record_type__perf_name(66), "TRACING_DATA");
	assert_string_equal(rawfrag_record_type__perf_name(67), "BUILD_ID");
	assert_string_equal(rawfrag_record_type__perf_name(68), "FINISHED_ROUND");
	assert_string_equal(rawfrag_record_type__perf_name(78), "EVENT_UPDATE");
	assert_string_equal(rawfrag_record_type__perf_name(80), "FEATURE");
	assert_string_equal(rawfrag_record_type__perf_name(81), "COMPRESSED");
	assert_string_equal(rawfrag_record_type__perf_name(82), "FINISHED_INIT");
	assert_string_equal(rawfrag_record_type__perf_name(83), "INVALID");
	assert_string_equal(rawfrag_record_type__perf_name(UINT32_MAX), "INVALID");

	strcpy(e.reason, "record size 4 < 8");
	assert_string_equal(rawfrag_err__format(&e, "x.data", buf, sizeof(buf)),
			    "x.data: offset 0x1a8: SAMPLE: record size 4 < 8");
	e.offset = -1;
	e.rec_type = 0;
	assert_string_equal(rawfrag_err__format(&e, "x.data", buf, sizeof(buf)),
			    "x.data: record size 4 < 8");
	assert_string_equal(rawfrag_err__format(&e, NULL, buf, sizeof(buf)), "record size 4 < 8");
	e.rec_type = 1000;
	e.offset = 0;
	assert_string_equal(rawfrag_err__format(&e, "p", buf, sizeof(buf)),
			    "p: offset 0x0: UNKNOWN(1000): record size 4 < 8");
	/* truncation keeps the buffer terminated */
	assert_int_equal(strlen(rawfrag_err__format(&e, "p", buf, 8)), 7);
	assert_non_null(rawfrag_version());
}

static void check_ref(struct rawfrag_file *f, const struct spec *s, bool be)
{
	const struct rawfrag_env *env = rawfrag_file__env(f);
	const struct rawfrag_file_stats *st;
	struct rawfrag_record rec;
	struct rawfrag_evsel *e0, *e1, *e;
	const struct perf_event_attr *a;
	int i, nr = 0;
	uint8_t swapped[8];

	assert_int_equal(rawfrag_file__needs_swap(f), be);
	assert_int_equal(rawfrag_file__big_endian(f), be);
	assert_int_equal(rawfrag_file__nr_evsels(f), 2);
	e0 = rawfrag_file__evsel(f, 0);
	e1 = rawfrag_file__evsel(f, 1);
	assert_string_equal(rawfrag_evsel__name(e0), "sched:sched_switch");
	assert_string_equal(rawfrag_evsel__name(e1), "my:bpf");
	assert_string_equal(rawfrag_evsel__pmu_name(e0), "tracepoint");
	assert_string_equal(rawfrag_evsel__pmu_name(e1), "software");
	assert_int_equal(rawfrag_evsel__nr_ids(e0), 2);
	assert_int_equal(rawfrag_evsel__ids(e0)[1], 102);
	for (i = 0; i < 2; i++) {
		a = rawfrag_evsel__attr(rawfrag_file__evsel(f, i));
		/* every field perf swaps, and the bit-reversed flags, come back */
		assert_int_equal(a->type, s->attr[i].type);
		assert_int_equal(a->size, 128);
		assert_int_equal(a->config, s->attr[i].config);
		assert_int_equal(a->sample_type, ST);
		assert_int_equal(a->sample_id_all, 1);
		assert_int_equal(a->disabled, 1);
		assert_int_equal(a->inherit, 1);
		assert_int_equal(a->exclude_kernel, (unsigned)i);
		assert_int_equal(a->exclude_user, 0);
		assert_int_equal(a->precise_ip, 2);
		assert_int_equal(a->wakeup_events, 1);
		assert_int_equal(a->sample_regs_user, 0xff0);
		assert_int_equal(a->sample_stack_user, 8192);
		assert_int_equal(a->aux_sample_size, 4096);
	}
	assert_string_equal(env->hostname, "testhost");
	assert_int_equal(env->nr_cpus_avail, 8);
	assert_int_equal(env->nr_cpus_online, 4);
	assert_int_equal(env->nr_cmdline, 2);
	assert_string_equal(env->cmdline[1], "record");
	assert_int_equal(env->nr_pmu_mappings, 2);
	assert_string_equal(env->pmu_mappings[1].name, "ibs_op");
	assert_true(rawfrag_file__has_feature(f, RAWFRAG_FEAT_NRCPUS));
	assert_false(rawfrag_file__has_feature(f, RAWFRAG_FEAT_ARCH));

	while (rawfrag_file__next(f, &rec) == 1) {
		e = rawfrag_file__evsel_of(f, &rec);
		switch (nr++) {
		case 0: /* COMM, trailer id 0 -> first evsel */
			assert_int_equal(rec.type, PERF_RECORD_COMM);
			assert_ptr_equal(e, e0);
			break;
		case 1:
		case 2:
			assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
			assert_ptr_equal(e, e0);
			break;
		case 3:
			assert_ptr_equal(e, e1);
			/* record data stays in file order */
			memcpy(swapped, (const uint8_t *)rec.data + 8, 8);
			assert_int_equal(rawfrag__get64(swapped, be), 201);
			break;
		case 4: /* LOST: trailer IDENTIFIER 201 */
			assert_int_equal(rec.type, PERF_RECORD_LOST);
			assert_ptr_equal(e, e1);
			break;
		case 5:
			assert_int_equal(rec.type, RAWFRAG_RECORD_FINISHED_ROUND);
			assert_null(e);
			break;
		}
		assert_int_equal(rec.size, rawfrag__get16((const uint8_t *)rec.data + 6, be));
	}
	assert_int_equal(nr, 6);
	st = rawfrag_file__stats(f);
	assert_int_equal(rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE), 3);
	assert_int_equal(rawfrag_file__nr_records(f, PERF_RECORD_COMM), 1);
	assert_int_equal(st->nr_lost_records, 1);
	assert_int_equal(st->nr_lost, 7);
	/* rewind gives the same walk */
	assert_int_equal(rawfrag_file__rewind(f), 0);
	assert_int_equal(walk(f, &nr), 0);
	assert_int_equal(nr, 6);
	assert_int_equal(rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE), 3);
}

static void run_ref(bool be)
{
	struct spec s;
	struct img b;
	struct rawfrag_file *f;
	struct rawfrag_err err;

	ref_spec(&s, be);
	b = build_file(be, &s, NULL);
	f = open_img(&b, false, NULL, &err);
	assert_non_null(f);
	check_ref(f, &s, be);
	rawfrag_file__close(f);
	img_free(&b);
	spec_free(&s);
}

static void test_file_le(void **state)
{
	run_ref(false);
}

static void test_file_be(void **state)
{
	run_ref(true);
}

static void test_evsel_of_ids(void **state)
{
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE, .size = 16 };
	uint64_t buf[4] = { 0 };
	struct rawfrag_file *f;
	struct spec s;
	struct img b;

	ref_spec(&s, false);
	b = build_file(false, &s, NULL);
	f = open_img(&b, false, NULL, NULL);
	assert_non_null(f);
	rec.data = buf;
	buf[1] = 999; /* unknown id */
	errno = 0;
	assert_null(rawfrag_file__evsel_of(f, &rec));
	assert_int_equal(errno, ENOENT);
	buf[1] = 0; /* id 0 -> first */
	assert_ptr_equal(rawfrag_file__evsel_of(f, &rec), rawfrag_file__evsel(f, 0));
	buf[1] = 201;
	assert_ptr_equal(rawfrag_file__evsel_of(f, &rec), rawfrag_file__evsel(f, 1));
	/* a SAMPLE too short to hold the id */
	rec.size = 8;
	assert_null(rawfrag_file__evsel_of(f, &rec));
	/* non-sample: id read from the end */
	rec.type = PERF_RECORD_EXIT;
	rec.size = 32;
	buf[3] = 102;
	assert_ptr_equal(rawfrag_file__evsel_of(f, &rec), rawfrag_file__evsel(f, 0));
	rawfrag_file__close(f);
	img_free(&b);
	spec_free(&s);
}

/* ID instead of IDENTIFIER: id_pos after IP/TID/TIME, is_pos 1 + CPU */
static void test_evsel_of_id_pos(void **state)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		      PERF_SAMPLE_CPU;
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE, .size = 8 + 5 * 8 };
	uint64_t buf[6] = { 0 };
	struct rawfrag_file *f;
	struct spec s;
	struct img b;

	ref_spec(&s, false);
	s.attr[0].sample_type = s.attr[1].sample_type = st;
	b = build_file(false, &s, NULL);
	f = open_img(&b, false, NULL, NULL);
	assert_non_null(f);
	rec.data = buf;
	buf[4] = 201; /* header, ip, tid, time, id */
	assert_ptr_equal(rawfrag_file__evsel_of(f, &rec), rawfrag_file__evsel(f, 1));
	rec.type = PERF_RECORD_COMM;
	buf[4] = 0;
	buf[5] = 0;
	buf[4] = 102; /* trailer ... ID, CPU: id is second from the end */
	assert_ptr_equal(rawfrag_file__evsel_of(f, &rec), rawfrag_file__evsel(f, 0));
	rawfrag_file__close(f);
	img_free(&b);
	spec_free(&s);
}

static void test_attr_sizes(void **state)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 168 };
	size_t i;
	int be;

	for (be = 0; be < 2; be++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct rawfrag_file *f;
			const struct perf_event_attr *a;
			struct msgs m = { "" };
			struct spec s;
			struct img b;
			int nr;

			ref_spec(&s, be);
			s.attr_sz = sizes[i];
			s.attr[0].config2 = 0x77;
			s.attr[0].sample_regs_intr = 0x55;
			s.attr[0].aux_watermark = 3;
			b = build_file(be, &s, NULL);
			f = open_img(&b, false, &m, NULL);
			assert_non_null(f);
			a = rawfrag_evsel__attr(rawfrag_file__evsel(f, 0));
			assert_int_equal(a->size, sizes[i]);
			assert_int_equal(a->config, 372);
			assert_int_equal(a->sample_type, ST);
			assert_int_equal(a->sample_id_all, 1);
			/* fields past attr.size read as zero */
			assert_int_equal(a->config2, sizes[i] >= 72 ? 0x77 : 0);
			assert_int_equal(a->sample_regs_user, sizes[i] >= 96 ? 0xff0 : 0);
			/* perf 6.1's perf_event__attr_swap leaves sample_regs_intr unswapped */
			assert_int_equal(a->sample_regs_intr,
					 sizes[i] < 104 ? 0 : be ? __builtin_bswap64(0x55) : 0x55);
			assert_int_equal(a->aux_watermark, sizes[i] >= 112 ? 3 : 0);
			assert_int_equal(a->aux_sample_size, sizes[i] >= 120 ? 4096 : 0);
			assert_int_equal(rawfrag_evsel__ids(rawfrag_file__evsel(f, 1))[0], 201);
			if (sizes[i] > 128)
				assert_non_null(strstr(m.buf, "more than known"));
			assert_int_equal(walk(f, &nr), 0);
			assert_int_equal(nr, 6);
			rawfrag_file__close(f);
			img_free(&b);
			spec_free(&s);
		}
	}
}

/* a byte-swapped file without HOSTNAME: perf assumes BUILD_ID only */
static void test_be_no_hostname(void **state)
{
	struct rawfrag_file *f;
	struct msgs m = { "" };
	struct spec s;
	struct img b;
	int i;

	ref_spec(&s, true);
	img_free(&s.feats[0].pl); /* drop HOSTNAME */
	for (i = 1; i < s.nr_feats; i++)
		s.feats[i - 1] = s.feats[i];
	s.nr_feats--;
	b = build_file(true, &s, NULL);
	f = open_img(&b, false, &m, NULL);
	assert_non_null(f);
	assert_false(rawfrag_file__has_feature(f, RAWFRAG_FEAT_NRCPUS));
	assert_false(rawfrag_file__has_feature(f, RAWFRAG_FEAT_EVENT_DESC));
	assert_int_equal(rawfrag_file__env(f)->nr_cpus_avail, 0);
	assert_non_null(strstr(m.buf, "without HOSTNAME"));
	assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 0)), "tracepoint:372");
	assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 1)), "bpf-output");
	rawfrag_file__close(f);
	img_free(&b);
	spec_free(&s);
}

static void test_generated_names(void **state)
{
	static const struct {
		uint32_t type;
		uint64_t config;
		const char *name;
	} cases[] = {
		{ PERF_TYPE_HARDWARE, 0, "cycles" },	   { PERF_TYPE_SOFTWARE, 0, "cpu-clock" },
		{ PERF_TYPE_SOFTWARE, 10, "bpf-output" }, { PERF_TYPE_RAW, 0x1c2, "raw 0x1c2" },
		{ 42, 0x19, "ibs_op/config=0x19/" },	   { PERF_TYPE_TRACEPOINT, 7, "tracepoint:7" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rawfrag_file *f;
		struct spec s;
		struct img b;

		ref_spec(&s, false);
		s.nr_feats = 4; /* keep PMU_MAPPINGS out of the way: drop EVENT_DESC */
		img_free(&s.feats[3].pl);
		s.feats[3] = s.feats[4];
		s.attr[0].type = cases[i].type;
		s.attr[0].config = cases[i].config;
		b = build_file(false, &s, NULL);
		f = open_img(&b, false, NULL, NULL);
		assert_non_null(f);
		assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 0)), cases[i].name);
		assert_int_equal(rawfrag_evsel__set_name(rawfrag_file__evsel(f, 0), "x:y"), 0);
		assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 0)), "x:y");
		rawfrag_file__close(f);
		img_free(&b);
		spec_free(&s);
	}
}

/* ---- pipe mode ---- */

static const char blob[] = "\x17\x08\x44tracing0.6\0\0\x08\x00\x10\x00\x00";

static struct img build_pipe(bool be, bool with_feat_end)
{
	struct img b = { .be = be };
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = 128, .config = 372,
				     .sample_type = ST, .sample_id_all = 1, .disabled = 1 };
	struct perf_event_attr a2 = a;
	uint32_t blen = (sizeof(blob) + 7) / 8 * 8;

	a2.type = PERF_TYPE_SOFTWARE;
	a2.config = 9;
	p64(&b, MAGIC);
	p64(&b, 16);
	put_hdr(&b, RAWFRAG_RECORD_HEADER_ATTR, 0, 8 + 128 + 16);
	put_attr(&b, &a, 128);
	p64(&b, 101);
	p64(&b, 102);
	put_hdr(&b, RAWFRAG_RECORD_HEADER_ATTR, 0, 8 + 128 + 8);
	put_attr(&b, &a2, 128);
	p64(&b, 201);
	put_hdr(&b, RAWFRAG_RECORD_HEADER_FEATURE, 0, 16 + 4 + 64);
	p64(&b, RAWFRAG_FEAT_HOSTNAME);
	put_str(&b, "pipehost");
	put_hdr(&b, RAWFRAG_RECORD_HEADER_FEATURE, 0, 16 + 8);
	p64(&b, RAWFRAG_FEAT_NRCPUS);
	p32(&b, 2);
	p32(&b, 2);
	if (with_feat_end) {
		put_hdr(&b, RAWFRAG_RECORD_HEADER_FEATURE, 0, 16);
		p64(&b, RAWFRAG_FEAT_LAST);
	}
	put_hdr(&b, RAWFRAG_RECORD_HEADER_TRACING_DATA, 0, 16);
	p32(&b, blen);
	p32(&b, 0);
	put(&b, blob, sizeof(blob));
	put(&b, NULL, blen - sizeof(blob));
	put_hdr(&b, RAWFRAG_RECORD_EVENT_UPDATE, 0, 24 + 16);
	p64(&b, 2);
	p64(&b, 201);
	put(&b, "dummy:u\0\0\0\0\0\0\0\0\0", 16);
	put_comm(&b, 42, "mytool", 0);
	put_sample(&b, 102, 42, 100, 12);
	put_sample(&b, 201, 42, 101, 4);
	put_hdr(&b, RAWFRAG_RECORD_FINISHED_ROUND, 0, 8);
	return b;
}

static void check_pipe(struct rawfrag_file *f, bool be)
{
	struct rawfrag_record rec;
	const struct rawfrag_env *env = rawfrag_file__env(f);
	int nr = 0, nr_samples = 0;

	assert_int_equal(rawfrag_file__mode(f), RAWFRAG_MODE_PIPE);
	assert_int_equal(rawfrag_file__needs_swap(f), be);
	assert_int_equal(rawfrag_file__rewind(f), -ESPIPE);
	while (rawfrag_file__next(f, &rec) == 1) {
		nr++;
		if (rec.type == RAWFRAG_RECORD_HEADER_TRACING_DATA) {
			assert_int_equal(rec.trailer_size, (sizeof(blob) + 7) / 8 * 8);
			assert_memory_equal(rec.trailer, blob, sizeof(blob));
		}
		if (rec.type == PERF_RECORD_SAMPLE) {
			struct rawfrag_evsel *e = rawfrag_file__evsel_of(f, &rec);

			assert_non_null(e);
			assert_int_equal(rawfrag_evsel__idx(e), nr_samples++ ? 1 : 0);
		}
	}
	assert_int_equal(nr, 11);
	assert_int_equal(nr_samples, 2);
	assert_int_equal(rawfrag_file__nr_evsels(f), 2);
	assert_int_equal(rawfrag_evsel__attr(rawfrag_file__evsel(f, 0))->config, 372);
	assert_int_equal(rawfrag_evsel__attr(rawfrag_file__evsel(f, 0))->sample_id_all, 1);
	assert_int_equal(rawfrag_evsel__attr(rawfrag_file__evsel(f, 0))->disabled, 1);
	assert_string_equal(rawfrag_evsel__name(rawfrag_file__evsel(f, 1)), "dummy:u");
	assert_string_equal(env->hostname, "pipehost");
	assert_int_equal(env->nr_cpus_online, 2);
	assert_int_equal(env->tracing_data_size, (sizeof(blob) + 7) / 8 * 8);
	assert_memory_equal(env->tracing_data, blob, sizeof(blob));
	assert_int_equal(rawfrag_file__nr_records(f, RAWFRAG_RECORD_HEADER_FEATURE), 3);
}

static void run_pipe(bool be)
{
	struct img b = build_pipe(be, true);
	RAWFRAG_OPTS(rawfrag_file_opts, opts);
	struct rawfrag_file *f;
	int fds[2];

	/* as a regular file */
	f = open_img(&b, false, NULL, NULL);
	assert_non_null(f);
	check_pipe(f, be);
	rawfrag_file__close(f);
	/* from a pipe fd */
	assert_true(b.len < 60000);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], b.p, b.len), (ssize_t)b.len);
	close(fds[1]);
	opts.use_fd = true;
	opts.fd = fds[0];
	f = rawfrag_file__open("-", &opts, NULL);
	assert_non_null(f);
	check_pipe(f, be);
	rawfrag_file__close(f);
	close(fds[0]);
	img_free(&b);
}

static void test_pipe_le(void **state)
{
	run_pipe(false);
}

static void test_pipe_be(void **state)
{
	run_pipe(true);
}

static void test_pipe_errors(void **state)
{
	struct img b = build_pipe(false, true);
	struct img c = { 0 };
	char reason[128];

	/* header size */
	set64(&b, 8, 24);
	expect_open_err(&b, 8, 0, "HEADER: unsupported header size 24");
	set64(&b, 8, 16);
	/* truncated inside the last (64-byte) sample, FINISHED_ROUND is the last 8 bytes */
	b.len -= 8 + 10;
	expect_walk_err(&b, (int64_t)(b.len - 54), PERF_RECORD_SAMPLE,
			"truncated record: 54 of 64 bytes");
	/* truncated tracing data blob */
	c.be = false;
	p64(&c, MAGIC);
	p64(&c, 16);
	put_hdr(&c, RAWFRAG_RECORD_HEADER_TRACING_DATA, 0, 16);
	p32(&c, 4096);
	p32(&c, 0);
	put(&c, blob, sizeof(blob));
	snprintf(reason, sizeof(reason), "truncated: %zu of 4096 bytes following the record",
		 sizeof(blob));
	expect_walk_err(&c, 16, RAWFRAG_RECORD_HEADER_TRACING_DATA, reason);
	img_free(&c);
	/* HEADER_ATTR whose attr.size runs past the record */
	p64(&c, MAGIC);
	p64(&c, 16);
	put_hdr(&c, RAWFRAG_RECORD_HEADER_ATTR, 0, 8 + 72);
	put(&c, NULL, 72);
	set32(&c, 16 + 8 + 4, 128);
	expect_walk_err(&c, 16, RAWFRAG_RECORD_HEADER_ATTR, "attr size beyond its section");
	img_free(&c);
	/* EVENT_UPDATE(NAME) without its NUL: an error, or skipped with force */
	p64(&c, MAGIC);
	p64(&c, 16);
	put_hdr(&c, RAWFRAG_RECORD_EVENT_UPDATE, 0, 24 + 8);
	p64(&c, 2);
	p64(&c, 0);
	put(&c, "abcdefgh", 8);
	put_hdr(&c, RAWFRAG_RECORD_FINISHED_ROUND, 0, 8);
	expect_walk_err(&c, 16, RAWFRAG_RECORD_EVENT_UPDATE, "name not NUL-terminated");
	{
		struct rawfrag_file *f = open_img(&c, true, NULL, NULL);
		int nr;

		assert_non_null(f);
		assert_int_equal(walk(f, &nr), 0);
		assert_int_equal(nr, 1);
		assert_int_equal(rawfrag_file__stats(f)->nr_skipped, 1);
		assert_int_equal(rawfrag_file__stats(f)->bytes_skipped, 32);
		rawfrag_file__close(f);
	}
	img_free(&c);
	img_free(&b);
}

/* ---- compressed ---- */

/* Compress data (the reference records) into COMPRESSED records of at most chunk
 * input bytes each, one zstd stream flushed per record as perf record -z does. */
static struct img compress_records(const struct img *data, size_t chunk, bool be)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct img out = { .be = be };
	size_t pos = 0;

	assert_non_null(cc);
	while (pos < data->len) {
		size_t n = data->len - pos < chunk ? data->len - pos : chunk, hdr = out.len, r;
		uint8_t buf[65536];
		ZSTD_inBuffer in = { data->p + pos, n, 0 };
		ZSTD_outBuffer ob = { buf, sizeof(buf) - 8, 0 };

		r = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_flush);
		assert_false(ZSTD_isError(r));
		assert_int_equal(r, 0);
		assert_int_equal(in.pos, n);
		put_hdr(&out, RAWFRAG_RECORD_COMPRESSED, 0, (uint16_t)(8 + ob.pos));
		put(&out, buf, ob.pos);
		(void)hdr;
		pos += n;
	}
	ZSTD_freeCCtx(cc);
	return out;
}

/* offset of the last record of a LE record stream */
static size_t last_rec_off(const struct img *d)
{
	size_t off = 0, last = 0;

	while (off + 8 <= d->len) {
		last = off;
		off += rawfrag__get16(d->p + off + 6, false);
	}
	return last;
}

static void run_compressed(bool be)
{
	struct rawfrag_record rec;
	struct rawfrag_file *f, *g;
	struct spec s;
	struct img b, plain, z;
	struct img *p;
	int nr = 0, r;
	size_t plain_len;

	ref_spec(&s, be);
	plain = build_file(be, &s, NULL);
	plain_len = s.data.len;
	/* 37-byte chunks: most records straddle two COMPRESSED records */
	z = compress_records(&s.data, 37, be);
	img_free(&s.data);
	s.data = z;
	p = add_feat(&s, RAWFRAG_FEAT_COMPRESSED, be);
	p32(p, 0);
	p32(p, 1);
	p32(p, 1);
	p32(p, 3);
	p32(p, 528384);
	b = build_file(be, &s, NULL);
	f = open_img(&b, false, NULL, NULL);
	g = open_img(&plain, false, NULL, NULL);
	assert_non_null(f);
	assert_non_null(g);
	assert_true(rawfrag_file__env(f)->has_compressed);
	assert_int_equal(rawfrag_file__env(f)->comp_mmap_len, 528384);
	/* the same records, byte for byte, as the uncompressed file */
	while ((r = rawfrag_file__next(f, &rec)) == 1) {
		struct rawfrag_record want;

		assert_int_equal(rawfrag_file__next(g, &want), 1);
		assert_true(rec.in_compressed);
		assert_int_equal(rec.type, want.type);
		assert_int_equal(rec.size, want.size);
		assert_memory_equal(rec.data, want.data, rec.size);
		assert_int_equal(rawfrag_evsel__idx(rawfrag_file__evsel_of(f, &rec)),
				 rawfrag_evsel__idx(rawfrag_file__evsel_of(g, &want)));
		nr++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(nr, 6);
	assert_int_equal(rawfrag_file__next(g, &rec), 0);
	assert_int_equal(rawfrag_file__stats(f)->nr_decompressed_bytes, plain_len);
	assert_true(rawfrag_file__nr_records(f, RAWFRAG_RECORD_COMPRESSED) > 5);
	/* rewind restarts the zstd stream */
	assert_int_equal(rawfrag_file__rewind(f), 0);
	assert_int_equal(walk(f, &nr), 0);
	assert_int_equal(nr, 6);
	rawfrag_file__close(f);
	rawfrag_file__close(g);
	img_free(&b);
	img_free(&plain);
	spec_free(&s);
}

static void test_compressed_le(void **state)
{
	run_compressed(false);
}

static void test_compressed_be(void **state)
{
	run_compressed(true);
}

static void test_compressed_errors(void **state)
{
	struct img b, z;
	struct spec s;
	struct layout lay;
	struct rawfrag_file *f;
	int nr;
	char reason[128];

	/* garbage instead of zstd data */
	ref_spec(&s, false);
	img_free(&s.data);
	s.data.be = false;
	put_hdr(&s.data, RAWFRAG_RECORD_COMPRESSED, 0, 8 + 16);
	put(&s.data, "not zstd data!!!", 16);
	b = build_file(false, &s, &lay);
	expect_walk_err(&b, (int64_t)lay.data_off, RAWFRAG_RECORD_COMPRESSED,
			"zstd: Unknown frame descriptor");
	img_free(&b);
	spec_free(&s);

	/* the stream ends inside a record */
	ref_spec(&s, false);
	s.data.len -= 8 + 3; /* cut FINISHED_ROUND and 3 bytes of the LOST record */
	z = compress_records(&s.data, 50, false);
	img_free(&s.data);
	s.data = z;
	b = build_file(false, &s, &lay);
	snprintf(reason, sizeof(reason),
		 "%d bytes of a truncated record at the end of the compressed data", 56 - 3);
	f = open_img(&b, false, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(walk(f, &nr), -EINVAL);
	assert_int_equal(nr, 4);
	assert_string_equal(rawfrag_file__error(f)->reason, reason);
	assert_int_equal(rawfrag_file__error(f)->rec_type, RAWFRAG_RECORD_COMPRESSED);
	/* the last COMPRESSED record */
	assert_int_equal(rawfrag_file__error(f)->offset, (int64_t)(lay.data_off + last_rec_off(&z)));
	rawfrag_file__close(f);
	/* with force: counted as skipped */
	f = open_img(&b, true, NULL, NULL);
	assert_int_equal(walk(f, &nr), 0);
	assert_int_equal(nr, 4);
	assert_int_equal(rawfrag_file__stats(f)->nr_skipped, 1);
	assert_int_equal(rawfrag_file__stats(f)->bytes_skipped, 53);
	rawfrag_file__close(f);
	img_free(&b);
	spec_free(&s);
}

/* ---- corrupt file mode images: one exact error each ---- */

static void test_header_errors(void **state)
{
	struct layout lay;
	struct spec s;
	struct img b;
	char reason[256];
	size_t len;

	ref_spec(&s, false);
	b = build_file(false, &s, &lay);
	len = b.len;

	b.p[0] ^= 1;
	expect_open_err(&b, 0, 0, "HEADER: not a perf.data file (bad magic)");
	b.p[0] ^= 1;

	set64(&b, 8, 100);
	expect_open_err(&b, 8, 0, "HEADER: unsupported header size 100");
	set64(&b, 8, 104);

	set64(&b, 16, 0);
	expect_open_err(&b, 16, 0, "HEADER: attr size field is 0");
	set64(&b, 16, 144);

	set64(&b, 32, ~0ULL - 8);
	snprintf(reason, sizeof(reason), "HEADER: attrs section 0x%zx+0x%llx beyond the file size 0x%zx",
		 lay.attrs_off, ~0ULL - 8, len);
	expect_open_err(&b, 24, 0, reason);
	set64(&b, 32, lay.data_off - lay.attrs_off);

	/* an interrupted recording: data size 0, as perf record leaves it at the start */
	set64(&b, 48, 0);
	expect_interrupted(&b, "data size is 0: was perf record properly terminated?");
	set64(&b, 48, lay.data_size);

	/* truncated file: cut in the middle of the second record */
	b.len = lay.data_off + 40;
	expect_interrupted(&b, "the data section runs past the end of the file");
	b.len = len;

	/* attr.size below VER0 */
	set32(&b, lay.attrs_off + 4, 32);
	snprintf(reason, sizeof(reason), "ATTR: attr 0: attr size smaller than 64 (PERF_ATTR_SIZE_VER0)");
	expect_open_err(&b, (int64_t)lay.attrs_off, 0, reason);
	set32(&b, lay.attrs_off + 4, 128);

	/* ids section outside the file */
	set64(&b, lay.attrs_off + 128, len);
	snprintf(reason, sizeof(reason),
		 "ATTR: attr 0: ids 0x%zx+0x10 beyond the file size or not u64s", len);
	expect_open_err(&b, (int64_t)(lay.attrs_off + 128), 0, reason);
	set64(&b, lay.attrs_off + 128, 104);

	/* feature section outside the file (entry 0: HOSTNAME) */
	set64(&b, lay.table_off + 8, 1ULL << 40);
	snprintf(reason, sizeof(reason),
		 "HEADER_HOSTNAME: feature 3 section 0x%llx+0x%llx beyond the file size 0x%zx",
		 (unsigned long long)rawfrag__get64(b.p + lay.table_off, false), 1ULL << 40, len);
	expect_open_err(&b, (int64_t)lay.table_off, 0, reason);

	/* feature table cut off */
	b.len = lay.table_off + 20;
	snprintf(reason, sizeof(reason), "HEADER: feature table (5 entries) beyond the file size 0x%zx",
		 b.len);
	expect_open_err(&b, (int64_t)lay.table_off, 0, reason);

	img_free(&b);
	spec_free(&s);
}

/* a data section of: COMM, <bad>, SAMPLE, FINISHED_ROUND */
static struct img bad_record_file(bool be, void (*bad)(struct img *), struct layout *lay,
				  size_t *bad_off)
{
	struct spec s;
	struct img b;

	ref_spec(&s, be);
	img_free(&s.data);
	s.data.be = be;
	put_comm(&s.data, 42, "mytool", 0);
	*bad_off = s.data.len;
	bad(&s.data);
	put_sample(&s.data, 101, 42, 100, 12);
	put_hdr(&s.data, RAWFRAG_RECORD_FINISHED_ROUND, 0, 8);
	b = build_file(be, &s, lay);
	*bad_off += lay->data_off;
	spec_free(&s);
	return b;
}

static void bad_size4(struct img *d)
{
	put_hdr(d, PERF_RECORD_MMAP, 0, 4);
	p32(d, 0);
}

static void bad_size0(struct img *d)
{
	put_hdr(d, PERF_RECORD_MMAP2, 0, 0);
}

static void bad_type(struct img *d)
{
	put_hdr(d, 100, 0, 16);
	p64(d, 0);
}

static void bad_lost(struct img *d)
{
	put_hdr(d, PERF_RECORD_LOST, 0, 16);
	p64(d, 1);
}

static void bad_past_end(struct img *d)
{
	put_hdr(d, PERF_RECORD_SAMPLE, 0, 0xfff0);
}

static void test_record_errors(void **state)
{
	struct layout lay;
	size_t off;
	struct img b;
	char reason[128];
	struct rawfrag_file *f;
	int nr, be;

	for (be = 0; be < 2; be++) {
		b = bad_record_file(be, bad_size4, &lay, &off);
		expect_walk_err(&b, (int64_t)off, PERF_RECORD_MMAP, "record size 4 < 8");
		img_free(&b);

		/* a zero size must not hang, also with force */
		b = bad_record_file(be, bad_size0, &lay, &off);
		expect_walk_err(&b, (int64_t)off, PERF_RECORD_MMAP2, "record size 0 < 8");
		f = open_img(&b, true, NULL, NULL);
		assert_int_equal(walk(f, &nr), -EINVAL);
		assert_int_equal(nr, 1);
		rawfrag_file__close(f);
		img_free(&b);

		b = bad_record_file(be, bad_past_end, &lay, &off);
		snprintf(reason, sizeof(reason),
			 "record size 65520 beyond the end of the data section (0x%zx)",
			 lay.data_off + lay.data_size);
		expect_walk_err(&b, (int64_t)off, PERF_RECORD_SAMPLE, reason);
		img_free(&b);

		/* unknown type: error, or skipped with force */
		b = bad_record_file(be, bad_type, &lay, &off);
		expect_walk_err(&b, (int64_t)off, 100, "unknown record type 100 (size 16)");
		f = open_img(&b, true, NULL, NULL);
		assert_int_equal(walk(f, &nr), 0);
		assert_int_equal(nr, 3);
		assert_int_equal(rawfrag_file__stats(f)->nr_skipped, 1);
		assert_int_equal(rawfrag_file__stats(f)->bytes_skipped, 16);
		rawfrag_file__close(f);
		img_free(&b);

		b = bad_record_file(be, bad_lost, &lay, &off);
		expect_walk_err(&b, (int64_t)off, PERF_RECORD_LOST, "record size 16 < 24");
		f = open_img(&b, true, NULL, NULL);
		assert_int_equal(walk(f, &nr), 0);
		assert_int_equal(nr, 3);
		assert_int_equal(rawfrag_file__stats(f)->nr_lost_records, 0);
		rawfrag_file__close(f);
		img_free(&b);
	}

	/* 4 stray bytes at the end of the data section */
	{
		struct spec s;

		ref_spec(&s, false);
		p32(&s.data, 0);
		b = build_file(false, &s, &lay);
		expect_walk_err(&b, (int64_t)(lay.data_off + lay.data_size - 4), 0,
				"DATA: truncated record header (4 bytes left in the data section)");
		img_free(&b);
		spec_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_file_le),
		cmocka_unit_test(test_file_be),
		cmocka_unit_test(test_evsel_of_ids),
		cmocka_unit_test(test_evsel_of_id_pos),
		cmocka_unit_test(test_attr_sizes),
		cmocka_unit_test(test_be_no_hostname),
		cmocka_unit_test(test_generated_names),
		cmocka_unit_test(test_pipe_le),
		cmocka_unit_test(test_pipe_be),
		cmocka_unit_test(test_pipe_errors),
		cmocka_unit_test(test_compressed_le),
		cmocka_unit_test(test_compressed_be),
		cmocka_unit_test(test_compressed_errors),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_record_errors),
	};

	return cmocka_run_group_tests_name("reader", tests, NULL, NULL);
}
