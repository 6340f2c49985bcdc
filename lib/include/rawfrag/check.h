/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Raw-layout checker: the kernel's rules for a PERF_SAMPLE_RAW area
 * (Documentation/perf.data-raw-format.txt, "The RAW area"), applied to every sample
 * that has RAW, plus each producer's own rules.
 *
 * Generic kinds (stable ids, shown in tables and JSON):
 *   sample_parse     the sample does not parse (a field crosses header.size)
 *   raw_size_align   raw_size % 8 != 4
 *   raw_outside      the raw area reaches past header.size
 *   raw_trailing     the fields after RAW do not end exactly at header.size
 *   raw_empty_nonzero  raw_size 4 but the word is not zero (warning: BPF zero-length
 *                    output leaves it unwritten)
 *   size_wrapped     header.size looks wrapped past 64 KiB (raw_size > header.size)
 *   pad_range        pad = raw_size - len outside 0..7
 *   pad_nonzero      pad bytes not zero (stale ring data; warning, error with strict)
 * Producers add their own kinds (prefixed with the producer: "tp_common_type", ...).
 *
 * Ownership: the checker owns its statistics and the violation examples it keeps.
 */
#ifndef __RAWFRAG_CHECK_H
#define __RAWFRAG_CHECK_H

#include <rawfrag/decoder.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_checker;

/* Severity of a check finding. */
enum rawfrag_severity {
	RAWFRAG_SEV_WARN, /* reported, exit 0 unless --strict */
	RAWFRAG_SEV_ERROR, /* a violation: exit 1 */
};

struct rawfrag_check_opts {
	size_t sz;
	/* pad_nonzero becomes an error */
	bool strict;
	/*
	 * how many violation examples to keep (0 = default 20, -1 = all); the
	 * first sample_parse error is kept past the limit
	 */
	int max_examples;
};
#define rawfrag_check_opts__last_field max_examples

#define RAWFRAG_CHECK_SIZE_BUCKETS 17 /* log2 buckets of raw_size: [0,1],[2,3],... 64K */

struct rawfrag_check_kind_count {
	const char *kind;
	enum rawfrag_severity sev;
	uint64_t count;
};

/* Per-evsel figures. */
struct rawfrag_check_evstats {
	uint64_t samples; /* samples of this evsel */
	uint64_t raw_samples; /* ... with RAW */
	uint64_t raw_bytes; /* sum of raw_size */
	uint64_t size_hist[RAWFRAG_CHECK_SIZE_BUCKETS];
	uint64_t pad_hist[8]; /* by pad length, where the length is known */
	uint64_t pad_unknown; /* length not known to the decoder */
	uint64_t pad_zero, pad_stale; /* samples whose pad bytes are all zero / not */
	uint64_t empty; /* the no-data form */
	uint64_t errors, warnings;
	int nr_kinds;
	const struct rawfrag_check_kind_count *kinds;
	/* first example offsets of stale pad (file offsets of records) */
	int nr_stale_examples;
	const uint64_t *stale_examples;
};

struct rawfrag_violation {
	uint64_t rec_offset; /* file offset of the record */
	bool in_compressed;
	int64_t raw_off; /* offset inside the raw area, -1 if n/a */
	int evsel_idx;
	const char *kind;
	enum rawfrag_severity sev;
	const char *message;
};

/* NULL with errno set and err (may be NULL) filled in on failure */
RAWFRAG_API struct rawfrag_checker *rawfrag_checker__new(struct rawfrag_session *s,
							 const struct rawfrag_check_opts *opts,
							 struct rawfrag_err *err);
RAWFRAG_API void rawfrag_checker__delete(struct rawfrag_checker *c);

/*
 * Check one record. Non-sample records are ignored (return 0). Samples that do not
 * parse are a sample_parse violation (the parse error's reason is the message).
 * Returns the number of errors found in this record (0 = clean), or -errno.
 * smp may be NULL (the checker parses rec itself).
 */
RAWFRAG_API int rawfrag_checker__record(struct rawfrag_checker *c,
					const struct rawfrag_record *rec,
					const struct rawfrag_sample *smp);

RAWFRAG_API const struct rawfrag_check_evstats *
rawfrag_checker__evstats(const struct rawfrag_checker *c, int evsel_idx);
RAWFRAG_API uint64_t rawfrag_checker__nr_errors(const struct rawfrag_checker *c);
RAWFRAG_API uint64_t rawfrag_checker__nr_warnings(const struct rawfrag_checker *c);
RAWFRAG_API int rawfrag_checker__nr_violations(const struct rawfrag_checker *c);
/*
 * Samples that parsed, by their PERF_SAMPLE_CPU (CPUs below
 * RAWFRAG_CHECK_MAX_CPUS), and the highest CPU counted (-1: none).
 */
#define RAWFRAG_CHECK_MAX_CPUS 4096
RAWFRAG_API uint64_t rawfrag_checker__cpu_samples(const struct rawfrag_checker *c, uint32_t cpu);
RAWFRAG_API int rawfrag_checker__max_cpu(const struct rawfrag_checker *c);
RAWFRAG_API const struct rawfrag_violation *
rawfrag_checker__violation(const struct rawfrag_checker *c, int i);

/*
 * The violations of one sample alone, without a checker's figures: the kernel's
 * RAW rules and the producer's own, each handed to fn (message valid during the
 * call; rec_offset/evsel_idx filled in). strict: pad_nonzero is an error.
 * Returns the number of errors (0 = clean; warnings are not counted), or -errno.
 */
typedef void (*rawfrag_violation_fn_t)(void *ctx, const struct rawfrag_violation *v);
RAWFRAG_API int rawfrag_session__sample_violations(struct rawfrag_session *s,
						   const struct rawfrag_evsel *evsel,
						   const struct rawfrag_record *rec,
						   const struct rawfrag_sample *smp, bool strict,
						   rawfrag_violation_fn_t fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_CHECK_H */
