// SPDX-License-Identifier: GPL-2.0
/*
 * s390 decoders on payloads built here, big-endian as the s390 kernel writes
 * them: CF_DIAG (sound sets of two machine generations, and each framing fault),
 * PAI entries, the legacy CPUM-SF sample; plus the name tables. Every expected
 * value is one this file put into the payload (or a fact from the perf JSON the
 * tables were taken from, named where used).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal/check_sink.h"
#include "internal/decoders.h"
#include "internal/s390.h"
#include "../gen/s390-kernel-sizes.h"

#define MAX_FOUND 32

struct found {
	int n;
	const char *kind[MAX_FOUND];
	enum rawfrag_severity sev[MAX_FOUND];
	int64_t off[MAX_FOUND];
};

static void collect(struct rawfrag_check_sink *sink, enum rawfrag_severity sev, const char *kind,
		    int64_t raw_off, const char *fmt, va_list ap)
{
	struct found *f = sink->ctx;

	if (f->n < MAX_FOUND) {
		f->kind[f->n] = kind;
		f->sev[f->n] = sev;
		f->off[f->n] = raw_off;
	}
	f->n++;
}

static int count_kind(const struct found *f, const char *kind)
{
	int n = 0;

	for (int i = 0; i < f->n && i < MAX_FOUND; i++)
		n += !strcmp(f->kind[i], kind);
	return n;
}

/* ---- big-endian payload builder ---- */

struct buf {
	uint8_t d[4096];
	uint32_t len;
};

static void put(struct buf *b, uint64_t v, int bytes)
{
	assert_true(b->len + bytes <= sizeof(b->d));
	for (int i = bytes - 1; i >= 0; i--)
		b->d[b->len++] = (uint8_t)(v >> (8 * i));
}

/* a set of n counters valued set*1000000 + i + 1 (so every value is distinct) */
static void put_set(struct buf *b, unsigned int set, unsigned int n)
{
	put(b, S390_CFDIAG_MAGIC, 2);
	put(b, set, 2);
	put(b, n, 2);
	put(b, 0, 2);
	for (unsigned int i = 0; i < n; i++)
		put(b, set * 1000000ULL + i + 1, 8);
}

#define TR_FLAGS   0xC000000000000000ULL /* clock_base + speed, as cfdiag_trailer() sets */
#define TR_SPEED   5200
#define TR_TOD	   0xDB4C1B6E9A8F1234ULL
#define TR_START   0xDB4C1B6E9A000000ULL
#define TR_TODBASE 0x00000000DEADBEEFULL

static void put_trailer(struct buf *b, unsigned int cfvn, unsigned int csvn, unsigned int type)
{
	put(b, TR_FLAGS, 8);
	put(b, cfvn, 2);
	put(b, csvn, 2);
	put(b, TR_SPEED, 4);
	put(b, TR_TOD, 8);
	put(b, TR_START, 8);
	put(b, 0, 8);
	put(b, 0, 8);
	put(b, TR_TODBASE, 8);
	put(b, type, 2);
	put(b, 0, 6);
}

/* every set the versions store, in kernel order, then the trailer and 4 pad bytes */
static void build_cfdiag(struct buf *b, unsigned int cfvn, unsigned int csvn, unsigned int type)
{
	memset(b, 0, sizeof(*b));
	for (unsigned int set = 0; set < S390_CTRSET_MAX; set++) {
		unsigned int n = kernel_ctrset_size(set, cfvn, csvn);

		if (n)
			put_set(b, set, n);
	}
	put_trailer(b, cfvn, csvn, type);
	put(b, 0, 4);
}

static struct rawfrag_raw raw_of(const struct buf *b)
{
	struct rawfrag_raw r = {.data = b->d, .size = b->len, .big_endian = true};

	r.swap = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	return r;
}

