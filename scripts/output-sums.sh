#!/usr/bin/env bash
# Checksums of every report output mode on a fixed corpus, to show that a change
# of structure left the bytes alone:
#   scripts/output-sums.sh corpus DIR          record/generate the corpus into DIR (root)
#   scripts/output-sums.sh sums DIR TOOL > F   sha256 and exit status of each mode, per file
# Compare two runs' F with diff (the old binary's against the new one's).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-$top/build/out}
cmd=${1:?corpus|sums}
dir=${2:?DIR}

corpus() {
	mkdir -p "$dir"
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	cd "$dir" || exit 1
	# tracepoints under a syscall-heavy workload (the bench recipe, small)
	perf record -q -o tp.data -m 256 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
		-e sched:sched_switch -e sched:sched_wakeup -a -- sh -c \
		'dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null' >/dev/null 2>&1
	# call chains: cpu-clock and a tracepoint with -g, and a DWARF-unwound one
	perf record -q -o cg.data -g -e cpu-clock -e sched:sched_switch -a -- sh -c \
		'for i in 1 2 3; do ls -R /usr/lib >/dev/null 2>&1; done' >/dev/null 2>&1
	perf record -q -o dwarf.data --call-graph dwarf,8192 -e cpu-clock -- sh -c \
		'for i in 1 2; do ls -R /usr/share/doc >/dev/null 2>&1; done' >/dev/null 2>&1
	# packets and tracepoints through our own recorder (pcapng's input)
	"$O/perf-rawfrag" record -e sched:sched_switch,net:net_dev_queue --skb lo -o skb.data \
		-- ping -c 3 -i 0.2 127.0.0.1 >/dev/null 2>&1
	perf record -q -o pipe.data -e sched:sched_switch -a -o - -- sleep 0.2 >pipe.data 2>/dev/null
	# absent hardware: the generators' fixtures
	"$O/tests/ibs-gen" write ibs >/dev/null 2>&1
	"$O/tests/s390-gen" gen s390 >/dev/null 2>&1
	ls -la "$dir"
}

# one line per mode: sha256 rc mode file
sum1() { # file mode args...
	local f=$1 mode=$2 rc h
	shift 2
	"$tool" report "$@" -i "$f" >"$tmp.out" 2>"$tmp.err"
	rc=$?
	h=$(sha256sum <"$tmp.out" | cut -c1-16)
	# messages name the input: keep them, less the corpus directory
	echo "$h $rc $(sed "s|$dir/||g" "$tmp.err" | sha256sum | cut -c1-8) $mode ${f#"$dir"/}"
}

sums() {
	tool=$(readlink -f "${3:?TOOL}")
	tmp=$(mktemp)
	trap 'rm -f "$tmp" "$tmp.out" "$tmp.err"' EXIT
	local files
	files=$(find "$dir" -name '*.data' -size +0 | sort)
	for f in $files; do
		sum1 "$f" text
		sum1 "$f" text-v -v
		sum1 "$f" text-x -x
		sum1 "$f" json --format json
		sum1 "$f" stats --stats
		sum1 "$f" header --header
		sum1 "$f" header-only --header-only
		sum1 "$f" task --show-task-events
		sum1 "$f" fields-all -F comm,pid,tid,cpu,time,event,trace,ip,sym,symoff,dso,period
		sum1 "$f" fields-ns -F comm,tid,time,event,ip,sym,dso --ns
		sum1 "$f" no-order --no-order
		sum1 "$f" no-cg -G
		sum1 "$f" where --where 'prev_pid > 0'
		sum1 "$f" json-where --format json --where 'id >= 0 || prev_pid >= 0'
		sum1 "$f" cpu-time -C 0 --time 10%-60%
		sum1 "$f" pcapng --format pcapng -o -
		sum1 "$f" force-json -f --format json
	done
}

case $cmd in
corpus) corpus ;;
sums) sums "$@" ;;
*) echo "usage: $0 corpus DIR | sums DIR TOOL" >&2; exit 2 ;;
esac
