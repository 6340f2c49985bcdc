#!/usr/bin/env bash
# The perf.data reader on files recorded by Debian's perf during the test: record
# counts per type and samples per event must equal perf report -D's on the same
# file (file mode, -z, pipe as file and stdin, several events, -g, dwarf); corrupt
# copies must give one exact error and exit 2; a 1 GB file is walked in bounded
# memory.
source "$(dirname "$0")/lib.sh"
t_plan 47

WALK=$(t_bin rawfrag-walk)
if [ ! -x "$WALK" ]; then t_fail "reader" "rawfrag-walk not built"; exit 1; fi
if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "reader: needs root, tracefs and perf"
fi

# perf's per-type counts ("TYPE N"), from the first "Aggregated stats" block of -D
perf_counts() {
	"$PERF" report -D -i "$1" 2>/dev/null | awk '
		/^Aggregated stats:/ { on = 1; next }
		on && /events:/ { if ($1 != "TOTAL") print $1, $3; next }
		on { exit }' | sort
}
# per-evsel sample counts ("NAME N") from perf report -D
perf_samples() {
	"$PERF" report -D -i "$1" 2>/dev/null | awk '
		/ stats:$/ && !/^Aggregated/ { name = $1; next }
		name != "" && /SAMPLE events:/ { print name, $3; name = "" }' | sort -u
}
our_counts() {
	"$WALK" -q -s "$@" | awk '$1 == "count" { t = $2; sub(/^HEADER_/, "", t); print t, $3 }' | sort
}
our_samples() {
	"$WALK" -q -e "$@" | awk '$1 == "samples" && $3 > 0 { print $2, $3 }' | sort
}

busy='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'

# compare NAME FILE [walk input] (walk input defaults to FILE, "-" reads FILE on stdin)
compare() {
	local name=$1 file=$2 in=${3:-$2} ours theirs
	theirs=$(perf_counts "$file")
	if [ "$in" = - ]; then ours=$(our_counts - <"$file"); else ours=$(our_counts "$in"); fi
	if [ -z "$theirs" ]; then t_fail "$name: record counts" "perf report -D gave no stats"; return; fi
	t_eq "$name: record counts per type equal perf report -D" "$theirs" "$ours"
	theirs=$(perf_samples "$file")
	if [ "$in" = - ]; then ours=$(our_samples - <"$file"); else ours=$(our_samples "$in"); fi
	t_eq "$name: samples per event equal perf report -D" "$theirs" "$ours"
}

"$PERF" record -q -a -e sched:sched_switch -e sched:sched_wakeup -o tp.data -- sleep 0.3 >/dev/null 2>&1
compare "tracepoints -a" tp.data
# the bench floors read the bare reader, below the session: they must still see every record
# (-b) and every sample's raw payload (-r) the session's walk counts
t_eq "floor -b: every record the session's walk counts" \
	"$(our_counts tp.data | awk '{ s += $2 } END { print "records", s }')" "$("$WALK" -b tp.data)"
t_eq "floor -r: every sample's raw payload" \
	"$(our_counts tp.data | awk '$1 == "SAMPLE" { print "raw", $2 }')" "$("$WALK" -r tp.data | cut -d' ' -f1-2)"
"$PERF" record -q -z -a -e sched:sched_switch -e sched:sched_wakeup -o z.data -- sleep 0.3 >/dev/null 2>&1
compare "-z" z.data
"$WALK" -q -s z.data | grep -q '^count COMPRESSED [1-9]' && t_ok "-z: file has COMPRESSED records" ||
	t_fail "-z: file has COMPRESSED records"
"$PERF" record -q -a -e sched:sched_switch -e sched:sched_wakeup -o - -- sleep 0.3 >pipe.data 2>/dev/null
compare "pipe as file" pipe.data
compare "pipe on stdin" pipe.data -
"$WALK" -q -H pipe.data | grep -q '^evsel 0 sched:sched_switch' && t_ok "pipe: names from EVENT_UPDATE" ||
	t_fail "pipe: names from EVENT_UPDATE" "$("$WALK" -q -H pipe.data | grep ^evsel)"
"$PERF" record -q -z -a -e sched:sched_switch -o - -- sleep 0.3 >zpipe.data 2>/dev/null
compare "-z pipe" zpipe.data
"$PERF" record -q -e cpu-clock -e task-clock -g -o sw.data -- sh -c "$busy" >/dev/null 2>&1
compare "two sw events -g" sw.data
"$PERF" record -q -e cpu-clock --call-graph dwarf -o dwarf.data -- sh -c "$busy" >/dev/null 2>&1
compare "--call-graph dwarf" dwarf.data

