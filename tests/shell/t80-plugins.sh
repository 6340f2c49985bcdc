#!/usr/bin/env bash
# perf script plugins: the --dlfilter object and the Python hook, on a real
# tracepoint recording, against perf script's own output for the same samples.
source "$(dirname "$0")/lib.sh"
t_plan 7
so=$O/plugins/rawfrag-dlfilter.so
if ! is_root || ! ensure_tracefs; then
	t_skip_rest "plugins on a real recording: needs root and tracefs"
fi
$PERF record -q -o perf.data -e sched:sched_switch -e sched:sched_process_exec -a \
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
