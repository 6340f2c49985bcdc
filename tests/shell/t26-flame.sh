#!/usr/bin/env bash
# Flame graphs (the folded, flamegraph-json and flamegraph sinks) on files perf
# records here: cpu-clock -g of a test program (kernel and user frames), the
# same program stripped and deleted before report, sched_switch -g -a (a
# tracepoint) and --call-graph dwarf.
#  - --format folded against perf 6.1's stackcollapse.py on the same file,
#    byte for byte, with each of its options (and on a C++ program: names
#    demangled as perf shows them, templates, namespaces, overloads); --weight period and a field
#    against the same script counting that instead of 1;
#  - --format flamegraph-json against flamegraph.py -f json, as parsed trees
#    (children in any order: both keep first-seen order, perf's by its dict);
#  - --format flamegraph opened in headless chromium with the network blocked
#    (a proxy that refuses and the page's own CSP): it renders, the heaviest
#    frames' names are in the rendered document, a click zooms, search
#    highlights, the weight switcher redraws, the icicle view and reset zoom
#    work; a screenshot is kept;
#  - hostile names (a comm and symbols made of </script> and <img onerror>)
#    stay text; a 1 M-sample file's page is as big as its 5 K-sample original's.
# perf's scripts see tracepoint samples only through trace_unhandled(), which
# gets the same sample dict: the wrappers below pass it to process_event().
source "$(dirname "$0")/lib.sh"
t_plan 40

if ! is_root || ! ensure_tracefs || ! command -v "$PERF" >/dev/null; then
	t_skip_rest "records with perf: needs root, tracefs and perf"
fi
command -v gcc >/dev/null || t_skip_rest "no gcc"
SCRIPTS=/usr/lib/perf-core/scripts/python
[ -f "$SCRIPTS/stackcollapse.py" ] && [ -f "$SCRIPTS/flamegraph.py" ] ||
	t_skip_rest "perf's stackcollapse.py/flamegraph.py not under $SCRIPTS"
# the normal build for the 1 M-sample file (ASan would take minutes)
FAST=$O/perf-rawfrag

# perf and we share a private build-id cache: perf record fills it, both read it
export HOME=$T/home
mkdir -p "$HOME"

cat >"$T/prog.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) static long leaf(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
/*
 * ten 64 KiB reads of /dev/zero a round (about 10 ms in the kernel in all):
 * cpu-clock samples always catch some (3200 getppid() calls once caught none)
 */
