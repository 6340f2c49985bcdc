// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sample parser and synthesizer: round trip for every PERF_SAMPLE_* bit, random
 * combinations and every read_format, in both byte orders; truncation at every
 * byte must give an error (never a crash: run under ASan with exact-size
 * buffers); specific error texts; id trailers; the bare nr=0 branch stack.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/writer.h>

#define HW_INDEX_BIT (1ULL << 17)
#define ALL_BITS ((1ULL << 25) - 1)
/* bits we do not generate: none in 6.1 beyond PERF_SAMPLE_MAX */

struct gen {
	uint64_t vals[4096]; /* arrays in target order */
	uint8_t raw[256];
	uint8_t stack[64];
	uint8_t aux[40];
	uint8_t buf[65536];
	unsigned int seed;
};

static uint64_t rnd64(struct gen *g)
{
	uint64_t v = 0;

	for (int i = 0; i < 4; i++)
		v = (v << 16) ^ (uint64_t)(rand_r(&g->seed) & 0xffff);
	return v;
}

static uint64_t tgt64(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

/* Fill s with values for attr; arrays are written to g in target order. */
static void make_sample(struct gen *g, const struct perf_event_attr *attr, bool swap,
			struct rawfrag_sample *s)
{
	uint64_t rf = attr->read_format;
	uint64_t *v = g->vals;
	int n;

	memset(s, 0, sizeof(*s));
	s->identifier = rnd64(g);
	s->ip = rnd64(g);
	s->pid = (uint32_t)rnd64(g);
	s->tid = (uint32_t)rnd64(g);
	s->time = rnd64(g);
	s->addr = rnd64(g);
	s->id = rnd64(g);
	s->stream_id = rnd64(g);
	s->cpu = (uint32_t)rnd64(g) & 0xff;
	s->cpu_res = 0;
	s->period = rnd64(g);

	/* READ block */
	s->read.data = v;
	s->read.nr = (rf & PERF_FORMAT_GROUP) ? 1 + rand_r(&g->seed) % 4 : 1;
	n = 0;
	if (rf & PERF_FORMAT_GROUP)
		v[n++] = tgt64(s->read.nr, swap);
	else
		v[n++] = tgt64(1000, swap);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		v[n++] = tgt64(s->read.time_enabled = rnd64(g), swap);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		v[n++] = tgt64(s->read.time_running = rnd64(g), swap);
	for (uint64_t i = 0; i < ((rf & PERF_FORMAT_GROUP) ? s->read.nr : 1); i++) {
		if (rf & PERF_FORMAT_GROUP)
			v[n++] = tgt64(1000 + i, swap);
		if (rf & PERF_FORMAT_ID)
			v[n++] = tgt64(2000 + i, swap);
		if (rf & PERF_FORMAT_LOST)
			v[n++] = tgt64(3000 + i, swap);
	}
	s->read.size = 8 * n;
	v += n;

	s->callchain_nr = rand_r(&g->seed) % 6;
	s->callchain = v;
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		*v++ = tgt64(0xffffffff81000000ULL + i, swap);

	/* raw: true length 0..40, padded as the kernel does (raw_size % 8 == 4) */
	n = rand_r(&g->seed) % 41;
	s->raw_size = ((n + 4 + 7) & ~7) - 4;
	for (uint32_t i = 0; i < s->raw_size; i++)
		g->raw[i] = (uint8_t)rand_r(&g->seed);
	s->raw_data = g->raw;

	s->branch_nr = rand_r(&g->seed) % 3;
	s->branch_has_hw_idx = (attr->branch_sample_type & HW_INDEX_BIT) != 0;
	s->branch_hw_idx = rnd64(g);
	s->branch_entries = v;
	for (uint64_t i = 0; i < 3 * s->branch_nr; i++)
		*v++ = tgt64(rnd64(g), swap);

	s->user_regs_abi = rand_r(&g->seed) % 3;
	s->user_regs = v;
	for (int i = 0; i < __builtin_popcountll(attr->sample_regs_user); i++)
		*v++ = tgt64(0x100 + i, swap);
	s->intr_regs_abi = rand_r(&g->seed) % 3;
	s->intr_regs = v;
	for (int i = 0; i < __builtin_popcountll(attr->sample_regs_intr); i++)
		*v++ = tgt64(0x200 + i, swap);

	s->stack_size = 8 * (rand_r(&g->seed) % 3);
	s->stack_dyn_size = s->stack_size ? s->stack_size - 8 : 0;
	memset(g->stack, 0x5a, sizeof(g->stack));
	s->stack_data = g->stack;

	s->weight = rnd64(g);
	s->data_src = rnd64(g);
	s->transaction = rnd64(g);
	s->phys_addr = rnd64(g);
	s->cgroup = rnd64(g);
	s->data_page_size = 4096;
	s->code_page_size = 2 << 20;
	s->aux_size = 8 * (rand_r(&g->seed) % 5);
	memset(g->aux, 0xa5, sizeof(g->aux));
	s->aux_data = g->aux;
}

static void init_attr(struct perf_event_attr *a, uint64_t type, uint64_t rf, bool hw_idx)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = type;
	a->read_format = rf;
	a->sample_regs_user = 0xff0fULL;
	a->sample_regs_intr = 0x3ULL;
	a->branch_sample_type = hw_idx ? HW_INDEX_BIT : 0;
}

