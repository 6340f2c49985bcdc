#!/usr/bin/env bash
# report --where, every comparison operator at its boundary on a real recording:
# for values the samples really have (the smallest, a middle one, the largest of
# a signed field, an unsigned one, a nested common field, a JSON hex string, a
# string) and the values one below and one above them, each of == != < <= > >=
# (and globs with == and !=) keeps exactly the samples an independent filter
# (Python over report --format json without --where) keeps (counted as lines of
# report -G -F time, one per sample). ">" acting as ">="
# or "<=" as "<" changes a count at the equal value.
source "$(dirname "$0")/lib.sh"
t_plan 5
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! is_root || ! ensure_tracefs; then t_skip_rest "recording needs root and tracefs"; fi

# sys_exit's ret is signed (errors negative), skbaddr/location are hex strings
EVENTS=sched:sched_switch,raw_syscalls:sys_exit,skb:consume_skb,net:net_dev_queue
t_setup "record $EVENTS" "$RAWFRAG" record -e $EVENTS -o w.data -- sh -c \
	'ping -c 3 -i 0.05 127.0.0.1 >/dev/null; ls /nonexistent 2>/dev/null; cat /nonexistent 2>/dev/null; sleep 0.05'
t_run "report --format json of the recording" 0 "$RAWFRAG" report --format json -i w.data
mv "$T/out" all.json

cat >ops.py <<'EOF'
import fnmatch, json, subprocess, sys

tool, data, allj = sys.argv[1:4]
samples = [json.loads(l) for l in open(allj)]

def get(fields, path):
    for k in path.split('.'):
        if not isinstance(fields, dict) or k not in fields:
            return None
        fields = fields[k]
    return fields

def val(v):
    # the JSON's "0x..." strings compare as numbers with a number
    return int(v, 16) if isinstance(v, str) and v.startswith('0x') else v

OPS = {'==': lambda c: c == 0, '!=': lambda c: c != 0, '<': lambda c: c < 0,
       '<=': lambda c: c <= 0, '>': lambda c: c > 0, '>=': lambda c: c >= 0}

def want(field, op, lit, is_glob):
    n = 0
    for s in samples:
        v = get(s['fields'], field)
        if v is None:
            continue
        if is_glob:
            n += fnmatch.fnmatchcase(v, lit) == (op == '==')
            continue
        v = val(v)
        if isinstance(lit, str):
            v = v.encode()
            l = lit.encode()
        else:
            l = lit
        n += OPS[op]((v > l) - (v < l))
    return n

def got(expr):
    r = subprocess.run([tool, 'report', '-G', '-F', 'time', '-i', data, '--where', expr],
                       capture_output=True, text=True)
    if r.returncode:
        return 'exit %d: %s' % (r.returncode, r.stderr.strip()[:200])
    return r.stdout.count('\n')

cases = bad = boundary = 0
def check(field, op, lit, is_glob=False, hexlit=False):
    global cases, bad, boundary
    if isinstance(lit, str):
        text = '"%s"' % lit
    else:
        text = ('0x%x' % lit) if hexlit else str(lit)
    expr = '%s %s %s' % (field, op, text)
    w, g = want(field, op, lit, is_glob), got(expr)
    cases += 1
    if w != g:
        bad += 1
        print('MISMATCH %s: want %s, got %s' % (expr, w, g))
    elif 0 < w < len(samples):
        boundary += 1

def values(field, picks):
    # the smallest, a middle one, the largest the samples have
    vs = sorted({val(get(s['fields'], field)) for s in samples} - {None})
    return [[vs[0], vs[len(vs) // 2], vs[-1]][i] for i in picks] if vs else []

# a report run per case: a few values per field keep the test short
nums = {'ret': (0, 1), 'prev_pid': (1,), 'common.common_pid': (1,), 'skbaddr': (1,),
        'location': (2,)}
for f, picks in sorted(nums.items()):
    vs = values(f, picks)
    if not vs:
        print('NOVALUES %s' % f)
        bad += 1
        continue
    for v in vs:
        for l in (v - 1, v, v + 1):
            for op in OPS:
                check(f, op, l)
                if l >= 0 and f in ('skbaddr', 'location'):
                    check(f, op, l, hexlit=True)
for f in ('prev_comm', 'next_comm'):
    for v in values(f, (1,)):
        # a byte below and above: the last character one less and one more
        for l in (v[:-1] + chr(ord(v[-1]) - 1), v, v[:-1] + chr(ord(v[-1]) + 1), v[:-1]):
            for op in OPS:
                check(f, op, l)
for g in ('s*', '*h', '?h', '[a-s]*', '[!s]*', '*'):
    for op in ('==', '!='):
        check('prev_comm', op, g, is_glob=True)
print('cases %d mismatches %d boundary %d samples %d' % (cases, bad, boundary, len(samples)))
EOF
$PY ops.py "$RAWFRAG" w.data all.json >ops.out 2>&1
tail -n1 ops.out
t_eq "every operator on every field kept the samples the independent filter keeps" \
	"0" "$(awk '/^cases/ {print $4}' ops.out)$(grep -m3 -E 'MISMATCH|NOVALUES|Error' ops.out)"
n=$(awk '/^cases/ {print $2}' ops.out)
if [ "${n:-0}" -ge 200 ]; then t_ok "$n cases compared"; else t_fail "at least 200 cases compared" "$(tail -3 ops.out)"; fi
b=$(awk '/^cases/ {print $6}' ops.out)
if [ "${b:-0}" -ge 100 ]; then t_ok "$b cases kept some samples and dropped others"; else
	t_fail "at least 100 cases kept some samples and dropped others" "$(tail -3 ops.out)"; fi
# the filter is not the sink's: JSON keeps as many samples as text
"$RAWFRAG" report --format json -i w.data --where 'ret < 0' >neg.txt 2>/dev/null
t_eq "report --format json --where 'ret < 0' keeps as many samples as the independent filter" \
	"$($PY -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["fields"].get("ret", 0) < 0))' all.json)" \
	"$(wc -l <neg.txt)"
