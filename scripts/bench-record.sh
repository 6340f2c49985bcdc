#!/usr/bin/env bash
# make bench (record part): the highest tracepoint rate recorded with zero loss by
# perf rawfrag record and by perf record, on the same workload and ring size, and
# the CPU time (user+sys) of each recorder.
#
# Workload: a process making exactly N getppid() calls at a fixed rate (each
# one a syscalls:sys_enter_getppid sample). Both recorders run system-wide
# (-a -m PAGES, until `sleep` exits) while it runs; zero loss means perf script
# finds all N samples of the workload's pid in the file (perf is the oracle for
# both). perf record runs with --no-buildid so that both measure recording only.
#   BENCH_PAGES=64  ring pages per cpu    BENCH_SECS=2  workload seconds
#   BENCH_RATES="50000 100000 200000 400000 800000 0"  (0 = as fast as it can)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
dir=${BENCH_DIR:-$top/build/bench}
pages=${BENCH_PAGES:-64}
secs=${BENCH_SECS:-2}
rates=${BENCH_RATES:-"50000 100000 200000 400000 800000 0"}
ev=syscalls:sys_enter_getppid
mkdir -p "$dir"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d /sys/kernel/tracing/events/syscalls/sys_enter_getppid ]; then
	echo "bench-record: no $ev tracepoint here; skipped" >&2; exit 2
fi
if [ "$(id -u)" != 0 ]; then echo "bench-record: needs root; skipped" >&2; exit 2; fi

# the workload: N getppid() calls at RATE/s (RATE 0: unthrottled); prints N
cat >"$dir/getppid.py" <<'PY'
import os, sys, time
rate, secs = int(sys.argv[1]), float(sys.argv[2])
n, batch, t0 = 0, 1000, time.monotonic()
while time.monotonic() - t0 < secs:
    for _ in range(batch):
        os.getppid()
    n += batch
    if rate:
        ahead = n / rate - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
print(os.getpid(), n)
PY

# one recording: NAME CMD... -> $cpu (recorder user+sys seconds), $got, $want
measure() {
	local name=$1; shift
	rm -f "$dir/b.data"
	/usr/bin/time -f '%U %S' -o "$dir/time.out" "$@" -o "$dir/b.data" -- sleep $((secs + 2)) \
		>/dev/null 2>"$dir/$name.err" &
	local rpid=$!
	sleep 1 # recorder set up and enabled
	local wpid
	read -r wpid want < <(python3 "$dir/getppid.py" "$rate" "$secs")
	wait $rpid
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time.out")
	got=$(perf script -i "$dir/b.data" -F pid,event 2>/dev/null | grep -c "^ *$wpid .*$ev")
}

printf '%-10s | %-28s | %-28s\n' "" "perf rawfrag record" "perf record"
printf '%-10s | %12s %8s %6s | %12s %8s %6s\n' "rate/s" "samples" "lost" "cpu s" "samples" "lost" "cpu s"
best_ours=0 best_perf=0
for rate in $rates; do
	measure ours "$tool" record -q -a -m "$pages" -e "$ev"
	o_got=$got o_want=$want o_cpu=$cpu
	# --no-buildid: perf's post-processing pass is not part of recording
	measure perf perf record -q --no-buildid -a -m "$pages" -e "$ev"
	p_got=$got p_want=$want p_cpu=$cpu
	label=$rate; [ "$rate" = 0 ] && label=max
	# the interpreter makes a few getppid() calls of its own: more is not a loss
	o_lost=$(( o_want > o_got ? o_want - o_got : 0 )) p_lost=$(( p_want > p_got ? p_want - p_got : 0 ))
	printf '%-10s | %12s %8d %6s | %12s %8d %6s\n' "$label" "$o_got/$o_want" \
		"$o_lost" "$o_cpu" "$p_got/$p_want" "$p_lost" "$p_cpu"
	r_o=$(awk -v n="$o_want" -v s="$secs" 'BEGIN { printf "%d", n / s }')
	r_p=$(awk -v n="$p_want" -v s="$secs" 'BEGIN { printf "%d", n / s }')
	[ "$o_lost" = 0 ] && [ "$r_o" -gt "$best_ours" ] && best_ours=$r_o
	[ "$p_lost" = 0 ] && [ "$r_p" -gt "$best_perf" ] && best_perf=$r_p
done
echo
echo "highest rate with zero loss (-m $pages): perf rawfrag record ${best_ours}/s, perf record ${best_perf}/s"

