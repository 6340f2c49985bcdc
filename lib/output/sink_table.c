// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "table" sink: perf report --stdio's table (6.1), one section per event
 * in the file's order, entries aggregated by a tuple of sort keys (hists.c):
 * perf's comm, pid, dso, sym, cpu, and any decoded field as --where names it
 * ("prev_comm", "sched:sched_switch.prev_state", "prev_prio/raw",
 * "derived.cache_level"). A tracepoint field is keyed by its payload bytes
 * and shown as the event's print format shows it, as perf does; any other
 * field by its typed value. Beside perf's options: weight= (Overhead as a
 * numeric field's share, the header as perf mem's), hist= (bpftrace-like
 * buckets, table_hist.c) and format=json (one JSON line per entry or bucket).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/visit.h>

#include "internal/decoder.h"
#include "internal/hists.h"
#include "internal/hists_cc.h"
#include "internal/opts.h"
#include "internal/report.h"
#include "internal/select.h"
#include "internal/table_hist.h"
#include "internal/tracepoint.h"

enum tkind { K_COMM, K_PID, K_DSO, K_SYM, K_CPU, K_FIELD, K_TRACE, K_TFIELDS };

struct tkey {
	enum tkind kind;
	char *field; /* K_FIELD: the path; event: only in events of this name */
	char *event;
	bool raw;
};

/* a kernel address's DSO and symbol, valid while the kernel's maps stay the same */
struct kframe {
	uint64_t ip, start, rel_ip, end;
	uint32_t gen, map;
	bool valid, object;
	const char *dso, *sym; /* interned in the section's hists */
};
#define KFRAMES 512

struct tsec {
	bool used;
	/*
	 * threads' names interned here, by tid (most samples repeat a few);
	 * one cache per section: shared, the sections of a file's alternating
	 * events (sys_enter, sys_exit) evicted each other at every sample
	 */
	struct tcomm {
		uint64_t gen; /* 0: empty (the report's generations start at 1) */
		int32_t pid, tid;
		const char *s;
	} comm[16];
	struct kframe *kf; /* KFRAMES of them, on the first kernel sample */
	struct rf_hists h;
	bool has[RF_HISTS_MAX_KEYS]; /* a field column: some sample had the field */
	uint32_t fwidth[RF_HISTS_MAX_KEYS]; /* a tracepoint field's width from its format */
	struct rf_cc *cc; /* call chains: --children, -g (hists_cc.c) */
	/*
	 * -j with call chains: the other workers' trees (an entry's cc_of - 1)
	 * and the hists their frames' names are interned in, taken at the merge
	 */
	struct rf_cc **pcc;
	struct rf_hists *ph;
	int nr_p;
	/* every sample, those --comms/--dsos leave out too (perf's absolute percentage) */
	uint64_t all_samples, all_period, all_weight;
	uint64_t no_weight, no_hist; /* samples without the --weight, --hist field */
	struct rf_thist hist; /* --hist without --sort: the event's */
	struct rf_thist **ehist; /* --hist with --sort: an entry's (its ext), to free */
	size_t nr_ehist;
	/* the event's, found at its first sample (again after describing records) */
	bool known;
	const char *evname;
	uint64_t sample_period;
	void *tpriv; /* the tracepoint decoder's event */
	/* a field key's (and --weight's, --hist's) tracepoint field: 0 unknown, 1 in place, 2 not */
	int8_t kstate[RF_HISTS_MAX_KEYS], vstate[2];
	struct rawfrag_tp_field_info kfi[RF_HISTS_MAX_KEYS], vfi[2];
};

/* --weight, --hist: a numeric field of each sample, by the visit or its period */
struct tval {
	char *field;
	bool period;
	bool seen; /* some sample had it */
	/* the sample's */
	bool got, neg;
	uint64_t u;
	enum rawfrag_field_type type;
};

/* --comms, --dsos: perf's filters (a list of one elides its column) */
struct tfilter {
	char **v;
	int n;
};

struct table_sink {
	char *path;
	int fd, own_fd;
	struct rawfrag_out *out, *scratch;
	struct tkey keys[RF_HISTS_MAX_KEYS];
	int nr_keys;
	bool show_nr, show_period, quiet, need_sym;
	bool default_sort; /* no sort asked for: perf's default, which depends on the events */
	double percent_limit;
	/* call chains: -1 children= not given (perf's default: when the file has chains) */
	int children_opt;
	bool children, cc_on, cg_set;
	struct rf_cc_params ccp;
	uint32_t max_stack;
	enum rf_cc_slot kinds[RF_HISTS_MAX_KEYS];
	struct tval weight, hval;
	struct rf_thist_spec hspec;
	bool json, relative, elide;
	const char *sep; /* -t: perf's field separator */
	char *sort_str;
	char *sep_own;
	struct tfilter comms, dsos;
	/* --pid, --tid: for the table perf's filters of entries, not a selection */
	struct rf_list pids, tids;
	bool has_pids, has_tids;
	struct tsec *sec;
	int nr_sec;
	uint64_t lost_samples;
	struct rawfrag_session *sess;
	struct rawfrag_file *file;
	bool swap;
	/* one sample's visited values, by key */
	char val[RF_HISTS_MAX_KEYS][128];
	int val_len[RF_HISTS_MAX_KEYS];
	bool got[RF_HISTS_MAX_KEYS];
};

/* ---- keys ---- */

static int parse_keys(struct table_sink *t, const char *list, struct rawfrag_err *err)
{
	char *dup = strdup(list), *save = NULL, msg[200];

	if (!dup)
		return -ENOMEM;
	for (char *k = strtok_r(dup, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		struct tkey *key = &t->keys[t->nr_keys];
		char *slash, *dot;

		while (*k == ' ')
			k++;
		if (t->nr_keys == RF_HISTS_MAX_KEYS) {
			rf_err_set(err, -EINVAL, "table output: at most 16 sort keys");
			goto bad;
		}
		if (!strcmp(k, "comm")) {
			key->kind = K_COMM;
		} else if (!strcmp(k, "pid") || !strcmp(k, "tid")) {
			/* perf's pid key is the thread's (6.1 has no tid key): the same */
			key->kind = K_PID;
		} else if (!strcmp(k, "trace")) {
			key->kind = K_TRACE;
		} else if (!strcmp(k, "trace_fields")) {
			/* one key per field of each tracepoint event, made at begin */
			key->kind = K_TFIELDS;
		} else if (!strcmp(k, "dso")) {
			key->kind = K_DSO;
		} else if (!strcmp(k, "sym") || !strcmp(k, "symbol")) {
			key->kind = K_SYM;
		} else if (!strcmp(k, "cpu")) {
			key->kind = K_CPU;
		} else {
			key->kind = K_FIELD;
			slash = strrchr(k, '/');
			if (slash && !strcmp(slash, "/raw")) {
				key->raw = true;
				*slash = '\0';
			} else if (slash) {
				snprintf(msg, sizeof(msg), "table output: unknown sort key '%.60s'", k);
				rf_err_set(err, -EINVAL, msg);
				goto bad;
			}
			/* "sys:event.field": the event's name holds a ':' */
			dot = strchr(k, ':') ? strchr(strchr(k, ':'), '.') : NULL;
			if (dot) {
				*dot = '\0';
				key->event = strdup(k);
				k = dot + 1;
			}
			if (!*k || !(key->field = strdup(k))) {
				snprintf(msg, sizeof(msg), "table output: empty sort key");
				rf_err_set(err, -EINVAL, msg);
				goto bad;
			}
		}
		if (key->kind == K_DSO || key->kind == K_SYM)
			t->need_sym = true;
		t->nr_keys++;
	}
	free(dup);
	if (!t->nr_keys) {
		rf_err_set(err, -EINVAL, "table output: no sort key");
		return -EINVAL;
	}
	return 0;
bad:
	free(dup);
	return -EINVAL;
}

/* perf's short name of a DSO: its base name, a [bracketed] one as it is */
static const char *dso_short(const char *dso)
{
	const char *s;

	if (!dso || dso[0] == '[')
		return dso;
	s = strrchr(dso, '/');
	return s ? s + 1 : dso;
}

static char level_of(uint8_t cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL: return 'k';
	case PERF_RECORD_MISC_HYPERVISOR: return 'H';
	case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
	case PERF_RECORD_MISC_GUEST_USER: return 'u';
	default: return '.';
	}
}

/* ---- field values ---- */

static bool key_wants(const struct tkey *k, const char *evname)
{
	const char *c;

	if (!k->event)
		return true;
	if (!strcmp(k->event, evname))
		return true;
	c = strchr(evname, ':');
	return c && !strcmp(k->event, c + 1);
}

static bool path_is(const char *name, const struct rawfrag_field *f)
{
	return name && strlen(name) == f->path_len && !memcmp(name, f->path, f->path_len);
}

/* a --weight or --hist field's value: its first occurrence */
static void visit_val(struct tval *v, const struct rawfrag_field *f)
{
	if (v->got || v->period || !path_is(v->field, f))
		return;
	v->got = true;
	v->type = f->type;
	v->neg = f->type == RAWFRAG_FIELD_S64 && f->v.s < 0;
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: v->u = f->v.u; break;
	case RAWFRAG_FIELD_S64: v->u = v->neg ? 0 : (uint64_t)f->v.s; break;
	case RAWFRAG_FIELD_BOOL: v->u = f->v.b; break;
	case RAWFRAG_FIELD_NULL: v->got = false; break; /* JSON's null: the sample has no value */
	default: break; /* not a number: the sample says so (tval_check) */
	}
}

static int visit_field(void *ctx, const struct rawfrag_field *f)
{
	struct table_sink *t = ctx;

	visit_val(&t->weight, f);
	visit_val(&t->hval, f);
	if (f->type == RAWFRAG_FIELD_OBJECT || f->type == RAWFRAG_FIELD_ARRAY)
		return 0;
	for (int i = 0; i < t->nr_keys; i++) {
		struct tkey *k = &t->keys[i];
		char *b = t->val[i];
		int n;

		if (k->kind != K_FIELD || t->got[i] || strlen(k->field) != f->path_len ||
		    memcmp(k->field, f->path, f->path_len))
			continue;
		switch (f->type) {
		case RAWFRAG_FIELD_U64: n = snprintf(b, 128, "%" PRIu64, f->v.u); break;
		case RAWFRAG_FIELD_S64: n = snprintf(b, 128, "%" PRId64, f->v.s); break;
		case RAWFRAG_FIELD_HEX: n = snprintf(b, 128, "0x%" PRIx64, f->v.u); break;
		case RAWFRAG_FIELD_BOOL: n = snprintf(b, 128, "%s", f->v.b ? "true" : "false"); break;
		case RAWFRAG_FIELD_STR:
			n = snprintf(b, 128, "%.*s", (int)(f->v.str.len > 127 ? 127 : f->v.str.len),
				     f->v.str.p);
			break;
		case RAWFRAG_FIELD_BYTES:
			n = 0;
			for (size_t j = 0; j < f->v.str.len && n < 125; j++)
				n += snprintf(b + n, 128 - n, "%02x",
					      (unsigned char)f->v.str.p[j]);
			break;
		default: n = snprintf(b, 128, "null"); break;
		}
		t->val_len[i] = n > 127 ? 127 : n;
		t->got[i] = true;
	}
	return 0;
}

/*
 * The value of name as the event's print format shows it: perf takes the
 * first space-separated token of the pretty line that starts with the name
 * and skips the name and one character. NULL when no token starts with it.
 */
