// SPDX-License-Identifier: GPL-2.0
/*
 * rawfrag module: init, rawfrag.Error, and the JSON-to-Python step that makes
 * Sample.fields the very values of `perf rawfrag report --format json`: the
 * decoders' fields go through the same emitter, and its text is turned into
 * dicts, lists, ints, strings, bools and None here.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pyrawfrag.h"

PyObject *rfpy_error;

PyObject *rfpy_raisef(const char *file, int64_t offset, const char *fmt, ...)
{
	PyObject *exc, *v;
	char reason[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (offset >= 0)
		snprintf(msg, sizeof(msg), "%s: offset 0x%llx: %s", file ? file : "?",
			 (unsigned long long)offset, reason);
	else if (file)
		snprintf(msg, sizeof(msg), "%s: %s", file, reason);
	else
		snprintf(msg, sizeof(msg), "%s", reason);
	exc = PyObject_CallFunction(rfpy_error, "s", msg);
	if (!exc)
		return NULL;
	v = file ? PyUnicode_DecodeFSDefault(file) : Py_NewRef(Py_None);
	if (v) {
		PyObject_SetAttrString(exc, "file", v);
		Py_DECREF(v);
	}
	v = offset >= 0 ? PyLong_FromLongLong(offset) : Py_NewRef(Py_None);
	if (v) {
		PyObject_SetAttrString(exc, "offset", v);
		Py_DECREF(v);
	}
	v = PyUnicode_DecodeUTF8(reason, strlen(reason), "replace");
	if (v) {
		PyObject_SetAttrString(exc, "reason", v);
		Py_DECREF(v);
	}
	PyErr_SetObject(rfpy_error, exc);
	Py_DECREF(exc);
	return NULL;
}

int rfpy_print_warning(const char *fmt, va_list ap)
{
	char msg[1024];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (n < 0)
		return n;
	n = (int)strlen(msg);
	fprintf(stderr, "%s%s", msg, n && msg[n - 1] == '\n' ? "" : "\n");
	return n;
}

PyObject *rfpy_raise(const char *file, const struct rawfrag_err *e)
{
	const char *type = e->rec_type ? rawfrag_record_type__name(e->rec_type) : NULL;

	if (type)
		return rfpy_raisef(file, e->offset, "%s: %s", type,
				   e->reason[0] ? e->reason : strerror(-e->err));
	return rfpy_raisef(file, e->offset, "%s", e->reason[0] ? e->reason : strerror(-e->err));
}

PyObject *rfpy_violation(const struct rawfrag_violation *v)
{
	return Py_BuildValue("{s:s,s:s,s:s,s:L}", "kind", v->kind, "severity",
			     v->sev == RAWFRAG_SEV_ERROR ? "error" : "warning", "message",
			     v->message, "raw_off", (long long)v->raw_off);
}

/* ---- JSON (as rawfrag_emit writes it) to Python ---- */

struct jp {
	const char *p, *end;
	int depth;
	struct rfpy_keys *keys;
};

void rfpy_keys__clear(struct rfpy_keys *k)
{
	for (int i = 0; k && i < RFPY_KEY_SLOTS; i++)
		Py_CLEAR(k->slot[i].str);
}

/* a key without escapes: from the cache, or made and remembered */
static PyObject *jp_key(struct jp *j, const char *s, size_t n)
{
	struct rfpy_key *k;
	uint64_t h = n, w = 0;
	PyObject *str;

	if (!j->keys || n > RFPY_KEY_MAX || !n)
		return PyUnicode_DecodeUTF8(s, n, "surrogateescape");
	/*
	 * The first and last (up to) 8 bytes and the length: cheap, and names differ
	 * there. Whole 8-byte loads where the text allows (a variable-length copy
	 * into w stalls the load that follows it).
	 */
	if (n >= 8) {
		uint64_t w2;

		memcpy(&w, s, 8);
		memcpy(&w2, s + n - 8, 8);
		w ^= w2 * 31;
	} else if (j->end - s >= 8) {
		memcpy(&w, s, 8);
		w &= ~0ull >> (64 - 8 * n);
	} else {
		memcpy(&w, s, n);
	}
	h = (h * 0x9e3779b97f4a7c15ull ^ w) * 0x9e3779b97f4a7c15ull;
	k = &j->keys->slot[(h >> 40) & (RFPY_KEY_SLOTS - 1)];
	if (k->str && k->len == n && !memcmp(k->s, s, n))
		return Py_NewRef(k->str);
	str = PyUnicode_DecodeUTF8(s, n, "surrogateescape");
	if (!str)
		return NULL;
	PyUnicode_InternInPlace(&str);
	Py_XSETREF(k->str, Py_NewRef(str));
	k->len = (uint8_t)n;
	memcpy(k->s, s, n);
	return str;
}

