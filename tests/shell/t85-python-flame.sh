#!/usr/bin/env bash
# Flame graphs from Python: Reader.folded() is the "folded" sink's text, read
# back through the module, on a cpu-clock -g recording made here: equal to
# perf 6.1's stackcollapse.py (the oracle, with and without its options), to
# report --format folded, with the Reader's selection and a weight; bad options
# raise rawfrag.Error naming them. Reader.write() writes the other two formats
# as the command does; without d3-flame-graph the page is an error naming it.
source "$(dirname "$0")/lib.sh"
t_plan 10
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export PYTHONPATH=$O/python
SC=/usr/lib/perf-core/scripts/python/stackcollapse.py

if ! ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	t_fail "python module built" "no $O/python/rawfrag*.so"
	t_skip_rest "the module is not built"
fi
if ! is_root || ! command -v "$PERF" >/dev/null; then t_skip_rest "recording needs root and perf"; fi
[ -f "$SC" ] || t_skip_rest "perf's stackcollapse.py not at $SC"

t_setup "perf record -g" "$PERF" record -q -g -e cpu-clock -c 200000 -o cg.data -- \
	sh -c 'for i in $(seq 200); do echo $i | md5sum >/dev/null; done'

# folded NAME 'PYOPTS' SCRIPT-OPTS...: Reader.folded(PYOPTS) = stackcollapse.py SCRIPT-OPTS
folded() {
	local name=$1 pyopts=$2
	shift 2
	"$PERF" script -i cg.data -s "$SC" -- "$@" >perf.out 2>perf.err
	$PY - >py.out 2>py.err <<EOF
import rawfrag, sys
sys.stdout.write(rawfrag.open("cg.data").folded($pyopts))
EOF
	local n
	n=$(wc -l <perf.out)
	if [ "$n" -lt 2 ]; then
		t_fail "$name" "stackcollapse.py printed $n lines" "$(head -c 300 perf.err)"
	elif cmp -s perf.out py.out; then
		t_ok "$name = stackcollapse.py $* ($n stacks, byte-identical)"
	else
		t_fail "$name" "$(diff perf.out py.out | head -8)" "$(head -c 300 py.err)"
	fi
}
folded "folded()" ""
folded "folded(kernel=True, include_pid=True)" "kernel=True, include_pid=True" --kernel --include-pid
folded "folded(no_comm=True)" "no_comm=True" --no-comm

# the command's text, with a selection and a weight
$PY -c '
import rawfrag
r = rawfrag.open("cg.data")
print(r.folded(weight="period", comm="sh"), end="")' >py.out 2>py.err
if [ $? = 0 ]; then t_fail "comm= is no option of folded(): raises" "$(head -c 300 py.out)"
else t_grep "folded(comm=...) raises rawfrag.Error naming the option" "no option 'comm'" py.err; fi
$PY -c '
import rawfrag
print(rawfrag.open("cg.data").folded(weight="period", pid="1-999999"), end="")' >py.out 2>py.err
"$RAWFRAG" report -i cg.data --pid 1-999999 --format folded --weight period >cmd.out 2>cmd.err
if [ -s py.out ] && cmp -s py.out cmd.out; then
	t_ok "folded(weight='period', pid=...) = report --format folded --weight period --pid ($(wc -l <py.out) stacks)"
else
	t_fail "folded(weight, pid) = report" "$(head -c 300 py.err)" "$(diff py.out cmd.out | head -5)"
fi
$PY -c '
import rawfrag
rawfrag.open("cg.data").folded(weight="no_such_field")' >py.out 2>py.err
t_grep "folded(weight='no_such_field') raises naming the field" "rawfrag.Error.*no_such_field" py.err

# the other two through write(), as the command writes them
for f in flamegraph-json flamegraph; do
	$PY -c "
import rawfrag
rawfrag.open('cg.data').write('$f', 'py.out')" 2>py.err
	"$RAWFRAG" report -i cg.data --format $f -o cmd.out 2>cmd.err
	if [ -s py.out ] && cmp -s py.out cmd.out; then
		t_ok "write('$f') = report --format $f ($(wc -c <py.out) bytes)"
	else
		t_fail "write('$f') = report --format $f" "$(head -c 300 py.err)" "$(cmp py.out cmd.out 2>&1)"
	fi
done
# the page's scripts missing: an error naming the file and make deps
$PY -c '
import rawfrag
rawfrag.open("cg.data").write("flamegraph", "x.html", js="/nonexistent")' >py.out 2>py.err
t_grep "write('flamegraph', js='/nonexistent') raises naming the asset and make deps" \
	"/nonexistent/node_modules/d3-flame-graph/.*make deps" py.err
# formats() names them
$PY -c 'import rawfrag; print(",".join(rawfrag.formats()))' >fmts.out 2>&1
t_grep "formats() lists folded, flamegraph-json, flamegraph" ',folded,flamegraph-json,flamegraph(,|$)' fmts.out
