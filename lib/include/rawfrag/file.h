/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf.data reader: file mode (a seekable file) and pipe mode (stdin or a file),
 * either byte order, PERF_RECORD_COMPRESSED (zstd) expanded transparently, and
 * directory recordings (perf record --threads: perf.data/data with the header,
 * plus data.N files of records) read as one file, in perf's order.
 *
 * Ownership: a rawfrag_file owns its mapping, its evsels and its env; every
 * pointer handed out (records, evsels, env strings, feature payloads) stays valid
 * until rawfrag_file__close(), except rawfrag_record.data, which is valid until the
 * next rawfrag_file__next() call (records from pipes and compressed payloads live
 * in a reused buffer; records of a file point into the window read ahead).
 */
#ifndef __RAWFRAG_FILE_H
#define __RAWFRAG_FILE_H

#include <linux/perf_event.h>
#include <rawfrag/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_file;
struct rawfrag_evsel;

/* perf's user record types (tools/lib/perf/include/perf/event.h), not in UAPI. */
enum rawfrag_user_record_type {
	RAWFRAG_RECORD_HEADER_ATTR = 64,
	RAWFRAG_RECORD_HEADER_EVENT_TYPE = 65,
	RAWFRAG_RECORD_HEADER_TRACING_DATA = 66,
	RAWFRAG_RECORD_HEADER_BUILD_ID = 67,
	RAWFRAG_RECORD_FINISHED_ROUND = 68,
	RAWFRAG_RECORD_ID_INDEX = 69,
	RAWFRAG_RECORD_AUXTRACE_INFO = 70,
	RAWFRAG_RECORD_AUXTRACE = 71,
	RAWFRAG_RECORD_AUXTRACE_ERROR = 72,
	RAWFRAG_RECORD_THREAD_MAP = 73,
	RAWFRAG_RECORD_CPU_MAP = 74,
	RAWFRAG_RECORD_STAT_CONFIG = 75,
	RAWFRAG_RECORD_STAT = 76,
	RAWFRAG_RECORD_STAT_ROUND = 77,
	RAWFRAG_RECORD_EVENT_UPDATE = 78,
	RAWFRAG_RECORD_TIME_CONV = 79,
	RAWFRAG_RECORD_HEADER_FEATURE = 80,
	RAWFRAG_RECORD_COMPRESSED = 81,
	RAWFRAG_RECORD_FINISHED_INIT = 82,
	RAWFRAG_RECORD_USER_MAX,
};

/* perf.data feature bits (tools/perf/util/header.h). */
enum rawfrag_feature {
	RAWFRAG_FEAT_TRACING_DATA = 1,
	RAWFRAG_FEAT_BUILD_ID = 2,
	RAWFRAG_FEAT_HOSTNAME = 3,
	RAWFRAG_FEAT_OSRELEASE = 4,
	RAWFRAG_FEAT_VERSION = 5,
	RAWFRAG_FEAT_ARCH = 6,
	RAWFRAG_FEAT_NRCPUS = 7,
	RAWFRAG_FEAT_CPUDESC = 8,
	RAWFRAG_FEAT_CPUID = 9,
	RAWFRAG_FEAT_TOTAL_MEM = 10,
	RAWFRAG_FEAT_CMDLINE = 11,
	RAWFRAG_FEAT_EVENT_DESC = 12,
	RAWFRAG_FEAT_CPU_TOPOLOGY = 13,
	RAWFRAG_FEAT_NUMA_TOPOLOGY = 14,
	RAWFRAG_FEAT_BRANCH_STACK = 15,
	RAWFRAG_FEAT_PMU_MAPPINGS = 16,
	RAWFRAG_FEAT_GROUP_DESC = 17,
	RAWFRAG_FEAT_AUXTRACE = 18,
	RAWFRAG_FEAT_STAT = 19,
	RAWFRAG_FEAT_CACHE = 20,
	RAWFRAG_FEAT_SAMPLE_TIME = 21,
	RAWFRAG_FEAT_MEM_TOPOLOGY = 22,
	RAWFRAG_FEAT_CLOCKID = 23,
	RAWFRAG_FEAT_DIR_FORMAT = 24,
	RAWFRAG_FEAT_BPF_PROG_INFO = 25,
	RAWFRAG_FEAT_BPF_BTF = 26,
	RAWFRAG_FEAT_COMPRESSED = 27,
	RAWFRAG_FEAT_CPU_PMU_CAPS = 28,
	RAWFRAG_FEAT_CLOCK_DATA = 29,
	RAWFRAG_FEAT_HYBRID_TOPOLOGY = 30,
	RAWFRAG_FEAT_PMU_CAPS = 31,
	RAWFRAG_FEAT_LAST = 32, /* perf 6.1's HEADER_LAST_FEATURE */
	RAWFRAG_FEAT_BITS = 256,
};

