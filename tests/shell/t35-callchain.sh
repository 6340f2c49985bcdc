#!/usr/bin/env bash
# Whole samples: ip, symbols, call chains and registers against perf script.
# A small C program (and a shared library) is built here in several ways
# (frame pointers or not, debug info or not, stripped with a .gnu_debuglink
# file, deleted before report), recorded now with Debian's perf (-g and
# --call-graph dwarf) and with our record (-g), and every sample's text must be
# what perf script prints, chain line by chain line.
# DWARF-unwound frames carry the inlined functions addr2line finds, as perf's
# do (ours worked out from the DWARF as addr2line would, see test_inline);
# with --no-inline they are left out, which the last DWARF check folds:
# each of perf's all-"(inlined)" ip groups and our line for that ip become one
# marker, perf's "(inlined)" lines in front of a real frame line are dropped, and
# a frame line perf repeats for its own inline expansion counts once.
source "$(dirname "$0")/lib.sh"
t_plan 48

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "needs root for kernel call chains"
command -v gcc >/dev/null || t_skip_rest "no gcc"
command -v addr2line >/dev/null || t_skip_rest "no addr2line (binutils): perf's inline frames need it"

# perf and we share a private build-id cache: perf record fills it, both read it
export HOME=$T/home
mkdir -p "$HOME"

cat >"$T/lib.c" <<'EOF'
__attribute__((noinline)) long lib_leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i % 7; return s; }
__attribute__((noinline)) long lib_work(long n) { return lib_leaf(n) + 1; }
EOF
cat >"$T/prog.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
long lib_work(long n);
__attribute__((noinline)) static long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
/* ten syscalls a round: enough kernel time that cpu-clock samples always catch do_syscall_64 */
__attribute__((noinline)) long top(long n) { long s = 0; for (int i = 0; i < 100; i++) { s += mid(n); for (int j = 0; j < 10; j++) getppid(); } return s; }
__attribute__((noinline)) long clocks(int n) { struct timespec ts; long s = 0; for (int i = 0; i < n; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec & 1; } return s; }
int main(void) { long s = 0; for (int k = 0; k < 6; k++) { s += top(200000); s += lib_work(2000000); s += clocks(100000); } printf("%ld\n", s); return 0; }
EOF
t_setup "shared library" gcc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o "$T/libt35.so" "$T/lib.c"
build() { # name flags...
	local n=$1; shift
	t_setup "program $n" gcc -O1 "$@" -o "$T/$n" "$T/prog.c" -L"$T" -lt35 -Wl,-rpath,"$T"
}
build fp_g -g -fno-omit-frame-pointer
build fp_nog -fno-omit-frame-pointer
build nofp_g -g -fomit-frame-pointer
build nofp_nog -fomit-frame-pointer
build del -g -fno-omit-frame-pointer
# stripped, its symbols in a separate file found through .gnu_debuglink
build strip -g -fno-omit-frame-pointer
t_setup "stripped with a debug link" sh -c "objcopy --only-keep-debug '$T/strip' '$T/strip.debug' &&
	strip --strip-all '$T/strip' && objcopy --add-gnu-debuglink='$T/strip.debug' '$T/strip'"

RF() { "$RAWFRAG" "$@"; }

# per sample blocks of perf script / report output, perf's inline lines folded
cat >"$T/fold.py" <<'EOF'
import sys, re
def blocks(path):
    out, cur = [], []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line == "":
            if cur: out.append(cur); cur = []
            continue
        cur.append(line)
    if cur: out.append(cur)
    return out
def ip_of(l):
    return l.split()[0]
perf, ours = blocks(sys.argv[1]), blocks(sys.argv[2])
folded = 0
for i, b in enumerate(perf):
    # an ip's inline expansion is one run of lines; the same ip may come again
    # later (an interrupt taken where the chain already passed), so runs, not ips
    runs = []
    for l in b[1:]:
        ip = ip_of(l)
        if runs and runs[-1][0] == ip: runs[-1][1].append(l)
        else: runs.append((ip, [l]))
    inl = {ip for ip, ls in runs if all(l.endswith(" (inlined)") for l in ls)}
    folded += sum(1 for ip, ls in runs if ip in inl)
    pb = [b[0]]
    for ip, ls in runs:
        if all(l.endswith(" (inlined)") for l in ls): pb.append("INLINED " + ip)
        # a frame whose inline expansion ends in its own function: perf prints its
        # line once more without "(inlined)"; --no-inline prints it once
        else: pb.extend(dict.fromkeys(l for l in ls if not l.endswith(" (inlined)")))
    print("P", "\x1f".join(pb))
    if i < len(ours):
        ob = [ours[i][0]] + ["INLINED " + ip_of(l) if ip_of(l) in inl else l for l in ours[i][1:]]
        print("O", "\x1f".join(ob))
