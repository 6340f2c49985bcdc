// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-count-sink: a sink of its own, fed by a report. For each event it
 * counts the samples and the decoded fields they carry (every value a
 * typed visit hands over: numbers, strings, bytes, booleans and nulls, array
 * elements one by one), and prints "event samples fields" at the end:
 *
 *   rawfrag-count-sink [file]
 *
 * Build against an installed librawfrag:
 *   cc rawfrag-count-sink.c $(pkg-config --cflags --libs rawfrag) -o rawfrag-count-sink
 */
#include <stdio.h>
#include <stdlib.h>

#include <rawfrag/rawfrag.h>

struct counts {
	uint64_t samples[64], fields[64];
};

/* a value, not the start of an object or array */
static int count_field(void *ctx, const struct rawfrag_field *f)
{
	uint64_t *n = ctx;

	*n += f->type != RAWFRAG_FIELD_OBJECT && f->type != RAWFRAG_FIELD_ARRAY;
	return 0;
}

/* the sink: one call per selected sample */
static int on_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct counts *c = priv;
	int i = rawfrag_evsel__idx(ev->evsel) & 63;
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = count_field, .ctx = &c->fields[i] };

	c->samples[i]++;
	rawfrag_session__sample_visit(rawfrag_report__session(rep), ev->evsel, ev->rec,
				      ev->sample, &v);
	return 0;
}

static int on_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct rawfrag_file *f = rawfrag_session__file(rawfrag_report__session(rep));
	struct counts *c = priv;

	for (int i = 0; !status && i < rawfrag_file__nr_evsels(f) && i < 64; i++)
		if (c->samples[i])
			printf("%s %llu %llu\n", rawfrag_evsel__name(rawfrag_file__evsel(f, i)),
			       (unsigned long long)c->samples[i], (unsigned long long)c->fields[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	struct rawfrag_sink_ops ops = { .sz = sizeof(ops), .name = "count",
					.flags = RAWFRAG_SINK_NO_MACHINE,
					.sample = on_sample, .end = on_end };
	struct rawfrag_err err = { .offset = -1 };
	struct rawfrag_session *s = NULL;
	struct rawfrag_report *rep = NULL;
	struct rawfrag_sink *sk = NULL;
	static struct counts c;
	char buf[512];
	int ret = -1;
	struct rawfrag_file *f = rawfrag_file__open(path, NULL, &err);

	if (f && (s = rawfrag_session__new(f, NULL, &err)) &&
	    (rep = rawfrag_report__new(s, NULL, &err)) &&
	    (sk = rawfrag_sink__new(&ops, &c, &err)) &&
	    (ret = rawfrag_report__start(rep, sk, &err)) == 0)
		ret = rawfrag_report__run(rep, &err);
	if (rep && ret >= 0)
		ret = rawfrag_report__finish(rep, ret, &err);
	if (ret < 0)
		fprintf(stderr, "rawfrag-count-sink: %s\n", rawfrag_err__format(&err, path, buf,
									      sizeof(buf)));
	rawfrag_sink__delete(sk);
	rawfrag_report__delete(rep);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	return ret < 0 ? 2 : 0;
}
