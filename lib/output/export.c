// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The relational model of internal/export.h: perf's db-export ids, kept for
 * any store (the sqlite sink is the first). Threads and comms follow perf's
 * machine.c and thread.c as far as the ids need them: a new thread starts
 * with the comm ":tid", its first COMM overrides it, later ones stack up; a
 * FORK of a known tid replaces the thread; the exec comm is the newest comm
 * made by exec, else perf's guess.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/export.h"
#include "internal/machine.h"
#include "internal/report.h"

#define PERF_MAX_STACK 127

struct xcomm {
	char *str;
	uint64_t start, db_id;
	bool exec;
};

struct xthr {
	int32_t pid, tid;
	uint64_t db_id;
	bool comm_set;
	struct xcomm **comms; /* oldest first: perf's comm_list reversed */
	int nr_comms, cap_comms;
	struct xthr *next; /* hash chain, then the list of replaced threads */
};

/* a key of up to three numbers and a name, and its row id */
struct xnode {
	struct xnode *next;
	uint64_t k[3];
	char *name;
	uint64_t id;
};

struct xmap {
	struct xnode **b;
	size_t cap, nr;
};

#define THR_BUCKETS 4096

struct rf_export {
	struct rf_export_store st;
	uint32_t max_stack;
	bool comm_exec;
	struct xthr *thr[THR_BUCKETS];
	struct xthr *gone; /* replaced by a FORK: still named by rows, freed at the end */
	uint64_t *evsel_ids; /* by evsel idx */
	int nr_evsels;
	uint64_t machine_id;
	struct xmap dsos, syms, paths;
	uint64_t last_thread, last_comm, last_comm_thread, last_dso, last_sym, last_path;
	uint64_t last_sample, root_path;
	struct rawfrag_callchain *cc;
};

/* ---- maps ---- */

/*
 * The numbers only (a symbol's name is compared, not hashed: its DSO and
 * address tell symbols apart), each mixed whole: addresses and ids share
 * their low bits
 */
static uint64_t hash3(const uint64_t k[3], const char *name)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	(void)name;
	for (int i = 0; i < 3; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 27;
	}
	return h;
}

static struct xnode *xmap_find(struct xmap *m, const uint64_t k[3], const char *name)
{
	if (!m->cap)
		return NULL;
	for (struct xnode *n = m->b[hash3(k, name) & (m->cap - 1)]; n; n = n->next)
		if (n->k[0] == k[0] && n->k[1] == k[1] && n->k[2] == k[2] &&
		    (!name || !strcmp(n->name, name)))
			return n;
	return NULL;
}

static struct xnode *xmap_add(struct xmap *m, const uint64_t k[3], const char *name, uint64_t id)
{
	struct xnode *n;

	if (m->nr >= m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct xnode **b = calloc(cap, sizeof(*b));

		if (!b)
			return NULL;
		for (size_t i = 0; i < m->cap; i++)
			while (m->b[i]) {
				struct xnode *x = m->b[i];

				m->b[i] = x->next;
				x->next = b[hash3(x->k, x->name) & (cap - 1)];
				b[hash3(x->k, x->name) & (cap - 1)] = x;
			}
		free(m->b);
		m->b = b;
		m->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n || (name && !(n->name = strdup(name)))) {
		free(n);
		return NULL;
	}
	memcpy(n->k, k, sizeof(n->k));
	n->id = id;
	n->next = m->b[hash3(k, name) & (m->cap - 1)];
	m->b[hash3(k, name) & (m->cap - 1)] = n;
	m->nr++;
	return n;
}

static void xmap_free(struct xmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		while (m->b[i]) {
			struct xnode *n = m->b[i];

			m->b[i] = n->next;
			free(n->name);
			free(n);
		}
	free(m->b);
}

/* ---- threads and comms ---- */

