#!/usr/bin/env bash
# s390 producers (CF_DIAG, PAI, legacy CPUM-SF) on big-endian s390 perf.data files
# written by tests/gen/s390-gen.c. Oracles: perf 6.1 `report -D` for CF_DIAG (the
# only s390 raw format 6.1 decodes), perf's pmu-events JSON in linux-source-6.1
# for the counter names, and the values the generator documents for PAI/CPUM-SF.
source "$(dirname "$0")/lib.sh"
t_plan 50

GEN=$O/tests/s390-gen
CMP=$TOP/tests/scripts/s390_compare.py
CPUID_Z16="IBM,3931,703,A01,3.7,002f"
CPUID_Z13="IBM,2964,702,NC9,1.4,002f"

if [ ! -x "$GEN" ]; then
	t_fail "s390 fixtures" "$GEN not built"
	exit 1
fi
t_setup "s390-gen writes the fixtures" "$GEN" gen "$T"

# Our JSON: perf rawfrag report --format json, nothing else. When report fails the
# file is left empty (with the error inside), so every comparison with it fails.
OURS_BY="perf rawfrag report --format json"
ours() { # file -> $T/<base>.json
	local out=$T/$(basename "$1" .data).json
	if ! "$RAWFRAG" report --format json -i "$1" >"$out" 2>"$T/report.err"; then
		echo "report failed: $(head -c 300 "$T/report.err")" >"$out"
	fi
}

# perf -D, stdout and stderr in order: "Invalid counter set" goes to stderr
perf_d() {
	stdbuf -oL -eL "$PERF" report -D -i "$1" >"$2" 2>&1
}

# one CF_DIAG sample per machine generation: "file cpuid" pairs (the cpuids of s390-gen.c)
GEN_CPUIDS=""
for g in z10:IBM,2097,E12,709,1.1,002f z196:IBM,2817,M15,715,1.2,002f \
	zec12:IBM,2827,H20,720,1.3,002f z13:$CPUID_Z13 z14:IBM,3906,M01,704,3.5,002f \
	z15:IBM,8561,T01,705,3.6,002f z16:$CPUID_Z16; do
	GEN_CPUIDS="$GEN_CPUIDS s390-cf-${g%%:*}:${g#*:}"
done

have_perf=1
command -v "$PERF" >/dev/null 2>&1 || have_perf=0

for f in s390-z16 s390-z13 s390-z16-le s390-z13-nomap s390-corrupt $(for c in $GEN_CPUIDS; do
	echo "${c%%:*}"; done); do
	ours "$T/$f.data"
	if [ $have_perf = 0 ]; then
		t_skip "$f: CF_DIAG values match perf report -D" "perf not installed"
		continue
	fi
	perf_d "$T/$f.data" "$T/$f.perf"
	if python3 "$CMP" cfdiag "$T/$f.perf" "$T/$f.json" >"$T/cmp.out" 2>&1; then
		t_ok "$f: CF_DIAG values match perf report -D ($OURS_BY): $(tail -1 "$T/cmp.out")"
		# where perf is wrong: the trailer flags it shows are the LSB-first reading
		[ "${f#s390-cf-}" = "$f" ] && grep '^# sample .*flags' "$T/cmp.out" | head -2
	else
		t_fail "$f: CF_DIAG values match perf report -D ($OURS_BY)" "$(tail -5 "$T/cmp.out")"
	fi
done

# the fixtures have flags perf cannot show right; the comparison must have said so
if [ $have_perf = 1 ]; then
	python3 "$CMP" cfdiag "$T/s390-corrupt.perf" "$T/s390-corrupt.json" >"$T/cmp.out" 2>&1
	t_grep "perf shows reserved bits as T/M, we decode clock_base+speed" \
		"kernel bits \(MSB first\) 'TS   ', perf shows 'T M  '" "$T/cmp.out"
else
	t_skip "we decode clock_base+speed where perf shows T/M" "perf not installed"
fi

# a little-endian copy decodes exactly like the big-endian file (raw stays BE)
if python3 - "$T/s390-z16.json" "$T/s390-z16-le.json" <<'EOF'; then
import json, sys
a, b = ([json.loads(l)["fields"] for l in open(p) if l.startswith("{")] for p in sys.argv[1:])
sys.exit(0 if a == b and len(a) == 3 else 1)
EOF
	t_ok "little-endian file: same CF_DIAG fields as big-endian"
