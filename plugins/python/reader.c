// SPDX-License-Identifier: GPL-2.0
/*
 * rawfrag.open() and its Reader: the samples of a perf.data file as Sample
 * objects, in perf script's order (or file order), with decoded fields and
 * raw-layout violations; .stats() and .check() as the commands.
 *
 * The walk over the stream is the library's: rawfrag_session__next() reads one
 * record at a time (perf's time order, its thread table) and hands each sample
 * to reader_sample(), which turns it into a Sample waiting in r->pending.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rawfrag/machine.h>
#include <rawfrag/tool.h>

#include "pyrawfrag.h"


struct ev_cache {
	PyObject *event, *producer;
	bool selected;
	const struct rawfrag_evsel *ev;
};

typedef struct {
	PyObject_HEAD
	struct rawfrag_tool tool; /* its handlers find the Reader from it */
	char *name; /* for messages */
	char *reopen; /* path to open the same input again, NULL if not possible */
	int fd; /* owned, -1 for a path */
	bool ordered, force, strict, symbols, started, done, closed;
	PyObject *events; /* list of patterns (bytes) or NULL */
	struct rawfrag_file *file;
	struct rawfrag_session *sess;
	struct rawfrag_out *out;
	struct rawfrag_emit *em;
	bool swap;
	int nr_known;
	struct ev_cache *evc;
	PyObject *pending; /* Samples built, not yet handed out */
	Py_ssize_t pending_pos;
	struct rawfrag_err err;
	char name_buf[33];
	struct rfpy_keys *keys;
	struct rawfrag_where *where; /* where= */
	char *where_src, *events_csv; /* the same for write() */
	struct rfpy_sym sym; /* symbols and call chains, as report's */
} rfpy_reader;

/* ---- per-evsel cache ---- */

static bool selected(rfpy_reader *r, const char *name)
{
	if (!r->events)
		return true;
	for (Py_ssize_t i = 0; name && i < PyList_GET_SIZE(r->events); i++)
		if (!fnmatch(PyBytes_AS_STRING(PyList_GET_ITEM(r->events, i)), name, 0))
			return true;
	return false;
}

static void free_evc(rfpy_reader *r)
{
	for (int i = 0; r->evc && i < r->nr_known; i++) {
		Py_CLEAR(r->evc[i].event);
		Py_CLEAR(r->evc[i].producer);
	}
	PyMem_Free(r->evc);
	r->evc = NULL;
	r->nr_known = 0;
}

/* (re)build after a describing record: names and decoders can change */
static int update_evsels(rfpy_reader *r)
{
	int n = rawfrag_file__nr_evsels(r->file);

	free_evc(r);
	r->evc = PyMem_Calloc(n ? n : 1, sizeof(*r->evc));
	if (!r->evc) {
		PyErr_NoMemory();
		return -1;
	}
	r->nr_known = n;
	for (int i = 0; i < n; i++) {
		struct rawfrag_evsel *ev = rawfrag_file__evsel(r->file, i);
		const char *name = rawfrag_evsel__name(ev);
		struct ev_cache *c = &r->evc[i];

		const struct rawfrag_decoder *d = rawfrag_session__decoder(r->sess, ev);

		c->ev = ev;
		c->selected = selected(r, name);
		c->event = PyUnicode_DecodeUTF8(name ? name : "", name ? strlen(name) : 0,
						"replace");
		c->producer = d ? PyUnicode_FromString(rawfrag_decoder__name(d)) : Py_NewRef(Py_None);
		if (!c->event || !c->producer)
			return -1;
	}
	return 0;
}

/* ---- one sample ---- */