static char zbuf[65536];
static int zfd = -1;
__attribute__((noinline)) long top(long n) { long s = 0; for (int i = 0; i < 40; i++) { s += mid(n); for (int j = 0; j < 10; j++) s += read(zfd, zbuf, sizeof(zbuf)) > 0; } return s; }
int main(void) { long s = 0; zfd = open("/dev/zero", O_RDONLY); for (int k = 0; k < 8; k++) s += top(1000000); printf("%ld\n", s); return 0; }
EOF
# hostile names: symbols (quoted for the assembler) and a comm of markup
cat >"$T/evil.c" <<'EOF'
#include <stdio.h>
#include <sys/prctl.h>
long evil(long n) __asm__("\"</script><script>document.title='PWNED'</script>\"");
__attribute__((noinline)) long evil(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }
long img(long n) __asm__("\"<img src=x onerror=document.body.setAttribute('data-pwned',1)>\"");
__attribute__((noinline)) long img(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 5 % 11; return s; }
int main(void) { long s = 0; prctl(PR_SET_NAME, "</script><b>x"); for (int k = 0; k < 12; k++) s += evil(3000000) + img(2000000); printf("%ld\n", s); return 0; }
EOF
t_setup "program" gcc -O1 -g -fno-omit-frame-pointer -o "$T/prog" "$T/prog.c"
t_setup "stripped program" sh -c "gcc -O1 -fno-omit-frame-pointer -o '$T/strip' '$T/prog.c' && strip --strip-all '$T/strip'"
t_setup "program deleted before report" gcc -O1 -g -fno-omit-frame-pointer -o "$T/del" "$T/prog.c"
t_setup "hostile program" gcc -O1 -g -fno-omit-frame-pointer -o "$T/evil" "$T/evil.c"
cat >"$T/cxx.cc" <<'EOF'
#include <cstdio>
namespace ns {
template <typename T> struct Box {
	__attribute__((noinline)) T spin(T n) const { volatile T s = 0; for (T i = 0; i < n; i++) s += i * 7 % 13; return s; }
};
__attribute__((noinline)) long work(long n) { return Box<long>().spin(n) + 1; }
__attribute__((noinline)) long work(int n) { return Box<int>().spin(n) + 2; }
}
int main() { long s = 0; for (int k = 0; k < 30; k++) s += ns::work(1000000L) + ns::work(1000000); std::printf("%ld\n", s); return 0; }
EOF
t_setup "C++ program" g++ -O1 -g -fno-omit-frame-pointer -o "$T/cxx" "$T/cxx.cc"
# one address, two libraries: libA's a_spin runs, libA is closed and libB
# (the same code, b_spin) opened where it was, so the same chains of addresses
# stand for other names after the maps change (whole chains kept by the
# stack walk must follow the maps, not the addresses)
cat >"$T/lib.c" <<'EOF'
__attribute__((noinline)) long SPIN(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }
EOF
cat >"$T/reuse.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
__attribute__((noinline)) static long run(const char *lib, const char *fn)
{
	void *h = dlopen(lib, RTLD_NOW);
	long (*f)(long), s = 0;
	if (!h || !(f = (long (*)(long))dlsym(h, fn))) { fprintf(stderr, "%s\n", dlerror()); return -1; }
	for (int k = 0; k < 10; k++) s += f(2000000);
	dlclose(h);
	return s;
}
/* one call site for both: the return addresses above the leaf are the same too */
int main(int argc, char **argv)
{
	static const char *const fn[] = { "a_spin", "b_spin" };
	for (int i = 1; i < argc; i++) /* argc: a loop the compiler cannot unroll */
		if (run(argv[i], fn[(i - 1) & 1]) < 0)
			return 1;
	return 0;
}
EOF
t_setup "libA and libB" sh -c "gcc -O1 -fPIC -shared -fno-omit-frame-pointer -DSPIN=a_spin -o '$T/libA.so' '$T/lib.c' &&
	gcc -O1 -fPIC -shared -fno-omit-frame-pointer -DSPIN=b_spin -o '$T/libB.so' '$T/lib.c' &&
	gcc -O1 -fno-omit-frame-pointer -o '$T/reuse' '$T/reuse.c' -ldl"

rec() { # file perf-record-args...
	local f=$1; shift
	t_setup "perf records $f" "$PERF" record -q -o "$f" "$@"
}
rec cc.data -g -e cpu-clock -c 100000 -- "$T/prog"
rec strip.data -g -e cpu-clock -c 100000 -- "$T/strip"
rec del.data -g -e cpu-clock -c 100000 -- "$T/del"
rm -f "$T/del"
rec tp.data -g -e sched:sched_switch -a -- sh -c 'for i in $(seq 40); do ls /proc >/dev/null; sleep 0.005; done'
rec dw.data --call-graph dwarf,4096 -e cpu-clock -c 200000 -- "$T/prog"
rec evil.data -g -e cpu-clock -c 100000 -- "$T/evil"
rec cxx.data -g -e cpu-clock -c 100000 -- "$T/cxx"
rec reuse.data -g -e cpu-clock -c 100000 -- "$T/reuse" "$T/libA.so" "$T/libB.so"

# perf's scripts, tracepoint samples included; W: what a stack counts (1 by default)
wrap() { # script weight-expression
	cat <<EOF
import sys
sys.argv[0] = "$1.py"
src = open("$SCRIPTS/$1.py").read()
src = src.replace("lines[stack_string] + 1", "lines[stack_string] + ($2)")
exec(compile(src, "$1.py", "exec"))
def trace_unhandled(event_name, context, fields, perf_sample_dict):
    perf_sample_dict["fields"] = fields
    process_event(perf_sample_dict)
EOF
}
wrap stackcollapse 1 >sc.py
wrap flamegraph 1 >fg.py
wrap stackcollapse "param_dict['sample']['period']" >sc_period.py
wrap stackcollapse "param_dict['fields']['prev_prio']" >sc_prio.py
grep -q 'lines\[stack_string\] + 1' "$SCRIPTS/stackcollapse.py" ||
	{ t_fail "set-up: stackcollapse.py's count line not found (perf's script changed?)"; exit 1; }

