#!/usr/bin/env bash
# The tracepoint producer against perf itself, on tracepoints recorded during the
# test from the running kernel (file and pipe mode, 16 events: sched, syscalls,
# raw_syscalls, net, skb, irq, timer; then every event of 10 subsystems):
#   - every sample's text from `perf rawfrag report` equals the line of
#     `perf script -F comm,tid,cpu,time,event,trace`;
#   - every JSON field equals what perf's Python scripting hands to a handler
#     (tests/scripts/tp_fields.py), compared by tests/scripts/tp_cmp_fields.py;
# and on the big-endian fixture from tests/gen/tp-be-gen (values it chose):
# perf and perf-rawfrag both give those values and the same text; corrupt
# payloads are check violations of the right kind, corrupt formats a warning;
# nothing crashes (the tool is the ASan+UBSan build when present).
source "$(dirname "$0")/lib.sh"
t_plan 44

GEN=$O/tests/tp-be-gen
SCRIPTS=$TOP/tests/scripts
if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "tracepoint: needs root, tracefs and perf"
fi
if ! command -v python3 >/dev/null; then t_skip_rest "tracepoint: needs python3"; fi

EVENTS="sched:sched_switch sched:sched_wakeup sched:sched_process_exec
	sched:sched_process_fork syscalls:sys_enter_openat syscalls:sys_exit_openat
	raw_syscalls:sys_enter raw_syscalls:sys_exit net:net_dev_queue
	net:netif_receive_skb skb:kfree_skb skb:consume_skb irq:softirq_entry
	irq:irq_handler_entry timer:hrtimer_start timer:timer_start"
# a short workload: exec, fork, open, and a UDP datagram on lo (no listener:
# queued, received, dropped, ICMP back)
WORK='ls / >/dev/null; cat /etc/hostname >/dev/null; bash -c "echo x >/dev/udp/127.0.0.1/9" 2>/dev/null; sleep 0.05'

# record OUT [pipe]: perf's own syscalls are filtered out (the sh execs into perf,
# so $$ is perf's pid) to keep pipe mode from tracing its own writes
record() {
	local out=$1 mode=${2:-file} ev args=()
	for ev in $EVENTS; do
		args+=(-e "$ev")
		case $ev in raw_syscalls:*|syscalls:*) args+=(--filter "common_pid != PERFPID") ;; esac
	done
	# bash execs into perf: its $$ is perf's pid
	local rec='exec "$0" record -q -a "${@//PERFPID/$$}"'
	if [ "$mode" = pipe ]; then
		bash -c "$rec" "$PERF" "${args[@]}" -o - -- sh -c "$WORK" >"$out" 2>"$T/rec.err"
	else
		bash -c "$rec" "$PERF" "${args[@]}" -o "$out" -- sh -c "$WORK" 2>"$T/rec.err"
	fi
}

# compare NAME FILE [--big-endian]: text and JSON of every sample, perf vs ours
compare() {
	local name=$1 f=$2 be=${3:-} rc nev
	"$PERF" script -i "$f" -F comm,tid,cpu,time,event,trace 2>/dev/null >"$T/perf.txt"
	"$RAWFRAG" report -i "$f" >"$T/ours.txt" 2>"$T/ours.err"; rc=$?
	t_eq "$name: report exit" 0 "$rc"
	nev=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_]+:[a-z_0-9]+:$/) { print $i; break } }' \
		"$T/perf.txt" | sort -u | wc -l)
	# recordings hold at least 10 tracepoints; the generator's file at least one
	local want=10
	[ -n "$be" ] && want=1
	if [ "$nev" -lt "$want" ]; then
		t_fail "$name: at least $want tracepoints recorded" "only $nev: $(head -c 300 "$T/rec.err")"
	else
		t_ok "$name: $nev tracepoints, $(wc -l <"$T/perf.txt") samples"
	fi
	# same lines, compared sorted: first without comm/tid (the decoder's part),
	# then whole lines (task names need FORK/COMM taken in time order), then in
	# perf script's order (samples sorted by time as perf's ordered events do)
	"$PERF" script -i "$f" -F cpu,time,event,trace 2>/dev/null >"$T/perf-tr.txt"
	"$RAWFRAG" report -i "$f" -F cpu,time,event,trace >"$T/ours-tr.txt" 2>/dev/null
	if [ -s "$T/perf-tr.txt" ] && diff <(sort "$T/perf-tr.txt") <(sort "$T/ours-tr.txt") >"$T/diff"; then
		t_ok "$name: cpu,time,event,trace text equals perf script's"
	else
		t_fail "$name: cpu,time,event,trace text equals perf script's" "$(head -n 6 "$T/diff")"
	fi
	if [ -s "$T/perf.txt" ] && diff <(sort "$T/perf.txt") <(sort "$T/ours.txt") >"$T/diff"; then
		t_ok "$name: comm,tid,cpu,time,event,trace lines equal perf script's"
	else
		t_fail "$name: comm,tid,cpu,time,event,trace lines equal perf script's" \
			"$(grep -c '^<' "$T/diff") lines differ" "$(head -n 6 "$T/diff")"
	fi
	if [ -s "$T/perf.txt" ] && diff "$T/perf.txt" "$T/ours.txt" >"$T/diff"; then
		t_ok "$name: lines in perf script's order"
	else
		t_fail "$name: lines in perf script's order" "$(head -n 6 "$T/diff")"
	fi
	# perf's Python values, without the threads whose comm it crashes on
	python3 "$SCRIPTS/tp_oracle.py" "$PERF" "$f" "$T/perf.jsonl" >"$T/oracle" 2>"$T/cmp" ||
		: >"$T/perf.jsonl"
	"$RAWFRAG" report -i "$f" --format json >"$T/ours.jsonl" 2>>"$T/ours.err"
	# shellcheck disable=SC2046
	if python3 "$SCRIPTS/tp_cmp_fields.py" "$T/perf.jsonl" "$T/ours.jsonl" $be \
		$(head -n 1 "$T/oracle") >>"$T/cmp" 2>&1; then
		t_ok "$name: JSON fields equal perf's Python fields ($(tail -n 1 "$T/cmp"))"
	else
		t_fail "$name: JSON fields equal perf's Python fields" "$(head -n 8 "$T/cmp")"
	fi
}

