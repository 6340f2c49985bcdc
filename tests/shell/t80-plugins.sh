#!/usr/bin/env bash
# perf script plugins: the --dlfilter object and the Python hook, on a real
# tracepoint recording, against perf script's own output for the same samples;
# then the frames perf hands each of them (-g with kernel and user frames,
# --call-graph dwarf) against report --format json on the same file.
source "$(dirname "$0")/lib.sh"
t_plan 12
so=$O/plugins/rawfrag-dlfilter.so
if ! is_root || ! ensure_tracefs; then
	t_skip_rest "plugins on a real recording: needs root and tracefs"
fi
# the workload's tasks only, not -a: perf 6.1's Python scripting crashes on a
# sample whose comm is not UTF-8, and another process may have such a name
$PERF record -q -o perf.data -e sched:sched_switch -e sched:sched_process_exec \
	-- sh -c 'ls / >/dev/null; sleep 0.05; ls /usr >/dev/null' >/dev/null 2>&1
n=$($PERF script -i perf.data 2>/dev/null | wc -l)
# a precondition (perf's recording), not a check of ours
[ "$n" -gt 0 ] || t_skip_rest "perf recorded no tracepoint samples"

# check mode: every sample kept, none in violation
$PERF script -i perf.data --dlfilter "$so" >out.txt 2>err.txt
t_eq "dlfilter check keeps every sample" "$n" "$(wc -l <out.txt)"
t_grep "dlfilter check summary: $n samples, 0 errors" "rawfrag-dlfilter: $n samples, $n kept, 0 raw-layout errors" err.txt

# decode mode: our decoding printed before each perf line equals perf's trace text
$PERF script -i perf.data --dlfilter "$so" --dlarg decode >dec.txt 2>err.txt
python3 - dec.txt >cmp.txt <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
ok = bad = 0
for i, l in enumerate(lines):
    if not l.startswith("  rawfrag tracepoint: "):
        continue
    ours = l[len("  rawfrag tracepoint: "):]
    perf = re.sub(r"^.*?: +[a-z_]+:[a-z_0-9]+: ", "", lines[i + 1]) if i + 1 < len(lines) else ""
    if ours == perf:
        ok += 1
    else:
        bad += 1
        if bad < 4:
            print("DIFF ours=%r perf=%r" % (ours, perf))
print("ok=%d bad=%d" % (ok, bad))
PY
t_eq "dlfilter decode: every decoded line equals perf's trace text" "ok=$n bad=0" "$(tail -n1 cmp.txt)"

# bad --dlarg: perf script stops with an error
$PERF script -i perf.data --dlfilter "$so" --dlarg bogus >/dev/null 2>err.txt
t_grep "dlfilter rejects an unknown --dlarg" "unknown --dlarg 'bogus'" err.txt

# Python hook: one JSON object per sample, fields equal perf's text values
PYTHONPATH=$O/python $PERF script -i perf.data -s "$TOP/plugins/python/rawfrag.py" >py.txt 2>pyerr.txt
rc=$?
t_eq "python hook exits 0 on a clean file" 0 "$rc"
$PERF script -i perf.data >perf.txt 2>/dev/null
python3 - py.txt perf.txt >cmp2.txt <<'PY'
import json, re, sys
ours = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
perf = open(sys.argv[2]).read().splitlines()
bad = 0
if len(ours) != len(perf):
    print("count ours=%d perf=%d" % (len(ours), len(perf))); sys.exit()
for o, p in zip(ours, perf):
    for k, v in re.findall(r"(\w+)=(\S+)", p.split(": ", 2)[-1]):
        if k in o["fields"] and isinstance(o["fields"][k], int) and not k.endswith("state"):
            if str(o["fields"][k]) != v:
                bad += 1
    if o["errors"] or o["producer"] != "tracepoint":
        bad += 1
print("samples=%d mismatches=%d" % (len(ours), bad))
PY
t_eq "python hook: every sample decoded, integer fields equal perf's" "samples=$n mismatches=0" "$(tail -n1 cmp2.txt)"

# violations mode on a file with broken payloads (IBS fixtures with short payloads)
if [ -x "$O/tests/ibs-gen" ] && "$O/tests/ibs-gen" write "$T/ibs" >/dev/null 2>&1; then
	bad=$(ls "$T"/ibs/ibs-short.data 2>/dev/null | head -n1)
	if [ -n "$bad" ]; then
		$PERF script -i "$bad" --dlfilter "$so" --dlarg violations >v.txt 2>verr.txt
		t_grep "dlfilter violations mode reports ibs_reg_count" "rawfrag violation ibs_reg_count" v.txt
	else
		t_skip "dlfilter violations mode" "no truncated IBS fixture from ibs-gen"
	fi
else
	t_skip "dlfilter violations mode" "ibs-gen not built"
