// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS decoders on in-memory payloads: layouts for every caps combination
 * that changes the register list, both fetch layouts, register-count checks,
 * per-family fields (10h, 15h, 17h, 19h early/Zen 4, 1Ah), errata, valid bits,
 * derived values. Payloads sit in exactly-sized heap buffers so that ASan
 * catches any read past raw_size.
 *
 * Register values follow the bit positions of the kernel's amd-ibs.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/emit.h>
#include "internal/check_sink.h"
#include "internal/decoders.h"
#include "internal/ibs.h"

#define B(n) (1ull << (n))
#define CAPS_BASE 0x1fu /* AVAIL FETCHSAM OPSAM RDWROPCNT OPCNT */

struct found {
	int n;
	char kind[8][32];
	enum rawfrag_severity sev[8];
	char msg[8][256];
};

static void collect(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
		    const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct found *f = sink->ctx;

	if (f->n >= 8)
		return;
	snprintf(f->kind[f->n], sizeof(f->kind[0]), "%s", kind);
	f->sev[f->n] = sev;
	vsnprintf(f->msg[f->n], sizeof(f->msg[0]), fmt, ap);
	f->n++;
}

/* payload: caps + n registers, in an exactly sized malloc'd buffer */
struct payload {
	uint8_t *buf;
	struct rawfrag_raw raw;
};

static void payload_make(struct payload *p, uint32_t caps, const uint64_t *regs, int n)
{
	p->buf = malloc(4 + 8 * n);
	assert_non_null(p->buf);
	memcpy(p->buf, &caps, 4);
	if (n)
		memcpy(p->buf + 4, regs, 8 * n);
	memset(&p->raw, 0, sizeof(p->raw));
	p->raw.data = p->buf;
	p->raw.size = 4 + 8 * n;
}

struct env_fx {
	struct rawfrag_env env;
	struct rawfrag_pmu_cap caps[3];
};

static const struct rawfrag_env *make_env(struct env_fx *e, const char *cpuid, bool zen4,
					  bool ldlat)
{
	int n = 0;

	memset(e, 0, sizeof(*e));
	e->env.arch = "x86_64";
	e->env.cpuid = cpuid;
	if (zen4)
		e->caps[n++] = (struct rawfrag_pmu_cap){ "ibs_op", "zen4_ibs_extensions", "1" };
	if (ldlat)
		e->caps[n++] = (struct rawfrag_pmu_cap){ "ibs_op", "ldlat", "1" };
	e->env.nr_pmu_caps = n;
	e->env.pmu_caps = e->caps;
	return &e->env;
}

/* decode p with state st: length() result, findings, text (verbose) and JSON */
struct result {
	int len_ret;
	uint32_t len;
	struct found found;
	char text[8192];
	char json[16384];
};

static void run(const struct ibs_state *st, struct payload *p, struct result *r)
{
	const struct rawfrag_decoder *dec = st->pmu == IBS_PMU_FETCH ? &rawfrag_decoder_ibs_fetch :
								       &rawfrag_decoder_ibs_op;
	struct rawfrag_check_sink sink;
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *em;
	struct rawfrag_sample s;
	const char *m;
	size_t len;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	rawfrag_check_sink__init(&sink, false, NULL);
	sink.report = collect;
	sink.ctx = &r->found;
	r->len_ret = dec->length((void *)st, &p->raw, &s, &r->len, &sink);

	assert_non_null(o);
	assert_int_equal(dec->text((void *)st, &p->raw, &s, o, true), 0);
	m = rawfrag_out__mem(o, &len);
	assert_true(len < sizeof(r->text));
	memcpy(r->text, m, len);
	rawfrag_out__reset(o);

	em = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
	assert_non_null(em);
	rawfrag_emit__begin_object(em, NULL);
	assert_int_equal(dec->fields((void *)st, &p->raw, &s, em), 0);
	rawfrag_emit__end_object(em);
	m = rawfrag_out__mem(o, &len);
	assert_true(len < sizeof(r->json));
	memcpy(r->json, m, len);
	rawfrag_emit__delete(em);
	rawfrag_out__delete(o);
	free(p->buf);
}

#define assert_has(hay, needle)                                                        \
	do {                                                                           \
		if (!strstr(hay, needle))                                              \
			fail_msg("missing \"%s\" in:\n%s", needle, hay);               \
	} while (0)
