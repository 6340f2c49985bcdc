#!/usr/bin/env bash
# Files a recording makes report open, planted by someone else: executable
# anonymous memory sends report to /tmp/perf-PID.map (the pid from the file).
# A FIFO there (open blocks), a symlink to /dev/zero (endless read), a 10 GB
# sparse file and a directory each end report (timeout 5) within a second of
# its time without a map (~0.3 s here), with one warning naming the file and
# the reason, and the output and exit status of a missing map. The same for the kernel's kallsyms in the build-id cache (a
# FIFO would block) and a build-id cache copy of a DSO; text, JSON and the
# Python module.
source "$(dirname "$0")/lib.sh"
t_plan 10
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
command -v gcc >/dev/null || t_skip_rest "no gcc"
[ "$(uname -m)" = x86_64 ] || t_skip_rest "the JIT-compiled loop is x86_64 code"
is_root || t_skip_rest "needs root to sample the kernel and to write /tmp/perf-PID.map"

export HOME=$T/home
mkdir -p "$HOME"

cat >jit.c <<'EOF'
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* loop: dec %rdi; jnz loop; ret */
static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };

int main(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fn)(long) = (long (*)(long))p;

	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	for (int i = 0; i < 20; i++)
		fn(20000000);
	/*
	 * samples in the program's own file too: perf record caches only the
	 * DSOs samples hit, and the cache copy case below needs one
	 */
	for (volatile long i = 0; i < 200000000; i++)
		;
	/* and in the kernel: perf record writes the kernel's build-id only when a sample hit it */
	for (int i = 0; i < 300000; i++)
		getppid();
	return 0;
}
EOF
t_setup "a program running code from anonymous executable memory" gcc -O2 -o jit jit.c
# kernel samples too: kallsyms is read
t_setup "perf record" $PERF record -q -e cpu-clock -c 200000 -o jit.data -- ./jit
PID=$($PERF script -i jit.data -F comm,pid 2>/dev/null | awk '$1 == "jit" { print $2; exit }')
[ -n "$PID" ] || t_skip_rest "no sample of the program"
MAP=/tmp/perf-$PID.map
[ -e "$MAP" ] || [ -L "$MAP" ] && t_skip_rest "$MAP exists already: not ours to replace"
if [ "${KEEP:-0}" = 1 ]; then trap 'rm -rf "$MAP"' EXIT; else trap 'rm -rf "$MAP" "$T"' EXIT; fi

# timed CMD...: runs CMD under timeout 5; $rc, $ms, output in out.txt, err.txt.
# A hang ends at the timeout (exit 124); a refusal must add under a second to
# report's own time without a map ($lim), which a loaded machine stretches
timed() {
	local s
	s=$(date +%s%N)
	timeout 5 "$@" >out.txt 2>err.txt
	rc=$?
	ms=$((($(date +%s%N) - s) / 1000000))
}

timed "$RAWFRAG" report -i jit.data
base_rc=$rc base_ms=$ms lim=$((ms + 1000))
cp out.txt base.txt
n=$(grep -c "\[unknown\] ($MAP)" base.txt)
[ "$rc" = 0 ] && [ "$n" -gt 0 ] &&
	t_ok "no $MAP: exit $rc, $n samples in it [unknown] (${ms} ms; the cases below: under $lim ms)" ||
	t_fail "no $MAP" "exit $rc, $n samples in the map" "$(head -c 300 err.txt)"

ADDR=$(grep -m1 -oE "[0-9a-f]+ \[unknown\] \(/tmp/perf-$PID\.map\)" base.txt | cut -d' ' -f1)
printf '%x 10 jitted_loop\n' $((0x$ADDR & ~0xfff)) >"$MAP"
timed "$RAWFRAG" report -i jit.data
rm -f "$MAP"
grep -q "jitted_loop+0x[0-9a-f]* ($MAP)" out.txt && [ "$rc" = 0 ] &&
	t_ok "a regular $MAP is read: its symbol shows" ||
	t_fail "a regular $MAP is read" "exit $rc" "$(grep -m2 perf- out.txt)"

# planted NAME REASON: report with the map planted as NAME
planted() {
	local name=$1 why=$2 nw
	timed "$RAWFRAG" report -i jit.data
	rm -rf "$MAP"
	nw=$(grep -cF "rawfrag: $MAP: $why, not read" err.txt)
	if [ "$rc" = "$base_rc" ] && [ "$ms" -lt "$lim" ] && [ "$nw" = 1 ] && cmp -s base.txt out.txt; then
		t_ok "$name: ${ms} ms, one warning, exit $rc and output as without a map"
	else
		t_fail "$name" "exit $rc (want $base_rc) in $ms ms (without a map: $base_ms ms, limit $lim), $nw warnings" \
			"$(head -c 400 err.txt)" "$(diff base.txt out.txt | head -4)"
	fi
}
mkfifo "$MAP"
planted "$MAP a FIFO" "a FIFO"
ln -s /dev/zero "$MAP"
planted "$MAP a symlink to /dev/zero" "a character device"
truncate -s 10G "$MAP"
planted "$MAP a 10 GB sparse file" "10737418240 bytes, more than the 64 MiB cap"
mkdir "$MAP"
planted "$MAP a directory" "a directory"

