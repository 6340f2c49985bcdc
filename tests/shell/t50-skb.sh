#!/usr/bin/env bash
# record --skb on lo (socket hook, the default): known UDP (1..9000 bytes, distinct
# sizes), a TCP stream (send() and sendfile(): linear and paged skbs, GSO on lo)
# and ICMP echoes; every dump equals what was sent up to the snaplen, original
# lengths are right; the in-kernel filter; report --format pcapng read by tshark
# with the same bytes; nothing left attached afterwards.
source "$(dirname "$0")/lib.sh"
t_plan 33
SCRIPTS=$TOP/tests/scripts
EXTRACT=$O/tests/pkt-extract
# ports of this run (UDP, TCP +1, UDP/IPv6 +2): test runs at the same time differ
BASE=$((20000 + $$ % 10000 * 4))

if ! is_root; then t_skip_rest "skb on lo: needs root"; fi
if ! command -v bpftool >/dev/null || ! command -v python3 >/dev/null; then
	t_skip_rest "skb on lo: needs bpftool and python3"
fi

# record_lo NAME SNAPLEN FILTER SENDER-ARGS...: record lo while the sender runs
record_lo() {
	local name=$1 snap=$2 filt=$3; shift 3
	local fopt=()
	[ -n "$filt" ] && fopt=(--filter "$filt")
	"$RAWFRAG" record --skb lo --snaplen "$snap" "${fopt[@]}" -a -e dummy -o "$name.data" \
		2>"$name.rec" &
	local rp=$!
	if ! wait_progs 1; then
		kill -INT $rp; wait $rp
		return 1
	fi
	# the socket is bound right after the load, the rings are set up after that
	sleep 0.3
	python3 "$SCRIPTS/pkt_send.py" --port-base $BASE "$@" >"$name.sent"
	sleep 0.3
	kill -INT $rp
	wait $rp
}

SIZES=1,2,3,7,8,100,200,211,212,213,214,300,1000,1472,1473,4000,8999,9000
if record_lo lo 256 "" --udp-sizes $SIZES --tcp-bytes 300000 --icmp 4 \
	--udp6-sizes 1,64,500,3000,9000; then
	t_ok "record --skb lo"
else
	t_fail "record --skb lo" "$(cat lo.rec)"
fi
t_grep "recorder reports its packet count" 'skb: [0-9]+ packets seen' lo.rec
"$EXTRACT" lo.data >lo.txt 2>lo.sum
t_grep "every dump splits (meta, caplen, raw_size)" 'bad 0 ' lo.sum
t_grep "no dump lost" 'lost 0$' lo.sum
if python3 "$SCRIPTS/pkt_check.py" lo.txt lo.sent 256 --udp 1:to --tcp 1 --icmp 1 --udp6 1 \
	>lo.chk; then
	t_ok "lo: UDP, UDP/IPv6 (+hop-by-hop), TCP and ICMP dumps equal what was sent (snaplen 256)"
else
	t_fail "lo: UDP, UDP/IPv6 (+hop-by-hop), TCP and ICMP dumps equal what was sent" "$(tail -5 lo.chk)"
fi
# the paged (sendfile) half of the stream arrives as GSO super-packets on lo
t_eq "lo: some dumps are larger than the MTU-less max segment" yes \
	"$(awk '$4 > 9000 {f=1} END {print f ? "yes" : "no"}' lo.txt)"

