#!/usr/bin/env bash
# report -j N: text and json rendered by N workers, folded, flamegraph-json,
# the HTML page, pprof and the table (without call chains or filters) counted
# by N workers and merged (the page's histograms and layout check too, on
# fixtures that break RAW rules; pprof's strings, mappings, functions,
# locations, samples and columns; the table's entries in one job's order),
# the table with call chains (frame-pointer ones, filters too) split by
# entry, each worker reading every sample and keeping its entries' trees
# whole, are byte for byte what one job writes (standard output, standard error, exit status) on files perf
# records here (-g, -a tracepoints, an exit at the end, --call-graph dwarf:
# split by process, each worker unwinding and rendering all the samples of
# its processes, as a chain can depend on the samples of its process
# unwound before it, only with -j; 40 processes at once, more than the 32
# unwinding caches; tracepoints with a --where that stops the output inside
# a chunk)
# and on every fixture of tests/gen/rawfrag-gen.c, corrupt ones included,
# with -f and without; with selections (--pid, -C, --time, -e, --where), task
# lines, --header, --no-order, -o. RAWFRAG_JOBS_CHUNK=2 makes every second
# sample a new chunk, so the workers hand over hundreds of times per file.
# A --where that cannot apply stops at the same sample with the same message;
# a closed output (| head) ends quietly; a pipe is read once by a tee and
# parsed by every worker (readers a bounded distance apart, a stream cut
# short stopping all at the same record), a regular file in pipe format
# opened again by each; bad -j values are refused. Without -j, a file gets a job per 16 MiB of records, at
# most the CPUs the process may use.
source "$(dirname "$0")/lib.sh"
t_plan 127

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi

# same NAME FILE ARGS...: -j 1 against -j 2, 3 and 8 in small chunks
same() {
	local name=$1 f=$2; shift 2
	local rc1 rcn j bad="" lines bytes
	"$RAWFRAG" report -i "$f" "$@" -j 1 >"$T/j1.out" 2>"$T/j1.err"
	rc1=$?
	lines=$(wc -l <"$T/j1.out")
	bytes=$(wc -c <"$T/j1.out")
	for j in 2 3 8; do
		RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i "$f" "$@" -j $j >"$T/jn.out" 2>"$T/jn.err"
		rcn=$?
		if ! cmp -s "$T/j1.out" "$T/jn.out" || ! cmp -s "$T/j1.err" "$T/jn.err" ||
		   [ "$rc1" != "$rcn" ]; then
			bad="$bad -j$j"
			diff "$T/j1.out" "$T/jn.out" | head -5 >"$T/diff"
			diff "$T/j1.err" "$T/jn.err" | head -5 >>"$T/diff"
			echo "exit $rc1 / $rcn" >>"$T/diff"
		fi
	done
	if [ -n "$bad" ]; then
		t_fail "$name: $*: -j 1 and$bad differ" "$(head -c 600 "$T/diff")"
	elif [ "$lines" -lt 20 ] && [ "$bytes" -lt 2000 ]; then
		# (a JSON tree is one line)
		t_fail "$name: $*: too little output to tell ($lines lines, $bytes bytes)" \
			"$(head -c 300 "$T/j1.err")"
	else
		t_ok "$name: $*: -j 2, 3, 8 as -j 1 (exit $rc1, $lines lines, $bytes bytes)"
	fi
}

t_setup "perf records cpu-clock -g" \
	"$PERF" record -q -g -e cpu-clock -c 100000 -o cc.data -- sh -c 'for i in $(seq 60); do ls /usr/bin >/dev/null; done'
t_setup "perf records sched_switch -g -a" \
	"$PERF" record -q -g -e sched:sched_switch -a -o swg.data -- sh -c 'for i in $(seq 30); do ls /proc >/dev/null; sleep 0.01; done'
t_setup "perf records cpu-clock -g and sched_switch -g -a (two events)" \
	"$PERF" record -q -g -e cpu-clock -c 200000 -e sched:sched_switch -a -o two.data -- sh -c 'for i in $(seq 20); do ls /usr/lib >/dev/null; sleep 0.01; done'
t_setup "perf records cpu-clock --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,4096 -e cpu-clock -F 2000 -o dw.data -- sh -c 'for i in $(seq 20); do ls /usr/bin >/dev/null; done'
# more processes at once than the unwinder keeps caches for (32): which
# process's cache a slot holds must not depend on the worker
t_setup "perf records 40 processes at once --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,2048 -e cpu-clock -F 500 -m 512 -o dwm.data -- \
	sh -c 'for i in $(seq 40); do ls -R /usr/share/doc >/dev/null & done; wait'
t_setup "perf records sched_switch and exits -a --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,2048 -e sched:sched_switch -e sched:sched_process_exit -a \
	-o dwt.data -- sh -c 'for i in $(seq 30); do ls /proc >/dev/null; sleep 0.01; done'
# switches before the exit: a task that sleeps and wakes, started before the recording
python3 -c 'import time
for _ in range(4000): time.sleep(0.0005)' &
bg=$!
sleep 0.3
# the one exit recorded is the workload's (other tasks come and go with -a)
cp "$(command -v sleep)" "$T/rfjobsleeper"
t_setup "perf records sched_switch and an exit at the end" \
	"$PERF" record -q -e sched:sched_switch -e sched:sched_process_exit \
	--filter 'comm == "rfjobsleeper"' -a -o ex.data -- "$T/rfjobsleeper" 0.6
t_setup "perf records the same to a pipe" sh -c "\"$PERF\" record -q -e sched:sched_switch \
	-e sched:sched_process_exit --filter 'comm == \"rfjobsleeper\"' -a -o - -- \"$T/rfjobsleeper\" 0.6 >ex.pipe"
