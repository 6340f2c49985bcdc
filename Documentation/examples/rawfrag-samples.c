// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-samples: the smallest librawfrag program. Opens a perf.data file (or a
 * pipe-mode stream on stdin, "-"), walks its records in file order, and prints
 * every sample's RAW payload decoded by the producer's decoder:
 *
 *   rawfrag-samples [file] [--json]
 *
 * Text: "tid [cpu] event: decoded payload", as
 * `perf rawfrag report --no-order -F tid,cpu,event,trace` prints it.
 * --json: one object per sample, {"event":..,"producer":..,"fields":{..}}.
 *
 * Build against an installed librawfrag:
 *   cc rawfrag-samples.c $(pkg-config --cflags --libs rawfrag) -o rawfrag-samples
 * or statically:
 *   cc rawfrag-samples.c $(pkg-config --static --cflags --libs rawfrag) -static ...
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/rawfrag.h>

static int print_msg(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return level == RAWFRAG_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* records that (in pipe mode) describe the file: the session binds new evsels */
static bool describes(uint32_t type)
{
	return type == RAWFRAG_RECORD_HEADER_ATTR || type == RAWFRAG_RECORD_HEADER_TRACING_DATA ||
	       type == RAWFRAG_RECORD_HEADER_FEATURE || type == RAWFRAG_RECORD_EVENT_UPDATE;
}

static void print_sample(struct rawfrag_session *s, struct rawfrag_evsel *ev,
			 const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
			 struct rawfrag_out *out, struct rawfrag_emit *em)
{
	const char *producer = rawfrag_decoder__name(rawfrag_session__decoder(s, ev));

	if (em) {
		rawfrag_emit__reset(em);
		rawfrag_emit__begin_object(em, NULL);
		rawfrag_emit__str(em, "event", rawfrag_evsel__name(ev), (size_t)-1);
		rawfrag_emit__str(em, "producer", producer ? producer : "none", (size_t)-1);
		rawfrag_emit__begin_object(em, "fields");
		rawfrag_session__sample_fields(s, ev, rec, smp, em);
		rawfrag_emit__end_object(em);
		rawfrag_emit__end_object(em);
	} else {
		rawfrag_out__printf(out, "%u [%03u] %s: ", smp->tid, smp->cpu,
				    rawfrag_evsel__name(ev));
		rawfrag_session__sample_text(s, ev, rec, smp, out, false);
	}
	rawfrag_out__putc(out, '\n');
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	bool json = argc > 2 && !strcmp(argv[2], "--json");
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = print_msg);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = print_msg);
	struct rawfrag_session *s = NULL;
	struct rawfrag_emit *em = NULL;
	struct rawfrag_out *out = NULL;
	struct rawfrag_file *f;
	struct rawfrag_record rec;
	struct rawfrag_err err = { 0 };
	char msg[512];
	int ret = -1;

	f = rawfrag_file__open(path, &fopts, &err);
	if (!f)
		goto fail;
	s = rawfrag_session__new(f, &sopts, &err);
	if (!s)
		goto fail;
	out = rawfrag_out__new(STDOUT_FILENO);
	if (json)
		em = rawfrag_emit__new(out, RAWFRAG_EMIT_JSON);
	while ((ret = rawfrag_file__next(f, &rec)) > 0) {
		struct rawfrag_sample smp;
		struct rawfrag_evsel *ev;

		if (describes(rec.type) && rawfrag_session__refresh(s, &err))
			goto fail;
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		ev = rawfrag_file__evsel_of(f, &rec);
		if (!ev || rawfrag_sample__parse(&smp, rawfrag_evsel__attr(ev), &rec,
						 rawfrag_file__needs_swap(f), &err))
			continue; /* `perf rawfrag check` says why */
		print_sample(s, ev, &rec, &smp, out, em);
	}
	if (ret < 0)
		err = *rawfrag_file__error(f);
fail:
	rawfrag_emit__delete(em);
	if (out && rawfrag_out__flush(out) && ret >= 0)
		ret = rawfrag_out__error(out);
	rawfrag_out__delete(out);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	if (ret < 0 && err.err) {
		fprintf(stderr, "rawfrag-samples: %s\n", rawfrag_err__format(&err, path, msg,
									     sizeof(msg)));
		return 2;
	}
	return ret < 0 ? 2 : 0;
}
