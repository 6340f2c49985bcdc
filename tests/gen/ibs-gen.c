// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS fixture generator and dumper for tests/shell/t60-ibs.sh.
 *
 *   ibs-gen write DIR    write DIR/ibs-<scenario>.data, one perf.data per scenario,
 *                        and DIR/ibs-zen3.pipe.data, zen3 in pipe mode
 *   ibs-gen dump FILE    one JSON line per IBS sample: record offset/size, raw
 *                        offset/size, decoder, text (-v form) and fields, through
 *                        the library (session + decoder), as the report tool would
 *   ibs-gen list         the scenario names, one per line
 *
 * Every file has ARCH x86_64, CPUID "AuthenticAMD,<family>,<model>,<stepping>",
 * PMU_MAPPINGS 11:ibs_fetch and 12:ibs_op (dynamic PMU types as a machine would
 * assign them), PMU_CAPS where the scenario's CPU has them, HOSTNAME, OSRELEASE,
 * NRCPUS, EVENT_DESC (names "ibs_fetch//" and "ibs_op//"), and two evsels with
 * sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW (ids 1000 and 2000).
 *
 * Register values: bit positions from (the kernel's amd-ibs.h,
 * from the family 19h model 01h PPR) and, for family 10h, the BKDG names used by
 * OProfile's IBS daemon. The macros below are written from those tables, not
 * from the decoder's tables, so the decoder is checked against an independent
 * encoding. Caps words are CPUID 8000_001B EAX values;
 * per-CPU caps values are plausible choices for the family, noted where made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rawfrag/decoder.h>
#include <rawfrag/emit.h>
#include <rawfrag/file.h>
#include <rawfrag/tool.h>
#include <rawfrag/writer.h>

#define B(n) (1ull << (n))
#define FLD(v, lo, w) (((uint64_t)(v) & ((1ull << (w)) - 1)) << (lo))

/* IbsFetchCtl C001_1030 */
#define FC_MAXCNT(x) FLD(x, 0, 16)
#define FC_CNT(x) FLD(x, 16, 16)
#define FC_LAT(x) FLD(x, 32, 16)
#define FC_EN B(48)
#define FC_VAL B(49)
#define FC_COMP B(50)
#define FC_ICMISS B(51)
#define FC_PHYS B(52)
#define FC_PGSZ(x) FLD(x, 53, 2)
#define FC_L1MISS B(55)
#define FC_L2MISS B(56)
#define FC_RAND B(57)
#define FC_L2CMISS B(58) /* FetchL2Miss */
#define FC_L3ONLY B(59) /* zen4 */
#define FC_OCMISS B(60) /* zen4 */
#define FC_L3MISS B(61) /* zen4 */
/* IcIbsExtdCtl C001_103C */
#define FX_ITLBLAT(x) FLD(x, 0, 16)
/* IbsOpCtl C001_1033 */
#define OC_MAXCNT(x) FLD(x, 0, 16)
#define OC_L3ONLY B(16)
#define OC_EN B(17)
#define OC_VAL B(18)
#define OC_CNTCTL B(19)
#define OC_MAXEXT(x) FLD(x, 20, 7)
#define OC_CURCNT(x) FLD(x, 32, 27)
#define OC_LDLAT(x) FLD(x, 59, 4) /* Zen 5 ldlat */
#define OC_LDLATEN B(63)
/* IbsOpData C001_1035 */
#define OD_COMP2RET(x) FLD(x, 0, 16)
#define OD_TAG2RET(x) FLD(x, 16, 16)
#define OD_RESYNC B(32) /* family 10h */
#define OD_MISPRET B(33) /* family 10h */
#define OD_RETURN B(34)
#define OD_TAKEN B(35)
#define OD_MISP B(36)
#define OD_BRNRET B(37)
#define OD_RIPINV B(38)
#define OD_FUSE B(39)
#define OD_UCODE B(40)
/* IbsOpData2 C001_1036 */
#define O2_SRC(x) (FLD((x) & 7, 0, 3) | FLD((x) >> 3, 6, 2)) /* lo 0-2, hi 6-7 */
#define O2_RMTNODE B(4)
#define O2_HITST B(5)
/* IbsOpData3 C001_1037 */
#define O3_LD B(0)
#define O3_ST B(1)
#define O3_L1TLBMISS B(2)
#define O3_L2TLBMISS B(3)
#define O3_L1HIT2M B(4)
#define O3_L1HIT1G B(5)
#define O3_L2HIT2M B(6)
#define O3_DCMISS B(7)
#define O3_MISACC B(8)
#define O3_LDBNK B(9) /* family 10h */
#define O3_STBNK B(10) /* family 10h */
#define O3_STLDFWD B(11) /* family 10h */
#define O3_STLDCAN B(12) /* family 10h */
#define O3_WC B(13)
#define O3_UC B(14)
#define O3_LOCKED B(15)
#define O3_NOMAB B(16) /* DcMissNoMabAlloc (17h+), DcMabHit (10h) */
#define O3_LINV B(17)
#define O3_PHYV B(18)
#define O3_L2HIT1G B(19)
#define O3_L2MISS B(20)
#define O3_SWPF B(21)
#define O3_WIDTH(x) FLD(x, 22, 4)
#define O3_OPENREQ(x) FLD(x, 26, 6)
#define O3_MISSLAT(x) FLD(x, 32, 16)
#define O3_REFILL(x) FLD(x, 48, 16)

