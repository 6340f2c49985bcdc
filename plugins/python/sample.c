// SPDX-License-Identifier: GPL-2.0
/* rawfrag.Sample: one sample's values as Python objects (read-only attributes). */
#include "pyrawfrag.h"

#include <structmember.h>

#define M(name, doc) { #name, T_OBJECT, offsetof(rfpy_sample, name), READONLY, doc }

static PyMemberDef sample_members[] = {
	M(event, "str: the event name (perf script's ev_name), e.g. 'sched:sched_switch'"),
	M(producer, "str or None: the decoder of the raw payload (tracepoint, bpf_skb, ...)"),
	M(time_ns, "int or None: sample time in ns (None without PERF_SAMPLE_TIME)"),
	M(cpu, "int or None: CPU (None without PERF_SAMPLE_CPU)"),
	M(pid, "int or None: process id (None without PERF_SAMPLE_TID)"),
	M(tid, "int or None: thread id"),
	M(comm, "str or None: task name as perf script shows it"),
	M(period, "int or None: PERF_SAMPLE_PERIOD"),
	M(ip, "int or None: PERF_SAMPLE_IP"),
	M(sym, "None for now: symbols come with the call-chain work"),
	M(dso, "None for now: DSOs come with the call-chain work"),
	M(callchain, "None for now: frames come with the call-chain work"),
	M(raw, "bytes or None: the PERF_SAMPLE_RAW area (raw_size bytes, payload + pad)"),
	M(raw_size, "int or None: the u32 the kernel wrote before the raw area"),
	M(raw_len, "int or None: the producer's true payload length (None: not known)"),
	M(pad, "int or None: raw_size - raw_len"),
	M(pad_zero, "bool or None: whether the pad bytes are all zero"),
	M(fields, "dict: the decoded fields, the values of report --format json 'fields'"),
	M(violations, "list of dict (kind, severity, message, raw_off): raw-layout findings"),
	M(offset, "int: file offset of the record (of its COMPRESSED record if inside one)"),
	{ NULL },
};

static void sample_dealloc(rfpy_sample *s)
{
	PyObject **o = &s->event;

	for (; o <= &s->offset; o++)
		Py_XDECREF(*o);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *or_none(PyObject *o)
{
	return o ? o : Py_None;
}

/* the members report --format json writes, in its order */
static PyObject *sample_to_dict(rfpy_sample *s, PyObject *unused)
{
	PyObject *raw;

	if (s->raw)
		raw = Py_BuildValue("{s:O,s:O,s:O,s:O}", "size", or_none(s->raw_size), "len",
				    or_none(s->raw_len), "pad", or_none(s->pad), "pad_zero",
				    or_none(s->pad_zero));
	else
		raw = Py_NewRef(Py_None);
	if (!raw)
		return NULL;
	return Py_BuildValue("{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:N,s:O}", "event", or_none(s->event),
			     "producer", or_none(s->producer), "time_ns", or_none(s->time_ns),
			     "cpu", or_none(s->cpu), "pid", or_none(s->pid), "tid",
			     or_none(s->tid), "comm", or_none(s->comm), "raw", raw, "fields",
			     or_none(s->fields));
}

static PyObject *sample_repr(rfpy_sample *s)
{
	return PyUnicode_FromFormat("<rawfrag.Sample %R time_ns=%R cpu=%R pid=%R tid=%R>",
				    or_none(s->event), or_none(s->time_ns), or_none(s->cpu),
				    or_none(s->pid), or_none(s->tid));
}

static PyMethodDef sample_methods[] = {
	{ "to_dict", (PyCFunction)sample_to_dict, METH_NOARGS,
	  "to_dict() -> dict: the object report --format json prints for this sample\n"
	  "(event, producer, time_ns, cpu, pid, tid, comm, raw, fields)." },
	{ NULL },
};

PyTypeObject rfpy_sample_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rawfrag.Sample",
	.tp_basicsize = sizeof(rfpy_sample),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One sample of a perf.data file, as rawfrag.open() yields it.\n\n"
		  "Attributes are None where the sample does not carry the value.\n"
		  "sym, dso and callchain are None until call-chain support lands.",
	.tp_dealloc = (destructor)sample_dealloc,
	.tp_repr = (reprfunc)sample_repr,
	.tp_members = sample_members,
	.tp_methods = sample_methods,
};
