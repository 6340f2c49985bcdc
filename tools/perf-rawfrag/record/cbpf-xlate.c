// SPDX-License-Identifier: GPL-2.0
/*
 * Classic BPF to eBPF, so that --filter runs as native instructions (JITed)
 * instead of in skbdump.bpf.c's interpreter (a packet dropped by "udp port 9"
 * costs the dump program 85 ns instead of 210, scripts/bench-skb.sh).
 *
 * Registers: A in r7, X in r8 (32-bit operations only, as classic BPF), the
 * context in r6, the VLAN tag word in r9. Stack: the wire length at fp-8, the
 * load buffer at fp-16, scratch memory M[0..15] at fp-80..fp-20, the length
 * of the packet copy at fp-88 and the copy (first WIN bytes) below. Packet
 * bytes come from that copy or through bpf_skb_load_bytes() /
 * bpf_xdp_load_bytes(), which check bounds (the verifier needs no packet
 * pointer arithmetic) and read paged data; a failing load returns 0 from the
 * filter, as in classic BPF.
 *
 * Every classic instruction has a fixed eBPF start (xl.start[]); jumps are
 * recorded and patched once all starts are known. Classic jumps only go
 * forward, so the result has no loop and the verifier walks each path once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>

#include "cbpf-xlate.h"

enum { R0, R1, R2, R3, R4, R5, R_CTX, R_A, R_X, R_TAG, R_FP };

#define OFF_WIRELEN (-8)
#define OFF_BUF (-16)
#define OFF_MEM(k) (-80 + 4 * (int)(k))
#define OFF_WINLEN (-88)
/*
 * The first WIN bytes of the packet, copied once per packet by one helper
 * call: loads inside them are read from the stack (a few instructions), the
 * rest through a helper call each (about 20 ns).
 */
#define WIN 128
#define OFF_WIN (-88 - WIN)

struct fix {
	size_t at; /* the jump instruction */
	uint32_t to; /* classic index; n = the reject label */
};

struct xl {
	struct bpf_insn *buf;
	size_t cnt, cap;
	size_t *start; /* n + 1: the last one is the reject label */
	struct fix *fix;
	size_t nfix, capfix;
	enum cbpf_load how;
	uint32_t n;
	bool oom;
};

static size_t emit(struct xl *x, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (x->cnt == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 1024;
		struct bpf_insn *b = realloc(x->buf, cap * sizeof(*b));

		if (!b) {
			x->oom = true;
			return x->cnt;
		}
		x->buf = b;
		x->cap = cap;
	}
	x->buf[x->cnt] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
					    .off = off, .imm = imm };
	return x->cnt++;
}

static void alu_k(struct xl *x, uint8_t op, uint8_t dst, int32_t k)
{
	emit(x, BPF_ALU | op | BPF_K, dst, 0, 0, k);
}

static void alu_x(struct xl *x, uint8_t op, uint8_t dst, uint8_t src)
{
	emit(x, BPF_ALU | op | BPF_X, dst, src, 0, 0);
}

/* a jump to classic instruction to (n: reject), patched at the end */
static void jmp_to(struct xl *x, uint8_t code, uint8_t dst, uint8_t src, int32_t imm, uint32_t to)
{
	size_t at = emit(x, code, dst, src, 0, imm);

	if (x->oom)
		return;
	if (x->nfix == x->capfix) {
		size_t cap = x->capfix ? 2 * x->capfix : 256;
		struct fix *f = realloc(x->fix, cap * sizeof(*f));

		if (!f) {
			x->oom = true;
			return;
		}
		x->fix = f;
		x->capfix = cap;
	}
	x->fix[x->nfix++] = (struct fix){ .at = at, .to = to };
}

/* a local forward jump, its target set by here() */
static size_t jmp_fwd(struct xl *x, uint8_t code, uint8_t dst, int32_t imm)
{
	return emit(x, code, dst, 0, 0, imm);
}

static void here(struct xl *x, size_t at)
{
	if (!x->oom)
		x->buf[at].off = (int16_t)(x->cnt - at - 1);
}

