// SPDX-License-Identifier: GPL-2.0
/*
 * perf script --dlfilter plugin: librawfrag's checks and decoders inside perf script.
 *
 *   perf script --dlfilter rawfrag-dlfilter.so [--dlarg MODE]... [--dlarg file=PATH]
 *
 * MODE: check      (default) keep every sample; a summary of the raw-layout checks
 *                  goes to stderr at the end
 *       violations keep only samples that break a raw-layout rule, and print the
 *                  findings before perf's line
 *       decode     print the rawfrag decoding of each sample before perf's line
 *       producer=NAME  keep only samples decoded by NAME (tracepoint, ibs_op, ...)
 *       strict     stale (non-zero) pad counts as a violation
 *       where=EXPR keep only samples whose decoded fields match EXPR (report --where)
 *       frames     print the sample's ip and call chain as perf resolves them for a
 *                  dlfilter, one JSON object in report --format json's shape
 *                  ("ip", "sym", "symoff", "dso", "callchain"), before perf's line
 *
 * The plugin opens the same perf.data itself (file=PATH, else perf script's -i/--input,
 * else ./perf.data) for what the samples alone do not carry: the tracing formats, CPUID,
 * PMU mappings. Each sample is re-synthesized in the file's byte order from the fields
 * perf hands over, so the checks are those of `perf rawfrag check` (minus the file
 * offsets, which perf does not give).
 *
 * On a pipe (perf script -i - or a FIFO on stdin) the plugin stops perf script
 * with an error unless file=PATH is given: it never reads perf's stdin.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/perf_dlfilter.h>
#include <rawfrag/rawfrag.h>

#include "../common/rfplugin.h"

#define RAWFRAG_PLUGIN_API __attribute__((visibility("default")))

/* perf copies its function table into this object */
RAWFRAG_PLUGIN_API struct perf_dlfilter_fns perf_dlfilter_fns;

enum mode { MODE_CHECK, MODE_VIOLATIONS, MODE_DECODE };

struct plugin {
	struct rfp rfp;
	struct rawfrag_out *out;
	struct rawfrag_where *where;
	enum mode mode;
	bool strict, frames;
	const char *producer;
	uint64_t nr_samples, nr_kept, nr_errors, nr_warnings;
	bool failed; /* a sample could not be checked: no summary that looks clean */
};

static int plugin_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static void plugin_free(struct plugin *p)
{
	if (!p)
		return;
	rawfrag_out__delete(p->out);
	rawfrag_where__delete(p->where);
	rfp_close(&p->rfp);
	free(p);
}

static struct plugin *plugin_new(const char *path, enum mode mode, bool strict, bool frames,
				 const char *producer, const char *where)
{
	struct plugin *p = calloc(1, sizeof(*p));
	struct rawfrag_err err;
	char msg[512];

	if (!p)
		return NULL;
	if (where) {
		p->where = rawfrag_where__new(where, &err);
		if (!p->where) {
			fprintf(stderr, "rawfrag-dlfilter: %s\n",
				errno == ENOMEM ? "out of memory" : err.reason);
			plugin_free(p);
			return NULL;
		}
	}
	p->mode = mode;
	p->strict = strict;
	p->frames = frames;
	p->producer = producer;
	p->out = rawfrag_out__new(-1);
	if (!p->out || rfp_open(&p->rfp, path, strict, plugin_print, NULL, &err)) {
		if (p->out)
			fprintf(stderr, "rawfrag-dlfilter: %s\n",
				rawfrag_err__format(&err, path, msg, sizeof(msg)));
		plugin_free(p);
		return NULL;
	}
	return p;
}

static void print_violations(struct plugin *p, const struct rfp_result *r, FILE *f)
{
	for (int i = 0; i < r->nr_violations; i++) {
		const struct rawfrag_violation *v =
			rawfrag_checker__violation(p->rfp.chk, r->first_violation + i);

		if (v)
			fprintf(f, "  rawfrag %s %s: %s\n",
				v->sev == RAWFRAG_SEV_ERROR ? "violation" : "warning", v->kind,
				v->message);
	}
}