static const char *task_name(rfpy_reader *r, const struct rawfrag_sample *smp, int *len)
{
	const char *c = rawfrag_session__thread_comm(r->sess, (int32_t)smp->pid,
						     (int32_t)smp->tid, len);

	if (c)
		return c;
	c = rawfrag_session__saved_comm(r->sess, smp->pid);
	if (!c && smp->tid == 0)
		c = "swapper";
	if (!c) {
		snprintf(r->name_buf, sizeof(r->name_buf), ":%d", (int32_t)smp->tid);
		c = r->name_buf;
	}
	*len = (int)strnlen(c, 32);
	return c;
}

/* the decoder's fields as report writes them (JSON text in r->out); -1: no memory */
static int fields_text(rfpy_reader *r, const struct ev_cache *c, const struct rawfrag_record *rec,
		       const struct rawfrag_sample *smp)
{
	rawfrag_out__reset(r->out);
	rawfrag_out__putc(r->out, '{');
	rawfrag_emit__reset(r->em);
	rawfrag_session__sample_fields(r->sess, c->ev, rec, smp, r->em);
	rawfrag_out__putc(r->out, '}');
	if (rawfrag_out__error(r->out)) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static PyObject *decode_fields(rfpy_reader *r, const struct ev_cache *c,
			       const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	const char *text;
	size_t len;

	if (fields_text(r, c, rec, smp))
		return NULL;
	text = rawfrag_out__mem(r->out, &len);
	return rfpy_from_json(text, len, r->keys);
}

/* where=: 1 keep, 0 drop, -1 error (exception set) */
static int where_keep(rfpy_reader *r, const struct ev_cache *c, const struct rawfrag_record *rec,
		      const struct rawfrag_sample *smp)
{
	int ret = rawfrag_where__match_sample(r->where, r->sess, c->ev, rec, smp, &r->err);

	if (ret < 0) {
		r->err.offset = (int64_t)rec->offset;
		r->err.rec_type = rec->type;
		rfpy_raise(r->name, &r->err);
	}
	return ret;
}

static int raw_members(rfpy_reader *r, rfpy_sample *s, const struct ev_cache *c,
		       const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	struct rawfrag_raw raw;
	uint32_t len = 0;
	bool known, zero = true;

	if (!rawfrag_session__raw(r->sess, rec, smp, &raw)) {
		s->fields = PyDict_New();
		return s->fields ? 0 : -1;
	}
	known = !rawfrag_session__sample_length(r->sess, c->ev, rec, smp, &len) && len <= raw.size;
	for (uint32_t i = len; known && i < raw.size; i++)
		zero &= !raw.data[i];
	s->raw_size = raw.size;
	s->raw_len = len;
	s->flags |= (known ? RFPY_LEN_KNOWN : 0) | (zero ? RFPY_PAD_ZERO : 0);
	s->raw = PyBytes_FromStringAndSize((const char *)raw.data, raw.size);
	s->fields = s->raw ? decode_fields(r, c, rec, smp) : NULL;
	return s->fields ? 0 : -1;
}

struct viol_ctx {
	PyObject *list; /* made at the first finding */
	bool failed;
};

static void add_violation(void *ctx, const struct rawfrag_violation *v)
{
	struct viol_ctx *vc = ctx;
	PyObject *o;

	if (vc->failed)
		return;
	if (!vc->list)
		vc->list = PyList_New(0);
	o = vc->list ? rfpy_violation(v) : NULL;
	if (!o || PyList_Append(vc->list, o))
		vc->failed = true;
	Py_XDECREF(o);
}

/* this sample's findings: a tuple, the shared empty one when clean */
static PyObject *violations(rfpy_reader *r, const struct ev_cache *c,
			    const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	struct viol_ctx vc = { 0 };
	PyObject *t;
	int ret = rawfrag_session__sample_violations(r->sess, c->ev, rec, smp, r->strict,
						     add_violation, &vc);

	if (ret < 0 || vc.failed) {
		Py_XDECREF(vc.list);
		if (!PyErr_Occurred())
			PyErr_NoMemory();
		return NULL;
	}
	if (!vc.list)
		return PyTuple_New(0);
	t = PyList_AsTuple(vc.list);
	Py_DECREF(vc.list);
	return t;
}

static const char *arch_of(rfpy_reader *r)
{
	const struct rawfrag_env *env = rawfrag_file__env(r->file);

	return env ? env->arch : NULL; /* a pipe's arch comes with its features */
}

static PyObject *new_sample(rfpy_reader *r, const struct ev_cache *c,
			    const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	uint64_t st = smp->sample_type;
	rfpy_sample *s = PyObject_New(rfpy_sample, &rfpy_sample_type);

	if (!s)
		return NULL;
	memset(&s->event, 0, sizeof(*s) - offsetof(rfpy_sample, event));
	s->event = Py_NewRef(c->event);
	s->producer = Py_NewRef(c->producer);
	s->flags = (st & PERF_SAMPLE_TIME ? RFPY_HAS_TIME : 0) |
		   (st & PERF_SAMPLE_CPU ? RFPY_HAS_CPU : 0) |
		   (st & PERF_SAMPLE_TID ? RFPY_HAS_TID : 0) |
		   (st & PERF_SAMPLE_PERIOD ? RFPY_HAS_PERIOD : 0) |
		   (st & PERF_SAMPLE_IP ? RFPY_HAS_IP : 0);
	s->time = smp->time;
	s->cpu = smp->cpu;
	s->pid = smp->pid;
	s->tid = smp->tid;
	s->period = smp->period;
	s->ip = smp->ip;
	s->offset = rec->offset;
	if (st & PERF_SAMPLE_TID) {
		int l = 0;
		const char *comm = task_name(r, smp, &l);

		if (l > 32)
			l = 32;
		memcpy(s->comm, comm, l);
		s->comm_len = (uint8_t)l;
	}
	/* pid or tid -1 (a task caught exiting): resolved in its thread's process, as perf does */
	if ((smp->pid == UINT32_MAX || smp->tid == UINT32_MAX) && r->sym.m) {
		int32_t pid;

		if (rawfrag_session__thread_pid(r->sess, (int32_t)smp->pid, (int32_t)smp->tid, &pid)) {
			Py_DECREF(s);
			return PyErr_NoMemory();
		}
		rawfrag_machine__set_exiting(r->sym.m, pid);
	}
	s->violations = violations(r, c, rec, smp);
	if (!s->violations || raw_members(r, s, c, rec, smp) ||
	    rfpy_sym_fill(&r->sym, s, smp, rawfrag_evsel__attr(c->ev), arch_of(r))) {
		Py_DECREF(s);
		return NULL;
	}
	return (PyObject *)s;
}

static rfpy_reader *reader_of(struct rawfrag_tool *tool)
{
	return (rfpy_reader *)((char *)tool - offsetof(rfpy_reader, tool));
}

/* a Python error inside a handler: the stream stops, the exception stays */
#define RFPY_PYERR (-ECANCELED)

/* Samples built per rawfrag_session__next() at most (a round can hold millions) */
#ifndef RFPY_BATCH
#define RFPY_BATCH 256
#endif

/* one sample of a known evsel, in the session's order: a Sample in r->pending */
static int reader_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
			 const struct rawfrag_event *ev)
{
	rfpy_reader *r = reader_of(tool);
	int idx = rawfrag_evsel__idx(ev->evsel);
	PyObject *s;

	if (idx >= r->nr_known && update_evsels(r))
		return RFPY_PYERR;
	if (!r->evc[idx].selected)
		return 0;
	if (r->where) {
		int w = where_keep(r, &r->evc[idx], ev->rec, ev->sample);

		if (w <= 0)
			return w ? RFPY_PYERR : 0;
	}
	s = new_sample(r, &r->evc[idx], ev->rec, ev->sample);
	if (!s)
		return RFPY_PYERR;
	if (PyList_Append(r->pending, s)) {
		Py_DECREF(s);
		return RFPY_PYERR;
	}
	Py_DECREF(s);
	/* a round of the ordering queue in parts: memory and GC work stay small */
	if (PyList_GET_SIZE(r->pending) >= RFPY_BATCH)
		rawfrag_session__pause(sess);
	return 0;
}

