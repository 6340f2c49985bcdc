#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile variants of a compat-gen fixture: its historic records made short
and oversized, one change per file.

usage: compat_mutate.py IN OUTDIR     (writes OUTDIR/<name>.data, prints the names)

Pipe streams: the first record of each type whose layout changed over perf's
history (HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA, HEADER_BUILD_ID
with and without the size byte, MMAP, MMAP2, LOST, LOST_SAMPLES) gets
header.size 8, 12, size - 4, size + 8 and 0xfff8, the attr.size and
tracing-data size fields 0, 32, +8 and 0xffffffff, and the stream cut inside
it. Files: the header size, attr_size, attr.size of the first attr, the
event_types section, the first data record of each of those types and the
first BUILD_ID feature entry of each kind (with, without the size byte, without
the pid), the same way.
"""
import os
import struct
import sys

HIST = {64, 65, 66, 67, 1, 10, 2, 13}


def put(b, off, fmt, v):
    b = bytearray(b)
    if 0 <= off and off + struct.calcsize(fmt) <= len(b):
        struct.pack_into(fmt, b, off, v)
    return bytes(b)


def record_variants(d, off, out, tag):
    typ, misc, size = struct.unpack_from("<IHH", d, off)
    for s in (8, 12, size - 4, size + 8, 0xfff8):
        if 0 < s <= 0xffff and s != size:
            out.append(("%s-t%d-hsize%d" % (tag, typ, s), put(d, off + 6, "<H", s)))
    # the first u32 after the header: attr.type / tracing-data size / pid
    for v in (0, 32, 0xffffffff):
        out.append(("%s-t%d-f8-%x" % (tag, typ, v), put(d, off + 8, "<I", v)))
    if typ == 64:  # attr.size
        for v in (0, 32, size + 8, 0xffff):
            out.append(("%s-attrsize-%x" % (tag, v), put(d, off + 12, "<I", v)))
    out.append(("%s-t%d-cut" % (tag, typ), d[:off + max(4, size // 2)]))


def kind(typ, misc):
    # build-id records with the size byte (misc bit 15) are a layout of their own
    return (typ, misc & 0x8000 if typ == 67 else 0)


def walk_records(d, off, end, out, tag):
    seen = set()
    while off + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", d, off)
        if size < 8:
            break
        if typ in HIST and kind(typ, misc) not in seen:
            seen.add(kind(typ, misc))
            record_variants(d, off, out, tag + ("b" if misc & 0x8000 and typ == 67 else ""))
        nxt = off + size
        if typ == 66:
            nxt += struct.unpack_from("<I", d, off + 8)[0]
        off = nxt


def pipe_variants(d):
    out = []
    walk_records(d, 16, len(d), out, "pipe")
    out.append(("pipe-hdrsize", put(d, 8, "<Q", 1234)))
    return out


def file_variants(d):
    out = []
    hsize, attr_size, a_off, a_size, d_off, d_size, e_off, e_size = struct.unpack_from("<8Q", d, 8)
    for v in (16, 72, 104, 200, 0x4800000000000000):
        if v != hsize:
            out.append(("file-hsize-%x" % v, put(d, 8, "<Q", v)))
    for v in (0, 16, 64, attr_size + 8, 1 << 40):
        out.append(("file-attr_size-%x" % v, put(d, 16, "<Q", v)))
    for v in (0, 32, attr_size, 0xffff, 0xffffffff):
        out.append(("file-attr0size-%x" % v, put(d, a_off + 4, "<I", v)))
    for v in (e_size + 8, 1 << 40):
        out.append(("file-evtypes-%x" % v, put(d, 56, "<Q", v)))
    walk_records(d, d_off, min(d_off + d_size, len(d)), out, "file-data")
    # and the first data record whatever its type: the data section's start
    if d_off + 8 <= len(d) and struct.unpack_from("<I", d, d_off)[0] not in HIST:
        record_variants(d, d_off, out, "file-first")
    # BUILD_ID feature entries (bit 2): the section is listed after the feature table
    if hsize == 104:
        feats = struct.unpack_from("<Q", d, 72)[0]
        table = d_off + d_size
        idx = sum(1 for b in range(1, 2) if feats >> b & 1)
        if feats >> 2 & 1 and table + 16 * (idx + 1) <= len(d):
            sec, sec_size = struct.unpack_from("<QQ", d, table + 16 * idx)
            walk_records(d, sec, min(sec + sec_size, len(d)), out, "file-buildid")
    return out


def main():
    d = open(sys.argv[1], "rb").read()
    os.makedirs(sys.argv[2], exist_ok=True)
    pipe = struct.unpack_from("<Q", d, 8)[0] == 16
    for name, data in (pipe_variants(d) if pipe else file_variants(d)):
        open(os.path.join(sys.argv[2], name + ".data"), "wb").write(data)
        print(name)


if __name__ == "__main__":
    main()
