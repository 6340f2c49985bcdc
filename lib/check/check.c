// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_checker: the generic RAW rules (check_raw.c) and each producer's own
 * (its decoder's length()) over every sample of a session, with per-evsel
 * figures, per-kind counts and the first violations kept as examples.
 *
 * Messages are formatted only for the examples that are kept, so a file full
 * of stale pad costs a counter increment per sample, not a vsnprintf.
 *
 * Wrapped header.size (raw_locate()): header.size is a u16 and the kernel
 * truncates a larger sample size into it unchecked
 * (Documentation/perf.data-raw-format.txt, The RAW area). When a sample does not parse,
 * the fields before RAW (fixed, READ, CALLCHAIN) are walked on their own to find
 * raw_size. If RAW then reaches past header.size and the record needs more than 65535
 * bytes just up to the end of RAW, no u16 can describe it: size_wrapped. If it would
 * fit in a u16, header.size is just too small: raw_outside. The message says whether
 * header.size equals the implied size modulo 65536 (it does for a genuine wrap when the
 * fields after RAW have fixed sizes).
 *
 * The quick path (check_file's case: no parsed sample handed in): for events
 * whose samples are head words and RAW in host order, as tracepoints write
 * them, the rules are precomputed per event on its first sample (where RAW's
 * size word sits) and a sample is decoded only that far, into a per-event
 * sample struct whose other fields stay zero; the id -> evsel lookup goes
 * through a small direct-mapped cache when the file has few ids. A sample
 * that does not fit takes the full parser, which says why.
 *
 * Ownership: the checker owns its figures, kind names and kept violations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/tool.h>

#include "internal/check_sink.h"
#include "internal/seqref.h"
#include "internal/sample_head.h"
#include "internal/file.h"
#include "internal/opts.h"

#define STALE_EXAMPLES 8
#define DEFAULT_EXAMPLES 20
#define ID_CACHE 16 /* perf's ids are consecutive: a few events x cpus fit */

/* the sample words before RAW, 8 bytes each; all the quick path decodes */
#define HEAD_BITS                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
	 PERF_SAMPLE_PERIOD)

struct check_ev {
	struct rawfrag_check_evstats st;
	struct rawfrag_check_kind_count *kinds;
	uint64_t *kind_seq; /* -j: the sample that first had each kind (cap_kinds) */
	int cap_kinds;
	uint64_t stale[STALE_EXAMPLES], stale_seq[STALE_EXAMPLES];
	/* the quick path's rules, set on the event's first sample */
	bool rules;
	uint32_t raw_at; /* offset of raw_size in its samples; 0: the full parser */
	struct rawfrag_sample smp; /* only the quick path's fields are ever set */
};

struct rawfrag_checker {
	struct rawfrag_session *sess;
	struct rawfrag_file *file;
	bool swap;
	int max_examples;
	struct check_ev *evs; /* by evsel idx */
	int nr_evs;
	struct check_ev orphan; /* samples whose id matches no evsel */
	uint64_t nr_err, nr_warn;
	struct rawfrag_violation *viol;
	uint64_t *viol_seq; /* -j: each kept violation's sample (cap_viol) */
	int nr_viol, cap_viol;
	uint64_t seq; /* -j: the number of the sample being checked (rf_checker__set_seq()) */
	struct rawfrag_check_sink sink;
	/* the record being checked, for the sink */
	const struct rawfrag_record *cur_rec;
	int cur_idx;
	struct check_ev *cur_ev;
	bool big_endian;
	/* id -> evsel idx + 1 (0: empty), valid while the file's ids stay as counted */
	struct {
		uint64_t id;
		int idx1;
	} idc[ID_CACHE];
	int idc_evsels;
	uint64_t idc_ids;
	/* parsed samples by CPU, for check's per-CPU loss lines without a second walk */
	uint64_t *cpu_samples;
	uint32_t nr_cpu_slots;
	int max_cpu;
};

static struct rawfrag_check_kind_count *kind_slot(struct check_ev *ev, const char *kind,
						   enum rawfrag_severity sev, uint64_t seq)
{
	struct rawfrag_check_kind_count *k;
	uint64_t *ks;

	for (int i = 0; i < ev->st.nr_kinds; i++) {
		k = &ev->kinds[i];
		if ((k->kind == kind || !strcmp(k->kind, kind)) && k->sev == sev)
			return k;
	}
	if (ev->st.nr_kinds == ev->cap_kinds) {
		int cap = ev->cap_kinds ? 2 * ev->cap_kinds : 8;

		k = realloc(ev->kinds, cap * sizeof(*k));
		if (!k)
			return NULL;
		ev->kinds = k;
		ks = realloc(ev->kind_seq, cap * sizeof(*ks));
		if (!ks)
			return NULL;
		ev->kind_seq = ks;
		ev->cap_kinds = cap;
	}
	k = &ev->kinds[ev->st.nr_kinds];
	k->kind = strdup(kind);
	if (!k->kind)
		return NULL;
	ev->kind_seq[ev->st.nr_kinds] = seq;
	k->sev = sev;
	k->count = 0;
	ev->st.nr_kinds++;
	ev->st.kinds = ev->kinds;
	return k;
}

static void keep_violation(struct rawfrag_checker *c, const char *kind,
			   enum rawfrag_severity sev, int64_t raw_off, const char *fmt,
			   va_list ap)
{
	struct rawfrag_violation *v;
	char msg[512];

	if (c->nr_viol == c->cap_viol) {
		int cap = c->cap_viol ? 2 * c->cap_viol : 32;

		uint64_t *vs;

		v = realloc(c->viol, cap * sizeof(*v));
		if (!v)
			return;
		c->viol = v;
		vs = realloc(c->viol_seq, cap * sizeof(*vs));
		if (!vs)
			return;
		c->viol_seq = vs;
		c->cap_viol = cap;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	v = &c->viol[c->nr_viol];
	v->message = strdup(msg);
	if (!v->message)
		return;
	v->rec_offset = c->cur_rec->offset;
	v->in_compressed = c->cur_rec->in_compressed;
	v->raw_off = raw_off;
	v->evsel_idx = c->cur_idx;
	v->kind = kind;
	v->sev = sev;
	c->viol_seq[c->nr_viol] = c->seq;
	c->nr_viol++;
}

/* a sample_parse example was kept already */
static bool kept_parse(const struct rawfrag_checker *c)
{
	for (int i = 0; i < c->nr_viol; i++)
		if (!strcmp(c->viol[i].kind, "sample_parse"))
			return true;
	return false;
}

static void checker_report(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
			   const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct rawfrag_checker *c = sink->ctx;
	struct check_ev *ev = c->cur_ev;
	struct rawfrag_check_kind_count *k = kind_slot(ev, kind, sev, c->seq);

	if (sev == RAWFRAG_SEV_ERROR) {
		c->nr_err++;
		ev->st.errors++;
	} else {
		c->nr_warn++;
		ev->st.warnings++;
	}
	if (!k)
		return;
	k->count++;
	/*
	 * Past the limit, the first sample that does not parse is still kept:
	 * check names it (offset and reason) without -v.
	 */
	if (c->max_examples < 0 || c->nr_viol < c->max_examples ||
	    (k->count == 1 && !strcmp(kind, "sample_parse") && !kept_parse(c)))
		keep_violation(c, k->kind, sev, raw_off, fmt, ap);
}

struct rawfrag_checker *rawfrag_checker__new(struct rawfrag_session *s,
					     const struct rawfrag_check_opts *opts,
					     struct rawfrag_err *err)
{
	struct rawfrag_checker *c;

	if (RF_OPTS_CHECK(opts, rawfrag_check_opts, err))
		return NULL;
	if (!s) {
		rf_err_set(err, -EINVAL, "no session");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	c->sess = s;
	c->max_cpu = -1;
	c->file = rawfrag_session__file(s);
	c->swap = rawfrag_file__needs_swap(c->file);
	c->big_endian = rawfrag_file__big_endian(c->file);
	c->max_examples = RAWFRAG_OPTS_GET(opts, max_examples, 0);
	if (!c->max_examples)
		c->max_examples = DEFAULT_EXAMPLES;
	rawfrag_check_sink__init(&c->sink, RAWFRAG_OPTS_GET(opts, strict, false), NULL);
	c->sink.report = checker_report;
	c->sink.ctx = c;
	return c;
}

static void free_ev(struct check_ev *ev)
{
	for (int i = 0; i < ev->st.nr_kinds; i++)
		free((char *)ev->kinds[i].kind);
	free(ev->kinds);
	free(ev->kind_seq);
}

void rawfrag_checker__delete(struct rawfrag_checker *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_evs; i++)
		free_ev(&c->evs[i]);
	free_ev(&c->orphan);
	free(c->evs);
	for (int i = 0; i < c->nr_viol; i++)
		free((char *)c->viol[i].message);
	free(c->viol);
	free(c->viol_seq);
	free(c->cpu_samples);
	free(c);
}

static struct check_ev *get_ev(struct rawfrag_checker *c, int idx)
{
	if (idx < 0)
		return &c->orphan;
	if (idx >= c->nr_evs) {
		int n = rawfrag_file__nr_evsels(c->file);
		struct check_ev *evs;

		if (n <= idx)
			n = idx + 1;
		evs = realloc(c->evs, n * sizeof(*evs));
		if (!evs)
			return NULL;
		memset(evs + c->nr_evs, 0, (n - c->nr_evs) * sizeof(*evs));
		c->evs = evs;
		c->nr_evs = n;
	}
	return &c->evs[idx];
}

/* Size of the READ block at p (at most avail bytes), or -1 if it does not fit. */
static int64_t read_size(const struct perf_event_attr *attr, const uint8_t *p, uint64_t avail,
			 bool swap)
{
	uint64_t rf = attr->read_format, per = 1, nr, hdr = 0;

	per += !!(rf & PERF_FORMAT_ID) + !!(rf & (1U << 4) /* LOST */);
	hdr += !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (!(rf & PERF_FORMAT_GROUP))
		return 8 * (per + hdr);
	if (avail < 8)
		return -1;
	nr = rawfrag__get64(p, swap);
	if (nr > avail / 8 / per)
		return -1;
	return 8 * (1 + hdr + nr * per);
}

/*
 * Find raw_size by walking the fields before RAW. Returns the offset of the
 * raw_size word, or -1 when those fields do not fit.
 */
static int64_t raw_locate(const struct perf_event_attr *attr, const struct rawfrag_record *rec,
			  bool swap)
{
	static const uint64_t fixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	const uint8_t *d = rec->data;
	uint64_t st = attr->sample_type, off = 8;

	off += 8 * (uint64_t)__builtin_popcountll(st & fixed);
	if (off > rec->size)
		return -1;
	if (st & PERF_SAMPLE_READ) {
		int64_t n = read_size(attr, d + off, rec->size - off, swap);

		if (n < 0 || (uint64_t)n > rec->size - off)
			return -1;
		off += (uint64_t)n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (rec->size - off < 8)
			return -1;
		nr = rawfrag__get64(d + off, swap);
		if (nr > (rec->size - off - 8) / 8)
			return -1;
		off += 8 + 8 * nr;
	}
	if (rec->size - off < 4)
		return -1;
	return (int64_t)off;
}

/* A sample that did not parse: say whether RAW explains it. */
static void diagnose(struct rawfrag_checker *c, const struct perf_event_attr *attr,
		     const struct rawfrag_record *rec, const struct rawfrag_err *perr)
{
	struct rawfrag_check_sink *sink = &c->sink;
	int64_t off = -1;
	uint32_t raw_size;
	uint64_t end;

	if (attr->sample_type & PERF_SAMPLE_RAW)
		off = raw_locate(attr, rec, c->swap);
	if (off < 0) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "sample_parse", -1, "%s",
					   perr->reason);
		return;
	}
	/* raw_size is the first u32 of a u64 the kernel wrote with {size, data...} */
	raw_size = rawfrag__get32((const uint8_t *)rec->data + off, c->swap);
	end = (uint64_t)off + 4 + raw_size;
	if (end <= rec->size) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "sample_parse", -1, "%s",
					   perr->reason);
		return;
	}
	c->cur_ev->st.raw_samples++;
	c->cur_ev->st.raw_bytes += raw_size;
	if (end > 0xffff)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "size_wrapped", -1,
					   "raw_size %u at record offset 0x%llx needs %llu bytes, header.size is %u%s",
					   raw_size, (unsigned long long)off, (unsigned long long)end,
					   rec->size,
					   (end & 0xffff) <= rec->size ?
					   " (true size wrapped past 64 KiB)" :
					   " (not consistent with a wrap)");
	else
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "raw_outside", -1,
					   "raw area 0x%llx+%u ends past header.size %u",
					   (unsigned long long)off + 4, raw_size, rec->size);
}

