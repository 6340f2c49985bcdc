/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF skb/xdp packet dumps for `perf rawfrag record --skb` (skb-record.c); their
 * pcapng export is the library's "pcapng" sink (lib/output/sink_pcapng.c).
 */
#ifndef __PERF_RAWFRAG_SKB_H
#define __PERF_RAWFRAG_SKB_H

#include <rawfrag/decoder.h>

struct record;

struct skb_opts {
	const char *ifaces; /* "lo,eth0" */
	const char *hooks; /* "socket" (default), "tc-ingress", "tc-egress", "xdp"; comma list */
	unsigned int snaplen; /* 0 = default 256 */
	const char *filter; /* pcap-filter(7) expression or NULL */
	int verbose; /* -v: say whether the filter is translated or interpreted */
};

/*
 * Called by the record command when --skb is given, after its options are parsed
 * and before recording starts: load and attach the dump programs and register their
 * bpf-output events with the record (record.h). Returns 0 or -errno after printing
 * one clear error.
 */
int skb_record_setup(struct record *rec, const struct skb_opts *opts);

#endif
