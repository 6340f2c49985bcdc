/* SPDX-License-Identifier: GPL-2.0 */
/* --skb --filter: tcpdump-syntax subset compiled for skbdump.bpf.c (skb-filter.c). */
#ifndef __PERF_RAWFRAG_SKB_FILTER_H
#define __PERF_RAWFRAG_SKB_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the values skbdump.bpf.c reads from .rodata; 0 = any */
struct skb_filter {
	bool on;
	uint16_t ethertype;
	uint8_t ipproto;
	uint16_t port;
	uint8_t port_dir; /* 0 either, 1 src, 2 dst */
	uint8_t host_family; /* 0, 4 or 6 */
	uint8_t host_dir;
	uint32_t host[4]; /* network order */
};

/* Compile expr (NULL or "" = no filter). -EINVAL with msg filled on bad input. */
int skb_filter__compile(struct skb_filter *f, const char *expr, char *msg, size_t len);

#endif
