#!/usr/bin/env bash
# record --skb errors: one clear message, non-zero exit, nothing left attached:
# missing interface, snaplen out of range, unknown hook, unsupported filter,
# BPF not permitted (an unprivileged user with CAP_PERFMON only).
source "$(dirname "$0")/lib.sh"
t_plan 18

if ! is_root; then t_skip_rest "skb errors: needs root"; fi

# err NAME PATTERN ARGS...: exit 2, the message matches, one line from --skb
err() {
	local name=$1 pat=$2; shift 2
	t_run "$name: exit 2" 2 timeout -s INT 5 "$RAWFRAG" record "$@" -a -e dummy -o "$T/e.data"
	t_grep "$name: message" "$pat" "$T/err"
}

err "missing interface" "--skb: interface 'rfnosuch0' not found" --skb lo,rfnosuch0
err "snaplen above the 64 KiB record limit" "snaplen 65437 out of range 1\.\.65436" \
	--skb lo --snaplen 65437
err "unknown hook" "unknown hook 'bogus'" --skb lo --hook socket,bogus
err "unsupported filter" "--filter 'tcp or udp': unsupported 'or'" --skb lo --filter "tcp or udp"
err "filter: bad port" "bad or repeated port '70000'" --skb lo --filter "port 70000"
err "filter: contradiction" "only one of ip, ip6, arp" --skb lo --filter "ip6 and arp"
# the second xdp attach on lo fails after the socket and the first xdp are attached:
# everything attached so far must be undone
err "hook busy (partial attach undone)" "cannot attach hook xdp to interface lo: .*another program" \
	--skb lo,lo --hook socket,xdp

if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod a+rwx "$T"
	t_run "BPF not permitted: exit 2" 2 setpriv --reuid nobody --regid nogroup --clear-groups \
		--inh-caps +perfmon --ambient-caps +perfmon \
		"$RAWFRAG" record --skb lo -a -e dummy -o "$T/perm.data"
	t_grep "BPF not permitted: message names the capabilities" \
		"not permitted .*CAP_BPF" "$T/err"
else
	t_skip "BPF not permitted" "needs setpriv and user nobody"
fi

# nothing left attached (a leak stays; a concurrent test run's recorder goes away)
wait_no_progs
t_eq "no dump program left loaded" 0 "$(skb_progs)"
t_eq "no xdp left on lo" 0 "$(ip link show lo | grep -c ' xdp')"
