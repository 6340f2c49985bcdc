// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data reader: open/close, accessors and the record walk of file mode;
 * the top of the reader's layers (internal/file.h), over header, pipe and
 * compress.
 *
 * The data section is read into a window buffer (RF_READ_SIZE bytes ahead of
 * the cursor, refilled when a record would cross its end), so memory does not
 * grow with the file: records point into the window and stay valid until the
 * next rawfrag_file__next().
 *
 * A directory recording (dir.c) is read as perf reads it: RF_DIR_CHUNK bytes
 * of records from one data file (data's data section, then each data.N), then
 * as much from the next one that has records left, round and round, each file
 * with its own cursor and zstd stream. The ordering queue downstream sorts
 * them (perf record --threads writes no FINISHED_ROUND). The files share one
 * window buffer, read again at each turn.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/attr.h"
#include "internal/compress.h"
#include "internal/dir.h"
#include "internal/evsel.h"
#include "internal/file.h"
#include "internal/header.h"
#include "internal/opts.h"
#include "internal/pipe.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- records ---- */

/* smallest valid size of the records whose body we read here */
static uint32_t min_size(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_LOST:
		return 24;
	case PERF_RECORD_LOST_SAMPLES:
		return 16;
	case RAWFRAG_RECORD_HEADER_ATTR:
		return 8 + RF_ATTR_VER0;
	case RAWFRAG_RECORD_HEADER_TRACING_DATA:
		/* header and u32 size; the u32 pad came later (12-byte records from older perf) */
		return 12;
	case RAWFRAG_RECORD_HEADER_FEATURE:
		return 16;
	case RAWFRAG_RECORD_EVENT_UPDATE:
		return 24;
	case RAWFRAG_RECORD_AUXTRACE:
		return 16;
	default:
		return 8;
	}
}

/*
 * The error in f->err is about rec, whose framing is intact: with opts.force,
 * count it, tell the print callback and go on (1); else fail (-EINVAL).
 */
static int skip_bad(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	char buf[512];

	if (!f->force || f->err.err != -EINVAL)
		return f->err.err ? f->err.err : -EINVAL;
	f->stats.nr_skipped++;
	f->stats.bytes_skipped += rec->size + rec->trailer_size;
	rf_print(f, RAWFRAG_WARN, "rawfrag: %s (skipped)\n",
		 rawfrag_err__format(&f->err, f->path, buf, sizeof(buf)));
	memset(&f->err, 0, sizeof(f->err));
	return 1;
}

/*
 * Type/size checks and stats of a framed record. Returns 0, 1 when the record
 * is skipped (opts.force) or -EINVAL with the error set.
 */
static int rf_record__account(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	struct rawfrag_file_stats *st = &f->stats;
	const uint8_t *d = rec->data;
	uint32_t min = min_size(rec->type);

	if (rec->type >= RAWFRAG_RECORD_USER_MAX) {
		rf_rec_error(f, (int64_t)rec->offset, rec->type, "unknown record type %u (size %u)",
			 rec->type, rec->size);
		goto bad;
	}
	if (rec->size < min) {
		rf_rec_error(f, (int64_t)rec->offset, rec->type, "record size %u < %u", rec->size, min);
		goto bad;
	}
	if (rec->type < ARRAY_LEN(f->nr_records))
		f->nr_records[rec->type]++;
	else
		st->nr_other_records++;
	if (rec->type == PERF_RECORD_LOST) {
		st->nr_lost_records++;
		st->nr_lost += rf_u64(d + 16, f->swap);
	} else if (rec->type == PERF_RECORD_LOST_SAMPLES) {
		st->nr_lost_samples += rf_u64(d + 8, f->swap);
	}
	return 0;
bad:
	return skip_bad(f, rec);
}

/* [off, off + len) is inside the current window */
static inline bool in_window(const struct rawfrag_file *f, uint64_t off, uint64_t len)
{
	return f->win && off >= f->win_off && len <= f->win_len &&
	       off - f->win_off <= f->win_len - len;
}

/*
 * Make [off, off + len) of the data section addressable: read into the window
 * buffer, RF_READ_SIZE bytes at a time (a long trailer's length when that is
 * more), the bytes of the old window still ahead of off moved to its front.
 * Reading beats mapping the file: on a virtual machine every page mapped,
 * populated and dropped cost more than copying it (a 300 MB file was walked
 * 4x faster with pread() into a buffer that stays in the cache).
 */
