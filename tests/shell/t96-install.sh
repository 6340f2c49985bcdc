#!/usr/bin/env bash
# make install / uninstall into a staging root, and the library used as an outside
# program would: Documentation/examples/rawfrag-samples.c built against the
# *installed* tree through pkg-config (shared and static), run on a real recording,
# its output compared with perf rawfrag report's. Also: perf finds the man pages
# (`perf rawfrag --help`) and the dlfilter by its bare name, and plain make without
# the deps stops with one line naming `make deps`.
source "$(dirname "$0")/lib.sh"
t_plan 20
root=$T/root
mk() { make -C "$TOP" --no-print-directory -s O="$O" "$@"; }

mk install DESTDIR="$root" prefix=/usr >inst.out 2>inst.err
t_eq "make install DESTDIR=... prefix=/usr" 0 "$?"
[ -s inst.err ] && sed 's/^/#   /' inst.err | head -n 5

# what is where
ver=$(sed -n 's/^#define RAWFRAG_M[AI][JN]OR_VERSION \([0-9]*\)$/\1/p' \
	"$TOP/lib/include/rawfrag/core.h" | paste -sd.).0
real=$root/usr/lib/librawfrag.so.$ver
soname=$(readelf -d "$real" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ -f "$real" ] && [ ! -L "$real" ] && [ -n "$soname" ] && [ -L "$root/usr/lib/$soname" ] &&
   [ "$(readlink -f "$root/usr/lib/$soname")" = "$(readlink -f "$real")" ] &&
   [ "$(readlink -f "$root/usr/lib/librawfrag.so")" = "$(readlink -f "$real")" ]; then
	t_ok "librawfrag.so.$ver is a file, its SONAME $soname and librawfrag.so link to it"
else
	t_fail "librawfrag.so.$ver, SONAME link and .so link" "$(ls -l "$root/usr/lib" 2>&1 | head -n 8)"
fi
missing=
for f in usr/bin/perf-rawfrag usr/lib/librawfrag.a usr/lib/pkgconfig/rawfrag.pc \
	 usr/lib/perf-core/dlfilters/rawfrag-dlfilter.so usr/lib/python3/dist-packages/rawfrag.py; do
	[ -s "$root/$f" ] || missing="$missing $f"
