#!/usr/bin/env bash
# perf rawfrag record keeps perf record's habits. Oracle: perf record 6.1 on the
# same command line: the option syntax (required vs optional arguments, '--'),
# the attrs the options give (perf evlist -v), -z files perf reads, exit
# statuses, the default (system-wide) target, perf.data.old, -p stopping when
# its target exits, and dying with the perf dispatcher.
source "$(dirname "$0")/lib.sh"
t_plan 52

if ! is_root || ! ensure_tracefs; then
	t_skip_rest "perf rawfrag record habits: needs root and tracefs"
fi

# the attr fields the options set, for the first non-dummy event of a file:
# the option's sample_type bits and the fields named in $2 (default: not clockid,
# which we always set and perf only with -k)
attr_of() {
	local keys=${2:-sample_regs_user|sample_stack_user|sample_regs_intr|exclude_callchain_user}
	$PERF evlist -v -i "$1" 2>/dev/null | grep -v '^dummy' | head -1 | tr ',' '\n' | sed 's/^ *//' >attr.txt
	grep '^sample_type:' attr.txt | tr ':|' '\n\n' |
		grep -xE 'CALLCHAIN|ADDR|REGS_USER|STACK_USER|REGS_INTR|BRANCH_STACK' | sort | tr '\n' ' '
	grep -E "^($keys):" attr.txt | sort | tr '\n' ' '
}

# --- option syntax: --call-graph takes an argument; -o after it is honoured
mkdir cg && cd cg
"$RAWFRAG" record -q -e sched:sched_switch --call-graph dwarf -o mine.data -- sh -c 'sleep 0.01' \
	>/dev/null 2>err.txt
rc=$?
t_eq "--call-graph dwarf -o mine.data -- CMD: exit 0, mine.data written, no perf.data" \
	"0 yes no" "$rc $([ -s mine.data ] && echo yes || echo no) $([ -e perf.data ] && echo yes || echo no)"
$PERF record -q -e sched:sched_switch --call-graph dwarf -o perf-mine.data -- sh -c 'sleep 0.01' \
	>/dev/null 2>&1
t_eq "--call-graph dwarf: the attr perf record gives (regs, stack size, exclude_callchain_user)" \
	"$(attr_of perf-mine.data)" "$(attr_of mine.data)"
$PERF script -i mine.data >/dev/null 2>ps.err
t_eq "perf script reads the dwarf file with no warning" "" "$(cat ps.err)"
cd ..
for cg in 'dwarf,4001' 'fp'; do
	"$RAWFRAG" record -q -e sched:sched_switch --call-graph "$cg" -o ours.data -- true 2>/dev/null
	$PERF record -q -e sched:sched_switch --call-graph "$cg" -o perf.cg.data -- true 2>/dev/null
	t_eq "--call-graph $cg: attr as perf record's" "$(attr_of perf.cg.data)" "$(attr_of ours.data)"
done
for opts in '--user-regs=AX,BX,SP,IP' '--user-regs' '-d' '-k mono' '-k CLOCK_MONOTONIC_RAW' \
	'-k 4' '-T' '--intr-regs=AX,R15' '-IAX,CX'; do
	keys=
	case $opts in -k*) keys='clockid|use_clockid';; esac
	# shellcheck disable=SC2086
	"$RAWFRAG" record -q -e sched:sched_switch $opts -o ours.data -- true 2>/dev/null
	r1=$?
	# shellcheck disable=SC2086
	$PERF record -q -e sched:sched_switch $opts -o perf.opt.data -- true >/dev/null 2>&1
	r2=$?
	t_eq "$opts: exit status and attr as perf record's" "$r2 $(attr_of perf.opt.data $keys)" \
		"$r1 $(attr_of ours.data $keys)"
done
# CLOCK_REALTIME: the kernel refuses it for a PMU that may fire in NMI (perf fails too)
"$RAWFRAG" record -q -e sched:sched_switch -k realtime -o rt.data -- true >/dev/null 2>rt.err
r1=$?
$PERF record -q -e sched:sched_switch -k realtime -o prt.data -- true >/dev/null 2>&1
r2=$?
t_eq "-k realtime on a tracepoint: fails as perf record fails, saying why" "fails fails yes" \
	"$([ $r2 != 0 ] && echo fails) $([ $r1 = 2 ] && echo fails) $(grep -q 'NMI-safe clock' rt.err && echo yes)"
"$RAWFRAG" record --user-regs=? >regs.txt 2>&1
t_eq "--user-regs=? lists the registers, exit 0" "0 yes" \
	"$? $(grep -q 'available registers: AX BX' regs.txt && echo yes)"

