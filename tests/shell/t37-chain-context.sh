#!/usr/bin/env bash
# Each frame resolved in the address space of its chain's context, as perf
# script does: a kernel-range address in the user part of a chain (stale
# frame-pointer data on a user stack) is looked up in the process's maps only
# and prints "[unknown] ([unknown])", never a kernel symbol; a sample's own ip
# takes the cpumode of its header. A program built here points rbp at a fake
# frame whose return address is a kernel one before each getppid, so the
# kernel's user-stack walk reports it as a caller. Text, JSON, the Python
# module, the Python hook and the dlfilter frames are compared with perf
# script on a small recording, then the text on every line of a system-wide
# -g recording of sched_switch + raw_syscalls:sys_enter under that program
# and ls -R, CHAIN_MB megabytes of it (default 150; perf record --max-size).
source "$(dirname "$0")/lib.sh"
t_plan 11
MB=${CHAIN_MB:-150}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "needs root for system-wide kernel call chains"
command -v gcc >/dev/null || t_skip_rest "no gcc"
[ "$(uname -m)" = x86_64 ] || t_skip_rest "the fake frame is x86_64 assembly"
ensure_tracefs || t_skip_rest "no tracefs"
case $MB in '' | *[!0-9]*) t_skip_rest "CHAIN_MB=$MB is not a number of megabytes" ;; esac

# perf record fills a private build-id cache; both readers use it
export HOME=$T/home
mkdir -p "$HOME"

cat >garb.c <<'EOF'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* getppid with rbp at frame = {next frame, return address} */
__attribute__((noinline)) static long call_with_frame(uint64_t *frame)
{
	long ret;

	/* rbp kept in r12, not pushed: the red zone stays intact */
	__asm__ volatile("mov %%rbp, %%r12\n\t"
			 "mov %1, %%rbp\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rbp"
			 : "=a"(ret)
			 : "r"(frame), "0"((long)SYS_getppid)
			 : "rcx", "r11", "r12", "memory");
	return ret;
}

/* garb N ADDR...: N getppid calls, the fake return addresses in turn; garb spin: user time */
int main(int argc, char **argv)
{
	long s = 0;

	if (argc > 1 && !strcmp(argv[1], "spin")) {
		for (volatile long i = 0; i < 200000000; i++)
			s += i;
		return s == 0;
	}
	for (int i = 0, n = argc > 2 ? atoi(argv[1]) : 0; i < n; i++) {
		volatile uint64_t frame[2] = { 0, strtoull(argv[2 + i % (argc - 2)], NULL, 16) };

		s += call_with_frame((uint64_t *)frame);
	}
	return s == 0;
}
EOF
t_setup "program with fake frames (-O2 -fomit-frame-pointer)" gcc -O2 -fomit-frame-pointer -o garb garb.c

# fake return addresses: a kernel function that is also in the chain's kernel
# part, one inside another, a module's text (or where modules go), and the
# direct map (kernel range, below the kernel's text)
ksym() { awk -v n="$1" '$3 == n && NF == 3 { print $1; exit }' /proc/kallsyms; }
K1=$(ksym do_syscall_64)
K2=$(ksym schedule)
[ -n "$K1" ] && [ -n "$K2" ] && [ "$K1" != 0000000000000000 ] ||
	t_skip_rest "no kernel addresses in /proc/kallsyms"