/* caps */
#define C_BASE 0x1fu /* AVAIL FETCHSAM OPSAM RDWROPCNT OPCNT */
#define C_BRNTRGT B(5)
#define C_OPCNTEXT B(6)
#define C_RIPINV B(7)
#define C_BRNFUSE B(8)
#define C_EXTD B(9)
#define C_OPDATA4 B(10)
#define C_ZEN4 B(11)
#define C_LDLAT B(12)

#define MAX_SAMPLES 96
#define MAX_REGS 12

enum { FETCH, OP };

struct gsample {
	int pmu;
	uint32_t caps;
	int n;
	uint64_t r[MAX_REGS];
};

struct scenario {
	const char *name;
	const char *cpuid;
	const char *osrelease; /* NULL: "6.1.0-ibs" (has the 2020 fetch fix) */
	const char *const *caps; /* pmu, name, value triples, NULL-terminated */
	int n;
	struct gsample s[MAX_SAMPLES];
};

static const char *const caps_zen4[] = { "ibs_op", "zen4_ibs_extensions", "1", NULL };
static const char *const caps_zen5[] = { "ibs_op", "zen4_ibs_extensions", "1",
					 "ibs_op", "ldlat", "1", NULL };

/* n registers: the first n values of r (len of them given; missing ones are 0) */
static void add(struct scenario *sc, int pmu, uint32_t caps, int n, const uint64_t *r, int len)
{
	struct gsample *s;

	if (sc->n >= MAX_SAMPLES || n > MAX_REGS) {
		fprintf(stderr, "ibs-gen: scenario %s too large\n", sc->name);
		exit(1);
	}
	s = &sc->s[sc->n++];
	s->pmu = pmu;
	s->caps = caps;
	s->n = n;
	for (int i = 0; i < n; i++)
		s->r[i] = i < len ? r[i] : 0;
}

/* a sample of n registers: the listed values (the kernel's order), then zeros */
#define ADD(sc, pmu, caps, n, ...)                                                     \
	do {                                                                           \
		const uint64_t _r[] = { __VA_ARGS__ };                                 \
		add(sc, pmu, caps, n, _r, sizeof(_r) / 8);                             \
	} while (0)

/* valid op ctl with the given count fields */
#define OPCTL(extra) (OC_EN | OC_VAL | OC_MAXCNT(0x1000) | OC_CURCNT(0x1a2b) | (extra))
#define FCTL(extra) (FC_EN | FC_VAL | FC_MAXCNT(0x1000) | FC_CNT(0x800) | FC_LAT(0x40) | (extra))

