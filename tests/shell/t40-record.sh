#!/usr/bin/env bash
# perf rawfrag record on the running kernel: real tracepoints under a workload,
# for a command and system-wide, file and pipe mode. Oracles: perf script reads
# every file with no warning and shows the same samples (event, pid, tid, cpu,
# time) as perf rawfrag report; perf rawfrag check finds no violation. Then the
# error cases and a SIGINT in the middle of a recording.
source "$(dirname "$0")/lib.sh"
t_plan 54

if ! is_root || ! ensure_tracefs; then
	t_skip_rest "perf rawfrag record: needs root and tracefs"
fi

# perf's view and ours of FILE (stdin for pipe streams when $2 = pipe), sorted
perf_view() {
	if [ "${2:-}" = pipe ]; then $PERF script -i - -F event,pid,tid,cpu,time --ns <"$1"
	else $PERF script -i "$1" -F event,pid,tid,cpu,time --ns; fi 2>"$1.perf.err" |
	awk '{ ev = $NF; sub(/:$/, "", ev); split($1, pt, "/"); cpu = $2; gsub(/[][]/, "", cpu)
	       t = $3; sub(/:$/, "", t); split(t, s, "."); printf "%s %d %d %d %d%09d\n",
	       ev, pt[1], pt[2], cpu, s[1], s[2] }' | sort
}
our_view() {
	if [ "${2:-}" = pipe ]; then "$RAWFRAG" report --format json -i - <"$1"
	else "$RAWFRAG" report --format json -i "$1"; fi 2>"$1.our.err" |
	python3 -c '
import json, sys
for l in sys.stdin:
    if l.strip():
        j = json.loads(l)
        if "event" in j and "time_ns" in j:
            print(j["event"], j["pid"], j["tid"], j["cpu"], j["time_ns"])' | sort
}
# records our summary (stderr file $1) says were lost: a loaded machine may lose
# some, and then perf must say so too (lost data is never silent)
lost_in() {
	sed -n 's/.*lost:\(.*\)(lost samples \([0-9]*\)).*/\1 \2/p' "$1" |
		tr ' ' '\n' | grep -E '^[0-9]+$' | awk '{ s += $1 } END { print s + 0 }'
}
# compare NAME FILE [pipe]: FILE.rec.err holds the record command's stderr
compare() {
	perf_view "$2" "${3:-}" >"$2.perf"
	our_view "$2" "${3:-}" >"$2.ours"
	local n lost; n=$(wc -l <"$2.perf")
	lost=$(lost_in "$2.rec.err" 2>/dev/null || echo 0)
	if [ "${lost:-0}" = 0 ]; then
		t_eq "$1: perf script prints no warning" "" "$(cat "$2.perf.err")"
	elif grep -q 'lost' "$2.perf.err"; then
		t_ok "$1: perf script warns about the $lost lost records our summary reports (loaded machine)"
	else
		t_fail "$1: perf script reports the $lost lost records" "$(cat "$2.perf.err")"
	fi
	if [ "$n" -gt 0 ] && cmp -s "$2.perf" "$2.ours"; then
		t_ok "$1: perf script and perf rawfrag report show the same $n samples"
	else
		t_fail "$1: perf script and perf rawfrag report show the same samples" \
			"perf $n, ours $(wc -l <"$2.ours")" "$(diff "$2.perf" "$2.ours" | head -5)"
	fi
}

# --- a command
t_run "record a command (sched_switch, sched_process_exec, -g)" 0 "$RAWFRAG" record -g \
	-e sched:sched_switch,sched:sched_process_exec -o cmd.data -- \
	sh -c 'ls / >/dev/null; sleep 0.05; ls /usr >/dev/null'
cp err cmd.data.rec.err
t_grep "summary names the file and counts samples" \
	'Captured and wrote [0-9.]+ MB cmd.data \([1-9][0-9]* samples\)' cmd.data.rec.err
compare "command" cmd.data
t_grep "perf script names the workload (synthesized/kernel COMM)" \
	'^ *ls +[0-9]+ .*sched:sched_process_exec: filename=/usr/bin/ls' \
	<($PERF script -i cmd.data 2>/dev/null)
t_run "perf rawfrag check: no violation (command)" 0 "$RAWFRAG" check cmd.data
$PERF report -i cmd.data --stdio >/dev/null 2>rep.err
t_eq "perf report reads it with no warning" "" "$(cat rep.err)"

# --- system-wide, several events, under a workload
( for i in $(seq 200); do cat /proc/self/stat >/dev/null; done ) &
t_run "record system-wide for 1 s" 0 "$RAWFRAG" record -a -e sched:sched_switch \
	-e 'sched:sched_wakeup*' -e cpu-clock -c 100000 --duration 1 -m 512 -o sys.data
