// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Text (the link part as `tcpdump -e -n` prints it, then the protocol part as
 * `tcpdump -n` does; transport part in pkt_proto.c), hex (`tcpdump -xx`) and
 * typed fields of a parsed frame (pkt_parse.c). Headers cut by the snaplen end
 * the line with tcpdump's "[|proto]" marker.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "internal/pkt.h"

static void mac_str(const uint8_t *m, char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void addr_str(const struct pkt *k, bool src, char *buf, size_t len)
{
	const uint8_t *h = k->p + k->l3off;

	if (k->ip4)
		inet_ntop(AF_INET, h + (src ? 12 : 16), buf, len);
	else
		inet_ntop(AF_INET6, h + (src ? 8 : 24), buf, len);
}

static const char *ethertype_name(uint16_t et)
{
	switch (et) {
	case 0x0800: return "IPv4";
	case 0x86dd: return "IPv6";
	case 0x0806: return "ARP";
	case 0x8100: return "802.1Q";
	case 0x88a8: return "802.1Q-QinQ";
	default: return "Unknown";
	}
}

/* JSON names of IPv6 extension headers */
static const char *ext_name(uint8_t nh)
{
	switch (nh) {
	case 0: return "hbh";
	case 43: return "routing";
	case 44: return "frag";
	case 51: return "ah";
	case 60: return "dstopt";
	default: return "mobility";
	}
}

/*
 * tcpdump's words for IPv6 extension headers, printed between "src > dst: " and
 * the transport part; false when the next one cannot be followed
 */
static bool ext_text(const struct pkt *k, struct rawfrag_out *o)
{
	for (int i = 0; i < k->nr_ext; i++) {
		const uint8_t *e = k->p + k->ext_off[i];

		switch (k->ext[i]) {
		case 0:
			rawfrag_out__puts(o, "HBH ");
			break;
		case 60:
			rawfrag_out__puts(o, "DSTOPT ");
			break;
		case 43:
			rawfrag_out__printf(o, "srcrt (len=%u, type=%u, segleft=%u) ", e[1], e[2], e[3]);
			break;
		case 44: {
			/* payload after this header: from the IPv6 payload length */
			uint32_t after = k->ext_off[i] + 8 - k->l3off;

			rawfrag_out__printf(o, "frag (%u|%u)", pkt_be16(e + 2) & 0xfff8,
					    k->ip_len > after ? k->ip_len - after : 0);
			/* a later fragment: nothing more to name */
			if (pkt_be16(e + 2) & 0xfff8)
				return false;
			rawfrag_out__putc(o, ' ');
			break;
		}
		case 51:
			/* the parser made sure of 8 bytes of each header; AH names 12 */
			if (!pkt_have(k, k->ext_off[i], 12)) {
				rawfrag_out__puts(o, "[|AH]");
				return false;
			}
			rawfrag_out__printf(o, "AH(spi=0x%08x", pkt_be32(e + 4));
			rawfrag_out__printf(o, ",seq=0x%x): ", pkt_be32(e + 8));
			break;
		default:
			rawfrag_out__printf(o, "ip-proto-%u ", k->ext[i]);
			return false;
		}
	}
	return true;
}

static void udp_text(const struct pkt *k, struct rawfrag_out *o, const char *s, const char *d)
{
	const uint8_t *t = k->p + k->l4off;

	if (!pkt_have(k, k->l4off, 8)) {
		if (s)
			rawfrag_out__printf(o, "%s > %s: ", s, d);
		rawfrag_out__puts(o, "[|udp]");
		return;
	}
	if (s)
		rawfrag_out__printf(o, "%s.%u > %s.%u: ", s, pkt_be16(t), d, pkt_be16(t + 2));
	else
		rawfrag_out__printf(o, "%u > %u: ", pkt_be16(t), pkt_be16(t + 2));
	rawfrag_out__printf(o, "UDP, length %u", pkt_be16(t + 4) >= 8 ? pkt_be16(t + 4) - 8 : 0);
}

static void l4_text(const struct pkt *k, struct rawfrag_out *o, struct pkt_tcpseq *ts)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	bool ext = k->nr_ext > 0;

	addr_str(k, true, s, sizeof(s));
	addr_str(k, false, d, sizeof(d));
	/* with extension headers tcpdump names the addresses once, then the ports */
	if (ext) {
		rawfrag_out__printf(o, "%s > %s: ", s, d);
		if (!ext_text(k, o))
			return;
	}
	if (!k->l4off) {
		if (!ext)
			rawfrag_out__printf(o, "%s > %s: ", s, d);
		if (k->frag_later)
			rawfrag_out__printf(o, "ip-proto-%u", k->l4proto);
		else
			rawfrag_out__printf(o, "[|ip-proto-%u]", k->l4proto);
		return;
	}
	switch (k->l4proto) {
	case 6:
		pkt_tcp_text(k, o, ext ? NULL : s, d, ts);
		break;
	case 17:
		udp_text(k, o, ext ? NULL : s, d);
		break;
	case 1:
	case 58:
		if (!ext)
			rawfrag_out__printf(o, "%s > %s: ", s, d);
		if (k->l4proto == 58)
			pkt_icmp6_text(k, o);
		else
			pkt_icmp_text(k, o);
		break;
	default:
		if (!ext)
			rawfrag_out__printf(o, "%s > %s: ", s, d);
		rawfrag_out__printf(o, "ip-proto-%u %u", k->l4proto, k->l4len);
	}
}