static const char *pretty_token(const char *line, size_t len, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = line, *end = line + len;

	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));

		if (!sp)
			sp = end;
		if ((size_t)(sp - p) >= nl && !strncmp(p, name, nl)) {
			p += nl + 1;
			*vlen = p <= sp ? (size_t)(sp - p) : 0;
			return p <= sp ? p : sp;
		}
		p = sp + 1;
	}
	*vlen = 0;
	return NULL;
}

/* a tracepoint field's bytes in the payload, bounds-checked; NULL if not there */
static const uint8_t *tp_bytes(struct table_sink *t, const struct rawfrag_sample *smp,
			       const struct rawfrag_tp_field_info *fi, uint32_t *len)
{
	uint32_t off = fi->offset, size = fi->size;

	if (!smp->raw_data || off > smp->raw_size || size > smp->raw_size - off)
		return NULL;
	if (fi->dynamic) {
		uint32_t loc = rawfrag__get32(smp->raw_data + off, t->swap);

		if (size != 4)
			return NULL;
		size = loc >> 16;
		off = (loc & 0xffff) + (fi->rel ? fi->offset + fi->size : 0);
		if (off > smp->raw_size || size > smp->raw_size - off)
			return NULL;
	}
	*len = size;
	return smp->raw_data + off;
}

static struct tsec *section(struct table_sink *t, int idx)
{
	if (idx < 0)
		return NULL;
	if (idx >= t->nr_sec) {
		struct tsec *s = realloc(t->sec, (idx + 1) * sizeof(*s));

		if (!s)
			return NULL;
		memset(s + t->nr_sec, 0, (idx + 1 - t->nr_sec) * sizeof(*s));
		t->sec = s;
		t->nr_sec = idx + 1;
	}
	if (!t->sec[idx].used) {
		if (rf_hists__init(&t->sec[idx].h, t->nr_keys))
			return NULL;
		t->sec[idx].used = true;
	}
	return &t->sec[idx];
}

/*
 * The sample's DSO and symbol, interned. Kernel addresses are cached: most
 * samples of a tracepoint file are at a few kernel addresses.
 */
static struct kframe *frame_of(struct table_sink *t, struct tsec *sec,
			       struct rawfrag_report *rep, const struct rawfrag_sample *smp,
			       struct kframe *tmp)
{
	uint8_t cpumode = smp->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint32_t gen = rawfrag_report__kernel_gen(rep);
	struct kframe *kf = tmp;
	struct rawfrag_frame fr;
	const char *s;

	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		if (!sec->kf && !(sec->kf = calloc(KFRAMES, sizeof(*sec->kf))))
			return NULL;
		kf = &sec->kf[(smp->ip >> 2) % KFRAMES];
		if (kf->valid && kf->ip == smp->ip && kf->gen == gen)
			return kf;
	}
	rawfrag_machine__resolve(rawfrag_report__machine(rep), (int32_t)smp->pid,
				 (int32_t)smp->tid, smp->ip, cpumode, &fr);
	*kf = (struct kframe){ .ip = smp->ip, .gen = gen, .rel_ip = fr.ip,
			       .start = fr.ip - fr.symoff, .end = fr.ip - fr.symoff + fr.symlen,
			       .map = fr.map_id, .object = fr.object };
	s = dso_short(fr.dso);
	if (s && !(kf->dso = rf_hists__intern(&sec->h, s, strlen(s))))
		return NULL;
	if (fr.sym && !(kf->sym = rf_hists__intern(&sec->h, fr.sym, strlen(fr.sym))))
		return NULL;
	kf->valid = true;
	return kf;
}

/* one sample's keys as they are made, by key_of(), visit_keys() and first_show() */
struct tsample {
	const struct rawfrag_event *ev;
	const struct rawfrag_sample *smp;
	const char *evname;
	struct tsec *sec;
	struct rf_hkey key[RF_HISTS_MAX_KEYS];
	struct rawfrag_tp_field_info fi[RF_HISTS_MAX_KEYS];
	bool is_tp[RF_HISTS_MAX_KEYS], visit, resolved;
	void *tpriv; /* the tracepoint decoder's event, for fields read in place */
	struct kframe *kf, kfb;
};

/* a tracepoint field key read from the payload in place; false: by the visit */
static int tp_key(struct table_sink *t, struct tsample *ts, int i)
{
	struct tkey *k = &t->keys[i];
	struct rf_hkey *hk = &ts->key[i];
	const uint8_t *b;
	uint32_t n;

	/* the field's place, looked up once per event */
	if (!ts->sec->kstate[i])
		ts->sec->kstate[i] = ts->tpriv && !strchr(k->field, '.') &&
				     !rawfrag_tp__field_info(ts->tpriv, k->field, strlen(k->field),
							     &ts->sec->kfi[i]) ? 1 : 2;
	if (ts->sec->kstate[i] != 1)
		return 0;
	ts->fi[i] = ts->sec->kfi[i];
	ts->is_tp[i] = true;
	ts->sec->has[i] = true;
	ts->sec->fwidth[i] = ts->fi[i].is_string ? ts->fi[i].size : ts->fi[i].size * 2 + 2;
	b = tp_bytes(t, ts->smp, &ts->fi[i], &n);
	if (!b)
		return 1;
	hk->id = rf_hists__intern(&ts->sec->h, (const char *)b, n);
	hk->id_len = n;
	if (!hk->id)
		return -ENOMEM;
	if (k->raw)
		ts->visit = true;
	return 1;
}

/* key i of the sample, or a note that the visit gives it; 0 or -ENOMEM */
static int key_of(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts, int i)
{
	const struct rawfrag_sample *smp = ts->smp;
	struct tkey *k = &t->keys[i];
	struct rf_hkey *hk = &ts->key[i];
	const char *s;
	int len, ret;

	switch (k->kind) {
	case K_COMM: {
		struct tcomm *c = &ts->sec->comm[((uint32_t)smp->tid * 2654435761u) >> 28];

		if (c->gen == rep->name_gen &&
		    c->tid == (int32_t)smp->tid && c->pid == (int32_t)smp->pid) {
			hk->id = hk->show = c->s;
			return 0;
		}
		s = rf_report__comm(rep, smp, &len);
		hk->id = hk->show = rf_hists__intern(&ts->sec->h, s, (size_t)len);
		*c = (struct tcomm){ .gen = rep->name_gen,
				     .tid = (int32_t)smp->tid, .pid = (int32_t)smp->pid, .s = hk->id };
		return hk->id ? 0 : -ENOMEM;
	}
	case K_PID:
		hk->u = (uint32_t)smp->tid;
		hk->id_len = smp->pid; /* not the identity: the name's look-up at the end */
		return 0;
	case K_CPU:
		/* perf's cpu of a sample without one is -1 */
		hk->u = smp->sample_type & PERF_SAMPLE_CPU ? smp->cpu : (uint64_t)-1;
		return 0;
	case K_DSO:
	case K_SYM:
		if (!ts->resolved) {
			ts->kf = frame_of(t, ts->sec, rep, smp, &ts->kfb);
			if (!ts->kf)
				return -ENOMEM;
			ts->resolved = true;
		}
		if (k->kind == K_DSO) {
			hk->id = hk->show = ts->kf->dso;
			return 0;
		}
		/* a symbol is its DSO and start; an unresolved address is itself */
		hk->level = level_of(smp->misc & PERF_RECORD_MISC_CPUMODE_MASK);
		hk->id = ts->kf->dso;
		hk->show = ts->kf->sym;
		hk->obj = ts->kf->sym && ts->kf->object;
		hk->end = ts->kf->end;
		hk->u = ts->kf->sym ? ts->kf->start : ts->kf->rel_ip;
		hk->id_len = ts->kf->sym ? 1 : 0;
		return 0;
	case K_TFIELDS: /* made into field keys at begin */
		return 0;
	case K_TRACE: {
		/* perf's trace key: the print format's line, N/A for other events */
		const char *line = "N/A";
		size_t n = 3;

		if (ts->tpriv) {
			rawfrag_out__reset(t->scratch);
			rawfrag_session__sample_text(t->sess, ts->ev->evsel, ts->ev->rec, smp,
						     t->scratch, false);
			line = rawfrag_out__mem(t->scratch, &n);
		}
		hk->id = hk->show = rf_hists__intern(&ts->sec->h, line, n);
		hk->id_len = (uint32_t)n;
		return hk->id ? 0 : -ENOMEM;
	}
	case K_FIELD:
		if (!key_wants(k, ts->evname))
			return 0;
		ret = tp_key(t, ts, i);
		if (ret < 0)
			return ret;
		if (!ret)
			ts->visit = true;
		return 0;
	}
	return 0;
}

/* the field keys the visit found */
static int visit_keys(struct table_sink *t, struct tsample *ts)
{
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = visit_field, .ctx = t };
	const struct rawfrag_event *ev = ts->ev;

	rawfrag_session__sample_visit(t->sess, ev->evsel, ev->rec, ts->smp, &v);
	for (int i = 0; i < t->nr_keys; i++) {
		if (t->keys[i].kind != K_FIELD || !t->got[i] || ts->is_tp[i])
			continue;
		ts->sec->has[i] = true;
		ts->key[i].id = ts->key[i].show = rf_hists__intern(&ts->sec->h, t->val[i],
								   (size_t)t->val_len[i]);
		ts->key[i].id_len = (uint32_t)t->val_len[i];
		if (!ts->key[i].id)
			return -ENOMEM;
	}
	return 0;
}

/* a new entry: what its first sample shows */
static int first_show(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts,
		      struct rf_hentry *e)
{
	const struct rawfrag_event *ev = ts->ev;

	e->pid = (int32_t)ts->smp->pid;
	e->tid = (int32_t)ts->smp->tid;
	for (int i = 0; i < t->nr_keys; i++) {
		struct tkey *k = &t->keys[i];

		if (k->kind == K_PID || (k->kind == K_COMM && !e->k[i].show)) {
			const char *s;
			int len;

			s = rf_report__comm(rep, ts->smp, &len);
			e->k[i].show = rf_hists__intern(&ts->sec->h, s, (size_t)len);
		} else if (ts->is_tp[i] && k->raw && t->got[i]) {
			e->k[i].show = rf_hists__intern(&ts->sec->h, t->val[i], (size_t)t->val_len[i]);
		} else if (ts->is_tp[i] && !k->raw) {
			const char *line, *v;
			size_t len, vlen;

			rawfrag_out__reset(t->scratch);
			rawfrag_session__sample_text(t->sess, ev->evsel, ev->rec, ts->smp, t->scratch,
						     false);
			line = rawfrag_out__mem(t->scratch, &len);
			v = pretty_token(line, len, k->field, &vlen);
			/* a field the print format does not show: perf prints its value */
			if (!v && !t->got[i]) {
				struct rawfrag_visitor vis = { .sz = sizeof(vis), .field = visit_field,
							       .ctx = t };

				rawfrag_session__sample_visit(t->sess, ev->evsel, ev->rec, ts->smp,
							      &vis);
			}
			if (!v && t->got[i]) {
				v = t->val[i];
				vlen = (size_t)t->val_len[i];
			}
			e->k[i].show = rf_hists__intern(&ts->sec->h, v ? v : "", v ? vlen : 0);
		} else {
			continue;
		}
		if (!e->k[i].show)
			return -ENOMEM;
	}
	return 0;
}

