// SPDX-License-Identifier: GPL-2.0
/*
 * Lost data is never silent: report and check call rf_loss_warn() after their
 * walk. The totals come from the library's stats (no cost for a lossless
 * file); only when something was lost is the file walked once more for the
 * breakdown per CPU (not possible on a pipe: totals only).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/file.h>
#include <rawfrag/sample.h>

#include "util.h"

#define LOSS_MAX_CPUS 4096

struct loss_cpu {
	uint64_t samples, lost, lost_samples;
};

static int record_cpu(const struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel_of(f, rec);
	const struct perf_event_attr *a = ev ? rawfrag_evsel__attr(ev) : NULL;
	struct rawfrag_sample s;
	bool swap = rawfrag_file__needs_swap(f);
	int err;

	if (!a || !(a->sample_type & PERF_SAMPLE_CPU))
		return -1;
	if (rec->type == PERF_RECORD_SAMPLE)
		err = rawfrag_sample__parse(&s, a, rec, swap, NULL);
	else if (a->sample_id_all)
		err = rawfrag_sample__parse_id_trailer(&s, a, rec, swap, NULL);
	else
		return -1;
	return err || s.cpu >= LOSS_MAX_CPUS ? -1 : (int)s.cpu;
}

/* the second walk: samples and losses per CPU; the highest CPU seen, or -1 */
static int per_cpu(struct rawfrag_file *f, struct loss_cpu *c)
{
	struct rawfrag_record rec;
	bool swap = rawfrag_file__needs_swap(f);
	int max = -1, cpu;

	if (rawfrag_file__rewind(f))
		return -1;
	while (rawfrag_file__next(f, &rec) > 0) {
		if (rec.type != PERF_RECORD_SAMPLE && rec.type != PERF_RECORD_LOST &&
		    rec.type != PERF_RECORD_LOST_SAMPLES)
			continue;
		cpu = record_cpu(f, &rec);
		if (cpu < 0)
			continue;
		if (cpu > max)
			max = cpu;
		if (rec.type == PERF_RECORD_SAMPLE)
			c[cpu].samples++;
		else if (rec.type == PERF_RECORD_LOST && rec.size >= 24)
			c[cpu].lost += rawfrag__get64((const uint8_t *)rec.data + 16, swap);
		else if (rec.size >= 16)
			c[cpu].lost_samples += rawfrag__get64((const uint8_t *)rec.data + 8, swap);
	}
	return max;
}

static double pct(uint64_t part, uint64_t rest)
{
	return part + rest ? 100.0 * (double)part / (double)(part + rest) : 0.0;
}

void rf_loss_warn(const char *cmd, const char *path, struct rawfrag_file *f)
{
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
	max = c ? per_cpu(f, c) : -1;
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
