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
 *
 * The plugin opens the same perf.data itself (file=PATH, else perf script's -i/--input,
 * else ./perf.data) for what the samples alone do not carry: the tracing formats, CPUID,
 * PMU mappings. Each sample is re-synthesized in the file's byte order from the fields
 * perf hands over, so the checks are those of `perf rawfrag check` (minus the file
 * offsets, which perf does not give).
 *
 * The same object also exports rawfrag_py_*() for the Python hook (plugins/python/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/perf_dlfilter.h>
#include <rawfrag/rawfrag.h>

#define RAWFRAG_PLUGIN_API __attribute__((visibility("default")))

/* perf copies its function table into this object */
RAWFRAG_PLUGIN_API struct perf_dlfilter_fns perf_dlfilter_fns;

enum mode { MODE_CHECK, MODE_VIOLATIONS, MODE_DECODE };

struct plugin {
	struct rawfrag_file *file;
	struct rawfrag_session *sess;
	struct rawfrag_checker *chk;
	struct rawfrag_out *out;
	enum mode mode;
	bool strict;
	const char *producer;
	char path[4096];
	uint8_t buf[65536];
	uint64_t nr_samples, nr_kept;
};

static int plugin_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* perf script's -i/--input from our own command line, if any */
static void input_from_cmdline(char *path, size_t len)
{
	char buf[65536];
	ssize_t n;
	int fd = open("/proc/self/cmdline", O_RDONLY);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *a = buf; a < buf + n; a += strlen(a) + 1) {
		char *next = a + strlen(a) + 1;

		if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && next < buf + n)
			snprintf(path, len, "%s", next);
		else if (!strncmp(a, "--input=", 8))
			snprintf(path, len, "%s", a + 8);
		else if (!strncmp(a, "-i", 2) && a[2])
			snprintf(path, len, "%s", a + 2);
	}
}

/* the first sample: what describes a pipe-mode file came before it */
static int stop_at_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			  const struct rawfrag_event *ev)
{
	return 1;
}

static int stop_at_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			      const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 1;
}

/*
 * In pipe mode the attrs, tracing data and features are records: the session
 * applies them while it reads up to the first sample.
 */
static int read_description(struct plugin *p, struct rawfrag_err *err)
{
	struct rawfrag_tool t = { .sz = sizeof(t), .sample = stop_at_sample,
				  .sample_error = stop_at_bad_sample, .no_parse = true };

	if (rawfrag_file__mode(p->file) != RAWFRAG_MODE_PIPE)
		return 0;
	return rawfrag_session__process(p->sess, &t, err) < 0 ? -EINVAL : 0;
}

static int plugin_open(struct plugin *p, const char *path)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = plugin_print);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = plugin_print);
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .strict = p->strict, .max_examples = -1);
	struct rawfrag_err err;
	char msg[512];

	p->file = rawfrag_file__open(path, &fopts, &err);
	if (!p->file)
		goto fail;
	p->sess = rawfrag_session__new(p->file, &sopts, &err);
	if (!p->sess || read_description(p, &err))
		goto fail;
	p->chk = rawfrag_checker__new(p->sess, &copts, &err);
	if (!p->chk)
		goto fail;
	p->out = rawfrag_out__new(-1);
	if (!p->out)
		return -ENOMEM;
	return 0;
fail:
	fprintf(stderr, "rawfrag-dlfilter: %s\n", rawfrag_err__format(&err, path, msg, sizeof(msg)));
	return err.err ? err.err : -EINVAL;
}

static void plugin_free(struct plugin *p)
{
	if (!p)
		return;
	rawfrag_out__delete(p->out);
	rawfrag_checker__delete(p->chk);
	rawfrag_session__delete(p->sess);
	rawfrag_file__close(p->file);
	free(p);
}

static struct plugin *plugin_new(const char *path, enum mode mode, bool strict,
				 const char *producer)
{
	struct plugin *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->mode = mode;
	p->strict = strict;
	p->producer = producer;
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (plugin_open(p, p->path)) {
		plugin_free(p);
		return NULL;
	}
	return p;
}

/* The evsel of a dlfilter sample: by id, else by attr (type, config, sample_type). */
static struct rawfrag_evsel *find_evsel(struct plugin *p, uint64_t id,
					const struct perf_event_attr *attr)
{
	int n = rawfrag_file__nr_evsels(p->file);

	for (int i = 0; id && i < n; i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(p->file, i);
		const uint64_t *ids = rawfrag_evsel__ids(e);

		for (int j = 0; j < rawfrag_evsel__nr_ids(e); j++)
			if (ids[j] == id)
				return e;
	}
	for (int i = 0; attr && i < n; i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(p->file, i);
		const struct perf_event_attr *a = rawfrag_evsel__attr(e);

		if (a->type == attr->type && a->config == attr->config &&
		    a->sample_type == attr->sample_type)
			return e;
	}
	return n == 1 ? rawfrag_file__evsel(p->file, 0) : NULL;
}

