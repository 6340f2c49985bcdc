#!/usr/bin/env bash
# Directory recordings (perf record --threads: perf.data/ with data, holding
# the header and the main thread's records, and a data.N per ring buffer),
# recorded now with Debian's perf: tracepoints, -g cpu-clock and -z. Every
# record delivered in perf's order from the data file perf names (perf report
# -D), report's lines equal to perf script's, check clean, --stats, JSON, the
# Python module and the dlfilter on them; then broken directories (a data.N
# cut mid-record, a symlink to a FIFO, a missing first or last data.N, one
# that is /dev/zero, no data file, an unknown HEADER_DIR_FORMAT version) each
# end at once with exit 2 and an error naming the file.
source "$(dirname "$0")/lib.sh"
t_plan 29

WALK=$(t_bin rawfrag-walk)
SO=$O/plugins/rawfrag-dlfilter.so
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v "$PERF" >/dev/null || t_skip_rest "no perf binary"
is_root || t_skip_rest "perf record -a with raw tracepoint samples needs root"
ensure_tracefs || t_skip_rest "no tracefs"
[ -x "$WALK" ] || { t_fail "rawfrag-walk built" "$WALK missing"; exit 1; }
if ! "$PERF" record -q --threads -e sched:sched_switch -a -o try.data -- sleep 0.1 \
	>try.out 2>&1; then
	t_skip_rest "perf record --threads does not work here: $(head -c 200 try.out | tr '\n' ' ')"
fi

# enough records that each data.N passes perf's 2 MiB read chunk a few times
WORK='find /usr/share/doc /usr/include >/dev/null 2>&1; ls -R /usr/share/locale >/dev/null'
TPS="-e sched:sched_switch -e raw_syscalls:sys_enter"
t_setup "perf record --threads (tracepoints)" $PERF record -q --threads $TPS -a -o tp.data \
	-- sh -c "$WORK"
t_setup "perf record -z --threads (tracepoints)" $PERF record -q -z --threads $TPS -a \
	-o z.data -- sh -c "$WORK"
t_setup "perf record --threads -g cpu-clock" $PERF record -q --threads -g -e cpu-clock -a \
	-o g.data -- sh -c 'find /usr/share/doc >/dev/null 2>&1'
ndata=$(ls tp.data | grep -c '^data\.[0-9]*$')
t_setup "tp.data is a directory of data and data.N files" test -f tp.data/data -a "$ndata" -ge 1
t_setup "a data.N of tp.data holds more than 2 MiB (perf's read chunk)" \
	sh -c "find tp.data -name 'data.*' -size +2048k | grep -q ."

# perf report -D's record lines: each record, its data file and offset, in
# the order perf delivers them (all of data's untimed records, then by time)
perf_d() { $PERF report -D -i "$1" 2>/dev/null | grep -E '^(0x[0-9a-f]+|0)@'; }
for f in tp z; do
	perf_d $f.data >$f.perfd
	"$WALK" -p $f.data >$f.walk 2>$f.walk.err
	n=$(wc -l <$f.perfd)
	if [ "$n" -gt 0 ] && grep -v '^datafiles' $f.walk | cmp -s - $f.perfd; then
		t_ok "$f: all $n records in perf's order, each from the data file and offset perf names"
	else
		t_fail "$f: records in perf's order from perf's data files" \
			"$(grep -v '^datafiles' $f.walk | diff - $f.perfd | head -6)" "$(head -3 $f.walk.err)"
	fi
done
t_eq "rawfrag_file__nr_data_files(): data and the $ndata data.N" "datafiles $((ndata + 1))" \
	"$(tail -n1 tp.walk)"