#define CHECK_FIELD(bit, m)                                                   \
	do {                                                                  \
		if (t & (bit))                                                \
			assert_int_equal(p.m, s->m);                          \
	} while (0)

/* synthesize, parse, compare, resynthesize identically, then truncate */
static void round_trip(struct gen *g, const struct perf_event_attr *attr, bool swap,
		       bool truncate)
{
	struct rawfrag_sample s_, p, *s = &s_;
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE, .offset = 0x1000 };
	struct rawfrag_err err;
	uint64_t t = attr->sample_type;
	uint8_t *again;
	int sz, ret;

	make_sample(g, attr, swap, s);
	sz = rawfrag_sample__synthesize(attr, s, PERF_RECORD_MISC_USER, swap, g->buf,
					sizeof(g->buf));
	assert_true(sz >= 8);
	assert_int_equal(sz % 8, 0);

	/* exact-size copy so ASan catches any read past header.size */
	uint8_t *exact = malloc(sz);

	assert_non_null(exact);
	memcpy(exact, g->buf, sz);
	rec.data = exact;
	rec.size = (uint16_t)sz;
	rec.misc = PERF_RECORD_MISC_USER;
	ret = rawfrag_sample__parse(&p, attr, &rec, swap, &err);
	if (ret)
		fail_msg("parse failed for sample_type %#llx: %s", (unsigned long long)t,
			 err.reason);
	assert_int_equal(p.end_offset, sz);
	CHECK_FIELD(PERF_SAMPLE_IDENTIFIER, identifier);
	CHECK_FIELD(PERF_SAMPLE_IP, ip);
	CHECK_FIELD(PERF_SAMPLE_TID, pid);
	CHECK_FIELD(PERF_SAMPLE_TID, tid);
	CHECK_FIELD(PERF_SAMPLE_TIME, time);
	CHECK_FIELD(PERF_SAMPLE_ADDR, addr);
	CHECK_FIELD(PERF_SAMPLE_ID, id);
	CHECK_FIELD(PERF_SAMPLE_STREAM_ID, stream_id);
	CHECK_FIELD(PERF_SAMPLE_CPU, cpu);
	CHECK_FIELD(PERF_SAMPLE_PERIOD, period);
	CHECK_FIELD(PERF_SAMPLE_READ, read.nr);
	CHECK_FIELD(PERF_SAMPLE_READ, read.size);
	CHECK_FIELD(PERF_SAMPLE_READ, read.time_enabled);
	CHECK_FIELD(PERF_SAMPLE_READ, read.time_running);
	CHECK_FIELD(PERF_SAMPLE_CALLCHAIN, callchain_nr);
	CHECK_FIELD(PERF_SAMPLE_RAW, raw_size);
	CHECK_FIELD(PERF_SAMPLE_BRANCH_STACK, branch_nr);
	CHECK_FIELD(PERF_SAMPLE_REGS_USER, user_regs_abi);
	CHECK_FIELD(PERF_SAMPLE_REGS_INTR, intr_regs_abi);
	CHECK_FIELD(PERF_SAMPLE_STACK_USER, stack_size);
	CHECK_FIELD(PERF_SAMPLE_WEIGHT_TYPE, weight);
	CHECK_FIELD(PERF_SAMPLE_DATA_SRC, data_src);
	CHECK_FIELD(PERF_SAMPLE_TRANSACTION, transaction);
	CHECK_FIELD(PERF_SAMPLE_PHYS_ADDR, phys_addr);
	CHECK_FIELD(PERF_SAMPLE_CGROUP, cgroup);
	CHECK_FIELD(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	CHECK_FIELD(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size);
	CHECK_FIELD(PERF_SAMPLE_AUX, aux_size);
	if (t & PERF_SAMPLE_STACK_USER && s->stack_size)
		assert_int_equal(p.stack_dyn_size, s->stack_dyn_size);
	if (t & PERF_SAMPLE_RAW)
		assert_memory_equal(p.raw_data, s->raw_data, s->raw_size);
	if (t & PERF_SAMPLE_CALLCHAIN)
		for (uint64_t i = 0; i < p.callchain_nr; i++)
			assert_int_equal(rawfrag_sample__callchain_ip(&p, i),
					 0xffffffff81000000ULL + i);
	if ((t & PERF_SAMPLE_REGS_USER) && p.user_regs_abi) {
		assert_int_equal(p.user_regs_nr, 12);
		assert_int_equal(rawfrag_sample__user_reg(&p, 11), 0x100 + 11);
	}
	if ((t & PERF_SAMPLE_REGS_INTR) && p.intr_regs_abi)
		assert_int_equal(rawfrag_sample__intr_reg(&p, 1), 0x201);
	if (t & PERF_SAMPLE_READ) {
		uint64_t val, id, lost, rf = attr->read_format;

		for (uint64_t i = 0; i < p.read.nr; i++) {
			assert_int_equal(rawfrag_sample__read_value(&p, attr, i, &val, &id, &lost),
					 0);
			assert_int_equal(val, 1000 + i);
			assert_int_equal(id, (rf & PERF_FORMAT_ID) ? 2000 + i : 0);
			assert_int_equal(lost, (rf & PERF_FORMAT_LOST) ? 3000 + i : 0);
		}
		assert_int_equal(rawfrag_sample__read_value(&p, attr, p.read.nr, &val, &id, &lost),
				 -ERANGE);
	}
	if ((t & PERF_SAMPLE_BRANCH_STACK) && p.branch_nr) {
		struct rawfrag_branch_entry be;

		rawfrag_sample__branch(&p, p.branch_nr - 1, &be);
		assert_int_equal(be.flags,
				 tgt64(((uint64_t *)s->branch_entries)[3 * p.branch_nr - 1], swap));
		assert_int_equal(p.branch_hw_idx,
				 (attr->branch_sample_type & HW_INDEX_BIT) ? s->branch_hw_idx : 0);
	}

	/* exact inverse: the parsed sample synthesizes the same bytes */
	again = malloc(sz);
	assert_non_null(again);
	assert_int_equal(rawfrag_sample__synthesize(attr, &p, p.misc, swap, again, sz), sz);
	assert_memory_equal(again, exact, sz);
	free(again);
	assert_int_equal(rawfrag_sample__synthesize(attr, &p, p.misc, swap, g->buf, sz - 1),
			 -ENOSPC);

	/* a header.size cut at every byte: an error, or a shorter valid reading */
	for (int len = truncate ? 0 : sz; len < sz; len++) {
		uint8_t *cut = malloc(len ? len : 1);

		assert_non_null(cut);
		memcpy(cut, exact, len);
		rec.data = cut;
		rec.size = (uint16_t)len;
		ret = rawfrag_sample__parse(&p, attr, &rec, swap, &err);
		if (ret) {
			assert_int_equal(ret, -EINVAL);
			assert_true(strlen(err.reason) > 0);
			assert_int_equal(err.offset, 0x1000);
			assert_int_equal(err.rec_type, PERF_RECORD_SAMPLE);
		} else {
			assert_true(p.end_offset <= (uint32_t)len);
		}
		free(cut);
	}
	free(exact);
}

