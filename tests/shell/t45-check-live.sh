#!/usr/bin/env bash
# perf rawfrag check --live on this machine's kernel:
#  1. --quick --format json -o FILE: every case ran with records, 0 violations,
#     the sizes each case promises were covered, every output came back once
#  2. the kept file: `perf rawfrag check` finds no error, perf script reads it
#     without a message and shows as many samples
#  3. negative controls: RAWFRAG_LIVE_TAMPER damages one record per case after
#     it is read (size, shifted fragment, foreign pad byte, truncated): exit 1,
#     the case named in a violation line
#  4. without privileges: exit 2 naming what could not run
#  5. the full run (table) when --quick was fast: CONFORMANT, exit 0
source "$(dirname "$0")/lib.sh"
t_plan 16

if ! is_root; then
	t_skip_rest "check --live: needs root (BPF programs, perf events)"
fi
ensure_tracefs
PR=$RAWFRAG

start=$(date +%s)
t_run "check --live --quick --format json -o live.data exits 0 (conformant)" 0 \
	"$PR" check --live --quick --format json -o live.data
cp "$T/out" live.json
quick_secs=$(( $(date +%s) - start ))
echo "# --quick took ${quick_secs}s"
[ -s "$T/err" ] && sed 's/^/#   /' "$T/err"

# one JSON object per case: the fields the issue asks for, the verdict per case
cat >cov.py <<'PY'
import json, sys
cases = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    cases[o["case"]] = o
want = sys.argv[2]
def c(n): return cases[n]
if want == "cases":
    need = ["plain", "plain-large", "skb-linear", "skb-paged", "xdp", "xdp-frags",
            "exec-path", "ring-wrap", "size-limit"]
    bad = [n for n in need if n not in cases or not cases[n]["ran"] or cases[n]["records"] == 0]
    prods = sorted({o["producer"] for o in cases.values()})
    print("missing:", bad, "producers:", prods)
    sys.exit(1 if bad or not {"bpf", "bpf_skb", "bpf_xdp", "tracepoint"} <= set(prods) else 0)
if want == "clean":
    bad = [(n, o["violations"], o["first_violation"]) for n, o in cases.items()
           if o["violations"] or o["records"] != o["ok"]]
    print(bad)
    sys.exit(1 if bad else 0)
if want == "counted":
    # every output sent came back as exactly one record (the limit probe aside)
    bad = [(n, o["sent"], o["records"]) for n, o in cases.items()
           if n != "size-limit" and (o["sent"] != o["records"] or o["lost"])]
    print(bad)
    sys.exit(1 if bad else 0)
if want == "sizes":
    s = {n: o["sizes"] for n, o in cases.items()}
    ok = (s["plain"]["min"] == 1 and s["plain"]["max"] == 4096 and s["plain"]["distinct"] >= 80
          and s["plain-large"]["max"] > 60000
          and s["skb-linear"]["min"] == 14 and s["skb-linear"]["max"] >= 3000 + 64
          and s["skb-paged"]["max"] > 32768
          and s["xdp-frags"]["max"] > 16384
          and s["exec-path"]["distinct"] >= 20 and s["exec-path"]["max"] >= 4095
          and c("ring-wrap")["wrapped"] > 0
          and s["size-limit"]["max"] == c("plain-large")["sizes"]["max"])
    print(s)
    sys.exit(0 if ok else 1)
if want == "pad":
    # bpf output skips the pad (stale or zero), the tracepoint buffer zeroes it
    o = cases["exec-path"]
    ok = o["pad_stale"] == 0 and o["pad_zero"] > 0 and cases["plain"]["pad_stale"] > 0
    print(o["pad_zero"], o["pad_stale"], cases["plain"]["pad_stale"])
    sys.exit(0 if ok else 1)
if want == "records":
    print(sum(o["records"] for o in cases.values()))
PY
for what in cases clean counted sizes pad; do
	if python3 cov.py live.json $what >cov.out 2>&1; then
		t_ok "--live coverage: $what"
	else
		t_fail "--live coverage: $what" "$(head -c 600 cov.out)"
	fi
done
t_grep "size-limit reports what the kernel does past 64 KiB" \
	'"case":"size-limit".*"note":"sums up to [0-9]+ fit .*beyond, of [0-9]+ sizes the kernel refused' live.json

t_grep "xdp-frags: the frames had page frags (the prog saw a shorter linear part)" \
	'"case":"xdp-frags".*"note":"linear part [0-9]+ bytes, frames up to [0-9]+ bytes, [1-9][0-9]* of them with page frags' live.json

# --- 2: the kept recording
t_run "the kept file passes perf rawfrag check" 0 "$PR" check live.data
samples=$(sed -n 's/^live.data: \([0-9]*\) samples.*/\1/p' "$T/out")
records=$(python3 cov.py live.json records)
perf script -F tid,time,event -i live.data >ps.out 2>ps.err
rc=$?
lines=$(grep -c . ps.out)
if [ $rc = 0 ] && [ ! -s ps.err ] && [ -n "$samples" ] && [ "$lines" = "$samples" ] &&
	[ "$samples" -ge "$records" ]; then
	t_ok "perf script reads the kept file silently ($lines samples, $records checked)"
else
	t_fail "perf script reads the kept file silently" "rc=$rc lines=$lines check=$samples records=$records" \
		"$(head -c 400 ps.err)"
fi

# --- 3: negative controls
for t in size shift pad trunc; do
	RAWFRAG_LIVE_TAMPER=$t "$PR" check --live --quick >tamper.out 2>tamper.err
	rc=$?
	if [ $rc = 1 ] && grep -qE '^violation: (plain|skb-linear|xdp|exec-path)[a-z-]*: ' tamper.out &&
		grep -q '^verdict: VIOLATIONS' tamper.out; then
		t_ok "tamper=$t: exit 1, $(grep -c '^violation:' tamper.out) cases named"
	else
		t_fail "tamper=$t: exit 1 and the case named" "rc=$rc" "$(head -c 600 tamper.out tamper.err)"
	fi
done

# --- without privileges: exit 2 and say what is missing
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PR" check --live --quick >np.out 2>np.err
	rc=$?
	if [ $rc = 2 ] && grep -q 'check: --live: .*BPF programs' np.err; then
		t_ok "unprivileged: exit 2, $(head -c 120 np.err)"
	else
		t_fail "unprivileged: exit 2 naming the missing piece" "rc=$rc" "$(head -c 400 np.out np.err)"
	fi
else
	t_skip "unprivileged run" "no setpriv"
fi

# --- 4: the full run, when the budget allows it
if [ "$quick_secs" -gt 10 ]; then
	t_skip "full check --live" "--quick took ${quick_secs}s: no time for the full run"
else
	"$PR" check --live >full.out 2>full.err
	rc=$?
	if [ $rc = 0 ] && grep -q '^verdict: CONFORMANT' full.out; then
		t_ok "full check --live: conformant ($(( $(date +%s) - start ))s so far)"
	else
		t_fail "full check --live" "rc=$rc" "$(head -c 800 full.out full.err)"
	fi
	sed 's/^/#   /' full.out
fi