# --- saturation: a tight syscall loop on every CPU, recorded system-wide as
# raw_syscalls:sys_enter at the default ring size (no -m: each recorder's own
# default, 128 pages for perf_event_mlock_kb 516) and at -m 8: samples written,
# lost (LOST records), recorder CPU time and peak RSS, and the workload's
# slowdown against a run without a recorder. perf rawfrag check counts samples
# and lost events in both files (it reads perf's too). The two recorders run
# alternately, BENCH_SAT_RUNS times each (the machine may be shared: compare
# them within a run), then the best and the median lost % of each.
#   BENCH_SAT_COUNT=1000000  read+write syscall pairs per CPU (dd bs=1)
#   BENCH_SAT_RUNS=3
sat_count=${BENCH_SAT_COUNT:-1000000}
sat_runs=${BENCH_SAT_RUNS:-3}
ncpu=$(nproc)
sat_ev=raw_syscalls:sys_enter
# the loop on every cpu; prints its wall-clock seconds
sat_loop() {
	local t0 t1 pids=()
	t0=$(date +%s.%N)
	for _ in $(seq "$ncpu"); do
		dd if=/dev/zero of=/dev/null bs=1 count="$sat_count" status=none &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
# NAME PAGES(default|N) CMD... -> one table row; appends the lost % to $dir/NAME-PAGES.pct
sat_measure() {
	local name=$1 pages=$2 mopt=(); shift 2
	[ "$pages" != default ] && mopt=(-m "$pages")
	rm -f "$dir/s.data"
	/usr/bin/time -f '%U %S %M' -o "$dir/stime.out" "$@" -a "${mopt[@]}" -e "$sat_ev" \
		-o "$dir/s.data" >/dev/null 2>"$dir/s.err" &
	local rpid=$! wl
	sleep 1
	wl=$(sat_loop)
	sleep 0.2
	pkill -INT -P "$rpid" 2>/dev/null || kill -INT "$rpid"
	wait "$rpid"
	local line samples lost cpu rss pct
	line=$("$tool" check "$dir/s.data" 2>/dev/null | head -1)
	samples=$(sed -n 's/.*: \([0-9]*\) samples,.*/\1/p' <<<"$line")
	lost=$(sed -n 's/.*, \([0-9]*\) lost events.*/\1/p' <<<"$line")
	# the last line: time adds "Command terminated by signal 2" before it
	cpu=$(tail -1 "$dir/stime.out" | awk '{ printf "%.2f", $1 + $2 }')
	rss=$(tail -1 "$dir/stime.out" | awk '{ printf "%.0f", $3 / 1024 }')
	pct=$(awk -v s="${samples:-0}" -v l="${lost:-0}" 'BEGIN { printf "%.2f", (s + l ? 100 * l / (s + l) : 0) }')
	echo "$pct" >>"$dir/${name// /_}-$pages.pct"
	printf '%-8s %-20s %11s %10s %6s %6s %6s %9s %8s\n' "$pages" "$name" "${samples:-?}" \
		"${lost:-0}" "$pct" "$cpu" "$rss" "$wl" \
		"$(awk -v w="$wl" -v b="$sat_base" 'BEGIN { printf "%.2fx", (b > 0 ? w / b : 0) }')"
}
# NAME PAGES -> "best B% median M%" of the runs
sat_stats() {
	sort -g "$dir/${1// /_}-$2.pct" | awk '{ v[NR] = $1 } END {
		printf "best %.2f %%, median %.2f %% (%d runs)", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), NR }'
}
echo
echo "== saturation: dd bs=1 ($sat_count read+write pairs) on each of $ncpu CPUs, $sat_ev -a"
sat_base=$(sat_loop)
echo "workload alone: $sat_base s"
rm -f "$dir"/*.pct
printf '%-8s %-20s %11s %10s %6s %6s %6s %9s %8s\n' "pages" "recorder" "samples" "lost" \
	"lost%" "cpu s" "RSS MB" "workload" "slowdown"
for pages in default 8; do
	for _ in $(seq "$sat_runs"); do
		sat_measure "perf rawfrag record" "$pages" "$tool" record -q
		sat_measure "perf record" "$pages" perf record -q --no-buildid
	done
done
echo
for pages in default 8; do
	for name in "perf rawfrag record" "perf record"; do
		printf 'lost, -m %-8s %-20s %s\n' "$pages" "$name:" "$(sat_stats "$name" "$pages")"
	done
done