static void test_each_bit(void **state)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct perf_event_attr a;

	assert_non_null(g);
	for (int bit = 0; bit < 25; bit++)
		for (int sw = 0; sw < 2; sw++)
			for (int hw = 0; hw < 2; hw++) {
				g->seed = bit * 4 + sw * 2 + hw;
				init_attr(&a, 1ULL << bit,
					  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, hw);
				round_trip(g, &a, sw, true);
			}
	free(g);
}

static void test_all_bits(void **state)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct perf_event_attr a;

	assert_non_null(g);
	for (int i = 0; i < 64; i++) {
		g->seed = 1000 + i;
		init_attr(&a, ALL_BITS, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST,
			  i & 1);
		round_trip(g, &a, (i >> 1) & 1, i < 8);
	}
	free(g);
}

static void test_random_combinations(void **state)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct perf_event_attr a;
	unsigned int seed = 42;

	assert_non_null(g);
	for (int i = 0; i < 3000; i++) {
		uint64_t type = ((uint64_t)rand_r(&seed) << 16 ^ rand_r(&seed)) & ALL_BITS;

		g->seed = i;
		init_attr(&a, type, rand_r(&seed) & 0x1f, rand_r(&seed) & 1);
		round_trip(g, &a, i & 1, i < 300);
	}
	free(g);
}

