#!/usr/bin/env bash
# The main job (`make run`): record tracepoints and a BPF dump of loopback traffic
# while a small workload runs, then check and report the file, and show that perf
# itself reads it. Output goes to build/run/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build/out}
tool=$O/perf-rawfrag
out=$top/build/run
mkdir -p "$out"
data=$out/perf.data
events=sched:sched_switch,sched:sched_process_exec,sched:sched_process_exit,net:net_dev_queue,skb:consume_skb
# a workload that execs, schedules and sends packets on loopback
workload=(sh -c 'for i in 1 2 3; do ping -q -c 2 -i 0.2 -s 1200 127.0.0.1 >/dev/null 2>&1 || python3 -c "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);[s.sendto(b\"x\"*1200,(\"127.0.0.1\",9)) for _ in range(4)]"; ls / >/dev/null; done')

step() { printf '\n==> %s\n' "$*"; }

[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
step "perf rawfrag record -e $events --skb lo -o $data -- <workload>"
if ! "$tool" record -e "$events" --skb lo -o "$data" -- "${workload[@]}"; then
	step "BPF dumps unavailable here; recording tracepoints only"
	"$tool" record -e "$events" -o "$data" -- "${workload[@]}" || exit 1
fi
step "perf rawfrag check $data"
"$tool" check "$data"; rc=$?
[ $rc -le 1 ] || exit $rc
step "perf rawfrag report --stats -i $data"
"$tool" report --stats -i "$data" || exit 1
step "perf rawfrag report -i $data (first 25 lines)"
"$tool" report -i "$data" | head -n 25
step "perf rawfrag report --format json -i $data (first 3 lines)"
"$tool" report --format json -i "$data" | head -n 3
step "perf rawfrag report -e sched:sched_switch -s prev_comm,next_comm -n --percent-limit 2 -i $data (perf report's table)"
"$tool" report -e sched:sched_switch -s prev_comm,next_comm -n --percent-limit 2 -i "$data" | head -n 25
if "$tool" report --format pcapng -o "$out/lo.pcapng" -i "$data" 2>/dev/null; then
	step "packets exported to $out/lo.pcapng"
	command -v tshark >/dev/null && tshark -r "$out/lo.pcapng" 2>/dev/null | head -n 5
fi
step "perf script -i $data (first 5 lines)"
perf script -i "$data" 2>&1 | head -n 5
# the recording at a glance: stacks, field histograms, check summary, losses
page=$out/flamegraph.html
step "perf rawfrag report --format flamegraph -i $data -o $page"
"$tool" report --format flamegraph -i "$data" -o "$page" || exit 1
echo
echo "main job done: $data"
echo "flame graph page: $page"
