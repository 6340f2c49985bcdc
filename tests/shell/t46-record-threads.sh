#!/usr/bin/env bash
# perf rawfrag record --threads: a perf.data/ directory as perf record
# --threads writes it (data with the header, HEADER_DIR_FORMAT 1 and the main
# thread's records; a data.N per ring, written by the writer thread of its
# cpu). Oracles: perf 6.1 reads it with no message and perf script's lines
# equal report's; perf report --stats counts and our summary's per-event
# counts (summed over the threads) equal; perf report -D puts each cpu's
# records in one data.N only; check is clean. Tracepoints, -g cpu-clock, -z,
# --threads=core, the .old rotation of a directory, and the refused options.
source "$(dirname "$0")/lib.sh"
t_plan 21

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "perf rawfrag record -a with tracepoints needs root"
ensure_tracefs || t_skip_rest "no tracefs"

NCPU=$(getconf _NPROCESSORS_ONLN)
# cores: cpus sharing a core_cpus_list count once (--threads=core)
NCORE=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -r "$c/topology/core_cpus_list" ] && [ "$(cat "$c/online" 2>/dev/null || echo 1)" = 1 ] &&
		cat "$c/topology/core_cpus_list"
done | sort -u | wc -l)
WORK='find /usr/share/doc /usr/include >/dev/null 2>&1; ls -R /usr/share/locale >/dev/null'
F_TP=comm,tid,time,event,trace
F_G=comm,tid,time,event,ip,sym,dso