/* Fetch samples valid on every family: each fetch ctl bit on and off once. */
static void fetch_common(struct scenario *sc, uint32_t caps, int n, bool zen4)
{
	uint64_t zen = zen4 ? FC_L3ONLY | FC_OCMISS | FC_L3MISS : 0;
	uint64_t x = FX_ITLBLAT(0x56);

	/* completed, IC miss, L2 miss, phys valid, 2M page, L1 TLB miss, L2 hit */
	ADD(sc, FETCH, caps, n, FCTL(FC_COMP | FC_ICMISS | FC_PHYS | FC_PGSZ(1) | FC_L1MISS |
				     FC_RAND | FC_L2CMISS | zen),
	    0x401040, 0x1401040, x, 0x402000, 0x1234);
	/* aborted fetch, no phys: PhysAd/L1TlbPgSz/L2Miss not valid */
	ADD(sc, FETCH, caps, n, FCTL(FC_L1MISS | FC_L2MISS), 0xffffffff81000100ull, 0xdead000,
	    FX_ITLBLAT(0x7), 0x402000, 0x1234);
	/* completed IC hit, 1G page, L3MissOnly (zen4) */
	ADD(sc, FETCH, caps, n, FCTL(FC_COMP | FC_PHYS | FC_PGSZ(2) | (zen4 ? FC_L3ONLY : 0)),
	    0x7f0000001000ull, 0x2000, FX_ITLBLAT(0xffff), 0, 0);
	/* L1TlbPgSz 3 (reserved), maximum counts and latency */
	ADD(sc, FETCH, caps, n, FC_EN | FC_VAL | FC_MAXCNT(0xffff) | FC_CNT(0xffff) |
				FC_LAT(0xffff) | FC_PHYS | FC_PGSZ(3) | FC_COMP | FC_ICMISS | zen,
	    0x401080, 0x30000, x, 0, 0);
	/* FetchVal clear: perf skips it, we flag it */
	ADD(sc, FETCH, caps, n, FC_EN | FC_MAXCNT(0x10), 0x401000, 0, 0, 0, 0);
}

/* Op samples valid on families 17h+ (zen4 adds DataSrcHi, L3MissOnly). */
static void op_common(struct scenario *sc, uint32_t caps, int n, bool zen4)
{
	uint64_t l3o = zen4 ? OC_L3ONLY : 0;

	/* load, DC miss from DRAM (src 3), L1 TLB miss, L2 hit 2M, 8-byte width */
	ADD(sc, OP, caps, n, OPCTL(OC_CNTCTL | OC_MAXEXT(0x7f) | l3o),
	    0x401100, OD_COMP2RET(5) | OD_TAG2RET(9), O2_SRC(3) | O2_RMTNODE,
	    O3_LD | O3_L1TLBMISS | O3_L2HIT2M | O3_DCMISS | O3_L2MISS | O3_LINV | O3_PHYV |
		    O3_WIDTH(4) | O3_OPENREQ(5) | O3_MISSLAT(300) | O3_REFILL(40),
	    0x7ffd1000, 0x12345000, 0, 0);
	/* retired branch: taken, mispredicted, return, fused, microcode; target */
	ADD(sc, OP, caps, n, OPCTL(0),
	    0x401200, OD_BRNRET | OD_TAKEN | OD_MISP | OD_RETURN | OD_FUSE | OD_UCODE |
		    OD_COMP2RET(1) | OD_TAG2RET(2), 0, 0, 0, 0, 0x401800, 0);
	/* branch not taken; target 0 (perf prints none) */
	ADD(sc, OP, caps, n, OPCTL(0), 0x401210, OD_BRNRET, 0, 0, 0, 0, 0, 0);
	/* RIP invalid; store, L1 1G hit, WC+UC+locked+misaligned, NoMabAlloc, SwPf */
	ADD(sc, OP, caps, n, OPCTL(0), 0x401300, OD_RIPINV,
	    O2_SRC(2) | O2_HITST,
	    O3_ST | O3_L1HIT1G | O3_L1HIT2M | O3_MISACC | O3_WC | O3_UC | O3_LOCKED | O3_NOMAB |
		    O3_SWPF | O3_LINV | O3_WIDTH(5) | O3_OPENREQ(63) | O3_MISSLAT(0xffff) |
		    O3_REFILL(0xffff),
	    0x7ffd2000, 0, 0, 0);
	/* L2 TLB miss, L2 hit 1G, dc hit, width 0 (perf prints none) */
	ADD(sc, OP, caps, n, OPCTL(0), 0x401400, 0, 0,
	    O3_LD | O3_L1TLBMISS | O3_L2TLBMISS | O3_L2HIT1G | O3_LINV, 0x7ffd3000, 0, 0, 0);
	/* OpVal clear: perf skips it */
	ADD(sc, OP, caps, n, OC_EN | OC_MAXCNT(1), 0x401500, 0, 0, 0, 0, 0, 0, 0);
	/* every data source value, with CacheHitSt set (shown only for cache sources) */
	for (int src = 0; src < (zen4 ? 32 : 8); src++)
		ADD(sc, OP, caps, n, OPCTL(0), 0x401600 + src, 0,
		    O2_SRC(src) | O2_HITST | (src & 1 ? O2_RMTNODE : 0),
		    O3_LD | O3_DCMISS | O3_L2MISS | O3_LINV | O3_MISSLAT(100 + src), 0x7ffd4000,
		    0, 0, 0);
}