struct cc_ctx {
	struct table_sink *t;
	struct rawfrag_report *rep;
	struct tsample *ts;
};

static int cc_new(void *ctx, struct rf_hentry *e)
{
	struct cc_ctx *c = ctx;

	/* -j: the merge orders entries by the samples that made them */
	if (c->rep->J)
		e->first = c->rep->seq - 1;
	return first_show(c->t, c->rep, c->ts, e);
}

static int slot_cmp(void *ctx, int i, const struct rf_hkey *x, const struct rf_hkey *y);

/* the table's keys to a section's call chains */
static void cc_keys(struct table_sink *t, struct rf_cc *cc)
{
	bool comm = false;

	for (int i = 0; i < t->nr_keys; i++)
		comm |= t->keys[i].kind == K_COMM;
	rf_cc__keys(cc, t->nr_keys, t->kinds, slot_cmp, t, comm);
}

/* the sample's call chain, before its entry is found (perf's trees may need it) */
static int table_chain(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts)
{
	struct tsec *sec = ts->sec;
	int ret;

	if (!sec->cc) {
		uint32_t n, part = rf_jobs__part(rep, &n);

		if (!(sec->cc = rf_cc__new(&t->ccp, t->children, t->max_stack)))
			return -ENOMEM;
		rf_cc__set_part(sec->cc, part, n);
		cc_keys(t, sec->cc);
	}
	ret = rf_cc__chain(sec->cc, &sec->h, rawfrag_report__machine(rep),
			   rawfrag_report__kernel_gen(rep), ts->smp,
			   rawfrag_evsel__attr(ts->ev->evsel));
	return ret < 0 ? ret : 0;
}

/* the chain into the entry's tree and, with --children, its frames' entries */
static int table_cc(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts,
		    struct rf_hentry *e, uint64_t period)
{
	struct cc_ctx c = { .t = t, .rep = rep, .ts = ts };

	return rf_cc__add(ts->sec->cc, &ts->sec->h, e, ts->key, t->kinds, period, ts->smp->tid,
			  cc_new, &c);
}

/* what a section's samples share: its event's name, period, tracepoint decoder */
static void section_learn(struct table_sink *t, struct tsec *sec, struct rawfrag_evsel *evsel)
{
	const struct perf_event_attr *a = rawfrag_evsel__attr(evsel);

	memset(sec->kstate, 0, sizeof(sec->kstate));
	memset(sec->vstate, 0, sizeof(sec->vstate));
	sec->evname = rawfrag_evsel__name(evsel);
	sec->sample_period = a->sample_period;
	sec->tpriv = NULL;
	if (a->type == PERF_TYPE_TRACEPOINT) {
		const struct rawfrag_decoder *d = rawfrag_session__decoder(t->sess, evsel);

		if (d && !strcmp(rawfrag_decoder__name(d), "tracepoint"))
			sec->tpriv = rawfrag_session__decoder_priv(t->sess, evsel);
	}
	sec->known = true;
}

/* records that describe the file (tracing data, a pipe's attrs): learn the events again */
static int table_describe(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct table_sink *t = priv;

	for (int s = 0; s < t->nr_sec; s++)
		t->sec[s].known = false;
	return 0;
}

/*
 * A --weight or --hist field that is an integer of a tracepoint, read from
 * the payload as the visit would give it (no decode of the other fields):
 * true when it was (v->got tells whether the sample has it)
 */
static bool tval_inplace(struct table_sink *t, struct tsample *ts, struct tval *v, int j)
{
	struct tsec *sec = ts->sec;
	const struct rawfrag_tp_field_info *fi = &sec->vfi[j];
	const struct rawfrag_sample *smp = ts->smp;
	const uint8_t *p;
	uint64_t u;

	if (!sec->vstate[j])
		sec->vstate[j] = ts->tpriv && !strchr(v->field, '.') &&
				 !rawfrag_tp__field_info(ts->tpriv, v->field, strlen(v->field),
							 &sec->vfi[j]) && sec->vfi[j].is_int ? 1 : 2;
	if (sec->vstate[j] != 1)
		return false;
	v->got = false;
	if (!smp->raw_data || fi->offset > smp->raw_size || fi->size > smp->raw_size - fi->offset)
		return true;
	p = smp->raw_data + fi->offset;
	switch (fi->size) {
	case 1: u = p[0]; break;
	case 2: u = rawfrag__get16(p, t->swap); break;
	case 4: u = rawfrag__get32(p, t->swap); break;
	default: u = rawfrag__get64(p, t->swap); break;
	}
	v->got = true;
	v->type = fi->is_ptr ? RAWFRAG_FIELD_HEX :
		  fi->is_signed ? RAWFRAG_FIELD_S64 : RAWFRAG_FIELD_U64;
	v->neg = false;
	v->u = u;
	if (fi->is_signed) {
		int shift = 64 - 8 * (int)fi->size;
		int64_t s = (int64_t)(u << shift) >> shift;

		v->neg = s < 0;
		v->u = v->neg ? 0 : (uint64_t)s;
	}
	return true;
}

/* a --weight or --hist field that is there but not a number: the sample's error */
static int tval_check(struct table_sink *t, struct rawfrag_report *rep,
		      const struct rawfrag_event *ev, struct tval *v, const char *opt)
{
	static const char *const names[] = {
		[RAWFRAG_FIELD_STR] = "a string", [RAWFRAG_FIELD_BYTES] = "bytes",
		[RAWFRAG_FIELD_OBJECT] = "an object", [RAWFRAG_FIELD_ARRAY] = "an array",
	};
	struct rawfrag_err *err = rawfrag_report__err(rep);
	char msg[200];

	if (!v->got)
		return 0;
	v->seen = true;
	switch (v->type) {
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES:
	case RAWFRAG_FIELD_OBJECT:
	case RAWFRAG_FIELD_ARRAY:
		break;
	default:
		if (v->neg && v == &t->weight)
			break;
		return 0;
	}
	if (v->neg)
		snprintf(msg, sizeof(msg), "%s %.60s: a weight is not below 0 (event '%.60s')", opt,
			 v->field, rawfrag_evsel__name(ev->evsel));
	else
		snprintf(msg, sizeof(msg), "%s %.60s: the field is %s, not a number (event '%.60s')",
			 opt, v->field, names[v->type], rawfrag_evsel__name(ev->evsel));
	rf_err_set(err, -EINVAL, msg);
	err->offset = (int64_t)ev->rec->offset;
	err->rec_type = ev->rec->type;
	return -EINVAL;
}

static bool in_list(const struct tfilter *f, const char *s, size_t len)
{
	for (int i = 0; i < f->n; i++)
		if (strlen(f->v[i]) == len && !memcmp(f->v[i], s, len))
			return true;
	return false;
}

/* --comms, --dsos, --pid, --tid: 1 when the sample is left out, 0 kept, -ENOMEM */
static int filtered(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts)
{
	if (t->has_pids && !rf_list__has(&t->pids, rf_report__pid(rep, ts->smp)))
		return 1;
	if (t->has_tids && !rf_list__has(&t->tids, (uint32_t)ts->smp->tid))
		return 1;
	if (t->comms.n) {
		int len;
		const char *c = rf_report__comm(rep, ts->smp, &len);

		if (!in_list(&t->comms, c, (size_t)len))
			return 1;
	}
	if (t->dsos.n) {
		const char *d;

		if (!ts->resolved) {
			ts->kf = frame_of(t, ts->sec, rep, ts->smp, &ts->kfb);
			if (!ts->kf)
				return -ENOMEM;
			ts->resolved = true;
		}
		/* perf matches a DSO's short or long name: the short one is what we keep */
		d = ts->kf->dso ? ts->kf->dso : "[unknown]";
		if (!in_list(&t->dsos, d, strlen(d)))
			return 1;
	}
	return 0;
}

/* the entry's --hist buckets, made (and kept to free) on first use; NULL on ENOMEM */
static struct rf_thist *entry_hist(struct tsec *sec, struct rf_hentry *e)
{
	if (!e->ext) {
		struct rf_thist **v = realloc(sec->ehist, (sec->nr_ehist + 1) * sizeof(*v));

		if (!v)
			return NULL;
		sec->ehist = v;
		if (!(e->ext = calloc(1, sizeof(struct rf_thist))))
			return NULL;
		v[sec->nr_ehist++] = e->ext;
	}
	return e->ext;
}

/* the sample's --hist value into its event's or its entry's buckets */
static int hist_add(struct table_sink *t, struct tsec *sec, struct rf_hentry *e)
{
	struct rf_thist *h = &sec->hist;

	if (!t->hval.got) {
		sec->no_hist++;
		return 0;
	}
	if (t->nr_keys && !(h = entry_hist(sec, e)))
		return -ENOMEM;
	return rf_thist__add(h, &t->hspec, t->hval.u, t->hval.neg);
}

static int table_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct table_sink *t = priv;
	struct tsample ts;
	struct rf_hentry *e;
	uint64_t period, weight;
	int ret, left_out;

	/* only the slots of the keys are cleared: the whole struct (800 bytes) cost more */
	ts.ev = ev;
	ts.smp = ev->sample;
	ts.sec = section(t, rep->cur_idx);
	ts.visit = ts.resolved = false;
	ts.kf = NULL;
	memset(ts.key, 0, sizeof(ts.key[0]) * (size_t)t->nr_keys);
	memset(ts.is_tp, 0, sizeof(ts.is_tp[0]) * (size_t)t->nr_keys);
	if (!ts.sec)
		return -ENOMEM;
	if (!ts.sec->known)
		section_learn(t, ts.sec, ev->evsel);
	ts.evname = ts.sec->evname;
	ts.tpriv = ts.sec->tpriv;
	period = ts.smp->sample_type & PERF_SAMPLE_PERIOD ? ts.smp->period : ts.sec->sample_period;
	if (t->nr_keys)
		memset(t->got, 0, sizeof(t->got[0]) * t->nr_keys);
	for (int i = 0; i < t->nr_keys; i++)
		if ((ret = key_of(t, rep, &ts, i)))
			return ret;
	weight = 0;
	if (t->weight.field || t->hval.field) {
		t->weight.got = t->hval.got = false;
		if (t->weight.field && !t->weight.period && !tval_inplace(t, &ts, &t->weight, 0))
			ts.visit = true;
		if (t->hval.field && !t->hval.period && !tval_inplace(t, &ts, &t->hval, 1))
			ts.visit = true;
		if (ts.visit && (ret = visit_keys(t, &ts)))
			return ret;
		if (t->weight.period)
			t->weight.u = period;
		if (t->hval.period)
			t->hval.u = period;
		t->weight.got |= t->weight.period;
		t->hval.got |= t->hval.period;
		if ((ret = tval_check(t, rep, ev, &t->weight, "--weight")) ||
		    (ret = tval_check(t, rep, ev, &t->hval, "--hist")))
			return ret;
		weight = t->weight.got ? t->weight.u : 0;
		ts.sec->no_weight += t->weight.field && !t->weight.got;
	} else if (ts.visit && (ret = visit_keys(t, &ts))) {
		return ret;
	}
	ts.sec->all_samples++;
	ts.sec->all_period += period;
	ts.sec->all_weight += weight;
	/*
	 * perf files a sample left out by a filter in its entry all the same:
	 * an entry its first sample made is filtered for good, one made by a
	 * kept sample takes the later left-out ones too. With call chains a
	 * left-out sample is dropped here, before its chain.
	 */
	left_out = filtered(t, rep, &ts);
	if (left_out < 0)
		return left_out;
	if (left_out && t->cc_on)
		return 0;
	if (t->cc_on && (ret = table_chain(t, rep, &ts)))
		return ret;
	if (t->cc_on) {
		/* perf's he->ip of a sample's own entry is map-relative */
		struct rf_hmap x = { 0 };

		if (ts.kf)
			x = (struct rf_hmap){ .map = ts.kf->map, .ip = ts.kf->rel_ip,
					      .delta = ts.kf->ip - ts.kf->rel_ip };
		e = rf_cc__self(ts.sec->cc, &ts.sec->h, ts.key, &x, period, weight);
	} else {
		e = rf_hists__add(&ts.sec->h, ts.key, period, weight, left_out);
	}
	if (!e)
		return -ENOMEM;
	/* -j: the merge orders entries by the samples that made them */
	if (rep->J && e->first == UINT64_MAX)
		e->first = rep->seq - 1;
	if (e->filtered)
		return 0; /* never shown: no buckets, no names */
	if (t->hval.field && (ret = hist_add(t, ts.sec, e)))
		return ret;
	if (e->samples == 1 && (ret = first_show(t, rep, &ts, e)))
		return ret;
	return t->cc_on ? table_cc(t, rep, &ts, e, period) : 0;
}

