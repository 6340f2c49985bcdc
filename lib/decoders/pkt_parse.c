// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Link-layer frame parsing for the skb/xdp dumps: headers are located, not
 * copied; every offset is checked against the captured length (a dump is cut
 * at the snaplen anywhere, also inside a header).
 */
#include <string.h>

#include "internal/pkt.h"

#define ETH_HLEN 14

static uint16_t ip_csum(const uint8_t *p, uint32_t n)
{
	uint32_t s = 0;

	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += pkt_be16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void parse_ip4(struct pkt *k, uint32_t off)
{
	const uint8_t *h = k->p + off;
	uint32_t hl;

	if (!pkt_have(k, off, 20) || (h[0] >> 4) != 4)
		return;
	hl = (h[0] & 0xf) * 4;
	if (hl < 20)
		return;
	k->ip4 = true;
	k->l3off = off;
	k->l3hlen = hl;
	k->ip_len = pkt_be16(h + 2);
	k->l4proto = h[9];
	k->frag_later = (pkt_be16(h + 6) & 0x1fff) != 0;
	k->ip4_csum_ok = pkt_have(k, off, hl) && ip_csum(h, hl) == 0;
	if (k->ip_len >= hl)
		k->l4len = k->ip_len - hl;
	if (!k->frag_later && pkt_have(k, off + hl, 1))
		k->l4off = off + hl;
}

static bool ip6_is_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135;
}

static void parse_ip6(struct pkt *k, uint32_t off)
{
	const uint8_t *h = k->p + off;
	uint32_t o = off + 40;
	uint8_t nh;

	if (!pkt_have(k, off, 40) || (h[0] >> 4) != 6)
		return;
	k->ip6 = true;
	k->l3off = off;
	k->ip_len = 40 + pkt_be16(h + 4);
	nh = h[6];
	while (ip6_is_ext(nh) && k->nr_ext < PKT_MAX_EXT) {
		uint32_t len;

		if (!pkt_have(k, o, 8))
			goto cut;
		k->ext_off[k->nr_ext] = o;
		k->ext[k->nr_ext++] = nh;
		if (nh == 44) {
			len = 8;
			if (pkt_be16(k->p + o + 2) & 0xfff8)
				k->frag_later = true;
		} else if (nh == 51) {
			len = (k->p[o + 1] + 2) * 4; /* AH counts 4-byte units */
		} else {
			len = (k->p[o + 1] + 1) * 8;
		}
		nh = k->p[o];
		o += len;
	}
	k->l4proto = nh;
	k->l3hlen = o - off;
	if (k->ip_len >= k->l3hlen)
		k->l4len = k->ip_len - k->l3hlen;
	if (!k->frag_later && !ip6_is_ext(nh) && pkt_have(k, o, 1))
		k->l4off = o;
	return;
cut:
	k->l4proto = nh;
	k->l3hlen = o - off;
}

void pkt_parse(struct pkt *k, const uint8_t *p, uint32_t caplen, uint32_t wirelen)
{
	uint32_t off = ETH_HLEN;
	uint16_t et;

	memset(k, 0, sizeof(*k));
	k->p = p;
	k->caplen = caplen;
	k->wirelen = wirelen;
	if (!pkt_have(k, 0, ETH_HLEN))
		return;
	k->eth = true;
	et = pkt_be16(p + 12);
	while ((et == 0x8100 || et == 0x88a8) && k->nr_vlan < PKT_MAX_VLAN && pkt_have(k, off, 4)) {
		k->vlan_tpid[k->nr_vlan] = et;
		k->vlan_tci[k->nr_vlan++] = pkt_be16(p + off);
		et = pkt_be16(p + off + 2);
		off += 4;
	}
	k->ethertype = et;
	if (et == 0x0800) {
		parse_ip4(k, off);
	} else if (et == 0x86dd) {
		parse_ip6(k, off);
	} else if (et == 0x0806 && pkt_have(k, off, 8)) {
		k->arp = true;
		k->l3off = off;
	}
}

bool pkt_looks_like_frame(const uint8_t *p, uint32_t len, uint32_t *frame_len)
{
	struct pkt k;

	pkt_parse(&k, p, len, len);
	if (k.ip4) {
		if (!k.ip4_csum_ok || k.ip_len < k.l3hlen)
			return false;
		*frame_len = k.l3off + k.ip_len;
		return true;
	}
	if (k.ip6) {
		/* no checksum: ask for a known next header and a plausible length */
		uint8_t nh = k.l4proto;

		if (nh != 6 && nh != 17 && nh != 58 && nh != 59 && nh != 132 && !k.nr_ext)
			return false;
		*frame_len = k.l3off + k.ip_len;
		return true;
	}
	return false;
}
