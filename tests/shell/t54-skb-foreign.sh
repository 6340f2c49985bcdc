#!/usr/bin/env bash
# Packet dumps of another tool (bpf-output, a 16-byte meta of its own, no rawfrag
# magic; file from tests/gen/pkt-foreign.c with chosen values): report without an
# option says it cannot split them; --meta 16, --meta auto and --meta-btf
# OBJ:STRUCT split them and decode the packets the generator wrote.
source "$(dirname "$0")/lib.sh"
t_plan 13
GEN=$O/tests/pkt-foreign

"$GEN" f.data 10 100 1000 >gen.txt || { t_fail "pkt-foreign generator"; exit 1; }

t_run "report without --meta" 0 "$RAWFRAG" report -i f.data
t_eq "without --meta: every sample says it has no rawfrag meta" 3 \
	"$(grep -c 'no rawfrag skb meta' "$T/out")"

for m in 16 auto; do
	t_run "report --meta $m" 0 "$RAWFRAG" report -i f.data --meta $m
	t_eq "--meta $m: the generator's datagrams" "10 100 1000" \
		"$(grep -o 'UDP, length [0-9]*' "$T/out" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $3 }')"
	t_grep "--meta $m: meta size found" 'meta 16 bytes: ' "$T/out"
done

# a meta that is no frame at all: auto says so
t_run "report --meta auto --format json" 0 "$RAWFRAG" report -i f.data --meta auto --format json
t_eq "--meta auto: frame lengths from the IP header" "52 142 1042" \
	"$(grep -o '"orig_len":[0-9]*' "$T/out" | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"

if command -v clang >/dev/null; then
	cat >m.c <<'EOF'
struct fmeta { unsigned int kind; unsigned int pid; unsigned long long cookie; };
struct fmeta m __attribute__((section(".data"), used));
EOF
	clang -g -O2 -target bpf -c m.c -o m.o
	t_run "report --meta-btf m.o:fmeta --format json" 0 \
		"$RAWFRAG" report -i f.data --meta-btf m.o:fmeta --format json
	t_eq "--meta-btf: fields named from BTF, values as generated" \
		"$(awk '{ printf "{\"kind\":%s,\"pid\":%s,\"cookie\":%s}\n", $2, $4, $6 }' gen.txt)" \
		"$(grep -o '"meta":{[^}]*}' "$T/out" | sed 's/"meta"://')"
	"$RAWFRAG" report -i f.data --meta-btf m.o:nosuch >/dev/null 2>"$T/err"
	t_grep "--meta-btf: a missing struct is named" 'meta_btf: no struct nosuch in m\.o' "$T/err"
else
	t_skip "--meta-btf" "clang not installed"
fi
