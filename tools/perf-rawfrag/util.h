/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the perf-rawfrag subcommands: error and message printing,
 * the loss warning.
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