K2=$(printf '%x' $((0x$K2 + 0x10)))
K3=$(awk 'NF == 4 && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms)
K3=${K3:-ffffffffc0000000}
ADDRS="$K1 $K2 $K3 ffff888000001000"

F=comm,tid,time,event,ip,sym,symoff,dso
# frame lines of perf script -F ip,sym,symoff,dso without their indentation
frame_lines() { sed 's/^[[:space:]]*//' "$1" | grep -v '^$'; }
# the user-context kernel-range frames perf leaves unresolved
unk() { grep -cE '^[[:space:]]+ffff[0-9a-f]{12} \[unknown\] \(\[unknown\]\)$' "$1"; }

# cmp_script NAME FILE [OPTIONS]: perf script vs report, byte for byte
cmp_script() {
	local name=$1 f=$2; shift 2
	"$PERF" script -i "$f" "$@" >p.txt 2>/dev/null
	"$RAWFRAG" report -i "$f" "$@" >o.txt 2>o.err
	local rc=$?
	if [ $rc = 0 ] && [ -s p.txt ] && cmp -s p.txt o.txt; then
		t_ok "$name: equal to perf script ($(wc -l <p.txt) lines, $(unk p.txt) unresolved kernel-range user frames)"
	else
		t_fail "$name" "rc=$rc $(head -c 300 o.err)" "$(diff p.txt o.txt | head -8)"
	fi
}

# perf script's frame lines from report's JSON or the Python module's Samples
cat >lines.py <<'EOF'
import json, sys
def h(v):
    return int(v, 16) if isinstance(v, str) else v
def line(ip, sym, off, dso):
    s = "[unknown]" if sym is None else "%s+0x%x" % (sym, off)
    return "%x %s (%s)" % (h(ip), s, dso or "[unknown]")
def emit(o):
    cc = o["callchain"]
    if cc is None:
        print(line(o["ip"], o["sym"], o["symoff"], o["dso"]))
    for f in cc or []:
        print(line(f["ip"], f["sym"], f["symoff"], f["dso"]))
keys = ("ip", "sym", "symoff", "dso", "callchain")
if sys.argv[1] == "json":
    for l in open(sys.argv[2]):
        o = json.loads(l)
        emit({k: o.get(k) for k in keys})
else:
    import rawfrag
    with rawfrag.open(sys.argv[2]) as r:
        for s in r:
            emit({k: getattr(s, k) for k in keys})
EOF
# same_lines NAME PERF_LINES OUR_LINES
same_lines() {
	if [ -s "$2" ] && diff "$2" "$3" >d.txt; then
		t_ok "$1 ($(wc -l <"$2") frame lines)"
	else
		t_fail "$1" "$(wc -l <"$2") lines from perf, $(wc -l <"$3") ours" "$(head -6 d.txt)"
	fi
}

# ---- a small recording: every reader against perf script ----
t_setup "perf record -g of the fake frames" $PERF record -q -g -e raw_syscalls:sys_enter \
	-e sched:sched_switch -o small.data -- ./garb 400 $ADDRS
cmp_script "-F $F" small.data -F $F
n=$(unk p.txt)
[ "$n" -ge 100 ] && t_ok "perf shows the fake frames unresolved ($n, e.g. $K1 in the user part)" ||
	t_fail "perf shows the fake frames unresolved" "only $n lines: the fake frame did not reach the chain"
cmp_script "default fields" small.data

"$PERF" script -i small.data -F ip,sym,symoff,dso 2>/dev/null >pf.txt
frame_lines pf.txt >pf.lines
"$RAWFRAG" report -i small.data --format json >small.json 2>/dev/null
$PY lines.py json small.json >oj.lines 2>&1
same_lines "JSON ip and callchain equal perf script" pf.lines oj.lines
if ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	PYTHONPATH=$O/python $PY lines.py py small.data >op.lines 2>&1
	same_lines "Python Sample.callchain equal perf script" pf.lines op.lines
else
	t_skip "Python Sample.callchain equal perf script" "the module is not built"
fi

# the dlfilter's and the Python hook's frames (what perf hands them) against report
cat >frames.py <<'EOF'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
want = [json.loads(l) for l in open(sys.argv[2])]
def view(o):
    return [o.get(k) for k in ("ip", "sym", "symoff", "dso")] + \
        [[f.get(k) for k in ("ip", "sym", "symoff", "dso")] for f in o.get("callchain", [])]
eq = sum(1 for g, w in zip(got, want) if view(g) == view(w))
print("samples=%d report=%d equal=%d" % (len(got), len(want), eq))
for g, w in zip(got, want):
    if view(g) != view(w):
        print("# ours  ", json.dumps(view(g))[:600])
        print("# report", json.dumps(view(w))[:600])
        break
EOF
n=$(wc -l <small.json)
SO=$O/plugins/rawfrag-dlfilter.so
if [ -f "$SO" ]; then
	"$PERF" script -i small.data --dlfilter "$SO" --dlarg frames 2>/dev/null |
		sed -n 's/^  rawfrag frames: //p' >dl.json
	$PY frames.py dl.json small.json >cmp.txt 2>&1
	t_grep "dlfilter frames equal report's on every sample" "^samples=$n report=$n equal=$n$" cmp.txt
else
	t_skip "dlfilter frames equal report's on every sample" "the dlfilter is not built"
fi
PYTHONPATH=$O/python "$PERF" script -i small.data -s "$TOP/plugins/python/rawfrag.py" \
	>hook.json 2>hook.err
$PY frames.py hook.json small.json >cmp.txt 2>&1
t_grep "Python hook frames equal report's on every sample" "^samples=$n report=$n equal=$n$" cmp.txt

# ---- a sample's own ip: user cpumode, kernel-range address ----
t_setup "perf record of user time" $PERF record -q -e cpu-clock:u -c 100000 -o ip.data -- ./garb spin
cat >patch.py <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
addrs = [int(a, 16) for a in sys.argv[3:]] + [None]
attrs_off = struct.unpack_from("<Q", d, 24)[0]
data_off, data_size = struct.unpack_from("<QQ", d, 40)
st = struct.unpack_from("<Q", d, attrs_off + 24)[0]
assert st & 1, "no PERF_SAMPLE_IP"
at = 16 if st & (1 << 16) else 8  # after the header, past an IDENTIFIER
p, n = data_off, 0
while p < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", d, p)
    if size == 0:
        break
    if typ == 9 and misc & 7 == 2:  # a user-mode sample
        a = addrs[n % len(addrs)]
        if a is not None:
            struct.pack_into("<Q", d, p + at, a)
        n += 1
    p += size
open(sys.argv[2], "wb").write(d)
print(n)
EOF
n=$($PY patch.py ip.data ipk.data $ADDRS 2>&1)
case $n in '' | *[!0-9]*) n=0 ;; esac
[ "$n" -ge 5 ] || echo "# only $n user samples to patch: $(head -c 300 ip.data.err 2>/dev/null)"
cmp_script "user-mode samples at kernel-range ips ($n samples): -F $F" ipk.data -F $F
"$PERF" script -i ipk.data -F ip,sym,symoff,dso 2>/dev/null >pf.txt
frame_lines pf.txt >pf.lines
"$RAWFRAG" report -i ipk.data --format json >ipk.json 2>/dev/null
$PY lines.py json ipk.json >oj.lines 2>&1
if [ "$(unk pf.txt)" -gt 0 ] || grep -q 'ffff[0-9a-f]* \[unknown\]' pf.lines; then
	same_lines "user-mode samples at kernel-range ips: JSON equal perf script" pf.lines oj.lines
