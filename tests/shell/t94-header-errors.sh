#!/usr/bin/env bash
# Errors in a file's header (file header, attrs, feature table and sections, the
# data section's framing) have the documented form of every exit-2 error,
# 'perf rawfrag CMD: FILE: offset 0x..: TYPE: reason', with the part of the
# header standing where a record error names its record type: HEADER, ATTR,
# perf's feature name (HEADER_TRACING_DATA, ...) or DATA. Each mutant of a real
# recording goes through check and every report mode; the offset printed is the
# one of the field the mutant broke.
source "$(dirname "$0")/lib.sh"
modes=("check" "report" "report --format json" "report --format pcapng" "report --stats")
t_plan 12
is_root && ensure_tracefs && command -v "$PERF" >/dev/null ||
	t_skip_rest "needs root, tracefs and perf to record the file the mutants come from"
"$PERF" record -q -e sched:sched_switch -a -o rec.data -- sleep 0.1 >/dev/null 2>&1
[ -s rec.data ] || { t_fail "set-up: perf record wrote rec.data"; exit 1; }

# the header's fields, as perf wrote them (little-endian host)
read -r attr_size attrs_off data_off data_size bits < <(python3 - rec.data <<'EOF'
import struct, sys
h = open(sys.argv[1], 'rb').read(104)
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<5Q', h, 16)
bits = int.from_bytes(h[72:104], 'little')
print(attr_size, attrs_off, data_off, data_size, bits)
EOF
)
table=$((data_off + data_size))
first_feat=$(python3 -c "b=$bits; print(next(i for i in range(1, 256) if b >> i & 1))")
names=(RESERVED TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID)
[ "$first_feat" -lt ${#names[@]} ] || { t_fail "set-up: first feature bit known ($first_feat)"; exit 1; }

# mutant NAME OFFSET U64 [TRUNCATE]: rec.data with the u64 at OFFSET replaced
mutant() {
	python3 - rec.data "$1" "$2" "$3" "${4:-}" <<'EOF'
import struct, sys
src, name, off, val, trunc = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
if int(off) >= 0:
	struct.pack_into('<Q', b, int(off), int(val))
if trunc:
	b = b[:int(trunc)]
open(name, 'wb').write(b)
EOF
}

# expect NAME FILE OFFSET TYPE: every mode exits 2 with the form, the offset and the type
expect() {
	local name=$1 f=$2 off=$3 type=$4 bad=() m args
	for m in "${modes[@]}"; do
		case $m in
		check) args=(check "$f") ;;
		*pcapng*) args=($m -o out.pcapng -i "$f") ;;
		*) args=($m -i "$f") ;;
		esac
		"$RAWFRAG" "${args[@]}" >/dev/null 2>err; rc=$?
		local cmd=${m%% *}
		if [ "$rc" != 2 ]; then
			bad+=("$m: exit $rc")
		elif ! grep -qE "^perf rawfrag $cmd: $f: offset $(printf '0x%x' "$off"): $type: [^ ]" err; then
			bad+=("$m: $(head -c 200 err | tr '\n' '|')")
		fi
	done
	if [ ${#bad[@]} = 0 ]; then t_ok "$name: 'offset $(printf '0x%x' "$off"): $type: ...' in every mode"
	else t_fail "$name: 'perf rawfrag CMD: $f: offset $(printf '0x%x' "$off"): $type: reason' in every mode" "${bad[@]}"; fi
}

mutant magic.data 0 0
expect "bad magic" magic.data 0 HEADER
mutant hsize.data 8 100
expect "header size 100" hsize.data 8 HEADER
mutant asize.data 16 0
expect "attr size 0" asize.data 16 HEADER
mutant attrs.data 32 $((1 << 40))
expect "attrs section past the end" attrs.data 24 HEADER
# attr.size (u32 at offset 4 of the attr) below PERF_ATTR_SIZE_VER0, with config kept
python3 - rec.data attrsz.data "$attrs_off" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', b, int(sys.argv[3]) + 4, 32)
open(sys.argv[2], 'wb').write(b)
EOF
expect "attr.size 32" attrsz.data "$attrs_off" ATTR
# the first attr's ids section: {offset, size} after its attr.size bytes
mutant ids.data $((attrs_off + attr_size - 16)) $((1 << 40))
expect "ids section past the end" ids.data $((attrs_off + attr_size - 16)) ATTR
mutant ftab.data -1 0 $((table + 4))
expect "feature table cut off" ftab.data "$table" HEADER
mutant fsec.data $((table + 8)) $((1 << 40))
expect "first feature section past the end" fsec.data "$table" "HEADER_${names[$first_feat]}"
mutant dsize.data 48 0
expect "data size 0 (an interrupted recording)" dsize.data "$table" DATA
mutant dcut.data -1 0 $((data_off + 4))
expect "data section cut in the first record header" dcut.data "$data_off" DATA

# a pipe's header: the same form on stdin
"$PERF" record -q -e sched:sched_switch -a -o - -- sleep 0.05 2>/dev/null >pipe.data
python3 -c "import sys; b=bytearray(open('pipe.data','rb').read()); b[0:8]=b'NOTPERF!'; open('pipe-bad.data','wb').write(b)"
"$RAWFRAG" report -i - <pipe-bad.data >/dev/null 2>err; rc=$?
t_eq "pipe with a bad magic: exit 2" 2 "$rc"
t_grep "pipe with a bad magic: 'offset 0x0: HEADER: ...'" \
	"^perf rawfrag report: -: offset 0x0: HEADER: not a perf.data file" err
