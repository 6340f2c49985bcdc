#!/usr/bin/env bash
# Benchmark of record --skb on loopback (root): a UDP flood (tests/gen/pkt-flood.c,
# one thread, sendmmsg) without capture, then captured by `perf rawfrag record
# --skb lo` (socket hook) and by tcpdump (`tcpdump -i lo -s SNAPLEN -w FILE`),
# each with no filter and with the same filter that matches every flood packet
# ("udp"), and with one that matches none ("udp port 9", so nothing is written:
# the difference to the uncaptured rate is the filter's cost per packet).
# Prints per run: packets/s sent, packets recorded and lost, the capturing
# process's CPU use (utime+stime over the run), and for our dump program its
# own time per packet as the kernel measures it (kernel.bpf_stats_enabled,
# on during the runs: run_time_ns / run_cnt). Our filter runs translated to
# eBPF; the rows "interpreted" force the fallback interpreter
# (PERF_RAWFRAG_SKB_FILTER=interpret) for comparison.
#   scripts/bench-skb.sh [BUILD_DIR] [SECONDS] [PAYLOAD] [RECORD OPTIONS...]
#   e.g. scripts/bench-skb.sh build/out 3 16 -m 1024
set -u
O=${1:-build/out}
SECS=${2:-3}
PAYLOAD=${3:-16}
shift $(($# < 3 ? $# : 3))
SNAPLEN=256
TOOL=$O/perf-rawfrag
FLOOD=$O/tests/pkt-flood
EXTRACT=$O/tests/pkt-extract
[ "$(id -u)" = 0 ] || { echo "bench-skb: needs root" >&2; exit 2; }
for f in "$TOOL" "$FLOOD" "$EXTRACT"; do
	[ -x "$f" ] || { echo "bench-skb: $f missing (make O=$O)" >&2; exit 2; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

stats0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
trap 'rm -rf "$tmp"; sysctl -qw kernel.bpf_stats_enabled="$stats0" 2>/dev/null' EXIT
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null

# ids of the loaded skbdump_ programs; "run_time_ns run_cnt" summed over ids
prog_ids() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select(.name | startswith("skbdump_")) | .id' | sort; }
prog_stats() {
	local id
	for id in "$@"; do bpftool -j prog show id "$id" 2>/dev/null; done |
		jq -rs '"\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0)"'
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
field() { awk -v f="$2" '{ print $f }' <<<"$1"; }

base=$("$FLOOD" "$SECS" "$PAYLOAD")
base_pps=$(field "$base" 6)

# run KIND FILTER: flood while KIND (rawfrag|interpreted|tcpdump) captures; prints
# "pps recorded lost cpu_ticks seconds sent prog_ns"
run() {
	local kind=$1 filt=$2 rp c0 c1 out rec lost f=() ids0 ids s0 s1 ns=-
	rm -f "$tmp/cap" "$tmp/err"
	if [ "$kind" != tcpdump ]; then
		[ -n "$filt" ] && f=(--filter "$filt")
		ids0=$(prog_ids)
		PERF_RAWFRAG_SKB_FILTER=$([ "$kind" = interpreted ] && echo interpret) \
			"$TOOL" record --skb lo --snaplen $SNAPLEN "${f[@]}" -a -e dummy "${@:3}" \
			-o "$tmp/cap" 2>"$tmp/err" &
		rp=$!
		for _ in $(seq 100); do
			ids=$(comm -13 <(echo "$ids0") <(prog_ids))
			[ -n "$ids" ] && break
			sleep 0.1
		done
	else
		tcpdump -i lo -n -s $SNAPLEN -w "$tmp/cap" $filt 2>"$tmp/err" &
		rp=$!
		for _ in $(seq 100); do grep -q listening "$tmp/err" && break; sleep 0.1; done
	fi
	sleep 0.3
	c0=$(cpu_ticks $rp)
	[ -n "${ids:-}" ] && s0=$(prog_stats $ids)
	out=$("$FLOOD" "$SECS" "$PAYLOAD")
	[ -n "${ids:-}" ] && s1=$(prog_stats $ids)
	c1=$(cpu_ticks $rp)
	if [ -n "${ids:-}" ]; then
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
	echo "$(field "$out" 6) ${rec:-0} ${lost:-0} $((c1 - c0)) $(field "$out" 4) $(field "$out" 2) $ns"
}

printf 'skb bench: lo, snaplen %d, %d-byte UDP payloads, %s s per run (tcpdump %s)\n' \
	$SNAPLEN "$PAYLOAD" "$SECS" "$(tcpdump --version 2>&1 | head -1 | awk '{ print $3 }')"
printf '  %-34s %12.0f packets/s\n' "sender without capture" "$base_pps"
printf '  %-34s %12s %9s %12s %8s %8s %11s %9s\n' "capture" "sent pkt/s" "slowdown" "recorded" "lost" \
	"CPU %" "filter ns" "prog ns"
for filt in "" "udp" "udp port 9"; do
	for kind in rawfrag interpreted tcpdump; do
		if [ "$kind" = tcpdump ] && ! command -v tcpdump >/dev/null; then continue; fi
		if [ "$kind" = interpreted ] && [ -z "$filt" ]; then continue; fi
		r=$(run "$kind" "$filt" "$@")
		awk -v k="$kind" -v f="$filt" -v base="$base_pps" -v hz="$hz" -v r="$r" 'BEGIN {
			split(r, a, " "); pps = a[1]; secs = a[5]
			name = sprintf("%s%s%s", k == "tcpdump" ? "tcpdump" : "rawfrag",
				f == "" ? "" : " '\''" f "'\''", k == "interpreted" ? " interpreted" : "")
			cost = (f == "udp port 9" && pps > 0 && base > 0) ? 1e9 / pps - 1e9 / base : -1
			printf "  %-34s %12.0f %8.1f%% %12d %8d %8.1f %11s %9s\n", name, pps,
				(base > 0 ? 100 * (base - pps) / base : 0), a[2], a[3],
				100 * a[4] / hz / secs, (cost >= 0 ? sprintf("%.0f", cost) : "-"), a[7]
		}'
	done
done
