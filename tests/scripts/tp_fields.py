# SPDX-License-Identifier: GPL-2.0
# perf script -s tp_fields.py: write what perf's Python scripting hands to a
# handler for every tracepoint sample, one JSON object per line, to
# $TP_FIELDS_OUT (default: stdout). The oracle for perf-rawfrag's JSON fields.
#
#   {"event": "sys:name", "cpu": N, "time": ns, "pid": common_pid,
#    "tid": sample tid, "comm": ..., "common_flags": .., "common_preempt_count": ..,
#    "raw": "<raw_buf hex>", "fields": {name: value}}
#
# Values keep perf's types: str stays str, int stays int (JSON keeps 64 bits
# exact), bytearray becomes {"bytes": "<hex>"}.
import json
import os
import sys

from perf_trace_context import common_flags, common_pc

_COMMON = ("common_cpu", "common_s", "common_ns", "common_pid", "common_comm",
           "common_callchain")
_out = None


def trace_begin():
    global _out
    path = os.environ.get("TP_FIELDS_OUT")
    _out = open(path, "w") if path else sys.stdout


def trace_end():
    if _out is not sys.stdout:
        _out.close()


def _val(v):
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    return v


def trace_unhandled(event_name, context, fields, sample):
    sysname, _, name = event_name.partition("__")
    s = sample["sample"]
    rec = {
        "event": sysname + ":" + name,
        "cpu": fields["common_cpu"],
        "time": fields["common_s"] * 1000000000 + fields["common_ns"],
        "pid": fields["common_pid"],
        "tid": s["tid"],
        "comm": fields["common_comm"],
        "common_flags": common_flags(context),
        "common_preempt_count": common_pc(context),
        "raw": bytes(sample.get("raw_buf", b"")).hex(),
        "fields": {k: _val(v) for k, v in fields.items() if k not in _COMMON},
    }
    _out.write(json.dumps(rec, sort_keys=True) + "\n")