# folded: perf's stackcollapse.py and ours, byte for byte
folded() { # name file [script] [our options...] -- [script options...]
	local name=$1 f=$2 script=$3; shift 3
	local ours=() theirs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do ours+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	theirs=("$@")
	"$PERF" script -i "$f" -s "$script" -- "${theirs[@]}" 2>"$T/perf.err" |
		grep -v ' 0$' >"$T/perf.out"
	"$RAWFRAG" report -i "$f" --format folded "${ours[@]}" >"$T/ours.out" 2>"$T/ours.err"
	local n
	n=$(wc -l <"$T/perf.out")
	if [ "$n" -lt 2 ]; then
		t_fail "folded, $name" "stackcollapse.py printed $n lines" "$(head -c 400 "$T/perf.err")"
	elif cmp -s "$T/perf.out" "$T/ours.out"; then
		t_ok "folded, $name: = stackcollapse.py ($n stacks, byte-identical)"
	else
		t_fail "folded, $name" "$(diff "$T/perf.out" "$T/ours.out" | head -10)" \
			"$(head -c 400 "$T/ours.err")"
	fi
}
folded "cpu-clock -g" cc.data sc.py --
folded "cpu-clock -g --kernel" cc.data sc.py --kernel -- --kernel
folded "cpu-clock -g --include-pid --include-tid" cc.data sc.py --include-pid --include-tid -- \
	--include-pid --include-tid
folded "cpu-clock -g --include-tid" cc.data sc.py --include-tid -- --include-tid
folded "cpu-clock -g --no-comm" cc.data sc.py --no-comm -- --no-comm
folded "stripped binary" strip.data sc.py --
folded "C++ program (demangled names)" cxx.data sc.py --
# the names are demangled at all (were both sides mangled, the line above would pass)
if grep -q 'ns::Box<long>::spin' "$T/ours.out" && grep -q 'ns::work' "$T/ours.out" &&
	! grep -q '_ZN' "$T/ours.out"; then
	t_ok "C++ names demangled: ns::Box<long>::spin, ns::work"
else
	t_fail "C++ names demangled" "$(grep -o '[^;]*spin[^;]*' "$T/ours.out" | sort -u | head -3)"
fi
folded "binary deleted before report (build-id cache)" del.data sc.py --
# the test means something only if libB came where libA was: both mapped at one address
"$PERF" script -i reuse.data --show-mmap-events 2>/dev/null |
	awk '/PERF_RECORD_MMAP2/ && / r-xp .*\/lib[AB]\.so$/ { split($0, a, "["); split(a[2], b, "("); print b[1] }' |
	sort | uniq -d >reuse.at
if [ -s reuse.at ]; then
	folded "one address ($(cat reuse.at)), libA then libB" \
		reuse.data sc.py --
	if grep -q ';a_spin ' "$T/ours.out" && grep -q ';b_spin ' "$T/ours.out"; then
		t_ok "one address, two libraries: a_spin and b_spin both folded"
	else
		t_fail "one address, two libraries" "$(grep -o '[ab]_spin [0-9]*' "$T/ours.out" | head)"
	fi
else
	t_skip_n 2 "one address, two libraries" "libB was not mapped where libA was (address layout)"
fi
folded "sched_switch -g -a (tracepoint)" tp.data sc.py --
folded "sched_switch -g -a --kernel --include-pid" tp.data sc.py --kernel --include-pid -- \
	--kernel --include-pid
folded "--call-graph dwarf" dw.data sc.py --
folded "--weight period" cc.data sc_period.py --weight period --
folded "--weight prev_prio (a tracepoint field; zero-weight stacks are no line)" tp.data \
	sc_prio.py --weight prev_prio --

"$RAWFRAG" report -i cc.data --format folded --kernel >k.out 2>&1
if grep -q '_\[k\]' k.out && grep -qE '(^|;)top;mid;leaf( |;)' k.out; then
	t_ok "cpu-clock -g: kernel frames (_[k]) and the program's top;mid;leaf"
else
	t_fail "kernel and user frames" "$(head -c 600 k.out)"