static int map_window(struct rawfrag_file *f, uint64_t off, uint64_t len)
{
	uint64_t end = f->src_end, want = RF_READ_SIZE, keep = 0, cap;

	if (in_window(f, off, len))
		return 0;
	if (want < len)
		want = len;
	/*
	 * A directory's data file is read RF_DIR_CHUNK bytes a turn: read up to
	 * the turn's end and a record past it, not a buffer's worth the next
	 * turn reads again.
	 */
	if (f->nr_srcs && off < f->src_stop && f->src_stop - off + RF_MAX_RECORD < want)
		want = f->src_stop - off + RF_MAX_RECORD > len ? f->src_stop - off + RF_MAX_RECORD :
								  len;
	if (want > end - off)
		want = end - off; /* the callers checked that len fits */
	if (f->win && off >= f->win_off && off - f->win_off < f->win_len) {
		keep = f->win_len - (off - f->win_off);
		if (keep > want)
			keep = want;
		memmove(f->win, f->win + (off - f->win_off), keep);
	}
	/* grown for a long trailer, shrunk back after it */
	cap = want > RF_READ_SIZE ? want : RF_READ_SIZE;
	if (cap > f->win_cap || (f->win_cap > RF_READ_SIZE && cap == RF_READ_SIZE)) {
		uint8_t *p = realloc(f->win, cap);

		if (!p) {
			f->win_len = 0;
			rf_error(f, (int64_t)off, 0, "DATA: out of memory for a %" PRIu64 "-byte read",
				 cap);
			f->err.err = -ENOMEM;
			return -ENOMEM;
		}
		f->win = p;
		f->win_cap = cap;
	}
	f->win_off = off;
	f->win_len = keep;
	while (f->win_len < want) {
		ssize_t n = pread(f->fd, f->win + f->win_len, want - f->win_len,
				  (off_t)(off + f->win_len));
		int e = n < 0 ? errno : EIO;

		if (n > 0) {
			f->win_len += (uint64_t)n;
			continue;
		}
		if (n < 0 && e == EINTR)
			continue;
		if (f->win_len >= len)
			break;
		f->win_len = 0;
		rf_error(f, (int64_t)off, 0, "DATA: cannot read the data section: %s",
			 n < 0 ? strerror(e) : "the file ends early (truncated while read?)");
		f->err.err = -e;
		return -e;
	}
	return 0;
}

/* bytes of a HEADER_TRACING_DATA / AUXTRACE record that follow it */
static uint64_t trailer_size(const struct rawfrag_file *f, uint32_t type, const uint8_t *d,
			     uint16_t size)
{
	if (type == RAWFRAG_RECORD_HEADER_TRACING_DATA && size >= 12)
		return rf_u32(d + 8, f->swap);
	if (type == RAWFRAG_RECORD_AUXTRACE && size >= 16)
		return rf_u64(d + 8, f->swap);
	return 0;
}

static int file_next_raw(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	uint64_t end = f->src_end, off = f->cur, left, tsz;
	const uint8_t *d;
	int err;

	if (off >= end)
		return 0;
	left = end - off;
	if (left < 8)
		return rf_error(f, (int64_t)off, 0,
				"DATA: truncated record header (%" PRIu64 " bytes left in the data section)",
				left);
	/* the test inline: records are nearly always inside the window */
	err = in_window(f, off, 8) ? 0 : map_window(f, off, 8);
	if (err)
		return err;
	d = f->win + (off - f->win_off);
	memset(rec, 0, sizeof(*rec));
	rec->type = rf_u32(d, f->swap);
	rec->misc = rawfrag__get16(d + 4, f->swap);
	rec->size = rawfrag__get16(d + 6, f->swap);
	rec->offset = off;
	rec->data_file = (uint32_t)f->src;
	if (rec->size < 8)
		return rf_rec_error(f, (int64_t)off, rec->type, "record size %u < 8", rec->size);
	if (rec->size > left)
		return rf_rec_error(f, (int64_t)off, rec->type,
				"record size %u beyond the end of the data section (0x%" PRIx64 ")",
				rec->size, end);
	err = in_window(f, off, rec->size) ? 0 : map_window(f, off, rec->size);
	if (err)
		return err;
	d = f->win + (off - f->win_off);
	rec->data = d;
	tsz = trailer_size(f, rec->type, d, rec->size);
	if (tsz) {
		if (tsz > left - rec->size)
			return rf_rec_error(f, (int64_t)off, rec->type,
					"%" PRIu64 " bytes following the record run past the end "
					"of the data section (0x%" PRIx64 ")",
					tsz, end);
		rec->trailer_size = tsz;
		/* expose the trailer only when it fits in the largest window */
		if (rec->size + tsz <= RF_WINDOW_SIZE) {
			err = map_window(f, off, rec->size + tsz);
			if (err)
				return err;
			rec->data = f->win + (off - f->win_off);
			rec->trailer = (const uint8_t *)rec->data + rec->size;
		}
	}
	f->cur = off + rec->size + tsz;
	return 1;
}