fi

# ---- frames: what perf resolves for a dlfilter and a Python handler, against report ----
command -v gcc >/dev/null || t_skip_rest "no gcc for the call-chain program"
# perf and we share a private build-id cache: perf record fills it, both read it
export HOME=$T/home
mkdir -p "$HOME"
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
EV="-e syscalls:sys_enter_getppid -e sched:sched_switch"
t_setup "perf record -g" $PERF record -q -g $EV -o g.data ./prog_fp 40
t_setup "perf record --call-graph dwarf" $PERF record -q --call-graph dwarf,4096 -m 2048 $EV \
	-o d.data ./prog_nofp 20
for f in g d; do
	"$RAWFRAG" report --format json -i $f.data >$f.json 2>/dev/null
	"$RAWFRAG" report --no-inline --format json -i $f.data >$f.noinl.json 2>/dev/null
	$PERF script -i $f.data --dlfilter "$so" --dlarg frames >$f.dl.txt 2>$f.dl.err
	sed -n 's/^  rawfrag frames: //p' $f.dl.txt >$f.dl.json
	PYTHONPATH=$O/python $PERF script -i $f.data -s "$TOP/plugins/python/rawfrag.py" \
		>$f.hook.json 2>$f.hook.err
done
# frames.py OURS REPORT [prefix]: ip/sym/symoff/dso and the chain of every sample equal
# (in order); "prefix": our chain is the start of report's. Counts kernel and user frames.
cat >frames.py <<'EOF'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
want = [json.loads(l) for l in open(sys.argv[2])]
prefix = len(sys.argv) > 3 and sys.argv[3] == "prefix"
def chain(x):
    # perf's handler has no inline flag: report's is left out of the comparison
    return [{k: v for k, v in f.items() if k != "inlined"} for f in x.get("callchain", [])]
def same(g, w):
    if any(g.get(k) != w.get(k) for k in ("ip", "sym", "symoff", "dso")):
        return False
    gc, wc = chain(g), chain(w)
    return gc == wc[:len(gc)] if prefix else gc == wc
eq = sum(1 for g, w in zip(got, want) if same(g, w))
kern = sum(1 for g in got for f in chain(g) if f["dso"] == "[kernel.kallsyms]")
user = sum(1 for g in got for f in chain(g) if (f["dso"] or "").endswith("/prog_fp") or
           (f["dso"] or "").endswith("/prog_nofp"))
more = sum(len(chain(w)) for w in want) - sum(len(chain(g)) for g in got)
print("samples=%d report=%d equal=%d kernel_frames=%s user_frames=%s report_more=%d" %
      (len(got), len(want), eq, kern > 0, user > 0, more))
for g, w in zip(got, want):
    if not same(g, w):
        print("# ours  ", json.dumps(g)[:700])
        print("# report", json.dumps({k: w.get(k) for k in ("ip", "sym", "symoff", "dso", "callchain")})[:700])
        break
EOF
n=$(wc -l <g.json)
python3 frames.py g.dl.json g.noinl.json >cmp.txt 2>&1
t_grep "dlfilter frames on a -g file: all $n samples' ip/sym/dso and chains (kernel and user) equal report --no-inline" \
	"^samples=$n report=$n equal=$n kernel_frames=True user_frames=True report_more=0$" cmp.txt
n=$(wc -l <d.json)
python3 frames.py d.dl.json d.noinl.json prefix >cmp.txt 2>&1
t_grep "dlfilter frames on a dwarf file: all $n samples equal report's, the chain being its kernel part" \
	"^samples=$n report=$n equal=$n kernel_frames=True user_frames=False report_more=[1-9]" cmp.txt
n=$(grep -c '"raw":{' g.json)
python3 frames.py g.hook.json g.json >cmp.txt 2>&1
t_grep "python hook frames on a -g file: all $n samples equal report" \
	"^samples=$n report=$n equal=$n kernel_frames=True user_frames=True report_more=0$" cmp.txt
n=$(grep -c '"raw":{' d.json)
python3 frames.py d.hook.json d.json >cmp.txt 2>&1
t_grep "python hook frames on a dwarf file (DWARF-unwound user frames): all $n samples equal report" \
	"^samples=$n report=$n equal=$n kernel_frames=True user_frames=True report_more=0$" cmp.txt
# frames combines with the other modes: decode lines and frames for the same samples
$PERF script -i g.data --dlfilter "$so" --dlarg decode --dlarg frames >both.txt 2>/dev/null
t_eq "dlfilter decode + frames: one decoding and one frames line per sample" \
	"$(wc -l <g.json) $(wc -l <g.json)" \
	"$(grep -c '^  rawfrag tracepoint: ' both.txt) $(grep -c '^  rawfrag frames: ' both.txt)"