static void test_read_formats(void **state)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct perf_event_attr a;

	assert_non_null(g);
	for (uint64_t rf = 0; rf < 32; rf++)
		for (int sw = 0; sw < 2; sw++) {
			g->seed = (unsigned int)rf;
			init_attr(&a, PERF_SAMPLE_READ | PERF_SAMPLE_TID | PERF_SAMPLE_RAW, rf,
				  false);
			round_trip(g, &a, sw, true);
		}
	free(g);
}

/* IP|TID|TIME|CPU|PERIOD|RAW puts raw_size at 48, payload at 52 */
static void test_raw_offsets_and_errors(void **state)
{
	struct perf_event_attr a;
	struct rawfrag_sample s = { 0 }, p;
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE, .offset = 0x40 };
	struct rawfrag_err err;
	uint8_t payload[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	uint8_t buf[256];
	int sz;

	init_attr(&a, 0x587, 0, false);
	s.raw_size = 12;
	s.raw_data = payload;
	for (int sw = 0; sw < 2; sw++) {
		sz = rawfrag_sample__synthesize(&a, &s, 0, sw, buf, sizeof(buf));
		assert_int_equal(sz, 52 + 12);
		assert_int_equal(rawfrag__get32(buf + 48, sw), 12);
		rec.data = buf;
		rec.size = sz;
		assert_int_equal(rawfrag_sample__parse(&p, &a, &rec, sw, &err), 0);
		assert_int_equal(p.raw_offset, 52);
		assert_ptr_equal(p.raw_data, buf + 52);

		/* raw_size larger than the record */
		uint32_t big = sw ? __builtin_bswap32(1000) : 1000;

		memcpy(buf + 48, &big, 4);
		assert_int_equal(rawfrag_sample__parse(&p, &a, &rec, sw, &err), -EINVAL);
		assert_string_equal(err.reason,
				    "RAW: raw_size 1000 exceeds record (size 64, at offset 52)");
	}

	/* callchain nr that would overflow a naive nr * 8 */
	init_attr(&a, PERF_SAMPLE_CALLCHAIN, 0, false);
	uint64_t rec2[3] = { 0, 0x2000000000000001ULL, 0 };

	rec.data = rec2;
	rec.size = sizeof(rec2);
	assert_int_equal(rawfrag_sample__parse(&p, &a, &rec, false, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "CALLCHAIN: nr 2305843009213693953 exceeds"));

	/* a field that does not fit names itself */
	init_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 0, false);
	rec.size = 16;
	assert_int_equal(rawfrag_sample__parse(&p, &a, &rec, false, &err), -EINVAL);
	assert_string_equal(err.reason, "TIME: 8 bytes at offset 16 exceed record (size 16)");
}

/* kernel "no stack" form: BRANCH_STACK with HW_INDEX, nr = 0 and no hw_idx */
static void test_branch_nr0_without_hw_idx(void **state)
{
	struct perf_event_attr a;
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE };
	struct rawfrag_sample p;
	uint64_t r[4];

	init_attr(&a, PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, 0,
		  true);
	r[0] = 0;
	r[1] = 0; /* nr */
	r[2] = 77; /* weight */
	r[3] = 88; /* data_src */
	rec.data = r;
	rec.size = sizeof(r);
	assert_int_equal(rawfrag_sample__parse(&p, &a, &rec, false, NULL), 0);
	assert_false(p.branch_has_hw_idx);
	assert_int_equal(p.weight, 77);
	assert_int_equal(p.data_src, 88);
	assert_int_equal(p.end_offset, 32);
}