/* unknown id or a sample that does not parse: skipped with force=True */
static int reader_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
			     const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	rfpy_reader *r = reader_of(tool);

	if (r->force)
		return 0;
	r->err = *err;
	return err->err;
}

/* attrs or names changed (pipe mode): the per-evsel cache again */
static int reader_describe(struct rawfrag_tool *tool, struct rawfrag_session *sess,
			   const struct rawfrag_event *ev)
{
	return update_evsels(reader_of(tool)) ? RFPY_PYERR : 0;
}

/*
 * One record through the session; Samples, if any, appended to r->pending.
 * 1: go on, 0: end of input, -1: error (exception set).
 */
static int stream_step(rfpy_reader *r)
{
	int ret = rawfrag_session__next(r->sess, &r->tool, &r->err);

	if (ret > 0)
		return 1;
	if (ret < 0) {
		if (!PyErr_Occurred())
			rfpy_raise(r->name, &r->err);
		return -1;
	}
	if (r->where && rawfrag_where__unseen_field(r->where)) {
		rfpy_raisef(r->name, -1, "--where: no sample has a field '%s'",
			    rawfrag_where__unseen_field(r->where));
		return -1;
	}
	return 0;
}

/* ---- Reader object ---- */

static void reader_release(rfpy_reader *r)
{
	rfpy_sym_clear(&r->sym);
	rawfrag_emit__delete(r->em);
	rawfrag_out__delete(r->out);
	free_evc(r);
	rawfrag_session__delete(r->sess);
	rawfrag_file__close(r->file);
	r->em = NULL;
	r->out = NULL;
	r->sess = NULL;
	r->file = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->closed = true;
	Py_CLEAR(r->pending);
	rfpy_keys__clear(r->keys);
	PyMem_Free(r->keys);
	r->keys = NULL;
}