/*
 * return 0 here unless the test (a jump code) holds: inline, not a jump to a
 * shared label at the end, which a long program would put beyond the 16-bit
 * reach of a jump
 */
static void reject_unless(struct xl *x, uint8_t code, uint8_t dst, int32_t imm)
{
	emit(x, code, dst, 0, 2, imm);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R0, 0, 0, 0);
	emit(x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* dst = dst << 8 | w0 */
static void acc_byte(struct xl *x, uint8_t dst)
{
	alu_k(x, BPF_LSH, dst, 8);
	alu_x(x, BPF_OR, dst, R0);
}

/*
 * n bytes at the packet offset in w2 into dst, big-endian: from the window
 * when inside what it holds, else by a helper call; 0 from the filter when
 * out of the packet
 */
static void ld_at(struct xl *x, uint8_t dst, uint32_t n)
{
	static const uint8_t sz[5] = { 0, BPF_B, BPF_H, 0, BPF_W };
	size_t far, short_pkt, fast;

	far = jmp_fwd(x, BPF_JMP32 | BPF_JGT | BPF_K, R2, WIN - n);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, R3, R_FP, OFF_WINLEN, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_X, R4, R2, 0, 0);
	alu_k(x, BPF_ADD, R4, n);
	short_pkt = jmp_fwd(x, BPF_JMP32 | BPF_JGT | BPF_X, R4, 0);
	x->buf[short_pkt].src_reg = R3;
	/* fp - OFF_WIN + off, off in [0, WIN - n]: the verifier checks the range */
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R3, R_FP, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, R3, 0, 0, OFF_WIN);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, R3, R2, 0, 0);
	/* byte by byte: the verifier refuses unaligned stack loads */
	emit(x, BPF_LDX | BPF_MEM | BPF_B, dst, R3, 0, 0);
	for (uint32_t i = 1; i < n; i++) {
		emit(x, BPF_LDX | BPF_MEM | BPF_B, R0, R3, i, 0);
		acc_byte(x, dst);
	}
	fast = jmp_fwd(x, BPF_JMP | BPF_JA, 0, 0);
	here(x, far);
	here(x, short_pkt);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R1, R_CTX, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R3, R_FP, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, R3, 0, 0, OFF_BUF);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, R4, 0, 0, n);
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0,
	     x->how == CBPF_LOAD_XDP ? BPF_FUNC_xdp_load_bytes : BPF_FUNC_skb_load_bytes);
	reject_unless(x, BPF_JMP | BPF_JEQ | BPF_K, R0, 0);
	emit(x, BPF_LDX | BPF_MEM | sz[n], dst, R_FP, OFF_BUF, 0);
	if (n > 1)
		emit(x, BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, 8 * n);
	here(x, fast);
}

/* w0 = byte o (12..15) of the tag word */
static void tag_byte(struct xl *x, uint32_t o)
{
	emit(x, BPF_ALU | BPF_MOV | BPF_X, R0, R_TAG, 0, 0);
	alu_k(x, BPF_RSH, R0, 8 * (15 - o));
	alu_k(x, BPF_AND, R0, 0xff);
}

/*
 * Absolute load with the tag back in the frame: offsets past it move by 4,
 * offsets before it do not, and a load across bytes 12..15 is put together
 * byte by byte when tagged.
 */
static void ld_abs_tagged(struct xl *x, uint8_t dst, uint32_t n, uint32_t k)
{
	size_t j, done;

	if ((uint64_t)k + n <= 12) {
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, k);
		ld_at(x, dst, n);
		return;
	}
	if (k >= 16) {
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, k);
		j = jmp_fwd(x, BPF_JMP32 | BPF_JEQ | BPF_K, R_TAG, 0);
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, k - 4);
		here(x, j);
		ld_at(x, dst, n);
		return;
	}
	j = jmp_fwd(x, BPF_JMP32 | BPF_JNE | BPF_K, R_TAG, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, k);
	ld_at(x, dst, n);
	done = jmp_fwd(x, BPF_JMP | BPF_JA, 0, 0);
	here(x, j);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 0);
	for (uint32_t o = k; o < k + n; o++) {
		if (o >= 12 && o < 16) {
			tag_byte(x, o);
		} else {
			emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, o < 12 ? o : o - 4);
			ld_at(x, R0, 1);
		}
		acc_byte(x, dst);
	}
	here(x, done);
}

