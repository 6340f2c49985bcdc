// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The generic RAW rules (Documentation/perf.data-raw-format.txt, The RAW area), one
 * parsed sample at a time, and the sink findings go to. check.c drives this per
 * record. The wrapped-size heuristic for samples that do not parse is in check.c.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal/check_sink.h"

void rawfrag_check_sink__report(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
				const char *kind, int64_t raw_off, const char *fmt, ...)
{
	va_list ap;

	if (!sink)
		return;
	if (sev == RAWFRAG_SEV_ERROR)
		sink->nr_err++;
	else
		sink->nr_warn++;
	if (!sink->report)
		return;
	va_start(ap, fmt);
	sink->report(sink, sev, kind, raw_off, fmt, ap);
	va_end(ap);
}

static unsigned int size_bucket(uint32_t size)
{
	unsigned int b;

	if (size < 2)
		return 0;
	b = 31 - (unsigned int)__builtin_clz(size);
	return b < RAWFRAG_CHECK_SIZE_BUCKETS ? b : RAWFRAG_CHECK_SIZE_BUCKETS - 1;
}

static void check_pad(const struct rawfrag_sample *smp, uint32_t len,
		      struct rawfrag_check_sink *sink)
{
	struct rawfrag_check_evstats *st = sink ? sink->st : NULL;
	uint32_t pad = smp->raw_size - len, nz = 0, first = 0;
	uint64_t w = 0;

	/*
	 * pad is 0..7 (the caller checked): the usual all-zero pad is told by one
	 * OR over the last 8 bytes of the raw area, counting only when it is not.
	 */
	if (pad && smp->raw_size >= 8) {
		memcpy(&w, smp->raw_data + smp->raw_size - 8, 8);
		w = (uint64_t)le64toh(w) >> (8 * (8 - pad));
	}
	for (uint32_t i = len; (w || smp->raw_size < 8) && i < smp->raw_size; i++) {
		if (smp->raw_data[i] && !nz++)
			first = i;
	}
	if (st) {
		st->pad_hist[pad]++;
		if (nz)
			st->pad_stale++;
		else
			st->pad_zero++;
	}
	if (nz)
		rawfrag_check_sink__report(sink, sink && sink->strict ? RAWFRAG_SEV_ERROR :
					   RAWFRAG_SEV_WARN, "pad_nonzero", first,
					   "%u of %u pad bytes not zero (stale ring data), first at raw+0x%x",
					   nz, pad, first);
}

int rawfrag_check_raw(const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
		      int64_t len, struct rawfrag_check_sink *sink)
{
	struct rawfrag_check_evstats *st = sink ? sink->st : NULL;
	uint32_t size = smp->raw_size;
	int before = sink ? sink->nr_err : 0;

	if (!smp->raw_data)
		return 0;
	if (st) {
		st->raw_samples++;
		st->raw_bytes += size;
		st->size_hist[size_bucket(size)]++;
	}
	if (size % 8 != 4)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "raw_size_align", -1,
					   "raw_size %u is not 4 mod 8", size);
	if ((uint64_t)smp->raw_offset + size > rec->size) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "raw_outside", -1,
					   "raw area 0x%x+%u ends past header.size %u",
					   smp->raw_offset, size, rec->size);
		return sink ? sink->nr_err - before : 0;
	}
	if (smp->end_offset != rec->size)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "raw_trailing", -1,
					   "fields after RAW end at %u, header.size is %u",
					   smp->end_offset, rec->size);
	/* a producer that knows 1..3 payload bytes here says the word is data */
	if (size == 4 && len <= 0) {
		uint32_t w = rawfrag__get32(smp->raw_data, false);

		if (!w) {
			if (st)
				st->empty++;
		} else {
			rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "raw_empty_nonzero", 0,
						   "raw_size 4 but the word is 0x%08x, not 0 (unwritten zero-length output?)",
						   w);
		}
	}
	if (len < 0) {
		if (st)
			st->pad_unknown++;
	} else if (len > size || size - len > 7) {
		if (st)
			st->pad_unknown++;
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "pad_range", -1,
					   "pad = raw_size %u - length %lld is not in 0..7", size,
					   (long long)len);
	} else {
		check_pad(smp, (uint32_t)len, sink);
	}
	return sink ? sink->nr_err - before : 0;
}