static int table_lost(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct table_sink *t = priv;

	if (ev->rec->type == PERF_RECORD_LOST_SAMPLES && ev->rec->size >= 16)
		t->lost_samples += rawfrag__get64((const uint8_t *)ev->rec->data + 8, t->swap);
	return 0;
}

/* ---- printing ---- */

struct cols {
	int w[RF_HISTS_MAX_KEYS];
	bool on[RF_HISTS_MAX_KEYS];
	int last; /* the last key column shown */
};

static const char *const headers[] = {
	[K_COMM] = "Command", [K_PID] = "    Pid:Command", [K_DSO] = "Shared Object",
	[K_SYM] = "Symbol", [K_CPU] = "CPU", [K_TRACE] = "Trace output",
	[K_TFIELDS] = "trace_fields",
};

/* a single-entry --comms or --dsos hides its column, as perf's elide does */
static bool elided(const struct table_sink *t, int i)
{
	return (t->keys[i].kind == K_COMM && t->comms.n == 1) ||
	       (t->keys[i].kind == K_DSO && t->dsos.n == 1);
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/*
 * perf sizes Command (and Pid:Command, 8 more) by the name its entry's thread
 * has when the table is made, after every sample: thread__comm_len() of the
 * thread's last name (":tid" if it never had one), not the name the rows show
 */
static int thread_comm_len(struct table_sink *t, const struct rf_hentry *e)
{
	char buf[16];
	int len = 0;

	if (!rawfrag_session__thread_comm(t->sess, e->pid, e->tid, &len))
		len = snprintf(buf, sizeof(buf), ":%d", e->tid);
	return len;
}

static void widths(struct table_sink *t, struct tsec *sec, struct rf_hentry **v, size_t n,
		   struct cols *c)
{
	bool unres = false;

	c->last = -1;
	for (int i = 0; i < t->nr_keys; i++) {
		struct tkey *k = &t->keys[i];

		c->on[i] = (k->kind != K_FIELD || sec->has[i]) && !(t->elide && elided(t, i));
		if (!c->on[i])
			continue;
		c->last = i;
		if (k->kind == K_FIELD)
			c->w[i] = imax((int)strlen(k->field), (int)sec->fwidth[i]);
		else
			c->w[i] = (int)strlen(headers[k->kind]);
	}
	for (size_t j = 0; j < n; j++) {
		for (int i = 0; i < t->nr_keys; i++) {
			const struct rf_hkey *hk = &v[j]->k[i];
			int len = hk->show ? (int)strlen(hk->show) : 0;

			if (!c->on[i])
				continue;
			switch (t->keys[i].kind) {
			case K_COMM:
				c->w[i] = imax(c->w[i], thread_comm_len(t, v[j]));
				break;
			case K_FIELD:
			case K_TRACE:
			case K_TFIELDS:
				c->w[i] = imax(c->w[i], len);
				break;
			case K_PID:
				c->w[i] = imax(c->w[i], thread_comm_len(t, v[j]) + 8);
				break;
			case K_DSO:
				c->w[i] = imax(c->w[i], hk->show ? len : 9);
				break;
			case K_SYM:
				/* perf's is the name's: an inlined one's mark, an offset stick out */
				if (hk->show)
					len = (int)rf_hkey__name_len(hk);
				c->w[i] = imax(c->w[i], hk->show ? len + 4 : 16 + 6);
				if (!hk->show)
					unres = true;
				break;
			case K_CPU:
				break;
			}
		}
	}
	/* perf widens the DSO column to an address's width when a symbol is unresolved */
	for (int i = 0; unres && i < t->nr_keys; i++)
		if (t->keys[i].kind == K_DSO && c->w[i] < 16)
			c->w[i] = 16;
}

static void print_header(struct table_sink *t, struct cols *c)
{
	struct rawfrag_out *o = t->out;
	/* perf -t: the separator between columns, no dot rule */
	const char *sep = t->sep ? t->sep : "  ";

	/* --children: perf's Self column is 8 wide, after the separator as any other */
	rawfrag_out__puts(o, t->children ? "#\n# Children" : "#\n# Overhead");
	if (t->children)
		rawfrag_out__printf(o, "%s%8s", sep, "Self");
	if (t->show_nr)
		rawfrag_out__printf(o, "%s%12s", sep, "Samples");
	if (t->show_period)
		rawfrag_out__printf(o, "%s%12s", sep, "Period");
	for (int i = 0; i < t->nr_keys; i++) {
		if (!c->on[i])
			continue;
		if (t->keys[i].kind == K_FIELD)
			rawfrag_out__printf(o, "%s%*.*s", sep, c->w[i], c->w[i], t->keys[i].field);
		else
			rawfrag_out__printf(o, "%s%-*.*s", sep, c->w[i], c->w[i],
					    headers[t->keys[i].kind]);
	}
	if (t->sep) {
		rawfrag_out__putc(o, '\n');
		return;
	}
	rawfrag_out__puts(o, t->children ? "\n# ........  ........" : "\n# ........");
	if (t->show_nr)
		rawfrag_out__puts(o, "  ............");
	if (t->show_period)
		rawfrag_out__puts(o, "  ............");
	for (int i = 0; i < t->nr_keys; i++) {
		if (!c->on[i])
			continue;
		rawfrag_out__puts(o, "  ");
		for (int j = 0; j < c->w[i]; j++)
			rawfrag_out__putc(o, '.');
	}
	rawfrag_out__puts(o, "\n#\n");
}

/* an entry's overhead: its share of the period, or of the weight with --weight */
static uint64_t entry_value(const struct table_sink *t, const struct rf_hentry *e)
{
	return t->weight.field ? e->weight : e->period;
}

static void print_row(struct table_sink *t, const struct cols *c, const struct rf_hentry *e,
		      uint64_t total, struct rawfrag_out *o)
{
	double pct = total ? 100.0 * entry_value(t, e) / total : 0.0;

	if (t->sep) {
		/* perf -t: each number after one space, left-aligned in its width */
		char b[32];

		if (t->children) {
			snprintf(b, sizeof(b), "%.2f%%", total ? 100.0 * e->acc / total : 0.0);
			rawfrag_out__printf(o, " %-7s%s", b, t->sep);
		}
		snprintf(b, sizeof(b), "%.2f%%", pct);
		rawfrag_out__printf(o, " %-7s", b);
		if (t->show_nr)
			rawfrag_out__printf(o, "%s %-11" PRIu64, t->sep, e->samples);
		if (t->show_period)
			rawfrag_out__printf(o, "%s %-11" PRIu64, t->sep, e->period);
	} else {
		if (t->children)
			rawfrag_out__printf(o, "  %7.2f%%", total ? 100.0 * e->acc / total : 0.0);
		rawfrag_out__printf(o, "  %7.2f%%", pct);
		if (t->show_nr)
			rawfrag_out__printf(o, "  %12" PRIu64, e->samples);
		if (t->show_period)
			rawfrag_out__printf(o, "  %12" PRIu64, e->period);
	}
	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *hk = &e->k[i];
		int w = c->w[i];

		if (!c->on[i])
			continue;
		rawfrag_out__puts(o, t->sep ? t->sep : "  ");
		switch (t->keys[i].kind) {
		case K_TFIELDS:
		case K_TRACE:
			/* perf's trace column is not padded */
			rawfrag_out__printf(o, "%-.*s", w, hk->show ? hk->show : "");
			break;
		case K_COMM:
			rawfrag_out__printf(o, "%-*.*s", w, w, hk->show ? hk->show : "");
			break;
		case K_PID:
			rawfrag_out__printf(o, "%7d:%-*.*s", (int32_t)hk->u, w - 8, w - 8,
					    hk->show ? hk->show : "");
			break;
		case K_DSO:
			rawfrag_out__printf(o, "%-*.*s", w, w, hk->show ? hk->show : "[unknown]");
			break;
		case K_CPU:
			rawfrag_out__printf(o, "%*.*d", w, w, (int)hk->u);
			break;
		case K_FIELD:
			rawfrag_out__printf(o, "%*.*s", w, w, hk->show ? hk->show : "");
			break;
		case K_SYM: {
			char b[64];
			int n;

			/* a symbol as it is, however long (C++ names pass 512 bytes) */
			if (hk->show) {
				rawfrag_out__printf(o, "[%c] ", hk->level);
				rawfrag_out__puts(o, hk->show);
				n = 4 + (int)strlen(hk->show);
				/*
				 * perf's data symbol: +offset of the address that made
				 * the entry from the symbol in the entry's last map
				 */
				if (hk->obj && t->cc_on) {
					int k = snprintf(b, sizeof(b), "+0x%" PRIx64,
							 e->m.ip - (hk->u + e->m.delta));

					rawfrag_out__puts(o, b);
					n += k;
				}
			} else {
				n = snprintf(b, sizeof(b), "[%c] %#.16" PRIx64, hk->level, hk->u);
				rawfrag_out__puts(o, b);
			}
			/* the last column is not padded */
			if (i != c->last && n < w)
				rawfrag_out__printf(o, "%*s", w - n, "");
			break;
		}
		}
	}
	rawfrag_out__putc(o, '\n');
}

static int cmp_str(const char *a, const char *b)
{
	/* perf puts an entry without a DSO or symbol after the others */
	if (!a || !b)
		return a ? -1 : b ? 1 : 0;
	return strcmp(a, b);
}

/* a pid or cpu (signed), or a field's bytes (greatest first): both sorts alike */
static int num_key_cmp(enum tkind kind, const struct rf_hkey *x, const struct rf_hkey *y)
{
	uint32_t n = x->id_len < y->id_len ? x->id_len : y->id_len;

	if (kind != K_FIELD)
		return (int32_t)x->u < (int32_t)y->u ? -1 : (int32_t)x->u > (int32_t)y->u;
	if (!x->id || !y->id)
		return x->id ? -1 : y->id ? 1 : 0;
	return -memcmp(x->id, y->id, n);
}