/* the composed (tagged, across bytes 12..15) case of an indirect load */
static void ld_ind_bytes(struct xl *x, uint8_t dst, uint32_t n, uint32_t k)
{
	emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 0);
	for (uint32_t i = 0; i < n; i++) {
		size_t lo, tag, sub;

		emit(x, BPF_ALU | BPF_MOV | BPF_X, R2, R_X, 0, 0);
		alu_k(x, BPF_ADD, R2, k + i);
		lo = jmp_fwd(x, BPF_JMP32 | BPF_JLT | BPF_K, R2, 12);
		tag = jmp_fwd(x, BPF_JMP32 | BPF_JLT | BPF_K, R2, 16);
		alu_k(x, BPF_ADD, R2, -4);
		here(x, lo);
		ld_at(x, R0, 1);
		sub = jmp_fwd(x, BPF_JMP | BPF_JA, 0, 0);
		here(x, tag);
		/* w0 = tag >> 8 * (15 - off) & 0xff */
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R3, 0, 0, 15);
		alu_x(x, BPF_SUB, R3, R2);
		alu_k(x, BPF_LSH, R3, 3);
		emit(x, BPF_ALU | BPF_MOV | BPF_X, R0, R_TAG, 0, 0);
		alu_x(x, BPF_RSH, R0, R3);
		alu_k(x, BPF_AND, R0, 0xff);
		here(x, sub);
		acc_byte(x, dst);
	}
}

static void ld_ind_tagged(struct xl *x, uint8_t dst, uint32_t n, uint32_t k)
{
	size_t untagged, past, inside, bytes, plain;

	emit(x, BPF_ALU | BPF_MOV | BPF_X, R2, R_X, 0, 0);
	alu_k(x, BPF_ADD, R2, k);
	untagged = jmp_fwd(x, BPF_JMP32 | BPF_JEQ | BPF_K, R_TAG, 0);
	past = jmp_fwd(x, BPF_JMP32 | BPF_JGE | BPF_K, R2, 16);
	emit(x, BPF_ALU | BPF_MOV | BPF_X, R3, R2, 0, 0);
	alu_k(x, BPF_ADD, R3, n);
	inside = jmp_fwd(x, BPF_JMP32 | BPF_JLE | BPF_K, R3, 12);
	bytes = jmp_fwd(x, BPF_JMP | BPF_JA, 0, 0);
	here(x, past);
	alu_k(x, BPF_ADD, R2, -4);
	here(x, untagged);
	here(x, inside);
	ld_at(x, dst, n);
	plain = jmp_fwd(x, BPF_JMP | BPF_JA, 0, 0);
	here(x, bytes);
	ld_ind_bytes(x, dst, n, k);
	here(x, plain);
}

static void ld_pkt(struct xl *x, uint8_t dst, uint16_t code, uint32_t k)
{
	uint32_t n = BPF_SIZE(code) == BPF_W ? 4 : BPF_SIZE(code) == BPF_H ? 2 : 1;
	bool ind = BPF_MODE(code) == BPF_IND;

	if (x->how == CBPF_LOAD_SKB) {
		if (ind)
			ld_ind_tagged(x, dst, n, k);
		else
			ld_abs_tagged(x, dst, n, k);
		return;
	}
	if (ind) {
		emit(x, BPF_ALU | BPF_MOV | BPF_X, R2, R_X, 0, 0);
		alu_k(x, BPF_ADD, R2, k);
	} else {
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R2, 0, 0, k);
	}
	ld_at(x, dst, n);
}

