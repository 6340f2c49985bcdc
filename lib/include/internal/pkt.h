/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Packet header parsing for the skb/xdp dump decoder (lib/decoders/pkt_parse.c,
 * pkt_print.c): Ethernet, VLAN, ARP, IPv4, IPv6 with extension headers, TCP, UDP,
 * ICMP, ICMPv6. Every read is bounds-checked against the captured length.
 *
 * Ownership: struct pkt points into the caller's buffer and owns nothing.
 */
#ifndef __RAWFRAG_INTERNAL_PKT_H
#define __RAWFRAG_INTERNAL_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include <rawfrag/emit.h>

#define PKT_MAX_VLAN 2
#define PKT_MAX_EXT 8

struct pkt {
	const uint8_t *p;
	uint32_t caplen, wirelen;

	/* Ethernet (always present: the dumps are link-layer) */
	bool eth;
	uint16_t ethertype; /* after the VLAN tags */
	int nr_vlan;
	uint16_t vlan_tpid[PKT_MAX_VLAN], vlan_tci[PKT_MAX_VLAN];

	uint32_t l3off; /* 0: no L3 parsed */
	bool ip4, ip6, arp;
	uint32_t l3hlen; /* IPv4 header length, IPv6 40 + extension headers */
	uint32_t ip_len; /* IPv4 total length / IPv6 40 + payload length */
	bool ip4_csum_ok;
	int nr_ext;
	uint8_t ext[PKT_MAX_EXT]; /* IPv6 extension header types in order */
	uint32_t ext_off[PKT_MAX_EXT]; /* and where each starts */
	bool frag_later; /* not the first fragment: no L4 header */
	uint8_t l4proto;

	uint32_t l4off; /* 0: no L4 header in the capture */
	uint32_t l4len; /* transport bytes per the IP length (0 if unknown) */
};

/* Parse the headers of an Ethernet frame. Never fails: stops where data ends. */
void pkt_parse(struct pkt *k, const uint8_t *p, uint32_t caplen, uint32_t wirelen);

/*
 * Is p (len bytes) the start of an Ethernet frame carrying IPv4 (valid header
 * checksum, sane lengths) or IPv6 (version, payload length within wirelen)?
 * For meta=auto. *frame_len: the frame's length from the IP header.
 */
bool pkt_looks_like_frame(const uint8_t *p, uint32_t len, uint32_t *frame_len);

/*
 * tcpdump's relative TCP sequence numbers: the first sequence and ack numbers
 * of each connection (both directions in one entry), a fixed-size table so
 * memory stays bounded (a new connection may take an old one's slot).
 */
#define PKT_TCPSEQ_SLOTS 4096
struct pkt_tcpseq_ent {
	bool used, v6;
	uint8_t src[16], dst[16]; /* the canonical order: lower port first */
	uint32_t ports;
	uint32_t seq, ack;
};
struct pkt_tcpseq {
	struct pkt_tcpseq_ent e[PKT_TCPSEQ_SLOTS];
};

/* tcpdump-style summary (no newline); ts NULL: absolute sequence numbers (-S) */
void pkt_text(const struct pkt *k, struct rawfrag_out *out, struct pkt_tcpseq *ts);
/* the transport part (pkt_proto.c); s, d NULL: after IPv6 extension headers */
void pkt_tcp_text(const struct pkt *k, struct rawfrag_out *o, const char *s, const char *d,
		  struct pkt_tcpseq *ts);
void pkt_icmp_text(const struct pkt *k, struct rawfrag_out *o);
void pkt_icmp6_text(const struct pkt *k, struct rawfrag_out *o);
/* tcpdump -x style hex lines ("\n\t0x0000:  4500 ...") of the captured bytes */
void pkt_hex(const struct pkt *k, struct rawfrag_out *out);
/* parsed headers as nested objects */
void pkt_fields(const struct pkt *k, struct rawfrag_emit *em);

/* [off, off + n) is inside the captured bytes (overflow-safe) */
static inline bool pkt_have(const struct pkt *k, uint32_t off, uint32_t n)
{
	return off <= k->caplen && n <= k->caplen - off;
}

static inline uint16_t pkt_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pkt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
