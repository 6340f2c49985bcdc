#!/usr/bin/env bash
# record --skb --hook xdp on a veth that already has an XDP program (ours from
# tests/bpf/xdp-coexist.bpf.c, attached with iproute2: drops UDP to port 9,
# passes the rest): the recorder says it traces that program at its entry and
# exit (fentry/fexit) instead of failing with "File exists"; every packet is
# dumped once at entry and once at exit with the action, bytes as sent, text as
# tcpdump -n prints our pcapng; afterwards the program is still attached and
# nothing of ours is left (SIGINT, --duration, SIGKILL, refused options).
# A kernel that refuses fentry/fexit programs (EPERM even for root) gets the
# error path checked and the capture checks skipped with that reason.
source "$(dirname "$0")/lib.sh"
t_plan 22
SCRIPTS=$TOP/tests/scripts
EXTRACT=$O/tests/pkt-extract
XDPOBJ=$O/tests/bpf/xdp-coexist.bpf.o
NOBTF=$O/tests/bpf/xdp-coexist.nobtf.o
BASE=$((20000 + $$ % 10000 * 4))

if ! is_root; then t_skip_rest "xdp coexistence: needs root"; fi
if ! command -v ip >/dev/null || ! command -v bpftool >/dev/null; then
	t_skip_rest "xdp coexistence: needs iproute2 and bpftool"
