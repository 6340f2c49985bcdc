#!/usr/bin/env bash
# A pipe's PERF_RECORD_HEADER_BUILD_ID records are its build-id table, as in
# perf: perf record -o - writes none (perf 6.1 collects build-ids only at the
# end of a file), perf inject -b adds them to the stream. A program deleted
# after recording, whose copy is in the build-id cache, is then found by its
# build-id: report's chains equal perf script's on the injected stream (symbols
# of the deleted program), and on the stream without the records both show
# [unknown] for it.
source "$(dirname "$0")/lib.sh"
t_plan 5

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "kernel call chains need root"
command -v gcc >/dev/null || t_skip_rest "no gcc"

# perf and we share a private build-id cache
export HOME=$T/home
mkdir -p "$HOME"
cat >prog.c <<'EOF'
#include <unistd.h>
volatile long sink;
__attribute__((noinline)) static long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) sink = s += i * i % 7; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
int main(void) { long t = 0; for (int i = 0; i < 300; i++) { t += mid(100000); getppid(); } return t == 1; }
EOF
t_setup "test program" gcc -O1 -g -fno-omit-frame-pointer -o gone prog.c
t_setup "perf record -g into a pipe" sh -c "$PERF record -q -g -e cpu-clock -c 100000 -o - ./gone >raw.data"
t_setup "perf inject -b" sh -c "$PERF inject -b -o - <raw.data >inj.data"
t_setup "the program into the build-id cache" $PERF buildid-cache -a gone
rm -f gone

"$RAWFRAG" report --stats -i - <inj.data >stats.txt 2>&1
t_grep "the injected stream holds HEADER_BUILD_ID records (report --stats counts them)" \
	'BUILD_ID events: +[1-9]' stats.txt
F=comm,tid,time,event,ip,sym,symoff,dso
for s in raw inj; do
	$PERF script -F $F -i - <$s.data >$s.perf 2>/dev/null
	"$RAWFRAG" report -F $F -i - <$s.data >$s.ours 2>$s.err
done
n=$(grep -cE '	 +[0-9a-f]+ (mid|leaf)\+0x[0-9a-f]+ \(.*/gone\)' inj.ours)
if [ "$n" -gt 0 ] && cmp -s inj.perf inj.ours; then
	t_ok "inject -b pipe: the deleted program's $n frames symbolized from the cache, all lines equal perf script"
else
	t_fail "inject -b pipe equals perf script, deleted program symbolized" "frames=$n" \
		"$(diff inj.perf inj.ours | head -c 600)" "$(head -c 200 inj.err)"
fi
n=$(grep -c ' \[unknown\] (.*/gone)' raw.ours)
if [ "$n" -gt 0 ] && ! grep -qE ' (mid|leaf)\+0x' raw.ours && cmp -s raw.perf raw.ours; then
	t_ok "without the records: its $n frames [unknown], as perf script shows them"
else
	t_fail "without build-id records: [unknown] as perf" "unknown=$n" \
		"$(diff raw.perf raw.ours | head -c 600)"
fi
# the Python module and the JSON see the same
PYTHONPATH=$O/python python3 -c 'import json, sys, rawfrag
want = [json.loads(l) for l in open(sys.argv[1])]
got = [s.to_dict() for s in rawfrag.open(sys.stdin.buffer)]
print("equal=%s syms=%d" % (got == want, sum(1 for w in want for f in w.get("callchain", [])
                                              if f["sym"] in ("mid", "leaf"))))' \
	<(HOME=$HOME "$RAWFRAG" report --format json -i - <inj.data) <inj.data >py.txt 2>&1
t_grep "rawfrag.open() of the injected pipe equals report's JSON, with the program's symbols" \
	'^equal=True syms=[1-9]' py.txt
# a truncated HEADER_BUILD_ID record (the stream cut inside it) is an error, not a crash
off=$(python3 - inj.data <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 16  # the pipe header
while off + 8 <= len(d):
    t, m, sz = struct.unpack_from("<IHH", d, off)
    if t == 67:
        print(off + sz // 2); break
    off += sz
EOF
)
head -c "${off:-0}" inj.data >cut.data
"$RAWFRAG" report -i - <cut.data >/dev/null 2>cut.err
rc=$?
[ -n "$off" ] && [ $rc -eq 2 ] && grep -q "offset" cut.err &&
	t_ok "a stream cut inside a HEADER_BUILD_ID record: exit 2 with the offset" ||
	t_fail "cut HEADER_BUILD_ID record" "off=$off rc=$rc $(head -c 300 cut.err)"
