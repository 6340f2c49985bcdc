#!/usr/bin/env bash
# usage: scripts/check-layers.sh [TOP]   (TOP: the source tree, default .)
#
# Who may include whom, in three parts of the tree; fail (naming the file) when
# an include breaks the order or the includes form a cycle.
#  - lib/: the perf.data reader is layered (lib/include/internal/file.h says how):
#    each part includes only the internal headers of the parts below it.
#  - tools/perf-rawfrag/: the command is made of rooms, each a directory but
#    "common" (the top directory's shared files) and "top" (the entry point and
#    the other top-level files). A file includes headers of lower rooms, and
#    within its room those of lower layers (the tables below) or its own header
#    (x.c includes x.h). No file includes internal/ (the library's in-tree
#    headers), but for the exceptions listed.
#  - plugins/: a plugin includes the public headers <rawfrag/*.h>, plugins/common/
#    and its own directory; never internal/.
# A unit is a source with its header (x.c, x.h); the includes between units of
# tools/ and plugins/ must have no cycle (tsort finds them).
set -euo pipefail
top=${1:-.}
rc=0
err() { echo "check-layers: $*" >&2; rc=1; }

# ---- lib/: the reader ----
lib=$top/lib
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
check() { # path own-header own-level
	local path=$1 own=$2 lvl=$3 inc
	for inc in $(sed -n 's|^#include "internal/\([a-z_]*\.h\)".*|\1|p' "$path"); do
		[ -n "${level[$inc]+x}" ] || continue # not a reader header
		[ "$inc" = "$own" ] && continue
		if [ "${level[$inc]}" -ge "$lvl" ]; then
			err "$path (layer $lvl) includes internal/$inc (layer ${level[$inc]})"
		fi
	done
}
for h in "${!level[@]}"; do
	p=$(find "$lib/include/internal" -name "$h")
	[ -n "$p" ] || { err "internal/$h missing"; continue; }
	check "$p" "$h" "${level[$h]}"
done
for c in "${!src[@]}"; do
	p=$(find "$lib" -name "$c" -not -path '*/include/*')
	[ -n "$p" ] || { err "$c missing"; continue; }
	h=${src[$c]}
	check "$p" "$h" "$([ -n "$h" ] && echo "${level[$h]}" || echo 9)"
done

# ---- tools/perf-rawfrag/: rooms and layers ----
tool=tools/perf-rawfrag
# the rooms from the bottom up: a room includes only the rooms before it
rooms=(common record check report top)
# The layer of each unit within its room: a unit includes only units of lower
# layers. A room with no entry here ("top") has no layers, only the cycle check.
# "common" holds the top directory's shared files; any other top-level file is
# in "top". A file of a room with layers that is not listed fails: place it.
declare -A layer=(
	[common:util]=0 [common:tracefs]=0 [common:builtin]=0
	[common:loss]=1

	[record:bpf/skbdump.bpf]=0
	[record:bpf/skbxdp.bpf]=1
	[record:ring]=2 [record:events]=2 [record:record-opts]=2 [record:record-bidcache]=2
	[record:skb-filter]=2 [record:cbpf-xlate]=2 [record:skb-xdp]=2 [record:skb]=2
	[record:record-int]=3 [record:cbpf-splice]=3
	[record:record-target]=4 [record:record-buildid]=4 [record:record-threads]=4
	[record:record-synth]=5
	[record:record]=6
	[record:skb-record]=7
	[record:builtin-record]=8

	[check:bpf/livecheck.bpf]=0
	[check:check-live-int]=1
	[check:check-live-verify]=2
	[check:check-live-cases]=3
	[check:check-live]=4
	[check:builtin-check]=5

	[report:builtin-report]=0
)
# The only files of the command that may include internal/ (paths in $tool/):
declare -A internal_ok=()
declare -A room_level
for i in "${!rooms[@]}"; do room_level[${rooms[$i]}]=$i; done
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

declare -A layered
for k in "${!layer[@]}"; do layered[${k%%:*}]=1; done
# place REL: P_ROOM and P_UNIT (dir/name without .c/.h) of a path relative to $tool
place() {
	P_UNIT=${1%.[ch]}
	case $1 in
	*/*) P_ROOM=${1%%/*}; P_UNIT=${P_UNIT#*/} ;;
	*) if [ -n "${layer[common:$P_UNIT]+x}" ]; then P_ROOM=common; else P_ROOM=top; fi ;;
	esac
}
# node ROOM UNIT: the unit's path, its name in the cycle check
node() {
	case $1 in
	common|top) echo "$tool/$2" ;;
	*) echo "$tool/$1/$2" ;;
	esac
}
# the includes of a file: one "q NAME" (quoted) or "a NAME" (angle) per line
includes() {
	sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*|q \1|p
		s|^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*|a \1|p' "$1"
}

