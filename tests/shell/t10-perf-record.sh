#!/usr/bin/env bash
# Real files from Debian's perf, recorded now from the running kernel in the
# ways perf can write them (tracepoints with -a, -g, --call-graph dwarf, -z,
# -o - (pipe), -T, --sample-cpu, -d, --user-regs/--intr-regs, several events at
# once), then read by librawfrag (rawfrag-dump) and by perf itself (perf script
# -s, a Python handler printing what perf parsed): the same number of samples
# and, per sample, the same event, pid, tid, cpu, time, raw size, period and ip.
source "$(dirname "$0")/lib.sh"
t_plan 30

DUMP=$(t_bin rawfrag-dump)
[ -x "$DUMP" ] || { t_fail "perf record" "rawfrag-dump not built"; exit 1; }
command -v "$PERF" >/dev/null || { t_skip_rest "perf record: no perf binary"; }
is_root || { t_skip_rest "perf record: needs root for -a and raw tracepoint samples"; }
"$PERF" version --build-options 2>/dev/null | grep -qE 'libpython: \[ on' ||
	{ t_skip_rest "perf record: perf built without libpython (perf script -s is the oracle)"; }
ensure_tracefs || { t_skip_rest "perf record: no tracefs"; }

perf_samples_py

# a small workload that switches and wakes up tasks on both CPUs
cat >"$T/work.sh" <<'EOF'
for i in $(seq 15); do sleep 0.01 & cat /proc/self/stat >/dev/null; wait; done
EOF

# perf reports a missing CPU as (u32)-1 and a missing RAW as an empty buffer
ours() { "$DUMP" "$1" | awk '{ c = $4 == "-" ? "4294967295" : $4; r = $6 == "-" ? 0 : $6
	print $1, $2, $3, c, $5, r, $7, $8 }' | sort; }

# compare NAME FILE: rawfrag-dump vs perf script, sample by sample
compare() {
	local name=$1 f=$2 n
	"$DUMP" "$f" >/dev/null 2>"$T/dump.err"
	t_eq "$name: rawfrag-dump reads it" 0 "$?"
	"$PERF" script -i "$f" -s "$T/samples.py" 2>"$T/perf.err" | sort >"$T/perf.out"
	ours "$f" >"$T/ours.out" 2>/dev/null
	n=$(wc -l <"$T/perf.out")
	if [ "$n" -eq 0 ]; then
		t_fail "$name: perf script found samples" "$(head -c 300 "$T/perf.err")"
		return
	fi
	t_eq "$name: sample count" "$n" "$(wc -l <"$T/ours.out")"
	if cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "$name: $n samples identical (event pid tid cpu time raw_size period ip)"
	else
		t_fail "$name: samples identical" "$(diff "$T/perf.out" "$T/ours.out" | head -6)"
	fi
}

# record NAME FILE PERF-RECORD-ARGS...: record, or skip with perf's reason
record() {
	local name=$1 f=$2; shift 2
	if "$PERF" record -q -o "$f" "$@" -- bash "$T/work.sh" >"$T/rec.out" 2>"$T/rec.err" &&
	   [ -s "$f" ]; then
		return 0
	fi
	t_skip "$name" "perf record failed: $(head -c 200 "$T/rec.err" | tr '\n' ' ')"
	return 1
}

TP="-e sched:sched_switch -e sched:sched_wakeup"

record "tracepoints -a" "$T/a.data" $TP -a && compare "tracepoints -a" "$T/a.data"
record "tracepoints -a -g" "$T/g.data" $TP -a -g && compare "tracepoints -a -g" "$T/g.data"
record "dwarf" "$T/dw.data" -e sched:sched_switch --call-graph dwarf,1024 &&
	compare "--call-graph dwarf" "$T/dw.data"
record "-z" "$T/z.data" $TP -a -z && compare "-z (zstd)" "$T/z.data"
record "-T --sample-cpu -d" "$T/t.data" $TP -a -T --sample-cpu -d &&
	compare "-T --sample-cpu -d" "$T/t.data"
record "regs" "$T/regs.data" -e cpu-clock -c 20000 --user-regs=ax,bx,sp --intr-regs=ip,sp,ax &&
	compare "--user-regs/--intr-regs" "$T/regs.data"
record "several events" "$T/m.data" $TP -e sched:sched_process_exec \
	-e sched:sched_process_fork -e cpu-clock -a &&
	compare "several events (tracepoints + cpu-clock)" "$T/m.data"