# the decoder (report text/JSON, check) against the independent split above
if "$RAWFRAG" report -i lo.data >rep.txt 2>rep.err; then
	t_eq "report: one line per dump" "$(wc -l <lo.txt)" "$(grep -c ' lo socket In ' rep.txt)"
	t_grep "report: UDP line in tcpdump style" \
		"IP 127\\.0\\.0\\.1\\.[0-9]+ > 127\\.0\\.0\\.1\\.$BASE: UDP, length 9000\$" rep.txt
	t_grep "report: TCP line with flags, seq, win, options as tcpdump" \
		"> 127\\.0\\.0\\.1\\.$((BASE + 1)): Flags \\[S\\], seq [0-9]+, win [0-9]+, options \\[mss 65495,sackOK,TS val [0-9]+ ecr 0,nop,wscale [0-9]+\\], length 0" rep.txt
	t_grep "report: ICMP echo" "ICMP echo request, id $BASE, seq 3, length 916" rep.txt
	t_grep "report: IPv6 with a hop-by-hop header" \
		"IP6 ::1 > ::1: HBH [0-9]+ > $((BASE + 2)): UDP, length 64\$" rep.txt
	"$RAWFRAG" report -i lo.data --format json >rep.json 2>/dev/null
	if python3 - lo.txt rep.json >json.chk <<'PY'
import collections, json, sys
ext = collections.Counter((int(l.split()[3]), l.split()[8] if len(l.split()) > 8 else "")
                          for l in open(sys.argv[1]))
js = collections.Counter()
for line in open(sys.argv[2], encoding="latin-1"):
    o = json.loads(line)
    if o.get("producer") == "bpf_skb":
        js[(o["fields"]["meta"]["orig_len"], o["fields"]["data"])] += 1
print(len(ext), len(js))
sys.exit(0 if ext == js else 1)
PY
	then t_ok "report --format json: meta and packet bytes equal the extractor's"
	else t_fail "report --format json: meta and packet bytes equal the extractor's" "$(cat json.chk)"; fi
	t_run "check: the lo recording is clean" 0 "$RAWFRAG" check lo.data
else
	t_skip "report text/json" "report failed: $(head -c 200 rep.err)"
fi

# perf as the oracle for the raw payloads: perf script's BPF output hex dump holds
# meta + packet + pad; the packet bytes must be the extractor's, sample for sample
if command -v "$PERF" >/dev/null &&
	"$PERF" script -i lo.data -F comm,tid,time,event,ip,bpf-output >ps.txt 2>ps.err; then
	if python3 - lo.txt ps.txt >ps.chk <<'PY'
import collections, re, struct, sys
ext = collections.Counter(l.split()[8] if len(l.split()) > 8 else "" for l in open(sys.argv[1]))
samples, cur = [], None
for line in open(sys.argv[2], encoding="latin-1"):
    m = re.match(r"\s*(BPF output:)?\s*([0-9a-f]{4}):((?: [0-9a-f]{2})+)", line)
    if not m:
        continue
    if m.group(1):
        cur = bytearray()
        samples.append(cur)
    cur += bytes(int(x, 16) for x in m.group(3).split())
perf = collections.Counter()
for b in samples:
    if b[:4] == b"SKFR":
        ml, cap = struct.unpack("<H", b[6:8])[0], struct.unpack("<I", b[20:24])[0]
        perf[bytes(b[ml:ml + cap]).hex()] += 1
print(sum(ext.values()), sum(perf.values()))
sys.exit(0 if ext == perf and perf else 1)
PY
	then t_ok "perf script's BPF output dumps hold the same packets"
	else t_fail "perf script's BPF output dumps hold the same packets" "$(cat ps.chk)"; fi
else
	t_skip "perf script oracle" "perf script failed: $(head -c 200 ps.err 2>/dev/null)"
fi

# snaplen above the packet sizes: whole packets
if record_lo full 9100 "" --udp-sizes 1,500,9000; then
	"$EXTRACT" full.data >full.txt 2>/dev/null
	if python3 "$SCRIPTS/pkt_check.py" full.txt full.sent 9100 --udp 1:to >full.chk; then
		t_ok "lo: snaplen 9100 captures whole 9000-byte datagrams"
	else
		t_fail "lo: snaplen 9100 captures whole 9000-byte datagrams" "$(tail -3 full.chk)"
	fi
else
	t_fail "record --skb --snaplen 9100" "$(cat full.rec)"
fi

