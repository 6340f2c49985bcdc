#!/usr/bin/env bash
# Run every test: cmocka unit tests (ASan+UBSan build), shell tests (tests/shell/t*.sh),
# fuzz corpus replay. Every test prints TAP lines; this script counts them and ends
# with "N passed, N failed, N skipped". Exit 1 if anything failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-$top/build/out}
ASAN_O=${ASAN_O:-$top/build/asan}
export O ASAN_O
log=$(mktemp); trap 'rm -f "$log"' EXIT
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=98}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}

run_one() { # name cmd...
	local name=$1; shift
	echo "# --- $name"
	local out rc
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out"
	# a test program that crashed or exited non-zero without reporting a failure
	if [ $rc -ne 0 ] && ! grep -q '^not ok' <<<"$out"; then
		echo "not ok - $name exited with status $rc"
	fi
}

{
	bindir=$ASAN_O/tests
	[ -d "$bindir" ] || bindir=$O/tests
	for t in "$bindir"/test_*; do
		[ -x "$t" ] || continue
		run_one "unit $(basename "$t")" "$t"
	done
	for t in "$top"/tests/shell/t*.sh; do
		[ -f "$t" ] || continue
		run_one "shell $(basename "$t")" bash "$t"
	done
} 2>&1 | tee "$log"

pass=$(grep -cE '^ok ' "$log" | tr -d ' ')
skip=$(grep -cE '^ok .*# SKIP' "$log" | tr -d ' ')
fail=$(grep -cE '^not ok' "$log" | tr -d ' ')
pass=$((pass - skip))
echo
grep -E '^not ok' "$log" | sed 's/^/FAILED: /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