/* perf's output order: period (and samples), then each key as perf sorts it */
static int entry_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct rf_hentry *a = *(const struct rf_hentry *const *)pa;
	const struct rf_hentry *b = *(const struct rf_hentry *const *)pb;
	struct table_sink *t = ctx;
	int dr;

	/* --children: by children, the caller first on ties (perf's __hpp__sort_acc) */
	if (t->children && a->acc != b->acc)
		return a->acc > b->acc ? -1 : 1;
	if (t->children && (dr = rf_cc__depth_cmp(&t->ccp, t->children, a, b)))
		return dr;
	if (t->weight.field && a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (t->show_nr && a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *x = &a->k[i], *y = &b->k[i];
		int r = 0;

		switch (t->keys[i].kind) {
		case K_SYM:
			/* perf's sort__sym_sort: the names, an inlined one's without its mark */
			r = x->show && y->show ? rf_hkey__name_cmp(x, y) : cmp_str(x->show, y->show);
			break;
		case K_COMM:
		case K_DSO:
		case K_TRACE:
		case K_TFIELDS:
			r = cmp_str(x->show, y->show);
			break;
		case K_PID:
		case K_CPU:
		case K_FIELD:
			r = num_key_cmp(t->keys[i].kind, x, y);
			break;
		}
		if (r)
			return r;
	}
	/*
	 * perf keeps the order of its collapsed tree among entries that sort the
	 * same: unresolved addresses (one entry each) by address (--children:
	 * that order is the input of rf_cc__rb_order())
	 */
	if (t->children)
		return 0;
	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *x = &a->k[i], *y = &b->k[i];

		if (t->keys[i].kind == K_SYM && !x->show && !y->show && x->u != y->u)
			return x->u < y->u ? -1 : 1;
	}
	return 0;
}

/*
 * perf's collapsed order (hist_entry__collapse() as its tree sorts): comm,
 * DSO (none last), symbol (unresolved ones by address, none last, then by
 * start), tid and CPU ascending, tracepoint bytes greatest first
 */
static int slot_cmp(void *ctx, int i, const struct rf_hkey *x, const struct rf_hkey *y)
{
	struct table_sink *t = ctx;
	int r = 0;

	switch (t->keys[i].kind) {
	case K_COMM:
	case K_DSO:
		r = cmp_str(x->id, y->id);
		break;
	case K_TRACE: /* perf's sort__trace_cmp: the lines */
	case K_TFIELDS:
		r = cmp_str(x->show, y->show);
		break;
	case K_SYM:
		if (!x->id_len && !y->id_len) {
			r = (int64_t)(x->u - y->u) < 0 ? -1 : x->u != y->u;
			break;
		}
		r = cmp_str(x->id, y->id);
		if (!r && (!x->id_len || !y->id_len))
			r = x->id_len ? -1 : 1;
		if (!r && x->u != y->u)
			r = x->u < y->u ? -1 : 1;
		break;
	case K_PID:
	case K_CPU:
	case K_FIELD:
		r = num_key_cmp(t->keys[i].kind, x, y);
		break;
	}
	return r;
}

static int collapse_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct rf_hentry *a = *(const struct rf_hentry *const *)pa;
	const struct rf_hentry *b = *(const struct rf_hentry *const *)pb;
	struct table_sink *t = ctx;

	for (int i = 0; i < t->nr_keys; i++) {
		int r = slot_cmp(t, i, &a->k[i], &b->k[i]);

		if (r)
			return r;
	}
	return 0;
}

/* an entry's key i as one string: a column's value without its padding */
static const char *key_text(const struct table_sink *t, const struct rf_hkey *hk, int i,
			    char *b, size_t len)
{
	switch (t->keys[i].kind) {
	case K_PID:
		snprintf(b, len, "%d:%s", (int32_t)hk->u, hk->show ? hk->show : "");
		return b;
	case K_CPU:
		snprintf(b, len, "%d", (int)hk->u);
		return b;
	case K_DSO:
		return hk->show ? hk->show : "[unknown]";
	case K_SYM:
		if (hk->show)
			return hk->show;
		snprintf(b, len, "0x%016" PRIx64, hk->u);
		return b;
	default:
		return hk->show ? hk->show : "";
	}
}

static const char *key_name(const struct table_sink *t, int i)
{
	static const char *const names[] = { [K_COMM] = "comm", [K_PID] = "pid", [K_DSO] = "dso",
					     [K_SYM] = "sym", [K_CPU] = "cpu",
					     [K_TRACE] = "trace" };

	return t->keys[i].kind == K_FIELD ? t->keys[i].field : names[t->keys[i].kind];
}

/* {"event":E,"keys":{...} of a JSON line, through the library's string writer */
static void json_head(struct table_sink *t, const char *evname, const char *kind,
		      const struct rf_hentry *e)
{
	struct rawfrag_out *o = t->out;
	char b[64];

	rawfrag_out__puts(o, "{\"event\":");
	rawfrag_out__json_str(o, evname, (size_t)-1);
	rawfrag_out__printf(o, ",\"kind\":\"%s\",\"keys\":{", kind);
	for (int i = 0; e && i < t->nr_keys; i++) {
		const struct rf_hkey *hk = &e->k[i];

		if (i)
			rawfrag_out__putc(o, ',');
		rawfrag_out__json_str(o, key_name(t, i), (size_t)-1);
		rawfrag_out__putc(o, ':');
		if (t->keys[i].kind == K_CPU) {
			rawfrag_out__printf(o, "%d", (int)hk->u);
		} else if (t->keys[i].kind == K_PID) {
			rawfrag_out__printf(o, "%d", (int32_t)hk->u);
		} else if (t->keys[i].kind == K_FIELD && !hk->id) {
			rawfrag_out__puts(o, "null"); /* the event has no such field */
		} else {
			rawfrag_out__json_str(o, key_text(t, hk, i, b, sizeof(b)), (size_t)-1);
		}
	}
	rawfrag_out__putc(o, '}');
}

/* --hist: an entry's (or the event's) buckets, as text or JSON lines */
static void print_hist(struct table_sink *t, const char *evname, const struct rf_hentry *e,
		       const struct rf_thist *h)
{
	struct rawfrag_out *o = t->out;
	char b[64];

	if (!h || !h->n)
		return;
	if (t->json) {
		for (uint32_t i = 0; i < h->nb; i++) {
			uint64_t lo, hi;
			bool lo_open, hi_open;

			if (!h->b[i])
				continue;
			rf_thist__bucket(&t->hspec, i, &lo, &hi, &lo_open, &hi_open);
			json_head(t, evname, "bucket", e);
			rawfrag_out__puts(o, ",\"field\":");
			rawfrag_out__json_str(o, t->hval.field, (size_t)-1);
			if (lo_open)
				rawfrag_out__puts(o, ",\"lo\":null,\"hi\":0");
			else if (hi_open)
				rawfrag_out__printf(o, ",\"lo\":%" PRIu64 ",\"hi\":null", lo);
			else if (hi == UINT64_MAX)
				rawfrag_out__printf(o, ",\"lo\":%" PRIu64 ",\"hi\":18446744073709551616", lo);
			else
				rawfrag_out__printf(o, ",\"lo\":%" PRIu64 ",\"hi\":%" PRIu64, lo, hi);
			rawfrag_out__printf(o, ",\"count\":%" PRIu64 "}\n", h->b[i]);
		}
		return;
	}
	rawfrag_out__printf(o, "@%s", t->hval.field);
	for (int i = 0; e && i < t->nr_keys; i++)
		rawfrag_out__printf(o, "%s%s", i ? ", " : "[", key_text(t, &e->k[i], i, b, sizeof(b)));
	rawfrag_out__puts(o, t->nr_keys ? "]:\n" : ":\n");
	rf_thist__print(h, &t->hspec, o);
	rawfrag_out__putc(o, '\n');
}

static void print_json_entry(struct table_sink *t, const char *evname, const struct rf_hentry *e,
			     double pct)
{
	json_head(t, evname, "entry", e);
	rawfrag_out__printf(t->out, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64
			    ",\"weight\":%" PRIu64 ",\"percent\":%.4f}\n",
			    e->samples, e->period, e->weight, pct);
}

/*
 * Entries v[0..n) of at least the percent limit: their rows and call
 * graphs into o. views: the thread's copies of the section's trees (NULL:
 * this thread prints from the trees themselves).
 */
static void print_rows(struct table_sink *t, struct tsec *sec, const struct cols *c,
		       struct rf_hentry *const *v, size_t n, uint64_t total,
		       struct rf_cc *const *views, struct rawfrag_out *o)
{
	for (size_t j = 0; j < n; j++) {
		uint64_t val = t->children ? v[j]->acc : entry_value(t, v[j]);
		uint32_t of = v[j]->cc_of;

		if ((total ? 100.0 * val / total : 0.0) < t->percent_limit)
			continue;
		print_row(t, c, v[j], total, o);
		/* perf's graphs are shares of every sample, --percentage or not */
		if (sec->cc)
			rf_cc__print(views ? views[of] : of ? sec->pcc[of - 1] : sec->cc, o, v[j],
				     sec->all_period);
	}
}

/*
 * report -j: the rows and call graphs (most of a -g table's end) printed by
 * several threads, a block of entries at a time each into a buffer of its
 * own, the blocks written in order after: every entry's lines depend on it
 * and the section alone
 */
#define PRINT_BLOCK 32

struct tprint {
	struct table_sink *t;
	struct tsec *sec;
	const struct cols *c;
	struct rf_hentry *const *v;
	size_t n, nb, next;
	uint64_t total;
	struct rawfrag_out **outs; /* a thread's */
	struct tblock {
		int thread;
		size_t off, len;
	} *blocks;
	int nt; /* threads that took a number */
	bool failed;
};

static void *print_blocks(void *arg)
{
	struct tprint *p = arg;
	int nv = p->sec->nr_p + 1, me = __atomic_fetch_add(&p->nt, 1, __ATOMIC_RELAXED);
	struct rf_cc **views = calloc((size_t)nv, sizeof(*views));
	struct rawfrag_out *o = rawfrag_out__new(-1);
	bool ok = views && o;
	size_t b;

	p->outs[me] = o;
	for (int k = 0; ok && k < nv; k++)
		ok = (views[k] = rf_cc__view(k ? p->sec->pcc[k - 1] : p->sec->cc)) != NULL;
	while (ok && (b = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->nb) {
		size_t from = b * PRINT_BLOCK, to = from + PRINT_BLOCK < p->n ? from + PRINT_BLOCK :
										  p->n, start;

		rawfrag_out__mem(o, &start);
		print_rows(p->t, p->sec, p->c, p->v + from, to - from, p->total, views, o);
		rawfrag_out__mem(o, &p->blocks[b].len);
		p->blocks[b].len -= start;
		p->blocks[b].off = start;
		p->blocks[b].thread = me + 1;
	}
	if (!ok)
		__atomic_store_n(&p->failed, true, __ATOMIC_RELAXED);
	for (int k = 0; views && k < nv; k++)
		free(views[k]);
	free(views);
	return NULL;
}

/* 0 when printed; -ENOMEM: nothing printed (the caller prints on its own) */
static int print_rows_threads(struct table_sink *t, struct tsec *sec, const struct cols *c,
			      struct rf_hentry *const *v, size_t n, uint64_t total, int threads)
{
	struct tprint p = { .t = t, .sec = sec, .c = c, .v = v, .n = n, .total = total,
			    .nb = (n + PRINT_BLOCK - 1) / PRINT_BLOCK };
	pthread_t *th = calloc((size_t)threads, sizeof(*th));
	int started = 0, ret = 0;

	p.outs = calloc((size_t)threads, sizeof(*p.outs));
	p.blocks = calloc(p.nb ? p.nb : 1, sizeof(*p.blocks));
	if (!th || !p.outs || !p.blocks) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 1; i < threads; i++) {
		if (pthread_create(&th[i], NULL, print_blocks, &p))
			break;
		started++;
	}
	print_blocks(&p);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < p.nt; i++)
		p.failed |= !p.outs[i] || rawfrag_out__error(p.outs[i]) != 0;
	for (size_t b = 0; b < p.nb; b++)
		p.failed |= !p.blocks[b].thread;
	if (p.failed) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t b = 0; b < p.nb; b++) {
		size_t len;
		const char *m = rawfrag_out__mem(p.outs[p.blocks[b].thread - 1], &len);

		rawfrag_out__write(t->out, m + p.blocks[b].off, p.blocks[b].len);
	}
