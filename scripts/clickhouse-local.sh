# shellcheck shell=bash
# Local clickhouse-server processes (Debian's 18.16, make deps) for the tests
# and benchmarks (sourced): each runs as a daemon from a directory of its own
# (config, users, data, logs, pid file) on loopback ports, until ch_stop.
#   ch_ports N                    N free loopback TCP ports, on one line
#   ch_start DIR HTTP NATIVE [MEM [XML]]
#                                 write DIR's config (MEM: the default profile's
#                                 max_memory_usage, 2000000000 if not given;
#                                 XML: more elements of the config, e.g.
#                                 remote_servers) and start the daemon
#   ch_wait HTTP...               0 once every port answers /ping (30 s at most)
#   ch_pid DIR                    the server's pid (empty while it has none)
#   ch_why DIR...                 the last lines the servers logged (why no start)
#   ch_alive DIR...               0 while any of the servers runs
#   ch_stop DIR...                stop the servers, wait for them (10 s at most)

ch_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
EOF
}

ch_start() {
	local dir=$1 http=$2 native=$3 mem=${4:-2000000000} xml=${5:-}
	mkdir -p "$dir/data" "$dir/tmp" "$dir/log"
	cat >"$dir/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
 <profiles><default><max_memory_usage>$mem</max_memory_usage></default></profiles>
 <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
  <profile>default</profile><quota>default</quota></default></users>
 <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
  <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
 </interval></default></quotas>
</yandex>
EOF
	cat >"$dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
 <logger><level>warning</level><log>$dir/log/server.log</log><errorlog>$dir/log/err.log</errorlog>
  <size>10M</size><count>1</count></logger>
 <listen_host>127.0.0.1</listen_host>
 <http_port>$http</http_port>
 <tcp_port>$native</tcp_port>
 <path>$dir/data/</path>
 <tmp_path>$dir/tmp/</tmp_path>
 <user_files_path>$dir/data/user_files/</user_files_path>
 <users_config>$dir/users.xml</users_config>
 <default_profile>default</default_profile>
 <default_database>default</default_database>
 <mark_cache_size>67108864</mark_cache_size>
 <uncompressed_cache_size>67108864</uncompressed_cache_size>
$xml
</yandex>
EOF
	clickhouse-server --config-file="$dir/config.xml" --daemon --pid-file="$dir/pid" \
		>"$dir/log/start.out" 2>&1
}

ch_wait() {
	local p up
	for _ in $(seq 150); do
		up=1
		for p in "$@"; do
			[ "$(curl -s "http://127.0.0.1:$p/ping")" = "Ok." ] || { up=0; break; }
		done
		[ $up = 1 ] && return 0
		sleep 0.2
	done
	return 1
}

ch_pid() { [ -s "$1/pid" ] && cat "$1/pid"; }

ch_why() {
	local d
	for d in "$@"; do cat "$d/log/start.out" "$d/log/err.log" 2>/dev/null; done |
		grep -v '^$' | tail -n 3 | tr '\n' ' '
}

ch_alive() {
	local d
	for d in "$@"; do
		[ -s "$d/pid" ] && pgrep -F "$d/pid" >/dev/null 2>&1 && return 0
	done
	return 1
}

ch_stop() {
	local d
	for d in "$@"; do
		[ -s "$d/pid" ] && kill "$(cat "$d/pid")" 2>/dev/null
	done
	for _ in $(seq 50); do
		ch_alive "$@" || return 0
		sleep 0.2
	done
	return 1
}
