#!/usr/bin/env bash
# Samples of pid/tid -1 (the kernel's value for a task caught while exiting)
# in the aggregated outputs, on a deterministic fixture: recordings made here
# (cpu-clock -g of a test program; sched_switch -g -a) with every 4th (7th)
# sample's pid and tid rewritten to 0xffffffff, beside the normal ones. perf
# then sees thread -1 (comm ":-1", no maps: its user frames unresolved, its
# kernel frames resolved), and so must we:
#  - --format folded = stackcollapse.py byte for byte, with --include-pid
#    and --include-tid (perf's Python gives the pid unsigned: 4294967295);
#  - --format flamegraph-json = flamegraph.py -f json as a tree
#    (":-1 (4294967295)");
#  - the table (--sort pid,comm, --sort comm,dso,sym, ...) = perf report
#    --stdio byte for byte but the tip line;
#  - pprof: -raw's stacks per pid/tid label and -tags pid = perf script's;
#  - sqlite: threads, samples and call paths = export-to-sqlite.py's;
#  - --pid -1 / --tid -1 select them as perf script's options do;
#  - Python's Reader gives them as report --format json does.
source "$(dirname "$0")/lib.sh"
t_plan 28

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
command -v gcc >/dev/null || t_skip_rest "no gcc"
SCRIPTS=/usr/lib/perf-core/scripts/python
[ -f "$SCRIPTS/stackcollapse.py" ] && [ -f "$SCRIPTS/flamegraph.py" ] ||
	t_skip_rest "perf's stackcollapse.py/flamegraph.py not under $SCRIPTS"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export HOME=$T/home
mkdir -p "$HOME"

cat >"$T/prog.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) static long leaf(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
__attribute__((noinline)) long top(long n) { long s = 0; for (int i = 0; i < 40; i++) { s += mid(n); getppid(); } return s; }
int main(void) { long s = 0; for (int k = 0; k < 4; k++) s += top(1000000); printf("%ld\n", s); return 0; }
EOF
t_setup "program" gcc -O1 -g -fno-omit-frame-pointer -o "$T/prog" "$T/prog.c"
t_setup "perf records cpu-clock -g" "$PERF" record -q -g -e cpu-clock -c 100000 -o cc.data -- "$T/prog"
t_setup "perf records sched_switch -g -a" "$PERF" record -q -g -e sched:sched_switch -a -o tp.data -- \
	sh -c 'for i in $(seq 30); do ls /proc >/dev/null; sleep 0.005; done'

# every Nth sample's pid and tid set to 0xffffffff, in a copy (teach: see below)
cat >negpid.py <<'EOF'
import struct, sys
src, dst, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
if b[:8] != b"PERFILE2":
    sys.exit("not a perf.data file")
attr_size, = struct.unpack_from("<Q", b, 16)
aoff, asz, doff, dsz = struct.unpack_from("<4Q", b, 24)
byid, types = {}, set()
for o in range(aoff, aoff + asz, attr_size):
    st, = struct.unpack_from("<Q", b, o + 24)
    types.add(st)
    ioff, isz = struct.unpack_from("<2Q", b, o + attr_size - 16)
    for i in range(ioff, ioff + isz, 8):
        byid[struct.unpack_from("<Q", b, i)[0]] = st
ident = 1 << 16  # PERF_SAMPLE_IDENTIFIER: the sample's first u64, its event's id
if len(types) > 1 and not all(t & ident for t in types):
    sys.exit("several sample layouts without PERF_SAMPLE_IDENTIFIER")
def tid_at(off):
    st = byid[struct.unpack_from("<Q", b, off + 8)[0]] if len(types) > 1 else next(iter(types))
    if not st & 2:  # PERF_SAMPLE_TID
        return None
    return off + 8 + 8 * (bool(st & ident) + bool(st & 1))  # IDENTIFIER and IP come first
