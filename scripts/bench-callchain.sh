#!/usr/bin/env bash
# make bench, call chains: a -g tracepoint file (BENCH_CG_MB, default 150) read
# with perf script's symbol columns, and a --call-graph dwarf file
# (BENCH_DWARF_MB, default 150) unwound, both against perf script on the same
# file (best of 3 each; perf asks addr2line for the inline frames, report
# reads the same answers from the DWARF in process, and the --no-inline rows
# show the unwinding and symbols alone); then peak RSS of
# report over 1/4, 1/2 and all of each file (bounded by the DSOs, not the size).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
F='comm,tid,time,event,ip,sym,symoff,dso'
CG_OPTS=(-g -m 1024 -a -e raw_syscalls:sys_enter -e sched:sched_switch)
DW_OPTS=(--call-graph dwarf,4096 -m 1024 -e cpu-clock -c 100000)

run() { # cmd... -> $secs (wall, best of 3) $rss_kb (of the best run)
	local best= best_kb=0 t0 t1 s
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/err.out"
		t1=$(date +%s%N)
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$s
			read -r best_kb <"$dir/time.out" || best_kb=0
		fi
	done
	secs=$best rss_kb=$best_kb
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.1f", a / b }'; }

record_until() { # path MB perf-record-options...
	local path=$1 want=$(($2 * 1024 * 1024)); shift 2
	[ -f "$path" ] && [ "$(stat -c %s "$path")" -ge "$want" ] && return
	echo "recording $path (${want} bytes): perf record $*" >&2
	perf record -q -o "$path" "$@" -- sh -c "
		while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; ls -R /usr/lib >/dev/null
			[ \$(stat -c %s '$path' 2>/dev/null || echo 0) -ge $want ] && break; done" >/dev/null 2>&1
}

base= # the perf script row the next rows compare with
row() { # name cmd...
	local name=$1; shift
	run "$@"
	[ "$1" = perf ] && base=$secs
	printf '%-50s %8.3f %9d %9sx\n' "$name" "$secs" $((rss_kb / 1024)) "$(ratio "$base" "$secs")"
}

rss_by_size() { # file recording-options...
	local f=$1 pf; shift
	for part in 4 2 1; do
		pf=$f
		if [ $part -ne 1 ]; then
			pf=${f%.data}-1of$part.data
			record_until "$pf" $(( $(stat -c %s "$f") / 1048576 / part )) "$@"
		fi
		/usr/bin/time -f '%M' -o "$dir/time.out" "$tool" report -j 1 -F "$F" -i "$pf" >/dev/null 2>&1
		read -r kb <"$dir/time.out" || kb=0
		printf '  1/%-4s %6d MB file: %5d MB\n' $part $(($(stat -c %s "$pf") / 1048576)) $((kb / 1024))
	done
}

cg=$dir/cg.data dw=$dir/dwarf.data
record_until "$cg" "${BENCH_CG_MB:-150}" "${CG_OPTS[@]}"
record_until "$dw" "${BENCH_DWARF_MB:-150}" "${DW_OPTS[@]}"
echo
echo "== call chains ($(($(stat -c %s "$cg") / 1048576)) MB -g file, $(($(stat -c %s "$dw") / 1048576)) MB dwarf file; one job each but the -j 2 rows, best of 3)"
echo "(F = -F $F)"
printf '%-50s %8s %9s %10s\n' command seconds "peak MB" "vs perf script"
dd if="$cg" of=/dev/null bs=1M 2>/dev/null
row "-g:    perf script F" perf script -F "$F" -i "$cg"
row "-g:    perf rawfrag report F" "$tool" report -j 1 -F "$F" -i "$cg"
row "-g:    perf rawfrag report --format json" "$tool" report -j 1 --format json -i "$cg"
row "-g:    perf rawfrag report F -j 2" "$tool" report -F "$F" -j 2 -i "$cg"
row "-g:    perf rawfrag report --format json -j 2" "$tool" report --format json -j 2 -i "$cg"
dd if="$dw" of=/dev/null bs=1M 2>/dev/null
row "dwarf: perf script F" perf script -F "$F" -i "$dw"
row "dwarf: perf rawfrag report F" "$tool" report -j 1 -F "$F" -i "$dw"
row "dwarf: perf rawfrag report --format json" "$tool" report -j 1 --format json -i "$dw"
row "dwarf: perf rawfrag report F -j 2" "$tool" report -F "$F" -j 2 -i "$dw"
row "dwarf: perf rawfrag report --format json -j 2" "$tool" report --format json -j 2 -i "$dw"
row "dwarf: perf script --no-inline F" perf script --no-inline -F "$F" -i "$dw"
row "dwarf: perf rawfrag report --no-inline F" "$tool" report -j 1 --no-inline -F "$F" -i "$dw"
echo
echo "peak RSS of report F by -g file size:"
rss_by_size "$cg" "${CG_OPTS[@]}"
echo "peak RSS of report F by dwarf file size:"
rss_by_size "$dw" "${DW_OPTS[@]}"
