#!/usr/bin/env bash
# Kernel call-chain entries at the edges of the kernel's image, as a stale frame
# pointer leaves them: _text itself, _etext and past it, rodata, init text, past
# the last kernel symbol, below _text. The addresses are planted into the kernel
# part of real -g chains (a file of perf record's and one of ours) and every line
# of report -F ip,sym,dso must be perf script's.
source "$(dirname "$0")/lib.sh"
t_plan 6

command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "needs root for kernel call chains"
[ -r /proc/kallsyms ] || t_skip_rest "no /proc/kallsyms"

ksym() { awk -v n="$1" '$3 == n { print $1; exit }' /proc/kallsyms; }
KTEXT=$(ksym _text) KETEXT=$(ksym _etext) KRO=$(ksym __start_rodata)
KSINIT=$(ksym _sinittext) KEINIT=$(ksym _einittext)
[ -n "$KTEXT" ] && [ -n "$KETEXT" ] && [ -n "$KSINIT" ] && [ -n "$KEINIT" ] ||
	t_skip_rest "kallsyms lacks _text, _etext, _sinittext or _einittext"
hex() { printf '%x' "$(( $1 ))"; }
ADDRS="$KTEXT $(hex 0x$KTEXT - 0x10000) $KETEXT $(hex 0x$KETEXT + 0x10)
	${KRO:+$(hex 0x$KRO + 0x40) $(hex 0x$KRO + 0x100000)} $KSINIT $(hex 0x$KEINIT + 0x10)
	$(hex 0x$KEINIT + 0x1000000) $(hex 0x$KEINIT + 0x3000000)"
nr=$(echo $ADDRS | wc -w)

# plant ADDRS, one per sample, as the second kernel entry of the first chains
# that have two kernel entries (after PERF_CONTEXT_KERNEL)
cat >plant.py <<'EOF'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
addrs = [int(a, 16) for a in sys.argv[3:]]
b = bytearray(open(src, 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
end, i, KCTX = off + size, 0, 0xffffffffffffff80
while off + 8 <= end and i < len(addrs):
    typ, misc, rsize = struct.unpack_from('<IHH', b, off)
    if rsize < 8:
        break
    if typ == 9:
        for p in range(off + 8, off + rsize - 24, 8):
            if struct.unpack_from('<Q', b, p)[0] == KCTX:
                a, c = struct.unpack_from('<QQ', b, p + 8)
                if 0xffff800000000000 <= a < KCTX and 0xffff800000000000 <= c < KCTX:
                    struct.pack_into('<Q', b, p + 16, addrs[i])
                    i += 1
                break
    off += rsize
open(dst, 'wb').write(b)
print(i)
EOF

check() { # NAME TAG FILE: TAG.perf, TAG.ours
	local n
	n=$(python3 plant.py "$3" "$3.edges" $ADDRS)
	if [ "$n" != "$nr" ]; then
		t_fail "$1: $nr addresses planted" "planted $n (too few chains with two kernel entries)"
		t_fail "$1: every line as perf script's" "not compared"
		return
	fi
	t_ok "$1: $nr addresses planted"
	"$PERF" script -i "$3.edges" -F ip,sym,dso 2>/dev/null >"$2.perf"
	"$RAWFRAG" report -i "$3.edges" -F ip,sym,dso >"$2.ours" 2>"$2.err"
	if [ -s "$2.perf" ] && cmp -s "$2.perf" "$2.ours"; then
		t_ok "$1: every line as perf script's ($(wc -l <"$2.perf") lines)"
	else
		t_fail "$1: every line as perf script's" "$(diff "$2.perf" "$2.ours" | head -8)" \
			"$(head -3 "$2.err")"
	fi
}

WORK='ls -R /usr/share >/dev/null 2>&1; ls -R /usr/lib >/dev/null 2>&1'
t_setup "perf record -g" "$PERF" record -q -g -e cpu-clock -F 999 -o p.data -- sh -c "$WORK"
check "perf record's file" p p.data
t_setup "perf rawfrag record -g" "$RAWFRAG" record -g -e cpu-clock -F 999 -o o.data -- sh -c "$WORK"
check "our record's file" o o.data
# the planted entries are in the chains compared: a line each on perf's side
got=0
for a in $ADDRS; do grep -q "^[[:space:]]*$a " p.perf && got=$((got + 1)); done
t_eq "each planted address is a line of perf's chains" "$nr" "$got"
grep -q "^[[:space:]]*$KTEXT " o.ours
t_eq "... and _text one of ours" 0 "$?"