struct one_result {
	struct rawfrag_evsel *evsel;
	const struct rawfrag_decoder *dec;
	int errors;
	int first_violation, nr_violations;
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
};

/*
 * Rebuild the sample record in the file's byte order from the fields perf gives,
 * then run it through the checker exactly as `perf rawfrag check` would.
 */
static int process(struct plugin *p, const struct perf_event_attr *attr, uint64_t id,
		   const struct rawfrag_sample *in, uint16_t misc, struct one_result *r)
{
	const struct perf_event_attr *fattr;
	struct rawfrag_err err;
	int size, before;

	memset(r, 0, sizeof(*r));
	r->evsel = find_evsel(p, id, attr);
	if (!r->evsel)
		return -ENOENT;
	fattr = rawfrag_evsel__attr(r->evsel);
	r->dec = rawfrag_session__decoder(p->sess, r->evsel);
	size = rawfrag_sample__synthesize(fattr, in, misc, rawfrag_file__needs_swap(p->file),
					  p->buf, sizeof(p->buf));
	if (size < 0)
		return size;
	r->rec.type = PERF_RECORD_SAMPLE;
	r->rec.misc = misc;
	r->rec.size = size;
	r->rec.data = p->buf;
	if (rawfrag_sample__parse(&r->smp, fattr, &r->rec, rawfrag_file__needs_swap(p->file), &err))
		return -EINVAL;
	before = rawfrag_checker__nr_violations(p->chk);
	r->errors = rawfrag_checker__record(p->chk, &r->rec, &r->smp);
	r->first_violation = before;
	r->nr_violations = rawfrag_checker__nr_violations(p->chk) - before;
	return 0;
}

static void print_violations(struct plugin *p, const struct one_result *r, FILE *f)
{
	for (int i = 0; i < r->nr_violations; i++) {
		const struct rawfrag_violation *v =
			rawfrag_checker__violation(p->chk, r->first_violation + i);

		if (v)
			fprintf(f, "  rawfrag %s %s: %s\n",
				v->sev == RAWFRAG_SEV_ERROR ? "violation" : "warning", v->kind,
				v->message);
	}
}

static void print_decoded(struct plugin *p, const struct one_result *r, FILE *f)
{
	const char *text;
	size_t len;

	rawfrag_out__reset(p->out);
	if (rawfrag_session__sample_text(p->sess, r->evsel, &r->rec, &r->smp, p->out, false) ==
	    -ENODATA)
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

/* ---- dlfilter entry points ---- */

RAWFRAG_PLUGIN_API int start(void **data, void *ctx);
RAWFRAG_PLUGIN_API int stop(void *data, void *ctx);
RAWFRAG_PLUGIN_API int filter_event(void *data, const struct perf_dlfilter_sample *sample,
				    void *ctx);
RAWFRAG_PLUGIN_API const char *filter_description(const char **long_description);

int start(void **data, void *ctx)
{
	char path[4096] = "perf.data";
	const char *producer = NULL;
	enum mode mode = MODE_CHECK;
	bool strict = false;
	char **args = NULL;
	int argc = 0;

	if (perf_dlfilter_fns.args)
		args = perf_dlfilter_fns.args(ctx, &argc);
	input_from_cmdline(path, sizeof(path));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(args[i], "check"))
			mode = MODE_CHECK;
		else if (!strcmp(args[i], "violations"))
			mode = MODE_VIOLATIONS;
		else if (!strcmp(args[i], "decode"))
			mode = MODE_DECODE;
		else if (!strcmp(args[i], "strict"))
			strict = true;
		else if (!strncmp(args[i], "file=", 5))
			snprintf(path, sizeof(path), "%s", args[i] + 5);
		else if (!strncmp(args[i], "producer=", 9))
			producer = args[i] + 9;
		else {
			fprintf(stderr, "rawfrag-dlfilter: unknown --dlarg '%s' (want check, "
					"violations, decode, strict, file=PATH, producer=NAME)\n",
				args[i]);
			return -EINVAL;
		}
	}
	*data = plugin_new(path, mode, strict, producer);
	return *data ? 0 : -EINVAL;
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	struct plugin *p = data;
	const struct perf_event_attr *attr = NULL;
	struct rawfrag_sample in;
	struct one_result r;
	bool keep = true;

	if (perf_dlfilter_fns.attr)
		attr = perf_dlfilter_fns.attr(ctx);
	p->nr_samples++;
	sample_from_dlfilter(sample, &in);
	if (process(p, attr, sample->id, &in, sample->misc, &r))
		return 0;
	if (p->producer && (!r.dec || strcmp(rawfrag_decoder__name(r.dec), p->producer)))
		keep = false;
	if (keep && p->mode == MODE_VIOLATIONS) {
		keep = r.errors > 0 || (p->strict && r.nr_violations > 0);
		if (keep)
			print_violations(p, &r, stdout);
	}
	if (keep && p->mode == MODE_DECODE)
		print_decoded(p, &r, stdout);
	p->nr_kept += keep;
	return keep ? 0 : 1;
}

