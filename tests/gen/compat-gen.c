// SPDX-License-Identifier: GPL-2.0
/*
 * compat-gen: perf.data files in the record layouts older (and newer) perf
 * releases wrote, one layout per fixture, made from a modern little-endian pipe
 * stream (tests/gen/tp-be-gen -l -p: tracepoint samples whose values that
 * generator chose and wrote to its EXPECT.jsonl). The samples are kept byte for
 * byte; only the layout around them changes.
 *
 *   compat-gen LAYOUT IN.pipe OUT
 *   compat-gen -l        list the layouts
 *
 * Layouts, "pipe-*" written in pipe mode, "file-*" in file mode (the perf
 * versions that wrote each are from perf's tools/perf/util/{header,session,
 * synthetic-events}.c and include/perf/event.h history):
 *   *-modern      the layout perf 6.1 writes (a control)
 *   *-td12        PERF_RECORD_HEADER_TRACING_DATA of 12 bytes (header + u32
 *                 size, no pad), the blob after it padded to 8: pipe mode of
 *                 every perf from 2.6.35 to 6.17 (the u32 pad came in 6.18 and
 *                 the stable releases that took it in October 2025, as the
 *                 6.1.192 installed here); in a file, what perf inject of such
 *                 a pipe wrote
 *   *-noidall     attrs without sample_id_all and kernel records other than
 *                 samples without the sample_id trailer: every perf before
 *                 2.6.38 (the bit came in 2.6.38), and later ones on kernels
 *                 without it
 *   *-td05        tracing data version "0.5": no saved_cmdlines section at
 *                 its end (perf releases before that section and "0.6" were
 *                 added, in the 3.x series); perf reads the section only from
 *                 "0.6" on
 *   *-attrN       attrs of N bytes: 64 (VER0, 2.6.31), 72 (VER1, 2.6.33), 80
 *                 (VER2, 3.4), 96 (VER3, 3.7), 104 (VER4, 3.19), 112 (VER5,
 *                 4.1), 120 (VER6, 5.5), 128 (VER7, 5.13), 136 (VER8, 6.3),
 *                 144 (a perf newer than any of these); file-attr0: attr.size
 *                 0, read as VER0 (2.6.31 - 2.6.32)
 *   *-event-type  PERF_RECORD_HEADER_EVENT_TYPE records (pipe, 2.6.35 to about 3.10)
 *                 or the file header's event_types section (2.6.31 to about 3.10);
 *                 perf ignores both since
 *   *-build-id    build-id entries without the size byte (before 5.11) and
 *                 with it (PERF_RECORD_MISC_BUILD_ID_SIZE, 5.11 on): pipe
 *                 HEADER_BUILD_ID records, file BUILD_ID feature
 *   file-build-id-nopid  BUILD_ID feature entries without the pid field
 *                 (2.6.33 - 2.6.34, the first releases with build-ids; perf
 *                 reads them by its "ABI quirk")
 *   *-mmap        PERF_RECORD_MMAP (all versions) and MMAP2 (3.16 on) records
 *   *-warn        PERF_RECORD_LOST and LOST_SAMPLES, which perf reads with a
 *                 warning only
 *   *-legacy      the "PERFFILE" magic of perf 2.6.31 - 3.3 (PERFILE2 from
 *                 3.4; the byte order then comes from the header's sizes;
 *                 file-legacy with VER0 attrs, as those releases wrote)
 *   file-hdr72    the 72-byte perf_file_header before the feature bitmap
 *                 (2.6.31 - 2.6.32; the bitmap came in 2.6.33): no features,
 *                 so no tracing data; the attrs become software events with
 *                 the same samples
 * attr.size 0, the 72-byte header and build-ids without a pid predate pipe
 * mode (2.6.35): those layouts are file-only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_ATTR 64
#define REC_EVENT_TYPE 65
#define REC_TRACING_DATA 66
#define REC_BUILD_ID 67
#define REC_FEATURE 80
#define MISC_BUILD_ID_SIZE (1u << 15)
#define FEAT_TRACING_DATA 1
#define FEAT_BUILD_ID 2
#define FEAT_LAST 32
#define MAX_ATTRS 64

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(1);
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void hdr(struct buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(b, type);
	put(b, &misc, 2);
	put(b, &size, 2);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* what the modern stream holds */
