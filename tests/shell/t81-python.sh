#!/usr/bin/env bash
# The rawfrag Python module and the perf script hooks on recordings made here
# (tracepoints + skb dumps of lo; file, pipe and zstd formats; -g and
# --call-graph dwarf with registers): every Sample.to_dict() equals report
# --format json (symbols, call chains and registers included), a perf script handler's
# Decoder().decode() equals it too (run from outside the tree, -i elsewhere),
# every pipe case works or fails loudly, hostile files only raise rawfrag.Error
# (also under ASan), and the installed module works.
source "$(dirname "$0")/lib.sh"
t_plan 51
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
PYDIR=$O/python
SO=$O/plugins/rawfrag-dlfilter.so
HOOK=$TOP/plugins/python/rawfrag.py

if ! ls "$PYDIR"/rawfrag*.so >/dev/null 2>&1; then
	t_fail "python module built" "no $PYDIR/rawfrag*.so"
	t_skip_rest "the module is not built"
fi
# imported from any directory through PYTHONPATH
(cd / && PYTHONPATH=$PYDIR $PY -c 'import rawfrag; print(rawfrag.__file__)') >imp.txt 2>&1
t_grep "import rawfrag from / with PYTHONPATH=$PYDIR" "^$PYDIR/rawfrag" imp.txt
export PYTHONPATH=$PYDIR
if ! is_root || ! ensure_tracefs; then t_skip_rest "recording needs root and tracefs"; fi

mkdir -p rec elsewhere
# a program whose name needs JSON escapes (quote, backslash, control bytes, UTF-8)
# shows in sched_process_exec's filename and in comm
ODD="$T/q\"b\\$(printf '\001\t')éx"
cp /bin/true "$ODD"
export ODD
WORK='ping -c 3 -i 0.1 127.0.0.1 >/dev/null; "$ODD"; ls / >/dev/null; sleep 0.05'
EVENTS=sched:sched_switch,sched:sched_process_exec,sched:sched_wakeup
"$RAWFRAG" record -e $EVENTS --skb lo -o rec/file.data -- sh -c "$WORK" >/dev/null 2>rec/file.err
t_grep "record: tracepoints and skb dumps into a file" 'skbdump:1=lo: [1-9][0-9]* samples' rec/file.err
"$RAWFRAG" record -e $EVENTS --skb lo -o - -- sh -c "$WORK" >rec/pipe.data 2>rec/pipe.err
t_grep "record: the same into a pipe" 'skbdump:1=lo: [1-9][0-9]* samples' rec/pipe.err
# zstd (record -z) into a file and into a pipe, skb dumps included; perf's own
# count of COMPRESSED records shows the records really are compressed
"$RAWFRAG" record -z -e $EVENTS --skb lo -o rec/zs.data -- sh -c "$WORK" >/dev/null 2>rec/zs.err
"$RAWFRAG" record -z -e $EVENTS --skb lo -o - -- sh -c "$WORK" >rec/zp.data 2>rec/zp.err
ncomp() { $PERF report -D -i "$1" 2>/dev/null | awk '/COMPRESSED events:/ {print $3; exit}'; }
if grep -q 'skbdump:1=lo: [1-9][0-9]* samples' rec/zs.err && grep -q 'skbdump:1=lo: [1-9][0-9]* samples' rec/zp.err &&
	[ "$(ncomp rec/zs.data)" -gt 0 ] 2>/dev/null && [ "$(ncomp rec/zp.data)" -gt 0 ] 2>/dev/null; then
	t_ok "record -z: tracepoints and skb dumps zstd-compressed into a file and a pipe"
else
	t_fail "record -z into a file and a pipe" "file: $(ncomp rec/zs.data) pipe: $(ncomp rec/zp.data)" \
		"$(tail -n2 rec/zs.err rec/zp.err)"
fi
# perf's zstd recording and its header: a precondition, not a check of ours. Our
# workload only, not -a: perf 6.1's Python scripting crashes on a sample whose comm
# is not UTF-8, and another process on the machine may have such a name.
t_setup "perf record -z" $PERF record -q -z -o rec/z.data -e sched:sched_switch \
	-e sched:sched_wakeup -- sh -c "$WORK"
