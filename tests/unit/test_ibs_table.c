// SPDX-License-Identifier: GPL-2.0
/*
 * The IBS bit-field table of the decoder (lib/decoders/ibs_regs.c) against a table
 * written here independently, field by field, from AMD's documentation as the
 * kernel carries it: the bit-field unions of arch/x86/include/asm/amd-ibs.h
 * (union ibs_fetch_ctl, ibs_op_ctl, ibs_op_data, ibs_op_data2, ibs_op_data3; the
 * family 19h model 01h PPR), with the Zen 4 additions (IbsFetchCtl 59-61,
 * IbsOpCtl L3MissOnly, DataSrcHi), the load-latency filter of IbsOpCtl 59-63
 * and the Zen 5 IbsOpData2 bits (StrmSt, RmtSocket). Every documented field must
 * be in the decoder at the same bit with the same width, and every decoder field
 * for these families must be documented here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal/ibs.h"

struct doc_field {
	enum ibs_reg_id reg;
	const char *name;
	unsigned int lo, width;
};

static const struct doc_field doc[] = {
	/* IbsFetchCtl, MSR C001_1030 */
	{ IBS_FETCH_CTL, "FetchMaxCnt", 0, 16 },    { IBS_FETCH_CTL, "FetchCnt", 16, 16 },
	{ IBS_FETCH_CTL, "FetchLat", 32, 16 },      { IBS_FETCH_CTL, "FetchEn", 48, 1 },
	{ IBS_FETCH_CTL, "FetchVal", 49, 1 },       { IBS_FETCH_CTL, "FetchComp", 50, 1 },
	{ IBS_FETCH_CTL, "IcMiss", 51, 1 },         { IBS_FETCH_CTL, "PhyAddrValid", 52, 1 },
	{ IBS_FETCH_CTL, "L1TlbPgSz", 53, 2 },      { IBS_FETCH_CTL, "L1TlbMiss", 55, 1 },
	{ IBS_FETCH_CTL, "L2TlbMiss", 56, 1 },      { IBS_FETCH_CTL, "RandEn", 57, 1 },
	{ IBS_FETCH_CTL, "FetchL2Miss", 58, 1 },    { IBS_FETCH_CTL, "L3MissOnly", 59, 1 },
	{ IBS_FETCH_CTL, "FetchOcMiss", 60, 1 },    { IBS_FETCH_CTL, "FetchL3Miss", 61, 1 },
	/* IcIbsExtdCtl, MSR C001_103C */
	{ IBS_FETCH_EXTD_CTL, "ItlbRefillLat", 0, 16 },
	/* IbsOpCtl, MSR C001_1033 */
	{ IBS_OP_CTL, "OpMaxCnt", 0, 16 },          { IBS_OP_CTL, "L3MissOnly", 16, 1 },
	{ IBS_OP_CTL, "OpEn", 17, 1 },              { IBS_OP_CTL, "OpVal", 18, 1 },
	{ IBS_OP_CTL, "CntCtl", 19, 1 },            { IBS_OP_CTL, "OpMaxCntExt", 20, 7 },
	{ IBS_OP_CTL, "OpCurCnt", 32, 27 },         { IBS_OP_CTL, "LdLatThrsh", 59, 4 },
	{ IBS_OP_CTL, "LdLatEn", 63, 1 },
	/* IbsOpData, MSR C001_1035 */
	{ IBS_OP_DATA, "CompToRetCtr", 0, 16 },     { IBS_OP_DATA, "TagToRetCtr", 16, 16 },
	{ IBS_OP_DATA, "OpReturn", 34, 1 },         { IBS_OP_DATA, "OpBrnTaken", 35, 1 },
	{ IBS_OP_DATA, "OpBrnMisp", 36, 1 },        { IBS_OP_DATA, "OpBrnRet", 37, 1 },
	{ IBS_OP_DATA, "RipInvalid", 38, 1 },       { IBS_OP_DATA, "OpBrnFuse", 39, 1 },
	{ IBS_OP_DATA, "OpMicrocode", 40, 1 },
	/* IbsOpData2, MSR C001_1036 */
	{ IBS_OP_DATA2, "DataSrcLo", 0, 3 },        { IBS_OP_DATA2, "RmtNode", 4, 1 },
	{ IBS_OP_DATA2, "CacheHitSt", 5, 1 },       { IBS_OP_DATA2, "DataSrcHi", 6, 2 },
	{ IBS_OP_DATA2, "StrmSt", 8, 1 },           { IBS_OP_DATA2, "RmtSocket", 9, 1 },
	/* IbsOpData3, MSR C001_1037 */
	{ IBS_OP_DATA3, "LdOp", 0, 1 },             { IBS_OP_DATA3, "StOp", 1, 1 },
	{ IBS_OP_DATA3, "DcL1TlbMiss", 2, 1 },      { IBS_OP_DATA3, "DcL2TlbMiss", 3, 1 },
	{ IBS_OP_DATA3, "DcL1TlbHit2M", 4, 1 },     { IBS_OP_DATA3, "DcL1TlbHit1G", 5, 1 },
	{ IBS_OP_DATA3, "DcL2TlbHit2M", 6, 1 },     { IBS_OP_DATA3, "DcMiss", 7, 1 },
	{ IBS_OP_DATA3, "DcMisAcc", 8, 1 },         { IBS_OP_DATA3, "DcWcMemAcc", 13, 1 },
	{ IBS_OP_DATA3, "DcUcMemAcc", 14, 1 },      { IBS_OP_DATA3, "DcLockedOp", 15, 1 },
	{ IBS_OP_DATA3, "DcMissNoMabAlloc", 16, 1 }, { IBS_OP_DATA3, "DcLinAddrValid", 17, 1 },
	{ IBS_OP_DATA3, "DcPhyAddrValid", 18, 1 },  { IBS_OP_DATA3, "DcL2TlbHit1G", 19, 1 },
	{ IBS_OP_DATA3, "L2Miss", 20, 1 },          { IBS_OP_DATA3, "SwPf", 21, 1 },
	{ IBS_OP_DATA3, "OpMemWidth", 22, 4 },      { IBS_OP_DATA3, "OpDcMissOpenMemReqs", 26, 6 },
	{ IBS_OP_DATA3, "DcMissLat", 32, 16 },      { IBS_OP_DATA3, "TlbRefillLat", 48, 16 },
};