struct attr {
	uint8_t a[256]; /* the attr, zero-extended */
	uint32_t size;
	const uint8_t *ids;
	uint32_t nr_ids;
};

static struct {
	uint8_t *in;
	size_t in_len;
	struct attr attrs[MAX_ATTRS];
	int nr_attrs;
	const uint8_t *feat[FEAT_LAST];
	size_t feat_len[FEAT_LAST];
	const uint8_t *td; /* the tracing data blob (padded) */
	uint32_t td_len;
	struct buf data; /* kernel records, in order */
	uint32_t pids[16];
	int nr_pids;
	/* the sample_id trailer of the first COMM: added records carry it too */
	const uint8_t *id_trailer;
	uint32_t id_trailer_len;
} m;

static int parse_modern(void)
{
	size_t off = 16;

	if (m.in_len < 16 || memcmp(m.in, "PERFILE2", 8) || get64(m.in + 8) != 16)
		return -1;
	while (off + 8 <= m.in_len) {
		const uint8_t *r = m.in + off;
		uint32_t type = (uint32_t)get64(r);
		uint16_t size;

		memcpy(&size, r + 6, 2);
		if (size < 8 || off + size > m.in_len)
			return -1;
		if (type == REC_ATTR && m.nr_attrs < MAX_ATTRS) {
			struct attr *a = &m.attrs[m.nr_attrs++];

			memcpy(&a->size, r + 8 + 4, 4);
			memcpy(a->a, r + 8, a->size);
			a->ids = r + 8 + a->size;
			a->nr_ids = (size - 8 - a->size) / 8;
		} else if (type == REC_FEATURE) {
			uint64_t id = get64(r + 8);

			if (id < FEAT_LAST) {
				m.feat[id] = r + 16;
				m.feat_len[id] = size - 16u;
			}
		} else if (type == REC_TRACING_DATA) {
			memcpy(&m.td_len, r + 8, 4);
			m.td = r + size;
			off += m.td_len;
		} else if (type < REC_ATTR) {
			uint32_t pid;

			put(&m.data, r, size);
			memcpy(&pid, r + 8, 4);
			if (type == 3 /* COMM */ && m.nr_pids < 16)
				m.pids[m.nr_pids++] = pid;
			if (type == 3 && !m.id_trailer) {
				size_t n = (strnlen((const char *)r + 16, size - 16u) + 1 + 7) & ~(size_t)7;

				m.id_trailer = r + 16 + n;
				m.id_trailer_len = (uint32_t)(size - 16 - n);
			}
		}
		off += size;
	}
	return m.nr_attrs && m.td ? 0 : -1;
}

/*
 * The tracing data as version "0.5" wrote it: the same sections without the
 * saved_cmdlines one at the end (u64 size, text), re-padded to 8. Walks the
 * little-endian sections: header_page, header_event, ftrace formats, systems,
 * kallsyms, printk; returns -1 when the blob is not "0.6".
 */
static int td_sections_end(const uint8_t *b, uint32_t len, size_t *end)
{
	size_t o = 10 + 4; /* magic, "0.6" */
	uint32_t n, nsys;

#define NEED(x) do { if ((x) > len) return -1; } while (0)
#define SKIP64() do { NEED(o + 8); o += 8 + get64(b + o); NEED(o); } while (0)
#define U32(v) do { NEED(o + 4); memcpy(&(v), b + o, 4); o += 4; } while (0)
	if (len < 14 || memcmp(b + 10, "0.6", 4))
		return -1;
	o += 2 + 4 + 12; /* byte order, long size, page size, "header_page" */
	SKIP64();
	o += 13; /* "header_event" */
	SKIP64();
	U32(n);
	while (n--)
		SKIP64();
	U32(nsys);
	while (nsys--) {
		o += strnlen((const char *)b + o, len - o) + 1;
		U32(n);
		while (n--)
			SKIP64();
	}
	for (int i = 0; i < 2; i++) { /* kallsyms, printk: u32 sizes */
		U32(n);
		o += n;
		NEED(o);
	}
#undef NEED
#undef SKIP64
#undef U32
	*end = o;
	return 0;
}

