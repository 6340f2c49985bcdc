// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PERF_RECORD_SAMPLE parser (Documentation/perf.data-raw-format.txt, The sample record).
 *
 * Runs once per sample: no allocation, one forward pass, every read checked
 * against header.size. We read the record's original file bytes, so u32 pairs
 * (TID, CPU, raw_size) are read as u32s with a swap, unlike perf, which first
 * swaps everything as u64 and then undoes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rawfrag/sample.h>

#include "internal/sample_head.h"

#define HW_INDEX_BIT (1ULL << 17) /* PERF_SAMPLE_BRANCH_HW_INDEX */

struct cursor {
	const uint8_t *base;
	uint32_t off; /* next unread byte */
	uint32_t size; /* header.size */
	bool swap;
};

static int fail(struct rawfrag_err *err, const struct rawfrag_record *rec, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));

static int fail(struct rawfrag_err *err, const struct rawfrag_record *rec, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->err = -EINVAL;
		err->offset = (int64_t)rec->offset;
		err->rec_type = rec->type;
		va_start(ap, fmt);
		vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* true when n more bytes fit in the record (n may be any u64 from the file) */
static inline bool fits(const struct cursor *c, uint64_t n)
{
	return n <= (uint64_t)(c->size - c->off);
}

static inline uint64_t take64(struct cursor *c)
{
	uint64_t v = rawfrag__get64(c->base + c->off, c->swap);

	c->off += 8;
	return v;
}

static inline void take32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	*a = rawfrag__get32(c->base + c->off, c->swap);
	*b = rawfrag__get32(c->base + c->off + 4, c->swap);
	c->off += 8;
}

#define NEED(c, n, what)                                                             \
	do {                                                                         \
		if (!fits(c, n))                                                     \
			return fail(err, rec,                                        \
				    "%s: %llu bytes at offset %u exceed record (size %u)", \
				    what, (unsigned long long)(n), (c)->off, (c)->size); \
	} while (0)

#define U64_FIELD(bit, member, what)                                                 \
	do {                                                                         \
		if (type & (bit)) {                                                  \
			NEED(c, 8, what);                                            \
			s->member = take64(c);                                       \
		}                                                                    \
	} while (0)

static uint32_t read_entry_words(uint64_t rf)
{
	return 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
}

static int parse_read(struct rawfrag_sample *s, const struct perf_event_attr *attr,
		      struct cursor *c, const struct rawfrag_record *rec,
		      struct rawfrag_err *err)
{
	uint64_t rf = attr->read_format;
	uint32_t start = c->off;
	uint64_t words;

	if (rf & PERF_FORMAT_GROUP) {
		NEED(c, 8, "READ");
		s->read.nr = take64(c);
	} else {
		s->read.nr = 1;
		/* the value comes first, before the times */
		NEED(c, 8, "READ");
		c->off += 8;
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		NEED(c, 8, "READ");
		s->read.time_enabled = take64(c);
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		NEED(c, 8, "READ");
		s->read.time_running = take64(c);
	}
	if (rf & PERF_FORMAT_GROUP) {
		words = read_entry_words(rf);
		if (s->read.nr > (uint64_t)(c->size - c->off) / (8 * words))
			return fail(err, rec,
				    "READ: group nr %llu exceeds record (size %u, at offset %u)",
				    (unsigned long long)s->read.nr, c->size, c->off);
		c->off += (uint32_t)(s->read.nr * 8 * words);
	} else {
		words = read_entry_words(rf) - 1;
		NEED(c, 8 * words, "READ");
		c->off += (uint32_t)(8 * words);
	}
	s->read.data = c->base + start;
	s->read.size = c->off - start;
	return 0;
}

static int parse_regs(struct cursor *c, uint64_t mask, uint64_t *abi, const void **regs,
		      uint32_t *nr, const char *what, const struct rawfrag_record *rec,
		      struct rawfrag_err *err)
{
	uint32_t n = (uint32_t)__builtin_popcountll(mask);

