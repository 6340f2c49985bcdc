// SPDX-License-Identifier: GPL-2.0
/*
 * Reader.write(format, path, **opts): the whole input through one of the
 * library's sinks (<rawfrag/sink.h>), the bytes `perf rawfrag report` writes
 * for the same options. A new pass, as stats() and check() are.
 */
#include "pyrawfrag.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rawfrag/sink.h>

/* options of the report (the selection), the rest go to the sink */
static const char *const report_keys[] = { "events", "pid", "tid", "cpu", "time", "where",
					   "force", "ordered", "jobs", NULL };

struct wopts {
	struct rawfrag_report_opts ro;
	const char *kv[32];
	int nr_kv;
	PyObject *keep; /* the strings behind ro and kv */
};

/* a value as the sink's "key=value" text: bools 1/0, numbers, strings, lists joined by ',' */
static PyObject *value_text(PyObject *v)
{
	if (PyBool_Check(v))
		return PyUnicode_FromString(v == Py_True ? "1" : "0");
	if (PyUnicode_Check(v)) {
		Py_INCREF(v);
		return v;
	}
	if (PyLong_Check(v))
		return PyObject_Str(v);
	if (PyList_Check(v) || PyTuple_Check(v)) {
		PyObject *comma = PyUnicode_FromString(","), *s;

		s = comma ? PyUnicode_Join(comma, v) : NULL;
		Py_XDECREF(comma);
		return s;
	}
	PyErr_Format(PyExc_TypeError, "write(): option values are str, int, bool or a list of str, "
				      "not %.60s", Py_TYPE(v)->tp_name);
	return NULL;
}

/* a str kept alive by w->keep, as UTF-8 */
static const char *keep_str(struct wopts *w, PyObject *s)
{
	if (!s || PyList_Append(w->keep, s)) {
		Py_XDECREF(s);
		return NULL;
	}
	Py_DECREF(s);
	return PyUnicode_AsUTF8(s);
}

static int report_opt(struct wopts *w, const char *k, PyObject *v)
{
	const char *s;

	if (!strcmp(k, "jobs")) {
		long n = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLong(v) : -2;

		if (v == Py_None) /* as if not given */
			return 0;
		if (n == -1 && PyErr_Occurred())
			return -1;
		if (n < 1 || n > RAWFRAG_REPORT_MAX_JOBS) {
			PyErr_Format(PyExc_ValueError, "write(): jobs is a number from 1 to %d",
				     RAWFRAG_REPORT_MAX_JOBS);
			return -1;
		}
		w->ro.jobs = (int)n;
		return 0;
	}
	if (!strcmp(k, "force") || !strcmp(k, "ordered")) {
		int b = PyObject_IsTrue(v);

		if (b < 0)
			return -1;
		if (!strcmp(k, "force"))
			w->ro.force = b;
		else
			w->ro.no_order = !b;
		return 0;
	}
	s = keep_str(w, value_text(v));
	if (!s)
		return -1;
	if (!strcmp(k, "events"))
		w->ro.events = s;
	else if (!strcmp(k, "pid"))
		w->ro.pids = s;
	else if (!strcmp(k, "tid"))
		w->ro.tids = s;
	else if (!strcmp(k, "cpu"))
		w->ro.cpus = s;
	else if (!strcmp(k, "time"))
		w->ro.time = s;
	else
		w->ro.where = s;
	return 0;
}

static int take_opts(struct wopts *w, PyObject *kw)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;

	while (kw && PyDict_Next(kw, &pos, &k, &v)) {
		const char *key = PyUnicode_AsUTF8(k), *s;
		bool rep = false;

		if (!key)
			return -1;
		for (const char *const *r = report_keys; *r; r++)
			rep |= !strcmp(*r, key);
		if (rep) {
			if (report_opt(w, key, v))
				return -1;
			continue;
		}
		if (w->nr_kv == (int)(sizeof(w->kv) / sizeof(w->kv[0])) - 1) {
			PyErr_SetString(PyExc_ValueError, "write(): too many options");
			return -1;
		}
		if (v == Py_None) /* as if not given */
			continue;
		v = value_text(v);
		if (!v)
			return -1;
		s = keep_str(w, PyUnicode_FromFormat("%s=%U", key, v));
		Py_DECREF(v);
		if (!s)
			return -1;
		w->kv[w->nr_kv++] = s;
	}
	return 0;
}