static int make_td05(void)
{
	size_t end;
	uint8_t *b;

	if (td_sections_end(m.td, m.td_len, &end))
		return -1;
	b = calloc(1, end + 8);
	if (!b)
		return -1;
	memcpy(b, m.td, end);
	b[12] = '5';
	m.td = b;
	m.td_len = (uint32_t)((end + 7) & ~(size_t)7);
	return 0;
}

/*
 * Before sample_id_all (attr flags bit 18, 2.6.38) only samples said which
 * event, time and CPU they came from: clear the bit and cut the trailer off
 * every other kernel record.
 */
static void make_noidall(void)
{
	struct buf d = { 0 };

	for (int i = 0; i < m.nr_attrs; i++) {
		uint64_t flags = get64(m.attrs[i].a + 40) & ~(1ULL << 18);

		memcpy(m.attrs[i].a + 40, &flags, 8);
	}
	for (size_t off = 0; off + 8 <= m.data.len;) {
		const uint8_t *r = m.data.p + off;
		uint32_t type = (uint32_t)get64(r);
		uint16_t size, cut;

		memcpy(&size, r + 6, 2);
		cut = type != 9 /* SAMPLE */ && size >= 8 + m.id_trailer_len ?
			      (uint16_t)(size - m.id_trailer_len) : size;
		put(&d, r, cut);
		memcpy(d.p + d.len - cut + 6, &cut, 2);
		off += size;
	}
	free(m.data.p);
	m.data = d;
	m.id_trailer_len = 0;
}

/* ---- the records a layout adds ---- */

static void event_type_records(struct buf *b)
{
	for (int i = 0; i < m.nr_attrs; i++) {
		char name[64] = { 0 };

		snprintf(name, sizeof(name), "tracepoint-%d", i);
		hdr(b, REC_EVENT_TYPE, 0, 8 + 8 + 64);
		put64(b, get64(m.attrs[i].a + 8)); /* config: the tracepoint id */
		put(b, name, 64);
	}
}

/* one build-id entry (record or feature entry): with_size adds the size byte */
static void build_id_entry(struct buf *b, bool with_size, const char *name, uint8_t seed)
{
	uint8_t id[24] = { 0 };
	size_t nlen = (strlen(name) + 1 + 7) & ~(size_t)7;

	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(seed + 13 * i);
	if (with_size)
		id[20] = 20;
	hdr(b, REC_BUILD_ID, (uint16_t)(1 /* KERNEL */ | (with_size ? MISC_BUILD_ID_SIZE : 0)),
	    (uint16_t)(8 + 4 + 24 + nlen));
	put32(b, (uint32_t)-1);
	put(b, id, 24);
	put(b, NULL, nlen);
	memcpy(b->p + b->len - nlen, name, strlen(name));
}

static void build_ids(struct buf *b)
{
	build_id_entry(b, false, "/usr/lib/compat-gen/old.so", 1);
	build_id_entry(b, true, "/usr/lib/compat-gen/new.so", 2);
}

/*
 * The BUILD_ID feature before build_id_event had its pid (2.6.33 - 2.6.34):
 * header, build_id[24], filename. perf tells it by the kernel's entry read
 * with a pid: "[kernel.kallsyms]" loses its first 4 characters.
 */
