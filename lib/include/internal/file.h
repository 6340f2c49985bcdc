/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The perf.data reader's core: struct rawfrag_file and struct rawfrag_evsel,
 * the reader's limits, and the services every part of the reader uses (the
 * one error, messages through the print callback, allocations kept until
 * close; file_core.c) plus inline byte-order helpers.
 *
 * The reader is layered; each part includes only the headers of the layers
 * below its own, so none depends on one above (scripts/check-layers.sh):
 *
 *   0  file.h       core: the structs, errors, messages, kept allocations
 *      attr.h       attr bytes -> host attr (needs nothing of the file)
 *   1  evsel.h      evsels, their ids and the id hash (file_evsel.c)
 *   2  features.h   feature payloads -> env and evsel names (header_features.c)
 *      compress.h   PERF_RECORD_COMPRESSED (compress.c)
 *      dir.h        a directory recording's data files (dir.c)
 *   3  header.h     file mode's header, attrs and feature sections (header.c)
 *      pipe.h       pipe mode, and the user records that describe the file (pipe.c)
 *   4  file.c       open, the record walk, close: the public rawfrag_file API
 *
 * Ownership: a rawfrag_file owns everything hanging off it: the current mmap
 * window of the data section (of each data file of a directory recording,
 * with their fds and zstd states), the feature payload buffers (read with pread, they
 * are small), every string of env (kept in f->allocs), the evsels with their
 * names and ids, the pipe read/record buffers and the zstd state. Nothing is
 * shared between files and nothing is global.
 */
#ifndef __RAWFRAG_INTERNAL_FILE_H
#define __RAWFRAG_INTERNAL_FILE_H

#include <stdarg.h>
#include <string.h>
#include <rawfrag/file.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define RF_FILE_HEADER_SIZE 104
#define RF_FILE_HEADER_OLD 72 /* header up to the feature bitmap */
#define RF_PIPE_HEADER_SIZE 16
/* data section window: bytes read ahead of the cursor into a buffer */
#define RF_READ_SIZE (256u << 10)
/* the largest window: a record and the trailer exposed with it */
#define RF_WINDOW_SIZE (16ULL << 20)
/* a record's largest size (its u16 header field) */
#define RF_MAX_RECORD 65536u
/* largest attrs/ids/feature section we allocate for */
#define RF_MAX_SECTION (256ULL << 20)
/* ids over all evsels (perf: cpus x threads x events); keeps the id hash sane */
#define RF_MAX_IDS (16u << 20)

struct rawfrag_evsel {
	struct perf_event_attr attr; /* host order, zero-extended to sizeof */
	uint32_t file_attr_size;     /* bytes the file gave for the attr */
	int idx;
	char *name;	   /* owned */
	bool name_given; /* from EVENT_DESC / EVENT_UPDATE / set_name */
	uint64_t *ids;	   /* owned, host order */
	int nr_ids;
	struct rawfrag_file *file;
};

struct rf_feat {
	uint64_t offset, size; /* file mode: the section; pipe: record offset */
	void *buf;	       /* owned copy of the payload (file order) */
};

struct rf_zstd; /* compress.c */

/*
 * One data file of a directory recording (perf record --threads writes
 * perf.data/data, with the header and the main thread's records, and a
 * data.N per ring buffer, records only). The cursor of the file being read
 * lives in struct rawfrag_file; the others' are parked here (file.c).
 */
struct rf_dsrc {
	char *path;	   /* owned, "dir/data.N" */
	const char *name; /* into path: "data.N" */
	int fd;		   /* owned, except [0]'s: that is the file's fd */
	uint64_t start, end; /* the records: [start, end) */
	uint64_t cur;
	struct rf_zstd *z;
	bool done;
};
/* bytes perf reads from one data file before it reads the next one's */
#define RF_DIR_CHUNK (2ULL << 20)
/* data.N files we open (perf writes one per ring buffer: per CPU) */
#define RF_MAX_DATA_FILES 65536

struct rawfrag_file {
	char *path;
	int fd;
	bool own_fd;
	enum rawfrag_file_mode mode;
	bool swap;
	bool force;
	rawfrag_print_fn_t print;
	void *print_ctx;
	uint64_t size; /* file size (file mode), bytes consumed (pipe mode) */

	/* file header (host order) */
	uint64_t hdr_size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t features[4];
	int interrupted; /* 1: data size 0 in the header, 2: data past the end of file */

	struct rf_feat feat[RAWFRAG_FEAT_BITS];
	struct rawfrag_env env;
	struct rawfrag_pmu_mapping *pmu_mappings; /* == env.pmu_mappings */
	struct rawfrag_pmu_cap *pmu_caps;
	const char **cmdline;

	/* allocations to free at close (env strings and the like) */
	void **allocs;
	size_t nr_allocs, cap_allocs;

	struct rawfrag_evsel **evsels;
	int nr_evsels;
	/* id -> evsel, open addressing (key 0 = empty slot: id 0 means "first") */
	struct rf_id_slot {
		uint64_t id;
		struct rawfrag_evsel *evsel;
	} *id_hash;
	uint32_t id_hash_mask;
	bool id_hash_dirty;
	uint64_t nr_ids_total;
	int id_pos, is_pos; /* perf's positions, from the first evsel */
	bool sample_id_all;

