#!/usr/bin/env bash
# Replays the committed fuzz corpus and freshly generated seeds through the fuzz
# harness (reader + parser + checker + all decoders) under ASan+UBSan.
source "$(dirname "$0")/lib.sh"
t_plan 2
replay=$ASAN_O/tests/fuzz-replay
[ -x "$replay" ] || replay=$O/tests/fuzz-replay
if [ ! -x "$replay" ]; then
	t_fail "fuzz replay binary built" "missing $replay"
	exit 1
fi
O=$O bash "$TOP/tests/fuzz/seed.sh" "$T/seeds" 2>"$T/seed.log"
n=$(ls "$T/seeds" | wc -l)
[ "$n" -gt 0 ] || { t_fail "set-up: fuzz seeds generated" "$(cat "$T/seed.log")"; exit 1; }
echo "# $n fuzz seeds generated"
t_run "replay generated seeds without sanitizer errors" 0 "$replay" "$T/seeds"
if [ -d "$TOP/tests/fuzz/corpus" ] && [ -n "$(ls "$TOP/tests/fuzz/corpus")" ]; then
	t_run "replay committed corpus ($(ls "$TOP/tests/fuzz/corpus" | wc -l) inputs)" 0 "$replay" "$TOP/tests/fuzz/corpus"
else
	t_skip "replay committed corpus" "no committed corpus yet"
fi
