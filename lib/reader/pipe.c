// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pipe mode (perf record -o -): a 16-byte header, then records read with read()
 * from stdin, a fd or a regular file. Everything the file header would hold
 * travels as user records, applied here as they pass: HEADER_ATTR (evsels),
 * HEADER_FEATURE (env; a feat_id >= HEADER_LAST_FEATURE is the end marker),
 * HEADER_TRACING_DATA (the blob follows the record) and EVENT_UPDATE (names).
 *
 * Ownership: rec_buf holds the current record (reused), rdbuf the read-ahead;
 * tracing data blobs and feature payloads are kept until close.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/attr.h"
#include "internal/evsel.h"
#include "internal/features.h"
#include "internal/pipe.h"
#include "internal/tee.h"

#define RD_BUF_SIZE (256u << 10)
#define REC_BUF_SIZE (64u << 10)

/* read up to n bytes through the read-ahead buffer; < n only at EOF */
static int64_t rd_read(struct rawfrag_file *f, void *dst, uint64_t n)
{
	uint8_t *d = dst;
	uint64_t got = 0;

	while (got < n) {
		size_t have = f->rd_len - f->rd_pos;
		ssize_t r;

		if (have) {
			size_t k = have < n - got ? have : (size_t)(n - got);

			memcpy(d + got, f->rdbuf + f->rd_pos, k);
			f->rd_pos += k;
			got += k;
			continue;
		}
		if (f->rd_eof)
			break;
		f->rd_pos = f->rd_len = 0;
		if (f->tee) {
			r = rf_tee__read(f->tee, f->tee_r, f->rd_total, f->rdbuf, f->rd_cap);
			if (r < 0)
				return r;
		} else {
			r = read(f->fd, f->rdbuf, f->rd_cap);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
		}
		if (r == 0)
			f->rd_eof = true;
		f->rd_len = (size_t)r;
		f->rd_total += (uint64_t)r;
	}
	return (int64_t)got;
}

int rf_pipe__open(struct rawfrag_file *f)
{
	uint8_t h[16];
	uint64_t size;
	int swap;
	int64_t r;

	f->rd_cap = RD_BUF_SIZE;
	f->rdbuf = malloc(f->rd_cap);
	f->rec_buf = malloc(REC_BUF_SIZE);
	if (!f->rdbuf || !f->rec_buf)
		return rf_error(f, -1, 0, "out of memory");
	r = rd_read(f, h, sizeof(h));
	if (r < 0) {
		rf_error(f, 0, 0, "HEADER: read: %s", strerror((int)-r));
		f->err.err = (int)r;
		return (int)r;
	}
	if (r < (int64_t)sizeof(h))
		return rf_error(f, 0, 0, "HEADER: file too short for a perf.data header (%" PRId64 " bytes)",
				r);
	swap = rf_magic_swap(h);
	if (swap < 0)
		return rf_error(f, 0, 0, "HEADER: not a perf.data file (bad magic)");
	f->swap = swap;
	size = rf_u64(h + 8, f->swap);
	if (size != RF_PIPE_HEADER_SIZE)
		return rf_error(f, 8, 0, "HEADER: pipe header size %" PRIu64 " is not 16", size);
	f->size = RF_PIPE_HEADER_SIZE;
	f->data_offset = RF_PIPE_HEADER_SIZE;
	return 0;
}

/*
 * Read the tsz bytes that follow a record, growing the buffer only as data
 * arrives (a hostile size cannot make us allocate more than the stream holds).
 */
static int read_trailer(struct rawfrag_file *f, const struct rawfrag_record *rec, uint64_t tsz,
			uint8_t **out)
{
	uint8_t *buf = NULL;
	uint64_t cap = 0, got = 0;
	int64_t r;

	while (got < tsz) {
		if (got == cap) {
			uint64_t ncap = cap ? 2 * cap : (64u << 10);
			uint8_t *nb;

			if (ncap > tsz)
				ncap = tsz;
			nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				return rf_rec_error(f, (int64_t)rec->offset, rec->type, "out of memory");
			}
			buf = nb;
			cap = ncap;
		}
		r = rd_read(f, buf + got, cap - got);
		if (r <= 0) {
			free(buf);
			return rf_rec_error(f, (int64_t)rec->offset, rec->type,
					"truncated: %" PRIu64 " of %" PRIu64
					" bytes following the record",
					got, tsz);
		}
		got += (uint64_t)r;
	}
	*out = buf;
	return 0;
}

