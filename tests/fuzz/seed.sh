#!/usr/bin/env bash
# Seed corpus for the fuzzer: the fixture generators' outputs and a few small real
# perf.data files (when perf, root and tracefs are there), each at most 256 KiB.
set -u
dir=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-$top/build/out}
mkdir -p "$dir"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for g in rawfrag-gen ibs-gen s390-gen tp-be-gen; do
	[ -x "$O/tests/$g" ] || continue
	mkdir -p "$tmp/$g"
	case $g in
	ibs-gen) "$O/tests/$g" write "$tmp/$g" ;;
	*) "$O/tests/$g" "$tmp/$g" ;;
	esac >/dev/null 2>&1 || true
done
# the historic layouts (compat-gen), from tp-be-gen's little-endian pipe stream
if [ -x "$O/tests/compat-gen" ] && [ -x "$O/tests/tp-be-gen" ] &&
   "$O/tests/tp-be-gen" -l -p -n 20 "$tmp/base.pipe" "$tmp/base.jsonl" >/dev/null 2>&1; then
	mkdir -p "$tmp/compat"
	for l in $("$O/tests/compat-gen" -l); do
		"$O/tests/compat-gen" "$l" "$tmp/base.pipe" "$tmp/compat/$l.data" || true
	done
	rm -f "$tmp/base.jsonl"
fi
if command -v perf >/dev/null && [ -d /sys/kernel/tracing/events ]; then
	perf record -q -o "$tmp/tp.data" -e sched:sched_switch -e sched:sched_process_exec \
		-a -- sh -c 'ls /; true' >/dev/null 2>&1 || true
	perf record -q -o - -e sched:sched_switch -a -- sleep 0.05 >"$tmp/tp-pipe.data" 2>/dev/null || true
	perf record -q -z -o "$tmp/tp-z.data" -e sched:sched_switch -a -- sleep 0.05 >/dev/null 2>&1 || true
fi
n=0
while IFS= read -r -d '' f; do
	sz=$(stat -c %s "$f")
	[ "$sz" -gt 0 ] && [ "$sz" -le 262144 ] || continue
	cp "$f" "$dir/$(echo "$f" | sed "s|$tmp/||; s|/|_|g")"
	n=$((n + 1))
done < <(find "$tmp" -type f -print0)
[ -d "$top/tests/fuzz/corpus" ] && cp "$top"/tests/fuzz/corpus/* "$dir"/ 2>/dev/null
echo "seed: $n files in $dir" >&2
