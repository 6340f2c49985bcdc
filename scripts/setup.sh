#!/usr/bin/env bash
# Install what perf-rawfrag needs on a Debian 12 machine, idempotently:
#  - Debian packages (only those missing);
#  - libperf, built from Debian's linux-source-6.1 (tools/lib/perf) into a cached
#    prefix inside the build tree ($DEPS, default build/deps);
#  - d3-flame-graph and d3 (npm, pinned) into $DEPS/js for the flame graph page;
#  - tracefs mounted (when root).
# Quiet when everything is already there.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# absolute: libperf installs relative to its own source directory otherwise
DEPS=$(realpath -m "${DEPS:-$top/build/deps}")
PREFIX=$DEPS/libperf

PKGS=(build-essential pkg-config make gcc clang llvm bpftool
      libprotobuf-c-dev protobuf-c-compiler golang-go  # pprof: written with protobuf-c, read by go tool pprof in the tests
      libtraceevent-dev libtracefs-dev libbpf-dev libelf-dev zlib1g-dev libzstd-dev
      libunwind-dev libdw-dev libiberty-dev libcmocka-dev libpcap-dev libclang-rt-14-dev tcpdump
      linux-source-6.1 linux-perf tshark iproute2 python3 python3-dev xz-utils
      asciidoc-base xmlto valgrind time iputils-ping procps jq util-linux chromium
      libsqlite3-dev sqlite3 python3-pyside2.qtsql libqt5sql5-sqlite)
# npm for the flame graph's JS (below); a nodejs that brings its own npm needs none
command -v npm >/dev/null 2>&1 || PKGS+=(npm)
# d3-flame-graph and the d3 it runs on, pinned: the flamegraph output inlines them
JS_PKGS=(d3-flame-graph@4.1.3 d3@7.9.0)

log() { printf 'setup: %s\n' "$*" >&2; }

need_root() {
	if [ "$(id -u)" != 0 ]; then
		log "missing packages: $*; run as root (or: apt-get install $*)"
		exit 1
	fi
}

install_packages() {
	local missing=() p
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	need_root "${missing[@]}"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no, non-interactively
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections 2>/dev/null || true
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build_libperf() {
	if [ -f "$PREFIX/.stamp" ] && [ -f "$PREFIX/lib64/libperf.a" ]; then
		return 0
	fi
	local tarball src
	tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null | head -n1)
	[ -n "$tarball" ] || { log "linux-source-6.1 tarball not found in /usr/src"; exit 1; }
	src=$DEPS/src
	rm -rf "$src" "$PREFIX"
	mkdir -p "$src" "$PREFIX"
	log "building libperf from $(basename "$tarball") into $PREFIX"
	# Only the user-space tool libraries and the headers they include are needed.
	tar -C "$src" -xJf "$tarball" --strip-components=1 \
		--wildcards 'linux-source-6.1/tools/*' 'linux-source-6.1/include/uapi/*' \
		'linux-source-6.1/arch/*/include/uapi/*' 'linux-source-6.1/scripts/*' \
		'linux-source-6.1/Makefile'
	make -s -C "$src/tools/lib/perf" prefix="$PREFIX" V=0 \
		install_lib install_headers install_pkgconfig >/dev/null
	# libperf.a needs libapi.a (fdarray, cpu helpers), which libperf does not install.
	cp "$src/tools/lib/api/libapi.a" "$PREFIX/lib64/"
	rm -rf "$src"
	touch "$PREFIX/.stamp"
}

# into the build tree, never committed: the page inlines them at report time
install_js() {
	local js=$DEPS/js
	if [ "$(cat "$js/.stamp" 2>/dev/null)" = "${JS_PKGS[*]}" ] &&
	   [ -f "$js/node_modules/d3-flame-graph/dist/d3-flamegraph.min.js" ] &&
	   [ -f "$js/node_modules/d3/dist/d3.min.js" ]; then
		return 0
	fi
	log "installing ${JS_PKGS[*]} from the npm registry into $js"
	mkdir -p "$js"
	npm install --prefix "$js" --no-save --no-audit --no-fund --ignore-scripts \
		"${JS_PKGS[@]}" >/dev/null
	echo "${JS_PKGS[*]}" >"$js/.stamp"
}

mount_tracefs() {
	[ -e /sys/kernel/tracing/events ] && return 0
	[ "$(id -u)" = 0 ] || { log "tracefs not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)"; return 0; }
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		log "could not mount tracefs at /sys/kernel/tracing"
}

install_packages
build_libperf
install_js
mount_tracefs