#define NDOC (sizeof(doc) / sizeof(doc[0]))

static const struct ibs_field *find(const struct ibs_reg *r, const char *name)
{
	for (int i = 0; i < r->nr_fields; i++)
		if (!strcmp(r->fields[i].name, name))
			return &r->fields[i];
	return NULL;
}

static void test_documented_fields_in_decoder(void **state)
{
	for (unsigned int i = 0; i < NDOC; i++) {
		const struct ibs_reg *r = ibs_reg_desc(doc[i].reg);
		const struct ibs_field *f = r ? find(r, doc[i].name) : NULL;

		if (!f)
			fail_msg("%s.%s: documented, not in the decoder",
				 r ? r->name : "?", doc[i].name);
		if (f->lo != doc[i].lo || f->width != doc[i].width)
			fail_msg("%s.%s: decoder bits %u width %u, documented %u width %u", r->name,
				 f->name, f->lo, f->width, doc[i].lo, doc[i].width);
	}
}

/* the other way: a decoder field of the Zen families is one this table documents */
static void test_decoder_fields_documented(void **state)
{
	static const enum ibs_reg_id ids[] = { IBS_FETCH_CTL, IBS_FETCH_EXTD_CTL, IBS_OP_CTL,
					       IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3 };
	unsigned int n = 0;

	for (unsigned int k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		const struct ibs_reg *r = ibs_reg_desc(ids[k]);

		for (int i = 0; i < r->nr_fields; i++) {
			const struct ibs_field *f = &r->fields[i];
			bool found = false;

			/* families 10h-16h only (BKDG names): not in the Zen documentation */
			if (f->gate == IBS_G_FAM_LEGACY)
				continue;
			for (unsigned int j = 0; j < NDOC && !found; j++)
				found = doc[j].reg == ids[k] && !strcmp(doc[j].name, f->name);
			if (!found)
				fail_msg("%s.%s (bit %u): in the decoder, not documented", r->name,
					 f->name, f->lo);
			n++;
		}
	}
	assert_int_equal(n, NDOC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_fields_in_decoder),
		cmocka_unit_test(test_decoder_fields_documented),
	};

	return cmocka_run_group_tests_name("ibs_table", tests, NULL, NULL);
}
