// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "flamegraph" sink: one self-contained HTML page (flamegraph.html, built
 * in) that works offline. Its flame graph is d3-flame-graph's (npm
 * d3-flame-graph 4.1.3 on d3 7.9.0, installed into the build by make deps and
 * inlined into the page here: nothing is fetched when it is viewed), drawn
 * from the stack trie of stacks.c with a value per weight: samples, period
 * and every numeric decoded field a sample had; only the aggregated trie is
 * embedded, so the page grows with distinct stacks, not samples. Beside it:
 * per event a log2 histogram of each numeric field, the raw layout check's
 * figures (<rawfrag/check.h>), the losses and the header's facts.
 *
 * Every string of the file (comm, symbol, field name) reaches the page as JSON
 * with '<', '>' and '&' escaped inside a non-script data block, and the page's
 * script puts it into the document as text only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rawfrag/check.h>
#include <rawfrag/visit.h>

#include "internal/check_sink.h"
#include "internal/opts.h"
#include "internal/out.h"
#include "internal/report.h"
#include "internal/seqref.h"
#include "internal/stacks.h"

#include "lib/output/flamegraph-page.h" /* rf_flamegraph_page: flamegraph.html */

/* where make deps puts the npm packages, and where make install copies them */
#ifndef RF_JS_BUILD_DIR
#define RF_JS_BUILD_DIR "build/deps/js"
#endif
#ifndef RF_JS_INSTALL_DIR
#define RF_JS_INSTALL_DIR "/usr/local/share/perf-rawfrag/js"
#endif

enum { A_CSS, A_D3, A_FLAMEGRAPH, NR_ASSETS };

static const char *const asset_paths[NR_ASSETS] = {
	[A_CSS] = "node_modules/d3-flame-graph/dist/d3-flamegraph.css",
	[A_D3] = "node_modules/d3/dist/d3.min.js",
	[A_FLAMEGRAPH] = "node_modules/d3-flame-graph/dist/d3-flamegraph.min.js",
};

#define NR_BUCKETS 65 /* 0, then [2^(i-1), 2^i - 1] */
/*
 * -j: a worker's trie keeps this many weights, since which fields are the
 * file's first RF_STACKS_MAX_WEIGHTS is known only when the tries merge
 */
#define JOBS_MAX_WEIGHTS 4096

/* one numeric field of one event */
struct fhist {
	char *path;
	int w; /* its weight in the trie, -1 past the maximum */
	bool sgn;
	uint64_t count, neg;
	uint64_t seq; /* -j: the sample that first had it */
	__int128 sum; /* exact: any order of adding gives the same page */
	int64_t smin, smax;
	uint64_t umin, umax;
	uint64_t b[NR_BUCKETS];
};

struct fevent {
	uint64_t samples, period;
	struct fhist *f;
	int nr, cap, hint;
};

struct flame_sink {
	char *path, *js_dir, *weight;
	int fd, own_fd;
	struct rawfrag_out *out;
	struct rf_stacks *st;
	struct rf_stack_walk walk;
	struct rawfrag_checker *check;
	struct rawfrag_file *file;
	char *asset[NR_ASSETS];
	size_t asset_len[NR_ASSETS];
	struct fevent *ev;
	int nr_ev;
	bool weights_full; /* -j: a worker met more fields than JOBS_MAX_WEIGHTS */
	/* during a sample's visit */
	uint64_t seq;
	struct fevent *cur;
	uint32_t leaf;
	int visit_err;
};

/* ---- assets ---- */

static int read_all(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	struct stat sb;
	size_t n = 0;
	char *b = NULL;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || sb.st_size > (64 << 20)) {
		ret = -EFBIG;
		goto out;
	}
	b = malloc((size_t)sb.st_size + 1);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	while (n < (size_t)sb.st_size) {
		ssize_t r = read(fd, b + n, (size_t)sb.st_size - n);

		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			goto out;
		}
		n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	close(fd);
	return ret;
}

/* the asset could end the element it is inlined into */
static bool asset_unsafe(const char *s, size_t len)
{
	for (const char *p = s; (p = memchr(p, '<', len - (size_t)(p - s))); p++)
		if (!strncasecmp(p, "</script", 8) || !strncasecmp(p, "</style", 7) ||
		    !strncmp(p, "<!--", 4))
			return true;
	return false;
}

