#!/usr/bin/env bash
# Run every test: cmocka unit tests (ASan+UBSan build), shell tests (tests/shell/t*.sh,
# which include the fuzz corpus replay). Every test program prints TAP with a plan;
# tests/tap.awk tallies each one (a missing or short plan, a result out of sequence or
# a non-zero exit is a failure). Ends with a table of plans, the failures and skips
# with their reasons, and the line "N passed, N failed, N skipped"; exit 1 if anything
# failed.
#   tests/run.sh [PATTERN...]   only the tests whose name contains a PATTERN
#   RAWFRAG_TEST_FAILFAST=1      no test after the first that fails (make mutate:
#                                one failure kills the mutant, the rest is not needed)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-$top/build/out}
ASAN_O=${ASAN_O:-$top/build/asan}
export O ASAN_O
sum=$(mktemp); trap 'rm -f "$sum"' EXIT
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=98}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}

patterns=("$@")
wanted() { # name: selected by the command line's patterns (all when none)
	[ ${#patterns[@]} -gt 0 ] || return 0
	local p
	for p in "${patterns[@]}"; do [[ $1 == *"$p"* ]] && return 0; done
	return 1
}

run_one() { # name cmd...
	local name=$1; shift
	wanted "$name" || return 0
	[ "${RAWFRAG_TEST_FAILFAST:-0}" = 1 ] && grep -q '^FAIL ' "$sum" && return 0
	echo "# --- $name"
	local out rc
	out=$("$@" 2>&1 </dev/null); rc=$?
	printf '%s\n' "$out"
	awk -v name="$name" -v rc=$rc -f "$top/tests/tap.awk" <<<"$out" >>"$sum"
}

bindir=$ASAN_O/tests
[ -d "$bindir" ] || bindir=$O/tests
for t in "$bindir"/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
	run_one "unit $(basename "$t")" "$t"
done
for t in "$top"/tests/shell/t*.sh; do
	[ -f "$t" ] || continue
	run_one "shell $(basename "$t")" bash "$t"
done

echo
echo "# plan  passed  failed  skipped  test"
awk '/^TALLY / { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
	printf "# %4s  %6d  %6d  %7d  %s\n", $5, $2, $3, $4, n }' "$sum"
echo
sed -n 's/^SKIP /SKIPPED: /p' "$sum"
sed -n 's/^FAIL /FAILED: /p' "$sum"
read -r pass fail skip < <(awk '/^TALLY / { p += $2; f += $3; s += $4 }
	END { print p + 0, f + 0, s + 0 }' "$sum")
# nothing selected: that is a failure, not a clean run
[ "$(grep -c '^TALLY ' "$sum")" -gt 0 ] || { echo "FAILED: no test selected"; fail=1; }
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
