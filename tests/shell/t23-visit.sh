#!/usr/bin/env bash
# Typed field visits (rawfrag/visit.h). For every sample of every producer's
# files, tests/gen/visit-check writes the visit back as JSON and compares it
# with rawfrag_session__sample_fields()' JSON byte for byte (each name, path,
# depth and element index checked against the nesting), then evaluates --where
# expressions made from the visited values (every operator at the value, below
# and above it; strings, globs, hex, type errors, missing fields) through the
# visit and through the JSON: same answers, messages and unseen fields.
# Producers: IBS and s390 generators, tracepoint fixtures in both byte orders,
# file and pipe, compressed; a live tracepoint recording; a BPF skb recording.
source "$(dirname "$0")/lib.sh"
t_plan 10

VC=$(t_bin visit-check)
if [ ! -x "$VC" ]; then
	t_fail "visit-check" "$VC not built"
	exit 1
fi

# vcheck NAME FILE...: every file read, no difference
vcheck() {
	local name=$1 n sums; shift
	"$VC" "$@" >"$T/vc.out" 2>"$T/vc.err"
	local rc=$?
	n=$(grep -c ', 0 differences$' "$T/vc.out")
	sums=$(awk '{s += $2; f += $4; w += $6} END {printf "%d samples, %d fields, %d where checks", s, f, w}' "$T/vc.out")
	if [ "$rc" = 0 ] && [ "$n" = $# ]; then
		t_ok "$name: $# files, $sums: visit = JSON, --where agrees"
	else
		t_fail "$name: visit = JSON, --where agrees" "exit $rc, $n of $# files clean" \
			"$(head -c 1500 "$T/vc.err")" "$(grep -v ', 0 differences$' "$T/vc.out" | head -5)"
	fi
}

t_setup "ibs-gen writes the fixtures" "$(t_bin ibs-gen)" write "$T/ibs"
vcheck "IBS fetch/op, every layout" "$T"/ibs/*.data
mkdir -p "$T/s390" "$T/fx" "$T/be"
t_setup "s390-gen writes the fixtures" "$(t_bin s390-gen)" gen "$T/s390"
vcheck "s390 CF_DIAG, PAI, CPUM-SF" "$T"/s390/*.data
t_setup "rawfrag-gen writes the fixtures" "$(t_bin rawfrag-gen)" "$T/fx"
vcheck "tracepoint fixtures (le/be, file/pipe, compressed, bad raw sizes)" \
	"$T"/fx/tp-*.data "$T"/fx/types-*.data "$T"/fx/bad-raw-size*.data
t_setup "tp-be-gen writes the fixtures" "$(t_bin tp-be-gen)" "$T/be"
vcheck "tracepoints with chosen values, big-endian and corrupt" "$T"/be/*.data

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "live recordings: needs root, tracefs and perf"
fi
# pointers, int arrays, dynamic strings, char arrays, many small events
EVENTS="-e sched:sched_switch -e sched:sched_process_exec -e raw_syscalls:sys_enter
	-e irq:irq_handler_entry -e kmem:kmalloc -e timer:hrtimer_start -e signal:signal_generate"
"$PERF" record -q $EVENTS -a -o tp.data -- sh -c 'for i in 1 2 3; do ls /proc >/dev/null; sleep 0.05; done' \
	>/dev/null 2>&1
if [ "$("$RAWFRAG" report -i tp.data 2>/dev/null | wc -l)" -lt 100 ]; then
	t_skip_n 5 "live tracepoints" "perf recorded under 100 samples"
else
	vcheck "live tracepoints (pointers, arrays, dynamic strings)" tp.data
	# the command filters on visits: the lines it keeps are those a reading of
	# its own JSON keeps (python's comparison, a second opinion)
	for expr in 'common.common_pid >= 100 && id != 0' 'prev_comm == "s*" || next_pid < 10' \
		'bytes_req > 64 && ptr != 0x0'; do
		"$RAWFRAG" report --format json -i tp.data 2>/dev/null >all.json
		"$RAWFRAG" report --format json --where "$expr" -i tp.data >kept.json 2>"$T/err"
		python3 - "$expr" all.json kept.json >py.out 2>&1 <<-'EOF'
			import fnmatch, json, sys
			expr, allf, keptf = sys.argv[1:]
			def get(f, path):
			    for k in path.split("."):
			        if not isinstance(f, dict) or k not in f:
			            return None
			        f = f[k]
			    return f
			def num(v):
			    return int(v, 16) if isinstance(v, str) else v
			tests = {
			    'common.common_pid >= 100 && id != 0': lambda f:
			        get(f, "common.common_pid") is not None and f["common"]["common_pid"] >= 100
			        and get(f, "id") is not None and f["id"] != 0,
			    'prev_comm == "s*" || next_pid < 10': lambda f:
			        (isinstance(get(f, "prev_comm"), str) and fnmatch.fnmatchcase(f["prev_comm"], "s*"))
			        or (get(f, "next_pid") is not None and f["next_pid"] < 10),
			    'bytes_req > 64 && ptr != 0x0': lambda f:
			        get(f, "bytes_req") is not None and f["bytes_req"] > 64
			        and get(f, "ptr") is not None and num(f["ptr"]) != 0,
			}
			want = [l for l in open(allf) if tests[expr](json.loads(l)["fields"])]
			got = open(keptf).readlines()
			print(len(want), len(got), "same" if want == got else "differ")
		EOF
		read -r nw ng verdict <py.out
		if [ "$verdict" = same ] && [ "${nw:-0}" -gt 0 ]; then
			t_ok "report --where '$expr': the $ng samples its JSON keeps"
		else
			t_fail "report --where '$expr': the samples its JSON keeps" "$(head -c 600 py.out)" \
				"$(head -c 300 "$T/err")"
		fi
	done
	# a type error stops report with the message naming the field and both types
	"$RAWFRAG" report --where 'prev_comm > 5' -i tp.data >/dev/null 2>"$T/err"
	t_grep "--where type error: field and both types named" \
		"--where: field 'prev_comm' is a string, compared with a number" "$T/err"
fi

if ! command -v bpftool >/dev/null || ! command -v ping >/dev/null; then
	t_skip "BPF skb recording on lo" "needs bpftool and ping"
else
	"$RAWFRAG" record --skb lo --snaplen 256 -o skb.data -- ping -c 4 -i 0.05 127.0.0.1 \
		>/dev/null 2>"$T/rec.err"
	if [ -s skb.data ]; then
		vcheck "BPF skb meta and packets on lo" skb.data
	else
		t_fail "BPF skb recording on lo" "$(head -c 400 "$T/rec.err")"
	fi
fi
