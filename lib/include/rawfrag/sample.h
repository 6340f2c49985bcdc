/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * PERF_RECORD_SAMPLE parser: every PERF_SAMPLE_* field in the kernel's order,
 * each bounds-checked against header.size.
 *
 * Ownership: a parsed rawfrag_sample holds pointers into the record it was parsed
 * from (rawfrag_record.data); they are valid as long as that record is. Arrays
 * (callchain, branch entries, regs, stack, read values, raw data) are left in the
 * file's byte order: read them with the accessors below, which swap when
 * s->swap is set. Scalar members are in host order.
 */
#ifndef __RAWFRAG_SAMPLE_H
#define __RAWFRAG_SAMPLE_H

#include <rawfrag/file.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_sample {
	uint64_t sample_type; /* of the evsel */
	bool swap; /* arrays are in foreign order */
	uint16_t misc;

	uint64_t identifier; /* IDENTIFIER */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id; /* ID (or IDENTIFIER when only that is set) */
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;

	/* READ: the read_format block, parsed */
	struct {
		const void *data; /* file order */
		uint32_t size;
		uint64_t nr; /* 1 without GROUP */
		uint64_t time_enabled, time_running;
	} read;

	/* CALLCHAIN: nr u64 ips */
	uint64_t callchain_nr;
	const void *callchain;

	/*
	 * RAW: raw_size is the u32 the kernel wrote (payload + pad); raw_data points
	 * just after it, raw_offset is raw_data's offset inside the record.
	 * raw_data is NULL when RAW is absent from sample_type.
	 */
	uint32_t raw_size;
	const uint8_t *raw_data;
	uint32_t raw_offset;

	/* BRANCH_STACK */
	uint64_t branch_nr;
	bool branch_has_hw_idx;
	uint64_t branch_hw_idx;
	const void *branch_entries; /* nr x {from, to, flags} u64 triples */

	/* REGS_USER / REGS_INTR: abi 0 = none */
	uint64_t user_regs_abi, user_regs_mask;
	const void *user_regs;
	uint32_t user_regs_nr;
	uint64_t intr_regs_abi, intr_regs_mask;
	const void *intr_regs;
	uint32_t intr_regs_nr;

	/* STACK_USER */
	uint64_t stack_size;
	const void *stack_data;
	uint64_t stack_dyn_size;

	uint64_t weight; /* WEIGHT or WEIGHT_STRUCT (as the u64) */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;

	/* AUX */
	uint64_t aux_size;
	const void *aux_data;

	/* offset inside the record where parsing ended (== header.size when valid) */
	uint32_t end_offset;
};

/*
 * Parse rec (a PERF_RECORD_SAMPLE) of evsel. Returns 0, or -EINVAL with err filled
 * in (reason names the field that did not fit). swap: the file's byte order is
 * foreign (rawfrag_file__needs_swap()).
 */
RAWFRAG_API int rawfrag_sample__parse(struct rawfrag_sample *s,
				      const struct perf_event_attr *attr,
				      const struct rawfrag_record *rec, bool swap,
				      struct rawfrag_err *err);

/*
 * The sample_id_all trailer of a non-sample kernel record: fills pid/tid/time/
 * id/stream_id/cpu/identifier of s (the others are zeroed). Returns 0 or -EINVAL.
 */
RAWFRAG_API int rawfrag_sample__parse_id_trailer(struct rawfrag_sample *s,
						 const struct perf_event_attr *attr,
						 const struct rawfrag_record *rec, bool swap,
						 struct rawfrag_err *err);

/* Size in bytes of the sample_id_all trailer for this attr. */
RAWFRAG_API uint32_t rawfrag_sample__id_trailer_size(const struct perf_event_attr *attr);

static inline uint64_t rawfrag_sample__callchain_ip(const struct rawfrag_sample *s,
						    uint64_t i)
{
	return rawfrag__get64((const uint8_t *)s->callchain + 8 * i, s->swap);
}

static inline uint64_t rawfrag_sample__user_reg(const struct rawfrag_sample *s, uint32_t i)
{
	return rawfrag__get64((const uint8_t *)s->user_regs + 8 * i, s->swap);
}

static inline uint64_t rawfrag_sample__intr_reg(const struct rawfrag_sample *s, uint32_t i)
{
	return rawfrag__get64((const uint8_t *)s->intr_regs + 8 * i, s->swap);
}

/* i-th READ value (and its id when read_format has ID, else 0) */
RAWFRAG_API int rawfrag_sample__read_value(const struct rawfrag_sample *s,
					   const struct perf_event_attr *attr, uint64_t i,
					   uint64_t *value, uint64_t *id, uint64_t *lost);

struct rawfrag_branch_entry {
	uint64_t from, to, flags;
};
/* flags as the u64 the kernel wrote (bitfield layout of the writer's ABI) */
RAWFRAG_API void rawfrag_sample__branch(const struct rawfrag_sample *s, uint64_t i,
					struct rawfrag_branch_entry *be);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_SAMPLE_H */