static void reader_dealloc(rfpy_reader *r)
{
	reader_release(r);
	Py_CLEAR(r->events);
	rawfrag_where__delete(r->where);
	free(r->where_src);
	free(r->events_csv);
	free(r->name);
	free(r->reopen);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *reader_next(rfpy_reader *r)
{
	PyObject *s;

	if (r->closed) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed rawfrag.Reader");
		return NULL;
	}
	r->started = true;
	while (r->pending_pos >= PyList_GET_SIZE(r->pending)) {
		int ret;

		if (PyList_SetSlice(r->pending, 0, PyList_GET_SIZE(r->pending), NULL))
			return NULL;
		r->pending_pos = 0;
		if (r->done)
			return NULL;
		ret = stream_step(r);
		if (ret <= 0) {
			r->done = true;
			if (ret < 0)
				return NULL;
		}
	}
	s = PyList_GET_ITEM(r->pending, r->pending_pos);
	Py_INCREF(s);
	/* drop the list's reference now: the Sample lives as long as the caller wants */
	PyList_SET_ITEM(r->pending, r->pending_pos, Py_NewRef(Py_None));
	Py_DECREF(s);
	r->pending_pos++;
	return s;
}

static PyObject *reader_enter(rfpy_reader *r, PyObject *unused)
{
	return Py_NewRef(r);
}

static PyObject *reader_close(rfpy_reader *r, PyObject *unused)
{
	reader_release(r);
	Py_RETURN_NONE;
}

static PyObject *reader_exit(rfpy_reader *r, PyObject *args)
{
	reader_release(r);
	Py_RETURN_FALSE;
}


static PyObject *reader_path(rfpy_reader *r, void *unused)
{
	return PyUnicode_DecodeFSDefault(r->name);
}

