// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bomb-gen DIR [TRACEFS]: small perf.data files that claim a large cost, for
 * tests/shell/t92-bombs.sh, plus DIR/MANIFEST ("file expect [error]"):
 *   refuse   exit 2 with the error (a substring) naming the COMPRESSED record
 *   bounded  any exit, within the test's memory and time limits
 * Besides: FINISHED_ROUND floods and a pipe of 8000 HEADER_ATTR records.
 *
 * The COMPRESSED records hold pieces of one zstd stream (as perf record -z
 * writes them) whose content is a repeated record, so a few KiB expand to
 * many MiB. Samples are sched:sched_switch from TRACEFS (tracing data built
 * from its formats), or a software event with a RAW area when tracefs is absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <rawfrag/writer.h>

#include "internal/writer.h" /* rw_set_feat(): HEADER_COMPRESSED with any mmap_len */

#define PERF_MMAP_LEN 528384u /* perf record's default: (128 + 1) pages */
#define ZREC_MAX (0xffff - 8)

static const char *dir, *tracefs = "/sys/kernel/tracing";
static FILE *manifest;
static uint32_t tp_id; /* 0: no tracefs, a software event */
static uint8_t sample_rec[512];
static int sample_len;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bomb-gen: %s: %s\n", what, why);
	exit(1);
}

static void wdie(struct rawfrag_writer *w, const char *what)
{
	die(what, rawfrag_writer__error(w)->reason);
}

static const char *path_of(const char *file)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, file);
	return buf;
}

static uint32_t read_tp_id(void)
{
	char p[512];
	unsigned int id = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/id", tracefs);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &id) != 1)
		id = 0;
	fclose(f);
	return id;
}

static const uint64_t sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;

/* one sample record, repeated by every bomb (identical records compress best) */
static void make_sample(void)
{
	struct perf_event_attr a = { .sample_type = sample_type };
	struct rawfrag_sample s = { .identifier = 1, .pid = 7, .tid = 7, .time = 1000000 };
	uint8_t raw[68] = { 0 }; /* sched_switch's 64-byte payload, raw_size 68 */

	raw[0] = (uint8_t)tp_id;
	raw[1] = (uint8_t)(tp_id >> 8);
	memcpy(raw + 8, "bomb", 4);
	s.raw_data = raw;
	s.raw_size = sizeof(raw);
	sample_len = rawfrag_sample__synthesize(&a, &s, PERF_RECORD_MISC_KERNEL, false, sample_rec,
						sizeof(sample_rec));
	if (sample_len < 0)
		die("synthesize", strerror(-sample_len));
}

struct bomb_opts {
	bool pipe;
	bool feature;	   /* write HEADER_COMPRESSED */
	uint32_t mmap_len; /* its mmap_len */
};

static struct rawfrag_writer *writer(const char *file, const struct bomb_opts *o)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .pipe = o->pipe);
	const char *names[] = { "sched:sched_switch" };
	struct perf_event_attr a = { .size = sizeof(a), .sample_period = 1,
				     .sample_type = sample_type, .sample_id_all = 1 };
	struct rw_buf feat = { .swap = false };
	uint64_t id = 1;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	void *blob = NULL;
	size_t len;

	w = rawfrag_writer__new(path_of(file), &wo, &err);
	if (!w)
		die(file, err.reason);
	a.type = tp_id ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
	a.config = tp_id ? tp_id : PERF_COUNT_SW_CPU_CLOCK;
	if (rawfrag_writer__add_evsel(w, &a, tp_id ? names[0] : "cpu-clock", &id, 1) < 0)
		wdie(w, file);
	if (tp_id && rawfrag_tracing_data__build(tracefs, names, 1, false, &blob, &len, &err))
		die(file, err.reason);
	if ((blob && rawfrag_writer__set_tracing_data(w, blob, len)) ||
	    rawfrag_writer__set_host_features(w))
		wdie(w, file);
	free(blob);
	if (o->feature) {
		/* version 0, zstd, level 1, ratio 1, mmap_len */
		rw_buf__put32(&feat, 0);
		rw_buf__put32(&feat, 1);
		rw_buf__put32(&feat, 1);
		rw_buf__put32(&feat, 1);
		rw_buf__put32(&feat, o->mmap_len);
		if (rw_set_feat(w, RAWFRAG_FEAT_COMPRESSED, &feat))
			wdie(w, file);
	}
	if (rawfrag_writer__start(w))
		wdie(w, file);
	return w;
}