/* rawfrag_file__evsel_of() through the id cache */
static struct rawfrag_evsel *evsel_of(struct rawfrag_checker *c, const struct rawfrag_record *rec)
{
	const struct rawfrag_file *f = c->file;
	struct rawfrag_evsel *e;
	uint64_t id;
	unsigned int slot;

	if (f->nr_evsels == 1)
		return f->evsels[0];
	if (f->id_pos < 0 || f->id_hash_dirty || f->nr_ids_total > 4 * ID_CACHE ||
	    rec->size < 16u + 8u * (uint32_t)f->id_pos)
		return rawfrag_file__evsel_of(f, rec);
	if (f->nr_evsels != c->idc_evsels || f->nr_ids_total != c->idc_ids) {
		memset(c->idc, 0, sizeof(c->idc));
		c->idc_evsels = f->nr_evsels;
		c->idc_ids = f->nr_ids_total;
	}
	id = rf_u64((const uint8_t *)rec->data + 8 + 8 * f->id_pos, f->swap);
	slot = (unsigned int)(id % ID_CACHE);
	if (id && c->idc[slot].id == id)
		return f->evsels[c->idc[slot].idx1 - 1];
	e = rawfrag_file__evsel_of(f, rec);
	if (e && id) {
		c->idc[slot].id = id;
		c->idc[slot].idx1 = e->idx + 1;
	}
	return e;
}

