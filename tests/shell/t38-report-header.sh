#!/usr/bin/env bash
# report --header-only / --header against perf report --header-only and perf
# script --header on recordings made here: perf's file with call chains, a
# zstd one with a clockid and reference time, event groups, our own record,
# pipe-format streams on stdin (features printed as their records arrive).
# perf prints one line per BPF program recorded in BPF_PROG_INFO/BPF_BTF,
# which report does not (documented): such lines are taken out of perf's text.
source "$(dirname "$0")/lib.sh"
t_plan 10

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "recording needs root"
ensure_tracefs || t_skip_rest "no tracefs"

cat >prog.c <<'EOF'
#include <unistd.h>
int main(void) { long s = 0; for (int i = 0; i < 3000; i++) s += getppid(); usleep(2000); return s == 1; }
EOF
t_setup "test program" gcc -O1 -o prog prog.c
EV="-e syscalls:sys_enter_getppid -e sched:sched_switch"
t_setup "perf record -g" $PERF record -q -g $EV -o g.data ./prog
t_setup "perf record -z -k mono" $PERF record -q -z -k mono -e cpu-clock -c 100000 -o z.data ./prog
t_setup "perf record of groups" $PERF record -q -e '{cpu-clock,task-clock}' \
	-e '{sched:sched_switch,sched:sched_wakeup}' -o grp.data ./prog
t_setup "perf record into a pipe" sh -c "$PERF record -q -g $EV -o - ./prog >pipe.data"
"$RAWFRAG" record $EV -o ours.data -- ./prog >/dev/null 2>&1

# perf's text less the BPF program lines (see above)
noprog() { grep -vE '^# (bpf_prog_info|btf info)|^# 	sub_prog' "$1"; }
# same NAME FILE: report --header-only == perf report --header-only
same() {
	$PERF report --header-only -i "$2" >perf.txt 2>perf.err
	"$RAWFRAG" report --header-only -i "$2" >ours.txt 2>ours.err
	if [ -s ours.txt ] && diff <(noprog perf.txt) ours.txt >diff.txt; then
		t_ok "$1"
	else
		t_fail "$1" "$(head -c 700 diff.txt)" "$(head -c 200 ours.err)"
	fi
}
same "perf's -g file: every header line equals perf report --header-only" g.data
same "zstd + clockid file (compressed, clockid, reference time lines)" z.data
t_grep "that header has the zstd, clockid and reference time lines" \
	'^# reference time: .* \(monotonic\)$' ours.txt
same "event groups: the '# group:' lines" grp.data
[ -s ours.data ] && same "our record's file: its header as perf prints it" ours.data ||
	t_fail "our record's file" "record failed"
# a pipe from stdin: no file header numbers, features as their records arrive
$PERF report --header-only -i - <pipe.data >perf.txt 2>/dev/null
"$RAWFRAG" report --header-only -i - <pipe.data >ours.txt 2>ours.err
if grep -q '^# hostname' ours.txt && diff <(noprog perf.txt) ours.txt >diff.txt; then
	t_ok "pipe on stdin: equals perf report --header-only -i -"
else
	t_fail "pipe on stdin equals perf" "$(head -c 700 diff.txt)" "$(head -c 200 ours.err)"
fi
# --header: the header, then the same lines as perf script
F=comm,tid,time,event,ip,sym,symoff,dso
$PERF script --header -F $F -i g.data >perf.txt 2>/dev/null
"$RAWFRAG" report --header -F $F -i g.data >ours.txt 2>ours.err
if [ "$(grep -vc '^#' ours.txt)" -gt 0 ] && diff <(noprog perf.txt) ours.txt >diff.txt; then
	t_ok "--header -F $F equals perf script --header ($(wc -l <ours.txt) lines)"
else
	t_fail "--header equals perf script --header" "$(head -c 700 diff.txt)"
fi
$PERF script --header -F $F -i - <pipe.data >perf.txt 2>/dev/null
"$RAWFRAG" report --header -F $F -i - <pipe.data >ours.txt 2>ours.err
if [ "$(grep -vc '^#' ours.txt)" -gt 0 ] && diff <(noprog perf.txt) ours.txt >diff.txt; then
	t_ok "--header on a pipe: features among the lines as perf script prints them"
else
	t_fail "--header on a pipe equals perf script --header" "$(head -c 700 diff.txt)"
fi
"$RAWFRAG" report --header --format json -i g.data >/dev/null 2>err.txt
rc=$?
[ $rc -eq 2 ] && grep -q -- "--header goes with text output" err.txt &&
	t_ok "--header with --format json: refused, exit 2" ||
	t_fail "--header with --format json refused" "rc=$rc $(cat err.txt)"
# hostile input: every fuzz corpus file through --header-only (the tool under test is
# the ASan build when there is one): exit 0 or 2, never a crash or a hang
bad=0 n=0
for f in "$TOP"/tests/fuzz/corpus/*; do
	timeout 10 "$RAWFRAG" report --header-only -i "$f" >/dev/null 2>err.txt
	rc=$?
	n=$((n + 1))
	if [ $rc -gt 2 ]; then
		bad=$((bad + 1))
		echo "# $f: exit $rc $(grep -m1 -E 'ERROR|runtime error' err.txt)"
	fi
done
t_eq "fuzz corpus ($n files) through --header-only: no crash, no hang" "0" "$bad"
