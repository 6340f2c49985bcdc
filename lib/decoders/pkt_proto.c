// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The transport part of a packet's text, worded as `tcpdump -n` words it: TCP
 * with its options and relative sequence numbers, ICMP with the quoted
 * datagram of an error (address, protocol, port), ICMPv6 including neighbour
 * discovery. Every read is bounds-checked against the capture; a header cut
 * by the snaplen ends with tcpdump's "[|proto]".
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "internal/pkt.h"

/* ---- TCP ---- */

/* tcpdump's relative numbers: the connection's first seq/ack, one entry for both directions */
static void tcp_relative(const struct pkt *k, const uint8_t *t, struct pkt_tcpseq *ts,
			 uint32_t *seq, uint32_t *ack, uint32_t *thack)
{
	const uint8_t *h = k->p + k->l3off;
	int alen = k->ip4 ? 4 : 16;
	const uint8_t *src = k->ip4 ? h + 12 : h + 8, *dst = src + alen;
	uint16_t sp = pkt_be16(t), dp = pkt_be16(t + 2);
	bool rev = sp > dp || (sp == dp && memcmp(src, dst, alen) > 0);
	struct pkt_tcpseq_ent key = { .used = true, .v6 = k->ip6 };
	uint32_t slot;
	struct pkt_tcpseq_ent *e;

	memcpy(key.src, rev ? dst : src, alen);
	memcpy(key.dst, rev ? src : dst, alen);
	key.ports = rev ? (uint32_t)dp << 16 | sp : (uint32_t)sp << 16 | dp;
	slot = key.ports;
	for (int i = 0; i < alen; i++)
		slot = slot * 31 + key.src[i] * 7 + key.dst[i];
	e = &ts->e[slot % PKT_TCPSEQ_SLOTS];
	if (!e->used || e->v6 != key.v6 || e->ports != key.ports ||
	    memcmp(e->src, key.src, 16) || memcmp(e->dst, key.dst, 16) || (t[13] & 0x02)) {
		*e = key;
		e->seq = rev ? *ack - 1 : *seq;
		e->ack = rev ? *seq : *ack - 1;
	} else {
		*seq -= rev ? e->ack : e->seq;
		*ack -= rev ? e->seq : e->ack;
	}
	*thack = rev ? e->seq : e->ack;
}

/* "[mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7]" */
static void tcp_options(struct rawfrag_out *o, const uint8_t *p, uint32_t n, uint32_t thack)
{
	rawfrag_out__puts(o, ", options [");
	for (uint32_t i = 0; i < n;) {
		uint8_t opt = p[i], len = 1;

		if (i)
			rawfrag_out__putc(o, ',');
		if (opt == 1) {
			rawfrag_out__puts(o, "nop");
			i++;
			continue;
		}
		if (opt == 0) {
			/* end of the list: the rest is padding */
			rawfrag_out__puts(o, "eol");
			break;
		}
		if (i + 1 >= n || p[i + 1] < 2 || i + p[i + 1] > n) {
			rawfrag_out__puts(o, "[bad opt]");
			break;
		}
		len = p[i + 1];
		if (opt == 2 && len == 4)
			rawfrag_out__printf(o, "mss %u", pkt_be16(p + i + 2));
		else if (opt == 3 && len == 3)
			rawfrag_out__printf(o, "wscale %u", p[i + 2]);
		else if (opt == 4 && len == 2)
			rawfrag_out__puts(o, "sackOK");
		else if (opt == 8 && len == 10)
			rawfrag_out__printf(o, "TS val %u ecr %u", pkt_be32(p + i + 2),
					    pkt_be32(p + i + 6));
		else if (opt == 5 && (len - 2) % 8 == 0) {
			rawfrag_out__printf(o, "sack %u ", (len - 2) / 8);
			for (uint32_t b = i + 2; b + 8 <= (uint32_t)i + len; b += 8)
				rawfrag_out__printf(o, "{%u:%u}", pkt_be32(p + b) - thack,
						    pkt_be32(p + b + 4) - thack);
		} else {
			rawfrag_out__printf(o, "unknown-%u ", opt);
			for (uint32_t b = i + 2; b < (uint32_t)i + len; b++)
				rawfrag_out__printf(o, "%02x", p[b]);
		}
		i += len;
	}
	rawfrag_out__putc(o, ']');
}

