// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data file header (file mode): perf_file_header, the attrs with their ids
 * sections, the feature bitmap and table. Offsets and sizes from the file are
 * checked against the file size before anything is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/attr.h"
#include "internal/evsel.h"
#include "internal/features.h"
#include "internal/header.h"

/* pread exactly len bytes at off; -EIO (or -errno) on a short read */
static int rf_pread(struct rawfrag_file *f, void *buf, uint64_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = pread(f->fd, p, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		len -= (uint64_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static bool test_feat(const uint64_t *bm, int bit)
{
	return bm[bit / 64] >> (bit % 64) & 1;
}

/*
 * The bitmap of a foreign file: as perf does, swap it as four u64s; if HOSTNAME is
 * not set then, try eight u32 swaps (a 32-bit writer), and if it is still not set
 * assume an old file with only BUILD_ID.
 */
static void read_bitmap(struct rawfrag_file *f, const uint8_t *raw)
{
	uint32_t w32[8];
	int i;

	for (i = 0; i < 4; i++)
		f->features[i] = rf_u64(raw + 8 * i, f->swap);
	if (!f->swap || test_feat(f->features, RAWFRAG_FEAT_HOSTNAME))
		return;
	for (i = 0; i < 8; i++)
		w32[i] = rf_u32(raw + 4 * i, true);
	memcpy(f->features, w32, sizeof(w32));
	if (test_feat(f->features, RAWFRAG_FEAT_HOSTNAME)) {
		rf_print(f, RAWFRAG_INFO,
			 "rawfrag: %s: feature bitmap written by a 32-bit writer, swapped as u32s\n",
			 f->path);
		return;
	}
	memset(f->features, 0, sizeof(f->features));
	f->features[0] = 1ULL << RAWFRAG_FEAT_BUILD_ID;
	rf_print(f, RAWFRAG_WARN,
		 "rawfrag: %s: byte-swapped file without HOSTNAME feature: "
		 "assuming BUILD_ID only, all other features ignored (as perf does)\n",
		 f->path);
}

/*
 * An error in the file's header: the part it is about stands where a record
 * error names its record type ("offset 0x..: ATTR: ..."), first in the reason.
 */
static int __attribute__((format(printf, 4, 5)))
hdr_error(struct rawfrag_file *f, int64_t offset, const char *part, const char *fmt, ...)
{
	char why[sizeof(f->err.reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return rf_error(f, offset, 0, "%s: %s", part, why);
}

/* perf's names of the feature sections (enum HEADER_*), by bit */
static const char *const feat_names[RAWFRAG_FEAT_LAST] = {
	"HEADER_RESERVED", "HEADER_TRACING_DATA", "HEADER_BUILD_ID", "HEADER_HOSTNAME",
	"HEADER_OSRELEASE", "HEADER_VERSION", "HEADER_ARCH", "HEADER_NRCPUS",
	"HEADER_CPUDESC", "HEADER_CPUID", "HEADER_TOTAL_MEM", "HEADER_CMDLINE",
	"HEADER_EVENT_DESC", "HEADER_CPU_TOPOLOGY", "HEADER_NUMA_TOPOLOGY",
	"HEADER_BRANCH_STACK", "HEADER_PMU_MAPPINGS", "HEADER_GROUP_DESC", "HEADER_AUXTRACE",
	"HEADER_STAT", "HEADER_CACHE", "HEADER_SAMPLE_TIME", "HEADER_MEM_TOPOLOGY",
	"HEADER_CLOCKID", "HEADER_DIR_FORMAT", "HEADER_BPF_PROG_INFO", "HEADER_BPF_BTF",
	"HEADER_COMPRESSED", "HEADER_CPU_PMU_CAPS", "HEADER_CLOCK_DATA",
	"HEADER_HYBRID_TOPOLOGY", "HEADER_PMU_CAPS",
};

static int read_file_header(struct rawfrag_file *f)
{
	uint8_t h[RF_FILE_HEADER_SIZE];
	int err, swap;

	if (f->size < RF_FILE_HEADER_OLD)
		return hdr_error(f, 0, "HEADER", "file too short for a perf.data header (%" PRIu64 " bytes)",
				f->size);
	memset(h, 0, sizeof(h));
	err = rf_pread(f, h, f->size < sizeof(h) ? f->size : sizeof(h), 0);
	if (err)
		return hdr_error(f, 0, "HEADER", "cannot read the file header: %s", strerror(-err));
	swap = rf_magic_swap(h);
	if (swap < 0)
		return hdr_error(f, 0, "HEADER", "not a perf.data file (bad magic)");
	f->swap = swap;

	f->hdr_size = rf_u64(h + 8, f->swap);
	if (f->hdr_size != RF_FILE_HEADER_SIZE && f->hdr_size != RF_FILE_HEADER_OLD)
		return hdr_error(f, 8, "HEADER", "unsupported header size %" PRIu64, f->hdr_size);
	if (f->size < f->hdr_size)
		return hdr_error(f, 8, "HEADER", "file too short for the %" PRIu64 "-byte header",
				f->hdr_size);
	f->attr_size = rf_u64(h + 16, f->swap);
	f->attrs_offset = rf_u64(h + 24, f->swap);
	f->attrs_size = rf_u64(h + 32, f->swap);
	f->data_offset = rf_u64(h + 40, f->swap);
	f->data_size = rf_u64(h + 48, f->swap);
	if (f->hdr_size == RF_FILE_HEADER_SIZE)
		read_bitmap(f, h + 72);

	if (f->attr_size == 0)
		return hdr_error(f, 16, "HEADER", "attr size field is 0");
	if (!rf_fits(f->attrs_offset, f->attrs_size, f->size))
		return hdr_error(f, 24, "HEADER",
				"attrs section 0x%" PRIx64 "+0x%" PRIx64
				" beyond the file size 0x%" PRIx64,
				f->attrs_offset, f->attrs_size, f->size);
	/*
	 * data size 0 (perf and we write that at the start) or a data section
	 * past the end: the recording stopped before finishing its header
	 */
	if ((f->data_size == 0 || !rf_fits(f->data_offset, f->data_size, f->size)) &&
	    f->data_offset >= f->hdr_size && f->data_offset < f->size) {
		f->interrupted = f->data_size ? 2 : 1;
		f->data_size = f->size - f->data_offset;
		return 0;
	}
	if (f->data_size == 0)
		return hdr_error(f, 48, "HEADER", "data size is 0 (was perf record properly terminated?)");
	if (!rf_fits(f->data_offset, f->data_size, f->size))
		return hdr_error(f, 40, "HEADER",
				"data section 0x%" PRIx64 "+0x%" PRIx64
				" beyond the file size 0x%" PRIx64 " (truncated file?)",
				f->data_offset, f->data_size, f->size);
	return 0;
}

/* attr i's ids section (ids_off, ids_size checked to be in the file) into e */
static int read_ids(struct rawfrag_file *f, struct rawfrag_evsel *e, uint64_t i, uint64_t at,
		    uint64_t ids_off, uint64_t ids_size)
{
	uint8_t *ids = malloc(ids_size);
	int err;

	if (!ids)
		return hdr_error(f, (int64_t)at, "ATTR", "out of memory");
	err = rf_pread(f, ids, ids_size, ids_off);
	if (err) {
		err = hdr_error(f, (int64_t)ids_off, "ATTR", "attr %" PRIu64 ": cannot read ids", i);
		goto out;
	}
	err = rf_evsel__set_ids(e, ids, ids_size / 8, f->swap);
	if (err)
		err = hdr_error(f, (int64_t)at, "ATTR",
				err == -E2BIG ? "attr %" PRIu64 ": more than %u ids in all" :
						"attr %" PRIu64 ": out of memory",
				i, RF_MAX_IDS);
out:
	free(ids);
	return err;
}

/*
 * Attr i at off (p its bytes, end the section's end): its evsel and ids.
 * Returns the stride to the next attr (> 0), or the error.
 */
static int64_t read_attr(struct rawfrag_file *f, uint64_t i, uint64_t off, const uint8_t *p,
			 uint64_t end)
{
	struct perf_event_attr attr;
	struct rawfrag_evsel *e;
	uint64_t ids_off, ids_size;
	const char *why;
	uint32_t asz;
	int err;

	err = rf_attr__read(&attr, &asz, p, end - off, f->swap, &why);
	if (err)
		return hdr_error(f, (int64_t)off, "ATTR", "attr %" PRIu64 ": %s", i, why);
	if (asz > sizeof(attr))
		rf_print(f, RAWFRAG_WARN,
			 "rawfrag: %s: attr %" PRIu64 " has %u bytes, %zu more than known: ignored\n",
			 f->path, i, asz, (size_t)(asz - sizeof(attr)));
	if (!rf_fits(off + asz, 16, end))
		return hdr_error(f, (int64_t)(off + asz), "ATTR",
				 "attr %" PRIu64 ": ids section beyond the attrs section", i);
	ids_off = rf_u64(p + asz, f->swap);
	ids_size = rf_u64(p + asz + 8, f->swap);
	if (!rf_fits(ids_off, ids_size, f->size) || ids_size % 8 || ids_size > RF_MAX_SECTION)
		return hdr_error(f, (int64_t)(off + asz), "ATTR",
				 "attr %" PRIu64 ": ids 0x%" PRIx64 "+0x%" PRIx64
				 " beyond the file size or not u64s",
				 i, ids_off, ids_size);
	e = rf_evsel__new(f, &attr, asz);
	if (!e)
		return hdr_error(f, (int64_t)off, "ATTR", "out of memory");
	if (ids_size && (err = read_ids(f, e, i, off + asz, ids_off, ids_size)))
		return err;
	/* the stride is the attr's own size plus its ids section, as perf reads */
	return (int64_t)asz + 16;
}

static int read_attrs(struct rawfrag_file *f)
{
	uint64_t nr = f->attrs_size / f->attr_size, off = f->attrs_offset;
	uint64_t end = f->attrs_offset + f->attrs_size, i;
	uint8_t *buf = NULL;
	int err = 0;

	/* a real attrs section is a few KiB; do not allocate what a hostile header says */
	if (f->attrs_size > RF_MAX_SECTION)
		return hdr_error(f, 32, "HEADER", "attrs section size 0x%" PRIx64 " too large",
				f->attrs_size);
	buf = malloc(f->attrs_size ? f->attrs_size : 1);
	if (!buf)
		return hdr_error(f, (int64_t)off, "ATTR", "out of memory");
	err = rf_pread(f, buf, f->attrs_size, f->attrs_offset);
	if (err) {
		err = hdr_error(f, (int64_t)f->attrs_offset, "ATTR", "cannot read the attrs");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		int64_t stride;

		if (off >= end) {
			err = hdr_error(f, (int64_t)off, "ATTR", "attr %" PRIu64 " beyond the attrs section",
				       i);
			goto out;
		}
		stride = read_attr(f, i, off, buf + (off - f->attrs_offset), end);
		if (stride < 0) {
			err = (int)stride;
			goto out;
		}
		off += (uint64_t)stride;
	}
	if (f->nr_evsels == 0)
		err = hdr_error(f, 24, "HEADER", "no attrs in the file");
out:
	free(buf);
	return err;
}

static int read_features(struct rawfrag_file *f)
{
	uint64_t table = f->data_offset + f->data_size, n = 0, size;
	uint8_t *tab = NULL;
	int bit, i = 0, err = 0;

	for (bit = 0; bit < RAWFRAG_FEAT_BITS; bit++)
		n += test_feat(f->features, bit);
	if (!n)
		return 0;
	size = n * 16;
	if (!rf_fits(table, size, f->size))
		return hdr_error(f, (int64_t)table, "HEADER",
				"feature table (%" PRIu64 " entries) beyond the file size 0x%" PRIx64,
				n, f->size);
	tab = malloc(size);
	if (!tab)
		return hdr_error(f, (int64_t)table, "HEADER", "out of memory");
	err = rf_pread(f, tab, size, table);
	if (err) {
		err = hdr_error(f, (int64_t)table, "HEADER", "cannot read the feature table");
		goto out;
	}
	for (bit = 0; bit < RAWFRAG_FEAT_BITS; bit++) {
		struct rf_feat *ft = &f->feat[bit];
		const uint8_t *ent;

		if (!test_feat(f->features, bit))
			continue;
		ent = tab + 16 * i++;
		/* bits perf 6.1 does not know are skipped, as perf does */
		if (bit == 0 || bit >= RAWFRAG_FEAT_LAST)
			continue;
		ft->offset = rf_u64(ent, f->swap);
		ft->size = rf_u64(ent + 8, f->swap);
		if (!rf_fits(ft->offset, ft->size, f->size) || ft->size > RF_MAX_SECTION) {
			err = hdr_error(f, (int64_t)(table + 16 * (i - 1)), feat_names[bit],
				       "feature %d section 0x%" PRIx64 "+0x%" PRIx64
				       " beyond the file size 0x%" PRIx64,
				       bit, ft->offset, ft->size, f->size);
			goto out;
		}
		ft->buf = malloc(ft->size ? ft->size : 1);
		if (!ft->buf) {
			err = hdr_error(f, (int64_t)ft->offset, feat_names[bit], "out of memory");
			goto out;
		}
		err = rf_pread(f, ft->buf, ft->size, ft->offset);
		if (err) {
			err = hdr_error(f, (int64_t)ft->offset, feat_names[bit], "cannot read feature %d", bit);
			goto out;
		}
		/* a malformed payload loses only that feature (perf drops it too) */
		rf_feature__parse(f, bit, ft->buf, ft->size, (int64_t)ft->offset);
	}
out:
	free(tab);
	return err;
}

/*
 * An interrupted recording: walk the record headers to the first record cut
 * short (or zeroed) and keep the data section to the complete records before it.
 */
#define RF_SCAN_BUF (1u << 20)

static int scan_interrupted(struct rawfrag_file *f)
{
	uint64_t off = f->data_offset, end = f->data_offset + f->data_size, n = 0;
	uint64_t boff = 0, blen = 0;
	uint8_t *buf = malloc(RF_SCAN_BUF);

	if (!buf)
		return hdr_error(f, (int64_t)off, "DATA", "out of memory");
	/* header fields read through a 1 MiB buffer: a pread per record is slow */
	while (end - off >= 8) {
		uint16_t size;

		if (off < boff || off + 8 > boff + blen) {
			blen = end - off < RF_SCAN_BUF ? end - off : RF_SCAN_BUF;
			boff = off;
			if (rf_pread(f, buf, blen, boff))
				break;
		}
		size = rawfrag__get16(buf + (off - boff) + 6, f->swap);
		if (size < 8 || size > end - off)
			break;
		off += size;
		n++;
	}
	free(buf);
	f->data_size = off - f->data_offset;
	if (!f->force)
		return hdr_error(f, (int64_t)off, "DATA",
				"recording was interrupted at offset %" PRIu64 "; %" PRIu64
				" complete records (%s; --force reads them)", off, n,
				f->interrupted == 1 ? "data size is 0: was perf record properly terminated?" :
				"the data section runs past the end of the file");
	rf_print(f, RAWFRAG_WARN,
		 "rawfrag: %s: recording was interrupted at offset %" PRIu64 "; %" PRIu64
		 " complete records (%s)\n", f->path, off, n,
		 f->interrupted == 1 ? "data size is 0: was perf record properly terminated?" :
		 "the data section runs past the end of the file");
	return 0;
}

int rf_header__read(struct rawfrag_file *f)
{
	int err;

	err = read_file_header(f);
	if (!err)
		err = read_attrs(f);
	/* an interrupted recording has no feature section (or a cut one) */
	if (!err && f->interrupted)
		memset(f->features, 0, sizeof(f->features));
	if (!err)
		err = read_features(f);
	if (!err && f->interrupted)
		err = scan_interrupted(f);
	return err;
}