t_setup "perf wrote a zstd-compressed file" \
	sh -c "$PERF report -i rec/z.data --header-only 2>/dev/null | grep -q '# compressed : Zstd'"

# nraw FILE.json: samples with a raw area in report's JSON
nraw() { $PY -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["raw"]))' "$1"; }

# compare.py SRC REF [kwargs]: Sample.to_dict() (and fields) of every sample == report's JSON
cat >compare.py <<'EOF'
import json, sys, rawfrag
src, ref = sys.argv[1], sys.argv[2]
kw = eval("dict(%s)" % (sys.argv[3] if len(sys.argv) > 3 else ""))
want = [json.loads(l) for l in open(ref, encoding="utf-8", errors="surrogateescape")]
if src == "-":
    src = sys.stdin.buffer
with rawfrag.open(src, **kw) as r:
    got = [s for s in r]
# the attributes are report's members as Python values: ints, not "0x.." strings
def h(v):
    return None if v is None else "0x%x" % v
def attrs_equal(g, w):
    if "ip" in w and (h(g.ip), g.sym, g.symoff, g.dso) != (w["ip"], w["sym"], w["symoff"], w["dso"]):
        return False
    if h(g.addr) != w.get("addr") or g.period != w.get("period", g.period):
        return False
    chain = None if g.callchain is None else [dict(f, ip=h(f["ip"])) for f in g.callchain]
    regs = None if g.regs is None else {k: {r: v if r == "abi" else h(v) for r, v in d.items()}
                                        for k, d in g.regs.items()}
    return chain == w.get("callchain") and regs == w.get("regs")
same = sum(1 for g, w in zip(got, want)
           if g.to_dict() == w and g.fields == w["fields"] and attrs_equal(g, w))
raw = sum(1 for w in want if w["raw"])
frames = sum(len(w.get("callchain", [])) for w in want)
regs = sum(1 for w in want if "regs" in w)
print("samples=%d report=%d equal=%d with_raw=%d frames=%d regs=%d" %
      (len(got), len(want), same, raw, frames, regs))
for g, w in zip(got, want):
    if g.to_dict() != w or not attrs_equal(g, w):
        d = g.to_dict()
        print("# first difference:", {k: (d.get(k), w.get(k)) for k in set(d) | set(w)
                                       if d.get(k) != w.get(k)})
        break
EOF
for f in file pipe z zs zp; do
	"$RAWFRAG" report --format json -i rec/$f.data >rec/$f.json 2>/dev/null
	"$RAWFRAG" report --format json --no-order -i rec/$f.data >rec/$f.noorder.json 2>/dev/null
done
# nprod FILE.json PRODUCER: samples of that producer in report's JSON
nprod() { grep -c "\"producer\":\"$2\"" "$1"; }
for f in file pipe z zs zp; do
	n=$(wc -l <rec/$f.json)
	# our recordings hold tracepoints and skb dumps; perf's -z one tracepoints only
	nskb=$(nprod rec/$f.json bpf_skb) ntp=$(nprod rec/$f.json tracepoint)
	$PY compare.py rec/$f.data rec/$f.json >cmp.txt 2>&1
	if [ "$n" -gt 0 ] && [ "$ntp" -gt 0 ] && { [ $f = z ] || [ "$nskb" -gt 0 ]; } &&
		grep -q "^samples=$n report=$n equal=$n " cmp.txt; then
		t_ok "$f.data: all $n Samples ($ntp tracepoints, $nskb skb dumps; fields too) equal report --format json"
	else
		t_fail "$f.data: Samples equal report --format json" "$(cat cmp.txt)"
	fi
done
# a name with a byte that is not UTF-8 (JSON: Latin-1). Not for perf script: perf
# 6.1's Python scripting crashes on such a comm (a NULL str into the sample dict).
BAD="$T/bad$(printf '\377')x"
cp /bin/true "$BAD"
"$RAWFRAG" record -e sched:sched_process_exec,sched:sched_process_exit -o rec/bad.data \
	-- "$BAD" >/dev/null 2>&1