# big-endian (s390/ppc) file from the writer's generator: perf 6.1 reads file mode
if [ -x "$O/tests/tp-be-gen" ] && "$O/tests/tp-be-gen" be.data be.jsonl >/dev/null 2>&1; then
	compare "big-endian file" be.data
	"$WALK" -q -H be.data | grep -q '^mode file swap 1 ' && t_ok "big-endian file: needs swap" ||
		t_fail "big-endian file: needs swap"
	# perf 6.1 cannot read cross-endian pipes: check the counts the generator chose
	if "$O/tests/tp-be-gen" -p bep.data bep.jsonl >/dev/null 2>&1; then
		t_eq "big-endian pipe: samples" "$(grep -c . bep.jsonl)" \
			"$(our_counts bep.data | awk '$1 == "SAMPLE" { print $2 }')"
		t_eq "big-endian pipe: same samples per event as the file form" "$(our_samples be.data)" \
			"$(our_samples bep.data)"
	fi
else
	t_skip "big-endian file" "tests/tp-be-gen not built"
fi

# tracepoint names come from EVENT_DESC, sizes of samples from the file
"$WALK" -q -H tp.data >hdr.txt
t_grep "EVENT_DESC names" '^evsel 1 sched:sched_wakeup type=2' hdr.txt
t_grep "HOSTNAME feature" "^env hostname $(uname -n)\$" hdr.txt
t_grep "OSRELEASE feature" "^env osrelease $(uname -r)\$" hdr.txt

