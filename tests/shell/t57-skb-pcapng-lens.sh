#!/usr/bin/env bash
# report --format pcapng frames every packet length: dumps of 1..70 bytes (so
# every length mod 4, and cut captures whose original length is longer), with
# and without an offloaded VLAN tag put back in the frame, read back by two
# readers: tshark (wiretap) and tcpdump (libpcap, which refuses a block whose
# length does not match its contents where tshark lets it pass). Each writes
# the packets out again as classic pcap; every packet's bytes, captured and
# original length must be the ones the generator put in. No kernel needed.
source "$(dirname "$0")/lib.sh"
t_plan 8
if ! command -v tshark >/dev/null || ! command -v tcpdump >/dev/null; then
	t_skip_rest "needs tshark and tcpdump"
fi
GEN=$(t_bin pkt-lens)

# "ORIG CAPLEN HEX" per packet of a classic pcap file
cat >pcap.py <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
magic = struct.unpack('<I', d[:4])[0]
e = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
off = 24
while off + 16 <= len(d):
    _, _, cap, orig = struct.unpack(e + 'IIII', d[off:off + 16])
    print(orig, cap, d[off + 16:off + 16 + cap].hex())
    off += 16 + cap
if off != len(d):
    print('trailing %d bytes' % (len(d) - off))
EOF

for v in "" -v; do
	what=${v:+"with VLAN tags "}
	t_setup "pkt-lens $v" sh -c "'$GEN' $v l$v.data 1 70 >l$v.want"
	"$RAWFRAG" report -i l$v.data --format pcapng -o l$v.pcapng 2>l$v.err
	t_eq "export of packets 1..70 bytes ${what}exits 0" 0 $?
	tshark -r l$v.pcapng -F pcap -w ts$v.pcap >ts$v.err 2>&1 &&
		python3 pcap.py ts$v.pcap >ts$v.got
	if cmp -s l$v.want ts$v.got; then
		t_ok "tshark reads every packet ${what}with its bytes and lengths"
	else
		t_fail "tshark reads every packet ${what}with its bytes and lengths" \
			"$(diff l$v.want ts$v.got | head -6)" "$(head -c 300 ts$v.err)"
	fi
	tcpdump -n -r l$v.pcapng -w td$v.pcap >td$v.err 2>&1; rc=$?
	python3 pcap.py td$v.pcap >td$v.got 2>>td$v.err
	if [ $rc = 0 ] && cmp -s l$v.want td$v.got && ! grep -qiE 'error|truncated|bad' td$v.err; then
		t_ok "tcpdump (libpcap) reads every packet ${what}with its bytes and lengths"
	else
		t_fail "tcpdump (libpcap) reads every packet ${what}with its bytes and lengths" \
			"tcpdump exit $rc: $(head -c 300 td$v.err)" "$(diff l$v.want td$v.got | head -6)"
	fi
done
# the reference holds what it should: 70 packets, all four lengths mod 4, cut ones
t_eq "the generator wrote 70 packets, 23 of them cut (original length longer)" "70 23" \
	"$(awk '$1 != $2 { c++ } END { print NR, c }' l.want)"
t_eq "with VLAN tags: 59 frames 4 bytes longer (a tag on every packet of 12 bytes or more)" "59" \
	"$(grep -c '^[0-9]* [0-9]* .\{24\}8100' l-v.want)"
