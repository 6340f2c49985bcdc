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
#include <rawfrag/tool.h>

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

struct dump {
	struct rawfrag_tool tool; /* first: the handlers get &d->tool */
	bool count_only;
	uint64_t n;
};

static int dump_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
		       const struct rawfrag_event *ev)
{
	struct dump *d = (struct dump *)tool;

	d->n++;
	if (!d->count_only)
		print_sample(rawfrag_evsel__name(ev->evsel), rawfrag_evsel__attr(ev->evsel),
			     ev->sample);
	return 0;
}

/* -T: only the tracing data counts */
static int skip_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
		       const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

int main(int argc, char **argv)
{
	RAWFRAG_OPTS(rawfrag_file_opts, opts);
	struct dump d = { .tool = { .sz = sizeof(d.tool), .sample = dump_sample } };
	struct rawfrag_session *sess = NULL;
	struct rawfrag_file *f;
	struct rawfrag_err err = { 0 };
	bool count_only = false, tracing = false;
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
	sess = rawfrag_session__new(f, NULL, &err);
	if (!sess) {
		ret = bad(path, &err);
		goto out;
	}
	/* -T in pipe mode: the blob arrives as a record */
	d.count_only = count_only;
	if (tracing)
		d.tool = (struct rawfrag_tool){ .sz = sizeof(d.tool), .no_parse = true,
						.sample_error = skip_sample };
	if (rawfrag_session__process(sess, &d.tool, &err) < 0) {
		ret = bad(path, &err);
		goto out;
	}
	if (count_only)
		printf("samples %" PRIu64 "\n", d.n);
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
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
	return ret;
}
