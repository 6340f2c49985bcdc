#!/usr/bin/env bash
# make bench, SQLite: report --format sqlite against perf's export-to-sqlite.py
# ("all calls callchains") on the flame part's -g file, as ratios of CPU time
# (user + sys) and peak RSS, with each database's sample count; then our
# samples per CPU second on the read part's tracepoint file, which perf's script
# cannot export (perf calls its process_event() for no tracepoint sample).
#   BENCH_GFILE=path   the -g file (default build/bench/g.data, recorded as the
#                      flame part records it, BENCH_G_MB=150)
#   BENCH_FILE=path    the tracepoint file (default build/bench/tp.data)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
. "$top/scripts/bench-lib.sh"
py=${BENCH_PERF_PY:-/usr/lib/perf-core/scripts/python}

g=${BENCH_GFILE:-$dir/g.data}
[ -n "${BENCH_GFILE:-}" ] || record_g "$g" "${BENCH_G_MB:-150}"
[ -f "$g" ] || { echo "bench: sqlite: no -g file $g" >&2; exit 2; }
count() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from samples where id > 0").fetchone()[0])' "$1" 2>/dev/null || echo "?"; }

samples=$(perf report -i "$g" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
dd if="$g" of=/dev/null bs=1M 2>/dev/null
echo
echo "== SQLite export of $g: $(($(stat -c %s "$g") / 1048576)) MB, ${samples:-0} samples (perf's script once, ours best of 3)"
printf '%-50s %8s %8s %8s %9s  %s\n' command "CPU s" "peak MB" "vs perf" "(RSS)" "samples in the db"
# the script's PySide2 SQL driver needs a Qt platform, none is on screen
rm -f "$dir/perf.db"
QT_QPA_PLATFORM=offscreen once perf script -i "$g" -s "$py/export-to-sqlite.py" "$dir/perf.db" all calls callchains
pc=$cpu pk=$rss_kb
row "perf script export-to-sqlite.py (all calls callchains)" "$pc" "$pk" "$pc" "$pk" "$(count "$dir/perf.db")"
best3 "$tool" report -j 1 --format sqlite --overwrite -i "$g" -o "$dir/ours.db"
row "perf rawfrag report --format sqlite" "$cpu" "$rss_kb" "$pc" "$pk" "$(count "$dir/ours.db")"

f=${BENCH_FILE:-$dir/tp.data}
if [ ! -f "$f" ]; then
	echo "bench: sqlite: no tracepoint file $f (make bench BENCH_ONLY=read records it)" >&2
	exit 0
fi
n=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
dd if="$f" of=/dev/null bs=1M 2>/dev/null
best3 "$tool" report -j 1 --format sqlite --overwrite -i "$f" -o "$dir/tp.db"
echo
echo "tracepoints: $f, $(($(stat -c %s "$f") / 1048576)) MB, ${n:-0} samples (best of 3):"
awk -v n="${n:-0}" -v c="$cpu" -v s="$secs" -v k="$rss_kb" 'BEGIN {
	printf "  report --format sqlite: %.2f CPU s (%.2f M samples per CPU second), %.2f s wall, peak %d MB\n",
		c, n / (c > 0 ? c : 0.001) / 1e6, s, k / 1024 }'
echo "  samples in the db: $(count "$dir/tp.db")"
# what the library alone does: the samples rows only, nothing decoded (best of 3)
floor=$dir/sqlite-floor
if ${CC:-gcc} -O2 -o "$floor" "$top/scripts/sqlite-floor.c" -lsqlite3 2>"$dir/err.out"; then
	best=
	for _ in 1 2 3; do
		r=$("$floor" "${n:-1000000}" "$dir/floor.db" | awk '{print $(NF-1)}')
		[ -z "$best" ] || [ "${r:-0}" -gt "$best" ] && best=$r
	done
	rm -f "$dir/floor.db"
	echo "  libsqlite3's own floor, perf's samples rows alone (25 columns, one prepared"
	echo "  statement, one transaction, no other table or index): $(awk -v r="$best" 'BEGIN { printf "%.2f", r / 1e6 }') M rows/s"
else
	echo "  libsqlite3's floor: not measured (cannot build scripts/sqlite-floor.c: $(head -c 200 "$dir/err.out"))"
fi