static int xl_ld(struct xl *x, uint16_t c, uint32_t k)
{
	uint8_t dst = BPF_CLASS(c) == BPF_LD ? R_A : R_X;

	switch (BPF_MODE(c)) {
	case BPF_IMM:
		emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, k);
		return 0;
	case BPF_LEN:
		emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, R_FP, OFF_WIRELEN, 0);
		return 0;
	case BPF_MEM:
		if (k >= BPF_MEMWORDS)
			return -EINVAL;
		emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, R_FP, OFF_MEM(k), 0);
		return 0;
	case BPF_ABS:
	case BPF_IND:
		if (dst != R_A || BPF_SIZE(c) == 0x18)
			return -EINVAL;
		ld_pkt(x, R_A, c, k);
		return 0;
	case BPF_MSH: /* X = 4 * (byte at k & 0xf): the IPv4 header length */
		if (dst != R_X || BPF_SIZE(c) != BPF_B)
			return -EINVAL;
		ld_pkt(x, R_X, BPF_LD | BPF_B | BPF_ABS, k);
		alu_k(x, BPF_AND, R_X, 0xf);
		alu_k(x, BPF_LSH, R_X, 2);
		return 0;
	}
	return -EINVAL;
}

static int xl_alu(struct xl *x, uint16_t c, uint32_t k)
{
	uint8_t op = BPF_OP(c);

	if (op == BPF_NEG) {
		emit(x, BPF_ALU | BPF_NEG, R_A, 0, 0, 0);
		return 0;
	}
	if (op > BPF_XOR)
		return -EINVAL;
	if (BPF_SRC(c) == BPF_X) {
		/* classic BPF: division by zero rejects the packet */
		if (op == BPF_DIV || op == BPF_MOD)
			reject_unless(x, BPF_JMP32 | BPF_JNE | BPF_K, R_X, 0);
		alu_x(x, op, R_A, R_X);
		return 0;
	}
	if ((op == BPF_DIV || op == BPF_MOD) && !k) {
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R0, 0, 0, 0);
		emit(x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		return 0;
	}
	/* the verifier refuses constant shifts past 31; x86 masks them the same way */
	if (op == BPF_LSH || op == BPF_RSH)
		k &= 31;
	alu_k(x, op, R_A, (int32_t)k);
	return 0;
}

static int xl_jmp(struct xl *x, uint32_t i, uint16_t c, uint32_t k, uint8_t jt, uint8_t jf)
{
	uint8_t op = BPF_OP(c), inv;
	uint32_t t = i + 1 + jt, f = i + 1 + jf, next = i + 1;
	bool src_x = BPF_SRC(c) == BPF_X;

	if (op == BPF_JA) {
		if ((uint64_t)i + 1 + k >= x->n)
			return -EINVAL;
		if (k)
			jmp_to(x, BPF_JMP | BPF_JA, 0, 0, 0, next + k);
		return 0;
	}
	if (op != BPF_JEQ && op != BPF_JGT && op != BPF_JGE && op != BPF_JSET)
		return -EINVAL;
	if (t >= x->n || f >= x->n)
		return -EINVAL;
	if (t == f) {
		if (t != next)
			jmp_to(x, BPF_JMP | BPF_JA, 0, 0, 0, t);
		return 0;
	}
	if (t == next && op != BPF_JSET) {
		/* jump only when false: the opposite test */
		inv = op == BPF_JEQ ? BPF_JNE : op == BPF_JGT ? BPF_JLE : BPF_JLT;
		jmp_to(x, BPF_JMP32 | inv | (src_x ? BPF_X : BPF_K), R_A, src_x ? R_X : 0,
		       (int32_t)k, f);
		return 0;
	}
	jmp_to(x, BPF_JMP32 | op | (src_x ? BPF_X : BPF_K), R_A, src_x ? R_X : 0, (int32_t)k, t);
	if (f != next)
		jmp_to(x, BPF_JMP | BPF_JA, 0, 0, 0, f);
	return 0;
}

