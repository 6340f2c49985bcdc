/* SPDX-License-Identifier: GPL-2.0 */
/* libpcap's verdict on a packet, without libpcap's headers (pcap_oracle.c) */
#ifndef __RAWFRAG_TEST_PCAP_ORACLE_H
#define __RAWFRAG_TEST_PCAP_ORACLE_H

#include <stdint.h>

struct pcap_oracle;

struct pcap_oracle *pcap_oracle__new(const char *expr, unsigned int snaplen);
/* what libpcap's interpreter returns for the packet: 0 = rejected */
unsigned int pcap_oracle__run(const struct pcap_oracle *o, const uint8_t *pkt, uint32_t caplen,
			      uint32_t wirelen);
void pcap_oracle__delete(struct pcap_oracle *o);

#endif
