#!/usr/bin/env bash
# perf rawfrag report against perf on files recorded from the running kernel:
# --stats equals perf report --stats; text lines equal perf script's line for
# line, in perf script's order (file, -z, pipe; many rounds on several CPUs;
# a record moved rounds late; no FINISHED_ROUND at all); --no-order prints the
# same lines; JSON Lines parse and carry perf script's pid/tid/cpu/time in its
# order; -e/--pid/--tid/--cpu/--time/-F select what perf script selects; pipe
# input; a closed output pipe is quiet.
source "$(dirname "$0")/lib.sh"
t_plan 80

t_run "bad option: exit 2" 2 "$RAWFRAG" report --no-such-option
t_run "bad --format: exit 2" 2 "$RAWFRAG" report --format yaml
t_grep "bad --format named" "unknown format 'yaml'" "$T/err"
t_run "bad --cpu list: exit 2" 2 "$RAWFRAG" report --cpu 3-1
t_run "bad --time: exit 2" 2 "$RAWFRAG" report --time abc,def
t_run "bad -F field: exit 2" 2 "$RAWFRAG" report -F comm,nosuch
t_run "missing input: exit 2" 2 "$RAWFRAG" report -i nope.data
t_grep "missing input: message names the file" "^perf rawfrag report: nope.data: " "$T/err"
t_run "--help: exit 0" 0 "$RAWFRAG" report --help

# the generator's corrupt fixtures: report stops with the manifest's message
GEN=$O/tests/rawfrag-gen
if [ -x "$GEN" ] && "$GEN" fx >/dev/null 2>&1; then
	while read -r f want msg; do
		[ "$want" = 2 ] || continue
		t_run "fixture $f: exit 2" 2 "$RAWFRAG" report -i "fx/$f"
		if grep -qF -- "$msg" "$T/err"; then t_ok "fixture $f: error message"
		else t_fail "fixture $f: error message" "want: $msg" "got: $(head -c 300 "$T/err")"; fi
	done <fx/MANIFEST
else
	t_skip "generator fixtures" "tests/rawfrag-gen not built"
fi

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "recorded files: needs root, tracefs and perf"
fi
EVENTS="-e sched:sched_switch -e sched:sched_wakeup -e irq:softirq_entry -e syscalls:sys_enter_read"
# some load so every CPU and several tasks show up
"$PERF" record -q $EVENTS -a -o tp.data -- sh -c 'for i in 1 2 3; do cat /proc/cpuinfo >/dev/null; sleep 0.05; done' >/dev/null 2>&1
"$PERF" record -q $EVENTS -a -z -o tpz.data -- sleep 0.2 >/dev/null 2>&1
"$PERF" record -q $EVENTS -a -o - -- sleep 0.2 2>/dev/null >pipe.data
# -m 1: small buffers, so many FINISHED_ROUNDs with records of several CPUs
# between them; more tracepoints (the samples perf loses show up as LOST)
"$PERF" record -q -m 1 $EVENTS -e syscalls:sys_exit_read -e timer:hrtimer_start -e timer:hrtimer_expire_entry \
	-a -o tpm.data -- sh -c 'for i in 1 2 3; do cat /proc/cpuinfo >/dev/null; sleep 0.05; done' >/dev/null 2>&1
nperf=$("$PERF" script -i tp.data 2>/dev/null | wc -l)
if [ "$nperf" -lt 10 ]; then
	t_skip_rest "recorded files: perf recorded only $nperf samples"
fi

# --stats: every "<TYPE> events: N" line of perf report --stats, same order
for f in tp.data tpz.data; do
	"$PERF" report --stats -i $f 2>/dev/null | grep 'events:' >perf-stats.txt
	"$RAWFRAG" report --stats -i $f 2>"$T/err" | grep 'events:' >our-stats.txt
	if diff perf-stats.txt our-stats.txt >/dev/null && [ -s perf-stats.txt ]; then
		t_ok "--stats equals perf report --stats ($f, $(wc -l <perf-stats.txt) lines)"
	else
		t_fail "--stats equals perf report --stats ($f)" "$(diff perf-stats.txt our-stats.txt | head -10)"
	fi
done