static void arp_text(const struct pkt *k, struct rawfrag_out *o)
{
	const uint8_t *a = k->p + k->l3off;
	char m[18], sip[16], tip[16];
	uint16_t op = pkt_be16(a + 6);

	/* Ethernet/IPv4 ARP only; others by opcode */
	if (pkt_be16(a) != 1 || pkt_be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4 ||
	    !pkt_have(k, k->l3off, 28)) {
		rawfrag_out__printf(o, "ARP, opcode %u, length %u", op, k->wirelen - k->l3off);
		return;
	}
	inet_ntop(AF_INET, a + 14, sip, sizeof(sip));
	inet_ntop(AF_INET, a + 24, tip, sizeof(tip));
	if (op == 1) {
		rawfrag_out__printf(o, "ARP, Request who-has %s tell %s", tip, sip);
	} else if (op == 2) {
		mac_str(a + 8, m);
		rawfrag_out__printf(o, "ARP, Reply %s is-at %s", sip, m);
	} else {
		rawfrag_out__printf(o, "ARP, opcode %u", op);
	}
	rawfrag_out__printf(o, ", length %u", k->wirelen - k->l3off);
}

void pkt_text(const struct pkt *k, struct rawfrag_out *o, struct pkt_tcpseq *ts)
{
	char s[18], d[18];

	if (!k->eth) {
		rawfrag_out__printf(o, "[|ether], length %u", k->wirelen);
		return;
	}
	mac_str(k->p + 6, s);
	mac_str(k->p, d);
	rawfrag_out__printf(o, "%s > %s, ethertype %s (0x%04x), length %u: ", s, d,
			    ethertype_name(k->nr_vlan ? k->vlan_tpid[0] : k->ethertype),
			    k->nr_vlan ? k->vlan_tpid[0] : k->ethertype, k->wirelen);
	for (int i = 0; i < k->nr_vlan; i++) {
		uint16_t next = i + 1 < k->nr_vlan ? k->vlan_tpid[i + 1] : k->ethertype;

		rawfrag_out__printf(o, "vlan %u, p %u, ethertype %s (0x%04x), ",
				    k->vlan_tci[i] & 0xfff, k->vlan_tci[i] >> 13,
				    ethertype_name(next), next);
	}
	if (k->ip4) {
		rawfrag_out__puts(o, "IP ");
		if (!k->ip4_csum_ok && pkt_have(k, k->l3off, k->l3hlen))
			rawfrag_out__puts(o, "(bad cksum) ");
		l4_text(k, o, ts);
	} else if (k->ip6) {
		rawfrag_out__puts(o, "IP6 ");
		l4_text(k, o, ts);
	} else if (k->arp) {
		arp_text(k, o);
	} else if (k->ethertype == 0x0800 || k->ethertype == 0x86dd || k->ethertype == 0x0806) {
		rawfrag_out__puts(o, k->ethertype == 0x0806 ? "[|arp]" : "[|ip]");
	} else {
		rawfrag_out__printf(o, "ethertype 0x%04x, length %u", k->ethertype, k->wirelen);
	}
}

void pkt_hex(const struct pkt *k, struct rawfrag_out *o)
{
	for (uint32_t off = 0; off < k->caplen; off += 16) {
		rawfrag_out__printf(o, "\n\t0x%04x: ", off);
		for (uint32_t i = off; i < off + 16 && i < k->caplen; i += 2) {
			if (i + 1 < k->caplen)
				rawfrag_out__printf(o, " %02x%02x", k->p[i], k->p[i + 1]);
			else
				rawfrag_out__printf(o, " %02x", k->p[i]);
		}
	}
}

static void emit_addr(struct rawfrag_emit *em, const struct pkt *k)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	addr_str(k, true, s, sizeof(s));
	addr_str(k, false, d, sizeof(d));
	rawfrag_emit__str(em, "src", s, (size_t)-1);
	rawfrag_emit__str(em, "dst", d, (size_t)-1);
}