def samples():
    off = doff
    while off + 8 <= doff + dsz:
        typ, misc, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            sys.exit("bad record size at %d" % off)
        if typ == 9 and tid_at(off) is not None:  # PERF_RECORD_SAMPLE
            yield off
        off += size
planted = [o for i, o in enumerate(samples()) if (i + 1) % every == 0]
# teach: the middle one keeps its pid (tid -1 only): perf's thread -1 takes
# that pid, and the -1/-1 samples after it are resolved in its maps
teach = len(planted) // 2 if len(sys.argv) > 4 and sys.argv[4] == "teach" else -1
for i, o in enumerate(planted):
    at = tid_at(o)
    if i == teach:
        struct.pack_into("<I", b, at + 4, 0xffffffff)
    else:
        struct.pack_into("<II", b, at, 0xffffffff, 0xffffffff)
done = len(planted) - (teach >= 0)
open(dst, "wb").write(b)
print(done)
EOF
declare -A NEG
plant() { # name every [teach]
	t_setup "pid/tid -1 planted in $1.data" sh -c "$PY negpid.py $1.data $1-neg.data $2 ${3:-} >$1.nneg"
	# perf sees them (and a real exiting task's of an -a recording): the
	# fixture is what it says; the counts below are perf's
	NEG[$1]=$("$PERF" script -i $1-neg.data -F pid,tid 2>/dev/null | grep -c '^ *-1/-1 *$')
	t_setup "perf script sees the $(cat $1.nneg) samples of -1/-1 planted in $1-neg.data" \
		test "${NEG[$1]}" -ge "$(cat $1.nneg)" -a "$(cat $1.nneg)" -ge 2
}
plant cc 4 teach
plant tp 7
# the taught half: perf names the program's functions in -1/-1 stacks
t_setup "perf script resolves top/mid/leaf in -1/-1 samples after the one of tid -1 only" sh -c \
	"'$PERF' script -i cc-neg.data -F pid,tid,ip,sym 2>/dev/null | awk '/^ *-1\/-1/ { on = 1; next } /^ *[0-9]/ { on = 0 } on && \$2 == \"leaf\" { n++ } END { exit !(n > 0) }'"

# ---- folded: stackcollapse.py (tracepoint samples too) byte for byte ----
cat >sc.py <<EOF
import sys
sys.argv[0] = "stackcollapse.py"
exec(compile(open("$SCRIPTS/stackcollapse.py").read(), "stackcollapse.py", "exec"))
def trace_unhandled(event_name, context, fields, perf_sample_dict):
    process_event(perf_sample_dict)
EOF
sed 's/stackcollapse/flamegraph/g' sc.py >fg.py
folded() { # name file [options...]: the same options to both
	local name=$1 f=$2; shift 2
	"$PERF" script -i "$f" -s sc.py -- "$@" 2>"$T/perf.err" | grep -v ' 0$' >"$T/perf.out"
	"$RAWFRAG" report -i "$f" --format folded "$@" >"$T/ours.out" 2>"$T/ours.err"
	local n
	n=$(wc -l <"$T/perf.out")
	if [ "$n" -lt 2 ]; then
		t_fail "folded, $name${*:+ $*}" "stackcollapse.py printed $n lines" "$(head -c 400 "$T/perf.err")"
	elif cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "folded, $name${*:+ $*}: = stackcollapse.py ($n stacks, byte-identical)"
	else
		t_fail "folded, $name${*:+ $*}" "$(diff "$T/perf.out" "$T/ours.out" | head -10)" \
			"$(head -c 400 "$T/ours.err")"
	fi
}
folded "cpu-clock -g" cc-neg.data
folded "cpu-clock -g" cc-neg.data --include-pid
folded "cpu-clock -g" cc-neg.data --include-tid
folded "cpu-clock -g" cc-neg.data --include-pid --include-tid
folded "cpu-clock -g" cc-neg.data --kernel
folded "sched_switch -g -a" tp-neg.data --include-pid --include-tid
folded "sched_switch -g -a" tp-neg.data --kernel --include-pid
# the planted samples are there, each once (the comparisons above hold them)
"$RAWFRAG" report -i cc-neg.data --format folded --include-pid --include-tid >f.out 2>&1
t_eq "cpu-clock -g: the -1 samples are stacks of ':-1-4294967295/4294967295'" "${NEG[cc]}" \
	"$(awk '/^:-1-4294967295\/4294967295;/ { n += $NF } END { print n + 0 }' f.out)"

