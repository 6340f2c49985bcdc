#!/usr/bin/env bash
# make bench, ClickHouse: report --format clickhouse into one local
# clickhouse-server (Debian's 18.16, make deps) started here on loopback ports
# in a temporary directory, a fresh database per load: the read part's
# tracepoint file (samples, and one typed table per event) and the flame
# part's -g file (samples and stacks). Each load prints samples per wall
# second and the CPU seconds of both sides: ours (user + sys of the report)
# and the server's (utime + stime of /proc/PID/stat before and after).
#   BENCH_FILE=path    the tracepoint file (default build/bench/tp.data)
#   BENCH_GFILE=path   the -g file (default build/bench/g.data, BENCH_G_MB=150)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
. "$top/scripts/bench-lib.sh"

command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null || {
	echo "bench: clickhouse: no clickhouse-server (make deps)" >&2
	exit 0
}
. "$top/scripts/clickhouse-local.sh"
srv=$(mktemp -d "${TMPDIR:-/tmp}/rawfrag-bench-ch.XXXXXX")
trap 'ch_stop "$srv"; rm -rf "$srv"' EXIT
read -r H N < <(ch_ports 2)
ch_start "$srv" "$H" "$N" 4000000000
pid=
ch_wait "$H" && pid=$(ch_pid "$srv")
if [ -z "$pid" ]; then
	echo "bench: clickhouse: the server did not start: $(ch_why "$srv")" >&2
	exit 0
fi
tck=$(getconf CLK_TCK)
srv_cpu() { awk -v t="$tck" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$pid/stat"; }
q() { clickhouse-client --port "$N" -q "$1"; }

echo
echo "== ClickHouse load into one local clickhouse-server $(q 'SELECT version()') (a fresh database per load)"
printf '%-34s %6s %9s %9s %7s %7s %10s %10s  %s\n' file MB samples "k smp/s" "our CPU" "srv CPU" \
	"k smp/ours" "k smp/srv" "rows in the db"
nr=0
load() { # name file
	local f=$2 n db s0 s1 sc rows
	[ -f "$f" ] || { echo "bench: clickhouse: no $1 file $f" >&2; return; }
	nr=$((nr + 1)) db=bench$nr
	q "CREATE DATABASE $db"
	n=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	dd if="$f" of=/dev/null bs=1M 2>/dev/null
	s0=$(srv_cpu)
	once "$tool" report -j 1 --format clickhouse -i "$f" --host bench -o "http://127.0.0.1:$H/?database=$db"
	s1=$(srv_cpu)
	sc=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }')
	rows=$(q "SELECT sum(rows) FROM system.parts WHERE database = '$db' AND active" 2>/dev/null)
	awk -v name="$1" -v mb=$(($(stat -c %s "$f") / 1048576)) -v n="${n:-0}" -v w="$secs" \
		-v c="$cpu" -v s="$sc" -v r="$rows" 'function k(a, b) { return b > 0 ? a / b / 1e3 : 0 }
		BEGIN { printf "%-34s %6d %9d %9.0f %7.2f %7.2f %10.0f %10.0f  %s\n",
			name, mb, n, k(n, w), c, s, k(n, c), k(n, s), r }'
	q "SELECT table, sum(rows) FROM system.parts WHERE database = '$db' AND active GROUP BY table ORDER BY table" |
		awk -F'\t' '{ printf "    %s %s", $1, $2 } END { print "" }'
	q "DROP DATABASE $db"
}
f=${BENCH_FILE:-$dir/tp.data}
load "tracepoints ($(basename "$f"))" "$f"
g=${BENCH_GFILE:-$dir/g.data}
[ -n "${BENCH_GFILE:-}" ] || record_g "$g" "${BENCH_G_MB:-150}"
load "-g ($(basename "$g"))" "$g"
echo "  (k smp/s: thousands of samples per wall second of the load; k smp/ours, k smp/srv:"
echo "  per CPU second of the report and of the server; rows: all tables of the database)"
