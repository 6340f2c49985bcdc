// SPDX-License-Identifier: GPL-2.0
/*
 * A Sample's symbolized members, through the library's machine as report
 * resolves them (tools/perf-rawfrag/report-sym.c): the sampled ip with its
 * sym/symoff/dso, addr, the call chain (PERF_SAMPLE_CALLCHAIN and DWARF-unwound
 * user frames), and the registers by name. Resolved while the sample is
 * delivered (the maps change as the stream goes on); as Python ints on the
 * Sample, as report's JSON (hex strings) in to_dict().
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include <rawfrag/machine.h>

#include "pyrawfrag.h"

/*
 * Names point into the machine and live as long as it: the str made for a
 * name is kept by its address, so a frame costs no decoding after the first.
 */
static PyObject *name_str(struct rfpy_sym *y, const char *name)
{
	size_t h;
	struct rfpy_name *n;

	if (!name)
		return Py_NewRef(Py_None);
	h = ((uintptr_t)name >> 3) % RFPY_NAME_SLOTS;
	n = &y->names[h];
	if (n->name != name) {
		PyObject *s = rfpy_json_str(name, strlen(name));

		if (!s)
			return NULL;
		Py_XSETREF(n->str, s);
		n->name = name;
	}
	return Py_NewRef(n->str);
}

static PyObject *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return PyUnicode_FromString(buf);
}