static int run_length(const struct rawfrag_decoder *d, void *priv, const struct buf *b,
		      uint32_t *len, struct found *f)
{
	struct rawfrag_check_sink sink;
	struct rawfrag_raw r = raw_of(b);

	memset(f, 0, sizeof(*f));
	rawfrag_check_sink__init(&sink, false, NULL);
	sink.report = collect;
	sink.ctx = f;
	*len = 0xdead;
	return d->length(priv, &r, NULL, len, &sink);
}

/* fields() (json) or text() into a static string */
static const char *render(const struct rawfrag_decoder *d, void *priv, const struct buf *b,
			  int mode)
{
	static char s[1 << 16];
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_raw r = raw_of(b);
	struct rawfrag_emit *e;
	const char *p;
	size_t len;

	assert_non_null(o);
	if (mode == 0) {
		e = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
		rawfrag_emit__begin_object(e, NULL);
		assert_int_equal(d->fields(priv, &r, NULL, e), 0);
		rawfrag_emit__end_object(e);
		rawfrag_emit__delete(e);
	} else {
		assert_int_equal(d->text(priv, &r, NULL, o, mode == 2), 0);
	}
	p = rawfrag_out__mem(o, &len);
	assert_true(len < sizeof(s));
	memcpy(s, p, len);
	s[len] = 0;
	rawfrag_out__delete(o);
	return s;
}

/* ---- names ---- */

static void test_names(void **state)
{
	const struct s390_machine *z16 = s390_machine__from_cpuid("IBM,3931,703,A01,3.7,002f");
	const struct s390_machine *z13 = s390_machine__from_cpuid("IBM,2964,NC9,702");

	assert_non_null(z16);
	assert_string_equal(z16->name, "z16");
	assert_non_null(z13);
	assert_string_equal(z13->name, "z13");
	assert_ptr_equal(s390_machine__from_type(0x3932), z16);
	assert_null(s390_machine__from_cpuid("AuthenticAMD,25,17,1"));
	assert_null(s390_machine__from_cpuid("IBM,zzzz"));
	assert_null(s390_machine__from_cpuid(NULL));
	/* basic, crypto6 and extended JSON: event 0 CPU_CYCLES, 33 PROBLEM_STATE_INSTRUCTIONS, 448
	 * MT_DIAG_... */
	assert_string_equal(s390_cf__counter_name(NULL, S390_CTRSET_BASIC, 0), "CPU_CYCLES");
	assert_string_equal(s390_cf__counter_name(z16, S390_CTRSET_USER, 1),
			    "PROBLEM_STATE_INSTRUCTIONS");
	assert_string_equal(s390_cf__counter_name(z16, S390_CTRSET_CRYPTO, 16),
			    "ECC_FUNCTION_COUNT");
	assert_string_equal(s390_cf__counter_name(z16, S390_CTRSET_MT_DIAG, 1),
			    "MT_DIAG_CYCLES_TWO_THR_ACTIVE");
	/* extended set differs: event 128 is L1D_RO_EXCL_WRITES on z16 and z13 */
	assert_string_equal(s390_cf__counter_name(z16, S390_CTRSET_EXT, 0), "L1D_RO_EXCL_WRITES");
	assert_null(s390_cf__counter_name(NULL, S390_CTRSET_EXT, 0));
	assert_null(s390_cf__counter_name(z16, 9, 0));
	/* pai_crypto.json: 4097 KM_DEA; pai_ext.json: 6145 NNPA_ADD */
	assert_string_equal(s390_pai__crypto_name(1), "KM_DEA");
	assert_string_equal(s390_pai__nnpa_name(1), "NNPA_ADD");
	assert_null(s390_pai__nnpa_name(200));
	/* every set, cfvn 0..6 and csvn 0..10, against the kernel's table (s390-kernel-sizes.h) */
	for (unsigned int set = 0; set < S390_CTRSET_MAX; set++)
		for (unsigned int cfvn = 0; cfvn <= 6; cfvn++)
			for (unsigned int csvn = 0; csvn <= 10; csvn++)
				if (s390_ctrset__expected(set, cfvn, csvn) !=
				    kernel_ctrset_size(set, cfvn, csvn))
					fail_msg("set %u cfvn %u csvn %u: %u counters, the kernel stores %u",
						 set, cfvn, csvn, s390_ctrset__expected(set, cfvn, csvn),
						 kernel_ctrset_size(set, cfvn, csvn));
}

