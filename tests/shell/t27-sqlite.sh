#!/usr/bin/env bash
# report --format sqlite (the "sqlite" sink) against perf 6.1's own database
# export, export-to-sqlite.py 'all calls callchains', on a file perf records
# here (cpu-clock -g, sched_switch, sched_wakeup, sys_enter_openat, a task
# renamed to an SQL injection): every table and view of perf's database
# exists in ours with the same columns and types; read with -e cpu-clock (the
# only event perf exports) each of perf's tables is equal row for row, ids
# included; read whole (ids then differ: the tracepoint samples perf drops are
# rows too) the cpu-clock rows of samples_view and each sample's call path
# walked up call_paths are equal as multisets. The tracepoint samples are all
# there, their field columns equal to perf script's values (perf's python
# handlers). Names from the file stay data; an existing file is refused
# without --overwrite; a failed or interrupted load leaves no file; python's
# Reader.to_sqlite() writes the same database.
source "$(dirname "$0")/lib.sh"
t_plan 43

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
if ! command -v sqlite3 >/dev/null; then
	t_skip_rest "needs the sqlite3 command (make deps)"
fi
PERF_EXPORT=/usr/lib/perf-core/scripts/python/export-to-sqlite.py
export QT_QPA_PLATFORM=offscreen # perf's script uses Qt's SQL driver; no display here
TAB=$(printf '\t')
EVIL="'); DROP TABLE" # 14 bytes: a comm holds 15

# the workload: ls and cat, and a python task that names itself EVIL and opens a file
cat >rename.py <<'EOF'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x27); DROP TABLE", 0, 0, 0)  # PR_SET_NAME
open("/etc/hostname").read()
time.sleep(0.01)
EOF
cat >work.sh <<'EOF'
for i in $(seq 60); do ls /usr/bin >/dev/null; cat /etc/hostname >/dev/null; done
python3 rename.py
EOF
t_setup "perf records cpu-clock -g, sched_switch, sched_wakeup, openat" \
	"$PERF" record -q -g -e cpu-clock -e sched:sched_switch -e sched:sched_wakeup \
	-e syscalls:sys_enter_openat \
	-o r.data -- sh work.sh
t_setup "perf's export-to-sqlite.py all calls callchains" \
	"$PERF" script -i r.data -s "$PERF_EXPORT" perf.db all calls callchains

t_run "report --format sqlite -o FILE exits 0" 0 "$RAWFRAG" report -i r.data --format sqlite -o our.db
FULL=$(sqlite3 our.db 'SELECT count(*) FROM samples')
t_eq "PRAGMA integrity_check" "ok" "$(sqlite3 our.db 'PRAGMA integrity_check' 2>&1)"

# NAME TYPE per column of every table and view of a database
schema() {
	sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name" |
		while IFS= read -r t; do
			printf '%s: %s\n' "$t" "$(sqlite3 "$1" "SELECT group_concat(name || ' ' || type, ', ')
				FROM pragma_table_info('$t')")"
		done
}
schema perf.db >perf.schema
schema our.db >our.schema
missing=$(comm -23 <(sort perf.schema) <(sort our.schema))
if [ -s perf.schema ] && [ -z "$missing" ]; then
	t_ok "perf's $(wc -l <perf.schema) tables and views are in ours with the same columns and types"
else
	t_fail "perf's tables and views are in ours" "missing or different: $missing"
fi
idx=$(sqlite3 our.db "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master
	WHERE type = 'index' AND name IN ('pcpid_idx', 'pid_idx') ORDER BY name)")
t_eq "perf's indexes on calls" "pcpid_idx,pid_idx" "$idx"

# -e cpu-clock: the samples perf exports and no other; perf's tables row for row
t_run "report --format sqlite -e cpu-clock" 0 \
	"$RAWFRAG" report -i r.data -e cpu-clock --format sqlite -o cc.db
for t in selected_events machines threads comms comm_threads dsos symbols branch_types samples \
	call_paths calls; do
	sqlite3 perf.db "SELECT * FROM $t ORDER BY id" >perf.rows
	sqlite3 cc.db "SELECT * FROM $t ORDER BY id" >our.rows
	n=$(wc -l <perf.rows)
	if [ "$n" -ge 1 ] && cmp -s perf.rows our.rows; then
		t_ok "-e cpu-clock: $t equal to perf's, ids included ($n rows)"
	else
		t_fail "-e cpu-clock: $t equal to perf's" "perf $n rows, ours $(wc -l <our.rows)" \
			"$(diff perf.rows our.rows | head -8)"
	fi
