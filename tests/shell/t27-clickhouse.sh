#!/usr/bin/env bash
# report --format clickhouse (the "clickhouse" sink) into a real two-shard
# ClickHouse cluster: two clickhouse-server processes (Debian's 18.16, make
# deps) on loopback ports, each with a config of ours naming both as the
# shards of cluster "fleet". The DDL of --schema --cluster fleet -i a.data
# goes to both; two files recorded here (cpu-clock -g, sched_switch,
# sched_process_exec, a task renamed to an SQL injection) load as hosts a and
# b through different servers. Each shard holds rows; counts per host and
# event and the cpu-clock symbol histogram, read through either server, equal
# report --stats and report -s sym -n; the event tables' column types equal
# the tracefs formats, their rows the events' sample counts and their values
# perf script's (joined to samples shard by shard); a second load adds
# nothing; a missing event table in the cluster is an error that counts no
# file; a load into an empty database makes the tables; a dead port is an
# error; names from the file (comm, an event named to inject) stay data. The
# servers are stopped at the end.
source "$(dirname "$0")/lib.sh"
t_plan 41

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
for c in clickhouse-server clickhouse-client curl; do
	command -v "$c" >/dev/null || t_skip_rest "needs $c (make deps)"
done
EVIL="'); DROP TABLE" # 14 bytes: a comm holds 15
EVIL_SQL="'\\'); DROP TABLE'" # the same as a ClickHouse string literal

. "$TOP/scripts/clickhouse-local.sh"
# four free loopback ports: HTTP and native of two servers
read -r H1 H2 N1 N2 < <(ch_ports 4)
trap 'ch_stop "$T/s1" "$T/s2"; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT

# each server: a config of ours (data, logs, users in its directory), cluster
# "fleet" of both native ports, shard 1 first on both
FLEET=" <remote_servers><fleet>
  <shard><replica><host>127.0.0.1</host><port>$N1</port></replica></shard>
  <shard><replica><host>127.0.0.1</host><port>$N2</port></replica></shard>
 </fleet></remote_servers>"
ch_start "$T/s1" "$H1" "$N1" 2000000000 "$FLEET"
ch_start "$T/s2" "$H2" "$N2" 2000000000 "$FLEET"
if ! ch_wait "$H1" "$H2"; then
	why=$(ch_why "$T/s1" "$T/s2")
	t_skip_rest "clickhouse-server did not answer on 127.0.0.1:$H1/$H2 in 30 s: ${why:-no message}"
fi
U1="http://127.0.0.1:$H1/?database=default"
U2="http://127.0.0.1:$H2/?database=default"
q1() { clickhouse-client --port "$N1" -q "$1"; }
q2() { clickhouse-client --port "$N2" -q "$1"; }

# two hosts' files: cpu-clock -g, sched_switch and sched_process_exec around ls,
# cat and a task named EVIL
cat >rename.py <<'EOF'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x27); DROP TABLE", 0, 0, 0)  # PR_SET_NAME
open("/etc/hostname").read()
time.sleep(0.02)
EOF
cat >work.sh <<'EOF'
for i in $(seq 40); do ls -R /usr/lib/python3 >/dev/null; cat /etc/hostname >/dev/null; done
python3 rename.py
EOF
for h in a b; do
	t_setup "perf records cpu-clock -g and sched_switch ($h)" \
		"$PERF" record -q -g -e cpu-clock -e sched:sched_switch -e sched:sched_process_exec \
		-o $h.data -- sh work.sh
done

t_run "--schema --cluster fleet -i a.data prints the DDL" 0 \
	"$RAWFRAG" report --format clickhouse --schema --cluster fleet -i a.data -o "$U1"