int rf_pipe__next_raw(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	uint64_t off = f->size, tsz = 0;
	uint8_t *tb = NULL;
	int64_t r;
	int err;

	memset(rec, 0, sizeof(*rec));
	r = rd_read(f, f->rec_buf, 8);
	if (r == 0)
		return 0;
	if (r < 0)
		return rf_error(f, (int64_t)off, 0, "DATA: read: %s", strerror((int)-r));
	if (r < 8)
		return rf_error(f, (int64_t)off, 0,
				"DATA: truncated record header (%" PRId64 " bytes at the end)", r);
	rec->type = rf_u32(f->rec_buf, f->swap);
	rec->misc = rawfrag__get16(f->rec_buf + 4, f->swap);
	rec->size = rawfrag__get16(f->rec_buf + 6, f->swap);
	rec->offset = off;
	rec->data = f->rec_buf;
	if (rec->size < 8)
		return rf_rec_error(f, (int64_t)off, rec->type, "record size %u < 8", rec->size);
	r = rd_read(f, f->rec_buf + 8, rec->size - 8u);
	if (r < 0)
		return rf_rec_error(f, (int64_t)off, rec->type, "read: %s", strerror((int)-r));
	if (r < rec->size - 8)
		return rf_rec_error(f, (int64_t)off, rec->type,
				"truncated record: %" PRId64 " of %u bytes", r + 8, rec->size);
	/* 12 bytes from older perf (no pad), 16 from newer: the blob follows either */
	if (rec->type == RAWFRAG_RECORD_HEADER_TRACING_DATA && rec->size >= 12)
		tsz = rf_u32(f->rec_buf + 8, f->swap);
	else if (rec->type == RAWFRAG_RECORD_AUXTRACE && rec->size >= 16)
		tsz = rf_u64(f->rec_buf + 8, f->swap);
	if (tsz) {
		err = read_trailer(f, rec, tsz, &tb);
		if (err)
			return err;
		if (rec->type == RAWFRAG_RECORD_HEADER_TRACING_DATA) {
			/* the blob becomes env->tracing_data: keep it until close */
			if (!rf_keep(f, tb))
				return rf_rec_error(f, (int64_t)off, rec->type, "out of memory");
		} else {
			free(f->trailer_buf);
			f->trailer_buf = tb;
		}
		rec->trailer = tb;
		rec->trailer_size = tsz;
	}
	f->size = off + rec->size + tsz;
	return 1;
}

void rf_pipe__free(struct rawfrag_file *f)
{
	free(f->rdbuf);
	free(f->rec_buf);
	free(f->trailer_buf);
}

static int apply_attr(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	const uint8_t *d = rec->data;
	struct perf_event_attr attr;
	struct rawfrag_evsel *e;
	const char *why;
	uint32_t asz;

	if (rf_attr__read(&attr, &asz, d + 8, rec->size - 8u, f->swap, &why))
		return rf_rec_error(f, (int64_t)rec->offset, rec->type, "%s", why);
	if (asz > sizeof(attr))
		rf_print(f, RAWFRAG_WARN,
			 "rawfrag: %s: offset 0x%" PRIx64 ": HEADER_ATTR: attr has %u bytes, %zu more than known: ignored\n",
			 f->path, rec->offset, asz, (size_t)(asz - sizeof(attr)));
	e = rf_evsel__new(f, &attr, asz);
	if (!e || rf_evsel__set_ids(e, d + 8 + asz, (rec->size - 8u - asz) / 8, f->swap))
		return rf_error(f, -1, rec->type, "out of memory");
	return rf_build_id_hash(f) ? rf_error(f, -1, rec->type, "out of memory") : 0;
}

static int apply_feature(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	uint64_t feat = rf_u64((const uint8_t *)rec->data + 8, f->swap);
	uint64_t size = rec->size - 16u;
	struct rf_feat *ft;
	void *buf;

	if (feat >= RAWFRAG_FEAT_LAST) {
		/* perf ends the HEADER_FEATURE run with feat_id HEADER_LAST_FEATURE */
		f->pipe_ended = true;
		return 0;
	}
	if (feat == 0 || feat == RAWFRAG_FEAT_TRACING_DATA)
		return 0;
	buf = malloc(size ? size : 1);
	if (!buf)
		return rf_error(f, -1, rec->type, "out of memory");
	memcpy(buf, (const uint8_t *)rec->data + 16, size);
	ft = &f->feat[feat];
	/* a repeated feature replaces the payload; the old one may still be in use */
	if (ft->buf && !rf_keep(f, ft->buf)) {
		free(buf);
		return rf_error(f, -1, rec->type, "out of memory");
	}
	ft->buf = buf;
	ft->offset = rec->offset;
	ft->size = size;
	rf_feature__parse(f, (int)feat, buf, size, (int64_t)rec->offset);
	return 0;
}

#define EVENT_UPDATE_NAME 2

static int apply_event_update(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	const uint8_t *d = rec->data;
	uint64_t type = rf_u64(d + 8, f->swap), id = rf_u64(d + 16, f->swap);
	struct rawfrag_evsel *e;
	size_t len;

	if (type != EVENT_UPDATE_NAME)
		return 0;
	len = strnlen((const char *)d + 24, rec->size - 24u);
	if (len == rec->size - 24u)
		return rf_rec_error(f, (int64_t)rec->offset, rec->type, "name not NUL-terminated");
	if (f->id_hash_dirty && rf_build_id_hash(f))
		return rf_error(f, -1, rec->type, "out of memory");
	e = rf_find_id(f, id);
	if (!e) {
		rf_print(f, RAWFRAG_WARN,
			 "rawfrag: %s: offset 0x%" PRIx64 ": EVENT_UPDATE: unknown id %" PRIu64 "\n",
			 f->path, rec->offset, id);
		return 0;
	}
	return rawfrag_evsel__set_name(e, (const char *)d + 24) ?
		       rf_error(f, -1, rec->type, "out of memory") :
		       0;
}