if [ -d "$top/$tool" ]; then
	while IFS= read -r f; do
		rel=${f#"$top/$tool/"}
		place "$rel"; room=$P_ROOM unit=$P_UNIT
		if [ -z "${room_level[$room]+x}" ]; then
			err "$tool/$rel: room $room/ is not in the room order of scripts/check-layers.sh"
			continue
		fi
		lvl=
		if [ -n "${layered[$room]+x}" ]; then
			if [ -z "${layer[$room:$unit]+x}" ]; then
				err "$tool/$rel: not in the layer table of room $room (scripts/check-layers.sh)"
				continue
			fi
			lvl=${layer[$room:$unit]}
		fi
		while read -r kind name; do
			case $name in
			internal/*)
				[ -n "${internal_ok[$rel]+x}" ] ||
					err "$tool/$rel includes $name: the command uses the public headers <rawfrag/*.h>"
				continue ;;
			rawfrag/*) continue ;;
			esac
			[ "$kind" = q ] || continue
			case $name in
			"$tool"/*/bpf/*.skel.h) # generated beside its program's object
				trel=${name#"$tool/"}; trel=${trel%.skel.h}.bpf.c ;;
			*)
				d=${f%/*}
				if [ -e "$d/$name" ]; then t=$d/$name
				elif [ -e "$top/$tool/$name" ]; then t=$top/$tool/$name
				else
					err "$tool/$rel includes \"$name\", which is no file of the command"
					continue
				fi
				case $t in
				*..*) trel=$(realpath -m --relative-to="$top/$tool" "$t") ;;
				*) trel=${t#"$top/$tool/"} ;;
				esac
				case $trel in ../*)
					err "$tool/$rel includes \"$name\", outside $tool/"
					continue ;;
				esac ;;
			esac
			place "$trel"; troom=$P_ROOM tunit=$P_UNIT
			[ "$troom:$tunit" = "$room:$unit" ] && continue # its own header
			echo "$(node "$room" "$unit") $(node "$troom" "$tunit")" >>"$edges"
			[ -n "${room_level[$troom]+x}" ] || continue # reported with the file
			if [ "${room_level[$troom]}" -gt "${room_level[$room]}" ]; then
				err "$tool/$rel (room $room) includes \"$name\" of room $troom, above it"
			elif [ "$troom" = "$room" ] && [ -n "$lvl" ] && [ -n "${layer[$troom:$tunit]+x}" ] &&
			     [ "${layer[$troom:$tunit]}" -ge "$lvl" ]; then
				err "$tool/$rel (room $room, layer $lvl) includes \"$name\"" \
				    "(layer ${layer[$troom:$tunit]}): a layer includes only those below it"
			fi
		done < <(includes "$f")
	done < <(find "$top/$tool" -type f \( -name '*.c' -o -name '*.h' \) | sort)
fi

# ---- plugins/: public headers, plugins/common/ and their own directory ----
if [ -d "$top/plugins" ]; then
	while IFS= read -r f; do
		rel=${f#"$top/plugins/"}
		room=${rel%%/*}
		unit=${rel%.[ch]}
		while read -r kind name; do
			case $name in
			internal/*)
				err "plugins/$rel includes $name: plugins use only the public" \
				    "headers <rawfrag/*.h> and plugins/common/"
				continue ;;
			rawfrag/*) continue ;;
			esac
			[ "$kind" = q ] || continue
			t=${f%/*}/$name
			case $t in
			*..*) t=$(realpath -m --relative-to="$top/plugins" "$t") ;;
			*) t=${t#"$top/plugins/"} ;;
			esac
			troom=${t%%/*}
			if [ "${t#../}" != "$t" ] || [ "$troom" = "$t" ] ||
			   { [ "$troom" != "$room" ] && [ "$troom" != common ]; }; then
				err "plugins/$rel includes \"$name\": plugins use only <rawfrag/*.h>," \
				    "plugins/common/ and their own directory"
				continue
			fi
			if [ ! -e "$top/plugins/$t" ]; then
				err "plugins/$rel includes \"$name\", which is no file of plugins/"
				continue
			fi
			if [ "$room" = common ] && [ "$troom" != common ]; then
				err "plugins/$rel (plugins/common) includes \"$name\" of" \
				    "plugins/$troom: common is below every plugin"
			fi
			tunit=${t%.[ch]}
			[ "$tunit" = "$unit" ] || echo "plugins/$unit plugins/$tunit" >>"$edges"
		done < <(includes "$f")
	done < <(find "$top/plugins" -type f \( -name '*.c' -o -name '*.h' \) | sort)
fi

# ---- no cycle among the units of tools/ and plugins/ ----
if ! tsort "$edges" >/dev/null 2>"$edges.tsort"; then
	# one line per loop tsort found: its units, each x.c with x.h
	awk '/input contains a loop/ { if (l) print l; l = ""; next }
	     { sub(/^tsort: /, ""); l = l ? l ", " $0 : $0 }
	     END { if (l) print l }' "$edges.tsort" |
		while IFS= read -r l; do err "include cycle among $l"; done
	rc=1
fi
rm -f "$edges.tsort"
exit $rc