cp out ddl.sql
SW='`sched:sched_switch`' EX='`sched:sched_process_exec`'
t_eq "... <table>_local and Distributed(fleet, default, <table>_local, key) for 4 tables and 2 events" \
	"4 4 2 2 2 0" "$(grep -c '^CREATE TABLE IF NOT EXISTS [a-z]*_local (' ddl.sql) \
$(grep -c '^CREATE TABLE IF NOT EXISTS [a-z]* AS [a-z]*_local ENGINE = Distributed(fleet, default, ' ddl.sql) \
$(grep -c 'Distributed(fleet, default, \(samples\|stacks\)_local, .*stack_hash)' ddl.sql) \
$(grep -c '^CREATE TABLE IF NOT EXISTS `sched:sched_\(switch\|process_exec\)_local` (`host` String, `file_id` String, `id` UInt64, ' ddl.sql) \
$(grep -c '^CREATE TABLE IF NOT EXISTS `sched:sched_\(switch\|process_exec\)` AS `sched:sched_\(switch\|process_exec\)_local` ENGINE = Distributed(fleet, default, .sched:sched_\(switch\|process_exec\)_local., if(stack_hash = 0, id, stack_hash))' ddl.sql) \
$(grep -c '^CREATE TABLE IF NOT EXISTS `cpu-clock' ddl.sql)"
ok=0
clickhouse-client --port "$N1" --multiquery <ddl.sql >ddl.err 2>&1 &&
	clickhouse-client --port "$N2" --multiquery <ddl.sql >>ddl.err 2>&1 && ok=1
t_eq "... which both servers take" "1 12 12" \
	"$ok $(q1 "SELECT count() FROM system.tables WHERE database = 'default'") \
$(q2 "SELECT count() FROM system.tables WHERE database = 'default'")"

t_run "host a loads through server 1" 0 \
	"$RAWFRAG" report -i a.data --format clickhouse --host a -o "$U1"
t_run "host b loads through server 2" 0 \
	"$RAWFRAG" report -i b.data --format clickhouse --host b -o "$U2"
t_grep "... saying how many samples" "loaded as host b, file id [0-9a-f]{16}: [0-9]+ samples" err
s1=$(q1 "SELECT count() FROM samples_local")
s2=$(q2 "SELECT count() FROM samples_local")
st1=$(q1 "SELECT count() FROM stacks_local")
st2=$(q2 "SELECT count() FROM stacks_local")
if [ "$s1" -gt 0 ] && [ "$s2" -gt 0 ] && [ "$st1" -gt 0 ] && [ "$st2" -gt 0 ]; then
	t_ok "each shard holds samples and stacks ($s1 + $s2 samples, $st1 + $st2 stacks)"
else
	t_fail "each shard holds samples and stacks" "samples $s1 $s2, stacks $st1 $st2"
fi
# a stack lives beside its samples: no sample names a stack of the other shard
t_eq "every sample's stack is on its own shard" "0 0" \
	"$(q1 "SELECT count() FROM samples_local WHERE stack_hash != 0 AND stack_hash NOT IN (SELECT stack_hash FROM stacks_local)") \
$(q2 "SELECT count() FROM samples_local WHERE stack_hash != 0 AND stack_hash NOT IN (SELECT stack_hash FROM stacks_local)")"

# the oracle: report --stats of each file, "host event count"
for h in a b; do
	"$RAWFRAG" report -i $h.data --stats |
		awk -v h=$h '/ stats:$/ { ev = $1 } /^ *SAMPLE events:/ && ev != "Aggregated" { print h, ev, $3 }'
done | sort >want.counts
per_host="SELECT host, event, count() FROM samples GROUP BY host, event ORDER BY host, event"
t_eq "counts per host and event through server 1 = report --stats" \
	"$(cat want.counts)" "$(q1 "$per_host" | tr '\t' ' ')"
t_eq "... and through server 2" "$(cat want.counts)" "$(q2 "$per_host" | tr '\t' ' ')"

