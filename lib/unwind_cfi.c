// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The register rules at one address from a file's .eh_frame, for the frames
 * unwind.c steps through without libunwind: its .eh_frame_hdr table searched
 * as libunwind's remote lookup does, the CIE and FDE parsed and their CFA
 * programs run up to the address with libunwind's semantics (rows up to and
 * including the address). Only the shapes every x86_64 compiler writes are
 * taken (CFA as register + offset; registers the same, undefined or saved at
 * CFA + offset); anything else (expressions, signal frames, register copies,
 * unusual encodings) answers -1 and the caller hands the sample to libunwind,
 * so chains never depend on this reading more than libunwind would.
 * Every byte comes through mem(), which bounds it; nothing is trusted.
 */
#include <stdbool.h>
#include <string.h>

#include "internal/machine.h"

#define MAX_REMEMBER 8

struct cur {
	const uint8_t *p, *end;
	uint64_t addr; /* process address of p */
	bool bad;
};

static bool cur_at(struct cur *c, rf_cfi_mem_fn mem, void *arg, uint64_t addr, uint64_t len)
{
	uint64_t avail = 0;
	const uint8_t *p = mem(arg, addr, &avail);

	if (!p || avail < len)
		return false;
	c->p = p;
	c->end = p + len;
	c->addr = addr;
	c->bad = false;
	return true;
}