cp err sys.data.rec.err
wait
compare "system-wide" sys.data
n_ev=$(cut -d' ' -f1 sys.data.perf | sort -u | wc -l)
[ "$n_ev" -ge 3 ] && t_ok "system-wide: $n_ev distinct events recorded" ||
	t_fail "system-wide: several events recorded" "$(cut -d' ' -f1 sys.data.perf | sort | uniq -c)"
t_run "perf rawfrag check: no violation (system-wide)" 0 "$RAWFRAG" check sys.data
$PERF report -i sys.data --header-only 2>/dev/null >hdr.txt
t_grep "features: hostname, os release, nrcpus, cmdline, pmu mappings" \
	'# hostname' hdr.txt
for f in '# os release' '# nrcpus' '# cmdline : .*record' '# pmu mappings' '# arch' '# cpuid' '# event : name = sched:sched_switch'; do
	t_grep "header has '$f'" "$f" hdr.txt
done

# --- existing tasks: -t (that thread only) and -p (the process and its children)
sh -c 'while :; do sleep 0.02; done' &
bg=$!
sleep 0.1
t_run "record -t" 0 "$RAWFRAG" record -t $bg -e sched:sched_switch --duration 0.5 -q -o tid.data
$PERF script -i tid.data -F comm,tid 2>/dev/null | sort | uniq -c >tid.txt
t_eq "-t: every sample is the thread, named by the synthesized COMM" "sh $bg" \
	"$(awk '{ print $2, $3 }' tid.txt | sort -u | tr '\n' ' ' | sed 's/ $//')"
t_run "record -p" 0 "$RAWFRAG" record -p $bg -e sched:sched_switch,sched:sched_process_exec \
	--duration 0.5 -q -o pid.data
$PERF script -i pid.data -F comm,pid,event 2>/dev/null >pid.txt
t_grep "-p: the process is recorded" "^ *sh +$bg +sched:sched_switch" pid.txt
t_grep "-p: its children are recorded (inherit)" '^ *sleep +[0-9]+ +sched:sched_process_exec' pid.txt
kill $bg; wait $bg 2>/dev/null
compare "-p" pid.data

# --- event parsing: perf record is the oracle for the attr of the same -e strings
evs=(-e 'software/config=3/' -e 'cs:u' -e 'page-faults:k')
"$RAWFRAG" record -a "${evs[@]}" --duration 0.2 -q -o pmu.data >/dev/null 2>&1
$PERF record -q -a "${evs[@]}" -o perfpmu.data -- sleep 0.2 >/dev/null 2>&1
attrs() { # name, type, config and exclude bits of each event in the header
	$PERF report -i "$1" --header-only 2>/dev/null | grep '^# event : name = ' | grep -v 'name = dummy' |
	sed -E 's/^# event : name = ([^,]*),.*type = ([0-9]+).*config = (0x[0-9a-f]+).*/\1 \2 \3/;
		s/$/ /' | while read -r line; do
		n=${line%% *}; l=$($PERF report -i "$1" --header-only 2>/dev/null | grep -F "name = $n,")
		echo "$line ek=$(grep -c 'exclude_kernel = 1' <<<"$l") eu=$(grep -c 'exclude_user = 1' <<<"$l")"
	done
}
t_eq "event parsing: name, type, config, exclude bits as perf record's" \
	"$(attrs perfpmu.data)" "$(attrs pmu.data)"

# --- pipe mode, read from stdin by both
"$RAWFRAG" record -a -e sched:sched_switch --duration 0.5 -m 512 -o - >pipe.data 2>pipe.data.rec.err
t_eq "pipe mode exits 0" 0 $?
compare "pipe mode" pipe.data pipe
"$RAWFRAG" check - <pipe.data >/dev/null 2>&1
t_eq "perf rawfrag check: no violation (pipe)" 0 $?

# --- filter on the preceding tracepoint (and not on the next -e)
t_run "record with --filter" 0 "$RAWFRAG" record -a -e sched:sched_switch --filter 'prev_comm == "sleep"' \
	-e sched:sched_process_exec -q -o filt.data -- sleep 0.2
$PERF script -i filt.data -F event,trace 2>/dev/null >filt.txt
sw=$(grep -c 'sched_switch' filt.txt)
t_eq "--filter: every sched_switch has prev_comm=sleep" "$sw" "$(grep -c 'prev_comm=sleep ' filt.txt)"
[ "$sw" -gt 0 ] && t_ok "--filter: $sw sched_switch samples recorded" ||
	t_fail "--filter: sched_switch samples recorded" "none"