sys.stderr.write("%d %d %d\n" % (len(perf), len(ours), folded))
EOF

# same NAME PERF_OUT OUR_OUT: equal after folding perf's inline frames
same() {
	python3 "$T/fold.py" "$2" "$3" >"$T/fold.out" 2>"$T/fold.cnt"
	local np no nf
	read -r np no nf <"$T/fold.cnt"
	if [ "$np" = "$no" ] && [ "$np" -gt 0 ] &&
		diff <(grep '^P' "$T/fold.out" | cut -c3-) <(grep '^O' "$T/fold.out" | cut -c3-) >"$T/fold.diff"; then
		t_ok "$1 ($np samples, $nf inline-only frames folded)"
	else
		t_fail "$1" "perf $np samples, ours $no" "$(head -6 "$T/fold.diff" | tr '\037' '|')"
	fi
}

# cmp_script NAME FILE [OPTIONS]: perf script vs report, byte for byte
cmp_script() {
	local name=$1 f=$2; shift 2
	"$PERF" script -i "$f" "$@" >"$T/p.txt" 2>/dev/null
	RF report -i "$f" "$@" >"$T/o.txt" 2>"$T/o.err"
	local rc=$?
	if [ $rc = 0 ] && [ -s "$T/p.txt" ] && cmp -s "$T/p.txt" "$T/o.txt"; then
		t_ok "$name: equal to perf script ($(wc -l <"$T/p.txt") lines)"
	else
		t_fail "$name" "rc=$rc $(head -c 300 "$T/o.err")" "$(diff "$T/p.txt" "$T/o.txt" | head -8)"
	fi
}

# has NAME PATTERN: our output of the last cmp_script shows what is tested
has() {
	if grep -qE -- "$2" "$T/o.txt"; then t_ok "$1"; else t_fail "$1" "no '$2' in our output"; fi
}

rec_perf() { # file prog perf-record-options...
	local f=$1 p=$2; shift 2
	"$PERF" record -q -o "$T/$f" "$@" -- "$T/$p" >/dev/null 2>"$T/rec.err"
}

# ---- (a) frame-pointer chains, kernel and user frames ----
rec_perf fp_g.data fp_g -g -e cpu-clock -c 50000
cmp_script "perf -g, fp + debug info" "$T/fp_g.data"
has "kernel frames present" 'do_syscall_64\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)'
has "program frames present" ' top\+0x[0-9a-f]+ \('"$T"'/fp_g\)'
has "shared library frames present" ' lib_leaf\+0x[0-9a-f]+ \('"$T"'/libt35.so\)'
has "vdso frames present" '\(\[vdso\]\)'
cmp_script "perf -g, -F comm,tid,time,event,ip,sym,symoff,dso" "$T/fp_g.data" \
	-F comm,tid,time,event,ip,sym,symoff,dso
cmp_script "perf -g, -G (ip sym+off dso per sample)" "$T/fp_g.data" -G
cmp_script "perf -g, --show-task-events" "$T/fp_g.data" --show-task-events
has "task events shown" 'PERF_RECORD_COMM exec: fp_g:'
cmp_script "perf -g, --max-stack 3, -F ip,sym,dso --ns" "$T/fp_g.data" --max-stack 3 \
	-F comm,pid,tid,time,ip,sym,dso --ns

rec_perf fp_nog.data fp_nog -g -e cpu-clock -c 50000
cmp_script "perf -g, fp without debug info" "$T/fp_nog.data"

rec_perf strip.data strip -g -e cpu-clock -c 50000
cmp_script "perf -g, stripped binary + .gnu_debuglink" "$T/strip.data"
has "stripped binary's symbols from the debug file" ' top\+0x[0-9a-f]+ \('"$T"'/strip\)'

