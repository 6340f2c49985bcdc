#!/usr/bin/env bash
# report --format pprof (the "pprof" sink) read by go tool pprof (Go 1.19's,
# Debian golang-go), on files perf records here: cpu-clock -g, sched_switch -g
# -a with a clock (-k mono), three events at once, and a --call-graph dwarf
# recording of a program with an inlined function. pprof's own parse (its
# CheckValid) must accept every profile; then against perf:
#  - totals: the samples/count and <event>/<unit> sums of -raw = perf script's
#    sample count and period sum, per event;
#  - stacks: every -raw sample's locations expanded to function names (inline
#    lines included) = perf script's call chains, as a multiset weighted by
#    count and period;
#  - -top flat per function (samples and period) = perf script's leaf symbol
#    counts, and = perf report --stdio --no-children -g none --sort sym -n's
#    Samples (summed by name) and Overhead;
#  - mappings: file, build-id = perf buildid-list, start/limit/offset = the
#    recorded MMAP2 events (perf script --show-mmap-events);
#  - labels (-tags) = perf script's counts of cpu, comm and prev_state, the
#    weight column = the sum of the field in perf script's trace text;
#  - Time: = perf script -F tod of the first sample, Duration: = last - first;
#  - Python's Reader.pprof() = the command's bytes; bad options exit 2.
source "$(dirname "$0")/lib.sh"
t_plan 46

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
if ! command -v go >/dev/null; then
	t_skip_rest "no go (make deps installs golang-go): go tool pprof is the oracle"
fi
# go offline and in the scratch directory: no module download, no cache in $HOME
export HOME=$T/home GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod GOPROXY=off \
	GOTOOLCHAIN=local TZ=UTC
mkdir -p "$HOME"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
pp() { go tool pprof -symbolize=none "$@"; }
TOP=(-top -nodecount=1000000 -nodefraction=0 -edgefraction=0)

# cmp.py reads -raw through the shared reader, beside it in $T ($TOP is -top's here)
cp "$(dirname "$0")/../scripts/pprof_raw.py" "$T/"
cat >cmp.py <<'EOF'
import collections, re, sys
from pprof_raw import read as pprof_raw

def perf_samples(path):
    """perf script -F event,period,ip,sym: (event, period, names leaf first);
    an empty chain is the sample's ip (perf script -G's line, in path.G)"""
    out, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\t"):
            parts = line.strip().split(None, 1)
            name = parts[1] if len(parts) > 1 else "[unknown]"
            if name.endswith(" (inlined)"):
                name = name[:-len(" (inlined)")]
            cur[2].append(name)
            continue
        if not line.strip():
            continue
        m = re.match(r"\s*(\d+)\s+(\S+):\s*(.*)$", line)
        if not m:
            sys.exit("cannot read perf script line: " + line)
        cur = (m.group(2), int(m.group(1)), [])
        if m.group(3):  # no chain: the ip and sym on the line
            parts = m.group(3).split(None, 1)
            cur[2].append(parts[1] if len(parts) > 1 else "[unknown]")
        out.append(cur)
    g = [l.split(None, 3) for l in open(path + ".G", errors="replace")]
    for i, s in enumerate(out):
        if not s[2]:
            s[2].append(g[i][3].strip() if len(g[i]) > 3 else "[unknown]")
    return out


def stacks(mode, pscript, raw, event=None):
    types, samples, locs = pprof_raw(raw)
    col = types.index(event) if event else 0
    a = collections.Counter()
    for ev, period, names in perf_samples(pscript):
        if event and ev != event.split("/")[0]:
            continue
        a[tuple(names)] += period if event else 1
    b = collections.Counter()
    for vals, ids, _ in samples:
        names = []
        for i in ids:
            names += locs[i] or ["[unknown]"]
        if vals[col]:
            b[tuple(names)] += vals[col]
    if a == b:
        print("ok %d stacks, %d" % (len(a), sum(a.values())))
    else:
        d = [(k, a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]]
        print("differ in %d stacks, e.g. %s" % (len(d), d[:2]))

