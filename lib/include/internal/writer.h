/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internals of the perf.data writer, shared by writer.c (I/O, records,
 * compression) and writer-features.c (feature payloads).
 *
 * Ownership: the writer owns its evsels (attr copy, name, ids), every feature
 * payload (feat[].data, in target order), the PMU mapping/cap lists, the output
 * buffer and the zstd context. It owns fd only when own_fd is set.
 */
#ifndef __RAWFRAG_INTERNAL_WRITER_H
#define __RAWFRAG_INTERNAL_WRITER_H

#include <rawfrag/writer.h>

#define RW_BUF_SIZE (64 * 1024)
/*
 * Records are compressed in chunks of at most this many input bytes; it is also
 * the mmap_len of HEADER_COMPRESSED, perf's decompression buffer per record.
 */
#define RW_ZCHUNK (256 * 1024)
#define RW_NAME_ALIGN 64

struct rw_buf {
	uint8_t *p;
	size_t len, cap;
	bool swap;
	bool oom;
};

struct rw_evsel {
	struct perf_event_attr attr; /* host order */
	char *name;
	uint64_t *ids;
	int nr_ids;
};

struct rw_pmu_cap {
	char *pmu, *name, *value;
};

struct rw_pmu_map {
	uint32_t type;
	char *name;
};

struct rawfrag_writer {
	int fd;
	bool own_fd;
	bool pipe;
	bool records_only; /* a data.N file: no header, no features */
	bool swap; /* target order is not the host's */
	bool big_endian;
	bool compress;
	int comp_level;
	rawfrag_print_fn_t print;
	void *print_ctx;

	bool started, finished, failed;
	struct rawfrag_err err;

	struct rw_evsel *evsels;
	int nr_evsels;
	uint32_t attr_size; /* the size every attr is written with */

	struct {
		void *data;
		size_t len;
	} feat[RAWFRAG_FEAT_LAST];
	void *tracing_data;
	size_t tracing_data_len;
	struct rw_pmu_map *pmu_maps;
	int nr_pmu_maps;
	struct rw_pmu_cap *pmu_caps;
	int nr_pmu_caps;

	/* output */
	uint8_t *buf;
	size_t buf_len;
	uint64_t off; /* file position of buf[0] + buf_len */
	uint64_t data_offset;

	/* compression: records collect in zin, then go out as COMPRESSED records */
	void *zctx;
	uint8_t *zin;
	size_t zin_len;
	uint8_t *zout;

	/* HEADER_SAMPLE_TIME: TIME's offset in every sample (0: not known) */
	uint32_t time_off;
	uint64_t first_time, last_time;
	bool have_time;
};

/* rw_buf: a growing byte buffer in target order */
void rw_buf__put(struct rw_buf *b, const void *p, size_t n);
void rw_buf__put32(struct rw_buf *b, uint32_t v);
void rw_buf__put64(struct rw_buf *b, uint64_t v);
/* perf_header_string: u32 len (strlen + 1 rounded to 64), NUL padded */
void rw_buf__put_string(struct rw_buf *b, const char *s);
/* zero bytes up to a multiple of align */
void rw_buf__pad(struct rw_buf *b, size_t align);

/* attr in host order -> attr.size bytes in target order */
void rw_attr__to_target(const struct perf_event_attr *attr, uint32_t size, bool swap,
			uint8_t *out);

int rw_fail(struct rawfrag_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rw_usage(struct rawfrag_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rw_set_feat(struct rawfrag_writer *w, int feat, struct rw_buf *b);

/* writer-features.c: payloads made from the evsels and lists before output */
int rw_build_features(struct rawfrag_writer *w);

#endif /* __RAWFRAG_INTERNAL_WRITER_H */