# in-kernel filter: only UDP to the test port, ICMP and TCP dropped in the program
if record_lo filt 128 "udp and dst port $BASE" --udp-sizes 10,20,30 --tcp-bytes 5000 --icmp 2; then
	"$EXTRACT" filt.data >filt.txt 2>/dev/null
	t_eq "filter 'udp and dst port BASE' keeps exactly the 3 datagrams" 3 "$(wc -l <filt.txt)"
	t_grep "filter: the rest counted as filtered out" 'filtered out' filt.rec
	python3 "$SCRIPTS/pkt_check.py" filt.txt filt.sent 128 --udp 1:to >filt.chk ||
		t_fail "filter: kept datagrams intact" "$(tail -3 filt.chk)"
else
	t_fail "record --skb --filter" "$(cat filt.rec)"
fi

# IPv6 host + port, and a protocol alone. libpcap's "port" does not look past
# IPv6 extension headers (nor does tcpdump's): the datagrams behind a hop-by-hop
# header are matched by their bytes
P6=$((BASE + 2))
if record_lo filt6 128 "ip6 and host ::1 and (dst port $P6 or (ip6[6] == 0 and ip6[40] == 17 and ip6[50:2] == $P6))" --udp-sizes 10,20 \
	--udp6-sizes 11,22,33 --icmp 1; then
	"$EXTRACT" filt6.data >filt6.txt 2>/dev/null
	t_eq "filter 'ip6 and host ::1 and (dst port P or ip6[50:2] == P behind hop-by-hop)': the 3 IPv6 datagrams only" 3 "$(wc -l <filt6.txt)"
	python3 "$SCRIPTS/pkt_check.py" filt6.txt filt6.sent 128 --udp6 1 >filt6.chk ||
		t_fail "filter ip6: kept datagrams intact" "$(tail -3 filt6.chk)"
fi
if record_lo filti 128 "icmp" --udp-sizes 10 --tcp-bytes 1000 --icmp 3; then
	"$EXTRACT" filti.data >filti.txt 2>/dev/null
	if python3 "$SCRIPTS/pkt_check.py" filti.txt filti.sent 128 --icmp 1 >filti.chk &&
		[ "$(awk 'substr($9, 25, 4) != "0800" || substr($9, 47, 2) != "01"' filti.txt | wc -l)" = 0 ]; then
		t_ok "filter 'icmp': the 3 echo requests and replies, nothing else"
	else
		t_fail "filter 'icmp': echoes only" "$(tail -3 filti.chk; head -c 300 filti.txt)"
	fi
fi

# pcapng export read by tshark
"$RAWFRAG" report -i lo.data --format pcapng -o lo.pcapng >pc.out 2>pc.err
rc=$?
if grep -q "not implemented" pc.err; then
	t_skip "report --format pcapng" "report command not available yet"
elif ! command -v tshark >/dev/null; then
	t_skip "tshark reads the pcapng" "tshark not installed"
elif [ $rc -ne 0 ]; then
	t_fail "report --format pcapng" "$(cat pc.err)"
else
	t_ok "report --format pcapng"
	tshark -r lo.pcapng -F pcap -w lo.pcap 2>tshark.err
	if python3 "$SCRIPTS/pkt_check.py" lo.txt lo.sent 256 --pcap lo.pcap >pcap.chk; then
		t_ok "tshark reads the pcapng: same packets byte for byte, same original lengths"
	else
		t_fail "tshark reads the pcapng: same packets byte for byte" "$(tail -3 pcap.chk; cat tshark.err)"
	fi
	tshark -r lo.pcapng -T fields -e frame.interface_name -e frame.comment \
		-e frame.time_epoch 2>/dev/null >fields.txt
	t_eq "pcapng: interface name lo on every packet" "$(wc -l <lo.txt)" \
		"$(awk -F'\t' '$1 == "lo"' fields.txt | wc -l)"
	t_grep "pcapng: per-packet comment with cpu, pid and comm" \
		'cpu [0-9]+ pid [0-9]+ tid [0-9]+ comm python3' fields.txt
	# tshark as the decoding oracle: header fields of every packet equal report's JSON
	tshark -r lo.pcapng -T fields -E separator=';' -e frame.len -e ip.id -e ip.ttl \
		-e tcp.seq_raw -e tcp.ack_raw -e tcp.window_size_value -e tcp.flags \
		-e udp.srcport -e udp.dstport -e udp.length -e icmp.type -e icmp.seq \
		2>/dev/null >ts.txt
	"$RAWFRAG" report -i lo.data --format json 2>/dev/null >pj.json
	if python3 - ts.txt pj.json >ts.chk <<'PY'