record "$T/file.data"
compare "file mode" "$T/file.data"
# %ps symbols come from perf's build-id cache copy of the recording kernel's
# kallsyms: a cache with one symbol renamed must show up in the text
bid=$("$PERF" buildid-list -i "$T/file.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
sym=$(grep -o 'function=[a-z_][a-z_0-9]*' "$T/perf-tr.txt" 2>/dev/null | head -n 1 | cut -d= -f2)
if [ -n "$bid" ] && [ -n "$sym" ] && [ -r "$HOME/.debug/[kernel.kallsyms]/$bid/kallsyms" ]; then
	mkdir -p "$T/home/.debug/[kernel.kallsyms]/$bid"
	sed "s/ $sym\$/ rawfrag_renamed_$sym/" "$HOME/.debug/[kernel.kallsyms]/$bid/kallsyms" \
		>"$T/home/.debug/[kernel.kallsyms]/$bid/kallsyms"
	HOME=$T/home "$RAWFRAG" report -i "$T/file.data" -F event,trace >"$T/ks.txt" 2>/dev/null
	t_eq "kernel symbols from the build-id cache ($sym)" \
		"$(grep -c "function=$sym " "$T/perf-tr.txt")" "$(grep -c "function=rawfrag_renamed_$sym " "$T/ks.txt")"
else
	t_skip "kernel symbols from the build-id cache" "no %ps symbol or no cached kallsyms for this file"
fi

record "$T/pipe.data" pipe
compare "pipe mode" "$T/pipe.data"
# the tool reading the pipe from stdin gives the same text
"$RAWFRAG" report -i - <"$T/pipe.data" >"$T/stdin.txt" 2>/dev/null
"$RAWFRAG" report -i "$T/pipe.data" >"$T/ours.txt" 2>/dev/null
t_eq "pipe mode on stdin: same text" "$(md5sum <"$T/ours.txt")" "$(md5sum <"$T/stdin.txt")"

# breadth: every event of several subsystems (about 70 tracepoints fire), same checks
"$PERF" record -q -a -o "$T/wide.data" -e 'sched:*' -e 'irq:*' -e 'timer:*' -e 'kmem:*' \
	-e 'workqueue:*' -e 'signal:*' -e 'task:*' -e 'net:*' -e 'skb:*' -e 'block:*' \
	-- sh -c "$WORK" 2>"$T/rec.err"
compare "10 subsystems, all events" "$T/wide.data"

# kernel records carry no stale tail: check is clean
"$RAWFRAG" check "$T/file.data" >"$T/check" 2>&1
t_eq "check on the recorded file: clean" 0 "$?"
"$RAWFRAG" check -v "$T/wide.data" >"$T/check" 2>&1; rc=$?
t_eq "check on the 10-subsystem file: clean (true lengths right for every event)" 0 "$rc"
[ "$rc" = 0 ] || grep -m 3 "error" "$T/check"

if [ ! -x "$GEN" ]; then t_fail "big-endian fixture" "tp-be-gen not built"; exit 1; fi

# ---- big-endian fixture: values chosen by the generator ----
t_setup "tp-be-gen writes the big-endian file" "$GEN" "$T/be.data" "$T/be.jsonl"
compare "big-endian" "$T/be.data" --big-endian
if python3 "$SCRIPTS/tp_cmp_fields.py" "$T/be.jsonl" "$T/ours.jsonl" --big-endian >"$T/cmp" 2>&1; then
	t_ok "big-endian: JSON fields equal the generator's values"
else
	t_fail "big-endian: JSON fields equal the generator's values" "$(head -n 8 "$T/cmp")"
fi
if python3 "$SCRIPTS/tp_cmp_fields.py" "$T/perf.jsonl" "$T/be.jsonl" --big-endian >"$T/cmp" 2>&1; then
	t_ok "big-endian: perf's Python fields equal the generator's values"
else
	t_fail "big-endian: perf's Python fields equal the generator's values" "$(head -n 8 "$T/cmp")"
fi
# exact order too: the fixture is in time order
t_eq "big-endian: text in perf script's order" "$(md5sum <"$T/perf.txt")" "$(md5sum <"$T/ours.txt")"

# evsels without names: named "sys:name" from the tracing data, as perf does
"$GEN" -N -n 40 "$T/nn.data" "$T/nn.jsonl"
"$PERF" script -i "$T/nn.data" -F comm,tid,cpu,time,event,trace 2>/dev/null >"$T/perf-nn.txt"
"$RAWFRAG" report -i "$T/nn.data" >"$T/ours-nn.txt" 2>/dev/null
if [ -s "$T/perf-nn.txt" ] && diff "$T/perf-nn.txt" "$T/ours-nn.txt" >"$T/diff"; then
	t_ok "nameless evsels: named from the tracing data as perf names them"
else
	t_fail "nameless evsels: named from the tracing data as perf names them" "$(head -n 4 "$T/diff")"
fi

# pipe mode big-endian: perf 6.1 cannot read it (Documentation/perf.data-raw-format.txt,
# Other byte order), we can
"$GEN" -p "$T/bep.data" "$T/bep.jsonl"
"$RAWFRAG" report -i "$T/bep.data" --format json >"$T/ours.jsonl" 2>"$T/ours.err"
if python3 "$SCRIPTS/tp_cmp_fields.py" "$T/bep.jsonl" "$T/ours.jsonl" --big-endian >"$T/cmp" 2>&1; then
	t_ok "big-endian pipe: JSON fields equal the generator's values"
else
	t_fail "big-endian pipe: JSON fields equal the generator's values" "$(head -n 8 "$T/cmp")"
fi

# ---- corrupt payloads: each is a violation of its kind, no crash ----
"$GEN" -c "$T/bad.data" "$T/bad.jsonl"
"$RAWFRAG" check -v "$T/bad.data" >"$T/check" 2>&1
t_eq "corrupt payloads: check exits 1" 1 "$?"
want=$(grep -o '"corrupt": "[a-z_]*' "$T/bad.jsonl" | awk -F'"' '{ print $4 }' | sort | uniq -c)
got=$(grep -oE 'SAMPLE: [^ ]+ tp_[a-z_]+' "$T/check" | awk '{ print $3 }' | sort | uniq -c)
t_eq "corrupt payloads: one violation per spoilt sample, of its kind" "$want" "$got"
"$RAWFRAG" report -i "$T/bad.data" >"$T/ours.txt" 2>"$T/ours.err"; rc=$?
t_eq "corrupt payloads: report runs to the end" 0 "$rc"
t_eq "corrupt payloads: each marked in the text" "$(grep -c corrupt "$T/bad.jsonl")" \
	"$(grep -c ': \[bad [a-z_]*:[a-z_]* payload: ' "$T/ours.txt")"
"$RAWFRAG" report -i "$T/bad.data" --format json >/dev/null 2>&1; rc=$?
t_eq "corrupt payloads: JSON report runs to the end" 0 "$rc"

# ---- corrupt formats: warned, those events fall back, the others decode ----
python3 - "$T/be.data" "$T/fmt.data" "$T/size.data" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
# a format whose field offsets do not parse
i = d.index(b"name: sched_wakeup")
j = d.index(b"offset:", i)
open(sys.argv[2], "wb").write(d[:j] + b"offsex:" + d[j + 7:])
# a format size far past the blob
i = d.index(b"name: sched_switch")
open(sys.argv[3], "wb").write(d[:i - 8] + b"\xff" * 8 + d[i:])
EOF
"$RAWFRAG" report -i "$T/fmt.data" >"$T/ours.txt" 2>"$T/ours.err"; rc=$?
t_eq "corrupt format: report exit" 0 "$rc"
t_grep "corrupt format: warned" "does not parse" "$T/ours.err"
t_eq "corrupt format: other events still decode" \
	"$(grep -c 'sched:sched_switch: prev_comm=' "$T/perf.txt")" \
	"$(grep -c 'sched:sched_switch: prev_comm=' "$T/ours.txt")"
"$RAWFRAG" report -i "$T/size.data" >"$T/ours.txt" 2>"$T/ours.err"; rc=$?
t_eq "corrupt format size: report exit" 0 "$rc"
t_grep "corrupt format size: warned with the blob offset" \
	"tracing data: bad or truncated format text at blob offset 0x" "$T/ours.err"
"$RAWFRAG" check "$T/size.data" >/dev/null 2>&1; rc=$?
t_eq "corrupt format size: check does not crash" 0 "$rc"