/* start, run, finish: the first error's text (file, offset, reason) raised */
static int write_all(struct rawfrag_session *sess, struct rawfrag_sink *sk, struct wopts *w,
		     const char *name)
{
	struct rawfrag_err err = { .offset = -1 }, first;
	struct rawfrag_report *rep = rawfrag_report__new(sess, &w->ro, &err);
	int ret;

	if (!rep) {
		rfpy_raise(name, &err);
		return -1;
	}
	ret = rawfrag_report__start(rep, sk, &err);
	if (!ret)
		ret = rawfrag_report__run(rep, &err);
	first = err;
	if (ret < 0) {
		rawfrag_report__finish(rep, ret, &err);
		rfpy_raise(name, &first);
	} else if (rawfrag_report__finish(rep, 0, &err) < 0) {
		ret = -1;
		rfpy_raise(name, &err);
	} else if ((ret = rawfrag_sink__error(sk)) < 0) {
		errno = -ret;
		PyErr_SetFromErrno(PyExc_OSError);
	}
	rawfrag_report__delete(rep);
	return ret < 0 ? -1 : 0;
}

static int print_warning(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? rfpy_print_warning(fmt, ap) : 0;
}

/* the input through sink format into path, or fd when path is NULL */
static PyObject *write_to(PyObject *self, const char *format, const char *path, int fd,
			  PyObject *kw)
{
	RAWFRAG_OPTS(rawfrag_sink_opts, so, .print = print_warning, .prefix = "rawfrag");
	/* jobs as report's without -j: by the input's size and the CPUs */
	struct wopts w = { .ro = { .sz = sizeof(w.ro), .print = print_warning,
				   .force = rfpy_reader_force(self),
				   .jobs = RAWFRAG_REPORT_JOBS_AUTO } };
	struct rawfrag_err err = { .offset = -1 };
	struct rawfrag_session *sess = NULL;
	struct rawfrag_file *file = NULL;
	struct rawfrag_sink *sk = NULL;
	PyObject *ret = NULL;
	bool own = false;

	w.keep = PyList_New(0);
	if (!w.keep || take_opts(&w, kw))
		goto out;
	so.path = path;
	so.fd = fd;
	so.kv = w.kv;
	sk = rawfrag_sink__open(format, &so, &err);
	if (!sk) {
		rfpy_raisef(NULL, -1, "%s", err.reason);
		goto out;
	}
	if (rfpy_reader_pass(self, &file, &sess, &own))
		goto out;
	/* what the Reader selects, unless write() says otherwise */
	if (!w.ro.events)
		w.ro.events = rfpy_reader_events(self);
	if (!w.ro.where)
		w.ro.where = rfpy_reader_where(self);
	if (!write_all(sess, sk, &w, rfpy_reader_name(self)))
		ret = Py_NewRef(Py_None);
out:
	rawfrag_sink__delete(sk);
	if (own) {
		rawfrag_session__delete(sess);
		rawfrag_file__close(file);
	}
	Py_XDECREF(w.keep);
	return ret;
}

PyObject *rfpy_reader_write(PyObject *self, PyObject *args, PyObject *kw)
{
	const char *format, *path;

	if (!PyArg_ParseTuple(args, "ss:write", &format, &path))
		return NULL;
	return write_to(self, format, path, 0, kw);
}

/*
 * folded(**opts) -> str: the "folded" sink's text (perf's stackcollapse.py
 * lines), written into an anonymous memory file and read back.
 */
PyObject *rfpy_reader_folded(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *ret = NULL, *done;
	char *buf = NULL;
	off_t len;
	ssize_t n;
	int fd;

	if (!PyArg_ParseTuple(args, ":folded"))
		return NULL;
	fd = memfd_create("rawfrag-folded", MFD_CLOEXEC);
	if (fd < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	done = write_to(self, "folded", NULL, fd, kw);
	if (!done)
		goto out;
	Py_DECREF(done);
	len = lseek(fd, 0, SEEK_END);
	buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!buf) {
		PyErr_NoMemory();
		goto out;
	}
	n = len ? pread(fd, buf, (size_t)len, 0) : 0;
	if (n != len) {
		PyErr_SetFromErrno(PyExc_OSError);
		goto out;
	}
	/* names are the file's bytes: invalid UTF-8 kept as surrogates */
	ret = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "surrogateescape");
