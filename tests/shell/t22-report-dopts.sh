#!/usr/bin/env bash
# report --decoder-opt KEY=VALUE reaches the decoders (here: the IBS fetch layout
# override for same-size layouts), and a malformed option is refused.
source "$(dirname "$0")/lib.sh"
t_plan 6
gen=$O/tests/ibs-gen
[ -x "$gen" ] || { t_fail "ibs-gen built" "missing $gen"; exit 1; }
"$gen" write ibs >/dev/null 2>&1
f=ibs/ibs-zen3.data
layouts() { grep -o '"layout":"fetch[^"]*"' | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' '; }
def=$("$RAWFRAG" report --format json -i "$f" | layouts)
old=$("$RAWFRAG" report --format json --decoder-opt ibs_layout=old -i "$f" | layouts)
new=$("$RAWFRAG" report --format json --decoder-opt ibs_layout=new -i "$f" | layouts)
n=$(echo "$def" | grep -o 'x[0-9]*' | tr -d x)
t_eq "zen3 fetch samples default to the 2020 layout (recent OSRELEASE)" '"layout":"fetch-2020"x'"$n " "$def"
t_eq "--decoder-opt ibs_layout=old selects the pre-2020 layout" '"layout":"fetch-pre2020"x'"$n " "$old"
t_eq "--decoder-opt ibs_layout=new keeps the 2020 layout" "$def" "$new"
t_run "--decoder-opt without '=' is refused" 2 "$RAWFRAG" report --decoder-opt ibs_layout -i "$f"
t_grep "the refusal names the option" "bad decoder option 'ibs_layout' \(want key=value\)" "$T/err"
# several options at once (the report keeps up to 7 decoder options)
t_run "several --decoder-opt at once" 0 "$RAWFRAG" report --decoder-opt ibs_layout=old \
	--decoder-opt kallsyms=none --decoder-opt fastprint=0 -i "$f"
