#!/usr/bin/env bash
# The perf.data reader is layered (lib/include/internal/file.h says how): each
# part includes only the internal headers of the parts below it, so no part
# depends on one above and the include graph has no cycle. Fail when a source
# file or header of the reader includes a header of its own layer or above.
set -euo pipefail
lib=${1:-lib}
# level of each reader header and of the source file that implements it
declare -A level=(
	[file.h]=0 [attr.h]=0
	[evsel.h]=1
	[features.h]=2 [compress.h]=2 [dir.h]=2
	[header.h]=3 [pipe.h]=3
)
declare -A src=(
	[file_core.c]=file.h [attr.c]=attr.h [file_evsel.c]=evsel.h
	[header_features.c]=features.h [compress.c]=compress.h [header.c]=header.h
	[pipe.c]=pipe.h [dir.c]=dir.h [file.c]=
)
rc=0
check() { # path own-header own-level
	local path=$1 own=$2 lvl=$3 inc
	for inc in $(sed -n 's|^#include "internal/\([a-z_]*\.h\)".*|\1|p' "$path"); do
		[ -n "${level[$inc]+x}" ] || continue # not a reader header
		[ "$inc" = "$own" ] && continue
		if [ "${level[$inc]}" -ge "$lvl" ]; then
			echo "check-layers: $path (layer $lvl) includes internal/$inc (layer ${level[$inc]})" >&2
			rc=1
		fi
	done
}
for h in "${!level[@]}"; do
	p=$(find "$lib/include/internal" -name "$h")
	[ -n "$p" ] || { echo "check-layers: internal/$h missing" >&2; rc=1; continue; }
	check "$p" "$h" "${level[$h]}"
done
for c in "${!src[@]}"; do
	p=$(find "$lib" -name "$c" -not -path '*/include/*')
	[ -n "$p" ] || { echo "check-layers: $c missing" >&2; rc=1; continue; }
	h=${src[$c]}
	check "$p" "$h" "$([ -n "$h" ] && echo "${level[$h]}" || echo 9)"
done
exit $rc
