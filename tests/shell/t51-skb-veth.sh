#!/usr/bin/env bash
# record --skb on a veth pair between two network namespaces made here, hooks
# tc-ingress, tc-egress and xdp at once: requests seen once on tc-egress, the
# echo server's replies once on tc-ingress and once on xdp, all bytes equal to
# what was sent; several interfaces in one run (the veth and the namespace's lo);
# nothing attached afterwards, also after SIGKILL of the recorder.
source "$(dirname "$0")/lib.sh"
t_plan 22
SCRIPTS=$TOP/tests/scripts
EXTRACT=$O/tests/pkt-extract
# ports of this run (UDP, TCP +1, UDP/IPv6 +2): test runs at the same time differ
BASE=$((20000 + $$ % 10000 * 4))

if ! is_root; then t_skip_rest "skb on veth: needs root"; fi
if ! command -v ip >/dev/null || ! command -v bpftool >/dev/null; then
	t_skip_rest "skb on veth: needs iproute2 and bpftool"
fi
N1=rfskb-a-$$ N2=rfskb-b-$$
cleanup() {
	[ -n "${EP:-}" ] && kill "$EP" 2>/dev/null
	ip netns del "$N1" 2>/dev/null
	ip netns del "$N2" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$N1" || ! ip netns add "$N2" ||
	! ip link add rfv0 netns "$N1" type veth peer name rfv1 netns "$N2"; then
	t_skip_rest "skb on veth: cannot create namespaces or veth"
fi
ip -n "$N1" addr add 10.77.0.1/24 dev rfv0
ip -n "$N2" addr add 10.77.0.2/24 dev rfv1
for n in "$N1" "$N2"; do ip -n "$n" link set lo up; done
ip -n "$N1" link set rfv0 up
ip -n "$N2" link set rfv1 up
ip netns exec "$N2" python3 "$SCRIPTS/pkt_send.py" --echo-server --bind 10.77.0.2 --port $BASE >echo.out &
EP=$!

for _ in $(seq 50); do grep -q ready echo.out && break; sleep 0.1; done

ip netns exec "$N1" "$RAWFRAG" record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp -a -e dummy \
	-o v.data 2>v.rec &
RP=$!
# ready when the last attach (xdp on lo) is there, and the rings a moment later
ready() {
	for _ in $(seq 100); do
		ip -n "$N1" link show lo | grep -q ' xdp' && sleep 0.3 && return 0
		sleep 0.1
	done
	return 1
}
if wait_progs 3 && ready; then t_ok "record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp"; else
	t_fail "record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp" "$(cat v.rec)"; fi
t_grep "xdp attached while recording" ' xdp' <(ip -n "$N1" link show rfv0)
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --dst 10.77.0.2 --echo \
	--udp-sizes 1,2,3,100,211,212,213,1000,1400,1472 --icmp 4 >v.sent
# VLAN 10 tagged frames (no VLAN devices needed): sent out of rfv0 (tc-egress sees
# the tag in the bytes) and out of rfv1 into rfv0 (xdp sees it in the bytes; the
# stack moves it into the skb before tc-ingress: offloaded, in the meta)
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $((BASE + 3)) \
	--raw-vlan rfv0:10 --udp-sizes 1,300,1400 >vlan.sent
ip netns exec "$N2" python3 "$SCRIPTS/pkt_send.py" --port-base $((BASE + 3)) \
	--raw-vlan rfv1:10 --udp-sizes 1,300,1400 >/dev/null
# traffic on the namespace's lo too (a second interface in the same run)
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 5,6 >lo.sent
sleep 0.3
kill -INT $RP
wait $RP
t_eq "recorder exits 0 after SIGINT" 0 $?
"$EXTRACT" v.data >v.txt 2>v.sum
t_grep "every dump splits" 'bad 0 ' v.sum
awk '$3 != 1' v.txt >veth.txt
awk '$3 == 1' v.txt >lo.txt
if python3 "$SCRIPTS/pkt_check.py" veth.txt v.sent 256 --udp 3:to --udp 2:from --udp 4:from \
	--icmp 3:req --icmp 2:rep --icmp 4:rep >v.chk; then
	t_ok "veth: requests on tc-egress, replies on tc-ingress and xdp, bytes as sent"
else
	t_fail "veth: requests on tc-egress, replies on tc-ingress and xdp, bytes as sent" "$(tail -5 v.chk)"
fi
# lo: tc-egress and tc-ingress both see each datagram; xdp (generic) too
if python3 "$SCRIPTS/pkt_check.py" lo.txt lo.sent 256 --udp 3:to --udp 2:to --udp 4:to >lo.chk; then
	t_ok "second interface (lo) in the same run"
else
	t_fail "second interface (lo) in the same run" "$(tail -5 lo.chk)"
fi
if python3 "$SCRIPTS/pkt_check.py" veth.txt vlan.sent 256 --udp 3:to --udp 2:to --udp 4:to \
	--vlan 10 >vlan.chk; then
	t_ok "VLAN 10: every hook sees the tag (inline or offloaded), bytes as sent"
else
	t_fail "VLAN 10: every hook sees the tag" "$(tail -5 vlan.chk)"
fi
t_eq "VLAN 10: tc-ingress has the tag offloaded (meta flag)" yes \
	"$(awk '$1 == 2 && $10 != "-" { f = 1 } END { print f ? "yes" : "no" }' veth.txt)"
"$RAWFRAG" report -i v.data >vrep.txt 2>/dev/null
t_grep "report: offloaded tag shown" 'rfv0 tc-ingress In vlan 10 \(offloaded\), p 0, ' vrep.txt
t_grep "report: inline tag shown (xdp)" \
	'rfv0 xdp In .*ethertype 802\.1Q \(0x8100\), length [0-9]+: vlan 10, p 0, ethertype IPv4' vrep.txt
if "$RAWFRAG" report -i v.data --format pcapng -o v.pcapng 2>/dev/null && command -v tshark >/dev/null; then
	tshark -r v.pcapng -F pcap -w v.pcap 2>/dev/null
	if python3 "$SCRIPTS/pkt_check.py" v.txt v.sent 256 --pcap v.pcap >vp.chk; then
		t_ok "pcapng of three hooks and two interfaces: same frames (offloaded tags put back)"
	else
		t_fail "pcapng of three hooks and two interfaces: same frames" "$(tail -3 vp.chk)"
	fi
	t_eq "pcapng: one interface block per (ifindex, hook)" \
		"$(awk '{ print $3, $1 }' v.txt | sort -u | wc -l)" \
		"$(tshark -r v.pcapng -T fields -e frame.interface_description 2>/dev/null | sort -u | wc -l)"
	t_eq "pcapng: tshark sees VLAN 10 on all 9 tagged frames (offloaded ones too)" yes \
		"$(tshark -r v.pcapng -Y "vlan.id == 10 && udp.port == $((BASE + 3))" 2>/dev/null |
			awk 'END { print NR == 9 ? "yes" : "no (" NR ")" }')"
