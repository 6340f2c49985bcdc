// SPDX-License-Identifier: GPL-2.0
/*
 * s390-gen: fixture generator for the s390 raw producers (tests/shell/t70-s390.sh).
 *
 *   s390-gen [gen] DIR   write the fixtures below into DIR
 *   s390-gen dump FILE   one JSON object per RAW sample: the decoder's fields,
 *                        for comparing with perf when `perf rawfrag report` is
 *                        not there (it prints the same fields)
 *
 * The files are what an s390 machine would write: big-endian perf.data, features
 * ARCH "s390x", CPUID in the form perf's s390 get_cpuid() builds from
 * /proc/sysinfo and /proc/service_levels ("IBM,<type>,<model capacity>,<model>,
 * <cfvn>.<csvn>,<authorization>", matched by perf's s390 mapfile.csv), and
 * PMU_MAPPINGS with the s390 PMUs. Every value is chosen here:
 *
 *  PMU types (dynamic on a real machine; any numbers >= PERF_TYPE_MAX do):
 *    cpum_cf 10, cpum_sf 11, cpum_cf_diag 12, pai_crypto 13, pai_ext 14
 *  Samples: ip 0x3ff80001000 + k, pid = tid = 4242, time 1000000000 + k * 1000000,
 *    cpu k % 2, period 1 (k = sample number in the file).
 *
 *  s390-z16.data   CF_DIAG (cpum_cf_diag, config 0xBC000) on a z16:
 *                  CPUID "IBM,3931,703,A01,3.7,002f"; trailer cfvn 3, csvn 7,
 *                  every set that version stores (basic 6, problem-state 2,
 *                  crypto 20, extended 160, MT-diag 48); 3 samples.
 *  s390-z13.data   the same on a z13: CPUID "IBM,2964,702,NC9,1.4,002f", cfvn 1,
 *                  csvn 4 (basic 6, problem-state 6, crypto 16, extended 128,
 *                  MT-diag 48); 3 samples.
 *  s390-z16-le.data  s390-z16.data written little-endian (as perf inject on an
 *                  x86 host leaves it): framing swapped, raw still big-endian.
 *    counter i of set s in sample k: (k + 1) << 40 | s << 16 | (i + 1), and
 *    counter 0 of each set also has 0xF000000000000000 set (exact u64 output);
 *    trailer: flags 0xC000000000000000 (clock_base, speed), in sample 1 also
 *    mtda and lcda (0xE800000000000000); cpu_speed 5200 (z16) / 5000 (z13);
 *    timestamp 0xDB4C000000000000 + k * 0x1000000; progusage1 = timestamp -
 *    0x800000 (the start time the kernel puts there); progusage2/3 0;
 *    tod_base 0x7E5A000000000000; machine type 0x3931 / 0x2964.
 *  s390-z13-nomap.data  s390-z13.data without PMU_MAPPINGS (perf's rule: ARCH s390
 *                  and config 0xBC000 are enough).
 *  s390-cf-<gen>.data  one CF_DIAG sample for each of z10, z196, zec12, z13, z14,
 *                  z15, z16 (CPUIDs, versions and speeds in gens[] below).
 *  s390-pai.data   pai_crypto CRYPTO_ALL (0x1000, id 101) and pai_ext NNPA_ALL
 *                  (0x1800, id 102), sample_type with IDENTIFIER; z16 CPUID.
 *                  crypto sample k: counters 1, 7, 20 + k, 156 = 1000 * nr + k + 1;
 *                  NNPA sample k: counters 1, 2, 20 (+ 27 when k is odd), same rule.
 *                  raw_size = round_up(10 n + 4, 8) - 4, pad zero.
 *  s390-sf.data    legacy cpum_sf raw samples (4.x kernels): basic (0xB0000, id 201,
 *                  format 1) and diag (0xBD000, id 202, format 3); CPUID of a z13;
 *                  bsdes 32, dsdes 140 (a QSI value chosen here), so size =
 *                  ALIGN(52 + 140, 8) - 4 = 188. Basic entry: DEF 1, U k, T 1,
 *                  W 0, P k & 1, AS 2, I 0, primary ASN 0x42 + k, IA = ip, GPP
 *                  0x1000 + k, HPP 4242 (the pid). Diag entry: DEF 0x8001, then
 *                  bytes (i * 7 + k) & 0xff.
 *  s390-corrupt.data  CF_DIAG (id 301), PAI crypto (id 302), cpum_sf (id 303), z16:
 *                  0 sound CF_DIAG except trailer flags 0xC000000000000005 (reserved
 *                  low bits 0 and 2 set: perf on a little-endian host shows them as
 *                  T and M, cfdiag_trailer_flags warning); 1 CF_DIAG whose extended set header
 * reads 0xFEEE (cfdiag_bad_magic); 2 CF_DIAG whose crypto set says 20 counters but holds 16
 * (cfdiag_set_length); 3 CF_DIAG with the last 8 trailer bytes missing (cfdiag_no_trailer); 4 PAI
 * with 2 entries and raw_size 28 (pai_partial_entry); 5 cpum_sf with recorded size 180 in a
 * 188-byte raw area (cpumsf_size).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/rawfrag.h>
#include "s390-kernel-sizes.h"

/*
 * The layouts are written here from the kernel (Linux 6.1), not taken from the
 * library's internal/s390.h, so that the decoder is checked against them:
 *  event numbers: PERF_EVENT_CPUM_SF, PERF_EVENT_CPUM_SF_DIAG, PERF_EVENT_CPUM_CF_DIAG
 *    (arch/s390/include/asm/perf_event.h), PAI_CRYPTO_BASE, PAI_NNPA_BASE
 *    (arch/s390/include/asm/pai.h);
 *  CF_DIAG: cfdiag_getctrset() writes struct cf_ctrset_entry (def 0xfeef =
 *    CF_DIAG_CTRSET_DEF, set, ctr, res1: 16 bits each) before each set's counters,
 *    cfdiag_trailer() the 64-byte struct cf_trailer_entry (arch/s390/kernel/
 *    perf_cpum_cf.c), sets in enum cpumf_ctr_set order;
 *  PAI: paicrypt_copy() / paiext_copy() write struct pai_userdata { u16 num; u64
 *    value; } __packed, 10 bytes per non-zero counter (perf_pai_crypto.c,
 *    perf_pai_ext.c);
 *  CPUM-SF: struct hws_basic_entry (32 bytes) and struct hws_diag_entry
 *    (arch/s390/include/asm/cpu_mf.h), bit 0 the MSB of the first word.
 */
