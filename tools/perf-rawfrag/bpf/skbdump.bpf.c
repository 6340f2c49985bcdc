// SPDX-License-Identifier: GPL-2.0
/*
 * Packet dump programs for `perf rawfrag record --skb`: one per hook, each sends
 * struct rawfrag_skb_meta plus the first caplen packet bytes to the bpf-output
 * event of the current CPU. The kernel copies the packet straight from the skb
 * (non-linear aware) or xdp buffer: bpf_perf_event_output's flags carry caplen
 * in BPF_F_CTXLEN_MASK.
 *
 * The optional filter is the simple subset of tcpdump syntax that
 * skb-filter.c compiles into the read-only values below (all must match).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <rawfrag/skbdump.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/*
 * per CPU: [0] packets seen, [1] filtered out, [2] ring full (-ENOSPC),
 * [3] other output failures: the event not enabled yet (before the recorder's
 * rings exist) or not on this CPU
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

const volatile __u32 snaplen = RAWFRAG_SKB_SNAPLEN_DEFAULT;
/* loopback: the outgoing copy of a packet is also seen incoming (as libpcap does) */
const volatile __u8 skip_lo_outgoing = 1;

/* filter (skb-filter.c); 0 = any */
const volatile __u8 f_on;
const volatile __u16 f_ethertype;
const volatile __u8 f_ipproto;
const volatile __u16 f_port;
const volatile __u8 f_port_dir; /* 0 either, 1 src, 2 dst */
const volatile __u8 f_host_family; /* 0 none, 4, 6 */
const volatile __u8 f_host_dir;
const volatile __u32 f_host[4]; /* network order */

static __always_inline void count(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &i);

	if (v)
		*v += 1;
}

/* load n bytes at off of the packet; xdp and skb programs have different helpers */
static __always_inline int load(void *ctx, bool xdp, __u32 off, void *to, __u32 n)
{
	if (xdp)
		return bpf_xdp_load_bytes(ctx, off, to, n);
	return bpf_skb_load_bytes(ctx, off, to, n);
}

static __always_inline bool addr_match(const __u32 *a, int words)
{
	for (int i = 0; i < words; i++)
		if (a[i] != f_host[i])
			return false;
	return true;
}

static __always_inline bool host_match(const __u32 *s, const __u32 *d, int words)
{
	if (f_host_dir == 1)
		return addr_match(s, words);
	if (f_host_dir == 2)
		return addr_match(d, words);
	return addr_match(s, words) || addr_match(d, words);
}

/* true when the packet passes the compiled filter */
static __always_inline bool filter(void *ctx, bool xdp)
{
	__u8 eth[14];
	__u32 off = 14, addr[8] = {};
	__u16 proto;
	__u8 l4 = 0;
	bool has_ports = true;

	if (load(ctx, xdp, 0, eth, sizeof(eth)))
		return false;
	proto = ((__u16)eth[12] << 8) | eth[13];
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		__u8 tag[4];

		if (load(ctx, xdp, off, tag, sizeof(tag)))
			return false;
		proto = ((__u16)tag[2] << 8) | tag[3];
		off += 4;
	}
	if (f_ethertype && proto != f_ethertype)
		return false;
	if (!f_ipproto && !f_port && !f_host_family)
		return true;

	if (proto == ETH_P_IP) {
		__u8 ip[20];

		if (load(ctx, xdp, off, ip, sizeof(ip)))
			return false;
		l4 = ip[9];
		/* not the first fragment: no transport header */
		if ((((__u16)ip[6] << 8) | ip[7]) & 0x1fff)
			has_ports = false;
		__builtin_memcpy(&addr[0], &ip[12], 4);
		__builtin_memcpy(&addr[4], &ip[16], 4);
		off += (ip[0] & 0xf) * 4;
		if (f_host_family == 6 || (f_host_family == 4 && !host_match(&addr[0], &addr[4], 1)))
			return false;
	} else if (proto == ETH_P_IPV6) {
		__u8 ip6[40];

		if (load(ctx, xdp, off, ip6, sizeof(ip6)))
			return false;
		l4 = ip6[6];
		__builtin_memcpy(addr, &ip6[8], 32);
		off += 40;
		if (f_host_family == 4 || (f_host_family == 6 && !host_match(&addr[0], &addr[4], 4)))
			return false;
		/* hop-by-hop, routing, fragment and destination options headers */
		for (int i = 0; i < 4; i++) {
			__u8 ext[2];

			if (l4 != 0 && l4 != 43 && l4 != 44 && l4 != 60)
				break;
			if (load(ctx, xdp, off, ext, sizeof(ext)))
				return false;
			if (l4 == 44) {
				__u8 fr[4];

				if (load(ctx, xdp, off, fr, sizeof(fr)))
					return false;
				if ((((__u16)fr[2] << 8) | fr[3]) & 0xfff8)
					has_ports = false;
				off += 8;
			} else {
				off += (ext[1] + 1) * 8;
			}
			l4 = ext[0];
		}
	} else {
		return false;
	}
	if (f_ipproto && l4 != f_ipproto)
		return false;
	if (f_port) {
		__u8 p[4];
		__u16 sp, dp;

		if (!has_ports || (l4 != IPPROTO_TCP && l4 != IPPROTO_UDP && l4 != IPPROTO_SCTP))
			return false;
		if (load(ctx, xdp, off, p, sizeof(p)))
			return false;
		sp = ((__u16)p[0] << 8) | p[1];
		dp = ((__u16)p[2] << 8) | p[3];
		if (f_port_dir == 1)
			return sp == f_port;
		if (f_port_dir == 2)
			return dp == f_port;
		return sp == f_port || dp == f_port;
	}
	return true;
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
	if (f_on && !filter(skb, false)) {
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
SEC("socket")
int skbdump_socket(struct __sk_buff *skb)
{
	bool out = skb->pkt_type == PACKET_OUTGOING;

	if (out && skip_lo_outgoing && skb->ifindex == 1 /* LOOPBACK_IFINDEX */)
		return 0;
	dump_skb(skb, RAWFRAG_SKB_HOOK_SOCKET, out ? RAWFRAG_SKB_DIR_OUT : RAWFRAG_SKB_DIR_IN);
	return 0;
}

/* tcx or clsact: TC_ACT_UNSPEC (-1) lets the next program or the default decide */
SEC("tc")
int skbdump_tc_ingress(struct __sk_buff *skb)
{
	dump_skb(skb, RAWFRAG_SKB_HOOK_TC_INGRESS, RAWFRAG_SKB_DIR_IN);
	return -1;
}

SEC("tc")
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
	if (f_on && !filter(ctx, true)) {
		count(1);
		return XDP_PASS;
	}
	len = bpf_xdp_get_buff_len(ctx);
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
SEC("xdp.frags")
int skbdump_xdp_mb(struct xdp_md *ctx)
{
	return dump_xdp(ctx);
}

SEC("xdp")
int skbdump_xdp(struct xdp_md *ctx)
{
	return dump_xdp(ctx);
}