#define assert_lacks(hay, needle)                                                      \
	do {                                                                           \
		if (strstr(hay, needle))                                               \
			fail_msg("unexpected \"%s\" in:\n%s", needle, hay);            \
	} while (0)

static void st_init(struct ibs_state *st, enum ibs_pmu pmu, const char *cpuid, bool zen4,
		    bool ldlat, const char *opt)
{
	struct env_fx e;

	ibs_state_init(st, pmu, make_env(&e, cpuid, zen4, ldlat), opt);
}

/* ---- layouts ---- */

static void test_layout_op_caps(void **state)
{
	struct ibs_layout l;

	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE, 4 + 8 * 7, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_OP);
	assert_int_equal(l.nr_expected, 7);
	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE | IBS_CAP(BRNTRGT), 4 + 8 * 8, IBS_HINT_NONE, &l);
	assert_int_equal(l.nr_expected, 8);
	assert_int_equal(l.regs[7], IBS_BR_TARGET);
	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE | IBS_CAP(OPDATA4), 4 + 8 * 8, IBS_HINT_NONE, &l);
	assert_int_equal(l.regs[7], IBS_OP_DATA4);
	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE | IBS_CAP(BRNTRGT) | IBS_CAP(OPDATA4), 4 + 8 * 9,
			false, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_OP);
	assert_int_equal(l.nr_expected, 9);
	assert_int_equal(l.regs[8], IBS_OP_DATA4);
	/* FETCHCTLEXTD does not change op */
	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE | IBS_CAP(FETCHCTLEXTD), 4 + 8 * 7, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_OP);
	ibs_layout_pick(IBS_PMU_OP, CAPS_BASE, 4 + 8 * 6, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_BAD);
	assert_int_equal(l.nr_regs, 6);
}

static void test_layout_fetch(void **state)
{
	uint32_t br = IBS_CAP(BRNTRGT), d4 = IBS_CAP(OPDATA4), ex = IBS_CAP(FETCHCTLEXTD);
	struct ibs_layout l;

	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE, 28, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_BASE);
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | ex, 36, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_NEW);
	assert_int_equal(l.regs[3], IBS_FETCH_EXTD_CTL);
	/* BRNTRGT without EXTD: 4 regs only on old kernels, 3 on new ones */
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br, 36, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_OLD);
	assert_int_equal(l.regs[3], IBS_BR_TARGET);
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br, 28, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_NEW);
	/* BRNTRGT + OPDATA4 + EXTD: 5 old, 4 new */
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br | d4 | ex, 44, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_OLD);
	assert_int_equal(l.regs[4], IBS_OP_DATA4);
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br | d4 | ex, 36, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_FETCH_NEW);
	/* BRNTRGT + EXTD: same count, different register */
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br | ex, 36, IBS_HINT_NONE, &l);
	assert_true(l.ambiguous);
	assert_int_equal(l.regs[3], IBS_FETCH_EXTD_CTL);
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br | ex, 36, IBS_HINT_OLD, &l);
	assert_int_equal(l.regs[3], IBS_BR_TARGET);
	/* neither */
	ibs_layout_pick(IBS_PMU_FETCH, CAPS_BASE | br | d4 | ex, 52, IBS_HINT_NONE, &l);
	assert_int_equal(l.kind, IBS_LAYOUT_BAD);
	assert_int_equal(l.nr_expected, 4);
	assert_int_equal(l.nr_alt, 5);
}

/* ---- checks ---- */

