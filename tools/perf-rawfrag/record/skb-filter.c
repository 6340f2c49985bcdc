// SPDX-License-Identifier: GPL-2.0
/*
 * --filter for --skb: the whole pcap-filter(7) language, compiled by libpcap
 * for DLT_EN10MB into classic BPF, then checked and packed: cbpf-xlate.c
 * translates it to eBPF for every hook (socket, tc, xdp), and the bounded
 * interpreter in skbdump.bpf.c runs it when the translation cannot be loaded.
 *
 * Checked here so that the interpreter needs no check of its own beyond bounds:
 * every opcode is one the interpreter knows, jumps go forward and stay inside
 * the program, scratch memory indexes are < 16, the last instruction returns.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include "skb-filter.h"

static bool known_code(uint16_t code)
{
	switch (code & 7) {
	case BPF_LD:
		return BPF_MODE(code) == BPF_IMM || BPF_MODE(code) == BPF_LEN ||
		       BPF_MODE(code) == BPF_MEM ||
		       ((BPF_MODE(code) == BPF_ABS || BPF_MODE(code) == BPF_IND) &&
			BPF_SIZE(code) != 0x18);
	case BPF_LDX:
		return BPF_MODE(code) == BPF_IMM || BPF_MODE(code) == BPF_LEN ||
		       BPF_MODE(code) == BPF_MEM ||
		       (BPF_MODE(code) == BPF_MSH && BPF_SIZE(code) == BPF_B);
	case BPF_ST:
	case BPF_STX:
		return true;
	case BPF_ALU:
		return BPF_OP(code) <= 0xa0;
	case BPF_JMP:
		return BPF_OP(code) <= BPF_JSET;
	case BPF_RET:
		return BPF_RVAL(code) != 0x18;
	default:
		return BPF_MISCOP(code) == BPF_TAX || BPF_MISCOP(code) == BPF_TXA;
	}
}

static int check_insn(const struct bpf_insn *in, uint32_t i, uint32_t n, char *msg, size_t len)
{
	uint16_t c = in->code;
	uint64_t far = 0;

	if (!known_code(c)) {
		snprintf(msg, len, "instruction %u: opcode 0x%x not supported", i, c);
		return -EINVAL;
	}
	if ((BPF_CLASS(c) == BPF_ST || BPF_CLASS(c) == BPF_STX ||
	     ((BPF_CLASS(c) == BPF_LD || BPF_CLASS(c) == BPF_LDX) && BPF_MODE(c) == BPF_MEM)) &&
	    in->k >= BPF_MEMWORDS) {
		snprintf(msg, len, "instruction %u: scratch index %u out of range", i, in->k);
		return -EINVAL;
	}
	if (BPF_CLASS(c) == BPF_JMP) {
		far = BPF_OP(c) == BPF_JA ? in->k : (in->jt > in->jf ? in->jt : in->jf);
		if (i + 1 + far >= n) {
			snprintf(msg, len, "instruction %u: jump out of the program", i);
			return -EINVAL;
		}
	}
	return 0;
}

int skb_filter__compile(struct skb_filter *f, const char *expr, unsigned int snaplen,
			char *msg, size_t len)
{
	struct bpf_program prog;
	pcap_t *p;
	int err = 0;

	f->len = 0;
	if (!expr || !*expr)
		return 0;
	p = pcap_open_dead(DLT_EN10MB, snaplen);
	if (!p) {
		snprintf(msg, len, "cannot set up libpcap");
		return -ENOMEM;
	}
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(msg, len, "%s", pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	if (!prog.bf_len || prog.bf_len > SKB_FILTER_MAX_INSNS) {
		snprintf(msg, len, "%u instructions (the limit is %u)", prog.bf_len,
			 SKB_FILTER_MAX_INSNS);
		err = -EINVAL;
	}
	for (uint32_t i = 0; !err && i < prog.bf_len; i++) {
		const struct bpf_insn *in = &prog.bf_insns[i];

		err = check_insn(in, i, prog.bf_len, msg, len);
		f->insns[i] = in->code | (uint64_t)in->jt << 16 | (uint64_t)in->jf << 24 |
			      (uint64_t)in->k << 32;
	}
	if (!err && BPF_CLASS(prog.bf_insns[prog.bf_len - 1].code) != BPF_RET) {
		snprintf(msg, len, "the program does not end with a return");
		err = -EINVAL;
	}
	if (!err)
		f->len = prog.bf_len;
	pcap_freecode(&prog);
	pcap_close(p);
	return err;
}