kill $bg 2>/dev/null
wait $bg 2>/dev/null

pid=$("$PERF" script -i cc.data -F pid 2>/dev/null | awk 'NR == 40 { print $1 }')
for k in "" "-F comm,tid,time,ip,sym,dso" "--format json" "-G" "--max-stack 3" \
	"--show-task-events" "--header" "--pid $pid" "--time 20%-70%" "-C 0" "--no-order" \
	"--ns -F comm,pid,tid,time,ip,sym,symoff,dso"; do
	same "cpu-clock -g" cc.data $k
done
for k in "" "--format json" "--where prev_pid>0" "-x" "-v" "--show-task-events --format json"; do
	same "sched_switch -g -a" swg.data $k
done
for k in "" "-F comm,tid,time,event,ip,sym,symoff,dso" "--format json" "--no-inline" \
	"--show-task-events" "--header" "-G" "--max-stack 3" "--stdio --no-children -g none --sort comm,dso,sym"; do
	same "dwarf" dw.data $k
done
same "dwarf, 40 processes" dwm.data -F comm,tid,time,event,ip,sym,symoff,dso
same "dwarf, 40 processes" dwm.data --format json --show-task-events
same "dwarf, 40 processes" dwm.data --format folded --include-pid
# a --where that cannot apply to the exits' samples: the output ends inside
# the chunk where the sample's worker stopped, whatever the others wrote
for k in "" "-f" "--show-task-events" "-f --format json"; do
	same "dwarf tracepoints" dwt.data --where 'comm>3 || prev_pid>=0' $k
done
# the stack sinks: each worker's trie of its samples, merged (flamegraph-json
# lists children in the order one job met them, so its bytes test the merge's order)
for k in "--format folded" "--format flamegraph-json" "--format folded --kernel --include-pid" \
	"--format flamegraph-json --weight period"; do
	same "cpu-clock -g" cc.data $k
done
for k in "--format folded --weight prev_prio" "--format flamegraph-json"; do
	same "sched_switch -g -a" swg.data $k
done
same "dwarf" dw.data --format flamegraph-json
# the HTML page: the tries, each event's histograms (weights made as fields
# first appear) and the layout check's figures merged
same "cpu-clock -g" cc.data --format flamegraph
same "cpu-clock -g" cc.data --format flamegraph --weight period
same "sched_switch -g -a" swg.data --format flamegraph
same "dwarf" dw.data --format flamegraph
# pprof: every table of the profile made again in one job's order, byte for byte
same "cpu-clock -g" cc.data --format pprof -o -
same "cpu-clock -g" cc.data --format pprof -o - --labels comm,pid,tid,cpu
same "sched_switch -g -a" swg.data --format pprof -o - --weight prev_prio --labels prev_comm,cpu
same "dwarf" dw.data --format pprof -o -
# the options' mistakes found from the merged profile: one job's message and exit
bad=""
for k in "--weight prev_comm" "--weight nosuch" "--labels nosuch"; do
	# shellcheck disable=SC2086
	"$RAWFRAG" report -i swg.data --format pprof -o - $k -j 1 >"$T/e1.out" 2>"$T/e1.err"
	rc1=$?
	# shellcheck disable=SC2086
	RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i swg.data --format pprof -o - $k -j 4 >"$T/e4.out" \
		2>"$T/e4.err"
	rc4=$?
	if [ "$rc1" != 2 ] || [ "$rc4" != "$rc1" ] || ! cmp -s "$T/e1.err" "$T/e4.err" ||
	   ! cmp -s "$T/e1.out" "$T/e4.out"; then
		bad="$bad [$k: exit $rc1/$rc4: $(head -c 120 "$T/e4.err")]"
	fi
done
t_eq "pprof --weight prev_comm (a string), nosuch, --labels nosuch: -j 4 as -j 1 (exit 2)" "" "$bad"
# the table without call chains: each worker's entries merged, numbered by
# their first samples (ties in perf's order keep it)
same "cpu-clock -g" cc.data --stdio --no-children -g none --sort comm,dso,sym -n
same "cpu-clock -g" cc.data --stdio --no-children -g none --sort pid,sym --hist period
same "sched_switch -g -a" swg.data --stdio --no-children -g none --sort prev_comm,next_comm,cpu
same "sched_switch -g -a" swg.data --stdio --no-children -g none --sort prev_comm,next_comm,cpu \
	--weight prev_prio --format json
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data --stdio --no-children -g none -j 3 -vv \
	>/dev/null 2>"$T/vv.err"
if grep -q '^perf rawfrag report: 3 jobs rendered the samples' "$T/vv.err"; then
	t_ok "table -g none -j 3: 3 jobs counted the samples"
else
	t_fail "table -g none -j 3: 3 jobs" "$(head -c 300 "$T/vv.err")"
fi
# the table with call chains (perf's default on a -g file): every worker
# reads every sample, and an entry's tree and children are one worker's,
# built from all its samples in order; filters too, with chains
for k in "" "--no-children" "-g folded" "-g fractal" "-g caller --sort comm,dso,sym -n" \
	"--comms ls" "--pid $pid" "--max-stack 3" "--percent-limit 2 -g flat" "--format json"; do
	same "cpu-clock -g" cc.data --stdio $k
done
for k in "" "--sort prev_comm,sym --weight prev_prio" "--hist prev_prio --sort comm"; do
	same "sched_switch -g -a" swg.data --stdio $k
