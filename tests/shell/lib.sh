# Shared helpers for tests/shell/t*.sh. Source it; each test file runs in its own
# scratch directory ($T, removed at exit unless KEEP=1) and reports TAP lines:
#   1..N (t_plan N, first) | ok N - name | not ok N - name | ok N - name # SKIP reason
# tests/run.sh tallies them with tests/tap.awk: a script whose plan is missing, or that
# runs fewer or more checks than it planned, fails. Assertions print expected vs actual
# on failure, every line of them behind "#" so that no detail can count as a result.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
O=${O:-$TOP/build/out}
ASAN_O=${ASAN_O:-$TOP/build/asan}
# the tool under test: the ASan build when present (tests run under ASan+UBSan)
RAWFRAG=${RAWFRAG:-$O/perf-rawfrag}
[ -x "$ASAN_O/perf-rawfrag" ] && [ "${NO_ASAN:-0}" != 1 ] && RAWFRAG=$ASAN_O/perf-rawfrag
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=98}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP/tests/lsan.supp}
PERF=${PERF:-perf}
_tn=0
T=$(mktemp -d "${TMPDIR:-/tmp}/rawfrag-test.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$T"' EXIT
cd "$T"

_plan=
# t_plan N: this script runs N checks, skipped ones included
t_plan() { _plan=$1; echo "1..$1"; }
t_ok()   { _tn=$((_tn + 1)); echo "ok $_tn - $1"; }
t_fail() {
	_tn=$((_tn + 1)); echo "not ok $_tn - $1"; shift
	# each argument may hold several lines (a command's output): prefix them all
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/#   /'
	return 0
}
t_skip() { _tn=$((_tn + 1)); echo "ok $_tn - $1 # SKIP $2"; }
# t_skip_n N NAME REASON: N checks of a block that cannot run here, each a skip
t_skip_n() { local i; for i in $(seq "$1"); do t_skip "$2 ($i/$1)" "$3"; done; }
# t_skip_rest REASON: the remaining planned checks cannot run here; skip them and stop
t_skip_rest() {
	[ -n "$_plan" ] || { t_fail "t_skip_rest before t_plan"; exit 1; }
	local left=$((_plan - _tn))
	[ "$left" -gt 0 ] && t_skip_n "$left" "remaining checks" "$1"
	exit 0
}

# t_setup NAME CMD...: a step that prepares checks (a generator writing fixtures,
# another program's behaviour the checks rely on), not a check of this project:
# nothing is counted when it works; when it fails that is one failure and the
# script stops (the short plan says what did not run).
t_setup() {
	local name=$1; shift
	"$@" >"$T/setup.out" 2>&1 && return 0
	t_fail "set-up: $name" "$*" "$(head -c 600 "$T/setup.out")"
	exit 1
}
# t_eq NAME EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1" "expected: $2" "actual:   $3"; fi
}
# t_run NAME EXPECTED_RC CMD...: runs CMD, output in $T/out, $T/err
t_run() {
	local name=$1 want=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; local rc=$?
	if [ "$rc" = "$want" ]; then t_ok "$name"; else
		t_fail "$name" "expected exit $want, got $rc: $*" "$(head -c 600 "$T/err")"; fi
}
# t_grep NAME PATTERN FILE
t_grep() {
	if grep -qE -- "$2" "$3"; then t_ok "$1"; else
		t_fail "$1" "pattern not found: $2" "in $3: $(head -c 400 "$3")"; fi
}
is_root() { [ "$(id -u)" = 0 ]; }
# t_bin NAME: the test helper NAME (tests/gen), its ASan build when present
t_bin() {
	if [ -x "$ASAN_O/tests/$1" ] && [ "${NO_ASAN:-0}" != 1 ]; then echo "$ASAN_O/tests/$1"
	else echo "$O/tests/$1"; fi
}
# perf_samples_py: writes $T/samples.py, a `perf script -s` handler printing perf's
# view of each sample: "event pid tid cpu time raw_size period ip"
perf_samples_py() {
	cat >"$T/samples.py" <<'EOF'
def emit(p):
    s = p["sample"]
    print("%s %d %d %d %d %d %d %x" % (p["ev_name"], s["pid"], s["tid"], s["cpu"],
          s["time"], len(p.get("raw_buf", b"")), s["period"], s["ip"]))
def process_event(p):
    emit(p)
def trace_unhandled(event_name, context, fields, p):
    emit(p)
EOF
}
# record --skb: the dump programs loaded now (bpftool), waiting for N of them
# (the recorder attached) or for none (a leak stays), 10 s at most
skb_progs() { bpftool prog show 2>/dev/null | grep -c 'name skbdump_'; }
wait_progs() {
	for _ in $(seq 100); do
		[ "$(skb_progs)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
wait_no_progs() {
	for _ in $(seq 100); do
		[ "$(skb_progs)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
have_tracefs() { [ -d /sys/kernel/tracing/events ]; }
ensure_tracefs() {
	have_tracefs || { is_root && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; }
	have_tracefs
}

# perf_read_counts FILE: perf script's view of each syscalls:sys_enter_read
# sample of FILE, "comm<TAB>count" (count in decimal), one line a sample
perf_read_counts() {
	"$PERF" script -i "$1" -F comm,trace 2>/dev/null | awk '
	function hex(s,   i, v) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	{ i = index($0, " fd: "); c = substr($0, 1, i - 1); sub(/^ +/, "", c)
	  if (!match($0, /count: 0x[0-9a-f]+/)) next
	  printf "%s\t%d\n", c, hex(substr($0, RSTART + 7, RLENGTH - 7)) }'
}