# text: whole lines equal perf script's, in its order (not sorted here)
PS_F=comm,tid,cpu,time,event,trace
SORT=cat
cmp_text() { # name, perf script args..., --, our args...
	local name=$1; shift
	local pargs=() oargs=()
	while [ "$1" != -- ]; do pargs+=("$1"); shift; done; shift
	oargs=("$@")
	"$PERF" script "${pargs[@]}" 2>/dev/null | $SORT >perf.txt
	"$RAWFRAG" report "${oargs[@]}" 2>"$T/err" | $SORT >our.txt
	local n; n=$(wc -l <perf.txt)
	if [ "$n" -gt 0 ] && diff perf.txt our.txt >/dev/null; then
		t_ok "$name ($n lines)"
	else
		t_fail "$name" "perf $(wc -l <perf.txt) lines, ours $(wc -l <our.txt)" \
			"$(diff perf.txt our.txt | head -6)" "$(head -c 300 "$T/err")"
	fi
}
cmp_text "text equals perf script -F $PS_F" -i tp.data -F $PS_F -- -i tp.data
cmp_text "text equals perf script (zstd file)" -i tpz.data -F $PS_F -- -i tpz.data
cmp_text "-F tid,time,event equals perf script's" -i tp.data -F tid,time,event -- -i tp.data -F tid,time,event
cmp_text "-F comm,pid,tid,cpu,event,trace equals perf script's" -i tp.data -F comm,pid,tid,cpu,event,trace -- \
	-i tp.data -F comm,pid,tid,cpu,event,trace
cmp_text "pipe input (-i -) equals perf script" -i pipe.data -F $PS_F -- -i - <pipe.data
cmp_text "pipe format file (-i FILE) equals perf script" -i pipe.data -F $PS_F -- -i pipe.data

# perf's ordered-events queue: many rounds, several CPUs, records that arrive late
nr=$("$PERF" report --stats -i tpm.data 2>/dev/null | awk '/FINISHED_ROUND events/ {print $3; exit}')
if [ "$("$PERF" script -i tpm.data -F cpu 2>/dev/null | sort -u | wc -l)" -lt 2 ] || [ "${nr:-0}" -lt 8 ]; then
	t_skip "ordering over rounds and CPUs" "the -m 1 recording has one CPU or under 8 rounds"
else
	cmp_text "text equals perf script in order (-m 1: $nr rounds, several CPUs)" -i tpm.data -F $PS_F -- -i tpm.data
	cmp_text "pipe form of the same equals perf script" -i tpm.data -F $PS_F -- -i - <tpm.data
	# rewrite the data section: one sample moved six rounds later (perf shows it
	# out of time order, at the next flush); all FINISHED_ROUNDs moved to the end
	# (perf sorts the whole file); records shuffled inside each round and one
	# sample in twenty moved 0..8 rounds later
	cat >reorder.py <<'EOF2'
import random, struct, sys
src, dst, mode = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
recs, p = [], off
while p < off + size:
    t, misc, sz = struct.unpack_from('<IHH', b, p)
    recs.append((t, bytes(b[p:p + sz])))
    p += sz
if mode == 'norounds':
    out = [r for r in recs if r[0] != 68] + [r for r in recs if r[0] == 68]