/* Genoa: family 19h model 11h; caps bits 0-9 + ZEN4 (OPDATA4 left out: no CPU known) */
static void sc_zen4(struct scenario *sc)
{
	uint32_t caps = 0x3ff | C_ZEN4;

	sc->name = "zen4";
	sc->cpuid = "AuthenticAMD,25,17,1";
	sc->caps = caps_zen4;
	fetch_common(sc, caps, 4, true);
	op_common(sc, caps, 8, true);
}

/* Milan: family 19h model 01h, errata 1238/1347/1293 */
static void sc_zen3(struct scenario *sc)
{
	uint32_t caps = 0x3ff;

	sc->name = "zen3";
	sc->cpuid = "AuthenticAMD,25,1,1";
	fetch_common(sc, caps, 4, false);
	op_common(sc, caps, 8, false);
	/* every L1TlbPgSz under the erratum 1347 table */
	for (int pg = 0; pg < 4; pg++)
		ADD(sc, FETCH, caps, 4, FCTL(FC_COMP | FC_ICMISS | FC_PHYS | FC_PGSZ(pg)),
		    0x401000 + pg, 0x5000, 0, 0, 0);
	/* erratum 1293: SwPf alone */
	ADD(sc, OP, caps, 8, OPCTL(0), 0x401700, 0, O2_SRC(3),
	    O3_LD | O3_DCMISS | O3_L2MISS | O3_SWPF | O3_OPENREQ(3), 0, 0, 0);
}

/* Rome: family 17h model 31h */
static void sc_zen2(struct scenario *sc)
{
	uint32_t caps = 0x3ff;

	sc->name = "zen2";
	sc->cpuid = "AuthenticAMD,23,49,0";
	fetch_common(sc, caps, 4, false);
	op_common(sc, caps, 8, false);
}

/* family 10h (e.g. model 04h): base caps only, 3 fetch and 7 op registers */
static void sc_fam10(struct scenario *sc)
{
	uint32_t caps = C_BASE;

	sc->name = "fam10";
	sc->cpuid = "AuthenticAMD,16,4,2";
	/* fetch: only bits 0-57 exist */
	ADD(sc, FETCH, caps, 3, FCTL(FC_COMP | FC_ICMISS | FC_PHYS | FC_PGSZ(1) | FC_L1MISS),
	    0x401040, 0x1401040);
	ADD(sc, FETCH, caps, 3, FCTL(FC_L1MISS | FC_L2MISS | FC_RAND), 0x401080, 0, 0);
	/* op: resync + mispredicted return on a retired branch; no BrTarget register */
	ADD(sc, OP, caps, 7, OPCTL(0), 0x401100,
	    OD_RESYNC | OD_MISPRET | OD_BRNRET | OD_RETURN | OD_COMP2RET(3), 0, 0, 0, 0);
	/* load miss from local node cache (O state), bank conflicts, fwd, MAB hit */
	ADD(sc, OP, caps, 7, OPCTL(0), 0x401200, 0, O2_SRC(2) | O2_HITST,
	    O3_LD | O3_DCMISS | O3_LDBNK | O3_STBNK | O3_STLDFWD | O3_STLDCAN | O3_NOMAB |
		    O3_LINV | O3_PHYV | O3_MISSLAT(77),
	    0x7ffd0000, 0x9000);
	for (int src = 0; src < 8; src++)
		ADD(sc, OP, caps, 7, OPCTL(0), 0x401300 + src, 0, O2_SRC(src) | O2_HITST,
		    O3_LD | O3_DCMISS | O3_MISSLAT(50), 0, 0);
}

/* family 15h model 02h: BRNTRGT, OPCNTEXT, RIPINVALIDCHK (no FETCHCTLEXTD) */
static void sc_fam15(struct scenario *sc)
{
	uint32_t caps = C_BASE | C_BRNTRGT | C_OPCNTEXT | C_RIPINV;

	sc->name = "fam15";
	sc->cpuid = "AuthenticAMD,21,2,0";
	/* a 2020+ kernel: 3 fetch registers although BRNTRGT is set */
	ADD(sc, FETCH, caps, 3, FCTL(FC_COMP | FC_PHYS), 0x401040, 0x1000, 0);
	ADD(sc, OP, caps, 8, OPCTL(OC_CNTCTL | OC_MAXEXT(3)), 0x401100,
	    OD_BRNRET | OD_TAKEN, 0, 0, 0, 0, 0x401900);
	ADD(sc, OP, caps, 8, OPCTL(0), 0x401200, OD_RIPINV, O2_SRC(4),
	    O3_ST | O3_DCMISS | O3_LINV, 0x7ffd0000, 0, 0);
}