void pkt_tcp_text(const struct pkt *k, struct rawfrag_out *o, const char *s, const char *d,
		  struct pkt_tcpseq *ts)
{
	static const char fl[] = "FSRP.UEW";
	const uint8_t *t = k->p + k->l4off;
	uint32_t hl, seq, ack, thack = 0, len;
	uint8_t flags;
	char f[9];
	int n = 0;

	if (!pkt_have(k, k->l4off, 20)) {
		if (s)
			rawfrag_out__printf(o, "%s > %s: ", s, d);
		rawfrag_out__puts(o, "[|tcp]");
		return;
	}
	if (s)
		rawfrag_out__printf(o, "%s.%u > %s.%u: ", s, pkt_be16(t), d, pkt_be16(t + 2));
	else
		rawfrag_out__printf(o, "%u > %u: ", pkt_be16(t), pkt_be16(t + 2));
	flags = t[13];
	for (int i = 0; i < 8; i++)
		if (flags & (1u << i))
			f[n++] = fl[i];
	f[n] = 0;
	hl = (t[12] >> 4) * 4;
	seq = pkt_be32(t + 4);
	ack = pkt_be32(t + 8);
	if (ts && (flags & 0x10))
		tcp_relative(k, t, ts, &seq, &ack, &thack);
	len = k->l4len >= hl ? k->l4len - hl : 0;
	rawfrag_out__printf(o, "Flags [%s]", n ? f : "none");
	if (len || (flags & 0x07)) {
		rawfrag_out__printf(o, ", seq %u", seq);
		if (len)
			rawfrag_out__printf(o, ":%u", seq + len);
	}
	if (flags & 0x10)
		rawfrag_out__printf(o, ", ack %u", ack);
	rawfrag_out__printf(o, ", win %u", pkt_be16(t + 14));
	if (flags & 0x20)
		rawfrag_out__printf(o, ", urg %u", pkt_be16(t + 18));
	if (hl > 20) {
		if (!pkt_have(k, k->l4off, hl)) {
			rawfrag_out__puts(o, ", options [|tcp]");
			return;
		}
		tcp_options(o, t + 20, hl - 20, thack);
	}
	rawfrag_out__printf(o, ", length %u", len);
}

/* ---- ICMP ---- */

static const char *const unreach_fmt[] = {
	[0] = "net %s unreachable",
	[1] = "host %s unreachable",
	[5] = "%s unreachable - source route failed",
	[6] = "net %s unreachable - unknown",
	[7] = "host %s unreachable - unknown",
	[8] = "%s unreachable - source host isolated",
	[9] = "net %s unreachable - admin prohibited",
	[10] = "host %s unreachable - admin prohibited",
	[11] = "net %s unreachable - tos prohibited",
	[12] = "host %s unreachable - tos prohibited",
	[13] = "host %s unreachable - admin prohibited filter",
	[14] = "host %s unreachable - host precedence violation",
	[15] = "host %s unreachable - precedence cutoff",
};

static const char *const icmp_names[] = {
	[4] = "source quench", [9] = "router advertisement", [10] = "router solicitation",
	[14] = "time stamp reply", [15] = "information request", [16] = "information reply",
	[17] = "address mask request",
};

/* destination unreachable: the quoted datagram (l4off + 8) names what was unreachable */
static bool icmp_unreach(const struct pkt *k, struct rawfrag_out *o, const uint8_t *t)
{
	uint32_t q = k->l4off + 8, qhl;
	char dst[INET_ADDRSTRLEN];
	const uint8_t *ip = t + 8;

	if (!pkt_have(k, q, 20))
		return false;
	inet_ntop(AF_INET, ip + 16, dst, sizeof(dst));
	qhl = (ip[0] & 0xf) * 4;
	switch (t[1]) {
	case 2:
		rawfrag_out__printf(o, "%s protocol %u unreachable", dst, ip[9]);
		return true;
	case 3:
		if (qhl < 20 || !pkt_have(k, q + qhl, 4))
			return false;
		if (ip[9] == 6 || ip[9] == 17)
			rawfrag_out__printf(o, "%s %s port %u unreachable", dst,
					    ip[9] == 6 ? "tcp" : "udp", pkt_be16(ip + qhl + 2));
		else
			rawfrag_out__printf(o, "%s protocol %u port %u unreachable", dst, ip[9],
					    pkt_be16(ip + qhl + 2));
		return true;
	case 4:
		if (pkt_be16(t + 6))
			rawfrag_out__printf(o, "%s unreachable - need to frag (mtu %u)", dst,
					    pkt_be16(t + 6));
		else
			rawfrag_out__printf(o, "%s unreachable - need to frag", dst);
		return true;
	}
	if (t[1] < sizeof(unreach_fmt) / sizeof(unreach_fmt[0]) && unreach_fmt[t[1]]) {
		const char *f = unreach_fmt[t[1]], *pc = strstr(f, "%s");

		rawfrag_out__printf(o, "%.*s%s%s", (int)(pc - f), f, dst, pc + 2);
	} else {
		rawfrag_out__printf(o, "#%u %s unreachable", t[1], dst);
	}
	return true;
}

