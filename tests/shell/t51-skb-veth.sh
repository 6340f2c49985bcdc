#!/usr/bin/env bash
# record --skb on a veth pair between two network namespaces made here, hooks
# tc-ingress, tc-egress and xdp at once: requests seen once on tc-egress, the
# echo server's replies once on tc-ingress and once on xdp, all bytes equal to
# what was sent; several interfaces in one run (the veth and the namespace's lo);
# nothing attached afterwards, also after SIGKILL of the recorder.
source "$(dirname "$0")/lib.sh"
SCRIPTS=$TOP/tests/scripts
EXTRACT=$O/tests/pkt-extract
# ports of this run (UDP, TCP +1, UDP/IPv6 +2): test runs at the same time differ
BASE=$((20000 + $$ % 10000 * 4))

if ! is_root; then t_skip "skb on veth" "needs root"; exit 0; fi
if ! command -v ip >/dev/null || ! command -v bpftool >/dev/null; then
	t_skip "skb on veth" "needs iproute2 and bpftool"; exit 0
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
	t_skip "skb on veth" "cannot create namespaces or veth"; exit 0
fi
ip -n "$N1" addr add 10.77.0.1/24 dev rfv0
ip -n "$N2" addr add 10.77.0.2/24 dev rfv1
for n in "$N1" "$N2"; do ip -n "$n" link set lo up; done
ip -n "$N1" link set rfv0 up
ip -n "$N2" link set rfv1 up
ip netns exec "$N2" python3 "$SCRIPTS/pkt_send.py" --echo-server --bind 10.77.0.2 --port $BASE >echo.out &
EP=$!

wait_progs() {
	for _ in $(seq 100); do
		[ "$(bpftool prog show 2>/dev/null | grep -c 'name skbdump_')" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
for _ in $(seq 50); do grep -q ready echo.out && break; sleep 0.1; done

ip netns exec "$N1" "$RAWFRAG" record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp -a -e dummy \
	-o v.data 2>v.rec &
RP=$!
if wait_progs 3; then t_ok "record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp"; else
	t_fail "record --skb rfv0,lo --hook tc-ingress,tc-egress,xdp" "$(cat v.rec)"; fi
t_grep "xdp attached while recording" ' xdp' <(ip -n "$N1" link show rfv0)
ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --dst 10.77.0.2 --echo \
	--udp-sizes 1,2,3,100,211,212,213,1000,1400,1472 --icmp 4 >v.sent
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
t_eq "nothing left on rfv0 after SIGINT: xdp" 0 "$(ip -n "$N1" link show rfv0 | grep -c ' xdp')"
t_eq "nothing left on rfv0 after SIGINT: tc filters" "" \
	"$(ip netns exec "$N1" tc filter show dev rfv0 ingress; ip netns exec "$N1" tc filter show dev rfv0 egress)"

# SIGKILL: links and sockets die with the process
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook tc-ingress,tc-egress,xdp -a -e dummy \
	-o k.data 2>k.rec &
RP=$!
wait_progs 3
kill -KILL $RP
wait $RP 2>/dev/null
for _ in $(seq 100); do
	[ "$(bpftool prog show 2>/dev/null | grep -c 'name skbdump_')" = 0 ] && break
	sleep 0.1
done
t_eq "after SIGKILL: no dump program loaded" 0 "$(bpftool prog show 2>/dev/null | grep -c 'name skbdump_')"
t_eq "after SIGKILL: no xdp on rfv0" 0 "$(ip -n "$N1" link show rfv0 | grep -c ' xdp')"
t_eq "after SIGKILL: no tcx/tc programs on rfv0" "" \
	"$(ip netns exec "$N1" bpftool net show dev rfv0 2>/dev/null | grep -E 'skbdump|tcx')"