/* ---- CF_DIAG ---- */

static void check_sound_cfdiag(unsigned int cfvn, unsigned int csvn, unsigned int type,
			       const char *machine, const char *ext1)
{
	const struct rawfrag_decoder *d = &rawfrag_decoder_cfdiag;
	static struct buf b;
	char want[128];
	struct found f;
	const char *s;
	uint32_t len;

	build_cfdiag(&b, cfvn, csvn, type);
	assert_int_equal(run_length(d, NULL, &b, &len, &f), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(len, b.len - 4); /* the 4 pad bytes of raw_size = usedss + 4 */
	s = render(d, NULL, &b, 0);
	/* no priv: the machine comes from the trailer's type */
	snprintf(want, sizeof(want), "\"machine\":\"%s\"", machine);
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "{\"nr\":0,\"event\":0,\"name\":\"CPU_CYCLES\",\"value\":1}"));
	snprintf(want, sizeof(want), "{\"nr\":1,\"event\":129,\"name\":\"%s\",\"value\":3000002}",
		 ext1);
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "\"clock_base\":true,\"speed\":true,\"mtda\":false"));
	assert_non_null(strstr(s, "\"cpu_speed\":5200,\"timestamp\":\"0xdb4c1b6e9a8f1234\""));
	snprintf(want, sizeof(want), "\"mach_type\":\"0x%x\"", type);
	assert_non_null(strstr(s, want));
	assert_null(strstr(s, "\"error\""));
	s = render(d, NULL, &b, 1);
	assert_non_null(strstr(s, "basic:6(cycles=1,insns=2)"));
	snprintf(want, sizeof(want), "cfvn=%u csvn=%u speed=5200", cfvn, csvn);
	assert_non_null(strstr(s, want));
	assert_null(strchr(s, '\n'));
	s = render(d, NULL, &b, 2);
	assert_non_null(strstr(s, "name=CPU_CYCLES value=1}"));
	assert_null(strchr(s, '\n'));
}

static void test_cfdiag_z16(void **state)
{
	/* z16: cfvn 3 csvn 7; extended event 129 is DTLB2_WRITES (cf_z16/extended.json) */
	check_sound_cfdiag(3, 7, 0x3931, "z16", "DTLB2_WRITES");
}

static void test_cfdiag_z13(void **state)
{
	/* z13: cfvn 1 csvn 4; event 129 is DTLB1_WRITES (cf_z13/extended.json) */
	check_sound_cfdiag(1, 4, 0x2964, "z13", "DTLB1_WRITES");
}

static void test_cfdiag_bad_magic(void **state)
{
	static struct buf b;
	struct found f;
	uint32_t len;

	build_cfdiag(&b, 3, 7, 0x3931);
	b.d[8 + 6 * 8] = 0xEE; /* second set header: 0xEEEF */
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "cfdiag_bad_magic"), 1);
	assert_int_equal(f.off[0], 56);
	/* the sound first set is still shown, with the reason */
	assert_non_null(strstr(render(&rawfrag_decoder_cfdiag, NULL, &b, 0),
			       "\"error\":\"set header at 0x38 starts 0xeeef"));
}

static void test_cfdiag_short_set(void **state)
{
	static struct buf b;
	struct found f;
	uint32_t len;

	/* crypto set claims 20 counters but only 16 follow (z16 versions) */
	memset(&b, 0, sizeof(b));
	put_set(&b, 0, 6);
	put_set(&b, 1, 2);
	put(&b, S390_CFDIAG_MAGIC, 2);
	put(&b, 2, 2);
	put(&b, 20, 2);
	put(&b, 0, 2);
	for (int i = 0; i < 16; i++)
		put(&b, i + 1, 8);
	put_trailer(&b, 3, 7, 0x3931);
	put(&b, 0, 4);
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "cfdiag_set_length"), 1);
}