# report's lines against perf script's
F_TP=comm,tid,time,event,trace
F_G=comm,tid,time,event,ip,sym,dso
# A recording made under load may lose events (a LOST record): perf script
# then warns "Processed N events and lost M chunks!", and report must say
# the same words (its own detail may follow); otherwise neither says a thing.
said() { grep -E '^Processed [0-9]+ (events|samples) and lost' "$1"; }
same_lines() { # NAME FILE FIELDS
	$PERF script -i "$2" -F "$3" >"$1.perf" 2>"$1.perf.err"
	"$RAWFRAG" report -i "$2" -F "$3" >"$1.ours" 2>"$1.err"
	local rc=$? n msg="no message" msg_ok=0
	n=$(wc -l <"$1.perf")
	if said "$1.perf.err" >"$1.perf.lost"; then
		msg="perf's loss warning: $(head -1 "$1.perf.lost")"
		said "$1.err" | cmp -s - "$1.perf.lost" && msg_ok=1
	else
		[ -s "$1.err" ] || msg_ok=1
	fi
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && [ $msg_ok = 1 ] && cmp -s "$1.perf" "$1.ours"; then
		t_ok "$1: report -F $3 equals perf script on all $n lines, $msg"
	else
		t_fail "$1: report -F $3 equals perf script" "exit $rc, perf $n lines, ours $(wc -l <"$1.ours")" \
			"$(head -3 "$1.err")" "$(diff "$1.perf" "$1.ours" | head -6)"
	fi
}
same_lines tp tp.data $F_TP
same_lines z z.data $F_TP
same_lines g g.data $F_G

nsamples=$(wc -l <tp.perf)
# perf record --threads writes HEADER_SAMPLE_TIME as 0: --time with percentages
# reads the directory once for the span, rewinds it, and reads it again
"$RAWFRAG" report -i z.data -F $F_TP --time 0%-100% >z.time 2>z.time.err
rc=$?
if [ $rc = 0 ] && cmp -s z.time z.ours; then
	t_ok "z: report --time 0%-100% (a pass, a rewind of every data file, a pass) equals report"
else
	t_fail "z: report --time 0%-100% equals report" "exit $rc" "$(head -3 z.time.err)" \
		"$(diff z.ours z.time | head -4)"
fi
for f in tp g; do
	"$RAWFRAG" check $f.data >$f.check 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -qE "^$f.data: [1-9][0-9]* samples, 0 errors, 0 warnings" $f.check; then
		t_ok "$f: check is clean (exit 0)"
	else
		t_fail "$f: check is clean" "exit $rc" "$(head -4 $f.check)"
	fi
done

# --stats: the sample and total counts as perf report --stats prints them
stats_lines() { grep -E 'TOTAL events|SAMPLE events|stats:$'; }
$PERF report --stats -i tp.data 2>/dev/null | stats_lines >stats.perf
"$RAWFRAG" report --stats -i tp.data 2>stats.err | stats_lines >stats.ours
if [ -s stats.perf ] && cmp -s stats.perf stats.ours; then
	t_ok "tp: report --stats counts equal perf report --stats ($(grep -m1 TOTAL stats.perf | tr -s ' '))"
else
	t_fail "tp: report --stats counts equal perf's" "$(diff stats.perf stats.ours | head -6)" \
		"$(head -3 stats.err)"
fi
"$RAWFRAG" report --format json -i tp.data >tp.json 2>json.err
rc=$?
t_eq "tp: report --format json has a line per sample (exit 0)" "$nsamples 0" "$(wc -l <tp.json) $rc"

# the Python module
PYTHONPATH=$O/python $PY -c 'import sys, rawfrag
n = sum(1 for s in rawfrag.open(sys.argv[1]))
r = rawfrag.open(sys.argv[1]); st = r.stats(); c = rawfrag.open(sys.argv[1]).check()
print(n, st["records"]["SAMPLE"], c["samples"], c["errors"], c["clean"])' tp.data >py.out 2>py.err
t_eq "tp: rawfrag.open() iterates, stats() and check() count perf's samples, clean" \
	"$nsamples $nsamples $nsamples 0 True" "$(cat py.out)$(head -c 200 py.err)"