else
	t_skip "pcapng of veth hooks" "report --format pcapng or tshark unavailable"
fi
t_eq "nothing left on rfv0 after SIGINT: xdp" 0 "$(ip -n "$N1" link show rfv0 | grep -c ' xdp')"
t_eq "nothing left on rfv0 after SIGINT: tc filters" "" \
	"$(ip netns exec "$N1" tc filter show dev rfv0 ingress; ip netns exec "$N1" tc filter show dev rfv0 egress)"

# socket hook on the veth: both directions, the direction in the meta
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 -a -o s.data 2>s.rec &
RP=$!
wait_progs 1
sleep 0.3
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --dst 10.77.0.2 --echo \
	--udp-sizes 7,700 >s.sent
sleep 0.3
kill -INT $RP
wait $RP
"$EXTRACT" s.data >s.txt 2>/dev/null
if python3 "$SCRIPTS/pkt_check.py" s.txt s.sent 256 --udp 1:to --udp 1:from >s.chk; then
	t_ok "socket hook on veth: requests and replies once each"
else
	t_fail "socket hook on veth: requests and replies once each" "$(tail -3 s.chk)"
fi
t_eq "socket hook on veth: requests Out (dir 2), replies In (dir 1)" "2 1" \
	"$(python3 - s.txt $BASE <<'PY'
import sys
port = int(sys.argv[2])
d = {}
for l in open(sys.argv[1]):
    f = l.split()
    p = bytes.fromhex(f[8])
    if len(p) > 37 and p[12:14] == b"\x08\x00" and p[23] == 17:
        dp = int.from_bytes(p[36:38], "big")
        d["to" if dp == port else "from"] = f[1]
print(d.get("to"), d.get("from"))
PY
)"

# jumbo frames: MTU 9000, xdp in driver mode with the multi-buffer program
ip -n "$N1" link set rfv0 mtu 9000
ip -n "$N2" link set rfv1 mtu 9000
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook xdp,tc-ingress --snaplen 9100 -a \
	-o j.data 2>j.rec &
RP=$!
wait_progs 2
sleep 0.3
t_grep "jumbo: xdp attached in driver mode" 'mtu 9000 xdp ' <(ip -n "$N1" link show rfv0)
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --dst 10.77.0.2 --echo \
	--udp-sizes 100,4000,8972 >j.sent
sleep 0.3
kill -INT $RP
wait $RP
"$EXTRACT" j.data >j.txt 2>/dev/null
if python3 "$SCRIPTS/pkt_check.py" j.txt j.sent 9100 --udp 4:from --udp 2:from >j.chk; then
	t_ok "jumbo: 9000-byte frames whole on xdp (multi-buffer) and tc-ingress"
else
	t_fail "jumbo: 9000-byte frames whole on xdp and tc-ingress" "$(tail -3 j.chk; cat j.rec)"
fi
ip -n "$N1" link set rfv0 mtu 1500
ip -n "$N2" link set rfv1 mtu 1500

# SIGKILL: links and sockets die with the process
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook tc-ingress,tc-egress,xdp -a -e dummy \
	-o k.data 2>k.rec &
RP=$!
wait_progs 3
kill -KILL $RP
wait $RP 2>/dev/null
wait_no_progs
t_eq "after SIGKILL: no dump program loaded" 0 "$(skb_progs)"
t_eq "after SIGKILL: no xdp on rfv0" 0 "$(ip -n "$N1" link show rfv0 | grep -c ' xdp')"
t_eq "after SIGKILL: no tcx/tc programs on rfv0" "" \
	"$(ip netns exec "$N1" bpftool net show dev rfv0 2>/dev/null | grep -E 'skbdump|tcx')"
