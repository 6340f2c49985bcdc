#!/usr/bin/env bash
# Files that claim a large cost (tests/gen/bomb-gen.c: zstd bombs, FINISHED_ROUND
# floods, a pipe of 8000 HEADER_ATTR records) through check and every report mode: each is refused with the error
# naming the COMPRESSED record, or read within 64 MiB + 16 x its size of memory
# (plus 16 MiB for the process itself: libraries, the zstd and output buffers)
# and 20 s; with -j 2 within twice that (each thread reads with its own
# buffers: memory grows linearly in the threads, not with the file). The
# normal build is measured (ASan's shadow memory would blur the figures);
# memory is the peak RSS from /usr/bin/time.
source "$(dirname "$0")/lib.sh"
modes=("check" "report" "report --format json" "report --format pcapng" "report --stats"
	"report -j 2" "report --format json -j 2")
t_plan $((10 * ${#modes[@]}))
tool=$O/perf-rawfrag
gen=$O/tests/bomb-gen
[ -x /usr/bin/time ] || { t_fail "set-up: /usr/bin/time present"; exit 1; }
[ -x "$tool" ] || { t_fail "set-up: $tool built"; exit 1; }
ensure_tracefs
mkdir -p "$T/b"
t_setup "bomb-gen writes the files" "$gen" "$T/b"
[ "$(wc -l <"$T/b/MANIFEST")" = 10 ] || { t_fail "set-up: bomb-gen wrote 10 files" "$(cat "$T/b/MANIFEST")"; exit 1; }

# run FILE MODE...: rc, seconds and peak KB of one run into $rc $secs $kb
run() {
	local f=$1; shift
	local args=("$@")
	case "$*" in
	check) args=(check "$f") ;;
	*pcapng*) args+=(-o "$T/out.pcapng" -i "$f") ;;
	*) args+=(-i "$f") ;;
	esac
	/usr/bin/time -f '%e %M' -o "$T/time" timeout 20 "$tool" "${args[@]}" \
		>/dev/null 2>"$T/err"
	rc=$?
	read -r secs kb < <(tail -1 "$T/time")
}

while read -r file expect error; do
	size=$(stat -c %s "$T/b/$file")
	limit_kb=$(( (80 << 10) + 16 * size / 1024 ))
	for m in "${modes[@]}"; do
		lim=$limit_kb
		case "$m" in *"-j 2"*) lim=$((2 * limit_kb)) ;; esac
		run "$T/b/$file" $m
		cmd=${m%% *}
		echo "# $file ($((size / 1024)) KiB) $m: exit $rc, ${secs}s, $((kb / 1024)) MB peak"
		name="$file: $m $( [ "$expect" = refuse ] && echo refused || echo bounded)"
		why=()
		[ "$rc" = 124 ] && why+=("timed out after 20 s")
		[ "$rc" -gt 2 ] && [ "$rc" != 124 ] && why+=("exit $rc (crash?)")
		[ "${kb:-0}" -gt "$lim" ] && why+=("peak ${kb} KB > limit ${lim} KB")
		if [ "$expect" = refuse ]; then
			[ "$rc" = 2 ] || why+=("exit $rc, want 2")
			grep -qE "^perf rawfrag $cmd: .*$file: offset 0x[0-9a-f]+: COMPRESSED: .*$error" \
				"$T/err" || why+=("no 'perf rawfrag $cmd: FILE: offset 0x..: COMPRESSED: ...$error' in: $(head -c 300 "$T/err")")
		fi
		if [ ${#why[@]} = 0 ]; then t_ok "$name"; else t_fail "$name" "${why[@]}"; fi
	done
done <"$T/b/MANIFEST"
