#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare perf-rawfrag's typed tracepoint fields with what perf's Python
scripting handed to tp_fields.py for the same samples.

usage: tp_cmp_fields.py PERF_JSONL OURS_JSONL [--big-endian] [--skip-tids=T1,T2...]

--skip-tids: samples of these threads are left out of OURS_JSONL (perf's
Python was run without them, see tp_comm_tids.py); how many is printed.

OURS_JSONL: one object per sample with "event", "cpu", "time" (or "time_ns") and "fields"
(the decoder's typed fields: "common" object plus one member per field), or
a second file in tp_fields.py's shape (e.g. the values tp-be-gen chose).
Samples are matched by (time, cpu, event, raw order); every field of every sample
must agree:
  perf str        == our str (or our unsigned char[] array, up to its NUL)
  perf int        == our int, or our "0x.." pointer string; perf 6.1's Python
                     does not sign-extend signed fields narrower than 64 bits
                     (get_field_numeric_entry), so perf's v + 2**(8*size) is
                     accepted for our negative v of a 1, 2 or 4 byte field
  perf bytearray  == our array packed back at its element size (file byte
                     order), or our string's bytes up to its NUL, or our hex bytes
Exit 0 when all agree, 1 with the first differences otherwise.
"""
import json
import struct
import sys


def our_bytes_of_array(arr, nbytes, big):
    if not arr:
        return b""
    size = nbytes // len(arr)
    if size not in (1, 2, 4, 8) or size * len(arr) != nbytes:
        return None
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
    out = b""
    for v in arr:
        if isinstance(v, str):
            v = int(v, 16)
        c = code if v < 0 else code.upper()
        out += struct.pack((">" if big else "<") + c, v)
    return out


def str_bytes(s):
    try:
        return s.encode("latin-1")
    except UnicodeEncodeError:
        return s.encode("utf-8")


def same(pv, ov, big):
    if isinstance(pv, bool) or isinstance(ov, bool):
        return False
    if isinstance(pv, str):
        if isinstance(ov, list) and all(isinstance(x, int) and 0 <= x < 256 for x in ov):
            # an unsigned char[] perf found printable: ours is the byte array
            return bytes(ov).split(b"\0", 1)[0] == pv.encode("latin-1", "replace")
        return isinstance(ov, str) and pv == ov
    if isinstance(pv, int):
        if isinstance(ov, str) and ov.startswith("0x"):
            return int(ov, 16) == pv
        if not isinstance(ov, int):
            return False
        return ov == pv or (ov < 0 and pv in (ov + 2**8, ov + 2**16, ov + 2**32))
    if isinstance(pv, dict) and "bytes" in pv:
        b = bytes.fromhex(pv["bytes"])
        if isinstance(ov, dict):
            return ov == pv
        if isinstance(ov, list):
            return our_bytes_of_array(ov, len(b), big) == b
        if isinstance(ov, str):
            # a char[] perf found unprintable: compare up to the NUL
            return str_bytes(ov) == b.split(b"\0", 1)[0] or ov == pv["bytes"]
    return False


def main():
    big = "--big-endian" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    skip = set()
    for a in sys.argv[1:]:
        if a.startswith("--skip-tids="):
            skip = {int(t) for t in a[12:].split(",") if t}
    perf = [json.loads(l) for l in open(args[0]) if l.strip()]
    ours = [json.loads(l) for l in open(args[1]) if l.strip()]
    # perf rawfrag report --format json: tracepoint samples only, time in time_ns
    ours = [dict(o, time=o.get("time", o.get("time_ns"))) for o in ours
            if o.get("producer", "tracepoint") == "tracepoint" and "fields" in o
            or "common_flags" in o]
    nskip = len(ours)
    ours = [o for o in ours if o.get("tid") not in skip]
    nskip -= len(ours)
    key = lambda r: (r["time"], r["cpu"], r["event"])
    perf.sort(key=key)
    ours.sort(key=key)
    errs = []
    if len(perf) != len(ours):
        errs.append("sample count: perf %d, ours %d" % (len(perf), len(ours)))
    nfields = 0
    for p, o in zip(perf, ours):
        where = "%s cpu %d time %d" % (p["event"], p["cpu"], p["time"])
        if key(p) != key(o):
            errs.append("%s: ours is %s" % (where, key(o)))
            continue
        of = o["fields"]
        if "common" not in of and "common_flags" in o:
            # tp_fields.py shape: the common fields are at the top
            of = dict(of, common={
                "common_type": int.from_bytes(bytes.fromhex(o["raw"])[:2],
                                              "big" if big else "little"),
                "common_flags": o["common_flags"],
                "common_preempt_count": o["common_preempt_count"],
                "common_pid": o["pid"]})
        com = of.get("common", {})
        raw = bytes.fromhex(p["raw"])
        want_common = {
            "common_type": int.from_bytes(raw[:2], "big" if big else "little"),
            "common_flags": p["common_flags"],
            "common_preempt_count": p["common_preempt_count"],
            "common_pid": p["pid"],
        }
        for k, v in want_common.items():
            nfields += 1
            if com.get(k) != v:
                errs.append("%s: %s perf %r ours %r" % (where, k, v, com.get(k)))
        names = set(of) - {"common"}
        if names != set(p["fields"]):
            errs.append("%s: field names perf %s ours %s" %
                        (where, sorted(p["fields"]), sorted(names)))
        for k, pv in p["fields"].items():
            nfields += 1
            if not same(pv, of.get(k), big):
                errs.append("%s: %s perf %r ours %r" % (where, k, pv, of.get(k)))
    for e in errs[:20]:
        print(e)
    print("%d samples, %d field values compared, %d differences%s" %
          (len(perf), nfields, len(errs),
           ", %d samples of %d threads left out" % (nskip, len(skip)) if skip else ""))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
