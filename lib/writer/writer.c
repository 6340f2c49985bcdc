// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer (layouts: Documentation/perf.data-raw-format.txt, sections 1-4):
 * file mode (header placeholder, ids, attrs, data, then feature table and
 * payloads, header rewritten at the end) and pipe mode (HEADER_ATTR,
 * HEADER_FEATURE + end marker, HEADER_TRACING_DATA before the data), either byte
 * order, optional zstd (COMPRESSED records each < 64 KiB, HEADER_COMPRESSED with
 * mmap_len).
 * Output is buffered; every write error lands in w->err and sticks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "internal/writer.h"
#include "internal/opts.h"

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define MAX_ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7: the largest perf 6.1 reads */
#define COMPRESSED_HDR 8
#define COMPRESSED_MAX 0xffff /* record size limit */

static void set_err(struct rawfrag_writer *w, int err, const char *fmt, va_list ap)
{
	w->err.err = err;
	w->err.offset = -1;
	w->err.rec_type = 0;
	vsnprintf(w->err.reason, sizeof(w->err.reason), fmt, ap);
}

/* output is broken (I/O, memory): every later call fails the same way */
int rw_fail(struct rawfrag_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	w->failed = true;
	va_start(ap, fmt);
	set_err(w, err, fmt, ap);
	va_end(ap);
	return err;
}

/* a call made wrongly: reported, the writer stays usable */
int rw_usage(struct rawfrag_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_err(w, err, fmt, ap);
	va_end(ap);
	return err;
}

static uint64_t t64(const struct rawfrag_writer *w, uint64_t v)
{
	return w->swap ? __builtin_bswap64(v) : v;
}

static uint32_t t32(const struct rawfrag_writer *w, uint32_t v)
{
	return w->swap ? __builtin_bswap32(v) : v;
}

static uint16_t t16(const struct rawfrag_writer *w, uint16_t v)
{
	return w->swap ? __builtin_bswap16(v) : v;
}

/* ---- raw output ---- */