#define KS_EVENT_CPUM_SF      0xB0000
#define KS_EVENT_CPUM_SF_DIAG 0xBD000
#define KS_EVENT_CF_DIAG      0xBC000
#define KS_PAI_CRYPTO_BASE    0x1000
#define KS_PAI_NNPA_BASE      0x1800
#define KS_CTRSET_DEF	      0xfeef
#define KS_CF_TRAILER	      64
#define KS_SF_BASIC_SIZE      32
enum { KS_SET_BASIC, KS_SET_USER, KS_SET_CRYPTO, KS_SET_EXT, KS_SET_MT_DIAG, KS_SET_MAX };

#define PMU_CF	       10
#define PMU_SF	       11
#define PMU_CF_DIAG    12
#define PMU_PAI_CRYPTO 13
#define PMU_PAI_EXT    14

#define CPUID_Z16 "IBM,3931,703,A01,3.7,002f"
#define CPUID_Z13 "IBM,2964,702,NC9,1.4,002f"

#define NR_SAMPLES 3
#define SF_DSDES   140

struct machine {
	const char *cpuid;
	unsigned int cfvn, csvn, speed, type;
};

static const struct machine z16 = {CPUID_Z16, 3, 7, 5200, 0x3931};
static const struct machine z13 = {CPUID_Z13, 1, 4, 5000, 0x2964};

/*
 * One CF_DIAG sample per generation perf 6.1 has names for (s390-cf-<gen>.data).
 * The counter facility versions: cfvn 1 up to z13, 3 from z14 (the problem-state
 * set shrinks to 2 counters, as cf_z14/basic.json shows); csvn 1..7 from z10 to
 * z16, the first with an MT-diagnostic set (csvn > 3) being z13, the first machine
 * with MT_DIAG names. perf's mapfile.csv accepts exactly these version fields.
 */