	NEED(c, 8, what);
	*abi = take64(c);
	if (!*abi)
		return 0;
	NEED(c, 8ULL * n, what);
	*regs = c->base + c->off;
	*nr = n;
	c->off += 8 * n;
	return 0;
}

/* Everything after BRANCH_STACK (REGS_USER .. AUX). */
static int parse_tail(struct rawfrag_sample *s, const struct perf_event_attr *attr,
		      struct cursor *c, const struct rawfrag_record *rec,
		      struct rawfrag_err *err)
{
	uint64_t type = attr->sample_type;
	uint64_t n;
	int ret;

	if (type & PERF_SAMPLE_REGS_USER) {
		s->user_regs_mask = attr->sample_regs_user;
		ret = parse_regs(c, attr->sample_regs_user, &s->user_regs_abi, &s->user_regs,
				 &s->user_regs_nr, "REGS_USER", rec, err);
		if (ret)
			return ret;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		NEED(c, 8, "STACK_USER");
		n = take64(c);
		s->stack_size = n;
		if (n) {
			if (n % 8)
				return fail(err, rec,
					    "STACK_USER: size %llu not a multiple of 8 (at offset %u)",
					    (unsigned long long)n, c->off - 8);
			NEED(c, n + 8, "STACK_USER");
			s->stack_data = c->base + c->off;
			c->off += (uint32_t)n;
			s->stack_dyn_size = take64(c);
			if (s->stack_dyn_size > n)
				return fail(err, rec,
					    "STACK_USER: dyn_size %llu exceeds size %llu (at offset %u)",
					    (unsigned long long)s->stack_dyn_size,
					    (unsigned long long)n, c->off - 8);
		}
	}
	U64_FIELD(PERF_SAMPLE_WEIGHT_TYPE, weight, "WEIGHT");
	U64_FIELD(PERF_SAMPLE_DATA_SRC, data_src, "DATA_SRC");
	U64_FIELD(PERF_SAMPLE_TRANSACTION, transaction, "TRANSACTION");
	if (type & PERF_SAMPLE_REGS_INTR) {
		s->intr_regs_mask = attr->sample_regs_intr;
		ret = parse_regs(c, attr->sample_regs_intr, &s->intr_regs_abi, &s->intr_regs,
				 &s->intr_regs_nr, "REGS_INTR", rec, err);
		if (ret)
			return ret;
	}
	U64_FIELD(PERF_SAMPLE_PHYS_ADDR, phys_addr, "PHYS_ADDR");
	U64_FIELD(PERF_SAMPLE_CGROUP, cgroup, "CGROUP");
	U64_FIELD(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size, "DATA_PAGE_SIZE");
	U64_FIELD(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size, "CODE_PAGE_SIZE");
	if (type & PERF_SAMPLE_AUX) {
		NEED(c, 8, "AUX");
		n = take64(c);
		if (!fits(c, n))
			return fail(err, rec, "AUX: size %llu exceeds record (size %u, at offset %u)",
				    (unsigned long long)n, c->size, c->off);
		s->aux_size = n;
		s->aux_data = c->base + c->off;
		c->off += (uint32_t)n;
	}
	return 0;
}