static PyObject *reader_mode(rfpy_reader *r, void *unused)
{
	if (!r->file)
		Py_RETURN_NONE;
	return PyUnicode_FromString(rawfrag_file__mode(r->file) == RAWFRAG_MODE_PIPE ? "pipe"
										   : "file");
}

static PyGetSetDef reader_getset[] = {
	{ "path", (getter)reader_path, NULL, "str: the input's name (as in messages)", NULL },
	{ "mode", (getter)reader_mode, NULL, "str: 'file' or 'pipe' (the perf.data format)",
	  NULL },
	{ NULL },
};

static PyMethodDef reader_methods[] = {
	{ "__enter__", (PyCFunction)reader_enter, METH_NOARGS, "Return the Reader." },
	{ "__exit__", (PyCFunction)reader_exit, METH_VARARGS, "Close the Reader." },
	{ "close", (PyCFunction)reader_close, METH_NOARGS,
	  "close(): release the file (iteration then raises ValueError)." },
	{ "stats", rfpy_reader_stats, METH_NOARGS,
	  "stats() -> dict: record counts as report --stats: {'total', 'records' (by type\n"
	  "name), 'events' (name -> {'samples', 'lost_samples'}), 'lost', 'lost_samples'}.\n"
	  "Reads the whole input again (a new pass); on stdin or a FIFO only before\n"
	  "iterating (it then consumes the stream)." },
	{ "aggregate", (PyCFunction)(void (*)(void))rfpy_reader_aggregate,
	  METH_VARARGS | METH_KEYWORDS,
	  "aggregate(sort='comm,dso,sym', weight=None, hist=None, **opts): perf report's table as\n"
	  "a list of dicts, one per entry: {'event', 'kind': 'entry', 'keys': {key: value},\n"
	  "'samples', 'period', 'weight', 'percent'} in the table's order (with hist=FIELD one\n"
	  "per bucket: 'field', 'lo', 'hi', 'count'); sort, weight and hist name keys and\n"
	  "fields as report --sort, --weight and --hist do; opts: the selection as write()'s\n"
	  "and the table's (percent_limit, comms, dsos, percentage); jobs=N counts on N\n"
	  "threads as report -j does (with call chains by entry, each thread reading every\n"
	  "sample), the same rows (default: report's, a thread per 16 MiB of records, at\n"
	  "most the CPUs; one with call chains).\n"
	  "The library's table output (report --stdio --format json). A new pass, as\n"
	  "stats()." },
	{ "write", (PyCFunction)(void (*)(void))rfpy_reader_write, METH_VARARGS | METH_KEYWORDS,
	  "write(format, path, **opts): the whole input through one of the library's outputs\n"
	  "('text', 'json', 'pcapng', 'stats', 'header', 'table', 'folded', 'flamegraph-json',\n"
	  "'flamegraph', 'pprof', 'sqlite',\n"
	  "'clickhouse'; rawfrag.formats()) into path ('-':\n"
	  "standard output): the bytes perf rawfrag report writes. opts: the selection\n"
	  "(events, pid, tid, cpu, time, where, force, ordered, jobs (threads, the bytes of\n"
	  "jobs=1; default as report's); the Reader's events and where by default) and the\n"
	  "output's own (text: fields, verbose, ns, tasks, header,\n"
	  "callchain, max_stack; json: fields, callchain, max_stack), e.g.\n"
	  "write('text', 'out.txt', fields=['comm', 'tid', 'ip', 'sym'], ns=True).\n"
	  "Raises rawfrag.Error where report exits 2. A new pass, as stats()." },
	{ "folded", (PyCFunction)(void (*)(void))rfpy_reader_folded, METH_VARARGS | METH_KEYWORDS,
	  "folded(**opts) -> str: the call stacks as perf's stackcollapse.py prints them\n"
	  "('comm;root;...;leaf count' lines, sorted), the text of\n"
	  "report --format folded. opts: the selection as write()'s, and kernel,\n"
	  "include_pid, include_tid, no_comm (bools), weight ('period' or a decoded\n"
	  "field's name), max_stack. A new pass, as write()." },
	{ "pprof", (PyCFunction)(void (*)(void))rfpy_reader_pprof, METH_VARARGS | METH_KEYWORDS,
	  "pprof(path, **opts): the whole input as a gzipped pprof profile, as\n"
	  "write('pprof', path, **opts): labels (e.g. ['pid', 'comm', 'prev_state']),\n"
	  "weight (numeric decoded fields, one sample type each), max_stack, and the\n"
	  "selection of write()." },
	{ "to_sqlite", (PyCFunction)(void (*)(void))rfpy_reader_to_sqlite,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_sqlite(path, **opts): write('sqlite', path, **opts): perf's export-to-sqlite\n"
	  "database plus every event's fields (overwrite=True replaces an existing file)." },
	{ "check", rfpy_reader_check, METH_NOARGS,
	  "check() -> dict: the raw-layout check of the whole input, as perf rawfrag check:\n"
	  "{'samples', 'errors', 'warnings', 'clean', 'events' (name -> table row with\n"
	  "'kinds'), 'violations' (list)}. Raises rawfrag.Error where check exits 2.\n"
	  "Same pass rules as stats()." },
	{ NULL },
};

