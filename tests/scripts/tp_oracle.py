#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf's Python values of every tracepoint sample of a perf.data file:
`perf script -s tp_fields.py` writing OUT (see tp_fields.py).

perf 6.1's Python scripting hands each sample's comm to Python as UTF-8
without checking the result: a comm that is not valid UTF-8 (bytes a program
chose, or a name cut at 15 bytes inside a multibyte character) makes it crash
(SIGSEGV), and a system-wide recording holds every process's comm. When perf
crashes twice, the threads whose comm is not UTF-8 are found with
`perf script -F comm,tid`, and perf runs again with --tid of all the others.

usage: tp_oracle.py PERF FILE OUT
Exit 0 when OUT holds perf's values; then stdout is empty, or (threads left
out) two lines: "--skip-tids=T1,T2" for tp_cmp_fields.py, and the threads as
"tid:samples:comm" (samples with that comm; comm as a Python bytes literal).
Exit 1 with the reason on stderr otherwise.
"""
import os
import subprocess
import sys

FIELDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tp_fields.py")


def run(perf, path, out, extra):
    env = dict(os.environ, TP_FIELDS_OUT=out)
    rc = 0
    for _ in range(2):  # a second try, for a crash perf does not repeat
        rc = subprocess.run([perf, "script", "-i", path] + extra + ["-s", FIELDS], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc == 0:
            return 0
    return rc


def comm_tids(perf, path):
    """{tid: samples} with UTF-8 comms only, {tid: (samples, comm)} otherwise"""
    text = subprocess.run([perf, "script", "-i", path, "-F", "comm,tid"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    good, bad = {}, {}
    for line in text.split(b"\n"):
        # "%16s %5d": the comm may hold spaces, the tid is the last word
        comm, _, tid = line.strip().rpartition(b" ")
        if not tid.lstrip(b"-").isdigit():
            continue
        tid = int(tid)  # -1 for a sample perf found no thread for
        try:
            comm.strip().decode("utf-8")
            good[tid] = good.get(tid, 0) + 1
        except UnicodeDecodeError:
            n, _ = bad.get(tid, (0, comm))
            bad[tid] = (n + 1, comm.strip())
    return {t: n for t, n in good.items() if t not in bad}, bad


def main():
    perf, path, out = sys.argv[1:4]
    rc = run(perf, path, out, [])
    if rc == 0:
        return 0
    good, bad = comm_tids(perf, path)
    if not bad or not good:
        sys.stderr.write("perf script -s exits %d on %s, every comm is UTF-8\n" % (rc, path)
                         if not bad else "no thread of %s has a UTF-8 comm\n" % path)
        return 1
    rc = run(perf, path, out, ["--tid=" + ",".join(str(t) for t in sorted(good))])
    if rc:
        sys.stderr.write("perf script -s exits %d on %s without the threads %s too\n" %
                         (rc, path, sorted(bad)))
        return 1
    print("--skip-tids=" + ",".join(str(t) for t in sorted(bad)))
    print(" ".join("%d:%d:%r" % (t, n, c) for t, (n, c) in sorted(bad.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