static int xl_one(struct xl *x, uint32_t i, uint64_t w)
{
	uint16_t c = w & 0xffff;
	uint32_t k = w >> 32;

	switch (BPF_CLASS(c)) {
	case BPF_LD:
	case BPF_LDX:
		return xl_ld(x, c, k);
	case BPF_ST:
	case BPF_STX:
		if (k >= BPF_MEMWORDS)
			return -EINVAL;
		emit(x, BPF_STX | BPF_MEM | BPF_W, R_FP, BPF_CLASS(c) == BPF_ST ? R_A : R_X,
		     OFF_MEM(k), 0);
		return 0;
	case BPF_ALU:
		return xl_alu(x, c, k);
	case BPF_JMP:
		return xl_jmp(x, i, c, k, (w >> 16) & 0xff, (w >> 24) & 0xff);
	case BPF_RET:
		if (BPF_RVAL(c) == BPF_K)
			emit(x, BPF_ALU | BPF_MOV | BPF_K, R0, 0, 0, (int32_t)k);
		else if (BPF_RVAL(c) == BPF_A || BPF_RVAL(c) == BPF_X)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, R0, BPF_RVAL(c) == BPF_A ? R_A : R_X, 0, 0);
		else
			return -EINVAL;
		emit(x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		return 0;
	default: /* BPF_MISC */
		if (BPF_MISCOP(c) == BPF_TAX)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, R_X, R_A, 0, 0);
		else if (BPF_MISCOP(c) == BPF_TXA)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, R_A, R_X, 0, 0);
		else
			return -EINVAL;
		return 0;
	}
}

/*
 * The window: min(packet length, WIN) bytes from offset 0 (the packet's
 * length is the wire length less an offloaded tag), its length at
 * OFF_WINLEN; 0 when the copy fails, and every load takes the helper path.
 */
static void window(struct xl *x)
{
	size_t untagged, fits, none, ok;

	emit(x, BPF_LDX | BPF_MEM | BPF_W, R4, R_FP, OFF_WIRELEN, 0);
	untagged = jmp_fwd(x, BPF_JMP32 | BPF_JEQ | BPF_K, R_TAG, 0);
	alu_k(x, BPF_ADD, R4, -4);
	here(x, untagged);
	fits = jmp_fwd(x, BPF_JMP32 | BPF_JLE | BPF_K, R4, WIN);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R4, 0, 0, WIN);
	here(x, fits);
	emit(x, BPF_STX | BPF_MEM | BPF_W, R_FP, R4, OFF_WINLEN, 0);
	none = jmp_fwd(x, BPF_JMP32 | BPF_JEQ | BPF_K, R4, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R1, R_CTX, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, R2, 0, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R3, R_FP, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, R3, 0, 0, OFF_WIN);
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0,
	     x->how == CBPF_LOAD_XDP ? BPF_FUNC_xdp_load_bytes : BPF_FUNC_skb_load_bytes);
	ok = jmp_fwd(x, BPF_JMP | BPF_JEQ | BPF_K, R0, 0);
	emit(x, BPF_ST | BPF_MEM | BPF_W, R_FP, 0, OFF_WINLEN, 0);
	here(x, ok);
	here(x, none);
}

static void prologue(struct xl *x, const uint64_t *cbpf)
{
	bool mem = false, pkt = false;

	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, R_CTX, R1, 0, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, R_FP, R2, OFF_WIRELEN, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_X, R_TAG, R3, 0, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R_A, 0, 0, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R_X, 0, 0, 0);
	for (uint32_t i = 0; i < x->n; i++) {
		uint16_t c = cbpf[i] & 0xffff;

		if ((BPF_CLASS(c) == BPF_LD || BPF_CLASS(c) == BPF_LDX) && BPF_MODE(c) == BPF_MEM)
			mem = true;
		if ((BPF_CLASS(c) == BPF_LD || BPF_CLASS(c) == BPF_LDX) &&
		    (BPF_MODE(c) == BPF_ABS || BPF_MODE(c) == BPF_IND || BPF_MODE(c) == BPF_MSH))
			pkt = true;
	}
	/* M[] read before written (libpcap never does) reads 0, not stale stack */
	for (int k = 0; mem && k < BPF_MEMWORDS; k += 2)
		emit(x, BPF_ST | BPF_MEM | BPF_DW, R_FP, 0, OFF_MEM(k), 0);
	if (pkt)
		window(x);
}