fi

# flamegraph-json: flamegraph.py -f json's tree, compared as parsed trees
cat >canon.py <<'EOF'
import json, sys
def canon(n):
    return {"n": n["n"], "l": n["l"], "v": n["v"],
            "c": sorted((canon(c) for c in n["c"]), key=lambda c: (c["n"], c["l"]))}
def count(n): return 1 + sum(count(c) for c in n["c"])
def tot(n): return n["v"] + sum(tot(c) for c in n["c"])
a = canon(json.load(open(sys.argv[1])))
b = canon(json.load(open(sys.argv[2])))
print("%d nodes, %d samples" % (count(a), tot(a)))
sys.exit(0 if a == b else 1)
EOF
fgjson() { # name file
	"$PERF" script -i "$2" -s fg.py -- -f json -o "$T/perf.json" >"$T/perf.err" 2>&1
	"$RAWFRAG" report -i "$2" --format flamegraph-json -o "$T/ours.json" 2>"$T/ours.err"
	if python3 canon.py "$T/perf.json" "$T/ours.json" >"$T/cmp.out" 2>&1 &&
	   ! grep -q '^1 nodes' "$T/cmp.out"; then
		t_ok "flamegraph-json, $1: = flamegraph.py -f json ($(cat "$T/cmp.out"))"
	else
		t_fail "flamegraph-json, $1" "$(cat "$T/cmp.out")" "$(head -c 400 "$T/ours.err")"
	fi
}
fgjson "cpu-clock -g" cc.data
fgjson "sched_switch -g -a" tp.data
fgjson "--call-graph dwarf" dw.data

# options that do not go
t_run "--weight of a field no sample has: exit 2" 2 "$RAWFRAG" report -i cc.data --format folded --weight no_such_field
t_grep "... the message names it" "no_such_field" "$T/err"
t_run "--include-pid with --no-comm: exit 2 (stackcollapse.py refuses it too)" 2 \
	"$RAWFRAG" report -i cc.data --format folded --include-pid --no-comm
t_run "--kernel without --format folded: exit 2" 2 "$RAWFRAG" report -i cc.data --kernel

# ---- the page ----
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
"$RAWFRAG" report -i cc.data --format flamegraph -o cc.html >out 2>err
if [ -s cc.html ] && grep -q 'id="rawfrag-data"' cc.html; then
	t_ok "--format flamegraph -o cc.html: $(wc -c <cc.html) bytes"
else
	t_fail "--format flamegraph writes the page" "$(head -c 600 err)"
fi
# remote references: none in src/href/url()/@import; the only URLs are XML
# namespace names (d3 creates svg elements with them) and d3's banner comment;
# the page's CSP forbids any fetch (d3-fetch's code is inlined, never called)
if ! grep -Eiq '(src|href|action)=["'"'"']?(https?:)?//|url\(["'"'"']?(https?:)?//|@import' cc.html &&
   grep -q "content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\"" cc.html &&
   [ -z "$(grep -Eo 'https?://[^"'"'"' )>]*' cc.html | sort -u |
	   grep -Ev '^http://www\.w3\.org/(1999/xhtml|1999/xlink|2000/svg|2000/xmlns/|XML/1998/namespace)$|^https://d3js\.org$')" ]; then
	t_ok "the page refers to no remote URL (only XML namespace names and d3's banner); CSP default-src 'none'"
else
	t_fail "no remote URL in the page" "$(grep -Eo 'https?://[^"'"'"' )>]*' cc.html | sort -u | head)"
fi

# in headless chromium: no network (a refusing proxy), a private profile
browse() { # out.html [extra chromium args...]: the DOM after scripts ran
	local page=$1; shift
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/prof.XXXX")" --proxy-server=127.0.0.1:9 \
		--enable-logging=stderr --v=0 --virtual-time-budget=15000 \
		--window-size=1400,1600 "$@" "file://$T/$page"
}
if [ -z "$CHROMIUM" ]; then
	t_skip_n 10 "page in headless chromium" "no chromium (make deps installs Debian's)"
else
	# d3's transitions step on requestAnimationFrame, which headless chromium's
	# virtual time does not run: the copies the test opens get frames from
	# setTimeout (which it runs), so every transition ends before the dump
	cat >frames.js <<'EOF'
