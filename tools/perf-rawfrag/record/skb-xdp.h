/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --skb: dumps at the entry and exit of an XDP program that is already
 * attached to an interface (fentry/fexit on it, bpf/skbxdp.bpf.c), as xdpdump
 * does, instead of failing to attach ours next to it.
 */
#ifndef __PERF_RAWFRAG_SKB_XDP_H
#define __PERF_RAWFRAG_SKB_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct skb_xdp;

/* what skb_xdp__open() needs besides the interface */
struct skb_xdp_opts {
	bool entry, exit; /* which of the two to dump */
	unsigned int snaplen;
	int events_fd, stats_fd; /* skbdump.bpf.c's maps, shared */
};

/*
 * The id of the XDP program attached to ifindex (driver mode first, else
 * generic), 0 when there is none. Returns 0 or -errno.
 */
int skb_xdp__attached(int ifindex, uint32_t *prog_id);

/*
 * Trace the XDP program prog_id for the packets of ifindex: load the
 * fentry/fexit programs against it and attach them. Says on stderr what it
 * traces. Returns 0 with *xp set, or -errno with msg (len bytes) saying why.
 */
int skb_xdp__open(struct skb_xdp **xp, int ifindex, const char *ifname, uint32_t prog_id,
		  const struct skb_xdp_opts *o, char *msg, size_t len);

/* detach and unload (NULL: nothing) */
void skb_xdp__close(struct skb_xdp *x);

#endif