static void l4_fields(const struct pkt *k, struct rawfrag_emit *em)
{
	const uint8_t *t = k->p + k->l4off;

	if (!k->l4off)
		return;
	if (k->l4proto == 6 && pkt_have(k, k->l4off, 20)) {
		rawfrag_emit__begin_object(em, "tcp");
		rawfrag_emit__u64(em, "sport", pkt_be16(t));
		rawfrag_emit__u64(em, "dport", pkt_be16(t + 2));
		rawfrag_emit__u64(em, "seq", pkt_be32(t + 4));
		rawfrag_emit__u64(em, "ack", pkt_be32(t + 8));
		rawfrag_emit__u64(em, "hlen", (t[12] >> 4) * 4);
		rawfrag_emit__hex(em, "flags", t[13]);
		rawfrag_emit__u64(em, "win", pkt_be16(t + 14));
		rawfrag_emit__u64(em, "options_len", (t[12] >> 4) * 4 > 20 ? (t[12] >> 4) * 4 - 20 : 0);
		rawfrag_emit__end_object(em);
	} else if (k->l4proto == 17 && pkt_have(k, k->l4off, 8)) {
		rawfrag_emit__begin_object(em, "udp");
		rawfrag_emit__u64(em, "sport", pkt_be16(t));
		rawfrag_emit__u64(em, "dport", pkt_be16(t + 2));
		rawfrag_emit__u64(em, "len", pkt_be16(t + 4));
		rawfrag_emit__hex(em, "csum", pkt_be16(t + 6));
		rawfrag_emit__end_object(em);
	} else if ((k->l4proto == 1 || k->l4proto == 58) && pkt_have(k, k->l4off, 4)) {
		rawfrag_emit__begin_object(em, k->l4proto == 1 ? "icmp" : "icmp6");
		rawfrag_emit__u64(em, "type", t[0]);
		rawfrag_emit__u64(em, "code", t[1]);
		if (pkt_have(k, k->l4off, 8)) {
			rawfrag_emit__u64(em, "id", pkt_be16(t + 4));
			rawfrag_emit__u64(em, "seq", pkt_be16(t + 6));
		}
		rawfrag_emit__end_object(em);
	}
}

static void l3_fields(const struct pkt *k, struct rawfrag_emit *em)
{
	const uint8_t *h = k->p + k->l3off;
	char m[18];

	if (k->ip4) {
		rawfrag_emit__begin_object(em, "ipv4");
		emit_addr(em, k);
		rawfrag_emit__u64(em, "hlen", k->l3hlen);
		rawfrag_emit__u64(em, "tot_len", k->ip_len);
		rawfrag_emit__u64(em, "id", pkt_be16(h + 4));
		rawfrag_emit__hex(em, "frag", pkt_be16(h + 6));
		rawfrag_emit__u64(em, "ttl", h[8]);
		rawfrag_emit__u64(em, "proto", h[9]);
		rawfrag_emit__bool(em, "csum_ok", k->ip4_csum_ok);
		rawfrag_emit__end_object(em);
	} else if (k->ip6) {
		rawfrag_emit__begin_object(em, "ipv6");
		emit_addr(em, k);
		rawfrag_emit__u64(em, "payload_len", k->ip_len - 40);
		rawfrag_emit__u64(em, "hlim", h[7]);
		rawfrag_emit__u64(em, "next", k->l4proto);
		rawfrag_emit__begin_array(em, "ext");
		for (int i = 0; i < k->nr_ext; i++)
			rawfrag_emit__str(em, NULL, ext_name(k->ext[i]), (size_t)-1);
		rawfrag_emit__end_array(em);
		rawfrag_emit__end_object(em);
	} else if (k->arp) {
		rawfrag_emit__begin_object(em, "arp");
		rawfrag_emit__u64(em, "op", pkt_be16(h + 6));
		if (pkt_have(k, k->l3off, 28) && h[4] == 6 && h[5] == 4) {
			char ip[16];

			mac_str(h + 8, m);
			rawfrag_emit__str(em, "sha", m, (size_t)-1);
			inet_ntop(AF_INET, h + 14, ip, sizeof(ip));
			rawfrag_emit__str(em, "spa", ip, (size_t)-1);
			mac_str(h + 18, m);
			rawfrag_emit__str(em, "tha", m, (size_t)-1);
			inet_ntop(AF_INET, h + 24, ip, sizeof(ip));
			rawfrag_emit__str(em, "tpa", ip, (size_t)-1);
		}
		rawfrag_emit__end_object(em);
	}
}

void pkt_fields(const struct pkt *k, struct rawfrag_emit *em)
{
	char m[18];

	if (!k->eth)
		return;
	rawfrag_emit__begin_object(em, "eth");
	mac_str(k->p, m);
	rawfrag_emit__str(em, "dst", m, (size_t)-1);
	mac_str(k->p + 6, m);
	rawfrag_emit__str(em, "src", m, (size_t)-1);
	rawfrag_emit__hex(em, "type", k->ethertype);
	rawfrag_emit__end_object(em);
	if (k->nr_vlan) {
		rawfrag_emit__begin_array(em, "vlan");
		for (int i = 0; i < k->nr_vlan; i++) {
			rawfrag_emit__begin_object(em, NULL);
			rawfrag_emit__hex(em, "tpid", k->vlan_tpid[i]);
			rawfrag_emit__u64(em, "id", k->vlan_tci[i] & 0xfff);
			rawfrag_emit__u64(em, "pcp", k->vlan_tci[i] >> 13);
			rawfrag_emit__end_object(em);
		}
		rawfrag_emit__end_array(em);
	}
	l3_fields(k, em);
	l4_fields(k, em);
}
