#!/usr/bin/env bash
# perf.data layouts of older (and newer) perf releases, one fixture per layout
# from tests/gen/compat-gen (its header lists them with the perf versions that
# wrote each), made from tp-be-gen's little-endian pipe stream whose sample
# values that generator chose. For every layout, file and pipe mode:
#   - report exits 0 without a complaint about the tracing data, and every
#     sample's JSON fields equal the generator's values;
#   - where perf 6.1 reads the layout (all the generator's samples), our text
#     equals `perf script -F cpu,time,event,trace` line for line; where it does
#     not, that check is a SKIP saying so (the first check still holds);
#   - attrs larger than any perf so far (*-attr144): read, and stderr says what
#     was ignored;
#   - hostile variants of the layout's historic records (short, oversized, cut:
#     tests/scripts/compat_mutate.py) exit 0 or 2 only, never a crash, and an
#     exit 2 comes with one 'perf rawfrag report: FILE: offset 0x..: TYPE: ' error.
# Then a real recording, the issue's case: a uprobe recorded by perf 6.1 in pipe
# mode, rewritten into every layout by compat-gen; our text equals perf
# script's on each, or, where perf 6.1 cannot read the layout, perf script's on
# the recording itself.
source "$(dirname "$0")/lib.sh"

TPGEN=$(t_bin tp-be-gen)
CGEN=$(t_bin compat-gen)
SCRIPTS=$TOP/tests/scripts
NR=40
if [ ! -x "$CGEN" ] || [ ! -x "$TPGEN" ] || ! have_tracefs; then
	t_plan 1
	t_skip "compat layouts" "needs tp-be-gen, compat-gen and tracefs (the formats)"; exit 0
fi
layouts=$("$CGEN" -l)
nl=$(wc -w <<<"$layouts")
t_plan $((4 * nl + 2))
err_form='^perf rawfrag report: [^ ]+: offset 0x[0-9a-f]+: [A-Z][A-Z0-9_]*(\([0-9]+\))?: '

t_setup "tp-be-gen writes the base stream" "$TPGEN" -l -p -n "$NR" "$T/base.pipe" "$T/base.jsonl"

for l in $layouts; do
	f=$T/$l.data
	t_setup "compat-gen writes $l" "$CGEN" "$l" "$T/base.pipe" "$f"
	fields=cpu,time,event,trace
	# the 72-byte header has no features, so no tracing data: software events
	[ "$l" = file-hdr72 ] && fields=cpu,time
	"$RAWFRAG" report -i "$f" --format json >"$T/ours.jsonl" 2>"$T/ours.err"; rc=$?
	if [ "$l" = file-hdr72 ]; then
		t_eq "$l: report exit 0, $NR samples" "0 $NR" "$rc $(grep -c '"time_ns"' "$T/ours.jsonl")"
	elif [ "$rc" = 0 ] && ! grep -q 'tracing data' "$T/ours.err" &&
		python3 "$SCRIPTS/tp_cmp_fields.py" "$T/base.jsonl" "$T/ours.jsonl" >"$T/cmp" 2>&1; then
		t_ok "$l: report exit 0, tracing data read whole, JSON fields equal the generator's values ($(tail -n 1 "$T/cmp"))"
	else
		t_fail "$l: report exit 0, tracing data read whole, JSON fields equal the generator's values" "exit $rc" \
			"$(head -n 3 "$T/ours.err")" "$(head -n 5 "$T/cmp" 2>/dev/null)"
	fi
	case $l in *-attr144) t_grep "$l: stderr says the 16 unknown attr bytes were ignored" \
		"attr has 144 bytes, 16 more than known: ignored|attr 0 has 144 bytes, 16 more than known: ignored" \
		"$T/ours.err" ;; esac
	"$PERF" script -i "$f" -F "$fields" >"$T/perf.txt" 2>/dev/null
	"$RAWFRAG" report -i "$f" -F "$fields" >"$T/ours.txt" 2>/dev/null
	n=$(wc -l <"$T/perf.txt")
	if [ "$n" = "$NR" ]; then
		if diff "$T/perf.txt" "$T/ours.txt" >"$T/diff"; then
			t_ok "$l: text equals perf script's ($n samples)"
		else
			t_fail "$l: text equals perf script's" "$(head -n 6 "$T/diff")"
		fi
	else
		t_skip "$l: text equals perf script's" "perf 6.1 cannot read this layout ($n of $NR samples)"
	fi
	# hostile variants of its historic records
	t_setup "hostile variants of $l" python3 "$SCRIPTS/compat_mutate.py" "$f" "$T/mut-$l"
	cp "$T/setup.out" "$T/names"
	bad=""
	while read -r name; do
		"$RAWFRAG" report -i "$T/mut-$l/$name.data" >/dev/null 2>"$T/m.err"; rc=$?
		case $rc in
		0) ;;
		2) grep -qE "$err_form" "$T/m.err" || bad+=" $name: exit 2 without the error line" ;;
		*) bad+=" $name:$rc $(head -c 200 "$T/m.err")" ;;
		esac
	done <"$T/names"
	t_eq "$l: $(wc -l <"$T/names") hostile variants exit 0 or 2 (2 with file, offset, reason)" "" "$bad"
	rm -rf "$T/mut-$l"