/*
 * The file state an accounted record changes. 1: hand it out, 0: skipped
 * (opts.force), < 0: error.
 */
static int apply_record(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	/* only perf's own (user) records change the file's state */
	int r = rec->type >= RAWFRAG_RECORD_HEADER_ATTR ? rf_record__apply(f, rec) : 0;

	if (r < 0 && skip_bad(f, rec) == 1)
		return 0;
	return r < 0 ? r : 1;
}

/* how far ahead file_next_fast() asks for the bytes (measured: 1 KiB best) */
#define RF_PREFETCH_AHEAD 1024

/*
 * The common record of a file, checked and counted as the long way would: a
 * kernel record of at least 8 bytes, not LOST/LOST_SAMPLES (their bodies are
 * counted), inside the window. 1 with rec
 * filled, 0: take the long way.
 */

static inline int file_next_fast(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	uint64_t off = f->cur, left = f->src_end - off, done;
	const uint8_t *d;
	uint32_t type;
	uint16_t size;

	/* src_stop <= src_end: below it, left is the bytes to the end */
	if (f->mode != RAWFRAG_MODE_FILE || f->z || f->swap || off >= f->src_stop ||
	    left < 8 || !in_window(f, off, 8))
		return 0;
	done = off - f->win_off;
	d = f->win + done;
	/* the bytes a few records ahead asked for early (a prefetch past the buffer does not fault) */
	__builtin_prefetch(d + RF_PREFETCH_AHEAD);
	memcpy(&type, d, 4);
	memcpy(&size, d + 6, 2);
	if (type >= RAWFRAG_RECORD_HEADER_ATTR || type == PERF_RECORD_LOST ||
	    type == PERF_RECORD_LOST_SAMPLES || size < 8 || size > left ||
	    !in_window(f, off, size))
		return 0;
	*rec = (struct rawfrag_record){
		.type = type,
		.misc = rawfrag__get16(d + 4, false),
		.size = size,
		.data = d,
		.offset = off,
		.data_file = (uint32_t)f->src,
	};
	f->nr_records[type]++;
	f->cur = off + size;
	return 1;
}

/* ---- directory recordings ---- */

/* the cursor of the data file being read back into its slot */
static void park_src(struct rawfrag_file *f)
{
	struct rf_dsrc *s = &f->srcs[f->src];

	s->cur = f->cur;
	s->z = f->z;
}

/* data file i is read next, RF_DIR_CHUNK bytes of it at most */
static void load_src(struct rawfrag_file *f, int i)
{
	const struct rf_dsrc *s = &f->srcs[i];

	f->src = i;
	f->fd = s->fd;
	f->cur = s->cur;
	f->z = s->z;
	f->src_end = s->end;
	f->src_stop = s->end - s->cur > RF_DIR_CHUNK ? s->cur + RF_DIR_CHUNK : s->end;
}

/* the window holds another data file's bytes: read again at the next turn */
static void leave_src(struct rawfrag_file *f)
{
	f->win_len = 0;
}

/* the first data file after the one read (round and round) with records left, or -1 */
static int next_src(const struct rawfrag_file *f)
{
	int k, i;

	for (k = 1; k <= f->nr_srcs; k++) {
		i = (f->src + k) % f->nr_srcs;
		if (!f->srcs[i].done)
			return i;
	}
	return -1;
}