static int write_all(struct rawfrag_writer *w, const void *p, size_t n)
{
	const uint8_t *c = p;
	ssize_t r;

	while (n) {
		r = write(w->fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return rw_fail(w, r < 0 ? -errno : -EIO, "write at offset %llu: %s",
				       (unsigned long long)(w->off - w->buf_len),
				       r < 0 ? strerror(errno) : "short write");
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int flush_buf(struct rawfrag_writer *w)
{
	int ret;

	if (!w->buf_len)
		return 0;
	ret = write_all(w, w->buf, w->buf_len);
	w->buf_len = 0;
	return ret;
}

/* append bytes to the output stream (not the compressor) */
static int out(struct rawfrag_writer *w, const void *p, size_t n)
{
	size_t chunk;
	int ret;

	if (w->failed)
		return w->err.err;
	while (n) {
		if (w->buf_len == RW_BUF_SIZE) {
			ret = flush_buf(w);
			if (ret)
				return ret;
		}
		chunk = RW_BUF_SIZE - w->buf_len;
		if (chunk > n)
			chunk = n;
		if (p) {
			memcpy(w->buf + w->buf_len, p, chunk);
			p = (const uint8_t *)p + chunk;
		} else {
			memset(w->buf + w->buf_len, 0, chunk);
		}
		w->buf_len += chunk;
		w->off += chunk;
		n -= chunk;
	}
	return 0;
}

/* ---- compression ---- */

/*
 * No padding after the zstd bytes: the decompressor would read it as the next
 * frame. perf record's COMPRESSED records are not 8-aligned either.
 */
static int emit_compressed(struct rawfrag_writer *w, size_t len)
{
	uint8_t hdr[8];
	uint32_t type = t32(w, RAWFRAG_RECORD_COMPRESSED);
	uint16_t misc = 0, size = t16(w, (uint16_t)(COMPRESSED_HDR + len));
	int ret;

	memcpy(hdr, &type, 4);
	memcpy(hdr + 4, &misc, 2);
	memcpy(hdr + 6, &size, 2);
	ret = out(w, hdr, 8);
	return ret ? ret : out(w, w->zout, len);
}

/*
 * Compress zin into COMPRESSED records: pieces of one long-lived zstd stream,
 * flushed per chunk (as perf record -z does), each record below 64 KiB. A
 * record decompresses to at most RW_ZCHUNK bytes, the mmap_len we declare.
 */
static int compress_flush(struct rawfrag_writer *w)
{
	ZSTD_inBuffer in = { w->zin, w->zin_len, 0 };
	ZSTD_outBuffer o;
	size_t left;
	int ret;

	if (!w->zin_len || w->failed)
		return w->failed ? w->err.err : 0;
	do {
		o = (ZSTD_outBuffer){ w->zout, COMPRESSED_MAX - COMPRESSED_HDR, 0 };
		left = ZSTD_compressStream2(w->zctx, &o, &in, ZSTD_e_flush);
		if (ZSTD_isError(left))
			return rw_fail(w, -EIO, "zstd: %s", ZSTD_getErrorName(left));
		if (o.pos) {
			ret = emit_compressed(w, o.pos);
			if (ret)
				return ret;
		}
	} while (left || in.pos < in.size);
	w->zin_len = 0;
	return 0;
}

/* a data record: to the compressor when compressing, else straight out */
static int data_out(struct rawfrag_writer *w, const void *p, size_t n)
{
	int ret;

	if (!w->compress)
		return out(w, p, n);
	if (w->failed)
		return w->err.err;
	if (n > RW_ZCHUNK - w->zin_len) {
		ret = compress_flush(w);
		if (ret)
			return ret;
	}
	memcpy(w->zin + w->zin_len, p, n);
	w->zin_len += n;
	return 0;
}

/* ---- construction ---- */

struct rawfrag_writer *rawfrag_writer__new(const char *path,
					   const struct rawfrag_writer_opts *opts,
					   struct rawfrag_err *err)
{
	struct rawfrag_writer *w;
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	int e;

	if (RF_OPTS_CHECK(opts, rawfrag_writer_opts, err))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		/* nothing to clean up yet */
		if (err) {
			*err = (struct rawfrag_err){ .err = -ENOMEM, .offset = -1 };
			snprintf(err->reason, sizeof(err->reason), "out of memory");
		}
		errno = ENOMEM;
		return NULL;
	}
	w->fd = -1;
	w->pipe = RAWFRAG_OPTS_GET(opts, pipe, false);
	w->records_only = RAWFRAG_OPTS_GET(opts, records_only, false);
	if (w->pipe && w->records_only) {
		e = rw_usage(w, -EINVAL, "records_only and pipe exclude each other");
		goto fail;
	}
	w->big_endian = RAWFRAG_OPTS_HAS(opts, big_endian) ? opts->big_endian : host_be;
	w->swap = w->big_endian != host_be;
	w->compress = RAWFRAG_OPTS_GET(opts, compress, false);
	w->comp_level = RAWFRAG_OPTS_GET(opts, comp_level, 0);
	if (!w->comp_level)
		w->comp_level = 1;
	w->print = RAWFRAG_OPTS_GET(opts, print, NULL);
	w->print_ctx = RAWFRAG_OPTS_GET(opts, print_ctx, NULL);
	w->buf = malloc(RW_BUF_SIZE);
	if (!w->buf) {
		e = rw_fail(w, -ENOMEM, "out of memory");
		goto fail;
	}
	if (w->compress) {
		w->zctx = ZSTD_createCCtx();
		w->zin = malloc(RW_ZCHUNK);
		w->zout = malloc(COMPRESSED_MAX);
		if (!w->zctx || !w->zin || !w->zout) {
			e = rw_fail(w, -ENOMEM, "zstd: out of memory");
			goto fail;
		}
		ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_compressionLevel, w->comp_level);
	}
	if (RAWFRAG_OPTS_GET(opts, use_fd, false)) {
		w->fd = opts->fd;
	} else if (path && !strcmp(path, "-")) {
		w->fd = STDOUT_FILENO;
	} else {
		w->fd = open(path ? path : "perf.data", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0600);
		if (w->fd < 0) {
			e = rw_fail(w, -errno, "open %s: %s", path ? path : "perf.data",
				    strerror(errno));
			goto fail;
		}
		w->own_fd = true;
	}
	return w;

fail:
	if (err)
		*err = w->err;
	rawfrag_writer__delete(w);
	errno = -e;
	return NULL;
}

void rawfrag_writer__delete(struct rawfrag_writer *w)
{
	if (!w)
		return;
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	for (int i = 0; i < w->nr_evsels; i++) {
		free(w->evsels[i].name);
		free(w->evsels[i].ids);
	}
	free(w->evsels);
	for (int i = 0; i < RAWFRAG_FEAT_LAST; i++)
		free(w->feat[i].data);
	free(w->tracing_data);
	for (int i = 0; i < w->nr_pmu_maps; i++)
		free(w->pmu_maps[i].name);
	free(w->pmu_maps);
	for (int i = 0; i < w->nr_pmu_caps; i++) {
		free(w->pmu_caps[i].pmu);
		free(w->pmu_caps[i].name);
		free(w->pmu_caps[i].value);
	}
	free(w->pmu_caps);
	ZSTD_freeCCtx(w->zctx);
	free(w->zin);
	free(w->zout);
	free(w->buf);
	free(w);
}

int rawfrag_writer__add_evsel(struct rawfrag_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, int nr_ids)
{
	struct rw_evsel *ev;
	uint32_t size;

	if (w->failed)
		return w->err.err;
	if (w->started)
		return rw_usage(w, -EBUSY, "add_evsel after start");
	if (nr_ids < 0 || (nr_ids && !ids))
		return rw_usage(w, -EINVAL, "add_evsel: bad ids");
	ev = realloc(w->evsels, (w->nr_evsels + 1) * sizeof(*ev));
	if (!ev)
		return rw_fail(w, -ENOMEM, "add_evsel: out of memory");
	w->evsels = ev;
	ev += w->nr_evsels;
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, attr, sizeof(ev->attr));
	size = attr->size ? attr->size : MAX_ATTR_SIZE;
	if (size > MAX_ATTR_SIZE)
		size = MAX_ATTR_SIZE;
	if (size < 64)
		size = 64;
	/* one attr_size for the whole section: the largest asked for */
	if (size > w->attr_size)
		w->attr_size = size;
	ev->attr.size = size;
	ev->name = name ? strdup(name) : NULL;
	ev->ids = nr_ids ? malloc(nr_ids * sizeof(*ids)) : NULL;
	if ((name && !ev->name) || (nr_ids && !ev->ids)) {
		free(ev->name);
		free(ev->ids);
		return rw_fail(w, -ENOMEM, "add_evsel: out of memory");
	}
	if (nr_ids)
		memcpy(ev->ids, ids, nr_ids * sizeof(*ids));
	ev->nr_ids = nr_ids;
	return w->nr_evsels++;
}