struct zstream {
	ZSTD_CCtx *cctx;
	uint8_t out[8 + ZREC_MAX];
	uint8_t *chunk; /* 1 MiB of the repeated record */
	size_t chunk_len, rec_len;
};

static void zs_init(struct zstream *z, const void *rec, size_t len)
{
	z->cctx = ZSTD_createCCtx();
	z->rec_len = len;
	z->chunk_len = (1u << 20) / len * len;
	z->chunk = malloc(z->chunk_len);
	if (!z->cctx || !z->chunk)
		die("zstd", "out of memory");
	for (size_t i = 0; i < z->chunk_len; i += len)
		memcpy(z->chunk + i, rec, len);
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, 19);
}

static void zs_free(struct zstream *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->chunk);
}

static void emit(struct rawfrag_writer *w, struct zstream *z, size_t len)
{
	uint32_t type = RAWFRAG_RECORD_COMPRESSED;
	uint16_t misc = 0, size = (uint16_t)(8 + len);

	memcpy(z->out, &type, 4);
	memcpy(z->out + 4, &misc, 2);
	memcpy(z->out + 6, &size, 2);
	if (rawfrag_writer__write_record(w, z->out, 8 + len))
		wdie(w, "COMPRESSED");
}

/*
 * One COMPRESSED record (more only if the compressed bytes do not fit in one)
 * expanding to about `bytes` of the repeated record.
 */
static void zrecord(struct rawfrag_writer *w, struct zstream *z, size_t bytes)
{
	ZSTD_outBuffer o = { z->out + 8, ZREC_MAX, 0 };
	size_t done = 0, left;

	while (done < bytes) {
		size_t n = bytes - done < z->chunk_len ? bytes - done : z->chunk_len;
		ZSTD_inBuffer in = { z->chunk, n / z->rec_len * z->rec_len, 0 };
		bool last = done + n >= bytes;

		if (!in.size)
			break;
		do {
			if (o.size - o.pos < 1024) {
				emit(w, z, o.pos);
				o.pos = 0;
			}
			left = ZSTD_compressStream2(z->cctx, &o, &in,
						    last ? ZSTD_e_flush : ZSTD_e_continue);
			if (ZSTD_isError(left))
				die("zstd", ZSTD_getErrorName(left));
		} while (in.pos < in.size || (last && left));
		done += n;
	}
	if (o.pos)
		emit(w, z, o.pos);
}

static void finish(struct rawfrag_writer *w, const char *file)
{
	if (rawfrag_writer__finish(w))
		wdie(w, file);
	rawfrag_writer__delete(w);
}

/* nr COMPRESSED records of `each` bytes of samples (or FINISHED_ROUNDs) */
static void zbomb(const char *file, const struct bomb_opts *o, int nr, size_t each, bool rounds)
{
	struct rawfrag_writer *w = writer(file, o);
	uint8_t round[8] = { RAWFRAG_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };
	struct zstream z;

	if (rounds)
		zs_init(&z, round, sizeof(round));
	else
		zs_init(&z, sample_rec, sample_len);
	for (int i = 0; i < nr; i++)
		zrecord(w, &z, each);
	zs_free(&z);
	finish(w, file);
}

/* uncompressed: nr samples, each followed by `rounds` FINISHED_ROUNDs */
static void rounds_file(const char *file, bool pipe, int nr, int rounds)
{
	struct rawfrag_writer *w = writer(file, &(struct bomb_opts){ .pipe = pipe });

	for (int i = 0; i < nr; i++) {
		if (rawfrag_writer__write_record(w, sample_rec, sample_len))
			wdie(w, file);
		for (int r = 0; r < rounds; r++)
			if (rawfrag_writer__finished_round(w))
				wdie(w, file);
	}
	finish(w, file);
}

/*
 * Pipe mode: nr more HEADER_ATTR records for the same tracepoint (fresh ids),
 * then samples. Each attr costs its 144 bytes, not a probe of every evsel
 * before it or a compiled print format of its own.
 */
