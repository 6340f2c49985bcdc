#!/usr/bin/env bash
# Tracepoint breadth: every tracepoint of 25 or more subsystems of the running
# kernel, recorded system-wide with perf record under a workload that makes them
# fire (tests/scripts/tp_workload.py: processes, files with fsync, sockets over
# lo, setitimer timers, signals), in batches that fit the file-descriptor limit
# (events x CPUs per batch) and a size cap (other load on the machine must not
# make the test unbounded). On every whole file:
#   - `perf rawfrag report -F trace` equals `perf script -F trace` line for line;
#   - every sample's JSON fields equal perf's Python values (tp_oracle.py
#     runs tp_fields.py, tp_cmp_fields.py compares; threads whose comm
#     perf's Python crashes on are left out, and named);
#   - report -v names no event whose compiled printer fell back to
#     libtraceevent (the compiled text equals libtraceevent's on whole files);
#   - timer:itimer_state (a print fmt dividing by the constant 1000L) prints.
# The number of tracepoints and samples covered is printed.
source "$(dirname "$0")/lib.sh"
t_plan 8

SCRIPTS=$TOP/tests/scripts
EV=/sys/kernel/tracing/events
if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null || ! command -v python3 >/dev/null; then
	t_skip_rest "needs root, tracefs, perf and python3"
fi

# groups recorded together; the busy ones first and alone, so that the others
# record the whole workload under the size cap (syscalls and xfs are left out:
# 700 and 600 events that the raw_syscalls and iomap/block events stand for)
BATCH_GROUPS=(
	"kmem raw_syscalls ext4 block pagemap exceptions jbd2 iomap filemap mmap_lock tlb readahead"
	"sched irq timer signal task workqueue rcu ipi csd power timer_migration alarmtimer rseq"
	"net skb sock tcp udp napi qdisc neigh fib fib6 icmp netlink page_pool"
	"writeback cgroup oom percpu vmscan compaction huge_memory migrate printk capability msr x86_fpu vsyscall irq_vectors lock dev"
)
CAP=16M
ulimit -n "$(ulimit -Hn)" 2>/dev/null
ncpu=$(nproc)
fd_budget=$(( ($(ulimit -n) - 128) / ncpu ))

nevents() { find "$EV/$1" -mindepth 1 -maxdepth 1 -type d | wc -l; }

# record_batch OUT SUBSYS...: perf record -a of every event of the subsystems;
# a subsystem perf cannot open (named in its error) is dropped and the batch
# recorded again. Prints the subsystems recorded.
record_batch() {
	local out=$1 try s bad args
	shift
	local subs=("$@")
	for try in 1 2 3 4 5; do
		args=()
		for s in "${subs[@]}"; do
			args+=(-e "$s:*")
			[ "$s" = raw_syscalls ] && args+=(--filter "common_pid != PERFPID")
		done
		# bash execs into perf: its $$ is perf's pid. At the size cap perf
		# stops the workload and exits 143: the file is good.
		bash -c 'exec "$0" record -q -a --max-size='"$CAP"' "${@//PERFPID/$$}"' "$PERF" \
			-o "$out" "${args[@]}" -- python3 "$SCRIPTS/tp_workload.py" "$T" \
			>/dev/null 2>"$out.err"
		if [ $? = 0 ] || { grep -q 'size limit reached' "$out.err" && [ -s "$out" ]; }; then
			echo "${subs[@]}"
			return 0
		fi
		# "No permission to enable sys:name event." and the like
		bad=$(grep -oE '(enable|event) \(?[a-z_0-9]+:[a-z_0-9]+' "$out.err" |
			grep -oE '[a-z_0-9]+:' | tr -d : | sort -u)
		[ -n "$bad" ] || return 1
		local keep=()
		for s in "${subs[@]}"; do grep -qx "$s" <<<"$bad" || keep+=("$s"); done
		[ "${#keep[@]}" -lt "${#subs[@]}" ] || return 1
		subs=("${keep[@]}")
		echo "$bad" >>"$T/dropped"
	done
	return 1
}

# the groups, present on this kernel, cut where a batch would pass the fd budget
batches=()
for g in "${BATCH_GROUPS[@]}"; do
	cur="" n=0
	for s in $g; do
		[ -d "$EV/$s" ] || continue
		k=$(nevents "$s")
		if [ -n "$cur" ] && [ $((n + k)) -gt "$fd_budget" ]; then
			batches+=("$cur"); cur="" n=0
		fi
		cur+=" $s" n=$((n + k))
	done
	[ -n "$cur" ] && batches+=("$cur")
done

recorded=() files=() rec_fail=""
for i in "${!batches[@]}"; do
	# shellcheck disable=SC2086
	if subs=$(record_batch "$T/b$i.data" ${batches[$i]}); then
		recorded+=($subs)
		files+=("$T/b$i.data")
	else
		rec_fail+=" batch $i (${batches[$i]}): $(head -c 300 "$T/b$i.data.err")"
	fi
done
# preconditions (perf's part): every batch recorded, 25 subsystems or more
if [ -n "$rec_fail" ]; then
	t_fail "set-up: every batch recorded (fd limit $(ulimit -n), $ncpu CPUs)" "$rec_fail"; exit 1