static void build_ids_nopid(struct buf *b)
{
	static const char *const names[] = { "[kernel.kallsyms]", "/usr/lib/compat-gen/old.so" };

	for (int i = 0; i < 2; i++) {
		size_t nlen = (strlen(names[i]) + 1 + 7) & ~(size_t)7;
		uint8_t id[24] = { 0 };

		for (int j = 0; j < 20; j++)
			id[j] = (uint8_t)(i + 7 * j);
		hdr(b, REC_BUILD_ID, i ? 2 : 1, (uint16_t)(8 + 24 + nlen));
		put(b, id, 24);
		put(b, NULL, nlen);
		memcpy(b->p + b->len - nlen, names[i], strlen(names[i]));
	}
}

static void mmap_records(struct buf *b)
{
	for (int i = 0; i < m.nr_pids; i++) {
		const char *fn = "/usr/bin/compat-gen";
		size_t nlen = (strlen(fn) + 1 + 7) & ~(size_t)7;

		/* MMAP: pid, tid, start, len, pgoff, filename, sample_id */
		hdr(b, 1, 2 /* USER */, (uint16_t)(8 + 8 + 24 + nlen + m.id_trailer_len));
		put32(b, m.pids[i]);
		put32(b, m.pids[i]);
		put64(b, 0x400000);
		put64(b, 0x1000);
		put64(b, 0);
		put(b, NULL, nlen);
		memcpy(b->p + b->len - nlen, fn, strlen(fn));
		put(b, m.id_trailer, m.id_trailer_len);
		/* MMAP2: + maj, min, ino, ino_generation, prot, flags */
		hdr(b, 10, 2, (uint16_t)(8 + 8 + 24 + 24 + 8 + nlen + m.id_trailer_len));
		put32(b, m.pids[i]);
		put32(b, m.pids[i]);
		put64(b, 0x600000);
		put64(b, 0x1000);
		put64(b, 0);
		put32(b, 8);
		put32(b, 1);
		put64(b, 12345);
		put64(b, 0);
		put32(b, 5);
		put32(b, 2);
		put(b, NULL, nlen);
		memcpy(b->p + b->len - nlen, fn, strlen(fn));
		put(b, m.id_trailer, m.id_trailer_len);
	}
}

/*
 * Records perf 6.1 reads with a warning only: PERF_RECORD_LOST ("lost N
 * chunks") and PERF_RECORD_LOST_SAMPLES, with the sample_id trailer.
 */
static void warn_records(struct buf *b)
{
	hdr(b, 2 /* LOST */, 0, (uint16_t)(8 + 16 + m.id_trailer_len));
	put64(b, get64(m.attrs[0].ids));
	put64(b, 7);
	put(b, m.id_trailer, m.id_trailer_len);
	hdr(b, 13 /* LOST_SAMPLES */, 0, (uint16_t)(8 + 8 + m.id_trailer_len));
	put64(b, 3);
	put(b, m.id_trailer, m.id_trailer_len);
}

/* ---- options of one layout ---- */

struct layout {
	const char *name;
	bool file;
	uint32_t attr_size; /* 0: as in the input */
	bool attr_size_zero, td12, td05, noidall, event_type, build_id, build_id_nopid, mmap, warn, legacy, hdr72;
};

static void attr_bytes(struct buf *b, const struct attr *a, const struct layout *l, bool soft)
{
	uint32_t n = l->attr_size ? l->attr_size : a->size;
	uint32_t field = l->attr_size_zero ? 0 : n;
	uint8_t at[256];

	memcpy(at, a->a, sizeof(at));
	if (n < a->size)
		memset(at + n, 0, sizeof(at) - n);
	memcpy(at + 4, &field, 4);
	if (soft) {
		uint32_t type = 1; /* PERF_TYPE_SOFTWARE */
		uint64_t config = 0; /* cpu-clock */

		memcpy(at, &type, 4);
		memcpy(at + 8, &config, 8);
	}
	put(b, at, n);
}

