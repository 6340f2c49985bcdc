// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PERF_RECORD_SAMPLE synthesis: the exact inverse of rawfrag_sample__parse().
 * Scalars of the sample are in host order and converted to the target order;
 * arrays (read block, callchain, raw, branch entries, regs, stack, aux) are taken
 * as already in target order and copied as is.
 */
#include <errno.h>
#include <string.h>

#include <rawfrag/writer.h>

#define HW_INDEX_BIT (1ULL << 17) /* PERF_SAMPLE_BRANCH_HW_INDEX */

struct out {
	uint8_t *p;
	bool swap;
};

static inline void put64(struct out *o, uint64_t v)
{
	if (o->swap)
		v = __builtin_bswap64(v);
	memcpy(o->p, &v, 8);
	o->p += 8;
}

static inline void put32(struct out *o, uint32_t v)
{
	if (o->swap)
		v = __builtin_bswap32(v);
	memcpy(o->p, &v, 4);
	o->p += 4;
}

static inline void put16(struct out *o, uint16_t v)
{
	if (o->swap)
		v = __builtin_bswap16(v);
	memcpy(o->p, &v, 2);
	o->p += 2;
}

/* copy n bytes, or zeros when the caller gave no data */
static inline void put_bytes(struct out *o, const void *src, uint64_t n)
{
	if (src)
		memcpy(o->p, src, n);
	else
		memset(o->p, 0, n);
	o->p += n;
}

static uint64_t read_size(const struct perf_event_attr *attr, const struct rawfrag_sample *s)
{
	uint64_t rf = attr->read_format;
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t words = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (s->read.data)
		return s->read.size;
	if (rf & PERF_FORMAT_GROUP)
		return 8 * (1 + times) + (s->read.nr > 0xffff ? 0x10000 : s->read.nr) * 8 * words;
	return 8 * (times + words);
}

static bool branch_hw_idx(const struct perf_event_attr *attr, const struct rawfrag_sample *s)
{
	if (!(attr->branch_sample_type & HW_INDEX_BIT))
		return false;
	/* nr 0 without hw_idx is the kernel's "no stack" form */
	return s->branch_nr || s->branch_has_hw_idx;
}

/* Size of the record; absurd array counts are capped so that the sum cannot wrap. */
static uint64_t sample_size(const struct perf_event_attr *attr, const struct rawfrag_sample *s)
{
	uint64_t t = attr->sample_type;
	uint64_t sz = 8;

	sz += 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
		   !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR) +
		   !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		   !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_PERIOD) +
		   !!(t & PERF_SAMPLE_WEIGHT_TYPE) + !!(t & PERF_SAMPLE_DATA_SRC) +
		   !!(t & PERF_SAMPLE_TRANSACTION) + !!(t & PERF_SAMPLE_PHYS_ADDR) +
		   !!(t & PERF_SAMPLE_CGROUP) + !!(t & PERF_SAMPLE_DATA_PAGE_SIZE) +
		   !!(t & PERF_SAMPLE_CODE_PAGE_SIZE));
	if (t & PERF_SAMPLE_READ)
		sz += read_size(attr, s);
	/* the caps keep the sum from overflowing; anything capped is too big anyway */
	if (t & PERF_SAMPLE_CALLCHAIN)
		sz += 8 + 8 * (s->callchain_nr > 0x10000 ? 0x10000 : s->callchain_nr);
	if (t & PERF_SAMPLE_RAW)
		sz += 4 + (uint64_t)s->raw_size;
	if (t & PERF_SAMPLE_BRANCH_STACK)
		sz += 8 + 8 * branch_hw_idx(attr, s) +
		      24 * (s->branch_nr > 0x10000 ? 0x10000 : s->branch_nr);
	if (t & PERF_SAMPLE_REGS_USER)
		sz += 8 + (s->user_regs_abi ? 8 * __builtin_popcountll(attr->sample_regs_user) : 0);
	if (t & PERF_SAMPLE_REGS_INTR)
		sz += 8 + (s->intr_regs_abi ? 8 * __builtin_popcountll(attr->sample_regs_intr) : 0);
	if (t & PERF_SAMPLE_STACK_USER)
		sz += 8 + (s->stack_size ? (s->stack_size > 0x10000 ? 0x10000 : s->stack_size) + 8
					 : 0);
	if (t & PERF_SAMPLE_AUX)
		sz += 8 + (s->aux_size > 0x10000 ? 0x10000 : s->aux_size);
	return sz;
}