done

# the real recording: a uprobe on compat-gen's main, four runs on alternate CPUs
# (perf record drains one CPU's ring after the other, so the file is not in time
# order: a file without sample_id_all must then be read in file order, as perf does)
probe=rawfrag_t12:main
cleanup() { "$PERF" probe -q -d "$probe" >/dev/null 2>&1; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"; }
trap cleanup EXIT
why=""
if ! is_root || [ ! -e /sys/kernel/tracing/uprobe_events ]; then
	why="needs root and uprobes in tracefs"
elif ! "$PERF" probe -q -x "$CGEN" -a "$probe=main" >"$T/probe.err" 2>&1; then
	why="perf probe cannot place a uprobe on compat-gen's main: $(head -c 120 "$T/probe.err")"
else
	ncpu=$(nproc) && [ "$ncpu" -gt 2 ] && ncpu=2
	"$PERF" record -q -e "$probe" -o - -- sh -c \
		"for i in 0 1 2 3; do taskset -c \$((i % $ncpu)) '$CGEN' -l >/dev/null; done" \
		>"$T/real.pipe" 2>/dev/null
	"$PERF" probe -q -d "$probe" >/dev/null 2>&1
	"$PERF" script -i "$T/real.pipe" >"$T/real.txt" 2>/dev/null
	[ "$(grep -c " $probe: " "$T/real.txt")" = 4 ] ||
		why="perf 6.1 did not record the 4 uprobe samples: $(head -c 200 "$T/real.txt")"
fi
if [ -n "$why" ]; then
	t_skip_n "$nl" "real uprobe recording in every layout" "$why"
	exit 0
fi
for l in $layouts; do
	f=$T/real-$l.data
	t_setup "compat-gen writes $l from the real recording" "$CGEN" "$l" "$T/real.pipe" "$f"
	# the 72-byte header has no features, so no tracing data: software events
	fields=() && [ "$l" = file-hdr72 ] && fields=(-F comm,tid,cpu,time)
	"$PERF" script -i "$f" "${fields[@]}" >"$T/perf.txt" 2>/dev/null
	"$RAWFRAG" report -i "$f" "${fields[@]}" >"$T/ours.txt" 2>"$T/ours.err"
	want=$T/perf.txt what="perf script's"
	if [ "$(wc -l <"$T/perf.txt")" != 4 ]; then
		want=$T/real.txt what="perf script's on the recording (perf 6.1 reads $(wc -l <"$T/perf.txt") of 4 here)"
	fi
	if diff "$want" "$T/ours.txt" >"$T/diff" && [ -s "$T/ours.txt" ]; then
		t_ok "real uprobe, $l: text equals $what ($(wc -l <"$T/ours.txt") samples, the first: $(head -n 1 "$T/ours.txt" | sed 's/^ *//'))"
	else
		t_fail "real uprobe, $l: text equals $what" "$(head -n 6 "$T/diff")" "$(head -n 3 "$T/ours.err")"
	fi
done