static void test_check_counts(void **state)
{
	uint64_t regs[10] = { B(17) | B(18) };
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_OP, "AuthenticAMD,25,17,1", true, false, NULL);
	payload_make(&p, CAPS_BASE | IBS_CAP(BRNTRGT), regs, 8);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_int_equal(r.len, 4 + 64);
	assert_int_equal(r.found.n, 0);

	payload_make(&p, CAPS_BASE | IBS_CAP(BRNTRGT), regs, 5);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, -EINVAL);
	assert_int_equal(r.found.n, 1);
	assert_string_equal(r.found.kind[0], "ibs_reg_count");
	assert_has(r.found.msg[0], "expected 8 registers, found 5");
	assert_has(r.json, "\"layout\":\"bad-count\"");
	assert_has(r.json, "IbsOpData3");
	assert_lacks(r.json, "IbsDcLinAd");

	payload_make(&p, CAPS_BASE, regs, 10);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, -EINVAL);
	assert_has(r.found.msg[0], "expected 7 registers, found 10");
	/* only the 7 expected are decoded */
	assert_lacks(r.json, "IbsBrTarget");

	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,25,17,1", true, false, NULL);
	payload_make(&p, CAPS_BASE | IBS_CAP(FETCHCTLEXTD) | IBS_CAP(BRNTRGT) | IBS_CAP(OPDATA4),
		     regs, 2);
	run(&st, &p, &r);
	assert_has(r.found.msg[0], "expected 4 registers (2020 layout) or 5 (pre-2020 layout), found 2");
}

static void test_check_short_raw(void **state)
{
	struct ibs_state st;
	struct payload p;
	struct result r;
	uint8_t *b;

	st_init(&st, IBS_PMU_OP, NULL, false, false, NULL);
	/* 2 bytes: no caps word */
	b = malloc(2);
	assert_non_null(b);
	memset(b, 0, 2);
	p.buf = b;
	memset(&p.raw, 0, sizeof(p.raw));
	p.raw.data = b;
	p.raw.size = 2;
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, -EINVAL);
	assert_has(r.found.msg[0], "no caps word");

	/* 4 + 8 + 4: not 4 + 8n */
	b = calloc(1, 16);
	assert_non_null(b);
	b[0] = 1;
	p.buf = b;
	p.raw.data = b;
	p.raw.size = 16;
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, -EINVAL);
	assert_has(r.found.msg[0], "not 4 + 8n");

	/* caps without AVAIL: a warning besides the count */
	payload_make(&p, 0x6, (uint64_t[7]){ 0 }, 7);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_int_equal(r.found.n, 1);
	assert_int_equal(r.found.sev[0], RAWFRAG_SEV_WARN);
	assert_string_equal(r.found.kind[0], "ibs_caps");
}

/* ---- fields per family ---- */

static void test_fetch_zen4(void **state)
{
	/* Genoa: family 19h model 11h, zen4 extensions */
	uint64_t regs[4] = {
		0x10 | (0x20ull << 16) | (0x55ull << 32) | B(48) | B(49) | B(50) | B(51) | B(52) |
			(1ull << 53) | B(58) | B(60) | B(61),
		0xffffffff81000000ull, 0x1000000ull, 0x33,
	};
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,25,17,1", true, false, NULL);
	payload_make(&p, 0x3ff | IBS_CAP(ZEN4), regs, 4);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"layout\":\"fetch-2020\"");
	assert_has(r.json, "\"FetchMaxCnt\":16");
	assert_has(r.json, "\"FetchCnt\":32");
	assert_has(r.json, "\"FetchLat\":85");
	assert_has(r.json, "\"FetchL3Miss\":1");
	assert_has(r.json, "\"FetchOcMiss\":1");
	assert_has(r.json, "\"L3MissOnly\":0");
	assert_has(r.json, "\"ItlbRefillLat\":51");
	assert_has(r.json, "\"page_size\":\"2M\"");
	assert_has(r.json, "\"cache_level\":\"beyond L3\"");
	assert_has(r.json, "\"fetch_latency\":85");
	assert_has(r.json, "\"caps_names\":[\"AVAIL\",\"FETCHSAM\"");
	assert_has(r.text, "layout=fetch-2020");
	assert_has(r.text, "phys=0x1000000");
	assert_has(r.text, "| IcIbsExtdCtl=0x33 ItlbRefillLat=51");
}

static void test_fetch_fam19_errata(void **state)
{
	/* Milan (19h model 01h): IcMiss ignored (1238), page-size table of 1347 */
	uint64_t regs[4] = { B(48) | B(49) | B(50) | B(51) | B(52) | (1ull << 53), 0x401000, 0x2000,
			     0 };
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,25,1,1", false, false, NULL);
	payload_make(&p, 0x3ff, regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"IcMiss\":\"erratum 1238\"");
	assert_has(r.json, "\"page_size\":\"16K\"");
	assert_lacks(r.json, "FetchL3Miss");
}

