#!/usr/bin/env bash
# Splice the tables of a `make bench` run into the benchmark page.
#   scripts/bench-page.sh [GENERATED] [PAGE]
#   (defaults: build/bench/bench.txt, Documentation/perf-rawfrag-bench.txt)
#
# GENERATED holds one block per part that ran (scripts/bench.sh writes it):
#   // begin generated: make bench <part>
#   <the part's tables>
#   // end generated
# PAGE holds the same marker lines around an asciidoc listing block. Each part
# in GENERATED replaces the body of its region in PAGE; regions of parts that
# did not run (BENCH_ONLY=...) are left as they are, and so is everything
# outside the markers (the prose). The page is rewritten only when every part
# found exactly one region, so a failed splice leaves it untouched.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
gen=${1:-$top/build/bench/bench.txt}
page=${2:-$top/Documentation/perf-rawfrag-bench.txt}
me=bench-page

[ -s "$gen" ] || { echo "$me: no tables in $gen (run make bench first)" >&2; exit 2; }
[ -f "$page" ] || { echo "$me: no page $page" >&2; exit 2; }

tmp=$(mktemp "$page.XXXXXX") || exit 2
trap 'rm -f "$tmp"' EXIT

# awk reads GENERATED first (NR == FNR), then PAGE. A listing block ends at the
# first line of four or more dashes, so a table line like that would cut the
# block short: refused, as are nested or unclosed markers in either file.
awk -v me="$me" -v gen="$gen" -v page="$page" '
function fail(msg) { print me ": " msg > "/dev/stderr"; bad = 1; exit 2 }
function partname(line) { sub(/^\/\/ begin generated: make bench[ \t]*/, "", line); return line }
NR == FNR {
	if ($0 ~ /^\/\/ begin generated:/) {
		if (cur != "") fail(gen ":" FNR ": begin inside part " cur)
		cur = partname($0)
		if (cur == "") fail(gen ":" FNR ": a begin line without a part name")
		if (cur in body) fail(gen ":" FNR ": part " cur " twice")
		body[cur] = ""; order[++nparts] = cur
		next
	}
	if ($0 ~ /^\/\/ end generated/) {
		if (cur == "") fail(gen ":" FNR ": end without begin")
		cur = ""
		next
	}
	if (cur == "") next # text between blocks is not spliced
	if ($0 ~ /^----+[ \t]*$/) fail(gen ":" FNR ": part " cur ": a line of dashes would end the listing")
	body[cur] = body[cur] $0 "\n"
	next
}
{
	if (FNR == 1 && cur != "") fail(gen ": part " cur " has no end line")
	if ($0 ~ /^\/\/ begin generated:/) {
		if (in_region) fail(page ":" FNR ": begin inside region " region)
		region = partname($0); in_region = 1
		seen[region]++
		print
		if (region in body) {
			print "----"
			printf "%s", body[region]
			print "----"
		}
		next
	}
	if ($0 ~ /^\/\/ end generated/) {
		if (!in_region) fail(page ":" FNR ": end without begin")
		in_region = 0
		print
		next
	}
	# a refreshed region loses its old body; the others keep theirs
	if (in_region && (region in body)) next
	print
}
END {
	if (bad) exit 2
	if (in_region) fail(page ": region " region " has no end line")
	if (nparts == 0) fail(gen ": no part in it")
	for (i = 1; i <= nparts; i++) {
		p = order[i]
		if (body[p] == "") fail(gen ": part " p " is empty")
		if (seen[p] != 1) fail(page ": " (seen[p] + 0) " regions for part " p " (want 1)")
		done = done " " p
	}
	print me ": refreshed" done > "/dev/stderr"
}' "$gen" "$page" >"$tmp" || exit 2
# keep the page's mode; mktemp made the copy 0600
chmod --reference="$page" "$tmp" && mv "$tmp" "$page"
