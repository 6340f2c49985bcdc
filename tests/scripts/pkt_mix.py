#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send a fixed mix of Ethernet frames through an AF_PACKET socket.

The frames are the same on every run (addresses, ports, payloads, checksums), so
captures of separate runs can be compared by content: IPv4 UDP/TCP (with options,
data, fragments)/ICMP (echo, errors quoting a datagram), IPv6 with and without
extension headers, ICMPv6 (echo, neighbour discovery), ARP, 802.1Q-tagged frames,
several MAC addresses and lengths. Every source MAC starts with 02:52:46.

  pkt_mix.py --dev lo [--repeat N] [--gap SECONDS]
"""
import argparse
import socket
import struct
import time

MAC_A = bytes.fromhex("025246000001")
MAC_B = bytes.fromhex("025246000002")
MAC_C = bytes.fromhex("025246000003")
BCAST = b"\xff" * 6
V4 = {"a": "10.1.2.3", "b": "10.1.9.9", "c": "192.168.7.1", "d": "172.16.0.5"}
V6 = {"a": "2001:db8::1", "b": "2001:db8::2", "ll": "fe80::52:46ff:fe00:1"}


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def pay(n, seed):
    return bytes((seed * 31 + i * 7) & 0xFF for i in range(n))


def eth(dst, src, etype, body, vlan=None):
    if vlan is not None:
        return dst + src + struct.pack("!HHH", 0x8100, vlan, etype) + body
    return dst + src + struct.pack("!H", etype) + body


def ip4(src, dst, proto, body, ident=1, frag=0, ttl=64, opts=b"", tos=0):
    ihl = 5 + len(opts) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + len(body), ident, frag, ttl,
                    proto, 0, socket.inet_aton(V4[src]), socket.inet_aton(V4[dst])) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + body


def l4sum(src, dst, proto, seg, v6=False):
    if v6:
        ph = (socket.inet_pton(socket.AF_INET6, V6[src]) + socket.inet_pton(socket.AF_INET6, V6[dst])
              + struct.pack("!IxxxB", len(seg), proto))
    else:
        ph = socket.inet_aton(V4[src]) + socket.inet_aton(V4[dst]) + struct.pack("!xBH", proto, len(seg))
    return csum(ph + seg)


def udp(src, dst, sp, dp, data, v6=False):
    seg = struct.pack("!HHHH", sp, dp, 8 + len(data), 0) + data
    return seg[:6] + struct.pack("!H", l4sum(src, dst, 17, seg, v6) or 0xFFFF) + seg[8:]


def tcp(src, dst, sp, dp, seq, ack, flags, opts=b"", data=b"", win=65495, v6=False):
    off = (20 + len(opts)) // 4
    seg = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, off << 4, flags, win, 0, 0) + opts + data
    return seg[:16] + struct.pack("!H", l4sum(src, dst, 6, seg, v6)) + seg[18:]


def icmp(typ, code, rest, data):
    m = struct.pack("!BBH", typ, code, 0) + rest + data
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


def ip6(src, dst, nh, body, hlim=64):
    return (struct.pack("!IHBB", 0x60000000, len(body), nh, hlim)
            + socket.inet_pton(socket.AF_INET6, V6[src]) + socket.inet_pton(socket.AF_INET6, V6[dst]) + body)


def icmp6(src, dst, typ, code, body):
    m = struct.pack("!BBH", typ, code, 0) + body
    return m[:2] + struct.pack("!H", l4sum(src, dst, 58, m, True)) + m[4:]


def arp(op, smac, sip, tmac, tip):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, smac, socket.inet_aton(V4[sip]),
                       tmac, socket.inet_aton(V4[tip]))


SYN_OPTS = bytes.fromhex("020405b4") + b"\x04\x02" + bytes.fromhex("080a") + \
    struct.pack("!II", 1000, 0) + b"\x01" + bytes.fromhex("030307")
TS_OPTS = b"\x01\x01\x08\x0a" + struct.pack("!II", 1001, 2001)


def frames():
    f = []
    # UDP over IPv4: ports, sizes, addresses
    for i, (s, d, sp, dp, n) in enumerate([("a", "b", 40000, 9053, 30), ("b", "a", 9053, 40000, 90),
                                           ("a", "c", 1234, 7601, 10), ("c", "d", 5000, 1500, 1200),
                                           ("d", "a", 1999, 2000, 64), ("a", "b", 6000, 80, 0)]):
        f.append(eth(MAC_B, MAC_A, 0x0800, ip4(s, d, 17, udp(s, d, sp, dp, pay(n, i)), ident=100 + i)))
    # a TCP handshake with options, data, FIN
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "b", 6, tcp("a", "b", 45000, 5001, 1, 0, 0x02, SYN_OPTS))))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 6, tcp("b", "a", 5001, 45000, 500, 2, 0x12, SYN_OPTS))))
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "b", 6, tcp("a", "b", 45000, 5001, 2, 501, 0x10, TS_OPTS))))
    f.append(eth(MAC_B, MAC_A, 0x0800,
                 ip4("a", "b", 6, tcp("a", "b", 45000, 5001, 2, 501, 0x18, TS_OPTS, pay(200, 7)))))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 6, tcp("b", "a", 5001, 45000, 501, 202, 0x11, TS_OPTS))))
    f.append(eth(MAC_B, MAC_C, 0x0800, ip4("c", "b", 6, tcp("c", "b", 22, 50022, 7, 9, 0x04))))
    # ICMP echo and an error quoting a UDP datagram
    for i, t in enumerate((8, 0)):
        f.append(eth(MAC_B, MAC_A, 0x0800,
                     ip4("a" if t == 8 else "b", "b" if t == 8 else "a", 1,
                         icmp(t, 0, struct.pack("!HH", 0x5246, 1), pay(56, 3)))))
    quoted = ip4("a", "b", 17, udp("a", "b", 40001, 33434, pay(12, 9)), ident=77)
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 1, icmp(3, 3, b"\0\0\0\0", quoted), ident=78)))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 1, icmp(11, 0, b"\0\0\0\0", quoted), ident=79)))
    # an IPv4 header with options (router alert) and a later fragment
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "d", 17, udp("a", "d", 7, 7, pay(20, 4)), ident=5,
                                            opts=b"\x94\x04\x00\x00")))
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "b", 17, pay(40, 5), ident=6, frag=185)))
    # IPv6: UDP, TCP, a hop-by-hop header, ICMPv6 echo and neighbour discovery
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 17, udp("a", "b", 41000, 7603, pay(33, 6), True))))
    f.append(eth(MAC_B, MAC_A, 0x86DD,
                 ip6("a", "b", 6, tcp("a", "b", 46000, 443, 9, 0, 0x02, SYN_OPTS, v6=True))))
    hbh = struct.pack("!BB", 17, 0) + b"\x05\x02\x00\x00\x01\x00"
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 0, hbh + udp("a", "b", 41001, 7603, pay(9, 1), True))))
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 58, icmp6("a", "b", 128, 0,
                                                                   struct.pack("!HH", 7, 1) + pay(32, 2)))))
    ns = struct.pack("!I", 0) + socket.inet_pton(socket.AF_INET6, V6["b"]) + b"\x01\x01" + MAC_A
    f.append(eth(bytes.fromhex("3333ff000002"), MAC_A, 0x86DD,
                 ip6("ll", "b", 58, icmp6("ll", "b", 135, 0, ns), hlim=255)))
    # ICMP: need-frag with an MTU, host unreachable, redirect, a TCP port unreachable
    qt = ip4("a", "b", 6, tcp("a", "b", 45001, 5002, 1, 0, 0x02), ident=80)
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 1, icmp(3, 4, struct.pack("!HH", 0, 1400), quoted))))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 1, icmp(3, 1, b"\0\0\0\0", quoted))))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 1, icmp(3, 3, b"\0\0\0\0", qt[:28]))))
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("d", "a", 1, icmp(5, 1, socket.inet_aton(V4["c"]), quoted))))
    # TCP with a SACK block after the handshake above, and urgent data
    sack = b"\x01\x01\x05\x0a" + struct.pack("!II", 301, 401)
    f.append(eth(MAC_A, MAC_B, 0x0800, ip4("b", "a", 6, tcp("b", "a", 5001, 45000, 502, 202, 0x10, sack))))
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "b", 6, tcp("a", "b", 45000, 5001, 202, 502, 0x38, b"",
                                                            pay(10, 3)))))
    # ICMPv6 errors quoting a datagram, neighbour advertisement, router solicitation
    q6 = ip6("b", "a", 17, udp("b", "a", 41002, 33434, pay(8, 2), True))
    f.append(eth(MAC_A, MAC_B, 0x86DD, ip6("a", "b", 58, icmp6("a", "b", 1, 4, b"\0" * 4 + q6))))
    f.append(eth(MAC_A, MAC_B, 0x86DD, ip6("a", "b", 58, icmp6("a", "b", 2, 0, struct.pack("!I", 1280) + q6))))
    f.append(eth(MAC_A, MAC_B, 0x86DD, ip6("a", "b", 58, icmp6("a", "b", 3, 0, b"\0" * 4 + q6))))
    na = struct.pack("!I", 0x60000000) + socket.inet_pton(socket.AF_INET6, V6["b"]) + b"\x02\x01" + MAC_B
    f.append(eth(MAC_A, MAC_B, 0x86DD, ip6("b", "a", 58, icmp6("b", "a", 136, 0, na), hlim=255)))
    f.append(eth(bytes.fromhex("333300000002"), MAC_A, 0x86DD,
                 ip6("ll", "b", 58, icmp6("ll", "b", 133, 0, b"\0" * 4), hlim=255)))
    # IPv6: destination options before TCP, a first and a later fragment
    dst = struct.pack("!BB", 6, 0) + b"\x01\x04\x00\x00\x00\x00"
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 60, dst + tcp("a", "b", 46001, 5003, 77, 88, 0x18,
                                                                      TS_OPTS, pay(5, 5), v6=True))))
    fr1 = struct.pack("!BBHI", 17, 0, 0x0001, 0x52460001)
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 44, fr1 + udp("a", "b", 41003, 7603, pay(40, 6), True)[:32])))
    fr2 = struct.pack("!BBHI", 17, 0, 32, 0x52460001)
    f.append(eth(MAC_B, MAC_A, 0x86DD, ip6("a", "b", 44, fr2 + pay(16, 7))))
    # ARP request and reply
    f.append(eth(BCAST, MAC_A, 0x0806, arp(1, MAC_A, "a", b"\0" * 6, "b")))
    f.append(eth(MAC_A, MAC_B, 0x0806, arp(2, MAC_B, "b", MAC_A, "a")))
    # 802.1Q-tagged: UDP on VLAN 100, ARP on VLAN 200
    f.append(eth(MAC_B, MAC_A, 0x0800, ip4("a", "b", 17, udp("a", "b", 3000, 3001, pay(16, 8))), vlan=100))
    f.append(eth(BCAST, MAC_C, 0x0806, arp(1, MAC_C, "c", b"\0" * 6, "d"), vlan=200))
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--gap", type=float, default=0.002)
    a = ap.parse_args()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.dev, 0))
    for _ in range(a.repeat):
        for fr in frames():
            s.send(fr)
            time.sleep(a.gap)
    # let the last frames through the receive path before the recorder stops
    time.sleep(0.3)


if __name__ == "__main__":
    main()