struct rawfrag_pmu_mapping {
	uint32_t type;
	const char *name;
};

struct rawfrag_pmu_cap {
	const char *pmu; /* "" for CPU_PMU_CAPS */
	const char *name;
	const char *value;
};

/* HEADER_GROUP_DESC: an event group, its members leader_idx .. leader_idx + nr_members - 1 */
struct rawfrag_group_desc {
	const char *name; /* "{anon_group}" for a group without a name */
	uint32_t leader_idx;
	uint32_t nr_members;
};

/*
 * What the feature sections (or, in pipe mode, the HEADER_FEATURE and
 * TRACING_DATA records) said. Strings are NULL when absent. All numbers are in
 * host order.
 */
struct rawfrag_env {
	const char *hostname;
	const char *osrelease;
	const char *version;
	const char *arch; /* as recorded, e.g. "x86_64", "s390x" */
	const char *cpudesc;
	const char *cpuid; /* e.g. "AuthenticAMD,25,17,1" */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;
	int nr_cmdline;
	const char **cmdline;
	int nr_pmu_mappings;
	const struct rawfrag_pmu_mapping *pmu_mappings;
	int nr_pmu_caps;
	const struct rawfrag_pmu_cap *pmu_caps;
	/* HEADER_TRACING_DATA blob (file order inside, as the blob says) */
	const void *tracing_data;
	uint64_t tracing_data_size;
	/* HEADER_COMPRESSED */
	bool has_compressed;
	uint32_t comp_type, comp_level, comp_ratio, comp_mmap_len;
	/* HEADER_CLOCK_DATA */
	bool has_clock_data;
	uint32_t clockid;
	uint64_t clock_tod_ns, clock_clockid_ns;
	/* HEADER_SAMPLE_TIME */
	uint64_t first_sample_time, last_sample_time;
	/* HEADER_CLOCKID (resolution) */
	uint64_t clockid_res_ns;
	/* HEADER_GROUP_DESC (appended in 0.4: the struct only grows at its end) */
	int nr_groups;
	const struct rawfrag_group_desc *groups;
};

enum rawfrag_file_mode {
	RAWFRAG_MODE_FILE,
	RAWFRAG_MODE_PIPE,
};

struct rawfrag_file_opts {
	size_t sz;
	/* messages (warnings about skipped features etc.) */
	rawfrag_print_fn_t print;
	void *print_ctx;
	/* go on past a bad record when the framing still allows; counted in stats */
	bool force;
	/* read this fd instead of opening path ("-" also means stdin) */
	int fd;
	bool use_fd;
};
#define rawfrag_file_opts__last_field use_fd

/*
 * Open a perf.data file (file or pipe mode; path "-" = stdin) or directory
 * (perf record --threads or --kcore; opts.fd may be the directory's). On
 * failure returns NULL, sets errno and, if err is non-NULL, fills it in.
 */
RAWFRAG_API struct rawfrag_file *
rawfrag_file__open(const char *path, const struct rawfrag_file_opts *opts,
		   struct rawfrag_err *err);
RAWFRAG_API void rawfrag_file__close(struct rawfrag_file *f);

RAWFRAG_API const char *rawfrag_file__path(const struct rawfrag_file *f);
RAWFRAG_API enum rawfrag_file_mode rawfrag_file__mode(const struct rawfrag_file *f);
/* true when the file was written in the other byte order */
RAWFRAG_API bool rawfrag_file__needs_swap(const struct rawfrag_file *f);
RAWFRAG_API bool rawfrag_file__big_endian(const struct rawfrag_file *f);
RAWFRAG_API uint64_t rawfrag_file__data_offset(const struct rawfrag_file *f);
RAWFRAG_API uint64_t rawfrag_file__data_size(const struct rawfrag_file *f);
/*
 * The files records are read from: 1 for a file or a pipe; for a directory,
 * its data file (index 0: the header's data section, which data_offset and
 * data_size describe) and each data.N, in the order perf reads them.
 * rawfrag_record.data_file is the index of a record's file; an error at an
 * offset of one of them names it at the start of the reason.
 */
RAWFRAG_API int rawfrag_file__nr_data_files(const struct rawfrag_file *f);
/* its path (for a directory "dir/data", "dir/data.N"), NULL if idx is out of range */
RAWFRAG_API const char *rawfrag_file__data_file_path(const struct rawfrag_file *f, int idx);
RAWFRAG_API bool rawfrag_file__has_feature(const struct rawfrag_file *f, int feat);
/* raw payload of a feature section (file order); NULL if absent */
RAWFRAG_API const void *rawfrag_file__feature(const struct rawfrag_file *f, int feat,
					      uint64_t *size);
