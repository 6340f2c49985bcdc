#!/usr/bin/env bash
# perf.data layouts of older (and newer) perf releases, one fixture per layout
# from tests/gen/compat-gen (its header lists them with the perf versions that
# wrote each), made from tp-be-gen's little-endian pipe stream whose sample
# values that generator chose. For every layout, file and pipe mode:
#   - report exits 0 and every sample's JSON fields equal the generator's values;
#   - where perf 6.1 reads the layout (all the generator's samples), our text
#     equals `perf script -F cpu,time,event,trace` line for line; where it does
#     not, that check is a SKIP saying so (the first check still holds);
#   - hostile variants of the layout's historic records (short, oversized, cut:
#     tests/scripts/compat_mutate.py) exit 0 or 2 only, never a crash.
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
t_plan $((3 * $(wc -w <<<"$layouts")))

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
	elif [ "$rc" = 0 ] && python3 "$SCRIPTS/tp_cmp_fields.py" "$T/base.jsonl" "$T/ours.jsonl" >"$T/cmp" 2>&1; then
		t_ok "$l: report exit 0, JSON fields equal the generator's values ($(tail -n 1 "$T/cmp"))"
	else
		t_fail "$l: report exit 0, JSON fields equal the generator's values" "exit $rc" \
			"$(head -n 3 "$T/ours.err")" "$(head -n 5 "$T/cmp" 2>/dev/null)"
	fi
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
		case $rc in 0|2) ;; *) bad+=" $name:$rc $(head -c 200 "$T/m.err")" ;; esac
	done <"$T/names"
	t_eq "$l: $(wc -l <"$T/names") hostile variants exit 0 or 2" "" "$bad"
	rm -rf "$T/mut-$l"
done