static bool icmp_body(const struct pkt *k, struct rawfrag_out *o, const uint8_t *t)
{
	static const char *const redir[] = { "redirect %s to net %s", "redirect %s to host %s",
					     "redirect-tos %s to net %s",
					     "redirect-tos %s to host %s" };
	char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];

	switch (t[0]) {
	case 0:
	case 8:
		if (!pkt_have(k, k->l4off, 8))
			return false;
		rawfrag_out__printf(o, "echo %s, id %u, seq %u", t[0] ? "request" : "reply",
				    pkt_be16(t + 4), pkt_be16(t + 6));
		return true;
	case 3:
		return icmp_unreach(k, o, t);
	case 5:
		if (!pkt_have(k, k->l4off + 8, 20))
			return false;
		inet_ntop(AF_INET, t + 8 + 16, a, sizeof(a));
		inet_ntop(AF_INET, t + 4, g, sizeof(g));
		if (t[1] < 4) {
			const char *f = redir[t[1]], *p1 = strstr(f, "%s"), *p2 = strstr(p1 + 2, "%s");

			rawfrag_out__printf(o, "%.*s%s%.*s%s", (int)(p1 - f), f, a,
					    (int)(p2 - p1 - 2), p1 + 2, g);
		} else {
			rawfrag_out__printf(o, "redirect-#%u %s to net %s", t[1], a, g);
		}
		return true;
	case 11:
		if (t[1] < 2)
			rawfrag_out__puts(o, t[1] ? "ip reassembly time exceeded" :
						    "time exceeded in-transit");
		else
			rawfrag_out__printf(o, "time exceeded-#%u", t[1]);
		return true;
	case 12:
		if (t[1])
			rawfrag_out__printf(o, "parameter problem - code %u", t[1]);
		else
			rawfrag_out__printf(o, "parameter problem - octet %u", t[4]);
		return true;
	case 13:
		if (!pkt_have(k, k->l4off, 8))
			return false;
		rawfrag_out__printf(o, "time stamp query id %u seq %u", pkt_be16(t + 4),
				    pkt_be16(t + 6));
		return true;
	case 18:
		if (!pkt_have(k, k->l4off, 12))
			return false;
		rawfrag_out__printf(o, "address mask is 0x%08x", pkt_be32(t + 8));
		return true;
	}
	if (t[0] < sizeof(icmp_names) / sizeof(icmp_names[0]) && icmp_names[t[0]])
		rawfrag_out__puts(o, icmp_names[t[0]]);
	else
		rawfrag_out__printf(o, "type-#%u", t[0]);
	return true;
}

void pkt_icmp_text(const struct pkt *k, struct rawfrag_out *o)
{
	const uint8_t *t = k->p + k->l4off;

	rawfrag_out__puts(o, "ICMP ");
	if (!pkt_have(k, k->l4off, 4) || !icmp_body(k, o, t)) {
		rawfrag_out__puts(o, "[|icmp]");
		return;
	}
	rawfrag_out__printf(o, ", length %u", k->l4len);
}

/* ---- ICMPv6 ---- */

static const char *icmp6_name(uint8_t type)
{
	switch (type) {
	case 1: return "destination unreachable";
	case 2: return "packet too big";
	case 3: return "time exceeded in-transit";
	case 4: return "parameter problem";
	case 128: return "echo request";
	case 129: return "echo reply";
	case 130: return "multicast listener query";
	case 131: return "multicast listener report";
	case 132: return "multicast listener done";
	case 133: return "router solicitation";
	case 134: return "router advertisement";
	case 135: return "neighbor solicitation";
	case 136: return "neighbor advertisement";
	case 137: return "redirect";
	case 143: return "multicast listener report v2";
	default: return NULL;
	}
}

/* the address at off of the ICMPv6 message, or false when cut */
static bool icmp6_addr(const struct pkt *k, uint32_t off, char *buf)
{
	if (!pkt_have(k, k->l4off + off, 16))
		return false;
	inet_ntop(AF_INET6, k->p + k->l4off + off, buf, INET6_ADDRSTRLEN);
	return true;
}