done

# the whole file: the cpu-clock rows of samples_view, ids aside
SV="SELECT time, cpu, pid, tid, command, event, ip_hex, symbol, sym_offset, dso_short_name,
	to_ip_hex, to_symbol, to_sym_offset, to_dso_short_name, branch_type_name, in_tx,
	insn_count, cyc_count, IPC, flags FROM samples_view WHERE event = 'cpu-clock'"
sqlite3 perf.db "$SV" | sort >perf.sv
sqlite3 our.db "$SV" | sort >our.sv
n=$(wc -l <perf.sv)
if [ "$n" -ge 50 ] && cmp -s perf.sv our.sv; then
	t_ok "samples_view: the $n cpu-clock rows equal perf's (a multiset, ids aside)"
else
	t_fail "samples_view rows equal perf's" "perf $n rows, ours $(wc -l <our.sv)" \
		"$(diff perf.sv our.sv | head -8)"
fi

# each cpu-clock sample's call path, leaf to root: symbol@dso (unknown: its
# address; no symbol: the ip), walked up call_paths
PATHS="WITH RECURSIVE walk(cp, s) AS (
	SELECT s.call_path_id, '' FROM samples s JOIN selected_events e ON e.id = s.evsel_id
		WHERE e.name = 'cpu-clock'
	UNION ALL
	SELECT c.parent_id, w.s || ';' || COALESCE((SELECT name || '@' ||
		(SELECT short_name FROM dsos WHERE id = dso_id) ||
		CASE WHEN name = 'unknown' THEN printf('+%x', sym_start) ELSE '' END
		FROM symbols WHERE id = c.symbol_id AND c.symbol_id != 0), printf('%x', c.ip))
	FROM walk w JOIN call_paths c ON c.id = w.cp WHERE w.cp > 1)
	SELECT s FROM walk WHERE cp <= 1"
sqlite3 perf.db "$PATHS" | sort >perf.paths
sqlite3 our.db "$PATHS" | sort >our.paths
n=$(wc -l <perf.paths)
frames=$(tr ';' '\n' <perf.paths | grep -c .)
if [ "$n" -ge 50 ] && [ "$frames" -gt "$n" ] && cmp -s perf.paths our.paths; then
	t_ok "call paths of the $n cpu-clock samples ($frames frames) equal perf's"
else
	t_fail "call paths equal perf's" "perf $n paths, ours $(wc -l <our.paths)" \
		"$(diff perf.paths our.paths | head -6)"
fi

# --call-graph dwarf: the samples equal; the call paths differ where perf makes a
# symbol of each inlined instance (perf-rawfrag-sql.txt): counted, not hidden
t_setup "perf records cpu-clock --call-graph dwarf" \
	"$PERF" record -q --call-graph dwarf,8192 -e cpu-clock -o dw.data -- \
	sh -c 'for i in $(seq 20); do ls /usr/bin >/dev/null; done'
t_setup "perf's export of the dwarf file" \
	"$PERF" script -i dw.data -s "$PERF_EXPORT" perf-dw.db all calls callchains
t_setup "our export of the dwarf file" "$RAWFRAG" report -i dw.data --format sqlite -o dw.db
sqlite3 perf-dw.db "$SV" | sort >dwperf.sv
sqlite3 dw.db "$SV" | sort >dwour.sv
n=$(wc -l <dwperf.sv)
if [ "$n" -ge 50 ] && cmp -s dwperf.sv dwour.sv; then
	t_ok "--call-graph dwarf: the $n rows of samples_view equal perf's"
else
	t_fail "--call-graph dwarf: samples_view equal perf's" "perf $n rows, ours $(wc -l <dwour.sv)" \
		"$(diff dwperf.sv dwour.sv | head -6)"
