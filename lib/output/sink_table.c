// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "table" sink: perf report --stdio's table (6.1), one section per event
 * in the file's order, entries aggregated by a tuple of sort keys (hists.c):
 * perf's comm, pid, dso, sym, cpu, and any decoded field as --where names it
 * ("prev_comm", "sched:sched_switch.prev_state", "prev_prio/raw",
 * "derived.cache_level"). A tracepoint field is keyed by its payload bytes
 * and shown as the event's print format shows it, as perf does; any other
 * field by its typed value.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "internal/tracepoint.h"

enum tkind { K_COMM, K_PID, K_DSO, K_SYM, K_CPU, K_FIELD };

struct tkey {
	enum tkind kind;
	char *field; /* K_FIELD: the path; event: only in events of this name */
	char *event;
	bool raw;
};

/* a kernel address's DSO and symbol, valid while the kernel's maps stay the same */
struct kframe {
	uint64_t ip, start, rel_ip;
	uint32_t gen;
	bool valid;
	const char *dso, *sym; /* interned in the section's hists */
};
#define KFRAMES 512

struct tsec {
	bool used;
	struct kframe *kf; /* KFRAMES of them, on the first kernel sample */
	struct rf_hists h;
	bool has[RF_HISTS_MAX_KEYS]; /* a field column: some sample had the field */
	uint32_t fwidth[RF_HISTS_MAX_KEYS]; /* a tracepoint field's width from its format */
	struct rf_cc *cc; /* call chains: --children, -g (hists_cc.c) */
};

struct table_sink {
	char *path;
	int fd, own_fd;
	struct rawfrag_out *out, *scratch;
	struct tkey keys[RF_HISTS_MAX_KEYS];
	int nr_keys;
	bool show_nr, show_period, quiet, need_sym;
	double percent_limit;
	/* call chains: -1 children= not given (perf's default: when the file has chains) */
	int children_opt;
	bool children, cc_on, cg_set;
	struct rf_cc_params ccp;
	uint32_t max_stack;
	enum rf_cc_slot kinds[RF_HISTS_MAX_KEYS];
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
		} else if (!strcmp(k, "pid")) {
			key->kind = K_PID;
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

static int visit_field(void *ctx, const struct rawfrag_field *f)
{
	struct table_sink *t = ctx;

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
 * and skips the name and one character.
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
	return "";
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
			       .start = fr.ip - fr.symoff };
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

	if (!ts->tpriv || strchr(k->field, '.') ||
	    rawfrag_tp__field_info(ts->tpriv, k->field, strlen(k->field), &ts->fi[i]))
		return 0;
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
	case K_COMM:
		s = rf_report__comm(rep, smp, &len);
		hk->id = hk->show = rf_hists__intern(&ts->sec->h, s, (size_t)len);
		return hk->id ? 0 : -ENOMEM;
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
		hk->u = ts->kf->sym ? ts->kf->start : ts->kf->rel_ip;
		hk->id_len = ts->kf->sym ? 1 : 0;
		return 0;
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
			e->k[i].show = rf_hists__intern(&ts->sec->h, v, vlen);
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

	return first_show(c->t, c->rep, c->ts, e);
}

/* the sample's call chain: its entry's tree and, with --children, its frames' entries */
static int table_cc(struct table_sink *t, struct rawfrag_report *rep, struct tsample *ts,
		    struct rf_hentry *e, uint64_t period)
{
	struct cc_ctx c = { .t = t, .rep = rep, .ts = ts };
	struct tsec *sec = ts->sec;
	int ret;

	if (!sec->cc && !(sec->cc = rf_cc__new(&t->ccp, t->children, t->max_stack)))
		return -ENOMEM;
	ret = rf_cc__chain(sec->cc, &sec->h, rawfrag_report__machine(rep),
			   rawfrag_report__kernel_gen(rep), ts->smp,
			   rawfrag_evsel__attr(ts->ev->evsel));
	if (ret < 0)
		return ret;
	return rf_cc__add(sec->cc, &sec->h, e, ts->key, t->kinds, period, ts->smp->tid, cc_new, &c);
}