done
same "two events -g" two.data --stdio
same "two events -g" two.data --stdio --no-children --sort dso,sym
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data --stdio -j 3 -vv >/dev/null 2>"$T/vv.err"
if grep -q '^perf rawfrag report: 3 jobs rendered the samples' "$T/vv.err"; then
	t_ok "table with call chains -j 3: 3 jobs counted the samples"
else
	t_fail "table with call chains -j 3: 3 jobs" "$(head -c 300 "$T/vv.err")"
fi
# one job: filters without chains (an entry's first sample decides, and
# splitting by entry would read everything twice for nothing), DWARF chains
# (inlined functions make perf's entry trees of all entries), a pipe
n1=0
for k in "-i cc.data --no-children -g none --comms ls" "-i cc.data --no-children -g none --pid 1" \
	"-i dw.data"; do
	# shellcheck disable=SC2086
	RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report --stdio $k -j 3 -vv >/dev/null 2>"$T/vv.err"
	grep -q 'jobs rendered' "$T/vv.err" || n1=$((n1 + 1))
done
"$PERF" inject -i cc.data -o - 2>/dev/null | RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i - --stdio \
	-j 3 -vv >/dev/null 2>"$T/vv.err"
grep -q 'jobs rendered' "$T/vv.err" || n1=$((n1 + 1))
t_eq "table: --comms, --pid without chains, DWARF chains, a pipe with chains: read by one job" 4 "$n1"
# DWARF-unwound chains, every format but the table with chains: split by
# process (libunwind's cache, kept per process as perf keeps it, lets a
# chain depend on the samples of its process unwound before it); a stream too
n3=0
for k in "" "--format json" "--format folded" "--format pprof -o -"; do
	# shellcheck disable=SC2086
	RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i dw.data $k -j 3 -vv >/dev/null 2>"$T/vv.err"
	grep -q '^perf rawfrag report: 3 jobs rendered the samples$' "$T/vv.err" && n3=$((n3 + 1))
done
"$PERF" record -q --call-graph dwarf,2048 -e cpu-clock -F 2000 -o - -- \
	sh -c 'for i in $(seq 20); do ls /usr/bin >/dev/null; done' >"$T/dw.pipe" 2>/dev/null
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i - -j 3 -vv <"$T/dw.pipe" >/dev/null 2>"$T/vv.err"
grep -q '^perf rawfrag report: 3 jobs rendered the samples$' "$T/vv.err" && n3=$((n3 + 1))
t_eq "DWARF chains: text, json, folded, pprof of a file and text of a stream split into 3 jobs" 5 "$n3"
# split, not one job quietly
for fmt in flamegraph-json flamegraph pprof; do
	RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data --format $fmt -o - -j 3 -vv \
		>/dev/null 2>"$T/vv.err"
	if grep -q '^perf rawfrag report: 3 jobs rendered the samples' "$T/vv.err"; then
		t_ok "$fmt -j 3: 3 jobs counted the samples"
	else
		t_fail "$fmt -j 3: 3 jobs" "$(head -c 300 "$T/vv.err")"
	fi
done
# the page's check of fixtures whose samples break RAW rules (kinds and
# examples in sample order), a chunk per sample so every worker meets some
fx_ok=1 n=0 nv=0 bad=""
mkdir -p "$T/vx"
for g in s390-gen tp-be-gen "ibs-gen write"; do
	read -r gen args <<<"$g"
	b=$(t_bin "$gen")
	# shellcheck disable=SC2086
	[ -x "$b" ] && "$b" $args "$T/vx" >/dev/null 2>&1 || fx_ok=0
done
if [ "$fx_ok" = 1 ]; then
	for f in "$T"/vx/*.data; do
		for k in "" "-f"; do
			# shellcheck disable=SC2086
			"$RAWFRAG" report -i "$f" --format flamegraph $k -j 1 >"$T/v1.out" 2>"$T/v1.err"
			rc1=$?
			# shellcheck disable=SC2086
			RAWFRAG_JOBS_CHUNK=1 "$RAWFRAG" report -i "$f" --format flamegraph $k -j 3 \
				>"$T/v3.out" 2>"$T/v3.err"
			rc3=$?
			n=$((n + 1))
			grep -q '"violations":\[{.*{"offset"' "$T/v1.out" && nv=$((nv + 1))
			if ! cmp -s "$T/v1.out" "$T/v3.out" || ! cmp -s "$T/v1.err" "$T/v3.err" ||
			   [ "$rc1" != "$rc3" ]; then
				bad="$bad ${f##*/}($k: exit $rc1/$rc3)"
			fi
		done
	done
	if [ -z "$bad" ] && [ "$nv" -ge 4 ]; then
		t_ok "HTML page of $n generated fixtures: -j 3 as -j 1 ($nv runs with two violations or more)"
	else
		t_fail "HTML page of generated fixtures: -j 3 as -j 1" "differ:$bad; $nv runs with violations"
	fi
else
	t_skip "HTML page of generated fixtures" "needs tests/s390-gen, tp-be-gen and ibs-gen"
fi
# a weight no sample has: the same error from the merged counts
"$RAWFRAG" report -i cc.data --format folded --weight nosuch -j 1 >"$T/w1.out" 2>"$T/w1.err"
rc1=$?
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data --format folded --weight nosuch -j 4 \
	>"$T/w4.out" 2>"$T/w4.err"
rc4=$?
if [ "$rc1" = 2 ] && [ "$rc4" = 2 ] && cmp -s "$T/w1.err" "$T/w4.err" && ! [ -s "$T/w4.out" ]; then
	t_ok "folded --weight nosuch: -j 4 as -j 1 (exit 2: $(head -c 100 "$T/w4.err"))"
