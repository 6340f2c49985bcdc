// SPDX-License-Identifier: GPL-2.0
/*
 * Producers for `perf rawfrag check --live` (check-live.c). Each program sends
 * the first `size` bytes of the known pattern in meta_buf through
 * bpf_perf_event_output to the bpf-output event of the current CPU; the skb and
 * xdp ones add the packet as the second fragment (its length in
 * BPF_F_CTXLEN_MASK), which the kernel copies with its own copy routine
 * (skb_copy_bits for non-linear skbs, the xdp frag walk). The return value of
 * the helper is kept in `ret` so user space can tell a refusal from a loss.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* larger than the largest record (header.size is u16) so the limit can be probed */
#define LIVE_META_MAX (72 * 1024)

struct meta_buf {
	unsigned char b[LIVE_META_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct meta_buf);
} meta SEC(".maps");

__u32 size; /* meta bytes to send */
__u32 ctxlen; /* packet bytes to send; 0 = the whole packet */
__u32 only_pid; /* socket filter: only this process's packets (0 = all) */
__u32 mute; /* probing what test_run accepts: send nothing */
__u32 linear; /* the linear part of the last skb or xdp frame */
__s64 ret; /* the helper's return value */
__u64 runs;
__u32 rx_armed; /* user space is sending one datagram of the skb-paged case */
__u32 rx_len, rx_data_len; /* the last skb lo received while armed: len, bytes in frags */

/* only the two members read, relocated by CO-RE against the kernel's BTF */
struct sk_buff {
	unsigned int len, data_len;
} __attribute__((preserve_access_index));

static __always_inline int output(void *ctx, __u64 pktlen)
{
	__u32 k = 0, n = size;
	struct meta_buf *m = bpf_map_lookup_elem(&meta, &k);
	__u64 flags = BPF_F_CURRENT_CPU;

	if (!m || mute)
		return 0;
	if (n > LIVE_META_MAX)
		n = LIVE_META_MAX;
	if (ctxlen && ctxlen < pktlen)
		pktlen = ctxlen;
	flags |= (pktlen << 32) & BPF_F_CTXLEN_MASK;
	ret = bpf_perf_event_output(ctx, &events, flags, m->b, n);
	runs++;
	return 0;
}

/* meta only: the plain one-fragment path */
SEC("raw_tp")
int live_plain(void *ctx)
{
	__u32 k = 0, n = size;
	struct meta_buf *m = bpf_map_lookup_elem(&meta, &k);

	if (!m)
		return 0;
	if (n > LIVE_META_MAX)
		n = LIVE_META_MAX;
	ret = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, m->b, n);
	runs++;
	return 0;
}

SEC("tc")
int live_skb(struct __sk_buff *skb)
{
	linear = skb->data_end - skb->data;
	output(skb, skb->len);
	return TC_ACT_OK;
}

/* on a socket: the received skb as the stack built it (paged for big datagrams) */
SEC("socket")
int live_sock(struct __sk_buff *skb)
{
	if (only_pid && (__u32)(bpf_get_current_pid_tgid() >> 32) != only_pid)
		return skb->len;
	output(skb, skb->len);
	return skb->len;
}

SEC("xdp.frags")
int live_xdp(struct xdp_md *ctx)
{
	linear = ctx->data_end - ctx->data;
	output(ctx, bpf_xdp_get_buff_len(ctx));
	return XDP_PASS;
}

/*
 * The datagram as lo hands it to the stack (the same skb reaches the socket
 * filter): data_len > 0 proves the skb-paged case drove a non-linear copy.
 */
SEC("tp_btf/netif_receive_skb")
int live_rx(unsigned long long *ctx)
{
	struct sk_buff *skb = (void *)ctx[0];

	if (!rx_armed)
		return 0;
	rx_len = skb->len;
	rx_data_len = skb->data_len;
	return 0;
}