/*
 * The next record of a directory recording, read as perf reads them: a data
 * file's records until RF_DIR_CHUNK bytes are read (the record that passes it
 * included), then the next file's. The records a COMPRESSED record holds are
 * all taken before (file_next_slow()), as perf delivers them before it moves.
 */
static int dir_next_raw(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	int r, i;

	for (;;) {
		if (f->cur < f->src_stop)
			return file_next_raw(f, rec);
		if (f->cur >= f->src_end) {
			if (f->z) {
				r = rf_zstd__finish(f);
				if (r)
					return r;
			}
			f->srcs[f->src].done = true;
		}
		i = next_src(f);
		if (i != f->src)
			leave_src(f);
		park_src(f);
		if (i < 0)
			return 0;
		load_src(f, i);
	}
}

/* the first record is next: of the data section, or of a directory's data file */
static void start_reading(struct rawfrag_file *f)
{
	f->cur = f->data_offset;
	f->src_end = f->src_stop = f->data_offset + f->data_size;
	if (f->nr_srcs)
		load_src(f, 0);
}

static __attribute__((noinline)) int file_next_slow(struct rawfrag_file *f,
						    struct rawfrag_record *rec)
{
	int r;

	for (;;) {
		if (f->z) {
			r = rf_zstd__next(f, rec);
			if (r < 0)
				return r;
			if (r == 1) {
				rec->data_file = (uint32_t)f->src;
				r = rf_record__account(f, rec);
				if (r < 0)
					return r;
				if (r == 1)
					continue;
				r = apply_record(f, rec);
				if (r == 0)
					continue;
				return r;
			}
		}
		if (f->nr_srcs)
			r = dir_next_raw(f, rec);
		else if (f->mode == RAWFRAG_MODE_FILE)
			r = file_next_raw(f, rec);
		else
			r = rf_pipe__next_raw(f, rec);
		if (r == 0 && f->z)
			return rf_zstd__finish(f);
		if (r <= 0)
			return r;
		r = rf_record__account(f, rec);
		if (r < 0)
			return r;
		if (r == 1)
			continue;
		if (rec->type == RAWFRAG_RECORD_COMPRESSED) {
			f->stats.nr_compressed_bytes += rec->size - 8u;
			r = rf_zstd__feed(f, rec);
			if (r < 0)
				return r;
			continue;
		}
		r = apply_record(f, rec);
		if (r == 0)
			continue;
		return r;
	}
}

RAWFRAG_API int rawfrag_file__next(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	if (!f || !rec)
		return -EINVAL;
	if (f->err.err)
		return f->err.err; /* a failed walk does not resume */
	/* the fast path without the long way's frame */
	if (file_next_fast(f, rec))
		return 1;
	return file_next_slow(f, rec);
}

RAWFRAG_API int rawfrag_file__rewind(struct rawfrag_file *f)
{
	int i;

	if (!f)
		return -EINVAL;
	if (f->mode != RAWFRAG_MODE_FILE)
		return -ESPIPE;
	if (f->nr_srcs)
		park_src(f);
	for (i = 0; i < f->nr_srcs; i++) {
		struct rf_dsrc *s = &f->srcs[i];

		s->cur = s->start;
		s->done = false;
		f->z = s->z;
		rf_zstd__reset(f);
	}
	f->win_len = 0;
	start_reading(f);
	memset(&f->stats, 0, sizeof(f->stats));
	memset(f->nr_records, 0, sizeof(f->nr_records));
	memset(&f->err, 0, sizeof(f->err));
	rf_zstd__reset(f);
	return 0;
}

/* ---- open / close ---- */

static int open_input(struct rawfrag_file *f, const char *path, const struct rawfrag_file_opts *opts)
{
	if (RAWFRAG_OPTS_GET(opts, use_fd, false)) {
		f->fd = opts->fd;
	} else if (!strcmp(path, "-")) {
		f->fd = STDIN_FILENO;
	} else {
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0) {
			int e = errno;

			rf_error(f, -1, 0, "%s", strerror(e));
			f->err.err = -e;
			return -e;
		}
		f->own_fd = true;
	}
	return 0;
}

/* pipe format: magic + size 16, also accepted in a regular file */
static bool is_pipe_header(const uint8_t *h)
{
	int swap = rf_magic_swap(h);

	return swap >= 0 && rf_u64(h + 8, swap) == RF_PIPE_HEADER_SIZE;
}