int stop(void *data, void *ctx)
{
	struct plugin *p = data;

	if (!p)
		return 0;
	fprintf(stderr, "rawfrag-dlfilter: %llu samples, %llu kept, %llu raw-layout errors, "
			"%llu warnings\n",
		(unsigned long long)p->nr_samples, (unsigned long long)p->nr_kept,
		(unsigned long long)rawfrag_checker__nr_errors(p->chk),
		(unsigned long long)rawfrag_checker__nr_warnings(p->chk));
	plugin_free(p);
	return 0;
}

const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description = "--dlarg check|violations|decode|strict|file=PATH|producer=NAME";
	return "perf-rawfrag: check and decode PERF_SAMPLE_RAW payloads";
}

/* ---- the Python hook's entry points (ctypes, plugins/python/rawfrag.py) ---- */

RAWFRAG_PLUGIN_API void *rawfrag_py_open(const char *path, int strict);
RAWFRAG_PLUGIN_API void rawfrag_py_close(void *h);
RAWFRAG_PLUGIN_API int rawfrag_py_sample(void *h, const char *event, uint32_t pid, uint32_t tid,
					 uint32_t cpu, uint64_t time, const void *raw,
					 uint32_t raw_size, char *out, uint32_t out_len);
RAWFRAG_PLUGIN_API void rawfrag_py_summary(void *h, uint64_t *errors, uint64_t *warnings);

/* path NULL or "": perf script's -i, else ./perf.data */
void *rawfrag_py_open(const char *path, int strict)
{
	char in[4096] = "perf.data";

	if (path && *path)
		snprintf(in, sizeof(in), "%s", path);
	else
		input_from_cmdline(in, sizeof(in));
	return plugin_new(in, MODE_DECODE, strict, NULL);
}

void rawfrag_py_close(void *h)
{
	plugin_free(h);
}

/*
 * Decode and check one sample of the event named `event`: writes a JSON object
 * {"producer":..,"errors":n,"violations":[..],"fields":{..}} into out.
 * Returns the JSON length, or -errno.
 */
int rawfrag_py_sample(void *h, const char *event, uint32_t pid, uint32_t tid, uint32_t cpu,
		      uint64_t time, const void *raw, uint32_t raw_size, char *out,
		      uint32_t out_len)
{
	struct plugin *p = h;
	struct rawfrag_evsel *ev = NULL;
	struct rawfrag_sample in = { .pid = pid, .tid = tid, .cpu = cpu, .time = time,
				     .raw_size = raw_size, .raw_data = raw };
	struct rawfrag_emit *em;
	struct one_result r;
	const char *text;
	size_t len;

	for (int i = 0; i < rawfrag_file__nr_evsels(p->file); i++)
		if (!strcmp(rawfrag_evsel__name(rawfrag_file__evsel(p->file, i)), event))
			ev = rawfrag_file__evsel(p->file, i);
	if (!ev)
		return -ENOENT;
	/* the checker finds the evsel again by id, as it would in the file */
	if (rawfrag_evsel__nr_ids(ev))
		in.id = in.identifier = rawfrag_evsel__ids(ev)[0];
	if (process(p, rawfrag_evsel__attr(ev), in.id, &in, 0, &r))
		return -EINVAL;
	rawfrag_out__reset(p->out);
	em = rawfrag_emit__new(p->out, RAWFRAG_EMIT_JSON);
	if (!em)
		return -ENOMEM;
	rawfrag_emit__begin_object(em, NULL);
	rawfrag_emit__str(em, "producer", r.dec ? rawfrag_decoder__name(r.dec) : "none",
			  (size_t)-1);
	rawfrag_emit__u64(em, "errors", r.errors);
	rawfrag_emit__begin_array(em, "violations");
	for (int i = 0; i < r.nr_violations; i++) {
		const struct rawfrag_violation *v =
			rawfrag_checker__violation(p->chk, r.first_violation + i);

		if (!v)
			continue;
		rawfrag_emit__begin_object(em, NULL);
		rawfrag_emit__str(em, "kind", v->kind, (size_t)-1);
		rawfrag_emit__str(em, "message", v->message, (size_t)-1);
		rawfrag_emit__end_object(em);
	}
	rawfrag_emit__end_array(em);
	rawfrag_emit__begin_object(em, "fields");
	rawfrag_session__sample_fields(p->sess, ev, &r.rec, &r.smp, em);
	rawfrag_emit__end_object(em);
	rawfrag_emit__end_object(em);
	rawfrag_emit__delete(em);
	text = rawfrag_out__mem(p->out, &len);
	if (len + 1 > out_len)
		return -ENOSPC;
	memcpy(out, text, len);
	out[len] = 0;
	return (int)len;
}

void rawfrag_py_summary(void *h, uint64_t *errors, uint64_t *warnings)
{
	struct plugin *p = h;

	*errors = rawfrag_checker__nr_errors(p->chk);
	*warnings = rawfrag_checker__nr_warnings(p->chk);
}