else
	t_fail "folded --weight nosuch: -j 4 as -j 1" "exit $rc1 / $rc4" "$(cat "$T/w1.err" "$T/w4.err" | head -c 400)"
fi

# a --where that cannot apply to the exit's samples (a string against a
# number): without -f the error stops the output there, which only the
# sample's renderer sees; with -f the sample is skipped and counted
w='comm>3 || prev_pid>=0'
same "exit" ex.data -e sched:sched_switch

# a directory recording: a data file per CPU, read in turns through one window
t_setup "perf records a --threads directory" \
	"$PERF" record -q --threads -g -e cpu-clock -a -F 2000 -o thr.data -- sh -c 'for i in $(seq 40); do ls -R /usr/share/doc >/dev/null; done'
same "threads" thr.data -F comm,tid,time,event,ip,sym,dso
same "threads" thr.data --format json
same "exit" ex.data --where "$w"
same "exit" ex.data --where "$w" -f
same "exit" ex.data --where "$w" -f --format json
"$RAWFRAG" report -i ex.data --where "$w" >"$T/w.out" 2>"$T/w.err"
rc=$?
if [ "$rc" = 2 ] && grep -qE 'offset|record' "$T/w.err" && [ "$(wc -l <"$T/w.out")" -ge 20 ]; then
	t_ok "--where that cannot apply: exit 2 after $(wc -l <"$T/w.out") lines: $(head -c 120 "$T/w.err")"
else
	t_fail "--where that cannot apply: exit 2 after the samples before it" "exit $rc" \
		"$(head -c 300 "$T/w.err")"
fi

# messages: a warning the machine gives when a sample first needs the kernel's
# symbols (here a kallsyms it refuses) is said as one job says it, once, even
# when only worker 1 renders such a sample (the one kernel sample of an odd
# position, selected by its time, with a chunk per sample)
mkfifo "$T/ks.fifo"
t=$("$RAWFRAG" report -i cc.data -F time,ip --ns -G 2>/dev/null |
	awk 'NR % 2 == 0 && $2 ~ /^ffff/ { sub(":", "", $1); print $1; exit }')
"$RAWFRAG" report -i cc.data --time "$t,$t" -F comm,tid,time,ip,sym -G --kallsyms "$T/ks.fifo" \
	-j 1 >"$T/k1.out" 2>"$T/k1.err"
RAWFRAG_JOBS_CHUNK=1 "$RAWFRAG" report -i cc.data --time "$t,$t" -F comm,tid,time,ip,sym -G \
	--kallsyms "$T/ks.fifo" -j 2 >"$T/k2.out" 2>"$T/k2.err"
if [ -n "$t" ] && [ "$(wc -l <"$T/k1.out")" = 1 ] && grep -q 'FIFO, not read' "$T/k1.err" &&
   cmp -s "$T/k1.out" "$T/k2.out" && cmp -s "$T/k1.err" "$T/k2.err"; then
	t_ok "a warning only worker 1 meets: said as -j 1 says it ($(head -c 80 "$T/k1.err"))"
else
	t_fail "a warning only worker 1 meets: said as -j 1 says it" "time $t" \
		"-j 1: $(cat "$T/k1.out" "$T/k1.err")" "-j 2: $(cat "$T/k2.out" "$T/k2.err")"
fi
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data --kallsyms "$T/ks.fifo" -j 4 >/dev/null 2>"$T/k4.err"
t_eq "-j 4: the machine's warning said once, not once per worker" 1 "$(grep -c 'FIFO, not read' "$T/k4.err")"

# -o: the file one job writes
"$RAWFRAG" report -i cc.data --format json -o "$T/o1.json" -j 1 2>/dev/null
RAWFRAG_JOBS_CHUNK=4 "$RAWFRAG" report -i cc.data --format json -o "$T/o4.json" -j 4 2>/dev/null
if [ -s "$T/o1.json" ] && cmp -s "$T/o1.json" "$T/o4.json"; then
	t_ok "-o FILE: -j 4 writes the file -j 1 writes ($(wc -l <"$T/o1.json") lines)"
else
	t_fail "-o FILE: -j 4 writes the file -j 1 writes" "$(cmp "$T/o1.json" "$T/o4.json" 2>&1)"
fi

# the workers ran: -vv says how many; a pipe is read by one
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data -j 3 -vv >/dev/null 2>"$T/vv.err"
t_grep "-j 3 -vv: three jobs rendered the samples" '^perf rawfrag report: 3 jobs rendered the samples$' "$T/vv.err"
# the default: a job per 16 MiB of records, at most the CPUs the process may
# use; a small file, or one CPU allowed, is read by one
t_setup "perf records more than 32 MiB of sched_switch -g -a" \
	"$PERF" record -q -g -e sched:sched_switch -a -m 1024 -o big.data -- \
	perf bench sched pipe -l 60000
size=$("$RAWFRAG" report -i big.data --header-only 2>/dev/null | awk '/^# data size/ { print $NF }')
cpus=$(nproc)
exp=$(( ${size:-0} / 16777216 ))
[ "$exp" -gt "$cpus" ] && exp=$cpus
[ "$exp" -lt 1 ] && exp=1
# (-vv shows tracepoint fields as well: both runs have it)
"$RAWFRAG" report -i big.data -j 1 -vv >"$T/b1.out" 2>"$T/b1.err"
"$RAWFRAG" report -i big.data -vv >"$T/bd.out" 2>"$T/bd.err"
said=$(sed -n 's/^perf rawfrag report: \([0-9]*\) jobs rendered the samples$/\1/p' "$T/bd.err")
if [ "${size:-0}" -ge 33554432 ] && [ "${said:-1}" = "$exp" ] && [ -s "$T/b1.out" ] &&
   cmp -s "$T/b1.out" "$T/bd.out"; then
	t_ok "no -j, $((size >> 20)) MiB of records, $cpus CPUs: $exp jobs, the bytes of -j 1 ($(wc -l <"$T/b1.out") lines)"
