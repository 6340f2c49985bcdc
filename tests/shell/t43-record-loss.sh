#!/usr/bin/env bash
# Every interrupted or lossy recording says so, and files carry their build-ids.
#  - SIGKILL, a full disk (small tmpfs), a closed pipe (| head -c 5000): the file
#    keeps its magic and attrs (perf says "data size field is 0" on it, as on its
#    own killed file), check says where it was interrupted and how many records
#    are complete, report --force reads them, record says FAILED, not Captured.
#  - LOST records: report and check warn with perf's words and per CPU; the
#    numbers are perf report --stats' and the recorder's; record -q still prints
#    the loss line; skb dumps refused by a full ring are LOST records too.
#  - BUILD_ID: perf buildid-list reads the kernel's and the DSOs' build-ids
#    (equal to perf buildid-list -k / readelf -n), the cache has perf's layout,
#    -N leaves it alone, -B leaves the feature out.
source "$(dirname "$0")/lib.sh"
t_plan 37

if ! is_root || ! ensure_tracefs; then
	t_skip_rest "interrupted and lossy recordings: need root and tracefs"
fi
export PERF_BUILDID_DIR=$T/debug

# --- SIGKILL in the middle
"$RAWFRAG" record -a -e sched:sched_switch -m 16 -o kill.data 2>/dev/null &
pid=$!
# switches until a record is on disk (check counts it), then the kill: a
# fixed sleep lost the race on a loaded machine (nothing written yet)
for try in $(seq 100); do
	( for i in $(seq 200); do cat /proc/self/stat >/dev/null; done )
	sleep 0.1
	"$RAWFRAG" check kill.data 2>&1 | grep -Eq '; [1-9][0-9]* complete records' && break
done
kill -KILL $pid
wait $pid 2>/dev/null
magic=$(head -c 8 kill.data)
t_eq "SIGKILL: the file starts with the perf.data magic" "PERFILE2" "$magic"
$PERF script -i kill.data >/dev/null 2>ps.err
t_grep "SIGKILL: perf says what it says on its own killed file" \
	"data size field is 0.*|properly terminated" ps.err
"$RAWFRAG" check kill.data >/dev/null 2>ck.err
rc=$?
t_eq "SIGKILL: check exits 2" 2 "$rc"
t_grep "SIGKILL: check says where and how many complete records" \
	'recording was interrupted at offset [0-9]+; [0-9]+ complete records' ck.err
n=$(sed -n 's/.*; \([0-9]*\) complete records.*/\1/p' ck.err)
"$RAWFRAG" report --force --format json -i kill.data 2>rf.err >rf.json
rc=$?
ns=$(grep -c '"event"' rf.json)
[ "$rc" = 0 ] && [ "${ns:-0}" -gt 0 ] && [ "$ns" -le "${n:-0}" ] &&
	t_ok "SIGKILL: report --force reads the complete records ($ns samples of $n records)" ||
	t_fail "SIGKILL: report --force reads the complete records" "rc=$rc samples=$ns records=$n" \
		"$(head -3 rf.err)"
t_grep "SIGKILL: report --force warns it was interrupted" 'recording was interrupted' rf.err
# perf's own killed file: the same words from our check
$PERF record -a -e sched:sched_switch -m 16 -o pkill.data </dev/null >/dev/null 2>&1 &
pid=$!
sleep 2
kill -KILL $pid
wait $pid 2>/dev/null
"$RAWFRAG" check pkill.data >/dev/null 2>pck.err
t_grep "perf's killed file: check says it was interrupted" 'recording was interrupted at offset' pck.err

# --- a full disk
if mkdir -p small && mount -t tmpfs -o size=96k tmpfs small 2>/dev/null; then
	# 200000 syscalls of a dd: far more than 96 KiB of samples, however idle the machine
	"$RAWFRAG" record -a -e sched:sched_switch -e raw_syscalls:sys_enter \
		-o small/x.data -- dd if=/dev/zero of=/dev/null bs=1 count=100000 2>full.err
	rc=$?
	cp small/x.data full.data
	umount small
	t_eq "disk full: exit 2" 2 "$rc"
	t_grep "disk full: the summary says FAILED" 'FAILED: small/x.data is incomplete.*No space left' full.err
	t_eq "disk full: no 'Captured and wrote'" 0 "$(grep -c 'Captured and wrote' full.err)"
	"$RAWFRAG" check full.data >/dev/null 2>fck.err
	t_grep "disk full: check says it was interrupted" 'recording was interrupted at offset' fck.err
else
	t_skip_n 4 "disk full" "cannot mount a small tmpfs"
fi

# --- a closed pipe: 200000 syscalls give megabytes, far past the pipe's
# 64 KiB buffer, so the writer must meet the closed end whatever else the
# machine does (a quiet machine's 3 s of -a fitted in the buffer)
set -o pipefail
"$RAWFRAG" record -e raw_syscalls:sys_enter -o - -- \
	dd if=/dev/zero of=/dev/null bs=1 count=200000 2>pipe.err |
	head -c 5000 >/dev/null