<script>
window.requestAnimationFrame = function (f) { return setTimeout(function () { f(performance.now()); }, 16); };
</script>
EOF
	# the test's own actions, appended to a copy of the page: search, click, switch weight
	cat >act.js <<'EOF'
<script>
window.addEventListener("load", function () {
  const out = {};
  const q = (s) => Array.from(document.querySelectorAll(s));
  setTimeout(function () {
    document.getElementById("term").value = "mid";
    document.getElementById("search").click();
    setTimeout(function () {
      out.matching = q("#chart g.frame").filter((g) => (g.getAttribute("name") || "").indexOf("mid") >= 0).length;
      out.highlighted = q("#chart g.frame rect").filter((r) => r.getAttribute("fill") === "#E600E6").length;
      const g = q("#chart g.frame").find((g) => g.getAttribute("name") === "top");
      out.before = g ? +g.querySelector("rect").getAttribute("width") : -1;
      if (g) g.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      setTimeout(function () {
        out.after = g ? +g.querySelector("rect").getAttribute("width") : -1;
        out.svg = +document.querySelector("#chart svg").getAttribute("width");
        const sel = document.getElementById("weight");
        sel.value = "1";
        sel.dispatchEvent(new Event("change"));
        setTimeout(function () {
          out.title = (q("#chart g.frame title")[0] || {}).textContent || "";
          const rootY = () => +((q('#chart g.frame[name="all"]')[0] || { getAttribute: () => "" })
            .getAttribute("transform").match(/,\s*([-0-9.e]+)\)/) || [0, -1])[1];
          out.root_y = rootY();
          document.getElementById("inverted").click();
          document.getElementById("reset").click();
          setTimeout(function () {
            out.root_y_inverted = rootY();
            const t = q("#chart g.frame").find((g) => g.getAttribute("name") === "top");
            out.reset = t ? +t.querySelector("rect").getAttribute("width") : -1;
            out.status = document.getElementById("status").getAttribute("data-state");
            document.body.setAttribute("data-test", JSON.stringify(out));
          }, 1500);
        }, 1500);
      }, 1500);
    }, 1500);
  }, 1000);
});
</script>
EOF
	sed '/<head>/r frames.js' cc.html >shown.html
	sed '/<\/body>/e cat act.js' shown.html >act.html
	browse shown.html --dump-dom >shown.dom 2>chrome.err
	browse act.html --dump-dom >act.dom 2>>chrome.err
	if grep -q 'id="status" data-state="ok"' shown.dom && grep -q 'id="status" data-state="ok"' act.dom &&
	   ! grep -q 'Uncaught' chrome.err; then
		t_ok "chromium renders the page: $(grep -o 'rendered [0-9]* frames of [0-9]* nodes' shown.dom)"
	else
		t_fail "chromium renders the page" "$(grep -o '<p id="status"[^<]*' act.dom)" \
			"$(grep -i 'uncaught\|error' chrome.err | head -5)"
	fi
	# the heaviest frames (by total, from our JSON tree) shown as labels in the document
	"$RAWFRAG" report -i cc.data --format flamegraph-json -o cc.json 2>/dev/null
	python3 - cc.json shown.dom >heavy.out 2>&1 <<'EOF'
import html, json, re, sys
from collections import Counter
tot = Counter()
def walk(n, depth):
    t = n["v"] + sum(walk(c, depth + 1) for c in n["c"])
    if depth >= 2:
        tot[n["n"]] = max(tot[n["n"]], t)
    return t
walk(json.load(open(sys.argv[1])), 0)
dom = open(sys.argv[2]).read()
shown = set(html.unescape(m) for m in re.findall(
    r'<div class="d3-flame-graph-label" style="display: block;">([^<]*)</div>', dom))
heavy = [n for n, _ in tot.most_common(4)]
missing = [n for n in heavy if n not in shown]
print("heaviest", heavy, "missing", missing)
sys.exit(1 if missing or not heavy else 0)
EOF
	if [ $? = 0 ]; then t_ok "the 4 heaviest frames' names are labels in the rendered page"
	else t_fail "heaviest frames shown" "$(cat heavy.out)"; fi
	python3 - act.dom >act.out 2>&1 <<'EOF'