static const struct {
	const char *name;
	struct machine m;
} gens[] = {
	{"z10", {"IBM,2097,E12,709,1.1,002f", 1, 1, 4400, 0x2097}},
	{"z196", {"IBM,2817,M15,715,1.2,002f", 1, 2, 5200, 0x2817}},
	{"zec12", {"IBM,2827,H20,720,1.3,002f", 1, 3, 5500, 0x2827}},
	{"z13", {CPUID_Z13, 1, 4, 5000, 0x2964}},
	{"z14", {"IBM,3906,M01,704,3.5,002f", 3, 5, 5200, 0x3906}},
	{"z15", {"IBM,8561,T01,705,3.6,002f", 3, 6, 5200, 0x8561}},
	{"z16", {CPUID_Z16, 3, 7, 5200, 0x3931}},
};

/* ---- big-endian payloads ---- */

struct buf {
	uint8_t d[4096];
	uint32_t len;
};

static void put(struct buf *b, uint64_t v, int bytes)
{
	if (b->len + bytes > sizeof(b->d)) {
		fprintf(stderr, "s390-gen: payload too large\n");
		exit(2);
	}
	for (int i = bytes - 1; i >= 0; i--)
		b->d[b->len++] = (uint8_t)(v >> (8 * i));
}

/* raw_size = round_up(len + 4, 8) - 4: zero pad as the ring would hold when fresh */
static void pad_raw(struct buf *b)
{
	while ((b->len + 4) % 8)
		put(b, 0, 1);
}

static uint64_t cf_value(int k, unsigned int set, unsigned int i)
{
	uint64_t v = (uint64_t)(k + 1) << 40 | (uint64_t)set << 16 | (i + 1);

	return i == 0 ? v | 0xF000000000000000ULL : v;
}

static void put_set(struct buf *b, int k, unsigned int set, unsigned int claimed,
		    unsigned int present)
{
	put(b, KS_CTRSET_DEF, 2);
	put(b, set, 2);
	put(b, claimed, 2);
	put(b, 0, 2);
	for (unsigned int i = 0; i < present; i++)
		put(b, cf_value(k, set, i), 8);
}

static void put_trailer(struct buf *b, int k, const struct machine *m)
{
	uint64_t flags = 0xC000000000000000ULL, tod = 0xDB4C000000000000ULL + k * 0x1000000ULL;

	if (k == 1)
		flags |= 1ULL << 61 | 1ULL << 59; /* mtda, lcda */
	put(b, flags, 8);
	put(b, m->cfvn, 2);
	put(b, m->csvn, 2);
	put(b, m->speed, 4);
	put(b, tod, 8);
	put(b, tod - 0x800000, 8);
	put(b, 0, 8);
	put(b, 0, 8);
	put(b, 0x7E5A000000000000ULL, 8);
	put(b, m->type, 2);
	put(b, 0, 6);
}

enum cf_fault { CF_SOUND, CF_BAD_MAGIC, CF_SHORT_SET, CF_NO_TRAILER };

static void build_cfdiag(struct buf *b, int k, const struct machine *m, enum cf_fault fault)
{
	memset(b, 0, sizeof(*b));
	for (unsigned int set = 0; set < KS_SET_MAX; set++) {
		unsigned int n = kernel_ctrset_size(set, m->cfvn, m->csvn);
		uint32_t at = b->len;

		if (!n)
			continue;
		if (fault == CF_SHORT_SET && set == KS_SET_CRYPTO)
			put_set(b, k, set, n, 16);
		else
			put_set(b, k, set, n, n);
		if (fault == CF_BAD_MAGIC && set == KS_SET_EXT)
			b->d[at + 1] = 0xEE;
	}
	put_trailer(b, k, m);
	if (fault == CF_NO_TRAILER)
		b->len -= 8;
	put(b, 0, 4); /* raw_size = usedss + 4: the kernel's unwritten pad */
}

static void build_pai(struct buf *b, int k, bool nnpa)
{
	static const unsigned int crypto_nrs[] = {1, 7, 20, 156};
	static const unsigned int nnpa_nrs[] = {1, 2, 20, 27};
	const unsigned int *nrs = nnpa ? nnpa_nrs : crypto_nrs;
	int n = nnpa ? 3 + (k & 1) : 4;

	memset(b, 0, sizeof(*b));
	for (int i = 0; i < n; i++) {
		unsigned int nr = nrs[i] + (!nnpa && i == 2 ? k : 0);

		put(b, nr, 2);
		put(b, 1000ULL * nr + k + 1, 8);
	}
	pad_raw(b);
}

