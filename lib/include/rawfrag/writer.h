/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf.data writer (file or pipe mode, either byte order, optional zstd), used by
 * `perf rawfrag record` and by the tests' fixture generator. What it writes is
 * what perf 6.1 reads (Documentation/perf.data-raw-format.txt, section 4):
 * attr.size <= 128, HOSTNAME always (the byte-swap probe), ids per evsel, features
 * after the data section (file mode) or as HEADER_FEATURE records before the data (pipe
 * mode).
 *
 * Byte order: every value handed in is in host order; the writer converts it to
 * the target order, except byte strings the caller says are already in target
 * order (raw data of samples, records passed to write_record()).
 *
 * Ownership: the writer copies everything it is given; it owns its fd when it
 * opened the path itself.
 */
#ifndef __RAWFRAG_WRITER_H
#define __RAWFRAG_WRITER_H

#include <rawfrag/sample.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_writer;

struct rawfrag_writer_opts {
	size_t sz;
	bool pipe; /* pipe mode stream */
	bool big_endian; /* target byte order (default: host) */
	int fd; /* with use_fd: write here instead of path ("-" = stdout) */
	bool use_fd;
	bool compress; /* wrap data records in PERF_RECORD_COMPRESSED (zstd) */
	int comp_level;
	rawfrag_print_fn_t print;
	void *print_ctx;
	/*
	 * Records only, no header and no features: a data.N file of a directory
	 * recording (perf record --threads). No evsel needed; start() writes nothing,
	 * finish() flushes. Compression works as in a file.
	 */
	bool records_only;
};
#define rawfrag_writer_opts__last_field records_only

RAWFRAG_API struct rawfrag_writer *rawfrag_writer__new(const char *path,
						       const struct rawfrag_writer_opts *opts,
						       struct rawfrag_err *err);
/* Does not finish: call rawfrag_writer__finish() first to get a valid file. */
RAWFRAG_API void rawfrag_writer__delete(struct rawfrag_writer *w);

/* --- before start --- */
/* attr in host order (attr->size is clamped to 128); returns the evsel index */
RAWFRAG_API int rawfrag_writer__add_evsel(struct rawfrag_writer *w,
					  const struct perf_event_attr *attr, const char *name,
					  const uint64_t *ids, int nr_ids);
/*
 * One BUILD_ID feature entry (perf's build_id_event with the build-id size,
 * misc |= PERF_RECORD_MISC_BUILD_ID_SIZE): misc is the cpumode
 * (PERF_RECORD_MISC_KERNEL for the kernel and modules, else _USER), pid -1 for
 * the host, id_len 1..20, name as perf names the DSO ("[kernel.kallsyms]", a
 * path). Before start, or in file mode until finish (the features go out then):
 * the DSOs hit are known only at the end of a recording.
 */
RAWFRAG_API int rawfrag_writer__add_build_id(struct rawfrag_writer *w, uint16_t misc, int32_t pid,
					     const uint8_t *id, int id_len, const char *name);
/* string features: HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID */
RAWFRAG_API int rawfrag_writer__set_string(struct rawfrag_writer *w, int feat, const char *s);
RAWFRAG_API int rawfrag_writer__set_cmdline(struct rawfrag_writer *w, int argc,
					    const char *const *argv);
/*
 * HEADER_DIR_FORMAT (u64 version): the file is the "data" of a perf.data
 * directory; version 1 says data.N files beside it hold the ring records.
 */
RAWFRAG_API int rawfrag_writer__set_dir_format(struct rawfrag_writer *w, uint64_t version);
RAWFRAG_API int rawfrag_writer__set_nrcpus(struct rawfrag_writer *w, uint32_t avail,
					   uint32_t online);
RAWFRAG_API int rawfrag_writer__add_pmu_mapping(struct rawfrag_writer *w, uint32_t type,
						const char *name);
/* PMU_CAPS: (pmu, name, value) triples */
RAWFRAG_API int rawfrag_writer__add_pmu_cap(struct rawfrag_writer *w, const char *pmu,
					    const char *name, const char *value);
