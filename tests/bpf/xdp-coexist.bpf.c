// SPDX-License-Identifier: GPL-2.0
/*
 * An XDP program that "someone else" attached, for t59-skb-xdp-coexist.sh:
 * drops UDP to port 9 (discard) and passes everything else. Its function name
 * is longer than a program name (15 characters), so the recorder must take it
 * from the BTF to trace the program.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp")
int rawfrag_test_xdp_drop_discard(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return XDP_PASS;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return XDP_PASS;
	return udp->dest == bpf_htons(9) ? XDP_DROP : XDP_PASS;
}