static int table_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct table_sink *t = priv;
	const struct perf_event_attr *a = rawfrag_evsel__attr(ev->evsel);
	struct tsample ts = { .ev = ev, .smp = ev->sample, .evname = rawfrag_evsel__name(ev->evsel),
			      .sec = section(t, rawfrag_evsel__idx(ev->evsel)) };
	struct rf_hentry *e;
	uint64_t period;
	int ret;

	if (!ts.sec)
		return -ENOMEM;
	period = ts.smp->sample_type & PERF_SAMPLE_PERIOD ? ts.smp->period : a->sample_period;
	if (a->type == PERF_TYPE_TRACEPOINT) {
		const struct rawfrag_decoder *d = rawfrag_session__decoder(t->sess, ev->evsel);

		if (d && !strcmp(rawfrag_decoder__name(d), "tracepoint"))
			ts.tpriv = rawfrag_session__decoder_priv(t->sess, ev->evsel);
	}
	memset(t->got, 0, sizeof(t->got));
	for (int i = 0; i < t->nr_keys; i++)
		if ((ret = key_of(t, rep, &ts, i)))
			return ret;
	if (ts.visit && (ret = visit_keys(t, &ts)))
		return ret;
	e = rf_hists__add(&ts.sec->h, ts.key, period, 0);
	if (!e)
		return -ENOMEM;
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
	[K_SYM] = "Symbol", [K_CPU] = "CPU",
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static void widths(struct table_sink *t, struct tsec *sec, struct rf_hentry **v, size_t n,
		   struct cols *c)
{
	bool unres = false;