static void test_cfdiag_no_trailer(void **state)
{
	static struct buf b;
	struct found f;
	uint32_t len;

	/* trailer cut after 56 bytes; raw_size stays 8n+4 */
	build_cfdiag(&b, 3, 7, 0x3931);
	b.len -= 8;
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "cfdiag_no_trailer"), 1);
	/* a set longer than the payload */
	memset(&b, 0, sizeof(b));
	put_set(&b, 0, 6);
	b.d[5] = 200;
	put(&b, 0, 4);
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "cfdiag_set_length"), 1);
}

static void test_cfdiag_counts(void **state)
{
	static struct buf b;
	struct found f;
	uint32_t len;

	/* z13 sets (problem-state 6) under a z16 trailer (csvn 7): four sets disagree */
	memset(&b, 0, sizeof(b));
	for (unsigned int set = 0; set < S390_CTRSET_MAX; set++)
		put_set(&b, set, kernel_ctrset_size(set, 1, 4));
	put_trailer(&b, 3, 7, 0x3931);
	put(&b, 0, 4);
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), 0);
	assert_int_equal(len, b.len - 4);
	/* problem-state 6 vs 2, crypto 16 vs 20, extended 128 vs 160 */
	assert_int_equal(count_kind(&f, "cfdiag_set_count"), 3);
	/* set order and id */
	memset(&b, 0, sizeof(b));
	put_set(&b, 1, 2);
	put_set(&b, 0, 6);
	put_set(&b, 7, 1);
	put_trailer(&b, 3, 7, 0x3931);
	put(&b, 0, 4);
	assert_int_equal(run_length(&rawfrag_decoder_cfdiag, NULL, &b, &len, &f), 0);
	assert_int_equal(count_kind(&f, "cfdiag_set_order"), 1);
	assert_int_equal(count_kind(&f, "cfdiag_set_id"), 1);
}

/* ---- PAI ---- */

static void build_pai(struct buf *b, int n, int pad)
{
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < n; i++) {
		put(b, 1 + 2 * i, 2); /* counters 1, 3, 5, ... */
		put(b, 100 + i, 8);
	}
	put(b, 0, pad);
}

static void test_pai(void **state)
{
	struct pai_priv_view {
		int kind;
	} crypto = {0}, nnpa = {1}; /* pai.c's enum pai_kind order */
	static struct buf b;
	struct found f;
	const char *s;
	uint32_t len;

	/* 3 entries: raw_size = round_up(30 + 4, 8) - 4 = 36 */
	build_pai(&b, 3, 6);
	assert_int_equal(run_length(&rawfrag_decoder_pai, &crypto, &b, &len, &f), 0);
	assert_int_equal(len, 30);
	assert_int_equal(f.n, 0);
	s = render(&rawfrag_decoder_pai, &crypto, &b, 0);
	/* pai_crypto.json: 4097 KM_DEA, 4099 KM_TDEA_192 */
	assert_non_null(strstr(s, "{\"nr\":1,\"event\":4097,\"name\":\"KM_DEA\",\"value\":100}"));
	assert_non_null(
		strstr(s, "{\"nr\":3,\"event\":4099,\"name\":\"KM_TDEA_192\",\"value\":101}"));
	s = render(&rawfrag_decoder_pai, &nnpa, &b, 1);
	/* pai_ext.json: 6145 NNPA_ADD, 6147 NNPA_MUL, 6149 NNPA_MIN */
	assert_string_equal(s, "pai_nnpa entries=3 NNPA_ADD=100 NNPA_MUL=101 NNPA_MIN=102");
	/* 2 entries + 8 bytes: a cut entry, not pad */
	build_pai(&b, 2, 8);
	assert_int_equal(run_length(&rawfrag_decoder_pai, &crypto, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "pai_partial_entry"), 1);
	/* zero value, order, range */
	build_pai(&b, 3, 6);
	b.d[10 + 9] = 0; /* entry 1 value 101 -> 0 */
	b.d[20 + 1] = 1; /* entry 2 counter 5 -> 1 */
	b.d[0] = 0x7f;	 /* entry 0 counter 0x7f01 */
	assert_int_equal(run_length(&rawfrag_decoder_pai, &crypto, &b, &len, &f), 0);
	assert_int_equal(count_kind(&f, "pai_zero_value"), 1);
	assert_int_equal(count_kind(&f, "pai_counter_range"), 1);
	assert_int_equal(count_kind(&f, "pai_counter_order"), 1);
}