else
	t_fail "user-mode samples at kernel-range ips: JSON" "perf resolved no patched ip to [unknown]"
fi

# ---- system-wide, CHAIN_MB megabytes ----
# the fake frames first in each round: ls -R alone fills the file
start=$(date +%s)
# perf stops at the size and ends the workload (SIGTERM, which bash would report)
(timeout 120 "$PERF" record -q --max-size=${MB}M -g -a -e sched:sched_switch \
	-e raw_syscalls:sys_enter -o big.data -- sh -c \
	"while :; do ./garb 300 $ADDRS; ls -R /usr >/dev/null 2>&1; done" >/dev/null 2>rec.err
	true) 2>/dev/null
got=$(($(stat -c %s big.data 2>/dev/null || echo 0) / 1048576))
echo "# system-wide recording: $got MB (CHAIN_MB=$MB) in $(($(date +%s) - start)) s"
[ "$got" -ge $((MB * 9 / 10)) ] && t_ok "system-wide -g recording of $got MB (CHAIN_MB=$MB)" ||
	t_fail "system-wide -g recording of CHAIN_MB=$MB MB" "got $got MB" "$(tail -3 rec.err)"
start=$(date +%s)
cmp_script "$got MB system-wide -g file, every line of -F $F" big.data -F $F
echo "# compared in $(($(date +%s) - start)) s (KEEP=1 keeps big.data in $T)"
rm -f p.txt o.txt