static void write_pipe(struct buf *o, const struct layout *l)
{
	put(o, l->legacy ? "PERFFILE" : "PERFILE2", 8);
	put64(o, 16);
	for (int i = 0; i < m.nr_attrs; i++) {
		const struct attr *a = &m.attrs[i];
		uint32_t n = l->attr_size ? l->attr_size : a->size;

		hdr(o, REC_ATTR, 0, (uint16_t)(8 + n + 8 * a->nr_ids));
		attr_bytes(o, a, l, false);
		put(o, a->ids, 8 * a->nr_ids);
	}
	if (l->event_type)
		event_type_records(o);
	for (int f = 1; f < FEAT_LAST; f++) {
		if (!m.feat[f] || f == FEAT_TRACING_DATA)
			continue;
		hdr(o, REC_FEATURE, 0, (uint16_t)(16 + m.feat_len[f]));
		put64(o, (uint64_t)f);
		put(o, m.feat[f], m.feat_len[f]);
	}
	hdr(o, REC_FEATURE, 0, 16);
	put64(o, FEAT_LAST);
	hdr(o, REC_TRACING_DATA, 0, l->td12 ? 12 : 16);
	put32(o, m.td_len);
	if (!l->td12)
		put32(o, 0);
	put(o, m.td, m.td_len);
	if (l->build_id)
		build_ids(o);
	if (l->mmap)
		mmap_records(o);
	if (l->warn)
		warn_records(o);
	put(o, m.data.p, m.data.len);
}

/* file mode: header, attrs + ids, data, feature table and sections */
static void write_file(struct buf *o, const struct layout *l)
{
	uint64_t hsize = l->hdr72 ? 72 : 104, feats[4] = { 0 };
	struct buf attrs = { 0 }, ids = { 0 }, data = { 0 }, ftab = { 0 }, fsec = { 0 };
	uint32_t n = l->attr_size ? l->attr_size : m.attrs[0].size;
	uint64_t ids_off, attrs_off, data_off, et_off = 0, et_size = 0, feat_off;
	struct buf et = { 0 };

	if (l->td12)
		hdr(&data, REC_TRACING_DATA, 0, 12), put32(&data, m.td_len), put(&data, m.td, m.td_len);
	if (l->mmap)
		mmap_records(&data);
	if (l->warn)
		warn_records(&data);
	put(&data, m.data.p, m.data.len);
	/* ids first, after the header; then attrs, event types, data */
	ids_off = hsize;
	for (int i = 0; i < m.nr_attrs; i++)
		put(&ids, m.attrs[i].ids, 8 * m.attrs[i].nr_ids);
	attrs_off = ids_off + ids.len;
	for (int i = 0, id = 0; i < m.nr_attrs; i++) {
		attr_bytes(&attrs, &m.attrs[i], l, l->hdr72);
		put64(&attrs, ids_off + 8 * id);
		put64(&attrs, 8 * m.attrs[i].nr_ids);
		id += m.attrs[i].nr_ids;
	}
	if (l->event_type) {
		event_type_records(&et);
		/* the section holds perf_trace_event_type entries: the records' bodies */
		struct buf body = { 0 };

		for (size_t p = 0; p < et.len; p += 8 + 72)
			put(&body, et.p + p + 8, 72);
		free(et.p);
		et = body;
		et_off = attrs_off + attrs.len;
		et_size = et.len;
	}
	data_off = attrs_off + attrs.len + et.len;
	feat_off = data_off + data.len;
	if (!l->hdr72) {
		bool want[FEAT_LAST] = { 0 };
		int nfeat = 0;

		for (int f = 1; f < FEAT_LAST; f++)
			want[f] = m.feat[f] || f == FEAT_TRACING_DATA ||
				  (f == FEAT_BUILD_ID && (l->build_id || l->build_id_nopid));
		if (l->td12)
			want[FEAT_TRACING_DATA] = false;
		for (int f = 1; f < FEAT_LAST; f++)
			if (want[f]) {
				feats[f / 64] |= 1ULL << (f % 64);
				nfeat++;
			}
		for (int f = 1; f < FEAT_LAST; f++) {
			struct buf s = { 0 };

			if (!want[f])
				continue;
			if (f == FEAT_TRACING_DATA)
				put(&s, m.td, m.td_len);
			else if (f == FEAT_BUILD_ID && l->build_id_nopid)
				build_ids_nopid(&s);
			else if (f == FEAT_BUILD_ID)
				build_ids(&s);
			else
				put(&s, m.feat[f], m.feat_len[f]);
			put64(&ftab, feat_off + 16 * (uint64_t)nfeat + fsec.len);
			put64(&ftab, s.len);
			put(&fsec, s.p, s.len);
			free(s.p);
		}
	}
	put(o, l->legacy ? "PERFFILE" : "PERFILE2", 8);
	put64(o, hsize);
	put64(o, n + 16);
	put64(o, attrs_off);
	put64(o, attrs.len);
	put64(o, data_off);
	put64(o, data.len);
	put64(o, et_off);
	put64(o, et_size);
	if (!l->hdr72)
		put(o, feats, sizeof(feats));
	put(o, ids.p, ids.len);
	put(o, attrs.p, attrs.len);
	put(o, et.p, et.len);
	put(o, data.p, data.len);
	put(o, ftab.p, ftab.len);
	put(o, fsec.p, fsec.len);
	free(attrs.p), free(ids.p), free(data.p), free(ftab.p), free(fsec.p), free(et.p);
}