struct rawfrag_file *rf_file__alloc(bool force)
{
	struct rawfrag_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = f->dir_fd = -1;
	f->force = force;
	f->id_pos = f->is_pos = -1;
	return f;
}

RAWFRAG_API struct rawfrag_file *rawfrag_file__open(const char *path,
						    const struct rawfrag_file_opts *opts,
						    struct rawfrag_err *err)
{
	struct rawfrag_file *f;
	uint8_t h[16];
	struct stat st;
	int ret;

	if (RF_OPTS_CHECK(opts, rawfrag_file_opts, err))
		return NULL;
	f = rf_file__alloc(RAWFRAG_OPTS_GET(opts, force, false));
	if (!f) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->err = -ENOMEM;
			err->offset = -1;
		}
		errno = ENOMEM;
		return NULL;
	}
	f->print = RAWFRAG_OPTS_GET(opts, print, NULL);
	f->print_ctx = RAWFRAG_OPTS_GET(opts, print_ctx, NULL);
	if (!path)
		path = RAWFRAG_OPTS_GET(opts, use_fd, false) ? "<fd>" : "-";
	f->path = strdup(path);
	if (!f->path) {
		ret = rf_error(f, -1, 0, "out of memory");
		goto fail;
	}
	ret = open_input(f, path, opts);
	if (ret)
		goto fail;
	if (fstat(f->fd, &st)) {
		ret = rf_error(f, -1, 0, "%s", strerror(errno));
		goto fail;
	}
	/* perf record --threads (or --kcore): the header is in the directory's data */
	if (S_ISDIR(st.st_mode)) {
		ret = rf_dir__open_data(f);
		if (ret || fstat(f->fd, &st)) {
			ret = ret ? ret : rf_error(f, -1, 0, "data: %s", strerror(errno));
			goto fail;
		}
	}
	if (S_ISREG(st.st_mode) && st.st_size >= 16 && pread(f->fd, h, 16, 0) == 16 &&
	    !is_pipe_header(h)) {
		f->mode = RAWFRAG_MODE_FILE;
		f->size = (uint64_t)st.st_size;
		ret = rf_header__read(f);
		if (!ret)
			ret = rf_dir__open_files(f);
		start_reading(f);
	} else {
		f->mode = RAWFRAG_MODE_PIPE;
		/* a regular file in pipe format is read from its start */
		if (S_ISREG(st.st_mode))
			lseek(f->fd, 0, SEEK_SET);
		ret = rf_pipe__open(f);
	}
	if (ret)
		goto fail;
	if (rf_build_id_hash(f)) {
		ret = rf_error(f, -1, 0, "out of memory");
		goto fail;
	}
	return f;
fail:
	if (err)
		*err = f->err;
	errno = f->err.err ? -f->err.err : -ret;
	rawfrag_file__close(f);
	return NULL;
}

RAWFRAG_API void rawfrag_file__close(struct rawfrag_file *f)
{
	size_t i;
	int k;

	if (!f)
		return;
	rf_file__untee(f); /* the tee's other readers go on without it */
	if (f->nr_srcs) {
		park_src(f);
		for (k = 0; k < f->nr_srcs; k++) {
			f->z = f->srcs[k].z;
			rf_zstd__free(f);
		}
		f->fd = f->srcs[0].fd;
	}
	free(f->win);
	rf_zstd__free(f);
	rf_pipe__free(f);
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	rf_dir__free(f);
	for (k = 0; k < f->nr_evsels; k++) {
		free(f->evsels[k]->ids);
		free(f->evsels[k]);
	}
	free(f->evsels);
	free(f->id_hash);
	for (k = 0; k < RAWFRAG_FEAT_BITS; k++)
		free(f->feat[k].buf);
	for (i = 0; i < f->nr_allocs; i++)
		free(f->allocs[i]);
	free(f->allocs);
	free(f->pmu_caps);
	free(f->path);
	free(f);
}

/* ---- accessors ---- */

RAWFRAG_API const char *rawfrag_file__path(const struct rawfrag_file *f)
{
	return f ? f->path : NULL;
}

RAWFRAG_API enum rawfrag_file_mode rawfrag_file__mode(const struct rawfrag_file *f)
{
	return f ? f->mode : RAWFRAG_MODE_FILE;
}