# every address, not the ones sampling happens to hit: one sample per byte of
# the programs' executable segments (where _init overlaps the .plt stubs, perf's
# answer depends on its symbol tree) and of system libraries' first 16 KiB
L=/usr/lib/x86_64-linux-gnu
if "$O/tests/sym-sweep" "$T/sweep.data" 0x100000 "$T/fp_nog" "$T/strip" "$T/libt35.so" \
	2>"$T/sweep.err"; then
	cmp_script "every address of the test programs (-F ip,sym,symoff,dso)" "$T/sweep.data" \
		-F ip,sym,symoff,dso
else
	t_fail "every address of the test programs" "$(cat "$T/sweep.err")"
fi
if "$O/tests/sym-sweep" "$T/sweep2.data" 0x4000 "$(readlink -f $L/libc.so.6)" \
	"$(readlink -f $L/ld-linux-x86-64.so.2)" "$(readlink -f "$(command -v bash)")" \
	"$(readlink -f $L/libelf.so.1)" 2>"$T/sweep.err"; then
	cmp_script "every address of libc, ld.so, bash, libelf's first 16 KiB" "$T/sweep2.data" \
		-F ip,sym,symoff,dso
else
	t_fail "every address of system libraries" "$(cat "$T/sweep.err")"
fi

rec_perf del.data del -g -e cpu-clock -c 50000
rm -f "$T/del"
cmp_script "perf -g, binary deleted before report (build-id cache)" "$T/del.data"
has "deleted binary's symbols" ' top\+0x[0-9a-f]+ \('"$T"'/del\)'

# tracepoint with call chains: perf adds ip/sym/dso to the tracepoint columns
if ensure_tracefs; then
	"$PERF" record -q -o "$T/tp.data" -g -e syscalls:sys_enter_getppid -- "$T/fp_g" >/dev/null 2>&1
	cmp_script "perf -g tracepoint (trace + chain)" "$T/tp.data"
else
	t_skip "perf -g tracepoint (trace + chain)" "no tracefs"
fi

# our record
"$RAWFRAG" record -q -g -e cpu-clock -c 50000 -o "$T/our.data" -- "$T/fp_g" >/dev/null 2>"$T/rec.err"
cmp_script "our record -g" "$T/our.data"
has "our record: user frames" ' top\+0x[0-9a-f]+ \('"$T"'/fp_g\)'

# ---- kernel build-id that does not match: kernel frames [unknown] as perf ----
python3 - "$T/fp_g.data" "$T/badbid.data" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
feat_off = struct.unpack_from("<Q", d, 40)[0] + struct.unpack_from("<Q", d, 48)[0]
bits = struct.unpack_from("<Q", d, 72)[0]
# feature sections follow the data, one {offset,size} per set bit, BUILD_ID is bit 2
assert bits & 4, "no BUILD_ID feature"
idx = bin(bits & 3).count("1")
off, size = struct.unpack_from("<QQ", d, feat_off + 16 * idx)
p, end = off, off + size
while p < end:
    esz = struct.unpack_from("<H", d, p + 6)[0]
    name = d[p + 36:p + esz].split(b"\0")[0]
    if name == b"[kernel.kallsyms]":
        d[p + 12] ^= 0xff
    p += esz
open(sys.argv[2], "wb").write(d)
EOF
cmp_script "kernel build-id mismatch" "$T/badbid.data"
has "mismatched kernel frames are [unknown] as in perf" '^\s+ffffffff[0-9a-f]+ \[unknown\] \(\[kernel\.kallsyms\]\)'
cmp_script "--kallsyms FILE despite the mismatch" "$T/badbid.data" --kallsyms /proc/kallsyms
# --symfs: DSOs under another root; perf then uses no local kernel symbols
mkdir -p "$T/sfs$T" && cp "$T/fp_g" "$T/libt35.so" "$T/sfs$T/"
cmp_script "--symfs DIR" "$T/fp_g.data" --symfs "$T/sfs"