/*
 * The blob after a HEADER_TRACING_DATA record. A file normally has it in the
 * TRACING_DATA feature; one without (perf inject of an old pipe stream) has it
 * only here, in the mapped window that moves on: kept as a copy.
 */
static int apply_tracing_data(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	void *copy;

	if (!rec->trailer)
		return 0;
	if (f->mode == RAWFRAG_MODE_PIPE) {
		f->env.tracing_data = rec->trailer;
		f->env.tracing_data_size = rec->trailer_size;
		return 0;
	}
	if (f->env.tracing_data)
		return 0;
	copy = rf_keep(f, malloc(rec->trailer_size ? rec->trailer_size : 1));
	if (!copy)
		return rf_error(f, -1, rec->type, "out of memory");
	memcpy(copy, rec->trailer, rec->trailer_size);
	f->env.tracing_data = copy;
	f->env.tracing_data_size = rec->trailer_size;
	return 0;
}

/* apply the records that describe the file (pipe mode; names in both modes) */
int rf_record__apply(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	switch (rec->type) {
	case RAWFRAG_RECORD_HEADER_ATTR:
		return f->mode == RAWFRAG_MODE_PIPE ? apply_attr(f, rec) : 0;
	case RAWFRAG_RECORD_HEADER_FEATURE:
		return f->mode == RAWFRAG_MODE_PIPE ? apply_feature(f, rec) : 0;
	case RAWFRAG_RECORD_HEADER_TRACING_DATA:
		return apply_tracing_data(f, rec);
	case RAWFRAG_RECORD_EVENT_UPDATE:
		return apply_event_update(f, rec);
	default:
		return 0;
	}
}

bool rf_file__can_tee(const struct rawfrag_file *f)
{
	return f->mode == RAWFRAG_MODE_PIPE && !f->tee && f->rdbuf && f->rd_total == f->rd_len;
}

/* one more read of the stream into the read-ahead buffer, kept whole: false at its end */
static bool rd_more(struct rawfrag_file *f)
{
	for (;;) {
		ssize_t r;

		if (f->rd_eof || f->rd_len == f->rd_cap)
			return false;
		r = read(f->fd, f->rdbuf + f->rd_len, f->rd_cap - f->rd_len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* an error is read again, and said, by the session */
			f->rd_eof = r == 0;
			return false;
		}
		f->rd_len += (size_t)r;
		f->rd_total += (uint64_t)r;
		return true;
	}
}

int rf_file__sample_types(struct rawfrag_file *f, uint64_t *types)
{
	uint64_t off = 16;

	*types = 0;
	if (f->mode != RAWFRAG_MODE_PIPE) {
		for (int i = 0; i < rawfrag_file__nr_evsels(f); i++)
			*types |= rawfrag_evsel__attr(rawfrag_file__evsel(f, i))->sample_type;
		return 0;
	}
	if (!rf_file__can_tee(f))
		return -EAGAIN;
	for (;;) {
		const uint8_t *p = f->rdbuf + off;
		uint16_t size;

		if (off + 8 > f->rd_len) {
			if (!rd_more(f))
				return -EAGAIN;
			continue;
		}
		size = rawfrag__get16(p + 6, f->swap);
		if (rf_u32(p, f->swap) != RAWFRAG_RECORD_HEADER_ATTR)
			return 0;
		if (size < 8 + 32)
			return -EAGAIN;
		if (off + size > f->rd_len) {
			if (!rd_more(f))
				return -EAGAIN;
			continue;
		}
		*types |= rf_u64(p + 8 + 24, f->swap);
		off += size;
	}
}

struct rf_tee *rf_file__tee(struct rawfrag_file *f, int readers, uint64_t bound)
{
	struct rf_tee *t;

	if (!rf_file__can_tee(f))
		return NULL;
	t = rf_tee__new(f->fd, f->rdbuf, f->rd_len, readers, bound);
	if (t) {
		f->tee = t;
		f->tee_r = 0;
	}
	return t;
}

struct rawfrag_file *rf_file__open_tee(const struct rawfrag_file *like, struct rf_tee *t, int r)
{
	struct rawfrag_file *f = rf_file__alloc(like->force);

	if (!f)
		return NULL;
	f->mode = RAWFRAG_MODE_PIPE;
	f->tee = t;
	f->tee_r = r;
	f->path = strdup(like->path);
	if (!f->path || rf_pipe__open(f) || rf_build_id_hash(f)) {
		rawfrag_file__close(f); /* leaves the tee */
		return NULL;
	}
	return f;
}

void rf_file__untee(struct rawfrag_file *f)
{
	if (!f || !f->tee)
		return;
	rf_tee__leave(f->tee, f->tee_r);
	f->tee = NULL;
}
