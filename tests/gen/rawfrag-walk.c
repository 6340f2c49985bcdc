// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-walk: walk a perf.data file with librawfrag, for tests/shell/t05-reader.sh.
 *   rawfrag-walk [-f] [-s] [-H] [-q] [-m] [-e] FILE|-
 * Default: one line per record "offset type size evsel".
 * -s: per record type counts and lost sums at the end ("count TYPE N").
 * -H: evsels and env first ("evsel IDX NAME type=T config=C ids=N pmu=P", "env KEY VALUE").
 * -q: no per-record lines.  -f: force past bad records.
 * -m: print "peak_rss_kb N" (VmHWM) at the end.
 * -e: per evsel sample counts at the end ("samples NAME N").
 * Exit 0, or 2 with "path: offset 0x..: TYPE: reason" on stderr for bad input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/file.h>

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

int main(int argc, char **argv)
{
	bool stats = false, header = false, quiet = false, rss = false, per_evsel = false;
	uint64_t *nr_samples = NULL;
	int cap = 0;
	RAWFRAG_OPTS(rawfrag_file_opts, opts, .print = print_fn);
	struct rawfrag_record rec;
	struct rawfrag_file *f;
	struct rawfrag_err err;
	char buf[512];
	int c, r, i;

	while ((c = getopt(argc, argv, "fsHqme")) != -1) {
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
			quiet = true;
			break;
		case 'm':
			rss = true;
			break;
		case 'e':
			per_evsel = true;
			break;
		default:
			fprintf(stderr, "usage: rawfrag-walk [-f] [-s] [-H] [-q] [-m] [-e] FILE|-\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: rawfrag-walk [-f] [-s] [-H] [-q] [-m] [-e] FILE|-\n");
		return 2;
	}
	f = rawfrag_file__open(argv[optind], &opts, &err);
	if (!f) {
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, argv[optind], buf, sizeof(buf)));
		return 2;
	}
	if (header)
		print_header(f);
	while ((r = rawfrag_file__next(f, &rec)) == 1) {
		struct rawfrag_evsel *e;

		if (per_evsel && rec.type == PERF_RECORD_SAMPLE) {
			int n = rawfrag_file__nr_evsels(f);

			/* pipe mode may add evsels as it goes */
			if (n + 1 > cap) {
				nr_samples = realloc(nr_samples, sizeof(*nr_samples) * (n + 1));
				if (!nr_samples)
					return 2;
				memset(nr_samples + cap, 0, sizeof(*nr_samples) * (n + 1 - cap));
				cap = n + 1;
			}
			e = rawfrag_file__evsel_of(f, &rec);
			nr_samples[e ? rawfrag_evsel__idx(e) : n]++;
		}
		if (quiet)
			continue;
		e = rawfrag_file__evsel_of(f, &rec);
		printf("0x%" PRIx64 " %s %u %s%s\n", rec.offset, rawfrag_record_type__name(rec.type),
		       rec.size, e ? rawfrag_evsel__name(e) : "-", rec.in_compressed ? " z" : "");
	}
	if (header && rawfrag_file__mode(f) == RAWFRAG_MODE_PIPE) {
		/* pipe mode learns its evsels and env from the stream */
		print_header(f);
	}
	if (stats) {
		const struct rawfrag_file_stats *st = rawfrag_file__stats(f);

		for (i = 0; i < RAWFRAG_RECORD_USER_MAX; i++)
			if (rawfrag_file__nr_records(f, i))
				printf("count %s %" PRIu64 "\n", rawfrag_record_type__name(i),
				       rawfrag_file__nr_records(f, i));
		printf("other %" PRIu64 "\n", st->nr_other_records);
		printf("lost %" PRIu64 " %" PRIu64 "\n", st->nr_lost_records, st->nr_lost);
		printf("lost_samples %" PRIu64 "\n", st->nr_lost_samples);
		printf("skipped %" PRIu64 " %" PRIu64 "\n", st->nr_skipped, st->bytes_skipped);
	}
	if (rss)
		print_rss();
	if (per_evsel && nr_samples)
		for (i = 0; i < rawfrag_file__nr_evsels(f); i++)
			printf("samples %s %" PRIu64 "\n",
			       rawfrag_evsel__name(rawfrag_file__evsel(f, i)), nr_samples[i]);
	free(nr_samples);
	if (r < 0) {
		fprintf(stderr, "%s\n",
			rawfrag_err__format(rawfrag_file__error(f), argv[optind], buf, sizeof(buf)));
		rawfrag_file__close(f);
		return 2;
	}
	rawfrag_file__close(f);
	return 0;
}