static void test_id_trailer(void **state)
{
	struct perf_event_attr a;
	struct rawfrag_record rec = { .type = PERF_RECORD_COMM };
	struct rawfrag_sample p;
	struct rawfrag_err err;
	uint8_t buf[64];
	uint32_t tsz;

	init_attr(&a, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_RAW,
		  0, false);
	assert_int_equal(rawfrag_sample__id_trailer_size(&a), 0);
	a.sample_id_all = 1;
	tsz = rawfrag_sample__id_trailer_size(&a);
	assert_int_equal(tsz, 32);
	for (int sw = 0; sw < 2; sw++) {
		uint8_t *t = buf + 32 - tsz + 32;
		uint32_t v32[2] = { 42, 43 }, c32[2] = { 3, 0 };
		uint64_t time = 123456789, ident = 555;

		memset(buf, 0xee, sizeof(buf));
		if (sw) {
			v32[0] = __builtin_bswap32(42);
			v32[1] = __builtin_bswap32(43);
			c32[0] = __builtin_bswap32(3);
			time = __builtin_bswap64(time);
			ident = __builtin_bswap64(ident);
		}
		memcpy(t, v32, 8);
		memcpy(t + 8, &time, 8);
		memcpy(t + 16, c32, 8);
		memcpy(t + 24, &ident, 8);
		rec.data = buf;
		rec.size = 64;
		assert_int_equal(rawfrag_sample__parse_id_trailer(&p, &a, &rec, sw, &err), 0);
		assert_int_equal(p.pid, 42);
		assert_int_equal(p.tid, 43);
		assert_int_equal(p.time, 123456789);
		assert_int_equal(p.cpu, 3);
		assert_int_equal(p.identifier, 555);
		assert_int_equal(p.id, 555);
		rec.size = 32;
		assert_int_equal(rawfrag_sample__parse_id_trailer(&p, &a, &rec, sw, &err), -EINVAL);
	}
}

static void test_synth_limits(void **state)
{
	struct perf_event_attr a;
	struct rawfrag_sample s = { 0 };
	static uint8_t big[70000];
	uint8_t buf[16];

	init_attr(&a, PERF_SAMPLE_RAW, 0, false);
	s.raw_size = 65532;
	s.raw_data = big;
	assert_int_equal(rawfrag_sample__synthesize(&a, &s, 0, false, big, sizeof(big)), -E2BIG);
	/* RAW without data: the kernel's no-data form is raw_size 4, four zero bytes */
	s.raw_size = 4;
	s.raw_data = NULL;
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(rawfrag_sample__synthesize(&a, &s, 0, false, buf, sizeof(buf)), 16);
	assert_int_equal(rawfrag__get32(buf + 12, false), 0);
}

/* hostile bytes: any sample_type over random records is an error or a reading inside */
static void test_random_bytes(void **state)
{
	struct perf_event_attr a;
	struct rawfrag_record rec = { .type = PERF_RECORD_SAMPLE };
	struct rawfrag_sample p;
	struct rawfrag_err err;
	unsigned int seed = 7;

	for (int i = 0; i < 20000; i++) {
		int len = 8 + 8 * (rand_r(&seed) % 40);
		uint8_t *buf = malloc(len);
		int ret;

		assert_non_null(buf);
		for (int k = 0; k < len; k++)
			/* small numbers are likelier to look like valid counts */
			buf[k] = (uint8_t)(rand_r(&seed) % 4 ? rand_r(&seed) % 3 : rand_r(&seed));
		init_attr(&a, ((uint64_t)rand_r(&seed) << 16 ^ rand_r(&seed)) & ALL_BITS,
			  rand_r(&seed) & 0x1f, rand_r(&seed) & 1);
		rec.data = buf;
		rec.size = (uint16_t)len;
		ret = rawfrag_sample__parse(&p, &a, &rec, i & 1, &err);
		if (ret)
			assert_int_equal(ret, -EINVAL);
		else
			assert_true(p.end_offset <= (uint32_t)len);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_bit),
		cmocka_unit_test(test_all_bits),
		cmocka_unit_test(test_random_combinations),
		cmocka_unit_test(test_read_formats),
		cmocka_unit_test(test_raw_offsets_and_errors),
		cmocka_unit_test(test_branch_nr0_without_hw_idx),
		cmocka_unit_test(test_id_trailer),
		cmocka_unit_test(test_synth_limits),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