# ---- corrupt copies: one exact error, exit 2 ----
data_off=$(awk '$1 == "mode" { print $6 }' hdr.txt)
data_size=$(awk '$1 == "mode" { print $8 }' hdr.txt)
fsize=$(stat -c %s tp.data)
put_le() { # FILE OFFSET BYTES VALUE
	local i s=""
	for ((i = 0; i < $3; i++)); do s+=$(printf '\\x%02x' $((($4 >> (8 * i)) & 255))); done
	printf "$s" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
"$WALK" tp.data >recs.txt
rec2=$(sed -n 2p recs.txt) # "offset type size evsel"
r2_off=${rec2%% *}; r2_type=$(echo "$rec2" | awk '{ print $2 }'); r2_size=$(echo "$rec2" | awk '{ print $3 }')
last=$(tail -1 recs.txt); l_off=${last%% *}; l_type=$(echo "$last" | awk '{ print $2 }')
end=$(printf '0x%x' $((data_off + data_size)))

cp tp.data bad.data; put_le bad.data 0 1 0x51
t_run "bad magic: exit 2" 2 "$WALK" bad.data
t_eq "bad magic: error" "bad.data: offset 0x0: HEADER: not a perf.data file (bad magic)" "$(cat "$T/err")"

# an interrupted recording: the complete records before the cut, from the walk above
head -c $((data_off + 100)) tp.data >trunc.data
n_ok=0 cut=$data_off
while read -r off _ size _; do
	[ $((off + size)) -le $((data_off + 100)) ] || break
	n_ok=$((n_ok + 1)) cut=$((off + size))
done <recs.txt
t_run "truncated: exit 2" 2 "$WALK" trunc.data
t_eq "truncated: error says where and how many complete records" \
	"$(printf 'trunc.data: offset 0x%x: DATA: recording was interrupted at offset %d; %d complete records (the data section runs past the end of the file; --force reads them)' \
	$cut $cut $n_ok)" "$(cat "$T/err")"

cp tp.data bad.data; put_le bad.data 48 8 0
t_run "data size 0: exit 2" 2 "$WALK" bad.data
n=$(sed -n 's/.*recording was interrupted at offset [0-9]*; \([0-9]*\) complete records (data size is 0: was perf record properly terminated?; --force reads them)$/\1/p' "$T/err")
[ -n "$n" ] && [ "$n" -ge "$(wc -l <recs.txt)" ] &&
	t_ok "data size 0: interrupted, every record of the data section complete ($n)" ||
	t_fail "data size 0: interrupted, every record of the data section complete" "$(cat "$T/err")"

cp tp.data bad.data; put_le bad.data $((r2_off + 6)) 2 0
t_run "zero-size record: exit 2 (no hang)" 2 timeout 20 "$WALK" -q bad.data
t_eq "zero-size record: error" "bad.data: offset $r2_off: $r2_type: record size 0 < 8" "$(cat "$T/err")"
t_run "zero-size record with --force: still exit 2" 2 timeout 20 "$WALK" -q -f bad.data

cp tp.data bad.data; put_le bad.data $((l_off + 6)) 2 0xfff8
t_run "record past data end: exit 2" 2 "$WALK" -q bad.data
t_eq "record past data end: error" \
	"bad.data: offset $l_off: $l_type: record size 65528 beyond the end of the data section ($end)" "$(cat "$T/err")"

cp tp.data bad.data; put_le bad.data $((r2_off)) 4 200
t_run "unknown type: exit 2" 2 "$WALK" -q bad.data
t_eq "unknown type: error" "bad.data: offset $r2_off: UNKNOWN(200): unknown record type 200 (size $r2_size)" \
	"$(cat "$T/err")"
t_run "unknown type with force: exit 0" 0 "$WALK" -q -f -s bad.data
t_grep "unknown type with force: counted as skipped" "^skipped 1 $r2_size\$" "$T/out"
want=$(our_counts tp.data | awk -v t="$r2_type" '$1 == t { $2 = $2 - 1 } $2 > 0' | sort)
t_eq "unknown type with force: other records all read" "$want" "$(our_counts -f bad.data 2>/dev/null)"

cp tp.data bad.data; put_le bad.data 16 8 0
t_run "attr size 0: exit 2" 2 "$WALK" bad.data
t_eq "attr size 0: error" "bad.data: offset 0x10: HEADER: attr size field is 0" "$(cat "$T/err")"

# ---- bounded memory over a 1 GB data section (no ASan: measure the library) ----
if [ "${RAWFRAG_SKIP_BIG:-0}" = 1 ]; then
	t_skip "1 GB walk" "RAWFRAG_SKIP_BIG=1"
else
	reps=$(python3 - tp.data big.data <<'EOF'
import struct, sys
src = open(sys.argv[1], 'rb').read()
doff, dsize = struct.unpack_from('<QQ', src, 40)
data = src[doff:doff + dsize]
reps = (1 << 30) // len(data) + 1
hdr = bytearray(src[:doff])
struct.pack_into('<Q', hdr, 48, len(data) * reps)
hdr[72:104] = bytes(32)  # no features: the table would follow the data
with open(sys.argv[2], 'wb') as f:
    f.write(hdr)
    chunk = data * 256
    for _ in range(reps // 256):
        f.write(chunk)
    f.write(data * (reps % 256))
print(reps)
EOF
)
	per=$(our_counts tp.data | awk '$1 == "SAMPLE" { print $2 }')
	"$O/tests/rawfrag-walk" -q -s -m big.data >big.txt 2>&1
	t_grep "1 GB walk: all samples read" "^count SAMPLE $((per * reps))\$" big.txt
	rss=$(awk '$1 == "peak_rss_kb" { print $2 }' big.txt)
	if [ -n "$rss" ] && [ "$rss" -lt 65536 ]; then t_ok "1 GB walk: peak RSS ${rss} kB < 64 MB"
	else t_fail "1 GB walk: peak RSS < 64 MB" "peak_rss_kb=$rss"; fi
	rm -f big.data
fi

# ---- hostile input: mutated copies never crash, hang or trip ASan (exit 0 or 2 only) ----
if command -v python3 >/dev/null; then
	mkdir -p mut
	python3 - tp.data z.data pipe.data <<'EOF2'
import random, struct, sys
random.seed(5)
for name in sys.argv[1:]:
    src = open(name, 'rb').read()
    doff, dsize = struct.unpack_from('<QQ', src, 40)
    pipe = struct.unpack_from('<Q', src, 8)[0] == 16
    # bias the flips towards the header, attrs and feature sections
    regions = [(0, len(src))] if pipe else [(0, doff), (doff + dsize, len(src)), (doff, doff + dsize)]
    for i in range(60):
        b = bytearray(src)
        for _ in range(random.randint(1, 6)):
            lo, hi = random.choice(regions)
            if hi <= lo: lo, hi = 0, len(src)
            k = random.randrange(lo, hi)
            r = random.random()
            if r < 0.4: b[k] = random.randrange(256)
            elif r < 0.8: b[k] ^= 1 << random.randrange(8)
            else: b[k:k + 4] = b'\xff\xff\xff\xff'
        if random.random() < 0.15:
            b = b[:random.randrange(len(b))]
        open('mut/%s.%d' % (name, i), 'wb').write(b)
EOF2
	bad=""
	for m in mut/*; do
		timeout 20 "$WALK" -q -s -H "$m" >/dev/null 2>"$T/err"; rc=$?
		[ $rc = 0 ] || [ $rc = 2 ] || bad="$bad $m:$rc"
	done
	t_eq "180 mutated files: exit 0 or 2 only" "" "$bad"
else
	t_skip "mutated files" "python3 missing"
fi