/* family 1Ah model 02h (Zen 5): ldlat capability and fields */
static void sc_zen5(struct scenario *sc)
{
	uint32_t caps = 0x3ff | C_ZEN4 | C_LDLAT;

	sc->name = "zen5";
	sc->cpuid = "AuthenticAMD,26,2,0";
	sc->caps = caps_zen5;
	fetch_common(sc, caps, 4, true);
	ADD(sc, OP, caps, 8, OPCTL(OC_LDLAT(5) | OC_LDLATEN), 0x401100, 0, O2_SRC(12),
	    O3_LD | O3_DCMISS | O3_L2MISS | O3_MISSLAT(900), 0, 0, 0);
}

/* kernels before 36e1be8ada99 (2020): fetch carries BrTarget [+ OpData4] */
static void sc_oldlayout(struct scenario *sc)
{
	uint32_t c1 = C_BASE | C_BRNTRGT | C_OPCNTEXT | C_RIPINV | C_BRNFUSE; /* 4 regs */
	uint32_t c2 = 0x3ff | C_OPDATA4; /* old fetch 5 regs, new 4; op 9 regs */

	sc->name = "oldlayout";
	sc->cpuid = "AuthenticAMD,23,1,2";
	sc->osrelease = "4.19.0-6-amd64"; /* Debian 10's kernel before its 2020 update */
	ADD(sc, FETCH, c1, 4, FCTL(FC_COMP | FC_PHYS), 0x401040, 0x1000, 0xaaaa0000401800ull);
	ADD(sc, FETCH, c2, 5, FCTL(FC_COMP | FC_PHYS), 0x401080, 0x2000, 0xbbbb0000402800ull,
	    0xcccc);
	/* BRNTRGT + FETCHCTLEXTD, 4 regs: BrTarget (old) or IcIbsExtdCtl (new)? */
	ADD(sc, FETCH, 0x3ff, 4, FCTL(FC_COMP | FC_PHYS), 0x4010c0, 0x3000, 0x401c00);
	ADD(sc, OP, c2, 9, OPCTL(0), 0x401100, OD_BRNRET | OD_TAKEN, 0, 0, 0, 0, 0x401a00,
	    0x4444);
}

/* payloads with too few registers (check: ibs_reg_count) */
static void sc_short(struct scenario *sc)
{
	uint32_t caps = 0x3ff | C_ZEN4;

	sc->name = "short";
	sc->cpuid = "AuthenticAMD,25,17,1";
	sc->caps = caps_zen4;
	/* fetch with 3 registers although FETCHCTLEXTD is set */
	ADD(sc, FETCH, caps, 3, FCTL(FC_COMP | FC_PHYS), 0x401040, 0x1000);
	/* op: 7 registers although BRNTRGT is set; branch retired */
	ADD(sc, OP, caps, 7, OPCTL(0), 0x401100, OD_BRNRET | OD_TAKEN, 0,
	    O3_LD | O3_LINV | O3_PHYV, 0x7ffd0000, 0x8000);
	/* op: 5 registers (no DcLinAd/DcPhysAd/BrTarget) with their valid bits set */
	ADD(sc, OP, caps, 5, OPCTL(0), 0x401200, OD_BRNRET, 0, O3_LD | O3_LINV | O3_PHYV);
	/* fetch: 2 registers */
	ADD(sc, FETCH, caps, 2, FCTL(FC_PHYS), 0x401300);
}

/* payloads with too many registers */
static void sc_long(struct scenario *sc)
{
	uint32_t caps = 0x3ff | C_ZEN4;

	sc->name = "long";
	sc->cpuid = "AuthenticAMD,25,17,1";
	sc->caps = caps_zen4;
	ADD(sc, OP, caps, 10, OPCTL(0), 0x401100, 0, 0, 0, 0, 0, 0, 0x11, 0x22);
	ADD(sc, FETCH, caps, 6, FCTL(0), 0x401040, 0, 0, 0x33, 0x44);
}

