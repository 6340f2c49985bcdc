# SPDX-License-Identifier: GPL-2.0
# perf script Python hook: decode and check every PERF_SAMPLE_RAW payload with
# librawfrag (through the plugin object, via ctypes) while perf script runs.
#
#   perf script -i perf.data -s plugins/python/rawfrag.py [--violations] [--strict]
#
# Prints one JSON object per sample: perf's view (event, pid, tid, cpu, time) plus
# rawfrag's (producer, errors, violations, decoded fields). --violations prints only
# samples that break a raw-layout rule. The plugin object is found next to this
# script's build (build/out/plugins/rawfrag-dlfilter.so) or at $RAWFRAG_PLUGIN.
# Exit status: 0, or 1 when violations were found (like perf rawfrag check).
import ctypes
import json
import os
import sys

_here = os.path.dirname(os.path.abspath(sys.argv[0] if sys.argv and sys.argv[0] else "."))
_so = os.environ.get("RAWFRAG_PLUGIN") or os.path.join(
    _here, "..", "..", "build", "out", "plugins", "rawfrag-dlfilter.so")
_args = sys.argv[1:]
only_violations = "--violations" in _args
strict = "--strict" in _args

lib = ctypes.CDLL(_so)
lib.rawfrag_py_open.restype = ctypes.c_void_p
lib.rawfrag_py_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
lib.rawfrag_py_close.argtypes = [ctypes.c_void_p]
lib.rawfrag_py_sample.restype = ctypes.c_int
lib.rawfrag_py_sample.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32,
                                  ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                  ctypes.c_char_p, ctypes.c_uint32, ctypes.c_char_p,
                                  ctypes.c_uint32]
lib.rawfrag_py_summary.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                   ctypes.POINTER(ctypes.c_uint64)]

_h = None
_buf = ctypes.create_string_buffer(1 << 20)
_count = 0


def trace_begin():
    global _h
    _h = lib.rawfrag_py_open(os.environ.get("RAWFRAG_INPUT", "").encode(), 1 if strict else 0)
    if not _h:
        sys.stderr.write("rawfrag.py: cannot open the perf.data file (see message above)\n")
        sys.exit(2)


def _handle(name, s, raw):
    global _count
    n = lib.rawfrag_py_sample(_h, name.encode(), s.get("pid", 0), s.get("tid", 0),
                              s.get("cpu", 0), s.get("time", 0), bytes(raw), len(raw),
                              _buf, len(_buf))
    if n < 0:
        return
    res = json.loads(_buf.value.decode("utf-8", "replace"))
    if only_violations and not res["violations"]:
        return
    _count += 1
    out = {"event": name, "pid": s.get("pid"), "tid": s.get("tid"), "cpu": s.get("cpu"),
           "time_ns": s.get("time")}
    out.update(res)
    print(json.dumps(out))


def process_event(param_dict):
    raw = param_dict.get("raw_buf")
    if raw:
        _handle(param_dict["ev_name"], param_dict["sample"], raw)


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):
    raw = perf_sample_dict.get("raw_buf")
    if raw:
        _handle(perf_sample_dict["ev_name"], perf_sample_dict["sample"], raw)


def trace_end():
    e = ctypes.c_uint64()
    w = ctypes.c_uint64()
    lib.rawfrag_py_summary(_h, ctypes.byref(e), ctypes.byref(w))
    sys.stderr.write("rawfrag.py: %d samples printed, %d raw-layout errors, %d warnings\n"
                     % (_count, e.value, w.value))
    lib.rawfrag_py_close(_h)
    if e.value:
        sys.exit(1)
