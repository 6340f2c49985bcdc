#!/usr/bin/env bash
# The harness itself: tests/tap.awk (what tests/run.sh counts) and lib.sh's helpers.
# Synthetic test outputs with a known right tally: a failure whose details hold lines
# that look like results, a short plan, no plan, results out of sequence, a non-zero
# exit with every check passing, skips with reasons, t_skip_rest filling the plan.
source "$(dirname "$0")/lib.sh"
t_plan 18
TAP="$TOP/tests/tap.awk"

# tally NAME RC: the TALLY line tap.awk gives for stdin ("pass fail skip plan")
tally() { awk -v name="$1" -v rc="$2" -f "$TAP" | tee "$T/tally.$1" | sed -n 's/^TALLY \([^ ]* [^ ]* [^ ]* [^ ]*\) .*/\1/p'; }

# a script that fails once, with details that contain "ok" lines (pkt_check.py's output)
cat >fails.sh <<EOS
source "$TOP/tests/shell/lib.sh"
t_plan 2
t_ok "first"
t_fail "udp packets" "\$(printf 'ok udp 1 127.0.0.1\nok 3 - not a result\nnot ok udp 2')"
EOS
bash fails.sh >fails.out 2>&1; rc=$?
t_eq "failure details with 'ok' lines: 1 passed, 1 failed" "1 1 0 2" "$(tally fails $rc <fails.out)"
if grep -vE '^(1\.\.2|ok 1 - first|not ok 2 - udp packets)$' fails.out | grep -qv '^#'; then
	t_fail "every detail line is behind '#'" "$(cat fails.out)"
else t_ok "every detail line is behind '#'"; fi
t_grep "the failure is named" "^FAIL fails: udp packets$" "$T/tally.fails"

# a plan of 5 with an early exit after 2 checks
printf '1..5\nok 1 - a\nok 2 - b\n' >short.out
t_eq "short plan: a failure" "2 1 0 5" "$(tally short 0 <short.out)"
t_grep "short plan: says so" "planned 5 checks, 2 ran" "$T/tally.short"

# no plan at all
printf 'ok 1 - a\n' >noplan.out
t_eq "no plan: a failure" "1 1 0 -" "$(tally noplan 0 <noplan.out)"
t_grep "no plan: says so" "no plan" "$T/tally.noplan"

# a stray numbered result between real ones: out of sequence, a failure, not a pass
printf '1..2\nok 1 - a\nok 7 - stray\nok 2 - b\n' >stray.out
t_eq "stray result line: a failure" "2 1 0 2" "$(tally stray 0 <stray.out)"

# unnumbered "ok" lines are no results at all
printf '1..1\nok udp 127.0.0.1\nok 1 - a\n' >unnum.out
t_eq "unnumbered ok line: not counted" "1 0 0 1" "$(tally unnum 0 <unnum.out)"

# every check passed but the program crashed afterwards
printf '1..1\nok 1 - a\n' >crash.out
t_eq "non-zero exit: a failure" "1 1 0 1" "$(tally crash 99 <crash.out)"

# skips are counted as skips, with their reasons
printf '1..3\nok 1 - a\nok 2 - b # SKIP no veth here\nok 3 - c # skip lower case\n' >skip.out
t_eq "skips: counted apart" "1 0 2 3" "$(tally skip 0 <skip.out)"
t_grep "skips: reason kept" "^SKIP skip: b \(no veth here\)$" "$T/tally.skip"

# t_skip_rest turns the rest of the plan into skips and stops the script
cat >rest.sh <<EOS
source "$TOP/tests/shell/lib.sh"
t_plan 4
t_ok "runs"
t_skip_rest "needs a PMU this machine lacks"
t_ok "never reached"
EOS
bash rest.sh >rest.out 2>&1; rc=$?
t_eq "t_skip_rest: 1 passed, 3 skipped" "1 0 3 4" "$(tally rest $rc <rest.out)"
t_grep "t_skip_rest: reason on each skip" "^ok 4 - .*# SKIP needs a PMU this machine lacks$" rest.out

# a plan of 2 with 3 results
printf '1..2\nok 1 - a\nok 2 - b\nok 3 - c\n' >over.out
t_eq "more results than planned: a failure" "3 1 0 2" "$(tally over 0 <over.out)"

# cmocka's TAP (its "# ok - tests" trailer is a comment)
printf '1..2\nok 1 - test_a\nnot ok 2 - test_b\n# not ok - tests\n' >cm.out
t_eq "cmocka output: 1 passed, 1 failed" "1 1 0 2" "$(tally cm 1 <cm.out)"

# run.sh: a pattern that selects nothing is a failure, and the last line is the tally
bash "$TOP/tests/run.sh" no-such-test-anywhere >runsh.out 2>&1; rc=$?
t_eq "run.sh selecting nothing: exit 1" 1 "$rc"
t_eq "run.sh: last line" "0 passed, 1 failed, 0 skipped" "$(tail -n 1 runsh.out)"
