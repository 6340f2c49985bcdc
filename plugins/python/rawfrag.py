# SPDX-License-Identifier: GPL-2.0
# perf script Python hook: decode and check every PERF_SAMPLE_RAW payload with the
# rawfrag module while perf script runs.
#
#   perf script -i perf.data -s rawfrag.py [-- [--violations] [--strict] [--file PATH]]
#
# perf script takes the options before "--" as its own; the hook's come after it.
# Prints one JSON object per sample with a raw buffer: perf's view (event, pid, tid,
# cpu, time_ns; ip, sym, symoff, dso and callchain as perf resolved them, in the
# shape of report --format json) plus rawfrag's (producer, errors, violations,
# decoded fields).
# --violations prints only samples that break a raw-layout rule; --strict makes
# non-zero pad bytes errors; --file names the recording the formats come from
# (default: perf script's -i, else perf.data; needed when perf reads a pipe).
# Exit status: 0 clean, 1 violations found, 2 unusable input (as perf rawfrag check).
import argparse
import json
import os
import sys


def _import_rawfrag():
    # perf puts this script's directory first on sys.path. Installed, the extension
    # module sits beside this file and is found first; in the source tree this file
    # would be found instead, so that directory is left out.
    import importlib.machinery
    here = os.path.dirname(os.path.abspath(__file__))
    if not any(os.path.exists(os.path.join(here, "rawfrag" + suf))
               for suf in importlib.machinery.EXTENSION_SUFFIXES):
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import rawfrag as mod
    except ImportError as e:
        sys.stderr.write("rawfrag.py: cannot import the rawfrag module (%s); run "
                         "'make install', or set PYTHONPATH to the build's python "
                         "directory (build/out/python)\n" % e)
        sys.exit(2)
    return mod


rawfrag = _import_rawfrag()

_ap = argparse.ArgumentParser(prog="perf script -s rawfrag.py --",
                              description="decode and check raw payloads in perf script")
_ap.add_argument("--violations", action="store_true",
                 help="print only samples that break a raw-layout rule")
_ap.add_argument("--strict", action="store_true", help="non-zero pad bytes are errors")
_ap.add_argument("--file", help="the recording the formats come from")
_opts = _ap.parse_args(sys.argv[1:])

_dec = None
_count = _samples = _errors = _warnings = 0


def _fail(msg):
    sys.stdout.flush()
    sys.stderr.write("rawfrag.py: %s\n" % msg)
    sys.exit(2)


def trace_begin():
    global _dec
    try:
        _dec = rawfrag.Decoder(_opts.file, strict=_opts.strict)
    except (rawfrag.Error, OSError) as e:
        _fail("%s%s" % (e, "" if _opts.file else
                        " (the hook: perf script -s rawfrag.py -- --file PATH)"))


def _hex(v):
    return "0x%x" % v


def _frame(node):
    # perf's node: {'ip': address, 'sym': {'name', 'start', ...}, 'sym_off', 'dso'}.
    # report's frame ip is what perf script prints: the offset in the DSO for user
    # frames, the address for kernel ones; perf's symbol start is in that space,
    # so start + offset is it. A frame without a symbol keeps the address.
    sym = node.get("sym")
    off = node.get("sym_off") if sym else None
    ip = sym["start"] + off if sym and off is not None else node["ip"]
    return {"ip": _hex(ip), "sym": sym["name"] if sym else None, "symoff": off,
            "dso": node.get("dso")}


def _frames(p, out):
    s = p["sample"]
    if "ip" in s:
        out["ip"] = _hex(s["ip"])
        out["sym"] = p.get("symbol")
        out["symoff"] = p.get("symoff") if out["sym"] is not None else None
        out["dso"] = p.get("dso")
    if p.get("callchain"):
        out["callchain"] = [_frame(n) for n in p["callchain"]]


def _handle(name, s, raw, p):
    global _count, _samples, _errors, _warnings
    try:
        fields, viol = _dec.decode_check(name, raw, s)
    except rawfrag.Error as e:
        _fail(str(e))
    _samples += 1
    errors = sum(1 for v in viol if v["severity"] == "error")
    _errors += errors
    _warnings += len(viol) - errors
    if _opts.violations and not errors and not (_opts.strict and viol):
        return
    _count += 1
    out = {"event": name, "pid": s.get("pid"), "tid": s.get("tid"), "cpu": s.get("cpu"),
           "time_ns": s.get("time"), "producer": _dec.producer(name), "errors": errors,
           "violations": viol, "fields": fields}
    _frames(p, out)
    print(json.dumps(out))


def process_event(param_dict):
    raw = param_dict.get("raw_buf")
    if raw:
        _handle(param_dict["ev_name"], param_dict["sample"], raw, param_dict)


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):
    raw = perf_sample_dict.get("raw_buf")
    if raw:
        _handle(perf_sample_dict["ev_name"], perf_sample_dict["sample"], raw, perf_sample_dict)


def trace_end():
    sys.stdout.flush()
    sys.stderr.write("rawfrag.py: %d samples checked, %d printed, %d raw-layout errors, "
                     "%d warnings\n" % (_samples, _count, _errors, _warnings))
    if _errors:
        sys.exit(1)