static void put_regs(struct out *o, uint64_t abi, uint64_t mask, const void *regs)
{
	put64(o, abi);
	if (abi)
		put_bytes(o, regs, 8ULL * __builtin_popcountll(mask));
}

static void put_read(struct out *o, const struct perf_event_attr *attr,
		     const struct rawfrag_sample *s, uint64_t len)
{
	uint64_t rf = attr->read_format;
	uint8_t *start = o->p;

	if (s->read.data) {
		put_bytes(o, s->read.data, len);
		return;
	}
	/* no block given: the scalars we have, zero values */

	if (rf & PERF_FORMAT_GROUP)
		put64(o, s->read.nr);
	else
		put64(o, 0);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put64(o, s->read.time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put64(o, s->read.time_running);
	put_bytes(o, NULL, len - (uint64_t)(o->p - start));
}

/* the members after RAW, in perf's order (the head is the caller's) */
static void put_tail(struct out *o, const struct perf_event_attr *attr,
		     const struct rawfrag_sample *s)
{
	uint64_t t = attr->sample_type;

	if (t & PERF_SAMPLE_BRANCH_STACK) {
		put64(o, s->branch_nr);
		if (branch_hw_idx(attr, s))
			put64(o, s->branch_hw_idx);
		put_bytes(o, s->branch_entries, 24 * s->branch_nr);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(o, s->user_regs_abi, attr->sample_regs_user, s->user_regs);
	if (t & PERF_SAMPLE_STACK_USER) {
		put64(o, s->stack_size);
		if (s->stack_size) {
			put_bytes(o, s->stack_data, s->stack_size);
			put64(o, s->stack_dyn_size);
		}
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE)
		put64(o, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		put64(o, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		put64(o, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(o, s->intr_regs_abi, attr->sample_regs_intr, s->intr_regs);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		put64(o, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		put64(o, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		put64(o, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		put64(o, s->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		put64(o, s->aux_size);
		put_bytes(o, s->aux_data, s->aux_size);
	}
}

int rawfrag_sample__synthesize(const struct perf_event_attr *attr,
			       const struct rawfrag_sample *s, uint16_t misc, bool swap,
			       void *buf, size_t bufsz)
{
	uint64_t t = attr->sample_type;
	uint64_t sz = sample_size(attr, s);
	struct out o = { .p = buf, .swap = swap };

	if (sz > 0xffff)
		return -E2BIG;
	if (sz > bufsz)
		return -ENOSPC;

	put32(&o, PERF_RECORD_SAMPLE);
	put16(&o, misc);
	put16(&o, (uint16_t)sz);
	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(&o, s->identifier);
	if (t & PERF_SAMPLE_IP)
		put64(&o, s->ip);
	if (t & PERF_SAMPLE_TID) {
		put32(&o, s->pid);
		put32(&o, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		put64(&o, s->time);
	if (t & PERF_SAMPLE_ADDR)
		put64(&o, s->addr);
	if (t & PERF_SAMPLE_ID)
		put64(&o, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(&o, s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		put32(&o, s->cpu);
		put32(&o, s->cpu_res);
	}
	if (t & PERF_SAMPLE_PERIOD)
		put64(&o, s->period);
	if (t & PERF_SAMPLE_READ)
		put_read(&o, attr, s, read_size(attr, s));
	if (t & PERF_SAMPLE_CALLCHAIN) {
		put64(&o, s->callchain_nr);
		put_bytes(&o, s->callchain, 8 * s->callchain_nr);
	}
	if (t & PERF_SAMPLE_RAW) {
		put32(&o, s->raw_size);
		put_bytes(&o, s->raw_data, s->raw_size);
	}
	put_tail(&o, attr, s);
	return (int)sz;
}
