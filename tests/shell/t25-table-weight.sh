#!/usr/bin/env bash
# The table's weights, histograms and perf's filters: on a sys_enter_read file
# recorded here, --sort comm --weight count against the sums awk computes from
# perf script's text (rows, percentages, the Total weight line); --hist count
# (log2, and linear per comm) against buckets awk computes from the same text,
# and its percentiles against the exact ones; decoded keys and weights of the
# IBS fixtures (tests/gen/ibs-gen) against a jq grouping of our per-sample
# JSON, and of skb dumps on lo against the sizes the sender sent; -t SEP,
# --comms, --dsos, --percentage, the trace and trace_fields keys against perf report's
# bytes; bad fields and options: exit 2 naming them.
source "$(dirname "$0")/lib.sh"
t_plan 39

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
if ! command -v jq >/dev/null; then
	t_skip_rest "the IBS and JSON checks group with jq: not installed"
fi

t_setup "perf records syscalls:sys_enter_read -a" \
	"$PERF" record -q -e syscalls:sys_enter_read -a -o rd.data -- sh -c '
	for i in $(seq 10); do
		dd if=/dev/zero of=/dev/null bs=4096 count=20 2>/dev/null
		dd if=/dev/zero of=/dev/null bs=300 count=7 2>/dev/null
		head -c 100000 /dev/urandom >/dev/null
		cat /etc/services >/dev/null
	done'
perf_read_counts rd.data >perf.cv
n=$(wc -l <perf.cv)
if [ "$n" -lt 50 ]; then
	t_fail "set-up: perf script shows the reads" "only $n samples"
	exit 1
fi

# --- --weight count: rows, percentages and totals from perf script's text ---
"$RAWFRAG" report -i rd.data -s comm --weight count --format json >w.json 2>w.err
t_eq "--weight count: each comm's samples and weight = awk's sums over perf script ($n samples)" \
	"$(awk -F'\t' '{ w[$1] += $2; s[$1]++ } END { for (c in w) printf "%s|%d|%d\n", c, s[c], w[c] }' perf.cv | sort)" \
	"$(jq -r '"\(.keys.comm)|\(.samples)|\(.weight)"' w.json | sort)"
"$RAWFRAG" report -i rd.data -s comm --weight count -n >w.txt 2>w.err
t_eq "--weight count: '# Total weight :' = awk's sum" \
	"# Total weight : $(awk -F'\t' '{ t += $2 } END { printf "%d", t }' perf.cv)" \
	"$(grep '^# Total weight' w.txt)"
t_grep "... and the samples without the field are counted (none here)" \
	"^# Samples without 'count': 0$" w.txt
# the Overhead column: awk's share of each comm's weight, printed as perf does
t_eq "--weight count: every row's Overhead = awk's 100*sum/total (%.2f)" \
	"$(awk -F'\t' '{ w[$1] += $2; s[$1]++; t += $2 } END {
		for (c in w) printf "%.2f%%|%d|%s\n", 100 * w[c] / t, s[c], c }' perf.cv | sort)" \
	"$(grep -v '^#' w.txt | awk 'NF { p = $1; s = $2; $1 = $2 = ""; sub(/^ +/, ""); sub(/ +$/, "")
		print p "|" s "|" $0 }' | sort)"
t_eq "--weight count: rows in descending weight" \
	"$(grep -v '^#' w.txt | awk 'NF { print $1 + 0 }')" \
	"$(grep -v '^#' w.txt | awk 'NF { print $1 + 0 }' | sort -gr)"
# --weight period is perf's Overhead: the same rows as without it
"$RAWFRAG" report -i rd.data -s comm -q >p1.txt 2>&1
"$RAWFRAG" report -i rd.data -s comm -q --weight period >p2.txt 2>&1
if [ -s p1.txt ] && cmp -s p1.txt p2.txt; then t_ok "--weight period = perf's Overhead"
else t_fail "--weight period = perf's Overhead" "$(diff p1.txt p2.txt | head -5)"; fi

# --- --hist count: buckets from perf script's text ---
"$RAWFRAG" report -i rd.data --hist count --format json >h.json 2>h.err
t_eq "--hist count: every log2 bucket's count = awk's over perf script" \
	"$(awk -F'\t' '{ v = $2; lo = 0; hi = 1; if (v >= 1) { lo = 1; while (lo * 2 <= v) lo *= 2; hi = lo * 2 }
		c[lo "|" hi]++ } END { for (k in c) print k "|" c[k] }' perf.cv | sort)" \
	"$(jq -r '"\(.lo)|\(.hi)|\(.count)"' h.json | sort)"
