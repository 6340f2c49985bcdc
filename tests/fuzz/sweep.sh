#!/usr/bin/env bash
# sweep.sh TOOL MUTANT_DIR SECONDS [MEM_MB]: every file of MUTANT_DIR (from
# mutate.py) through check and each report mode (text, JSON, --stats, pcapng),
# each run under `timeout 10` with its peak RSS measured, until SECONDS pass.
# Counts:
#   crashes     exit > 2 (sanitizer reports exit 98/99, signals 128+)
#   hangs       the 10 s timeout hit
#   memory      peak RSS over MEM_MB (default 512: ASan's shadow included)
#   format      exit 2 without 'perf rawfrag CMD: FILE: offset 0x..: TYPE: ' on stderr
#               (TYPE: a record type, UNKNOWN(N), or the header part: HEADER,
#               ATTR, HEADER_<feature>, DATA)
#   disagree    text, JSON and --stats exit differently, or check accepts (0/1)
#               what they refuse (2) or refuses what they accept
#   pcapng      pcapng's exit differs from text's, or its exit 2 lacks that
#               form (printed, not a failure yet: its read loop is moving into
#               the library)
# Prints the first problems and a summary line; exit 1 when any count but
# pcapng is non-zero.
set -u
tool=$1 dir=$2 budget=$3 mem_mb=${4:-512}
end=$((SECONDS + budget))
files=0 runs=0 crashes=0 hangs=0 memory=0 format=0 disagree=0 pcapng=0 shown=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

problem() { # what file detail
	[ "$shown" -lt 15 ] && echo "# sweep: $1: $2: $3"
	shown=$((shown + 1))
}

# one FILE MODE: sets rc; checks crash, hang, memory and error format
one() {
	local f=$1 mode=$2 cmd args kb
	case $mode in
	check) cmd=check; args=(check "$f") ;;
	text) cmd=report; args=(report -o /dev/null -i "$f") ;;
	json) cmd=report; args=(report --format json -o /dev/null -i "$f") ;;
	stats) cmd=report; args=(report --stats -o /dev/null -i "$f") ;;
	pcapng) cmd=report; args=(report --format pcapng -o "$tmp/o.pcapng" -i "$f") ;;
	esac
	/usr/bin/time -f '%M' -o "$tmp/time" timeout 10 "$tool" "${args[@]}" >/dev/null 2>"$tmp/err"
	rc=$?
	runs=$((runs + 1))
	kb=$(tail -1 "$tmp/time" 2>/dev/null)
	case $kb in ''|*[!0-9]*) kb=0 ;; esac
	if [ "$rc" = 124 ]; then
		hangs=$((hangs + 1)); problem hang "$f" "$mode"
	elif [ "$rc" -gt 2 ]; then
		crashes=$((crashes + 1)); problem crash "$f" "$mode exit $rc: $(grep -m1 -E 'ERROR|runtime error' "$tmp/err")"
	fi
	if [ "$kb" -gt $((mem_mb * 1024)) ]; then
		memory=$((memory + 1)); problem memory "$f" "$mode peak $((kb / 1024)) MB"
	fi
	fmt_ok=1
	if [ "$rc" = 2 ] && ! grep -qE "^perf rawfrag $cmd: $f: offset 0x[0-9a-f]+: [A-Z][A-Z0-9_]*(\([0-9]+\))?: " "$tmp/err"; then
		fmt_ok=0
		[ "$mode" = pcapng ] && return
		format=$((format + 1)); problem format "$f" "$mode: $(head -c 200 "$tmp/err" | tr '\n' '|')"
	fi
}

for f in "$dir"/*; do
	[ "$SECONDS" -lt "$end" ] || break
	files=$((files + 1))
	one "$f" text; t=$rc
	one "$f" json; j=$rc
	one "$f" stats; s=$rc
	one "$f" check; c=$rc
	one "$f" pcapng; p=$rc
	if [ "$t" != "$j" ] || [ "$t" != "$s" ] || { [ "$t" = 2 ] && [ "$c" = 0 ]; } ||
	   { [ "$t" = 0 ] && [ "$c" = 2 ]; }; then
		disagree=$((disagree + 1)); problem disagree "$f" "text $t json $j stats $s check $c"
	fi
	if [ "$fmt_ok" = 0 ] || { [ "$p" != "$t" ] && [ "$t" -le 2 ]; }; then
		pcapng=$((pcapng + 1))
	fi
done
echo "sweep: $files files, $runs runs in $((SECONDS - end + budget)) s: crashes $crashes, hangs $hangs, memory $memory, format $format, disagree $disagree (pcapng differs: $pcapng)"
[ $((crashes + hangs + memory + format + disagree)) = 0 ]
