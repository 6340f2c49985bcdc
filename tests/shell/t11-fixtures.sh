#!/usr/bin/env bash
# Generated fixtures (tests/gen/rawfrag-gen.c): perf 6.1 reads every valid one
# exactly as we do (per sample: event, pid, tid, cpu, time, raw size, period,
# ip; perf through a `perf script -s` Python handler), and every corrupt one
# fails with exit 2 and the error its MANIFEST line gives, through rawfrag-dump
# and, when built, `perf rawfrag check` (whose answer CHECK overrides where a
# defect is a raw-layout violation for the checker rather than bad input).
source "$(dirname "$0")/lib.sh"
t_plan 148

GEN=$(t_bin rawfrag-gen)
DUMP=$(t_bin rawfrag-dump)
if [ ! -x "$GEN" ] || [ ! -x "$DUMP" ]; then
	t_fail "fixtures" "rawfrag-gen/rawfrag-dump not built"
	exit 1
fi
if ! have_tracefs; then
	t_skip_rest "fixtures: no tracefs at /sys/kernel/tracing (formats for the tracing data)"
fi

t_setup "generate fixtures" "$GEN" "$T/fx"
[ -s "$T/fx/MANIFEST" ] || { t_fail "MANIFEST written"; exit 1; }

# perf's view, one line per sample (lib.sh: perf_samples_py), in the format below
perf_samples_py
# ours: event pid tid cpu time raw_size period ip (a missing RAW counts as 0)
ours() { "$DUMP" "$1" | awk '{ r = $6 == "-" ? 0 : $6; print $1, $2, $3, $4, $5, r, $7, $8 }' | sort; }

perf_py=0
command -v "$PERF" >/dev/null &&
	"$PERF" version --build-options 2>/dev/null | grep -qE 'libpython: \[ on' && perf_py=1

have_check=0
"$RAWFRAG" check --help >/dev/null 2>&1 && have_check=1

nvalid=0
while read -r file want msg; do
	f=$T/fx/$file
	"$DUMP" "$f" >"$T/dump.out" 2>"$T/dump.err"; rc=$?
	if [ "$want" = 0 ]; then
		nvalid=$((nvalid + 1))
		t_eq "$file: rawfrag-dump exit" 0 "$rc"
		n=$(wc -l <"$T/dump.out")
		if [ "$n" -lt 10 ]; then t_fail "$file: samples read" "only $n samples"; fi
		skip=$(awk -v f="$file" '$1 == f { $1 = ""; print }' "$T/fx/PERF_SKIP")
		if [ -n "$skip" ]; then
			t_skip "$file: same samples as perf script" "$skip"
		elif [ $perf_py = 0 ]; then
			t_skip "$file: same samples as perf script" "no perf with libpython"
		else
			"$PERF" script -i "$f" -s "$T/samples.py" 2>"$T/perf.err" | sort >"$T/perf.out"
			ours "$f" >"$T/ours.out"
			if [ -s "$T/perf.out" ] && cmp -s "$T/perf.out" "$T/ours.out"; then
				t_ok "$file: same $n samples as perf script"
			else
				t_fail "$file: same samples as perf script" \
					"perf: $(wc -l <"$T/perf.out") lines, ours: $(wc -l <"$T/ours.out")" \
					"$(diff "$T/perf.out" "$T/ours.out" | head -4)" "$(head -c 300 "$T/perf.err")"
			fi
			if grep -qiE 'warning|error|failed' "$T/perf.err"; then
				t_fail "$file: perf script without warnings" "$(head -c 300 "$T/perf.err")"
			else
				t_ok "$file: perf script without warnings"
			fi
		fi
	else
		t_eq "$file: rawfrag-dump exit" "$want" "$rc"
		if grep -qF -- "$msg" "$T/dump.err"; then t_ok "$file: error '$msg'"
		else t_fail "$file: error '$msg'" "got: $(head -c 300 "$T/dump.err")"; fi
		# the message names the file, as "path: offset 0x..: TYPE: reason"
		t_grep "$file: error names the file" "^$f: " "$T/dump.err"
	fi
	if [ $have_check = 1 ]; then
		# the checker's own answer where CHECK has one
		if read -r _ cwant cmsg < <(awk -v f="$file" '$1 == f' "$T/fx/CHECK"); then
			want=$cwant msg=$cmsg
		fi
		"$RAWFRAG" check "$f" >"$T/check.out" 2>"$T/check.err"; crc=$?
		if [ "$want" = 0 ]; then
			t_eq "$file: perf rawfrag check exit" 0 "$crc"
		else
			t_eq "$file: perf rawfrag check exit" "$want" "$crc"
			if grep -qF -- "$msg" "$T/check.err" "$T/check.out"; then
				t_ok "$file: check error '$msg'"
			else
				t_fail "$file: check error '$msg'" "got: $(head -c 300 "$T/check.err")"
			fi
		fi
	fi
done <"$T/fx/MANIFEST"
[ $have_check = 1 ] || t_skip "perf rawfrag check on fixtures" "perf-rawfrag check not built"
[ "$nvalid" -ge 9 ] && t_ok "at least 9 valid fixtures ($nvalid)" || t_fail "valid fixtures" "$nvalid"