import html, json, re, sys
m = re.search(r'data-test="([^"]*)"', open(sys.argv[1]).read())
print(json.dumps(json.loads(html.unescape(m.group(1))) if m else None))
EOF
	act=$(cat act.out)
	field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]) or {}; print(d.get(sys.argv[2], ""))' "$act" "$1"; }
	if [ "$(field matching)" -ge 1 ] 2>/dev/null && [ "$(field highlighted)" = "$(field matching)" ]; then
		t_ok "search 'mid' highlights every frame named so ($(field highlighted))"
	else
		t_fail "search highlights" "$act"
	fi
	if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if 0 < d["before"] < d["svg"] and abs(d["after"] - d["svg"]) < 1 else 1)' "$act" 2>/dev/null; then
		t_ok "a click on 'top' zooms: its width $(field before) -> $(field after) (the graph's)"
	else
		t_fail "click zooms" "$act"
	fi
	if field title | grep -q ' period)$'; then
		t_ok "the weight switcher redraws by period: '$(field title)'"
	else
		t_fail "weight switcher" "$act"
	fi
	if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["root_y_inverted"] == 0 < d["root_y"] and 0 < d["reset"] < d["svg"] and d["status"] == "ok" else 1)' "$act" 2>/dev/null; then
		t_ok "inverted: the root moves to the top (y $(field root_y) -> 0); Reset zoom: 'top' back to $(field reset) px"
	else
		t_fail "inverted view and reset zoom" "$act"
	fi
	# the page's data: samples and periods as perf counts them
	"$PERF" script -i cc.data -F period 2>/dev/null | awk '{ n++; p += $1 } END { print n, p }' >perf.sum
	python3 - cc.html >page.sum <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="rawfrag-data">(.*?)</script>', s, re.S).group(1))
tot = lambda w: sum(d["values"][w][1::2])
print(tot(d["weights"].index("samples")), tot(d["weights"].index("period")))
EOF
	t_eq "the page's samples and period totals = perf script's" "$(cat perf.sum)" "$(cat page.sum)"
	# tracepoint page: histograms of its fields, the check summary
	"$RAWFRAG" report -i tp.data --format flamegraph -o tp.html 2>err
	browse tp.html --dump-dom >tp.dom 2>/dev/null
	n=$("$PERF" script -i tp.data 2>/dev/null | grep -c 'sched:sched_switch')
	if grep -q 'data-state="ok"' tp.dom && grep -q '<b>prev_prio</b>' tp.dom &&
	   grep -q "sched:sched_switch: $n samples" tp.dom && grep -q '0 violations (errors)' tp.dom; then
		t_ok "sched_switch page: $n samples, prev_prio histogram, check summary rendered"
	else
		t_fail "sched_switch page" "$(grep -o '<p id="status"[^<]*' tp.dom)" "perf: $n samples"
	fi
	mkdir -p "$TOP/build/test-artifacts"
	# with the frames above, so that the picture is the graph after its transition
	sed '/<head>/r frames.js' tp.html >tp-shown.html
	browse tp-shown.html --screenshot="$TOP/build/test-artifacts/t26-flame.png" >/dev/null 2>&1
	if [ -s "$TOP/build/test-artifacts/t26-flame.png" ]; then
		t_ok "screenshot kept: build/test-artifacts/t26-flame.png"
	else
		t_fail "screenshot" "chromium wrote none"
	fi
	# hostile names stay text
	"$RAWFRAG" report -i evil.data --format flamegraph -o evil.html 2>err
	browse evil.html --dump-dom >evil.dom 2>/dev/null
	if grep -q 'data-state="ok"' evil.dom && ! grep -q '<title>PWNED' evil.dom &&
	   ! grep -q 'data-pwned' <(grep -o '<body[^>]*>' evil.dom) && ! grep -q '<b>x' evil.dom; then
		t_ok "hostile comm and symbols: nothing ran, no element made of them"
	else
		t_fail "hostile names stay text" "$(grep -o '<title>[^<]*' evil.dom)" "$(grep -o '<body[^>]*>' evil.dom)"
	fi
