#!/usr/bin/env bash
# No output skips silently what another rejects: on every corrupt fixture of
# tests/gen/rawfrag-gen.c, report's sinks (text, json, pcapng, stats, and the
# stack sinks folded and flamegraph) stop with
# the same exit status and the same error line, since the report (not the
# sink) decides what a bad record does; with -f, pcapng goes on where json does
# and says how many samples it skipped.
source "$(dirname "$0")/lib.sh"
GEN=$(t_bin rawfrag-gen)
if [ ! -x "$GEN" ] || ! have_tracefs || ! "$GEN" "$T/fx" >/dev/null 2>&1; then
	t_plan 1
	t_skip "sinks agree on corrupt files" "needs tests/rawfrag-gen and tracefs (the formats)"
	exit 0
fi
mapfile -t bad < <(awk '$2 != 0 { print $1 }' "$T/fx/MANIFEST")
t_plan $((2 * ${#bad[@]} + 1))
t_eq "rawfrag-gen wrote corrupt fixtures" 1 "$([ ${#bad[@]} -ge 10 ] && echo 1)"

# one (exit status, first stderr line) per output
one() { # file args...
	local f=$1
	shift
	"$RAWFRAG" report "$@" -i "$f" >/dev/null 2>one.err
	echo "$? $(head -n 1 one.err)"
}
for f in "${bad[@]}"; do
	p=$T/fx/$f
	text=$(one "$p")
	json=$(one "$p" --format json)
	pcap=$(one "$p" --format pcapng -o /dev/null)
	stats=$(one "$p" --stats)
	folded=$(one "$p" --format folded)
	flame=$(one "$p" --format flamegraph -o /dev/null)
	if [ "$text" = "$json" ] && [ "$json" = "$pcap" ] && [ "$pcap" = "$stats" ] &&
	   [ "$stats" = "$folded" ] && [ "$folded" = "$flame" ] && [ "${text%% *}" = 2 ]; then
		t_ok "$f: text, json, pcapng, stats, folded, flamegraph: exit 2, the same error"
	else
		t_fail "$f: every sink fails alike" "text:   $text" "json:   $json" "pcapng: $pcap" \
			"stats:  $stats" "folded: $folded" "flamegraph: $flame"
	fi
	jf=$(one "$p" -f --format json)
	pf=$(one "$p" -f --format pcapng -o /dev/null)
	if [ "${jf%% *}" = "${pf%% *}" ] && { [ "${jf%% *}" != 0 ] || [ "$jf" = "$pf" ]; }; then
		t_ok "$f: -f: pcapng exits as json ($(echo "$pf" | cut -c1-60))"
	else
		t_fail "$f: -f: pcapng exits as json" "json:   $jf" "pcapng: $pf"
	fi
done
