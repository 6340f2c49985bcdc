// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AMD IBS register and bit-field tables, caps names, layouts and data-source
 * names. Sources (summarised in Documentation/perf.data-raw-format.txt, AMD IBS):
 *  - bit fields: the kernel's amd-ibs.h (from the family 19h model 01h PPR);
 *    Zen 4 fields (IbsFetchCtl 59-61, IbsOpCtl 16, DataSrcHi)
 *    and Zen 5 / 2025-26 fields (LdLat, StrmSt, RmtSocket) as the kernel lists them;
 *  - families 10h-16h: the family 10h BKDG names also used by OProfile's IBS
 *    daemon (IbsOpBrnResync, IbsOpMispReturn, bank conflicts, store-to-load
 *    forwarding, DcMabHit);
 *  - fields marked IBS_G_FAM17 are documented in the family 19h PPR; that family
 *    17h already has them is assumed (not verified against a 17h PPR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/ibs.h"

#define F(n, l, w, g, d) { .name = n, .lo = l, .width = w, .gate = IBS_G_##g, .desc = d }

static const struct ibs_field fetch_ctl_fields[] = {
	F("FetchMaxCnt", 0, 16, ALL, "fetch max count / 16"),
	F("FetchCnt", 16, 16, ALL, "fetch count / 16"),
	F("FetchLat", 32, 16, ALL, "fetch latency (cycles)"),
	F("FetchEn", 48, 1, ALL, "fetch sampling enabled"),
	F("FetchVal", 49, 1, ALL, "fetch sample valid"),
	F("FetchComp", 50, 1, ALL, "fetch completed"),
	F("IcMiss", 51, 1, ALL, "instruction cache miss"),
	F("PhyAddrValid", 52, 1, ALL, "IbsFetchPhysAd valid"),
	F("L1TlbPgSz", 53, 2, ALL, "L1 ITLB page size (needs PhyAddrValid)"),
	F("L1TlbMiss", 55, 1, ALL, "L1 ITLB miss"),
	F("L2TlbMiss", 56, 1, ALL, "L2 ITLB miss"),
	F("RandEn", 57, 1, ALL, "random tagging enabled"),
	F("FetchL2Miss", 58, 1, FAM17, "L2 miss (needs FetchComp)"),
	F("L3MissOnly", 59, 1, ZEN4, "sample L3 misses only"),
	F("FetchOcMiss", 60, 1, ZEN4, "op cache miss"),
	F("FetchL3Miss", 61, 1, ZEN4, "L3 miss"),
};

static const struct ibs_field extd_ctl_fields[] = {
	F("ItlbRefillLat", 0, 16, ALL, "ITLB refill latency (cycles)"),
};

static const struct ibs_field op_ctl_fields[] = {
	F("OpMaxCnt", 0, 16, ALL, "op max count / 16, low bits"),
	F("L3MissOnly", 16, 1, ZEN4, "sample L3 misses only"),
	F("OpEn", 17, 1, ALL, "op sampling enabled"),
	F("OpVal", 18, 1, ALL, "op sample valid"),
	F("CntCtl", 19, 1, OPCNT, "count 0 cycles / 1 dispatched ops"),
	F("OpMaxCntExt", 20, 7, OPCNTEXT, "op max count / 16, upper 7 bits"),
	F("OpCurCnt", 32, 27, ALL, "current count"),
	F("LdLatThrsh", 59, 4, LDLAT, "load latency threshold (128 * (n + 1) cycles)"),
	F("LdLatEn", 63, 1, LDLAT, "load latency filtering enabled"),
};

static const struct ibs_field op_data_fields[] = {
	F("CompToRetCtr", 0, 16, ALL, "completion to retire (cycles)"),
	F("TagToRetCtr", 16, 16, ALL, "tag to retire (cycles)"),
	F("OpBrnResync", 32, 1, FAM_LEGACY, "resync macro-op"),
	F("OpMispReturn", 33, 1, FAM_LEGACY, "mispredicted return"),
	F("OpReturn", 34, 1, ALL, "return (needs OpBrnRet)"),
	F("OpBrnTaken", 35, 1, ALL, "taken branch (needs OpBrnRet)"),
	F("OpBrnMisp", 36, 1, ALL, "mispredicted branch (needs OpBrnRet)"),
	F("OpBrnRet", 37, 1, ALL, "retired branch"),
	F("RipInvalid", 38, 1, RIPINV, "IbsOpRip invalid"),
	F("OpBrnFuse", 39, 1, BRNFUSE, "fused branch"),
	F("OpMicrocode", 40, 1, FAM17, "microcoded op"),
};

static const struct ibs_field op_data2_fields[] = {
	F("DataSrcLo", 0, 3, ALL, "data source (low bits)"),
	F("RmtNode", 4, 1, ALL, "data from a remote node"),
	F("CacheHitSt", 5, 1, ALL, "cache hit state 0 M / 1 O"),
	F("DataSrcHi", 6, 2, ZEN4, "data source (high bits)"),
	F("StrmSt", 8, 1, STRMST, "streaming store"),
	F("RmtSocket", 9, 1, STRMST, "data from a remote socket"),
};

static const struct ibs_field op_data3_fields[] = {
	F("LdOp", 0, 1, ALL, "load op"),
	F("StOp", 1, 1, ALL, "store op"),
	F("DcL1TlbMiss", 2, 1, ALL, "L1 DTLB miss"),
	F("DcL2TlbMiss", 3, 1, ALL, "L2 DTLB miss"),
	F("DcL1TlbHit2M", 4, 1, ALL, "L1 DTLB hit in a 2M page"),
	F("DcL1TlbHit1G", 5, 1, ALL, "L1 DTLB hit in a 1G page"),
	F("DcL2TlbHit2M", 6, 1, ALL, "L2 DTLB hit in a 2M page"),
	F("DcMiss", 7, 1, ALL, "data cache miss"),
	F("DcMisAcc", 8, 1, ALL, "misaligned access"),
	F("DcLdBnkCon", 9, 1, FAM_LEGACY, "load bank conflict"),
	F("DcStBnkCon", 10, 1, FAM_LEGACY, "store bank conflict"),
	F("DcStToLdFwd", 11, 1, FAM_LEGACY, "store-to-load forwarded"),
	F("DcStToLdCan", 12, 1, FAM_LEGACY, "store-to-load forwarding cancelled"),
	F("DcWcMemAcc", 13, 1, ALL, "write-combining memory access"),
	F("DcUcMemAcc", 14, 1, ALL, "uncacheable memory access"),
	F("DcLockedOp", 15, 1, ALL, "locked operation"),
	F("DcMabHit", 16, 1, FAM_LEGACY, "miss address buffer hit"),
	F("DcMissNoMabAlloc", 16, 1, FAM17, "DC miss without MAB allocation"),
	F("DcLinAddrValid", 17, 1, ALL, "IbsDcLinAd valid"),
	F("DcPhyAddrValid", 18, 1, ALL, "IbsDcPhysAd valid"),
	F("DcL2TlbHit1G", 19, 1, ALL, "L2 DTLB hit in a 1G page"),
	F("L2Miss", 20, 1, FAM17, "L2 cache miss"),
	F("SwPf", 21, 1, FAM17, "software prefetch"),
	F("OpMemWidth", 22, 4, FAM17, "access width, 1 << (n - 1) bytes"),
	F("OpDcMissOpenMemReqs", 26, 6, FAM17, "outstanding memory requests on DC fill"),
	F("DcMissLat", 32, 16, ALL, "DC miss latency (cycles)"),
	F("TlbRefillLat", 48, 16, FAM17, "L1 DTLB refill latency (cycles)"),
};

#define R(n, m, fl) { .name = n, .msr = m, .fields = fl, .nr_fields = sizeof(fl) / sizeof(fl[0]) }
#define RA(n, m) { .name = n, .msr = m, .fields = NULL, .nr_fields = 0 }

static const struct ibs_reg regs[IBS_NR_REGS] = {
	[IBS_FETCH_CTL] = R("IbsFetchCtl", 0xc0011030, fetch_ctl_fields),
	[IBS_FETCH_LINAD] = RA("IbsFetchLinAd", 0xc0011031),
	[IBS_FETCH_PHYSAD] = RA("IbsFetchPhysAd", 0xc0011032),
	[IBS_FETCH_EXTD_CTL] = R("IcIbsExtdCtl", 0xc001103c, extd_ctl_fields),
	[IBS_OP_CTL] = R("IbsOpCtl", 0xc0011033, op_ctl_fields),
	[IBS_OP_RIP] = RA("IbsOpRip", 0xc0011034),
	[IBS_OP_DATA] = R("IbsOpData", 0xc0011035, op_data_fields),
	[IBS_OP_DATA2] = R("IbsOpData2", 0xc0011036, op_data2_fields),
	[IBS_OP_DATA3] = R("IbsOpData3", 0xc0011037, op_data3_fields),
	[IBS_DC_LINAD] = RA("IbsDcLinAd", 0xc0011038),
	[IBS_DC_PHYSAD] = RA("IbsDcPhysAd", 0xc0011039),
	[IBS_BR_TARGET] = RA("IbsBrTarget", 0xc001103b),
	/* no bit-field definition published */
	[IBS_OP_DATA4] = RA("IbsOpData4", 0xc001103d),
};

const struct ibs_reg *ibs_reg_desc(enum ibs_reg_id id)
{
	return (unsigned int)id < IBS_NR_REGS ? &regs[id] : NULL;
}

static const char *const cap_names[] = {
	[IBS_CAP_AVAIL] = "AVAIL",
	[IBS_CAP_FETCHSAM] = "FETCHSAM",
	[IBS_CAP_OPSAM] = "OPSAM",
	[IBS_CAP_RDWROPCNT] = "RDWROPCNT",
	[IBS_CAP_OPCNT] = "OPCNT",
	[IBS_CAP_BRNTRGT] = "BRNTRGT",
	[IBS_CAP_OPCNTEXT] = "OPCNTEXT",
	[IBS_CAP_RIPINVALIDCHK] = "RIPINVALIDCHK",
	[IBS_CAP_OPBRNFUSE] = "OPBRNFUSE",
	[IBS_CAP_FETCHCTLEXTD] = "FETCHCTLEXTD",
	[IBS_CAP_OPDATA4] = "OPDATA4",
	[IBS_CAP_ZEN4] = "ZEN4",
	[IBS_CAP_OPLDLAT] = "OPLDLAT",
	[IBS_CAP_DIS] = "DIS",
	[IBS_CAP_FETCHLAT] = "FETCHLAT",
	[IBS_CAP_BIT63_FILTER] = "BIT63_FILTER",
	[IBS_CAP_STRMST_RMTSOCKET] = "STRMST_RMTSOCKET",
	[IBS_CAP_MEM_PROFILER] = "MEM_PROFILER",
	[IBS_CAP_OPDTLBPGSIZE] = "OPDTLBPGSIZE",
};

const char *ibs_cap_name(unsigned int bit)
{
	return bit < sizeof(cap_names) / sizeof(cap_names[0]) ? cap_names[bit] : NULL;
}

bool ibs_parse_cpuid(const char *cpuid, struct ibs_cpu *cpu)
{
	unsigned int fam, model, step = 0;
	const char *p;
	char *end;

	if (!cpuid || strncmp(cpuid, "AuthenticAMD,", 13))
		return false;
	p = cpuid + 13;
	fam = strtoul(p, &end, 10);
	if (end == p || *end != ',')
		return false;
	p = end + 1;
	model = strtoul(p, &end, 10);
	if (end == p)
		return false;
	if (*end == ',')
		step = strtoul(end + 1, NULL, 10);
	cpu->family = fam;
	cpu->model = model;
	cpu->stepping = step;
	return true;
}

bool ibs_gate_open(enum ibs_gate g, const struct ibs_cpu *cpu, uint32_t caps)
{
	switch (g) {
	case IBS_G_ALL:
		return true;
	case IBS_G_FAM_LEGACY:
		/* unknown family: use the current (Zen) names */
		return cpu->family && cpu->family < 0x17;
	case IBS_G_FAM17:
		return !cpu->family || cpu->family >= 0x17;
	case IBS_G_ZEN4:
		return cpu->zen4 || (caps & IBS_CAP(ZEN4));
	case IBS_G_OPCNTEXT:
		return caps & IBS_CAP(OPCNTEXT);
	case IBS_G_OPCNT:
		return caps & IBS_CAP(OPCNT);
	case IBS_G_RIPINV:
		return caps & IBS_CAP(RIPINVALIDCHK);
	case IBS_G_BRNFUSE:
		return caps & IBS_CAP(OPBRNFUSE);
	case IBS_G_LDLAT:
		return cpu->ldlat || (caps & IBS_CAP(OPLDLAT));
	case IBS_G_STRMST:
		return caps & IBS_CAP(STRMST_RMTSOCKET);
	}
	return false;
}

static int fetch_list(uint32_t caps, bool old, enum ibs_reg_id *r)
{
	int n = 0;

	r[n++] = IBS_FETCH_CTL;
	r[n++] = IBS_FETCH_LINAD;
	r[n++] = IBS_FETCH_PHYSAD;
	if (old) {
		/* before 36e1be8ada99 (2020) the op extras were appended to fetch too */
		if (caps & IBS_CAP(BRNTRGT))
			r[n++] = IBS_BR_TARGET;
		if (caps & IBS_CAP(OPDATA4))
			r[n++] = IBS_OP_DATA4;
	} else if (caps & IBS_CAP(FETCHCTLEXTD)) {
		r[n++] = IBS_FETCH_EXTD_CTL;
	}
	return n;
}

static int op_list(uint32_t caps, enum ibs_reg_id *r)
{
	int n = 0;

	for (int id = IBS_OP_CTL; id <= IBS_DC_PHYSAD; id++)
		r[n++] = id;
	if (caps & IBS_CAP(BRNTRGT))
		r[n++] = IBS_BR_TARGET;
	if (caps & IBS_CAP(OPDATA4))
		r[n++] = IBS_OP_DATA4;
	return n;
}

void ibs_layout_pick(enum ibs_pmu pmu, uint32_t caps, uint32_t raw_size,
		     enum ibs_layout_hint hint, struct ibs_layout *lay)
{
	enum ibs_reg_id newr[IBS_MAX_REGS], oldr[IBS_MAX_REGS];
	int nn, no, found;
	bool use_old;

	memset(lay, 0, sizeof(*lay));
	found = raw_size >= 4 ? (int)((raw_size - 4) / 8) : 0;
	lay->nr_found = found;
	lay->nr_alt = -1;
	if (pmu == IBS_PMU_OP) {
		lay->kind = IBS_LAYOUT_OP;
		lay->nr_expected = op_list(caps, lay->regs);
		goto out;
	}
	nn = fetch_list(caps, false, newr);
	no = fetch_list(caps, true, oldr);
	if (nn == no && !memcmp(newr, oldr, nn * sizeof(newr[0]))) {
		lay->kind = IBS_LAYOUT_FETCH_BASE;
		use_old = false;
	} else if (nn == no) {
		/* same size, different register: only the kernel version can tell */
		lay->ambiguous = hint == IBS_HINT_NONE;
		use_old = hint == IBS_HINT_OLD;
		lay->kind = use_old ? IBS_LAYOUT_FETCH_OLD : IBS_LAYOUT_FETCH_NEW;
	} else if (found == no) {
		use_old = true;
		lay->kind = IBS_LAYOUT_FETCH_OLD;
		lay->nr_alt = nn;
	} else {
		use_old = false;
		lay->kind = found == nn ? IBS_LAYOUT_FETCH_NEW : IBS_LAYOUT_BAD;
		lay->nr_alt = no;
	}
	lay->nr_expected = use_old ? no : nn;
	memcpy(lay->regs, use_old ? oldr : newr, sizeof(newr));
out:
	if (found != lay->nr_expected)
		lay->kind = IBS_LAYOUT_BAD;
	lay->nr_regs = found < lay->nr_expected ? found : lay->nr_expected;
}

const char *ibs_layout_name(enum ibs_layout_kind k)
{
	switch (k) {
	case IBS_LAYOUT_OP:
		return "op";
	case IBS_LAYOUT_FETCH_BASE:
		return "fetch";
	case IBS_LAYOUT_FETCH_NEW:
		return "fetch-2020";
	case IBS_LAYOUT_FETCH_OLD:
		return "fetch-pre2020";
	case IBS_LAYOUT_BAD:
		break;
	}
	return "bad-count";
}

const char *ibs_data_src_name(unsigned int src, bool extended)
{
	static const char *const legacy[8] = {
		[2] = "local node cache", [3] = "DRAM", [4] = "remote node cache",
		[7] = "other (MMIO/config/PCI/APIC)",
	};
	static const char *const ext[13] = {
		[1] = "local L3 or other L1/L2 in CCX", [2] = "peer cache in a near CCX",
		[3] = "DRAM", [5] = "peer cache in a far CCX", [6] = "long-latency DRAM (PMEM)",
		[7] = "MMIO/config/PCI/APIC", [8] = "extension memory",
		[12] = "peer agent memory",
	};
	const char *s = NULL;

	if (src == 0)
		return "none";
	if (extended && src < 13)
		s = ext[src];
	else if (!extended && src < 8)
		s = legacy[src];
	return s ? s : "reserved";
}
