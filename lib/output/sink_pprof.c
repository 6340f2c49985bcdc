// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "pprof" sink: the samples as one gzipped pprof profile (profile.proto,
 * pprof.c), for go tool pprof and the continuous profilers that read it.
 *
 * One profile for the whole file, every event a sample type of its own:
 * "samples/count" counts samples of every event, "<event>/<unit>" sums the
 * period of that event's samples (unit "nanoseconds" for cpu-clock and
 * task-clock, "count" otherwise), and each weight=FIELD sums a numeric
 * decoded field ("<field>/<unit>"). A stack seen by two events is one
 * pprof sample with a value in each event's column; `-sample_index=EVENT`
 * picks one. The default sample type is the first event's.
 *
 * Stacks are the call chains perf script prints (leaf first), or the sample's
 * ip alone; frames at one address that carry inlined functions are one
 * location with a line per function, the innermost first. Mappings are the
 * recorded maps (file as perf names it, build-id, start, limit, file offset);
 * functions are named by their symbol and carry their DSO as file name.
 * Samples with the same stack and labels are one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <rawfrag/visit.h>

#include "internal/mapinfo.h"
#include "internal/opts.h"
#include "internal/pprof.h"
#include "internal/report.h"
#include "internal/seqref.h"

#define PP_MAX_LABELS 16
#define PP_MAX_WEIGHTS 8
#define PP_STR_MAX 256

enum lkind { L_PID, L_TID, L_CPU, L_COMM, L_EVENT, L_FIELD };

/* a decoded field a label or weight reads: its path, its event (if one is named) */
struct pfield {
	char *name; /* as given: the label key, the sample type */
	char *path, *event;
	/* this sample's value */
	bool got, num;
	int64_t v;
	char str[PP_STR_MAX];
	size_t len;
	/* over the run */
	bool seen;
	int str_event; /* a weight met as a string: in this event's samples (index + 1; 0 not) */
	uint64_t str_seq; /* -j: ... first in this sample */
};

struct plabel {
	enum lkind kind;
	int64_t key, unit; /* string indices */
	struct pfield f;
};

struct pweight {
	struct pfield f;
	int64_t type, unit;
};

/*
 * The location of a frame without inlined functions, by its address and map:
 * most frames repeat, and their symbol, DSO and map need no look-up again
 */
struct fcache {
	uint64_t addr, start, pgoff, loc;
	const void *dso;
	uint8_t cpumode;
};
#define FCACHE 16384

/* an event's column, made on its first sample */
struct pev {
	uint32_t col; /* 0: none yet */
	uint64_t seq; /* -j: the sample that made the column */
	uint64_t period; /* pprof's period: the attr's fixed one, or its frequency's */
};

struct pprof_sink {
	char *path;
	int fd, own_fd;
	struct plabel lab[PP_MAX_LABELS];
	int nr_lab;
	struct pweight w[PP_MAX_WEIGHTS];
	int nr_w;
	bool visit; /* some label or weight is a decoded field */
	uint32_t max_stack;
	struct rf_pprof *p;
	struct rawfrag_session *sess;
	struct rawfrag_file *file;
	struct rawfrag_callchain *cc;
	/* the columns: 0 samples, 1..nr_w the weights, then the events */
	int64_t *types, *units;
	uint32_t nr_cols, cap_cols;
	struct pev *ev; /* by evsel index */
	int nr_ev;
	uint64_t first_time, last_time;
	bool any_time;
	uint64_t *locs;
	uint32_t cap_locs;
	struct fcache *fc; /* FCACHE of them */
	int werr;
	/* -j: the number of the sample being added; the (empty) output of a chunk */
	uint64_t seq;
	struct rawfrag_out *jout;
};

/* ---- options ---- */

/* the unit of a field pprof shows beside its values, by the field's name */
static const char *field_unit(const char *path)
{
	static const struct {
		const char *name, *unit;
	} units[] = {
		/* AMD IBS latencies and counters */
		{ "DcMissLat", "cycles" }, { "TlbRefillLat", "cycles" }, { "FetchLat", "cycles" },
		{ "ItlbRefillLat", "cycles" }, { "CompToRetCtr", "cycles" },
		{ "TagToRetCtr", "cycles" },
		/* packet and allocation sizes */
		{ "len", "bytes" }, { "orig_len", "bytes" }, { "caplen", "bytes" },
		{ "snaplen", "bytes" }, { "bytes_req", "bytes" }, { "bytes_alloc", "bytes" },
		{ "bytes", "bytes" }, { "nr_bytes", "bytes" },
		/* scheduler times (sched_stat_*) */
		{ "runtime", "nanoseconds" }, { "vruntime", "nanoseconds" },
		{ "delay", "nanoseconds" },
	};
	const char *last = strrchr(path, '.');

	last = last ? last + 1 : path;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].name, last))
			return units[i].unit;
	return NULL;
}