static int patch(struct xl *x, char *msg, size_t len)
{
	for (size_t i = 0; i < x->nfix; i++) {
		long d = (long)x->start[x->fix[i].to] - (long)x->fix[i].at - 1;

		if (d > INT16_MAX || d < INT16_MIN) {
			snprintf(msg, len, "a jump of %ld eBPF instructions does not fit", d);
			return -E2BIG;
		}
		x->buf[x->fix[i].at].off = (int16_t)d;
	}
	return 0;
}

/*
 * The verifier refuses unreachable instructions: classic ones nothing jumps
 * to are left out (libpcap's optimizer leaves none, unoptimized programs may).
 */
static void reachable(const uint64_t *cbpf, uint32_t n, bool *r)
{
	r[0] = true;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t c = cbpf[i] & 0xffff;
		uint64_t k = cbpf[i] >> 32, jt = (cbpf[i] >> 16) & 0xff, jf = (cbpf[i] >> 24) & 0xff;

		if (!r[i] || BPF_CLASS(c) == BPF_RET)
			continue;
		if (BPF_CLASS(c) == BPF_JMP && BPF_OP(c) == BPF_JA) {
			if (i + 1 + k < n)
				r[i + 1 + k] = true;
		} else if (BPF_CLASS(c) == BPF_JMP) {
			if (i + 1 + jt < n)
				r[i + 1 + jt] = true;
			if (i + 1 + jf < n)
				r[i + 1 + jf] = true;
		} else if (i + 1 < n) {
			r[i + 1] = true;
		}
	}
}

/* a last instruction that is not a return falls through to a "return 0" */
static bool need_reject(const struct xl *x, const uint64_t *cbpf)
{
	return BPF_CLASS(cbpf[x->n - 1] & 0xffff) != BPF_RET;
}

int cbpf_xlate(const uint64_t *cbpf, uint32_t n, enum cbpf_load how, struct bpf_insn **out,
	       size_t *cnt, char *msg, size_t len)
{
	struct xl x = { .how = how, .n = n };
	bool *reach;
	int err = 0;

	*out = NULL;
	*cnt = 0;
	if (!n || n > CBPF_XLATE_MAX_CBPF) {
		snprintf(msg, len, "%u classic instructions (1..%u)", n, CBPF_XLATE_MAX_CBPF);
		return -EINVAL;
	}
	x.start = calloc(n + 1, sizeof(*x.start));
	reach = calloc(n, sizeof(*reach));
	if (!x.start || !reach) {
		free(x.start);
		free(reach);
		return -ENOMEM;
	}
	reachable(cbpf, n, reach);
	prologue(&x, cbpf);
	for (uint32_t i = 0; !err && i < n; i++) {
		x.start[i] = x.cnt;
		if (reach[i])
			err = xl_one(&x, i, cbpf[i]);
		if (err)
			snprintf(msg, len, "classic instruction %u (code 0x%x) cannot be translated", i,
				 (unsigned int)(cbpf[i] & 0xffff));
	}
	free(reach);
	x.start[n] = x.cnt;
	if (!err && need_reject(&x, cbpf)) {
		emit(&x, BPF_ALU | BPF_MOV | BPF_K, R0, 0, 0, 0);
		emit(&x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	if (!err && x.oom) {
		snprintf(msg, len, "out of memory");
		err = -ENOMEM;
	}
	if (!err)
		err = patch(&x, msg, len);
	free(x.start);
	free(x.fix);
	if (err) {
		free(x.buf);
		return err;
	}
	*out = x.buf;
	*cnt = x.cnt;
	return 0;
}
