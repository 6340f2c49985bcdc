// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The unwinder's .eh_frame reader (unwind_cfi.c) on a hand-assembled
 * .eh_frame_hdr and .eh_frame: the rows a CFA program gives at each address
 * (worked out from the DWARF rules: instructions apply while their location
 * is at or below the address), the shapes left to libunwind (expressions,
 * signal frames, addresses outside every FDE), and the same image with
 * bytes mutated and cut short: answers or -1, never a read outside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal/machine.h"

#define BASE 0x7f0000000000ULL
#define SEG 0x2000 /* .eh_frame_hdr */

struct img {
	uint8_t b[0x3000];
	size_t limit; /* bytes readable (a file cut short) */
	size_t pos;
};

static const uint8_t *mem(void *arg, uint64_t addr, uint64_t *avail)
{
	struct img *m = arg;

	if (addr < BASE || addr - BASE >= m->limit)
		return NULL;
	*avail = m->limit - (addr - BASE);
	return m->b + (addr - BASE);
}

static void put(struct img *m, const void *p, size_t n)
{
	memcpy(m->b + m->pos, p, n);
	m->pos += n;
}

static void u8(struct img *m, uint8_t v)
{
	put(m, &v, 1);
}

static void u32(struct img *m, uint32_t v)
{
	put(m, &v, 4);
}

/* a CIE at m->pos: "zR" (+ extra), pcrel sdata4, RA 16, CFA rsp+8, RA at CFA-8 */
static size_t cie(struct img *m, const char *aug)
{
	size_t at = m->pos, len_at;

	len_at = m->pos;
	u32(m, 0);
	u32(m, 0); /* CIE id */
	u8(m, 1);
	put(m, aug, strlen(aug) + 1);
	u8(m, 1); /* code_align */
	u8(m, 0x78); /* data_align -8 */
	u8(m, 16); /* RA column */
	u8(m, 1); /* augmentation data: the R encoding */
	u8(m, 0x1b);
	put(m, "\x0c\x07\x08\x90\x01", 5); /* def_cfa rsp+8; offset r16 at cfa-8 */
	while ((m->pos - len_at - 4) % 4)
		u8(m, 0);
	*(uint32_t *)(m->b + len_at) = (uint32_t)(m->pos - len_at - 4);
	return at;
}

static size_t fde(struct img *m, size_t cie_at, uint32_t start, uint32_t range,
		  const void *ops, size_t n)
{
	size_t at = m->pos;

	u32(m, 0);
	u32(m, (uint32_t)(m->pos - cie_at));
	u32(m, (uint32_t)(start - (m->pos))); /* pcrel: image offsets are addresses - BASE */
	u32(m, range);
	u8(m, 0);
	put(m, ops, n);
	while ((m->pos - at - 4) % 4)
		u8(m, 0);
	*(uint32_t *)(m->b + at) = (uint32_t)(m->pos - at - 4);
	return at;
}

/* three FDEs: a usual prologue, a CFA expression, a signal frame */
static void build(struct img *m)
{
	size_t a, s, f[3];
	uint32_t starts[3] = { 0x1000, 0x1100, 0x1200 };

	memset(m, 0, sizeof(*m));
	m->limit = sizeof(m->b);
	m->pos = 0x2100;
	a = cie(m, "zR");
	f[0] = fde(m, a, 0x1000, 0x40, "\x41\x0e\x10\x86\x02\x43\x0d\x06", 8);
	f[1] = fde(m, a, 0x1100, 0x10, "\x0f\x01\x00", 3);
	s = cie(m, "zRS");
	f[2] = fde(m, s, 0x1200, 0x10, "", 0);
	m->pos = SEG;
	put(m, "\x01\x1b\x03\x3b", 4);
	u32(m, 0x100 - 4);
	u32(m, 3);
	for (int i = 0; i < 3; i++) {
		u32(m, starts[i] - SEG);
		u32(m, (uint32_t)(f[i] - SEG));
	}
}

static int row_at(struct img *m, uint64_t ip, struct rf_cfi_row *r)
{
	memset(r, 0xa5, sizeof(*r));
	return rf_cfi__row(mem, m, BASE + SEG, 3, BASE + ip, r);
}

static void test_prologue_rows(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct rf_cfi_row r;

	build(m);
	/* before the first advance: the CIE's rules */
	assert_int_equal(row_at(m, 0x1000, &r), 0);
	assert_int_equal(r.cfa_reg, 7);
	assert_int_equal(r.cfa_off, 8);
	assert_int_equal(r.ra, 16);
	assert_int_equal(r.where[16], RF_CFI_CFAREL);
	assert_int_equal(r.off[16], -8);
	assert_int_equal(r.where[6], RF_CFI_SAME);
	/* after push %rbp: CFA rsp+16, rbp at CFA-16 */
	assert_int_equal(row_at(m, 0x1001, &r), 0);
	assert_int_equal(r.cfa_reg, 7);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(r.where[6], RF_CFI_CFAREL);
	assert_int_equal(r.off[6], -16);
	assert_int_equal(row_at(m, 0x1003, &r), 0);
	assert_int_equal(r.cfa_reg, 7);
	/* after mov %rsp,%rbp: CFA rbp+16 to the end of the function */
	assert_int_equal(row_at(m, 0x1004, &r), 0);
	assert_int_equal(r.cfa_reg, 6);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(row_at(m, 0x103f, &r), 0);
	assert_int_equal(r.cfa_reg, 6);
	free(m);
}

static void test_left_to_libunwind(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct rf_cfi_row r;

	build(m);
	assert_int_equal(row_at(m, 0x0fff, &r), -1); /* below every FDE */
	assert_int_equal(row_at(m, 0x1040, &r), -1); /* past the FDE's range */
	assert_int_equal(row_at(m, 0x1100, &r), -1); /* DW_CFA_def_cfa_expression */
	assert_int_equal(row_at(m, 0x1200, &r), -1); /* "S": a signal frame */
	m->limit = 0x2120; /* the file ends inside the first FDE */
	assert_int_equal(row_at(m, 0x1001, &r), -1);
	free(m);
}

static void test_mutated(void **state)
{
	struct img *m = malloc(sizeof(*m)), *orig = malloc(sizeof(*orig));
	struct rf_cfi_row r;
	unsigned int seed = 11, answered = 0;

	build(orig);
	for (int i = 0; i < 20000; i++) {
		memcpy(m, orig, sizeof(*m));
		for (int k = 0; k < 1 + i % 4; k++) {
			size_t at = SEG + (size_t)rand_r(&seed) % 0x200;

			m->b[at] = (uint8_t)rand_r(&seed);
		}
		if (i % 7 == 0)
			m->limit = SEG + (size_t)rand_r(&seed) % 0x200;
		for (uint64_t ip = 0x0ff0; ip < 0x1220; ip += 0x11)
			answered += row_at(m, ip, &r) == 0;
	}
	/* most mutations leave some FDE readable: the reader kept answering */
	assert_true(answered > 0);
	free(m);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prologue_rows),
		cmocka_unit_test(test_left_to_libunwind),
		cmocka_unit_test(test_mutated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