static void attrs_file(const char *file, int nr)
{
	struct rawfrag_writer *w = writer(file, &(struct bomb_opts){ .pipe = true });
	uint8_t rec[8 + sizeof(struct perf_event_attr) + 8];
	struct perf_event_attr a = { .size = sizeof(a), .sample_period = 1,
				     .sample_type = sample_type, .sample_id_all = 1 };
	uint32_t type = RAWFRAG_RECORD_HEADER_ATTR;
	uint16_t misc = 0, size = sizeof(rec);

	a.type = tp_id ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
	a.config = tp_id ? tp_id : PERF_COUNT_SW_CPU_CLOCK;
	memcpy(rec, &type, 4);
	memcpy(rec + 4, &misc, 2);
	memcpy(rec + 6, &size, 2);
	memcpy(rec + 8, &a, sizeof(a));
	for (int i = 0; i < nr; i++) {
		uint64_t id = 1000 + (uint64_t)i;

		memcpy(rec + 8 + sizeof(a), &id, 8);
		if (rawfrag_writer__write_record(w, rec, sizeof(rec)))
			wdie(w, file);
	}
	for (int i = 0; i < 100; i++)
		if (rawfrag_writer__write_record(w, sample_rec, sample_len))
			wdie(w, file);
	finish(w, file);
}

static void entry(const char *file, const char *expect, const char *error)
{
	fprintf(manifest, "%s %s%s%s\n", file, expect, error ? " " : "", error ? error : "");
}

int main(int argc, char **argv)
{
	const struct bomb_opts perf_like = { .feature = true, .mmap_len = PERF_MMAP_LEN };
	const struct bomb_opts perf_pipe = { .pipe = true, .feature = true,
					     .mmap_len = PERF_MMAP_LEN };
	const struct bomb_opts huge_mmap = { .feature = true, .mmap_len = 0xffffffffu };

	if (argc < 2) {
		fprintf(stderr, "usage: bomb-gen DIR [TRACEFS]\n");
		return 2;
	}
	dir = argv[1];
	if (argc > 2)
		tracefs = argv[2];
	manifest = fopen(path_of("MANIFEST"), "w");
	if (!manifest)
		die("MANIFEST", strerror(errno));
	tp_id = read_tp_id();
	make_sample();

	/* each record expands past mmap_len: perf refuses the first one */
	zbomb("z-mmaplen.data", &perf_like, 8, 64u << 20, false);
	entry("z-mmaplen.data", "refuse", "more than HEADER_COMPRESSED.s mmap_len");
	zbomb("z-mmaplen-pipe.data", &perf_pipe, 8, 64u << 20, false);
	entry("z-mmaplen-pipe.data", "refuse", "more than HEADER_COMPRESSED.s mmap_len");
	/* mmap_len claims 4 GiB: the overall ratio stops it */
	zbomb("z-ratio.data", &huge_mmap, 48, 8u << 20, false);
	entry("z-ratio.data", "refuse", "expansion ratio");
	/* no HEADER_COMPRESSED: a default bound per record */
	zbomb("z-nofeat.data", &(struct bomb_opts){ 0 }, 16, 32u << 20, false);
	entry("z-nofeat.data", "refuse", "more than the default bound");
	/* FINISHED_ROUNDs within mmap_len per record, stopped by the ratio */
	zbomb("z-rounds.data", &perf_like, 400, PERF_MMAP_LEN - 4096, true);
	entry("z-rounds.data", "refuse", "expansion ratio");
	/* inside every bound: 48 MiB of samples from a few KiB, read to the end */
	zbomb("z-inbounds.data", &perf_like, 96, 512u << 10, false);
	entry("z-inbounds.data", "bounded", NULL);
	/* 400 KiB of FINISHED_ROUNDs around samples, file and pipe mode */
	rounds_file("rounds.data", false, 2500, 9);
	entry("rounds.data", "bounded", NULL);
	rounds_file("rounds-pipe.data", true, 2500, 9);
	entry("rounds-pipe.data", "bounded", NULL);
	rounds_file("rounds-only.data", false, 1, 50000);
	entry("rounds-only.data", "bounded", NULL);
	attrs_file("attrs-pipe.data", 8000);
	entry("attrs-pipe.data", "bounded", NULL);
	fclose(manifest);
	return 0;
}
