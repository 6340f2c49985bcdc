// SPDX-License-Identifier: GPL-2.0
/*
 * rawfrag.Decoder: decode and check the raw_buf perf script hands a Python
 * handler. The formats (tracing data, CPUID, PMU mappings) come from the
 * recording perf script reads, found on perf's command line; on a pipe there is
 * no such file and the constructor says so instead of decoding nothing.
 */
#include <stdlib.h>

#include "pyrawfrag.h"
#include "../common/rfplugin.h"

typedef struct {
	PyObject_HEAD
	struct rfp *rfp;
	struct rawfrag_out *out;
	struct rawfrag_emit *em;
	char *path;
	bool strict;
	struct rfpy_keys *keys;
} rfpy_decoder;

static int lib_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? rfpy_print_warning(fmt, ap) : 0;
}

static void decoder_release(rfpy_decoder *d)
{
	if (d->rfp) {
		rfp_close(d->rfp);
		free(d->rfp);
		d->rfp = NULL;
	}
	rawfrag_emit__delete(d->em);
	rawfrag_out__delete(d->out);
	d->em = NULL;
	d->out = NULL;
	free(d->path);
	d->path = NULL;
	rfpy_keys__clear(d->keys);
	PyMem_Free(d->keys);
	d->keys = NULL;
}

static void decoder_dealloc(rfpy_decoder *d)
{
	decoder_release(d);
	Py_TYPE(d)->tp_free((PyObject *)d);
}

static int decoder_init(rfpy_decoder *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "strict", NULL };
	PyObject *src = Py_None, *fs = NULL;
	struct rawfrag_err err;
	char path[4096];
	int strict = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$p:Decoder", kwlist, &src, &strict))
		return -1;
	decoder_release(d);
	d->strict = strict;
	if (src != Py_None) {
		if (!PyUnicode_FSConverter(src, &fs))
			return -1;
		snprintf(path, sizeof(path), "%s", PyBytes_AS_STRING(fs));
		Py_DECREF(fs);
	} else if (rfp_perf_input(path, sizeof(path)) == RFP_INPUT_PIPE) {
		rfpy_raisef("-", -1, "perf script reads the recording from a pipe (-i - or stdin): "
				     "rawfrag.Decoder cannot read it beside perf; save it to a "
				     "file, or pass the recording's path: rawfrag.Decoder(path)");
		return -1;
	}
	if (!strcmp(path, "-")) {
		rfpy_raisef("-", -1, "rawfrag.Decoder cannot read stdin (perf's input); pass a file");
		return -1;
	}
	d->path = strdup(path);
	d->rfp = calloc(1, sizeof(*d->rfp));
	d->out = rawfrag_out__new(-1);
	d->em = d->out ? rawfrag_emit__new(d->out, RAWFRAG_EMIT_JSON) : NULL;
	d->keys = PyMem_Calloc(1, sizeof(*d->keys));
	if (!d->path || !d->rfp || !d->em || !d->keys) {
		PyErr_NoMemory();
		return -1;
	}
	if (rfp_open(d->rfp, path, strict, lib_print, NULL, &err)) {
		rfpy_raise(path, &err);
		decoder_release(d);
		return -1;
	}
	return 0;
}

static uint64_t dict_u64(PyObject *dict, const char *key)
{
	PyObject *v = dict ? PyDict_GetItemString(dict, key) : NULL;
	unsigned long long x;

	if (!v || !PyLong_Check(v))
		return 0;
	x = PyLong_AsUnsignedLongLongMask(v);
	return x;
}

/* decode/check one raw_buf: fills r; 0 or -1 with an exception */
static int process(rfpy_decoder *d, PyObject *args, struct rfp_result *r)
{
	const char *event;
	PyObject *sample = NULL;
	struct rawfrag_sample in = { 0 };
	struct rawfrag_evsel *ev;
	Py_buffer raw;
	int ret;

	if (!d->rfp) {
		PyErr_SetString(PyExc_ValueError, "rawfrag.Decoder is not initialised");
		return -1;
	}
	if (!PyArg_ParseTuple(args, "sy*|O", &event, &raw, &sample))
		return -1;
	if (sample && sample != Py_None && !PyDict_Check(sample)) {
		PyBuffer_Release(&raw);
		PyErr_SetString(PyExc_TypeError, "sample: want perf's sample dict or None");
		return -1;
	}
	ev = rfp_evsel_by_name(d->rfp, event);
	if (!ev) {
		PyBuffer_Release(&raw);
		rfpy_raisef(d->path, -1, "no event '%s' in this recording (is it the file perf "
					 "script reads?)", event);
		return -1;
	}
	if (sample && sample != Py_None) {
		in.pid = (uint32_t)dict_u64(sample, "pid");
		in.tid = (uint32_t)dict_u64(sample, "tid");
		in.cpu = (uint32_t)dict_u64(sample, "cpu");
		in.time = dict_u64(sample, "time");
		in.period = dict_u64(sample, "period");
		in.ip = dict_u64(sample, "ip");
	}
	in.raw_data = raw.buf;
	in.raw_size = (uint32_t)raw.len;
	/* renew the checker before, not after: r indexes the violations it keeps */
	ret = rfp_trim_violations(d->rfp, d->strict, 4096);
	if (!ret)
		ret = raw.len > 0xffff ? -E2BIG : rfp_process(d->rfp, ev, &in, 0, r);
	PyBuffer_Release(&raw);
	if (ret) {
		rfpy_raisef(d->path, -1, "%s: cannot rebuild the sample (%s)", event, strerror(-ret));
		return -1;
	}
	return 0;
}

