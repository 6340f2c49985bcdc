#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare our s390 decoding (JSON) with its oracles; used by tests/shell/t70-s390.sh.

  s390_compare.py cfdiag PERF_D_TXT OURS_JSON
      CF_DIAG against `perf report -D` (perf 6.1, tools/perf/util/s390-sample-raw.c):
      per sample the set ids, counter counts and offsets, every counter value,
      and the trailer numbers must agree; samples perf calls "Invalid counter set
      data" must be the ones we report an error for. The trailer flags are the
      exception: perf byte-swaps the flags word and then reads host bitfields,
      which on a little-endian host are numbered from the LSB, while the s390
      (big-endian) compiler numbered them from the MSB. The script checks that
      perf shows exactly the letters of the LSB model and we those of the MSB
      model, and prints both when they differ.
  s390_compare.py names PMU_EVENTS_DIR CPUID OURS_JSON
      counter names against perf's pmu-events JSON (cf_<machine>/*.json), the
      machine picked by matching the file's CPUID against mapfile.csv.
  s390_compare.py pai OURS_JSON / sf OURS_JSON
      values against the ones tests/gen/s390-gen.c documents it writes.
Prints TAP-ish '# ' diagnostics and ends with 'OK <n>' or 'FAIL <reason>'; exit 0/1.
"""
import csv
import glob
import json
import os
import re
import sys

FLAG_LETTERS = "TSMCL"  # clock_base, speed, mtda, caca, lcda (perf's order)
FLAG_NAMES = ["clock_base", "speed", "mtda", "caca", "lcda"]


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def load_ours(path):
    """Objects that carry decoder fields, from JSON lines or one JSON array/object."""
    text = open(path).read()
    try:
        doc = json.loads(text)
        items = doc if isinstance(doc, list) else doc.get("samples", [doc])
    except ValueError:
        items = [json.loads(l) for l in text.splitlines() if l.strip().startswith("{")]
    return [o for o in items if isinstance(o, dict) and isinstance(o.get("fields"), dict)]


def parse_perf_d(path):
    """Per sample: {'sets': [(off, set, n, [values])], 'trailer': {...}, 'invalid': bool}."""
    samples, cur = [], None
    set_re = re.compile(r"^\s+\[(0x[0-9a-f]+|0+)\] Counterset:(\d+) Counters:(\d+)")
    ctr_re = re.compile(r"^\s+Counter:(\d+) (\S+) Value:(0x[0-9a-f]+)")
    tr_re = re.compile(r"^\s+\[(0x[0-9a-f]+|0+)\] Trailer:(.{5}) Cfvn:(\d+) Csvn:(\d+) "
                       r"Speed:(\d+) TOD:(0x[0-9a-f]+)")
    tr2_re = re.compile(r"^\s+1:([0-9a-f]+) 2:([0-9a-f]+) 3:([0-9a-f]+) "
                        r"TOD-Base:(0x[0-9a-f]+) Type:([0-9a-f]+)")
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if cur is None:
            cur = {"sets": [], "trailer": None, "invalid": False}
        m = set_re.match(line)
        if m:
            cur["sets"].append([int(m.group(1), 16), int(m.group(2)), int(m.group(3)), []])
            continue
        m = ctr_re.match(line)
        if m and cur["sets"]:
            cur["sets"][-1][3].append(int(m.group(3), 16))
            continue
        m = tr_re.match(line)
        if m:
            cur["trailer"] = {"offset": int(m.group(1), 16), "letters": m.group(2),
                              "cfvn": int(m.group(3)), "csvn": int(m.group(4)),
                              "cpu_speed": int(m.group(5)), "timestamp": int(m.group(6), 16)}
            continue
        m = tr2_re.match(line)
        if m and cur["trailer"]:
            cur["trailer"].update(progusage1=int(m.group(1), 16), progusage2=int(m.group(2), 16),
                                  progusage3=int(m.group(3), 16),
                                  tod_base=int(m.group(4), 16), mach_type=int(m.group(5), 16))
            continue
        if "Invalid counter set" in line:
            cur["invalid"] = True
            continue
        if "PERF_RECORD_SAMPLE" in line:
            # samples of other events (PAI, CPUM-SF) have no CF_DIAG output
            if cur["sets"] or cur["trailer"] or cur["invalid"]:
                samples.append(cur)
            cur = None
    return samples


def hexint(v):
    return int(v, 16) if isinstance(v, str) else v


def cmd_cfdiag(perf_txt, ours_json):
    perf = parse_perf_d(perf_txt)
    ours = [o["fields"] for o in load_ours(ours_json) if "sets" in o["fields"]]
    if not perf:
        fail("perf printed no CF_DIAG samples")
    if len(perf) != len(ours):
        fail("perf has %d samples, we have %d" % (len(perf), len(ours)))
    nvals = nflag_diff = ninvalid = 0
    for i, (p, o) in enumerate(zip(perf, ours)):
        if p["invalid"] or "error" in o:
            if not (p["invalid"] and "error" in o):
                fail("sample %d: perf invalid=%s, ours error=%r" % (i, p["invalid"], o.get("error")))
            print("# sample %d: both reject it; ours: %s" % (i, o["error"]))
            ninvalid += 1
            continue
        if len(p["sets"]) != len(o["sets"]):
            fail("sample %d: perf %d sets, ours %d" % (i, len(p["sets"]), len(o["sets"])))
        for ps, os_ in zip(p["sets"], o["sets"]):
            off, setid, n, vals = ps
            if (off, setid, n) != (os_["offset"], os_["set"], os_["nr_counters"]):
                fail("sample %d: set perf %r ours %r" % (i, (off, setid, n),
                     (os_["offset"], os_["set"], os_["nr_counters"])))
            ov = [c["value"] for c in os_["counters"]]
            if vals != ov:
                bad = next(j for j in range(max(len(vals), len(ov)))
                           if j >= len(vals) or j >= len(ov) or vals[j] != ov[j])
                fail("sample %d set %d counter %d: perf %s ours %s" % (
                     i, setid, bad, vals[bad:bad + 1], ov[bad:bad + 1]))
            nvals += len(vals)
        pt, ot = p["trailer"], o.get("trailer")
        if not pt or not ot:
            fail("sample %d: trailer missing (perf %r, ours %r)" % (i, pt, ot))
        for k in ("offset", "cfvn", "csvn", "cpu_speed", "timestamp", "progusage1",
                  "progusage2", "progusage3", "tod_base", "mach_type"):
            if pt.get(k) != hexint(ot[k]):
                fail("sample %d trailer %s: perf %r ours %r" % (i, k, pt.get(k), ot[k]))
        flags = hexint(ot["flags"])
        msb = "".join(c if flags >> (63 - b) & 1 else " " for b, c in enumerate(FLAG_LETTERS))
        lsb = "".join(c if flags >> b & 1 else " " for b, c in enumerate(FLAG_LETTERS))
        mine = "".join(c if ot[FLAG_NAMES[b]] else " " for b, c in enumerate(FLAG_LETTERS))
        if mine != msb:
            fail("sample %d: our flags %r do not follow IBM bit numbering %r" % (i, mine, msb))
        if pt["letters"] != lsb:
            fail("sample %d: perf letters %r are not the LSB-bitfield reading %r of 0x%016x"
                 % (i, pt["letters"], lsb, flags))
        if lsb != msb:
            nflag_diff += 1
            print("# sample %d: flags 0x%016x: kernel bits (MSB first) '%s', perf shows '%s' "
                  "(bitfields read LSB first on this little-endian host)" % (i, flags, msb, lsb))
        nvals += 1
    print("OK %d values in %d samples agree with perf; %d rejected by both; "
          "trailer flags differ in %d (perf's LE bitfield reading)" %
          (nvals, len(perf) - ninvalid, ninvalid, nflag_diff))
    return nflag_diff


def machine_dir(events_dir, cpuid):
    for row in csv.reader(open(os.path.join(events_dir, "mapfile.csv"))):
        # perf matches with POSIX regcomp(): translate the one class it uses
        rx = row[0].replace("[[:xdigit:]]", "[0-9a-fA-F]") if row else ""
        if rx and not row[0].startswith("Family") and re.match(rx, cpuid):
            return os.path.join(events_dir, row[2])
    return None


def load_events(d):
    ev = {}
    for f in glob.glob(os.path.join(d, "*.json")):
        for e in json.load(open(f)):
            if "EventCode" in e:
                ev[int(e["EventCode"])] = e["EventName"]
    return ev


def cmd_names(events_dir, cpuid, ours_json, pai_only=False):
    d = machine_dir(events_dir, cpuid)
    if not d:
        fail("no mapfile entry matches %s" % cpuid)
    ev = load_events(d)
    n = 0
    for o in load_ours(ours_json):
        f = o["fields"]
        if "sets" in f:
            if f.get("machine", "").lower() != os.path.basename(d)[3:].lower():
                fail("machine %r, perf's mapfile says %s" % (f.get("machine"), d))
            counters = [c for s in f["sets"] for c in s["counters"]]
        elif "entries" in f and f.get("pmu") == "pai_crypto":
            counters = f["entries"]
        else:
            continue
        for c in counters:
            if ev.get(c["event"]) != c["name"]:
                fail("event %d: perf JSON %r, ours %r" % (c["event"], ev.get(c["event"]), c["name"]))
            n += 1
    if not n:
        fail("no counters compared")
    print("OK %d counter names match %s" % (n, os.path.relpath(d, events_dir)))


def cmd_pai(ours_json):
    """s390-gen.c: crypto sample k: counters 1, 7, 20 + k, 156; NNPA sample k: 1, 2, 20
    (+ 27 when k is odd); value = 1000 * nr + k + 1; samples alternate crypto/NNPA."""
    objs = [o["fields"] for o in load_ours(ours_json) if "entries" in o["fields"]]
    if len(objs) != 6:
        fail("expected 6 PAI samples, got %d" % len(objs))
    for j, f in enumerate(objs):
        k, nnpa = j // 2, j & 1
        nrs = [1, 2, 20] + ([27] if k & 1 else []) if nnpa else [1, 7, 20 + k, 156]
        want = [(nr, 1000 * nr + k + 1, (0x1800 if nnpa else 0x1000) + nr) for nr in nrs]
        got = [(e["nr"], e["value"], e["event"]) for e in f["entries"]]
        if f["pmu"] != ("pai_ext" if nnpa else "pai_crypto") or got != want:
            fail("PAI sample %d: want %r got %s %r" % (j, want, f["pmu"], got))
    print("OK 6 PAI samples carry the generator's entries")


def cmd_sf(ours_json):
    """s390-gen.c: sample k, diag when k odd: DEF 1, U k, T 1, W 0, P k & 1, AS 2, I 0,
    ASN 0x42 + k, IA 0x3ff80001000 + k, GPP 0x1000 + k, HPP 4242; dsdes 140, size 188;
    diag DEF 0x8001, byte i (4 <= i < 140) = (i * 7 + k) & 0xff."""
    objs = [o["fields"] for o in load_ours(ours_json) if "basic" in o["fields"]]
    if len(objs) != 6:
        fail("expected 6 CPUM-SF samples, got %d" % len(objs))
    for k, f in enumerate(objs):
        b = f["basic"]
        want = {"def": 1, "unique_insns": k, "dat_mode": True, "wait_state": False,
                "problem_state": bool(k & 1), "address_space_control": 2, "invalid": False,
                "primary_asn": 0x42 + k, "instruction_address": 0x3ff80001000 + k,
                "guest_program_param": 0x1000 + k, "host_program_param": 4242}
        got = {key: hexint(b[key]) for key in want}
        if got != want or f["size"] != 188 or f["bsdes"] != 32 or f["dsdes"] != 140:
            fail("CPUM-SF sample %d: want %r got %r" % (k, want, f))
        if k & 1:
            data = bytes((i * 7 + k) & 0xff for i in range(4, 140)).hex()
            dg = f.get("diag", {})
            if hexint(dg.get("def")) != 0x8001 or dg.get("data") != data:
                fail("CPUM-SF sample %d: diag entry %r" % (k, dg))
        elif "diag" in f:
            fail("CPUM-SF sample %d: basic mode has no diag entry" % k)
    print("OK 6 CPUM-SF samples carry the generator's entries")


def main(argv):
    if len(argv) == 4 and argv[1] == "cfdiag":
        cmd_cfdiag(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "names":
        cmd_names(argv[2], argv[3], argv[4])
    elif len(argv) == 3 and argv[1] == "pai":
        cmd_pai(argv[2])
    elif len(argv) == 3 and argv[1] == "sf":
        cmd_sf(argv[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