fi
# the hostile names reach the page as escaped JSON, and are there as text
# the data block up to the first </script> parses whole and holds the names:
# no name ended it early
python3 - evil.html >esc.out 2>&1 <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="rawfrag-data">(.*?)</script>', s, re.S)
d = json.loads(m.group(1))
want = ["</script><script>document.title='PWNED'</script>",
        "<img src=x onerror=document.body.setAttribute('data-pwned',1)>"]
comm = [n for n in d["names"] if n.startswith("</script><b>x")]
print("names found:", [w in d["names"] for w in want], "comm:", comm)
sys.exit(0 if all(w in d["names"] for w in want) and comm else 1)
EOF
if [ $? = 0 ] && grep -q '\\u003c/script\\u003e\\u003cscript\\u003edocument.title' evil.html; then
	t_ok "the page's data escapes '<' (\\u003c): it parses whole with every hostile name"
else
	t_fail "data escaped" "$(cat esc.out)" "$(grep -o '.\{40\}document.title.\{20\}' evil.html | head -3)"
fi
if [ -n "$CHROMIUM" ] && grep -Fq '&lt;/script&gt;&lt;script&gt;document.title=' evil.dom &&
   grep -Fq '&lt;/script&gt;&lt;b&gt;x (' evil.dom; then
	t_ok "... and shown as text: the symbol and the comm in the rendered page"
elif [ -z "$CHROMIUM" ]; then
	t_skip "hostile names shown as text" "no chromium"
else
	t_fail "hostile names shown as text" "$(grep -o 'script&gt;.\{30\}' evil.dom | head -3)"
fi

# 1 M samples: a recording's samples K times over (pipe format, records repeated)
# give a page of the same stacks: its size stays the original's
t_setup "perf records cpu-clock -g (pipe)" sh -c "'$PERF' record -q -g -e cpu-clock -c 100000 -o - -- '$T/prog' >pipe.data"
n1=$("$FAST" report -i pipe.data --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
K=$(( (1000000 + ${n1:-1} - 1) / ${n1:-1} ))
python3 "$TOP/tests/scripts/pipe_repeat.py" pipe.data big.data $K >rep.out 2>&1
"$FAST" report -i pipe.data --format flamegraph -o small.html 2>err
"$FAST" report -i big.data --format flamegraph -o big.html 2>err
nodes() { # page: "nodes samples"
	python3 - "$1" <<'EOF'
import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="rawfrag-data">(.*?)</script>', s, re.S).group(1))
print(len(d["nodes"]["p"]), sum(d["values"][0][1::2]))
EOF
}
read -r k1 _ < <(nodes small.html)
read -r k2 n2 < <(nodes big.html)
s1=$(wc -c <small.html 2>/dev/null || echo 0); s2=$(wc -c <big.html 2>/dev/null || echo 0)
if [ -n "$n1" ] && [ "${n2:-0}" = $((n1 * K)) ] && [ "$n2" -ge 1000000 ] && [ "$s1" -gt 0 ] &&
   [ "${k1:-0}" -gt 1 ] && [ "$k1" = "$k2" ] && [ "$s2" -le $((s1 + s1 / 20)) ]; then
	t_ok "$n2 samples: $k2 nodes, page $s2 bytes; the $n1-sample page: $k1 nodes, $s1 bytes"
else
	t_fail "1 M-sample page bounded by distinct stacks" "samples $n1 x $K = $n2? nodes $k1 / $k2, sizes $s1 / $s2" \
		"$(cat rep.out err | head -5)"
fi

# Python: Reader.write() and folded() through the same sinks
if PYTHONPATH=${PYTHONPATH:-$O/python} python3 -c 'import rawfrag' 2>/dev/null; then
	PYTHONPATH=${PYTHONPATH:-$O/python} python3 -c '
import rawfrag
rawfrag.open("cc.data").write("flamegraph-json", "py.json")' >err 2>&1
	"$RAWFRAG" report -i cc.data --format flamegraph-json -o cli.json
	if [ -s py.json ] && cmp -s py.json cli.json; then
		t_ok "Reader.write('flamegraph-json') = report --format flamegraph-json"
	else
		t_fail "Reader.write('flamegraph-json')" "$(head -c 400 err)"
	fi
else
	t_skip "Reader.write('flamegraph-json')" "the rawfrag Python module is not built"
fi