static void test_fetch_old_layout(void **state)
{
	/* pre-2020 kernel on a CPU with BRNTRGT, no EXTD: regs[3] is IbsBrTarget */
	uint64_t regs[4] = { B(48) | B(49), 0x401000, 0, 0x402000 };
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,23,49,0", false, false, NULL);
	payload_make(&p, 0x1ff, regs, 4);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"layout\":\"fetch-pre2020\"");
	assert_has(r.json, "\"IbsBrTarget\":{\"index\":3");
	assert_has(r.json, "\"IbsFetchPhysAd\":{\"index\":2,\"msr\":\"0xc0011032\",\"raw\":\"0x0\",\"valid\":false");
	assert_lacks(r.json, "IcIbsExtdCtl");
	assert_has(r.text, "layout=fetch-pre2020");
}

static void test_op_fam10(void **state)
{
	/* family 10h: legacy data3 bits and op_data resync/misp-return */
	uint64_t regs[7] = {
		B(17) | B(18) | 0x100,
		0x400123,
		B(32) | B(33) | B(37),
		2 | B(5), /* local node cache, O state */
		B(0) | B(7) | B(9) | B(11) | B(16) | B(17) | (0x40ull << 32),
		0x7ffd0000, 0,
	};
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_OP, "AuthenticAMD,16,4,2", false, false, NULL);
	payload_make(&p, CAPS_BASE, regs, 7);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"OpBrnResync\":1");
	assert_has(r.json, "\"OpMispReturn\":1");
	assert_has(r.json, "\"DcLdBnkCon\":1");
	assert_has(r.json, "\"DcStToLdFwd\":1");
	assert_has(r.json, "\"DcMabHit\":1");
	assert_lacks(r.json, "DcMissNoMabAlloc");
	assert_lacks(r.json, "TlbRefillLat");
	assert_lacks(r.json, "OpMicrocode");
	assert_lacks(r.json, "RipInvalid"); /* no RIPINVALIDCHK in caps */
	assert_has(r.json, "\"data_source_name\":\"local node cache\"");
	assert_has(r.json, "\"cache_level\":\"local node cache\"");
	assert_has(r.json, "\"dc_miss_latency\":64");
	assert_has(r.json, "\"op_type\":\"load\"");
	assert_has(r.text, "lin=0x7ffd0000");
	assert_lacks(r.text, "phys=");
}

static void test_op_fam15_caps(void **state)
{
	/* family 15h with RIPINVALIDCHK + OPBRNFUSE + OPCNTEXT; BRNTRGT reg */
	uint64_t regs[8] = {
		B(17) | B(18) | B(19) | 0xffff | (0x7full << 20) | (0x1234ull << 32),
		0x400123,
		B(35) | B(36) | B(37) | B(38) | B(39),
		0, 0, 0, 0,
		0x400800,
	};
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_OP, "AuthenticAMD,21,2,0", false, false, NULL);
	payload_make(&p, 0x1ff, regs, 8);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"OpMaxCntExt\":127");
	assert_has(r.json, "\"CntCtl\":1");
	assert_has(r.json, "\"OpCurCnt\":4660");
	assert_has(r.json, "\"RipInvalid\":1");
	assert_has(r.json, "\"OpBrnFuse\":1");
	assert_has(r.json, "\"IbsOpRip\":{\"index\":1,\"msr\":\"0xc0011034\",\"raw\":\"0x400123\",\"valid\":false");
	assert_has(r.json, "\"branch_taken\":true");
	assert_has(r.json, "\"branch_mispredicted\":true");
	assert_has(r.json, "\"op_type\":\"branch\"");
	assert_has(r.text, "target=0x400800");
	assert_lacks(r.text, "rip=");
}