# --pid/--tid -1 select them, as perf script's do
"$PERF" script -i cc-neg.data --pid -1 -s sc.py -- --include-pid 2>"$T/perf.err" | grep -v ' 0$' >"$T/perf.out"
"$RAWFRAG" report -i cc-neg.data --pid -1 --format folded --include-pid >"$T/ours.out" 2>"$T/ours.err"
n=$(awk '{ n += $NF } END { print n + 0 }' "$T/perf.out")
if [ "$n" -ge 1 ] && [ "$n" -lt "${NEG[cc]}" ] && cmp -s "$T/perf.out" "$T/ours.out"; then
	t_ok "--pid -1 --format folded --include-pid = stackcollapse.py under perf script --pid -1 ($n samples: the -1/-1 ones before thread -1 learnt a pid)"
else
	t_fail "--pid -1 --format folded" "perf: $n samples of ${NEG[cc]}" "$(diff "$T/perf.out" "$T/ours.out" | head -6)" \
		"$(head -c 300 "$T/ours.err")"
fi
F=comm,pid,tid,time,ip,sym,dso
for sel in "--tid -1" "--pid -1,0"; do
	"$PERF" script -i tp-neg.data $sel -F $F >"$T/perf.out" 2>"$T/perf.err"
	"$RAWFRAG" report -i tp-neg.data $sel -F $F >"$T/ours.out" 2>"$T/ours.err"
	n=$(grep -c '^ *:-1 ' "$T/perf.out")
	if [ "$n" = "${NEG[tp]}" ] && cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "sched_switch: $sel -F $F = perf script's ($n samples of :-1, byte-identical)"
	else
		t_fail "sched_switch: $sel -F $F" "perf: $n of :-1" "$(diff "$T/perf.out" "$T/ours.out" | head -6)" \
			"$(head -c 300 "$T/ours.err")"
	fi
done
t_run "--pid -2: exit 2 (only -1 is a pid below 0)" 2 "$RAWFRAG" report -i cc-neg.data --pid -2
t_grep "... the message names the list" "bad list '-2'" "$T/err"

# ---- flamegraph-json: flamegraph.py -f json as a tree ----
cat >canon.py <<'EOF'
import json, sys
def canon(n):
    return {"n": n["n"], "l": n["l"], "v": n["v"],
            "c": sorted((canon(c) for c in n["c"]), key=lambda c: (c["n"], c["l"]))}
def tot(n): return n["v"] + sum(tot(c) for c in n["c"])
a = canon(json.load(open(sys.argv[1])))
b = canon(json.load(open(sys.argv[2])))
neg = [tot(c) for c in a["c"] if c["n"] == ":-1 (4294967295)"]
print("%d samples, %s of ':-1 (4294967295)'" % (tot(a), neg))
sys.exit(0 if a == b and neg == [int(sys.argv[3])] else 1)
EOF
fgjson() { # name file
	"$PERF" script -i "$2" -s fg.py -- -f json -o "$T/perf.json" >"$T/perf.err" 2>&1
	"$RAWFRAG" report -i "$2" --format flamegraph-json -o "$T/ours.json" 2>"$T/ours.err"
	if $PY canon.py "$T/perf.json" "$T/ours.json" "$3" >"$T/cmp.out" 2>&1; then
		t_ok "flamegraph-json, $1: = flamegraph.py -f json ($(cat "$T/cmp.out"))"
	else
		t_fail "flamegraph-json, $1" "$(cat "$T/cmp.out")" "$(head -c 400 "$T/ours.err")"
	fi
}
fgjson "cpu-clock -g" cc-neg.data "${NEG[cc]}"
fgjson "sched_switch -g -a" tp-neg.data "${NEG[tp]}"