# records our summary (stderr file $1) says were lost
lost_in() {
	sed -n 's/.*lost:\(.*\)(lost samples \([0-9]*\)).*/\1 \2/p' "$1" |
		tr ' ' '\n' | grep -E '^[0-9]+$' | awk '{ s += $1 } END { print s + 0 }'
}
# NAME DIR FIELDS: perf script says nothing on stderr (or, after a loss our
# summary reports, names it), and report's lines equal perf script's
same_lines() {
	# -F with trace makes perf warn about the other event types: no -F here
	$PERF script -i "$2" >/dev/null 2>"$1.perf.err"
	$PERF script -i "$2" -F "$3" 2>/dev/null >"$1.perf"
	"$RAWFRAG" report -i "$2" -F "$3" 2>"$1.err" >"$1.ours"
	local rc=$? n lost
	n=$(wc -l <"$1.perf")
	lost=$(lost_in "$1.rec.err")
	# after a loss both name it: perf on stderr, and so do we
	[ "$lost" != 0 ] && grep -q 'lost' "$1.err" && : >"$1.err"
	if [ "$lost" = 0 ]; then
		t_eq "$1: perf script reads the directory with no message" "" "$(cat "$1.perf.err")"
	elif grep -q lost "$1.perf.err"; then
		t_ok "$1: perf script names the $lost lost records our summary reports (loaded machine)"
	else
		t_fail "$1: perf script reports the $lost lost records" "$(cat "$1.perf.err")"
	fi
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && [ ! -s "$1.err" ] && cmp -s "$1.perf" "$1.ours"; then
		t_ok "$1: report -F $3 equals perf script on all $n lines, no message"
	else
		t_fail "$1: report -F $3 equals perf script" "exit $rc, perf $n lines, ours $(wc -l <"$1.ours")" \
			"$(head -3 "$1.err")" "$(diff "$1.perf" "$1.ours" | head -6)"
	fi
}
# DIR: "file cpu" of every sample as perf report -D names them, one per pair
file_cpus() {
	$PERF report -D -i "$1" 2>/dev/null | awk '
		/^(0x[0-9a-f]+|0)@/ { f = $1; sub(/^[^@]*@/, "", f); sub(/.*\//, "", f); next }
		/PERF_RECORD_SAMPLE/ && f != "" { print f, $1; f = "" }' | sort -u
}

# --- tracepoints, system-wide under a workload, perf's default spec (a thread per cpu)
t_run "record --threads: tracepoints system-wide (exit 0)" 0 "$RAWFRAG" record --threads \
	-e sched:sched_switch -e raw_syscalls:sys_enter -a -o tp.data -- sh -c "$WORK"
cp err tp.rec.err
ndata=$(ls tp.data | grep -c '^data\.[0-9]*$')
t_eq "tp.data/: data and a data.N per writer thread (one per cpu), as the summary says" \
	"data $NCPU $NCPU writer threads, $NCPU data.N files" \
	"$([ -f tp.data/data ] && echo data) $ndata $(sed -n 's/.*: \([0-9]* writer threads, [0-9]* data.N files\) ]/\1/p' tp.rec.err)"
$PERF report -i tp.data --header-only >hdr.txt 2>hdr.err
t_grep "perf reads HEADER_DIR_FORMAT version 1" '^# directory data version : 1$' hdr.txt
same_lines tp tp.data $F_TP

stats_lines() { grep -E 'TOTAL events|SAMPLE events|stats:$'; }
$PERF report --stats -i tp.data 2>/dev/null | stats_lines >stats.perf
"$RAWFRAG" report --stats -i tp.data 2>stats.err | stats_lines >stats.ours
if [ -s stats.perf ] && cmp -s stats.perf stats.ours; then
	t_ok "tp: report --stats counts equal perf report --stats ($(grep -m1 TOTAL stats.perf | tr -s ' '))"
else
	t_fail "tp: report --stats counts equal perf's" "$(diff stats.perf stats.ours | head -6)" \
		"$(head -3 stats.err)"
fi
# the summary: samples per event and in all, summed over the writer threads
want=$(awk '{ e = $4; sub(/:$/, "", e); n[e]++; t++ } END {
	printf "raw_syscalls:sys_enter %d sched:sched_switch %d total %d", n["raw_syscalls:sys_enter"],
	n["sched:sched_switch"], t }' tp.perf)
got=$(printf '%s %s %s %s total %s' \
	raw_syscalls:sys_enter "$(sed -n 's/.*raw_syscalls:sys_enter: \([0-9]*\) samples.*/\1/p' tp.rec.err)" \
	sched:sched_switch "$(sed -n 's/.*sched:sched_switch: \([0-9]*\) samples.*/\1/p' tp.rec.err)" \
	"$(sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples).*/\1/p' tp.rec.err)")
t_eq "tp: the summary's sample counts (summed over threads) are perf script's" "$want" "$got"
file_cpus tp.data >tp.fc
t_eq "tp: each cpu's samples in one data.N only, $NCPU files with $NCPU cpus" "$NCPU $NCPU $NCPU" \
	"$(wc -l <tp.fc) $(cut -d' ' -f1 tp.fc | sort -u | wc -l) $(cut -d' ' -f2 tp.fc | sort -u | wc -l)"
"$RAWFRAG" check tp.data >tp.check 2>&1
rc=$?
if [ $rc = 0 ] && grep -qE "^tp.data: [1-9][0-9]* samples, 0 errors, 0 warnings" tp.check; then
	t_ok "tp: check is clean (exit 0)"
else
	t_fail "tp: check is clean" "exit $rc" "$(head -4 tp.check)"
fi

# --- -g cpu-clock, --threads=cpu
t_run "record --threads=cpu -g -e cpu-clock (exit 0)" 0 "$RAWFRAG" record --threads=cpu -g \
	-e cpu-clock -a -o g.data -- sh -c 'find /usr/share/doc >/dev/null 2>&1'
cp err g.rec.err
same_lines g g.data $F_G
"$RAWFRAG" check g.data >g.check 2>&1
rc=$?
if [ $rc = 0 ] && grep -qE "^g.data: [1-9][0-9]* samples, 0 errors, 0 warnings" g.check; then
	t_ok "g: check is clean (exit 0)"
else
	t_fail "g: check is clean" "exit $rc" "$(head -4 g.check)"
fi

# --- --threads=core: a thread per core, still a data.N per ring
t_run "record --threads=core -z (exit 0)" 0 "$RAWFRAG" record --threads=core -z -m 1024 \
	-e sched:sched_switch -e raw_syscalls:sys_enter -a -o core.data -- sh -c "$WORK"
cp err core.rec.err
t_eq "core: $NCORE writer threads, $NCPU data.N files" \
	"$NCORE writer threads, $NCPU data.N files $NCPU" \
	"$(sed -n 's/.*: \([0-9]* writer threads, [0-9]* data.N files\) ]/\1/p' core.rec.err) $(ls core.data | grep -c '^data\.[0-9]*$')"
same_lines core core.data $F_TP

# --- an earlier directory becomes PATH.old, as perf does
"$RAWFRAG" record -q --threads -e sched:sched_switch -a -o tp.data -- true >rot.out 2>&1
t_eq "a second recording: the earlier tp.data/ is tp.data.old/ (exit 0)" "0 $ndata" \
	"$? $(ls tp.data.old 2>/dev/null | grep -c '^data\.[0-9]*$')"

# --- refused: one message, exit 2
refused() { # NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	"$RAWFRAG" record "$@" -e sched:sched_switch -a -- true >ref.out 2>ref.err
	local rc=$?
	if [ $rc = 2 ] && [ "$(grep -c . ref.err)" = 1 ] && grep -qE -- "$pat" ref.err; then
		t_ok "$name"
	else
		t_fail "$name" "exit $rc" "$(head -c 400 ref.err)"
	fi
}
refused "--threads with -o - (a directory down a pipe): exit 2" \
	'--threads and -o - exclude each other' --threads -o -
refused "--threads with user-defined masks: exit 2, said so" \
	"--threads: '0-1/0': user-defined masks are not supported" --threads=0-1/0
refused "--threads with an unknown spec: exit 2" "--threads: 'bogus': unknown spec" --threads=bogus