static PyObject *jp_fail(struct jp *j, const char *what)
{
	if (!PyErr_Occurred())
		PyErr_Format(rfpy_error, "rawfrag: decoder output is not JSON (%s at %zd)", what,
			     (Py_ssize_t)(j->end - j->p));
	return NULL;
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* a string with escapes: built as UTF-8 in a scratch buffer */
static PyObject *jp_string_slow(struct jp *j, const char *start)
{
	size_t cap = (size_t)(j->end - start) + 4;
	char *buf = PyMem_Malloc(cap), *o = buf;
	PyObject *r;

	if (!buf)
		return PyErr_NoMemory();
	for (j->p = start; j->p < j->end && *j->p != '"';) {
		unsigned int cp;
		int h;

		if (*j->p != '\\') {
			*o++ = *j->p++;
			continue;
		}
		if (j->end - j->p < 2)
			break;
		switch (j->p[1]) {
		case 'n': *o++ = '\n'; j->p += 2; continue;
		case 't': *o++ = '\t'; j->p += 2; continue;
		case 'r': *o++ = '\r'; j->p += 2; continue;
		case 'b': *o++ = '\b'; j->p += 2; continue;
		case 'f': *o++ = '\f'; j->p += 2; continue;
		case 'u': break;
		default: *o++ = j->p[1]; j->p += 2; continue;
		}
		if (j->end - j->p < 6 || (h = hex4(j->p + 2)) < 0)
			break;
		cp = (unsigned int)h;
		j->p += 6;
		if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
		    j->p[1] == 'u' && (h = hex4(j->p + 2)) >= 0xdc00 && h < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned int)h - 0xdc00);
			j->p += 6;
		}
		/* UTF-8 of cp; a lone surrogate becomes an escaped byte (surrogateescape) */
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | cp >> 6);
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | cp >> 12);
			*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | cp >> 18);
			*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
			*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (j->p >= j->end || *j->p != '"') {
		PyMem_Free(buf);
		return jp_fail(j, "bad string");
	}
	j->p++;
	r = PyUnicode_DecodeUTF8(buf, o - buf, "surrogatepass");
	PyMem_Free(buf);
	return r;
}

static PyObject *jp_string(struct jp *j, bool key)
{
	const char *s = ++j->p;
	const char *q = memchr(s, '"', (size_t)(j->end - s));

	/* the common case: no escape before the closing quote */
	if (q && !memchr(s, '\\', (size_t)(q - s))) {
		j->p = q + 1;
		if (key)
			return jp_key(j, s, (size_t)(j->p - 1 - s));
		return PyUnicode_DecodeUTF8(s, j->p - 1 - s, "surrogateescape");
	}
	return jp_string_slow(j, s);
}

static PyObject *jp_number(struct jp *j)
{
	bool neg = *j->p == '-';
	uint64_t v = 0;
	const char *s;

	if (neg)
		j->p++;
	s = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');

		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return jp_fail(j, "number too large");
		j->p++;
	}
	if (j->p == s)
		return jp_fail(j, "bad number");
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
		char tmp[64];
		size_t n;

		s -= neg;
		while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
			j->p++;
		n = (size_t)(j->p - s);
		if (n >= sizeof(tmp))
			return jp_fail(j, "bad number");
		memcpy(tmp, s, n);
		tmp[n] = 0;
		return PyFloat_FromDouble(strtod(tmp, NULL));
	}
	if (!neg)
		return PyLong_FromUnsignedLongLong(v);
	if (v > (uint64_t)INT64_MAX + 1)
		return jp_fail(j, "number too small");
	return PyLong_FromLongLong(v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v);
}

static PyObject *jp_value(struct jp *j);

static PyObject *jp_object(struct jp *j)
{
	PyObject *d = PyDict_New();

	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return d;
	}
	while (d) {
		PyObject *k, *v;

		jp_ws(j);
		if (j->p >= j->end || *j->p != '"')
			goto fail;
		k = jp_string(j, true);
		if (!k)
			goto fail;
		jp_ws(j);
		if (j->p >= j->end || *j->p != ':') {
			Py_DECREF(k);
			goto fail;
		}
		j->p++;
		v = jp_value(j);
		if (!v || PyDict_SetItem(d, k, v)) {
			Py_DECREF(k);
			Py_XDECREF(v);
			goto fail;
		}
		Py_DECREF(k);
		Py_DECREF(v);
		jp_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return d;
		}
		goto fail;
	}
	return NULL;
fail:
	Py_XDECREF(d);
	return jp_fail(j, "bad object");
}

static PyObject *jp_array(struct jp *j)
{
	PyObject *l = PyList_New(0);

	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return l;
	}
	while (l) {
		PyObject *v = jp_value(j);

		if (!v || PyList_Append(l, v)) {
			Py_XDECREF(v);
			break;
		}
		Py_DECREF(v);
		jp_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return l;
		}
		break;
	}
	Py_XDECREF(l);
	return jp_fail(j, "bad array");
}