# -z: an optional argument only glued; a separate word is the command (as perf)
"$RAWFRAG" record -q -z 3 -o z.data -- true >/dev/null 2>z.err
r1=$?
$PERF record -q -z 3 -o pz.data -- true >/dev/null 2>&1
t_eq "-z 3: '3' is the command, exit status as perf's ($r1)" "$?" "$r1"
t_grep "-z 3: the message names the command" "cannot run '3'" z.err
"$RAWFRAG" record -q -z5 -a -e sched:sched_switch,raw_syscalls:sys_enter -m 256 --duration 0.5 \
	-o z.data 2>z.err
t_eq "-z5 system-wide: exit 0" 0 $?
$PERF report -i z.data --header-only 2>/dev/null | grep '^# compressed' >zh.txt
t_grep "perf report --header-only: the COMPRESSED feature says Zstd level 5" \
	'compressed : Zstd, level = 5' zh.txt
$PERF script -i z.data -F event,pid,tid,cpu,time --ns 2>zs.err |
	awk '{ ev = $NF; sub(/:$/, "", ev); t = $3; sub(/:$/, "", t); print ev, $1, $2, t }' | sort >zp.txt
"$RAWFRAG" report --format json -i z.data 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    j = json.loads(l)
    if "event" in j and "time_ns" in j:
        print(j["event"], "%d/%d" % (j["pid"], j["tid"]), "[%03d]" % j["cpu"],
              "%d.%09d" % divmod(j["time_ns"], 10**9))' | sort >zo.txt
n=$(wc -l <zp.txt)
if [ "$n" -gt 0 ] && cmp -s zp.txt zo.txt && [ ! -s zs.err ]; then
	t_ok "-z: perf script (no warning) and our report show the same $n samples"
else
	t_fail "-z: perf script and our report show the same samples" "perf $n ours $(wc -l <zo.txt)" \
		"$(head -3 zs.err)" "$(diff zp.txt zo.txt | head -4)"
fi
t_run "-z: perf rawfrag check: no violation" 0 "$RAWFRAG" check z.data

# --- bad options: one message, exit 2, no file touched
mkdir bad && cd bad
echo sentinel >perf.data
sum=$(md5sum perf.data)
bad() { # NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	"$RAWFRAG" record "$@" >/dev/null 2>e.txt
	local rc=$?
	if [ $rc = 2 ] && [ "$(grep -c . e.txt)" = 1 ] && grep -qE -- "$pat" e.txt &&
	   [ "$(md5sum perf.data)" = "$sum" ] && [ ! -e perf.data.old ] && [ ! -e x.data ]; then
		t_ok "$name: one message, exit 2, no file touched"
	else
		t_fail "$name: one message, exit 2, no file touched" "rc=$rc" "$(head -c 300 e.txt)" \
			"$(ls)"
	fi
}
bad "unknown long option" "unknown option '--bogus'" --bogus -e sched:sched_switch -- true
bad "unknown short option" "unknown option '-Y'" -Y -- true
bad "missing argument" "option '-o' needs an argument" -e sched:sched_switch -o
bad "--call-graph without its argument" "option '--call-graph' needs an argument" --call-graph
bad "bad --call-graph mode" "--call-graph: 'frame'" --call-graph frame -- true
bad "--call-graph dwarf,0" "stack dump size" --call-graph dwarf,0 -- true
bad "unknown register" "'XX': unknown register" --user-regs=AX,XX -- true
bad "unknown clock" "-k: 'sundial'" -k sundial -- true
bad "-z out of range" "-z \(1..22\)" -z99 -- true
bad "-c and -F" "-c and -F exclude each other" -c 10 -F 10 -o x.data -- true
bad "-B and --buildid-all" "-B and --buildid-all exclude" -B --buildid-all -o x.data -- true
bad "-a and -p" "-a and -p/-t exclude" -a -p $$ -o x.data
bad "-p and a command" "-p/-t and a command exclude" -p $$ -o x.data -- true
bad "-C 99" "CPU 99 is not present" -C 99 -e sched:sched_switch -o x.data -- true
cd ..

# --- exit status: the workload's, as perf record's
st() { "$@" >/dev/null 2>&1; echo $?; }
for cmd in "sh -c 'exit 3'" "sh -c 'kill -9 \$\$'" "sh -c 'kill -TERM \$\$'" true /nonexistent/cmd; do
	ours=$(eval st "$RAWFRAG" record -q -e sched:sched_switch -o st.data -- "$cmd")
	theirs=$(eval st "$PERF" record -q -e sched:sched_switch -o pst.data -- "$cmd")
	t_eq "exit status of 'record -- $cmd' as perf record's ($theirs)" "$theirs" "$ours"
done
"$RAWFRAG" record -q -e sched:sched_switch -o st.data -- /nonexistent/cmd 2>e.txt
t_grep "exec failure names the command" "cannot run '/nonexistent/cmd': No such file" e.txt
t_run "a failed exec still leaves a valid file" 0 "$RAWFRAG" check st.data