t_grep "--filter does not apply to the next -e" 'sched_process_exec' filt.txt

# --- errors: one message, non-zero exit
want_err() { # NAME PATTERN CMD...
	local name=$1 pat=$2; shift 2
	"$@" >/dev/null 2>e.txt; local rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c . e.txt)" = 1 ] && grep -qE -- "$pat" e.txt; then
		t_ok "$name"
	else
		t_fail "$name" "rc=$rc" "$(head -c 400 e.txt)"
	fi
}
if [ -e /sys/bus/event_source/devices/ibs_op ]; then
	t_skip "unknown PMU" "this machine has ibs_op"
else
	want_err "unknown PMU: ibs_op//" 'PMU ibs_op is not present on this machine' \
		"$RAWFRAG" record -a -e ibs_op// -o x.data
fi
want_err "unknown event" "unknown event 'nosuch'" "$RAWFRAG" record -a -e nosuch -o x.data
want_err "unknown tracepoint" "unknown tracepoint 'nosys:nothing'" \
	"$RAWFRAG" record -a -e nosys:nothing -o x.data
want_err "bad filter" "bad filter 'prev_pid ==' for sched:sched_switch" \
	"$RAWFRAG" record -a -e sched:sched_switch --filter 'prev_pid ==' -o x.data
want_err "output not writable" "cannot write $T/nodir/x.data" \
	"$RAWFRAG" record -a -e sched:sched_switch -o "$T/nodir/x.data"
# (no target is a system-wide recording, as perf's: t42-record-habits.sh)
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	want_err "no privilege (unprivileged user, system-wide)" 'no permission .*perf_event_paranoid' \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$RAWFRAG" record -a -e cpu-clock -o /tmp/x.data
else
	t_skip "no privilege" "no setpriv or perf_event_paranoid < 1"
fi
if command -v unshare >/dev/null && command -v setpriv >/dev/null; then
	# a private mount namespace without tracefs
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		setpriv --reuid=65534 --regid=65534 --clear-groups '$RAWFRAG' record -a \
			-e sched:sched_switch -o /tmp/x.data" >/dev/null 2>e.txt
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'tracefs is not mounted; as root run: mount -t tracefs' e.txt; then
		t_ok "tracefs not mounted, not root: says how to mount it"
	else
		t_fail "tracefs not mounted, not root: says how to mount it" "rc=$rc" "$(head -c 300 e.txt)"
	fi
	if setpriv --reuid=65534 --regid=65534 --clear-groups test -r /sys/kernel/tracing/events; then
		t_skip "tracefs not readable" "tracefs is readable by nobody here"
	else
		want_err "tracefs mounted but not readable: says so" 'no permission to read tracefs' \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$RAWFRAG" record \
			-e sched:sched_switch -o /tmp/x.data -- true
	fi
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		'$RAWFRAG' record -a -e sched:sched_switch --duration 0.2 -q -o '$T/mnt.data'" \
		>/dev/null 2>e.txt
	t_eq "tracefs not mounted, root: mounts it and records" "0 ok" \
		"$? $([ -s mnt.data ] && echo ok)"
else
	t_skip "tracefs not mounted" "no unshare/setpriv"
fi
if mkdir -p small && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	"$RAWFRAG" record -a -g -e cpu-clock -e sched:sched_switch --duration 2 -q \
		-o small/x.data >/dev/null 2>e.txt
	rc=$?
	umount small
	if [ $rc -ne 0 ] && grep -q 'No space left on device' e.txt; then
		t_ok "disk full: error and non-zero exit"
	else
		t_fail "disk full: error and non-zero exit" "rc=$rc" "$(head -c 300 e.txt)"
	fi
else
	t_skip "disk full" "cannot mount a small tmpfs"
fi

# --- SIGINT in the middle of a recording leaves a valid file
"$RAWFRAG" record -a -e sched:sched_switch -e cpu-clock -m 512 -o int.data 2>int.data.rec.err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
t_eq "SIGINT: exits 0" 0 $?
compare "after SIGINT" int.data
t_run "perf rawfrag check: no violation (after SIGINT)" 0 "$RAWFRAG" check int.data

# --- pipe mode with a command: the command's stdout must not corrupt the stream
"$RAWFRAG" record -e sched:sched_process_exec -o - -- sh -c 'echo hello-from-workload; ls / >/dev/null' \
	>cmdpipe.data 2>cmdpipe.data.rec.err
t_eq "pipe mode with a command exits 0" 0 $?
t_grep "the command's stdout went to stderr" 'hello-from-workload' cmdpipe.data.rec.err
compare "pipe mode with a command" cmdpipe.data pipe
