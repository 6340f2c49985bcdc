// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-dump FILE: read a perf.data with librawfrag and print one line per
 * sample, for comparison with perf script in the shell tests:
 *
 *   event pid tid cpu time raw_size period ip nr_callchain
 *
 * (a field the sample_type lacks prints as "-", except period, which then is
 * the attr's sample_period as perf reports it). Bad input: the library's
 * error as "path: offset 0x..: TYPE: reason" on stderr and exit 2.
 * -c: only print "samples N" at the end.
 * -T: write the file's HEADER_TRACING_DATA blob to stdout instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/sample.h>

static void field(uint64_t type, uint64_t bit, bool hex, uint64_t v)
{
	if (!(type & bit))
		printf(" -");
	else if (hex)
		printf(" %" PRIx64, v);
	else
		printf(" %" PRIu64, v);
}

static void print_sample(const char *name, const struct perf_event_attr *attr,
			 const struct rawfrag_sample *s)
{
	uint64_t t = s->sample_type;

	printf("%s", name);
	field(t, PERF_SAMPLE_TID, false, s->pid);
	field(t, PERF_SAMPLE_TID, false, s->tid);
	field(t, PERF_SAMPLE_CPU, false, s->cpu);
	field(t, PERF_SAMPLE_TIME, false, s->time);
	field(t, PERF_SAMPLE_RAW, false, s->raw_size);
	/* without PERIOD the period is the attr's fixed one (perf does the same) */
	if (t & PERF_SAMPLE_PERIOD || attr->freq)
		field(t, PERF_SAMPLE_PERIOD, false, s->period);
	else
		field(PERF_SAMPLE_PERIOD, PERF_SAMPLE_PERIOD, false, attr->sample_period);
	field(t, PERF_SAMPLE_IP, true, s->ip);
	field(t, PERF_SAMPLE_CALLCHAIN, false, s->callchain_nr);
	printf("\n");
}

static int bad(const char *path, const struct rawfrag_err *e)
{
	char buf[512];

	fprintf(stderr, "%s\n", rawfrag_err__format(e, path, buf, sizeof(buf)));
	return 2;
}

int main(int argc, char **argv)
{
	RAWFRAG_OPTS(rawfrag_file_opts, opts);
	struct rawfrag_file *f;
	struct rawfrag_record rec;
	struct rawfrag_evsel *ev;
	struct rawfrag_sample s;
	struct rawfrag_err err = { 0 };
	bool count_only = false, tracing = false;
	uint64_t n = 0;
	const char *path;
	int ret, c;

	while ((c = getopt(argc, argv, "cT")) != -1) {
		if (c != 'c' && c != 'T') {
			fprintf(stderr, "usage: rawfrag-dump [-c|-T] FILE\n");
			return 2;
		}
		count_only |= c == 'c';
		tracing |= c == 'T';
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: rawfrag-dump [-c|-T] FILE\n");
		return 2;
	}
	path = argv[optind];
	f = rawfrag_file__open(path, &opts, &err);
	if (!f)
		return bad(path, &err);
	while ((ret = rawfrag_file__next(f, &rec)) == 1) {
		if (tracing)
			continue; /* pipe mode: the blob arrives as a record */
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		ev = rawfrag_file__evsel_of(f, &rec);
		if (!ev) {
			err = (struct rawfrag_err){ .err = -ENOENT, .offset = (int64_t)rec.offset,
						    .rec_type = rec.type };
			snprintf(err.reason, sizeof(err.reason), "sample id matches no event");
			ret = bad(path, &err);
			goto out;
		}
		if (rawfrag_sample__parse(&s, rawfrag_evsel__attr(ev), &rec,
					  rawfrag_file__needs_swap(f), &err)) {
			ret = bad(path, &err);
			goto out;
		}
		n++;
		if (!count_only)
			print_sample(rawfrag_evsel__name(ev), rawfrag_evsel__attr(ev), &s);
	}
	if (ret < 0) {
		ret = bad(path, rawfrag_file__error(f));
		goto out;
	}
	if (count_only)
		printf("samples %" PRIu64 "\n", n);
	if (tracing) {
		const struct rawfrag_env *env = rawfrag_file__env(f);

		if (!env->tracing_data) {
			fprintf(stderr, "%s: no tracing data\n", path);
			ret = 2;
			goto out;
		}
		fwrite(env->tracing_data, 1, env->tracing_data_size, stdout);
	}
	ret = 0;
out:
	fflush(stdout);
	rawfrag_file__close(f);
	return ret;
}