# ---- the table: perf report --stdio byte for byte but the tip line ----
same() { # name file args...
	local name=$1 f=$2; shift 2
	"$PERF" report --stdio -i "$f" "$@" 2>"$T/perf.err" | grep -v '^# (Tip: ' >"$T/perf.out"
	"$RAWFRAG" report --stdio -i "$f" "$@" 2>"$T/ours.err" | grep -v '^# (Tip: ' >"$T/ours.out"
	local rows
	rows=$(grep -c '%' "$T/perf.out")
	if [ "$rows" -lt 1 ] || ! grep -q -- ':-1' "$T/perf.out"; then
		t_fail "table, $name: $*" "perf's table has no rows or no :-1" "$(head -c 400 "$T/perf.err")"
	elif cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "table, $name: $* ($rows rows, byte-identical)"
	else
		t_fail "table, $name: $*" "$(diff "$T/perf.out" "$T/ours.out" | head -20)" \
			"$(head -c 400 "$T/ours.err")"
	fi
}
same "cpu-clock -g" cc-neg.data --sort pid,comm
same "cpu-clock -g" cc-neg.data --sort comm,dso,sym
same "cpu-clock -g" cc-neg.data --no-children -g none --sort pid,dso,sym -n
same "sched_switch -g -a" tp-neg.data --sort pid,comm
same "sched_switch -g -a" tp-neg.data --no-children -g none --sort comm,dso,sym

# ---- pprof: stacks per pid/tid label and -tags pid = perf script's ----
if ! command -v go >/dev/null; then
	t_skip_n 4 "pprof" "no go (make deps installs golang-go): go tool pprof is the oracle"
else
	export GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local TZ=UTC
	cp "$TOP/tests/scripts/pprof_raw.py" .
	cat >pst.py <<'EOF'
import collections, re, sys
from pprof_raw import read as read_raw
def perf_side(path):
    """perf script -F pid,tid,ip,sym: (pid/tid, names leaf first) counted"""
    out, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\t"):
            p = line.strip().split(None, 1)
            cur[1].append(p[1] if len(p) > 1 else "[unknown]")
        elif line.strip():
            cur = (line.split()[0], [])
            out.append(cur)
    # an empty chain: the sample's ip and symbol, as perf script -G prints them
    g = [l.split(None, 2) for l in open(path + ".G", errors="replace")]
    c = collections.Counter()
    for i, (who, names) in enumerate(out):
        if not names:
            names = [g[i][2].strip() if len(g[i]) > 2 else "[unknown]"]
        c[(who, tuple(names))] += 1
    return c
def raw_side(path):
    """go tool pprof -raw: (pid/tid labels, location names leaf first) counted"""
    _, samples, locs = read_raw(path)
    c = collections.Counter()
    for (n, *_), ids, lab in samples:
        pid = re.search(r"pid:\[(-?\d+) count\]", lab)
        tid = re.search(r"tid:\[(-?\d+) count\]", lab)
        names = []
        for i in ids:
            names += locs[i] or ["[unknown]"]
        c[("%s/%s" % (pid and pid.group(1), tid and tid.group(1)), tuple(names))] += n
    return c
a, b = perf_side(sys.argv[1]), raw_side(sys.argv[2])
neg = sum(v for k, v in a.items() if k[0] == "-1/-1")
if a == b and neg:
    print("ok %d stacks, %d samples, %d of pid/tid -1" % (len(a), sum(a.values()), neg))
else:
    d = [(k, a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]]
    print("differ in %d stacks (%d of pid -1), e.g. %s" % (len(d), neg, d[:2]))