out:
	for (int i = 0; p.outs && i < threads; i++)
		rawfrag_out__delete(p.outs[i]);
	free(p.outs);
	free(p.blocks);
	free(th);
	return ret;
}

/* perf's "%lu%c": thousands as K, M, G */
static void print_section(struct table_sink *t, struct tsec *sec, const char *evname,
			  int threads)
{
	struct rawfrag_out *o = t->out;
	/* perf's --percentage: of every sample (absolute) or of those the filters keep */
	unsigned long nr = (unsigned long)(t->relative ? sec->h.nr_samples : sec->all_samples);
	uint64_t period = t->relative ? sec->h.total_period : sec->all_period;
	uint64_t weight = t->relative ? sec->h.total_weight : sec->all_weight;
	uint64_t total = t->weight.field ? weight : period;
	char unit = ' ';
	struct rf_hentry **v;
	struct cols c;
	size_t n, k;
	int r;

	if (nr > 1000) {
		nr /= 1000;
		unit = 'K';
	}
	if (nr > 1000) {
		nr /= 1000;
		unit = 'M';
	}
	if (nr > 1000) {
		nr /= 1000;
		unit = 'G';
	}
	if (sec->cc)
		rf_cc__flush(sec->cc);
	/*
	 * --children: perf's order is its trees', not a sort's (hists_cc.c): the
	 * entries as made into its collapsed tree (or perf's own entry trees,
	 * which inlined frames need), that one's order into the output tree;
	 * neither comparison is a total order
	 */
	r = sec->cc ? rf_cc__entries(sec->cc, &v, &n) : 0;
	if (!r) {
		v = rf_hists__sorted(&sec->h, &n, t->children ? NULL : entry_cmp, t);
		if (t->children && rf_cc__rb_order(v, n, collapse_cmp, t))
			r = -ENOMEM;
	}
	if (r < 0 || (t->children && rf_cc__rb_order(v, n, entry_cmp, t)))
		n = 0;
	/* perf neither shows nor measures the filtered entries */
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (!v[i]->filtered)
			v[k++] = v[i];
	n = k;
	widths(t, sec, v, n, &c);
	if (!t->quiet && !t->json) {
		rawfrag_out__printf(o, "# Samples: %lu%c of event '%s'\n", nr, unit, evname);
		if (t->weight.field) {
			/* as perf mem's header */
			rawfrag_out__printf(o, "# Total weight : %" PRIu64 "\n", weight);
			rawfrag_out__printf(o, "# Sort order   : %s\n",
					    t->sort_str ? t->sort_str : "(none)");
			rawfrag_out__printf(o, "# Samples without '%s': %" PRIu64 "\n",
					    t->weight.field, sec->no_weight);
		} else {
			rawfrag_out__printf(o, "# Event count (approx.): %" PRIu64 "\n", period);
		}
		if (t->hval.field) {
			rawfrag_out__printf(o, "# Histogram of '%s' (%s buckets; a percentile is "
					       "the upper end of its bucket)\n", t->hval.field,
					    t->hspec.linear ? "linear" : "log2");
			rawfrag_out__printf(o, "# Samples without '%s': %" PRIu64 "\n",
					    t->hval.field, sec->no_hist);
		}
		if (!t->hval.field)
			print_header(t, &c);
		else
			rawfrag_out__puts(o, "#\n");
	}
	if (t->hval.field && !t->nr_keys)
		print_hist(t, evname, NULL, &sec->hist);
	if (t->nr_keys && !t->json && !t->hval.field) {
		if (!sec->cc || threads < 2 || print_rows_threads(t, sec, &c, v, n, total, threads))
			print_rows(t, sec, &c, v, n, total, NULL, o);
		n = 0;
	}
	for (size_t j = 0; j < n && t->nr_keys; j++) {
		uint64_t val = t->children ? v[j]->acc : entry_value(t, v[j]);
		double pct = total ? 100.0 * val / total : 0.0;

		if (pct < t->percent_limit)
			continue;
		if (t->hval.field)
			print_hist(t, evname, v[j], v[j]->ext);
		else
			print_json_entry(t, evname, v[j], pct);
	}
	if (!t->json)
		rawfrag_out__puts(o, "\n\n");
	free(v);
}

/* a field no sample had (in any event) is a mistake of the key */
static int check_fields(struct table_sink *t, struct rawfrag_err *err)
{
	char msg[300];

	for (int i = 0; i < t->nr_keys; i++) {
		bool any = false;

		if (t->keys[i].kind != K_FIELD)
			continue;
		for (int s = 0; s < t->nr_sec; s++)
			any |= t->sec[s].used && t->sec[s].has[i];
		if (any)
			continue;
		snprintf(msg, sizeof(msg), "sort key '%.60s': no sample has a field '%.60s'",
			 t->keys[i].field, t->keys[i].field);
		rf_err_set(err, -ENOENT, msg);
		return -ENOENT;
	}
	for (int k = 0; k < 2; k++) {
		const struct tval *v = k ? &t->hval : &t->weight;

		if (!v->field || v->seen || v->period)
			continue;
		snprintf(msg, sizeof(msg), "%s %.60s: no sample has a field '%.60s' (names as in "
					   "--format json \"fields\"; nested: a.b)",
			 k ? "--hist" : "--weight", v->field, v->field);
		rf_err_set(err, -ENOENT, msg);
		return -ENOENT;
	}
	return 0;
}

/* perf shows a thread (the pid key) with the name it has at the end */
static int thread_names(struct table_sink *t, struct rawfrag_report *rep)
{
	for (int s = 0; s < t->nr_sec; s++) {
		struct rf_hists *h = &t->sec[s].h;

		if (!t->sec[s].used)
			continue;
		for (size_t b = 0; b < h->cap; b++) {
			for (struct rf_hentry *e = h->tab[b]; e; e = e->next) {
				for (int i = 0; i < t->nr_keys; i++) {
					struct rawfrag_sample who = { 0 };
					const char *name;
					int len;

					if (t->keys[i].kind != K_PID)
						continue;
					who.pid = e->k[i].id_len;
					who.tid = (uint32_t)e->k[i].u;
					name = rf_report__comm(rep, &who, &len);
					e->k[i].show = rf_hists__intern(h, name, (size_t)len);
					if (!e->k[i].show)
						return -ENOMEM;
				}
			}
		}
	}
	return 0;
}

static int table_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct table_sink *t = priv;
	struct rawfrag_out *o = t->out;
	int ret = 0;

	if (!o)
		return 0;
	if (!status) {
		ret = check_fields(t, rawfrag_report__err(rep));
		if (ret)
			goto out;
		ret = thread_names(t, rep);
		if (ret)
			goto out;
		if (!t->quiet && !t->json) {
			rawfrag_out__puts(o, "# To display the perf.data header info, please use "
					     "--header/--header-only options.\n#\n");
			/* perf names a one-entry filter of a sort key once, here */
			for (int i = 0; i < t->nr_keys; i++) {
				if (t->keys[i].kind == K_COMM && t->comms.n == 1)
					rawfrag_out__printf(o, "# comm: %s\n", t->comms.v[0]);
				if (t->keys[i].kind == K_DSO && t->dsos.n == 1)
					rawfrag_out__printf(o, "# dso: %s\n", t->dsos.v[0]);
			}
			rawfrag_out__printf(o, "#\n# Total Lost Samples: %" PRIu64 "\n#\n",
					    t->lost_samples);
		}
		for (int s = 0; s < t->nr_sec; s++)
			if (t->sec[s].used && t->sec[s].all_samples)
				print_section(t, &t->sec[s],
					      rawfrag_evsel__name(rawfrag_file__evsel(t->file, s)),
					      rep->ran_jobs);
		/* perf's closing lines hold a tip; ours says what only this table does */
		if (!t->quiet && !t->json)
			rawfrag_out__puts(o, "#\n# (Tip: sort by any decoded field: perf rawfrag "
					     "report -s derived.cache_level)\n#\n");
	}
out:
	rawfrag_out__flush(o);
	return ret;
}