fi
nsub=${#recorded[@]}
dropped=$(sort -u "$T/dropped" 2>/dev/null | tr '\n' ' ')
if [ "$nsub" -lt 25 ]; then
	t_fail "set-up: at least 25 subsystems recorded" "only $nsub: ${recorded[*]}" "dropped: $dropped"
	exit 1
fi
echo "# ${#batches[@]} batches (fd limit $(ulimit -n), $ncpu CPUs): $nsub subsystems," \
	"every event of each${dropped:+; perf cannot open: $dropped}"

opened=0
for s in "${recorded[@]}"; do opened=$((opened + $(nevents "$s"))); done
txt_diff="" rep_rc="" json_err="" switched="" nsamp=0 cmp_sum="" skipped=""
: >"$T/events"
for f in "${files[@]}"; do
	"$PERF" script -i "$f" -F trace >"$T/perf.txt" 2>/dev/null
	"$PERF" script -i "$f" -F event 2>/dev/null | awk '{ print $1 }' >>"$T/events"
	"$RAWFRAG" report -i "$f" -F trace >"$T/ours.txt" 2>"$T/ours.err" || rep_rc+=" $(basename "$f"):$?"
	nsamp=$((nsamp + $(wc -l <"$T/perf.txt")))
	if ! diff "$T/perf.txt" "$T/ours.txt" >"$T/diff"; then
		txt_diff+="$(basename "$f"): $(grep -c '^[<>]' "$T/diff") lines differ: $(head -n 4 "$T/diff")"
	fi
	# perf's Python values, without the threads whose comm it crashes on
	if python3 "$SCRIPTS/tp_oracle.py" "$PERF" "$f" "$T/perf.jsonl" >"$T/oracle" 2>"$T/oracle.err"; then
		[ -s "$T/oracle" ] && skipped+="$(basename "$f"): $(sed -n 2p "$T/oracle" | head -c 200); "
	else
		json_err+="$(basename "$f"): $(cat "$T/oracle.err"); "
		: >"$T/perf.jsonl"
	fi
	"$RAWFRAG" report -i "$f" --format json >"$T/ours.jsonl" 2>/dev/null || rep_rc+=" json:$?"
	# shellcheck disable=SC2046
	if python3 "$SCRIPTS/tp_cmp_fields.py" "$T/perf.jsonl" "$T/ours.jsonl" \
		$(head -n 1 "$T/oracle") >"$T/cmp" 2>&1; then
		cmp_sum+="$(tail -n 1 "$T/cmp"); "
	else
		json_err+="$(basename "$f"): $(head -n 6 "$T/cmp")"
	fi
	"$RAWFRAG" report -v -i "$f" -F event >/dev/null 2>"$T/v.err"
	switched+=$(grep -o '[a-z_0-9]*:[a-z_0-9]*: compiled printer differs' "$T/v.err")
	"$RAWFRAG" report -i "$f" -F event,trace 2>/dev/null | grep 'timer:itimer_state:' >>"$T/itimer.txt"
done
t_eq "report exits 0 on every batch" "" "$rep_rc"
t_eq "report -F trace equals perf script -F trace line for line, whole files ($nsamp samples)" "" "$txt_diff"
t_eq "JSON fields equal perf's Python values for every sample (${cmp_sum%; })" "" "$json_err"
[ -z "$skipped" ] || echo "# threads perf's Python cannot take (comm not UTF-8), tid:samples:comm: $skipped"
t_eq "report -v: no compiled printer fell back to libtraceevent" "" "$switched"

ncov=$(sort -u "$T/events" | grep -c ':$')
if [ "$ncov" -ge 100 ]; then
	t_ok "covered: $ncov tracepoints with samples of $opened opened in $nsub subsystems, $nsamp samples"
else
	t_fail "at least 100 tracepoints with samples" "$ncov of $opened opened, $nsamp samples"
fi
# the print fmt that divides by the constant 1000L: printed, as perf prints it
if [ -s "$T/itimer.txt" ] && ! grep -q 'print format not used\|\[bad ' "$T/itimer.txt"; then
	t_ok "timer:itimer_state printed in full ($(wc -l <"$T/itimer.txt") samples: $(head -n 1 "$T/itimer.txt" | sed 's/^ *//'))"
else
	t_fail "timer:itimer_state printed in full" "$(head -n 3 "$T/itimer.txt")"
fi
# a second breadth figure: the same files through libtraceevent alone
same=0
for f in "${files[@]}"; do
	"$PERF" script -i "$f" -F trace 2>/dev/null | md5sum >"$T/a"
	"$RAWFRAG" report --decoder-opt fastprint=0 -i "$f" -F trace 2>/dev/null | md5sum >"$T/b"
	cmp -s "$T/a" "$T/b" && same=$((same + 1))
done
t_eq "report --decoder-opt fastprint=0 (libtraceevent only) equals perf script on every batch" "${#files[@]}" "$same"
# the per-event JSON programs against the generic field path, byte for byte
same=0
for f in "${files[@]}"; do
	"$RAWFRAG" report --format json -i "$f" 2>/dev/null | md5sum >"$T/a"
	"$RAWFRAG" report --decoder-opt fastjson=0 --format json -i "$f" 2>/dev/null | md5sum >"$T/b"
	cmp -s "$T/a" "$T/b" && same=$((same + 1))
done
t_eq "report --format json equals --decoder-opt fastjson=0 (fields one by one) on every batch" \
	"${#files[@]}" "$same"