/* TRACING_DATA blob (its own byte order inside) */
RAWFRAG_API int rawfrag_writer__set_tracing_data(struct rawfrag_writer *w, const void *blob,
						 size_t len);
RAWFRAG_API int rawfrag_writer__set_clock_data(struct rawfrag_writer *w, uint32_t clockid,
					       uint64_t tod_ns, uint64_t clockid_ns);
/* Fill HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUID, CPUDESC from this machine. */
RAWFRAG_API int rawfrag_writer__set_host_features(struct rawfrag_writer *w);

/*
 * Write the header (file mode: a placeholder, finalized by finish()) or, in pipe
 * mode, the attrs, features and tracing data as records.
 */
RAWFRAG_API int rawfrag_writer__start(struct rawfrag_writer *w);

/* --- after start --- */
/* a complete record, already in target order (e.g. copied from a ring buffer) */
RAWFRAG_API int rawfrag_writer__write_record(struct rawfrag_writer *w, const void *rec,
					     size_t len);
/*
 * Synthesize a PERF_RECORD_SAMPLE for evsel idx from s (host-order scalars; every
 * array and raw_data taken as already in target order). misc = cpumode etc.
 */
RAWFRAG_API int rawfrag_writer__write_sample(struct rawfrag_writer *w, int idx,
					     const struct rawfrag_sample *s, uint16_t misc);
/* COMM / FORK / EXIT with a sample_id_all trailer from id (may be NULL: zeros) */
RAWFRAG_API int rawfrag_writer__write_comm(struct rawfrag_writer *w, uint32_t pid,
					   uint32_t tid, const char *comm, bool exec,
					   const struct rawfrag_sample *id);
RAWFRAG_API int rawfrag_writer__write_fork(struct rawfrag_writer *w, bool exit,
					   uint32_t pid, uint32_t ppid, uint32_t tid,
					   uint32_t ptid, uint64_t time,
					   const struct rawfrag_sample *id);
RAWFRAG_API int rawfrag_writer__write_mmap2(struct rawfrag_writer *w, uint16_t misc,
					    uint32_t pid, uint32_t tid, uint64_t start,
					    uint64_t len, uint64_t pgoff, uint32_t prot,
					    uint32_t flags, const char *filename,
					    const struct rawfrag_sample *id);
RAWFRAG_API int rawfrag_writer__write_lost(struct rawfrag_writer *w, uint64_t id,
					   uint64_t lost, const struct rawfrag_sample *sid);
RAWFRAG_API int rawfrag_writer__finished_round(struct rawfrag_writer *w);

/* Finalize: file mode writes features and the final header. Idempotent. */
RAWFRAG_API int rawfrag_writer__finish(struct rawfrag_writer *w);

RAWFRAG_API uint64_t rawfrag_writer__bytes(const struct rawfrag_writer *w);
RAWFRAG_API const struct rawfrag_err *rawfrag_writer__error(const struct rawfrag_writer *w);

/*
 * Build a HEADER_TRACING_DATA blob in perf's format (version 0.6: header_page,
 * header_event, formats of the given events grouped by system, printk formats,
 * saved_cmdlines) from tracefs (NULL = /sys/kernel/tracing), numbers in the given
 * byte order. events are "sys:name". On success *blob is malloc'd (caller frees).
 */
RAWFRAG_API int rawfrag_tracing_data__build(const char *tracefs, const char *const *events,
					    int nr_events, bool big_endian, void **blob,
					    size_t *len, struct rawfrag_err *err);

/*
 * Synthesize a sample record into buf in the given byte order (swap = target is
 * foreign). Returns the record size, -ENOSPC if buf is too small, -E2BIG if it
 * would exceed 65535 bytes.
 */
RAWFRAG_API int rawfrag_sample__synthesize(const struct perf_event_attr *attr,
					   const struct rawfrag_sample *s, uint16_t misc,
					   bool swap, void *buf, size_t bufsz);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_WRITER_H */