static int load_assets(struct flame_sink *fl, struct rawfrag_err *err)
{
	const char *dirs[] = { fl->js_dir, fl->js_dir ? NULL : RF_JS_BUILD_DIR,
			       fl->js_dir ? NULL : RF_JS_INSTALL_DIR };
	const char *dir = NULL;
	char path[4096], msg[256];
	int ret;

	/* the first directory that has the first asset holds them all */
	for (int i = 0; i < 3 && !dir; i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirs[i], asset_paths[A_FLAMEGRAPH]);
		if (!access(path, R_OK))
			dir = dirs[i];
	}
	if (!dir)
		dir = fl->js_dir ? fl->js_dir : RF_JS_BUILD_DIR;
	for (int a = 0; a < NR_ASSETS; a++) {
		snprintf(path, sizeof(path), "%s/%s", dir, asset_paths[a]);
		ret = read_all(path, &fl->asset[a], &fl->asset_len[a]);
		if (ret) {
			snprintf(msg, sizeof(msg), "flamegraph output: %.150s: %s (run 'make deps': "
				 "it installs d3-flame-graph@4.1.3 and d3@7.9.0)", path,
				 strerror(-ret));
			rf_err_set(err, ret, msg);
			return ret;
		}
		if (asset_unsafe(fl->asset[a], fl->asset_len[a])) {
			snprintf(msg, sizeof(msg), "flamegraph output: %.150s holds '</script', "
				 "'</style' or '<!--': not inlined", path);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- samples ---- */

static struct fevent *event_of(struct flame_sink *fl, int idx)
{
	if (idx < 0)
		return NULL;
	if (idx >= fl->nr_ev) {
		struct fevent *e = realloc(fl->ev, (size_t)(idx + 1) * sizeof(*e));

		if (!e)
			return NULL;
		memset(e + fl->nr_ev, 0, (size_t)(idx + 1 - fl->nr_ev) * sizeof(*e));
		fl->ev = e;
		fl->nr_ev = idx + 1;
	}
	return &fl->ev[idx];
}

/* the event's histogram of path, made on first use (its weight too) */
static struct fhist *hist_of(struct flame_sink *fl, struct fevent *e,
			     const struct rawfrag_field *f)
{
	struct fhist *h;

	/* fields come in the same order sample after sample: try the next one first */
	for (int k = 0; k < e->nr; k++) {
		int i = (e->hint + k) % e->nr;

		h = &e->f[i];
		if (strlen(h->path) == f->path_len && !memcmp(h->path, f->path, f->path_len)) {
			e->hint = i + 1 < e->nr ? i + 1 : 0;
			return h;
		}
	}
	if (e->nr == e->cap) {
		int cap = e->cap ? e->cap * 2 : 8;

		h = realloc(e->f, (size_t)cap * sizeof(*h));
		if (!h)
			return NULL;
		e->f = h;
		e->cap = cap;
	}
	h = &e->f[e->nr];
	memset(h, 0, sizeof(*h));
	h->path = strndup(f->path, f->path_len);
	if (!h->path)
		return NULL;
	h->seq = fl->seq;
	h->sgn = f->type == RAWFRAG_FIELD_S64;
	/* a field named as the page's own weights stays a histogram only */
	if ((f->path_len == 7 && !memcmp(f->path, "samples", 7)) ||
	    (f->path_len == 6 && !memcmp(f->path, "period", 6)))
		h->w = -1;
	else
		h->w = rf_stacks__weight(fl->st, f->path, f->path_len);
	fl->weights_full |= h->w == -ENOSPC;
	if (h->w == -ENOMEM) {
		free(h->path);
		return NULL;
	}
	e->nr++;
	e->hint = 0;
	return h;
}

static int bucket(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* every numeric scalar field: its histogram, and its value as a weight of the stack */
static int visit_field(void *ctx, const struct rawfrag_field *f)
{
	struct flame_sink *fl = ctx;
	struct fhist *h;
	uint64_t u;

	/* addresses (HEX) are no quantity; array elements have no name of their own */
	if ((f->type != RAWFRAG_FIELD_U64 && f->type != RAWFRAG_FIELD_S64) || !f->name)
		return 0;
	h = hist_of(fl, fl->cur, f);
	if (!h) {
		fl->visit_err = -ENOMEM;
		return 1;
	}
	if (f->type == RAWFRAG_FIELD_S64 && f->v.s < 0) {
		h->neg++;
		u = 0;
	} else {
		u = f->type == RAWFRAG_FIELD_S64 ? (uint64_t)f->v.s : f->v.u;
		h->b[bucket(u)]++;
	}
	if (f->type == RAWFRAG_FIELD_S64) {
		if (!h->count || f->v.s < h->smin)
			h->smin = f->v.s;
		if (!h->count || f->v.s > h->smax)
			h->smax = f->v.s;
		h->sum += f->v.s;
	} else {
		if (!h->count || u < h->umin)
			h->umin = u;
		if (!h->count || u > h->umax)
			h->umax = u;
		h->sum += u;
	}
	h->count++;
	if (u && h->w >= 0 && rf_stacks__add(fl->st, fl->leaf, h->w, u)) {
		fl->visit_err = -ENOMEM;
		return 1;
	}
	return 0;
}

static int flame_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct flame_sink *fl = priv;
	const struct rawfrag_sample *smp = ev->sample;
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = visit_field, .ctx = fl };
	uint64_t period = 0;
	int ret;

	fl->cur = event_of(fl, rawfrag_evsel__idx(ev->evsel));
	if (!fl->cur)
		goto oom;
	/* -j: the sample's number orders what it makes in the merge */
	if (rep->J) {
		rf_stacks__set_max_weights(fl->st, JOBS_MAX_WEIGHTS);
		fl->seq = rep->seq - 1;
		if (rf_stacks__set_seq(fl->st, fl->seq))
			goto oom;
		rf_checker__set_seq(fl->check, fl->seq);
	}
	ret = rf_stack_walk__sample(&fl->walk, fl->st, rep, ev, &fl->leaf);
	if (ret)
		goto oom;
	rf_stacks__sample_weight(rep, ev, "period", &period);
	fl->cur->samples++;
	fl->cur->period += period;
	if (rf_stacks__add(fl->st, fl->leaf, 0, 1) ||
	    (period && rf_stacks__add(fl->st, fl->leaf, 1, period)))
		goto oom;
	fl->visit_err = 0;
	rawfrag_session__sample_visit(rawfrag_report__session(rep), ev->evsel, ev->rec, smp, &v);
	if (fl->visit_err)
		goto oom;
	/* the check's figures of the samples shown (its violations are counted, not fatal) */
	if (fl->check && rawfrag_checker__record(fl->check, ev->rec, smp) == -ENOMEM)
		goto oom;
	return 0;
oom:
	rf_err_set(rawfrag_report__err(rep), -ENOMEM, "out of memory");
	return -ENOMEM;
}

/* ---- the page ---- */

/* a JSON string that no HTML parser reads as markup: <, >, & and U+2028/9 escaped */
static void page_str(struct rawfrag_out *o, const char *str, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	if (len == (size_t)-1)
		len = str ? strlen(str) : 0;
	rf_out_putc(o, '"');
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		/* U+2028, U+2029: line ends to older JavaScript */
		if (c == 0xe2 && len - i >= 3 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8) {
			rawfrag_out__puts(o, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
			i += 3;
			continue;
		}
		if (c >= 0x80 && (n = rf_utf8_seq(s + i, len - i))) {
			rf_out_write(o, s + i, n);
			i += n;
			continue;
		}
		i++;
		if (c == '"' || c == '\\') {
			rf_out_putc(o, '\\');
			rf_out_putc(o, (char)c);
		} else if (c >= 0x20 && c < 0x80 && c != '<' && c != '>' && c != '&') {
			rf_out_putc(o, (char)c);
		} else {
			/* a byte of no UTF-8 sequence: the code point of its value */
			char esc[6] = { '\\', 'u', '0', '0', hx[c >> 4], hx[c & 15] };

			rf_out_write(o, esc, 6);
		}
	}
	rf_out_putc(o, '"');
}

static void fact(struct rawfrag_out *o, bool *first, const char *k, const char *v)
{
	if (!v)
		return;
	rawfrag_out__puts(o, *first ? "[" : ",[");
	*first = false;
	page_str(o, k, (size_t)-1);
	rf_out_putc(o, ',');
	page_str(o, v, (size_t)-1);
	rf_out_putc(o, ']');
}

static void write_facts(struct flame_sink *fl, struct rawfrag_out *o)
{
	const struct rawfrag_env *env = rawfrag_file__env(fl->file);
	char cpus[64], mem[64], *cmd = NULL;
	bool first = true;
	size_t len = 0;
	FILE *m;

	rawfrag_out__puts(o, "\"facts\":[");
	fact(o, &first, "input", rawfrag_file__path(fl->file));
	if (env) {
		fact(o, &first, "host", env->hostname);
		fact(o, &first, "os release", env->osrelease);
		fact(o, &first, "perf version", env->version);
		fact(o, &first, "arch", env->arch);
		fact(o, &first, "cpu", env->cpudesc);
		if (env->nr_cpus_online) {
			snprintf(cpus, sizeof(cpus), "%u online, %u available", env->nr_cpus_online,
				 env->nr_cpus_avail);
			fact(o, &first, "cpus", cpus);
		}
		if (env->total_mem) {
			snprintf(mem, sizeof(mem), "%" PRIu64 " kB", env->total_mem);
			fact(o, &first, "total memory", mem);
		}
		m = open_memstream(&cmd, &len);
		for (int i = 0; m && i < env->nr_cmdline; i++)
			fprintf(m, "%s%s", i ? " " : "", env->cmdline[i]);
		if (m && !fclose(m) && env->nr_cmdline)
			fact(o, &first, "cmdline", cmd);
		free(cmd);
	}
	fact(o, &first, "written by", "perf rawfrag report --format flamegraph");
	fact(o, &first, "library", rawfrag_version());
	fact(o, &first, "flame graph", "d3-flame-graph 4.1.3, d3 7.9.0 (inlined)");
	rf_out_putc(o, ']');
}

static void write_tree(struct flame_sink *fl, struct rawfrag_out *o)
{
	uint32_t nr = rf_stacks__nr_nodes(fl->st), names = rf_stacks__nr_names(fl->st);
	int nw = rf_stacks__nr_weights(fl->st);

	rawfrag_out__puts(o, ",\"weights\":[");
	for (int w = 0; w < nw; w++) {
		if (w)
			rf_out_putc(o, ',');
		page_str(o, rf_stacks__weight_name(fl->st, w), (size_t)-1);
	}
	rawfrag_out__puts(o, "],\"names\":[");
	for (uint32_t i = 0; i < names; i++) {
		if (i)
			rf_out_putc(o, ',');
		page_str(o, rf_stacks__name_at(fl->st, i), (size_t)-1);
	}
	rawfrag_out__puts(o, "],\"nodes\":{\"p\":[");
	for (uint32_t i = 0; i < nr; i++) {
		const struct rf_stack_node *n = rf_stacks__node(fl->st, i);

		if (i)
			rf_out_putc(o, ',');
		rawfrag_out__u64(o, i ? n->parent : 0);
	}
	rawfrag_out__puts(o, "],\"n\":[");
	for (uint32_t i = 0; i < nr; i++) {
		if (i)
			rf_out_putc(o, ',');
		rawfrag_out__u64(o, rf_stacks__node(fl->st, i)->name);
	}
	rawfrag_out__puts(o, "],\"k\":[");
	for (uint32_t i = 0; i < nr; i++) {
		if (i)
			rf_out_putc(o, ',');
		rawfrag_out__u64(o, rf_stacks__node(fl->st, i)->kind);
	}
	/* self values: [node, value, ...] of the nodes that have one */
	rawfrag_out__puts(o, "]},\"values\":[");
	for (int w = 0; w < nw; w++) {
		bool first = true;

		rawfrag_out__puts(o, w ? ",[" : "[");
		for (uint32_t i = 0; i < nr; i++) {
			uint64_t v = rf_stacks__self(fl->st, i, w);

			if (!v)
				continue;
			if (!first)
				rf_out_putc(o, ',');
			first = false;
			rawfrag_out__u64(o, i);
			rf_out_putc(o, ',');
			rawfrag_out__u64(o, v);
		}
		rf_out_putc(o, ']');
	}
	rf_out_putc(o, ']');
}

static void num(struct rawfrag_out *o, const char *k, uint64_t v)
{
	rawfrag_out__printf(o, ",\"%s\":%" PRIu64, k, v);
}

static void write_events(struct flame_sink *fl, struct rawfrag_out *o)
{
	bool first = true;

	rawfrag_out__puts(o, ",\"events\":[");
	for (int i = 0; i < fl->nr_ev; i++) {
		struct fevent *e = &fl->ev[i];

		if (!e->samples)
			continue;
		rawfrag_out__puts(o, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		page_str(o, rawfrag_evsel__name(rawfrag_file__evsel(fl->file, i)), (size_t)-1);
		num(o, "samples", e->samples);
		num(o, "period", e->period);
		rawfrag_out__puts(o, ",\"fields\":[");
		for (int k = 0; k < e->nr; k++) {
			struct fhist *h = &e->f[k];
			bool bfirst = true;

			rawfrag_out__puts(o, k ? ",{\"path\":" : "{\"path\":");
			page_str(o, h->path, (size_t)-1);
			num(o, "count", h->count);
			num(o, "neg", h->neg);
			if (h->sgn)
				rawfrag_out__printf(o, ",\"min\":%" PRId64 ",\"max\":%" PRId64, h->smin,
						    h->smax);
			else
				rawfrag_out__printf(o, ",\"min\":%" PRIu64 ",\"max\":%" PRIu64, h->umin,
						    h->umax);
			rawfrag_out__printf(o, ",\"sum\":%.17g,\"buckets\":[", (double)h->sum);
			for (int b = 0; b < NR_BUCKETS; b++) {
				uint64_t lo = b ? 1ULL << (b - 1) : 0, hi = b ? lo + (lo - 1) : 0;

				if (!h->b[b])
					continue;
				rawfrag_out__printf(o, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
						    bfirst ? "" : ",", lo, hi, h->b[b]);
				bfirst = false;
			}
			rawfrag_out__puts(o, "]}");
		}
		rawfrag_out__puts(o, "]}");
	}
	rf_out_putc(o, ']');
}

static void write_check(struct flame_sink *fl, struct rawfrag_out *o)
{
	bool first = true;
	int nv;

	rawfrag_out__puts(o, ",\"check\":{");
	rawfrag_out__printf(o, "\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"events\":[",
			    fl->check ? rawfrag_checker__nr_errors(fl->check) : 0,
			    fl->check ? rawfrag_checker__nr_warnings(fl->check) : 0);
	for (int i = 0; fl->check && i < fl->nr_ev; i++) {
		const struct rawfrag_check_evstats *es = rawfrag_checker__evstats(fl->check, i);

		if (!es || !es->samples)
			continue;
		rawfrag_out__puts(o, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		page_str(o, rawfrag_evsel__name(rawfrag_file__evsel(fl->file, i)), (size_t)-1);
		num(o, "samples", es->samples);
		num(o, "raw_samples", es->raw_samples);
		num(o, "raw_bytes", es->raw_bytes);
		num(o, "pad_unknown", es->pad_unknown);
		num(o, "pad_zero", es->pad_zero);
		num(o, "pad_stale", es->pad_stale);
		num(o, "empty", es->empty);
		num(o, "errors", es->errors);
		num(o, "warnings", es->warnings);
		rawfrag_out__puts(o, ",\"size_hist\":[");
		for (int b = 0; b < RAWFRAG_CHECK_SIZE_BUCKETS; b++)
			rawfrag_out__printf(o, "%s%" PRIu64, b ? "," : "", es->size_hist[b]);
		rawfrag_out__puts(o, "],\"pad_hist\":[");
		for (int b = 0; b < 8; b++)
			rawfrag_out__printf(o, "%s%" PRIu64, b ? "," : "", es->pad_hist[b]);
		rawfrag_out__puts(o, "],\"kinds\":[");
		for (int k = 0; k < es->nr_kinds; k++) {
			rawfrag_out__puts(o, k ? ",{\"kind\":" : "{\"kind\":");
			page_str(o, es->kinds[k].kind, (size_t)-1);
			rawfrag_out__printf(o, ",\"sev\":\"%s\",\"count\":%" PRIu64 "}",
					    es->kinds[k].sev == RAWFRAG_SEV_ERROR ? "error" : "warning",
					    es->kinds[k].count);
		}
		rawfrag_out__puts(o, "]}");
	}
	rawfrag_out__puts(o, "],\"violations\":[");
	nv = fl->check ? rawfrag_checker__nr_violations(fl->check) : 0;
	for (int i = 0; i < nv; i++) {
		const struct rawfrag_violation *v = rawfrag_checker__violation(fl->check, i);
		struct rawfrag_evsel *e = v->evsel_idx >= 0 ?
						  rawfrag_file__evsel(fl->file, v->evsel_idx) : NULL;

		rawfrag_out__printf(o, "%s{\"offset\":%" PRIu64 ",\"event\":", i ? "," : "",
				    v->rec_offset);
		page_str(o, e ? rawfrag_evsel__name(e) : "", (size_t)-1);
		rawfrag_out__puts(o, ",\"kind\":");
		page_str(o, v->kind, (size_t)-1);
		rawfrag_out__printf(o, ",\"sev\":\"%s\",\"message\":",
				    v->sev == RAWFRAG_SEV_ERROR ? "error" : "warning");
		page_str(o, v->message, (size_t)-1);
		rf_out_putc(o, '}');
	}
	rawfrag_out__puts(o, "]}");
}

static void write_lost(struct flame_sink *fl, struct rawfrag_report *rep, struct rawfrag_out *o)
{
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(fl->file);

	rawfrag_out__printf(o, ",\"lost\":[[\"LOST records\",%" PRIu64 "],[\"events lost\",%" PRIu64
			    "],[\"samples lost (LOST_SAMPLES)\",%" PRIu64 "],"
			    "[\"bad samples skipped (--force)\",%" PRIu64 "]]",
			    fs->nr_lost_records, fs->nr_lost, fs->nr_lost_samples,
			    rawfrag_report__nr_skipped(rep));
}

/* the template up to marker (consumed), or its rest with marker NULL */
static const char *template_part(struct rawfrag_out *o, const char *t, const char *marker)
{
	const char *m = marker ? strstr(t, marker) : NULL;

	if (!m) {
		rawfrag_out__puts(o, t);
		return t + strlen(t);
	}
	rawfrag_out__write(o, t, (size_t)(m - t));
	return m + strlen(marker);
}

static void write_page(struct flame_sink *fl, struct rawfrag_report *rep, int first_w)
{
	struct rawfrag_out *o = fl->out;
	const char *t = rf_flamegraph_page;

	t = template_part(o, t, "/*@CSS@*/");
	rawfrag_out__write(o, fl->asset[A_CSS], fl->asset_len[A_CSS]);
	t = template_part(o, t, "/*@DATA@*/");
	rf_out_putc(o, '{');
	write_facts(fl, o);
	rawfrag_out__printf(o, ",\"first\":%d", first_w);
	write_tree(fl, o);
	write_events(fl, o);
	write_check(fl, o);
	write_lost(fl, rep, o);
	rf_out_putc(o, '}');
	t = template_part(o, t, "/*@D3@*/");
	rawfrag_out__write(o, fl->asset[A_D3], fl->asset_len[A_D3]);
	t = template_part(o, t, "/*@FLAMEGRAPH@*/");
	rawfrag_out__write(o, fl->asset[A_FLAMEGRAPH], fl->asset_len[A_FLAMEGRAPH]);
	template_part(o, t, NULL);
}

/* ---- the sink ---- */

static int flame_begin(void *priv, struct rawfrag_report *rep)
{
	struct flame_sink *fl = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	struct rawfrag_check_opts copts = { .sz = sizeof(copts) };
	int fd, ret;

	ret = load_assets(fl, err);
	if (ret)
		return ret;
	fl->file = rawfrag_session__file(rawfrag_report__session(rep));
	fl->st = rf_stacks__new("all");
	if (!fl->st || rf_stacks__weight(fl->st, "samples", 7) != 0 ||
	    rf_stacks__weight(fl->st, "period", 6) != 1)
		goto oom;
	fl->check = rawfrag_checker__new(rawfrag_report__session(rep), &copts, NULL);
	if (!fl->check)
		goto oom;
	fd = rf_sink_open_fd(fl->path, fl->fd, err);
	if (fd < 0)
		return fd;
	if (fl->path && strcmp(fl->path, "-"))
		fl->own_fd = fd;
	fl->out = rawfrag_out__new(fd);
	if (!fl->out)
		goto oom;
	return 0;
oom:
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

static int flame_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct flame_sink *fl = priv;
	char msg[200];
	int w = 0, ret = 0;

	if (!fl->out)
		return 0;
	if (!status && fl->weight) {
		for (w = rf_stacks__nr_weights(fl->st); w-- > 0;)
			if (!strcmp(rf_stacks__weight_name(fl->st, w), fl->weight))
				break;
		if (w < 0) {
			snprintf(msg, sizeof(msg), "flamegraph output: no sample has a numeric "
				 "field '%.60s' (weight=; names as --where's)", fl->weight);
			rf_err_set(rawfrag_report__err(rep), -ENOENT, msg);
			ret = -ENOENT;
		}
	}
	if (!status && !ret)
		write_page(fl, rep, w);
	rawfrag_out__flush(fl->out);
	return ret;
}

struct rawfrag_out *rf_flamegraph__out(void *priv)
{
	struct flame_sink *fl = priv;

	return fl->out;
}

static void hist_add(struct fhist *h, const struct fhist *o)
{
	if (!o->count)
		return;
	if (h->sgn) {
		if (!h->count || o->smin < h->smin)
			h->smin = o->smin;
		if (!h->count || o->smax > h->smax)
			h->smax = o->smax;
	} else {
		if (!h->count || o->umin < h->umin)
			h->umin = o->umin;
		if (!h->count || o->umax > h->umax)
			h->umax = o->umax;
	}
	h->count += o->count;
	h->neg += o->neg;
	h->sum += o->sum;
	for (int b = 0; b < NR_BUCKETS; b++)
		h->b[b] += o->b[b];
}

/* event i of all sinks (s[0] is dst) into dst's: histograms in the order one job made them */
static int merge_event(struct flame_sink *const *s, int n, int i)
{
	struct fevent *d = event_of(s[0], i), nd = { 0 };
	struct rf_seqref *refs;
	size_t nr = 0;
	int ret = -ENOMEM;

	if (!d)
		return -ENOMEM;
	for (int k = 0; k < n; k++)
		nr += i < s[k]->nr_ev ? (size_t)s[k]->ev[i].nr : 0;
	refs = malloc((nr ? nr : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	nr = 0;
	for (int k = 0; k < n; k++) {
		const struct fevent *e = i < s[k]->nr_ev ? &s[k]->ev[i] : NULL;

		if (e && k) {
			d->samples += e->samples;
			d->period += e->period;
		}
		for (int j = 0; e && j < e->nr; j++)
			refs[nr++] = (struct rf_seqref){ .seq = e->f[j].seq, .k = (uint32_t)k,
							 .i = (uint32_t)j };
	}
	qsort(refs, nr, sizeof(*refs), rf_seqref_cmp);
	for (size_t r = 0; r < nr; r++) {
		const struct fhist *o = &s[refs[r].k]->ev[i].f[refs[r].i];
		struct fhist *h = NULL;

		for (int j = 0; j < nd.nr && !h; j++)
			if (!strcmp(nd.f[j].path, o->path))
				h = &nd.f[j];
		if (!h) {
			if (nd.nr == nd.cap) {
				int cap = nd.cap ? nd.cap * 2 : 8;

				h = realloc(nd.f, (size_t)cap * sizeof(*h));
				if (!h)
					goto out;
				nd.f = h;
				nd.cap = cap;
			}
			h = &nd.f[nd.nr];
			*h = *o;
			h->count = h->neg = 0;
			h->sum = 0;
			memset(h->b, 0, sizeof(h->b));
			/* its weight in the merged trie, found by name */
			h->w = -1;
			for (int w = 0; w < rf_stacks__nr_weights(s[0]->st); w++)
				if (!strcmp(rf_stacks__weight_name(s[0]->st, w), o->path) &&
				    strcmp(o->path, "samples") && strcmp(o->path, "period"))
					h->w = w;
			if (!(h->path = strdup(o->path)))
				goto out;
			nd.nr++;
		}
		hist_add(h, o);
	}
	for (int j = 0; j < d->nr; j++)
		free(d->f[j].path);
	free(d->f);
	d->f = nd.f;
	d->nr = nd.nr;
	d->cap = nd.cap;
	d->hint = 0;
	nd.f = NULL;
	nd.nr = 0;
	ret = 0;
out:
	for (int j = 0; j < nd.nr; j++)
		free(nd.f[j].path);
	free(nd.f);
	free(refs);
	return ret;
}

int rf_flamegraph__merge(void *priv, void *const *others, int n)
{
	struct flame_sink *fl = priv;
	struct flame_sink **s = calloc((size_t)n + 1, sizeof(*s));
	struct rf_stacks **st = calloc((size_t)n + 1, sizeof(*st));
	struct rawfrag_checker **ck = calloc((size_t)n + 1, sizeof(*ck));
	int ret = -ENOMEM, nev = fl->nr_ev;

	if (!s || !st || !ck)
		goto out;
	/* a worker may have left out a weight among the file's first: no merge */
	ret = fl->weights_full ? -E2BIG : 0;
	for (int k = 0; k < n; k++)
		if (((const struct flame_sink *)others[k])->weights_full)
			ret = -E2BIG;
	if (ret)
		goto out;
	s[0] = fl;
	for (int k = 0; k < n; k++) {
		s[k + 1] = others[k];
		st[k] = s[k + 1]->st;
		ck[k] = s[k + 1]->check;
		if (s[k + 1]->nr_ev > nev)
			nev = s[k + 1]->nr_ev;
	}
	/* the trie first: the histograms take their weights from it */
	ret = rf_stacks__merge(fl->st, st, n);
	/* the walk's names and chains were of the trie replaced */
	fl->walk.memo_st = NULL;
	fl->walk.chains_st = NULL;
	for (int i = 0; !ret && i < nev; i++)
		ret = merge_event(s, n + 1, i);
	if (!ret)
		ret = rf_checker__merge(fl->check, ck, n);
out:
	free(s);
	free(st);
	free(ck);
	return ret;
}

static int flame_error(void *priv)
{
	struct flame_sink *fl = priv;

	return fl->out ? rawfrag_out__error(fl->out) : 0;
}

static void flame_free(void *priv)
{
	struct flame_sink *fl = priv;

	rawfrag_out__delete(fl->out);
	if (fl->own_fd >= 0)
		close(fl->own_fd);
	rf_stacks__delete(fl->st);
	rf_stack_walk__fini(&fl->walk);
	rawfrag_checker__delete(fl->check);
	for (int a = 0; a < NR_ASSETS; a++)
		free(fl->asset[a]);
	for (int i = 0; i < fl->nr_ev; i++) {
		for (int k = 0; k < fl->ev[i].nr; k++)
			free(fl->ev[i].f[k].path);
		free(fl->ev[i].f);
	}
	free(fl->ev);
	free(fl->weight);
	free(fl->js_dir);
	free(fl->path);
	free(fl);
}

int rf_sink_flamegraph_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			    void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "weight", "max_stack", "js", NULL };
	const char *js = rf_sink_opt(opts->kv, "js");
	struct flame_sink *fl;

	if (rf_sink_opts_known("flamegraph", opts->kv, keys, err))
		return -EINVAL;
	fl = calloc(1, sizeof(*fl));
	if (!fl || (opts->path && !(fl->path = strdup(opts->path))) ||
	    (js && !(fl->js_dir = strdup(js)))) {
		if (fl)
			free(fl->path);
		free(fl);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	fl->fd = opts->fd;
	fl->own_fd = -1;
	fl->walk.flame = true;
	if (rf_stack_opts("flamegraph", opts->kv, &fl->weight, &fl->walk.max_stack, err)) {
		flame_free(fl);
		return err->err;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "flamegraph",
		.begin = flame_begin,
		.sample = flame_sample,
		.end = flame_end,
		.error = flame_error,
		.free = flame_free,
	};
	*priv = fl;
	return 0;
}