/* "[sys:event.]path": the event's name holds a ':' */
static int field_parse(struct pfield *f, const char *s)
{
	const char *dot = strchr(s, ':') ? strchr(strchr(s, ':'), '.') : NULL;

	f->name = strdup(s);
	f->path = strdup(dot ? dot + 1 : s);
	if (dot)
		f->event = strndup(s, (size_t)(dot - s));
	return f->name && f->path && (!dot || f->event) ? 0 : -ENOMEM;
}

static void field_free(struct pfield *f)
{
	free(f->name);
	free(f->path);
	free(f->event);
}

static int64_t str_of(struct pprof_sink *t, const char *s)
{
	return s ? rf_pprof__str(t->p, s, strlen(s)) : 0;
}

/* split a comma list; fn(t, item, err) for each */
static int each_item(struct pprof_sink *t, const char *list, const char *opt,
		     int (*fn)(struct pprof_sink *t, const char *item, struct rawfrag_err *err),
		     struct rawfrag_err *err)
{
	char *dup = strdup(list), *save = NULL, msg[200];
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (char *k = strtok_r(dup, ",", &save); k && !ret; k = strtok_r(NULL, ",", &save)) {
		while (*k == ' ')
			k++;
		if (!*k)
			continue;
		ret = fn(t, k, err);
	}
	free(dup);
	if (ret == -ENOMEM) {
		snprintf(msg, sizeof(msg), "pprof output: %s: out of memory", opt);
		rf_err_set(err, -ENOMEM, msg);
	}
	return ret;
}

