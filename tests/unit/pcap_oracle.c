// SPDX-License-Identifier: GPL-2.0
/*
 * libpcap's own verdict for test_cbpf_xlate: the expression compiled afresh
 * and run by pcap_offline_filter() (libpcap's interpreter). A file of its
 * own because libpcap's struct bpf_insn and the kernel's share the name.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pcap/pcap.h>

#include "pcap_oracle.h"

struct pcap_oracle {
	struct bpf_program prog;
};

struct pcap_oracle *pcap_oracle__new(const char *expr, unsigned int snaplen)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, snaplen);
	struct pcap_oracle *o = calloc(1, sizeof(*o));

	if (!p || !o || pcap_compile(p, &o->prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		if (p)
			fprintf(stderr, "pcap_oracle: '%s': %s\n", expr, pcap_geterr(p));
		free(o);
		o = NULL;
	}
	if (p)
		pcap_close(p);
	return o;
}

unsigned int pcap_oracle__run(const struct pcap_oracle *o, const uint8_t *pkt, uint32_t caplen,
			      uint32_t wirelen)
{
	struct pcap_pkthdr h = { .caplen = caplen, .len = wirelen };

	return (unsigned int)pcap_offline_filter(&o->prog, &h, pkt);
}

void pcap_oracle__delete(struct pcap_oracle *o)
{
	if (!o)
		return;
	pcap_freecode(&o->prog);
	free(o);
}