/* the fields of a processed sample (r.smp points into the rebuilt record, not raw_buf) */
static PyObject *fields_of(rfpy_decoder *d, const struct rfp_result *r)
{
	const char *text;
	size_t len;

	rawfrag_out__reset(d->out);
	rawfrag_out__putc(d->out, '{');
	rfp_fields(d->rfp, r, d->em);
	rawfrag_out__putc(d->out, '}');
	if (rawfrag_out__error(d->out))
		return PyErr_NoMemory();
	text = rawfrag_out__mem(d->out, &len);
	return rfpy_from_json(text, len, d->keys);
}

static PyObject *violations_of(rfpy_decoder *d, const struct rfp_result *r)
{
	PyObject *l = PyList_New(r->nr_violations);

	for (int i = 0; l && i < r->nr_violations; i++) {
		PyObject *v = rfpy_violation(
			rawfrag_checker__violation(d->rfp->chk, r->first_violation + i));

		if (!v) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, v);
	}
	return l;
}

static PyObject *decoder_decode(rfpy_decoder *d, PyObject *args)
{
	struct rfp_result r;

	return process(d, args, &r) ? NULL : fields_of(d, &r);
}

static PyObject *decoder_check(rfpy_decoder *d, PyObject *args)
{
	struct rfp_result r;

	return process(d, args, &r) ? NULL : violations_of(d, &r);
}

static PyObject *decoder_decode_check(rfpy_decoder *d, PyObject *args)
{
	struct rfp_result r;

	if (process(d, args, &r))
		return NULL;
	return Py_BuildValue("NN", fields_of(d, &r), violations_of(d, &r));
}

static PyObject *decoder_producer(rfpy_decoder *d, PyObject *args)
{
	const char *event;
	struct rawfrag_evsel *ev;
	const struct rawfrag_decoder *dec;

	if (!d->rfp) {
		PyErr_SetString(PyExc_ValueError, "rawfrag.Decoder is not initialised");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "s", &event))
		return NULL;
	ev = rfp_evsel_by_name(d->rfp, event);
	dec = ev ? rawfrag_session__decoder(d->rfp->sess, ev) : NULL;
	if (!dec)
		Py_RETURN_NONE;
	return PyUnicode_FromString(rawfrag_decoder__name(dec));
}

static PyObject *decoder_path(rfpy_decoder *d, void *unused)
{
	if (!d->path)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(d->path);
}

static PyGetSetDef decoder_getset[] = {
	{ "path", (getter)decoder_path, NULL, "str: the recording the formats come from", NULL },
	{ NULL },
};

static PyMethodDef decoder_methods[] = {
	{ "decode", (PyCFunction)decoder_decode, METH_VARARGS,
	  "decode(event_name, raw_buf, sample=None) -> dict\n\n"
	  "The fields of one raw payload, the values of report --format json 'fields'.\n"
	  "event_name: perf's ev_name; raw_buf: perf's raw_buf (bytes); sample: perf's\n"
	  "sample dict (pid, tid, cpu, time ...), for decoders that use them." },
	{ "check", (PyCFunction)decoder_check, METH_VARARGS,
	  "check(event_name, raw_buf, sample=None) -> list of dict\n\n"
	  "The raw-layout violations of one payload (kind, severity, message, raw_off),\n"
	  "as perf rawfrag check finds them; [] when clean." },
	{ "decode_check", (PyCFunction)decoder_decode_check, METH_VARARGS,
	  "decode_check(event_name, raw_buf, sample=None) -> (dict, list)\n\n"
	  "decode() and check() of one payload in one step." },
	{ "producer", (PyCFunction)decoder_producer, METH_VARARGS,
	  "producer(event_name) -> str or None: the decoder bound to the event." },
	{ NULL },
};

PyTypeObject rfpy_decoder_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rawfrag.Decoder",
	.tp_basicsize = sizeof(rfpy_decoder),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Decoder(path=None, *, strict=False)\n\n"
		  "Decodes raw_buf inside perf script handlers. path: the recording whose\n"
		  "formats to use; default: perf script's own input, from the process's command\n"
		  "line (-i/--input, else perf.data). Raises rawfrag.Error when perf script\n"
		  "reads a pipe (-i - or stdin), whose formats cannot be read beside perf.",
	.tp_dealloc = (destructor)decoder_dealloc,
	.tp_init = (initproc)decoder_init,
	.tp_new = PyType_GenericNew,
	.tp_methods = decoder_methods,
	.tp_getset = decoder_getset,
};
