#!/usr/bin/env python3
"""Every rawfrag.Sample attribute against report --format json's object for the
same sample (the same order: both deliver in time order), attribute by attribute,
not through to_dict(): py_attrs.py DATA JSON [PID TID...] with the workload's
pid and thread ids (then its samples must carry that pid and one of those tids,
the tid must be the tracepoint's common_pid, and pid != tid on some of them).
Prints mismatches (at most 20) and one summary line:
  samples N compared N attrs N mismatches N threads N pid_ne_tid N comms A,B..
"""
import json, sys
import rawfrag

data, jpath = sys.argv[1:3]
wpid = int(sys.argv[3]) if len(sys.argv) > 3 else None
wtids = {int(t) for t in sys.argv[4:]}
hexint = lambda v: None if v is None else int(v, 16)


def frames(cc):
    if cc is None:
        return None
    return [dict(f, ip=hexint(f['ip'])) for f in cc]


# attribute: its value from the JSON object j
WANT = {
    'event': lambda j: j['event'],
    'producer': lambda j: j.get('producer'),
    'time_ns': lambda j: j.get('time_ns'),
    'cpu': lambda j: j.get('cpu'),
    'pid': lambda j: j.get('pid'),
    'tid': lambda j: j.get('tid'),
    'comm': lambda j: j.get('comm'),
    'period': lambda j: j.get('period'),
    'ip': lambda j: hexint(j.get('ip')),
    'sym': lambda j: j.get('sym'),
    'symoff': lambda j: j.get('symoff'),
    'dso': lambda j: j.get('dso'),
    'addr': lambda j: hexint(j.get('addr')),
    'callchain': lambda j: frames(j.get('callchain')),
    'raw_size': lambda j: j['raw']['size'] if j.get('raw') else None,
    'raw_len': lambda j: j['raw'].get('len') if j.get('raw') else None,
    'pad': lambda j: j['raw'].get('pad') if j.get('raw') else None,
    'pad_zero': lambda j: j['raw'].get('pad_zero') if j.get('raw') else None,
    'fields': lambda j: j.get('fields', {}),
}

bad = compared = attrs = n = ne = 0
threads = set()
comms = set()
out = []
with open(jpath) as jf:
    for s in rawfrag.open(data):
        line = jf.readline()
        if not line:
            out.append('python has more samples than the JSON')
            bad += 1
            break
        j = json.loads(line)
        n += 1
        for a, f in WANT.items():
            got, want = getattr(s, a), f(j)
            attrs += 1
            if got != want:
                bad += 1
                out.append('sample %d (%s): %s = %r, JSON %r' % (n, j['event'], a, got, want))
        # the raw bytes: raw_size of them; None exactly when the JSON has no raw
        if (s.raw is None) != (j.get('raw') is None) or \
                (s.raw is not None and len(s.raw) != j['raw']['size']):
            bad += 1
            out.append('sample %d: raw has %s bytes, JSON raw %r' %
                       (n, None if s.raw is None else len(s.raw), j.get('raw')))
        compared += 1
        if wpid is not None and s.tid in wtids | {wpid}:
            threads.add(s.tid)
            comms.add(s.comm)
            ne += s.pid != s.tid
            cpid = s.fields.get('common', {}).get('common_pid')
            if s.pid != wpid or (cpid is not None and cpid != s.tid):
                bad += 1
                out.append('sample %d: pid %s tid %s common_pid %s, workload pid %d' %
                           (n, s.pid, s.tid, cpid, wpid))
    if jf.readline():
        bad += 1
        out.append('the JSON has more samples than python')
for l in out[:20]:
    print('MISMATCH', l)
print('samples %d compared %d attrs %d mismatches %d threads %d pid_ne_tid %d comms %s' %
      (n, compared, attrs, bad, len(threads), ne, ','.join(sorted(comms)) or '-'))