else
	t_fail "little-endian file: same CF_DIAG fields as big-endian"
fi

# counter names against perf's pmu-events JSON
src=/usr/src/linux-source-6.1.tar.xz
ev=$T/src/linux-source-6.1/tools/perf/pmu-events/arch/s390
NAME_FILES=("s390-z16 $CPUID_Z16" "s390-z13 $CPUID_Z13" "s390-pai $CPUID_Z16" $GEN_CPUIDS)
if [ -f "$src" ] && mkdir -p "$T/src" &&
	tar -xJf "$src" -C "$T/src" --wildcards 'linux-source-6.1/tools/perf/pmu-events/arch/s390/*' 2>/dev/null; then
	ours "$T/s390-pai.data"
	for c in "${NAME_FILES[@]}"; do
		set -- ${c/:/ }
		if python3 "$CMP" names "$ev" "$2" "$T/$1.json" >"$T/cmp.out" 2>&1; then
			t_ok "$1: $(tail -1 "$T/cmp.out")"
		else
			t_fail "$1: counter names match perf's pmu-events" "$(tail -3 "$T/cmp.out")"
		fi
	done
else
	t_skip_n ${#NAME_FILES[@]} "counter names match perf's pmu-events" "$src not available"
fi

# PAI and CPUM-SF: perf 6.1 does not decode them; the generator's values are the oracle
ours "$T/s390-pai.data"
t_run "PAI entries are the generator's" 0 python3 "$CMP" pai "$T/s390-pai.json"
ours "$T/s390-sf.data"
t_run "CPUM-SF entries are the generator's" 0 python3 "$CMP" sf "$T/s390-sf.json"

# check: sound files are clean, every corrupt variant is found
for f in s390-z16 s390-z13 s390-z16-le s390-z13-nomap s390-pai s390-sf; do
	t_run "check $f: clean" 0 "$RAWFRAG" check "$T/$f.data"
done
t_run "check s390-corrupt: violations" 1 "$RAWFRAG" check -v "$T/s390-corrupt.data"
for k in cfdiag_bad_magic cfdiag_set_length cfdiag_no_trailer pai_partial_entry cpumsf_size \
	cfdiag_trailer_flags; do
	t_grep "check s390-corrupt finds $k" "SAMPLE: .*: $k \(" "$T/out"
done

# text output: one line per sample, -v with every field
if "$RAWFRAG" report -i "$T/s390-z16.data" >"$T/text" 2>"$T/err"; then
	t_eq "report text: one line per CF_DIAG sample" 3 "$(grep -c 'cf_diag machine=z16' "$T/text")"
	"$RAWFRAG" report -v -i "$T/s390-z16.data" >"$T/textv" 2>"$T/err"
	t_eq "report -v: every counter of a sample on its line" 236 \
		"$(head -1 "$T/textv" | grep -o 'value=' | wc -l | tr -d ' ')"
	"$RAWFRAG" report -v -i "$T/s390-sf.data" >"$T/textv" 2>"$T/err"
	t_grep "report -v: CPUM-SF basic entry fields by name" \
		'problem_state=true address_space_control=2 .*primary_asn=67 instruction_address=0x3ff80001001' "$T/textv"
else
	t_fail "report text output" "perf rawfrag report failed: $(head -c 200 "$T/err")"
fi

# record: the s390 PMUs do not exist here
for e in cpum_cf/CF_DIAG/ cpum_sf/event=0xB0000/ pai_crypto/CRYPTO_ALL/ pai_ext/NNPA_ALL/; do
	pmu=${e%%/*}
	if [ -d "/sys/bus/event_source/devices/$pmu" ]; then
		t_skip "record -e $e errors clearly" "this machine has $pmu"
		continue
	fi
	"$RAWFRAG" record -e "$e" -o "$T/rec.data" -- true >"$T/out" 2>"$T/err"
	rc=$?
	t_eq "record -e $e: non-zero exit (got $rc)" 1 "$([ "$rc" -ne 0 ] && echo 1)"
	t_grep "record -e $e: says the PMU is missing" \
		"PMU $pmu is not present on this machine" "$T/err"
done