	/* file mode cursor and window (of the data file being read) */
	uint64_t cur; /* file offset of the next record */
	uint64_t src_end;  /* end of the records of the data file being read */
	uint64_t src_stop; /* <= src_end: where to look at the next data file */
	uint8_t *win; /* owned buffer of win_cap bytes, shared by a directory's files */
	uint64_t win_off, win_len, win_cap;

	/* pipe mode: buffered reader and the record copy */
	uint8_t *rdbuf;
	size_t rd_pos, rd_len, rd_cap;
	bool rd_eof;
	uint64_t rd_total; /* bytes read from the pipe so far */
	/* report -j on a pipe: the stream comes through a tee, as its reader tee_r */
	struct rf_tee *tee;
	int tee_r;
	uint8_t *rec_buf; /* 64 KiB + slack, holds one record */
	uint8_t *trailer_buf;
	size_t trailer_cap;
	bool pipe_ended; /* saw the end-of-features marker (pipe mode) */

	/* PERF_RECORD_COMPRESSED */
	struct rf_zstd *z;

	/*
	 * A directory recording: srcs[0] is data (the header's data section),
	 * then each data.N in the order perf reads them; src is the one being
	 * read. nr_srcs 0 for a plain file or a pipe.
	 */
	struct rf_dsrc *srcs;
	int nr_srcs, src;
	int dir_fd; /* the directory (-1 if none) */
	bool own_dir_fd;

	struct rawfrag_file_stats stats;
	/* per record type, out of the public stats so new types do not move them */
	uint64_t nr_records[RAWFRAG_RECORD_USER_MAX];
	struct rawfrag_err err;
};

/* file_core.c */
__attribute__((format(printf, 4, 5))) int rf_error(struct rawfrag_file *f, int64_t offset,
						     uint32_t type, const char *fmt, ...);
/*
 * rf_error() for a record's own error: type 0 is the type of a zeroed header,
 * not "no type", and is named UNKNOWN(0) like any type the library does not know.
 */
__attribute__((format(printf, 4, 5))) int rf_rec_error(struct rawfrag_file *f, int64_t offset,
							  uint32_t type, const char *fmt, ...);
__attribute__((format(printf, 3, 4))) void rf_print(const struct rawfrag_file *f,
						    enum rawfrag_print_level level,
						    const char *fmt, ...);
void *rf_keep(struct rawfrag_file *f, void *p);
char *rf_strndup(struct rawfrag_file *f, const char *s, size_t max);

/* byte order helpers for header data */
static inline uint32_t rf_u32(const void *p, bool swap)
{
	return rawfrag__get32(p, swap);
}
static inline uint64_t rf_u64(const void *p, bool swap)
{
	return rawfrag__get64(p, swap);
}

/*
 * Byte order from the first 16 bytes h: 0 host, 1 swapped, -1 not a perf.data
 * file. "PERFILE2" tells it by itself; the "PERFFILE" of perf 2.6.31 - 3.3 is
 * the same in both orders, so the header size after it tells (16: pipe, 72
 * or 104: file), as perf's try_all_*_abis() tell it from the sizes.
 */
static inline int rf_magic_swap(const void *h)
{
	uint64_t magic = rawfrag__get64(h, false);
	uint64_t size = rawfrag__get64((const uint8_t *)h + 8, false);

	if (magic == PERF_MAGIC2)
		return 0;
	if (magic == __builtin_bswap64(PERF_MAGIC2))
		return 1;
	if (memcmp(h, "PERFFILE", 8))
		return -1;
	if (size == RF_PIPE_HEADER_SIZE || size == RF_FILE_HEADER_OLD || size == RF_FILE_HEADER_SIZE)
		return 0;
	size = __builtin_bswap64(size);
	if (size == RF_PIPE_HEADER_SIZE || size == RF_FILE_HEADER_OLD || size == RF_FILE_HEADER_SIZE)
		return 1;
	return -1;
}

/* a + b <= lim without overflow */
static inline bool rf_fits(uint64_t a, uint64_t b, uint64_t lim)
{
	return a <= lim && b <= lim - a;
}

/* a file that reads nothing yet (its "none" fields -1); NULL without memory */
struct rawfrag_file *rf_file__alloc(bool force);
/* the same input opened again, quiet, for another reader (-j); NULL if it cannot be */
struct rawfrag_file *rf_file__reopen(const struct rawfrag_file *f);
/* would rf_file__reopen() find the input again (not a pipe)? */
bool rf_file__can_reopen(const struct rawfrag_file *f);
/*
 * pipe.c, report -j on a pipe: can f's stream still be read from its start
 * (all f read is in its read-ahead buffer)? rf_file__tee() makes f reader 0
 * of a tee of readers; rf_file__open_tee() opens reader r (quiet, as
 * rf_file__reopen()); rf_file__untee() makes f's reader leave.
 */
bool rf_file__can_tee(const struct rawfrag_file *f);
/*
 * What f's events sample (their sample_types or'ed) into *types: a file's
 * evsels, or a stream's HEADER_ATTR records, which come before its other
 * records (read on into the read-ahead buffer until one of those is there).
 * -EAGAIN when that cannot be told (the buffer no longer holds the start).
 */
int rf_file__sample_types(struct rawfrag_file *f, uint64_t *types);
struct rf_tee *rf_file__tee(struct rawfrag_file *f, int readers, uint64_t bound);
struct rawfrag_file *rf_file__open_tee(const struct rawfrag_file *like, struct rf_tee *t, int r);
void rf_file__untee(struct rawfrag_file *f);

#endif /* __RAWFRAG_INTERNAL_FILE_H */