static int parse_branch_and_tail(struct rawfrag_sample *s,
				 const struct perf_event_attr *attr, struct cursor *c,
				 const struct rawfrag_record *rec, struct rawfrag_err *err)
{
	struct cursor save;
	struct rawfrag_sample tmp;
	uint64_t nr;

	if (!(attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return parse_tail(s, attr, c, rec, err);

	NEED(c, 8, "BRANCH_STACK");
	nr = take64(c);
	s->branch_nr = nr;
	if (nr == 0 && (attr->branch_sample_type & HW_INDEX_BIT)) {
		/*
		 * The kernel writes a bare nr = 0 (no hw_idx) when the PMU gave no
		 * stack, but nr = 0 + hw_idx for an empty stack: take the reading
		 * that ends exactly at header.size, preferring hw_idx.
		 */
		save = *c;
		tmp = *s;
		if (fits(c, 8)) {
			s->branch_hw_idx = take64(c);
			s->branch_has_hw_idx = true;
			if (!parse_tail(s, attr, c, rec, NULL) && c->off == c->size)
				return 0;
		}
		*c = save;
		*s = tmp;
		return parse_tail(s, attr, c, rec, err);
	}
	if (attr->branch_sample_type & HW_INDEX_BIT) {
		NEED(c, 8, "BRANCH_STACK");
		s->branch_hw_idx = take64(c);
		s->branch_has_hw_idx = true;
	}
	if (nr > (uint64_t)(c->size - c->off) / 24)
		return fail(err, rec,
			    "BRANCH_STACK: nr %llu exceeds record (size %u, at offset %u)",
			    (unsigned long long)nr, c->size, c->off);
	s->branch_entries = c->base + c->off;
	c->off += (uint32_t)(nr * 24);
	return parse_tail(s, attr, c, rec, err);
}

/* the fixed u64 words before READ, each 8 bytes (TID and CPU are two u32s) */
#define HEAD_BITS                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
	 PERF_SAMPLE_PERIOD)
/* everything parse_branch_and_tail() reads */
#define TAIL_BITS                                                                   \
	(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |        \
	 PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |         \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |               \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* without -mpopcnt, __builtin_popcountll() is a libgcc call costing more than this */
static inline unsigned int bit_count(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((x * 0x0101010101010101ULL) >> 56);
}

/*
 * The head when the record holds all of it (checked once by the caller): the
 * same reads as the checked path, without a bounds test per field.
 */
static inline void parse_head(struct rawfrag_sample *s, uint64_t type, struct cursor *c)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		s->identifier = take64(c);
	if (type & PERF_SAMPLE_IP)
		s->ip = take64(c);
	if (type & PERF_SAMPLE_TID)
		take32x2(c, &s->pid, &s->tid);
	if (type & PERF_SAMPLE_TIME)
		s->time = take64(c);
	if (type & PERF_SAMPLE_ADDR)
		s->addr = take64(c);
	if (type & PERF_SAMPLE_ID)
		s->id = take64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(c);
	if (type & PERF_SAMPLE_CPU)
		take32x2(c, &s->cpu, &s->cpu_res);
	if (type & PERF_SAMPLE_PERIOD)
		s->period = take64(c);
}


/*
 * The usual sample (head words and RAW, as tracepoints write, in host order):
 * the bounds are tested before anything is stored, then the fields are read
 * with a pointer held in a register. False: the record does not fit, and the
 * checked parser says where.
 */
static inline bool parse_usual(struct rawfrag_sample *s, uint64_t type,
			       const struct rawfrag_record *rec)
{
	const uint8_t *base = rec->data, *d = base + 8;
	uint32_t room = (uint32_t)rec->size - 8, head = 8 * bit_count(type & HEAD_BITS);
	uint32_t raw_size = 0;

	if (room < head)
		return false;
	if (type & PERF_SAMPLE_RAW) {
		if (room - head < 4)
			return false;
		raw_size = rf_ld32(d + head);
		if (raw_size > room - head - 4)
			return false;
	}
	d = rf_sample_head(s, d, type);
	if (type & PERF_SAMPLE_RAW) {
		s->raw_size = raw_size;
		s->raw_data = d + 4;
		s->raw_offset = (uint32_t)(d + 4 - base);
		d += 4 + raw_size;
	}
	s->end_offset = (uint32_t)(d - base);
	return true;
}

#define RF_TP_SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

typedef uint64_t zvec_t __attribute__((vector_size(16), aligned(8), may_alias));

/*
 * memset() of the struct becomes "rep stos" and costs as much as the parse
 * itself; unrolled 16-byte stores are about 10x cheaper.
 */
static inline void zero_sample(struct rawfrag_sample *s)
{
	zvec_t *v = (zvec_t *)s;
	uint64_t *tail;

#pragma GCC unroll 32
	for (size_t i = 0; i < sizeof(*s) / 16; i++)
		v[i] = (zvec_t){ 0, 0 };
	if (sizeof(*s) % 16) {
		tail = (uint64_t *)((char *)s + sizeof(*s) - 8);
		*tail = 0;
	}
}

static __attribute__((noinline)) int parse_any(struct rawfrag_sample *s,
					       const struct perf_event_attr *attr,
					       const struct rawfrag_record *rec, bool swap,
					       struct rawfrag_err *err)
{
	struct cursor cur = { .base = rec->data, .off = 8, .size = rec->size, .swap = swap };
	struct cursor *c = &cur;
	uint64_t type = attr->sample_type;
	uint64_t n;
	int ret;

	zero_sample(s);
	s->sample_type = type;
	s->swap = swap;
	s->misc = rec->misc;
	if (rec->size < 8)
		return fail(err, rec, "header.size %u is smaller than the header", rec->size);
	if (!swap && !(type & ~(HEAD_BITS | PERF_SAMPLE_RAW)) && parse_usual(s, type, rec))
		return 0;

	if (fits(c, 8ULL * bit_count(type & HEAD_BITS))) {
		parse_head(s, type, c);
		goto head_done;
	}
	U64_FIELD(PERF_SAMPLE_IDENTIFIER, identifier, "IDENTIFIER");
	U64_FIELD(PERF_SAMPLE_IP, ip, "IP");
	if (type & PERF_SAMPLE_TID) {
		NEED(c, 8, "TID");
		take32x2(c, &s->pid, &s->tid);
	}
	U64_FIELD(PERF_SAMPLE_TIME, time, "TIME");
	U64_FIELD(PERF_SAMPLE_ADDR, addr, "ADDR");
	U64_FIELD(PERF_SAMPLE_ID, id, "ID");
	U64_FIELD(PERF_SAMPLE_STREAM_ID, stream_id, "STREAM_ID");
	if (type & PERF_SAMPLE_CPU) {
		NEED(c, 8, "CPU");
		take32x2(c, &s->cpu, &s->cpu_res);
	}
	U64_FIELD(PERF_SAMPLE_PERIOD, period, "PERIOD");
head_done:
	if ((type & PERF_SAMPLE_IDENTIFIER) && !(type & PERF_SAMPLE_ID))
		s->id = s->identifier;

	if (type & PERF_SAMPLE_READ) {
		ret = parse_read(s, attr, c, rec, err);
		if (ret)
			return ret;
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		NEED(c, 8, "CALLCHAIN");
		n = take64(c);
		if (n > (uint64_t)(c->size - c->off) / 8)
			return fail(err, rec,
				    "CALLCHAIN: nr %llu exceeds record (size %u, at offset %u)",
				    (unsigned long long)n, c->size, c->off);
		s->callchain_nr = n;
		s->callchain = c->base + c->off;
		c->off += (uint32_t)(n * 8);
	}
	if (type & PERF_SAMPLE_RAW) {
		NEED(c, 4, "RAW");
		s->raw_size = rawfrag__get32(c->base + c->off, swap);
		c->off += 4;
		if (!fits(c, s->raw_size))
			return fail(err, rec,
				    "RAW: raw_size %u exceeds record (size %u, at offset %u)",
				    s->raw_size, c->size, c->off);
		s->raw_data = c->base + c->off;
		s->raw_offset = c->off;
		c->off += s->raw_size;
	}
	/* tracepoint and most other samples end at RAW: skip the tail's two calls */
	if (type & TAIL_BITS) {
		ret = parse_branch_and_tail(s, attr, c, rec, err);
		if (ret)
			return ret;
	}
	s->end_offset = c->off;
	return 0;
}

/*
 * What perf record gives tracepoints, with the type a constant (no bit
 * tests) and in a small frame; anything else, or a record that does not fit,
 * the long way from the start.
 */
int rawfrag_sample__parse(struct rawfrag_sample *s, const struct perf_event_attr *attr,
			  const struct rawfrag_record *rec, bool swap, struct rawfrag_err *err)
{
	if (!swap && attr->sample_type == RF_TP_SAMPLE_TYPE && rec->size >= 8) {
		zero_sample(s);
		s->sample_type = RF_TP_SAMPLE_TYPE;
		s->misc = rec->misc;
		if (parse_usual(s, RF_TP_SAMPLE_TYPE, rec))
			return 0;
	}
	return parse_any(s, attr, rec, swap, err);
}

uint32_t rawfrag_sample__id_trailer_size(const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;

	if (!attr->sample_id_all)
		return 0;
	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		    !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		    !!(t & PERF_SAMPLE_IDENTIFIER));
}

