#!/usr/bin/env bash
# Every subcommand listed by `perf-rawfrag --help` has Documentation/perf-rawfrag-<cmd>.txt,
# and every long option its --help shows appears in that page (as git's check-docs).
set -u
tool=$1 docdir=$2
[ -x "$tool" ] || { echo "check-docs: $tool not built (run make first)" >&2; exit 1; }
rc=0
[ -f "$docdir/perf-rawfrag.txt" ] || { echo "check-docs: missing $docdir/perf-rawfrag.txt" >&2; rc=1; }
cmds=$("$tool" --help | awk '/^   [a-z]/ {print $1}')
for c in $cmds; do
	page=$docdir/perf-rawfrag-$c.txt
	if [ ! -f "$page" ]; then
		echo "check-docs: command '$c' has no page $page" >&2; rc=1; continue
	fi
	grep -q "perf-rawfrag-$c" "$docdir/perf-rawfrag.txt" 2>/dev/null ||
		{ echo "check-docs: perf-rawfrag.txt does not mention perf-rawfrag-$c" >&2; rc=1; }
	for o in $("$tool" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		# the page of the command, or a page it includes (e.g. the skb page for record)
		if ! cat "$docdir"/perf-rawfrag-"$c"*.txt "$docdir"/perf-rawfrag-skb.txt 2>/dev/null |
			grep -q -- "$o"; then
			echo "check-docs: option $o of '$c' is not documented in $page" >&2; rc=1
		fi
	done
done
exit $rc
