#!/usr/bin/env bash
# Recordings carry HEADER_CLOCK_DATA (CLOCK_MONOTONIC events): perf script -F tod
# works, and pcapng wall-clock times equal perf's for the same packets.
source "$(dirname "$0")/lib.sh"
t_plan 5
if ! is_root || ! ensure_tracefs; then t_skip_rest "clock data: needs root and tracefs"; fi
"$RAWFRAG" record -q -e sched:sched_switch --skb lo -o skb.data -- \
	ping -c 3 -i 0.2 127.0.0.1 >/dev/null 2>rec.err
t_eq "record --skb lo succeeds" 0 $?
$PERF script -i skb.data -F tod,event >tod.txt 2>tod.err
t_eq "perf script -F tod prints packets, no complaint (clock data present)" "yes|" \
	"$(grep -q skbdump tod.txt && echo yes)|$(cat tod.err)"
grep 'skbdump' tod.txt | awk '{print $1 "T" $2}' >perf-times.txt
"$RAWFRAG" report --format pcapng -o x.pcapng -i skb.data 2>pcap.err
t_eq "pcapng export written, without the no-clock-data warning" "yes|" \
	"$([ -s x.pcapng ] && echo yes)|$(grep -i 'CLOCK_DATA' pcap.err)"
if command -v tshark >/dev/null; then
	tshark -r x.pcapng -T fields -e frame.time_epoch >pcap-epoch.txt 2>/dev/null
	# perf prints local wall-clock time to the microsecond: compare in those units
	python3 - perf-times.txt pcap-epoch.txt >cmp.txt <<'PY'
import sys, datetime
perf = [l.strip() for l in open(sys.argv[1]) if l.strip()]
pcap = [l.strip() for l in open(sys.argv[2]) if l.strip()]
def us(s):
    return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").timestamp()) * 1000000 + int(s[-6:])
bad = sum(1 for a, b in zip(perf, pcap) if abs(us(a) - int(b.replace(".", "")[:-3])) > 1)
print("perf=%d pcap=%d bad=%d" % (len(perf), len(pcap), bad))
PY
	n=$(wc -l <perf-times.txt)
	t_eq "pcapng times equal perf script's tod for every packet (to 1 us)" "perf=$n pcap=$n bad=0" "$(cat cmp.txt)"
	[ "$n" -ge 6 ] && t_ok "6 or more packets compared ($n)" || t_fail "6 or more packets compared" "$n"
else
	t_skip "pcapng times vs perf" "tshark not installed"
fi