/* ---- start ---- */

/* the file header; data_size 0 and no features until finish() */
static void file_header(struct rawfrag_writer *w, uint64_t data_size, const uint64_t *bits,
			uint64_t *hdr)
{
	uint64_t pos = FILE_HEADER_SIZE;

	for (int i = 0; i < w->nr_evsels; i++)
		pos += 8ULL * w->evsels[i].nr_ids;
	memset(hdr, 0, FILE_HEADER_SIZE);
	hdr[0] = t64(w, PERF_MAGIC2);
	hdr[1] = t64(w, FILE_HEADER_SIZE);
	hdr[2] = t64(w, w->attr_size + 16ULL);
	hdr[3] = t64(w, pos);
	hdr[4] = t64(w, (w->attr_size + 16ULL) * w->nr_evsels);
	hdr[5] = t64(w, pos + (w->attr_size + 16ULL) * w->nr_evsels);
	hdr[6] = t64(w, data_size);
	/* hdr[7], hdr[8]: event_types, unused */
	for (int i = 0; bits && i < 4; i++)
		hdr[9 + i] = t64(w, bits[i]);
}

/*
 * The header goes out first with the magic, the attrs and a data size of 0, as
 * perf record writes it: a recording cut short (SIGKILL, full disk) is still
 * recognizable as one, and its complete records readable.
 */
