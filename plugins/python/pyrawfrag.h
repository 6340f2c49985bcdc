/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rawfrag Python module (C, CPython API): rawfrag.open() -> Reader of Sample
 * objects, rawfrag.Decoder for perf script handlers, rawfrag.Error.
 *
 * Ownership: a Reader owns its file, session, checker, output buffers and the
 * Samples it has built but not yet handed out; a Sample owns only Python
 * objects (its raw bytes are a copy), so it outlives the Reader.
 */
#ifndef __PYRAWFRAG_H
#define __PYRAWFRAG_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <rawfrag/rawfrag.h>

extern PyObject *rfpy_error; /* rawfrag.Error */
extern PyTypeObject rfpy_sample_type, rfpy_reader_type, rfpy_decoder_type;

/* Raise rawfrag.Error(file, offset, reason) from a library error; returns NULL. */
PyObject *rfpy_raise(const char *file, const struct rawfrag_err *e);
PyObject *rfpy_raisef(const char *file, int64_t offset, const char *fmt, ...);

/* A library warning on stderr, one line (the library's messages may lack the newline). */
int rfpy_print_warning(const char *fmt, va_list ap);

/*
 * Object keys seen before, as str objects (the same fields' names come with
 * every sample of an event): a small direct-mapped cache owned by a Reader or
 * Decoder.
 */
#define RFPY_KEY_MAX 24
#define RFPY_KEY_SLOTS 512
struct rfpy_keys {
	struct rfpy_key {
		PyObject *str;
		uint8_t len;
		char s[RFPY_KEY_MAX];
	} slot[RFPY_KEY_SLOTS];
};
void rfpy_keys__clear(struct rfpy_keys *k);

/* The JSON text our emitter wrote (one value), as Python objects; NULL + exception. */
PyObject *rfpy_from_json(const char *s, size_t len, struct rfpy_keys *keys);

/* One violation as {"kind", "severity", "message", "raw_off"}. */
PyObject *rfpy_violation(const struct rawfrag_violation *v);

/*
 * A Sample: the Python objects it must own (shared event/producer strings, raw
 * bytes, fields, violations) and the scalars, turned into ints only when read.
 */
enum {
	RFPY_HAS_TIME = 1, RFPY_HAS_CPU = 2, RFPY_HAS_TID = 4, RFPY_HAS_PERIOD = 8,
	RFPY_HAS_IP = 16, RFPY_LEN_KNOWN = 32, RFPY_PAD_ZERO = 64, RFPY_HAS_ADDR = 128,
};
typedef struct {
	PyObject_HEAD
	PyObject *event, *producer, *raw, *fields, *violations;
	/* symbolized (symbols.c): str/None, list of frame dicts, {"user"/"intr": {...}} */
	PyObject *sym, *dso, *callchain, *regs;
	uint64_t time, period, ip, offset, addr, symoff;
	uint32_t cpu, pid, tid, raw_size, raw_len;
	uint16_t flags;
	uint8_t comm_len;
	char comm[33];
} rfpy_sample;

/* A name as report's JSON writes it: UTF-8 where it is, other bytes as Latin-1. */
PyObject *rfpy_json_str(const char *s, size_t len);

/*
 * The machine a Reader symbolizes with, as report does (symbols.c): the maps
 * follow the stream; names decoded once per name.
 */
#define RFPY_NAME_SLOTS 1024
struct rawfrag_machine;
struct rawfrag_callchain;
struct perf_event_attr;
struct rfpy_sym {
	struct rawfrag_machine *m;
	struct rawfrag_callchain *cc;
	struct rfpy_name {
		const char *name;
		PyObject *str;
	} names[RFPY_NAME_SLOTS];
};
/* ip's sym/symoff/dso, addr, callchain, regs of smp into s; -1 with an exception */
int rfpy_sym_fill(struct rfpy_sym *y, rfpy_sample *s, const struct rawfrag_sample *smp,
		  const struct perf_event_attr *a, const char *arch);
/* those members into d as report --format json has them; -1 with an exception */
int rfpy_sym_json(rfpy_sample *s, PyObject *d);
void rfpy_sym_clear(struct rfpy_sym *y);

/* rawfrag.open() */
PyObject *rfpy_open(PyObject *mod, PyObject *args, PyObject *kw);

/* Reader internals for stats.c */
const char *rfpy_reader_name(PyObject *self);
bool rfpy_reader_strict(PyObject *self);
bool rfpy_reader_force(PyObject *self);
/*
 * A second pass over the whole input: opened again when it can be (a path, a
 * regular file; *own set, the caller closes), else the Reader's own stream
 * before it was read from. 0 or -1 with an exception.
 */
int rfpy_reader_pass(PyObject *self, struct rawfrag_file **fp, struct rawfrag_session **sp,
		     bool *own);
PyObject *rfpy_reader_stats(PyObject *self, PyObject *unused);
/* Reader.write() (write.c); the Reader's events (comma list) and where, or NULL */
PyObject *rfpy_reader_write(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rfpy_reader_aggregate(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rfpy_reader_folded(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rfpy_reader_pprof(PyObject *self, PyObject *args, PyObject *kw);
/* Reader.to_sqlite(): write("sqlite", path, **opts) */
PyObject *rfpy_reader_to_sqlite(PyObject *self, PyObject *args, PyObject *kw);
const char *rfpy_reader_events(PyObject *self);
const char *rfpy_reader_where(PyObject *self);
PyObject *rfpy_reader_check(PyObject *self, PyObject *unused);

#endif