#define BOTH(n, ...)                                                    \
	{ "pipe-" n, false, __VA_ARGS__ }, { "file-" n, true, __VA_ARGS__ }
#define ATTR(sz) BOTH("attr" #sz, .attr_size = sz)

static const struct layout layouts[] = {
	BOTH("modern", 0),
	BOTH("td12", .td12 = true),
	BOTH("td05", .td05 = true),
	BOTH("noidall", .noidall = true),
	ATTR(64), ATTR(72), ATTR(80), ATTR(96), ATTR(104), ATTR(112), ATTR(120), ATTR(128),
	ATTR(136), ATTR(144),
	{ "file-attr0", true, .attr_size = 64, .attr_size_zero = true },
	BOTH("event-type", .event_type = true),
	BOTH("build-id", .build_id = true),
	{ "file-build-id-nopid", true, .build_id_nopid = true },
	BOTH("mmap", .mmap = true),
	BOTH("warn", .warn = true),
	{ "pipe-legacy", false, .legacy = true },
	{ "file-legacy", true, .legacy = true, .attr_size = 64 },
	{ "file-hdr72", true, .hdr72 = true },
};

int main(int argc, char **argv)
{
	const struct layout *l = NULL;
	struct buf o = { 0 };
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
			printf("%s\n", layouts[i].name);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: compat-gen LAYOUT IN.pipe OUT | compat-gen -l\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(layouts[i].name, argv[1]))
			l = &layouts[i];
	f = fopen(argv[2], "rb");
	if (!l || !f) {
		fprintf(stderr, "compat-gen: unknown layout %s or cannot read %s\n", argv[1], argv[2]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	m.in_len = (size_t)ftell(f);
	rewind(f);
	m.in = malloc(m.in_len ? m.in_len : 1);
	if (!m.in || fread(m.in, 1, m.in_len, f) != m.in_len)
		return 2;
	fclose(f);
	if (parse_modern()) {
		fprintf(stderr, "compat-gen: %s is not a little-endian pipe stream with tracing data\n",
			argv[2]);
		return 2;
	}
	if (l->td05 && make_td05()) {
		fprintf(stderr, "compat-gen: %s: tracing data is not version 0.6\n", argv[2]);
		return 2;
	}
	if (l->noidall)
		make_noidall();
	if (l->file)
		write_file(&o, l);
	else
		write_pipe(&o, l);
	f = fopen(argv[3], "wb");
	if (!f || fwrite(o.p, 1, o.len, f) != o.len || fclose(f))
		return 2;
	free(o.p);
	free(m.in);
	free(m.data.p);
	return 0;
}