def totals(pscript, raw):
    """per event: perf script's samples and period, and -raw's columns"""
    types, samples, _ = pprof_raw(raw)
    n, per = collections.Counter(), collections.Counter()
    for ev, period, _ in perf_samples(pscript):
        n[ev] += 1
        per[ev] += period
    sums = [sum(s[0][i] for s in samples) for i in range(len(types))]
    want = {"samples/count": sum(n.values())}
    for ev in n:
        for t in types:
            if t.rsplit("/", 1)[0] == ev:
                want[t] = per[ev]
    got = {t: sums[i] for i, t in enumerate(types) if t in want}
    print(" ".join("%s=%d" % kv for kv in sorted(want.items())))
    print(" ".join("%s=%d" % kv for kv in sorted(got.items())))

def top_rows(path):
    """go tool pprof -top: {name: (flat, flat%)}, unknown frames in one bucket"""
    rows = {}
    for line in open(path):
        m = re.match(r"^\s*(\d+)(?:ns)?\s+(\S+)%\s+\S+%\s+\S+\s+\S+%\s+(.*)$", line)
        if not m:
            continue
        name = m.group(3)
        if name == "<unknown>" or re.match(r"^\[[^\]]*\]$", name):
            name = "[unknown]"
        f, p = rows.get(name, (0, 0.0))
        rows[name] = (f + int(m.group(1)), p + float(m.group(2)))
    return rows

def leaves(pscript, top, weight):
    c = collections.Counter()
    for ev, period, names in perf_samples(pscript):
        c[names[0]] += period if weight == "period" else 1
    t = {k: v[0] for k, v in top_rows(top).items() if v[0]}
    if dict(c) == t:
        print("ok %d functions" % len(c))
    else:
        d = [(k, c.get(k), t.get(k)) for k in set(c) | set(t) if c.get(k) != t.get(k)]
        print("differ in %d functions, e.g. %s" % (len(d), sorted(d, key=str)[:3]))

def report_sym(report, top_n, top_p):
    """perf report -n --sort sym rows (resolved): samples by name = -top flat;
    a name with one row: its Overhead = -top's flat% (pprof prints 2 significant
    digits under 1%)"""
    rows = collections.defaultdict(list)
    for line in open(report):
        m = re.match(r"^\s*([\d.]+)%\s+(\d+)\s+\[.\] (.*?)\s*$", line)
        if m and not m.group(3).startswith("0x"):
            rows[m.group(3)].append((float(m.group(1)), int(m.group(2))))
    tn, tp = top_rows(top_n), top_rows(top_p)
    bad = []
    for name, r in rows.items():
        if sum(x[1] for x in r) != tn.get(name, (0, 0))[0]:
            bad.append((name, "samples", sum(x[1] for x in r), tn.get(name)))
        p = tp.get(name, (0, 0.0))[1]
        if len(r) == 1 and abs(r[0][0] - p) > (0.0051 if p < 1 else 0.0001):
            bad.append((name, "overhead", r[0][0], p))
    print("ok %d symbols" % len(rows) if rows and not bad else "differ: %s" % bad[:3])

def tagcount(tags, key):
    """go tool pprof -tags: value count of one key, sorted"""
    out, on = [], False
    for line in open(tags):
        if re.match(r"^ \S+: Total", line):
            on = line.split(":")[0].strip() == key
            continue
        m = re.match(r"^\s+([\d.]+) \(\s*[\d.]+%\): (.*)$", line)
        if on and m:
            out.append("%s %d" % (m.group(2), float(m.group(1))))
    print("\n".join(sorted(out)))