static struct xthr **thr_slot(struct rf_export *x, int32_t tid)
{
	struct xthr **p = &x->thr[((uint32_t)tid * 2654435761u) % THR_BUCKETS];

	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

static int comm_push(struct xthr *t, const char *str, uint64_t start, bool exec)
{
	struct xcomm *c;

	if (t->nr_comms == t->cap_comms) {
		int cap = t->cap_comms ? t->cap_comms * 2 : 2;
		struct xcomm **v = realloc(t->comms, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->comms = v;
		t->cap_comms = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->str = strdup(str))) {
		free(c);
		return -ENOMEM;
	}
	c->start = start;
	c->exec = exec;
	t->comms[t->nr_comms++] = c;
	return 0;
}

static void thr_free(struct xthr *t)
{
	for (int i = 0; i < t->nr_comms; i++) {
		free(t->comms[i]->str);
		free(t->comms[i]);
	}
	free(t->comms);
	free(t);
}

/* perf's __thread__set_comm(): the first name overrides ":tid", later ones stack */
static int set_comm(struct xthr *t, const char *str, uint64_t time, bool exec)
{
	if (!t->comm_set) {
		struct xcomm *c = t->comms[t->nr_comms - 1];
		char *s = strdup(str);

		if (!s)
			return -ENOMEM;
		free(c->str);
		c->str = s;
		c->start = time;
		c->exec |= exec;
	} else if (comm_push(t, str, time, exec)) {
		return -ENOMEM;
	}
	t->comm_set = true;
	return 0;
}

static struct xthr *find_thread(struct rf_export *x, int32_t pid, int32_t tid);

/* perf's machine__findnew_thread(): a new thread's leader is made too */
static struct xthr *findnew_thread(struct rf_export *x, int32_t pid, int32_t tid)
{
	struct xthr **p = thr_slot(x, tid), *t = *p;
	char name[16];