	c->last = -1;
	for (int i = 0; i < t->nr_keys; i++) {
		struct tkey *k = &t->keys[i];

		c->on[i] = k->kind != K_FIELD || sec->has[i];
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
			case K_FIELD:
				c->w[i] = imax(c->w[i], len);
				break;
			case K_PID:
				c->w[i] = imax(c->w[i], len + 8);
				break;
			case K_DSO:
				c->w[i] = imax(c->w[i], hk->show ? len : 9);
				break;
			case K_SYM:
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

	rawfrag_out__puts(o, t->children ? "#\n# Children      Self" : "#\n# Overhead");
	if (t->show_nr)
		rawfrag_out__printf(o, "  %12s", "Samples");
	if (t->show_period)
		rawfrag_out__printf(o, "  %12s", "Period");
	for (int i = 0; i < t->nr_keys; i++) {
		if (!c->on[i])
			continue;
		if (t->keys[i].kind == K_FIELD)
			rawfrag_out__printf(o, "  %*.*s", c->w[i], c->w[i], t->keys[i].field);
		else
			rawfrag_out__printf(o, "  %-*.*s", c->w[i], c->w[i],
					    headers[t->keys[i].kind]);
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

static void print_row(struct table_sink *t, struct cols *c, const struct rf_hentry *e,
		      uint64_t total)
{
	struct rawfrag_out *o = t->out;

	if (t->children)
		rawfrag_out__printf(o, "  %7.2f%%", total ? 100.0 * e->acc / total : 0.0);
	rawfrag_out__printf(o, "  %7.2f%%", total ? 100.0 * e->period / total : 0.0);
	if (t->show_nr)
		rawfrag_out__printf(o, "  %12" PRIu64, e->samples);
	if (t->show_period)
		rawfrag_out__printf(o, "  %12" PRIu64, e->period);
	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *hk = &e->k[i];
		int w = c->w[i];

		if (!c->on[i])
			continue;
		rawfrag_out__puts(o, "  ");
		switch (t->keys[i].kind) {
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
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (t->show_nr && a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *x = &a->k[i], *y = &b->k[i];
		int r = 0;

		switch (t->keys[i].kind) {
		case K_COMM:
		case K_DSO:
		case K_SYM:
			r = cmp_str(x->show, y->show);
			break;
		case K_PID:
		case K_CPU:
			r = (int32_t)x->u < (int32_t)y->u ? -1 : (int32_t)x->u > (int32_t)y->u;
			break;
		case K_FIELD: {
			/* the field's bytes, greatest first */
			uint32_t n = x->id_len < y->id_len ? x->id_len : y->id_len;

			if (!x->id || !y->id)
				r = x->id ? -1 : y->id ? 1 : 0;
			else
				r = -memcmp(x->id, y->id, n);
			break;
		}
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
static int collapse_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct rf_hentry *a = *(const struct rf_hentry *const *)pa;
	const struct rf_hentry *b = *(const struct rf_hentry *const *)pb;
	struct table_sink *t = ctx;

	for (int i = 0; i < t->nr_keys; i++) {
		const struct rf_hkey *x = &a->k[i], *y = &b->k[i];
		int r = 0;

		switch (t->keys[i].kind) {
		case K_COMM:
		case K_DSO:
			r = cmp_str(x->id, y->id);
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
			r = (int32_t)x->u < (int32_t)y->u ? -1 : (int32_t)x->u > (int32_t)y->u;
			break;
		case K_FIELD: {
			uint32_t n = x->id_len < y->id_len ? x->id_len : y->id_len;

			if (!x->id || !y->id)
				r = x->id ? -1 : y->id ? 1 : 0;
			else
				r = -memcmp(x->id, y->id, n);
			break;
		}
		}
		if (r)
			return r;
	}
	return 0;
}

/* perf's "%lu%c": thousands as K, M, G */
static void print_section(struct table_sink *t, struct tsec *sec, const char *evname)
{
	struct rawfrag_out *o = t->out;
	unsigned long nr = (unsigned long)sec->h.nr_samples;
	char unit = ' ';
	struct rf_hentry **v;
	struct cols c;
	size_t n;

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
	/* --children: perf's order is its tree's, not a sort's (hists_cc.c) */
	v = rf_hists__sorted(&sec->h, &n, t->children ? collapse_cmp : entry_cmp, t);
	if (t->children && rf_cc__rb_order(v, n, entry_cmp, t))
		n = 0;
	widths(t, sec, v, n, &c);
	if (!t->quiet) {
		rawfrag_out__printf(o, "# Samples: %lu%c of event '%s'\n", nr, unit, evname);
		rawfrag_out__printf(o, "# Event count (approx.): %" PRIu64 "\n",
				    sec->h.total_period);
		print_header(t, &c);
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t val = t->children ? v[j]->acc : v[j]->period;
		double pct = sec->h.total_period ? 100.0 * val / sec->h.total_period : 0.0;

		if (pct < t->percent_limit)
			continue;
		print_row(t, &c, v[j], sec->h.total_period);
		if (sec->cc)
			rf_cc__print(sec->cc, t->out, v[j], sec->h.total_period);
	}
	rawfrag_out__puts(o, "\n\n");
	free(v);
}

/* a field no sample had (in any event) is a mistake of the key */
static int check_fields(struct table_sink *t, struct rawfrag_err *err)
{
	char msg[200];

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
		if (!t->quiet)
			rawfrag_out__printf(o, "# To display the perf.data header info, please use "
					       "--header/--header-only options.\n#\n#\n"
					       "# Total Lost Samples: %" PRIu64 "\n#\n",
					    t->lost_samples);
		for (int s = 0; s < t->nr_sec; s++)
			if (t->sec[s].used && t->sec[s].h.nr_samples)
				print_section(t, &t->sec[s],
					      rawfrag_evsel__name(rawfrag_file__evsel(t->file, s)));
		/* perf's closing lines hold a tip; ours says what only this table does */
		if (!t->quiet)
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

static int table_begin(void *priv, struct rawfrag_report *rep)
{
	struct table_sink *t = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	t->sess = rawfrag_report__session(rep);
	t->file = rawfrag_session__file(t->sess);
	t->swap = rawfrag_file__needs_swap(t->file);
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
			free(t->sec[s].kf);
			rf_cc__delete(t->sec[s].cc);
		}
	for (int i = 0; i < t->nr_keys; i++) {
		free(t->keys[i].field);
		free(t->keys[i].event);
	}
	free(t->sec);
	free(t->path);
	free(t);
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
	s = rf_sink_opt(kv, "sort");
	return parse_keys(t, s && *s ? s : "comm,dso,sym", err);
}

int rf_sink_table_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "sort", "show_nr_samples", "show_total_period",
					    "percent_limit", "quiet", "callgraph", "children",
					    "max_stack", NULL };
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
		.end = table_end,
		.error = table_error,
		.free = table_free,
	};
	*priv = t;
	return 0;
}
