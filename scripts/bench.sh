#!/usr/bin/env bash
# make bench: speed and memory of perf rawfrag against perf on the same files,
# reported as ratios (no wall time is asserted anywhere).
#   BENCH_FILE=path   use this tracepoint perf.data instead of recording one
#   BENCH_MB=300      size of the recorded file
#   BENCH_ONLY=read|record|callchain|skb  run one part
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mb=${BENCH_MB:-300}
mkdir -p "$dir"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

# run NAME CMD... -> prints a row; sets $secs $rss_kb
run() {
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/err.out"
	local rc=$?
	read -r secs rss_kb <"$dir/time.out" || { secs=0; rss_kb=0; }
	[ "$rc" -le 1 ] || echo "  ($name exited $rc: $(head -c 200 "$dir/err.out"))"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.1f", a / b }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s <= 0) s = 0.001; printf "%.2f", n / s / 1e6 }'; }

make_file() { # path size_mb
	local path=$1 want=$(($2 * 1024 * 1024))
	echo "recording a tracepoint file of ${2} MB into $path (raw_syscalls + sched)"
	perf record -q -o "$path" -m 1024 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
		-e sched:sched_switch -a -- sh -c "
		while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
			[ \$(stat -c %s '$path' 2>/dev/null || echo 0) -ge $want ] && break; done" \
		>/dev/null 2>&1
}

bench_read() {
	local f=${BENCH_FILE:-$dir/tp.data}
	if [ -z "${BENCH_FILE:-}" ] && { [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -lt $((mb * 1024 * 1024)) ]; }; then
		make_file "$f" "$mb"
	fi
	local size samples
	size=$(stat -c %s "$f")
	samples=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	samples=${samples:-0}
	echo
	echo "== reading $f: $((size / 1048576)) MB, $samples samples (1 core; page cache warm)"
	dd if="$f" of=/dev/null bs=1M 2>/dev/null
	printf '%-52s %8s %10s %9s %10s\n' "command" "seconds" "Msamples/s" "peak MB" "vs perf script"
	local rows=(
		"perf script -F comm,tid,cpu,time,event,trace|perf script -F comm,tid,cpu,time,event,trace -i $f"
		"sequential read (dd bs=1M)|dd if=$f of=/dev/null bs=1M"
		"bare walk of record headers (rawfrag-walk -q)|$O/tests/rawfrag-walk -q $f"
		"perf rawfrag check|$tool check -q $f"
		"perf rawfrag report --stats|$tool report --stats -i $f"
		"perf report --stats|perf report --stats -i $f"
		"perf rawfrag report (text)|$tool report -i $f"
		"perf rawfrag report --format json|$tool report --format json -i $f"
	)
	local base=
	for r in "${rows[@]}"; do
		local name=${r%%|*} cmd=${r#*|}
		# shellcheck disable=SC2086
		run "$name" $cmd
		[ -n "$base" ] || base=$secs
		printf '%-52s %8.2f %10s %9d %9sx\n' "$name" "$secs" "$(rate "$samples" "$secs")" \
			$((rss_kb / 1024)) "$(ratio "$base" "$secs")"
	done
	# memory must stay flat as the file grows: check over 1/4, 1/2 and all of it
	echo
	echo "peak RSS of 'perf rawfrag check' and 'report --format json' by file size:"
	for part in 4 2 1; do
		local pf=$f
		if [ $part -ne 1 ]; then
			# a smaller file of the same kind, recorded the same way
			pf=$dir/tp-1of$part.data
			[ -f "$pf" ] || make_file "$pf" $(( $(stat -c %s "$f") / 1048576 / part ))
		fi
		run check "$tool" check -q "$pf"; local c=$rss_kb
		run json "$tool" report --format json -i "$pf"; local j=$rss_kb
		printf '  %-6s %6d MB file: check %5d MB, json %5d MB\n' "1/$part" \
			$(($(stat -c %s "$pf") / 1048576)) $((c / 1024)) $((j / 1024))
	done
}

case "${BENCH_ONLY:-all}" in
all|read) bench_read ;;
esac
case "${BENCH_ONLY:-all}" in
all|record) [ -x "$top/scripts/bench-record.sh" ] && bash "$top/scripts/bench-record.sh" "$O" ;;
esac
case "${BENCH_ONLY:-all}" in
all|callchain) bash "$top/scripts/bench-callchain.sh" "$O" ;;
esac
case "${BENCH_ONLY:-all}" in
all|skb) [ -x "$top/scripts/bench-skb.sh" ] && bash "$top/scripts/bench-skb.sh" "$O" ;;
esac
exit 0
