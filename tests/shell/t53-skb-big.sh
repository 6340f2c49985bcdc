#!/usr/bin/env bash
# Records larger than 4,168 bytes (snaplen 16384, 4 KB to 20 KB datagrams) through
# 64 KiB rings (-m 16): hundreds of ring wraps, every record intact (meta, caplen,
# raw_size, bytes equal to what was sent), nothing lost, `check` clean, and the
# pad of wrapped rings shows up as stale (counted, not an error).
source "$(dirname "$0")/lib.sh"
t_plan 12
SCRIPTS=$TOP/tests/scripts
EXTRACT=$O/tests/pkt-extract
# ports of this run (UDP, TCP +1, UDP/IPv6 +2): test runs at the same time differ
BASE=$((20000 + $$ % 10000 * 4))

if ! is_root; then t_skip_rest "big skb records: needs root"; fi

# the filter keeps other tests' loopback traffic out of the counts
"$RAWFRAG" record --skb lo --snaplen 16384 -m 16 --filter "udp and dst port $BASE" -a -e dummy \
	-o big.data 2>big.rec &
RP=$!
wait_progs 1
sleep 0.3 # attach, then the rings
# 6 sizes x 250 = 1500 datagrams, ~16 MB through 64 KiB rings, paced for the
# (ASan) recorder: 2 datagrams per 2 ms
python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 4130,5000,8999,9000,16000,20000 --udp-repeat 250 \
	--pace 2 >big.sent
sleep 0.3
kill -INT $RP
wait $RP
t_eq "recorder exits 0" 0 $?
"$EXTRACT" big.data >big.txt 2>big.sum
t_grep "every record splits (none cut or torn)" 'bad 0 ' big.sum
t_grep "nothing lost" 'lost 0$' big.sum
t_eq "all records larger than 4168 bytes" 0 "$(awk '$6 <= 4168' big.txt | wc -l)"
wraps=$(awk '{ s += $6 + 56 } END { printf "%d", s / 65536 }' big.txt)
t_eq "many ring wraps (> 150)" yes "$([ "$wraps" -gt 150 ] && echo yes || echo "no ($wraps)")"
if python3 "$SCRIPTS/pkt_check.py" big.txt big.sent 16384 --udp 1:to >big.chk; then
	t_ok "1500 big dumps equal what was sent (20000-byte ones cut at 16384)"
else
	t_fail "1500 big dumps equal what was sent" "$(tail -5 big.chk)"
fi
"$RAWFRAG" check big.data >chk.out 2>&1
rc=$?
t_eq "check: no violations" 0 "$rc"
t_grep "check: bpf_skb producer with stale pad counted" 'skbdump:1=lo +bpf_skb' chk.out

# the largest snaplen: records of up to 65528 bytes, just under header.size's limit
"$RAWFRAG" record --skb lo --snaplen 65436 -m 64 --filter "udp and dst port $BASE" -a -e dummy \
	-o max.data 2>max.rec &
RP=$!
wait_progs 1
sleep 0.3 # attach, then the rings
python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --udp-sizes 65000,65394,65395,65507 --pace 1 \
	>max.sent
sleep 0.3
kill -INT $RP
wait $RP
"$EXTRACT" max.data >max.txt 2>max.sum
t_grep "snaplen 65436: every record splits" 'dumps 4 bad 0 lost 0' max.sum
t_eq "snaplen 65436: largest record is 65528 bytes (raw_size 65476)" 65476 \
	"$(awk '$6 > m { m = $6 } END { print m }' max.txt)"
if python3 "$SCRIPTS/pkt_check.py" max.txt max.sent 65436 --udp 1:to >max.chk; then
	t_ok "snaplen 65436: 65000..65507-byte datagrams as sent (the last two cut)"
else
	t_fail "snaplen 65436: datagrams as sent" "$(tail -5 max.chk)"
fi
t_run "snaplen 65436: check clean" 0 "$RAWFRAG" check max.data
