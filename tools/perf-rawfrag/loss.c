// SPDX-License-Identifier: GPL-2.0
/*
 * Lost data is never silent: report and check call rf_loss_warn() after their
 * walk. The totals come from the library's stats (no cost for a lossless
 * file), the breakdown per CPU from the caller's counts kept in the same walk
 * (report: one add per sample; check: the checker's per-CPU count). Both
 * cover what was read: a report cut short (| head) speaks of that part.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/file.h>
#include <rawfrag/sample.h>
#include <rawfrag/tool.h>

#include "util.h"

struct rf_loss_cpus *rf_loss_cpus__new(void)
{
	struct rf_loss_cpus *lc = calloc(1, sizeof(*lc));

	if (lc)
		lc->max = -1;
	return lc;
}

/* LOST and LOST_SAMPLES: the events they say were lost, on the CPU of id */
void rf_loss_cpus__lost(struct rf_loss_cpus *lc, const struct rawfrag_record *rec,
			const struct rawfrag_sample *id, bool swap)
{
	struct rf_loss_cpu *c;

	if (!id || !(id->sample_type & PERF_SAMPLE_CPU) || id->cpu >= RF_LOSS_MAX_CPUS)
		return;
	c = &lc->c[id->cpu];
	if ((int)id->cpu > lc->max)
		lc->max = (int)id->cpu;
	if (rec->type == PERF_RECORD_LOST && rec->size >= 24)
		c->lost += rawfrag__get64((const uint8_t *)rec->data + 16, swap);
	else if (rec->type == PERF_RECORD_LOST_SAMPLES && rec->size >= 16)
		c->lost_samples += rawfrag__get64((const uint8_t *)rec->data + 8, swap);
}

/*
 * The kernel counts a sample that finds its ring full twice: in the ring's
 * LOST record and in the event's lost count, which perf record writes as
 * LOST_SAMPLES at the end. The two are one loss seen twice, not a sum.
 */
static uint64_t one_loss(uint64_t lost, uint64_t lost_samples)
{
	return lost > lost_samples ? lost : lost_samples;
}

static double pct(uint64_t part, uint64_t rest)
{
	return part + rest ? 100.0 * (double)part / (double)(part + rest) : 0.0;
}

void rf_loss_warn(const char *cmd, const char *path, struct rawfrag_session *s,
		  const struct rf_loss_cpus *cpus)
{
	struct rawfrag_file *f = rawfrag_session__file(s);
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(f);
	uint64_t events = fs->nr_other_records, lost = fs->nr_lost, lrec = fs->nr_lost_records;
	uint64_t lsamples = fs->nr_lost_samples, samples = rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE);
	double drop = pct(lsamples, samples);

	if (!lost && !lsamples && !lrec)
		return;
	for (int i = 0; i < RAWFRAG_RECORD_USER_MAX; i++)
		events += rawfrag_file__nr_records(f, i);
	/* perf script's warnings first, word for word, so a perf user (and a
	 * script that greps them) recognizes them; perf counts the lost samples
	 * in the total and is silent at 5% or less */
	if (lrec)
		fprintf(stderr, "Warning:\nProcessed %" PRIu64 " events and lost %" PRIu64
			" chunks!\n\nCheck IO/CPU overload!\n\n", events, lrec);
	if (lsamples && drop > 5.0)
		fprintf(stderr, "Warning:\nProcessed %" PRIu64 " samples and lost %3.2f%%!\n\n",
			samples + lsamples, drop);
	fprintf(stderr, "perf rawfrag %s: %s: %" PRIu64 " events lost in %" PRIu64
		" LOST records, %" PRIu64 " in LOST_SAMPLES (%.2f%% of %" PRIu64
		" samples + lost)\n", cmd, path, lost, lrec, lsamples, pct(one_loss(lost, lsamples),
		samples), samples + one_loss(lost, lsamples));
	for (int i = 0; cpus && i <= cpus->max; i++) {
		const struct rf_loss_cpu *c = &cpus->c[i];

		/* LOST records carry the CPU whose ring was full; perf 6.1 files all
		 * their LOST_SAMPLES under one CPU, so those count only without them */
		uint64_t l = lrec ? c->lost : c->lost_samples;

		if (!l)
			continue;
		fprintf(stderr, "  cpu %d: lost %" PRIu64 " events (%.2f%% of %" PRIu64
			" samples + lost)\n", i, l, pct(l, c->samples), c->samples + l);
	}
}
