// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PERF_RECORD_COMPRESSED: zstd chunks of one long-lived stream (perf record -z
 * flushes one CStream per COMPRESSED record) or complete frames, expanded with
 * one ZSTD_DStream per file. Records may straddle COMPRESSED records: the
 * unfinished tail stays at the start of the output buffer.
 *
 * Memory is bounded: the compressed payload is copied (< 64 KiB) and expanded
 * incrementally into a fixed output buffer as records are taken from it, so no
 * buffer depends on sizes from the file.
 *
 * Time is bounded too, against zstd bombs (a few KiB expanding to GiB): each
 * COMPRESSED record may expand to at most HEADER_COMPRESSED's mmap_len bytes,
 * as perf's reader allows (perf record compresses one ring buffer read at a
 * time, so a record never holds more), and over the whole file the expanded
 * bytes may pass RATIO_FREE only at RATIO_MAX times the compressed bytes
 * (perf record -z reaches about 10:1 on tracepoint data).
 *
 * Ownership: struct rf_zstd belongs to its file; returned records point into
 * out and are valid until the next call.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "internal/compress.h"

#define OUT_SIZE (1u << 20) /* must exceed the largest record (64 KiB) */
#define IN_SIZE (64u << 10)
/* per-record bound without HEADER_COMPRESSED (perf refuses such files) */
#define DEFAULT_MMAP_LEN (4u << 20)
#define RATIO_FREE (64ULL << 20)
#define RATIO_MAX 256

struct rf_zstd {
	ZSTD_DStream *ds;
	uint8_t *in;
	size_t in_len, in_pos;
	uint8_t *out;
	size_t out_len, out_pos;
	uint64_t rec_offset; /* the COMPRESSED record being expanded */
	uint64_t rec_out;    /* bytes it expanded to so far */
	uint64_t rec_max;    /* its bound: mmap_len */
	bool warned;
};

static int zstd_init(struct rawfrag_file *f)
{
	struct rf_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->ds = ZSTD_createDStream();
	z->in = malloc(IN_SIZE);
	z->out = malloc(OUT_SIZE);
	f->z = z;
	if (!z->ds || !z->in || !z->out)
		return -ENOMEM;
	ZSTD_initDStream(z->ds);
	return 0;
}

int rf_zstd__feed(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	struct rf_zstd *z;
	size_t len = rec->size - 8u;

	if (!f->z && zstd_init(f))
		return rf_rec_error(f, (int64_t)rec->offset, rec->type, "out of memory");
	z = f->z;
	if (!f->env.has_compressed && !z->warned) {
		/* perf 6.1 refuses this ("Couldn't decompress data"); we can still read it */
		rf_print(f, RAWFRAG_WARN,
			 "rawfrag: %s: offset 0x%" PRIx64 ": COMPRESSED record without the "
			 "COMPRESSED feature (perf 6.1 cannot read this file)\n",
			 f->path, rec->offset);
		z->warned = true;
	}
	memcpy(z->in, (const uint8_t *)rec->data + 8, len);
	z->in_len = len;
	z->in_pos = 0;
	z->rec_offset = rec->offset;
	z->rec_out = 0;
	z->rec_max = f->env.has_compressed && f->env.comp_mmap_len ? f->env.comp_mmap_len :
		     DEFAULT_MMAP_LEN;
	return 0;
}

/* The bounds against zstd bombs, after a step that expanded to z->rec_out. */
static int check_bounds(struct rawfrag_file *f, struct rf_zstd *z)
{
	const struct rawfrag_file_stats *st = &f->stats;

	if (z->rec_out > z->rec_max)
		return rf_error(f, (int64_t)z->rec_offset, RAWFRAG_RECORD_COMPRESSED,
				"%u bytes of zstd data expand to more than %s %" PRIu64
				" bytes, the most one record holds",
				(unsigned int)z->in_len,
				f->env.has_compressed && f->env.comp_mmap_len ?
				"HEADER_COMPRESSED's mmap_len" : "the default bound of",
				z->rec_max);
	if (st->nr_decompressed_bytes > RATIO_FREE &&
	    st->nr_decompressed_bytes - RATIO_FREE > RATIO_MAX * st->nr_compressed_bytes)
		return rf_error(f, (int64_t)z->rec_offset, RAWFRAG_RECORD_COMPRESSED,
				"%" PRIu64 " bytes of zstd data expand to over %" PRIu64
				" bytes: past the expansion ratio limit (%u:1 beyond the first "
				"%llu MiB)",
				st->nr_compressed_bytes, st->nr_decompressed_bytes, RATIO_MAX,
				RATIO_FREE >> 20);
	return 0;
}

