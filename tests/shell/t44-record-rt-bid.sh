#!/usr/bin/env bash
# perf rawfrag record: the recorder's scheduling and ring, build-ids in pipe mode,
# the vdso in the build-id cache, module build-ids and --call-graph lbr.
# Oracle: perf record 6.1 on the same command line.
#  - The recorder runs SCHED_FIFO 1 (RESET_ON_FORK: the workload does not) unless
#    -r PRIO / -r 0 / --no-realtime say otherwise; without CAP_SYS_NICE the
#    default stays SCHED_OTHER silently, an explicit -r fails as perf's does.
#    The default ring is perf's (the mmap size perf record -vv prints), and on a
#    tight syscall loop on every CPU we lose no more than perf record does.
#  - Pipe mode: PERF_RECORD_HEADER_BUILD_ID records that perf buildid-list -i -
#    reads, so perf script symbolizes a binary removed since (from the cache);
#    with -B it cannot (the control).
#  - [vdso]: its build-id in BUILD_ID and its image in the cache as perf record
#    writes them; modules: --buildid-all lists the modules perf lists.
#  - --call-graph lbr without LBR: perf record's message.
source "$(dirname "$0")/lib.sh"
t_plan 29

if ! is_root || ! ensure_tracefs; then
	t_skip_rest "recorder scheduling and build-ids: need root and tracefs"
fi
unset PERF_BUILDID_DIR # perf 6.1 takes the cache from HOME (buildid.dir aside)
mkdir -p home && export HOME=$T/home

# --- scheduling: POLICY PRIO of a pid as chrt prints them
policy() {
	chrt -p "$1" 2>/dev/null | sed -n 's/.*policy: *//p; s/.*priority: *//p' | tr '\n' ' ' | sed 's/ $//'
}
# OPTS...: record a sleeping command; prints "recorder policy prio / workload policy prio"
sched_of() {
	"$RAWFRAG" record -q "$@" -e sched:sched_switch -o s.data -- sleep 1.5 >/dev/null 2>s.err &
	local rpid=$! wpid r w
	sleep 0.7
	wpid=$(pgrep -P $rpid sleep | head -1)
	r=$(policy $rpid)
	w=$(policy "${wpid:-0}")
	wait $rpid
	echo "$r / $w"
}
t_eq "default: the recorder is SCHED_FIFO 1, its workload SCHED_OTHER 0" \
	"SCHED_FIFO|SCHED_RESET_ON_FORK 1 / SCHED_OTHER 0" "$(sched_of)"
t_eq "-r 7: SCHED_FIFO 7" "SCHED_FIFO|SCHED_RESET_ON_FORK 7 / SCHED_OTHER 0" "$(sched_of -r 7)"
t_eq "-r 0: normal scheduling" "SCHED_OTHER 0 / SCHED_OTHER 0" "$(sched_of -r 0)"
t_eq "--no-realtime: normal scheduling" "SCHED_OTHER 0 / SCHED_OTHER 0" "$(sched_of --no-realtime)"
echo keep >r.data
"$RAWFRAG" record -r 100 -e sched:sched_switch -o r.data -- true >/dev/null 2>r.err
t_eq "-r 100: exit 2, the file untouched" "2 keep" "$? $(cat r.data)"

# without CAP_SYS_NICE (and RLIMIT_RTPRIO 0): silently normal by default; -r 5 fails, as perf -r 5
nonice() { setpriv --bounding-set=-sys_nice prlimit --rtprio=0 "$@"; }
if setpriv --bounding-set=-sys_nice true 2>/dev/null; then
	nonice "$RAWFRAG" record -q -e sched:sched_switch -o n.data -- true >/dev/null 2>n.err
	t_eq "no CAP_SYS_NICE: default recording works, says nothing" "0 " "$? $(cat n.err)"
	nonice $PERF record -r 5 -e sched:sched_switch -o pn.data -- true >/dev/null 2>pn.err
	prc=$?
	nonice "$RAWFRAG" record -q -r 5 -e sched:sched_switch -o n.data -- true >/dev/null 2>n.err
	rc=$?
	t_eq "no CAP_SYS_NICE: -r 5 fails as perf record -r 5 does (perf $prc, ours 2)" \
		"fails 2" "$([ "$prc" != 0 ] && grep -qi 'realtime priority' pn.err && echo fails) $rc"
	t_grep "no CAP_SYS_NICE: -r 5 says it could not set the realtime priority" \
		"could not set realtime priority 5" n.err
else
	t_skip_n 3 "no CAP_SYS_NICE" "setpriv cannot drop CAP_SYS_NICE here"
fi

