#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare captured dumps (pkt-extract lines) with what pkt_send.py sent.

  pkt_check.py EXTRACT SENT.json SNAPLEN [--udp HOOK:to|from]... [--tcp HOOK]... [--icmp HOOK]...
               [--pcap FILE.pcap]

Every dump: caplen == min(orig_len, snaplen) == bytes present, raw_size ==
round_up(4 + 40 + caplen, 8) - 4, orig_len == 14 + IP total length. Every dump of
our traffic: payload bytes == gen(...) up to the snaplen. Expectations:
  --udp 1:to     every sent datagram (size x repeat) seen exactly once on hook 1
                 going to the UDP port (from: coming from it, i.e. echo replies)
  --udp6 1       every IPv6 datagram seen once on hook 1 (odd ones with a hop-by-hop header)
  --tcp 1        the client's stream bytes seen on hook 1 add up to what was sent
  --icmp 1[:req|:rep]  each echo request and/or reply seen once on hook 1
  --vlan 10      every datagram of ours carries VLAN 10 (in the bytes or offloaded)
  --pcap F       F (classic pcap, e.g. tshark -F pcap -w) holds the same packets
                 byte for byte, with the same original lengths, in any order
Prints "ok ..." lines or "FAIL ..." lines; exit 1 on any failure.
"""
import collections
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkt_send import gen  # noqa: E402

HOOKS = {1: "socket", 2: "tc-ingress", 3: "tc-egress", 4: "xdp", 5: "xdp-entry", 6: "xdp-exit"}


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        out.append((orig, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


def check_ip6(pkt, orig, hook, where, sent, errors, udp6):
    ip = pkt[14:]
    plen = struct.unpack("!H", ip[4:6])[0]
    if orig != 14 + 40 + plen:
        errors.append("%s: orig_len %d != 54 + IPv6 payload length %d" % (where, orig, plen))
    nh, off, ext = ip[6], 40, 0
    while nh in (0, 43, 60) and off + 8 <= len(ip):
        nh, off, ext = ip[off], off + (ip[off + 1] + 1) * 8, ext + 1
    l4 = ip[off:]
    if nh != 17 or len(l4) < 8:
        return
    sp, dp, ulen = struct.unpack("!HHH", l4[:6])
    if dp != sent.get("udp6_port"):
        return
    n = ulen - 8
    got = l4[8:8 + min(len(l4) - 8, n)]
    if got != gen(n + 100000, n)[:len(got)]:
        errors.append("%s: UDP/IPv6 payload of %d bytes differs from what was sent" % (where, n))
    udp6[(hook, n, ext)] += 1


def main():
    args = sys.argv[1:]
    extract, sent_path, snaplen = args[0], args[1], int(args[2])
    exp = collections.defaultdict(list)
    i = 3
    while i < len(args):
        exp[args[i].lstrip("-")].append(args[i + 1])
        i += 2
    sent = json.load(open(sent_path))
    errors = []
    isn = {}
    udp = collections.Counter()  # (hook, to|from, size)
    tcp_bytes = collections.Counter()
    icmp = collections.Counter()  # (hook, type, seq)
    udp6 = collections.Counter()  # (hook, size, nr of extension headers)
    stream = gen(999, sent.get("tcp_bytes", 0))
    dumps = []
    lines = open(extract).read().splitlines()
    # the file holds each CPU's ring in turn, not in time order: find the SYNs first
    for line in lines:
        f = line.split()
        pkt = bytes.fromhex(f[8]) if len(f) > 8 else b""
        if len(pkt) >= 54 and pkt[12:14] == b"\x08\x00" and pkt[23] == 6:
            l4 = pkt[14 + (pkt[14] & 15) * 4:]
            if len(l4) >= 14 and l4[13] & 0x12 == 0x02 and \
                    struct.unpack("!H", l4[2:4])[0] == sent.get("tcp_port"):
                isn[int(f[0])] = struct.unpack("!I", l4[4:8])[0]
    for ln, line in enumerate(lines, 1):
        f = line.split()
        hook, _, _, orig, cap, raw_size = (int(x) for x in f[:6])
        pkt = bytes.fromhex(f[8]) if len(f) > 8 else b""
        off_vlan = int(f[9]) if len(f) > 9 and f[9] != "-" else None
        where = "line %d (%s)" % (ln, HOOKS.get(hook, hook))
        if off_vlan is not None and len(pkt) >= 12:
            # pcapng puts an offloaded tag back and, as libpcap, cuts to the snaplen again
            tagged = pkt[:12] + struct.pack("!HH", 0x8100, off_vlan) + pkt[12:]
            dumps.append((orig + 4, tagged[:snaplen]))
        else:
            dumps.append((orig, pkt))
        if cap != min(orig, snaplen) or len(pkt) != cap:
            errors.append("%s: caplen %d, orig %d, bytes %d, snaplen %d" % (where, cap, orig, len(pkt), snaplen))
        if raw_size != ((4 + 40 + cap + 7) & ~7) - 4:
            errors.append("%s: raw_size %d for caplen %d" % (where, raw_size, cap))
        vlan = off_vlan
        if len(pkt) >= 18 and pkt[12:14] == b"\x81\x00":
            # an inline tag: check the frame behind it, the tag counts in orig_len
            vlan = struct.unpack("!H", pkt[14:16])[0]
            pkt, orig = pkt[:12] + pkt[16:], orig - 4
        if len(pkt) >= 54 and pkt[12:14] == b"\x86\xdd":
            check_ip6(pkt, orig, hook, where, sent, errors, udp6)
            continue
        if len(pkt) < 34 or pkt[12:14] != b"\x08\x00":
            continue
        ip = pkt[14:]
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack("!H", ip[2:4])[0]
        if orig != 14 + tot:
            errors.append("%s: orig_len %d != 14 + IP length %d" % (where, orig, tot))
        proto, l4 = ip[9], ip[ihl:]
        avail = lambda hl: min(len(l4) - hl, tot - ihl - hl)  # noqa: E731
        if proto == 17 and len(l4) >= 8:
            sp, dp, ulen = struct.unpack("!HHH", l4[:6])
            if sent["udp_port"] not in (sp, dp):
                continue
            n = ulen - 8
            got = l4[8:8 + avail(8)]
            if got != gen(n, n)[:len(got)]:
                errors.append("%s: UDP payload of %d bytes differs from what was sent" % (where, n))
            udp[(hook, "to" if dp == sent["udp_port"] else "from", n)] += 1
            for v in exp["vlan"]:
                if vlan is None or vlan & 0xFFF != int(v):
                    errors.append("%s: UDP datagram without VLAN %s (%s)" % (where, v, vlan))
        elif proto == 6 and len(l4) >= 20:
            sp, dp, seq = struct.unpack("!HHI", l4[:8])
            flags, hl = l4[13], (l4[12] >> 4) * 4
            if dp != sent.get("tcp_port"):
                continue
            if flags & 0x02:
                continue
            if hook not in isn:
                continue
            rel = (seq - isn[hook] - 1) & 0xFFFFFFFF
            plen = tot - ihl - hl
            got = l4[hl:hl + avail(hl)]
            if got != stream[rel:rel + len(got)]:
                errors.append("%s: TCP bytes at stream offset %d differ" % (where, rel))
            tcp_bytes[hook] += plen
        elif proto == 1 and len(l4) >= 8:
            t, _, _, ident, seq = struct.unpack("!BBHHH", l4[:8])
            if ident != sent.get("icmp_id") or t not in (0, 8):
                continue
            n = tot - ihl - 8
            got = l4[8:8 + avail(8)]
            if got != gen(1000 + seq, n)[:len(got)]:
                errors.append("%s: ICMP echo payload seq %d differs" % (where, seq))
            icmp[(hook, t, seq)] += 1

    rep = sent.get("udp_repeat", 1)
    for spec in exp["udp"]:
        h, d = spec.split(":")
        for n in sorted(set(sent["udp_sizes"])):
            want = rep * sent["udp_sizes"].count(n)
            if udp[(int(h), d, n)] != want:
                errors.append("udp %s: size %d seen %d times, sent %d" % (spec, n, udp[(int(h), d, n)], want))
        print("ok udp %s: %d datagrams" % (spec, sum(v for k, v in udp.items() if k[:2] == (int(h), d))))
    for h in exp["udp6"]:
        for i, n in enumerate(sent.get("udp6_sizes", [])):
            if udp6[(int(h), n, i % 2)] != 1:
                errors.append("udp6 hook %s: size %d with %d ext headers seen %d times" % (h, n, i % 2, udp6[(int(h), n, i % 2)]))
        print("ok udp6 %s: %d datagrams" % (h, sum(v for k, v in udp6.items() if k[0] == int(h))))
    for h in exp["tcp"]:
        if tcp_bytes[int(h)] != sent["tcp_bytes"]:
            errors.append("tcp hook %s: %d stream bytes seen, %d sent" % (h, tcp_bytes[int(h)], sent["tcp_bytes"]))
        print("ok tcp %s: %d bytes" % (h, tcp_bytes[int(h)]))
    for spec in exp["icmp"]:
        h, _, which = spec.partition(":")
        types = {"req": (8,), "rep": (0,)}.get(which, (8, 0))
        for seq in range(len(sent.get("icmp_sizes", []))):
            for t in types:
                if icmp[(int(h), t, seq)] != 1:
                    errors.append("icmp hook %s: type %d seq %d seen %d times" % (h, t, seq, icmp[(int(h), t, seq)]))
        print("ok icmp %s" % spec)
    for p in exp["pcap"]:
        pc = read_pcap(p)
        if collections.Counter(pc) != collections.Counter(dumps):
            errors.append("pcap %s: %d packets differ from the %d dumps" % (p, len(pc), len(dumps)))
        else:
            print("ok pcap: %d packets identical" % len(pc))
    for e in errors[:20]:
        print("FAIL", e)
    print("checked %d dumps, %d errors" % (len(dumps), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
