#!/usr/bin/env bash
# Benchmark of record --skb against tcpdump (root), on loopback and on a veth
# pair: a UDP flood (tests/gen/pkt-flood.c, one thread, sendmmsg) without
# capture, then captured by `perf rawfrag record --skb IF` (socket hook) and by
# `tcpdump -i IF -s SNAPLEN -w FILE`, each with no filter, with a filter that
# matches every flood packet ("udp") and with one that matches none ("udp port
# 9": nothing is written, so the slowdown is the filter's cost per packet).
#
# The capture's cost is paid in the kernel on the sender's CPU (the packet
# taps run there), so the sender's rate is the figure of merit; both tools lose
# nothing at the rates one sender reaches. The sender is pinned to CPU 0 and
# the capturing process to CPU 1; the rows run interleaved, ROUNDS times
# (default 3), and each row shows its best round, the median round, and the
# packets lost over all rounds.
#
# Prints per row: packets/s sent, slowdown against no capture, packets recorded
# and lost, the capturing process's CPU use (utime+stime over the run), the
# filter's cost per packet (1/rate - 1/rate without capture, "udp port 9"
# only), and for our dump program its own time per packet as the kernel
# measures it (kernel.bpf_stats_enabled: run_time_ns / run_cnt). The statistics
# cost time in every BPF program, tcpdump's filters included, so they are on
# only in one extra 1 s run per row of ours, not while rates are measured.
# The "interpreted" rows force the fallback filter interpreter
# (PERF_RAWFRAG_SKB_FILTER=interpret).
#
# veth: namespace rfbench-a holds rfb0 (10.199.0.1), the root namespace its
# peer rfb1 (10.199.0.2), where a sink is bound; the flood runs in rfbench-a,
# both tools capture on rfb1 (its packets come in there).
#   scripts/bench-skb.sh [BUILD_DIR] [SECONDS] [PAYLOAD] [RECORD OPTIONS...]
#   e.g. ROUNDS=5 IFACES=veth scripts/bench-skb.sh build/out 3 16 -m 1024
set -u
O=${1:-build/out}
SECS=${2:-3}
PAYLOAD=${3:-16}
shift $(($# < 3 ? $# : 3))
ROUNDS=${ROUNDS:-3}
IFACES=${IFACES:-lo veth}
SNAPLEN=256
PORT=7009
TOOL=$O/perf-rawfrag
FLOOD=$O/tests/pkt-flood
EXTRACT=$O/tests/pkt-extract
[ "$(id -u)" = 0 ] || { echo "bench-skb: needs root" >&2; exit 2; }
for f in "$TOOL" "$FLOOD" "$EXTRACT"; do
	[ -x "$f" ] || { echo "bench-skb: $f missing (make O=$O)" >&2; exit 2; }
done
tmp=$(mktemp -d)
hz=$(getconf CLK_TCK)
ncpu=$(nproc)
pin_send=(taskset -c 0)
pin_cap=(taskset -c $((ncpu > 1 ? 1 : 0)))
sink=

stats0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	[ -n "$sink" ] && kill "$sink" 2>/dev/null
	ip netns del rfbench-a 2>/dev/null
	ip link del rfb1 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$stats0" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sysctl -qw kernel.bpf_stats_enabled=0 2>/dev/null

# ids of the loaded skbdump_ programs; "run_time_ns run_cnt" summed over ids
prog_ids() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select(.name | startswith("skbdump_")) | .id' | sort; }
prog_stats() {
	local id
	for id in "$@"; do bpftool -j prog show id "$id" 2>/dev/null; done |
		jq -rs '"\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0)"'
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
field() { awk -v f="$2" '{ print $f }' <<<"$1"; }

# flood SECONDS: the sender, on the interface under test
flood() { "${pin_send[@]}" "${flood_pre[@]}" "$FLOOD" "$1" "$PAYLOAD" $PORT "$dest"; }

setup_if() {
	case $1 in
	lo)
		IF=lo dest=127.0.0.1 flood_pre=()
		;;
	veth)
		ip netns del rfbench-a 2>/dev/null
		ip link del rfb1 2>/dev/null
		ip netns add rfbench-a &&
			ip link add rfb1 type veth peer name rfb0 netns rfbench-a &&
			ip addr add 10.199.0.2/24 dev rfb1 && ip link set rfb1 up &&
			ip -n rfbench-a addr add 10.199.0.1/24 dev rfb0 &&
			ip -n rfbench-a link set rfb0 up && ip -n rfbench-a link set lo up ||
			{ echo "bench-skb: cannot set up the veth pair" >&2; return 1; }
		"$FLOOD" sink 10.199.0.2 $PORT >/dev/null &
		sink=$!
		IF=rfb1 dest=10.199.0.2 flood_pre=(ip netns exec rfbench-a)
		# neighbour resolution and the first packets out of the way
		flood 0.2 >/dev/null
		;;
	esac
}

# run KIND FILTER SECONDS STATS: flood while KIND (rawfrag|interpreted|tcpdump)
# captures; prints "pps recorded lost cpu_ticks seconds prog_ns"
run() {
	local kind=$1 filt=$2 secs=$3 stats=$4 rp c0 c1 out rec lost f=() ids0 ids= s0 s1 ns=-
	rm -f "$tmp/cap" "$tmp/err"
	if [ "$kind" != tcpdump ]; then
		[ -n "$filt" ] && f=(--filter "$filt")
		ids0=$(prog_ids)
		PERF_RAWFRAG_SKB_FILTER=$([ "$kind" = interpreted ] && echo interpret) \
			"${pin_cap[@]}" "$TOOL" record --skb "$IF" --snaplen $SNAPLEN "${f[@]}" -a -e dummy \
			"${extra[@]}" -o "$tmp/cap" 2>"$tmp/err" &
		rp=$!
		for _ in $(seq 100); do
			ids=$(comm -13 <(echo "$ids0") <(prog_ids))
			[ -n "$ids" ] && break
			sleep 0.1
		done
	else
		"${pin_cap[@]}" tcpdump -i "$IF" -n -s $SNAPLEN -w "$tmp/cap" $filt 2>"$tmp/err" &
		rp=$!
		for _ in $(seq 100); do grep -q listening "$tmp/err" && break; sleep 0.1; done
	fi
	sleep 0.3
	[ "$stats" = 1 ] && sysctl -qw kernel.bpf_stats_enabled=1
	[ "$stats" = 1 ] || ids=
	c0=$(cpu_ticks $rp)
	[ -n "$ids" ] && s0=$(prog_stats $ids)
	out=$(flood "$secs")
	[ -n "$ids" ] && s1=$(prog_stats $ids)
	c1=$(cpu_ticks $rp)
	sysctl -qw kernel.bpf_stats_enabled=0
	if [ -n "$ids" ]; then
		ns=$(awk -v a="$s0" -v b="$s1" 'BEGIN { split(a, x, " "); split(b, y, " ")
			n = y[2] - x[2]; if (n > 0) printf "%.0f", (y[1] - x[1]) / n; else print "-" }')
	fi
	sleep 0.5
	kill -INT $rp
	wait $rp
	if [ "$kind" != tcpdump ]; then
		"$EXTRACT" "$tmp/cap" -q 2>"$tmp/sum"
		read -r _ _ rec _ _ _ lost <"$tmp/sum"
	else
		rec=$(awk '/packets captured/ { print $1 }' "$tmp/err")
		lost=$(awk '/dropped by kernel/ { print $1 }' "$tmp/err")
	fi
	echo "$(field "$out" 6) ${rec:-0} ${lost:-0} $((c1 - c0)) $(field "$out" 4) $ns"
}

extra=("$@")
rows=()
for filt in "" "udp" "udp port 9"; do
	for kind in rawfrag interpreted tcpdump; do
		if [ "$kind" = tcpdump ] && ! command -v tcpdump >/dev/null; then continue; fi
		if [ "$kind" = interpreted ] && [ -z "$filt" ]; then continue; fi
		rows+=("$kind|$filt")
	done
done

printf 'skb bench: snaplen %d, %d-byte UDP payloads, %s s per run, %d interleaved rounds, sender on CPU 0, capture on CPU %s (tcpdump %s)\n' \
	$SNAPLEN "$PAYLOAD" "$SECS" "$ROUNDS" "${pin_cap[2]}" \
	"$(tcpdump --version 2>&1 | head -1 | awk '{ print $3 }')"
for iface in $IFACES; do
	setup_if "$iface" || exit 2
	: >"$tmp/res"
	for r in $(seq "$ROUNDS"); do
		flood "$SECS" >>"$tmp/base"
		for i in "${!rows[@]}"; do
			row=${rows[$i]}
			echo "$i $(run "${row%%|*}" "${row#*|}" "$SECS" 0)" >>"$tmp/res"
		done
	done
	base_pps=$(awk '{ print $6 }' "$tmp/base" | sort -n | tail -1)
	rm -f "$tmp/base"
	printf '== %s (capture on %s)\n' "$iface" "$IF"
	printf '  %-30s %12.0f packets/s (best of %d)\n' "sender without capture" "$base_pps" "$ROUNDS"
	printf '  %-30s %10s %10s %9s %10s %7s %6s %9s %7s\n' "capture" "sent pkt/s" "(median)" \
		"slowdown" "recorded" "lost" "CPU %" "filter ns" "prog ns"
	for i in "${!rows[@]}"; do
		kind=${rows[$i]%%|*} filt=${rows[$i]#*|} ns=-
		if [ "$kind" != tcpdump ]; then
			ns=$(run "$kind" "$filt" 1 1 | awk '{ print $6 }')
		fi
		awk -v i="$i" '$1 == i' "$tmp/res" | cut -d' ' -f2- |
			sort -n -k1,1 | awk -v k="$kind" -v f="$filt" -v base="$base_pps" -v hz="$hz" \
			-v ns="$ns" '{ r[NR] = $0; lost += $3 } END {
			split(r[NR], a, " "); split(r[int((NR + 1) / 2)], m, " ")
			pps = a[1]; secs = a[5]
			name = sprintf("%s%s%s", k == "tcpdump" ? "tcpdump" : "rawfrag",
				f == "" ? "" : " '\''" f "'\''", k == "interpreted" ? " interpreted" : "")
			cost = (f == "udp port 9" && pps > 0 && base > 0) ? 1e9 / pps - 1e9 / base : -1
			printf "  %-30s %10.0f %10.0f %8.1f%% %10d %7d %6.1f %9s %7s\n", name, pps, m[1],
				(base > 0 ? 100 * (base - pps) / base : 0), a[2], lost,
				100 * a[4] / hz / secs, (cost >= 0 ? sprintf("%.0f", cost) : "-"), ns
		}'
	done
	[ -n "$sink" ] && kill "$sink" 2>/dev/null && sink=
done
# the last interface's table printed: done (its kill above may have returned 1)
exit 0
