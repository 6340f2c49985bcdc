#!/usr/bin/env bash
# Reader.aggregate(): perf report's table as Python rows, made by the library's
# table output (report --stdio --format json), on a sys_enter_read file
# recorded here: the rows of sort='comm,dso,sym' against perf report's own
# (-n -t '|': every key, sample count and percentage), weight='count' against
# awk's sums over perf script's text, hist='count' against awk's log2
# buckets, the filters against perf report --comms, the IBS fixture's decoded
# keys; bad fields raise rawfrag.Error naming them.
source "$(dirname "$0")/lib.sh"
t_plan 9
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export PYTHONPATH=$O/python

if ! ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	t_fail "python module built" "no $O/python/rawfrag*.so"
	t_skip_rest "the module is not built"
fi
if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi

# no -a: every user address of these processes resolves on both sides
t_setup "perf records syscalls:sys_enter_read" \
	"$PERF" record -q -e syscalls:sys_enter_read -o rd.data -- sh -c '
	for i in $(seq 5); do
		dd if=/dev/zero of=/dev/null bs=4096 count=20 2>/dev/null
		head -c 50000 /dev/urandom >/dev/null
		cat /etc/services >/dev/null
	done'
perf_read_counts rd.data >perf.cv
n=$(wc -l <perf.cv)
if [ "$n" -lt 20 ]; then
	t_fail "set-up: perf script shows the reads" "only $n samples"
	exit 1
fi

# py CODE: runs CODE with r = rawfrag.open("rd.data"), output in py.out
py() {
	$PY - >py.out 2>py.err <<EOF
import rawfrag, sys
r = rawfrag.open("rd.data")
$1
EOF
}

# perf report's rows: "comm|dso|sym|samples|percent"
"$PERF" report --stdio -i rd.data -q -n -t '|' -s comm,dso,sym 2>/dev/null | awk -F'|' 'NF >= 5 {
	for (i = 1; i <= NF; i++) { gsub(/^ +| +$/, "", $i) }
	sub(/^\[.\] /, "", $5); sub(/%$/, "", $1); print $3 "|" $4 "|" $5 "|" $2 "|" $1 }' | sort >perf.rows
py 'for e in r.aggregate(sort="comm,dso,sym"):
    k = e["keys"]
    print("%s|%s|%s|%d|%.2f" % (k["comm"], k["dso"], k["sym"], e["samples"], e["percent"]))'
sort py.out >py.rows
if [ -s perf.rows ] && cmp -s perf.rows py.rows; then
	t_ok "aggregate(sort='comm,dso,sym'): perf report's rows ($(wc -l <perf.rows) rows: keys, samples, percent)"
else
	t_fail "aggregate(sort='comm,dso,sym') = perf report's rows" "$(diff perf.rows py.rows | head -10)" \
		"$(head -c 400 py.err)"
fi
py 'a = r.aggregate(sort="comm,dso,sym"); b = r.aggregate(sort=["comm", "dso", "sym"])
print(a == b, sorted(a[0]), abs(sum(e["percent"] for e in a) - 100) < 0.01)'
t_eq "a list of keys = the comma list; each row has keys, samples, period, weight, percent; 100% in all" \
	"True ['event', 'keys', 'kind', 'percent', 'period', 'samples', 'weight'] True" "$(cat py.out py.err)"

py 'for e in r.aggregate(sort="comm", weight="count"):
    print("%s|%d|%d" % (e["keys"]["comm"], e["samples"], e["weight"]))'
t_eq "aggregate(sort='comm', weight='count') = awk's sums over perf script ($n samples)" \
	"$(awk -F'\t' '{ w[$1] += $2; s[$1]++ } END { for (c in w) printf "%s|%d|%d\n", c, s[c], w[c] }' perf.cv | sort)" \
	"$(sort py.out; cat py.err)"

py 'for e in r.aggregate(hist="count"):
    print("%d|%d|%d" % (e["lo"], e["hi"], e["count"]))'
t_eq "aggregate(hist='count'): awk's log2 buckets" \
	"$(awk -F'\t' '{ v = $2; lo = 0; hi = 1; if (v >= 1) { lo = 1; while (lo * 2 <= v) lo *= 2; hi = lo * 2 }
		c[lo "|" hi]++ } END { for (k in c) print k "|" c[k] }' perf.cv | sort)" \
	"$(sort py.out; cat py.err)"

"$PERF" report --stdio -i rd.data -q -n -t '|' -s comm --comms dd,cat --percentage relative 2>/dev/null |
	awk -F'|' 'NF >= 3 { for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i); print $3 "|" $2 "|" $1 }' | sort >perf.f
py 'for e in r.aggregate(sort="comm", comms=["dd", "cat"], percentage="relative"):
    print("%s|%d|%.2f%%" % (e["keys"]["comm"], e["samples"], e["percent"]))'
t_eq "aggregate(comms=[...], percentage='relative') = perf report --comms --percentage relative" \
	"$(cat perf.f)" "$(sort py.out; cat py.err)"

# the IBS fixture's decoded keys, against the per-sample fields the module gives
t_setup "ibs-gen writes the fixtures" "$(t_bin ibs-gen)" write fx
$PY - >py.out 2>py.err <<'EOF'
import collections, rawfrag
r = rawfrag.open("fx/ibs-zen4.data", events="ibs_op//")
want = collections.Counter()
for s in r:
    d = s.fields.get("derived", {})
    if "dc_miss_latency" in d:
        want[d.get("cache_level")] += d["dc_miss_latency"]
got = {e["keys"]["derived.cache_level"]: e["weight"]
       for e in r.aggregate(sort="derived.cache_level", weight="derived.dc_miss_latency")
       if e["weight"]}
print("same" if dict(want) == got and got else "differ: %r %r" % (dict(want), got))
EOF
t_eq "IBS: aggregate(sort='derived.cache_level', weight='derived.dc_miss_latency') = the samples' sums" \
	same "$(cat py.out py.err)"

py 'try:
    r.aggregate(sort="comm", weight="no_such_field")
except rawfrag.Error as e:
    print("Error:", e)'
t_grep "a weight field no sample has: rawfrag.Error naming it" "^Error: .*no_such_field" py.out
py 'try:
    r.aggregate(sort="comm,bogus_key")
except rawfrag.Error as e:
    print("Error:", e)'
t_grep "an unknown sort key: rawfrag.Error naming it" "^Error: .*bogus_key" py.out
py 'try:
    r.aggregate(sort="comm", format="text")
except TypeError as e:
    print("TypeError:", e)'
t_grep "aggregate() refuses format=: rows are dicts" "^TypeError: aggregate\(\): rows are dicts" py.out