PyTypeObject rfpy_reader_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rawfrag.Reader",
	.tp_basicsize = sizeof(rfpy_reader),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An open perf.data input (from rawfrag.open()): a context manager and an\n"
		  "iterator of rawfrag.Sample. Memory stays flat in the file size.",
	.tp_dealloc = (destructor)reader_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)reader_next,
	.tp_methods = reader_methods,
	.tp_getset = reader_getset,
};

/* ---- rawfrag.open() ---- */

static int lib_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? rfpy_print_warning(fmt, ap) : 0;
}

/* a file object without fileno() (io.BytesIO ...): its bytes in a memfd */
static int memfd_of(PyObject *src)
{
	PyObject *data = PyObject_CallMethod(src, "read", NULL);
	Py_buffer b;
	int fd = -1;

	if (!data)
		return -1;
	if (PyObject_GetBuffer(data, &b, PyBUF_SIMPLE)) {
		Py_DECREF(data);
		return -1;
	}
	fd = memfd_create("rawfrag", MFD_CLOEXEC);
	if (fd >= 0) {
		const char *p = b.buf;
		Py_ssize_t left = b.len;

		while (left > 0) {
			ssize_t n = write(fd, p, left);

			if (n <= 0) {
				close(fd);
				fd = -1;
				break;
			}
			p += n;
			left -= n;
		}
	}
	if (fd < 0)
		PyErr_SetFromErrno(PyExc_OSError);
	PyBuffer_Release(&b);
	Py_DECREF(data);
	return fd;
}