else
	t_fail "no -j: a job per 16 MiB, at most the CPUs" "$size bytes, $cpus CPUs: $exp expected, ${said:-1} ran" \
		"$(cmp "$T/b1.out" "$T/bd.out" 2>&1)"
fi
taskset -c 0 "$RAWFRAG" report -i big.data -vv >"$T/bt.out" 2>"$T/bt.err"
if ! grep -q 'jobs rendered' "$T/bt.err" && cmp -s "$T/b1.out" "$T/bt.out"; then
	t_ok "no -j, one CPU allowed (taskset -c 0): one job"
else
	t_fail "no -j, one CPU allowed (taskset -c 0): one job" "$(grep 'jobs rendered' "$T/bt.err")"
fi
# the table with call chains splits by entry only when asked: every job
# reads and resolves every sample
size=$("$RAWFRAG" report -i big.data --header-only 2>/dev/null | awk '/^# data size/ { print $NF }')
"$RAWFRAG" report -i big.data --stdio -vv >"$T/gd.out" 2>"$T/gd.err"
"$RAWFRAG" report -i big.data --stdio -j 2 -vv >"$T/g2.out" 2>"$T/g2.err"
"$RAWFRAG" report -i big.data -F comm,tid,ip,sym -vv 2>&1 >/dev/null | grep -c 'jobs rendered' >"$T/gt.n"
if [ "${size:-0}" -ge 33554432 ] && ! grep -q 'jobs rendered' "$T/gd.err" &&
   grep -q '^perf rawfrag report: 2 jobs rendered the samples$' "$T/g2.err" &&
   cmp -s "$T/gd.out" "$T/g2.out" && [ "$(cat "$T/gt.n")" = "$([ "$cpus" -gt 1 ] && echo 1 || echo 0)" ] &&
   [ "$(grep -c '%' "$T/gd.out")" -gt 20 ]; then
	t_ok "no -j, $((size >> 20)) MiB of -g records: the table with chains on one job (text on the default's), -j 2 its bytes on 2"
else
	t_fail "no -j: the table with chains on one job, -j 2 on 2" "$size bytes; $(grep 'jobs' "$T/gd.err" "$T/g2.err"); text split: $(cat "$T/gt.n")" \
		"$(cmp "$T/gd.out" "$T/g2.out" 2>&1)"
fi
# DWARF chains split by process only when asked: a recording of one
# program has one process, and a second job would only read it again
t_setup "perf records one process, more than 16 MiB --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,4096 -e cpu-clock -F 4000 -m 1024 -o dw1.data -- \
	dd if=/dev/zero of=/dev/null bs=1 count=8000000
size=$("$RAWFRAG" report -i dw1.data --header-only 2>/dev/null | awk '/^# data size/ { print $NF }')
"$RAWFRAG" report -i dw1.data -vv >"$T/dd.out" 2>"$T/dd.err"
"$RAWFRAG" report -i dw1.data -j 2 -vv >"$T/d2.out" 2>"$T/d2.err"
if [ "${size:-0}" -ge 16777216 ] && ! grep -q 'jobs rendered' "$T/dd.err" &&
   grep -q '^perf rawfrag report: 2 jobs rendered the samples$' "$T/d2.err" &&
   [ -s "$T/dd.out" ] && cmp -s "$T/dd.out" "$T/d2.out"; then
	t_ok "no -j, $((size >> 20)) MiB of DWARF records of one process: one job; -j 2 its bytes on 2"
else
	t_fail "no -j, DWARF records: one job; -j 2 on 2" "$size bytes; $(grep 'jobs' "$T/dd.err" "$T/d2.err")" \
		"$(cmp "$T/dd.out" "$T/d2.out" 2>&1)"
fi
"$RAWFRAG" report -i cc.data -vv >/dev/null 2>"$T/bs.err"
size=$("$RAWFRAG" report -i cc.data --header-only 2>/dev/null | awk '/^# data size/ { print $NF }')
if [ "${size:-0}" -lt 16777216 ] && ! grep -q 'jobs rendered' "$T/bs.err"; then
	t_ok "no -j, $((size >> 10)) KiB of records: one job"
else
	t_fail "no -j, a file under 16 MiB: one job" "$size bytes: $(grep 'jobs rendered' "$T/bs.err")"
fi
# a pipe: one tee reads it, every worker parses the stream; -vv says so
# same_pipe NAME STREAM ARGS...: cat STREAM | -j 1 against -j 2, 3 and 8
same_pipe() {
	local name=$1 f=$2; shift 2
	local rc1 rcn j bad=""
	cat "$f" | "$RAWFRAG" report -i - "$@" -j 1 >"$T/j1.out" 2>"$T/j1.err"
	rc1=${PIPESTATUS[1]}
	for j in 2 3 8; do
		cat "$f" | RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i - "$@" -j $j >"$T/jn.out" 2>"$T/jn.err"
		rcn=${PIPESTATUS[1]}
		if ! cmp -s "$T/j1.out" "$T/jn.out" || ! cmp -s "$T/j1.err" "$T/jn.err" ||
		   [ "$rc1" != "$rcn" ]; then
			bad="$bad -j$j(exit $rc1/$rcn: $(cmp "$T/j1.out" "$T/jn.out" 2>&1 | head -c 100))"
		fi
	done
	if [ -n "$bad" ]; then
		t_fail "pipe, $name: $*: -j 1 and$bad differ" "$(diff "$T/j1.err" "$T/jn.err" | head -c 300)"
	elif [ "$(wc -c <"$T/j1.out")" -lt 2000 ]; then
		t_fail "pipe, $name: $*: too little output to tell" "$(head -c 300 "$T/j1.err")"
	else
		t_ok "pipe, $name: $*: -j 2, 3, 8 as -j 1 (exit $rc1, $(wc -l <"$T/j1.out") lines)"
	fi
}
"$PERF" record -q -g -e cpu-clock -c 100000 -o - -- sh -c 'for i in $(seq 20); do ls /usr/bin >/dev/null; done' \
	>"$T/p.pipe" 2>/dev/null
