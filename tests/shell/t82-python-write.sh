#!/usr/bin/env bash
# Reader.write(): every output of the library written through the Python module
# is the bytes `perf rawfrag report` writes for the same options, on recordings
# made here (tracepoints + skb dumps of lo, a -g cpu-clock file, a pipe) and on
# the generated IBS and s390 fixtures; bad formats and options raise
# rawfrag.Error naming the reason, as the command refuses them.
source "$(dirname "$0")/lib.sh"
t_plan 30
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export PYTHONPATH=$O/python

if ! ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	t_fail "python module built" "no $O/python/rawfrag*.so"
	t_skip_rest "the module is not built"
fi
if ! is_root || ! ensure_tracefs; then t_skip_rest "recording needs root and tracefs"; fi

WORK='ping -c 3 -i 0.1 127.0.0.1 >/dev/null; ls / >/dev/null; sleep 0.05'
t_setup "record tracepoints and skb dumps" "$RAWFRAG" record \
	-e sched:sched_switch,sched:sched_process_exec,sched:sched_wakeup --skb lo -o tp.data \
	-- sh -c "$WORK"
t_setup "record a pipe" sh -c "'$RAWFRAG' record -e sched:sched_switch --skb lo -o - -- sh -c '$WORK' >pipe.data"
t_setup "perf record -g" $PERF record -q -g -e cpu-clock -o cg.data -- sh -c 'ls -R /usr/lib >/dev/null 2>&1'
t_setup "ibs fixtures" "$O/tests/ibs-gen" write ibs
mkdir -p s390
t_setup "s390 fixtures" "$O/tests/s390-gen" gen s390

# same NAME FILE FORMAT 'PYOPTS' CMDOPTS...: write() and the command give the same bytes
same() {
	local name=$1 f=$2 fmt=$3 pyopts=$4
	shift 4
	rm -f py.out cmd.out
	$PY - "$f" "$fmt" <<EOF 2>py.err
import rawfrag, sys
r = rawfrag.open(sys.argv[1])
r.write(sys.argv[2], "py.out"$pyopts)
EOF
	local pyrc=$?
	"$RAWFRAG" report -i "$f" -o cmd.out "$@" 2>cmd.err
	local rc=$?
	if [ "$pyrc" = 0 ] && [ "$rc" = 0 ] && [ -s cmd.out ] && cmp -s py.out cmd.out; then
		t_ok "$name: $(wc -c <cmd.out) bytes equal"
	else
		t_fail "$name" "python exit $pyrc, report exit $rc, sizes $(wc -c <py.out 2>/dev/null) $(wc -c <cmd.out)" \
			"$(head -c 300 py.err) $(head -c 300 cmd.err)" "$(cmp py.out cmd.out 2>&1 | head -2)"
	fi
}

same "text" tp.data text ''
same "text -F and --ns" tp.data text ', fields="comm,pid,tid,cpu,time,event,trace", ns=True' \
	-F comm,pid,tid,cpu,time,event,trace --ns
same "text -v --show-task-events" tp.data text ', verbose=True, tasks=True' -v --show-task-events
same "text --header" tp.data text ', header=True, input="tp.data"' --header
same "json" tp.data json '' --format json
same "json with --where" tp.data json ', where="prev_pid > 0"' --format json --where 'prev_pid > 0'
same "json -e" tp.data json ', events="sched:sched_wakeup"' --format json -e sched:sched_wakeup
same "pcapng" tp.data pcapng '' --format pcapng
same "stats" tp.data stats '' --stats
same "header" tp.data header ', input="tp.data"' --header-only
same "pipe: text" pipe.data text ''
same "pipe: json" pipe.data json '' --format json
same "pipe: pcapng" pipe.data pcapng '' --format pcapng
same "pipe: header" pipe.data header ', input="pipe.data"' --header-only
same "-g: text with chains" cg.data text ''
same "-g: text, symbols as a list" cg.data text ', fields=["comm", "tid", "time", "event", "ip", "sym", "symoff", "dso"]' \
	-F comm,tid,time,event,ip,sym,symoff,dso
same "-g: json" cg.data json '' --format json
same "-g: text, no call chain" cg.data text ', callchain=False' -G
same "-g: json --max-stack 3" cg.data json ', max_stack=3' --format json --max-stack 3
same "-g: text --cpu 0 --time 10%-50%" cg.data text ', cpu="0", time="10%-50%"' -C 0 --time 10%-50%
same "ibs zen4: json" ibs/ibs-zen4.data json '' --format json
same "ibs zen4: text -v" ibs/ibs-zen4.data text ', verbose=1' -v
same "s390 CPUM-SF: json" s390/s390-sf.data json '' --format json
same "s390 CF_DIAG z16: text" s390/s390-z16.data text ''

# errors: the command's messages, raised as rawfrag.Error
err() { # NAME PYCODE PATTERN
	$PY -c "import rawfrag
r = rawfrag.open('tp.data')
try:
    $2
    print('no error')
except rawfrag.Error as e:
    print('Error:', e)
except Exception as e:
    print(type(e).__name__ + ':', e)" >err.out 2>&1
	t_grep "$1" "$3" err.out
}
err "unknown format" "r.write('svg', 'x.out')" "Error:.*unknown format 'svg'"
err "unknown option of a format" "r.write('json', 'x.out', ns=True)" "Error:.*json output has no option 'ns'"
err "bad -F field" "r.write('text', 'x.out', fields='comm,bogus')" "Error:.*unknown field 'bogus'"
err "a --where field no sample has" "r.write('json', 'x.out', where='nosuch == 1')" \
	"Error:.*no sample has a field 'nosuch'"
err "a bad option value" "r.write('text', 'x.out', ns=[1])" "TypeError:|Error:"
# formats() names what write() takes
$PY -c 'import rawfrag; print(",".join(rawfrag.formats()))' >fmts.out 2>&1
t_grep "formats() lists the library's sinks" '^text,json,pcapng,stats,header,table,folded,flamegraph-json,flamegraph,pprof,sqlite$' fmts.out