fi
sqlite3 perf-dw.db "$PATHS" | sort >dwperf.paths
sqlite3 dw.db "$PATHS" | sort >dwour.paths
n=$(wc -l <dwperf.paths)
same=$(comm -12 dwperf.paths dwour.paths | wc -l)
if [ "$n" -ge 50 ] && [ "$(wc -l <dwour.paths)" = "$n" ] && [ $((same * 100)) -ge $((n * 90)) ]; then
	t_ok "--call-graph dwarf: $same of $n call paths equal perf's ($((n - same)) differ: inlined frames)"
else
	t_fail "--call-graph dwarf: call paths equal perf's (90% at least)" "$same of $n" \
		"$(diff dwperf.paths dwour.paths | head -6)"
fi

# perf's view of every sample, through its python handlers: tracepoint fields as perf decodes them
cat >dump.py <<'EOF'
def process_event(p):
    print("C\t%d" % p["sample"]["time"])
def trace_unhandled(event_name, context, f, p):
    t = p["sample"]["time"]
    if event_name == "sched__sched_switch":
        print("S\t%d\t%d\t%d\t%s\t%d\t%s" % (t, f["prev_pid"], f["prev_state"], f["next_comm"],
              f["next_pid"], f["prev_comm"]))
    elif event_name == "sched__sched_wakeup":
        print("W\t%d\t%d\t%d\t%s\t%d\t%d" % (t, p["sample"]["pid"], f["pid"], f["comm"], f["prio"],
              f["target_cpu"]))
    elif event_name == "syscalls__sys_enter_openat":
        print("O\t%d\t%d\t%d\t%d\t%d" % (t, f["dfd"], f["filename"], f["flags"], f["mode"]))
    else:
        print("X\t%s" % event_name)
EOF
t_setup "perf script -s dump.py" sh -c "'$PERF' script -i r.data -s dump.py >perf.dump"
sqlite3 -separator "$TAB" our.db "SELECT 'C', time FROM samples_view WHERE event = 'cpu-clock';
	SELECT 'S', time, prev_pid, prev_state, next_comm, next_pid, prev_comm
		FROM \"sched:sched_switch_view\";
	SELECT 'W', time, sample_pid, pid, comm, prio, target_cpu FROM \"sched:sched_wakeup_view\";
	SELECT 'O', time, dfd, filename, flags, mode FROM \"syscalls:sys_enter_openat_view\"" >our.dump
counts() { cut -f1 "$1" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'; }
ours=$(sqlite3 our.db "SELECT group_concat(name || '=' || n, ' ') FROM (SELECT e.name, count(*) n
	FROM samples s JOIN selected_events e ON e.id = s.evsel_id WHERE s.id > 0 GROUP BY e.name
	ORDER BY e.name)")
t_eq "samples per event = perf script's (tracepoints included)" \
	"cpu-clock=$(grep -c '^C' perf.dump) sched:sched_switch=$(grep -c '^S' perf.dump) sched:sched_wakeup=$(grep -c '^W' perf.dump) syscalls:sys_enter_openat=$(grep -c '^O' perf.dump)" \
	"$ours"
for k in S W O; do
	grep "^$k" perf.dump | sort >perf.k
	grep "^$k" our.dump | sort >our.k
	n=$(wc -l <perf.k)
	case $k in
	S) what="sched_switch prev_pid, prev_state, next_comm, next_pid, prev_comm" ;;
	W) what="sched_wakeup pid, comm, prio, target_cpu (the view's sample_pid: the waker's)" ;;
	O) what="openat dfd, filename, flags, mode" ;;
	esac
	if [ "$n" -ge 1 ] && cmp -s perf.k our.k; then
		t_ok "$what of all $n samples = perf script's"
	else
		t_fail "$what = perf script's" "perf $n, ours $(wc -l <our.k)" "$(diff perf.k our.k | head -6)"
	fi
done
t_eq "typed columns from the format" "next_comm text,prev_pid integer,prev_state integer" \
	"$(sqlite3 our.db "SELECT group_concat(c) FROM (SELECT name || ' ' || lower(type) c FROM
		pragma_table_info('sched:sched_switch') WHERE name IN ('prev_pid', 'next_comm', 'prev_state')
		ORDER BY name)")"
t_eq "event_tables names the tables" \
	"sched:sched_switch|tracepoint|sched:sched_switch_view sched:sched_wakeup|tracepoint|sched:sched_wakeup_view syscalls:sys_enter_openat|tracepoint|syscalls:sys_enter_openat_view" \
	"$(sqlite3 our.db "SELECT table_name || '|' || producer || '|' || view_name FROM event_tables
		ORDER BY table_name" | paste -sd' ')"
