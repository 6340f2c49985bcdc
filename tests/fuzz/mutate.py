#!/usr/bin/env python3
# mutate.py SEED_DIR OUT_DIR N [SEED]: N mutants of the perf.data files in
# SEED_DIR (deterministic for a SEED): byte flips, interesting values over
# aligned words, a record's header.size or a sample's raw_size changed,
# truncation, a chunk duplicated. Mutations land in the data section mostly
# (found from the file header when it is PERFILE2), in the header sometimes.
import os, random, struct, sys

INTERESTING = [0, 1, 4, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
               0x10000, 0x7fffffff, 0x80000000, 0xffffffff, (1 << 63), (1 << 64) - 1]


def data_range(b):
    if len(b) >= 56 and b[:8] == b'PERFILE2':
        off, size = struct.unpack_from('<QQ', b, 40)
        if 0 < off < len(b):
            return off, min(len(b), off + size)
    return (16 if len(b) > 16 else 0), len(b)


def records(b, lo, hi):
    out, off = [], lo
    while off + 8 <= min(hi, len(b)) and len(out) < 100000:
        typ, misc, size = struct.unpack_from('<IHH', b, off)
        if size < 8:
            break
        out.append((off, typ, size))
        off += size
    return out


def mutate(b, r):
    if len(b) < 16:
        return b
    lo, hi = data_range(b)
    if r.random() < 0.1:
        lo, hi = 0, min(len(b), lo + 64)
    if hi - lo < 16:
        lo, hi = 0, len(b)
    kind = r.randrange(7)
    recs = records(b, lo, hi) if kind in (3, 4) else []
    if kind == 0:  # flips
        for _ in range(r.randint(1, 8)):
            i = r.randrange(lo, hi)
            b[i] ^= 1 << r.randrange(8)
    elif kind == 1:  # interesting value over an aligned word
        w = r.choice((2, 4, 8))
        i = r.randrange(lo, max(lo + 1, hi - w)) & ~(w - 1)
        if i + w <= len(b):
            v = r.choice(INTERESTING) & ((1 << (8 * w)) - 1)
            b[i:i + w] = v.to_bytes(w, 'little')
    elif kind == 2:  # truncate
        del b[r.randrange(lo, hi):]
    elif kind == 3 and recs:  # a record's header.size
        off, typ, size = r.choice(recs)
        struct.pack_into('<H', b, off + 6,
                         r.choice((0, 4, 8, 16, max(8, size - 8), min(size + 8, 0xffff), 0xffff)))
    elif kind == 4 and recs:  # a sample's raw_size (a u32 after the fixed words)
        samples = [x for x in recs if x[1] == 9 and x[2] > 24]
        if samples:
            off, typ, size = r.choice(samples)
            at = off + 8 + 8 * r.randrange(0, min(8, (size - 12) // 8))
            if at + 4 <= len(b):
                struct.pack_into('<I', b, at, r.choice(INTERESTING) & 0xffffffff)
    elif kind == 5:  # duplicate a chunk
        i = r.randrange(lo, hi)
        n = r.randint(1, 256)
        b[i:i] = b[i:i + n]
    else:  # random bytes
        i = r.randrange(lo, hi)
        n = r.randint(1, 16)
        b[i:i + n] = bytes(r.randrange(256) for _ in range(n))
    return b


def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    r = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 16)
    seeds = sorted(os.path.join(src, f) for f in os.listdir(src)
                   if os.path.isfile(os.path.join(src, f)))
    bufs = [(os.path.basename(p), open(p, 'rb').read()) for p in seeds]
    bufs = [x for x in bufs if len(x[1]) >= 16]
    os.makedirs(dst, exist_ok=True)
    for k in range(n):
        name, data = bufs[k % len(bufs)]
        b = bytearray(data)
        for _ in range(r.randint(1, 3)):
            b = mutate(b, r)
        with open(os.path.join(dst, '%04d-%s' % (k, name)), 'wb') as f:
            f.write(b)


main()
