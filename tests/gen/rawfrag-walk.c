// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-walk: walk a perf.data file with librawfrag, for tests/shell/t05-reader.sh.
 *   rawfrag-walk [-f] [-s] [-H] [-q] [-m] [-e] FILE|-
 *   rawfrag-walk -r|-b FILE|-        (the floors of make bench)
 * Records come through the session (rawfrag_session__process(), file order,
 * samples not parsed), so the counts compared with perf report -D are what
 * every tool of the session gets.
 * Default: one line per record "offset type size evsel".
 * -s: per record type counts and lost sums at the end ("count TYPE N"): the
 *     records the session delivered, COMPRESSED ones (which the reader unpacks
 *     and never hands out) from the reader's stats.
 * -H: evsels and env first ("evsel IDX NAME type=T config=C ids=N pmu=P", "env KEY VALUE").
 * -q: no per-record lines.  -f: force past bad records.
 * -m: print "peak_rss_kb N" (VmHWM) at the end.
 * -e: per evsel sample counts at the end ("samples NAME N").
 * -p: perf report -D's line per record instead, "0xOFF@PATH [0xSIZE]: event: TYPE"
 *     (offset 0 as "0"), PATH the record's data file (a directory recording's
 *     data or data.N), in perf's delivery order (time order, no queue bound),
 *     and "datafiles N" at the end.
 * The floors measure what no reader of samples can skip, so they use the
 * reader alone, below the session (its describing records, thread table and
 * handlers are what the floor is a floor of); they read nothing else:
 * -r: the raw-walk floor: find each sample's raw payload (its evsel's fixed
 *     words before RAW) and read its first u16 ("raw N SUM").
 * -b: the bare walk of record headers ("records N").
 * Exit 0, or 2 with "path: offset 0x..: TYPE: reason" on stderr for bad input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/decoder.h>
#include <rawfrag/file.h>
#include <rawfrag/tool.h>