# ---- (b) JSON: the same chain as the text, registers by name ----
RF report -i "$T/fp_g.data" -F ip,sym,symoff,dso >"$T/chain.txt" 2>/dev/null
RF report -i "$T/fp_g.data" --format json >"$T/chain.json" 2>"$T/json.err"
python3 - "$T/chain.json" >"$T/chain_json.txt" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    print()
    for f in o.get("callchain", []):
        s = "[unknown]" if f["sym"] is None else "%s+0x%x" % (f["sym"], f["symoff"])
        print("\t%16x %s (%s)" % (int(f["ip"], 16), s, f["dso"] or "[unknown]"))
EOF
if [ -s "$T/chain.txt" ] && diff <(grep -v '^$' "$T/chain.txt") <(grep -v '^$' "$T/chain_json.txt") >/dev/null; then
	t_ok "JSON callchain equal to the text chain ($(grep -c . "$T/chain.txt") frames)"
else
	t_fail "JSON callchain equal to the text chain" "$(diff <(grep -v '^$' "$T/chain.txt") <(grep -v '^$' "$T/chain_json.txt") | head -4)"
fi

# ---- (c) DWARF unwinding ----
for p in nofp_g nofp_nog fp_g; do
	rec_perf dw_$p.data $p --call-graph dwarf -e cpu-clock -c 100000
	cmp_script "perf --call-graph dwarf, $p" "$T/dw_$p.data"
done
has "inlined functions in the chains" ' \(inlined\)$'
cmp_script "perf --call-graph dwarf, -F comm,tid,time,event,ip,sym,symoff,dso" "$T/dw_nofp_g.data" \
	-F comm,tid,time,event,ip,sym,symoff,dso
# a shell that forks and execs: libunwind's cache lives per process until its
# exec, as perf's; --max-stack N keeps the ip and N-1 unwound callers (the
# kernel part counts on its own), and perf steps once more than it keeps
"$PERF" record -q -o "$T/dw_sh.data" --call-graph dwarf -e cpu-clock -c 100000 -- sh -c \
	"'$T/nofp_g' >/dev/null; for i in 1 2 3; do ls -R /usr/share/doc >/dev/null; done" >/dev/null 2>&1
cmp_script "perf --call-graph dwarf, a shell running programs" "$T/dw_sh.data"
for n in 1 2 3 4 5 6; do
	cmp_script "perf --call-graph dwarf, --max-stack $n" "$T/dw_sh.data" --max-stack $n
done
"$PERF" script -i "$T/dw_nofp_g.data" >"$T/p.txt" 2>/dev/null
RF report -i "$T/dw_nofp_g.data" --no-inline >"$T/o.txt" 2>"$T/o.err"
same "--no-inline: the chains without perf's inline frames" "$T/p.txt" "$T/o.txt"
has "DWARF chains through the frame-pointer-less program" \
	'^\s+[0-9a-f]+ mid\+0x[0-9a-f]+ \('"$T"'/nofp_g\)'
grep -A1 -E '^\s+[0-9a-f]+ mid\+0x' "$T/o.txt" | grep -qE ' top\+0x' &&
	t_ok "unwound from mid to its caller top without frame pointers" ||
	t_fail "unwound from mid to top" "$(grep -A1 ' mid+' "$T/o.txt" | head -4)"

# ---- (d) registers ----
rec_perf regs.data nofp_g --call-graph dwarf -I -e cpu-clock -c 200000
cmp_script "-F iregs,uregs" "$T/regs.data" -F iregs,uregs
has "registers present" 'ABI:2 +AX:0x'
RF report -i "$T/regs.data" --format json 2>/dev/null | python3 -c '
import json, sys
n = 0
for l in sys.stdin:
    o = json.loads(l); r = o.get("regs", {})
    assert "IP" in r["user"] and "SP" in r["intr"], o
    assert int(r["user"]["IP"], 16) > 0
    n += 1
print(n)' >"$T/nregs" 2>"$T/regs.err" && [ "$(cat "$T/nregs")" -gt 0 ] &&
	t_ok "JSON regs.user/regs.intr by name ($(cat "$T/nregs") samples)" ||
	t_fail "JSON regs by name" "$(tail -3 "$T/regs.err")"

