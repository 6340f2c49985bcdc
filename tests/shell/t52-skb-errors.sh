#!/usr/bin/env bash
# record --skb errors: one clear message, non-zero exit, nothing left attached:
# missing interface, snaplen out of range, unknown hook, bad filter (libpcap's message),
# BPF not permitted (an unprivileged user with CAP_PERFMON only).
source "$(dirname "$0")/lib.sh"
t_plan 16

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
# libpcap's own messages (tests/shell/t56-skb-filter.sh compares them with tcpdump's)
err "bad filter" "--filter 'tcp or': can't parse filter expression: syntax error" --skb lo --filter "tcp or"
err "filter: bad port" "--filter 'port 70000': illegal port number 70000 > 65535" --skb lo --filter "port 70000"
# xdp-entry fails (lo had no XDP program to trace) after the socket, tc-ingress
# and our xdp are attached: everything attached so far must be undone
err "a late hook fails (partial attach undone)" "xdp-entry/xdp-exit: lo has no XDP program to trace" \
	--skb lo --hook socket,tc-ingress,xdp,xdp-entry

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