rc=$?
set +o pipefail
t_eq "reader gone (| head -c 5000): exit 2" 2 "$rc"
t_grep "reader gone: the summary says FAILED, Broken pipe" 'FAILED: <stdout> is incomplete.*Broken pipe' pipe.err
t_eq "reader gone: no 'Captured and wrote'" 0 "$(grep -c 'Captured and wrote' pipe.err)"

# --- loss: a tight syscall loop into a 1-page ring
"$RAWFRAG" record -q -a -e raw_syscalls:sys_enter -m 1 -o lossy.data -- \
	sh -c 'for i in $(seq 3000); do cat /proc/self/stat >/dev/null; done' 2>q.err
lost=$(sed -n 's/.*lost:\(.*\)(lost samples.*/\1/p' q.err | tr ' ' '\n' | grep -E '^[0-9]+$' |
	awk '{ s += $1 } END { print s + 0 }')
chunks=$($PERF report -i lossy.data --stats 2>/dev/null | awk '/LOST events:/ { print $3 }')
if [ "${chunks:-0}" -gt 0 ]; then
	t_grep "record -q: the loss line is printed" 'lost: cpu' q.err
	"$RAWFRAG" check lossy.data >ck.out 2>ck.err
	t_grep "check's summary counts the lost events" ", $lost lost events \($chunks LOST records" ck.out
	t_grep "check: perf's warning with perf report --stats' LOST count" \
		"Processed [0-9]+ events and lost $chunks chunks" ck.err
	"$RAWFRAG" report -i lossy.data >/dev/null 2>rep.err
	t_grep "report: perf's warning" "Processed [0-9]+ events and lost $chunks chunks" rep.err
	t_grep "report: the lost events and their share" "$lost events lost in $chunks LOST records" rep.err
	sum=$(sed -n 's/^  cpu [0-9]*: lost \([0-9]*\) events.*/\1/p' rep.err | awk '{ s += $1 } END { print s + 0 }')
	t_eq "report: the per-CPU lines add up to the recorder's total" "$lost" "$sum"
	# cut short, the warning speaks of what was read: its lines agree
	# cut at half the output: losses seen, not all of them (the LOST records are spread)
	half=$(( $("$RAWFRAG" report -i lossy.data 2>/dev/null | wc -c) / 2 ))
	"$RAWFRAG" report -i lossy.data 2>cut.err | head -c "$half" >/dev/null
	clost=$(sed -n 's/.*: \([0-9]*\) events lost in .*/\1/p' cut.err)
	csum=$(sed -n 's/^  cpu [0-9]*: lost \([0-9]*\) events.*/\1/p' cut.err | awk '{ s += $1 } END { print s + 0 }')
	t_eq "report | head: the per-CPU lines add up to the total of what was read" "$clost" "$csum"
	if [ "${clost:-0}" -gt 0 ] && [ "$clost" -lt "$lost" ]; then
		t_ok "report | head: stopped early, counted $clost of $lost lost events"
	else
		t_fail "report | head: stopped early" "counted ${clost:-none} of $lost (whole file)"
	fi
else
	t_skip_n 8 "loss warnings" "no loss on this machine with -m 1"
fi
"$RAWFRAG" record -q -a -e sched:sched_switch -m 256 --duration 0.2 -o calm.data 2>calm.err
t_eq "record -q with no loss prints nothing" "" "$(cat calm.err)"
"$RAWFRAG" check calm.data >/dev/null 2>calm.ck
t_eq "check on a lossless file: no loss warning" 0 "$(grep -c 'lost' calm.ck)"

# perf record's lossy file holds each loss twice (the ring's LOST records and the
# events' lost counts as LOST_SAMPLES): the warning counts it once, as perf's
# "lost N% samples" does
$PERF record -q -a -m 1 -e raw_syscalls:sys_enter -o plossy.data -- \
	dd if=/dev/zero of=/dev/null bs=1 count=200000 >/dev/null 2>&1
"$RAWFRAG" check plossy.data >/dev/null 2>pl.ck
plost=$(sed -n 's/.*: \([0-9]*\) events lost in .*/\1/p' pl.ck)
plsmp=$(sed -n 's/.* \([0-9]*\) in LOST_SAMPLES.*/\1/p' pl.ck)
if [ "${plost:-0}" -gt 0 ] && [ "${plsmp:-0}" -gt 0 ]; then
	sum=$(sed -n 's/^  cpu [0-9]*: lost \([0-9]*\) events.*/\1/p' pl.ck | awk '{ s += $1 } END { print s + 0 }')
	t_eq "perf's lossy file: the per-CPU lines count each loss once, where the ring lost it" \
		"$plost" "$sum"
	# perf script's words, where it gives them (above 5%), and our share
	$PERF script -i plossy.data 2>&1 >/dev/null | grep '^Processed' >pl.perf
	pp=$(sed -n 's/.*samples and lost \([0-9.]*\)%!$/\1/p' pl.perf)
	# at 5% or less perf says nothing of the share: ours must be that small
	[ -n "$pp" ] || pp=$(sed -n 's/.* LOST_SAMPLES (\([0-5]\.[0-9]*\)% of.*/\1/p' pl.ck)
	if [ -n "$pp" ] && grep '^Processed' pl.ck | cmp -s - pl.perf &&
		grep -q "LOST_SAMPLES ($pp% of" pl.ck; then
		t_ok "perf's lossy file: perf script's warnings word for word ($(wc -l <pl.perf)), our share is perf's ($pp%)"
	else
		t_fail "perf's lossy file: perf script's warnings, our share" "$(cat pl.perf)" \
			"$(grep -v '^  cpu' pl.ck)"
	fi