static void set_rules(struct rawfrag_checker *c, struct check_ev *ev,
		      const struct perf_event_attr *attr)
{
	uint64_t type = attr->sample_type;

	ev->rules = true;
	ev->raw_at = 0;
	if (!c->swap && (type & PERF_SAMPLE_RAW) && !(type & ~(HEAD_BITS | PERF_SAMPLE_RAW)))
		ev->raw_at = 8 + 8 * (uint32_t)__builtin_popcountll(type & HEAD_BITS);
	ev->smp.sample_type = type;
}


/*
 * Decode a sample of a quick-path event into ev->smp: its head words and RAW.
 * False when RAW does not fit in the record (the full parser diagnoses it).
 */
static inline bool quick_sample(struct check_ev *ev, const struct rawfrag_record *rec)
{
	struct rawfrag_sample *s = &ev->smp;
	const uint8_t *d = (const uint8_t *)rec->data + 8;
	uint64_t type = s->sample_type;
	uint32_t at = ev->raw_at, raw_size;

	if (rec->size < at + 4u)
		return false;
	raw_size = rf_ld32((const uint8_t *)rec->data + at);
	if (raw_size > rec->size - at - 4u)
		return false;
	rf_sample_head(s, d, type);
	s->misc = rec->misc;
	s->raw_size = raw_size;
	s->raw_offset = at + 4;
	s->raw_data = (const uint8_t *)rec->data + at + 4;
	s->end_offset = at + 4 + raw_size;
	return true;
}

