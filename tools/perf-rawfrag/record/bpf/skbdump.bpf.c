// SPDX-License-Identifier: GPL-2.0
/*
 * Packet dump programs for `perf rawfrag record --skb`: one per hook, each sends
 * struct rawfrag_skb_meta plus the first caplen packet bytes to the bpf-output
 * event of the current CPU. The kernel copies the packet straight from the skb
 * (non-linear aware) or xdp buffer: bpf_perf_event_output's flags carry caplen
 * in BPF_F_CTXLEN_MASK.
 *
 * The optional filter is libpcap's classic BPF for the --filter expression,
 * run before anything is written (see filter()): translated to eBPF and put
 * in place of rawfrag_filter_skb()/rawfrag_filter_xdp() at load time
 * (cbpf-xlate.c, cbpf-splice.c), or, when that fails, interpreted here.
 *
 * The sections are the tool's own ("rawfrag/..."): libpcap's program is
 * spliced in by the prepare-load callback libbpf runs for them (skb-record.c).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <rawfrag/skbdump.h>

#include "skbdump.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* loopback: the outgoing copy of a packet is also seen incoming (as libpcap does) */
const volatile __u8 skip_lo_outgoing = 1;

/*
 * --filter: a classic BPF program compiled by libpcap (skb-filter.c), run by
 * the bounded interpreter below. f_insns[i] = code | jt << 16 | jf << 24 |
 * k << 32; f_len == 0: no filter. User space checked every instruction: known
 * opcode, jumps forward and inside the program, scratch index < 16, the last
 * one a return, so at most f_len steps run.
 */
#define CBPF_MAX_INSNS 4096 /* BPF_MAXINSNS; a power of two for the mask */
const volatile __u32 f_len;
const volatile __u64 f_insns[CBPF_MAX_INSNS];
/* 1: the filter is the translated program in rawfrag_filter_*(), not f_insns */
const volatile __u8 f_xlated;

/*
 * Placeholders for the translated filter, replaced whole at load time:
 * f(ctx, wire length, VLAN tag word or 0) returns classic BPF's verdict
 * (0 = reject). Global, so that the compiler keeps the call whatever this
 * body returns, and using every argument, so that it passes each one (it
 * leaves out what the body ignores); never run as written.
 */
__noinline int rawfrag_filter_skb(struct __sk_buff *skb, __u32 wirelen, __u32 tag)
{
	return skb->len ^ wirelen ^ tag;
}

__noinline int rawfrag_filter_xdp(struct xdp_md *ctx, __u32 wirelen, __u32 tag)
{
	return ctx->ingress_ifindex ^ wirelen ^ tag;
}

/* classic BPF opcodes (linux/filter.h, pcap/bpf.h): class, size, mode, op, source */
#define C_LD 0x00
#define C_LDX 0x01
#define C_ST 0x02
#define C_STX 0x03
#define C_ALU 0x04
#define C_JMP 0x05
#define C_RET 0x06
#define C_MISC 0x07
#define C_W 0x00
#define C_H 0x08
#define C_B 0x10
#define C_IMM 0x00
#define C_ABS 0x20
#define C_IND 0x40
#define C_MEM 0x60
#define C_LEN 0x80
#define C_MSH 0xa0
#define C_X 0x08

/* the interpreter's state, on the dump program's stack, shared with each step */
struct vm {
	void *ctx;
	__u32 a, x, pc, ret;
	__u32 wirelen; /* as the pcapng shows it: an offloaded VLAN tag counts */
	__u8 tag[4]; /* offloaded 802.1Q tag, put back at 12..15 when tagged */
	bool tagged;
	__u32 mem[16];
};

static __always_inline int raw_load(void *ctx, bool xdp, __u32 off, __u8 *to, __u32 n)
{
	if (xdp)
		return bpf_xdp_load_bytes(ctx, off, to, n);
	return bpf_skb_load_bytes(ctx, off, to, n);
}

/*
 * n (1, 2 or 4) bytes at off of the frame as the pcapng shows it (with an
 * offloaded VLAN tag back in place), so a filter selects what tcpdump would
 * select from the file; out of the packet: error (the filter rejects).
 */
static __always_inline int vm_load(struct vm *v, bool xdp, __u32 off, __u8 *to, __u32 n)
{
	if (!v->tagged || off + n <= 12)
		return raw_load(v->ctx, xdp, off, to, n);
	if (off >= 16)
		return raw_load(v->ctx, xdp, off - 4, to, n);
	for (int i = 0; i < 4; i++) {
		__u32 o = off + i;

		if (i >= n)
			break;
		if (o < 12) {
			if (raw_load(v->ctx, xdp, o, &to[i], 1))
				return -1;
		} else if (o < 16) {
			to[i] = v->tag[(o - 12) & 3];
		} else if (raw_load(v->ctx, xdp, o - 4, &to[i], 1)) {
			return -1;
		}
	}
	return 0;
}