static int start_file(struct rawfrag_writer *w)
{
	uint8_t attr[MAX_ATTR_SIZE];
	uint64_t ids_off = FILE_HEADER_SIZE, sec[2], hdr[FILE_HEADER_SIZE / 8];
	int ret;

	file_header(w, 0, NULL, hdr);
	ret = out(w, hdr, FILE_HEADER_SIZE);
	for (int i = 0; !ret && i < w->nr_evsels; i++)
		for (int j = 0; !ret && j < w->evsels[i].nr_ids; j++) {
			uint64_t id = t64(w, w->evsels[i].ids[j]);

			ret = out(w, &id, 8);
		}
	for (int i = 0; !ret && i < w->nr_evsels; i++) {
		struct rw_evsel *e = &w->evsels[i];

		rw_attr__to_target(&e->attr, w->attr_size, w->swap, attr);
		sec[0] = t64(w, ids_off);
		sec[1] = t64(w, 8ULL * e->nr_ids);
		ids_off += 8ULL * e->nr_ids;
		ret = out(w, attr, w->attr_size);
		if (!ret)
			ret = out(w, sec, sizeof(sec));
	}
	w->data_offset = w->off;
	return ret ? ret : flush_buf(w);
}

static int user_record(struct rawfrag_writer *w, uint32_t type, const void *body,
		       size_t len)
{
	uint8_t hdr[8];
	uint32_t t = t32(w, type);
	uint16_t misc = 0, size;

	if (len + 8 > 0xffff)
		return rw_fail(w, -E2BIG, "%s: %zu bytes do not fit in a record",
			       rawfrag_record_type__name(type), len);
	size = t16(w, (uint16_t)(len + 8));
	memcpy(hdr, &t, 4);
	memcpy(hdr + 4, &misc, 2);
	memcpy(hdr + 6, &size, 2);
	return out(w, hdr, 8) ?: out(w, body, len);
}

static int start_pipe(struct rawfrag_writer *w)
{
	uint64_t hdr[2] = { t64(w, PERF_MAGIC2), t64(w, PIPE_HEADER_SIZE) };
	struct rw_buf b = { .swap = w->swap };
	uint32_t td[2];
	int ret;

	ret = out(w, hdr, sizeof(hdr));
	for (int i = 0; !ret && i < w->nr_evsels; i++) {
		struct rw_evsel *e = &w->evsels[i];

		b.len = 0;
		rw_buf__put(&b, NULL, w->attr_size);
		if (!b.oom)
			rw_attr__to_target(&e->attr, w->attr_size, w->swap, b.p);
		for (int j = 0; j < e->nr_ids; j++)
			rw_buf__put64(&b, e->ids[j]);
		ret = b.oom ? rw_fail(w, -ENOMEM, "out of memory")
			    : user_record(w, RAWFRAG_RECORD_HEADER_ATTR, b.p, b.len);
	}
	/* features as HEADER_FEATURE records; tracing data has its own record */
	for (int f = 1; !ret && f < RAWFRAG_FEAT_LAST; f++) {
		if (!w->feat[f].data || f == RAWFRAG_FEAT_TRACING_DATA)
			continue;
		b.len = 0;
		rw_buf__put64(&b, (uint64_t)f);
		rw_buf__put(&b, w->feat[f].data, w->feat[f].len);
		rw_buf__pad(&b, 8);
		ret = b.oom ? rw_fail(w, -ENOMEM, "out of memory")
			    : user_record(w, RAWFRAG_RECORD_HEADER_FEATURE, b.p, b.len);
	}
	if (!ret) {
		/* end marker: feat_id HEADER_LAST_FEATURE, as perf record -o - */
		b.len = 0;
		rw_buf__put64(&b, RAWFRAG_FEAT_LAST);
		ret = b.oom ? rw_fail(w, -ENOMEM, "out of memory")
			    : user_record(w, RAWFRAG_RECORD_HEADER_FEATURE, b.p, b.len);
	}
	free(b.p);
	if (!ret && w->tracing_data) {
		/* header.size 16; the blob follows outside the record, padded to 8 */
		size_t padded = (w->tracing_data_len + 7) & ~(size_t)7;

		td[0] = t32(w, (uint32_t)padded);
		td[1] = 0;
		ret = user_record(w, RAWFRAG_RECORD_HEADER_TRACING_DATA, td, sizeof(td));
		if (!ret)
			ret = out(w, w->tracing_data, w->tracing_data_len);
		if (!ret)
			ret = out(w, NULL, padded - w->tracing_data_len);
	}
	w->data_offset = w->off;
	return ret;
}