/* children=, callgraph= (perf's -g), max_stack= */
static int cc_opts(struct table_sink *t, const char *const *kv, struct rawfrag_err *err)
{
	const char *s;
	char msg[200], *end;

	t->ccp = (struct rf_cc_params){ .mode = RF_CC_GRAPH, .min_percent = 0.5 };
	t->children_opt = -1;
	s = rf_sink_opt(kv, "callgraph");
	if (s) {
		t->cg_set = true;
		if (rf_cc_params__parse(&t->ccp, s, err))
			return -EINVAL;
	}
	s = rf_sink_opt(kv, "children");
	if (s) {
		if (strcmp(s, "0") && strcmp(s, "1")) {
			snprintf(msg, sizeof(msg), "table output: children=%.40s is not 0 or 1", s);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		t->children_opt = s[0] == '1';
	}
	s = rf_sink_opt(kv, "max_stack");
	if (s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*s || *end || !v || v > 65535) {
			snprintf(msg, sizeof(msg), "table output: max_stack=%.40s is not a number "
						   "of frames (1-65535)", s);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		t->max_stack = (uint32_t)v;
	}
	s = rf_sink_opt(kv, "sort");
	/* perf does not repeat the entry's own symbol atop its graph when sorting by it first */
	t->ccp.skip_first = s && !strncmp(s, "sym", 3);
	return 0;
}

/*
 * perf's defaults from the file: --children and a graph when its samples
 * have call chains; -g on a file without is an error as in perf
 */
static int cc_setup(struct table_sink *t, struct rawfrag_err *err)
{
	bool has = false;
	char msg[160];

	for (int i = 0; i < rawfrag_file__nr_evsels(t->file); i++)
		has |= !!(rawfrag_evsel__attr(rawfrag_file__evsel(t->file, i))->sample_type &
			  PERF_SAMPLE_CALLCHAIN);
	/*
	 * A pipe's attributes come later: perf decides with none, so a graph
	 * when samples have chains and never --children, yet in the caller
	 * order it set for --children before
	 */
	/*
	 * --weight, --hist and JSON rows count an entry's own samples only
	 * (perf mem has no Children either): no chains there, and asking for
	 * them is an error rather than numbers of two kinds side by side
	 */
	if (t->weight.field || t->hval.field || t->json) {
		if (t->children_opt == 1 || (t->cg_set && t->ccp.mode != RF_CC_NONE)) {
			rf_err_set(err, -EINVAL, "table output: --children and a call graph (-g) do "
						 "not go with --weight, --hist or --format json "
						 "(drop them, or use --no-children and -g none)");
			return -EINVAL;
		}
		t->children = t->cc_on = false;
		t->ccp.mode = RF_CC_NONE;
		return 0;
	}
	/*
	 * perf's --dsos drops entries after it summed chains into them (a libc
	 * function's Children hold samples in other DSOs); ours drops samples,
	 * right for Self and its graph only: no Children column there
	 */
	if (t->dsos.n) {
		if (t->children_opt == 1) {
			rf_err_set(err, -EINVAL, "table output: --children does not go with "
						 "--dsos yet (--no-children, the default there)");
			return -EINVAL;
		}
		t->children_opt = 0;
	}
	if (rawfrag_file__mode(t->file) == RAWFRAG_MODE_PIPE) {
		if (!t->ccp.order_set)
			t->ccp.caller = t->children_opt != 0;
		t->ccp.order_set = true;
		has = true;
		t->children_opt = 0;
	}
	if (t->cg_set && t->ccp.mode != RF_CC_NONE && !has) {
		snprintf(msg, sizeof(msg), "table output: a call graph was asked for, but no "
					   "sample has a call chain (record with -g)");
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	if (!t->cg_set && !has)
		t->ccp.mode = RF_CC_NONE;
	t->children = has && t->children_opt != 0;
	if (!t->ccp.order_set)
		t->ccp.caller = t->children;
	/* perf's --percent-limit is the graph's threshold too (read as a float) */
	if (t->percent_limit > 0 && !t->ccp.threshold_set)
		t->ccp.min_percent = (float)t->percent_limit;
	for (int i = 0; i < t->nr_keys; i++)
		t->kinds[i] = t->keys[i].kind == K_DSO ? RF_CC_SLOT_DSO :
			      t->keys[i].kind == K_SYM ? RF_CC_SLOT_SYM : RF_CC_SLOT_OTHER;
	t->cc_on = t->children || t->ccp.mode != RF_CC_NONE;
	return 0;
}

/*
 * trace_fields: perf's one column per field of every tracepoint event, in the
 * events' and the fields' order, each a field key of its event
 */
static int expand_trace_fields(struct table_sink *t, struct rawfrag_err *err)
{
	struct tkey keys[RF_HISTS_MAX_KEYS];
	bool made[RF_HISTS_MAX_KEYS] = { false };
	int n = 0;

	for (int i = 0; i < t->nr_keys; i++) {
		if (t->keys[i].kind != K_TFIELDS) {
			if (n == RF_HISTS_MAX_KEYS)
				goto many;
			keys[n++] = t->keys[i];
			continue;
		}
		for (int e = 0; e < rawfrag_file__nr_evsels(t->file); e++) {
			struct rawfrag_evsel *ev = rawfrag_file__evsel(t->file, e);
			const struct rawfrag_decoder *d = rawfrag_session__decoder(t->sess, ev);
			void *tp;
			const char *name;

			if (rawfrag_evsel__attr(ev)->type != PERF_TYPE_TRACEPOINT || !d ||
			    strcmp(rawfrag_decoder__name(d), "tracepoint"))
				continue;
			tp = rawfrag_session__decoder_priv(t->sess, ev);
			for (int f = 0; (name = rawfrag_tp__field_name(tp, f)); f++) {
				if (n == RF_HISTS_MAX_KEYS)
					goto many;
				keys[n] = (struct tkey){ .kind = K_FIELD,
							 .field = strdup(name),
							 .event = strdup(rawfrag_evsel__name(ev)) };
				made[n++] = true;
				if (!keys[n - 1].field || !keys[n - 1].event)
					goto nomem;
			}
		}
	}
	memcpy(t->keys, keys, n * sizeof(keys[0]));
	t->nr_keys = n;
	if (!n)
		goto none;
	return 0;
many:
	rf_err_set(err, -EINVAL, "table output: trace_fields: more than 16 columns (sort by the "
				 "fields you want: -s EVENT.FIELD,...)");
	goto fail;
none:
	rf_err_set(err, -ENOENT, "table output: trace_fields: the file has no tracepoint event");
	return -ENOENT;
nomem:
	rf_err_set(err, -ENOMEM, "out of memory");
fail:
	/* the sink's own keys stay its; those made here go */
	for (int i = 0; i < n; i++)
		if (made[i]) {
			free(keys[i].field);
			free(keys[i].event);
		}
	return err->err;
}

/*
 * perf's default sort keys: trace (the event's own line) when every event is
 * a tracepoint, comm,dso,sym otherwise and on a pipe, whose events are not
 * known yet when perf picks
 */
static int default_keys(struct table_sink *t, struct rawfrag_err *err)
{
	int n = rawfrag_file__nr_evsels(t->file);
	char *s;

	for (int e = 0; e < n; e++)
		if (rawfrag_evsel__attr(rawfrag_file__evsel(t->file, e))->type !=
		    PERF_TYPE_TRACEPOINT)
			return 0;
	if (!n || !(s = strdup("trace")))
		return n ? -ENOMEM : 0;
	free(t->sort_str);
	t->sort_str = s;
	t->nr_keys = 0;
	return parse_keys(t, s, err) ? -EINVAL : 0;
}

static int table_begin(void *priv, struct rawfrag_report *rep)
{
	struct table_sink *t = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	t->sess = rawfrag_report__session(rep);
	t->file = rawfrag_session__file(t->sess);
	t->swap = rawfrag_file__needs_swap(t->file);
	if (t->default_sort && (fd = default_keys(t, err)))
		return fd;
	for (int i = 0; i < t->nr_keys; i++)
		if (t->keys[i].kind == K_TFIELDS) {
			int ret = expand_trace_fields(t, err);

			if (ret)
				return ret;
			break;
		}
	if (cc_setup(t, err))
		return -EINVAL;
	fd = rf_sink_open_fd(t->path, t->fd, err);
	if (fd < 0)
		return fd;
	if (t->path && strcmp(t->path, "-"))
		t->own_fd = fd;
	t->out = rawfrag_out__new(fd);
	t->scratch = rawfrag_out__new(-1);
	if (!t->out || !t->scratch) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* ---- -j: the workers' tables are one table ---- */

/*
 * With call chains every worker reads every sample (resolving its chain)
 * and keeps whole the entries of its part of the keys: their trees and
 * children's period are built from all their samples in order, as one job
 * builds them (perf's trees follow the order chains came in). Not on a
 * pipe, whose events are not known when the run splits. DWARF-unwound
 * chains, whose inlined functions start perf's entry trees (which need
 * every entry), never split (rf_jobs__possible()).
 */
static bool split_entries(const struct table_sink *t)
{
	return t->cc_on && rawfrag_file__mode(t->file) == RAWFRAG_MODE_FILE;
}

/*
 * Without call chains an entry's samples add up whoever counts them, unless
 * a filter makes an entry's first sample decide for all its later ones:
 * then one job reads it (a split by entry would read everything in every
 * worker for nothing).
 */
bool rf_table__splittable(void *priv)
{
	const struct table_sink *t = priv;

	return (!t->cc_on && !t->comms.n && !t->dsos.n && !t->has_pids && !t->has_tids) ||
	       split_entries(t);
}

bool rf_table__sees_all(void *priv)
{
	return split_entries(priv);
}

struct rawfrag_out *rf_table__out(void *priv)
{
	return ((struct table_sink *)priv)->out;
}

/* p, a string of src's hists, as one of dst's */
static const char *reintern(struct rf_hists *dst, const char *p)
{
	return p ? rf_hists__intern(dst, p, rf_hists__str_len(p)) : NULL;
}

/* d's entry of another worker's entry o's key (its strings interned in d), made if new */
static struct rf_hentry *entry_of(struct tsec *d, const struct rf_hentry *o, int nr_keys,
				  struct rf_hkey *key, bool *made)
{
	memcpy(key, o->k, (size_t)nr_keys * sizeof(key[0]));
	for (int i = 0; i < nr_keys; i++) {
		key[i].id = reintern(&d->h, o->k[i].id);
		key[i].show = reintern(&d->h, o->k[i].show);
		if ((o->k[i].id && !key[i].id) || (o->k[i].show && !key[i].show))
			return NULL;
	}
	return rf_hists__findnew(&d->h, key, made);
}

/* entry o of another worker's section into d's hists */
static int merge_entry(struct tsec *d, const struct rf_hentry *o, int nr_keys)
{
	struct rf_hkey key[RF_HISTS_MAX_KEYS];
	struct rf_hentry *e;
	bool made;

	e = entry_of(d, o, nr_keys, key, &made);
	if (!e)
		return -ENOMEM;
	/* what the first sample showed: names, its thread */
	if (made || o->first < e->first) {
		memcpy(e->k, key, (size_t)nr_keys * sizeof(key[0]));
		e->first = o->first;
		e->pid = o->pid;
		e->tid = o->tid;
	}
	e->samples += o->samples;
	e->period += o->period;
	e->weight += o->weight;
	e->acc += o->acc;
	if (o->ext && (!entry_hist(d, e) || rf_thist__merge(e->ext, o->ext)))
		return -ENOMEM;
	return 0;
}

static int first_cmp(const void *pa, const void *pb)
{
	const struct rf_hentry *a = *(const struct rf_hentry *const *)pa;
	const struct rf_hentry *b = *(const struct rf_hentry *const *)pb;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->first_pos < b->first_pos ? -1 : a->first_pos > b->first_pos;
}

/* the entries numbered by their first samples, as one job inserts them; the totals again */
static int renumber(struct tsec *d)
{
	struct rf_hentry **v = malloc((d->h.nr ? d->h.nr : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	d->h.nr_samples = d->h.total_period = d->h.total_weight = 0;
	for (size_t b = 0; b < d->h.cap; b++) {
		for (struct rf_hentry *e = d->h.tab[b]; e; e = e->next) {
			v[n++] = e;
			d->h.nr_samples += e->samples;
			d->h.total_period += e->period;
			d->h.total_weight += e->weight;
		}
	}
	qsort(v, n, sizeof(*v), first_cmp);
	for (size_t i = 0; i < n; i++)
		v[i]->seq = (uint32_t)i;
	d->h.last = NULL;
	free(v);
	return 0;
}

/*
 * Entry o, whole in the worker that owns it, over d's copy of it (every
 * worker counted every sample's own entry; the tree and children's period
 * are the owner's alone); its tree is the caller's to point at. NULL on
 * ENOMEM.
 */
static struct rf_hentry *take_entry(struct tsec *d, const struct rf_hentry *o, int nr_keys)
{
	struct rf_hkey key[RF_HISTS_MAX_KEYS];
	struct rf_hentry *e;
	bool made;

	e = entry_of(d, o, nr_keys, key, &made);
	if (!e)
		return NULL;
	/* what the sample that made it showed, and everything it counted */
	memcpy(e->k, key, (size_t)nr_keys * sizeof(key[0]));
	e->samples = o->samples;
	e->period = o->period;
	e->weight = o->weight;
	e->acc = o->acc;
	e->cc_tid = o->cc_tid;
	e->pid = o->pid;
	e->tid = o->tid;
	e->filtered = o->filtered;
	e->first = o->first;
	e->first_pos = o->first_pos;
	e->m = o->m;
	if (o->m.base && !(e->m.base = reintern(&d->h, o->m.base)))
		return NULL;
	/* made by a chain alone here: no --hist buckets, which only own samples fill */
	if (made && o->ext && (!entry_hist(d, e) || rf_thist__merge(e->ext, o->ext)))
		return NULL;
	return e;
}

/*
 * The entries of worker part (of nparts) in os, whole, into d. Their trees
 * stay where the worker built them: d takes its arena and the hists its
 * frames' names are in (os keeps none of them).
 */
static int take_part(struct table_sink *t, struct tsec *d, struct tsec *os, uint32_t part,
		     uint32_t nparts)
{
	struct rf_cc **pcc;
	struct rf_hists *ph;

	if (!d->cc != !os->cc)
		return -EINVAL;
	if (!(pcc = realloc(d->pcc, (size_t)(d->nr_p + 1) * sizeof(*pcc))))
		return -ENOMEM;
	d->pcc = pcc;
	if (!(ph = realloc(d->ph, (size_t)(d->nr_p + 1) * sizeof(*ph))))
		return -ENOMEM;
	d->ph = ph;
	/* taken first: an entry points at no arena d does not hold, whatever fails */
	pcc[d->nr_p] = os->cc;
	ph[d->nr_p] = os->h;
	os->cc = NULL;
	memset(&os->h, 0, sizeof(os->h));
	/* its keys' compare was the worker's sink's, which goes */
	if (pcc[d->nr_p])
		cc_keys(t, pcc[d->nr_p]);
	ph = &ph[d->nr_p++];
	for (size_t b = 0; b < ph->cap; b++) {
		for (struct rf_hentry *e = ph->tab[b]; e; e = e->next) {
			struct rf_hentry *x;

			if (rf_hists__part(ph, e->k, nparts) != part)
				continue;
			if (!(x = take_entry(d, e, t->nr_keys)))
				return -ENOMEM;
			x->cc_root = e->cc_root;
			x->cc_depth = e->cc_depth;
			x->cc_of = e->cc_root ? (uint32_t)d->nr_p : 0;
		}
	}
	return 0;
}

/* -j with call chains: each worker's part of the entries, whole, into t */
static int merge_parts(struct table_sink *t, void *const *others, int n)
{
	for (int s = 0; s < t->nr_sec; s++)
		if (t->sec[s].cc)
			rf_cc__flush(t->sec[s].cc);
	for (int k = 0; k < n; k++) {
		struct table_sink *o = others[k];

		for (int s = 0; s < o->nr_sec; s++) {
			struct tsec *os = &o->sec[s];
			int ret;

			if (!os->used)
				continue;
			/* every worker saw every sample: the sections are the same */
			if (s >= t->nr_sec || !t->sec[s].used)
				return -EINVAL;
			if (os->cc)
				rf_cc__flush(os->cc);
			if ((ret = take_part(t, &t->sec[s], os, (uint32_t)k + 1, (uint32_t)n + 1)))
				return ret;
		}
	}
	for (int s = 0; s < t->nr_sec; s++)
		if (t->sec[s].used && renumber(&t->sec[s]))
			return -ENOMEM;
	return 0;
}

int rf_table__merge(void *priv, void *const *others, int n)
{
	struct table_sink *t = priv;

	if (split_entries(t))
		return merge_parts(t, others, n);
	for (int k = 0; k < n; k++) {
		const struct table_sink *o = others[k];

		t->weight.seen |= o->weight.seen;
		t->hval.seen |= o->hval.seen;
		for (int s = 0; s < o->nr_sec; s++) {
			const struct tsec *os = &o->sec[s];
			struct tsec *d;

			if (!os->used)
				continue;
			if (!(d = section(t, s)))
				return -ENOMEM;
			if (!d->known && os->known)
				section_learn(t, d, rawfrag_file__evsel(t->file, s));
			for (int i = 0; i < t->nr_keys; i++) {
				d->has[i] |= os->has[i];
				if (os->fwidth[i])
					d->fwidth[i] = os->fwidth[i];
			}
			d->all_samples += os->all_samples;
			d->all_period += os->all_period;
			d->all_weight += os->all_weight;
			d->no_weight += os->no_weight;
			d->no_hist += os->no_hist;
			if (rf_thist__merge(&d->hist, &os->hist))
				return -ENOMEM;
			for (size_t b = 0; b < os->h.cap; b++)
				for (const struct rf_hentry *e = os->h.tab[b]; e; e = e->next)
					if (merge_entry(d, e, t->nr_keys))
						return -ENOMEM;
		}
	}
	for (int s = 0; s < t->nr_sec; s++)
		if (t->sec[s].used && renumber(&t->sec[s]))
			return -ENOMEM;
	return 0;
}

static int table_error(void *priv)
{
	struct table_sink *t = priv;

	return t->out ? rawfrag_out__error(t->out) : 0;
}

static void table_free(void *priv)
{
	struct table_sink *t = priv;

	rawfrag_out__delete(t->out);
	rawfrag_out__delete(t->scratch);
	if (t->own_fd >= 0)
		close(t->own_fd);
	for (int s = 0; s < t->nr_sec; s++)
		if (t->sec[s].used) {
			rf_hists__fini(&t->sec[s].h);
			for (int k = 0; k < t->sec[s].nr_p; k++) {
				rf_cc__delete(t->sec[s].pcc[k]);
				rf_hists__fini(&t->sec[s].ph[k]);
			}
			free(t->sec[s].pcc);
			free(t->sec[s].ph);
			free(t->sec[s].kf);
			rf_cc__delete(t->sec[s].cc);
			rf_thist__fini(&t->sec[s].hist);
			for (size_t j = 0; j < t->sec[s].nr_ehist; j++) {
				rf_thist__fini(t->sec[s].ehist[j]);
				free(t->sec[s].ehist[j]);
			}
			free(t->sec[s].ehist);
		}
	for (int i = 0; i < t->nr_keys; i++) {
		free(t->keys[i].field);
		free(t->keys[i].event);
	}
	rf_list__free(&t->pids);
	rf_list__free(&t->tids);
	for (int i = 0; i < t->comms.n; i++)
		free(t->comms.v[i]);
	for (int i = 0; i < t->dsos.n; i++)
		free(t->dsos.v[i]);
	free(t->comms.v);
	free(t->dsos.v);
	free(t->weight.field);
	free(t->hval.field);
	free(t->sep_own);
	free(t->sort_str);
	free(t->sec);
	free(t->path);
	free(t);
}

/* "a,b,c" of a filter option */
static int parse_list(struct tfilter *f, const char *s, struct rawfrag_err *err)
{
	char *dup = strdup(s), *save = NULL;

	if (!dup)
		goto nomem;
	for (char *k = strtok_r(dup, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char **v = realloc(f->v, (f->n + 1) * sizeof(*v));

		if (!v)
			goto nomem;
		f->v = v;
		if (!(f->v[f->n] = strdup(k)))
			goto nomem;
		f->n++;
	}
	free(dup);
	return 0;
nomem:
	free(dup);
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

/* the options beside perf report's table: weight, hist, format, filters, separator */
static int parse_more(struct table_sink *t, const char *const *kv, struct rawfrag_err *err)
{
	const char *s;
	char msg[200];

	s = rf_sink_opt(kv, "weight");
	if (s) {
		if (!*s) {
			rf_err_set(err, -EINVAL, "table output: weight= names a field");
			return -EINVAL;
		}
		t->weight.period = !strcmp(s, "period");
		if (!(t->weight.field = strdup(s)))
			goto nomem;
	}
	s = rf_sink_opt(kv, "hist");
	if (s) {
		int ret = rf_thist__parse(s, &t->hval.field, &t->hspec, msg, sizeof(msg));

		if (ret) {
			rf_err_set(err, ret, msg);
			return ret;
		}
		t->hval.period = !strcmp(t->hval.field, "period");
	}
	s = rf_sink_opt(kv, "format");
	if (s && strcmp(s, "text") && strcmp(s, "json")) {
		snprintf(msg, sizeof(msg), "table output: format=%.40s: text or json", s);
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	t->json = s && !strcmp(s, "json");
	s = rf_sink_opt(kv, "percentage");
	if (s && strcmp(s, "relative") && strcmp(s, "absolute")) {
		snprintf(msg, sizeof(msg), "table output: percentage=%.40s: relative or absolute", s);
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	t->relative = s && !strcmp(s, "relative");
	s = rf_sink_opt(kv, "field_separator");
	if (s) {
		if (!*s) {
			rf_err_set(err, -EINVAL, "table output: field_separator= is empty");
			return -EINVAL;
		}
		if (!(t->sep = t->sep_own = strdup(s)))
			goto nomem;
	}
	if (((s = rf_sink_opt(kv, "comms")) && parse_list(&t->comms, s, err)) ||
	    ((s = rf_sink_opt(kv, "dsos")) && parse_list(&t->dsos, s, err)))
		return -ENOMEM;
	if (rf_list__parse_opt(&t->pids, &t->has_pids, rf_sink_opt(kv, "pids"), true, err) ||
	    rf_list__parse_opt(&t->tids, &t->has_tids, rf_sink_opt(kv, "tids"), true, err))
		return -EINVAL;
	return 0;
nomem:
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

static int parse_opts(struct table_sink *t, const char *const *kv, struct rawfrag_err *err)
{
	const char *s;
	char msg[200], *end;

	if (rf_sink_opt_bool("table", kv, "show_nr_samples", &t->show_nr, err) ||
	    rf_sink_opt_bool("table", kv, "show_total_period", &t->show_period, err) ||
	    rf_sink_opt_bool("table", kv, "quiet", &t->quiet, err))
		return -EINVAL;
	s = rf_sink_opt(kv, "percent_limit");
	if (s) {
		t->percent_limit = strtod(s, &end);
		if (!*s || *end || t->percent_limit < 0) {
			snprintf(msg, sizeof(msg), "table output: percent_limit=%.40s is not a "
						   "percentage", s);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
	}
	if (cc_opts(t, kv, err))
		return -EINVAL;
	if (parse_more(t, kv, err))
		return -EINVAL;
	s = rf_sink_opt(kv, "sort");
	/* --hist alone: one histogram per event, no key */
	if (t->hval.field && !(s && *s))
		return 0;
	t->default_sort = !(s && *s);
	s = s && *s ? s : "comm,dso,sym";
	if (!(t->sort_str = strdup(s)))
		return -ENOMEM;
	if (parse_keys(t, s, err))
		return -EINVAL;
	/* perf elides a one-entry filter's column unless it is the only one */
	for (int i = 0; i < t->nr_keys; i++)
		t->elide |= !elided(t, i);
	t->need_sym |= t->dsos.n > 0;
	return 0;
}

int rf_sink_table_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "sort", "show_nr_samples", "show_total_period",
					    "percent_limit", "quiet", "callgraph", "children",
					    "max_stack", "weight", "hist", "format", "percentage",
					    "field_separator", "comms", "dsos", "pids", "tids",
					    NULL };
	struct table_sink *t;

	if (rf_sink_opts_known("table", opts->kv, keys, err))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t || (opts->path && !(t->path = strdup(opts->path)))) {
		free(t);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	t->fd = opts->fd;
	t->own_fd = -1;
	if (parse_opts(t, opts->kv, err)) {
		table_free(t);
		return -EINVAL;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "table",
		/* call chains need the machine unless both are off */
		.flags = t->need_sym || t->children_opt || t->ccp.mode != RF_CC_NONE ?
				 0 : RAWFRAG_SINK_NO_MACHINE,
		.begin = table_begin,
		.sample = table_sample,
		.lost = table_lost,
		.describe = table_describe,
		.end = table_end,
		.error = table_error,
		.free = table_free,
	};
	*priv = t;
	return 0;
}