# cpu-clock samples per symbol name (report's self table, as perf report
# --no-children -g none prints it on a -g file; lines of one name summed; unresolved
# addresses left out: report names them by address, the load "[unknown]" (no
# map) or "unknown" (a map without the symbol, perf's export convention))
syms_of() {
	"$RAWFRAG" report -i "$1" -e cpu-clock -s sym -n -q --no-children -g none |
		awk '{ n = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); if ($0 != "" && $0 !~ /^0x/) c[$0] += n }
			END { for (s in c) print c[s], s }' | sort -k1,1nr -k2
}
sql_syms() {
	$1 "SELECT count(), sym FROM samples WHERE host = '$2' AND event = 'cpu-clock'
		AND sym NOT IN ('[unknown]', 'unknown') GROUP BY sym" | tr '\t' ' ' | sort -k1,1nr -k2
}
syms_of a.data >want.a
syms_of b.data >want.b
sql_syms q2 a >got.a
sql_syms q1 b >got.b
if [ -s want.a ] && cmp -s want.a got.a && cmp -s want.b got.b; then
	t_ok "cpu-clock samples per symbol = report -s sym -n ($(wc -l <want.a) + $(wc -l <want.b) symbols)"
else
	t_fail "cpu-clock samples per symbol = report -s sym -n" "$(diff want.a got.a | head -5)" \
		"$(diff want.b got.b | head -5)"
fi
t_eq "... so the top 5 too, through server 1" "$(head -5 want.a)" "$(sql_syms q1 a | head -5)"

# the stacks: each cpu-clock sample's leaf frame is its sym (the chain starts at the ip)
leaf="SELECT countIf(sym != leaf), count() FROM samples_local ANY INNER JOIN
	(SELECT stack_hash, syms[1] AS leaf FROM stacks_local) USING stack_hash
	WHERE event = 'cpu-clock'"
l1=$(q1 "$leaf" 2>&1); l2=$(q2 "$leaf" 2>&1)
if [ "${l1%%$'\t'*}" = 0 ] && [ "${l2%%$'\t'*}" = 0 ] && [ "${l1#*$'\t'}" -gt 0 ] 2>/dev/null; then
	t_ok "on each shard, a cpu-clock stack's first frame is its sample's symbol"
else
	t_fail "on each shard, a cpu-clock stack's first frame is its sample's symbol" "$l1" "$l2"
fi