# --- the default ring: the size perf record maps (perf record -vv: "mmap size N")
$PERF record -vv -e sched:sched_switch -o p.data -- true 2>pv.err >/dev/null
osize=
psize=$(sed -n 's/^mmap size \([0-9]*\)B$/\1/p' pv.err | head -1)
"$RAWFRAG" record -q -e sched:sched_switch -o s.data -- sleep 1 >/dev/null 2>&1 &
rpid=$!
sleep 0.5
range=$(awk '/perf_event/ { print $1; exit }' /proc/$rpid/maps)
[ -n "$range" ] && osize=$((0x${range#*-} - 0x${range%-*}))
wait $rpid
t_eq "default ring: the mmap size perf record chooses ($psize bytes)" "${psize:-perf?}" "${osize:-none}"

# --- loss on a tight syscall loop on every CPU, default rings: no more than perf's
loop="for i in \$(seq $(nproc)); do dd if=/dev/zero of=/dev/null bs=1 count=200000 status=none & done; wait"
lost_of() {
	local l
	l=$("$RAWFRAG" check "$1" 2>/dev/null | head -1 | sed -n 's/.*, \([0-9]*\) lost events.*/\1/p')
	echo "${l:-0}"
}
# One run of each is a coin toss on a shared machine (either may lose thousands
# once in a few runs): up to three rounds, ours against the most perf lost in
# any; a smaller ring or a slower reader loses more in every round.
pmax=0 ok=
for round in 1 2 3; do
	$PERF record -q --no-buildid -a -e raw_syscalls:sys_enter -o pl.data -- sh -c "$loop" >/dev/null 2>&1
	"$RAWFRAG" record -q -N -a -e raw_syscalls:sys_enter -o ol.data -- sh -c "$loop" >/dev/null 2>&1
	pl=$(lost_of pl.data) ol=$(lost_of ol.data)
	[ "$pl" -gt "$pmax" ] && pmax=$pl
	echo "# round $round, lost at default rings: perf record $pl, perf rawfrag record $ol"
	[ "$ol" -le "$pmax" ] && { ok=yes; break; }
done
t_eq "tight syscall loop on all CPUs, default rings: lost $ol <= perf record's most, $pmax (round $round)" \
	yes "$ok"

# --- pipe mode: build-ids a reader gets before the samples
cat >spin.c <<'EOF'
#include <time.h>
#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) void rawfrag_spin(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		for (int i = 0; i < 200; i++)
			sink += getppid(); /* time in the kernel too */
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 300000000L);
}
int main(void) { rawfrag_spin(); return 0; }
EOF
t_setup "build the workload" cc -O1 -o spin spin.c
spin=$T/spin
spin_id=$(readelf -n spin | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
kid=$($PERF buildid-list -k 2>/dev/null)
"$RAWFRAG" record -q -e cpu-clock -F 2000 -o - -- "$spin" >pipe.data 2>pipe.err
"$RAWFRAG" record -q -B -e cpu-clock -F 2000 -o - -- "$spin" >pipeB.data 2>/dev/null
$PERF buildid-list -i - <pipe.data >pbl.txt 2>/dev/null
t_grep "pipe: perf buildid-list -i - reads the workload's build-id (readelf -n)" "^$spin_id $spin$" pbl.txt
t_grep "pipe: and the kernel's (perf buildid-list -k)" "^$kid \[kernel.kallsyms\]$" pbl.txt
$PERF script -i - <pipe.data >/dev/null 2>ps.err
t_eq "pipe: perf script reads it without a word on stderr" "" "$(cat ps.err)"
# in the stream, the workload's build-id record comes before its first user sample
$PERF script -D -i - <pipe.data 2>/dev/null | awk -v p="$spin" '
	/PERF_RECORD_BUILD_ID/ { bid = NR }
	bid && !at && index($0, p) { at = bid }
	/PERF_RECORD_SAMPLE\(IP, 0x2\)/ && !first { first = NR }
	END { print (at && first && at < first) ? "before" : "after (" at ", " first ")" }' >order.txt
t_eq "pipe: the workload's BUILD_ID record precedes the first user sample" before "$(cat order.txt)"
"$RAWFRAG" check - <pipe.data >pck.txt 2>pck.err
t_eq "pipe: our check reads the build-id records in the stream: perf script's samples, 0 errors, no word" \
	"-: $($PERF script -i - <pipe.data 2>/dev/null | wc -l) samples, 0 errors, 0 warnings|" \
	"$(head -1 pck.txt)|$(cat pck.err)"
t_eq "pipe -B: no BUILD_ID records, as perf record -B" 0 \
	"$($PERF script -D -i - <pipeB.data 2>/dev/null | grep -c 'PERF_RECORD_BUILD_ID')"
# another machine: the binary is gone, the build-id cache has it
mv spin spin.moved
$PERF script -F ip,sym -i - <pipe.data 2>/dev/null | grep -c rawfrag_spin >sym.txt
$PERF script -F ip,sym -i - <pipeB.data 2>/dev/null | grep -c rawfrag_spin >symB.txt
"$RAWFRAG" report -F ip,sym -i - <pipe.data 2>/dev/null | grep -c rawfrag_spin >osym.txt
"$RAWFRAG" report -F ip,sym -i - <pipeB.data 2>/dev/null | grep -c rawfrag_spin >osymB.txt
mv spin.moved spin
t_eq "pipe: binary removed, perf script still names rawfrag_spin (from the cache by build-id)" \
	yes "$([ "$(cat sym.txt)" -gt 0 ] && echo yes)"
t_eq "pipe -B (control): binary removed, perf script cannot name it" 0 "$(cat symB.txt)"
t_eq "pipe: binary removed, our report names rawfrag_spin too, and not with -B" "yes 0" \
	"$([ "$(cat osym.txt)" -gt 0 ] && echo yes) $(cat osymB.txt)"
t_eq "pipe: the cache has the binary under its build-id" yes \
	"$(cmp -s "$HOME/.debug/.build-id/${spin_id:0:2}/${spin_id:2}/elf" spin && echo yes)"

# --- [vdso]: the feature and the cache as perf record writes them
mkdir -p hp ho
HOME=$T/hp $PERF record -q -e sched:sched_process_exec -o pv.data -- true >/dev/null 2>&1
HOME=$T/ho "$RAWFRAG" record -q -e sched:sched_process_exec -o ov.data -- true >/dev/null 2>&1
$PERF buildid-list -i pv.data 2>/dev/null | sort >pv.bl
$PERF buildid-list -i ov.data 2>/dev/null | sort >ov.bl
if grep -q '\[vdso\]$' pv.bl; then
	t_eq "vdso: perf buildid-list -i lists what it lists on perf record's file" "$(cat pv.bl)" "$(cat ov.bl)"
	# the cache: same paths and links (perf's SDT 'probes' files aside)
	tree() { (cd "$1/.debug" && find . -mindepth 1 ! -name probes -printf '%p %y %l\n' | sort); }
	t_eq "vdso: the build-id cache has perf's layout" "$(tree "$T/hp")" "$(tree "$T/ho")"
	vid=$(awk '/\[vdso\]$/ { print $1 }' ov.bl)
	t_eq "vdso: the cached image is perf's, byte for byte" yes \
		"$(cmp -s "$T/hp/.debug/[vdso]/$vid/vdso" "$T/ho/.debug/[vdso]/$vid/vdso" && echo yes)"
	t_eq "vdso: readelf -n of the cached image gives its build-id" "$vid" \
		"$(readelf -n "$T/ho/.debug/[vdso]/$vid/vdso" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')"
	HOME=$T/ho $PERF script -F ip,sym,dso -i ov.data >/dev/null 2>vs.err
	t_eq "vdso: perf script reads the file without a word" "" "$(cat vs.err)"
else
	t_skip_n 5 "vdso build-id" "perf record lists no [vdso] here (no vdso build-id)"
fi

# --- modules: --buildid-all lists every loaded module, as perf record does
mods() { $PERF buildid-list -i "$1" 2>/dev/null | awk '$2 !~ /^\[(kernel.kallsyms|vdso)\]$/ && $2 !~ /^\/(usr|lib|bin)/' | sort; }
if [ -s /proc/modules ] && ls /sys/module/*/notes/.note.gnu.build-id >/dev/null 2>&1; then
	$PERF record -q --buildid-all -N -e sched:sched_switch -o pm.data -- true >/dev/null 2>&1
	"$RAWFRAG" record -q --buildid-all -N -e sched:sched_switch -o om.data -- true >/dev/null 2>&1
	t_eq "modules: --buildid-all lists perf record's modules and build-ids" "$(mods pm.data)" "$(mods om.data)"
	t_eq "modules: at least one module listed" yes "$([ -n "$(mods om.data)" ] && echo yes)"
else
	t_skip_n 2 "module build-ids" "this kernel has no loadable modules (no /proc/modules)"
fi

# --- --call-graph lbr
$PERF record -e cpu-clock --call-graph lbr -o plbr.data -- true >/dev/null 2>plbr.err
prc=$?
echo keep >lbr.data
"$RAWFRAG" record -e cpu-clock --call-graph lbr -o lbr.data -- true >/dev/null 2>lbr.err
rc=$?
if [ $prc != 0 ] && grep -q "doesn't support branch stack sampling" plbr.err; then
	t_eq "lbr without LBR: perf record's message" \
		"$(grep -o "cpu-clock: PMU Hardware.*" plbr.err)" "$(grep -o "cpu-clock: PMU Hardware.*" lbr.err)"
	t_eq "lbr without LBR: exit 2 (perf $prc), the file untouched" "2 keep" "$rc $(cat lbr.data)"
else
	t_skip_n 2 "lbr without LBR" "perf record --call-graph lbr works here (exit $prc): LBR present"
fi