cat "$T/p.pipe" | "$RAWFRAG" report -i - -j 4 -vv >/dev/null 2>"$T/p4.err"
t_grep "a pipe with -j 4 -vv: four jobs rendered the samples" \
	'^perf rawfrag report: 4 jobs rendered the samples$' "$T/p4.err"
same_pipe "perf record -o -" "$T/p.pipe"
same_pipe "perf record -o -" "$T/p.pipe" --format json
same_pipe "perf record -o -" "$T/p.pipe" --format folded
same_pipe "perf record -o -" "$T/p.pipe" --format flamegraph
same_pipe "perf record -o -" "$T/p.pipe" --format pprof -o -
same_pipe "perf record -o -" "$T/p.pipe" --stdio --no-children -g none
same_pipe "perf record -o -" "$T/p.pipe" --show-task-events --no-order
same_pipe "perf record --call-graph dwarf -o -" "$T/dw.pipe" --show-task-events
same_pipe "perf record --call-graph dwarf -o -" "$T/dw.pipe" --format json
# tracepoints (every worker meets the tracing data), and a --where that
# stops only its renderer, at the exit
same_pipe "exit" ex.pipe -F comm,tid,time,event,trace
same_pipe "exit" ex.pipe --where "$w"
same_pipe "exit" ex.pipe --where "$w" -f --format json
# 50 MiB through a tee that lets a reader run only 2 MiB ahead of the slowest
# (perf inject -o - of a tracepoint file writes its tracing data without a
# record: perf record's own stream)
t_setup "perf records more than 8 MiB of sched_switch -g -a as a stream" sh -c \
	"\"$PERF\" record -q -g -e sched:sched_switch -a -m 1024 -o - -- perf bench sched pipe -l 20000 >big.pipe 2>/dev/null"
cat big.pipe | "$RAWFRAG" report -i - -F comm,tid,time,ip,sym,dso -j 1 >"$T/b1.out" 2>"$T/b1.err"
cat big.pipe | RAWFRAG_JOBS_TEE=1 RAWFRAG_JOBS_CHUNK=16 "$RAWFRAG" report -i - -F comm,tid,time,ip,sym,dso \
	-j 3 >"$T/b3.out" 2>"$T/b3.err"
if [ "$(stat -c %s big.pipe)" -gt 8388608 ] && [ -s "$T/b1.out" ] && cmp -s "$T/b1.out" "$T/b3.out" &&
   cmp -s "$T/b1.err" "$T/b3.err"; then
	t_ok "pipe of $(($(stat -c %s big.pipe) >> 20)) MiB, readers 2 MiB apart at most: -j 3 as -j 1"
else
	t_fail "pipe, readers 2 MiB apart at most: -j 3 as -j 1" "$(stat -c %s big.pipe) bytes" \
		"$(cmp "$T/b1.out" "$T/b3.out" 2>&1; head -c 200 "$T/b3.err")"
fi
# a stream cut short: every worker meets its end at the same record
bad="" n=0
sz=$(stat -c %s "$T/p.pipe")
for cut in 200 5000 $((sz / 3)) $((sz / 2 + 7)) $((sz - 9)); do
	head -c $cut "$T/p.pipe" | "$RAWFRAG" report -i - -j 1 >"$T/c1.out" 2>"$T/c1.err"
	rc1=${PIPESTATUS[1]}
	head -c $cut "$T/p.pipe" | RAWFRAG_JOBS_CHUNK=1 "$RAWFRAG" report -i - -j 3 >"$T/c3.out" 2>"$T/c3.err"
	rc3=${PIPESTATUS[1]}
	[ "$rc1" = 2 ] && n=$((n + 1))
	if [ "$rc1" != "$rc3" ] || ! cmp -s "$T/c1.out" "$T/c3.out" || ! cmp -s "$T/c1.err" "$T/c3.err"; then
		bad="$bad $cut(exit $rc1/$rc3)"
	fi
done
t_eq "pipes cut at 5 places ($n with an error): -j 3 stops where -j 1 does, with its message" "" "$bad"
# a regular file in pipe format, named or on stdin, is opened again by each worker
"$RAWFRAG" report -i "$T/p.pipe" -j 1 >"$T/r1.out" 2>"$T/r1.err"
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i "$T/p.pipe" -j 3 -vv >"$T/r3.out" 2>"$T/r3.err"
"$RAWFRAG" report -i - -j 1 <"$T/p.pipe" >"$T/s1.out" 2>/dev/null
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i - -j 3 -vv <"$T/p.pipe" >"$T/s3.out" 2>"$T/s3.err"
if [ -s "$T/r1.out" ] && cmp -s "$T/r1.out" "$T/r3.out" && cmp -s "$T/r1.out" "$T/s3.out" &&
   cmp -s "$T/s1.out" "$T/s3.out" && grep -q '^perf rawfrag report: 3 jobs' "$T/r3.err" &&
   grep -q '^perf rawfrag report: 3 jobs' "$T/s3.err"; then
	t_ok "a file in pipe format, by name and on stdin: 3 jobs, the output of -j 1"