static void (*const scenarios[])(struct scenario *) = {
	sc_zen4, sc_zen3, sc_zen2, sc_fam10, sc_fam15, sc_zen5, sc_oldlayout, sc_short, sc_long,
};
#define NR_SCENARIOS (int)(sizeof(scenarios) / sizeof(scenarios[0]))

static int write_one(const char *dir, const struct scenario *sc, bool pipe)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .pipe = pipe);
	const uint64_t ids[2] = { 1000, 2000 };
	struct perf_event_attr attr;
	struct rawfrag_err err = { 0 };
	struct rawfrag_writer *w;
	char path[4096];
	int ret = 0;

	snprintf(path, sizeof(path), "%s/ibs-%s%s.data", dir, sc->name, pipe ? ".pipe" : "");
	w = rawfrag_writer__new(path, &wo, &err);
	if (!w) {
		fprintf(stderr, "ibs-gen: %s: %s\n", path, err.reason);
		return 1;
	}
	for (int pmu = 0; pmu < 2; pmu++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = pmu == FETCH ? 11 : 12;
		attr.sample_period = 0x10000;
		attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				   PERF_SAMPLE_RAW;
		attr.sample_id_all = 1;
		ret |= rawfrag_writer__add_evsel(w, &attr, pmu == FETCH ? "ibs_fetch//" : "ibs_op//",
						 &ids[pmu], 1) < 0;
	}
	ret |= rawfrag_writer__set_string(w, RAWFRAG_FEAT_HOSTNAME, "ibs-fixture");
	ret |= rawfrag_writer__set_string(w, RAWFRAG_FEAT_OSRELEASE,
					  sc->osrelease ? sc->osrelease : "6.1.0-ibs");
	ret |= rawfrag_writer__set_string(w, RAWFRAG_FEAT_ARCH, "x86_64");
	ret |= rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUID, sc->cpuid);
	ret |= rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUDESC, "AMD fixture CPU");
	ret |= rawfrag_writer__set_nrcpus(w, 2, 2);
	ret |= rawfrag_writer__add_pmu_mapping(w, 4, "cpu");
	ret |= rawfrag_writer__add_pmu_mapping(w, 11, "ibs_fetch");
	ret |= rawfrag_writer__add_pmu_mapping(w, 12, "ibs_op");
	for (int i = 0; sc->caps && sc->caps[i]; i += 3)
		ret |= rawfrag_writer__add_pmu_cap(w, sc->caps[i], sc->caps[i + 1], sc->caps[i + 2]);
	ret |= rawfrag_writer__start(w);
	if (ret)
		goto out;
	ret |= rawfrag_writer__write_comm(w, 4242, 4242, "ibs-work", false, NULL);
	for (int i = 0; i < sc->n; i++) {
		const struct gsample *g = &sc->s[i];
		uint8_t raw[4 + 8 * MAX_REGS];
		struct rawfrag_sample s;

		memcpy(raw, &g->caps, 4); /* little-endian host and target */
		memcpy(raw + 4, g->r, 8 * g->n);
		memset(&s, 0, sizeof(s));
		s.identifier = ids[g->pmu];
		s.id = ids[g->pmu];
		s.ip = g->r[g->n > 1 ? 1 : 0];
		s.pid = s.tid = 4242;
		s.time = 1000000 + 1000 * i;
		s.cpu = i & 1;
		s.period = 0x10000;
		s.raw_size = 4 + 8 * g->n;
		s.raw_data = raw;
		ret |= rawfrag_writer__write_sample(w, g->pmu, &s, PERF_RECORD_MISC_USER);
	}
	ret |= rawfrag_writer__finish(w);
out:
	if (ret) {
		const struct rawfrag_err *e = rawfrag_writer__error(w);

		fprintf(stderr, "ibs-gen: %s: %s\n", path, e ? e->reason : "write failed");
	}
	rawfrag_writer__delete(w);
	return ret ? 1 : 0;
}

static int cmd_write(const char *dir)
{
	struct scenario *sc = calloc(1, sizeof(*sc));
	int ret = 0;

	if (!sc)
		return 1;
	mkdir(dir, 0755);
	for (int i = 0; i < NR_SCENARIOS; i++) {
		memset(sc, 0, sizeof(*sc));
		scenarios[i](sc);
		ret |= write_one(dir, sc, false);
		/* pipe mode: CPUID, PMU_MAPPINGS etc. arrive after the attrs */
		if (!strcmp(sc->name, "zen3"))
			ret |= write_one(dir, sc, true);
	}
	free(sc);
	return ret;
}