# JSON and the Python module read through the same library
mkfifo "$MAP"
timed "$RAWFRAG" report -i jit.data --format json
nw=$(grep -cF "rawfrag: $MAP: a FIFO, not read" err.txt)
nj=$(grep -c "\"dso\":\"$MAP\"" out.txt)
[ "$rc" = 0 ] && [ "$ms" -lt "$lim" ] && [ "$nw" = 1 ] && [ "$nj" -gt 0 ] &&
	t_ok "--format json, $MAP a FIFO: ${ms} ms, one warning, $nj samples in the map" ||
	t_fail "--format json, $MAP a FIFO" "exit $rc in $ms ms, $nw warnings, $nj samples" "$(head -c 300 err.txt)"
if ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	PYTHONPATH=$O/python timed $PY -c '
import sys, rawfrag
n = sum(1 for s in rawfrag.open(sys.argv[1]) if s.dso == sys.argv[2] and s.sym is None)
print(n)' jit.data "$MAP"
	n=$(cat out.txt)
	[ "$rc" = 0 ] && [ "$ms" -lt "$lim" ] && [ "${n:-0}" -gt 0 ] &&
		t_ok "Python module, $MAP a FIFO: ${ms} ms, $n samples in the map unresolved" ||
		t_fail "Python module, $MAP a FIFO" "exit $rc in $ms ms: $(head -c 300 out.txt)" "$(head -c 300 err.txt)"
else
	t_skip "Python module, $MAP a FIFO" "the module is not built"
fi
rm -f "$MAP"

# ---- the build-id cache: kallsyms of another kernel, a DSO's copy ----
# the recorded kernel build-id changed: report looks for that kernel's kallsyms
# in the cache, where a FIFO waits
python3 - jit.data other.data >hex.txt <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
feat_off = struct.unpack_from("<Q", d, 40)[0] + struct.unpack_from("<Q", d, 48)[0]
bits = struct.unpack_from("<Q", d, 72)[0]
assert bits & 4, "no BUILD_ID feature"
off, size = struct.unpack_from("<QQ", d, feat_off + 16 * bin(bits & 3).count("1"))
p = off
while p < off + size:
    misc, esz = struct.unpack_from("<HH", d, p + 4)
    name = d[p + 36:p + esz].split(b"\0")[0]
    if name == b"[kernel.kallsyms]":
        d[p + 12] ^= 0xff
        n = d[p + 32] if misc & 2 and d[p + 32] <= 20 else 20
        print(d[p + 12:p + 12 + n].hex())
    p += esz
open(sys.argv[2], "wb").write(d)
EOF
HEX=$(cat hex.txt)
KS="$HOME/.debug/[kernel.kallsyms]/$HEX/kallsyms"
if [ -n "$HEX" ] && mkdir -p "$(dirname "$KS")" && mkfifo "$KS"; then
	timed "$RAWFRAG" report -i other.data
	nw=$(grep -cF "rawfrag: $KS: a FIFO, not read" err.txt)
	[ "$rc" = 0 ] && [ "$ms" -lt "$lim" ] && [ "$nw" = 1 ] && grep -q '\[unknown\] (\[kernel\.kallsyms\])' out.txt &&
		t_ok "cached kallsyms a FIFO: ${ms} ms, one warning, kernel samples [unknown]" ||
		t_fail "cached kallsyms a FIFO" "exit $rc in $ms ms, $nw warnings" "$(head -c 400 err.txt)"
else
	t_fail "cached kallsyms a FIFO" "no kernel build-id in the recording: $(cat hex.txt)"
fi

# a DSO's copy in the build-id cache (one with samples: perf record keeps
# those) turned into a FIFO: warned, then the file itself gives the same symbols
ELF=
for l in "$HOME"/.debug/.build-id/*/*; do
	[ -f "$l/elf" ] || continue
	# the program's own file first: it has samples, so report reads it
	case $(readlink -f "$l/elf") in */jit/*) ELF=$l/elf; break ;; esac
	[ -n "$ELF" ] || ELF=$l/elf
done
if [ -n "$ELF" ]; then
	copy=$(readlink -f "$ELF")
	rm -f "$copy" && mkfifo "$copy"
	timed "$RAWFRAG" report -i jit.data
	nw=$(grep -cF "rawfrag: $ELF: a FIFO, not read" err.txt)
	[ "$rc" = 0 ] && [ "$ms" -lt "$lim" ] && [ "$nw" = 1 ] && cmp -s base.txt out.txt &&
		t_ok "build-id cache copy of a DSO a FIFO: ${ms} ms, one warning, symbols from the file" ||
		t_fail "build-id cache copy of a DSO a FIFO" "exit $rc in $ms ms, $nw warnings" \
			"$(head -c 400 err.txt)" "$(diff base.txt out.txt | head -4)"
else
	t_fail "build-id cache copy of a DSO a FIFO" "perf record cached no DSO under $HOME/.debug"
fi