else
	t_skip_n 2 "perf's lossy file" "perf lost nothing with -m 1 (LOST $plost, LOST_SAMPLES $plsmp)"
fi

# skb dumps a full ring refused: the kernel's LOST records count them, per CPU
if command -v ping >/dev/null; then
	"$RAWFRAG" record --skb lo --snaplen 1500 -m 1 -o skb.data -- \
		ping -f -c 2000 -s 1400 -q 127.0.0.1 >/dev/null 2>skb.err
	full=$(sed -n 's/.* \([0-9]*\) not written (ring full).*/\1/p' skb.err)
	"$RAWFRAG" check skb.data >skb.out 2>skb.ck
	inlost=$(sed -n 's/.*, \([0-9]*\) lost events.*/\1/p' skb.out)
	if [ "${full:-0}" -gt 0 ]; then
		t_eq "skb: dumps refused by a full ring ($full) are LOST events in the file" "$full" "${inlost:-0}"
	else
		t_skip "skb: ring-full drops in the file" "the ring never filled"
	fi
else
	t_skip "skb: ring-full drops in the file" "no ping"
fi

# --- BUILD_ID and the build-id cache
"$RAWFRAG" record -q -e cpu-clock -F 2000 -e sched:sched_switch -o bid.data -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; sleep 0.01' 2>/dev/null
$PERF buildid-list -i bid.data 2>/dev/null >bl.txt
kid=$($PERF buildid-list -k 2>/dev/null)
t_grep "BUILD_ID: the kernel's build-id (perf buildid-list -k)" "^$kid \[kernel.kallsyms\]$" bl.txt
sh_bin=$(readlink -f "$(command -v sh)")
sh_id=$(readelf -n "$sh_bin" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
t_grep "BUILD_ID: the workload's binary with its build-id (readelf -n)" "^$sh_id $sh_bin$" bl.txt
$PERF report -i bid.data --header-only 2>/dev/null | grep '^# missing features' >miss.txt
t_eq "perf report --header-only: BUILD_ID not missing" 0 "$(grep -c 'BUILD_ID' miss.txt)"
link=$PERF_BUILDID_DIR/.build-id/${sh_id:0:2}/${sh_id:2}
t_eq "cache: .build-id link to <path>/<build-id> with the binary as elf" "yes" \
	"$(cmp -s "$link/elf" "$sh_bin" && echo yes)"
t_eq "cache: kallsyms of the kernel under [kernel.kallsyms]/<build-id>" "yes" \
	"$([ -s "$PERF_BUILDID_DIR/[kernel.kallsyms]/$kid/kallsyms" ] && echo yes)"
PERF_BUILDID_DIR=$T/debug $PERF buildid-cache -l 2>/dev/null >bc.txt
t_grep "perf buildid-cache -l lists our copy" "^$sh_id $sh_bin$" bc.txt
$PERF report -i bid.data --stdio --sort dso 2>/dev/null >rep.txt
t_grep "perf report names the DSOs" "$(basename "$sh_bin")" rep.txt

rm -rf "$PERF_BUILDID_DIR"
"$RAWFRAG" record -q -N -e sched:sched_switch -o n.data -- sleep 0.01 2>/dev/null
t_eq "-N: nothing in the cache, BUILD_ID still written" "no yes" \
	"$([ -e "$PERF_BUILDID_DIR" ] && echo yes || echo no) $($PERF buildid-list -i n.data 2>/dev/null | grep -q kallsyms && echo yes)"
"$RAWFRAG" record -q -B -e sched:sched_switch -o b.data -- sleep 0.01 2>/dev/null
$PERF record -q -B -e sched:sched_switch -o pb.data -- sleep 0.01 >/dev/null 2>&1
t_eq "-B: no BUILD_ID, as perf record -B" "$($PERF buildid-list -i pb.data 2>/dev/null | wc -l)" \
	"$($PERF buildid-list -i b.data 2>/dev/null | wc -l)"
dsos() { $PERF buildid-list -i "$1" 2>/dev/null | awk '{ print $2 }' | sort; }
"$RAWFRAG" record -q --buildid-all -N -e sched:sched_switch -o all.data -- sh -c 'sleep 0.01' 2>/dev/null
$PERF record -q --buildid-all -N -e sched:sched_switch -o pall.data -- sh -c 'sleep 0.01' >/dev/null 2>&1
t_eq "--buildid-all on a command: the DSOs perf record lists" "$(dsos pall.data | tr '\n' ' ')" \
	"$(dsos all.data | tr '\n' ' ')"