# --- no target: system-wide (perf record too), until SIGINT or --duration
( for i in $(seq 300); do cat /proc/self/stat >/dev/null; done ) &
"$RAWFRAG" record -e sched:sched_switch -o sw.data 2>sw.err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
wait
timeout -s INT 1 $PERF record -e sched:sched_switch -o psw.data >/dev/null 2>&1
cpus() { $PERF script -i "$1" -F cpu 2>/dev/null | sort -u | wc -l; }
pids() { $PERF script -i "$1" -F pid 2>/dev/null | sort -u | wc -l; }
[ "$rc" = 0 ] && [ "$(cpus sw.data)" -ge "$(cpus psw.data)" ] && [ "$(pids sw.data)" -gt 2 ] &&
	t_ok "no target: system-wide until SIGINT, exit 0 ($(cpus sw.data) CPUs, $(pids sw.data) pids; perf: $(cpus psw.data) CPUs)" ||
	t_fail "no target: system-wide until SIGINT" "rc=$rc cpus $(cpus sw.data) vs perf $(cpus psw.data), pids $(pids sw.data)" "$(head -3 sw.err)"
t_run "no target: perf rawfrag check passes" 0 "$RAWFRAG" check sw.data
if ip link show lo >/dev/null 2>&1 && command -v ping >/dev/null; then
	"$RAWFRAG" record --skb lo -o skb.data 2>skb.err &
	pid=$!
	wait_progs 1
	sleep 0.5 # attached and enabled after the programs load
	ping -c 5 -i 0.2 127.0.0.1 >/dev/null 2>&1
	kill -INT $pid
	wait $pid
	rc=$?
	n=$("$RAWFRAG" report -i skb.data 2>/dev/null | grep -c 'ICMP echo request')
	[ "$rc" = 0 ] && [ "$n" -ge 3 ] && t_ok "--skb lo without target: captures until SIGINT ($n echo requests)" ||
		t_fail "--skb lo without target: captures until SIGINT" "rc=$rc requests=$n" "$(head -3 skb.err)"
	"$RAWFRAG" record -q --skb lo --snaplen 9000 -m 4 --duration 0.1 -o skbw.data 2>skbw.err
	t_grep "--skb: warns when snaplen + meta exceed a quarter of the ring" \
		'snaplen 9000 \+ [0-9]+ bytes of meta do not fit in a quarter of the 16384-byte ring' skbw.err
else
	t_skip "--skb lo without target" "no lo or ping"
	t_skip "--skb snaplen warning" "no lo or ping"
fi

# --- perf.data.old, as perf record
mkdir rot && cd rot
"$RAWFRAG" record -q -e sched:sched_switch -- true 2>/dev/null
cp perf.data first.data
"$RAWFRAG" record -q -e sched:sched_switch -- true 2>/dev/null
ours="$(cmp -s first.data perf.data.old && echo old=first) $([ -s perf.data ] && echo new)"
rm -f perf.data perf.data.old
# (stdout not a pipe: perf would write a pipe stream to it)
$PERF record -q -e sched:sched_switch -- true >/dev/null 2>&1
cp perf.data first.data
$PERF record -q -e sched:sched_switch -- true >/dev/null 2>&1
theirs="$(cmp -s first.data perf.data.old && echo old=first) $([ -s perf.data ] && echo new)"
t_eq "second recording: perf.data.old holds the first, as perf record" "$theirs" "$ours"
cd ..

# --- -p stops by itself when its target exits (perf record does)
sleep 0.5 &
bg=$!
t_setup "perf record -p stops when its process exits" \
	timeout 10 $PERF record -q -p $bg -e sched:sched_switch -o pp.data
sleep 0.7 &
bg=$!
timeout 10 "$RAWFRAG" record -q -p $bg -e sched:sched_switch -o p.data 2>p.err
rc=$?
t_eq "-p: stops when the process exits, exit 0" 0 "$rc"
t_run "-p: the file is valid" 0 "$RAWFRAG" check p.data

# --- dying with the perf dispatcher: perf killed -> we finish the file and exit
dir=$(dirname "$RAWFRAG")
PATH=$dir:$PATH $PERF rawfrag record -a -e sched:sched_switch -o pd.data >/dev/null 2>pd.err &
perfpid=$!
child=
for _ in $(seq 50); do
	child=$(pgrep -P $perfpid -f perf-rawfrag | head -1)
	[ -n "$child" ] && [ -s pd.data ] && break
	sleep 0.1
done
if [ -z "$child" ]; then
	t_skip_n 2 "dies with the perf dispatcher" "perf did not fork perf-rawfrag: $(head -2 pd.err)"
else
	sleep 0.3
	kill -KILL $perfpid
	wait $perfpid 2>/dev/null
	for _ in $(seq 50); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$child" 2>/dev/null && { t_fail "perf killed: the recorder stops"; kill -KILL "$child"; } ||
		t_ok "perf killed: the recorder stops (PR_SET_PDEATHSIG)"
	t_run "perf killed: the file was finished (check passes)" 0 "$RAWFRAG" check pd.data
fi