static void print_decoded(struct plugin *p, const struct rfp_result *r, FILE *f)
{
	const char *text;
	size_t len;

	rawfrag_out__reset(p->out);
	if (rfp_text(&p->rfp, r, p->out) == -ENODATA)
		return;
	text = rawfrag_out__mem(p->out, &len);
	fprintf(f, "  rawfrag %s: %.*s\n", rawfrag_decoder__name(r->dec), (int)len, text);
}

static void sample_from_dlfilter(const struct perf_dlfilter_sample *s, struct rawfrag_sample *o)
{
	memset(o, 0, sizeof(*o));
	o->identifier = s->id;
	o->id = s->id;
	o->ip = s->ip;
	o->pid = s->pid;
	o->tid = s->tid;
	o->time = s->time;
	o->addr = s->addr;
	o->stream_id = s->stream_id;
	o->cpu = s->cpu;
	o->period = s->period;
	o->weight = s->weight;
	o->transaction = s->transaction;
	o->data_src = s->data_src;
	o->phys_addr = s->phys_addr;
	o->data_page_size = s->data_page_size;
	o->code_page_size = s->code_page_size;
	o->cgroup = s->cgroup;
	o->raw_size = s->raw_size;
	o->raw_data = s->raw_data;
}

/* ---- frames as perf resolves them for a dlfilter ---- */

/* "ip":..,"sym":..,"symoff":..,"dso":.. of report's JSON */
static void al_json(struct rawfrag_out *o, uint64_t ip, const struct perf_dlfilter_al *al)
{
	rawfrag_out__printf(o, "\"ip\":\"0x%" PRIx64 "\",\"sym\":", ip);
	if (al && al->sym) {
		rawfrag_out__json_str(o, al->sym, (size_t)-1);
		rawfrag_out__printf(o, ",\"symoff\":%u,\"dso\":", al->symoff);
	} else {
		rawfrag_out__puts(o, "null,\"symoff\":null,\"dso\":");
	}
	if (al && al->dso)
		rawfrag_out__json_str(o, al->dso, (size_t)-1);
	else
		rawfrag_out__puts(o, "null");
}

/*
 * PERF_SAMPLE_CALLCHAIN as perf hands it over (raw_callchain, PERF_CONTEXT_*
 * markers included), each address through perf's resolve_address(). The ip
 * shown is perf script's: the offset in the DSO for user frames. perf gives a
 * dlfilter neither the user registers nor the stack copy, so a DWARF chain's
 * user part and inlined frames are not there.
 *
 * resolve_address() looks in the sample's address space and then in the one
 * the address's range implies, where perf script looks only in the one of the
 * chain's context: a kernel-range address in the user part (stale
 * frame-pointer data on a user stack), a user one in the kernel part, and any
 * hypervisor frame stay unresolved, as perf script prints them.
 */
static void chain_json(struct rawfrag_out *o, const struct perf_dlfilter_sample *sample,
		       void *ctx)
{
	uint64_t context = PERF_CONTEXT_USER;
	uint32_t n = 0;

	rawfrag_out__puts(o, ",\"callchain\":[");
	for (uint64_t i = 0; i < sample->raw_callchain_nr && n < 127; i++) {
		uint64_t a = sample->raw_callchain[i];
		struct perf_dlfilter_al al = { .size = sizeof(al) };
		bool ok;

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			context = a;
			continue;
		}
		ok = perf_dlfilter_fns.resolve_address &&
		     !perf_dlfilter_fns.resolve_address(ctx, a, &al);
		if (ok && (context == PERF_CONTEXT_USER ? al.is_kernel_ip :
			   context != PERF_CONTEXT_KERNEL || !al.is_kernel_ip))
			ok = false;
		rawfrag_out__puts(o, n++ ? ",{" : "{");
		al_json(o, ok && al.dso && !al.is_kernel_ip ? al.addr : a, ok ? &al : NULL);
		rawfrag_out__putc(o, '}');
	}
	rawfrag_out__putc(o, ']');
}