static int cmd_list(void)
{
	struct scenario *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return 1;
	for (int i = 0; i < NR_SCENARIOS; i++) {
		memset(sc, 0, sizeof(*sc));
		scenarios[i](sc);
		printf("%s %s %d\n", sc->name, sc->cpuid, sc->n);
	}
	free(sc);
	return 0;
}

struct dump {
	struct rawfrag_tool tool; /* first: the handler gets &d->tool */
	struct rawfrag_emit *em;
	struct rawfrag_out *o, *txt;
};

/* one parsed sample (the session skips those that do not parse) */
static int dump_sample(struct rawfrag_tool *tool, struct rawfrag_session *ss,
		       const struct rawfrag_event *e)
{
	struct dump *d = (struct dump *)tool;
	const struct rawfrag_record *rec = e->rec;
	const struct rawfrag_evsel *ev = e->evsel;
	const struct rawfrag_decoder *dec = rawfrag_session__decoder(ss, ev);
	const struct rawfrag_sample *smp = e->sample;
	struct rawfrag_emit *em = d->em;
	struct rawfrag_out *o = d->o, *txt = d->txt;
	struct rawfrag_raw raw;
	uint32_t len = 0;
	const char *t;
	size_t tl;

	if (!dec || !rawfrag_session__raw(ss, rec, smp, &raw))
		return 0;
	rawfrag_emit__reset(em);
	rawfrag_emit__begin_object(em, NULL);
	rawfrag_emit__u64(em, "offset", rec->offset);
	rawfrag_emit__u64(em, "size", rec->size);
	rawfrag_emit__u64(em, "raw_offset", raw.raw_offset);
	rawfrag_emit__u64(em, "raw_size", raw.size);
	rawfrag_emit__str(em, "evsel", rawfrag_evsel__name(ev), (size_t)-1);
	rawfrag_emit__str(em, "decoder", rawfrag_decoder__name(dec), (size_t)-1);
	rawfrag_emit__s64(em, "length_ret", rawfrag_session__sample_length(ss, ev, rec, smp, &len));
	rawfrag_out__reset(txt);
	rawfrag_session__sample_text(ss, ev, rec, smp, txt, true);
	t = rawfrag_out__mem(txt, &tl);
	rawfrag_emit__str(em, "text", t, tl);
	rawfrag_emit__begin_object(em, "fields");
	rawfrag_session__sample_fields(ss, ev, rec, smp, em);
	rawfrag_emit__end_object(em);
	rawfrag_emit__end_object(em);
	rawfrag_out__putc(o, '\n');
	return 0;
}

static int skip_bad(struct rawfrag_tool *tool, struct rawfrag_session *ss,
		    const struct rawfrag_event *e, const struct rawfrag_err *err)
{
	return 0;
}

static int cmd_dump(const char *path)
{
	struct rawfrag_err err = { 0 };
	struct rawfrag_file *f = rawfrag_file__open(path, NULL, &err);
	struct rawfrag_session *ss = NULL;
	struct dump d = { .tool = { .sz = sizeof(d.tool), .sample = dump_sample,
				    .sample_error = skip_bad } };
	struct rawfrag_out *o = NULL, *txt = NULL;
	struct rawfrag_emit *em = NULL;
	char buf[512];
	int ret = 2;

	if (!f)
		goto out;
	ss = rawfrag_session__new(f, NULL, &err);
	o = rawfrag_out__new(1);
	txt = rawfrag_out__new(-1);
	em = o ? rawfrag_emit__new(o, RAWFRAG_EMIT_JSON) : NULL;
	if (!ss || !txt || !em)
		goto out;
	d.em = em;
	d.o = o;
	d.txt = txt;
	if (rawfrag_session__process(ss, &d.tool, &err) < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "ibs-gen: %s\n", rawfrag_err__format(&err, path, buf, sizeof(buf)));
	rawfrag_emit__delete(em);
	rawfrag_out__delete(o);
	rawfrag_out__delete(txt);
	rawfrag_session__delete(ss);
	rawfrag_file__close(f);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return cmd_dump(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "list"))
		return cmd_list();
	fprintf(stderr, "usage: ibs-gen write DIR | dump FILE | list\n");
	return 2;
}
