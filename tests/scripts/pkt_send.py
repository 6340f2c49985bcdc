#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send known packets for the skb dump tests and say what was sent (JSON on stdout).

Every payload comes from gen(key, n), so pkt_check.py can rebuild it:
  udp   one datagram per size (sizes are distinct: the size identifies it)
  tcp   one stream (send() chunks and a sendfile() part: linear and paged skbs)
  icmp  echo requests with id ICMP_ID (the kernel's replies carry the same data)
  udp6  IPv6 datagrams to ::1, every other one with a hop-by-hop options header

  pkt_send.py --dst 127.0.0.1 --udp-sizes 1,100,9000 --tcp-bytes 200000 --icmp 3
  pkt_send.py --dst 10.77.0.2 --udp-sizes ... --echo    (a UDP echo server is there)
  pkt_send.py --echo-server --bind 10.77.0.2 --port 7001  (serve echoes until killed)
"""
import argparse
import functools
import json
import os
import socket
import struct
import sys
import tempfile
import threading
import time

ICMP_ID = 0x5246
UDP_PORT = 7001
TCP_PORT = 7002
UDP6_PORT = 7003
IPV6_HOPOPTS = 54


@functools.lru_cache(maxsize=64)
def gen(key, n):
    """n bytes determined by key (the test's oracle for every payload)."""
    b = bytearray(n)
    x = (key * 2654435761 + 12345) & 0xFFFFFFFF
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        b[i] = (x >> 16) & 0xFF
    return bytes(b)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def send_udp(dst, sizes, echo, pace):
    rx = None
    if not echo:
        # a bound receiver: no ICMP port unreachable in the capture
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
        rx.bind((dst, UDP_PORT))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    for i, n in enumerate(sizes):
        s.sendto(gen(n, n), (dst, UDP_PORT))
        if echo:
            try:
                s.recvfrom(65536)
            except socket.timeout:
                pass
        if pace and i % pace == pace - 1:
            time.sleep(0.002)
    s.close()
    if rx:
        rx.close()


def send_udp6(sizes):
    """to ::1; every other datagram carries a hop-by-hop options header"""
    rx = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
    rx.bind(("::1", UDP6_PORT))
    plain = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    hbh = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    hbh.setsockopt(socket.IPPROTO_IPV6, IPV6_HOPOPTS, b"\x00\x00\x01\x04\x00\x00\x00\x00")
    for i, n in enumerate(sizes):
        (hbh if i % 2 else plain).sendto(gen(n + 100000, n), ("::1", UDP6_PORT))
    for x in (rx, plain, hbh):
        x.close()


def send_raw_vlan(iface, vlan, sizes):
    """802.1Q-tagged Ethernet/IPv4/UDP frames written on iface with a packet socket
    (for kernels without VLAN devices): 10.78.0.1 -> 10.78.0.2:UDP_PORT, broadcast"""
    with open("/sys/class/net/%s/address" % iface) as f:
        mac = bytes.fromhex(f.read().strip().replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for n in sizes:
        data = gen(n, n)
        udp = struct.pack("!HHHH", 40000, UDP_PORT, 8 + n, 0) + data
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                         socket.inet_aton("10.78.0.1"), socket.inet_aton("10.78.0.2"))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        s.send(b"\xff" * 6 + mac + struct.pack("!HHH", 0x8100, vlan, 0x0800) + ip + udp)
    s.close()


def send_tcp(dst, total):
    stream = gen(999, total)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((dst, TCP_PORT))
    srv.listen(1)
    got = []

    def serve():
        c, _ = srv.accept()
        while True:
            d = c.recv(1 << 20)
            if not d:
                break
            got.append(len(d))
        c.close()

    t = threading.Thread(target=serve)
    t.start()
    c = socket.create_connection((dst, TCP_PORT))
    half = total // 2
    off = 0
    for n in (1, 100, 1000, 5000, 9000, 65000):  # send() chunks, then the rest
        n = min(n, half - off)
        c.sendall(stream[off:off + n])
        off += n
    c.sendall(stream[off:half])
    with tempfile.TemporaryFile() as f:  # page-cache pages: non-linear skbs
        f.write(stream[half:])
        f.flush()
        sent = 0
        while sent < total - half:
            sent += os.sendfile(c.fileno(), f.fileno(), sent, total - half - sent)
    c.shutdown(socket.SHUT_WR)
    t.join(10)
    c.close()
    srv.close()
    return sum(got)


def send_icmp(dst, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sizes = []
    for seq in range(count):
        n = 8 + seq * 300
        data = gen(1000 + seq, n)
        hdr = struct.pack("!BBHHH", 8, 0, 0, ICMP_ID, seq)
        pkt = hdr[:2] + struct.pack("!H", csum(hdr + data)) + hdr[4:] + data
        s.sendto(pkt, (dst, 0))
        sizes.append(n)
        time.sleep(0.01)
    s.close()
    return sizes


def echo_server(bind, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((bind, port))
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        d, a = s.recvfrom(65536)
        s.sendto(d, a)


def main():
    global UDP_PORT, TCP_PORT, UDP6_PORT, ICMP_ID
    ap = argparse.ArgumentParser()
    ap.add_argument("--dst", default="127.0.0.1")
    ap.add_argument("--udp-sizes", default="")
    ap.add_argument("--udp-repeat", type=int, default=1, help="send the size list N times")
    ap.add_argument("--pace", type=int, default=0, help="sleep 2 ms every N datagrams")
    ap.add_argument("--udp6-sizes", default="", help="UDP over ::1, half with a hop-by-hop header")
    ap.add_argument("--tcp-bytes", type=int, default=0)
    ap.add_argument("--icmp", type=int, default=0)
    ap.add_argument("--echo", action="store_true")
    ap.add_argument("--raw-vlan", metavar="IFACE:VLAN",
                    help="send the UDP sizes as VLAN-tagged frames on IFACE (packet socket)")
    ap.add_argument("--echo-server", action="store_true")
    ap.add_argument("--bind", default="0.0.0.0")
    ap.add_argument("--port", type=int, default=7001)
    ap.add_argument("--port-base", type=int, default=7001,
                    help="UDP port; TCP is +1, UDP/IPv6 +2 (tests running at once differ)")
    a = ap.parse_args()
    UDP_PORT, TCP_PORT, UDP6_PORT = a.port_base, a.port_base + 1, a.port_base + 2
    if a.port_base != 7001:
        ICMP_ID = a.port_base & 0xFFFF
    if a.echo_server:
        echo_server(a.bind, a.port)
        return
    sizes = [int(x) for x in a.udp_sizes.split(",") if x]
    out = {"udp_port": UDP_PORT, "tcp_port": TCP_PORT, "icmp_id": ICMP_ID,
           "udp_sizes": sizes, "udp_repeat": a.udp_repeat}
    t0 = time.monotonic()
    if sizes and a.raw_vlan:
        iface, vlan = a.raw_vlan.split(":")
        send_raw_vlan(iface, int(vlan), sizes * a.udp_repeat)
    elif sizes:
        send_udp(a.dst, sizes * a.udp_repeat, a.echo, a.pace)
    sizes6 = [int(x) for x in a.udp6_sizes.split(",") if x]
    if sizes6:
        out["udp6_port"] = UDP6_PORT
        out["udp6_sizes"] = sizes6
        send_udp6(sizes6)
    if a.tcp_bytes:
        out["tcp_bytes"] = a.tcp_bytes
        out["tcp_received"] = send_tcp(a.dst, a.tcp_bytes)
    if a.icmp:
        out["icmp_sizes"] = send_icmp(a.dst, a.icmp)
    out["seconds"] = time.monotonic() - t0
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
