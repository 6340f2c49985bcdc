#!/usr/bin/env bash
# make bench, the table: `report --stdio --sort comm,dso,sym` against
# `perf report --stdio` on the read part's tracepoint file (BENCH_FILE, or
# build/bench/tp.data recorded as the read part records it), best of 3 each:
# wall and CPU seconds, peak RSS, the ratios, and whether the two tables are
# the same (but perf's random tip line); then our peak RSS over 1/4, 1/2 and
# all of the file (the entries', not the samples'). Then the -g file (BENCH_GFILE,
# or build/bench/g.data as the flame part records it) with --children, perf's
# table of a call-graph recording: perf once (it takes most of a minute), ours
# best of 3, and our peak RSS over the first 1/4, 1/2 and all of it (--time).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mb=${BENCH_MB:-300}
mkdir -p "$dir"

# once, best3, ratio, make_file (the read part's tracepoint file)
# shellcheck source=scripts/bench-lib.sh
source "$top/scripts/bench-lib.sh"

f=${BENCH_FILE:-$dir/tp.data}
if [ -z "${BENCH_FILE:-}" ] && [ ! -f "$f" ]; then
	make_file "$f" "$mb"
fi
[ -f "$f" ] || { echo "bench: table: no file $f" >&2; exit 2; }
samples=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
dd if="$f" of=/dev/null bs=1M 2>/dev/null
echo
echo "== the table on $f: $(($(stat -c %s "$f") / 1048576)) MB, ${samples:-0} samples (best of 3; page cache warm)"
printf '%-52s %8s %8s %8s %10s %8s\n' "command" "seconds" "CPU s" "peak MB" "vs perf" "(CPU)"
best3 perf report --stdio -i "$f"
base=$secs base_cpu=$cpu
grep -v '^# (Tip: ' "$dir/out" >"$dir/table.perf"
printf '%-52s %8.2f %8.2f %8d %9sx %7sx\n' "perf report --stdio" "$secs" "$cpu" \
	$((rss_kb / 1024)) 1.0 1.0
best3 "$tool" report -j 1 --stdio --sort comm,dso,sym -i "$f"
grep -v '^# (Tip: ' "$dir/out" >"$dir/table.ours"
printf '%-52s %8.2f %8.2f %8d %9sx %7sx\n' "perf rawfrag report --stdio --sort comm,dso,sym" \
	"$secs" "$cpu" $((rss_kb / 1024)) "$(ratio "$base" "$secs")" "$(ratio "$base_cpu" "$cpu")"
if cmp -s "$dir/table.perf" "$dir/table.ours"; then
	echo "the same table (every line but perf's tip): yes, $(grep -c '%' "$dir/table.ours") rows"
else
	echo "the same table: NO ($(diff "$dir/table.perf" "$dir/table.ours" | grep -c '^[<>]') lines differ)"
fi
echo "peak RSS of 'report --stdio --sort comm,dso,sym' by file size:"
for part in 4 2 1; do
	pf=$f
	if [ $part -ne 1 ]; then
		# a file given by BENCH_FILE has no parts recorded alike: its row only
		[ -z "${BENCH_FILE:-}" ] || continue
		pf=$dir/tp-1of$part.data
		[ -f "$pf" ] || make_file "$pf" $(( $(stat -c %s "$f") / 1048576 / part ))
	fi
	/usr/bin/time -f '%M' -o "$dir/time.out" "$tool" report -j 1 --stdio -s comm,dso,sym -i "$pf" \
		>/dev/null 2>&1
	printf '  %-6s %6d MB file: %5d MB\n' "1/$part" $(($(stat -c %s "$pf") / 1048576)) \
		$(($(cat "$dir/time.out") / 1024))
done

g=${BENCH_GFILE:-$dir/g.data}
[ -n "${BENCH_GFILE:-}" ] || record_g "$g" "${BENCH_G_MB:-150}"
[ -f "$g" ] || { echo "bench: table: no -g file $g" >&2; exit 2; }
dd if="$g" of=/dev/null bs=1M 2>/dev/null
echo
echo "== the table with --children on $g: $(($(stat -c %s "$g") / 1048576)) MB (perf once, ours best of 3)"
printf '%-52s %8s %8s %8s %10s %8s\n' "command" "seconds" "CPU s" "peak MB" "vs perf" "(CPU)"
once perf report --stdio --children -i "$g"
base=$secs base_cpu=$cpu
grep -v '^# (Tip: ' "$dir/out" >"$dir/table-g.perf"
printf '%-52s %8.2f %8.2f %8d %9sx %7sx\n' "perf report --stdio --children" "$secs" "$cpu" \
	$((rss_kb / 1024)) 1.0 1.0
best3 "$tool" report -j 1 --stdio --children --sort comm,dso,sym -i "$g"
grep -v '^# (Tip: ' "$dir/out" >"$dir/table-g.ours"
printf '%-52s %8.2f %8.2f %8d %9sx %7sx\n' "perf rawfrag report --stdio --children -s comm,dso,sym" \
	"$secs" "$cpu" $((rss_kb / 1024)) "$(ratio "$base" "$secs")" "$(ratio "$base_cpu" "$cpu")"
# -j 2: each worker reads every sample and keeps its part of the entries whole
best3 "$tool" report -j 2 --stdio --children --sort comm,dso,sym -i "$g"
cmp -s <(grep -v '^# (Tip: ' "$dir/out") "$dir/table-g.ours" || echo "  (-j 2: NOT the bytes of -j 1)"
printf '%-52s %8.2f %8.2f %8d %9sx %7sx\n' "  the same, -j 2" \
	"$secs" "$cpu" $((rss_kb / 1024)) "$(ratio "$base" "$secs")" "$(ratio "$base_cpu" "$cpu")"
# rows: the lines with a percentage that are not call-graph lines (those start with spaces and '|' or '-')
rows() { grep -E '^ +[0-9.]+% +[0-9.]+%' "$1" | sort; }
if cmp -s <(rows "$dir/table-g.perf") <(rows "$dir/table-g.ours"); then
	echo "the same entry rows: yes, $(rows "$dir/table-g.ours" | wc -l)"
else
	echo "the same entry rows: NO ($(diff <(rows "$dir/table-g.perf") <(rows "$dir/table-g.ours") |
		grep -c '^[<>]') of $(rows "$dir/table-g.perf" | wc -l) differ, widths included)"
fi
echo "peak RSS of 'report --stdio --children' by the part of the file read (--time):"
for part in 25% 50% 100%; do
	/usr/bin/time -f '%M' -o "$dir/time.out" "$tool" report -j 1 --stdio --children -s comm,dso,sym \
		--time "0%-$part" -i "$g" >/dev/null 2>&1
	printf '  %-5s %6d MB\n' "$part" $(($(cat "$dir/time.out") / 1024))
done
echo "  (each entry keeps its callers' tree, as perf's does: memory follows the distinct chains)"