/* {"ip", "sym", "symoff", "dso"[, "inlined": True]}, ip an int */
static PyObject *frame_dict(struct rfpy_sym *y, const struct rawfrag_frame *fr)
{
	PyObject *d = Py_BuildValue("{s:K,s:N,s:N,s:N}", "ip", (unsigned long long)fr->ip, "sym",
				    name_str(y, fr->sym), "symoff",
				    fr->sym ? PyLong_FromUnsignedLongLong(fr->symoff) :
					      Py_NewRef(Py_None),
				    "dso", name_str(y, fr->dso));

	if (d && fr->inlined && PyDict_SetItemString(d, "inlined", Py_True)) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* {"abi": n, name: value...} in the file's arch names, as report's "regs" */
static PyObject *regs_dict(const char *arch, uint64_t abi, uint64_t mask, const void *regs,
			   uint32_t nr, bool swap)
{
	PyObject *d = Py_BuildValue("{s:K}", "abi", (unsigned long long)abi);
	uint32_t i = 0;

	for (unsigned int r = 0; d && r < 64 && i < nr && regs; r++) {
		const char *name;
		PyObject *v;

		if (!(mask & (1ULL << r)))
			continue;
		name = rawfrag_regs__name(arch, r);
		if (name) {
			v = PyLong_FromUnsignedLongLong(
				rawfrag__get64((const uint8_t *)regs + 8 * i, swap));
			if (!v || PyDict_SetItemString(d, name, v))
				Py_CLEAR(d);
			Py_XDECREF(v);
		}
		i++;
	}
	return d;
}

static PyObject *regs_of(const char *arch, const struct rawfrag_sample *smp,
			 const struct perf_event_attr *a)
{
	bool user = (smp->sample_type & PERF_SAMPLE_REGS_USER) && smp->user_regs_abi;
	bool intr = (smp->sample_type & PERF_SAMPLE_REGS_INTR) && smp->intr_regs_abi;
	PyObject *d, *v;

	if (!user && !intr)
		return NULL;
	d = PyDict_New();
	if (d && user) {
		v = regs_dict(arch, smp->user_regs_abi, a->sample_regs_user, smp->user_regs,
			      smp->user_regs_nr, smp->swap);
		if (!v || PyDict_SetItemString(d, "user", v))
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	if (d && intr) {
		v = regs_dict(arch, smp->intr_regs_abi, a->sample_regs_intr, smp->intr_regs,
			      smp->intr_regs_nr, smp->swap);
		if (!v || PyDict_SetItemString(d, "intr", v))
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *chain_list(struct rfpy_sym *y, const struct rawfrag_sample *smp,
			    const struct perf_event_attr *a)
{
	PyObject *l;
	int n = rawfrag_callchain__resolve(y->cc, y->m, smp, a, 0);

	if (n < 0)
		return PyErr_NoMemory();
	l = PyList_New(y->cc->nr);
	for (uint32_t i = 0; l && i < y->cc->nr; i++) {
		PyObject *f = frame_dict(y, &y->cc->frames[i]);

		if (!f)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, i, f);
	}
	return l;
}

int rfpy_sym_fill(struct rfpy_sym *y, rfpy_sample *s, const struct rawfrag_sample *smp,
		  const struct perf_event_attr *a, const char *arch)
{
	uint64_t st = smp->sample_type;

	/* symbols=False: no machine, no symbols or chains; addr and regs still */
	if ((st & PERF_SAMPLE_IP) && y->m) {
		struct rawfrag_frame fr;

		rawfrag_machine__resolve(y->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip,
					 smp->misc & PERF_RECORD_MISC_CPUMODE_MASK, &fr);
		s->sym = name_str(y, fr.sym);
		s->dso = name_str(y, fr.dso);
		s->symoff = fr.symoff;
		if (!s->sym || !s->dso)
			return -1;
	}
	if (st & PERF_SAMPLE_ADDR) {
		s->addr = smp->addr;
		s->flags |= RFPY_HAS_ADDR;
	}
	if ((st & PERF_SAMPLE_CALLCHAIN) && y->m) {
		s->callchain = chain_list(y, smp, a);
		if (!s->callchain)
			return -1;
	}
	s->regs = regs_of(arch, smp, a);
	return s->regs || !PyErr_Occurred() ? 0 : -1;
}

void rfpy_sym_clear(struct rfpy_sym *y)
{
	for (int i = 0; i < RFPY_NAME_SLOTS; i++) {
		Py_CLEAR(y->names[i].str);
		y->names[i].name = NULL;
	}
	rawfrag_callchain__delete(y->cc);
	rawfrag_machine__delete(y->m);
	y->cc = NULL;
	y->m = NULL;
}

/* a copy of d with every int value but "abi"'s as report's "0x.." string */
static PyObject *hex_values(PyObject *d, bool keep_abi)
{
	PyObject *o = PyDict_New(), *k, *v;
	Py_ssize_t pos = 0;

	while (o && PyDict_Next(d, &pos, &k, &v)) {
		bool conv = PyLong_Check(v) && !PyBool_Check(v) &&
			    !(keep_abi && PyUnicode_Check(k) &&
			      !PyUnicode_CompareWithASCIIString(k, "abi"));
		PyObject *nv = conv ? hex(PyLong_AsUnsignedLongLong(v)) : Py_NewRef(v);

		if (!nv || PyDict_SetItem(o, k, nv))
			Py_CLEAR(o);
		Py_XDECREF(nv);
	}
	return o;
}

static PyObject *chain_json(PyObject *chain)
{
	Py_ssize_t n = PyList_GET_SIZE(chain);
	PyObject *l = PyList_New(n);

	for (Py_ssize_t i = 0; l && i < n; i++) {
		PyObject *f = PyDict_Copy(PyList_GET_ITEM(chain, i));
		PyObject *ip = f ? hex(PyLong_AsUnsignedLongLong(PyDict_GetItemString(f, "ip")))
				 : NULL;

		if (!ip || PyDict_SetItemString(f, "ip", ip)) {
			Py_XDECREF(f);
			Py_CLEAR(l);
		} else {
			PyList_SET_ITEM(l, i, f);
		}
		Py_XDECREF(ip);
	}
	return l;
}

static int set_new(PyObject *d, const char *key, PyObject *v)
{
	int ret = v ? PyDict_SetItemString(d, key, v) : -1;

	Py_XDECREF(v);
	return ret;
}

/* report's members: ip, sym, symoff, dso, addr, period, callchain, regs */
int rfpy_sym_json(rfpy_sample *s, PyObject *d)
{
	if (s->flags & RFPY_HAS_IP) {
		if (set_new(d, "ip", hex(s->ip)) ||
		    PyDict_SetItemString(d, "sym", s->sym ? s->sym : Py_None) ||
		    set_new(d, "symoff", s->sym && s->sym != Py_None ?
						 PyLong_FromUnsignedLongLong(s->symoff) :
						 Py_NewRef(Py_None)) ||
		    PyDict_SetItemString(d, "dso", s->dso ? s->dso : Py_None))
			return -1;
	}
	if ((s->flags & RFPY_HAS_ADDR) && set_new(d, "addr", hex(s->addr)))
		return -1;
	if ((s->flags & RFPY_HAS_PERIOD) &&
	    set_new(d, "period", PyLong_FromUnsignedLongLong(s->period)))
		return -1;
	if (s->callchain && set_new(d, "callchain", chain_json(s->callchain)))
		return -1;
	if (s->regs) {
		PyObject *r = PyDict_New(), *k, *v;
		Py_ssize_t pos = 0;

		while (r && PyDict_Next(s->regs, &pos, &k, &v)) {
			PyObject *nv = hex_values(v, true);

			if (!nv || PyDict_SetItem(r, k, nv))
				Py_CLEAR(r);
			Py_XDECREF(nv);
		}
		if (set_new(d, "regs", r))
			return -1;
	}
	return 0;
}
