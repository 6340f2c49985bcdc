/* SPDX-License-Identifier: GPL-2.0 */
/* --skb --filter: libpcap's classic BPF, for cbpf-xlate.c and skbdump.bpf.c's interpreter. */
#ifndef __PERF_RAWFRAG_SKB_FILTER_H
#define __PERF_RAWFRAG_SKB_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* as skbdump.bpf.c's CBPF_MAX_INSNS (the kernel's BPF_MAXINSNS for classic BPF) */
#define SKB_FILTER_MAX_INSNS 4096

/* the program in the layout of skbdump.bpf.c's f_insns (and cbpf_xlate()'s); len 0 = no filter */
struct skb_filter {
	uint32_t len;
	uint64_t insns[SKB_FILTER_MAX_INSNS];
};

/*
 * Compile expr (NULL or "" = no filter) with libpcap for Ethernet frames of at
 * most snaplen bytes. -EINVAL with libpcap's message (or ours, for a program
 * the interpreter cannot run) in msg on bad input.
 */
int skb_filter__compile(struct skb_filter *f, const char *expr, unsigned int snaplen,
			char *msg, size_t len);

#endif