static bool jp_word(struct jp *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static PyObject *jp_value(struct jp *j)
{
	PyObject *r;

	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "end of text");
	if (++j->depth > 64)
		return jp_fail(j, "nested too deep");
	switch (*j->p) {
	case '{': r = jp_object(j); break;
	case '[': r = jp_array(j); break;
	case '"': r = jp_string(j, false); break;
	case 't': r = jp_word(j, "true", 4) ? Py_NewRef(Py_True) : jp_fail(j, "bad word"); break;
	case 'f': r = jp_word(j, "false", 5) ? Py_NewRef(Py_False) : jp_fail(j, "bad word"); break;
	case 'n': r = jp_word(j, "null", 4) ? Py_NewRef(Py_None) : jp_fail(j, "bad word"); break;
	default: r = jp_number(j); break;
	}
	j->depth--;
	return r;
}

PyObject *rfpy_from_json(const char *s, size_t len, struct rfpy_keys *keys)
{
	struct jp j = { .p = s, .end = s + len, .keys = keys };
	PyObject *v = jp_value(&j);

	jp_ws(&j);
	if (v && j.p != j.end) {
		Py_DECREF(v);
		return jp_fail(&j, "trailing text");
	}
	return v;
}

/* ---- the module ---- */

static PyObject *rfpy_version(PyObject *mod, PyObject *unused)
{
	return PyUnicode_FromString(rawfrag_version());
}

/* the library's outputs by name, for Reader.write() */
static PyObject *rfpy_formats(PyObject *mod, PyObject *unused)
{
	PyObject *l = PyList_New(0);

	for (const char *const *n = rawfrag_sinks(); l && *n; n++) {
		PyObject *s = PyUnicode_FromString(*n);

		if (!s || PyList_Append(l, s))
			Py_CLEAR(l);
		Py_XDECREF(s);
	}
	return l;
}

static PyMethodDef rfpy_methods[] = {
	{ "formats", rfpy_formats, METH_NOARGS,
	  "formats() -> list of str: the outputs Reader.write() writes ('text', 'json', ...)." },
	{ "open", (PyCFunction)(void (*)(void))rfpy_open, METH_VARARGS | METH_KEYWORDS,
	  "open(source, *, events=None, ordered=True, force=False, strict=False, where=None,\n"
	  "     symbols=True) -> Reader\n\n"
	  "Open a perf.data file for reading its samples. source: a path (str, bytes or\n"
	  "os.PathLike; '-' reads stdin) or a binary file object. File and pipe format and\n"
	  "zstd-compressed records are read. events: names or globs (a list, or one comma\n"
	  "list) of the events to keep. ordered: samples in perf script's time order (as\n"
	  "report), else in file order. force: go on past bad records where the framing\n"
	  "allows. strict: non-zero pad bytes are errors in violations and check().\n"
	  "where: keep samples whose fields match this expression (report --where).\n"
	  "symbols: resolve ip, call chains (sym, symoff, dso, callchain) as report does;\n"
	  "False leaves them None and reads no symbol tables (faster).\n"
	  "The Reader is a context manager and an iterator of Sample objects.\n"
	  "Errors raise rawfrag.Error." },
	{ "version", rfpy_version, METH_NOARGS, "version() -> str: librawfrag's version." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef rfpy_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "rawfrag",
	.m_doc = "rawfrag: read, decode and check PERF_SAMPLE_RAW payloads of perf.data files.\n\n"
		 "rawfrag.open(path) iterates the samples of a recording with their decoded\n"
		 "fields (the values of `perf rawfrag report --format json`) and raw-layout\n"
		 "violations; rawfrag.Decoder() decodes raw_buf inside perf script handlers.",
	.m_size = -1,
	.m_methods = rfpy_methods,
};

PyMODINIT_FUNC PyInit_rawfrag(void);
PyMODINIT_FUNC PyInit_rawfrag(void)
{
	PyObject *m;

	if (PyType_Ready(&rfpy_sample_type) || PyType_Ready(&rfpy_reader_type) ||
	    PyType_Ready(&rfpy_decoder_type))
		return NULL;
	m = PyModule_Create(&rfpy_module);
	if (!m)
		return NULL;
	rfpy_error = PyErr_NewExceptionWithDoc(
		"rawfrag.Error",
		"An unusable input: .file (path), .offset (file offset of the bad record, or\n"
		"None) and .reason (why), as the commands print them.",
		NULL, NULL);
	if (!rfpy_error || PyModule_AddObjectRef(m, "Error", rfpy_error) ||
	    PyModule_AddObjectRef(m, "Sample", (PyObject *)&rfpy_sample_type) ||
	    PyModule_AddObjectRef(m, "Reader", (PyObject *)&rfpy_reader_type) ||
	    PyModule_AddObjectRef(m, "Decoder", (PyObject *)&rfpy_decoder_type)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