static void build_sf(struct buf *b, int k, bool diag)
{
	uint32_t size = ((52 + SF_DSDES + 7) & ~7U) - 4;
	uint64_t w0 = 1ULL << 48 | (uint64_t)(k & 0xf) << 40 | 1ULL << 37 |
		      (uint64_t)(k & 1) << 35 | 2ULL << 33 | (0x42 + k);

	memset(b, 0, sizeof(*b));
	put(b, diag ? 3 : 1, 8);
	put(b, size, 4);
	put(b, KS_SF_BASIC_SIZE, 2);
	put(b, SF_DSDES, 2);
	put(b, w0, 8);
	put(b, 0x3ff80001000ULL + k, 8);
	put(b, 0x1000 + k, 8);
	put(b, 4242, 8);
	if (diag) {
		put(b, 0x80010000, 4);
		for (int i = 4; i < SF_DSDES; i++)
			put(b, (i * 7 + k) & 0xff, 1);
	}
	b->len = size; /* the rest of the buffer is kzalloc'ed zero */
}

/* ---- files ---- */

struct gen {
	struct rawfrag_writer *w;
	struct rawfrag_err err;
	int nr;
};

static int gen_open_map(struct gen *g, const char *dir, const char *name, bool big_endian,
			const struct machine *m, bool mappings)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, opts, .big_endian = big_endian);
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	g->nr = 0;
	g->w = rawfrag_writer__new(path, &opts, &g->err);
	if (!g->w)
		return -errno;
	rawfrag_writer__set_string(g->w, RAWFRAG_FEAT_HOSTNAME, "s390-fixture");
	rawfrag_writer__set_string(g->w, RAWFRAG_FEAT_OSRELEASE, "6.1.0-s390x");
	rawfrag_writer__set_string(g->w, RAWFRAG_FEAT_ARCH, "s390x");
	rawfrag_writer__set_string(g->w, RAWFRAG_FEAT_CPUID, m->cpuid);
	rawfrag_writer__set_nrcpus(g->w, 2, 2);
	if (!mappings)
		return 0;
	rawfrag_writer__add_pmu_mapping(g->w, PMU_CF, "cpum_cf");
	rawfrag_writer__add_pmu_mapping(g->w, PMU_SF, "cpum_sf");
	rawfrag_writer__add_pmu_mapping(g->w, PMU_CF_DIAG, "cpum_cf_diag");
	rawfrag_writer__add_pmu_mapping(g->w, PMU_PAI_CRYPTO, "pai_crypto");
	rawfrag_writer__add_pmu_mapping(g->w, PMU_PAI_EXT, "pai_ext");
	return 0;
}

static int gen_open(struct gen *g, const char *dir, const char *name, bool big_endian,
		    const struct machine *m)
{
	return gen_open_map(g, dir, name, big_endian, m, true);
}

static int gen_evsel(struct gen *g, uint32_t type, uint64_t config, const char *name, uint64_t id)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	if (id)
		attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	attr.sample_id_all = 1;
	return rawfrag_writer__add_evsel(g->w, &attr, name, id ? &id : NULL, id ? 1 : 0);
}

static int gen_sample(struct gen *g, int idx, uint64_t id, const struct buf *b)
{
	struct rawfrag_sample s;
	int k = g->nr++;

	memset(&s, 0, sizeof(s));
	s.identifier = id;
	s.id = id;
	s.ip = 0x3ff80001000ULL + k;
	s.pid = s.tid = 4242;
	s.time = 1000000000ULL + k * 1000000ULL;
	s.cpu = k % 2;
	s.period = 1;
	s.raw_size = b->len;
	s.raw_data = b->d;
	return rawfrag_writer__write_sample(g->w, idx, &s, PERF_RECORD_MISC_KERNEL);
}

static int gen_close(struct gen *g, int ret)
{
	if (!ret)
		ret = rawfrag_writer__finish(g->w);
	if (ret) {
		const struct rawfrag_err *e = rawfrag_writer__error(g->w);

		fprintf(stderr, "s390-gen: %s\n", e && e->reason[0] ? e->reason : strerror(-ret));
	}
	rawfrag_writer__delete(g->w);
	return ret;
}

static int start(struct gen *g)
{
	return rawfrag_writer__start(g->w);
}