static void test_op_zen4_dram_load(void **state)
{
	uint64_t regs[8] = {
		B(16) | B(17) | B(18),
		0x401000,
		(5ull << 0) | (9ull << 16),
		3 | B(4), /* DataSrc 3 = DRAM, remote node */
		B(0) | B(2) | B(4) | B(7) | B(17) | B(18) | B(20) | (4ull << 22) | (3ull << 26) |
			(300ull << 32) | (40ull << 48),
		0x7ffd1000, 0x12345000, 0,
	};
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_OP, "AuthenticAMD,25,17,1", true, false, NULL);
	payload_make(&p, 0x3ff | IBS_CAP(ZEN4), regs, 8);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"L3MissOnly\":1");
	assert_has(r.json, "\"DataSrcHi\":0");
	assert_has(r.json, "\"data_source\":3");
	assert_has(r.json, "\"cache_level\":\"DRAM\"");
	assert_has(r.json, "\"dc_miss_latency\":300");
	assert_has(r.json, "\"tlb\":\"L2-hit\"");
	assert_has(r.json, "\"tlb_refill_latency\":40");
	assert_has(r.json, "\"mem_width\":8");
	assert_has(r.json, "\"CacheHitSt\":\"data source is not a cache\"");
	assert_has(r.text, "phys=0x12345000");
	assert_has(r.text, "dc=miss lat=300");
}

static void test_op_fam19_erratum1293(void **state)
{
	uint64_t regs[8] = { B(17) | B(18), 0x401000, 0, 3, B(0) | B(7) | B(16) | B(20), 0, 0, 0 };
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_OP, "AuthenticAMD,25,1,1", false, false, NULL);
	payload_make(&p, 0x3ff, regs, 8);
	run(&st, &p, &r);
	assert_has(r.json, "\"invalid_reason\":\"erratum 1293 (DcMissNoMabAlloc or SwPf)\"");
	assert_has(r.json, "\"L2Miss\":\"erratum 1293\"");
	assert_lacks(r.json, "\"data_source\"");
}

static void test_op_zen5_ldlat(void **state)
{
	uint64_t regs[8] = { B(17) | B(18) | (3ull << 59) | B(63), 0x401000, 0, B(8) | B(9), 0,
			     0, 0, 0 };
	struct ibs_state st;
	struct payload p;
	struct result r;

	/* family 1Ah model 02h (Zen 5), ldlat PMU capability; STRMST_RMTSOCKET in caps */
	st_init(&st, IBS_PMU_OP, "AuthenticAMD,26,2,0", true, true, NULL);
	payload_make(&p, 0x3ff | IBS_CAP(ZEN4) | IBS_CAP(OPLDLAT) | IBS_CAP(STRMST_RMTSOCKET),
		     regs, 8);
	run(&st, &p, &r);
	assert_int_equal(r.len_ret, 0);
	assert_has(r.json, "\"LdLatThrsh\":3");
	assert_has(r.json, "\"LdLatEn\":1");
	assert_has(r.json, "\"StrmSt\":1");
	assert_has(r.json, "\"RmtSocket\":1");
	assert_has(r.json, "\"OPLDLAT\"");
}

static void test_truncated_never_overreads(void **state)
{
	/* every length from 0 to 9 regs, for both PMUs: ASan guards the reads */
	uint64_t regs[9];
	struct ibs_state st;
	struct payload p;
	struct result r;

	memset(regs, 0xff, sizeof(regs));
	for (int pmu = 0; pmu < 2; pmu++) {
		st_init(&st, pmu, "AuthenticAMD,25,17,1", true, true, NULL);
		for (int n = 0; n <= 9; n++) {
			payload_make(&p, 0xfffff, regs, n);
			run(&st, &p, &r);
			assert_has(r.text, pmu ? "ibs_op" : "ibs_fetch");
		}
	}
}

static void test_fetch_fam1a_needs_phys(void **state)
{
	/* family 1Ah model 50h: FetchLat/IcMiss/ITLB bits need PhyAddrValid */
	uint64_t regs[4] = { B(48) | B(49) | B(50) | B(51) | B(55) | (0x30ull << 32), 0x401000, 0,
			     0 };
	struct ibs_state st;
	struct payload p;
	struct result r;

	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,26,80,0", true, false, NULL);
	payload_make(&p, 0x3ff | IBS_CAP(ZEN4), regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"FetchLat\":\"PhyAddrValid=0\"");
	assert_has(r.json, "\"IcMiss\":\"PhyAddrValid=0\"");
	assert_lacks(r.json, "fetch_latency");
	assert_lacks(r.text, " lat=");
	/* the same register on model 02h: all valid */
	st_init(&st, IBS_PMU_FETCH, "AuthenticAMD,26,2,0", true, false, NULL);
	payload_make(&p, 0x3ff | IBS_CAP(ZEN4), regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"fetch_latency\":48");
	assert_has(r.json, "\"cache_level\":\"L2\"");
}