done
t_eq "binary, static library, rawfrag.pc, dlfilter, Python hook installed" "" "$missing"
nh=$(ls "$TOP"/lib/include/rawfrag/*.h | wc -l)
t_eq "every public header installed, no internal one" "$nh 0" \
	"$(ls "$root"/usr/include/rawfrag/*.h 2>/dev/null | wc -l) $(grep -l 'internal/' "$root"/usr/include/rawfrag/*.h 2>/dev/null | wc -l)"
nm_=$(ls "$TOP"/Documentation/perf-rawfrag*.txt | wc -l)
t_eq "a man page per Documentation/perf-rawfrag*.txt in share/man/man1" "$nm_" \
	"$(ls "$root"/usr/share/man/man1/perf-rawfrag*.1 2>/dev/null | wc -l)"

# perf rawfrag --help is perf's `perf help rawfrag`: it runs man perf-rawfrag
if command -v man >/dev/null; then
	PATH=$root/usr/bin:$PATH MANPATH=$root/usr/share/man MANPAGER=cat PAGER=cat \
		$PERF rawfrag --help >help.txt 2>&1 </dev/null
	t_grep "perf rawfrag --help shows the installed man page" 'perf-rawfrag - ' help.txt
	MANPATH=$root/usr/share/man man perf-rawfrag-report >man.txt 2>&1 </dev/null
	t_grep "man perf-rawfrag-report shows the installed page" 'perf-rawfrag-report - ' man.txt
else
	t_skip "perf rawfrag --help shows the installed man page" "man not installed"
	t_skip "man perf-rawfrag-report shows the installed page" "man not installed"
fi

# the example, built only from the installed tree
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$root/usr/lib/pkgconfig
ex=$TOP/Documentation/examples/rawfrag-samples.c
cc -Wall -Wextra -Wno-unused-parameter -Werror -o ex "$ex" \
	$(pkg-config --cflags --libs rawfrag) >cc.out 2>&1
t_eq "example builds with pkg-config --cflags --libs rawfrag" 0 "$?"
[ -s cc.out ] && sed 's/^/#   /' cc.out | head -n 5
cc -Wall -o ex-static "$ex" $(pkg-config --cflags rawfrag) \
	$(pkg-config --static --libs rawfrag | sed 's/-lrawfrag/-Wl,-Bstatic -lrawfrag -Wl,-Bdynamic/') \
	>cc2.out 2>&1
rc=$?
if [ $rc = 0 ] && ! ldd ex-static | grep -q librawfrag; then
	t_ok "example links librawfrag.a with pkg-config --static (Requires.private complete)"
else
	t_fail "example links librawfrag.a with pkg-config --static" "$(head -c 600 cc2.out)"
fi
# the example sink (Documentation/perf-rawfrag-library.txt, OUTPUTS AS SINKS)
cc -Wall -Wextra -Wno-unused-parameter -Werror -o ex-sink "$TOP/Documentation/examples/rawfrag-count-sink.c" \
	$(pkg-config --cflags --libs rawfrag) >cc3.out 2>&1
t_eq "example sink builds with pkg-config --cflags --libs rawfrag" 0 "$?"
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
LD_LIBRARY_PATH=$root/usr/lib ldd ./ex 2>&1 | grep -q "librawfrag.so.0 => $root/usr/lib/librawfrag.so.0" &&
	t_ok "example runs on the installed librawfrag.so.0" ||
	t_fail "example runs on the installed librawfrag.so.0" "$(LD_LIBRARY_PATH=$root/usr/lib ldd ./ex 2>&1 | head -n 4)"

if ! is_root || ! ensure_tracefs; then
	for n in "example text" "example JSON" "static example" "dlfilter by bare name" "missing file" \
		"example sink's counts"; do
		t_skip "$n on a real recording" "needs root and tracefs"
	done
else
	"$root/usr/bin/perf-rawfrag" record -q -o rec.data -e sched:sched_switch,sched:sched_process_exec -a \
		-- sh -c 'ls / >/dev/null; sleep 0.05; ls /usr >/dev/null' >/dev/null 2>&1
	"$root/usr/bin/perf-rawfrag" report -i rec.data --no-order -F tid,cpu,event,trace 2>/dev/null |
		awk '{$1=$1};1' >report.txt
	LD_LIBRARY_PATH=$root/usr/lib ./ex rec.data 2>ex.err | awk '{$1=$1};1' >ex.txt
	n=$(wc -l <report.txt)
	if [ "$n" -gt 0 ] && cmp -s report.txt ex.txt; then
		t_ok "example text equals perf rawfrag report -F tid,cpu,event,trace ($n samples)"
	else
		t_fail "example text equals perf rawfrag report" "$n report lines, $(wc -l <ex.txt) example lines" \
			"$(diff report.txt ex.txt | head -n 6)"
	fi
	"$root/usr/bin/perf-rawfrag" report -i rec.data --no-order --format json >report.json 2>/dev/null
	LD_LIBRARY_PATH=$root/usr/lib ./ex rec.data --json >ex.json 2>>ex.err
	python3 - report.json ex.json >cmp.txt <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
e = [json.loads(l) for l in open(sys.argv[2])]
key = lambda o: (o["event"], o["producer"], json.dumps(o["fields"], sort_keys=True))
bad = sum(key(a) != key(b) for a, b in zip(r, e))
print("n=%d/%d bad=%d fields=%d" % (len(r), len(e), bad, sum(len(o["fields"]) > 0 for o in e) > 0))
PY
	t_eq "example JSON fields equal perf rawfrag report --format json's" "n=$n/$n bad=0 fields=1" "$(cat cmp.txt)"
	./ex-static rec.data | awk '{$1=$1};1' | cmp -s - report.txt &&
		t_ok "static example prints the same" || t_fail "static example prints the same"
	PERF_EXEC_PATH=$root/usr/lib/perf-core $PERF script -i rec.data --dlfilter rawfrag-dlfilter.so \
		>dl.txt 2>dl.err
	t_grep "perf script --dlfilter rawfrag-dlfilter.so finds the installed plugin" \
		"rawfrag-dlfilter: $n samples, $n kept" dl.err
	LD_LIBRARY_PATH=$root/usr/lib ./ex nonexistent.data >/dev/null 2>ex.err
	rc=$?
	[ $rc = 2 ] && grep -q 'nonexistent.data: .*No such file' ex.err &&
		t_ok "example: a missing file is one error line, exit 2" ||
		t_fail "example: a missing file is one error line, exit 2" "rc=$rc $(cat ex.err)"
	# its samples and visited values per event, against the JSON's values per event
	LD_LIBRARY_PATH=$root/usr/lib ./ex-sink rec.data 2>sink.err | sort >sink.txt
	python3 - report.json <<'PY' | sort >json-counts.txt
import json, sys
n, v = {}, {}
def leaves(x):
    if isinstance(x, dict):
        return sum(leaves(y) for y in x.values())
    if isinstance(x, list):
        return sum(leaves(y) for y in x)
    return 1
for l in open(sys.argv[1]):
    o = json.loads(l)
    n[o["event"]] = n.get(o["event"], 0) + 1
    v[o["event"]] = v.get(o["event"], 0) + leaves(o["fields"])
for e in n:
    print(e, n[e], v[e])
PY
	if [ -s sink.txt ] && cmp -s sink.txt json-counts.txt; then
		t_ok "example sink's counts equal the JSON's ($(tr '\n' ';' <sink.txt))"
	else
		t_fail "example sink's counts equal the JSON's" "sink: $(cat sink.txt sink.err)" \
			"json: $(cat json-counts.txt)"
	fi
fi

# the Python module is installed beside the hook and imports from there
pymod=$(find "$root" -name 'rawfrag*.so' -path '*python3*' 2>/dev/null | head -1)
pydir=$(dirname "${pymod:-/nonexistent/x}")
t_eq "installed Python module imports from the staged tree" "$pydir" \
	"$(cd / && PYTHONPATH=$pydir /usr/bin/python3 -c 'import os, rawfrag; print(os.path.dirname(rawfrag.__file__))' 2>&1)"

mk uninstall DESTDIR="$root" prefix=/usr >/dev/null 2>&1
t_eq "make uninstall removes every installed file" "" "$(find "$root" -type f -o -type l | head -n 5)"

# fresh checkout: no libperf -> one line naming make deps, before compiling anything
make -C "$TOP" --no-print-directory O="$T/fresh" DEPS="$T/nodeps" >fresh.out 2>fresh.err
rc=$?
t_eq "plain make without build/deps fails with one line naming 'make deps'" "1 1 1 0" \
	"$([ $rc != 0 ] && echo 1 || echo 0) $(wc -l <fresh.err) $(grep -c "make deps" fresh.err) $([ -d "$T/fresh" ] && echo 1 || echo 0)"