fi
[ -f "$XDPOBJ" ] || t_skip_rest "xdp coexistence: $XDPOBJ not built"
N1=rfxc-a-$$ N2=rfxc-b-$$
cleanup() {
	[ -n "${EP:-}" ] && kill "$EP" 2>/dev/null
	[ -n "${RP:-}" ] && kill -KILL "$RP" 2>/dev/null
	ip netns del "$N1" 2>/dev/null
	ip netns del "$N2" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$N1" || ! ip netns add "$N2" ||
	! ip link add rfv0 netns "$N1" type veth peer name rfv1 netns "$N2"; then
	t_skip_rest "xdp coexistence: cannot create namespaces or veth"
fi
# no IPv6 router solicitations or MLD reports in the capture: IPv4 traffic of ours and ARP only
ip netns exec "$N1" sysctl -qw net.ipv6.conf.rfv0.disable_ipv6=1
ip netns exec "$N2" sysctl -qw net.ipv6.conf.rfv1.disable_ipv6=1
ip -n "$N1" addr add 10.79.0.1/24 dev rfv0
ip -n "$N2" addr add 10.79.0.2/24 dev rfv1
for n in "$N1" "$N2"; do ip -n "$n" link set lo up; done
ip -n "$N1" link set rfv0 up
ip -n "$N2" link set rfv1 up

# the id of the XDP program on rfv0 (empty: none)
xdp_id() { ip -n "$N1" -d link show rfv0 | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1; }
# links of our fentry/fexit programs (skbdump_xdp_entry/exit, names cut at 15);
# $1, the traced program's id, is only documentation: bpftool 7.1 shows no link
# target, and the test lock keeps other recorders away
trace_links() {
	python3 - <<'PY'
import json, subprocess
def bt(*a):
    out = subprocess.run(["bpftool", "-j"] + list(a), capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []
names = {p["id"]: p.get("name", "") for p in bt("prog", "show")}
print(sum(1 for l in bt("link", "show")
          if names.get(l.get("prog_id"), "").startswith(("skbdump_xdp_ent", "skbdump_xdp_exi"))))
PY
}

if ! ip -n "$N1" link set dev rfv0 xdp obj "$XDPOBJ" sec xdp 2>xdp.err || [ -z "$(xdp_id)" ]; then
	t_skip_rest "xdp coexistence: cannot attach the test XDP program: $(head -2 xdp.err)"
fi
ID=$(xdp_id)
t_ok "test XDP program attached to rfv0 (id $ID)"
ip netns exec "$N2" python3 "$SCRIPTS/pkt_send.py" --echo-server --bind 10.79.0.2 --port $BASE >echo.out &
EP=$!
for _ in $(seq 50); do grep -q ready echo.out && break; sleep 0.1; done

# started: the links are there, or the recorder has stopped (refused)
started() {
	for _ in $(seq 100); do
		[ "$(trace_links "$ID")" -ge 2 ] && sleep 0.3 && return 0
		kill -0 "$RP" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook xdp -a -e dummy -o c.data 2>c.rec &
RP=$!
started
RUNNING=$?
t_grep "the recorder names the program it traces instead of failing" \
	"^perf rawfrag record: xdp: rfv0 has program rawfrag_test_xdp_drop_discard \\(id $ID\\): capturing at its entry and exit \\(fentry/fexit\\)$" c.rec
NOFENTRY=
if [ $RUNNING != 0 ]; then
	wait $RP
	rc=$?
	RP=
	if grep -q 'this kernel refuses fentry/fexit programs' c.rec; then
		NOFENTRY="this kernel refuses fentry/fexit programs even to root (EPERM): $(grep -o 'cannot trace.*Operation not permitted' c.rec)"
		t_eq "refused by the kernel: exit 2 with its reason" 2 $rc
	else
		t_fail "record --skb rfv0 --hook xdp next to an XDP program" "exit $rc: $(cat c.rec)"
	fi
	t_skip_n 6 "capture at entry and exit" "$NOFENTRY"
else
	t_eq "while recording: two tracing links of ours (fentry, fexit)" 2 "$(trace_links "$ID")"
	# replies of the echo server and ICMP echo replies arrive on rfv0 (passed);
	# datagrams to port 9 from the other side are dropped by the program
	ip netns exec "$N1" python3 "$SCRIPTS/pkt_send.py" --port-base $BASE --dst 10.79.0.2 --echo \
		--udp-sizes 1,100,1000,1472 --icmp 3 >c.sent
	ip netns exec "$N2" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in (5, 50, 500):
    s.sendto(b"d" * n, ("10.79.0.1", 9))'
	sleep 0.3
	kill -INT $RP
	wait $RP
	t_eq "recorder exits 0 after SIGINT" 0 $?
	RP=
	"$EXTRACT" c.data >c.txt 2>c.sum
	if python3 "$SCRIPTS/pkt_check.py" c.txt c.sent 256 --udp 5:from --udp 6:from \
		--icmp 5:rep --icmp 6:rep >c.chk; then
		t_ok "every reply once at entry and once at exit, bytes as sent"
	else
		t_fail "every reply once at entry and once at exit, bytes as sent" "$(tail -5 c.chk)"
	fi
	t_eq "as many dumps at entry as at exit" "$(awk '$1 == 5' c.txt | wc -l)" \
		"$(awk '$1 == 6' c.txt | wc -l)"
	# the action of every exit dump, from report's JSON: port 9 dropped, the rest passed
	"$RAWFRAG" report -i c.data --format json 2>/dev/null >c.json
	t_eq "actions at exit: the 3 datagrams to port 9 XDP_DROP, every other packet XDP_PASS" \
		"drop 3 pass-other yes" "$(python3 - c.json <<'PY'
import json, sys
drop, other_ok = 0, True
for l in open(sys.argv[1]):
    if '"bpf_skb"' not in l:
        continue
    f = json.loads(l)["fields"]
    m = f["meta"]
    if m["hook"] != "xdp-exit":
        continue
    to9 = f.get("packet", {}).get("udp", {}).get("dport") == 9
    if to9 and m.get("xdp_action") == "XDP_DROP":
        drop += 1
    elif to9 or m.get("xdp_action") != "XDP_PASS":
        other_ok = False
print("drop", drop, "pass-other", "yes" if other_ok else "no")
PY
)"
	if "$RAWFRAG" report -i c.data --format pcapng -o c.pcapng 2>c.rep; then
		tcpdump -n -r c.pcapng 2>/dev/null | cut -d' ' -f2- >c.td
		"$RAWFRAG" report -i c.data 2>/dev/null | sed -E 's/^.* skbdump:[^ ]* [^ ]+ [^ ]+ [^ ]+ //;
			s/^XDP_[A-Z]+ //; s/^[0-9a-f:]{17} > [0-9a-f:]{17}, ethertype [^,]+, length [0-9]+: //' >c.ours
		if [ -s c.td ] && cmp -s c.td c.ours; then
			t_ok "pcapng: all $(wc -l <c.td) packets as tcpdump -n prints them"
		else
			t_fail "pcapng: packets as tcpdump -n prints them" "$(diff c.td c.ours | head -6)"
		fi
		if command -v tshark >/dev/null; then
			t_eq "pcapng: exit packets carry the action in their comment, on 'rfv0 xdp-exit' interfaces" \
				"$(awk '$1 == 6' c.txt | wc -l)" \
				"$(tshark -r c.pcapng -T fields -e frame.interface_description -e frame.comment 2>/dev/null |
					grep -cE '^rfv0 xdp-exit \(ifindex [0-9]+\)	.* xdp_action XDP_(PASS|DROP)$')"
		else
			t_skip "pcapng: action in the comment" "tshark not installed"
		fi
	else
		t_fail "report --format pcapng" "$(cat c.rep)"
		t_skip "pcapng: action in the comment" "no pcapng"
	fi
fi
t_eq "after the recording: the program is still attached to rfv0" "$ID" "$(xdp_id)"
wait_no_progs
t_eq "after the recording: no dump program loaded, no tracing link of ours" "0 0" \
	"$(skb_progs) $(trace_links "$ID")"

# --duration: the recorder stops by itself and lets go too
if [ -n "$NOFENTRY" ]; then
	t_skip_n 2 "--duration" "$NOFENTRY"
else
	ip netns exec "$N1" timeout 20 "$RAWFRAG" record --skb rfv0 --hook xdp-exit -a -e dummy \
		--duration 1 -o d.data 2>d.rec
	t_eq "--duration 1 with xdp-exit: exit 0" 0 $?
	wait_no_progs
	t_eq "after --duration: program attached, nothing of ours" "$ID 0 0" \
		"$(xdp_id) $(skb_progs) $(trace_links "$ID")"
fi

# SIGKILL: the links are file descriptors and die with the process
if [ -n "$NOFENTRY" ]; then
	t_skip "after SIGKILL" "$NOFENTRY"
else
	ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook xdp -a -e dummy -o k.data 2>k.rec &
	RP=$!
	started
	kill -KILL $RP
	wait $RP 2>/dev/null
	RP=
	wait_no_progs
	t_eq "after SIGKILL: program attached, nothing of ours" "$ID 0 0" \
		"$(xdp_id) $(skb_progs) $(trace_links "$ID")"
fi

# refused before anything is loaded: --filter at entry/exit, no program to trace
ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook xdp --filter udp -a -e dummy \
	--duration 1 -o f.data 2>f.rec
t_eq "--filter where the program is traced: exit 2" 2 $?
t_grep "--filter where the program is traced: says why" \
	"--filter is not applied at xdp-entry/xdp-exit, where rfv0's own XDP program \\(id $ID\\) is traced" f.rec
ip netns exec "$N2" "$RAWFRAG" record --skb rfv1 --hook xdp-entry -a -e dummy --duration 1 \
	-o n.data 2>n.rec
t_eq "xdp-entry on an interface without an XDP program: exit 2" 2 $?
t_grep "xdp-entry on an interface without an XDP program: says why" \
	'rfv1 has no XDP program to trace' n.rec
wait_no_progs
t_eq "after the refusals: program attached, nothing of ours" "$ID 0 0" \
	"$(xdp_id) $(skb_progs) $(trace_links "$ID")"

# a program without BTF cannot be traced: said, refused, left attached
ip -n "$N1" link set dev rfv0 xdp off
if ip -n "$N1" link set dev rfv0 xdp obj "$NOBTF" sec xdp 2>xdp.err && [ -n "$(xdp_id)" ]; then
	ID=$(xdp_id)
	ip netns exec "$N1" "$RAWFRAG" record --skb rfv0 --hook xdp -a -e dummy --duration 1 \
		-o b.data 2>b.rec
	t_eq "XDP program without BTF: exit 2" 2 $?
	t_grep "XDP program without BTF: says so" \
		"xdp on rfv0: its XDP program rawfrag_test_xd \\(id $ID\\) has no BTF, which fentry/fexit need" b.rec
	wait_no_progs
	t_eq "XDP program without BTF: still attached, nothing of ours" "$ID 0 0" \
		"$(xdp_id) $(skb_progs) $(trace_links "$ID")"
else
	t_skip_n 3 "XDP program without BTF" "cannot attach $NOBTF: $(head -1 xdp.err)"
fi
