#!/usr/bin/env bash
# The library's ABI is declared three times: RAWFRAG_API in the public headers, the
# version script, and what the shared object exports. Fail when they drift.
set -euo pipefail
so=$1 map=$2 hdrs=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# functions declared RAWFRAG_API (declaration may span lines: take the identifier before '(')
grep -hv '^#' "$hdrs"/*.h | tr '\n' ' ' | grep -o 'RAWFRAG_API[^;{(]*(' |
	sed -E 's/\($//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u >"$tmp/hdr"
# symbols listed in the version script
sed -n 's/^[[:space:]]*\([a-z_][a-z0-9_]*\);.*/\1/p' "$map" | grep -v '^local$' | sort -u >"$tmp/map"
# symbols the .so exports
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' |
	grep -v '^LIBRAWFRAG' | sort -u >"$tmp/so"

rc=0
report() {
	if [ -s "$3" ]; then
		echo "check-abi: $1 but $2:" >&2; sed 's/^/  /' "$3" >&2; rc=1
	fi
}
comm -23 "$tmp/hdr" "$tmp/map" >"$tmp/a"; report "declared RAWFRAG_API" "missing from $map" "$tmp/a"
comm -13 "$tmp/hdr" "$tmp/map" >"$tmp/b"; report "in $map" "not declared RAWFRAG_API in a public header" "$tmp/b"
comm -23 "$tmp/map" "$tmp/so" >"$tmp/c"; report "in $map" "not exported by $so (not defined?)" "$tmp/c"
comm -13 "$tmp/map" "$tmp/so" >"$tmp/d"; report "exported by $so" "not in $map" "$tmp/d"
exit $rc