RAWFRAG_API bool rawfrag_file__needs_swap(const struct rawfrag_file *f)
{
	return f && f->swap;
}

RAWFRAG_API bool rawfrag_file__big_endian(const struct rawfrag_file *f)
{
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	return f && (f->swap ? !host_be : host_be);
}

RAWFRAG_API uint64_t rawfrag_file__data_offset(const struct rawfrag_file *f)
{
	return f ? f->data_offset : 0;
}

RAWFRAG_API uint64_t rawfrag_file__data_size(const struct rawfrag_file *f)
{
	return f ? f->data_size : 0;
}

RAWFRAG_API int rawfrag_file__nr_data_files(const struct rawfrag_file *f)
{
	return !f ? 0 : f->nr_srcs ? f->nr_srcs : 1;
}

RAWFRAG_API const char *rawfrag_file__data_file_path(const struct rawfrag_file *f, int idx)
{
	if (!f || idx < 0 || idx >= rawfrag_file__nr_data_files(f))
		return NULL;
	return f->nr_srcs ? f->srcs[idx].path : f->path;
}

RAWFRAG_API bool rawfrag_file__has_feature(const struct rawfrag_file *f, int feat)
{
	return f && feat >= 0 && feat < RAWFRAG_FEAT_BITS && f->feat[feat].buf;
}

RAWFRAG_API const void *rawfrag_file__feature(const struct rawfrag_file *f, int feat,
					      uint64_t *size)
{
	if (!rawfrag_file__has_feature(f, feat)) {
		if (size)
			*size = 0;
		return NULL;
	}
	if (size)
		*size = f->feat[feat].size;
	return f->feat[feat].buf;
}

RAWFRAG_API const struct rawfrag_env *rawfrag_file__env(const struct rawfrag_file *f)
{
	return f ? &f->env : NULL;
}

RAWFRAG_API const struct rawfrag_err *rawfrag_file__error(const struct rawfrag_file *f)
{
	return f ? &f->err : NULL;
}

RAWFRAG_API const struct rawfrag_file_stats *rawfrag_file__stats(const struct rawfrag_file *f)
{
	return f ? &f->stats : NULL;
}

RAWFRAG_API uint64_t rawfrag_file__nr_records(const struct rawfrag_file *f, uint32_t type)
{
	return f && type < ARRAY_LEN(f->nr_records) ? f->nr_records[type] : 0;
}

/*
 * The regular file (or directory) f reads, to open again: its path, or for
 * stdin or a descriptor /proc/self/fd/N (a new open file, at its own offset).
 * NULL for a pipe or socket, which only one reader can read.
 */
static const char *reopen_path(const struct rawfrag_file *f, char *buf, size_t len,
			       struct stat *st)
{
	if (!f->path || fstat(f->fd, st) || (!S_ISREG(st->st_mode) && f->mode != RAWFRAG_MODE_FILE))
		return NULL;
	if (strcmp(f->path, "-") && strcmp(f->path, "<fd>"))
		return f->path;
	if (!S_ISREG(st->st_mode))
		return NULL;
	snprintf(buf, len, "/proc/self/fd/%d", f->fd);
	return buf;
}

bool rf_file__can_reopen(const struct rawfrag_file *f)
{
	char buf[64];
	struct stat st;

	return reopen_path(f, buf, sizeof(buf), &st) != NULL;
}

/*
 * The same input opened again, quiet (-j's workers each read it whole): a
 * file, or a regular file in pipe format (perf record -o - > file), named or
 * on a descriptor; NULL for a pipe, or when the path now names another file.
 */
struct rawfrag_file *rf_file__reopen(const struct rawfrag_file *f)
{
	RAWFRAG_OPTS(rawfrag_file_opts, o, .force = f->force);
	struct rawfrag_err err;
	struct rawfrag_file *c;
	struct stat a, b;
	char buf[64];
	const char *path = reopen_path(f, buf, sizeof(buf), &a);

	if (!path)
		return NULL;
	c = rawfrag_file__open(path, &o, &err);
	if (c && (fstat(c->fd, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
		  c->mode != f->mode)) {
		rawfrag_file__close(c);
		c = NULL;
	}
	return c;
}