static void test_layout_osrelease(void **state)
{
	uint64_t regs[4] = { B(48) | B(49), 0x401000, 0, 0x5 };
	struct rawfrag_env env = { .cpuid = "AuthenticAMD,25,17,1", .osrelease = "6.1.0-13-amd64" };
	struct ibs_state st;
	struct payload p;
	struct result r;

	/* BRNTRGT + FETCHCTLEXTD, 4 regs: a >= 5.10 kernel has the 2020 layout */
	ibs_state_init(&st, IBS_PMU_FETCH, &env, NULL);
	payload_make(&p, 0x3ff, regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"layout\":\"fetch-2020\",\"layout_ambiguous\":false");
	assert_has(r.json, "\"layout_hint_from\":\"osrelease\"");
	env.osrelease = "4.14.200";
	ibs_state_init(&st, IBS_PMU_FETCH, &env, NULL);
	payload_make(&p, 0x3ff, regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"layout_ambiguous\":true");
	assert_has(r.text, "layout=fetch-2020(ambiguous)");
	ibs_state_init(&st, IBS_PMU_FETCH, &env, "old");
	payload_make(&p, 0x3ff, regs, 4);
	run(&st, &p, &r);
	assert_has(r.json, "\"layout\":\"fetch-pre2020\",\"layout_ambiguous\":false");
	assert_has(r.json, "\"IbsBrTarget\":{\"index\":3");
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64: deterministic, so a failure reproduces */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_random_payloads(void **state)
{
	static const char *const cpuids[] = { "AuthenticAMD,16,4,2", "AuthenticAMD,21,2,0",
					      "AuthenticAMD,23,49,0", "AuthenticAMD,25,1,1",
					      "AuthenticAMD,25,17,1", "AuthenticAMD,26,80,0", NULL };
	uint64_t x = 0x9e3779b97f4a7c15ull, regs[11];
	struct ibs_state st;
	struct payload p;
	struct result r;

	for (int i = 0; i < 1500; i++) {
		int n = rnd(&x) % 11;

		for (int j = 0; j < 11; j++)
			regs[j] = rnd(&x);
		st_init(&st, rnd(&x) & 1, cpuids[rnd(&x) % 7], rnd(&x) & 1, rnd(&x) & 1,
			rnd(&x) & 1 ? "old" : NULL);
		payload_make(&p, (uint32_t)rnd(&x), regs, n);
		run(&st, &p, &r);
		/* length() is 0 exactly when the count fits the layout */
		assert_true(r.len_ret == 0 || r.len_ret == -EINVAL);
		assert_true(r.len_ret != 0 || r.len == 4u + 8 * n);
		assert_true(r.json[0] == '{');
	}
}

static void test_cpuid_parse(void **state)
{
	struct ibs_cpu c = { 0 };

	assert_true(ibs_parse_cpuid("AuthenticAMD,25,17,1", &c));
	assert_int_equal(c.family, 25);
	assert_int_equal(c.model, 17);
	assert_int_equal(c.stepping, 1);
	assert_false(ibs_parse_cpuid("GenuineIntel,6,85,4", &c));
	assert_false(ibs_parse_cpuid("AuthenticAMD,", &c));
	assert_false(ibs_parse_cpuid(NULL, &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_op_caps),
		cmocka_unit_test(test_layout_fetch),
		cmocka_unit_test(test_check_counts),
		cmocka_unit_test(test_check_short_raw),
		cmocka_unit_test(test_fetch_zen4),
		cmocka_unit_test(test_fetch_fam19_errata),
		cmocka_unit_test(test_fetch_old_layout),
		cmocka_unit_test(test_op_fam10),
		cmocka_unit_test(test_op_fam15_caps),
		cmocka_unit_test(test_op_zen4_dram_load),
		cmocka_unit_test(test_op_fam19_erratum1293),
		cmocka_unit_test(test_op_zen5_ldlat),
		cmocka_unit_test(test_truncated_never_overreads),
		cmocka_unit_test(test_fetch_fam1a_needs_phys),
		cmocka_unit_test(test_layout_osrelease),
		cmocka_unit_test(test_random_payloads),
		cmocka_unit_test(test_cpuid_parse),
	};

	return cmocka_run_group_tests_name("ibs", tests, NULL, NULL);
}