RAWFRAG_API const struct rawfrag_env *rawfrag_file__env(const struct rawfrag_file *f);

/* The last error of this file (after a failing call). */
RAWFRAG_API const struct rawfrag_err *rawfrag_file__error(const struct rawfrag_file *f);

/* ---- evsels ---- */

RAWFRAG_API int rawfrag_file__nr_evsels(const struct rawfrag_file *f);
RAWFRAG_API struct rawfrag_evsel *rawfrag_file__evsel(const struct rawfrag_file *f, int idx);

/* attr in host order (swapped and bit-reversed flags undone for foreign files) */
RAWFRAG_API const struct perf_event_attr *rawfrag_evsel__attr(const struct rawfrag_evsel *e);
/* name from EVENT_DESC / EVENT_UPDATE / tracing data, else a generated one */
RAWFRAG_API const char *rawfrag_evsel__name(const struct rawfrag_evsel *e);
/* replace the name (e.g. "sys:name" from the tracing data); the file copies it */
RAWFRAG_API int rawfrag_evsel__set_name(struct rawfrag_evsel *e, const char *name);
RAWFRAG_API int rawfrag_evsel__idx(const struct rawfrag_evsel *e);
RAWFRAG_API int rawfrag_evsel__nr_ids(const struct rawfrag_evsel *e);
RAWFRAG_API const uint64_t *rawfrag_evsel__ids(const struct rawfrag_evsel *e);
/* name of the PMU with attr.type from PMU_MAPPINGS (or the generic types), or NULL */
RAWFRAG_API const char *rawfrag_evsel__pmu_name(const struct rawfrag_evsel *e);

/* ---- records ---- */

struct rawfrag_record {
	/* header fields in host order */
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	/* the whole record including its header, in the file's byte order */
	const void *data;
	/*
	 * File offset of the record; for records unpacked from a COMPRESSED record,
	 * the offset of that COMPRESSED record (and in_compressed is set).
	 */
	uint64_t offset;
	bool in_compressed;
	/*
	 * The data file offset is in (rawfrag_file__data_file_path()); 0 but in
	 * a directory recording. In what was padding: the size is unchanged.
	 */
	uint32_t data_file;
	/* for HEADER_TRACING_DATA / AUXTRACE: bytes following the record (file order) */
	const void *trailer;
	uint64_t trailer_size;
};

/*
 * Next record of the data section (file mode) or stream (pipe mode).
 * Returns 1 and fills rec, 0 at the end, -errno on error (rawfrag_file__error()).
 * COMPRESSED records are not returned: their contents are. User records that
 * describe the file in pipe mode (HEADER_ATTR, HEADER_FEATURE, TRACING_DATA,
 * EVENT_UPDATE) are applied to the file's evsels/env before being returned.
 * With opts.force, a record whose size is impossible but whose framing still
 * allows going on is counted in stats and skipped.
 */
RAWFRAG_API int rawfrag_file__next(struct rawfrag_file *f, struct rawfrag_record *rec);

/* Rewind to the first record (file mode only; -ESPIPE in pipe mode). */
RAWFRAG_API int rawfrag_file__rewind(struct rawfrag_file *f);

/*
 * The evsel a record belongs to, found by IDENTIFIER/ID (sample records) or the
 * sample_id_all trailer (other kernel records), as perf does: one evsel → it;
 * id 0 → the first evsel. NULL (errno ENOENT) for an unknown id.
 */
RAWFRAG_API struct rawfrag_evsel *rawfrag_file__evsel_of(const struct rawfrag_file *f,
							 const struct rawfrag_record *rec);

/*
 * Counts over the records read so far. Fields are only ever appended; counts per
 * record type are behind rawfrag_file__nr_records() so that a new type does not
 * change this layout.
 */
struct rawfrag_file_stats {
	uint64_t nr_other_records; /* types >= RAWFRAG_RECORD_USER_MAX */
	uint64_t nr_skipped; /* with force */
	uint64_t bytes_skipped;
	uint64_t nr_lost_records; /* PERF_RECORD_LOST count */
	uint64_t nr_lost; /* sum of lost events in PERF_RECORD_LOST */
	uint64_t nr_lost_samples; /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t nr_compressed_bytes, nr_decompressed_bytes;
};
RAWFRAG_API const struct rawfrag_file_stats *rawfrag_file__stats(const struct rawfrag_file *f);
/* records of this type read so far (0 for types this library does not know) */
RAWFRAG_API uint64_t rawfrag_file__nr_records(const struct rawfrag_file *f, uint32_t type);

/* ---- byte order helpers for decoders (data in file order) ---- */

static inline uint16_t rawfrag__get16(const void *p, bool swap)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}
static inline uint32_t rawfrag__get32(const void *p, bool swap)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t rawfrag__get64(const void *p, bool swap)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_FILE_H */