/* destination unreachable: the code, then what the quoted datagram (l4off + 8) was sent to */
static bool icmp6_unreach(const struct pkt *k, struct rawfrag_out *o, const uint8_t *t)
{
	static const char *const codes[] = { "unreachable route", "unreachable prohibited",
					     "beyond scope", "unreachable address",
					     "unreachable port" };
	const uint8_t *q = t + 8;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (t[1] >= sizeof(codes) / sizeof(codes[0])) {
		rawfrag_out__printf(o, ", unknown unreach code (%u)", t[1]);
		return true;
	}
	rawfrag_out__printf(o, ", %s", codes[t[1]]);
	if (!icmp6_addr(k, 8 + 24, a))
		return false;
	if (t[1] == 2) {
		if (!icmp6_addr(k, 8 + 8, b))
			return false;
		rawfrag_out__printf(o, " %s, source address %s", a, b);
	} else if (t[1] == 4) {
		uint32_t off = 40;
		uint8_t nh = q[6];

		/* the quoted datagram's own extension headers, as tcpdump follows them */
		for (int i = 0; i < 8 && (nh == 0 || nh == 43 || nh == 44 || nh == 60); i++) {
			if (!pkt_have(k, k->l4off + 8 + off, 8))
				return false;
			uint8_t cur = nh;

			nh = q[off];
			off += cur == 44 ? 8 : (q[off + 1] + 1) * 8;
		}
		if (!pkt_have(k, k->l4off + 8 + off, 4))
			return false;
		if (nh == 6 || nh == 17)
			rawfrag_out__printf(o, ", %s %s port %u", a, nh == 6 ? "tcp" : "udp",
					    pkt_be16(q + off + 2));
		else
			rawfrag_out__printf(o, ", %s protocol %u port %u unreachable", a, nh,
					    pkt_be16(q + off + 2));
	} else {
		rawfrag_out__printf(o, " %s", a);
	}
	return true;
}

static bool icmp6_body(const struct pkt *k, struct rawfrag_out *o, const uint8_t *t)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	switch (t[0]) {
	case 1:
		return icmp6_unreach(k, o, t);
	case 2:
		if (!pkt_have(k, k->l4off, 8))
			return false;
		rawfrag_out__printf(o, ", mtu %u", pkt_be32(t + 4));
		return true;
	case 3:
		if (t[1] == 1) {
			rawfrag_out__puts(o, " (reassembly)");
			return true;
		}
		if (t[1]) {
			rawfrag_out__printf(o, ", unknown code (%u)", t[1]);
			return true;
		}
		if (!icmp6_addr(k, 8 + 24, a))
			return false;
		rawfrag_out__printf(o, " for %s", a);
		return true;
	case 128:
	case 129:
		if (!pkt_have(k, k->l4off, 8))
			return false;
		rawfrag_out__printf(o, ", id %u, seq %u", pkt_be16(t + 4), pkt_be16(t + 6));
		return true;
	case 135:
	case 136:
		if (!icmp6_addr(k, 8, a))
			return false;
		rawfrag_out__printf(o, t[0] == 135 ? ", who has %s" : ", tgt is %s", a);
		return true;
	case 137:
		if (!icmp6_addr(k, 8, a) || !icmp6_addr(k, 24, b))
			return false;
		rawfrag_out__printf(o, ", %s to %s", b, a);
		return true;
	case 143:
		if (!pkt_have(k, k->l4off, 8))
			return false;
		rawfrag_out__printf(o, ", %u group record(s)", pkt_be16(t + 6));
		return true;
	}
	return true;
}

void pkt_icmp6_text(const struct pkt *k, struct rawfrag_out *o)
{
	const uint8_t *t = k->p + k->l4off;
	const char *name;

	rawfrag_out__puts(o, "ICMP6, ");
	if (!pkt_have(k, k->l4off, 4)) {
		rawfrag_out__puts(o, "[|icmp6]");
		return;
	}
	name = icmp6_name(t[0]);
	if (name)
		rawfrag_out__puts(o, name);
	else
		rawfrag_out__printf(o, "unknown icmp6 type (%u)", t[0]);
	if (!icmp6_body(k, o, t)) {
		rawfrag_out__puts(o, " [|icmp6]");
		return;
	}
	rawfrag_out__printf(o, ", length %u", k->l4len);
}