def godur(ns):
    """time.Duration's String(), as -raw prints it (%.4v: its first 4 characters)"""
    for unit, div, prec in (("s", 10**9, 9), ("ms", 10**6, 6), ("\u00b5s", 10**3, 3)):
        if ns >= div:
            frac = ("%0*d" % (prec, ns % div)).rstrip("0")
            return ("%d%s%s%s" % (ns // div, "." if frac else "", frac, unit))[:4]
    return ("%dns" % ns)[:4]

mode = sys.argv[1]
if mode == "stacks":
    stacks(mode, *sys.argv[2:])
elif mode == "totals":
    totals(*sys.argv[2:])
elif mode == "leaves":
    leaves(*sys.argv[2:])
elif mode == "report":
    report_sym(*sys.argv[2:])
elif mode == "tags":
    tagcount(*sys.argv[2:])
elif mode == "dur":
    print(godur(int(sys.argv[2])))
EOF

# pprof NAME FILE OUT [ARGS]: our profile of FILE, parsed by go tool pprof -raw
profile() {
	local name=$1 f=$2 out=$3; shift 3
	if ! "$RAWFRAG" report -i "$f" --format pprof -o "$out" "$@" 2>"$T/err"; then
		t_fail "$name: report --format pprof" "$(head -c 400 "$T/err")"
		return
	fi
	if [ "$(head -c 2 "$out" | od -An -tx1 | tr -d ' ')" != 1f8b ]; then
		t_fail "$name: a gzip file" "$(head -c 16 "$out" | od -An -tx1)"
	elif pp -raw "$out" >"$out.raw" 2>"$T/err"; then
		t_ok "$name: go tool pprof -raw parses it ($(grep -c '^ *[0-9]*: 0x' "$out.raw") locations)"
	else
		t_fail "$name: go tool pprof -raw" "$(head -c 400 "$T/err")"
	fi
}
# check NAME CMD...: CMD prints "ok ..." or what differs
check() {
	local name=$1; shift
	local r
	r=$("$@" 2>&1)
	if [ "${r#ok}" != "$r" ]; then t_ok "$name (${r#ok })"; else t_fail "$name" "$r"; fi
}

# --buildid-all: perf lists every mapped DSO's build-id, not only those a
# sample's own ip hit (a DSO seen only in call chains, as ls often is, would
# otherwise be missing from perf's list and the mapping check below flaky)
t_setup "perf records cpu-clock -g" \
	"$PERF" record -q -g --buildid-all -e cpu-clock -o cc.data -- sh -c 'for i in $(seq 150); do ls /usr/bin >/dev/null; done'
t_setup "perf records sched_switch -g -a -k mono" \
	"$PERF" record -q -g -k mono -e sched:sched_switch -a -o tp.data -- \
	sh -c 'for i in $(seq 30); do ls /proc >/dev/null; sleep 0.01; done'
t_setup "perf records three events" \
	"$PERF" record -q -g -e cpu-clock -e sched:sched_switch -e sched:sched_stat_runtime -o multi.data -- \
	sh -c 'for i in $(seq 60); do ls /usr/bin >/dev/null; sleep 0.002; done'
for f in cc tp multi; do
	"$PERF" script -i $f.data -F event,period,ip,sym >$f.script 2>/dev/null
	"$PERF" script -i $f.data -F event,period,ip,sym -G >$f.script.G 2>/dev/null
done

# ---- cpu-clock -g ----
profile "cpu-clock -g" cc.data cc.pb.gz
t_eq "cpu-clock -g: sample types" "samples/count cpu-clock/nanoseconds[dflt]" \
	"$(sed -n '/^Samples:/{n;p}' cc.pb.gz.raw)"
$PY cmp.py totals cc.script cc.pb.gz.raw >tot.out
t_eq "cpu-clock -g: totals = perf script's samples and period" "$(sed -n 1p tot.out)" "$(sed -n 2p tot.out)"
check "cpu-clock -g: every stack (function names, leaf first) = perf script's, by count" \
	$PY cmp.py stacks cc.script cc.pb.gz.raw
check "cpu-clock -g: every stack = perf script's, by period" \
	$PY cmp.py stacks cc.script cc.pb.gz.raw cpu-clock/nanoseconds
pp "${TOP[@]}" -sample_index=samples cc.pb.gz >top.n 2>"$T/err"
pp "${TOP[@]}" -sample_index=cpu-clock -unit=ns cc.pb.gz >top.p 2>>"$T/err"
check "cpu-clock -g: -top flat samples per function = perf script's leaf counts" \
	$PY cmp.py leaves cc.script top.n samples
check "cpu-clock -g: -top flat ns per function = perf script's leaf periods" \
	$PY cmp.py leaves cc.script top.p period
"$PERF" report -i cc.data --stdio --no-children -g none --sort sym -n -q >rep.out 2>/dev/null
check "cpu-clock -g: perf report --sort sym -n: Samples and Overhead = -top's flat and flat%" \
	$PY cmp.py report rep.out top.n top.p
# mappings: (build-id, file) as perf buildid-list has them; (start, limit, offset, file) an MMAP2 of the file
"$PERF" buildid-list -i cc.data 2>/dev/null | sort >bid.perf
sed -n '/^Mappings/,$p' cc.pb.gz.raw | awk 'NF >= 4 && $4 ~ /^[0-9a-f]+$/ { print $4, $3 }' | sort >bid.ours
missing=$(comm -13 bid.perf bid.ours)
if [ -s bid.ours ] && [ -z "$missing" ]; then
	t_ok "cpu-clock -g: every mapping's build-id and file = perf buildid-list ($(wc -l <bid.ours) mappings)"
else
	t_fail "cpu-clock -g: mappings' build-ids" "not in perf buildid-list: $missing" "$(head -5 bid.perf)"
fi
"$PERF" script -i cc.data --show-mmap-events -F comm 2>/dev/null |
	sed -n 's/.*PERF_RECORD_MMAP2* [0-9-]*\/[0-9-]*: \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) @ 0x\([0-9a-f]*\)[^]]*\]: [-rwxps]* \(.*\)$/\1 \2 \3 \4/p' |
	while read -r s l o f; do printf '0x%x/0x%x/0x%x %s\n' $((16#$s)) $((16#$s + 16#$l)) $((16#$o)) "$f"; done |
	sort -u >maps.perf
sed -n '/^Mappings/,$p' cc.pb.gz.raw | awk '$2 ~ /^0x/ && $3 ~ /^\// { print $2, $3 }' | sort -u >maps.ours
missing=$(comm -13 maps.perf maps.ours)
if [ -s maps.ours ] && [ -z "$missing" ]; then
	t_ok "cpu-clock -g: every file mapping's start/limit/offset = a recorded MMAP ($(wc -l <maps.ours) mappings)"
else
	t_fail "cpu-clock -g: mappings = recorded MMAPs" "not recorded: $(echo "$missing" | head -3)" \
		"$(head -3 maps.perf)"
fi
t_grep "cpu-clock -g: the kernel's mapping has its functions ([FN])" \
	'^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\.kallsyms\] [0-9a-f]+ \[FN\]' cc.pb.gz.raw

# ---- sched_switch -g -a, with a clock, labels and a weight ----
profile "sched_switch -g -a" tp.data tp.pb.gz --labels pid,tid,comm,cpu,prev_state,next_comm \
	--weight prev_prio
t_eq "sched_switch: sample types (the weight after the event)" \
	"samples/count sched:sched_switch/count[dflt] prev_prio/count" "$(sed -n '/^Samples:/{n;p}' tp.pb.gz.raw)"
$PY cmp.py totals tp.script tp.pb.gz.raw >tot.out
t_eq "sched_switch: totals = perf script's" "$(sed -n 1p tot.out)" "$(sed -n 2p tot.out)"
check "sched_switch: every stack = perf script's" $PY cmp.py stacks tp.script tp.pb.gz.raw
pp "${TOP[@]}" -sample_index=samples tp.pb.gz >top.n 2>"$T/err"
check "sched_switch: -top flat per function = perf script's leaf counts" \
	$PY cmp.py leaves tp.script top.n samples
"$PERF" script -i tp.data -F trace 2>/dev/null >tp.trace
t_eq "sched_switch: the prev_prio column's sum = perf script's" \
	"$(sed -n 's/.*prev_prio=\([0-9]*\).*/\1/p' tp.trace | awk '{ s += $1 } END { print s }')" \
	"$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && / [0-9 ]+: / { s += $3 } END { print s }' tp.pb.gz.raw)"
pp -tags tp.pb.gz >tags.out 2>"$T/err"
t_eq "sched_switch: -tags cpu = perf script's samples per CPU" \
	"$("$PERF" script -i tp.data -F cpu 2>/dev/null | tr -d '[] ' | sed 's/^0*\([0-9]\)/\1/' | sort | uniq -c | awk '{ print $2, $1 }' | sort)" \
	"$($PY cmp.py tags tags.out cpu)"
t_eq "sched_switch: -tags comm = perf script's samples per comm" \
	"$("$PERF" script -i tp.data -F comm 2>/dev/null | sed 's/^ *//; s/ *$//' | sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0, n }' | sort)" \
	"$($PY cmp.py tags tags.out comm)"
t_eq "sched_switch: -tags prev_state (numeric) = our JSON's counts" \
	"$("$RAWFRAG" report -i tp.data --format json | jq -r '.fields.prev_state' | sort | uniq -c | awk '{ print $2, $1 }' | sort)" \
	"$($PY cmp.py tags tags.out prev_state)"
t_grep "sched_switch: a string label (next_comm) and the numeric ones in -raw" \
	'^ +comm:\[.*next_comm:\[' tp.pb.gz.raw
first=$("$PERF" script -i tp.data -F tod 2>/dev/null | head -1 | awk '{ print $1, $2 }')
t_grep "sched_switch: Time: = perf script -F tod of the first sample ($first)" \
	"^Time: ${first//./\\.}[0-9]* \+0000 UTC$" tp.pb.gz.raw
times=$("$PERF" script -i tp.data --ns -F time 2>/dev/null | tr -d ' .:' | sort -n | sed -n '1p;$p' | paste -sd' ')
t_eq "sched_switch: Duration: = perf script's last - first sample time" \
	"Duration: $($PY cmp.py dur $((10#${times#* } - 10#${times% *})))" "$(grep '^Duration:' tp.pb.gz.raw)"

# ---- three events: a sample type each ----
profile "three events" multi.data multi.pb.gz --weight runtime --labels event
t_eq "three events: sample types in the file's order, runtime in nanoseconds" \
	"samples/count cpu-clock/nanoseconds[dflt] sched:sched_switch/count sched:sched_stat_runtime/count runtime/nanoseconds" \
	"$(sed -n '/^Samples:/{n;p}' multi.pb.gz.raw)"
$PY cmp.py totals multi.script multi.pb.gz.raw >tot.out
t_eq "three events: each event's total = perf script's" "$(sed -n 1p tot.out)" "$(sed -n 2p tot.out)"
for ev in sched:sched_switch/count sched:sched_stat_runtime/count; do
	check "three events: ${ev%/*}'s stacks = perf script's" $PY cmp.py stacks multi.script multi.pb.gz.raw $ev
done
"$PERF" script -i multi.data -F trace 2>/dev/null >multi.trace
t_eq "three events: the runtime column's sum = perf script's" \
	"$(sed -n 's/.*runtime=\([0-9]*\).*/\1/p' multi.trace | awk '{ s += $1 } END { print s }')" \
	"$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && / [0-9 ]+: / { s += $5 } END { print s }' multi.pb.gz.raw)"

# ---- IBS: stacks weighted by load latency (the generated Zen 4 file) ----
if t_setup "ibs fixtures" "$(t_bin ibs-gen)" write ibs && [ -f ibs/ibs-zen4.data ]; then
	W=regs.IbsOpData3.fields.DcMissLat
	"$RAWFRAG" report -i ibs/ibs-zen4.data --format pprof -o ibs.pb.gz --weight $W 2>"$T/err" &&
		pp -raw ibs.pb.gz >ibs.raw 2>>"$T/err"
	t_eq "IBS: --weight DcMissLat: a $W/cycles column summing our JSON's values" \
		"$(sed -n '/^Samples:/{n;p}' ibs.raw | awk '{ print $NF }') $("$RAWFRAG" report -i ibs/ibs-zen4.data --format json | jq -s "[.[].fields.regs.IbsOpData3.fields.DcMissLat // 0] | add")" \
		"$W/cycles $(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && / [0-9 ]+: / { split($0, a, ":"); n = split(a[1], v, " "); s += v[n] }
		END { print s + 0 }' ibs.raw)"
fi

# ---- inline frames: one location, a line per function ----
cat >inl.c <<'EOF'
static inline __attribute__((always_inline)) long inner(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * 7 % 13;
	return s;
}
__attribute__((noinline)) long outer(long n) { return inner(n) + 1; }
int main(void) { long s = 0; for (int i = 0; i < 300; i++) s += outer(200000 + i); return s == 42; }
EOF
if ! command -v addr2line >/dev/null || ! gcc -O2 -g -o inl inl.c 2>"$T/err"; then
	t_skip_n 2 "inline frames" "no addr2line or gcc"
else
	t_setup "perf records --call-graph dwarf" "$PERF" record -q --call-graph dwarf -e cpu-clock -o inl.data ./inl
	"$PERF" script -i inl.data -F event,period,ip,sym >inl.script 2>/dev/null
	"$PERF" script -i inl.data -F event,period,ip,sym -G >inl.script.G 2>/dev/null
	"$RAWFRAG" report -i inl.data --format pprof -o inl.pb.gz 2>"$T/err" && pp -raw inl.pb.gz >inl.raw 2>>"$T/err"
	n=$(awk '/^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ inner / { getline l; if (l ~ /^ +outer /) n++ }
		END { print n + 0 }' inl.raw)
	if [ "$n" -gt 0 ]; then
		t_ok "dwarf: inner inlined into outer: a location with lines inner, outer ($n of them)"
	else
		t_fail "dwarf: a location with lines inner, outer" "$(grep -A1 ' inner ' inl.raw | head -6)" \
			"$(head -c 300 "$T/err")"
	fi
	check "dwarf: every stack (inline lines expanded) = perf script's" $PY cmp.py stacks inl.script inl.raw
fi

# ---- Python, errors ----
PYTHONPATH=${PYTHONPATH:-$O/python} $PY -c '
import rawfrag
rawfrag.open("tp.data").pprof("py.pb.gz", labels=["pid", "comm"], weight="prev_prio")' >"$T/err" 2>&1
"$RAWFRAG" report -i tp.data --format pprof -o cmd.pb.gz --labels pid,comm --weight prev_prio 2>>"$T/err"
if [ -s py.pb.gz ] && cmp -s py.pb.gz cmd.pb.gz; then
	t_ok "Reader.pprof(labels=..., weight=...) = report --format pprof's bytes"
else
	t_fail "Reader.pprof() = report --format pprof" "$(head -c 400 "$T/err")"
fi
t_run "--weight on a string field: exit 2" 2 "$RAWFRAG" report -i tp.data --format pprof -o x.pb.gz \
	--weight prev_comm
t_grep "... the message names the field" "weight 'prev_comm' is not a number" "$T/err"
t_run "--labels of a field no sample has: exit 2" 2 "$RAWFRAG" report -i tp.data --format pprof \
	-o x.pb.gz --labels no_such_field
t_run "--format pprof without -o: exit 2" 2 "$RAWFRAG" report -i tp.data --format pprof
t_run "--format pprof -F: exit 2" 2 "$RAWFRAG" report -i tp.data --format pprof -o x.pb.gz -F comm
PYTHONPATH=${PYTHONPATH:-$O/python} $PY -c '
import rawfrag
try:
    rawfrag.open("tp.data").pprof("py2.pb.gz", weight="prev_comm")
except rawfrag.Error as e:
    print("Error:", e)' >py.out 2>&1
t_grep "Reader.pprof(weight=a string field) raises rawfrag.Error naming it" \
	"^Error: .*weight 'prev_comm' is not a number" py.out
# unusable input: one message naming the file and the offset, exit 2, no profile
head -c $(( $(stat -c %s cc.data) * 2 / 3 )) cc.data >cut.data
t_run "a truncated recording: exit 2" 2 "$RAWFRAG" report -i cut.data --format pprof -o cut.pb.gz
t_grep "... one message naming the file" "cut\.data" "$T/err"
t_eq "... and no profile left behind" "" "$(ls cut.pb.gz 2>/dev/null)"
# every corrupt fixture of tests/gen/rawfrag-gen.c: pprof fails as json does (the
# report decides what a bad record does), and leaves no profile
GEN=$(t_bin rawfrag-gen)
if [ -x "$GEN" ] && "$GEN" fx >/dev/null 2>&1; then
	bad=0 n=0 first=
	for f in $(awk '$2 != 0 { print $1 }' fx/MANIFEST); do
		n=$((n + 1))
		"$RAWFRAG" report -i fx/$f --format json >/dev/null 2>j.err; j="$? $(head -n 1 j.err)"
		rm -f fx.pb.gz
		"$RAWFRAG" report -i fx/$f --format pprof -o fx.pb.gz 2>p.err; p="$? $(head -n 1 p.err)"
		if [ "$j" != "$p" ] || [ "${p%% *}" != 2 ] || [ -e fx.pb.gz ]; then
			bad=$((bad + 1))
			[ -n "$first" ] || first="$f: json: $j; pprof: $p; left: $(ls fx.pb.gz 2>/dev/null)"
		fi
	done
	if [ "$n" -ge 10 ] && [ "$bad" = 0 ]; then
		t_ok "$n corrupt fixtures: pprof exits 2 with json's error line, no profile left"
	else
		t_fail "corrupt fixtures: pprof fails as json" "$bad of $n differ" "$first"
	fi
else
	t_skip "corrupt fixtures" "no tests/rawfrag-gen (or it needs tracefs)"
fi
t_run "an output that cannot be created: exit 2" 2 "$RAWFRAG" report -i tp.data --format pprof \
	-o /nonexistent/x.pb.gz
# a pipe-mode recording (evsels and names arrive as records) to standard output
t_setup "perf records to a pipe" sh -c "'$PERF' record -q -g -e cpu-clock -o - -- ls -R /usr/lib/python3 >pipe.data 2>/dev/null"
"$PERF" script -i pipe.data -F event,period,ip,sym >pipe.script 2>/dev/null
"$PERF" script -i pipe.data -F event,period,ip,sym -G >pipe.script.G 2>/dev/null
"$RAWFRAG" report -i - --format pprof -o - <pipe.data >pipe.pb.gz 2>"$T/err" &&
	pp -raw pipe.pb.gz >pipe.raw 2>>"$T/err"
$PY cmp.py totals pipe.script pipe.raw >tot.out 2>>"$T/err"
t_eq "a pipe on stdin, the profile on stdout: totals = perf script's" "$(sed -n 1p tot.out)" \
	"$(sed -n 2p tot.out)"
check "a pipe: every stack = perf script's" $PY cmp.py stacks pipe.script pipe.raw