import json, sys
ts = [l.rstrip("\n").split(";") for l in open(sys.argv[1])]
js = [json.loads(l)["fields"] for l in open(sys.argv[2]) if '"bpf_skb"' in l]
import collections
bad = 0
mines, theirss = collections.Counter(), collections.Counter()
def num(v):
    return int(v, 0) if v else None
# pcapng is in time order, report's JSON in its own: compare as multisets
for i, (t, j) in enumerate(zip(ts, js)):
    p = j["packet"]
    ip = p.get("ipv4")
    mine = [j["meta"]["orig_len"], ip and ip["id"], ip and ip["ttl"]]
    theirs = [num(t[0]), num(t[1]), num(t[2])]
    if "tcp" in p:
        mine += [p["tcp"]["seq"], p["tcp"]["ack"] if p["tcp"]["flags"] != "0x2" else None,
                 p["tcp"]["win"], int(p["tcp"]["flags"], 16)]
        theirs += [num(t[3]), num(t[4]) if p["tcp"]["flags"] != "0x2" else None, num(t[5]), num(t[6])]
    if "udp" in p:
        mine += [p["udp"]["sport"], p["udp"]["dport"], p["udp"]["len"]]
        theirs += [num(t[7]), num(t[8]), num(t[9])]
    if "icmp" in p:
        mine += [p["icmp"]["type"], p["icmp"].get("seq")]
        theirs += [num(t[10].split(",")[0]), num(t[11].split(",")[0]) if t[11] else None]
    mines[tuple(mine)] += 1
    theirss[tuple(theirs)] += 1
diff = list((mines - theirss).items())[:4] + list((theirss - mines).items())[:4]
bad = sum((mines - theirss).values())
for d in diff:
    print("only in one:", d)
print(len(ts), len(js), bad)
sys.exit(0 if bad == 0 and len(ts) == len(js) and ts else 1)
PY
	then t_ok "tshark decodes the same header fields as report --format json"
	else t_fail "tshark decodes the same header fields as report --format json" "$(cat ts.chk)"; fi
	t_eq "pcapng: packets in time order" yes \
		"$(awk -F'\t' '$3 < last { bad = 1 } { last = $3 } END { print bad ? "no" : "yes" }' fields.txt)"
	now=$(date +%s)
	t_eq "pcapng: wall-clock timestamps within the last 10 minutes" yes \
		"$(awk -F'\t' -v now="$now" '{ if ($3 < now - 600 || $3 > now + 5) bad = 1 }
			END { print bad ? "no" : "yes" }' fields.txt)"
fi

# other events in the same file: a tracepoint next to the dumps, perf reads both
if ensure_tracefs; then
	"$RAWFRAG" record --skb lo --filter "udp and dst port $BASE" -e sched:sched_switch -a \
		-o mix.data 2>mix.rec &
	rp=$!
	wait_progs 1
	sleep 0.3
	python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 3,4 >mix.sent
	sleep 0.3
	kill -INT $rp
	wait $rp
	"$PERF" script -i mix.data -F event 2>/dev/null | sort | uniq -c >mix.ev
	t_grep "-e with --skb: perf script sees the tracepoint" 'sched:sched_switch' mix.ev
	t_grep "-e with --skb: perf script sees the 2 dumps" "^ +2 +skbdump:1=lo:" mix.ev