/* 1: a record in rec; 0: nothing complete until the next COMPRESSED record */
int rf_zstd__next(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	struct rf_zstd *z = f->z;

	if (!z)
		return 0;
	for (;;) {
		size_t avail = z->out_len - z->out_pos, ret;
		const uint8_t *h = z->out + z->out_pos;
		ZSTD_inBuffer ib;
		ZSTD_outBuffer ob;

		if (avail >= 8) {
			uint16_t size = rawfrag__get16(h + 6, f->swap);

			memset(rec, 0, sizeof(*rec));
			rec->type = rf_u32(h, f->swap);
			rec->misc = rawfrag__get16(h + 4, f->swap);
			rec->size = size;
			rec->offset = z->rec_offset;
			rec->in_compressed = true;
			if (size < 8)
				return rf_rec_error(f, (int64_t)z->rec_offset, rec->type,
						"record size %u < 8 (in compressed data)", size);
			if (size <= avail) {
				rec->data = h;
				z->out_pos += size;
				return 1;
			}
		}
		if (z->in_pos >= z->in_len)
			return 0;
		/* keep the unfinished record at the start and expand more behind it */
		memmove(z->out, h, avail);
		z->out_len = avail;
		z->out_pos = 0;
		ib = (ZSTD_inBuffer){ z->in, z->in_len, z->in_pos };
		/* one byte past the record's bound tells a bomb from a full stop */
		ob = (ZSTD_outBuffer){ z->out, OUT_SIZE, z->out_len };
		if (z->rec_max - z->rec_out < OUT_SIZE - z->out_len)
			ob.size = z->out_len + (z->rec_max - z->rec_out) + 1;
		ret = ZSTD_decompressStream(z->ds, &ob, &ib);
		if (ZSTD_isError(ret))
			return rf_error(f, (int64_t)z->rec_offset, RAWFRAG_RECORD_COMPRESSED,
					"zstd: %s", ZSTD_getErrorName(ret));
		if (ib.pos == z->in_pos && ob.pos == z->out_len)
			return rf_error(f, (int64_t)z->rec_offset, RAWFRAG_RECORD_COMPRESSED,
					"zstd: no progress");
		f->stats.nr_decompressed_bytes += ob.pos - z->out_len;
		z->rec_out += ob.pos - z->out_len;
		z->in_pos = ib.pos;
		z->out_len = ob.pos;
		if (check_bounds(f, z))
			return -EINVAL;
	}
}

/* end of input: a record cut off inside the compressed data is an error */
int rf_zstd__finish(struct rawfrag_file *f)
{
	struct rf_zstd *z = f->z;
	size_t left = z->out_len - z->out_pos;
	char buf[512];

	if (!left)
		return 0;
	rf_error(f, (int64_t)z->rec_offset, RAWFRAG_RECORD_COMPRESSED,
		 "%zu bytes of a truncated record at the end of the compressed data", left);
	if (!f->force)
		return -EINVAL;
	f->stats.nr_skipped++;
	f->stats.bytes_skipped += left;
	rf_print(f, RAWFRAG_WARN, "rawfrag: %s (skipped)\n",
		 rawfrag_err__format(&f->err, f->path, buf, sizeof(buf)));
	memset(&f->err, 0, sizeof(f->err));
	z->out_pos = z->out_len = 0;
	return 0;
}

void rf_zstd__reset(struct rawfrag_file *f)
{
	struct rf_zstd *z = f->z;

	if (!z)
		return;
	ZSTD_initDStream(z->ds);
	z->in_len = z->in_pos = 0;
	z->out_len = z->out_pos = 0;
}

void rf_zstd__free(struct rawfrag_file *f)
{
	struct rf_zstd *z = f->z;

	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->in);
	free(z->out);
	free(z);
	f->z = NULL;
}
