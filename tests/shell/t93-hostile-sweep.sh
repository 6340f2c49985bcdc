#!/usr/bin/env bash
# The hostile sweep, bounded: mutants (tests/fuzz/mutate.py) of real recordings
# and of the generators' files through check and every report mode under
# ASan+UBSan (tests/fuzz/sweep.sh), for at most SWEEP_SECONDS (40). Prints the
# counts; fails on a crash, a hang, memory past 512 MB, an exit-2 error without
# the 'perf rawfrag CMD: FILE: offset 0x..:' form, or modes that disagree.
# SWEEP_SEED picks other mutants (default 16); KEEP=1 keeps them in $T.
# Seeds include the historic layouts of tests/gen/compat-gen (the 12-byte
# tracing-data record, tracing data 0.5, the PERFFILE magic, the 72-byte header,
# build-ids without pid, attrs larger than known).
source "$(dirname "$0")/lib.sh"
t_plan 3
seed=${SWEEP_SEED:-16}
mkdir -p seeds
for g in rawfrag-gen bomb-gen; do
	mkdir -p "$T/gen-$g" && [ -x "$O/tests/$g" ] && "$O/tests/$g" "$T/gen-$g" >/dev/null 2>&1
done
cp gen-rawfrag-gen/tp-le.data gen-rawfrag-gen/tp-be-z.data gen-rawfrag-gen/tp-le-pipe.data \
	gen-rawfrag-gen/types-le.data gen-bomb-gen/z-inbounds.data seeds/ 2>/dev/null
if is_root && ensure_tracefs && command -v "$PERF" >/dev/null; then
	"$PERF" record -q -e sched:sched_switch -e sched:sched_wakeup -a -o seeds/tp.data \
		-- sleep 0.2 >/dev/null 2>&1
	"$PERF" record -q -z -e raw_syscalls:sys_enter -a -o seeds/z.data -- sleep 0.1 >/dev/null 2>&1
	"$PERF" record -q -e sched:sched_switch -a -o - -- sleep 0.1 >seeds/pipe.data 2>/dev/null
fi
compat="pipe-td12 file-td12 pipe-td05 file-legacy file-build-id-nopid file-hdr72 pipe-attr144"
ncompat=0
if [ -x "$O/tests/compat-gen" ] && [ -x "$O/tests/tp-be-gen" ] && have_tracefs &&
	"$O/tests/tp-be-gen" -l -p -n 40 base.pipe base.jsonl >/dev/null 2>&1; then
	for l in $compat; do
		"$O/tests/compat-gen" "$l" base.pipe "seeds/compat-$l.data" >/dev/null 2>&1 &&
			ncompat=$((ncompat + 1))
	done
fi
# keep the mutants small: the sweep's budget is runs, not bytes
for f in seeds/*; do [ "$(stat -c %s "$f")" -le 4194304 ] || rm -f "$f"; done
n=$(ls seeds | wc -l)
[ "$n" -ge 3 ] || { t_fail "set-up: at least 3 sweep seeds" "got: $(ls seeds)"; exit 1; }
echo "# sweep seeds: $n files ($(ls seeds | tr '\n' ' '))"
python3 "$TOP/tests/fuzz/mutate.py" seeds mutants 400 "$seed"
bash "$TOP/tests/fuzz/sweep.sh" "$RAWFRAG" "$T/mutants" "${SWEEP_SECONDS:-40}" >sweep.log 2>&1
rc=$?
cat sweep.log
sum=$(tail -1 sweep.log)
if [ "$rc" = 0 ]; then t_ok "hostile sweep (seed $seed): $sum"
else t_fail "hostile sweep (seed $seed): no crash, hang, memory blow-up, bad error or disagreement" "$sum"; fi
files=$(sed -n 's/^sweep: \([0-9]*\) files.*/\1/p' <<<"$sum")
if ! have_tracefs; then t_skip "seeds include the historic layouts" "tp-be-gen needs tracefs"
else t_eq "seeds include the historic layouts ($compat)" "$(wc -w <<<"$compat")" "$ncompat"; fi
if [ "${files:-0}" -ge 20 ]; then t_ok "sweep covered $files mutants"
else t_fail "sweep covered at least 20 mutants" "$sum"; fi
