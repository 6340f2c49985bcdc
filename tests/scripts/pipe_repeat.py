#!/usr/bin/env python3
"""pipe_repeat.py IN OUT K: a pipe-mode perf.data (little-endian) whose data
records (the first kernel record to the end) are written K times after its
header records, so that OUT holds K times IN's samples, stacks and all."""
import struct
import sys


def main():
    src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    b = open(src, "rb").read()
    off, first = 16, None
    while off + 8 <= len(b):
        typ, _misc, size = struct.unpack_from("<IHH", b, off)
        if typ < 64 and first is None:
            first = off
        if typ == 66:  # TRACING_DATA: its payload follows the record
            size += struct.unpack_from("<I", b, off + 8)[0]
        if size < 8:
            sys.exit("pipe_repeat: %s: a record of size %d at offset %d" % (src, size, off))
        off += size
    if first is None:
        sys.exit("pipe_repeat: %s: no kernel record" % src)
    with open(dst, "wb") as f:
        f.write(b[:first])
        for _ in range(k):
            f.write(b[first:off])


if __name__ == "__main__":
    main()