else
	t_fail "a file in pipe format, by name and on stdin: 3 jobs" "$(cmp "$T/r1.out" "$T/r3.out" 2>&1)" \
		"$(head -c 300 "$T/r3.err" "$T/s3.err")"
fi

# a closed output: quiet, exit 0, the first lines
RAWFRAG_JOBS_CHUNK=2 "$RAWFRAG" report -i cc.data -j 4 2>"$T/h.err" | head -n 5 >"$T/h4.out"
rc=${PIPESTATUS[0]}
"$RAWFRAG" report -i cc.data -j 1 2>/dev/null | head -n 5 >"$T/h1.out"
if [ "$rc" = 0 ] && [ ! -s "$T/h.err" ] && cmp -s "$T/h1.out" "$T/h4.out" &&
   [ "$(wc -l <"$T/h4.out")" = 5 ]; then
	t_ok "-j 4 | head -5: exit 0, nothing on stderr, the first 5 lines"
else
	t_fail "-j 4 | head -5: exit 0, quiet" "exit $rc" "$(head -c 300 "$T/h.err")"
fi

# the corrupt fixtures: each stops at the same record with the same message
GEN=$(t_bin rawfrag-gen)
if [ -x "$GEN" ] && "$GEN" "$T/fx" >/dev/null 2>&1; then
	n=0 bad=""
	for f in $(awk '{ print $1 }' "$T/fx/MANIFEST"); do
		for k in "" "--format json" "-f" "-f --format json" "-F comm,tid,time,ip,sym,dso,trace"; do
			# shellcheck disable=SC2086
			"$RAWFRAG" report -i "$T/fx/$f" $k -j 1 >"$T/f1.out" 2>"$T/f1.err"
			rc1=$?
			# shellcheck disable=SC2086
			RAWFRAG_JOBS_CHUNK=1 "$RAWFRAG" report -i "$T/fx/$f" $k -j 3 >"$T/f3.out" 2>"$T/f3.err"
			rc3=$?
			n=$((n + 1))
			if ! cmp -s "$T/f1.out" "$T/f3.out" || ! cmp -s "$T/f1.err" "$T/f3.err" ||
			   [ "$rc1" != "$rc3" ]; then
				bad="$bad $f($k: exit $rc1/$rc3)"
			fi
		done
	done
	t_eq "rawfrag-gen's fixtures ($n runs, corrupt ones too): -j 3 as -j 1" "" "$bad"
	nbad=$(awk '$2 != 0' "$T/fx/MANIFEST" | wc -l)
	t_eq "the fixtures include corrupt files" 1 "$([ "$nbad" -ge 10 ] && echo 1)"
else
	t_skip_n 2 "rawfrag-gen's fixtures" "needs tests/rawfrag-gen"
fi

# ThreadSanitizer (make test builds build/tsan): the workers of -j 4 in chunks
# of two samples share nothing unordered; libunwind's own start-up is left
# out (tests/tsan.supp says why)
TS=${TSAN_O:-$TOP/build/tsan}/perf-rawfrag
for f in cc.data swg.data dw.data ex.data dwt.data; do
	if [ ! -x "$TS" ]; then
		t_skip "TSan: $f" "no ThreadSanitizer build (make O=build/tsan SANITIZE=thread build/tsan/perf-rawfrag)"
		continue
	fi
	k=()
	[ "$f" = ex.data ] && k=(--where "$w")
	[ "$f" = dwt.data ] && k=(--where 'comm>3 || prev_pid>=0' --show-task-events)
	bad=""
	fmts="text json"
	[ "$f" = ex.data ] || [ "$f" = dwt.data ] || fmts="$fmts flamegraph-json flamegraph pprof"
	for fmt in $fmts; do
		"$RAWFRAG" report -i "$f" --format $fmt -o - "${k[@]}" -j 1 >"$T/t1.out" 2>"$T/t1.err"
		rc1=$?
		RAWFRAG_JOBS_CHUNK=2 TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$TOP/tests/tsan.supp" \
			"$TS" report -i "$f" --format $fmt -o - "${k[@]}" -j 4 >"$T/t4.out" 2>"$T/t4.err"
		rc4=$?
		if grep -q ThreadSanitizer "$T/t4.err"; then
			bad="$bad $fmt: $(grep -m1 -A3 'WARNING: ThreadSanitizer' "$T/t4.err" | tr '\n' ' ')"
		elif [ "$rc1" != "$rc4" ] || ! cmp -s "$T/t1.out" "$T/t4.out" || ! cmp -s "$T/t1.err" "$T/t4.err"; then
			bad="$bad $fmt: exit $rc1/$rc4 $(cmp "$T/t1.out" "$T/t4.out" 2>&1)"
		fi
	done
	t_eq "TSan: $f ${k[*]}: -j 4 $fmts as -j 1, no report" "" "$bad"
done