# ---- hostile input ----
# stack copies cut short (dyn_size) and register masks that lie: chains end, no crash
python3 - "$T/dw_nofp_g.data" "$T/short.data" "$T/mask.data" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
attrs_off = struct.unpack_from("<Q", d, 24)[0]
data_off, data_size = struct.unpack_from("<QQ", d, 40)
st = struct.unpack_from("<Q", d, attrs_off + 24)[0]
rmask = struct.unpack_from("<Q", d, attrs_off + 80)[0]
def dyn_at(p):
    # the offset of STACK_USER's dyn_size in the sample at p (None: no stack)
    q = p + 8
    for bit in (16, 0, 1, 2, 3, 6, 9, 7, 8):  # IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
        if st >> bit & 1: q += 8
    assert not st & (1 << 4), "READ"
    if st & (1 << 5): q += 8 + 8 * struct.unpack_from("<Q", d, q)[0]      # CALLCHAIN
    if st & (1 << 10): q += 4 + struct.unpack_from("<I", d, q)[0]         # RAW
    assert not st & (1 << 11), "BRANCH_STACK"
    if st & (1 << 12):                                                    # REGS_USER
        abi = struct.unpack_from("<Q", d, q)[0]; q += 8
        if abi: q += 8 * bin(rmask).count("1")
    if st & (1 << 13):                                                    # STACK_USER
        size = struct.unpack_from("<Q", d, q)[0]; q += 8
        return q + size if size else None
    return None
p, n = data_off, 0
while p < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", d, p)
    if size == 0: break
    if typ == 9:
        q = dyn_at(p)
        if q is not None:
            struct.pack_into("<Q", d, q, 24)
            n += 1
    p += size
assert n > 0
open(sys.argv[2], "wb").write(d)
# the attr's sample_regs_user: as many registers, other ones
d = bytearray(open(sys.argv[1], "rb").read())
bits = [i for i in range(64) if rmask >> i & 1]
assert max(bits) < 24
struct.pack_into("<Q", d, attrs_off + 80, sum(1 << ((b + 1) % 24) for b in bits))
open(sys.argv[3], "wb").write(d)
EOF
t_run "dyn_size shorter than the unwinder needs: report ends cleanly" 0 RF report -i "$T/short.data"
full=$(RF report -i "$T/dw_nofp_g.data" | grep -c $'^\t')
short=$(grep -c $'^\t' "$T/out")
[ "$short" -lt "$full" ] && t_ok "short stack copies give shorter chains ($short < $full frames)" ||
	t_fail "short stack copies give shorter chains" "$short vs $full"
t_run "register mask that does not match the values: no crash" 0 RF report -i "$T/mask.data"
t_run "register mask that does not match: JSON too" 0 RF report -i "$T/mask.data" --format json

# truncated and mutated ELF files under the recorded path, no build-id cache to fall back on
build hostile -g -fomit-frame-pointer
"$PERF" record -q -N -B -o "$T/hostile.data" --call-graph dwarf -e cpu-clock -c 200000 -- "$T/hostile" >/dev/null 2>&1
cp "$T/hostile" "$T/hostile.orig"
sz=$(stat -c %s "$T/hostile.orig")
bad=0
for cut in 64 700 $((sz / 3)) $((sz / 2)) $((sz - 100)); do
	head -c "$cut" "$T/hostile.orig" >"$T/hostile"
	RF report -i "$T/hostile.data" >/dev/null 2>"$T/h.err" || { bad=1; echo "# truncated at $cut: $(head -c 300 "$T/h.err")"; }
done
for seed in 1 2 3 4 5 6 7 8; do
	python3 - "$T/hostile.orig" "$T/hostile" "$seed" <<'EOF'
import random, sys
d = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(int(sys.argv[3]))
for _ in range(40):
    # the ELF header, program and section headers and the tables they point at
    i = r.choice([r.randrange(0, 64), r.randrange(64, 1024), r.randrange(len(d) - 4096, len(d)),
                  r.randrange(0, len(d))])
    d[i] = r.randrange(256)
open(sys.argv[2], "wb").write(d)
EOF
	RF report -i "$T/hostile.data" >/dev/null 2>"$T/h.err" || { bad=1; echo "# mutation $seed: $(head -c 300 "$T/h.err")"; }
done
[ $bad = 0 ] && t_ok "truncated and mutated ELF files: report completes, no sanitizer error" ||
	t_fail "truncated and mutated ELF files" "see above"