static void print_frames(struct plugin *p, const struct perf_dlfilter_sample *sample, void *ctx,
			 FILE *f)
{
	const struct perf_dlfilter_al *al =
		perf_dlfilter_fns.resolve_ip ? perf_dlfilter_fns.resolve_ip(ctx) : NULL;
	const char *text;
	size_t len;

	rawfrag_out__reset(p->out);
	rawfrag_out__putc(p->out, '{');
	al_json(p->out, sample->ip, al);
	if (sample->raw_callchain)
		chain_json(p->out, sample, ctx);
	rawfrag_out__putc(p->out, '}');
	text = rawfrag_out__mem(p->out, &len);
	fprintf(f, "  rawfrag frames: %.*s\n", (int)len, text);
}

/* ---- dlfilter entry points ---- */

RAWFRAG_PLUGIN_API int start(void **data, void *ctx);
RAWFRAG_PLUGIN_API int stop(void *data, void *ctx);
RAWFRAG_PLUGIN_API int filter_event(void *data, const struct perf_dlfilter_sample *sample,
				    void *ctx);
RAWFRAG_PLUGIN_API const char *filter_description(const char **long_description);

/*
 * perf's stdin is perf's: reading it would take the records from perf script and
 * leave the checks with nothing (a false "0 errors"). Refuse instead, unless
 * file=PATH names where the formats come from.
 */
static int refuse_pipe(void)
{
	fprintf(stderr, "rawfrag-dlfilter: perf script reads the recording from a pipe "
			"(-i - or stdin), which the plugin cannot read beside perf; save it to a "
			"file and run perf script -i FILE, or give --dlarg file=PATH\n");
	return -EINVAL;
}

int start(void **data, void *ctx)
{
	char path[4096];
	const char *producer = NULL, *where = NULL;
	enum mode mode = MODE_CHECK;
	bool strict = false, file_arg = false, frames = false;
	char **args = NULL;
	int argc = 0;
	enum rfp_input in = rfp_perf_input(path, sizeof(path));

	*data = NULL;
	if (perf_dlfilter_fns.args)
		args = perf_dlfilter_fns.args(ctx, &argc);
	for (int i = 0; i < argc; i++) {
		if (!strcmp(args[i], "check"))
			mode = MODE_CHECK;
		else if (!strcmp(args[i], "violations"))
			mode = MODE_VIOLATIONS;
		else if (!strcmp(args[i], "decode"))
			mode = MODE_DECODE;
		else if (!strcmp(args[i], "strict"))
			strict = true;
		else if (!strcmp(args[i], "frames"))
			frames = true;
		else if (!strncmp(args[i], "file=", 5)) {
			snprintf(path, sizeof(path), "%s", args[i] + 5);
			file_arg = true;
		} else if (!strncmp(args[i], "producer=", 9))
			producer = args[i] + 9;
		else if (!strncmp(args[i], "where=", 6))
			where = args[i] + 6;
		else {
			fprintf(stderr, "rawfrag-dlfilter: unknown --dlarg '%s' (want check, "
					"violations, decode, frames, strict, file=PATH, "
					"producer=NAME, where=EXPR)\n",
				args[i]);
			return -EINVAL;
		}
	}
	if ((in == RFP_INPUT_PIPE && !file_arg) || !strcmp(path, "-"))
		return refuse_pipe();
	*data = plugin_new(path, mode, strict, frames, producer, where);
	return *data ? 0 : -EINVAL;
}

/*
 * A sample the plugin cannot check (no evsel of the file matches it, or it does
 * not fit a record) stops perf script with an error: going on would end in a
 * summary that counts it as clean.
 */
