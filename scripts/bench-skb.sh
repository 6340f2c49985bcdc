#!/usr/bin/env bash
# Benchmark of record --skb on loopback (root): a UDP flood (tests/gen/pkt-flood.c,
# one thread, sendmmsg) without capture, then with `perf rawfrag record --skb lo`
# at default settings (socket hook, snaplen 256). Prints packets/s sent in both
# runs (the sender's slowdown), packets/s recorded, lost count, and the
# recorder's CPU use (utime+stime over the run).
#   scripts/bench-skb.sh [BUILD_DIR] [SECONDS] [PAYLOAD] [RECORD OPTIONS...]
#   e.g. scripts/bench-skb.sh build/out 3 16 -m 1024
set -u
O=${1:-build/out}
SECS=${2:-3}
PAYLOAD=${3:-16}
shift $(($# < 3 ? $# : 3))
TOOL=$O/perf-rawfrag
FLOOD=$O/tests/pkt-flood
EXTRACT=$O/tests/pkt-extract
[ "$(id -u)" = 0 ] || { echo "bench-skb: needs root" >&2; exit 2; }
for f in "$TOOL" "$FLOOD" "$EXTRACT"; do
	[ -x "$f" ] || { echo "bench-skb: $f missing (make O=$O)" >&2; exit 2; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

base=$("$FLOOD" "$SECS" "$PAYLOAD" | awk '{ print $6 }')

"$TOOL" record --skb lo -a -e dummy "$@" -o "$tmp/b.data" 2>"$tmp/rec.err" &
rp=$!
for _ in $(seq 100); do
	bpftool prog show 2>/dev/null | grep -q 'name skbdump_' && break
	sleep 0.1
done
c0=$(cpu_ticks $rp)
out=$("$FLOOD" "$SECS" "$PAYLOAD")
c1=$(cpu_ticks $rp)
sleep 0.5
kill -INT $rp
wait $rp
"$EXTRACT" "$tmp/b.data" -q 2>"$tmp/sum"
read -r _ _ dumps _ bad _ lost <"$tmp/sum"
sent=$(awk '{ print $2 }' <<<"$out")
secs=$(awk '{ print $4 }' <<<"$out")
pps=$(awk '{ print $6 }' <<<"$out")
awk -v base="$base" -v pps="$pps" -v sent="$sent" -v secs="$secs" -v dumps="$dumps" \
	-v lost="$lost" -v bad="$bad" -v c="$((c1 - c0))" -v hz="$hz" -v pl="$PAYLOAD" 'BEGIN {
	printf "skb bench: lo, socket hook, snaplen 256, %d-byte UDP payloads, %.1f s\n", pl, secs
	printf "  sender without capture   %10.0f packets/s\n", base
	printf "  sender with capture      %10.0f packets/s  (slowdown %.1f%%)\n", pps,
		(base > 0 ? 100 * (base - pps) / base : 0)
	printf "  recorded                 %10.0f packets/s  (%d of %d sent, %d lost, %d bad)\n",
		dumps / secs, dumps, sent, lost, bad
	printf "  recorder CPU             %10.1f %%\n", 100 * c / hz / secs
}'
grep -h 'not written' "$tmp/rec.err" | sed 's/^/  /'