static int gen_cfdiag(const char *dir, const char *name, const struct machine *m, bool be,
		      bool mappings, int nr)
{
	struct gen g;
	struct buf b;
	int ret;

	ret = gen_open_map(&g, dir, name, be, m, mappings);
	if (ret)
		return ret;
	ret = gen_evsel(&g, PMU_CF_DIAG, KS_EVENT_CF_DIAG, "cpum_cf_diag/CF_DIAG/", 0);
	if (ret >= 0)
		ret = start(&g);
	for (int k = 0; !ret && k < nr; k++) {
		build_cfdiag(&b, k, m, CF_SOUND);
		ret = gen_sample(&g, 0, 0, &b);
	}
	return gen_close(&g, ret < 0 ? ret : 0);
}

static int gen_pai(const char *dir)
{
	struct gen g;
	struct buf b;
	int ret, c, n;

	ret = gen_open(&g, dir, "s390-pai.data", true, &z16);
	if (ret)
		return ret;
	c = gen_evsel(&g, PMU_PAI_CRYPTO, KS_PAI_CRYPTO_BASE, "pai_crypto/CRYPTO_ALL/", 101);
	n = gen_evsel(&g, PMU_PAI_EXT, KS_PAI_NNPA_BASE, "pai_ext/NNPA_ALL/", 102);
	ret = c < 0 ? c : n < 0 ? n : start(&g);
	for (int k = 0; !ret && k < 2 * NR_SAMPLES; k++) {
		/* alternate: crypto sample k/2, nnpa sample k/2 */
		build_pai(&b, k / 2, k & 1);
		g.nr = k;
		ret = gen_sample(&g, k & 1 ? n : c, k & 1 ? 102 : 101, &b);
	}
	return gen_close(&g, ret < 0 ? ret : 0);
}

static int gen_sf(const char *dir)
{
	struct gen g;
	struct buf b;
	int ret, bi, di;

	ret = gen_open(&g, dir, "s390-sf.data", true, &z13);
	if (ret)
		return ret;
	bi = gen_evsel(&g, PMU_SF, KS_EVENT_CPUM_SF, "cpum_sf/event=0xB0000/", 201);
	di = gen_evsel(&g, PMU_SF, KS_EVENT_CPUM_SF_DIAG, "cpum_sf/event=0xBD000/", 202);
	ret = bi < 0 ? bi : di < 0 ? di : start(&g);
	for (int k = 0; !ret && k < 2 * NR_SAMPLES; k++) {
		build_sf(&b, k, k & 1);
		g.nr = k;
		ret = gen_sample(&g, k & 1 ? di : bi, k & 1 ? 202 : 201, &b);
	}
	return gen_close(&g, ret < 0 ? ret : 0);
}

static int gen_corrupt(const char *dir)
{
	struct gen g;
	struct buf b;
	int ret, cf, pai, sf, k = 0;

	ret = gen_open(&g, dir, "s390-corrupt.data", true, &z16);
	if (ret)
		return ret;
	cf = gen_evsel(&g, PMU_CF_DIAG, KS_EVENT_CF_DIAG, "cpum_cf_diag/CF_DIAG/", 301);
	pai = gen_evsel(&g, PMU_PAI_CRYPTO, KS_PAI_CRYPTO_BASE, "pai_crypto/CRYPTO_ALL/", 302);
	sf = gen_evsel(&g, PMU_SF, KS_EVENT_CPUM_SF, "cpum_sf/event=0xB0000/", 303);
	ret = cf < 0 ? cf : pai < 0 ? pai : sf < 0 ? sf : start(&g);
	for (enum cf_fault f = CF_SOUND; !ret && f <= CF_NO_TRAILER; f++) {
		build_cfdiag(&b, k++, &z16, f);
		/* reserved flag bits 0 and 2 (from the LSB): what perf's LE reading shows */
		if (f == CF_SOUND)
			b.d[b.len - 4 - KS_CF_TRAILER + 7] |= 0x05;
		ret = gen_sample(&g, cf, 301, &b);
	}
	if (!ret) {
		/* 2 entries (20 bytes) + 8: raw_size 28 keeps 8n + 4 but cuts an entry */
		build_pai(&b, k++, false);
		b.len = 28;
		ret = gen_sample(&g, pai, 302, &b);
	}
	if (!ret) {
		build_sf(&b, k++, false);
		b.d[11] = 180; /* recorded size 180 (low byte of the u32 at 8) */
		ret = gen_sample(&g, sf, 303, &b);
	}
	return gen_close(&g, ret < 0 ? ret : 0);
}

