#!/usr/bin/env bash
# report --format pcapng, read by tshark/capinfos: every packet's direction flag
# follows its hook (socket and tc-ingress in, tc-egress out), the interface blocks
# carry the recorded snaplen, nanosecond resolution, the interface name and a
# description naming the hook; in pipe mode (record -o - | report -i -) the
# times come from the stream's CLOCK_DATA (no warning, the same file as from the
# saved stream, perf script's tod); a file without packets gives no clock
# warning; a sample that cannot be exported stops the export with json's error,
# exit 2, or is counted with --force.
source "$(dirname "$0")/lib.sh"
MIX=$TOP/tests/scripts/pkt_mix.py
t_plan 17

if ! is_root; then t_skip_rest "pcapng: needs root"; fi
if ! command -v tshark >/dev/null || ! command -v capinfos >/dev/null || ! command -v ip >/dev/null; then
	t_skip_rest "pcapng: needs tshark, capinfos and iproute2"
fi
NS=rfpcap-$$
cleanup() {
	ip netns del "$NS" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$NS"; then t_skip_rest "pcapng: cannot create a namespace"; fi
ip -n "$NS" link set lo up
n_mix=$(python3 -c "import sys; sys.path.insert(0, '$TOP/tests/scripts'); import pkt_mix; print(len(pkt_mix.frames()))")

ip netns exec "$NS" "$RAWFRAG" record --skb lo --hook socket,tc-ingress,tc-egress --snaplen 200 \
	-a -e dummy -q -o h.data -- python3 "$MIX" --dev lo 2>h.rec
"$RAWFRAG" report -i h.data --format pcapng -o h.pcapng 2>h.rep
t_eq "record on three hooks, export: exit 0, nothing on stderr" "0 " "$? $(cat h.rep)"
tshark -r h.pcapng -T fields -e frame.interface_description -e frame.packet_flags_direction \
	2>/dev/null | awk '{ print $2, $NF }' | sort | uniq -c | awk '{ print $2, $3, $1 }' >dir.txt
t_eq "direction flag per hook: in on socket and tc-ingress, out on tc-egress, every frame" \
	"socket 0x00000001 $n_mix
tc-egress 0x00000002 $n_mix
tc-ingress 0x00000001 $n_mix" "$(cat dir.txt)"
capinfos h.pcapng >cap.txt 2>&1
t_eq "three interface blocks, each with the recorded snaplen 200" "200 200 200" \
	"$(awk -F' = ' '/Capture length/ { printf "%s%s", s, $2; s = " " }' cap.txt)"
t_eq "each with nanosecond resolution" "3" "$(grep -c 'Time precision = nanoseconds' cap.txt)"
t_eq "if_name and if_description name interface and hook" \
	"lo|lo socket (ifindex 1) lo|lo tc-egress (ifindex 1) lo|lo tc-ingress (ifindex 1)" \
	"$(awk -F' = ' '/ Name = / { n = $2 } /Description = / { print n "|" $2 }' cap.txt | sort | tr '\n' ' ' | sed 's/ $//')"
# the frame bytes are the ones sent: tshark's and tcpdump's view agree with the capture
t_eq "tshark reads every frame" "$((3 * n_mix))" "$(tshark -r h.pcapng 2>/dev/null | wc -l)"

# pipe mode: CLOCK_DATA from the stream
ip netns exec "$NS" "$RAWFRAG" record --skb lo -a -e dummy -q -o - -- python3 "$MIX" --dev lo \
	2>p.rec | tee p.data | "$RAWFRAG" report -i - --format pcapng -o p.pcapng 2>p.rep
t_eq "pipe: record -o - | report -i - --format pcapng: exit 0" 0 "$?"
t_eq "pipe: no clock warning" "" "$(grep -i 'CLOCK_DATA' p.rep)"
"$RAWFRAG" report -i p.data --format pcapng -o pf.pcapng 2>pf.rep
if cmp -s p.pcapng pf.pcapng; then t_ok "pipe: the same pcapng as from the saved stream"
else t_fail "pipe: the same pcapng as from the saved stream" "$(cmp p.pcapng pf.pcapng)"; fi
$PERF script -i p.data -F tod,event 2>/dev/null | awk '/skbdump/ { print $1 "T" $2 }' >perf-times.txt
tshark -r p.pcapng -T fields -e frame.time_epoch >pcap-epoch.txt 2>/dev/null
python3 - perf-times.txt pcap-epoch.txt >cmp.txt <<'PY'
import sys, datetime
perf = [l.strip() for l in open(sys.argv[1]) if l.strip()]
pcap = [l.strip() for l in open(sys.argv[2]) if l.strip()]
def us(s):
    return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").timestamp()) * 1000000 + int(s[-6:])
bad = sum(1 for a, b in zip(perf, pcap) if abs(us(a) - int(b.replace(".", "")[:-3])) > 1)
print("perf=%d pcap=%d bad=%d" % (len(perf), len(pcap), bad))
PY
t_eq "pipe: pcapng times equal perf script's tod (1 us)" "perf=$n_mix pcap=$n_mix bad=0" "$(cat cmp.txt)"

# no packets, no CLOCK_DATA (perf record without -k): no warning, an empty capture
$PERF record -q -e dummy -o nop.data true >/dev/null 2>&1
"$RAWFRAG" report -i nop.data --format pcapng -o nop.pcapng 2>nop.rep
t_eq "no packets: exit 0, no clock warning" "0 " "$? $(cat nop.rep)"

# a sample whose raw_size runs past its record, and a skbdump sample without its magic
python3 - h.data <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
i = d.index(b"SKFR")
a = bytearray(d); a[i - 4:i] = (0xfff0).to_bytes(4, "little"); open("badsz.data", "wb").write(a)
b = bytearray(d); b[i] = ord("X"); open("badmagic.data", "wb").write(b)
PY
"$RAWFRAG" report -i badsz.data --format json >/dev/null 2>json.err
t_eq "bad sample: json exits 2" 2 "$?"
"$RAWFRAG" report -i badsz.data --format pcapng -o bad.pcapng 2>pcap.err
t_eq "bad sample: pcapng exits 2" 2 "$?"
t_eq "bad sample: pcapng's error is json's" "$(cat json.err)" "$(cat pcap.err)"
"$RAWFRAG" report -i badmagic.data --format pcapng -o bad.pcapng 2>magic.err
rc=$?
t_eq "skbdump sample without magic: exit 2, one line with offset and reason" "2 1 1" \
	"$rc $(grep -c . magic.err) $(grep -c 'offset 0x[0-9a-f]*: SAMPLE: skb dump: no rawfrag skb meta' magic.err)"
"$RAWFRAG" report -f -i badmagic.data --format pcapng -o force.pcapng 2>force.err
t_eq "--force: exit 0, the bad sample counted" "0 1" \
	"$? $(grep -c 'skipped 1 bad samples (--force)' force.err)"
t_eq "--force: every other frame exported" "$((3 * n_mix - 1))" "$(tshark -r force.pcapng 2>/dev/null | wc -l)"
