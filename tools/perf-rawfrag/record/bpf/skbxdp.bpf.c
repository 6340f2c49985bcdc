// SPDX-License-Identifier: GPL-2.0
/*
 * Packet dumps at the entry and exit of an XDP program someone else attached
 * (`record --skb IF --hook xdp` when IF already has one, or --hook
 * xdp-entry/xdp-exit): an interface takes one XDP program (or one per mode),
 * so instead of replacing it, fentry/fexit programs trace it. The loader
 * (skb-xdp.c) loads one copy per traced interface with the target set, and
 * shares skbdump.bpf.c's events and stats maps, so the dumps land in the same
 * bpf-output event with the same struct rawfrag_skb_meta.
 *
 * bpf_xdp_output() copies the packet (multi-buffer too) from the xdp_buff the
 * traced program got: at exit that is the packet as the program left it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include <rawfrag/skbdump.h>

/* events and stats: replaced by skbdump.bpf.c's maps before load */
#include "skbdump.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* the kernel's types, as far as used; CO-RE finds the fields in its BTF */
struct net_device {
	int ifindex;
} __attribute__((preserve_access_index));

struct xdp_rxq_info {
	struct net_device *dev;
} __attribute__((preserve_access_index));

struct xdp_buff {
	void *data;
	void *data_end;
	struct xdp_rxq_info *rxq;
} __attribute__((preserve_access_index));

/* the recorded interface: the traced program may serve others too */
const volatile __u32 ifindex;
const volatile __u32 prog_id;

static __always_inline void dump(struct xdp_buff *xdp, __u8 hook, int action)
{
	struct rawfrag_skb_meta m;
	__u8 *data = xdp->data;
	__u8 eth[2];
	__u64 flags;
	__u32 len;
	long err;

	if (xdp->rxq->dev->ifindex != ifindex)
		return;
	count(0);
	__builtin_memset(&m, 0, sizeof(m));
	m.magic = RAWFRAG_SKB_MAGIC;
	m.version = RAWFRAG_SKB_VERSION;
	m.meta_len = sizeof(m);
	m.hook = hook;
	m.dir = RAWFRAG_SKB_DIR_IN;
	m.snaplen = snaplen;
	m.ifindex = ifindex;
	len = bpf_xdp_get_buff_len((struct xdp_md *)xdp);
	m.orig_len = len;
	m.caplen = len < snaplen ? len : snaplen;
	if ((__u8 *)xdp->data_end - data >= 14 && !bpf_probe_read_kernel(eth, 2, data + 12))
		m.protocol = ((__u16)eth[0] << 8) | eth[1];
	m.xdp_prog_id = prog_id;
	if (action >= 0) {
		m.flags |= RAWFRAG_SKB_F_XDP_ACTION;
		m.xdp_action = action;
	}
	flags = BPF_F_CURRENT_CPU | ((__u64)m.caplen << 32);
	err = bpf_xdp_output(xdp, &events, flags, &m, sizeof(m));
	if (err)
		count(err == -28 /* ENOSPC */ ? 2 : 3);
}

/* "xdp" here is replaced by the traced program's function (bpf_program__set_attach_target) */
SEC("fentry/xdp")
int BPF_PROG(skbdump_xdp_entry, struct xdp_buff *xdp)
{
	dump(xdp, RAWFRAG_SKB_HOOK_XDP_ENTRY, -1);
	return 0;
}

SEC("fexit/xdp")
int BPF_PROG(skbdump_xdp_exit, struct xdp_buff *xdp, int ret)
{
	dump(xdp, RAWFRAG_SKB_HOOK_XDP_EXIT, ret);
	return 0;
}