/* ---- dump ---- */

struct dump {
	struct rawfrag_tool tool; /* first: the handler gets &d->tool */
	struct rawfrag_emit *em;
	struct rawfrag_out *out;
};

/* one parsed sample with RAW as JSON (the session skips those that do not parse) */
static int dump_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *e)
{
	struct dump *dm = (struct dump *)tool;
	struct rawfrag_emit *em = dm->em;
	struct rawfrag_evsel *ev = e->evsel;
	const struct rawfrag_decoder *d;
	struct rawfrag_raw raw;

	if (!rawfrag_session__raw(s, e->rec, e->sample, &raw))
		return 0;
	d = rawfrag_session__decoder(s, ev);
	rawfrag_emit__reset(em);
	rawfrag_emit__begin_object(em, NULL);
	rawfrag_emit__u64(em, "offset", e->rec->offset);
	rawfrag_emit__str(em, "event", rawfrag_evsel__name(ev), (size_t)-1);
	rawfrag_emit__str(em, "producer", d ? rawfrag_decoder__name(d) : "none", (size_t)-1);
	rawfrag_emit__u64(em, "raw_size", raw.size);
	rawfrag_emit__begin_object(em, "fields");
	rawfrag_session__sample_fields(s, ev, e->rec, e->sample, em);
	rawfrag_emit__end_object(em);
	rawfrag_emit__end_object(em);
	rawfrag_out__putc(dm->out, '\n');
	return 0;
}

static int skip_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		    const struct rawfrag_event *e, const struct rawfrag_err *err)
{
	return 0;
}

static int dump(const char *path)
{
	struct dump dm = { .tool = { .sz = sizeof(dm.tool), .sample = dump_sample,
				     .sample_error = skip_bad } };
	RAWFRAG_OPTS(rawfrag_session_opts, sopts);
	struct rawfrag_session *s = NULL;
	struct rawfrag_emit *em = NULL;
	struct rawfrag_out *out = NULL;
	struct rawfrag_file *f;
	struct rawfrag_err err;
	char msg[512];
	int ret = 2;

	f = rawfrag_file__open(path, NULL, &err);
	if (!f)
		goto fail;
	s = rawfrag_session__new(f, &sopts, &err);
	if (!s)
		goto fail;
	out = rawfrag_out__new(1);
	em = out ? rawfrag_emit__new(out, RAWFRAG_EMIT_JSON) : NULL;
	if (!em)
		goto cleanup;
	dm.em = em;
	dm.out = out;
	ret = rawfrag_session__process(s, &dm.tool, &err);
	if (ret < 0)
		goto fail;
	ret = 0;
	goto cleanup;
fail:
	fprintf(stderr, "%s\n", rawfrag_err__format(&err, path, msg, sizeof(msg)));
	ret = 2;
cleanup:
	rawfrag_emit__delete(em);
	rawfrag_out__delete(out);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	return ret;
}

int main(int argc, char **argv)
{
	const char *dir;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "gen")) {
		dir = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		dir = argv[1]; /* "s390-gen DIR", as tests/fuzz/seed.sh runs every generator */
	} else {
		fprintf(stderr, "usage: s390-gen [gen] DIR | s390-gen dump FILE\n");
		return 2;
	}
	ret = gen_cfdiag(dir, "s390-z16.data", &z16, true, true, NR_SAMPLES);
	if (!ret)
		ret = gen_cfdiag(dir, "s390-z13.data", &z13, true, true, NR_SAMPLES);
	if (!ret)
		ret = gen_cfdiag(dir, "s390-z16-le.data", &z16, false, true, NR_SAMPLES);
	if (!ret)
		ret = gen_cfdiag(dir, "s390-z13-nomap.data", &z13, true, false, NR_SAMPLES);
	for (size_t i = 0; !ret && i < sizeof(gens) / sizeof(gens[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "s390-cf-%s.data", gens[i].name);
		ret = gen_cfdiag(dir, name, &gens[i].m, true, true, 1);
	}
	if (!ret)
		ret = gen_pai(dir);
	if (!ret)
		ret = gen_sf(dir);
	if (!ret)
		ret = gen_corrupt(dir);
	return ret ? 1 : 0;
}