int rawfrag_sample__parse_id_trailer(struct rawfrag_sample *s,
				     const struct perf_event_attr *attr,
				     const struct rawfrag_record *rec, bool swap,
				     struct rawfrag_err *err)
{
	uint32_t tsz = rawfrag_sample__id_trailer_size(attr);
	struct cursor cur = { .base = rec->data, .size = rec->size, .swap = swap };
	struct cursor *c = &cur;
	uint64_t type = attr->sample_type;

	zero_sample(s);
	s->sample_type = type;
	s->swap = swap;
	s->misc = rec->misc;
	if (rec->size < 8 || (uint32_t)rec->size - 8 < tsz)
		return fail(err, rec, "sample_id_all trailer: %u bytes do not fit in record (size %u)",
			    tsz, rec->size);
	/* the trailer is the last tsz bytes whatever the body's length */
	c->off = rec->size - tsz;
	if (!tsz)
		return 0;
	if (type & PERF_SAMPLE_TID)
		take32x2(c, &s->pid, &s->tid);
	if (type & PERF_SAMPLE_TIME)
		s->time = take64(c);
	if (type & PERF_SAMPLE_ID)
		s->id = take64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(c);
	if (type & PERF_SAMPLE_CPU)
		take32x2(c, &s->cpu, &s->cpu_res);
	if (type & PERF_SAMPLE_IDENTIFIER) {
		s->identifier = take64(c);
		if (!(type & PERF_SAMPLE_ID))
			s->id = s->identifier;
	}
	s->end_offset = c->off;
	return 0;
}