static int add_label(struct pprof_sink *t, const char *k, struct rawfrag_err *err)
{
	static const char *const fixed[] = { [L_PID] = "pid", [L_TID] = "tid", [L_CPU] = "cpu",
					     [L_COMM] = "comm", [L_EVENT] = "event" };
	struct plabel *l = &t->lab[t->nr_lab];
	char msg[200];

	if (t->nr_lab == PP_MAX_LABELS) {
		rf_err_set(err, -EINVAL, "pprof output: at most 16 labels");
		return -EINVAL;
	}
	for (int i = 0; i < t->nr_lab; i++) {
		if (!strcmp(t->lab[i].f.name, k)) {
			snprintf(msg, sizeof(msg), "pprof output: label '%.60s' given twice", k);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
	}
	l->kind = L_FIELD;
	for (int i = 0; i < L_FIELD; i++)
		if (!strcmp(fixed[i], k))
			l->kind = (enum lkind)i;
	if (field_parse(&l->f, k))
		return -ENOMEM;
	t->nr_lab++;
	l->key = str_of(t, k);
	/*
	 * pprof keeps a numeric label of 0 only when it has a unit (cpu 0, pid
	 * 0 would be lost): every numeric label has one, "count" (shown as a
	 * bare number) where no better is known
	 */
	l->unit = str_of(t, l->kind == L_FIELD && field_unit(l->f.path) ? field_unit(l->f.path) :
									  "count");
	if (l->key < 0 || l->unit < 0)
		return -ENOMEM;
	t->visit |= l->kind == L_FIELD;
	return 0;
}

static int add_weight(struct pprof_sink *t, const char *k, struct rawfrag_err *err)
{
	struct pweight *w = &t->w[t->nr_w];
	const char *unit;
	char msg[200];

	/* every profile has these columns (folded's --weight period is the same option) */
	if (!strcmp(k, "period") || !strcmp(k, "samples"))
		return 0;
	if (t->nr_w == PP_MAX_WEIGHTS) {
		rf_err_set(err, -EINVAL, "pprof output: at most 8 weights");
		return -EINVAL;
	}
	for (int i = 0; i < t->nr_w; i++) {
		if (!strcmp(t->w[i].f.name, k)) {
			snprintf(msg, sizeof(msg), "pprof output: weight '%.60s' given twice", k);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
	}
	if (field_parse(&w->f, k))
		return -ENOMEM;
	t->nr_w++;
	unit = field_unit(w->f.path);
	w->type = str_of(t, k);
	w->unit = str_of(t, unit ? unit : "count");
	if (w->type < 0 || w->unit < 0)
		return -ENOMEM;
	t->visit = true;
	return 0;
}

static int parse_opts(struct pprof_sink *t, const char *const *kv, struct rawfrag_err *err)
{
	const char *s;
	char msg[200], *end;
	int ret;

	s = rf_sink_opt(kv, "max_stack");
	if (s) {
		unsigned long n = strtoul(s, &end, 10);

		if (!*s || *end || *s == '-' || n == 0 || n > 65535) {
			snprintf(msg, sizeof(msg), "pprof output: max_stack=%.40s is not a number "
						   "of frames (1-65535)", s);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		t->max_stack = (uint32_t)n;
	}
	s = rf_sink_opt(kv, "labels");
	if (s && (ret = each_item(t, s, "labels", add_label, err)))
		return ret;
	s = rf_sink_opt(kv, "weight");
	if (s && (ret = each_item(t, s, "weight", add_weight, err)))
		return ret;
	return 0;
}

/* ---- columns ---- */

static int64_t add_col(struct pprof_sink *t, int64_t type, int64_t unit)
{
	if (t->nr_cols == t->cap_cols) {
		uint32_t cap = t->cap_cols ? 2 * t->cap_cols : 16;
		int64_t *ty = realloc(t->types, cap * sizeof(*ty)), *un;

		if (!ty)
			return -ENOMEM;
		t->types = ty;
		un = realloc(t->units, cap * sizeof(*un));
		if (!un)
			return -ENOMEM;
		t->units = un;
		t->cap_cols = cap;
	}
	t->types[t->nr_cols] = type;
	t->units[t->nr_cols] = unit;
	return t->nr_cols++;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* the column of the sample's event, made on its first sample */
static int64_t event_col(struct pprof_sink *t, const struct rawfrag_evsel *evsel)
{
	const struct perf_event_attr *a = rawfrag_evsel__attr(evsel);
	int idx = rawfrag_evsel__idx(evsel);
	int64_t col, type, unit;
	struct pev *e;

	if (idx < 0)
		return -EINVAL;
	if (idx < t->nr_ev && t->ev[idx].col)
		return t->ev[idx].col;
	if (idx >= t->nr_ev) {
		e = realloc(t->ev, (size_t)(idx + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		memset(e + t->nr_ev, 0, (size_t)(idx + 1 - t->nr_ev) * sizeof(*e));
		t->ev = e;
		t->nr_ev = idx + 1;
	}
	type = str_of(t, rawfrag_evsel__name(evsel));
	unit = str_of(t, is_clock(a) ? "nanoseconds" : "count");
	if (type < 0 || unit < 0 || (col = add_col(t, type, unit)) < 0)
		return -ENOMEM;
	e = &t->ev[idx];
	e->col = (uint32_t)col;
	e->seq = t->seq;
	if (!a->freq)
		e->period = a->sample_period;
	else if (is_clock(a) && a->sample_freq)
		e->period = 1000000000ULL / a->sample_freq;
	return col;
}

/* ---- one sample ---- */

static bool field_wants(const struct pfield *f, const char *evname)
{
	const char *c;

	if (!f->event || !strcmp(f->event, evname))
		return true;
	c = strchr(evname, ':');
	return c && !strcmp(f->event, c + 1);
}

static void field_take(struct pfield *pf, const struct rawfrag_field *f)
{
	size_t n = 0;

	if (pf->got || strlen(pf->path) != f->path_len || memcmp(pf->path, f->path, f->path_len))
		return;
	pf->num = true;
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX:
		pf->v = (int64_t)f->v.u;
		break;
	case RAWFRAG_FIELD_S64:
		pf->v = f->v.s;
		break;
	case RAWFRAG_FIELD_BOOL:
		pf->v = f->v.b;
		break;
	case RAWFRAG_FIELD_STR:
		pf->num = false;
		n = f->v.str.len < PP_STR_MAX ? f->v.str.len : PP_STR_MAX - 1;
		memcpy(pf->str, f->v.str.p, n);
		break;
	case RAWFRAG_FIELD_BYTES:
		pf->num = false;
		for (size_t j = 0; j < f->v.str.len && n + 3 < PP_STR_MAX; j++)
			n += (size_t)snprintf(pf->str + n, 3, "%02x", (unsigned char)f->v.str.p[j]);
		break;
	default:
		return; /* null: no value */
	}
	pf->len = n;
	pf->got = pf->seen = true;
}

static int visit_field(void *ctx, const struct rawfrag_field *f)
{
	struct pprof_sink *t = ctx;

	if (f->type == RAWFRAG_FIELD_OBJECT || f->type == RAWFRAG_FIELD_ARRAY)
		return 0;
	for (int i = 0; i < t->nr_lab; i++)
		if (t->lab[i].kind == L_FIELD)
			field_take(&t->lab[i].f, f);
	for (int i = 0; i < t->nr_w; i++)
		field_take(&t->w[i].f, f);
	return 0;
}

/* the decoded fields the labels and weights read, for this sample's event */
static void visit(struct pprof_sink *t, const struct rawfrag_event *ev, const char *evname)
{
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = visit_field, .ctx = t };
	bool any = false;

	for (int i = 0; i < t->nr_lab; i++) {
		t->lab[i].f.got = t->lab[i].kind != L_FIELD || !field_wants(&t->lab[i].f, evname);
		any |= !t->lab[i].f.got;
	}
	for (int i = 0; i < t->nr_w; i++) {
		t->w[i].f.got = !field_wants(&t->w[i].f, evname);
		any |= !t->w[i].f.got;
	}
	if (any)
		rawfrag_session__sample_visit(t->sess, ev->evsel, ev->rec, ev->sample, &v);
	/* got only for values read now */
	for (int i = 0; i < t->nr_lab; i++)
		if (t->lab[i].kind != L_FIELD || !field_wants(&t->lab[i].f, evname))
			t->lab[i].f.got = false;
	for (int i = 0; i < t->nr_w; i++)
		if (!field_wants(&t->w[i].f, evname))
			t->w[i].f.got = false;
}

static int labels_of(struct pprof_sink *t, struct rawfrag_report *rep,
		     const struct rawfrag_sample *smp, const char *evname,
		     struct rf_pprof_label *out, uint32_t *n)
{
	*n = 0;
	for (int i = 0; i < t->nr_lab; i++) {
		struct plabel *l = &t->lab[i];
		struct rf_pprof_label lb = { .key = l->key };
		const char *s;
		int len;

		switch (l->kind) {
		case L_PID: lb.num = (int32_t)smp->pid; lb.unit = l->unit; break;
		case L_TID: lb.num = (int32_t)smp->tid; lb.unit = l->unit; break;
		case L_CPU:
			if (!(smp->sample_type & PERF_SAMPLE_CPU))
				continue;
			lb.num = smp->cpu;
			lb.unit = l->unit;
			break;
		case L_COMM:
			s = rf_report__comm(rep, smp, &len);
			lb.str = rf_pprof__str(t->p, s, (size_t)len);
			break;
		case L_EVENT:
			lb.str = str_of(t, evname);
			break;
		case L_FIELD:
			if (!l->f.got)
				continue;
			if (l->f.num) {
				lb.num = l->f.v;
				lb.unit = l->unit;
			} else if (l->f.len) {
				lb.str = rf_pprof__str(t->p, l->f.str, l->f.len);
			} else {
				continue; /* pprof reads an empty string as no label */
			}
			break;
		}
		if (lb.str < 0)
			return -ENOMEM;
		out[(*n)++] = lb;
	}
	return 0;
}

/*
 * The location of frames[*i] and the inlined frames before it at the same
 * address (the innermost first, as the chain has them); *i moves past them.
 * 0 on ENOMEM.
 */
static uint64_t location_of(struct pprof_sink *t, struct rawfrag_machine *m, int32_t pid,
			    const struct rawfrag_frame *fr, uint32_t nr, uint32_t *i)
{
	uint32_t g = *i, n = 0;
	uint64_t fns[64], map = 0, loc;
	struct rf_map_info mi = { 0 };
	struct fcache *c = NULL;
	bool mapped;

	while (*i + 1 < nr && fr[*i].inlined && fr[*i + 1].addr == fr[g].addr)
		(*i)++;
	mapped = !rf_machine__map_info(m, pid, fr[g].cpumode, fr[g].addr, &mi);
	if (*i == g && !fr[g].inlined) {
		c = &t->fc[(fr[g].addr ^ fr[g].addr >> 12 ^ (uintptr_t)mi.dso >> 4) % FCACHE];
		if (c->loc && c->addr == fr[g].addr && c->dso == mi.dso && c->start == mi.start &&
		    c->pgoff == mi.pgoff && c->cpumode == fr[g].cpumode) {
			(*i)++;
			return c->loc;
		}
	}
	for (uint32_t j = g; j <= *i && n < 64; j++) {
		int64_t name, file;

		if (!fr[j].sym)
			continue;
		name = str_of(t, fr[j].sym);
		file = str_of(t, fr[j].dso); /* 0, "", without one */
		if (name < 0 || file < 0 || !(fns[n++] = rf_pprof__function(t->p, name, file)))
			return 0;
	}
	if (mapped) {
		struct rf_pprof_mapping pm = { .start = mi.start, .limit = mi.end,
					       .offset = mi.pgoff, .file = mi.name,
					       .bid = mi.bid, .bid_size = mi.bid_size,
					       .key = mi.dso };

		map = rf_pprof__mapping(t->p, &pm);
		if (!map)
			return 0;
	}
	(*i)++;
	loc = rf_pprof__location(t->p, map, fr[g].addr, fns, n);
	if (c && loc)
		*c = (struct fcache){ .addr = fr[g].addr, .start = mi.start, .pgoff = mi.pgoff,
				      .loc = loc, .dso = mi.dso, .cpumode = fr[g].cpumode };
	return loc;
}

/* the sample's stack as location ids (leaf first) in t->locs; their number or -ENOMEM */
static int stack_of(struct pprof_sink *t, struct rawfrag_report *rep,
		    const struct rawfrag_event *ev)
{
	const struct rawfrag_sample *smp = ev->sample;
	struct rawfrag_machine *m = rawfrag_report__machine(rep);
	const struct rawfrag_frame *fr;
	struct rawfrag_frame one;
	uint32_t nr, n = 0;
	int ret;

	ret = rawfrag_callchain__resolve(t->cc, m, smp, rawfrag_evsel__attr(ev->evsel),
					 t->max_stack);
	if (ret < 0)
		return ret;
	fr = t->cc->frames;
	nr = t->cc->nr;
	/*
	 * No chain, or one that resolves to nothing (perf discards one with an
	 * unknown context marker): the sample's own address, as perf script -G
	 * and perf report show it. pprof leaves a sample without locations out
	 * of every total.
	 */
	if (!nr) {
		rawfrag_machine__resolve(m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip,
					 smp->misc & PERF_RECORD_MISC_CPUMODE_MASK, &one);
		fr = &one;
		nr = 1;
	}
	if (nr > t->cap_locs) {
		uint64_t *v = realloc(t->locs, nr * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->locs = v;
		t->cap_locs = nr;
	}
	for (uint32_t i = 0; i < nr;) {
		uint64_t id = location_of(t, m, (int32_t)smp->pid, fr, nr, &i);

		if (!id)
			return -ENOMEM;
		t->locs[n++] = id;
	}
	return (int)n;
}

static int pprof_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct pprof_sink *t = priv;
	const struct rawfrag_sample *smp = ev->sample;
	const struct perf_event_attr *a = rawfrag_evsel__attr(ev->evsel);
	const char *evname = rawfrag_evsel__name(ev->evsel);
	struct rf_pprof_value vals[2 + PP_MAX_WEIGHTS];
	struct rf_pprof_label labels[PP_MAX_LABELS];
	uint32_t nr_vals = 0, nr_labels;
	int64_t col;
	int nr_locs;

	/* -j: the sample's number orders what it makes in the merge */
	if (rep->J) {
		t->seq = rep->seq - 1;
		rf_pprof__set_seq(t->p, t->seq);
	}
	col = event_col(t, ev->evsel);
	if (col < 0)
		return (int)col;
	if (t->visit)
		visit(t, ev, evname);
	if (labels_of(t, rep, smp, evname, labels, &nr_labels))
		return -ENOMEM;
	nr_locs = stack_of(t, rep, ev);
	if (nr_locs < 0)
		return nr_locs;
	vals[nr_vals++] = (struct rf_pprof_value){ .col = 0, .v = 1 };
	vals[nr_vals++] = (struct rf_pprof_value){
		.col = (uint32_t)col,
		.v = (int64_t)(smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : a->sample_period)
	};
	for (int i = 0; i < t->nr_w; i++) {
		struct pfield *f = &t->w[i].f;

		if (!f->got)
			continue;
		if (!f->num) {
			if (!f->str_event) {
				f->str_event = rawfrag_evsel__idx(ev->evsel) + 1;
				f->str_seq = t->seq;
			}
			continue;
		}
		vals[nr_vals++] = (struct rf_pprof_value){ .col = 1 + (uint32_t)i, .v = f->v };
	}
	if (smp->sample_type & PERF_SAMPLE_TIME) {
		if (!t->any_time || smp->time < t->first_time)
			t->first_time = smp->time;
		if (!t->any_time || smp->time > t->last_time)
			t->last_time = smp->time;
		t->any_time = true;
	}
	return rf_pprof__add(t->p, t->locs, (uint32_t)nr_locs, labels, nr_labels, vals, nr_vals);
}

/* ---- the end ---- */

/* a field no sample had, a weight that is not a number: mistakes of the options */
static int check_fields(struct pprof_sink *t, struct rawfrag_err *err)
{
	char msg[300];

	for (int i = 0; i < t->nr_w; i++) {
		struct pfield *f = &t->w[i].f;

		if (f->str_event) {
			snprintf(msg, sizeof(msg), "pprof output: weight '%.60s' is not a number "
						   "(a string in %.60s samples)", f->name,
				 rawfrag_evsel__name(rawfrag_file__evsel(t->file, f->str_event - 1)));
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		if (!f->seen) {
			snprintf(msg, sizeof(msg), "pprof output: weight '%.60s': no sample has a "
						   "numeric field '%.60s'", f->name, f->path);
			rf_err_set(err, -ENOENT, msg);
			return -ENOENT;
		}
	}
	for (int i = 0; i < t->nr_lab; i++) {
		if (t->lab[i].kind != L_FIELD || t->lab[i].f.seen)
			continue;
		snprintf(msg, sizeof(msg), "pprof output: label '%.60s': no sample has a field "
					   "'%.60s'", t->lab[i].f.name, t->lab[i].f.path);
		rf_err_set(err, -ENOENT, msg);
		return -ENOENT;
	}
	return 0;
}

/* comments: the recording's command line and machine, and what the times are */
static int comments(struct pprof_sink *t, int64_t *c, uint32_t *n)
{
	const struct rawfrag_env *env = rawfrag_file__env(t->file);
	char buf[1024];
	size_t len = 0;

	*n = 0;
	for (int i = 0; env && i < env->nr_cmdline && len < sizeof(buf) - 1; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
					env->cmdline[i]);
	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	if (len && (c[(*n)++] = rf_pprof__str(t->p, buf, len)) < 0)
		return -ENOMEM;
	if (env && (env->hostname || env->osrelease || env->version)) {
		len = (size_t)snprintf(buf, sizeof(buf), "host %s, kernel %s, perf %s",
				       env->hostname ? env->hostname : "?",
				       env->osrelease ? env->osrelease : "?",
				       env->version ? env->version : "?");
		if ((c[(*n)++] = rf_pprof__str(t->p, buf, len < sizeof(buf) ? len : sizeof(buf) - 1)) < 0)
			return -ENOMEM;
	}
	if (t->any_time && !(env && env->has_clock_data) &&
	    (c[(*n)++] = str_of(t, "no wall-clock time: the recording has no clock data "
				   "(perf record -k CLOCKID writes it)")) < 0)
		return -ENOMEM;
	return 0;
}

static int write_profile(struct pprof_sink *t, struct rawfrag_err *err)
{
	const struct rawfrag_env *env = rawfrag_file__env(t->file);
	struct rf_pprof_meta meta = { .nr_cols = t->nr_cols, .types = t->types,
				      .units = t->units };
	int64_t com[3];
	const char *what;
	uint32_t nev = 0;
	int ret;

	meta.order = malloc(t->nr_cols * sizeof(*meta.order));
	if (!meta.order || comments(t, com, &meta.nr_comments)) {
		free(meta.order);
		rf_err_set(err, -ENOMEM, "pprof output: out of memory");
		return -ENOMEM;
	}
	/* samples, the events in the file's order, the weights */
	meta.order[0] = 0;
	for (int i = 0; i < t->nr_ev; i++) {
		uint32_t c = t->ev[i].col;

		if (!c)
			continue;
		/* the first event is the default, and its period pprof's */
		if (!nev) {
			meta.default_type = meta.period_type = t->types[c];
			meta.period_unit = t->units[c];
			meta.period = (int64_t)t->ev[i].period;
		}
		meta.order[1 + nev++] = c;
	}
	for (int i = 0; i < t->nr_w; i++)
		meta.order[1 + nev + (uint32_t)i] = 1 + (uint32_t)i;
	meta.comments = com;
	if (t->any_time) {
		meta.duration_nanos = (int64_t)(t->last_time - t->first_time);
		/* the sample clock mapped to the wall clock by the file's reference pair */
		if (env && env->has_clock_data)
			meta.time_nanos = (int64_t)(env->clock_tod_ns +
						    (t->first_time - env->clock_clockid_ns));
	}
	ret = rf_pprof__write(t->p, &meta, t->fd, &what);
	free(meta.order);
	if (ret == -ENOMEM) {
		rf_err_set(err, ret, "pprof output: out of memory");
	} else if (ret) {
		/* the output's failure: the command says it as a write error */
		t->werr = ret;
		ret = 0;
	}
	return ret;
}

static int pprof_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct pprof_sink *t = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int ret = 0;

	if (!status) {
		ret = check_fields(t, err);
		if (!ret)
			ret = write_profile(t, err);
	}
	/* no profile is better than a part of one: the file we made goes */
	if ((status || ret || t->werr) && t->own_fd >= 0)
		unlink(t->path);
	return ret;
}

static int pprof_begin(void *priv, struct rawfrag_report *rep)
{
	struct pprof_sink *t = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	t->sess = rawfrag_report__session(rep);
	t->file = rawfrag_session__file(t->sess);
	fd = rf_sink_open_fd(t->path, t->fd, err);
	if (fd < 0)
		return fd;
	if (t->path && strcmp(t->path, "-"))
		t->own_fd = fd;
	t->fd = fd;
	t->cc = rawfrag_callchain__new();
	t->fc = calloc(FCACHE, sizeof(*t->fc));
	/* column 0: every sample counts one; 1..: the weights */
	if (!t->cc || !t->fc || add_col(t, str_of(t, "samples"), str_of(t, "count")) < 0)
		goto nomem;
	for (int i = 0; i < t->nr_w; i++)
		if (add_col(t, t->w[i].type, t->w[i].unit) < 0)
			goto nomem;
	return 0;
nomem:
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

/* -j: the profile is written at the end, to its own descriptor; the chunks are empty */
struct rawfrag_out *rf_pprof_sink__out(void *priv)
{
	struct pprof_sink *t = priv;

	return t->jout;
}

/*
 * -j: the workers' profiles into this one, as one job would have made it:
 * each event's column numbered by the first sample of the event, the
 * profile's entries by the samples that made them (rf_pprof__merge())
 */
int rf_pprof_sink__merge(void *priv, void *const *others, int n)
{
	struct pprof_sink *t = priv, **s = calloc((size_t)n + 1, sizeof(*s));
	struct rf_pprof **pp = calloc((size_t)n + 1, sizeof(*pp));
	uint32_t **colmap = calloc((size_t)n + 1, sizeof(*colmap));
	struct rf_seqref *refs = NULL;
	int64_t **smap = NULL, *types = NULL, *units = NULL;
	struct pev *ev0 = NULL; /* this sink's events as they were */
	uint32_t nc = 0, ncol = 1 + (uint32_t)t->nr_w;
	int nev = t->nr_ev, ret = -ENOMEM;

	if (!s || !pp || !colmap)
		goto out;
	for (int k = 0; k <= n; k++) {
		s[k] = k ? others[k - 1] : t;
		pp[k] = s[k]->p;
		if (s[k]->nr_ev > nev)
			nev = s[k]->nr_ev;
		nc += s[k]->nr_cols;
		if (!(colmap[k] = calloc(s[k]->nr_cols ? s[k]->nr_cols : 1, sizeof(**colmap))))
			goto out;
		/* samples and the weights: the same columns in every sink */
		for (uint32_t c = 0; c < ncol && c < s[k]->nr_cols; c++)
			colmap[k][c] = c;
	}
	/* the events' columns, in the order of the samples that made them */
	refs = malloc((nc ? nc : 1) * sizeof(*refs));
	types = malloc((nc ? nc : 1) * sizeof(*types));
	units = malloc((nc ? nc : 1) * sizeof(*units));
	if (!refs || !types || !units)
		goto out;
	nc = 0;
	for (int k = 0; k <= n; k++)
		for (int i = 0; i < s[k]->nr_ev; i++)
			if (s[k]->ev[i].col)
				refs[nc++] = (struct rf_seqref){ .seq = s[k]->ev[i].seq, .k = (uint32_t)k,
								 .i = (uint32_t)i };
	qsort(refs, nc, sizeof(*refs), rf_seqref_cmp);
	if (nev > t->nr_ev) {
		struct pev *e = realloc(t->ev, (size_t)nev * sizeof(*e));

		if (!e)
			goto out;
		memset(e + t->nr_ev, 0, (size_t)(nev - t->nr_ev) * sizeof(*e));
		t->ev = e;
		t->nr_ev = nev;
	}
	/* each event's column: made by the first of its samples, numbered in that order */
	if (!(ev0 = malloc((nev ? (size_t)nev : 1) * sizeof(*ev0))))
		goto out;
	if (nev)
		memcpy(ev0, t->ev, (size_t)nev * sizeof(*ev0));
	for (int i = 0; i < nev; i++)
		t->ev[i].col = 0;
	for (uint32_t r = 0; r < nc; r++) {
		const struct pev *o = refs[r].k ? &s[refs[r].k]->ev[refs[r].i] : &ev0[refs[r].i];
		struct pev *e = &t->ev[refs[r].i];

		if (!e->col) {
			e->col = ncol++;
			e->seq = o->seq;
			e->period = o->period;
		}
		colmap[refs[r].k][o->col] = e->col;
	}
	ret = rf_pprof__merge(pp, n + 1, colmap, &smap);
	if (ret)
		goto out;
	/* the columns' names and units, as strings of the merged profile */
	for (uint32_t c = 0; c < 1 + (uint32_t)t->nr_w; c++) {
		types[c] = smap[0][t->types[c]];
		units[c] = smap[0][t->units[c]];
	}
	for (uint32_t r = 0; r < nc; r++) {
		const struct pprof_sink *o = s[refs[r].k];
		uint32_t oc = refs[r].k ? o->ev[refs[r].i].col : ev0[refs[r].i].col;
		uint32_t c = colmap[refs[r].k][oc];

		types[c] = smap[refs[r].k][o->types[oc]];
		units[c] = smap[refs[r].k][o->units[oc]];
	}
	free(t->types);
	free(t->units);
	t->types = types;
	t->units = units;
	types = units = NULL;
	t->nr_cols = t->cap_cols = ncol;
	/* what the end checks and says: times, fields seen, a weight met as a string */
	for (int k = 1; k <= n; k++) {
		const struct pprof_sink *o = s[k];

		if (o->any_time) {
			if (!t->any_time || o->first_time < t->first_time)
				t->first_time = o->first_time;
			if (!t->any_time || o->last_time > t->last_time)
				t->last_time = o->last_time;
			t->any_time = true;
		}
		for (int i = 0; i < t->nr_w; i++) {
			struct pfield *f = &t->w[i].f;
			const struct pfield *of = &o->w[i].f;

			f->seen |= of->seen;
			if (of->str_event && (!f->str_event || of->str_seq < f->str_seq)) {
				f->str_event = of->str_event;
				f->str_seq = of->str_seq;
			}
		}
		for (int i = 0; i < t->nr_lab; i++)
			t->lab[i].f.seen |= o->lab[i].f.seen;
	}
	ret = 0;
out:
	for (int k = 0; smap && k <= n; k++)
		free(smap[k]);
	free(smap);
	for (int k = 0; colmap && k <= n; k++)
		free(colmap[k]);
	free(colmap);
	free(types);
	free(units);
	free(ev0);
	free(refs);
	free(pp);
	free(s);
	return ret;
}

static int pprof_error(void *priv)
{
	return ((struct pprof_sink *)priv)->werr;
}

static void pprof_free(void *priv)
{
	struct pprof_sink *t = priv;

	if (t->own_fd >= 0)
		close(t->own_fd);
	for (int i = 0; i < t->nr_lab; i++)
		field_free(&t->lab[i].f);
	for (int i = 0; i < t->nr_w; i++)
		field_free(&t->w[i].f);
	rf_pprof__delete(t->p);
	rawfrag_out__delete(t->jout);
	rawfrag_callchain__delete(t->cc);
	free(t->types);
	free(t->units);
	free(t->ev);
	free(t->locs);
	free(t->fc);
	free(t->path);
	free(t);
}

int rf_sink_pprof_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "labels", "weight", "max_stack", NULL };
	struct pprof_sink *t;
	int ret;

	if (rf_sink_opts_known("pprof", opts->kv, keys, err))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t || (opts->path && !(t->path = strdup(opts->path))) || !(t->p = rf_pprof__new()) ||
	    !(t->jout = rawfrag_out__new(-1))) {
		if (t)
			pprof_free(t);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	t->fd = opts->fd;
	t->own_fd = -1;
	ret = parse_opts(t, opts->kv, err);
	if (ret) {
		pprof_free(t);
		return ret;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "pprof",
		.begin = pprof_begin,
		.sample = pprof_sample,
		.end = pprof_end,
		.error = pprof_error,
		.free = pprof_free,
	};
	*priv = t;
	return 0;
}
