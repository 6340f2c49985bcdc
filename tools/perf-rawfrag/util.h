/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the perf-rawfrag subcommands: error and message printing,
 * perf-style selection lists (--cpu/--pid/--tid) and --time ranges.
 */
#ifndef __PERF_RAWFRAG_UTIL_H
#define __PERF_RAWFRAG_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rawfrag/decoder.h>

/* Messages of the library: warnings always, info with -v, debug with -vv. */
struct rf_print_ctx {
	int verbose;
	bool quiet; /* drop warnings too */
};
int rf_lib_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap);

/* "perf rawfrag <cmd>: <path>: offset 0x..: TYPE: reason" on stderr */
void rf_print_err(const char *cmd, const char *path, const struct rawfrag_err *e);
/* the command's one error printer: "perf rawfrag <cmd>: <message>" */
void rf_errorf(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rf_verrorf(const char *cmd, const char *fmt, va_list ap);

/* "1,3-5,7": sorted, merged ranges */
struct rf_list {
	int nr;
	struct {
		uint64_t lo, hi;
	} *r;
};
/* 0 or -EINVAL; an empty list matches nothing */
int rf_list__parse(struct rf_list *l, const char *s);
bool rf_list__has(const struct rf_list *l, uint64_t v);
void rf_list__free(struct rf_list *l);

/*
 * perf's --time: "start,stop" in seconds (either side may be empty; fraction up
 * to ns), or percentages of the recorded span: "10%-20%", "10%/2" (the 2nd
 * 10% slice), several separated by commas.
 * Both ends inclusive, as perf's perf_time__skip_sample().
 */
struct rf_time {
	int nr;
	struct {
		uint64_t start, end; /* end 0 = open */
	} *r;
	/* percentages need the span: resolved by rf_time__resolve() */
	int nr_pct;
	struct {
		double lo, hi; /* fractions 0..1 */
	} *pct;
};
int rf_time__parse(struct rf_time *t, const char *s);
/* turn percentages into times for the span [first, last] */
int rf_time__resolve(struct rf_time *t, uint64_t first, uint64_t last);
bool rf_time__has(const struct rf_time *t, uint64_t time);
void rf_time__free(struct rf_time *t);

/*
 * loss.c: when the file holds LOST / LOST_SAMPLES records, perf's warning and
 * the lost events per CPU on stderr. Call after the walk, once the file's
 * stats are no longer needed. The per-CPU counts come from cpus when the
 * caller counted them during a complete walk (rf_loss_cpus__*), else the file
 * is walked once more for them (a regular file only).
 */
#define RF_LOSS_MAX_CPUS 4096
struct rf_loss_cpu {
	uint64_t samples, lost, lost_samples;
};
struct rf_loss_cpus {
	int max; /* the highest CPU counted, -1 for none */
	struct rf_loss_cpu c[RF_LOSS_MAX_CPUS];
};
struct rf_loss_cpus *rf_loss_cpus__new(void);
/* a parsed sample, or a LOST / LOST_SAMPLES record with its sample_id_all trailer */
static inline void rf_loss_cpus__sample(struct rf_loss_cpus *lc, const struct rawfrag_sample *s)
{
	if (!(s->sample_type & PERF_SAMPLE_CPU) || s->cpu >= RF_LOSS_MAX_CPUS)
		return;
	lc->c[s->cpu].samples++;
	if ((int)s->cpu > lc->max)
		lc->max = (int)s->cpu;
}
void rf_loss_cpus__lost(struct rf_loss_cpus *lc, const struct rawfrag_record *rec,
			const struct rawfrag_sample *id, bool swap);
void rf_loss_warn(const char *cmd, const char *path, struct rawfrag_session *s,
		  const struct rf_loss_cpus *cpus);

#endif