# a pipe's tee under TSan: readers at most 2 MiB apart
if [ -x "$TS" ]; then
	cat big.pipe | RAWFRAG_JOBS_TEE=1 TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$TOP/tests/tsan.supp" \
		"$TS" report -i - -F comm,tid,time,ip,sym,dso -j 4 >"$T/t4.out" 2>"$T/t4.err"
	cat ex.pipe | "$RAWFRAG" report -i - -j 1 >"$T/x1.out" 2>"$T/x1.err"
	cat ex.pipe | RAWFRAG_JOBS_CHUNK=2 TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$TOP/tests/tsan.supp" \
		"$TS" report -i - -j 4 >"$T/x4.out" 2>>"$T/t4.err"
	if ! grep -q ThreadSanitizer "$T/t4.err" && cmp -s "$T/b1.out" "$T/t4.out" &&
	   cmp -s "$T/b1.err" "$T/t4.err" && [ -s "$T/x1.out" ] && cmp -s "$T/x1.out" "$T/x4.out"; then
		t_ok "TSan: pipes through the tee (one with tracing data all workers probe once), -j 4 as -j 1, no report"
	else
		t_fail "TSan: a pipe through the tee, -j 4 as -j 1" \
			"$(grep -m1 -A6 'WARNING: ThreadSanitizer' "$T/t4.err"; cmp "$T/b1.out" "$T/t4.out" 2>&1)"
	fi
else
	t_skip "TSan: a pipe" "no ThreadSanitizer build"
fi

# the table's merges under TSan: entries added up, and entries kept whole by part
for tk in "--no-children -g none --sort comm,dso,sym --hist period" "--sort comm,dso,sym"; do
	if [ ! -x "$TS" ]; then
		t_skip "TSan: table $tk" "no ThreadSanitizer build"
		continue
	fi
	# shellcheck disable=SC2086
	"$RAWFRAG" report -i cc.data --stdio $tk -j 1 >"$T/t1.out" 2>"$T/t1.err"
	# shellcheck disable=SC2086
	RAWFRAG_JOBS_CHUNK=2 TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$TOP/tests/tsan.supp" \
		"$TS" report -i cc.data --stdio $tk -j 4 >"$T/t4.out" 2>"$T/t4.err"
	if ! grep -q ThreadSanitizer "$T/t4.err" && cmp -s "$T/t1.out" "$T/t4.out" &&
	   cmp -s "$T/t1.err" "$T/t4.err" && [ -s "$T/t1.out" ]; then
		t_ok "TSan: table $tk: -j 4 as -j 1, no report"
	else
		t_fail "TSan: table $tk: -j 4 as -j 1" "$(grep -m1 -A3 'WARNING: ThreadSanitizer' "$T/t4.err")"
	fi
done

# Python: Reader.write(..., jobs=N) writes the bytes of jobs=1; a bad jobs raises
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	PYTHONPATH=$O/python RAWFRAG_JOBS_CHUNK=2 $PY - cc.data "$T" <<'EOF' >"$T/py.out" 2>&1
import rawfrag, sys
r = rawfrag.open(sys.argv[1])
t = sys.argv[2]
for fmt in ("text", "json", "folded", "flamegraph-json", "flamegraph", "pprof"):
    r.write(fmt, t + "/py1." + fmt, jobs=1)
    r.write(fmt, t + "/py3." + fmt, jobs=3)
    a = open(t + "/py1." + fmt, "rb").read()
    b = open(t + "/py3." + fmt, "rb").read()
    print(fmt, len(a) > 1000 and a == b)
f1, f3 = r.folded(jobs=1), r.folded(jobs=3)
print("folded()", len(f1) > 1000 and f1 == f3)
a1 = r.aggregate(sort="comm,dso,sym", callgraph="none", children=False, jobs=1)
a3 = r.aggregate(sort="comm,dso,sym", callgraph="none", children=False, jobs=3)
print("aggregate()", len(a1) > 10 and a1 == a3)
# DWARF chains: split by process, here without the command's sigprocmask()
d = rawfrag.open("dwm.data")
for fmt in ("text", "json"):
    d.write(fmt, t + "/pyd1." + fmt, jobs=1)
    d.write(fmt, t + "/pyd3." + fmt, jobs=3)
    a = open(t + "/pyd1." + fmt, "rb").read()
    print("dwarf", fmt, len(a) > 10000 and a == open(t + "/pyd3." + fmt, "rb").read())
# no jobs, or None: report's default (2 jobs on a 2-CPU machine for big.data), its bytes
b = rawfrag.open("big.data")
b.write("text", t + "/pyb1.txt", jobs=1)
b.write("text", t + "/pybd.txt")
b.write("text", t + "/pybn.txt", jobs=None)
a = open(t + "/pyb1.txt", "rb").read()
print("default", len(a) > 100000 and a == open(t + "/pybd.txt", "rb").read() ==
      open(t + "/pybn.txt", "rb").read())
try:
    r.write("text", t + "/py0.txt", jobs=0)
    print("jobs=0 accepted")
except ValueError as e:
    print("ValueError:", e)
EOF
	t_eq "Python write(jobs=3), folded(jobs=3), aggregate(jobs=3): text, json, folded, flamegraph-json, flamegraph, pprof, the table, DWARF text and json as jobs=1; no jobs or None as jobs=1 on a 50 MiB file; jobs=0 raises" \
		"text True|json True|folded True|flamegraph-json True|flamegraph True|pprof True|folded() True|aggregate() True|dwarf text True|dwarf json True|default True|ValueError: write(): jobs is a number from 1 to 256" \
		"$(paste -sd'|' "$T/py.out")"
else
	t_skip "Python write(jobs=3)" "the Python module is not built"
fi

# bad values
for v in 0 257 2x x; do
	t_run "-j $v: refused, exit 2" 2 "$RAWFRAG" report -i cc.data -j "$v"
done
t_grep "-j x: the message names the value and the range" "bad --jobs 'x' \\(a number from 1 to 256\\)" "$T/err"