static int print_fn(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	if (level == RAWFRAG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void print_header(struct rawfrag_file *f)
{
	const struct rawfrag_env *env = rawfrag_file__env(f);
	int i;

	printf("mode %s swap %d data_offset 0x%" PRIx64 " data_size 0x%" PRIx64 "\n",
	       rawfrag_file__mode(f) == RAWFRAG_MODE_PIPE ? "pipe" : "file",
	       rawfrag_file__needs_swap(f), rawfrag_file__data_offset(f),
	       rawfrag_file__data_size(f));
	for (i = 0; i < rawfrag_file__nr_evsels(f); i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(f, i);
		const struct perf_event_attr *a = rawfrag_evsel__attr(e);
		const char *pmu = rawfrag_evsel__pmu_name(e);

		printf("evsel %d %s type=%u config=0x%" PRIx64 " sample_type=0x%" PRIx64
		       " ids=%d pmu=%s\n",
		       i, rawfrag_evsel__name(e), a->type, (uint64_t)a->config,
		       (uint64_t)a->sample_type, rawfrag_evsel__nr_ids(e), pmu ? pmu : "-");
	}
#define S(k) if (env->k) printf("env " #k " %s\n", env->k)
	S(hostname);
	S(osrelease);
	S(version);
	S(arch);
	S(cpudesc);
	S(cpuid);
#undef S
	printf("env nr_cpus %u %u\n", env->nr_cpus_avail, env->nr_cpus_online);
	printf("env total_mem %" PRIu64 "\n", env->total_mem);
	for (i = 0; i < env->nr_cmdline; i++)
		printf("env cmdline %d %s\n", i, env->cmdline[i]);
	for (i = 0; i < env->nr_pmu_mappings; i++)
		printf("env pmu %u %s\n", env->pmu_mappings[i].type, env->pmu_mappings[i].name);
	for (i = 0; i < env->nr_pmu_caps; i++)
		printf("env cap %s %s=%s\n", env->pmu_caps[i].pmu, env->pmu_caps[i].name,
		       env->pmu_caps[i].value);
	printf("env tracing_data %" PRIu64 "\n", env->tracing_data_size);
	if (env->has_compressed)
		printf("env compressed type=%u level=%u mmap_len=%u\n", env->comp_type,
		       env->comp_level, env->comp_mmap_len);
	for (i = 1; i < RAWFRAG_FEAT_LAST; i++)
		if (rawfrag_file__has_feature(f, i))
			printf("feature %d\n", i);
}

/* where RAW's size word sits in this evsel's samples; 0: not at a fixed place */
static uint32_t raw_at(const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type, fixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	if (!(st & PERF_SAMPLE_RAW) || (st & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN)))
		return 0;
	return 8 + 8 * (uint32_t)__builtin_popcountll(st & fixed);
}

static int raw_walk(struct rawfrag_file *f)
{
	struct rawfrag_record rec;
	uint64_t n = 0, sum = 0;
	uint32_t at[64] = { 0 };
	int r;

	while ((r = rawfrag_file__next(f, &rec)) == 1) {
		struct rawfrag_evsel *e;
		uint32_t off;
		int idx;

		if (rec.type != PERF_RECORD_SAMPLE || !(e = rawfrag_file__evsel_of(f, &rec)))
			continue;
		idx = rawfrag_evsel__idx(e);
		if (idx >= 64)
			continue;
		if (!at[idx])
			at[idx] = raw_at(rawfrag_evsel__attr(e));
		off = at[idx];
		if (!off || off + 6 > rec.size)
			continue;
		sum += rawfrag__get16((const uint8_t *)rec.data + off + 4,
				      rawfrag_file__needs_swap(f));
		n++;
	}
	printf("raw %" PRIu64 " %" PRIu64 "\n", n, sum);
	return r;
}

/* the bare walk floor: every record's header, nothing else */
static int bare_walk(struct rawfrag_file *f)
{
	struct rawfrag_record rec;
	uint64_t n = 0;
	int r;

	while ((r = rawfrag_file__next(f, &rec)) == 1)
		n++;
	printf("records %" PRIu64 "\n", n);
	return r;
}

/* the walk's state; the tool comes first so the handlers find it */
struct walk {
	struct rawfrag_tool tool;
	bool quiet, per_evsel, perf_d;
	uint64_t nr[RAWFRAG_RECORD_USER_MAX];
	uint64_t *nr_samples; /* per evsel, the last slot for no evsel */
	int cap;
};

static int count_sample(struct walk *w, struct rawfrag_session *s,
			const struct rawfrag_event *ev)
{
	/* pipe mode may add evsels as it goes */
	int n = rawfrag_file__nr_evsels(rawfrag_session__file(s));

	if (n + 1 > w->cap) {
		uint64_t *p = realloc(w->nr_samples, sizeof(*p) * (n + 1));

		if (!p)
			return -ENOMEM;
		memset(p + w->cap, 0, sizeof(*p) * (n + 1 - w->cap));
		w->nr_samples = p;
		w->cap = n + 1;
	}
	w->nr_samples[ev->evsel ? rawfrag_evsel__idx(ev->evsel) : n]++;
	return 0;
}

static int on_record(struct rawfrag_tool *tool, struct rawfrag_session *s,
		     const struct rawfrag_event *ev)
{
	struct walk *w = (struct walk *)tool;
	const struct rawfrag_record *rec = ev->rec;

	if (rec->type < RAWFRAG_RECORD_USER_MAX)
		w->nr[rec->type]++;
	if (w->per_evsel && rec->type == PERF_RECORD_SAMPLE && count_sample(w, s, ev))
		return -ENOMEM;
	if (w->perf_d)
		printf("%#" PRIx64 "@%s [%#x]: event: %u\n", rec->offset,
		       rawfrag_file__data_file_path(rawfrag_session__file(s), (int)rec->data_file),
		       rec->size, rec->type);
	else if (!w->quiet)
		printf("0x%" PRIx64 " %s %u %s%s\n", rec->offset,
		       rawfrag_record_type__name(rec->type), rec->size,
		       ev->evsel ? rawfrag_evsel__name(ev->evsel) : "-",
		       rec->in_compressed ? " z" : "");
	return 0;
}

/* a sample whose id names no evsel is still a record of the file */
static int on_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			 const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return on_record(tool, s, ev);
}