"$RAWFRAG" report -i rd.data --hist count >h.txt 2>h.err
t_eq "--hist count: the text buckets add up to the samples" "$n" \
	"$(awk '/^\[|^\(/ && match($0, / [0-9]+ \|/) { s += substr($0, RSTART + 1, RLENGTH - 3) }
		END { print s + 0 }' h.txt)"
t_grep "--hist count: bpftrace's bucket lines" '^\[4K, 8K\) +[0-9]+ \|@+ *\|$' h.txt
# percentiles from log2 buckets: at or above the exact one, below twice it
exact=$(cut -f2 perf.cv | sort -n | awk '{ v[NR] = $1 } END {
	split("0.5 0.9 0.99", q, " "); for (i = 1; i <= 3; i++) { r = int(q[i] * NR); if (r < q[i] * NR) r++
	printf "%d ", v[r] } printf "%d\n", v[NR] }')
got=$(awk '/^p50/ { print $3, $6, $9, $11 }' h.txt)
t_eq "--hist count: p50, p90, p99 within their exact value's log2 bucket; max exact ($exact)" ok \
	"$(echo "$exact $got" | awk '{ ok = $4 == $8
		for (i = 1; i <= 3; i++) { e = $i; g = $(i + 4); b = 1; while (b * 2 <= e) b *= 2
			if (g < e || (e > 0 && g >= 2 * b)) ok = 0 } print ok ? "ok" : "no: " $0 }')"
"$RAWFRAG" report -i rd.data -s comm --hist count,linear:512 --format json >hl.json 2>hl.err
t_eq "--sort comm --hist count,linear:512: each comm's buckets = awk's" \
	"$(awk -F'\t' '{ k = int($2 / 512); if (k > 1000) k = 1000; c[$1 "|" k * 512]++ }
		END { for (x in c) print x "|" c[x] }' perf.cv | sort)" \
	"$(jq -r '"\(.keys.comm)|\(.lo)|\(.count)"' hl.json | sort)"

# --- IBS fixtures: decoded keys and weights against jq over our per-sample JSON ---
GEN=$(t_bin ibs-gen)
t_setup "ibs-gen writes the fixtures" "$GEN" write fx
"$RAWFRAG" report --format json -i fx/ibs-zen4.data >ibs.json 2>ibs.err
t_eq "IBS op: -s derived.cache_level --weight derived.dc_miss_latency = jq's sums" \
	"$(jq -r 'select(.event == "ibs_op//") | [.fields.derived.cache_level // "null",
		.fields.derived.dc_miss_latency // 0, (if .fields.derived.dc_miss_latency == null then 0 else 1 end)] | @tsv' ibs.json |
		awk -F'\t' '{ s[$1]++; w[$1] += $2 } END { for (k in s) print k "|" s[k] "|" w[k] }' | sort)" \
	"$("$RAWFRAG" report -i fx/ibs-zen4.data -e 'ibs_op//' -s derived.cache_level \
		--weight derived.dc_miss_latency --format json | jq -r '"\(.keys."derived.cache_level")|\(.samples)|\(.weight)"' | sort)"
"$RAWFRAG" report -i fx/ibs-zen4.data -s derived.data_source_name,derived.tlb \
	--weight derived.dc_miss_latency >ibs.txt 2>&1
t_eq "IBS: samples without derived.dc_miss_latency, per event, = jq's count" \
	"$(jq -r 'select(.fields.derived.dc_miss_latency == null) | .event' ibs.json | sort | uniq -c | awk '{ print $2, $1 }')" \
	"$(awk '/^# Samples: / { ev = $NF } /^# Samples without/ { print ev, $NF }' ibs.txt | tr -d "'" | sort)"
# (1000 buckets of 16, the last one open-ended: [16000, ...))
t_eq "IBS fetch: --hist derived.fetch_latency,linear:16 buckets = jq's" \
	"$(jq -r 'select(.event == "ibs_fetch//") | .fields.derived.fetch_latency' ibs.json |
		awk '{ k = int($1 / 16); if (k > 1000) k = 1000; c[k * 16]++ } END { for (x in c) print x "|" c[x] }' | sort)" \
	"$("$RAWFRAG" report -i fx/ibs-zen4.data -e 'ibs_fetch//' --hist derived.fetch_latency,linear:16 \
		--format json | jq -r '"\(.lo)|\(.count)"' | sort)"

# --- skb dumps on lo: -s by a decoded field, weighted by meta.orig_len ---
if ! command -v bpftool >/dev/null || ! command -v python3 >/dev/null; then
	t_skip_n 2 "skb weights" "needs bpftool and python3"