/* A or X = big-endian n bytes at off; false: out of the packet */
static __always_inline bool vm_ld(struct vm *v, bool xdp, __u32 size, __u32 off, __u32 *r)
{
	__u8 b[4];

	if (size == C_W) {
		if (vm_load(v, xdp, off, b, 4))
			return false;
		*r = (__u32)b[0] << 24 | (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
	} else if (size == C_H) {
		if (vm_load(v, xdp, off, b, 2))
			return false;
		*r = (__u32)b[0] << 8 | b[1];
	} else {
		if (vm_load(v, xdp, off, b, 1))
			return false;
		*r = b[0];
	}
	return true;
}

/* A op= operand; false: division by zero (the filter rejects, as in the kernel) */
static __always_inline bool vm_alu(struct vm *v, __u32 op, __u32 o)
{
	switch (op) {
	case 0x00: v->a += o; break;
	case 0x10: v->a -= o; break;
	case 0x20: v->a *= o; break;
	case 0x30: if (!o) return false; v->a /= o; break;
	case 0x40: v->a |= o; break;
	case 0x50: v->a &= o; break;
	case 0x60: v->a = o < 32 ? v->a << o : 0; break;
	case 0x70: v->a = o < 32 ? v->a >> o : 0; break;
	case 0x80: v->a = -v->a; break;
	case 0x90: if (!o) return false; v->a %= o; break;
	default: v->a ^= o; break;
	}
	return true;
}

static __always_inline bool vm_jmp(struct vm *v, __u32 op, __u32 o)
{
	switch (op) {
	case 0x10: return v->a == o;
	case 0x20: return v->a > o;
	case 0x30: return v->a >= o;
	default: return v->a & o;
	}
}

/* one instruction; returns 1 (stop) on a return or a rejecting error */
static __always_inline long vm_step(struct vm *v, bool xdp)
{
	__u64 w;
	__u32 code, k, pc = v->pc, cls, r;

	if (pc >= f_len || pc >= CBPF_MAX_INSNS)
		return 1;
	w = f_insns[pc & (CBPF_MAX_INSNS - 1)];
	code = w & 0xffff;
	k = w >> 32;
	cls = code & 7;
	v->pc = pc + 1;
	switch (cls) {
	case C_LD:
	case C_LDX:
		switch (code & 0xe0) {
		case C_IMM: r = k; break;
		case C_LEN: r = v->wirelen; break;
		case C_MEM: r = v->mem[k & 15]; break;
		case C_ABS:
			if (!vm_ld(v, xdp, code & 0x18, k, &r))
				return 1;
			break;
		case C_IND:
			if (!vm_ld(v, xdp, code & 0x18, v->x + k, &r))
				return 1;
			break;
		default: /* C_MSH: X = 4 * (low nibble of the byte at k) */
			if (!vm_ld(v, xdp, C_B, k, &r))
				return 1;
			r = (r & 0xf) << 2;
			break;
		}
		if (cls == C_LD)
			v->a = r;
		else
			v->x = r;
		return 0;
	case C_ST:
		v->mem[k & 15] = v->a;
		return 0;
	case C_STX:
		v->mem[k & 15] = v->x;
		return 0;
	case C_ALU:
		return vm_alu(v, code & 0xf0, code & C_X ? v->x : k) ? 0 : 1;
	case C_JMP:
		if ((code & 0xf0) == 0)
			v->pc += k;
		else if (vm_jmp(v, code & 0xf0, code & C_X ? v->x : k))
			v->pc += (w >> 16) & 0xff;
		else
			v->pc += (w >> 24) & 0xff;
		return 0;
	case C_RET: /* the value: K, X (0x08) or A (0x10) */
		v->ret = (code & 0x18) == 0x10 ? v->a : (code & 0x18) == 0x08 ? v->x : k;
		return 1;
	default: /* C_MISC: TAX, TXA */
		if (code & 0x80)
			v->a = v->x;
		else
			v->x = v->a;
		return 0;
	}
}

static long vm_step_skb(__u32 i, void *v)
{
	return vm_step(v, false);
}

static long vm_step_xdp(__u32 i, void *v)
{
	return vm_step(v, true);
}

/*
 * true when the packet passes the filter. bpf_loop: the verifier checks one step,
 * not the program, so any libpcap program up to CBPF_MAX_INSNS runs; the steps
 * are bounded by f_len (jumps only go forward).
 */
static __always_inline bool filter(void *ctx, bool xdp, __u32 wirelen, int vlan)
{
	struct vm v = { .ctx = ctx, .wirelen = wirelen };

	/* one read of f_xlated (volatile): the other hook's placeholder stays out */
	if (f_xlated) {
		if (xdp)
			return rawfrag_filter_xdp(ctx, wirelen, 0) != 0;
		/* the frame as the pcapng shows it: an offloaded tag is back in it */
		if (vlan >= 0)
			return rawfrag_filter_skb(ctx, wirelen + 4, 0x81000000u | (vlan & 0xffff)) != 0;
		return rawfrag_filter_skb(ctx, wirelen, 0) != 0;
	}
	if (vlan >= 0) {
		v.tagged = true;
		v.wirelen += 4;
		v.tag[0] = 0x81;
		v.tag[1] = 0x00;
		v.tag[2] = vlan >> 8;
		v.tag[3] = vlan;
	}
	bpf_loop(f_len, xdp ? vm_step_xdp : vm_step_skb, &v, 0);
	return v.ret != 0;
}

static __always_inline __u32 cap(__u32 len)
{
	return len < snaplen ? len : snaplen;
}

static __always_inline void emit(void *ctx, struct rawfrag_skb_meta *m)
{
	__u64 flags = BPF_F_CURRENT_CPU | ((__u64)m->caplen << 32);
	long err = bpf_perf_event_output(ctx, &events, flags, m, sizeof(*m));

	if (err)
		count(err == -28 /* ENOSPC */ ? 2 : 3);
}

static __always_inline void meta_init(struct rawfrag_skb_meta *m, __u8 hook)
{
	__builtin_memset(m, 0, sizeof(*m));
	m->magic = RAWFRAG_SKB_MAGIC;
	m->version = RAWFRAG_SKB_VERSION;
	m->meta_len = sizeof(*m);
	m->hook = hook;
	m->snaplen = snaplen;
}

static __always_inline void dump_skb(struct __sk_buff *skb, __u8 hook, __u8 dir)
{
	struct rawfrag_skb_meta m;

	count(0);
	if (f_len && !filter(skb, false, skb->len, skb->vlan_present ? skb->vlan_tci : -1)) {
		count(1);
		return;
	}
	meta_init(&m, hook);
	m.dir = dir;
	m.pkt_type = skb->pkt_type;
	m.ifindex = skb->ifindex;
	m.orig_len = skb->len;
	m.caplen = cap(skb->len);
	m.protocol = bpf_ntohs(skb->protocol);
	if (skb->vlan_present) {
		m.flags |= RAWFRAG_SKB_F_VLAN;
		m.vlan_tci = skb->vlan_tci;
	}
	m.mark = skb->mark;
	m.hash = skb->hash;
	emit(skb, &m);
}

/*
 * Attached to an AF_PACKET socket bound to one interface (SO_ATTACH_BPF). The
 * return value is how much of the packet the socket queues: 0, the socket is
 * never read; the program only sends the dump.
 */
SEC("rawfrag/socket")
int skbdump_socket(struct __sk_buff *skb)
{
	bool out = skb->pkt_type == PACKET_OUTGOING;

	if (out && skip_lo_outgoing && skb->ifindex == 1 /* LOOPBACK_IFINDEX */)
		return 0;
	dump_skb(skb, RAWFRAG_SKB_HOOK_SOCKET, out ? RAWFRAG_SKB_DIR_OUT : RAWFRAG_SKB_DIR_IN);
	return 0;
}

/* tcx or clsact: TC_ACT_UNSPEC (-1) lets the next program or the default decide */
SEC("rawfrag/tc")
int skbdump_tc_ingress(struct __sk_buff *skb)
{
	dump_skb(skb, RAWFRAG_SKB_HOOK_TC_INGRESS, RAWFRAG_SKB_DIR_IN);
	return -1;
}

SEC("rawfrag/tc")
int skbdump_tc_egress(struct __sk_buff *skb)
{
	dump_skb(skb, RAWFRAG_SKB_HOOK_TC_EGRESS, RAWFRAG_SKB_DIR_OUT);
	return -1;
}

static __always_inline int dump_xdp(struct xdp_md *ctx)
{
	struct rawfrag_skb_meta m;
	__u8 eth[14];
	__u32 len;

	count(0);
	len = bpf_xdp_get_buff_len(ctx);
	if (f_len && !filter(ctx, true, len, -1)) {
		count(1);
		return XDP_PASS;
	}
	meta_init(&m, RAWFRAG_SKB_HOOK_XDP);
	m.dir = RAWFRAG_SKB_DIR_IN;
	m.ifindex = ctx->ingress_ifindex;
	m.orig_len = len;
	m.caplen = cap(len);
	if (!bpf_xdp_load_bytes(ctx, 0, eth, sizeof(eth)))
		m.protocol = ((__u16)eth[12] << 8) | eth[13];
	emit(ctx, &m);
	return XDP_PASS;
}

/*
 * Two copies: native (driver) mode gets the multi-buffer one, so jumbo frames
 * on e.g. veth with a 9000 MTU can be attached to and dumped whole (the helper
 * copies across the fragments); generic mode gets the plain one, because a
 * frags program there makes the stack rebuild the skb and later hooks (tc
 * ingress) then see it without its MAC header.
 */
SEC("rawfrag/xdp.frags")
int skbdump_xdp_mb(struct xdp_md *ctx)
{
	return dump_xdp(ctx);
}

SEC("rawfrag/xdp")
int skbdump_xdp(struct xdp_md *ctx)
{
	return dump_xdp(ctx);
}
