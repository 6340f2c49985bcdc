#!/usr/bin/env bash
# make bench, flame graphs: report --format folded and flamegraph-json against
# perf's own scripts (stackcollapse.py, flamegraph.py -f json) on the same -g
# file, as ratios of CPU time (user + sys) and peak RSS; whether the outputs
# are the same; the HTML page's and pprof's costs beside them; then our peak
# RSS over 1/4, 1/2 and all of the file (bounded by the distinct stacks).
#   BENCH_GFILE=path   a -g file to use instead of recording build/bench/g.data
#   BENCH_G_MB=150     size of the recorded -g file
#   BENCH_FLAME_SLICE=5%  the --time slice flamegraph.py reads (see below)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
. "$top/scripts/bench-lib.sh"

g=${BENCH_GFILE:-$dir/g.data}
[ -n "${BENCH_GFILE:-}" ] || record_g "$g" "${BENCH_G_MB:-150}"
[ -f "$g" ] || { echo "bench: flame: no -g file $g" >&2; exit 2; }
py=${BENCH_PERF_PY:-/usr/lib/perf-core/scripts/python}
# flamegraph.py spends milliseconds per sample (a linear search of each node's
# children), too slow for a big file in a bench: both tools read the same --time
# slice for that row, and the next row scales its CPU per sample to the file
# (perf script's start-up included, so a slice much smaller than 5% flatters ours)
slice=0%-${BENCH_FLAME_SLICE:-5%}
samples=$(perf report -i "$g" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
dd if="$g" of=/dev/null bs=1M 2>/dev/null
echo
echo "== flame graphs on $g: $(($(stat -c %s "$g") / 1048576)) MB, ${samples:-0} samples (perf's scripts once, ours best of 3; page cache warm)"
printf '%-50s %8s %8s %8s %9s  %s\n' command "CPU s" "peak MB" "vs perf" "(RSS)" "output"

# stackcollapse.py against --format folded, same lines once sorted
once perf script -i "$g" -s "$py/stackcollapse.py"
sort "$dir/out" >"$dir/folded.perf"
pc=$cpu pk=$rss_kb
row "perf script report stackcollapse" "$pc" "$pk" "$pc" "$pk" ""
best3 "$tool" report -j 1 --format folded -i "$g"
sort "$dir/out" >"$dir/folded.ours"
same=$(cmp -s "$dir/folded.perf" "$dir/folded.ours" && echo "identical once sorted" ||
	echo "DIFFERENT ($(diff "$dir/folded.perf" "$dir/folded.ours" | grep -c '^[<>]') lines)")
row "perf rawfrag report --format folded" "$cpu" "$rss_kb" "$pc" "$pk" "$same"

# flamegraph.py -f json on the slice (as 'perf script report flamegraph -f json -o X')
once perf script -i "$g" --time "$slice" -s "$py/flamegraph.py" -- -f json -o "$dir/flame.perf.json"
fc=$cpu fk=$rss_kb
best3 "$tool" report -j 1 --format flamegraph-json --time "$slice" -i "$g" -o "$dir/flame.ours.json"
n=$(awk '{ n += $NF } END { print n + 0 }' <("$tool" report -j 1 --format folded --time "$slice" -i "$g"))
same=$(python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("JSON tree equal" if a == b else "JSON trees DIFFER")' "$dir/flame.perf.json" "$dir/flame.ours.json" 2>&1)
echo "  flamegraph.py -f json reads --time $slice: $n samples"
row "perf script report flamegraph -f json ($n)" "$fc" "$fk" "$fc" "$fk" ""
row "perf rawfrag report --format flamegraph-json ($n)" "$cpu" "$rss_kb" "$fc" "$fk" "$same"
# the whole file, against flamegraph.py's CPU per sample times the file's samples
best3 "$tool" report -j 1 --format flamegraph-json -i "$g" -o "$dir/flame.ours.json"
est=$(awk -v c="$fc" -v n="$n" -v t="${samples:-0}" 'BEGIN { if (n > 0) printf "%.0f", c / n * t; else print 0 }')
echo "  flamegraph.py on all ${samples:-0} samples at its CPU per sample: ~$est CPU s"
row "perf rawfrag report --format flamegraph-json (all)" "$cpu" "$rss_kb" "$est" 0 "vs the estimate"
best3 "$tool" report -j 1 --format flamegraph -i "$g" -o "$dir/flame.html"
row "perf rawfrag report --format flamegraph (HTML)" "$cpu" "$rss_kb" "$pc" "$pk" "vs stackcollapse"
best3 "$tool" report -j 1 --format pprof -i "$g" -o "$dir/g.pb.gz"
row "perf rawfrag report --format pprof" "$cpu" "$rss_kb" "$pc" "$pk" "vs stackcollapse"

echo
echo "peak RSS of report --format folded / flamegraph-json by the part of the file read (--time):"
for part in 25% 50% 100%; do
	once "$tool" report -j 1 --format folded --time "0%-$part" -i "$g"; a=$rss_kb
	once "$tool" report -j 1 --format flamegraph-json --time "0%-$part" -i "$g" -o "$dir/flame.part.json"
	printf '  %-5s folded %5d MB, flamegraph-json %5d MB\n' "$part" $((a / 1024)) $((rss_kb / 1024))
done