/* ---- CPUM-SF ---- */

#define SF_IA  0x3ff8a2b4c6ULL
#define SF_HPP 0x0000000000001234ULL

/* basic word: DEF 1, U 3, T, P, AS 2, CL 1, primary ASN 0x42 (IBM bit numbers) */
static const uint64_t sf_word0 =
	1ULL << 48 | 3ULL << 40 | 1ULL << 37 | 1ULL << 35 | 2ULL << 33 | 1ULL << 30 | 0x42;

static void build_sf(struct buf *b, unsigned int fmt, unsigned int dsdes)
{
	uint32_t size = ((52 + dsdes + 7) & ~7U) - 4;

	memset(b, 0, sizeof(*b));
	put(b, fmt, 8);
	put(b, size, 4);
	put(b, 32, 2);
	put(b, dsdes, 2);
	put(b, sf_word0, 8);
	put(b, SF_IA, 8);
	put(b, 0x77, 8);
	put(b, SF_HPP, 8);
	if (fmt & 2) {
		put(b, 0x80010001, 4); /* DEF 0x8001, I set */
		for (unsigned int i = 4; i < dsdes; i++)
			put(b, i & 0xff, 1);
	}
	b->len = size;
}

static void test_cpumsf(void **state)
{
	static struct buf b;
	struct found f;
	const char *s;
	uint32_t len;

	build_sf(&b, 3, 12);
	assert_int_equal(b.len, 60);
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(len, 60);
	s = render(&rawfrag_decoder_cpumsf, NULL, &b, 0);
	assert_non_null(strstr(s, "\"format\":\"0x3\",\"mode\":\"basic+diagnostic\",\"size\":60,"
				  "\"bsdes\":32,\"dsdes\":12"));
	assert_non_null(
		strstr(s, "\"def\":\"0x1\",\"unique_insns\":3,\"dat_mode\":true,"
			  "\"wait_state\":false,\"problem_state\":true,"
			  "\"address_space_control\":2,\"invalid\":false,\"config_level\":1,"
			  "\"host\":false,\"limited_sampling\":false,\"primary_asn\":66,"
			  "\"instruction_address\":\"0x3ff8a2b4c6\","
			  "\"guest_program_param\":\"0x77\",\"host_program_param\":\"0x1234\""));
	assert_non_null(strstr(s, "\"diag\":{\"size\":12,\"def\":\"0x8001\",\"invalid\":true,"
				  "\"header\":\"0x80010001\",\"data\":\"0405060708090a0b\"}"));
	s = render(&rawfrag_decoder_cpumsf, NULL, &b, 1);
	assert_string_equal(s, "cpum_sf basic+diag ia=0x3ff8a2b4c6 asn=66 P=1 AS=2 W=0 I=0 "
			       "hpp=0x1234 diag=12 bytes");
	/* basic mode: no diag object */
	build_sf(&b, 1, 12);
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), 0);
	assert_null(strstr(render(&rawfrag_decoder_cpumsf, NULL, &b, 0), "\"diag\""));
	/* recorded size disagrees with raw_size */
	build_sf(&b, 3, 12);
	b.d[11] = 68;
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), -EINVAL);
	assert_int_equal(count_kind(&f, "cpumsf_size"), 1);
	/* bad format, bsdes, and an invalid entry */
	build_sf(&b, 5, 12);
	b.d[13] = 16;
	b.d[16 + 3] |= 1; /* I: IBM bit 31 */
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), 0);
	assert_int_equal(count_kind(&f, "cpumsf_format"), 1);
	assert_int_equal(count_kind(&f, "cpumsf_bsdes"), 1);
	assert_int_equal(count_kind(&f, "cpumsf_basic_entry"), 1);
	/* too short for the header; the empty form of newer kernels */
	memset(&b, 0, sizeof(b));
	b.len = 20;
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), -EINVAL);
	b.len = 4;
	assert_int_equal(run_length(&rawfrag_decoder_cpumsf, NULL, &b, &len, &f), 0);
	assert_int_equal(len, 0);
	assert_string_equal(render(&rawfrag_decoder_cpumsf, NULL, &b, 1), "cpum_sf empty");
}

