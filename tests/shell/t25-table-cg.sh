#!/usr/bin/env bash
# perf report --stdio's call chains in the table sink (--children, -g,
# --max-stack): on files perf records here (cpu-clock -g on one workload,
# sched_switch -g -a, --call-graph dwarf), 'perf rawfrag report --stdio'
# against perf report --stdio on the same file, byte for byte but perf's
# random tip line: section titles, the Children/Self header, every row and
# every line of the graphs under them, for each option set. perf's order of
# equal branches depends on where its DSO objects lie in its memory, and of
# equal rows on its trees' shapes (with -a, threads come and go); there the
# output may differ in order only: such a result is compared with its lines
# sorted and named as such in the result, never hidden. Then bad -g and
# --max-stack values: exit 2 and a message naming them; --children or a
# graph with --weight or --format json (entries' own numbers only): exit 2,
# and without them those modes leave the chains out.
source "$(dirname "$0")/lib.sh"
t_plan 60

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi

# same NAME FILE ARGS...: perf report --stdio ARGS and ours give the same output
same() {
	local name=$1 f=$2; shift 2
	"$PERF" report --stdio -i "$f" "$@" 2>"$T/perf.err" | grep -v '^# (Tip: ' >"$T/perf.out"
	"$RAWFRAG" report --stdio -i "$f" "$@" 2>"$T/ours.err" | grep -v '^# (Tip: ' >"$T/ours.out"
	local rows lines
	rows=$(grep -cE '^ +[0-9.]+%' "$T/perf.out")
	lines=$(wc -l <"$T/perf.out")
	if [ "$rows" -lt 1 ]; then
		t_fail "$name: $*" "perf's table has no rows" "$(head -c 400 "$T/perf.err")"
	elif cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "$name: $* ($rows rows, $lines lines, byte-identical)"
	elif cmp -s <(sort "$T/perf.out") <(sort "$T/ours.out"); then
		t_ok "$name: $* ($rows rows, $lines lines; $(diff "$T/perf.out" "$T/ours.out" |
			grep -c '^<') lines in another order, among equal values)"
	else
		t_fail "$name: $*" "$(diff "$T/perf.out" "$T/ours.out" | head -20)" \
			"$(head -c 400 "$T/ours.err")" "$(chains "$f")"
	fi
}

# for a failure's note: the first samples whose chains perf script and we
# tell apart (a table differs when a chain does: unwinding or symbols)
chains() {
	local F=tid,time,ip,sym,dso
	"$PERF" script -i "$1" -F $F 2>/dev/null >"$T/chains.perf"
	"$RAWFRAG" report -i "$1" -F $F 2>/dev/null >"$T/chains.ours"
	if cmp -s "$T/chains.perf" "$T/chains.ours"; then
		echo "the chains of $1 are perf script's ($(wc -l <"$T/chains.perf") lines)"
	else
		echo "the chains of $1 differ from perf script's:"
		diff -U4 "$T/chains.perf" "$T/chains.ours" | sed -n 3,40p
	fi
}

t_setup "perf records cpu-clock -g" \
	"$PERF" record -q -g -e cpu-clock -o cc.data -- sh -c 'for i in $(seq 150); do ls /usr/bin >/dev/null; done'
t_setup "perf records sched_switch -g -a" \
	"$PERF" record -q -g -e sched:sched_switch -a -o swg.data -- sh -c 'for i in $(seq 30); do ls /proc >/dev/null; sleep 0.01; done'
t_setup "perf records cpu-clock --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,4096 -e cpu-clock -F 2000 -o dw.data -- sh -c 'for i in $(seq 20); do ls /usr/bin >/dev/null; done'
t_setup "perf records cpu-clock --call-graph dwarf: sort's threads" \
	"$PERF" record -q --call-graph dwarf,4096 -e cpu-clock -F 2000 -o dw2.data -- sh -c 'seq 200000 | shuf --random-source=/dev/zero >n.txt; sort -n n.txt >/dev/null'
t_setup "perf records cpu-clock --call-graph dwarf: short processes" \
	"$PERF" record -q --call-graph dwarf,4096 -e cpu-clock -F 2000 -o dw3.data -- sh -c 'for i in $(seq 40); do date; sed s/a/b/ /etc/passwd; done >/dev/null'
t_setup "perf records sched_switch without -g" \
	"$PERF" record -q -e sched:sched_switch -a -o sw.data -- sleep 0.2

