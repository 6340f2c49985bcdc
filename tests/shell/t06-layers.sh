#!/usr/bin/env bash
# scripts/check-layers.sh on copies of the tree: it passes on the clean copy and
# fails, naming the file, on each include planted against the order: an upward
# include within a room and across rooms, a cycle between two files of one room,
# internal/ in a plugin and in the command, a plugin reaching into the command,
# and a file the layer table does not place.
. "$(dirname "$0")/lib.sh"
t_plan 8

# fresh copy of what the check reads, in $T/tree
copy() {
	rm -rf "$T/tree" && mkdir -p "$T/tree/scripts" &&
		cp "$TOP/scripts/check-layers.sh" "$T/tree/scripts/" &&
		cp -r "$TOP/lib" "$TOP/tools" "$TOP/plugins" "$T/tree/"
}
# add_include FILE LINE: LINE after the last #include of FILE (in the copy)
add_include() {
	local f=$T/tree/$1 n
	n=$(grep -n '^#include' "$f" | tail -1 | cut -d: -f1)
	[ -n "$n" ] || n=1
	sed -i "${n}a $2" "$f"
}
run() { bash "$T/tree/scripts/check-layers.sh" "$T/tree" >"$T/out" 2>"$T/err"; }
# planted NAME PATTERN...: the check fails and its message matches every PATTERN
planted() {
	local name=$1 p miss=; shift
	run && { t_fail "$name" "check-layers passed" "$(cat "$T/err")"; return; }
	for p in "$@"; do grep -qE -- "$p" "$T/err" || miss+=" /$p/"; done
	if [ -z "$miss" ]; then t_ok "$name"; else
		t_fail "$name" "not in the message:$miss" "$(head -c 600 "$T/err")"; fi
}

t_setup "copy the tree" copy
if run && [ ! -s "$T/err" ]; then t_ok "clean copy passes"; else
	t_fail "clean copy passes" "$(head -c 600 "$T/err")"; fi

# (a) upward: the ring reader (lowest layer of record/) including the engine
t_setup "copy the tree" copy
add_include tools/perf-rawfrag/record/ring.c '#include "record.h"'
planted "upward include within record/" \
	'tools/perf-rawfrag/record/ring\.c \(room record, layer 2\) includes "record\.h" \(layer 6\)'

# (a) upward across rooms: record/ below check/
t_setup "copy the tree" copy
add_include tools/perf-rawfrag/record/record.c '#include "check/check-live.h"'
planted "upward include from record/ into check/" \
	'tools/perf-rawfrag/record/record\.c \(room record\) includes "check/check-live\.h"' \
	'of room check, above it'

# (b) a cycle between two files of one room: events.h <-> ring.h
t_setup "copy the tree" copy
add_include tools/perf-rawfrag/record/ring.h '#include "events.h"'
add_include tools/perf-rawfrag/record/events.h '#include "ring.h"'
planted "include cycle in record/" \
	'include cycle among .*tools/perf-rawfrag/record/(ring, .*record/events|events, .*record/ring)' \
	'tools/perf-rawfrag/record/events\.h .*includes "ring\.h"'

# (c) internal/ in a plugin
t_setup "copy the tree" copy
add_include plugins/python/stats.c '#include "internal/out.h"'
planted "internal/ in a plugin" 'plugins/python/stats\.c includes internal/out\.h'

# internal/ in the command, outside the two listed report files
t_setup "copy the tree" copy
add_include tools/perf-rawfrag/record/record-synth.c '#include <internal/writer.h>'
planted "internal/ in the command" \
	'tools/perf-rawfrag/record/record-synth\.c includes internal/writer\.h'

# a plugin including a header of the command
t_setup "copy the tree" copy
add_include plugins/dlfilter/rawfrag-dlfilter.c '#include "../../tools/perf-rawfrag/util.h"'
planted "plugin reaching into the command" \
	'plugins/dlfilter/rawfrag-dlfilter\.c includes "\.\./\.\./tools/perf-rawfrag/util\.h"'

# a new file in a room with layers must be placed in the table
t_setup "copy the tree" copy
printf '#include "ring.h"\n' >"$T/tree/tools/perf-rawfrag/record/new-part.c"
planted "file missing from the layer table" \
	'tools/perf-rawfrag/record/new-part\.c: not in the layer table of room record'
