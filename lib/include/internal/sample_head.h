/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fixed-size leading fields of a PERF_RECORD_SAMPLE in host byte order, for
 * the two fast paths that read them (the sample parser and check's RAW-only
 * path). Inline: both run once per sample. The caller has checked that the
 * record holds every field its sample_type names before these loads.
 */
#ifndef __RAWFRAG_INTERNAL_SAMPLE_HEAD_H
#define __RAWFRAG_INTERNAL_SAMPLE_HEAD_H

#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include <rawfrag/sample.h>

static inline uint64_t rf_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rf_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * IDENTIFIER through PERIOD from d (just past the record header) into s; returns
 * where the next field starts. IDENTIFIER stands for ID when ID is absent.
 */
static inline const uint8_t *rf_sample_head(struct rawfrag_sample *s, const uint8_t *d,
					    uint64_t type)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		s->identifier = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_IP)
		s->ip = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_TID)
		s->pid = rf_ld32(d), s->tid = rf_ld32(d + 4), d += 8;
	if (type & PERF_SAMPLE_TIME)
		s->time = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_ADDR)
		s->addr = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_ID)
		s->id = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = rf_ld64(d), d += 8;
	if (type & PERF_SAMPLE_CPU)
		s->cpu = rf_ld32(d), s->cpu_res = rf_ld32(d + 4), d += 8;
	if (type & PERF_SAMPLE_PERIOD)
		s->period = rf_ld64(d), d += 8;
	if ((type & PERF_SAMPLE_IDENTIFIER) && !(type & PERF_SAMPLE_ID))
		s->id = s->identifier;
	return d;
}

#endif