tp=$(( $(grep -c '^S' perf.dump) + $(grep -c '^W' perf.dump) + $(grep -c '^O' perf.dump) ))
t_eq "raw_check: a row per tracepoint sample, sizes and pads known, no violation" \
	"$tp $tp 0" "$(sqlite3 our.db "SELECT count(*), sum(pad IS NOT NULL AND raw_size = len + pad
		AND pad_zero = 1), sum(violations) FROM raw_check" | tr '|' ' ')"
t_eq "raw_check's pads: raw_size - the format's length (sched_switch: 64 bytes in 68)" \
	"68|64|4" "$(sqlite3 our.db "SELECT DISTINCT raw_size, len, pad FROM raw_check r
		JOIN \"sched:sched_switch\" e ON e.id = r.id")"

# the documentation's p99 query (perf-rawfrag-sql.txt) as it stands there
sed -n '/^\tWITH lat AS/,/^\tFROM ranked GROUP BY/p' "$TOP/Documentation/perf-rawfrag-sql.txt" >p99.sql
sqlite3 our.db <p99.sql >p99.out 2>&1
if [ "$(wc -l <p99.sql)" -ge 8 ] && [ -s p99.out ] && ! grep -qi error p99.out; then
	t_ok "the documented p99 wakeup-to-switch query runs ($(wc -l <p99.out) comms)"
else
	t_fail "the documented p99 query runs" "$(head -c 300 p99.sql)" "$(head -c 300 p99.out)"
fi

# names from the file are data: the comm EVIL in comms and in the fields
# (the task is switched out under that name: prev_comm)
t_eq "the comm '$EVIL' stays data (comms as perf's, prev_comm)" "1 1 1" \
	"$(sqlite3 perf.db "SELECT count(*) > 0 FROM comms WHERE comm = '''); DROP TABLE'") $(sqlite3 our.db "SELECT (SELECT count(*) > 0 FROM comms WHERE comm = '''); DROP TABLE'),
		(SELECT count(*) > 0 FROM \"sched:sched_switch\" WHERE prev_comm = '''); DROP TABLE')" |
		tr '|' ' ')"
# an event named to inject: the file's own name of sched:sched_switch (same length) replaced
python3 - <<'EOF'
d = open("r.data", "rb").read()
a, b = b"sched:sched_switch", b's");DROP TABLE x--'
assert len(a) == len(b) and d.count(a) >= 1
open("evil.data", "wb").write(d.replace(a, b))
EOF
t_run "an event named 's\");DROP TABLE x--' loads" 0 \
	"$RAWFRAG" report -i evil.data --format sqlite -o evil.db
# the objects of a database, either name of the event as EV; the rows of samples and of its table
objects() {
	sqlite3 "$1" "SELECT type || ' ' || replace(replace(name, 'sched:sched_switch', 'EV'),
		's\");DROP TABLE x--', 'EV') FROM sqlite_master ORDER BY 1" | paste -sd' '
	sqlite3 "$1" "SELECT count(*) FROM samples; SELECT count(*) FROM \"$2\";
		SELECT count(*) FROM \"$2_view\"; SELECT event FROM event_tables WHERE table_name = '$3'"
}
t_eq "... with the same tables, views and rows, the name as data" \
	"$(objects our.db sched:sched_switch sched:sched_switch | sed 's/^sched:sched_switch$/EVNAME/')" \
	"$(objects evil.db 's"");DROP TABLE x--' 's");DROP TABLE x--' | sed 's/^s");DROP TABLE x--$/EVNAME/')"

# an existing file: refused (exit 2, untouched) unless --overwrite
sum=$(md5sum <our.db)
t_run "an existing -o file is refused (exit 2)" 2 \
	"$RAWFRAG" report -i r.data -e cpu-clock --format sqlite -o our.db
t_eq "... saying so, the file untouched" "1 $sum" "$(grep -c 'our.db exists.*--overwrite' err) $(md5sum <our.db)"
t_run "--overwrite replaces it" 0 \
	"$RAWFRAG" report -i r.data -e cpu-clock --format sqlite -o our.db --overwrite