static int check_sample(struct rawfrag_checker *c, const struct rawfrag_record *rec,
			struct rawfrag_evsel *evsel, const struct rawfrag_sample *smp);

/* CPUs past the bound (a hostile file's ids) are not counted: memory stays bounded */
static inline int count_cpu(struct rawfrag_checker *c, uint32_t cpu)
{
	if (cpu >= c->nr_cpu_slots) {
		uint32_t n = c->nr_cpu_slots ? c->nr_cpu_slots : 64;
		uint64_t *a;

		if (cpu >= RAWFRAG_CHECK_MAX_CPUS)
			return 0;
		while (n <= cpu)
			n *= 2;
		a = realloc(c->cpu_samples, n * sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a + c->nr_cpu_slots, 0, (n - c->nr_cpu_slots) * sizeof(*a));
		c->cpu_samples = a;
		c->nr_cpu_slots = n;
	}
	c->cpu_samples[cpu]++;
	if ((int)cpu > c->max_cpu)
		c->max_cpu = (int)cpu;
	return 0;
}

uint64_t rawfrag_checker__cpu_samples(const struct rawfrag_checker *c, uint32_t cpu)
{
	return c && cpu < c->nr_cpu_slots ? c->cpu_samples[cpu] : 0;
}

int rawfrag_checker__max_cpu(const struct rawfrag_checker *c)
{
	return c ? c->max_cpu : -1;
}

int rawfrag_checker__record(struct rawfrag_checker *c, const struct rawfrag_record *rec,
			    const struct rawfrag_sample *smp)
{
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	return check_sample(c, rec, evsel_of(c, rec), smp);
}