EOF
	for f in cc tp; do
		"$RAWFRAG" report -i $f-neg.data --format pprof --labels pid,tid -o $f.pb.gz 2>"$T/err" &&
			go tool pprof -symbolize=none -raw $f.pb.gz >$f.raw 2>>"$T/err"
		"$PERF" script -i $f-neg.data -F pid,tid,ip,sym >$f.script 2>/dev/null
		"$PERF" script -i $f-neg.data -F pid,tid,ip,sym -G >$f.script.G 2>/dev/null
		r=$($PY pst.py $f.script $f.raw 2>&1)
		if [ "${r#ok}" != "$r" ]; then t_ok "pprof, $f-neg.data: -raw's stacks per pid/tid label = perf script's (${r#ok })"
		else t_fail "pprof, $f-neg.data: stacks per pid/tid label" "$r" "$(head -c 400 "$T/err")"; fi
		go tool pprof -symbolize=none -sample_index=samples -tags $f.pb.gz >$f.tags 2>"$T/err"
		t_eq "pprof, $f-neg.data: -tags pid = perf script -F pid's counts" \
			"$("$PERF" script -i $f-neg.data -F pid 2>/dev/null | awk '{ print $1 }' | sort | uniq -c |
				awk '{ print $2, $1 }' | sort)" \
			"$(awk '/^ [a-z]+: Total/ { on = $1 == "pid:"; next }
				on && /%\): / { print $NF, $1 + 0 }' $f.tags | sort)"
	done
fi

# ---- sqlite: export-to-sqlite.py's threads, samples and call paths ----
if ! command -v sqlite3 >/dev/null; then
	t_skip_n 3 "sqlite" "needs the sqlite3 command (make deps)"
else
	export QT_QPA_PLATFORM=offscreen # perf's script uses Qt's SQL driver; no display here
	t_setup "perf's export-to-sqlite.py all calls callchains" \
		"$PERF" script -i cc-neg.data -s "$SCRIPTS/export-to-sqlite.py" perf.db all calls callchains
	"$RAWFRAG" report -i cc-neg.data --format sqlite -o our.db >"$T/out" 2>"$T/err"
	for t in threads samples call_paths; do
		sqlite3 perf.db "SELECT * FROM $t ORDER BY id" >perf.rows 2>&1
		sqlite3 our.db "SELECT * FROM $t ORDER BY id" >our.rows 2>&1
		n=$(wc -l <perf.rows)
		if [ "$n" -ge 2 ] && cmp -s perf.rows our.rows; then
			t_ok "sqlite, cpu-clock -g: $t = export-to-sqlite.py's, ids included ($n rows)"
		else
			t_fail "sqlite, cpu-clock -g: $t" "$(diff perf.rows our.rows | head -6)" "$(head -c 300 "$T/err")"
		fi
	done
fi

# Python's Reader resolves them as the report does (each sample's to_dict()
# = report --format json's line)
if PYTHONPATH=${PYTHONPATH:-$O/python} $PY -c 'import rawfrag' 2>/dev/null; then
	"$RAWFRAG" report -i cc-neg.data --format json >cc.json 2>"$T/err"
	PYTHONPATH=${PYTHONPATH:-$O/python} $PY - cc-neg.data cc.json >py.out 2>&1 <<'PY'
import json, sys, rawfrag
py = [s.to_dict() for s in rawfrag.open(sys.argv[1])]
js = [json.loads(l) for l in open(sys.argv[2])]
neg = sum(1 for s in py if s["pid"] == -1)
bad = [i for i, (a, b) in enumerate(zip(py, js)) if a != b]
print("%d samples, %d of pid -1, %d differ%s" % (len(py), neg, len(bad) + abs(len(py) - len(js)),
      (": first " + json.dumps(py[bad[0]])[:200]) if bad else ""))
sys.exit(0 if py and len(py) == len(js) and not bad and neg else 1)
PY
	if [ $? = 0 ]; then t_ok "Python: every Sample.to_dict() = report --format json ($(cat py.out))"
	else t_fail "Python: Sample.to_dict() = report --format json" "$(head -c 600 py.out)"; fi
else
	t_skip "Python: Sample.to_dict() = report --format json" "the rawfrag Python module is not built"
fi