# the dlfilter: perf hands it the directory's samples, the plugin opens the directory
$PERF script -i tp.data --dlfilter "$SO" >dl.out 2>dl.err
t_grep "tp: dlfilter checks every sample of the directory" \
	"rawfrag-dlfilter: $nsamples samples, $nsamples kept, 0 raw-layout errors" dl.err

# the data file alone: read, with a warning that the data.N files are not
"$RAWFRAG" report -i tp.data/data >alone.out 2>alone.err
rc=$?
if [ $rc = 0 ] && grep -q 'data.N files are read only when the directory is opened' alone.err; then
	t_ok "tp.data/data alone: read (exit 0) with a warning that its data.N are not"
else
	t_fail "tp.data/data alone: read with a warning" "exit $rc" "$(head -3 alone.err)"
fi

# ---- broken directories: exit 2 at once, the error naming the file ----
mkbad() { rm -rf "$1"; cp -r g.data "$1"; }
mkbad cut && truncate -s $(($(stat -c %s cut/data.1) - 13)) cut/data.1
mkbad fifo && rm fifo/data.1 && mkfifo fifo.pipe && ln -s "$T/fifo.pipe" fifo/data.1
mkbad nofirst && rm nofirst/data.0
last=$(ls g.data | grep '^data\.[0-9]*$' | sort -t. -k2 -n | tail -n1)
mkbad nolast && rm "nolast/$last"
mkbad zero && rm zero/data.0 && ln -s /dev/zero zero/data.0
# HEADER_DIR_FORMAT's version (feature bit 24) set to 2
mkbad v2 && $PY - v2/data <<'EOF'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    h = f.read(104)
    doff, dsize = struct.unpack_from("<QQ", h, 40)
    bits = int.from_bytes(h[72:104], "little")
    assert bits >> 24 & 1
    n = bin(bits & ((1 << 24) - 1)).count("1")
    f.seek(doff + dsize + 16 * n)
    off, size = struct.unpack("<QQ", f.read(16))
    f.seek(off)
    f.write(struct.pack("<Q", 2))
EOF
bad() { # DIR PATTERN
	local cmd rc
	for cmd in report check; do
		if [ $cmd = report ]; then
			timeout 20 "$RAWFRAG" report -i "$1" >bad.out 2>bad.err
		else
			timeout 20 "$RAWFRAG" check "$1" >bad.out 2>bad.err
		fi
		rc=$?
		if [ $rc = 2 ] && grep -qE -- "^perf rawfrag $cmd: $1: $2" bad.err; then
			t_ok "$1: $cmd exits 2: $(head -n1 bad.err | cut -c1-150)"
		else
			t_fail "$1: $cmd exits 2 naming the file" "exit $rc (124: a hang)" \
				"expected: perf rawfrag $cmd: $1: $2" "$(head -3 bad.err)"
		fi
	done
}
bad cut 'data\.1: offset 0x[0-9a-f]+: [A-Z_0-9]+: record size [0-9]+ beyond the end'
bad fifo 'data\.1: a FIFO, not a perf\.data file'
bad nofirst 'data\.0: missing'
bad nolast "${last//./\\.}: missing \\(the recording had [0-9]+ ring buffers"
bad zero 'data\.0: a character device'
mkdir nodata
bad nodata 'a directory without a data file: not a perf\.data directory'
bad v2 'data: offset 0x[0-9a-f]+: HEADER_DIR_FORMAT: data version 2 unknown'

# the Python module raises rawfrag.Error on the FIFO, without blocking
PYTHONPATH=$O/python timeout 20 $PY -c 'import sys, rawfrag
try:
    rawfrag.open(sys.argv[1])
    print("no error")
except rawfrag.Error as e:
    print("Error:", e)' fifo >pyfifo.out 2>&1
t_grep "rawfrag.open() of the FIFO case raises rawfrag.Error naming data.1" \
	'^Error: .*data\.1: a FIFO' pyfifo.out