# the event tables: typed as the format declares (char[] String, else
# (U)Int of the field's size and sign), the common fields under "common."
types_of() { # the format's fields as "name type" lines
	awk -F'\t' '/^\tfield:/ { split($2, a, " "); sub(/^field:/, "", $2); n = $2
		sub(/.* /, "", n); sub(/;$/, "", n); sz = $4; sub(/[^0-9]*/, "", sz); sub(/;/, "", sz)
		sg = $5; sub(/[^0-9]*/, "", sg); sub(/;/, "", sg)
		if ($2 ~ /char/ && ($2 ~ /\[/ || $2 ~ /__data_loc/)) t = "String"
		else t = (sg == 1 ? "Int" : "UInt") (sz * 8)
		if (n ~ /^common_/) n = "common." n; sub(/\[.*/, "", n); print n, t }' "$1"
}
for e in sched_switch sched_process_exec; do
	types_of /sys/kernel/tracing/events/sched/$e/format
done >want.types
for e in "$SW" "$EX"; do
	q2 "DESCRIBE TABLE $e" | awk -F'\t' 'NR > 5 { print $1, $2 }'
done >got.types
if [ "$(wc -l <want.types)" -ge 10 ] && cmp -s want.types got.types &&
	grep -qx 'next_pid Int32' got.types && grep -qx 'prev_comm String' got.types &&
	grep -qx 'filename String' got.types; then
	t_ok "DESCRIBE TABLE of both event tables = the tracepoint formats ($(tr '\n' ',' <got.types | head -c 80)...)"
else
	t_fail "DESCRIBE TABLE of both event tables = the tracepoint formats" "$(diff want.types got.types | head)"
fi
# rows per host = the event's samples (report --stats), through server 1
ev_counts() {
	for e in "sched:sched_switch" "sched:sched_process_exec"; do
		for h in a b; do
			echo "$e $h $(q1 "SELECT count() FROM \`$e\` WHERE host = '$h'")"
		done
	done
}
t_eq "event tables: rows per host = report --stats's samples" \
	"$(grep sched want.counts | awk '{ print $2, $1, $3 }' | sort)" "$(ev_counts | sort)"
# values: (time, next_pid, prev_comm) of sched_switch as perf script prints
# them, the time from samples joined per shard (samples_local: a non-GLOBAL
# join sees only its own shard, so every row finds its sample only when the
# event row lives on its sample's shard)
"$PERF" script -i a.data --ns -F time,event,trace 2>/dev/null |
	sed -n 's/^ *\([0-9]*\)\.\([0-9]*\): *sched:sched_switch: prev_comm=\(.*\) prev_pid=.* next_pid=\([0-9]*\) .*/\1\2 \4 \3/p' |
	sort >want.sw
q2 "SELECT st, next_pid, prev_comm FROM $SW ANY INNER JOIN
	(SELECT host, file_id, id, time AS st FROM samples_local) USING (host, file_id, id)
	WHERE host = 'a' FORMAT TabSeparatedRaw" | tr '\t' ' ' | sort >got.sw
t_eq "sched_switch (time, next_pid, prev_comm) joined per shard to samples = perf script's ($(wc -l <want.sw) rows)" \
	"$(md5sum <want.sw)" "$(md5sum <got.sw)"
"$PERF" script -i b.data -F event,trace 2>/dev/null |
	sed -n 's/.*sched:sched_process_exec: filename=\(.*\) pid=\([0-9]*\) old_pid=\([0-9]*\)$/\1 \2 \3/p' |
	sort >want.ex
q1 "SELECT filename, pid, old_pid FROM $EX WHERE host = 'b'" | tr '\t' ' ' | sort >got.ex
if [ -s want.ex ] && cmp -s want.ex got.ex; then
	t_ok "sched_process_exec (filename, pid, old_pid) = perf script's ($(wc -l <want.ex) rows)"
else
	t_fail "sched_process_exec (filename, pid, old_pid) = perf script's" "$(diff want.ex got.ex | head -5)"
fi
e1=$(q1 "SELECT count() FROM \`sched:sched_switch_local\`")
e2=$(q2 "SELECT count() FROM \`sched:sched_switch_local\`")
if [ "$e1" -gt 0 ] && [ "$e2" -gt 0 ]; then
	t_ok "each shard holds sched_switch rows ($e1 + $e2)"
else
	t_fail "each shard holds sched_switch rows" "$e1 $e2"
fi
t_eq "the comm '$EVIL' stays data (prev_comm of sched_switch)" "1" \
	"$(q1 "SELECT count() > 0 FROM $SW WHERE prev_comm = $EVIL_SQL")"

# loading again: nothing added, said so, exit 0
all="SELECT (SELECT count() FROM samples), (SELECT count() FROM stacks),
	(SELECT count() FROM $SW), (SELECT count() FROM $EX), (SELECT count() FROM files)"
before=$(q1 "$all")
t_run "host a loaded again (through server 2) exits 0" 0 \
	"$RAWFRAG" report -i a.data --format clickhouse --host a -o "$U2"
t_grep "... saying it was loaded before" "a.data \(host a, file id [0-9a-f]+\) was loaded before: nothing added" err
t_eq "... adding nothing" "$before" "$(q1 "$all")"

# an event named to inject: the file's own name of sched:sched_switch (same length) replaced
python3 - <<'EOF'
d = open("a.data", "rb").read()
a, b = b"sched:sched_switch", b's");DROP TABLE x--'
assert len(a) == len(b) and d.count(a) >= 1
open("evil.data", "wb").write(d.replace(a, b))
EOF
tables="SELECT name FROM system.tables WHERE database = 'default' ORDER BY name"
tb=$(q1 "$tables")
nf=$(q1 "SELECT count() FROM files")
t_run "its event table missing in the cluster: exit 2" 2 \
	"$RAWFRAG" report -i evil.data --format clickhouse --host "c'; --" -o "$U1"
t_grep "... saying how to make it" "no table s\"\);DROP TABLE x-- for event .*: samples is Distributed over cluster fleet, so make the event tables on every server with: perf rawfrag report --schema --cluster fleet -i" err
t_eq "... counting no file, adding no table" "$nf
$tb" "$(q1 "SELECT count() FROM files")
$(q1 "$tables")"
"$RAWFRAG" report --format clickhouse --schema --cluster fleet -i evil.data -o "$U1" >evil.sql 2>evil.err
ok=0
clickhouse-client --port "$N1" --multiquery <evil.sql >>ddl.err 2>&1 &&
	clickhouse-client --port "$N2" --multiquery <evil.sql >>ddl.err 2>&1 && ok=1
t_run "an event named 's\");DROP TABLE x--' loads as host \"c'; --\" once its table is made" 0 \
	"$RAWFRAG" report -i evil.data --format clickhouse --host "c'; --" -o "$U1"
t_eq "... with the same tables and the event's two, the same counts, the names as data" \
	"1 $(printf '%s\n' "$tb" 's");DROP TABLE x--' 's");DROP TABLE x--_local' | LC_ALL=C sort | tr '\n' ' ')
$(q1 "SELECT replaceAll(event, 'sched:sched_switch', 'EV'), count() FROM samples WHERE host = 'a' GROUP BY event ORDER BY 1")
$(q1 "SELECT count() FROM $SW WHERE host = 'a'")" \
	"$ok $(q1 "$tables" | LC_ALL=C sort | tr '\n' ' ')
$(q2 "SELECT replaceAll(event, 's\\\");DROP TABLE x--', 'EV'), count() FROM samples WHERE host = 'c\\'; --' GROUP BY event ORDER BY 1")
$(q2 "SELECT count() FROM \`s\");DROP TABLE x--\` WHERE host = 'c\\'; --'")"

# one server, no --schema: the load makes the tables, event tables included
q1 "CREATE DATABASE solo"
t_run "a load into a database without tables (server 1, database solo)" 0 \
	"$RAWFRAG" report -i evil.data --format clickhouse --host a -o "http://127.0.0.1:$H1/?database=solo"
t_eq "... makes the 4 tables and the event tables, typed, with the event's rows" \
	"files lost s\");DROP TABLE x-- samples sched:sched_process_exec stacks
$(awk '{ print $2 }' want.types | head -n 11 | tr '\n' ' ')
$(q1 "SELECT count() FROM $SW WHERE host = 'a'")" \
	"$(q1 "SELECT name FROM system.tables WHERE database = 'solo' ORDER BY name" | tr '\n' ' ' | sed 's/ $//')
$(clickhouse-client --port "$N1" -d solo -q 'DESCRIBE TABLE `s");DROP TABLE x--`' | awk -F'\t' 'NR > 5 { print $2 }' | tr '\n' ' ')
$(clickhouse-client --port "$N1" -d solo -q 'SELECT count() FROM `s");DROP TABLE x--`')"

# a failed batch: an event table that takes no insert (a Merge table over no
# table) fails the load after samples went in; no file is counted, and the
# next try refuses (the samples of the unfinished load are found)
q1 "CREATE DATABASE fb"
q1 'CREATE TABLE fb.`sched:sched_switch` (host String, file_id String, id UInt64, time UInt64, stack_hash UInt64) ENGINE = Merge(fb, '"'^none\$')"
UF="http://127.0.0.1:$H1/?database=fb"
t_run "an event table that refuses the insert: exit 2" 2 \
	"$RAWFRAG" report -i a.data --format clickhouse --host a -o "$UF"
t_grep "... with the server's message" "HTTP 501: .*Method write is not supported by storage Merge" err
t_eq "... counting no file; a second try refuses" "0 2" \
	"$(q1 "SELECT count() FROM fb.files") $("$RAWFRAG" report -i a.data --format clickhouse --host a -o "$UF" >/dev/null 2>uf.err; echo $?)"
t_grep "... naming the unfinished load's rows" "[0-9]+ rows of an unfinished load of this file \(host a, file id [0-9a-f]{16}\) are in samples" uf.err

# bounded batches: a load of a file 4 times bigger in 1 MiB INSERTs
# (Reader.write's batch_mb) has the same peak RSS: memory does not grow with
# the file. The files: a pipe recording's records repeated K and 4K times.
PYDIR=${PYDIR:-$O/python}
if ! PYTHONPATH=$PYDIR python3 -c 'import rawfrag' 2>/dev/null; then
	t_skip_n 2 "bounded batches" "the rawfrag Python module is not built (batch_mb is a library option)"
else
	t_setup "perf records cpu-clock -g (pipe)" sh -c "'$PERF' record -q -g -e cpu-clock -c 100000 -o - -- sh work.sh >pipe.data"
	n1=$("$O/perf-rawfrag" report -i pipe.data --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
	K=$(( (40000 + ${n1:-1} - 1) / ${n1:-1} ))
	t_setup "the files of K and 4K times the records" sh -c \
		"python3 '$TOP/tests/scripts/pipe_repeat.py' pipe.data k1.data $K &&
		 python3 '$TOP/tests/scripts/pipe_repeat.py' pipe.data k4.data $((4 * K))"
	load() { # file database: "peak-RSS-KB rows level-0-parts files"
		q1 "CREATE DATABASE $2"
		PYTHONPATH=$PYDIR /usr/bin/time -f %M -o "$2.rss" python3 -c '
import rawfrag, sys
rawfrag.open(sys.argv[1]).write("clickhouse", sys.argv[2], host="k", batch_mb=1)' \
			"$1" "http://127.0.0.1:$H1/?database=$2" >"$2.err" 2>&1
		echo "$(tail -n 1 "$2.rss") $(q1 "SELECT count() FROM $2.samples") $(q1 "SELECT count()
			FROM system.parts WHERE database = '$2' AND table = 'samples' AND level = 0") $(q1 "SELECT count() FROM $2.files")"
	}
	read -r r1 rows1 parts1 f1 < <(load k1.data bk1)
	read -r r4 rows4 parts4 f4 < <(load k4.data bk4)
	t_eq "batch_mb=1: every sample in, in several INSERTs ($parts1, $parts4), one files row" \
		"$((K * n1)) 1 $((4 * K * n1)) 1 ok" \
		"$rows1 $f1 $rows4 $f4 $([ "${parts1:-0}" -ge 2 ] && [ "${parts4:-0}" -ge $((2 * parts1)) ] && echo ok)"
	if [ -n "$r1" ] && [ -n "$r4" ] && [ "$r4" -le $((r1 + r1 / 10 + 4096)) ]; then
		t_ok "batch_mb=1: peak RSS flat in the file's size: $r1 KB for $(($(stat -c %s k1.data) >> 20)) MB, $r4 KB for $(($(stat -c %s k4.data) >> 20)) MB"
	else
		t_fail "batch_mb=1: peak RSS flat in the file's size" "$r1 KB for k1.data, $r4 KB for k4.data (4x)" \
			"$(head -c 300 bk4.err)"
	fi
fi

# errors
t_run "a dead port: exit non-zero" 2 \
	"$RAWFRAG" report -i a.data --format clickhouse --host a -o "http://127.0.0.1:1/"
t_grep "... with a message" "clickhouse output: http://127.0.0.1:1/: Couldn't connect" err
t_run "-o not a URL: exit 2" 2 "$RAWFRAG" report -i a.data --format clickhouse -o x.db
t_run "--cluster without --schema: exit 2" 2 \
	"$RAWFRAG" report -i a.data --format clickhouse --cluster fleet -o "$U1"
# a refused statement (no such database) is the server's message, exit non-zero
t_run "a database the server does not have: exit non-zero" 2 \
	"$RAWFRAG" report -i b.data --format clickhouse -o "http://127.0.0.1:$H1/?database=nosuch"

ch_stop "$T/s1" "$T/s2"
if ch_alive "$T/s1" "$T/s2"; then
	t_fail "both servers stopped"
else
	t_ok "both servers stopped"
fi