/* the session found the evsel already: no second lookup */
int rawfrag_checker__event(struct rawfrag_checker *c, const struct rawfrag_event *ev)
{
	if (ev->rec->type != PERF_RECORD_SAMPLE)
		return 0;
	return check_sample(c, ev->rec, ev->evsel, ev->sample);
}

static int check_sample(struct rawfrag_checker *c, const struct rawfrag_record *rec,
			struct rawfrag_evsel *evsel, const struct rawfrag_sample *smp)
{
	const struct perf_event_attr *attr;
	const struct rawfrag_decoder *dec;
	struct rawfrag_sample local;
	struct rawfrag_raw raw;
	void *priv = NULL;
	struct rawfrag_check_sink *sink = &c->sink;
	struct check_ev *ev;
	int64_t len = -1;
	uint64_t stale;

	c->cur_idx = evsel ? evsel->idx : -1;
	ev = get_ev(c, c->cur_idx);
	if (!ev)
		return -ENOMEM;
	c->cur_ev = ev;
	c->cur_rec = rec;
	sink->nr_err = sink->nr_warn = 0;
	sink->st = &ev->st;
	ev->st.samples++;
	if (!evsel) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "sample_parse", -1,
					   "sample id matches no event");
		return sink->nr_err;
	}
	attr = &evsel->attr;
	if (!ev->rules)
		set_rules(c, ev, attr);
	if (!smp && ev->raw_at && quick_sample(ev, rec))
		smp = &ev->smp;
	if (!smp) {
		/* not zeroed: 280 bytes per sample show in profiles; parse fills it */
		struct rawfrag_err perr;

		perr.reason[0] = 0;
		if (rawfrag_sample__parse(&local, attr, rec, c->swap, &perr)) {
			diagnose(c, attr, rec, &perr);
			return sink->nr_err;
		}
		smp = &local;
	}
	if ((smp->sample_type & PERF_SAMPLE_CPU) && count_cpu(c, smp->cpu))
		return -ENOMEM;
	if (!smp->raw_data)
		return 0;
	/* rawfrag_session__raw() with the byte order looked up once */
	raw.data = smp->raw_data;
	raw.size = smp->raw_size;
	raw.swap = smp->swap;
	raw.big_endian = c->big_endian;
	raw.rec_offset = rec->offset;
	raw.raw_offset = smp->raw_offset;
	dec = rf_session__bound(c->sess, evsel->idx, &priv);
	if (dec && dec->length && (uint64_t)raw.raw_offset + raw.size <= rec->size) {
		uint32_t l = 0;

		if (!dec->length(priv, &raw, smp, &l, sink))
			len = l;
	}
	stale = ev->st.pad_stale;
	rawfrag_check_raw(rec, smp, len, sink);
	if (ev->st.pad_stale != stale && ev->st.nr_stale_examples < STALE_EXAMPLES) {
		ev->stale_seq[ev->st.nr_stale_examples] = c->seq;
		ev->stale[ev->st.nr_stale_examples++] = rec->offset;
		ev->st.stale_examples = ev->stale;
	}
	return sink->nr_err;
}

const struct rawfrag_check_evstats *rawfrag_checker__evstats(const struct rawfrag_checker *c,
							     int evsel_idx)
{
	struct check_ev *ev;

	if (evsel_idx == -1)
		ev = (struct check_ev *)&c->orphan;
	else if (evsel_idx < 0 || evsel_idx >= c->nr_evs)
		return NULL;
	else
		ev = &c->evs[evsel_idx];
	/* the arrays may have moved since the last record */
	ev->st.kinds = ev->kinds;
	ev->st.stale_examples = ev->stale;
	return &ev->st;
}

uint64_t rawfrag_checker__nr_errors(const struct rawfrag_checker *c)
{
	return c->nr_err;
}

uint64_t rawfrag_checker__nr_warnings(const struct rawfrag_checker *c)
{
	return c->nr_warn;
}

int rawfrag_checker__nr_violations(const struct rawfrag_checker *c)
{
	return c->nr_viol;
}

const struct rawfrag_violation *rawfrag_checker__violation(const struct rawfrag_checker *c,
							   int i)
{
	if (i < 0 || i >= c->nr_viol)
		return NULL;
	return &c->viol[i];
}