static int walk(struct rawfrag_file *f, struct walk *w, const char *path)
{
	RAWFRAG_OPTS(rawfrag_session_opts, so, .print = print_fn);
	struct rawfrag_session *s;
	struct rawfrag_err err;
	char buf[512];
	int r;

	w->tool = (struct rawfrag_tool){
		.sz = sizeof(w->tool), .sample = on_record, .sample_error = on_bad_sample,
		.comm = on_record, .fork = on_record, .exit = on_record, .mmap = on_record,
		.mmap2 = on_record, .ksymbol = on_record, .lost = on_record,
		.lost_samples = on_record, .other = on_record, .user = on_record,
		.no_parse = true, .ordered = w->perf_d, .ordered_max_bytes = UINT64_MAX,
	};
	s = rawfrag_session__new(f, &so, &err);
	r = s ? rawfrag_session__process(s, &w->tool, &err) : err.err;
	rawfrag_session__delete(s);
	if (r < 0)
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, path, buf, sizeof(buf)));
	return r;
}

static void print_stats(struct rawfrag_file *f, const struct walk *w)
{
	const struct rawfrag_file_stats *st = rawfrag_file__stats(f);

	for (int i = 0; i < RAWFRAG_RECORD_USER_MAX; i++) {
		uint64_t n = i == RAWFRAG_RECORD_COMPRESSED ? rawfrag_file__nr_records(f, i) : w->nr[i];

		if (n)
			printf("count %s %" PRIu64 "\n", rawfrag_record_type__name(i), n);
	}
	printf("other %" PRIu64 "\n", st->nr_other_records);
	printf("lost %" PRIu64 " %" PRIu64 "\n", st->nr_lost_records, st->nr_lost);
	printf("lost_samples %" PRIu64 "\n", st->nr_lost_samples);
	printf("skipped %" PRIu64 " %" PRIu64 "\n", st->nr_skipped, st->bytes_skipped);
}

static void print_rss(void)
{
	char line[256];
	FILE *fp = fopen("/proc/self/status", "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VmHWM:", 6))
			printf("peak_rss_kb %ld\n", strtol(line + 6, NULL, 10));
	if (fp)
		fclose(fp);
}

static void usage(void)
{
	fprintf(stderr, "usage: rawfrag-walk [-f] [-s] [-H] [-q] [-m] [-e] [-p] FILE|-\n"
			"       rawfrag-walk [-f] -r|-b FILE|-\n");
}

int main(int argc, char **argv)
{
	bool stats = false, header = false, rss = false;
	int floor = 0;
	RAWFRAG_OPTS(rawfrag_file_opts, opts, .print = print_fn);
	struct walk w = { 0 };
	struct rawfrag_file *f;
	struct rawfrag_err err;
	char buf[512];
	int c, r, i;

	while ((c = getopt(argc, argv, "fsHqmerbp")) != -1) {
		switch (c) {
		case 'f':
			opts.force = true;
			break;
		case 's':
			stats = true;
			break;
		case 'H':
			header = true;
			break;
		case 'q':
			w.quiet = true;
			break;
		case 'm':
			rss = true;
			break;
		case 'e':
			w.per_evsel = true;
			break;
		case 'p':
			w.perf_d = true;
			break;
		case 'r':
		case 'b':
			floor = c;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage();
		return 2;
	}
	f = rawfrag_file__open(argv[optind], &opts, &err);
	if (!f) {
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, argv[optind], buf, sizeof(buf)));
		return 2;
	}
	if (floor) {
		r = floor == 'r' ? raw_walk(f) : bare_walk(f);
		if (r < 0)
			fprintf(stderr, "%s\n", rawfrag_err__format(rawfrag_file__error(f),
								    argv[optind], buf, sizeof(buf)));
		rawfrag_file__close(f);
		return r < 0 ? 2 : 0;
	}
	if (header)
		print_header(f);
	r = walk(f, &w, argv[optind]);
	if (header && rawfrag_file__mode(f) == RAWFRAG_MODE_PIPE) {
		/* pipe mode learns its evsels and env from the stream */
		print_header(f);
	}
	if (r >= 0 && stats)
		print_stats(f, &w);
	if (rss)
		print_rss();
	if (r >= 0 && w.per_evsel && w.nr_samples)
		for (i = 0; i < rawfrag_file__nr_evsels(f) && i < w.cap; i++)
			printf("samples %s %" PRIu64 "\n",
			       rawfrag_evsel__name(rawfrag_file__evsel(f, i)), w.nr_samples[i]);
	if (r >= 0 && w.perf_d)
		printf("datafiles %d\n", rawfrag_file__nr_data_files(f));
	free(w.nr_samples);
	rawfrag_file__close(f);
	return r < 0 ? 2 : 0;
}