out:
	free(buf);
	close(fd);
	return ret;
}

/* Reader.pprof(path, **opts): write('pprof', path, **opts) */
PyObject *rfpy_reader_pprof(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *wargs, *ret;
	const char *path;

	if (!PyArg_ParseTuple(args, "s:pprof", &path))
		return NULL;
	wargs = Py_BuildValue("(ss)", "pprof", path);
	if (!wargs)
		return NULL;
	ret = rfpy_reader_write(self, wargs, kw);
	Py_DECREF(wargs);
	return ret;
}

/* Reader.to_sqlite(path, **opts): write('sqlite', path, **opts) */
PyObject *rfpy_reader_to_sqlite(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *wargs, *ret;
	const char *path;

	if (!PyArg_ParseTuple(args, "s:to_sqlite", &path))
		return NULL;
	wargs = Py_BuildValue("(ss)", "sqlite", path);
	if (!wargs)
		return NULL;
	ret = rfpy_reader_write(self, wargs, kw);
	Py_DECREF(wargs);
	return ret;
}

/* the JSON lines in fd as a list of dicts, through Python's json */
static PyObject *json_lines(int fd)
{
	PyObject *json = NULL, *list = NULL, *bytes = NULL, *lines = NULL;
	off_t size = lseek(fd, 0, SEEK_END);
	char *p;

	if (size < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		PyErr_SetFromErrno(PyExc_OSError);
		return NULL;
	}
	bytes = PyBytes_FromStringAndSize(NULL, size);
	if (!bytes)
		return NULL;
	p = PyBytes_AS_STRING(bytes);
	for (off_t got = 0; got < size;) {
		ssize_t n = read(fd, p + got, (size_t)(size - got));

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			errno = n < 0 ? errno : EIO;
			PyErr_SetFromErrno(PyExc_OSError);
			goto out;
		}
		got += n;
	}
	json = PyImport_ImportModule("json");
	lines = json ? PyObject_CallMethod(bytes, "splitlines", NULL) : NULL;
	list = lines ? PyList_New(0) : NULL;
	for (Py_ssize_t i = 0; list && i < PyList_GET_SIZE(lines); i++) {
		PyObject *d = PyObject_CallMethod(json, "loads", "O", PyList_GET_ITEM(lines, i));

		if (!d || PyList_Append(list, d)) {
			Py_XDECREF(d);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(d);
	}
out:
	Py_XDECREF(json);
	Py_XDECREF(lines);
	Py_DECREF(bytes);
	return list;
}

PyObject *rfpy_reader_aggregate(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *opts = NULL, *rows = NULL, *json = NULL, *done;
	int fd = -1;

	if (PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError, "aggregate() takes keyword arguments only");
		return NULL;
	}
	if (kw && (PyDict_GetItemString(kw, "format") ||
		   PyDict_GetItemString(kw, "field_separator") || PyDict_GetItemString(kw, "quiet"))) {
		PyErr_SetString(PyExc_TypeError, "aggregate(): rows are dicts (no format, "
						 "field_separator or quiet)");
		return NULL;
	}
	opts = kw ? PyDict_Copy(kw) : PyDict_New();
	json = PyUnicode_FromString("json");
	if (!opts || !json || PyDict_SetItemString(opts, "format", json))
		goto out;
	/* the table sink's JSON lines, read back from memory */
	fd = memfd_create("rawfrag-aggregate", MFD_CLOEXEC);
	if (fd < 0) {
		PyErr_SetFromErrno(PyExc_OSError);
		goto out;
	}
	done = write_to(self, "table", NULL, fd, opts);
	if (done) {
		Py_DECREF(done);
		rows = json_lines(fd);
	}
out:
	if (fd >= 0)
		close(fd);
	Py_XDECREF(json);
	Py_XDECREF(opts);
	return rows;
}