int rawfrag_sample__read_value(const struct rawfrag_sample *s,
			       const struct perf_event_attr *attr, uint64_t i, uint64_t *value,
			       uint64_t *id, uint64_t *lost)
{
	uint64_t rf = attr->read_format;
	uint64_t words = read_entry_words(rf);
	const uint8_t *p = s->read.data;
	uint64_t off;

	if (!p || i >= s->read.nr)
		return -ERANGE;
	if (rf & PERF_FORMAT_GROUP) {
		off = 8 + 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
		off += i * 8 * words;
		if (value)
			*value = rawfrag__get64(p + off, s->swap);
		off += 8;
	} else {
		if (value)
			*value = rawfrag__get64(p, s->swap);
		off = 8 + 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	}
	if (id)
		*id = (rf & PERF_FORMAT_ID) ? rawfrag__get64(p + off, s->swap) : 0;
	if (rf & PERF_FORMAT_ID)
		off += 8;
	if (lost)
		*lost = (rf & PERF_FORMAT_LOST) ? rawfrag__get64(p + off, s->swap) : 0;
	return 0;
}

/*
 * Branch flags are a bitfield laid out by the writer's ABI; we hand back the u64
 * as written (swapped to host order), leaving bit interpretation to the caller.
 */
void rawfrag_sample__branch(const struct rawfrag_sample *s, uint64_t i,
			    struct rawfrag_branch_entry *be)
{
	const uint8_t *p;

	if (i >= s->branch_nr) {
		*be = (struct rawfrag_branch_entry){ 0 };
		return;
	}
	p = (const uint8_t *)s->branch_entries + 24 * i;
	be->from = rawfrag__get64(p, s->swap);
	be->to = rawfrag__get64(p + 8, s->swap);
	be->flags = rawfrag__get64(p + 16, s->swap);
}