/* name, reopen path and fd of the source; 0 or -1 with an exception */
static int take_source(rfpy_reader *r, PyObject *src)
{
	PyObject *fsname = NULL, *name;
	struct stat st;
	int fd;

	if (PyUnicode_Check(src) || PyBytes_Check(src) || PyObject_HasAttrString(src, "__fspath__")) {
		if (!PyUnicode_FSConverter(src, &fsname))
			return -1;
		r->name = strdup(PyBytes_AS_STRING(fsname));
		if (r->name && strcmp(r->name, "-"))
			r->reopen = strdup(r->name);
		Py_DECREF(fsname);
		return r->name ? 0 : (PyErr_NoMemory(), -1);
	}
	if (PyObject_HasAttrString(src, "fileno")) {
		PyObject *n = PyObject_CallMethod(src, "fileno", NULL);

		fd = n ? (int)PyLong_AsLong(n) : -1;
		Py_XDECREF(n);
		if (fd < 0 && PyErr_Occurred()) {
			if (!PyErr_ExceptionMatches(PyExc_OSError) &&
			    !PyErr_ExceptionMatches(PyExc_AttributeError))
				return -1;
			PyErr_Clear(); /* io.BytesIO: fileno() raises UnsupportedOperation */
			fd = memfd_of(src);
		} else if (fd >= 0) {
			fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		}
	} else if (PyObject_HasAttrString(src, "read")) {
		fd = memfd_of(src);
	} else {
		PyErr_SetString(PyExc_TypeError, "rawfrag.open: want a path or a binary file object");
		return -1;
	}
	if (fd < 0) {
		if (!PyErr_Occurred())
			PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	r->fd = fd;
	name = PyObject_GetAttrString(src, "name");
	if (name && PyUnicode_Check(name) && PyUnicode_FSConverter(name, &fsname)) {
		r->name = strdup(PyBytes_AS_STRING(fsname));
		Py_DECREF(fsname);
	} else {
		PyErr_Clear();
		r->name = strdup("<file object>");
	}
	Py_XDECREF(name);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    asprintf(&r->reopen, "/proc/self/fd/%d", fd) < 0)
		r->reopen = NULL;
	return r->name ? 0 : (PyErr_NoMemory(), -1);
}

/* events=: a list of names/globs, or one comma list, as bytes patterns */
static int take_events(rfpy_reader *r, PyObject *events)
{
	PyObject *seq, *list;

	if (!events || events == Py_None)
		return 0;
	if (PyUnicode_Check(events)) {
		PyObject *comma = PyUnicode_FromString(",");

		seq = comma ? PyUnicode_Split(events, comma, -1) : NULL;
		Py_XDECREF(comma);
	} else {
		seq = PySequence_List(events);
	}
	if (!seq)
		return -1;
	list = PyList_New(0);
	for (Py_ssize_t i = 0; list && i < PyList_GET_SIZE(seq); i++) {
		PyObject *b = PyUnicode_AsUTF8String(PyList_GET_ITEM(seq, i));

		if (!b || PyList_Append(list, b))
			Py_CLEAR(list);
		Py_XDECREF(b);
	}
	if (list) {
		PyObject *comma = PyUnicode_FromString(","), *csv;

		csv = comma ? PyUnicode_Join(comma, seq) : NULL;
		Py_XDECREF(comma);
		r->events_csv = csv ? strdup(PyUnicode_AsUTF8(csv) ?: "") : NULL;
		Py_XDECREF(csv);
		if (!r->events_csv)
			Py_CLEAR(list);
	}
	Py_DECREF(seq);
	r->events = list;
	return list ? 0 : -1;
}

/* open the input (again); the caller owns file and session */
static int rfpy_reader_open_file(rfpy_reader *r, bool again, struct rawfrag_file **fp,
			  struct rawfrag_session **sp)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = lib_print, .force = r->force);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = lib_print);
	struct rawfrag_err err = { .offset = -1 };
	const char *path = again ? r->reopen : r->name;

	if (!again && r->fd >= 0) {
		fopts.fd = r->fd;
		fopts.use_fd = true;
	}
	*sp = NULL;
	*fp = rawfrag_file__open(path, &fopts, &err);
	if (*fp)
		*sp = rawfrag_session__new(*fp, &sopts, &err);
	if (!*sp) {
		rawfrag_file__close(*fp);
		*fp = NULL;
		rfpy_raise(r->name, &err);
		return -1;
	}
	return 0;
}

/* the machine's maps follow every non-sample record in delivery order */
static int machine_observer(void *ctx, struct rawfrag_session *s, const struct rawfrag_event *ev)
{
	rfpy_reader *r = ctx;

	return rawfrag_machine__process_record(r->sym.m, ev->rec, r->swap);
}