else
	t_skip "-e with --skb" "no tracefs"
fi

# pipe mode: record -o FIFO, report -i FIFO --format pcapng at the same time
if command -v tshark >/dev/null; then
	mkfifo pipe.fifo
	"$RAWFRAG" report -i pipe.fifo --format pcapng -o pipe.pcapng 2>pipe.rep &
	pp=$!
	"$RAWFRAG" record --skb lo --filter "udp and dst port $BASE" -a -o - >pipe.fifo 2>pipe.rec &
	rp=$!
	wait_progs 1
	sleep 0.3
	python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 5,500,5000 >pipe.sent
	sleep 0.3
	kill -INT $rp
	wait $rp
	wait $pp
	t_eq "pipe mode: record | report --format pcapng, tshark reads 3 datagrams" "5 500 5000" \
		"$(tshark -r pipe.pcapng -T fields -e udp.length 2>/dev/null | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 - 8 }')"
fi

# a pipe whose first COMM says header.size 8 (the reader then loses the framing):
# pcapng mode stops with the reader's error in the command's form, exit 2 (it
# once handed NULL to qsort and exited 1 under UBSan)
"$RAWFRAG" record --skb lo -o - -- ping -c 2 -i 0.05 127.0.0.1 >comm8.data 2>/dev/null
if python3 - comm8.data <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 16
while off + 8 <= len(d):
    t, m, sz = struct.unpack_from('<IHH', d, off)
    if t == 3:
        struct.pack_into('<H', d, off + 6, 8)
        open(sys.argv[1], 'wb').write(d)
        sys.exit(0)
    if sz < 8:
        break
    off += sz
sys.exit(1)
PY
then
	"$RAWFRAG" report --format pcapng -i - -o comm8.pcapng <comm8.data 2>comm8.err
	t_eq "pipe with a COMM of size 8: pcapng exits 2" 2 "$?"
	t_grep "pipe with a COMM of size 8: error says perf rawfrag report, file and offset" \
		"^perf rawfrag report: -: offset 0x[0-9a-f]+: " comm8.err
else
	t_skip_n 2 "pipe with a COMM of size 8" "the recording has no COMM record"
fi

# loopback: the kernel keeps the outgoing copy of each packet away from our
# socket (PACKET_IGNORE_OUTGOING), so the program runs once per packet, not
# twice (kernel.bpf_stats_enabled counts its runs for the moment)
wait_no_progs
stats0=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
"$RAWFRAG" record --skb lo --filter "udp and dst port $BASE" -a -e dummy -o ign.data 2>ign.rec &
rp=$!
runs=
if wait_progs 1; then
	sleep 0.3
	pid=$(bpftool prog show | awk '/name skbdump_socket/ { sub(":", "", $1); print $1 }' | tail -1)
	python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 1,2,3,4,5,6,7,8,9,10 \
		--udp-repeat 200 --pace 50 >/dev/null
	sleep 0.3
	runs=$(bpftool prog show id "$pid" | grep -o 'run_cnt [0-9]*' | awk '{ print $2 }')
fi
kill -INT $rp
wait $rp
sysctl -qw kernel.bpf_stats_enabled="$stats0"
"$EXTRACT" ign.data -q 2>ign.sum
dumps=$(awk '{ print $3 }' ign.sum)
if [ -n "$runs" ] && [ "${dumps:-0}" -ge 2000 ] && [ "$runs" -lt $((dumps * 3 / 2)) ]; then
	t_ok "lo: the program runs once per packet ($runs runs, $dumps dumps)"
else
	t_fail "lo: the program runs once per packet" "runs ${runs:-?} for ${dumps:-?} dumps; $(tail -3 ign.rec)"
fi

# nothing left attached (a leak stays; a concurrent test run's recorder goes away)
wait_no_progs
t_eq "no dump program left loaded" 0 "$(skb_progs)"
