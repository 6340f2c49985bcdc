// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-samples: the smallest librawfrag program. Opens a perf.data file (or a
 * pipe-mode stream on stdin, "-"), hands a struct rawfrag_tool to the session,
 * which reads every record in file order (applying the records that describe
 * the file itself) and calls on_sample() with each sample parsed once; it
 * prints the sample's RAW payload decoded by the producer's decoder:
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

/* the tool comes first: a handler finds the program's state from its tool */
struct samples {
	struct rawfrag_tool tool;
	struct rawfrag_out *out;
	struct rawfrag_emit *em; /* --json */
};

/* one sample, parsed once by the session */
static int on_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		     const struct rawfrag_event *ev)
{
	struct samples *p = (struct samples *)tool;
	const char *producer = rawfrag_decoder__name(rawfrag_session__decoder(s, ev->evsel));
	const struct rawfrag_sample *smp = ev->sample;

	if (p->em) {
		rawfrag_emit__reset(p->em);
		rawfrag_emit__begin_object(p->em, NULL);
		rawfrag_emit__str(p->em, "event", rawfrag_evsel__name(ev->evsel), (size_t)-1);
		rawfrag_emit__str(p->em, "producer", producer ? producer : "none", (size_t)-1);
		rawfrag_emit__begin_object(p->em, "fields");
		rawfrag_session__sample_fields(s, ev->evsel, ev->rec, smp, p->em);
		rawfrag_emit__end_object(p->em);
		rawfrag_emit__end_object(p->em);
	} else {
		/* signed, as perf: a sample without a thread has tid -1 */
		rawfrag_out__printf(p->out, "%d [%03u] %s: ", (int)smp->tid, smp->cpu,
				    rawfrag_evsel__name(ev->evsel));
		rawfrag_session__sample_text(s, ev->evsel, ev->rec, smp, p->out, false);
	}
	rawfrag_out__putc(p->out, '\n');
	return 0; /* > 0 would stop quietly, < 0 fail */
}

/* a sample that does not parse: skip it (`perf rawfrag check` says why) */
static int on_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			 const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	bool json = argc > 2 && !strcmp(argv[2], "--json");
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = print_msg);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = print_msg);
	/* file order (.ordered = false), as report --no-order */
	struct samples p = { .tool = { .sz = sizeof(p.tool), .sample = on_sample,
				       .sample_error = on_bad_sample } };
	struct rawfrag_session *s = NULL;
	struct rawfrag_file *f;
	struct rawfrag_err err = { 0 };
	char msg[512];
	int ret = -1;

	f = rawfrag_file__open(path, &fopts, &err);
	if (!f)
		goto fail;
	/* binds each evsel to its decoder; pipe mode's attrs rebind as they come */
	s = rawfrag_session__new(f, &sopts, &err);
	if (!s)
		goto fail;
	p.out = rawfrag_out__new(STDOUT_FILENO);
	if (!p.out)
		goto fail;
	if (json && !(p.em = rawfrag_emit__new(p.out, RAWFRAG_EMIT_JSON)))
		goto fail;
	/* the one read loop: describing records, threads, then our handlers */
	ret = rawfrag_session__process(s, &p.tool, &err);
fail:
	rawfrag_emit__delete(p.em);
	if (p.out && rawfrag_out__flush(p.out) && ret >= 0)
		ret = rawfrag_out__error(p.out);
	rawfrag_out__delete(p.out);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	if (ret < 0 && err.err) {
		fprintf(stderr, "rawfrag-samples: %s\n", rawfrag_err__format(&err, path, msg,
									     sizeof(msg)));
		return 2;
	}
	return ret < 0 ? 2 : 0;
}