	if (t) {
		if (t->pid == -1 && pid != -1) {
			t->pid = pid;
			if (pid != tid && !findnew_thread(x, pid, pid))
				return NULL;
		}
		return t;
	}
	t = calloc(1, sizeof(*t));
	snprintf(name, sizeof(name), ":%d", tid);
	if (!t || comm_push(t, name, 0, false)) {
		free(t);
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	*p = t;
	if (pid != -1 && pid != tid && !findnew_thread(x, pid, pid))
		return NULL;
	return t;
}

static struct xthr *find_thread(struct rf_export *x, int32_t pid, int32_t tid)
{
	return *thr_slot(x, tid);
}

/* a FORK of a known tid: the old thread leaves the table (rows still name it) */
static void remove_thread(struct rf_export *x, int32_t tid)
{
	struct xthr **p = thr_slot(x, tid), *t = *p;

	if (!t)
		return;
	*p = t->next;
	t->next = x->gone;
	x->gone = t;
}

static struct xcomm *cur_comm(const struct xthr *t)
{
	return t->comms[t->nr_comms - 1];
}

/* perf's thread__exec_comm() (or the current comm without comm_exec) */
static struct xcomm *exec_comm(const struct rf_export *x, const struct xthr *t)
{
	if (!x->comm_exec)
		return cur_comm(t);
	for (int i = t->nr_comms - 1; i >= 0; i--)
		if (t->comms[i]->exec)
			return t->comms[i];
	/* a synthesized fork's first comm (time 0) is likely the parent's */
	if (t->nr_comms > 1 && !t->comms[0]->start && t->pid == t->tid)
		return t->comms[1];
	return t->comms[0];
}

int rf_export__task(struct rf_export *x, const struct rawfrag_event *ev, bool swap)
{
	const struct rawfrag_record *rec = ev->rec;
	const uint8_t *d = rec->data;
	uint32_t size = rec->size;

	/* rec->data starts with the header */
	if (rec->type == PERF_RECORD_COMM && size > 16) {
		char comm[64];
		size_t n = strnlen((const char *)d + 16, size - 16);
		bool exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
		struct xthr *t;

		if (n > sizeof(comm) - 1)
			n = sizeof(comm) - 1;
		memcpy(comm, d + 16, n);
		comm[n] = '\0';
		if (exec)
			x->comm_exec = true;
		t = findnew_thread(x, (int32_t)rawfrag__get32(d + 8, swap),
				   (int32_t)rawfrag__get32(d + 12, swap));
		if (!t || set_comm(t, comm, ev->time, exec))
			return -ENOMEM;
	} else if (rec->type == PERF_RECORD_FORK && size >= 8 + 16) {
		int32_t pid = (int32_t)rawfrag__get32(d + 8, swap);
		int32_t ppid = (int32_t)rawfrag__get32(d + 12, swap);
		int32_t tid = (int32_t)rawfrag__get32(d + 16, swap);
		int32_t ptid = (int32_t)rawfrag__get32(d + 20, swap);
		struct xthr *parent = findnew_thread(x, ppid, ptid), *t;

		if (parent && parent->pid != ppid) {
			/* perf drops a parent that is not the one the FORK names */
			remove_thread(x, ptid);
			parent = findnew_thread(x, ppid, ptid);
		}
		remove_thread(x, tid);
		t = findnew_thread(x, pid, tid);
		if (!t || !parent)
			return -ENOMEM;
		/* perf's thread__fork(): the child is named as its parent is now */
		if (parent->comm_set && set_comm(t, cur_comm(parent)->str, ev->time, false))
			return -ENOMEM;
	}
	return 0;
}

/* ---- rows ---- */

static int export_comm(struct rf_export *x, struct xcomm *c, const struct xthr *t)
{
	c->db_id = ++x->last_comm;
	return x->st.comm(x->st.ctx, c->db_id, c->str, t->db_id, c->start, c->exec);
}

static int export_thread(struct rf_export *x, struct xthr *t, const struct xthr *main)
{
	if (t->db_id)
		return 0;
	t->db_id = ++x->last_thread;
	return x->st.thread(x->st.ctx, t->db_id, x->machine_id, main ? main->db_id : 0, t->pid,
			    t->tid);
}

/* perf's db_export__threads(): the main thread, its exec comm, the thread, its comm */
static int export_threads(struct rf_export *x, struct xthr *t, struct xthr *main,
			  uint64_t *comm_id)
{
	struct xcomm *comm = NULL;
	int ret;

	if (main) {
		if ((ret = export_thread(x, main, main)))
			return ret;
		comm = exec_comm(x, main);
		if (!comm->db_id) {
			if ((ret = export_comm(x, comm, main)) ||
			    (ret = x->st.comm_thread(x->st.ctx, ++x->last_comm_thread, comm->db_id,
						     main->db_id)))
				return ret;
		}
		*comm_id = comm->db_id;
	}
	if (t != main) {
		bool comm_thread = comm && !t->db_id;

		if ((ret = export_thread(x, t, main)))
			return ret;
		if (comm_thread && (ret = x->st.comm_thread(x->st.ctx, ++x->last_comm_thread,
							    comm->db_id, t->db_id)))
			return ret;
	}
	if (!cur_comm(t)->db_id)
		return export_comm(x, cur_comm(t), t);
	return 0;
}

/* perf's short name of a DSO: the base name; [kernel.kallsyms], [vdso] as they are */
static const char *dso_short(const char *name)
{
	const char *s = strrchr(name, '/');

	return name[0] == '[' || !s ? name : s + 1;
}

static int export_dso(struct rf_export *x, struct rf_dso *d, uint64_t *id)
{
	uint64_t k[3] = { (uintptr_t)d, 0, 0 };
	struct xnode *n = xmap_find(&x->dsos, k, NULL);
	char bid[41];
	int ret;

	if (n) {
		*id = n->id;
		return 0;
	}
	if (!(n = xmap_add(&x->dsos, k, NULL, ++x->last_dso)))
		return -ENOMEM;
	*id = n->id;
	for (int i = 0; i < d->bid_size && i < 20; i++)
		snprintf(bid + 2 * i, 3, "%02x", d->bid[i]);
	bid[2 * (d->bid_size < 20 ? d->bid_size : 20)] = '\0';
	ret = x->st.dso(x->st.ctx, n->id, x->machine_id, dso_short(d->name), d->name, bid);
	return ret;
}

static int export_sym(struct rf_export *x, uint64_t dso_id, uint64_t start, uint64_t end,
		      int bind, const char *name, uint64_t *id)
{
	uint64_t k[3] = { dso_id, start, end };
	struct xnode *n = xmap_find(&x->syms, k, name);

	if (n) {
		*id = n->id;
		return 0;
	}
	if (!(n = xmap_add(&x->syms, k, name, ++x->last_sym)))
		return -ENOMEM;
	*id = n->id;
	return x->st.symbol(x->st.ctx, n->id, dso_id, start, end, bind, name);
}

/* perf's binding values: STB_LOCAL 0, STB_GLOBAL 1, STB_WEAK 2 */
static int binding_of(const struct rf_sym *s)
{
	return s->bind;
}

/*
 * perf's db_ids_from_al(): the DSO and symbol of an address (a symbol
 * "unknown" of size 0 where a map has none). *found_at, for a chain's frame:
 * the DSO address of the "unknown" an earlier sample made there, which
 * perf's own lookup of the frame found (0: none).
 */
static int ids_of(struct rf_export *x, struct rawfrag_machine *m, int32_t pid,
		  const struct rawfrag_frame *fr, uint64_t unknown_at, uint64_t *dso_id,
		  uint64_t *sym_id, uint64_t *off, uint64_t *found_at)
{
	const struct rf_sym *s;
	struct rf_dso *d;
	uint64_t map_ip = 0;
	int ret;

	*dso_id = *sym_id = *off = *found_at = 0;
	if (!fr->dso)
		return 0;
	d = rf_machine__frame_sym(m, pid, fr->addr, fr->cpumode, &map_ip, &s);
	if (!d)
		return 0;
	if ((ret = export_dso(x, d, dso_id)))
		return ret;
	if (fr->inlined && fr->sym)
		/* an inlined function: a symbol of its own, as perf's inline_sym */
		return export_sym(x, *dso_id, s ? s->start : map_ip, s ? s->end : map_ip, 1,
				  fr->sym, sym_id);
	if (!s) {
		/*
		 * perf inserts each "unknown" symbol into its DSO: a chain's frame
		 * finds the one an earlier sample made at its DSO address, else
		 * makes its own at the raw address
		 */
		uint64_t k[3] = { *dso_id, map_ip, map_ip };
		struct xnode *n = unknown_at ? xmap_find(&x->syms, k, "unknown") : NULL;
		uint64_t at = unknown_at ? unknown_at : map_ip;

		if (n) {
			*sym_id = n->id;
			*found_at = map_ip;
			return 0;
		}
		return export_sym(x, *dso_id, at, at, 0, "unknown", sym_id);
	}
	*off = fr->symoff;
	return export_sym(x, *dso_id, s->start, s->end, binding_of(s), rf_dso__sym_name(d, s),
			  sym_id);
}

static int export_path(struct rf_export *x, uint64_t parent, uint64_t sym_id, uint64_t ip,
		       uint64_t *id)
{
	uint64_t k[3] = { parent, sym_id, ip };
	struct xnode *n = xmap_find(&x->paths, k, NULL);

	if (n) {
		*id = n->id;
		return 0;
	}
	if (!(n = xmap_add(&x->paths, k, NULL, ++x->last_path)))
		return -ENOMEM;
	*id = n->id;
	return x->st.call_path(x->st.ctx, n->id, parent, sym_id, ip);
}

/*
 * perf's call_path_from_sample(): the chain root first, each frame a node
 * under the previous one keyed by its symbol (ip only without a symbol); in
 * perf an unknown frame inside a map gets its "unknown" symbol at the raw
 * address, not the DSO address as a sample's own ip does.
 */
static int call_path(struct rf_export *x, struct rawfrag_report *rep,
		     const struct rawfrag_event *ev, uint64_t *id)
{
	const struct rawfrag_sample *smp = ev->sample;
	struct rawfrag_machine *m = rawfrag_report__machine(rep);
	uint64_t cur;
	int n, ret;

	*id = 0;
	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	n = rawfrag_callchain__resolve(x->cc, m, smp, rawfrag_evsel__attr(ev->evsel), x->max_stack);
	if (n <= 0)
		return n;
	if (!x->root_path) {
		x->root_path = ++x->last_path;
		if ((ret = x->st.call_path(x->st.ctx, x->root_path, 0, 0, 0)))
			return ret;
	}
	cur = x->root_path;
	for (int i = n - 1; i >= 0; i--) {
		const struct rawfrag_frame *fr = &x->cc->frames[i];
		uint64_t dso_id, sym_id, off;

		uint64_t found_at;
		char **names;
		int k;

		ret = ids_of(x, m, (int32_t)smp->pid, fr, fr->addr, &dso_id, &sym_id, &off, &found_at);
		if (ret)
			return ret;
		/*
		 * perf's unwinder found that "unknown", so it asks addr2line about
		 * the frame (append_inlines()): each name it gives other than
		 * "unknown" is a symbol of the unknown's range (a stripped file's
		 * nearest function symbol below the address, say), outermost first
		 */
		if (found_at && fr->cpumode == PERF_RECORD_MISC_USER && rf_sample__unwound(smp) &&
		    (k = rf_unwind__inlines(m, (int32_t)smp->pid, fr->addr, &names)) > 0) {
			while (k--) {
				uint64_t nid = sym_id;

				if (strcmp(names[k], "unknown") &&
				    (ret = export_sym(x, dso_id, found_at, found_at, 0, names[k], &nid)))
					return ret;
				if ((ret = export_path(x, cur, nid, 0, &cur)))
					return ret;
			}
			continue;
		}
		if ((ret = export_path(x, cur, sym_id, sym_id ? 0 : fr->addr, &cur)))
			return ret;
	}
	*id = cur;
	return 0;
}

int rf_export__sample(struct rf_export *x, struct rawfrag_report *rep,
		      const struct rawfrag_event *ev, struct rf_export_sample *es)
{
	const struct rawfrag_sample *smp = ev->sample;
	const struct perf_event_attr *a = rawfrag_evsel__attr(ev->evsel);
	struct rawfrag_machine *m = rawfrag_report__machine(rep);
	int idx = rawfrag_evsel__idx(ev->evsel);
	int32_t pid = -1, tid = -1;
	struct xthr *t, *main;
	struct rawfrag_frame fr;
	uint64_t found_at;
	int ret;

	*es = (struct rf_export_sample){ .cpu = -1, .time = (uint64_t)-1 };
	if (idx >= x->nr_evsels) {
		uint64_t *v = realloc(x->evsel_ids, (idx + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + x->nr_evsels, 0, (idx + 1 - x->nr_evsels) * sizeof(*v));
		x->evsel_ids = v;
		x->nr_evsels = idx + 1;
	}
	if (!x->evsel_ids[idx]) {
		uint64_t id = 1;

		for (int i = 0; i < x->nr_evsels; i++)
			id += x->evsel_ids[i] != 0;
		x->evsel_ids[idx] = id;
		if ((ret = x->st.evsel(x->st.ctx, id, rawfrag_evsel__name(ev->evsel))))
			return ret;
	}
	es->evsel_id = x->evsel_ids[idx];
	if (!x->machine_id) {
		/* the host: perf's HOST_KERNEL_ID pid, no root directory */
		x->machine_id = 1;
		if ((ret = x->st.machine(x->st.ctx, 1, -1, "")))
			return ret;
	}
	es->machine_id = x->machine_id;
	if (smp->sample_type & PERF_SAMPLE_TID) {
		pid = (int32_t)smp->pid;
		tid = (int32_t)smp->tid;
	}
	t = findnew_thread(x, pid, tid);
	if (!t)
		return -ENOMEM;
	/* perf's thread__main_thread() */
	main = t->pid == t->tid ? t : t->pid == -1 ? NULL : find_thread(x, t->pid, t->pid);
	if ((ret = export_threads(x, t, main, &es->comm_id)))
		return ret;
	es->thread_id = t->db_id;
	es->id = ++x->last_sample;
	rawfrag_machine__resolve(m, pid, tid, smp->ip, smp->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				 &fr);
	if ((ret = ids_of(x, m, pid, &fr, 0, &es->dso_id, &es->symbol_id, &es->sym_offset,
			  &found_at)))
		return ret;
	if ((ret = call_path(x, rep, ev, &es->call_path_id)))
		return ret;
	es->ip = smp->sample_type & PERF_SAMPLE_IP ? smp->ip : 0;
	if (smp->sample_type & PERF_SAMPLE_TIME)
		es->time = smp->time;
	if (smp->sample_type & PERF_SAMPLE_CPU)
		es->cpu = (int32_t)smp->cpu;
	if (smp->sample_type & PERF_SAMPLE_ADDR)
		es->to_ip = smp->addr;
	/* perf's page-fault addresses resolve to a DSO and symbol */
	if ((smp->sample_type & PERF_SAMPLE_ADDR) && a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
	     a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)) {
		rawfrag_machine__resolve(m, pid, tid, smp->addr,
					 smp->misc & PERF_RECORD_MISC_CPUMODE_MASK, &fr);
		if ((ret = ids_of(x, m, pid, &fr, 0, &es->to_dso_id, &es->to_symbol_id,
				  &es->to_sym_offset, &found_at)))
			return ret;
	}
	es->period = smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : a->sample_period;
	es->weight = smp->weight;
	es->transaction = smp->transaction;
	/* perf's PERF_MEM_DATA_SRC_NONE where the sample has none */
	es->data_src = smp->sample_type & PERF_SAMPLE_DATA_SRC ? smp->data_src : 0x05080021;
	return 0;
}

int rf_export__begin(struct rf_export *x, struct rawfrag_report *rep)
{
	struct rawfrag_file *f = rawfrag_session__file(rawfrag_report__session(rep));
	struct xthr *idle;

	for (int i = 0; i < rawfrag_file__nr_evsels(f); i++)
		if (rawfrag_evsel__attr(rawfrag_file__evsel(f, i))->comm_exec)
			x->comm_exec = true;
	/* perf registers the idle thread as "swapper" before the first record */
	idle = findnew_thread(x, 0, 0);
	if (!idle || set_comm(idle, "swapper", 0, false))
		return -ENOMEM;
	return 0;
}

struct rf_export *rf_export__new(const struct rf_export_store *st, uint32_t max_stack)
{
	struct rf_export *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->st = *st;
	x->max_stack = max_stack ? max_stack : PERF_MAX_STACK;
	x->cc = rawfrag_callchain__new();
	if (!x->cc) {
		free(x);
		return NULL;
	}
	return x;
}

void rf_export__delete(struct rf_export *x)
{
	if (!x)
		return;
	for (int i = 0; i < THR_BUCKETS; i++)
		while (x->thr[i]) {
			struct xthr *t = x->thr[i];

			x->thr[i] = t->next;
			thr_free(t);
		}
	while (x->gone) {
		struct xthr *t = x->gone;

		x->gone = t->next;
		thr_free(t);
	}
	xmap_free(&x->dsos);
	xmap_free(&x->syms);
	xmap_free(&x->paths);
	free(x->evsel_ids);
	rawfrag_callchain__delete(x->cc);
	free(x);
}