elif mode.startswith('shuffle'):
    random.seed(int(mode[7:]))
    out, cur = [], []
    for r in recs:
        if r[0] == 68:
            random.shuffle(cur)
            out += cur + [r]
            cur = []
        else:
            cur.append(r)
    out += cur
    for k in range(len(out) // 20):
        i = random.randrange(len(out))
        if out[i][0] != 9:
            continue
        r = out.pop(i)
        j, n = i, random.randrange(9)
        while j < len(out) and n > 0:
            n -= out[j][0] == 68
            j += 1
        out.insert(j, r)
else:
    samples = [i for i, r in enumerate(recs) if r[0] == 9]
    i = samples[len(samples) // 2]
    r = recs.pop(i)
    n = 0
    for j in range(i, len(recs)):
        n += recs[j][0] == 68
        if n == 6:
            break
    recs.insert(j, r)
    out = recs
b[off:off + size] = b''.join(r[1] for r in out)
open(dst, 'wb').write(b)
EOF2
	python3 reorder.py tpm.data late.data late && python3 reorder.py tpm.data norounds.data norounds
	backs() { "$PERF" script -i "$1" -F time 2>/dev/null | tr -d ' :' | awk '$1 < p {n++} {p = $1} END {print n + 0}'; }
	b0=$(backs tpm.data) back=$(backs late.data)
	# a precondition, not a check of ours: perf's output must show the late sample
	# out of time order, or matching it proves nothing about the two-round lag
	if [ "$back" -gt "$b0" ]; then
		cmp_text "a sample six rounds late: same place as perf script" -i late.data -F $PS_F -- -i late.data
	else
		t_skip "a sample six rounds late: same place as perf script" "perf's output shows no step back in time ($b0 before, $back after): nothing to prove"
	fi
	cmp_text "no FINISHED_ROUND before the end: sorted whole as perf" -i norounds.data -F $PS_F -- -i norounds.data
	# memory follows the rounds: the queue holds a few rounds, not the file
	held=$("$RAWFRAG" report -vv -i tpm.data -o /dev/null 2>&1 | sed -n 's/.*queue held at most \([0-9]*\) records/\1/p')
	whole=$("$RAWFRAG" report -vv -i norounds.data -o /dev/null 2>&1 | sed -n 's/.*queue held at most \([0-9]*\) records/\1/p')
	# a margin of 2: the round sizes vary with what the machine did while recording
	if [ -n "$held" ] && [ -n "$whole" ] && [ "$held" -lt $((whole / 2)) ]; then
		t_ok "queue holds rounds ($held records at most), a file without rounds whole ($whole)"
	else
		t_fail "queue holds rounds, not the file" "with rounds: '$held', without: '$whole'"
	fi
	for seed in 1 2 3; do
		python3 reorder.py tpm.data shuf.data shuffle$seed
		cmp_text "shuffled rounds, samples 0-8 rounds late (seed $seed): as perf script" \
			-i shuf.data -F $PS_F -- -i shuf.data
	done
fi

# --no-order: file order, the same lines as a set (names as of the position in
# the file, so no comm column)
SORT=sort
cmp_text "--no-order: same lines as perf script, sorted" -i tpm.data -F tid,cpu,time,event,trace -- \
	-i tpm.data --no-order -F tid,cpu,time,event,trace
cmp_text "--no-order, pipe input: same lines, sorted" -i pipe.data -F tid,cpu,time,event,trace -- \
	-i - --no-order -F tid,cpu,time,event,trace <pipe.data
SORT=cat

# selection: the same samples as perf script with the same option
cpu0=$("$PERF" script -i tp.data -F cpu 2>/dev/null | head -1 | tr -dc 0-9)
cmp_text "--cpu $((10#$cpu0)) selects as perf script" -i tp.data -F $PS_F --cpu $((10#$cpu0)) -- -i tp.data --cpu $((10#$cpu0))
pid=$("$PERF" script -i tp.data -F pid 2>/dev/null | awk '$1 != 0' | sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
cmp_text "--pid $pid selects as perf script" -i tp.data -F $PS_F --pid "$pid" -- -i tp.data --pid "$pid"
cmp_text "--tid $pid,0 selects as perf script" -i tp.data -F $PS_F --tid "$pid,0" -- -i tp.data --tid "$pid,0"
# a time window: from the 1/4 to the 3/4 sample (as printed by perf, usec)
"$PERF" script -i tp.data -F time 2>/dev/null | tr -d ' :' | sort -n >times.txt
t1=$(sed -n "$((nperf / 4))p" times.txt) t2=$(sed -n "$((3 * nperf / 4))p" times.txt)
cmp_text "--time $t1,$t2 selects as perf script" -i tp.data -F $PS_F --time "$t1,$t2" -- -i tp.data --time "$t1,$t2"
cmp_text "--time $t1, (open end) selects as perf script" -i tp.data -F $PS_F --time "$t1," -- -i tp.data --time "$t1,"
"$PERF" script -i tp.data -F $PS_F 2>/dev/null | grep -E ' (sched:sched_switch|irq:[a-z_]+): ' >perf.txt
"$RAWFRAG" report -i tp.data -e 'sched:sched_switch,irq:*' 2>"$T/err" >our.txt
if [ -s perf.txt ] && diff perf.txt our.txt >/dev/null; then t_ok "-e with a glob selects the same samples ($(wc -l <our.txt))"
else t_fail "-e with a glob selects the same samples" "$(diff perf.txt our.txt | head -4)"; fi
# percentages of the recorded span, perf's syntax
for pct in 0%-50% 10%/2 10%/1,10%/3; do
	cmp_text "--time $pct selects as perf script" -i tp.data -F $PS_F --time "$pct" -- -i tp.data --time "$pct"
done

# JSON Lines: keys, sample count and per-sample pid/tid/cpu/time equal perf script's
"$RAWFRAG" report -i tp.data --format json >our.json 2>"$T/err"
t_eq "report --format json exit status" 0 "$?"
"$PERF" script -i tp.data --ns -F pid,tid,cpu,time,event 2>/dev/null >perf-ids.txt
cat >cmp.py <<'EOF'
import json, re, sys
need = {"event", "producer", "time_ns", "cpu", "pid", "tid", "comm", "raw", "fields"}
ours, bad = [], 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if set(o) < need or set(o["raw"]) != {"size", "len", "pad", "pad_zero"}:
        bad += 1
    ours.append((o["pid"], o["tid"], o["cpu"], o["time_ns"], o["event"]))
theirs = []
pat = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s*$')
for line in open(sys.argv[2]):
    m = pat.match(line)
    if not m:
        print("unparsed perf line:", line.strip()); sys.exit(1)
    theirs.append((int(m[1]), int(m[2]), int(m[3]), int(m[4]) * 10**9 + int(m[5]), m[6]))
print(len(ours), len(theirs), bad, "same" if ours == theirs else "differ")
EOF
read -r nj np nbad same < <(python3 cmp.py our.json perf-ids.txt 2>&1)
t_eq "JSON: every line parses with the required keys" "0" "$nbad"
t_eq "JSON: sample count equals perf script's" "$np" "$nj"
t_eq "JSON: pid/tid/cpu/time_ns/event equal perf script's, in its order" "same" "$same"
# raw sizes: the record size perf report -D shows = fixed fields before RAW + 4 + raw.size
python3 - tp.data our.json >rawsz.txt <<'EOF'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
attrs_off, = struct.unpack_from('<Q', b, 24)
st, = struct.unpack_from('<Q', b, attrs_off + 24)
fixed = (1 << 16) | 1 | 2 | 4 | 8 | 64 | 512 | 128 | 256
before = 8 + 8 * bin(st & fixed).count('1') + 4
for line in open(sys.argv[2]):
    o = json.loads(line)
    print(o["time_ns"], before + o["raw"]["size"])
EOF
"$PERF" report -D -i tp.data 2>/dev/null |
	python3 -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"^\s*\d+ (\d+) 0x[0-9a-f]+ \[(0x[0-9a-f]+)\]: PERF_RECORD_SAMPLE", l)
    if m: print(m[1], int(m[2], 16))' >perf-sz.txt
if [ -s perf-sz.txt ] && diff <(sort perf-sz.txt) <(sort rawsz.txt) >/dev/null; then
	t_ok "JSON raw.size matches perf report -D record sizes ($(wc -l <perf-sz.txt))"
else
	t_fail "JSON raw.size matches perf report -D record sizes" "$(diff <(sort perf-sz.txt) <(sort rawsz.txt) | head -4)"
fi
t_grep "JSON: tracepoint samples decoded with pad known" '"producer":"tracepoint".*"raw":\{"size":[0-9]+,"len":[0-9]+,"pad":[0-7],"pad_zero":true\}' our.json

# -o FILE and a closed pipe
t_run "-o writes the file" 0 "$RAWFRAG" report -i tp.data -o out.txt
t_eq "-o: same lines as stdout" "$nperf" "$(wc -l <out.txt)"
"$RAWFRAG" report -i tp.data 2>err.txt | head -1 >head.txt
rc=${PIPESTATUS[0]}
t_eq "| head -1: exit 0" 0 "$rc"
# the same line perf script prints first, and no complaint about the closed pipe
t_eq "| head -1: the first line, nothing on stderr" "1|$(head -1 out.txt)|" \
	"$(grep -c . head.txt)|$(cat head.txt)|$(cat err.txt)"
t_run "write error (-o /dev/full): exit 2" 2 "$RAWFRAG" report -i tp.data -o /dev/full
t_grep "write error named" "write error: No space left on device" "$T/err"