/* ---- robustness: every prefix and byte flips, on an exact-size heap copy ---- */

static void run_all(const struct rawfrag_decoder *d, void *priv, const uint8_t *data, uint32_t size)
{
	struct rawfrag_check_sink sink;
	struct found f;
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *e = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
	/* malloc(size) exactly: ASan sees a read past raw_size */
	uint8_t *copy = malloc(size ? size : 1);
	struct rawfrag_raw r = {.data = copy, .size = size, .big_endian = true};
	uint32_t len = 0;

	assert_non_null(copy);
	memcpy(copy, data, size);
	memset(&f, 0, sizeof(f));
	rawfrag_check_sink__init(&sink, false, NULL);
	sink.report = collect;
	sink.ctx = &f;
	if (d->length(priv, &r, NULL, &len, &sink) == 0)
		assert_true(len <= size);
	rawfrag_emit__begin_object(e, NULL);
	d->fields(priv, &r, NULL, e);
	rawfrag_emit__end_object(e);
	d->text(priv, &r, NULL, o, false);
	d->text(priv, &r, NULL, o, true);
	free(copy);
	rawfrag_emit__delete(e);
	rawfrag_out__delete(o);
}

static void torture(const struct rawfrag_decoder *d, void *priv, const struct buf *b)
{
	uint8_t tmp[sizeof(b->d)];
	unsigned int seed = 1;

	/* raw_size is at least 4 in a parsed sample */
	for (uint32_t n = 4; n <= b->len; n++)
		run_all(d, priv, b->d, n);
	for (int i = 0; i < 300; i++) {
		memcpy(tmp, b->d, b->len);
		for (int j = 0; j < 4; j++) {
			seed = seed * 1103515245 + 12345;
			tmp[(seed >> 8) % b->len] = (uint8_t)(seed >> 16);
		}
		run_all(d, priv, tmp, b->len);
	}
}

static void test_robust(void **state)
{
	struct {
		int kind;
	} nnpa = {1};
	static struct buf b;

	build_cfdiag(&b, 3, 7, 0x3931);
	torture(&rawfrag_decoder_cfdiag, NULL, &b);
	build_cfdiag(&b, 1, 4, 0x2964);
	torture(&rawfrag_decoder_cfdiag, NULL, &b);
	build_pai(&b, 5, 2);
	torture(&rawfrag_decoder_pai, &nnpa, &b);
	build_sf(&b, 3, 40);
	torture(&rawfrag_decoder_cpumsf, NULL, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cfdiag_z16),
		cmocka_unit_test(test_cfdiag_z13),
		cmocka_unit_test(test_cfdiag_bad_magic),
		cmocka_unit_test(test_cfdiag_short_set),
		cmocka_unit_test(test_cfdiag_no_trailer),
		cmocka_unit_test(test_cfdiag_counts),
		cmocka_unit_test(test_pai),
		cmocka_unit_test(test_cpumsf),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