t_eq "... with the new load" "$(grep -c '^C' perf.dump)" \
	"$(sqlite3 our.db 'SELECT count(*) FROM samples WHERE id > 0')"
t_run "no -o: exit 2" 2 "$RAWFRAG" report -i r.data --format sqlite

# a bad input: exit 2, nothing left under the name or the temporary one
head -c $(( $(stat -c %s r.data) / 2 )) r.data >half.data
t_run "a truncated input: exit 2" 2 "$RAWFRAG" report -i half.data --format sqlite -o half.db
t_eq "... no half.db, no temporary file" "" "$(ls half.db* 2>/dev/null)"

# the fuzz corpus (hostile and broken files): exit 0 with a sound database or
# exit 2 leaving no file, never a sanitizer's exit or a hang (the expansion
# bombs are t90's: minutes under ASan here)
mkdir -p fz
ok=0 n=0 zero=0 bad=
for f in "$TOP"/tests/fuzz/corpus/*; do
	case $(basename "$f") in regress-zbomb*) continue ;; esac
	n=$((n + 1))
	rm -f fz/x.db*
	timeout 120 "$RAWFRAG" report -i "$f" --format sqlite -o fz/x.db >/dev/null 2>fz/err
	rc=$?
	if [ $rc = 0 ] && [ "$(sqlite3 fz/x.db 'PRAGMA integrity_check' 2>&1)" = ok ]; then
		ok=$((ok + 1)) zero=$((zero + 1))
	elif [ $rc = 2 ] && [ -z "$(ls fz/x.db* 2>/dev/null)" ]; then
		ok=$((ok + 1))
	else
		bad="$bad $(basename "$f"):$rc:$(head -c 120 fz/err)"
	fi
done
if [ "$n" -ge 10 ] && [ "$ok" = "$n" ]; then
	t_ok "fuzz corpus: $n inputs, $zero loaded (integrity ok), $((n - zero)) exit 2 leaving no file"
else
	t_fail "fuzz corpus through --format sqlite" "$ok of $n" "$bad"
fi

# an interrupt mid-load: the temporary file goes, nothing under the name
t_setup "perf records 40000 openat -g" \
	"$PERF" record -q -g -e syscalls:sys_enter_openat -o big.data -- \
	sh -c 'i=0; while [ $i -lt 40000 ]; do : </etc/hostname; i=$((i+1)); done'
interrupted=
for _ in 1 2 3; do
	rm -f big.db*
	"$RAWFRAG" report -i big.data --format sqlite -o big.db 2>big.err &
	pid=$!
	# loading: the temporary file is there
	for _ in $(seq 500); do [ -e "big.db.tmp-$pid" ] && break; sleep 0.01; done
	kill -INT "$pid" 2>/dev/null && running=1 || running=0
	wait "$pid"; rc=$?
	if [ "$running" = 1 ] && [ "$rc" != 0 ]; then interrupted=$rc; break; fi
done
if [ -n "$interrupted" ] && [ -z "$(ls big.db* 2>/dev/null)" ]; then
	t_ok "SIGINT mid-load (exit $interrupted): no big.db, no temporary file"
else
	t_fail "SIGINT mid-load leaves nothing" "interrupted: '${interrupted}' left: $(ls big.db* 2>/dev/null)"
fi

# python: Reader.to_sqlite() is the same load
PY=/usr/bin/python3
export PYTHONPATH=$O/python
if ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	"$PY" -c 'import rawfrag; rawfrag.open("r.data").to_sqlite("py.db")' >py.out 2>&1
	sqlite3 py.db "$SV" 2>&1 | sort >py.sv
	t_eq "python to_sqlite(): samples and samples_view as the command's" \
		"$FULL x" \
		"$(sqlite3 py.db 'SELECT count(*) FROM samples' 2>&1) $(cmp -s py.sv perf.sv && echo x)"
	"$PY" -c 'import rawfrag
try:
    rawfrag.open("r.data").write("sqlite", "py.db")
except rawfrag.Error as e:
    print("Error:", e)' >py.out 2>&1
	t_grep "python write('sqlite') to an existing file raises rawfrag.Error" "^Error: .*py.db exists" py.out
else
	t_skip_n 2 "python to_sqlite" "the python module is not built ($O/python)"
fi