/* HEADER_COMPRESSED: version 0, type 1 (zstd), level, ratio, mmap_len */
static int set_compressed_feature(struct rawfrag_writer *w)
{
	struct rw_buf b = { .swap = w->swap };

	rw_buf__put32(&b, 0);
	rw_buf__put32(&b, 1);
	rw_buf__put32(&b, (uint32_t)w->comp_level);
	rw_buf__put32(&b, 1);
	rw_buf__put32(&b, RW_ZCHUNK);
	return rw_set_feat(w, RAWFRAG_FEAT_COMPRESSED, &b);
}

/*
 * Where TIME sits in a raw sample record, when every evsel puts it at the same
 * place (same IDENTIFIER/IP/TID bits before it); 0 when it cannot be known
 * without telling the evsels apart.
 */
static uint32_t sample_time_offset(const struct rawfrag_writer *w)
{
	const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	uint64_t t0 = w->evsels[0].attr.sample_type;

	for (int i = 0; i < w->nr_evsels; i++) {
		uint64_t t = w->evsels[i].attr.sample_type;

		if (!(t & PERF_SAMPLE_TIME) || (t & before) != (t0 & before))
			return 0;
	}
	return 8 + 8 * __builtin_popcountll(t0 & before);
}

int rawfrag_writer__start(struct rawfrag_writer *w)
{
	int ret;

	if (w->failed)
		return w->err.err;
	if (w->started)
		return rw_usage(w, -EBUSY, "start called twice");
	if (w->records_only) {
		w->started = true;
		return 0;
	}
	if (!w->nr_evsels)
		return rw_usage(w, -EINVAL, "no evsel added before start");
	ret = rw_build_features(w);
	if (!ret && w->compress)
		ret = set_compressed_feature(w);
	if (ret)
		return ret;
	w->started = true;
	w->time_off = sample_time_offset(w);
	return w->pipe ? start_pipe(w) : start_file(w);
}

/* ---- records ---- */

static int check_started(struct rawfrag_writer *w)
{
	if (w->failed)
		return w->err.err;
	if (!w->started || w->finished)
		return rw_usage(w, -EINVAL, "record written %s",
			       w->finished ? "after finish" : "before start");
	return 0;
}

static void note_time(struct rawfrag_writer *w, uint64_t t)
{
	if (!w->have_time || t < w->first_time)
		w->first_time = t;
	if (!w->have_time || t > w->last_time)
		w->last_time = t;
	w->have_time = true;
}

int rawfrag_writer__write_record(struct rawfrag_writer *w, const void *rec, size_t len)
{
	int ret = check_started(w);

	if (ret)
		return ret;
	if (len < 8 || len > 0xffff)
		return rw_usage(w, -EINVAL, "write_record: bad record length %zu", len);
	if (w->time_off && len >= w->time_off + 8 &&
	    rawfrag__get32(rec, w->swap) == PERF_RECORD_SAMPLE)
		note_time(w, rawfrag__get64((const uint8_t *)rec + w->time_off, w->swap));
	return data_out(w, rec, len);
}

int rawfrag_writer__write_sample(struct rawfrag_writer *w, int idx,
				 const struct rawfrag_sample *s, uint16_t misc)
{
	uint8_t rec[0x10000];
	int ret = check_started(w);

	if (ret)
		return ret;
	if (idx < 0 || idx >= w->nr_evsels)
		return rw_usage(w, -EINVAL, "write_sample: no evsel %d", idx);
	ret = rawfrag_sample__synthesize(&w->evsels[idx].attr, s, misc, w->swap, rec,
					 sizeof(rec));
	if (ret < 0)
		return rw_usage(w, ret, "write_sample: %s",
			       ret == -E2BIG ? "sample exceeds 65535 bytes" : strerror(-ret));
	if (w->evsels[idx].attr.sample_type & PERF_SAMPLE_TIME)
		note_time(w, s->time);
	return data_out(w, rec, (size_t)ret);
}