static uint64_t rd(struct cur *c, int n)
{
	uint64_t v = 0;

	if (c->bad || c->end - c->p < n) {
		c->bad = true;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	c->addr += (uint64_t)n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)rd(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	return v;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)rd(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/* a DW_EH_PE_* encoded pointer: absolute or pc-relative only */
static bool enc_ptr(struct cur *c, uint8_t enc, bool apply, uint64_t *out)
{
	uint64_t at = c->addr, v;

	switch (enc & 0x0f) {
	case 0x00: v = rd(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = rd(c, 2); break;
	case 0x03: v = rd(c, 4); break;
	case 0x04: v = rd(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd(c, 4); break;
	case 0x0c: v = rd(c, 8); break;
	default: return false;
	}
	if (apply) {
		if ((enc & 0x70) == 0x10)
			v += at;
		else if (enc & 0x70)
			return false;
	}
	*out = v;
	return !c->bad;
}

struct cie {
	uint64_t instr, instr_end;
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc, ra;
};

static bool parse_cie(rf_cfi_mem_fn mem, void *arg, uint64_t addr, struct cie *ci)
{
	struct cur c;
	uint64_t len, aug_len, aug_end, skip;
	uint8_t version, enc;
	char aug[8];
	size_t n = 0;

	if (!cur_at(&c, mem, arg, addr, 4) || (len = rd(&c, 4)) == 0 || len >= 0xfffffff0 ||
	    !cur_at(&c, mem, arg, addr + 4, len))
		return false;
	ci->instr_end = addr + 4 + len;
	if (rd(&c, 4) != 0)
		return false;
	version = (uint8_t)rd(&c, 1);
	if (version != 1 && version != 3)
		return false;
	do {
		aug[n] = (char)rd(&c, 1);
	} while (aug[n] && !c.bad && ++n < sizeof(aug));
	if (c.bad || n >= sizeof(aug) || aug[0] != 'z')
		return false;
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	ci->ra = (uint8_t)(version == 1 ? rd(&c, 1) : uleb(&c));
	aug_len = uleb(&c);
	aug_end = c.addr + aug_len;
	ci->fde_enc = 0; /* DW_EH_PE_absptr */
	for (size_t i = 1; i < n && !c.bad; i++) {
		switch (aug[i]) {
		case 'L':
			rd(&c, 1);
			break;
		case 'R':
			ci->fde_enc = (uint8_t)rd(&c, 1);
			break;
		case 'P': /* the personality routine: skipped */
			enc = (uint8_t)rd(&c, 1);
			if ((enc & 0x70) == 0x50 || !enc_ptr(&c, enc & 0x0f, false, &skip))
				return false;
			break;
		default: /* 'S' (signal frames) and the rest: libunwind's */
			return false;
		}
	}
	if (c.bad || c.addr > aug_end || aug_end > ci->instr_end || ci->ra >= RF_CFI_NREGS)
		return false;
	ci->instr = aug_end;
	return true;
}

struct state {
	struct rf_cfi_row cur, init;
	struct rf_cfi_row stack[MAX_REMEMBER];
	int depth;
};

static bool set_reg(struct rf_cfi_row *r, uint64_t reg, uint8_t where, int64_t off)
{
	if (reg >= RF_CFI_NREGS || off != (int32_t)off)
		return false;
	r->where[reg] = where;
	r->off[reg] = (int32_t)off;
	return true;
}

static bool set_cfa(struct rf_cfi_row *r, uint64_t reg, int64_t off)
{
	if (reg >= RF_CFI_NREGS || off != (int32_t)off)
		return false;
	r->cfa_reg = (uint8_t)reg;
	r->cfa_off = (int32_t)off;
	r->cfa_set = 1;
	return true;
}

/* one CFA instruction; false for anything libunwind must interpret */
static bool cfa_op(struct cur *c, const struct cie *ci, struct state *st, uint64_t *loc)
{
	uint8_t op = (uint8_t)rd(c, 1), low = op & 0x3f;
	struct rf_cfi_row *r = &st->cur;
	uint64_t reg;

	switch (op >> 6) {
	case 1:
		*loc += low * ci->code_align;
		return !c->bad;
	case 2:
		return set_reg(r, low, RF_CFI_CFAREL, (int64_t)uleb(c) * ci->data_align) && !c->bad;
	case 3:
		return low < RF_CFI_NREGS && set_reg(r, low, st->init.where[low], st->init.off[low]);
	}
	switch (op) {
	case 0x00: /* nop */
		return !c->bad;
	case 0x02: *loc += rd(c, 1) * ci->code_align; return !c->bad;
	case 0x03: *loc += rd(c, 2) * ci->code_align; return !c->bad;
	case 0x04: *loc += rd(c, 4) * ci->code_align; return !c->bad;
	case 0x05: /* offset_extended */
		reg = uleb(c);
		return set_reg(r, reg, RF_CFI_CFAREL, (int64_t)uleb(c) * ci->data_align) && !c->bad;
	case 0x06: /* restore_extended */
		reg = uleb(c);
		return !c->bad && reg < RF_CFI_NREGS &&
		       set_reg(r, reg, st->init.where[reg], st->init.off[reg]);
	case 0x07: /* undefined */
		return set_reg(r, uleb(c), RF_CFI_UNDEF, 0) && !c->bad;
	case 0x08: /* same_value */
		return set_reg(r, uleb(c), RF_CFI_SAME, 0) && !c->bad;
	case 0x0a: /* remember_state */
		if (st->depth >= MAX_REMEMBER)
			return false;
		st->stack[st->depth++] = *r;
		return !c->bad;
	case 0x0b: /* restore_state */
		if (!st->depth)
			return false;
		*r = st->stack[--st->depth];
		return !c->bad;
	case 0x0c: /* def_cfa */
		reg = uleb(c);
		return set_cfa(r, reg, (int64_t)uleb(c)) && !c->bad;
	case 0x0d: /* def_cfa_register */
		return r->cfa_set && set_cfa(r, uleb(c), r->cfa_off) && !c->bad;
	case 0x0e: /* def_cfa_offset */
		return r->cfa_set && set_cfa(r, r->cfa_reg, (int64_t)uleb(c)) && !c->bad;
	case 0x11: /* offset_extended_sf */
		reg = uleb(c);
		return set_reg(r, reg, RF_CFI_CFAREL, sleb(c) * ci->data_align) && !c->bad;
	case 0x12: /* def_cfa_sf */
		reg = uleb(c);
		return set_cfa(r, reg, sleb(c) * ci->data_align) && !c->bad;
	case 0x13: /* def_cfa_offset_sf */
		return r->cfa_set && set_cfa(r, r->cfa_reg, sleb(c) * ci->data_align) && !c->bad;
	case 0x2e: /* GNU_args_size: only for resuming */
		uleb(c);
		return !c->bad;
	default:
		return false;
	}
}

/* run [from, to) with libunwind's bound: instructions while loc <= ip */
static bool run(rf_cfi_mem_fn mem, void *arg, const struct cie *ci, struct state *st,
		uint64_t from, uint64_t to, uint64_t loc, uint64_t ip)
{
	struct cur c;

	if (to <= from)
		return to == from;
	if (!cur_at(&c, mem, arg, from, to - from))
		return false;
	while (loc <= ip && c.p < c.end)
		if (!cfa_op(&c, ci, st, &loc))
			return false;
	return true;
}

/* the FDE address for ip: the last table entry starting at or below it */
static bool table_find(rf_cfi_mem_fn mem, void *arg, uint64_t segbase, uint64_t nr,
		       uint64_t ip, uint64_t *fde)
{
	struct cur c;
	/* libunwind compares 32-bit signed offsets from the header */
	int32_t rel = (int32_t)(ip - segbase);
	uint64_t lo = 0, hi = nr;

	if (!nr || !cur_at(&c, mem, arg, segbase + 12, nr * 8))
		return false;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		const uint8_t *e = c.p + mid * 8;
		int32_t start = (int32_t)((uint32_t)e[0] | (uint32_t)e[1] << 8 |
					  (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24);

		if (rel < start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!hi)
		return false;
	{
		const uint8_t *e = c.p + (hi - 1) * 8 + 4;
		int32_t off = (int32_t)((uint32_t)e[0] | (uint32_t)e[1] << 8 |
					(uint32_t)e[2] << 16 | (uint32_t)e[3] << 24);

		*fde = segbase + (uint64_t)(int64_t)off;
	}
	return true;
}

int rf_cfi__row(rf_cfi_mem_fn mem, void *arg, uint64_t segbase, uint64_t nr_fde, uint64_t ip,
		struct rf_cfi_row *row)
{
	uint64_t fde, len, cie_ptr, start, range, aug_len, end;
	struct state st;
	struct cie ci;
	struct cur c;

	if (!table_find(mem, arg, segbase, nr_fde, ip, &fde) || !cur_at(&c, mem, arg, fde, 4) ||
	    (len = rd(&c, 4)) == 0 || len >= 0xfffffff0 || !cur_at(&c, mem, arg, fde + 4, len))
		return -1;
	end = fde + 4 + len;
	cie_ptr = c.addr;
	len = rd(&c, 4);
	if (!len || len > cie_ptr || !parse_cie(mem, arg, cie_ptr - len, &ci))
		return -1;
	if (!enc_ptr(&c, ci.fde_enc, true, &start) || !enc_ptr(&c, ci.fde_enc & 0x0f, false, &range))
		return -1;
	aug_len = uleb(&c);
	if (c.bad || aug_len > (uint64_t)(c.end - c.p) || ip < start || ip - start >= range)
		return -1;
	memset(&st, 0, sizeof(st));
	/* before the CIE's program every register is "same value" */
	if (!run(mem, arg, &ci, &st, ci.instr, ci.instr_end, 0, ~0ULL))
		return -1;
	st.init = st.cur;
	if (!run(mem, arg, &ci, &st, c.addr + aug_len, end, start, ip) || !st.cur.cfa_set)
		return -1;
	*row = st.cur;
	row->ra = ci.ra;
	return 0;
}
