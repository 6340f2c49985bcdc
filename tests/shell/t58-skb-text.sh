#!/usr/bin/env bash
# report's text for packets: after the link part (as tcpdump -e prints it), every
# packet's protocol part equals `tcpdump -n -r` of our own pcapng for the same
# packet. Traffic: the fixed frame mix of tests/scripts/pkt_mix.py on lo of a
# namespace (UDP, TCP with options, SACK, urgent data, ICMP echo and errors,
# IPv4 options and fragments, IPv6 with hop-by-hop, destination options and
# fragment headers, ICMPv6 errors and neighbour discovery, ARP, 802.1Q), and real
# traffic on a veth pair between two namespaces (ARP, ping, IPv6 neighbour
# discovery and ping, a TCP connection with data, UDP to a closed port and its
# ICMP error, IPv6 UDP with a hop-by-hop header and its ICMPv6 error) plus the
# frame mix sent across it (802.1Q-tagged frames arrive with the tag offloaded).
source "$(dirname "$0")/lib.sh"
MIX=$TOP/tests/scripts/pkt_mix.py
t_plan 7

if ! is_root; then t_skip_rest "skb text: needs root"; fi
if ! command -v tcpdump >/dev/null || ! command -v ip >/dev/null; then
	t_skip_rest "skb text: needs tcpdump and iproute2"
fi
N1=rftxt-a-$$ N2=rftxt-b-$$
cleanup() {
	ip netns del "$N1" 2>/dev/null
	ip netns del "$N2" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$N1" || ! ip netns add "$N2"; then t_skip_rest "skb text: cannot create namespaces"; fi
ip -n "$N1" link set lo up

# proto NAME: our text's protocol part, one line per packet (the link part cut:
# "IF HOOK DIR", an offloaded tag, MACs/ethertype/length, in-band VLAN tags)
proto() {
	"$RAWFRAG" report -i "$1.data" 2>/dev/null | sed -E 's/^.* skbdump:[^ ]* [^ ]+ [^ ]+ [^ ]+ //;
		s/^vlan [0-9]+ \(offloaded\), p [0-9]+, //;
		s/^[0-9a-f:]{17} > [0-9a-f:]{17}, ethertype [^,]+, length [0-9]+: //;
		:v; s/^vlan [0-9]+, p [0-9]+, ethertype [^,]+, //; tv'
}
# compare NAME: ours against tcpdump -n of our pcapng, packet by packet
compare() {
	local name=$1 what=$2
	"$RAWFRAG" report -i "$name.data" --format pcapng -o "$name.pcapng" 2>"$name.rep"
	tcpdump -n -r "$name.pcapng" 2>/dev/null | cut -d' ' -f2- >"$name.td"
	proto "$name" >"$name.ours"
	if [ -s "$name.td" ] && cmp -s "$name.td" "$name.ours"; then
		t_ok "$what: all $(wc -l <"$name.td") packets as tcpdump -n prints them"
	else
		t_fail "$what: packets as tcpdump -n prints them" \
			"tcpdump $(wc -l <"$name.td") lines, ours $(wc -l <"$name.ours")" \
			"$(diff "$name.td" "$name.ours" | head -6 | cut -c1-200)"
	fi
}

ip netns exec "$N1" "$RAWFRAG" record --skb lo -a -e dummy -q -o mix.data -- \
	python3 "$MIX" --dev lo 2>mix.rec
t_eq "lo: record the frame mix" 0 "$?"
compare mix "lo, frame mix"

# veth pair with a VLAN on top; recorded on the far side (both directions)
ip link add rft0 netns "$N1" type veth peer name rft1 netns "$N2"
ip -n "$N1" addr add 10.78.0.1/24 dev rft0
ip -n "$N2" addr add 10.78.0.2/24 dev rft1
ip -n "$N1" addr add 2001:db8:78::1/64 dev rft0 nodad
ip -n "$N2" addr add 2001:db8:78::2/64 dev rft1 nodad
ip -n "$N1" link set rft0 up
ip -n "$N2" link set rft1 up
cat >traffic.py <<'PY'
import socket, subprocess, time
def run(*a):
    subprocess.run(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
run("ping", "-c", "2", "-i", "0.2", "10.78.0.2")
run("ping", "-6", "-c", "2", "-i", "0.2", "2001:db8:78::2")
c = socket.create_connection(("10.78.0.2", 7780))
c.sendall(b"x" * 300)
c.recv(100)
c.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"hello", ("10.78.0.2", 7781))
time.sleep(0.2)
u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u6.setsockopt(socket.IPPROTO_IPV6, 54, bytes([0, 0, 1, 4, 0, 0, 0, 0]))  # IPV6_HOPOPTS: PadN
u6.sendto(b"hbh", ("2001:db8:78::2", 7782))
time.sleep(0.3)
PY
cat >server.py <<'PY'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.78.0.2", 7780)); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); n = 0
while n < 300:
    d = c.recv(4096)
    if not d: break
    n += len(d)
c.sendall(b"ok"); c.close()
PY
ip netns exec "$N2" python3 server.py >server.out 2>&1 &
SP=$!
for _ in $(seq 50); do grep -q ready server.out && break; sleep 0.1; done
ip netns exec "$N2" "$RAWFRAG" record --skb rft1 -a -e dummy -q -o veth.data 2>veth.rec &
RP=$!
wait_progs 1
sleep 0.3
ip netns exec "$N1" python3 traffic.py
ip netns exec "$N1" python3 "$MIX" --dev rft0
sleep 0.3
kill -INT $RP
wait $RP
t_eq "veth: record real traffic (exit 0)" 0 "$?"
kill $SP 2>/dev/null
wait $SP 2>/dev/null
compare veth "veth, real traffic"
missing=
for kind in "ARP, Request" "ARP, Reply" "ICMP echo request" "ICMP echo reply" \
	"udp port 7781 unreachable" "Flags \[S\], seq [0-9]+, win [0-9]+, options \[mss" \
	"Flags \[P\.\], seq 1:301, ack 1" "ICMP6, neighbor solicitation" "ICMP6, echo request" \
	"HBH 7782|HBH [0-9]+ > 7782"; do
	grep -qE -- "$kind" veth.td || missing="$missing [$kind]"
done
t_eq "veth: the traffic mix is there" "" "$missing"
tcpdump -n -e -r veth.pcapng >veth.tde 2>/dev/null
t_grep "veth: 802.1Q-tagged frames among them (tcpdump -e)" "vlan 100, p 0" veth.tde
wait_no_progs
t_eq "no dump program left loaded" 0 "$(skb_progs)"