static int cannot_check(struct plugin *p, const struct perf_dlfilter_sample *sample, int err)
{
	p->failed = true;
	fprintf(stderr, "rawfrag-dlfilter: cannot check sample of %s at time %llu (%s): "
			"is --dlarg file=PATH the file perf script reads?\n",
		sample->event ? sample->event : "?", (unsigned long long)sample->time,
		err == -ENOENT ? "no event of the file matches it" : strerror(-err));
	return -1;
}

/* where=: 1 keep, 0 drop, -1 the expression does not apply (perf script stops) */
static int where_match(struct plugin *p, const struct rfp_result *r)
{
	struct rawfrag_err err;
	int ret = rawfrag_where__match_sample(p->where, p->rfp.sess, r->evsel, &r->rec, &r->smp,
					      &err);

	if (ret < 0) {
		fprintf(stderr, "rawfrag-dlfilter: %s: %s\n", rawfrag_evsel__name(r->evsel),
			err.reason);
		p->failed = true;
	}
	return ret;
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	struct plugin *p = data;
	const struct perf_event_attr *attr = NULL;
	struct rawfrag_evsel *ev;
	struct rawfrag_sample in;
	struct rfp_result r;
	bool keep = true;
	int ret;

	if (perf_dlfilter_fns.attr)
		attr = perf_dlfilter_fns.attr(ctx);
	p->nr_samples++;
	sample_from_dlfilter(sample, &in);
	ev = rfp_find_evsel(&p->rfp, sample->id, attr);
	if (!ev)
		return cannot_check(p, sample, -ENOENT);
	ret = rfp_process(&p->rfp, ev, &in, sample->misc, &r);
	if (ret)
		return cannot_check(p, sample, ret);
	p->nr_errors += r.errors;
	p->nr_warnings += r.nr_violations - r.errors;
	if (p->producer && (!r.dec || strcmp(rawfrag_decoder__name(r.dec), p->producer)))
		keep = false;
	if (keep && p->where) {
		ret = where_match(p, &r);
		if (ret < 0)
			return -1;
		keep = ret;
	}
	if (keep && p->mode == MODE_VIOLATIONS) {
		keep = r.errors > 0 || (p->strict && r.nr_violations > 0);
		if (keep)
			print_violations(p, &r, stdout);
	}
	if (keep && p->mode == MODE_DECODE)
		print_decoded(p, &r, stdout);
	if (keep && p->frames)
		print_frames(p, sample, ctx, stdout);
	p->nr_kept += keep;
	if (rfp_trim_violations(&p->rfp, p->strict, 4096))
		return -1;
	return keep ? 0 : 1;
}

int stop(void *data, void *ctx)
{
	struct plugin *p = data;

	if (!p)
		return 0;
	if (p->where && !p->failed && rawfrag_where__unseen_field(p->where)) {
		fprintf(stderr, "rawfrag-dlfilter: where: no sample has a field '%s'\n",
			rawfrag_where__unseen_field(p->where));
		p->failed = true;
	}
	if (p->failed) {
		fprintf(stderr, "rawfrag-dlfilter: stopped after %llu samples: the checks are "
				"incomplete\n", (unsigned long long)p->nr_samples);
		plugin_free(p);
		return -1;
	}
	fprintf(stderr, "rawfrag-dlfilter: %llu samples, %llu kept, %llu raw-layout errors, "
			"%llu warnings\n",
		(unsigned long long)p->nr_samples, (unsigned long long)p->nr_kept,
		(unsigned long long)p->nr_errors, (unsigned long long)p->nr_warnings);
	plugin_free(p);
	return 0;
}

const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description =
			"--dlarg check|violations|decode|frames|strict|file=PATH|producer=NAME|"
			"where=EXPR";
	return "perf-rawfrag: check and decode PERF_SAMPLE_RAW payloads";
}
