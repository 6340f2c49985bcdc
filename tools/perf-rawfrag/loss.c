// SPDX-License-Identifier: GPL-2.0
/*
 * Lost data is never silent: report and check call rf_loss_warn() after their
 * walk. The totals come from the library's stats (no cost for a lossless
 * file); only when something was lost is the file walked once more for the
 * breakdown per CPU, through the session rewound (not possible on a pipe:
 * totals only).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/file.h>
#include <rawfrag/sample.h>
#include <rawfrag/tool.h>

#include "util.h"

#define LOSS_MAX_CPUS 4096

struct loss_cpu {
	uint64_t samples, lost, lost_samples;
};

/* the second pass's state; the tool comes first so the handlers find it */
struct loss_pass {
	struct rawfrag_tool tool;
	struct loss_cpu *c;
	bool swap;
	int max;
};

/* the record's CPU from its parsed sample or sample_id_all trailer, or -1 */
static int record_cpu(const struct rawfrag_event *ev)
{
	const struct perf_event_attr *a = ev->evsel ? rawfrag_evsel__attr(ev->evsel) : NULL;

	if (!a || !(a->sample_type & PERF_SAMPLE_CPU) || !ev->sample ||
	    ev->sample->cpu >= LOSS_MAX_CPUS)
		return -1;
	return (int)ev->sample->cpu;
}

static int on_loss_record(struct rawfrag_tool *tool, struct rawfrag_session *s,
			  const struct rawfrag_event *ev)
{
	struct loss_pass *p = (struct loss_pass *)tool;
	const struct rawfrag_record *rec = ev->rec;
	int cpu = record_cpu(ev);

	if (cpu < 0)
		return 0;
	if (cpu > p->max)
		p->max = cpu;
	if (rec->type == PERF_RECORD_SAMPLE)
		p->c[cpu].samples++;
	else if (rec->type == PERF_RECORD_LOST && rec->size >= 24)
		p->c[cpu].lost += rawfrag__get64((const uint8_t *)rec->data + 16, p->swap);
	else if (rec->type == PERF_RECORD_LOST_SAMPLES && rec->size >= 16)
		p->c[cpu].lost_samples += rawfrag__get64((const uint8_t *)rec->data + 8, p->swap);
	return 0;
}

/* a sample that does not parse has no CPU to count it under */
static int on_loss_bad(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

/* the second pass: samples and losses per CPU; the highest CPU seen, or -1 */
static int per_cpu(struct rawfrag_session *s, struct loss_cpu *c)
{
	struct loss_pass p = {
		.tool = { .sz = sizeof(p.tool), .sample = on_loss_record,
			  .sample_error = on_loss_bad, .lost = on_loss_record,
			  .lost_samples = on_loss_record },
		.c = c,
		.swap = rawfrag_file__needs_swap(rawfrag_session__file(s)),
		.max = -1,
	};
	struct rawfrag_err err;

	if (rawfrag_session__rewind(s) || rawfrag_session__process(s, &p.tool, &err) < 0)
		return -1;
	return p.max;
}

static double pct(uint64_t part, uint64_t rest)
{
	return part + rest ? 100.0 * (double)part / (double)(part + rest) : 0.0;
}

void rf_loss_warn(const char *cmd, const char *path, struct rawfrag_session *s)
{
	struct rawfrag_file *f = rawfrag_session__file(s);
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(f);
	uint64_t events = fs->nr_other_records, lost = fs->nr_lost, lrec = fs->nr_lost_records;
	uint64_t lsamples = fs->nr_lost_samples, samples = rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE);
	struct loss_cpu *c;
	int max;

	if (!lost && !lsamples && !lrec)
		return;
	for (int i = 0; i < RAWFRAG_RECORD_USER_MAX; i++)
		events += rawfrag_file__nr_records(f, i);
	/* perf's words first, so a perf user recognizes them */
	fprintf(stderr, "Warning:\n");
	if (lrec)
		fprintf(stderr, "Processed %" PRIu64 " events and lost %" PRIu64 " chunks!\n\n"
			"Check IO/CPU overload!\n\n", events, lrec);
	if (lsamples)
		fprintf(stderr, "Processed %" PRIu64 " samples and lost %3.2f%% samples!\n\n",
			samples, pct(lsamples, samples));
	fprintf(stderr, "perf rawfrag %s: %s: %" PRIu64 " events lost in %" PRIu64
		" LOST records, %" PRIu64 " in LOST_SAMPLES (%.2f%% of %" PRIu64
		" samples + lost)\n", cmd, path, lost, lrec, lsamples, pct(lost + lsamples, samples),
		samples + lost + lsamples);
	c = calloc(LOSS_MAX_CPUS, sizeof(*c));
	max = c ? per_cpu(s, c) : -1;
	for (int i = 0; i <= max; i++) {
		if (!c[i].lost && !c[i].lost_samples)
			continue;
		fprintf(stderr, "  cpu %d: lost %" PRIu64 " events (%.2f%% of %" PRIu64
			" samples + lost)\n", i, c[i].lost + c[i].lost_samples,
			pct(c[i].lost + c[i].lost_samples, c[i].samples),
			c[i].samples + c[i].lost + c[i].lost_samples);
	}
	free(c);
}