# perf's default on a -g file: --children, caller-order graphs at 0.5%
for k in "" "--no-children" "-g none" "--no-children -g none" "-g folded" \
	"--no-children -g folded" "-g flat" "--children -g callee" "--no-children -g caller" \
	"--percent-limit 5" "--no-children --percent-limit 5" "-s dso,sym" \
	"-s pid,dso,sym -n --show-total-period" "-g graph,2,3" "-g graph,0.5,count" \
	"--max-stack 3" "-s comm" "-t ," "-t , --no-children"; do
	same "cpu-clock -g" cc.data $k
done
for k in "" "--no-children" "-g none" "-g folded" "--percent-limit 5" "-s prev_comm,next_comm"; do
	same "sched_switch -g -a" swg.data $k
done
# DWARF-unwound chains, with the inlined functions perf adds (addr2line's):
# perf's --children entries are its tree's (an inlined function compares by
# name, equal on overlapping ranges, and turns into its container found
# from another process), the comm key's collapse merges them again;
# --max-stack keeps the kernel's outermost and the unwinder's innermost
# frames. Equal branches follow perf's DSO objects' order in its memory,
# taken as the order it makes them (build-id table, then maps): should
# that differ, the result says so (lines in another order)
for k in "--no-children --no-inline" "--no-children -g folded" "--no-children -g flat" \
	"--no-children -g none" "" "-g folded" "-g none" "-g flat" "-g caller" "-g callee" \
	"-s dso,sym" "-g folded --max-stack 5" "--max-stack 3"; do
	same "--call-graph dwarf" dw.data $k
done
for k in "" "-g folded" "-s dso,sym" "--max-stack 3" "-g callee --max-stack 4"; do
	same "--call-graph dwarf, sort" dw2.data $k
done
for k in "" "-g callee" "-s dso,sym -g none"; do
	same "--call-graph dwarf, date+sed" dw3.data $k
done

# a pipe: perf decides before the attributes arrive, so no Children column,
# yet graphs in the caller order --children had set
t_setup "perf inject writes cc.data as a pipe" sh -c "'$PERF' inject -i cc.data -o - >cc.pipe"
for k in "" "--no-children"; do
	"$PERF" report --stdio -i - $k <cc.pipe 2>/dev/null | grep -v '^# (Tip: ' >"$T/perf.out"
	"$RAWFRAG" report --stdio -i - $k <cc.pipe 2>"$T/ours.err" | grep -v '^# (Tip: ' >"$T/ours.out"
	if [ "$(grep -c '%' "$T/perf.out")" -gt 0 ] && cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "cpu-clock -g as a pipe: -i - $k ($(wc -l <"$T/perf.out") lines, byte-identical)"
	else
		t_fail "cpu-clock -g as a pipe: -i - $k" "$(diff "$T/perf.out" "$T/ours.out" | head -20)" \
			"$(head -c 400 "$T/ours.err")"
	fi
done

# Python's Reader.write() opens the same sink with the same options
PYTHONPATH=${PYTHONPATH:-$O/python} python3 -c '
import rawfrag
rawfrag.open("cc.data").write("table", "py.table", callgraph="folded", max_stack="5")' >"$T/err" 2>&1
"$RAWFRAG" report --stdio -i cc.data -g folded --max-stack 5 >"$T/out" 2>&1
if [ -s py.table ] && cmp -s py.table "$T/out"; then
	t_ok "Reader.write('table', callgraph='folded', max_stack='5') = report -g folded --max-stack 5"
else
	t_fail "Reader.write('table', callgraph=...)" "$(head -c 400 "$T/err")" \
		"$(diff py.table "$T/out" 2>&1 | head -5)"
fi

t_run "-g graph on a file without call chains: exit 2" 2 "$RAWFRAG" report --stdio -i sw.data -g graph
t_grep "... and the message says why" "no sample has a call chain" "$T/err"
t_run "-g bogus: exit 2" 2 "$RAWFRAG" report --stdio -i cc.data -g graph,bogus
t_grep "... and the message names it" "bogus" "$T/err"
t_run "-g address (an unsupported key): exit 2" 2 "$RAWFRAG" report --stdio -i cc.data -g address
t_run "--max-stack 0: exit 2" 2 "$RAWFRAG" report --stdio -i cc.data --max-stack 0
t_run "--children with --weight: exit 2" 2 "$RAWFRAG" report --stdio -i cc.data --children --weight period
t_run "-g graph with --format json: exit 2" 2 "$RAWFRAG" report --stdio -i cc.data -g graph --format json
t_run "--weight on a -g file, neither asked for: no chains (exit 0)" 0 "$RAWFRAG" report --stdio -i cc.data --weight period
t_grep "... and the Overhead column alone" "^# Overhead" "$T/out"
t_run "--children with --dsos: exit 2" 2 "$RAWFRAG" report --stdio -i cc.data --children --dsos libc.so.6
