# shellcheck shell=bash disable=SC2154
# Helpers of scripts/bench*.sh (sourced).
# They set $cpu (user + sys seconds, the steadier figure on a shared machine),
# $secs (wall) and $rss_kb; the command's stdout goes to $dir/out.

once() { # cmd...
	local t0 t1 u sy rc
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$dir/time.out" "$@" >"$dir/out" 2>"$dir/err.out"
	rc=$?
	t1=$(date +%s%N)
	read -r rss_kb u sy <"$dir/time.out" || { rss_kb=0; u=0; sy=0; }
	cpu=$(awk -v a="$u" -v b="$sy" 'BEGIN { printf "%.2f", a + b }')
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	[ "$rc" = 0 ] || echo "bench: $1 exited $rc: $(head -c 300 "$dir/err.out")" >&2
}

best3() { # cmd... -> the least CPU and wall of three runs, the largest RSS
	local c='' s='' k=0
	for _ in 1 2 3; do
		once "$@"
		if [ -z "$c" ] || awk -v a="$cpu" -v b="$c" 'BEGIN { exit !(a < b) }'; then c=$cpu; fi
		if [ -z "$s" ] || awk -v a="$secs" -v b="$s" 'BEGIN { exit !(a < b) }'; then s=$secs; fi
		[ "$rss_kb" -gt "$k" ] && k=$rss_kb
	done
	cpu=$c secs=$s rss_kb=$k
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.1f", a / b }'; }

row() { # name cpu rss_kb base_cpu base_rss_kb note: ratios are base / ours (higher is better)
	local r=-
	[ "$5" -gt 0 ] && r=$(ratio "$5" "$3")x
	printf '%-50s %8.2f %8d %8sx %9s  %s\n' "$1" "$2" $(($3 / 1024)) "$(ratio "$4" "$2")" "$r" "$6"
}

# record_g PATH MB: a system-wide -g cpu-clock file while find and ls -R walk
# the file system (many distinct user and kernel stacks), until it reaches MB
record_g() {
	local path=$1 want=$(($2 * 1024 * 1024))
	[ -f "$path" ] && [ "$(stat -c %s "$path")" -ge "$want" ] && return
	echo "recording a -g file of $2 MB into $path (cpu-clock -F 4999 -a, find and ls -R)" >&2
	perf record -q -g -a -e cpu-clock -F 4999 -m 1024 -o "$path" -- sh -c "
		while :; do find / -xdev >/dev/null 2>&1; ls -R /usr >/dev/null 2>&1
			[ \$(stat -c %s '$path' 2>/dev/null || echo 0) -ge $want ] && break; done" \
		>/dev/null 2>&1
}

# make_file PATH MB: the tracepoint bench file (raw_syscalls + sched, -a) until it reaches MB
make_file() { # path size_mb
	local path=$1 want=$(($2 * 1024 * 1024))
	echo "recording a tracepoint file of ${2} MB into $path (raw_syscalls + sched)" >&2
	perf record -q -o "$path" -m 1024 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
		-e sched:sched_switch -a -- sh -c "
		while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
			[ \$(stat -c %s '$path' 2>/dev/null || echo 0) -ge $want ] && break; done" \
		>/dev/null 2>&1
}