"$RAWFRAG" report --format json -i rec/bad.data >rec/bad.json 2>/dev/null
n=$(wc -l <rec/bad.json)
$PY compare.py rec/bad.data rec/bad.json >cmp.txt 2>&1
if [ "$n" -gt 0 ] && grep -q '\\u00ff' rec/bad.json &&
	grep -q "^samples=$n report=$n equal=$n " cmp.txt; then
	t_ok "a name that is not UTF-8: all $n Samples (comm, filename) equal report"
else
	t_fail "a name that is not UTF-8: Samples equal report" "$(cat cmp.txt)" "$(head -c 300 rec/bad.json)"
fi
# symbols, call chains (kernel and user frames, DWARF-unwound ones) and registers
command -v gcc >/dev/null || t_skip_rest "no gcc for the call-chain program"
cat >prog.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) static long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += getppid() + i * i % 7; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
int main(int c, char **v) { long t = 0, n = atol(v[1]); for (long i = 0; i < n; i++) { t += mid(50); if (i % 4 == 0) usleep(100); } printf("%ld\n", t > 0); return 0; }
EOF
t_setup "program with frame pointers" gcc -O1 -g -fno-omit-frame-pointer -o prog_fp prog.c
t_setup "program without frame pointers" gcc -O1 -g -fomit-frame-pointer -o prog_nofp prog.c
CEV="-e syscalls:sys_enter_getppid -e sched:sched_switch"
(export HOME=$T; $PERF record -q -g $CEV -o rec/g.data ./prog_fp 40 >/dev/null 2>&1)
(export HOME=$T; $PERF record -q --call-graph dwarf,4096 -m 2048 --user-regs=ip,sp,bp -I $CEV \
	-o rec/d.data ./prog_nofp 20 >/dev/null 2>&1)
(export HOME=$T; "$RAWFRAG" record -g $CEV -o - -- ./prog_fp 40 >rec/gp.data 2>/dev/null)
for f in g d gp; do
	(export HOME=$T; "$RAWFRAG" report --format json -i rec/$f.data >rec/$f.json 2>/dev/null)
done
n=$(wc -l <rec/g.json)
(export HOME=$T; $PY compare.py rec/g.data rec/g.json) >cmp.txt 2>&1
t_grep "perf record -g: all $n Samples (ip, sym, dso, kernel+user callchain) equal report" \
	"^samples=$n report=$n equal=$n with_raw=$n frames=[1-9][0-9]* regs=0$" cmp.txt