static int machine_init(rfpy_reader *r)
{
	RAWFRAG_OPTS(rawfrag_machine_opts, mopts, .print = lib_print);

	if (!r->symbols)
		return 0;
	r->sym.m = rawfrag_machine__new(r->file, &mopts);
	r->sym.cc = rawfrag_callchain__new();
	if (!r->sym.m || !r->sym.cc)
		return -1;
	rawfrag_session__set_observer(r->sess, machine_observer, r);
	return 0;
}

static int reader_init(rfpy_reader *r)
{
	if (rfpy_reader_open_file(r, false, &r->file, &r->sess))
		return -1;
	r->swap = rawfrag_file__needs_swap(r->file);
	r->out = rawfrag_out__new(-1);
	r->em = r->out ? rawfrag_emit__new(r->out, RAWFRAG_EMIT_JSON) : NULL;
	r->pending = PyList_New(0);
	r->keys = PyMem_Calloc(1, sizeof(*r->keys));
	r->tool = (struct rawfrag_tool){
		.sz = sizeof(r->tool),
		.sample = reader_sample,
		.sample_error = reader_bad_sample,
		.describe = reader_describe,
		.ordered = r->ordered,
	};
	if (!r->em || !r->pending || !r->keys || machine_init(r)) {
		if (!PyErr_Occurred())
			PyErr_NoMemory();
		return -1;
	}
	return update_evsels(r);
}

PyObject *rfpy_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "events", "ordered", "force", "strict", "where",
				  "symbols", NULL };
	PyObject *src, *events = NULL;
	int ordered = 1, force = 0, strict = 0, symbols = 1;
	const char *where = NULL;
	struct rawfrag_err err;
	rfpy_reader *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$Opppzp:open", kwlist, &src, &events,
					 &ordered, &force, &strict, &where, &symbols))
		return NULL;
	r = PyObject_New(rfpy_reader, &rfpy_reader_type);
	if (!r)
		return NULL;
	memset((char *)r + sizeof(PyObject), 0, sizeof(*r) - sizeof(PyObject));
	r->fd = -1;
	r->ordered = ordered;
	r->force = force;
	r->strict = strict;
	r->symbols = symbols;
	if (where) {
		r->where_src = strdup(where);
		r->where = rawfrag_where__new(where, &err);
		if (!r->where) {
			Py_DECREF(r);
			return rfpy_raisef(NULL, -1, "%s", err.reason);
		}
	}
	if (take_source(r, src) || take_events(r, events) || reader_init(r)) {
		Py_DECREF(r);
		return NULL;
	}
	return (PyObject *)r;
}

const char *rfpy_reader_events(PyObject *self)
{
	return ((rfpy_reader *)self)->events_csv;
}

const char *rfpy_reader_where(PyObject *self)
{
	return ((rfpy_reader *)self)->where_src;
}

const char *rfpy_reader_name(PyObject *self)
{
	return ((rfpy_reader *)self)->name;
}

/*
 * A second pass: the input opened again when it can be (a path, a regular
 * file), else this Reader's own stream while it has not been read from.
 */
int rfpy_reader_pass(PyObject *self, struct rawfrag_file **fp, struct rawfrag_session **sp,
		     bool *own)
{
	rfpy_reader *r = (rfpy_reader *)self;

	if (r->closed) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed rawfrag.Reader");
		return -1;
	}
	if (r->reopen) {
		*own = true;
		return rfpy_reader_open_file(r, true, fp, sp);
	}
	if (r->started) {
		rfpy_raisef(r->name, -1, "stats()/check() on a pipe need the whole stream: "
					 "call them before iterating");
		return -1;
	}
	r->started = true;
	r->done = true;
	*own = false;
	*fp = r->file;
	*sp = r->sess;
	return 0;
}

bool rfpy_reader_strict(PyObject *self)
{
	return ((rfpy_reader *)self)->strict;
}

bool rfpy_reader_force(PyObject *self)
{
	return ((rfpy_reader *)self)->force;
}