# HEADER_TRACING_DATA: ours (rawfrag_tracing_data__build) against the blob perf
# just wrote for the same events, section by section (saved_cmdlines aside:
# it changes from one moment to the next)
GEN=${DUMP%/rawfrag-dump}/rawfrag-gen
cat >"$T/tdwalk.py" <<'EOF'
import struct, sys
def sections(path):
    b = open(path, "rb").read()
    out = []
    assert b[:10] == b"\x17\x08\x44tracing", "magic"
    p = b.index(b"\0", 10) + 1
    be = b[p] == 1
    e = ">" if be else "<"
    out.append(("head", b[:p + 6]))
    p += 6
    def u32():
        nonlocal p
        v = struct.unpack_from(e + "I", b, p)[0]; p += 4; return v
    def u64():
        nonlocal p
        v = struct.unpack_from(e + "Q", b, p)[0]; p += 8; return v
    def cstr():
        nonlocal p
        q = b.index(b"\0", p); s = b[p:q]; p = q + 1; return s
    for name in (b"header_page", b"header_event"):
        assert cstr() == name
        n = u64(); out.append((name.decode(), b[p:p + n])); p += n
    def formats(tag):
        nonlocal p
        for _ in range(u32()):
            n = u64(); out.append((tag, b[p:p + n])); p += n
    formats("ftrace")
    for _ in range(u32()):
        formats(cstr().decode())
    n = u32(); out.append(("kallsyms", b[p:p + n])); p += n
    n = u32(); out.append(("printk", b[p:p + n])); p += n
    n = u64(); p += n  # saved_cmdlines: changes from one moment to the next
    assert p == len(b), "trailing bytes"
    return out
a, b = sections(sys.argv[1]), sections(sys.argv[2])
if a != b:
    for x, y in zip(a, b):
        if x != y:
            print("differs in", x[0], y[0]); break
    else:
        print("section counts", len(a), len(b))
    sys.exit(1)
print("identical %d sections" % len(a))
EOF
if ! command -v python3 >/dev/null; then
	t_skip "tracing data blob identical to perf's" "no python3"
elif [ -s "$T/m.data" ] && [ -x "$GEN" ]; then
	"$DUMP" -T "$T/m.data" >"$T/perf.blob" 2>"$T/td.err"
	"$GEN" -t "$T/our.blob" sched:sched_switch sched:sched_wakeup sched:sched_process_exec \
		sched:sched_process_fork 2>>"$T/td.err"
	if python3 "$T/tdwalk.py" "$T/perf.blob" "$T/our.blob" >"$T/td.out" 2>>"$T/td.err"; then
		t_ok "tracing data blob identical to perf's ($(cat "$T/td.out"))"
	else
		t_fail "tracing data blob identical to perf's" "$(cat "$T/td.out" "$T/td.err" | head -5)"
	fi
else
	t_skip "tracing data blob identical to perf's" "no recording or rawfrag-gen"
fi

# host features (rawfrag_writer__set_host_features) as perf record writes them
if [ -s "$T/m.data" ] && [ -x "$GEN" ] && "$GEN" "$T/fx" >/dev/null 2>&1; then
	hdr() { "$PERF" report -i "$1" --header-only 2>/dev/null |
		grep -E '^# (hostname|os release|arch|nrcpus online|nrcpus avail|cpudesc|cpuid|total memory) :'; }
	hdr "$T/m.data" >"$T/hdr.perf"
	hdr "$T/fx/tp-le.data" >"$T/hdr.ours"
	if [ -s "$T/hdr.perf" ] && cmp -s "$T/hdr.perf" "$T/hdr.ours"; then
		t_ok "host features as perf writes them ($(wc -l <"$T/hdr.perf") lines)"
	else
		t_fail "host features as perf writes them" "$(diff "$T/hdr.perf" "$T/hdr.ours" | head -6)"
	fi
else
	t_skip "host features as perf writes them" "no recording or fixtures"
fi

# pipe mode: perf writes to stdout; read the stream from a file and from stdin
if "$PERF" record -q -o - $TP -a -- bash "$T/work.sh" >"$T/p.data" 2>"$T/rec.err" &&
   [ -s "$T/p.data" ]; then
	compare "-o - (pipe)" "$T/p.data"
	"$DUMP" -c - <"$T/p.data" >"$T/stdin.out" 2>"$T/stdin.err"
	t_eq "pipe from stdin: same count" "samples $(wc -l <"$T/perf.out")" "$(cat "$T/stdin.out")"
else
	t_skip "-o - (pipe)" "perf record failed: $(head -c 200 "$T/rec.err")"
fi
if "$PERF" record -q -o - $TP -a -z -- bash "$T/work.sh" >"$T/pz.data" 2>"$T/rec.err" &&
   [ -s "$T/pz.data" ]; then
	compare "-o - -z (compressed pipe)" "$T/pz.data"
else
	t_skip "-o - -z" "perf record failed: $(head -c 200 "$T/rec.err")"
fi