/* ---- report -j: the checkers of the workers' samples, as one checker of all ---- */

void rf_checker__set_seq(struct rawfrag_checker *c, uint64_t seq)
{
	c->seq = seq;
}

static struct check_ev *ev_at(struct rawfrag_checker *c, int idx)
{
	return idx < 0 ? &c->orphan : idx < c->nr_evs ? &c->evs[idx] : NULL;
}

/* event idx of all checkers (c[0] is dst) into dst's: figures add, kinds and examples in order */
static int merge_ev(struct rawfrag_checker *const *c, int n, int idx)
{
	struct check_ev *d = idx < 0 ? &c[0]->orphan : get_ev(c[0], idx), nd = { 0 };
	struct rawfrag_check_evstats *s = d ? &d->st : NULL;
	struct rf_seqref *refs = NULL;
	size_t nr = 0, r;
	int ret = -ENOMEM;

	if (!d)
		return -ENOMEM;
	for (int k = 1; k < n; k++) {
		const struct check_ev *o = ev_at(c[k], idx);

		if (!o)
			continue;
		s->samples += o->st.samples;
		s->raw_samples += o->st.raw_samples;
		s->raw_bytes += o->st.raw_bytes;
		for (int b = 0; b < RAWFRAG_CHECK_SIZE_BUCKETS; b++)
			s->size_hist[b] += o->st.size_hist[b];
		for (int b = 0; b < 8; b++)
			s->pad_hist[b] += o->st.pad_hist[b];
		s->pad_unknown += o->st.pad_unknown;
		s->pad_zero += o->st.pad_zero;
		s->pad_stale += o->st.pad_stale;
		s->empty += o->st.empty;
		s->errors += o->st.errors;
		s->warnings += o->st.warnings;
	}
	for (int k = 0; k < n; k++) {
		const struct check_ev *o = ev_at(c[k], idx);

		nr += o ? (size_t)o->st.nr_kinds + (size_t)o->st.nr_stale_examples : 0;
	}
	refs = malloc((nr ? nr : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	/* the kinds, in the order of the samples that first had them */
	nr = 0;
	for (int k = 0; k < n; k++) {
		const struct check_ev *o = ev_at(c[k], idx);

		for (int i = 0; o && i < o->st.nr_kinds; i++)
			refs[nr++] = (struct rf_seqref){ .seq = o->kind_seq[i], .k = (uint32_t)k,
							 .i = (uint32_t)i };
	}
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (r = 0; r < nr; r++) {
		const struct rawfrag_check_kind_count *ok = &ev_at(c[refs[r].k], idx)->kinds[refs[r].i];
		struct rawfrag_check_kind_count *k;

		k = kind_slot(&nd, ok->kind, ok->sev, refs[r].seq);
		if (!k)
			goto out;
		k->count += ok->count;
	}
	/* the first stale pad examples */
	nr = 0;
	for (int k = 0; k < n; k++) {
		const struct check_ev *o = ev_at(c[k], idx);

		for (int i = 0; o && i < o->st.nr_stale_examples; i++)
			refs[nr++] = (struct rf_seqref){ .seq = o->stale_seq[i], .k = (uint32_t)k,
							 .i = (uint32_t)i };
	}
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (r = 0; r < nr && r < STALE_EXAMPLES; r++) {
		nd.stale[r] = ev_at(c[refs[r].k], idx)->stale[refs[r].i];
		nd.stale_seq[r] = refs[r].seq;
	}
	/* d takes the merged kinds (the violations' kind names are moved over by the caller) */
	ret = 0;
	for (int i = 0; i < d->st.nr_kinds; i++)
		free((char *)d->kinds[i].kind);
	free(d->kinds);
	free(d->kind_seq);
	d->kinds = nd.kinds;
	d->kind_seq = nd.kind_seq;
	d->cap_kinds = nd.cap_kinds;
	d->st.nr_kinds = nd.st.nr_kinds;
	d->st.kinds = d->kinds;
	memcpy(d->stale, nd.stale, sizeof(d->stale));
	memcpy(d->stale_seq, nd.stale_seq, sizeof(d->stale_seq));
	d->st.nr_stale_examples = (int)(r < STALE_EXAMPLES ? r : STALE_EXAMPLES);
	d->st.stale_examples = d->st.nr_stale_examples ? d->stale : NULL;
	nd.kinds = NULL;
	nd.kind_seq = NULL;
	nd.st.nr_kinds = 0;
out:
	free_ev(&nd);
	free(refs);
	return ret;
}

/* the merged kind entry a kept violation of event idx names */
static const char *kind_name(struct rawfrag_checker *c, int idx, const char *kind,
			     enum rawfrag_severity sev)
{
	struct check_ev *ev = ev_at(c, idx);

	for (int i = 0; ev && i < ev->st.nr_kinds; i++)
		if (ev->kinds[i].sev == sev && !strcmp(ev->kinds[i].kind, kind))
			return ev->kinds[i].kind;
	return NULL;
}

int rf_checker__merge(struct rawfrag_checker *dst, struct rawfrag_checker *const *v, int n)
{
	struct rawfrag_checker **c = calloc((size_t)n + 1, sizeof(*c));
	struct rawfrag_violation *viol = NULL;
	uint64_t *vseq = NULL;
	char **names = NULL; /* the kept examples' kinds, until the merged kinds exist */
	struct rf_seqref *refs = NULL;
	size_t nr = 0, kept = 0;
	int nevs = dst->nr_evs, ret = -ENOMEM;
	bool parse_kept = false;

	if (!c)
		return -ENOMEM;
	c[0] = dst;
	nr = (size_t)dst->nr_viol;
	for (int k = 1; k <= n; k++) {
		c[k] = v[k - 1];
		nr += (size_t)c[k]->nr_viol;
	}
	/* the first examples of all, as one checker keeps them (checker_report()) */
	refs = malloc((nr ? nr : 1) * sizeof(*refs));
	viol = calloc(nr ? nr : 1, sizeof(*viol));
	vseq = calloc(nr ? nr : 1, sizeof(*vseq));
	names = calloc(nr ? nr : 1, sizeof(*names));
	if (!refs || !viol || !vseq || !names)
		goto out;
	nr = 0;
	for (int k = 0; k <= n; k++)
		for (int i = 0; i < c[k]->nr_viol; i++)
			refs[nr++] = (struct rf_seqref){ .seq = c[k]->viol_seq[i], .k = (uint32_t)k,
							 .i = (uint32_t)i };
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (size_t r = 0; r < nr; r++) {
		const struct rawfrag_violation *o = &c[refs[r].k]->viol[refs[r].i];
		bool parse = !strcmp(o->kind, "sample_parse");

		if (!(dst->max_examples < 0 || kept < (size_t)dst->max_examples ||
		      (parse && !parse_kept)))
			continue;
		parse_kept |= parse;
		viol[kept] = *o;
		viol[kept].kind = NULL;
		viol[kept].message = strdup(o->message);
		names[kept] = strdup(o->kind);
		vseq[kept] = refs[r].seq;
		kept++;
		if (!names[kept - 1] || !viol[kept - 1].message)
			goto out;
	}
	for (int k = 1; k <= n; k++) {
		const struct rawfrag_checker *o = c[k];

		dst->nr_err += o->nr_err;
		dst->nr_warn += o->nr_warn;
		for (uint32_t cpu = 0; cpu < o->nr_cpu_slots; cpu++) {
			if (!o->cpu_samples[cpu])
				continue;
			if (count_cpu(dst, cpu))
				goto out;
			dst->cpu_samples[cpu] += o->cpu_samples[cpu] - 1;
		}
		if (o->nr_evs > nevs)
			nevs = o->nr_evs;
	}
	for (int idx = -1; idx < nevs; idx++)
		if (merge_ev(c, n + 1, idx))
			goto out;
	for (size_t i = 0; i < kept; i++)
		if (!(viol[i].kind = kind_name(dst, viol[i].evsel_idx, names[i], viol[i].sev)))
			goto out;
	for (int i = 0; i < dst->nr_viol; i++)
		free((char *)dst->viol[i].message);
	free(dst->viol);
	free(dst->viol_seq);
	dst->viol = viol;
	dst->viol_seq = vseq;
	dst->nr_viol = (int)kept;
	dst->cap_viol = (int)(nr ? nr : 1);
	viol = NULL;
	vseq = NULL;
	ret = 0;
out:
	for (size_t i = 0; i < kept; i++) {
		if (viol)
			free((char *)viol[i].message);
		free(names[i]);
	}
	free(names);
	free(viol);
	free(vseq);
	free(refs);
	free(c);
	return ret;
}