else
	port=$((30000 + $$ % 10000 * 3))
	sizes=1,7,100,513,1000,1472,3000,8999
	"$RAWFRAG" record --skb lo --snaplen 64 -a -e dummy -o skb.data 2>skb.rec &
	rp=$!
	if wait_progs 1; then
		sleep 0.3
		python3 "$TOP/tests/scripts/pkt_send.py" --port-base $port --udp-sizes $sizes >skb.sent
		sleep 0.3
	fi
	kill -INT $rp; wait $rp
	# each datagram of s bytes is an skb of s + 42 (Ethernet 14, IPv4 20, UDP 8) on lo
	want=$(echo $sizes | tr , '\n' | awk '{ n++; w += $1 + 42 } END { printf "%d|%d", n, w }')
	t_eq "skb: -s meta.dir,packet.udp.dport --weight meta.orig_len: the 'in' row = the sizes sent" \
		"in|$port|$want" \
		"$("$RAWFRAG" report -i skb.data --where "packet.udp.dport == $port" \
			-s meta.dir,packet.udp.dport --weight meta.orig_len --format json 2>&1 |
			jq -r 'select(.keys."meta.dir" == "in") | "in|\(.keys."packet.udp.dport")|\(.samples)|\(.weight)"')"
	t_eq "skb: --hist meta.orig_len buckets (in) = the sizes sent's" \
		"$(echo $sizes | tr , '\n' | awk '{ v = $1 + 42; lo = 1; while (lo * 2 <= v) lo *= 2; c[lo]++ }
			END { for (k in c) print k "|" c[k] }' | sort)" \
		"$("$RAWFRAG" report -i skb.data --where "packet.udp.dport == $port && meta.dir == \"in\"" \
			--hist meta.orig_len --format json 2>&1 | jq -r '"\(.lo)|\(.count)"' | sort)"
fi

# --- perf's own options: -t, --comms, --dsos, --percentage, trace: perf's bytes ---
same() {
	"$PERF" report --stdio -i rd.data "$@" 2>"$T/perf.err" | grep -v '^# (Tip: ' >"$T/perf.out"
	"$RAWFRAG" report --stdio -i rd.data "$@" 2>"$T/ours.err" | grep -v '^# (Tip: ' >"$T/ours.out"
	local rows
	rows=$(grep -c '%' "$T/perf.out")
	if [ "$rows" -lt 1 ]; then
		t_fail "perf report $*" "perf's table has no rows" "$(head -c 400 "$T/perf.err")"
	elif cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "perf report $* ($rows rows, byte-identical)"
	else
		t_fail "perf report $*" "$(diff "$T/perf.out" "$T/ours.out" | head -20)" \
			"$(head -c 400 "$T/ours.err")"
	fi
}
same -s comm,dso,sym -t '|'
same -s pid,cpu,sym -n --show-total-period -t ,
same -s comm -n --comms dd,cat
same -s comm -n --comms dd,cat --percentage relative
same -s comm,dso -n --dsos libc.so.6 --comms dd
same -s dso,sym -n --dsos libc.so.6
same -s comm,trace -n --percent-limit 1
# --pid/--tid filter perf's entries, not its samples: the entry of -s sym that the
# first sample (of pid $first) made holds every process's samples, and is shown
first=$("$PERF" script -i rd.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
same -s sym -n --pid "$first"
same -s comm -n --show-total-period --pid "$first"
same -s comm,sym -n --tid "$first" --percentage relative
# trace_fields: a column per field; __syscall_nr is not in the print format (perf prints
# its value), fd/buf/count are there as "fd: 0x..." (perf's token is empty)
same -s trace_fields -n
same -s comm,trace_fields -t '|'

# --- bad input: exit 2, the field named ---
t_run "--weight on a string field: exit 2" 2 "$RAWFRAG" report -i fx/ibs-zen4.data \
	-s comm --weight derived.cache_level
t_grep "... the message names the field and says why" \
	"derived.cache_level: the field is a string, not a number" "$T/err"
t_run "--weight on a field no sample has: exit 2" 2 "$RAWFRAG" report -i rd.data -s comm \
	--weight no_such_field
t_grep "... and the message names it" "no_such_field" "$T/err"
t_run "--hist on a field no sample has: exit 2" 2 "$RAWFRAG" report -i rd.data --hist nope_field
t_grep "... and the message names it" "nope_field" "$T/err"
t_run "the table's --pid with a bad list: exit 2" 2 "$RAWFRAG" report --stdio -i rd.data --pid 1,x
t_grep "... the message quotes the list" "bad list '1,x'" "$T/err"
t_run "-s with an unknown key: exit 2" 2 "$RAWFRAG" report -i rd.data -s comm,bogus_key
t_grep "... and the message names it" "bogus_key" "$T/err"
t_run "--hist count,linear:0: exit 2" 2 "$RAWFRAG" report -i rd.data --hist count,linear:0
