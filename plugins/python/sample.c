// SPDX-License-Identifier: GPL-2.0
/* rawfrag.Sample: one sample's values as Python objects (read-only attributes). */
#include "pyrawfrag.h"

#include <structmember.h>

#define M(name, doc) { #name, T_OBJECT, offsetof(rfpy_sample, name), READONLY, doc }

static PyMemberDef sample_members[] = {
	M(event, "str: the event name (perf script's ev_name), e.g. 'sched:sched_switch'"),
	M(producer, "str or None: the decoder of the raw payload (tracepoint, bpf_skb, ...)"),
	M(raw, "bytes or None: the PERF_SAMPLE_RAW area (raw_size bytes, payload + pad)"),
	M(fields, "dict: the decoded fields, the values of report --format json 'fields'"),
	M(violations, "tuple of dict (kind, severity, message, raw_off): raw-layout findings"),
	{ NULL },
};

static void sample_dealloc(rfpy_sample *s)
{
	Py_XDECREF(s->event);
	Py_XDECREF(s->producer);
	Py_XDECREF(s->raw);
	Py_XDECREF(s->fields);
	Py_XDECREF(s->violations);
	Py_XDECREF(s->sym);
	Py_XDECREF(s->dso);
	Py_XDECREF(s->callchain);
	Py_XDECREF(s->regs);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

/*
 * A name as report's JSON has it: UTF-8 where it is, other bytes taken as
 * Latin-1 (the emitter's rule), so the slow case goes through the emitter.
 */
PyObject *rfpy_json_str(const char *s, size_t len)
{
	PyObject *str = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, NULL);
	struct rawfrag_out *o;
	const char *text;
	size_t tlen;

	if (str || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
		return str;
	PyErr_Clear();
	o = rawfrag_out__new(-1);
	if (!o)
		return PyErr_NoMemory();
	rawfrag_out__json_str(o, s, len);
	text = rawfrag_out__mem(o, &tlen);
	str = rawfrag_out__error(o) ? PyErr_NoMemory() : rfpy_from_json(text, tlen, NULL);
	rawfrag_out__delete(o);
	return str;
}

static PyObject *comm_str(rfpy_sample *s)
{
	return rfpy_json_str(s->comm, s->comm_len);
}

enum which { W_TIME, W_CPU, W_PID, W_TID, W_COMM, W_PERIOD, W_IP, W_SYM, W_SYMOFF, W_DSO,
	     W_ADDR, W_CHAIN, W_REGS, W_RAW_SIZE, W_RAW_LEN, W_PAD, W_PAD_ZERO, W_OFFSET };

static PyObject *sample_get(rfpy_sample *s, void *closure)
{
	bool raw = s->raw != NULL, known = raw && (s->flags & RFPY_LEN_KNOWN);

	switch ((enum which)(intptr_t)closure) {
	case W_TIME:
		if (s->flags & RFPY_HAS_TIME)
			return PyLong_FromUnsignedLongLong(s->time);
		break;
	case W_CPU:
		if (s->flags & RFPY_HAS_CPU)
			return PyLong_FromUnsignedLong(s->cpu);
		break;
	case W_PID:
		if (s->flags & RFPY_HAS_TID)
			return PyLong_FromLong((int32_t)s->pid);
		break;
	case W_TID:
		if (s->flags & RFPY_HAS_TID)
			return PyLong_FromLong((int32_t)s->tid);
		break;
	case W_COMM:
		if (s->flags & RFPY_HAS_TID)
			return comm_str(s);
		break;
	case W_PERIOD:
		if (s->flags & RFPY_HAS_PERIOD)
			return PyLong_FromUnsignedLongLong(s->period);
		break;
	case W_IP:
		if (s->flags & RFPY_HAS_IP)
			return PyLong_FromUnsignedLongLong(s->ip);
		break;
	case W_SYM:
		if (s->sym)
			return Py_NewRef(s->sym);
		break;
	case W_SYMOFF:
		if (s->sym && s->sym != Py_None)
			return PyLong_FromUnsignedLongLong(s->symoff);
		break;
	case W_DSO:
		if (s->dso)
			return Py_NewRef(s->dso);
		break;
	case W_ADDR:
		if (s->flags & RFPY_HAS_ADDR)
			return PyLong_FromUnsignedLongLong(s->addr);
		break;
	case W_CHAIN:
		if (s->callchain)
			return Py_NewRef(s->callchain);
		break;
	case W_REGS:
		if (s->regs)
			return Py_NewRef(s->regs);
		break;
	case W_RAW_SIZE:
		if (raw)
			return PyLong_FromUnsignedLong(s->raw_size);
		break;
	case W_RAW_LEN:
		if (known)
			return PyLong_FromUnsignedLong(s->raw_len);
		break;
	case W_PAD:
		if (known)
			return PyLong_FromUnsignedLong(s->raw_size - s->raw_len);
		break;
	case W_PAD_ZERO:
		if (known)
			return PyBool_FromLong(s->flags & RFPY_PAD_ZERO);
		break;
	case W_OFFSET:
		return PyLong_FromUnsignedLongLong(s->offset);
	default:
		break;
	}
	Py_RETURN_NONE;
}

#define G(name, w, doc) { #name, (getter)sample_get, NULL, doc, (void *)(intptr_t)(w) }

static PyGetSetDef sample_getset[] = {
	G(time_ns, W_TIME, "int or None: sample time in ns (None without PERF_SAMPLE_TIME)"),
	G(cpu, W_CPU, "int or None: CPU (None without PERF_SAMPLE_CPU)"),
	G(pid, W_PID, "int or None: process id (None without PERF_SAMPLE_TID)"),
	G(tid, W_TID, "int or None: thread id"),
	G(comm, W_COMM, "str or None: task name as perf script shows it"),
	G(period, W_PERIOD, "int or None: PERF_SAMPLE_PERIOD"),
	G(ip, W_IP, "int or None: PERF_SAMPLE_IP"),
	G(sym, W_SYM, "str or None: the symbol of ip, as report's \"sym\" (None: [unknown])"),
	G(symoff, W_SYMOFF, "int or None: ip's offset in sym"),
	G(dso, W_DSO, "str or None: the DSO of ip as perf names it (None: no map)"),
	G(addr, W_ADDR, "int or None: PERF_SAMPLE_ADDR"),
	G(callchain, W_CHAIN, "list of dict or None: the call chain, callee first, as report's\n"
			      "\"callchain\": {'ip', 'sym', 'symoff', 'dso'[, 'inlined']}, ip an int\n"
			      "(the offset in the DSO for user frames, as perf script prints it)"),
	G(regs, W_REGS, "dict or None: {'user': {'abi': n, 'ax': v, ...}, 'intr': {...}},\n"
			"registers by perf's names for the file's arch"),
	G(raw_size, W_RAW_SIZE, "int or None: the u32 the kernel wrote before the raw area"),
	G(raw_len, W_RAW_LEN, "int or None: the producer's true payload length (None: not known)"),
	G(pad, W_PAD, "int or None: raw_size - raw_len"),
	G(pad_zero, W_PAD_ZERO, "bool or None: whether the pad bytes are all zero"),
	G(offset, W_OFFSET, "int: file offset of the record (of its COMPRESSED record if inside one)"),
	{ NULL },
};

static PyObject *or_none(PyObject *o)
{
	return o ? o : Py_None;
}

static PyObject *get(rfpy_sample *s, enum which w)
{
	return sample_get(s, (void *)(intptr_t)w);
}

/* the members report --format json writes, in its order */
static PyObject *sample_to_dict(rfpy_sample *s, PyObject *unused)
{
	PyObject *raw, *d;

	if (s->raw)
		raw = Py_BuildValue("{s:N,s:N,s:N,s:N}", "size", get(s, W_RAW_SIZE), "len",
				    get(s, W_RAW_LEN), "pad", get(s, W_PAD), "pad_zero",
				    get(s, W_PAD_ZERO));
	else
		raw = Py_NewRef(Py_None);
	if (!raw)
		return NULL;
	d = Py_BuildValue("{s:O,s:O,s:N,s:N,s:N,s:N,s:N,s:N,s:O}", "event", or_none(s->event),
			  "producer", or_none(s->producer), "time_ns", get(s, W_TIME), "cpu",
			  get(s, W_CPU), "pid", get(s, W_PID), "tid", get(s, W_TID), "comm",
			  get(s, W_COMM), "raw", raw, "fields", or_none(s->fields));
	if (d && rfpy_sym_json(s, d))
		Py_CLEAR(d);
	return d;
}

static PyObject *sample_repr(rfpy_sample *s)
{
	PyObject *t = get(s, W_TIME), *r;

	r = t ? PyUnicode_FromFormat("<rawfrag.Sample %R time_ns=%R cpu=%d tid=%d>",
				     or_none(s->event), t, (int)s->cpu, (int)s->tid) : NULL;
	Py_XDECREF(t);
	return r;
}

static PyMethodDef sample_methods[] = {
	{ "to_dict", (PyCFunction)sample_to_dict, METH_NOARGS,
	  "to_dict() -> dict: the object report --format json prints for this sample\n"
	  "(event, producer, time_ns, cpu, pid, tid, comm, raw, fields; ip, sym, symoff,\n"
	  "dso, addr, period, callchain, regs where the sample has them, addresses and\n"
	  "register values as report's \"0x..\" strings)." },
	{ NULL },
};

PyTypeObject rfpy_sample_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rawfrag.Sample",
	.tp_basicsize = sizeof(rfpy_sample),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One sample of a perf.data file, as rawfrag.open() yields it.\n\n"
		  "Attributes are None where the sample does not carry the value.\n"
		  "sym, symoff, dso, callchain and regs are report's, resolved when the\n"
		  "sample was read (the maps as the stream had them then).",
	.tp_dealloc = (destructor)sample_dealloc,
	.tp_repr = (reprfunc)sample_repr,
	.tp_members = sample_members,
	.tp_getset = sample_getset,
	.tp_methods = sample_methods,
};
