#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare perf 6.1's IBS decoding (perf report -D) with ours, field by field.

usage: ibs_compare.py PERF_DUMP OURS_JSONL DATA_FILE

PERF_DUMP   output of `perf report -D -i DATA_FILE`
OURS_JSONL  output of `perf rawfrag report --format json -i DATA_FILE` (samples are
            matched by time) or of `ibs-gen dump DATA_FILE` (matched by offset)
DATA_FILE   the perf.data file, to read what perf read past a raw area

Every value perf prints is checked against our JSON. Where perf and we differ
for a known reason, the reason is checked too, and counted:
  past_raw    perf printed a register beyond raw_size; its value must equal the
              bytes that follow the raw area in the file, and we must not have it
  mislabel    perf printed register 3 of a pre-2020 fetch sample (IbsBrTarget) as
              ic_ibs_ext_ctl; values equal, names differ
  reserved    perf printed a bit our CPU family does not define (value must be 0)
  alias       same bit, another name for the family (DcMabHit on family 10h)
  skipped     perf printed nothing for a sample whose En/Val bits are clear (we
              decode it and say valid=false)
  erratum     perf omits a field on family 19h model < 10h; we mark it invalid
Prints "ibs-compare: <n> samples, <n> values, past_raw=.. ..." and every
unexplained difference; exit status 1 if there is one.
"""
import json
import re
import struct
import sys

SAMPLE_HDR = re.compile(r"^(0x[0-9a-f]+)@.* \[(0x[0-9a-f]+)\]: event: 9$")
SAMPLE_LINE = re.compile(r"^\d+ (\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE")
IBS_LINE = re.compile(r"^(\w+):\t([0-9a-f]{16})(.*)$")
# raw data offset inside our fixtures' samples: header + IDENTIFIER IP TID TIME CPU
# PERIOD (8 bytes each) + the u32 raw_size (tests/gen/ibs-gen.c)
RAW_DATA_OFF = 8 + 6 * 8 + 4

PAGE = {"4KB": "4K", "2MB": "2M", "1GB": "1G", "16KB": "16K", "RESERVED": "reserved"}


def parse_perf(text):
    """{(time, offset): {label: (raw, [(name, value)...])}} for every sample."""
    out, cur = {}, {}
    for line in text.splitlines():
        m = SAMPLE_HDR.match(line)
        if m:
            cur = {}
            continue
        m = IBS_LINE.match(line)
        if m:
            cur[m.group(1)] = (int(m.group(2), 16), pairs(m.group(1), m.group(3)))
            continue
        m = SAMPLE_LINE.match(line)
        if m:
            out[(int(m.group(1)), int(m.group(2), 16))] = cur
            cur = {}
    return out


def pairs(label, rest):
    if label == "ibs_op_data2":
        # "[CacheHitSt n=..] RmtNode n[ DataSrc n=free text]"
        src = None
        if " DataSrc " in rest:
            rest, src = rest.split(" DataSrc ", 1)
        toks = rest.split()
        res = [(toks[i], toks[i + 1]) for i in range(0, len(toks) - 1, 2)]
        if src is not None:
            res.append(("DataSrc", src))
        return res
    toks, res, i = rest.split(), [], 0
    while i + 1 < len(toks):
        res.append((toks[i], toks[i + 1]))
        i += 3 if i + 2 < len(toks) and toks[i + 2] == "bytes" else 2
    return res


class Cmp:
    def __init__(self, data):
        self.data = data
        self.n_samples = self.n_values = 0
        self.count = {k: 0 for k in ("past_raw", "mislabel", "reserved", "alias", "skipped",
                                     "erratum")}
        self.errors = []

    def bad(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def file_u64(self, off):
        return struct.unpack_from("<Q", self.data, off)[0]

    def eq(self, where, what, perf, ours):
        self.n_values += 1
        if perf != ours:
            self.bad(where, "%s: perf %r, ours %r" % (what, perf, ours))

    # ---- helpers on our JSON ----
    @staticmethod
    def reg_at(f, idx):
        for name, r in f.get("regs", {}).items():
            if r["index"] == idx:
                return name, r
        return None, None

    def field(self, where, f, reg, name, perf_val, transform=int, alias=None):
        """perf printed name=perf_val for a bit field of our register reg."""
        r = f["regs"].get(reg)
        if r is None:
            self.bad(where, "perf shows %s.%s, we have no %s" % (reg, name, reg))
            return
        fields = r.get("fields", {})
        if name not in fields and alias and alias in fields:
            self.count["alias"] += 1
            name = alias
        if name not in fields:
            # a bit our family/caps does not define: perf reads it anyway
            self.count["reserved"] += 1
            self.eq(where, "%s.%s (reserved here)" % (reg, name), int(perf_val.split("=")[0]), 0)
            return
        self.eq(where, "%s.%s" % (reg, name), transform(perf_val), fields[name])
        inv = r.get("invalid_fields", {})
        if name in inv and "erratum" in inv[name]:
            self.bad(where, "perf shows %s.%s we mark invalid (%s)" % (reg, name, inv[name]))

    def omitted(self, where, f, reg, name, why):
        """perf omitted a field: we must mark it invalid (for reason why)."""
        r = f["regs"].get(reg, {})
        inv = r.get("invalid_fields", {})
        if name in r.get("fields", {}) and why not in inv.get(name, ""):
            self.bad(where, "perf omits %s.%s, we do not mark it invalid (%s)" % (reg, name, why))
        elif why.startswith("erratum"):
            self.count["erratum"] += 1

    def addr(self, where, perf_lines, f, label, idx, reg, rec_off):
        """an address line perf prints from register idx."""
        if label not in perf_lines:
            r = f["regs"].get(reg)
            # perf leaves out a branch target of 0 as well
            zero_target = label == "IbsBrTarget" and r is not None and int(r["raw"], 16) == 0
            if r is not None and r["valid"] and r["index"] == idx and not zero_target:
                self.bad(where, "perf omits %s, ours is valid" % label)
            return
        val = perf_lines[label][0]
        if idx >= f["nr_regs"] or (idx >= f["expected_regs"]):
            self.past_raw(where, f, label, idx, val, rec_off)
            return
        name, r = self.reg_at(f, idx)
        if name != reg:
            self.bad(where, "%s: register %d is %s for us" % (label, idx, name))
            return
        self.eq(where, label, val, int(r["raw"], 16))
        if not r["valid"]:
            self.bad(where, "perf shows %s, we mark it invalid (%s)" % (label, r.get("invalid_reason")))

    def past_raw(self, where, f, label, idx, val, rec_off):
        if idx < f["nr_regs"]:
            # over-long payload: the register exists but is not part of the layout
            name, r = self.reg_at(f, idx)
            if name is not None:
                self.bad(where, "%s index %d decoded as %s" % (label, idx, name))
            self.eq(where, "%s (beyond the layout)" % label, val,
                    self.file_u64(rec_off + RAW_DATA_OFF + 4 + 8 * idx))
            self.count["past_raw"] += 1
            return
        self.eq(where, "%s read past raw_size" % label, val,
                self.file_u64(rec_off + RAW_DATA_OFF + 4 + 8 * idx))
        self.count["past_raw"] += 1

    # ---- fetch ----
    def fetch(self, where, p, f, rec_off):
        fam, model = f["family"], f["model"]
        early19 = fam == 0x19 and model < 0x10
        raw, kv = p["ibs_fetch_ctl"]
        ctl = f["regs"]["IbsFetchCtl"]
        self.eq(where, "ibs_fetch_ctl raw", raw, int(ctl["raw"], 16))
        names = {k for k, _ in kv}
        x16 = lambda v: int(v)  # noqa: E731
        for k, v in kv:
            if k == "MaxCnt":
                self.eq(where, "MaxCnt", int(v), ctl["fields"]["FetchMaxCnt"] << 4)
            elif k == "Cnt":
                self.eq(where, "Cnt", int(v), ctl["fields"]["FetchCnt"] << 4)
            elif k == "L1TlbPgSz":
                self.eq(where, "L1TlbPgSz", PAGE[v], f["derived"].get("page_size"))
            else:
                name = {"Lat": "FetchLat", "En": "FetchEn", "Val": "FetchVal",
                        "Comp": "FetchComp", "L2Miss": "FetchL2Miss"}.get(k, k)
                self.field(where, f, "IbsFetchCtl", name, v, x16)
        if "IcMiss" not in names:
            self.omitted(where, f, "IbsFetchCtl", "IcMiss", "erratum 1238" if early19 else "?")
        if "L1TlbPgSz" not in names:
            self.omitted(where, f, "IbsFetchCtl", "L1TlbPgSz", "PhyAddrValid=0")
        if "L2Miss" not in names:
            self.omitted(where, f, "IbsFetchCtl", "FetchL2Miss", "FetchComp=0")
        self.addr(where, p, f, "IbsFetchLinAd", 1, "IbsFetchLinAd", rec_off)
        self.addr(where, p, f, "IbsFetchPhysAd", 2, "IbsFetchPhysAd", rec_off)
        # perf prints ic_ibs_ext_ctl always, from register 3
        val, kv = p["ic_ibs_ext_ctl"]
        name, r = self.reg_at(f, 3)
        if name == "IcIbsExtdCtl":
            self.eq(where, "ic_ibs_ext_ctl", val, int(r["raw"], 16))
            self.eq(where, "IbsItlbRefillLat", int(kv[0][1]), r["fields"]["ItlbRefillLat"])
        elif name is not None:
            # pre-2020 layout: register 3 is IbsBrTarget, perf calls it ic_ibs_ext_ctl
            self.eq(where, "ic_ibs_ext_ctl = our %s" % name, val, int(r["raw"], 16))
            if f["layout"] != "fetch-pre2020":
                self.bad(where, "register 3 is %s in layout %s" % (name, f["layout"]))
            self.count["mislabel"] += 1
        else:
            self.past_raw(where, f, "ic_ibs_ext_ctl", 3, val, rec_off)

    # ---- op ----
    def op(self, where, p, f, rec_off):
        fam, model = f["family"], f["model"]
        early19 = fam == 0x19 and model < 0x10
        raw, kv = p["ibs_op_ctl"]
        ctl = f["regs"]["IbsOpCtl"]
        self.eq(where, "ibs_op_ctl raw", raw, int(ctl["raw"], 16))
        cf = ctl["fields"]
        for k, v in kv:
            if k == "MaxCnt":
                ext = cf.get("OpMaxCntExt", 0)
                self.eq(where, "MaxCnt", int(v), ((ext << 16) | cf["OpMaxCnt"]) << 4)
                if "OpMaxCntExt" not in cf:
                    self.eq(where, "OpMaxCntExt bits (no OPCNTEXT)", (raw >> 20) & 0x7f, 0)
            elif k == "CntCtl":
                if "CntCtl" in cf:
                    self.eq(where, "CntCtl", int(v.split("=")[0]), cf["CntCtl"])
                else:
                    self.field(where, f, "IbsOpCtl", "CntCtl", v)
            else:
                name = {"En": "OpEn", "Val": "OpVal", "CurCnt": "OpCurCnt"}.get(k, k)
                self.field(where, f, "IbsOpCtl", name, v)
        self.addr(where, p, f, "IbsOpRip", 1, "IbsOpRip", rec_off)
        if "ibs_op_data" in p:
            self.op_data(where, p, f, rec_off)
        if "ibs_op_data2" in p:
            self.op_data2(where, p, f, rec_off)
        elif not early19:
            self.bad(where, "perf omits ibs_op_data2")
        else:
            r = f["regs"].get("IbsOpData2")
            if r and "erratum 1293" not in r.get("invalid_reason", ""):
                self.bad(where, "perf skips ibs_op_data2, we do not mark erratum 1293")
            self.count["erratum"] += 1
        if "ibs_op_data3" in p:
            self.op_data3(where, p, f, rec_off, early19)
        self.addr(where, p, f, "IbsDCLinAd", 5, "IbsDcLinAd", rec_off)
        self.addr(where, p, f, "IbsDCPhysAd", 6, "IbsDcPhysAd", rec_off)
        self.addr(where, p, f, "IbsBrTarget", 7, "IbsBrTarget", rec_off)

    def reg_line(self, where, p, f, label, idx, reg, rec_off):
        """raw value of a register line; False if perf read it past the payload."""
        val = p[label][0]
        if idx >= f["nr_regs"] or idx >= f["expected_regs"]:
            self.past_raw(where, f, label, idx, val, rec_off)
            return False
        self.eq(where, label + " raw", val, int(f["regs"][reg]["raw"], 16))
        return True

    def op_data(self, where, p, f, rec_off):
        if not self.reg_line(where, p, f, "ibs_op_data", 2, "IbsOpData", rec_off):
            return
        names = set()
        for k, v in p["ibs_op_data"][1]:
            name = {"BrnRet": "OpBrnRet", "BrnFuse": "OpBrnFuse",
                    "Microcode": "OpMicrocode"}.get(k, k)
            names.add(name)
            self.field(where, f, "IbsOpData", name, v)
        if "OpReturn" not in names:
            for n in ("OpReturn", "OpBrnTaken", "OpBrnMisp"):
                self.omitted(where, f, "IbsOpData", n, "OpBrnRet=0")

    def op_data2(self, where, p, f, rec_off):
        if not self.reg_line(where, p, f, "ibs_op_data2", 3, "IbsOpData2", rec_off):
            return
        names = set()
        for k, v in p["ibs_op_data2"][1]:
            names.add(k)
            if k == "DataSrc":
                self.eq(where, "DataSrc", int(v.split("=")[0]), f["derived"].get("data_source"))
            else:
                self.field(where, f, "IbsOpData2", k, v.split("=")[0])
        if "CacheHitSt" not in names:
            self.omitted(where, f, "IbsOpData2", "CacheHitSt", "data source is not a cache")

    def op_data3(self, where, p, f, rec_off, early19):
        if not self.reg_line(where, p, f, "ibs_op_data3", 4, "IbsOpData3", rec_off):
            return
        names = set()
        for k, v in p["ibs_op_data3"][1]:
            names.add(k)
            if k == "OpMemWidth":
                w = f["regs"]["IbsOpData3"]["fields"].get("OpMemWidth", 0)
                self.eq(where, "OpMemWidth bytes", int(v), 1 << (w - 1) if w else None)
            else:
                alias = "DcMabHit" if k == "DcMissNoMabAlloc" else None
                self.field(where, f, "IbsOpData3", k, v, alias=alias)
        for n in ("L2Miss", "OpDcMissOpenMemReqs"):
            if n not in names:
                self.omitted(where, f, "IbsOpData3", n, "erratum 1293" if early19 else "?")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    perf = parse_perf(open(sys.argv[1], errors="replace").read())
    ours = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
    data = open(sys.argv[3], "rb").read()
    by_time = {t: (off, lines) for (t, off), lines in perf.items()}
    by_off = {off: (off, lines) for (t, off), lines in perf.items()}
    c = Cmp(data)
    for o in ours:
        f = o["fields"]
        if f.get("pmu") not in ("ibs_fetch", "ibs_op"):
            continue
        key = o.get("time_ns")
        rec_off, p = by_time.get(key) if key is not None and key in by_time else \
            by_off.get(o.get("offset"), (None, None))
        where = "%s t=%s" % (f["pmu"], key if key is not None else o.get("offset"))
        if p is None:
            c.bad(where, "sample not found in perf's dump")
            continue
        c.n_samples += 1
        if not p:
            # perf skips samples without En && Val
            if f.get("valid", True):
                c.bad(where, "perf printed no IBS lines, but the sample is valid for us")
            else:
                c.count["skipped"] += 1
            continue
        if not f.get("valid", False):
            c.bad(where, "perf decoded a sample we call not valid")
        if f["pmu"] == "ibs_fetch":
            c.fetch(where, p, f, rec_off)
        else:
            c.op(where, p, f, rec_off)
    if c.n_samples != len(perf):
        c.bad("file", "perf shows %d samples, we matched %d" % (len(perf), c.n_samples))
    print("ibs-compare: %d samples, %d values, %s, %d unexplained" %
          (c.n_samples, c.n_values, " ".join("%s=%d" % kv for kv in c.count.items()),
           len(c.errors)))
    for e in c.errors[:40]:
        print("  " + e)
    return 1 if c.errors or not c.n_samples else 0


if __name__ == "__main__":
    sys.exit(main())
