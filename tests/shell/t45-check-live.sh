#!/usr/bin/env bash
# perf rawfrag check --live on this machine's kernel:
#  1. --quick --format json -o FILE: every case ran with records, 0 violations,
#     the sizes each case promises were covered, every output came back once
#  2. the kept file: `perf rawfrag check` finds no error, perf script reads it
#     without a message and shows as many samples
#  3. negative controls: RAWFRAG_LIVE_TAMPER damages one record per case after
#     it is read (size, shifted fragment, foreign pad byte, truncated): exit 1,
#     every case named in a violation line of the rule that class breaks
#  4. a missing piece (no tracefs): exit 2, one line for it, the other cases
#     still run; without privileges: exit 2 naming what could not run
#  5. the full run (table) when --quick was fast: CONFORMANT, exit 0
source "$(dirname "$0")/lib.sh"
t_plan 19

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

t_grep "skb-paged: datagrams reached the filter paged (data_len > 0 at netif_receive_skb)" \
	'"case":"skb-paged".*"note":"UDP over lo to a socket filter: [0-9]+ linear \(up to [0-9]+ bytes\), [1-9][0-9]* paged' live.json

# the bench page's real run (make bench BENCH_ONLY=live BENCH_PAGE=1 refreshes
# it): same header, rows and note forms as today's binary (numbers aside: they
# depend on the kernel and the pad split moves by a record)
shape() { sed -E '1s/kernel .*/kernel K/; s/[0-9]+/N/g; s/ +/ /g'; }
"$PR" check --live --quick 2>/dev/null | shape >q.shape
sed -n '/^\$ perf rawfrag check --live --quick$/,/^----$/p' "$TOP/Documentation/perf-rawfrag-bench.txt" |
	sed '1d;$d' | shape >page.shape
if [ -s page.shape ] && diff page.shape q.shape >page.diff; then
	t_ok "the bench page's check --live run has today's rows and notes ($(grep -c . q.shape) lines)"
else
	t_fail "the bench page's check --live run matches today's binary" "$(head -c 900 page.diff)"
fi

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

# --- 3: negative controls: every case that ran is named, by the rule its class breaks
ran=$(python3 -c 'import json,sys
print(" ".join(o["case"] for o in map(json.loads, open(sys.argv[1])) if o["ran"]))' live.json)
declare -A rule=(
	[size]="size [0-9]+: raw_size [0-9]+, want [0-9]+ \\(round_up"
	[shift]="size [0-9]+: raw byte [0-9]+ \\(fragment [12] \\+[0-9]+\\) is 0x[0-9a-f]{2}, sent"
	[pad]="size [0-9]+: pad byte [0-7] is 0x[0-9a-f]{2}: neither zero nor .*: leak"
	[trunc]="size [0-9]+: raw_size [0-9]+ runs past the record's end .*: truncated")
for t in size shift pad trunc; do
	RAWFRAG_LIVE_TAMPER=$t "$PR" check --live --quick >tamper.out 2>tamper.err
	rc=$?
	unnamed=
	for c in $ran; do
		grep -qE "^violation: $c: ${rule[$t]}" tamper.out || unnamed="$unnamed $c"
	done
	if [ $rc = 1 ] && [ -n "$ran" ] && [ -z "$unnamed" ] && grep -q '^verdict: VIOLATIONS' tamper.out; then
		t_ok "tamper=$t: exit 1, all $(echo $ran | wc -w) cases named by the broken rule"
	else
		t_fail "tamper=$t: exit 1, every case named by the broken rule" "rc=$rc not named:$unnamed" \
			"$(head -c 900 tamper.out tamper.err)"
	fi
done

# --- a piece missing (tracefs hidden in a private mount namespace, and no
# CAP_SYS_ADMIN to mount it again): exit 2, one line for it, the rest still run
if command -v unshare >/dev/null && command -v setpriv >/dev/null; then
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/kernel/tracing &&
		{ ! [ -d /sys/kernel/debug/tracing ] || mount -t tmpfs none /sys/kernel/debug; } &&
		exec setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$0" check --live --quick' \
		"$PR" >part.out 2>part.err
	rc=$?
	still=$(sed -n 's/^perf rawfrag check --live: still tested: //p' part.err)
	if [ $rc = 2 ] && [ "$(grep -c 'not tested:' part.err)" = 1 ] &&
		grep -q '^perf rawfrag check --live: not tested: exec-path (tracepoint sched:sched_process_exec): tracefs' part.err &&
		[ "$still" = "$(echo $ran | sed 's/ *exec-path//')" ] && grep -q '^verdict: INCOMPLETE' part.out &&
		grep -qE '^  exec-path .*\(not run\)$' part.out; then
		t_ok "no tracefs: exit 2, exec-path not tested, still tested: $still"
	else
		t_fail "no tracefs: exit 2 naming the missing piece and what still ran" "rc=$rc" \
			"$(head -c 900 part.out part.err)"
	fi
else
	t_skip "a missing piece" "no unshare/setpriv"
fi

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