/* sample_id_all trailer of evsel 0's attr (all evsels share the layout) */
static void put_trailer(struct rawfrag_writer *w, struct rw_buf *b,
			const struct rawfrag_sample *id)
{
	const struct perf_event_attr *a = &w->evsels[0].attr;
	struct rawfrag_sample zero = { 0 };
	uint64_t t = a->sample_type;

	if (!a->sample_id_all)
		return;
	if (!id)
		id = &zero;
	if (t & PERF_SAMPLE_TID) {
		rw_buf__put32(b, id->pid);
		rw_buf__put32(b, id->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		rw_buf__put64(b, id->time);
	if (t & PERF_SAMPLE_ID)
		rw_buf__put64(b, id->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rw_buf__put64(b, id->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		rw_buf__put32(b, id->cpu);
		rw_buf__put32(b, id->cpu_res);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		rw_buf__put64(b, id->identifier);
}

/* finish a kernel record built in b after an 8-byte header placeholder */
static int kernel_record(struct rawfrag_writer *w, struct rw_buf *b, uint32_t type,
			 uint16_t misc, const struct rawfrag_sample *id)
{
	uint32_t t32v = t32(w, type);
	uint16_t m = t16(w, misc), size;
	int ret;

	put_trailer(w, b, id);
	if (b->oom || b->len > 0xffff) {
		free(b->p);
		if (b->oom)
			return rw_fail(w, -ENOMEM, "%s: out of memory",
				       rawfrag_record_type__name(type));
		return rw_usage(w, -E2BIG, "%s: record exceeds 65535 bytes",
				rawfrag_record_type__name(type));
	}
	size = t16(w, (uint16_t)b->len);
	memcpy(b->p, &t32v, 4);
	memcpy(b->p + 4, &m, 2);
	memcpy(b->p + 6, &size, 2);
	ret = data_out(w, b->p, b->len);
	free(b->p);
	return ret;
}

static void put_name(struct rw_buf *b, const char *s)
{
	rw_buf__put(b, s, strlen(s) + 1);
	rw_buf__pad(b, 8);
}

int rawfrag_writer__write_comm(struct rawfrag_writer *w, uint32_t pid, uint32_t tid,
			       const char *comm, bool exec, const struct rawfrag_sample *id)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_started(w);

	if (ret)
		return ret;
	rw_buf__put(&b, NULL, 8);
	rw_buf__put32(&b, pid);
	rw_buf__put32(&b, tid);
	put_name(&b, comm);
	return kernel_record(w, &b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, id);
}

int rawfrag_writer__write_fork(struct rawfrag_writer *w, bool exit, uint32_t pid,
			       uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
			       const struct rawfrag_sample *id)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_started(w);

	if (ret)
		return ret;
	rw_buf__put(&b, NULL, 8);
	rw_buf__put32(&b, pid);
	rw_buf__put32(&b, ppid);
	rw_buf__put32(&b, tid);
	rw_buf__put32(&b, ptid);
	rw_buf__put64(&b, time);
	return kernel_record(w, &b, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0, id);
}

int rawfrag_writer__write_mmap2(struct rawfrag_writer *w, uint16_t misc, uint32_t pid,
				uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
				uint32_t prot, uint32_t flags, const char *filename,
				const struct rawfrag_sample *id)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_started(w);

	if (ret)
		return ret;
	rw_buf__put(&b, NULL, 8);
	rw_buf__put32(&b, pid);
	rw_buf__put32(&b, tid);
	rw_buf__put64(&b, start);
	rw_buf__put64(&b, len);
	rw_buf__put64(&b, pgoff);
	rw_buf__put(&b, NULL, 24); /* maj, min, ino, ino_generation: unknown */
	rw_buf__put32(&b, prot);
	rw_buf__put32(&b, flags);
	put_name(&b, filename);
	return kernel_record(w, &b, PERF_RECORD_MMAP2, misc, id);
}

int rawfrag_writer__write_lost(struct rawfrag_writer *w, uint64_t id, uint64_t lost,
			       const struct rawfrag_sample *sid)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_started(w);

	if (ret)
		return ret;
	rw_buf__put(&b, NULL, 8);
	rw_buf__put64(&b, id);
	rw_buf__put64(&b, lost);
	return kernel_record(w, &b, PERF_RECORD_LOST, 0, sid);
}