(export HOME=$T; $PY -c 'import json, sys, rawfrag
want = [json.loads(l) for l in open(sys.argv[2])]
for w in want:
    w.pop("callchain", None)
    w.update(sym=None, symoff=None, dso=None)
got = [s for s in rawfrag.open(sys.argv[1], symbols=False)]
print(len(got), all(s.callchain is None and s.sym is None for s in got),
      [s.to_dict() for s in got] == want)' rec/g.data rec/g.json) >cmp.txt 2>&1
t_eq "symbols=False: no sym/dso/callchain, the rest equal report" "$n True True" "$(cat cmp.txt)"
n=$(wc -l <rec/d.json)
(export HOME=$T; $PY compare.py rec/d.data rec/d.json) >cmp.txt 2>&1
t_grep "perf record --call-graph dwarf -I: all $n Samples (unwound chains, user+intr regs) equal report" \
	"^samples=$n report=$n equal=$n with_raw=$n frames=[1-9][0-9]* regs=$n$" cmp.txt
n=$(wc -l <rec/gp.json)
(export HOME=$T; $PY compare.py - rec/gp.json <rec/gp.data) >cmp.txt 2>&1
t_grep "our record -g into a pipe, read from stdin: all $n Samples equal report" \
	"^samples=$n report=$n equal=$n with_raw=$n frames=[1-9][0-9]* regs=0$" cmp.txt
# rounds larger than the module's batch (it takes a round of the ordering queue
# in parts of 256 samples): a burst of syscalls, every Sample still equal
"$RAWFRAG" record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o rec/burst.data \
	-- dd if=/dev/zero of=/dev/null bs=1 count=10000 >/dev/null 2>&1
# the largest round in samples, by perf's dump of the file
big=$($PERF report -D -i rec/burst.data 2>/dev/null | awk '/PERF_RECORD_SAMPLE/ { n++ }
	/PERF_RECORD_FINISHED_ROUND/ { if (n > m) m = n; n = 0 } END { print m + 0 }')
"$RAWFRAG" report --format json -i rec/burst.data >rec/burst.json 2>/dev/null
n=$(wc -l <rec/burst.json)
if [ "$big" -gt 256 ]; then
	$PY compare.py rec/burst.data rec/burst.json >cmp.txt 2>&1
	t_grep "rounds of up to $big samples: all $n Samples equal report, in its order" \
		"^samples=$n report=$n equal=$n " cmp.txt
else
	t_skip "Samples of rounds larger than 256" "the burst's largest round has $big samples"
fi
n=$(wc -l <rec/file.noorder.json)
$PY compare.py rec/file.data rec/file.noorder.json ordered=False >cmp.txt 2>&1
t_grep "ordered=False equals report --no-order ($n samples)" "^samples=$n report=$n equal=$n " cmp.txt
n=$(wc -l <rec/pipe.json)
$PY compare.py - rec/pipe.json <rec/pipe.data >cmp.txt 2>&1
t_grep "rawfrag.open('-') from stdin: all $n samples equal report" "^samples=$n report=$n equal=$n " cmp.txt
cat rec/pipe.data | $PY compare.py - rec/pipe.json >cmp.txt 2>&1
t_grep "rawfrag.open(sys.stdin.buffer) on a FIFO: all $n samples equal report" \
	"^samples=$n report=$n equal=$n " cmp.txt
$PY -c 'import io, sys, rawfrag
print(sum(1 for s in rawfrag.open(io.BytesIO(open(sys.argv[1], "rb").read()))))' \
	rec/file.data >cnt.txt 2>&1
t_eq "rawfrag.open(io.BytesIO) reads every sample" "$(wc -l <rec/file.json)" "$(cat cnt.txt)"
"$RAWFRAG" report --format json -e 'skbdump:*' -i rec/file.data >skb.json 2>/dev/null
$PY compare.py rec/file.data skb.json "events='skbdump:*'" >cmp.txt 2>&1
n=$(wc -l <skb.json)
t_grep "events='skbdump:*': the $n skb dumps, equal to report -e" "^samples=$n report=$n equal=$n with_raw=$n" cmp.txt

# --where: report, the dlfilter and Python keep the same samples, those an independent
# filter of report's unfiltered JSON keeps
WHERE='prev_state == 1 && next_comm != "swapper/*" || meta.dir == "in" || (common.common_pid > 0 && !(next_pid >= 0) && pid > 0)'
cat >where_oracle.py <<'EOF'
import fnmatch, json, sys
def has(f, *path):
    for k in path:
        if not isinstance(f, dict) or k not in f:
            return False, None
        f = f[k]
    return True, f
def keep(f):
    ok1, ps = has(f, "prev_state"); ok2, nc = has(f, "next_comm")
    a = ok1 and ps == 1 and ok2 and not fnmatch.fnmatchcase(nc, "swapper/*")
    ok, d = has(f, "meta", "dir")
    b = ok and d == "in"
    ok1, cp = has(f, "common", "common_pid"); ok2, np = has(f, "next_pid"); ok3, pid = has(f, "pid")
    c = ok1 and cp > 0 and not (ok2 and np >= 0) and ok3 and pid > 0
    return a or b or c
for l in open(sys.argv[1]):
    w = json.loads(l)
    if keep(w["fields"]):
        print(w["event"], w["time_ns"], w["cpu"])
EOF
$PY where_oracle.py rec/file.json >where.want
"$RAWFRAG" report --format json -i rec/file.data --where "$WHERE" 2>where.err |
	$PY -c 'import json, sys
for l in sys.stdin:
    w = json.loads(l); print(w["event"], w["time_ns"], w["cpu"])' >where.rep
n=$(wc -l <where.want)
if [ "$n" -gt 0 ] && [ "$n" -lt "$(wc -l <rec/file.json)" ] && cmp -s where.want where.rep; then
	t_ok "report --where keeps the $n samples an independent filter of its JSON keeps"
else
	t_fail "report --where equals the independent filter" "want $n: $(head -3 where.want)" \
		"report: $(head -3 where.rep) $(cat where.err)"
fi
$PY -c 'import sys, rawfrag
for s in rawfrag.open(sys.argv[1], where=sys.argv[2]):
    print(s.event, s.time_ns, s.cpu)' rec/file.data "$WHERE" >where.py 2>&1
cmp -s where.want where.py && t_ok "rawfrag.open(where=) keeps the same $n samples" ||
	t_fail "rawfrag.open(where=) keeps the same samples" "$(head -3 where.py)"
# the dlfilter's kept samples as perf script prints them: "[cpu] sec.nsec: event:"
$PERF script -i rec/file.data --dlfilter "$SO" --dlarg "where=$WHERE" -F cpu,time,event --ns \
	>o.txt 2>e.txt
$PY -c 'import re, sys
for l in open(sys.argv[1]):
    m = re.match(r"\[(\d+)\] +(\d+)\.(\d{9}): +(\S+):", l.strip())
    print(m.group(4), int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(1))) if m else print("?", l)' \
	o.txt >where.dl 2>&1
if grep -q "rawfrag-dlfilter: $(wc -l <rec/file.json) samples, $n kept, 0 raw-layout errors" e.txt &&
	cmp -s where.want where.dl; then
	t_ok "dlfilter --dlarg where= keeps the same $n samples (event, time, cpu)"
else
	t_fail "dlfilter --dlarg where= keeps the same samples" "$(tail -1 e.txt)" "$(diff where.want where.dl | head -4)"
fi
# a type error and an unknown field: every one of them fails loudly
"$RAWFRAG" report -i rec/file.data --where 'prev_comm == 1' >/dev/null 2>e1.txt; r1=$?
"$RAWFRAG" report -i rec/file.data --where 'prev_stat == 1' >/dev/null 2>e2.txt; r2=$?
$PY -c 'import sys, rawfrag
for w in sys.argv[2:]:
    try:
        list(rawfrag.open(sys.argv[1], where=w)); print("no error")
    except rawfrag.Error as e:
        print("Error")' rec/file.data 'prev_comm == 1' 'prev_stat == 1' 'prev_stat ==' >e3.txt 2>&1
$PERF script -i rec/file.data --dlfilter "$SO" --dlarg "where=prev_comm == 1" >/dev/null 2>e4.txt
r4=$?
t_eq "--where type errors and unknown fields: report exit 2, rawfrag.Error, dlfilter stops" \
	"2 2 Error Error Error stop" \
	"$r1 $r2 $(tr '\n' ' ' <e3.txt)$([ $r4 -ne 0 ] && grep -q "is a string, compared with a number" e4.txt && echo stop)"

# stats() and check() as the commands
$PY -c 'import sys, rawfrag
r = rawfrag.open(sys.argv[1]); s = r.stats(); c = r.check()
print(s["records"]["SAMPLE"], c["samples"], c["errors"], c["clean"])' rec/file.data >sc.txt 2>&1
n=$(wc -l <rec/file.json)
t_eq "stats()/check() count $n samples, 0 errors, clean (check exits 0)" "$n $n 0 True" \
	"$(cat sc.txt)$("$RAWFRAG" check -q rec/file.data || echo " check=$?")"

# a perf script handler using Decoder(): run from outside the tree, -i pointing elsewhere
cat >elsewhere/handler.py <<'EOF'
import json, rawfrag
dec = None
def trace_begin():
    global dec
    dec = rawfrag.Decoder()
def emit(p):
    if p.get("raw_buf"):
        s = p["sample"]
        print(json.dumps([p["ev_name"], s["time"], s["cpu"], dec.decode(p["ev_name"], p["raw_buf"]),
                          dec.check(p["ev_name"], p["raw_buf"], s)]))
def process_event(p):
    emit(p)
def trace_unhandled(event_name, context, fields, p):
    emit(p)
EOF
cat >fields_cmp.py <<'EOF'
import json, sys
ours = sorted(json.dumps(json.loads(l)[:4]) for l in open(sys.argv[1]))
bad = sum(1 for l in open(sys.argv[1]) if json.loads(l)[4])
ref = sorted(json.dumps([w["event"], w["time_ns"], w["cpu"], w["fields"]])
             for w in map(json.loads, open(sys.argv[2])) if w["raw"])
print("handler=%d report=%d equal=%s violations=%d" % (len(ours), len(ref), ours == ref, bad))
EOF
for f in file z zs; do
	(cd elsewhere && $PERF script -i "$T/rec/$f.data" -s handler.py >"$T/h.$f.out" 2>"$T/h.$f.err")
	n=$(nraw rec/$f.json)
	$PY fields_cmp.py h.$f.out rec/$f.json >cmp.txt 2>&1
	t_grep "perf script handler on $f.data: Decoder().decode() == report fields for all $n raw samples" \
		"^handler=$n report=$n equal=True violations=0" cmp.txt
done
for f in pipe zp; do
	(cd elsewhere && $PERF script -i "$T/rec/$f.data" -s handler.py >"$T/h.$f.out" 2>"$T/h.$f.err")
	n=$(nraw rec/$f.json)
	$PY fields_cmp.py h.$f.out rec/$f.json >cmp.txt 2>&1
	t_grep "handler on the pipe-format file $f.data: Decoder().decode() == report fields for all $n raw samples" \
		"^handler=$n report=$n equal=True" cmp.txt
done

# pipe cases: work, or fail loudly with a non-zero status
# perf aborts on an exception a handler leaves (Py_FatalError): the shell's note goes
(cd elsewhere && $PERF script -i - -s handler.py <"$T/rec/pipe.data" >"$T/o.txt" 2>"$T/e.txt") \
	2>/dev/null
rc=$?
[ $rc -ne 0 ] && grep -q "reads the recording from a pipe" e.txt &&
	t_ok "handler with -i - < pipe: Decoder() raises, perf script exits $rc" ||
	t_fail "handler with -i - fails loudly" "rc=$rc" "$(tail -3 e.txt)"
(cd elsewhere && cat "$T/rec/pipe.data" | $PERF script -s handler.py >"$T/o.txt" 2>"$T/e.txt") \
	2>/dev/null
rc=$?
[ $rc -ne 0 ] && grep -q "reads the recording from a pipe" e.txt &&
	t_ok "handler on a FIFO stdin: Decoder() raises, perf script exits $rc" ||
	t_fail "handler on a FIFO stdin fails loudly" "rc=$rc" "$(tail -3 e.txt)"
$PERF script -i - -s "$HOOK" <rec/pipe.data >o.txt 2>e.txt
rc=$?
[ $rc -eq 2 ] && grep -q "from a pipe" e.txt && [ ! -s o.txt ] &&
	t_ok "hook with -i - < pipe: a message and exit 2" ||
	t_fail "hook with -i - fails loudly" "rc=$rc" "$(tail -3 e.txt)"
cat rec/pipe.data | $PERF script -s "$HOOK" >o.txt 2>e.txt
rc=$?
[ $rc -eq 2 ] && grep -q "from a pipe" e.txt && [ ! -s o.txt ] &&
	t_ok "hook on a FIFO stdin: a message and exit 2" ||
	t_fail "hook on a FIFO stdin fails loudly" "rc=$rc" "$(tail -3 e.txt)"
cat rec/pipe.data | $PERF script -s "$HOOK" -- --file "$T/rec/pipe.data" >o.txt 2>e.txt
rc=$?
n=$(nraw rec/pipe.json)
t_eq "hook on a FIFO with -- --file PATH: exit 0, $n samples" "0 $n" "$rc $(grep -c '^{' o.txt)"
$PERF script -i rec/pipe.data -s "$HOOK" >o.txt 2>e.txt
rc=$?
t_eq "hook on a pipe-format file: exit 0, $n samples, 0 errors" "0 $n" "$rc $(grep -c '^{' o.txt)"
$PERF script -i rec/pipe.data --dlfilter "$SO" >o.txt 2>e.txt
rc=$?
t_grep "dlfilter on a pipe-format file checks every sample (was 0 kept, 0 errors)" \
	"rawfrag-dlfilter: $(wc -l <rec/pipe.json) samples, $(wc -l <rec/pipe.json) kept, 0 raw-layout errors" e.txt
$PERF script -i - --dlfilter "$SO" <rec/pipe.data >o.txt 2>e.txt
rc=$?
[ $rc -ne 0 ] && grep -q "from a pipe" e.txt && ! grep -q "0 raw-layout errors" e.txt &&
	t_ok "dlfilter with -i -: a message and exit $rc, no summary" ||
	t_fail "dlfilter with -i - fails loudly" "rc=$rc" "$(tail -3 e.txt)"
cat rec/pipe.data | $PERF script --dlfilter "$SO" >o.txt 2>e.txt
rc=$?
[ $rc -ne 0 ] && grep -q "from a pipe" e.txt &&
	t_ok "dlfilter on a FIFO stdin: a message and exit $rc" ||
	t_fail "dlfilter on a FIFO stdin fails loudly" "rc=$rc" "$(tail -3 e.txt)"
$PERF script -i - --dlfilter "$SO" --dlarg file="$T/rec/pipe.data" <rec/pipe.data >o.txt 2>e.txt
t_grep "dlfilter with -i - and file=PATH checks every sample" \
	"rawfrag-dlfilter: $(wc -l <rec/pipe.json) samples, [0-9]+ kept, 0 raw-layout errors" e.txt
# a file that is not the one perf reads: no event matches -> perf script stops, no summary
t_setup "perf record of other events" $PERF record -q -o rec/other.data \
	-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -a -- sleep 0.1
$PERF script -i rec/other.data --dlfilter "$SO" --dlarg file="$T/rec/file.data" >o.txt 2>e.txt
rc=$?
[ $rc -ne 0 ] && grep -q "no event of the file matches" e.txt && ! grep -q "raw-layout errors" e.txt &&
	t_ok "dlfilter stops (exit $rc) on samples it cannot match, instead of a clean summary" ||
	t_fail "dlfilter stops on unmatched samples" "rc=$rc" "$(tail -3 e.txt)"

# the hook's options after -- (as perf passes them), and its exit status on violations
$PERF script -i rec/file.data -s "$HOOK" -- --violations --strict >o.txt 2>e.txt
rc=$?
t_eq "hook -- --violations --strict on a clean file: exit 0, nothing printed" "0 0" "$rc $(wc -l <o.txt)"
GEN=$O/tests/ibs-gen
if [ -x "$GEN" ] && "$GEN" write ibs >/dev/null 2>&1 && [ -f ibs/ibs-short.data ]; then
	"$RAWFRAG" check ibs/ibs-short.data >chk.txt 2>&1
	crc=$?
	errs=$(sed -n 's/^.*: [0-9]* samples, \([0-9]*\) errors.*/\1/p' chk.txt | head -n1)
	$PERF script -i ibs/ibs-short.data -s "$HOOK" -- --violations >o.txt 2>e.txt
	rc=$?
	t_eq "hook on a file check rejects (exit $crc, $errs errors): exit 1, same error count" \
		"1 $errs" "$rc $(sed -n 's/.* \([0-9]*\) raw-layout errors.*/\1/p' e.txt)"
	$PY -c 'import sys, rawfrag
r = rawfrag.open(sys.argv[1]); c = r.check()
print(c["clean"], c["errors"], sum(len(s.violations) > 0 for s in rawfrag.open(sys.argv[1])) > 0)' \
		ibs/ibs-short.data >o.txt 2>&1
	t_eq "check() and Sample.violations on that file" "False $errs True" "$(cat o.txt)"
else
	t_skip "hook on a file with violations" "ibs-gen fixtures not available"
	t_skip "check() on a file with violations" "ibs-gen fixtures not available"
fi

# bad input: rawfrag.Error with file, offset, reason; nothing else escapes
head -c 3000 rec/file.data >trunc.data
$PY -c 'import sys, rawfrag
try:
    for s in rawfrag.open(sys.argv[1]): pass
    print("no error")
except rawfrag.Error as e:
    print("Error", e.file == sys.argv[1], e.offset is not None or "header" in e.reason, bool(e.reason))' \
	trunc.data >o.txt 2>&1
t_eq "a truncated file raises rawfrag.Error (file, offset, reason)" "Error True True True" "$(cat o.txt)"
cat >hostile.py <<'EOF'
import os, sys, rawfrag
other = 0
for f in sorted(os.listdir(sys.argv[1])):
    try:
        with rawfrag.open(os.path.join(sys.argv[1], f)) as r:
            for s in r:
                s.fields
            r.stats(); r.check()
    except rawfrag.Error:
        pass
    except Exception as e:
        other += 1
        print(f, repr(e))
print("other=%d" % other)
EOF
$PY hostile.py "$TOP/tests/fuzz/corpus" >o.txt 2>/dev/null
t_eq "fuzz corpus through rawfrag.open: only rawfrag.Error, no crash" "other=0" "$(tail -n1 o.txt)"
ASAN_SO=$(gcc -print-file-name=libasan.so 2>/dev/null)
if ls "$ASAN_O"/python/rawfrag*.so >/dev/null 2>&1 && [ -f "$ASAN_SO" ]; then
	PYTHONPATH=$ASAN_O/python LD_PRELOAD="$ASAN_SO $(gcc -print-file-name=libubsan.so)" \
		ASAN_OPTIONS=detect_leaks=0:exitcode=99 $PY hostile.py "$TOP/tests/fuzz/corpus" \
		>o.txt 2>e.txt
	rc=$?
	t_eq "fuzz corpus through the ASan+UBSan module: no sanitizer report" "0 other=0" \
		"$rc $(tail -n1 o.txt)$(grep -m1 'Sanitizer' e.txt)"
	# Decoder on mutated raw buffers (what a handler may pass): no sanitizer report
	cat >decfuzz.py <<'EOF'
import random, sys, rawfrag
random.seed(1)
n = 0
for f in sys.argv[1:]:
    d = rawfrag.Decoder(f)
    evs = sorted({s.event for s in rawfrag.open(f)})
    raws = [s.raw for s in rawfrag.open(f)]
    for i in range(5000):
        r = bytearray(random.choice(raws))
        for k in range(random.randint(0, 6)):
            if r:
                r[random.randrange(len(r))] = random.randrange(256)
        r = bytes(r[:random.randint(0, len(r) + 8)]) + bytes(random.randint(0, 3))
        try:
            d.decode_check(random.choice(evs), r, {"pid": random.randrange(1 << 32)})
        except rawfrag.Error:
            pass
        n += 1
print("calls=%d" % n)
EOF
	PYTHONPATH=$ASAN_O/python LD_PRELOAD="$ASAN_SO $(gcc -print-file-name=libubsan.so)" \
		ASAN_OPTIONS=detect_leaks=0:exitcode=99 $PY decfuzz.py rec/file.data rec/pipe.data \
		rec/z.data >o.txt 2>e.txt
	rc=$?
	t_eq "Decoder.decode_check on 15000 mutated raw buffers under ASan+UBSan" "0 calls=15000" \
		"$rc $(tail -n1 o.txt)$(grep -m1 -E 'Sanitizer|runtime error' e.txt)"
else
	t_skip "fuzz corpus through the ASan module" "no ASan build of the module"
	t_skip "Decoder on mutated buffers under ASan" "no ASan build of the module"
fi

# installed: make install-python DESTDIR=..., then from another directory
if make -s -C "$TOP" O="$O" DESTDIR="$T/inst" prefix=/usr install-python >inst.log 2>&1; then
	site=/usr/lib/python3/dist-packages
	(cd elsewhere && PYTHONPATH=$T/inst$site $PY -c 'import rawfrag, sys
print(rawfrag.__file__.startswith(sys.argv[1]), sum(1 for s in rawfrag.open(sys.argv[2])))' \
		"$T/inst" "$T/rec/file.data") >o.txt 2>&1
	t_eq "installed module (DESTDIR) imports and reads" "True $(wc -l <rec/file.json)" "$(cat o.txt)"
	ihook=$T/inst$site/rawfrag.py
	(cd elsewhere && PYTHONPATH=$T/inst$site $PERF script -i "$T/rec/file.data" -s "$ihook" \
		>"$T/o.txt" 2>"$T/e.txt")
	t_eq "installed hook runs with the installed module" "0 $(nraw rec/file.json)" \
		"$? $(grep -c '^{' o.txt)"
	[ -f "$T/inst$site/rawfrag.pyi" ] && t_ok "type stubs installed beside the module" ||
		t_fail "type stubs installed" "$(ls -R "$T/inst" | head)"
else
	t_fail "make install-python DESTDIR=..." "$(tail -5 inst.log)"
	t_skip "installed hook" "install failed"
	t_skip "installed stubs" "install failed"
fi
