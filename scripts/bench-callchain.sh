#!/usr/bin/env bash
# make bench, call chains: a -g tracepoint file (BENCH_CG_MB, default 150) read
# with perf script's symbol columns, and a --call-graph dwarf file
# (BENCH_DWARF_MB, default 40) unwound, both against perf script; peak RSS of
# report over 1/4, 1/2 and all of the -g file (bounded by the DSOs, not the size).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
F='comm,tid,time,event,ip,sym,symoff,dso'

run() { # -> $secs $rss_kb
	/usr/bin/time -f '%e %M' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/err.out"
	read -r secs rss_kb <"$dir/time.out" || { secs=0; rss_kb=0; }
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.1f", a / b }'; }

record_until() { # path MB perf-record-options...
	local path=$1 want=$(($2 * 1024 * 1024)); shift 2
	[ -f "$path" ] && [ "$(stat -c %s "$path")" -ge "$want" ] && return
	echo "recording $path (${want} bytes): perf record $*"
	perf record -q -o "$path" "$@" -- sh -c "
		while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; ls -R /usr/lib >/dev/null
			[ \$(stat -c %s '$path' 2>/dev/null || echo 0) -ge $want ] && break; done" >/dev/null 2>&1
}

row() { # name perf-secs cmd...
	local name=$1 base=$2; shift 2
	run "$@"
	printf '%-56s %8.2f %9d %9sx\n' "$name" "$secs" $((rss_kb / 1024)) "$(ratio "$base" "$secs")"
}

cg=$dir/cg.data dw=$dir/dwarf.data
record_until "$cg" "${BENCH_CG_MB:-150}" -g -m 1024 -a -e raw_syscalls:sys_enter -e sched:sched_switch
record_until "$dw" "${BENCH_DWARF_MB:-40}" --call-graph dwarf,4096 -m 1024 -e cpu-clock -c 100000
echo
echo "== call chains ($(($(stat -c %s "$cg") / 1048576)) MB -g file, $(($(stat -c %s "$dw") / 1048576)) MB dwarf file; 1 core)"
printf '%-56s %8s %9s %10s\n' command seconds "peak MB" "vs perf script"
dd if="$cg" of=/dev/null bs=1M 2>/dev/null
run perf script -F "$F" -i "$cg"; p=$secs
printf '%-56s %8.2f %9d %9sx\n' "perf script -F $F (-g)" "$p" $((rss_kb / 1024)) 1.0
row "perf rawfrag report -F $F (-g)" "$p" "$tool" report -F "$F" -i "$cg"
row "perf rawfrag report --format json (-g)" "$p" "$tool" report --format json -i "$cg"
dd if="$dw" of=/dev/null bs=1M 2>/dev/null
run perf script -F "$F" -i "$dw"; p=$secs
printf '%-56s %8.2f %9d %9sx\n' "perf script -F $F (dwarf)" "$p" $((rss_kb / 1024)) 1.0
row "perf rawfrag report -F $F (dwarf)" "$p" "$tool" report -F "$F" -i "$dw"
echo
echo "peak RSS of report -F $F by -g file size:"
for part in 4 2 1; do
	pf=$cg
	if [ $part -ne 1 ]; then
		pf=$dir/cg-1of$part.data
		record_until "$pf" $(( $(stat -c %s "$cg") / 1048576 / part )) -g -m 1024 -a \
			-e raw_syscalls:sys_enter -e sched:sched_switch
	fi
	run "$tool" report -F "$F" -i "$pf"
	printf '  1/%-4s %6d MB file: %5d MB\n' $part $(($(stat -c %s "$pf") / 1048576)) $((rss_kb / 1024))
done
