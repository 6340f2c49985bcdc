#!/usr/bin/env bash
# record --skb --filter EXPR runs libpcap's program in the kernel: for each of 36
# pcap-filter(7) expressions, the packets recorded with the filter are exactly
# the packets `tcpdump -r all.pcapng EXPR` selects from an unfiltered capture of
# the same frames (compared by content: tcpdump -xx without times), on the socket
# hook, and for a subset on tc-ingress, tc-egress and xdp. The frames
# (tests/scripts/pkt_mix.py) go through lo of a namespace made here, so no other
# traffic mixes in. The filter runs translated to eBPF on every hook (record -v
# says so); the same subset again through the interpreter, the fallback
# (PERF_RAWFRAG_SKB_FILTER=interpret). Bad expressions: libpcap's message, exit 2.
source "$(dirname "$0")/lib.sh"
MIX=$TOP/tests/scripts/pkt_mix.py
t_plan 73

if ! is_root; then t_skip_rest "skb filters: needs root"; fi
if ! command -v tcpdump >/dev/null || ! command -v ip >/dev/null; then
	t_skip_rest "skb filters: needs tcpdump and iproute2"
fi
NS=rfflt-$$
cleanup() {
	ip netns del "$NS" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$NS"; then t_skip_rest "skb filters: cannot create a namespace"; fi
ip -n "$NS" link set lo up

# rec NAME HOOK [EXPR]: record the mix on the namespace's lo into NAME.pcapng
rec() {
	local name=$1 hook=$2 f=()
	[ $# -gt 2 ] && f=(--filter "$3")
	ip netns exec "$NS" "$RAWFRAG" record --skb lo --hook "$hook" "${f[@]}" -a -e dummy -q -v \
		-o "$name.data" -- python3 "$MIX" --dev lo >"$name.rec" 2>&1 &&
		"$RAWFRAG" report -i "$name.data" --format pcapng -o "$name.pcapng" 2>>"$name.rec"
}
# packets as "hex bytes" lines, one per packet, sorted (tcpdump -xx, no times)
pkts() { tcpdump -t -nn -xx -r "$@" 2>/dev/null | awk '/^\t/ { printf " %s", $0; next }
	NR > 1 { print "" } { printf "%s", $0 } END { if (NR) print "" }' | sort; }

if ! rec all socket; then t_fail "unfiltered capture" "$(cat all.rec)"; t_skip_rest "no capture"; fi
n_all=$(pkts all.pcapng | wc -l)
n_mix=$(python3 -c "import sys; sys.path.insert(0, '$TOP/tests/scripts'); import pkt_mix; print(len(pkt_mix.frames()))")
t_eq "unfiltered capture: every frame of the mix" "$n_mix" "$n_all"

exprs=(
	"ip" "ip6" "arp" "udp" "tcp" "icmp" "icmp6" "icmp or udp" "not ip"
	"tcp and (port 5001 or port 22)" "udp and not port 9053" "net 10.1.0.0/16"
	"src net 192.168.0.0/16" "dst host 10.1.2.3" "host 2001:db8::2" "portrange 1000-2000"
	"udp portrange 7000-8000" "ip proto 1" "ip6 proto 58" "icmp[0] == 8"
	"icmp[icmptype] == icmp-unreach" "tcp[tcpflags] & tcp-syn != 0" "len > 200" "less 60"
	"greater 1000" "vlan" "vlan 100" "vlan and arp" "ether host 02:52:46:00:00:03"
	"ether broadcast" "ether dst 33:33:ff:00:00:02" "ip[8] == 64 and udp" "ip6 and tcp"
	"(tcp or icmp) and src host 10.1.9.9" "ip[6:2] & 0x1fff != 0" "icmp6 and ip6[40] == 135"
)
# on every hook: a few that need the frame bytes (VLAN tag, offsets, lengths)
hook_exprs=("udp and not port 9053" "vlan 100" "icmp[0] == 8" "len > 200" "not ip")

check() {
	local hook=$1 e=$2 name=f$3 h=${4:-$1}
	if ! rec "$name" "$hook" "$e"; then t_fail "$h: '$e': record" "$(tail -3 "$name.rec")"; return; fi
	pkts all.pcapng "$e" >want.txt
	pkts "$name.pcapng" >got.txt
	if cmp -s want.txt got.txt; then
		t_ok "$h: '$e': the $(wc -l <got.txt) packets tcpdump selects"
	else
		t_fail "$h: '$e': packets differ from tcpdump -r all.pcapng '$e'" \
			"want $(wc -l <want.txt), got $(wc -l <got.txt)" "$(diff want.txt got.txt | head -4 | cut -c1-160)"
	fi
}
i=0
for e in "${exprs[@]}"; do check socket "$e" $((i++)); done
for h in tc-ingress tc-egress xdp; do
	for e in "${hook_exprs[@]}"; do check "$h" "$e" $((i++)); done
done
# how it ran: translated, on each hook, for every expression (f0.. in the order above)
first=0
for h in socket tc-ingress tc-egress xdp; do
	n=$([ $h = socket ] && echo ${#exprs[@]} || echo ${#hook_exprs[@]})
	got=$(for ((j = first; j < first + n; j++)); do grep -l "translated to eBPF" "f$j.rec"; done | wc -l)
	t_eq "$h: the filter runs translated to eBPF for all $n expressions" "$n" "$got"
	first=$((first + n))
done
export PERF_RAWFRAG_SKB_FILTER=interpret
for e in "${hook_exprs[@]}"; do check socket "$e" $((i++)) "socket, interpreted"; done
unset PERF_RAWFRAG_SKB_FILTER
t_grep "the interpreter ran when asked" "classic instructions, interpreted" "f$((i - 1)).rec"
# the filters above select between 1 and all-but-one of the frames: none is trivial
sel=$(for e in "${exprs[@]}"; do pkts all.pcapng "$e" | wc -l; done | sort -n | sed -n '1p;$p' | tr '\n' ' ')
t_eq "every expression selects some frames and not all" "ok" \
	"$(set -- $sel; [ "$1" -ge 1 ] && [ "$2" -lt "$n_all" ] && echo ok || echo "$sel")"
t_grep "filtered-out frames are counted" "[1-9][0-9]* filtered out" f0.rec

# libpcap's message for bad expressions, exit 2, nothing left loaded
for bad in "icmp[0] ==" "port 70000" "tcp or" "host no.such.host.invalid"; do
	t_run "bad filter '$bad': exit 2" 2 "$RAWFRAG" record --skb lo --filter "$bad" -a -e dummy -o bad.data
	msg=$(tcpdump -d -r all.pcapng "$bad" 2>&1 >/dev/null | tail -1 | sed "s/^tcpdump: //")
	if [ -n "$msg" ] && grep -qF -- "--filter '$bad': $msg" "$T/err"; then
		t_ok "bad filter '$bad': libpcap's message ($msg)"
	else
		t_fail "bad filter '$bad': libpcap's message" "tcpdump: $msg" "ours: $(cat "$T/err")"
	fi
done
wait_no_progs
t_eq "no dump program left loaded" 0 "$(skb_progs)"
