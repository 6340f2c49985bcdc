#!/usr/bin/env bash
# Replays the committed fuzz corpus and freshly generated seeds through the fuzz
# harness (reader + parser + checker + all decoders) under ASan+UBSan.
source "$(dirname "$0")/lib.sh"
t_plan 4
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
# the command's output modes (tests/fuzz/fuzz_tool.c) over the same inputs
treplay=$ASAN_O/tests/fuzz-tool-replay
[ -x "$treplay" ] || treplay=$O/tests/fuzz-tool-replay
if [ -x "$treplay" ]; then
	t_run "replay seeds and corpus through report/check modes (text, json, stats, check)" 0 \
		env FUZZ_MODE=all "$treplay" "$T/seeds" "$TOP/tests/fuzz/corpus"
	t_grep "tool replay ran every input" "^replayed [1-9][0-9]* inputs" "$T/out"
else
	t_fail "fuzz-tool-replay binary built" "missing $treplay"
	t_skip "tool replay ran every input" "no fuzz-tool-replay"
fi