int rawfrag_writer__finished_round(struct rawfrag_writer *w)
{
	uint8_t rec[8] = { 0 };
	uint32_t t = t32(w, RAWFRAG_RECORD_FINISHED_ROUND);
	uint16_t size = t16(w, 8);
	int ret = check_started(w);

	if (ret)
		return ret;
	memcpy(rec, &t, 4);
	memcpy(rec + 6, &size, 2);
	return data_out(w, rec, 8);
}

/* ---- finish ---- */

static int pwrite_all(struct rawfrag_writer *w, const void *p, size_t n, off_t off)
{
	const uint8_t *c = p;
	ssize_t r;

	while (n) {
		r = pwrite(w->fd, c, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return rw_fail(w, r < 0 ? -errno : -EIO, "rewriting the header: %s",
				       r < 0 ? strerror(errno) : "short write");
		c += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

static int finish_file(struct rawfrag_writer *w)
{
	uint64_t data_size = w->off - w->data_offset;
	uint64_t hdr[13] = { 0 }, bits[4] = { 0 }, sec[2];
	uint64_t nr = 0, pos;
	int ret = 0;

	/* perf rejects a file whose data section is empty */
	if (!data_size) {
		ret = rawfrag_writer__finished_round(w);
		if (!ret)
			ret = compress_flush(w);
		data_size = w->off - w->data_offset;
	}
	if (!ret && w->have_time && !w->feat[RAWFRAG_FEAT_SAMPLE_TIME].data) {
		struct rw_buf b = { .swap = w->swap };

		rw_buf__put64(&b, w->first_time);
		rw_buf__put64(&b, w->last_time);
		ret = rw_set_feat(w, RAWFRAG_FEAT_SAMPLE_TIME, &b);
	}
	for (int f = 1; f < RAWFRAG_FEAT_LAST; f++)
		if (w->feat[f].data) {
			bits[f / 64] |= 1ULL << (f % 64);
			nr++;
		}
	/* feature table right after the data, payloads after the table */
	pos = w->off + 16 * nr;
	for (int f = 1; !ret && f < RAWFRAG_FEAT_LAST; f++) {
		if (!w->feat[f].data)
			continue;
		sec[0] = t64(w, pos);
		sec[1] = t64(w, w->feat[f].len);
		pos += w->feat[f].len;
		ret = out(w, sec, sizeof(sec));
	}
	for (int f = 1; !ret && f < RAWFRAG_FEAT_LAST; f++)
		if (w->feat[f].data)
			ret = out(w, w->feat[f].data, w->feat[f].len);
	if (!ret)
		ret = flush_buf(w);
	if (ret)
		return ret;

	file_header(w, data_size, bits, hdr);
	return pwrite_all(w, hdr, sizeof(hdr), 0);
}

int rawfrag_writer__finish(struct rawfrag_writer *w)
{
	int ret;

	if (w->finished)
		return w->failed ? w->err.err : 0;
	if (w->failed)
		return w->err.err;
	if (!w->started) {
		ret = rawfrag_writer__start(w);
		if (ret)
			return ret;
	}
	ret = compress_flush(w);
	if (!ret)
		ret = w->pipe || w->records_only ? flush_buf(w) : finish_file(w);
	w->finished = true;
	return ret;
}

uint64_t rawfrag_writer__bytes(const struct rawfrag_writer *w)
{
	return w->off;
}

const struct rawfrag_err *rawfrag_writer__error(const struct rawfrag_writer *w)
{
	return &w->err;
}
