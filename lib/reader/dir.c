// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Directory recordings. perf record --threads writes perf.data/ as a
 * directory: "data", a perf.data file whose header has HEADER_DIR_FORMAT
 * (a u64 data version) and whose data section holds the main thread's
 * records, and "data.N", one per ring buffer, records only (no header), each
 * as long as the file. Version 0 (perf record --kcore) is the data file
 * alone; version 1 adds the data.N files.
 *
 * perf lists the data.N files in readdir() order and reads them in that
 * order (file.c does the reading); here they are found, checked and opened.
 * perf skips what is not a regular file and does not notice a missing one;
 * both are errors here, naming the file: a FIFO would block, a device never
 * end, and a missing file would silently lose a CPU's records. The data.N
 * names must run from 0 without a gap, and to the number of ring buffers the
 * ID_INDEX record of data names when there is one (the header does not say).
 *
 * Every file is opened O_NONBLOCK and checked with fstat() on the open fd,
 * so a FIFO planted between the check and the open cannot block either.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/dir.h"

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* fd, opened without blocking, if it is a regular file; else -1 with the error set */
static int open_regular(struct rawfrag_file *f, const char *name, struct stat *st)
{
	int fd = openat(f->dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		rf_error(f, -1, 0, "%s: %s", name,
			 e == ENOENT ? "missing (or a dangling symlink)" : strerror(e));
		f->err.err = -e;
		return -1;
	}
	if (fstat(fd, st)) {
		int e = errno;

		rf_error(f, -1, 0, "%s: %s", name, strerror(e));
		f->err.err = -e;
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		rf_error(f, -1, 0, "%s: %s, not a perf.data file", name, file_kind(st->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

int rf_dir__open_data(struct rawfrag_file *f)
{
	struct stat st;
	int fd;

	f->dir_fd = f->fd;
	f->own_dir_fd = f->own_fd;
	f->fd = -1;
	f->own_fd = false;
	fd = open_regular(f, "data", &st);
	if (fd < 0 && f->err.err == -ENOENT)
		snprintf(f->err.reason, sizeof(f->err.reason),
			 "a directory without a data file: not a perf.data directory");
	if (fd < 0)
		return f->err.err;
	f->fd = fd;
	f->own_fd = true;
	return 0;
}

/* N of a "data.N" name; -1 for other names, -2 for "data." names that are not data.N */
static long data_index(const char *name)
{
	const char *p = name + 5;
	long n = 0;

	if (strncmp(name, "data.", 5))
		return -1;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1]))
		return -2;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n >= RF_MAX_DATA_FILES)
			return -2;
		n = n * 10 + (*p - '0');
	}
	return n < RF_MAX_DATA_FILES ? n : -2;
}

struct dent {
	char *name;
	long idx;
};

/* the data.N names in readdir() order (perf's) into *out; count or -errno */
static int list_data_files(struct rawfrag_file *f, struct dent **out)
{
	struct dent *v = NULL, *nv;
	int n = 0, cap = 0, dfd;
	struct dirent *de;
	DIR *d;

	dfd = openat(f->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int e = errno;

		if (dfd >= 0)
			close(dfd);
		rf_error(f, -1, 0, "cannot list the directory: %s", strerror(e));
		return f->err.err = -e;
	}
	while ((de = readdir(d))) {
		long idx = data_index(de->d_name);

		if (idx == -2)
			rf_print(f, RAWFRAG_WARN,
				 "rawfrag: %s: %s: not a data.N name, not read (perf 6.1 "
				 "would read it)\n",
				 f->path, de->d_name);
		if (idx < 0)
			continue;
		if (n == RF_MAX_DATA_FILES) {
			rf_error(f, -1, 0, "more than %d data.N files", RF_MAX_DATA_FILES);
			goto fail;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
		}
		v[n].name = strdup(de->d_name);
		if (!v[n].name)
			goto oom;
		v[n++].idx = idx;
	}
	closedir(d);
	*out = v;
	return n;
oom:
	rf_error(f, -1, 0, "out of memory");
	f->err.err = -ENOMEM;
fail:
	closedir(d);
	while (n--)
		free(v[n].name);
	free(v);
	return f->err.err;
}

/*
 * The number of ring buffers of the recording, from the ID_INDEX records perf
 * writes first in data (one per 2047 ids): each id's idx is its ring buffer,
 * and perf record --threads writes one data.N per ring buffer. 0 when unknown.
 */
#define RF_ID_INDEX_LOOK 64 /* records of data looked at */

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static long id_index_max(const struct rawfrag_file *f, const uint8_t *rec, uint16_t size)
{
	uint64_t nr = rf_u64(rec + 8, f->swap), i, idx, max = 0;

	if (nr == 0 || nr > (size - 16u) / 32u)
		return 0;
	for (i = 0; i < nr; i++) {
		idx = rf_u64(rec + 16 + 32 * i + 8, f->swap);
		if (idx >= RF_MAX_DATA_FILES)
			return 0;
		if (idx > max)
			max = idx;
	}
	return (long)max + 1;
}

static long ring_buffers(const struct rawfrag_file *f)
{
	uint64_t off = f->data_offset, end = f->data_offset + f->data_size;
	uint8_t h[8], *rec;
	uint16_t size;
	long n = 0, m;
	int k;

	for (k = 0; k < RF_ID_INDEX_LOOK && end - off >= 8; k++) {
		if (pread_full(f->fd, h, 8, off))
			return 0;
		size = rawfrag__get16(h + 6, f->swap);
		if (size < 8 || size > end - off)
			return 0;
		if (rf_u32(h, f->swap) != RAWFRAG_RECORD_ID_INDEX) {
			if (n)
				break; /* past the ID_INDEX records */
		} else if (size >= 16) {
			rec = malloc(size);
			m = 0;
			if (rec && !pread_full(f->fd, rec, size, off))
				m = id_index_max(f, rec, size);
			free(rec);
			if (!m)
				return 0;
			if (m > n)
				n = m;
		}
		off += size;
	}
	return n;
}

/*
 * data.0 .. data.(n - 1), each once, and as many as the ring buffers; else
 * the error names the first missing one.
 */
static int check_complete(struct rawfrag_file *f, const struct dent *v, int n, long rings)
{
	long total = rings > n ? rings : n, max = -1;
	unsigned char *seen = calloc((size_t)total + 1, 1);
	long i;

	if (!seen) {
		rf_error(f, -1, 0, "out of memory");
		return f->err.err = -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (v[i].idx < total)
			seen[v[i].idx] = 1;
		if (v[i].idx > max)
			max = v[i].idx;
	}
	for (i = 0; i < total && seen[i]; i++)
		;
	free(seen);
	if (i == total)
		return 0;
	if (rings > n)
		return rf_error(f, -1, 0,
				"data.%ld: missing (the recording had %ld ring buffers, says data's "
				"ID_INDEX, and perf record --threads writes a data.N for each; "
				"found %d)",
				i, rings, n);
	return rf_error(f, -1, 0,
			"data.%ld: missing (there are data.N files up to data.%ld; perf record "
			"--threads writes one per ring buffer from data.0 without a gap)",
			i, max);
}

/* srcs[0]: the data file's own data section */
static int add_data_src(struct rawfrag_file *f)
{
	struct rf_dsrc *s = &f->srcs[0];
	size_t len = strlen(f->path) + sizeof("/data");

	s->fd = f->fd;
	s->path = malloc(len);
	if (!s->path) {
		rf_error(f, -1, 0, "out of memory");
		return f->err.err = -ENOMEM;
	}
	snprintf(s->path, len, "%s/data", f->path);
	s->name = s->path + len - sizeof("data");
	s->start = s->cur = f->data_offset;
	s->end = f->data_offset + f->data_size;
	return 0;
}

static int add_src(struct rawfrag_file *f, struct rf_dsrc *s, const char *name)
{
	size_t len = strlen(f->path) + 1 + strlen(name) + 1;
	struct stat st;

	s->fd = -1;
	s->path = malloc(len);
	if (!s->path) {
		rf_error(f, -1, 0, "out of memory");
		return f->err.err = -ENOMEM;
	}
	snprintf(s->path, len, "%s/%s", f->path, name);
	s->name = s->path + len - 1 - strlen(name);
	s->fd = open_regular(f, name, &st);
	if (s->fd < 0)
		return f->err.err;
	s->start = s->cur = 0;
	s->end = (uint64_t)st.st_size;
	return 0;
}

static int read_version(struct rawfrag_file *f, uint64_t *version)
{
	const struct rf_feat *ft = &f->feat[RAWFRAG_FEAT_DIR_FORMAT];

	*version = 0;
	if (!ft->buf)
		return 0;
	if (ft->size < 8)
		return rf_error(f, (int64_t)ft->offset, 0,
				"HEADER_DIR_FORMAT: %" PRIu64 " bytes, not a u64 data version",
				ft->size);
	*version = rf_u64(ft->buf, f->swap);
	if (*version > 1)
		return rf_error(f, (int64_t)ft->offset, 0,
				"HEADER_DIR_FORMAT: data version %" PRIu64
				" unknown (0: one data file, 1: data.N files too)",
				*version);
	return 0;
}

int rf_dir__open_files(struct rawfrag_file *f)
{
	struct dent *v = NULL;
	uint64_t version;
	int n, i, err;

	const struct rf_feat *ft = &f->feat[RAWFRAG_FEAT_DIR_FORMAT];

	if (f->dir_fd < 0) {
		/* a file is read alone, as perf reads it, whatever the feature says */
		if (ft->buf && ft->size >= 8 && rf_u64(ft->buf, f->swap) == 1)
			rf_print(f, RAWFRAG_WARN,
				 "rawfrag: %s: the data file of a directory recording (perf record "
				 "--threads): its data.N files are read only when the directory is "
				 "opened\n",
				 f->path);
		return 0;
	}
	err = read_version(f, &version);
	if (err)
		return err;
	/* a directory without data.N (version 0, or no HEADER_DIR_FORMAT): data alone */
	n = version == 1 ? list_data_files(f, &v) : 0;
	if (n < 0)
		return n;
	if (version == 1 && n == 0)
		return rf_error(f, -1, 0,
				"data.0: missing (HEADER_DIR_FORMAT version 1: perf record --threads "
				"writes data.N files beside data)");
	err = check_complete(f, v, n, ring_buffers(f));
	if (!err) {
		f->srcs = calloc((size_t)n + 1, sizeof(*f->srcs));
		if (!f->srcs) {
			rf_error(f, -1, 0, "out of memory");
			err = f->err.err = -ENOMEM;
		}
	}
	if (!err) {
		for (i = 1; i <= n; i++)
			f->srcs[i].fd = -1;
		f->nr_srcs = n + 1;
		err = add_data_src(f);
	}
	for (i = 0; !err && i < n; i++)
		err = add_src(f, &f->srcs[i + 1], v[i].name);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return err;
}

void rf_dir__free(struct rawfrag_file *f)
{
	int i;

	for (i = 0; i < f->nr_srcs; i++) {
		if (i && f->srcs[i].fd >= 0)
			close(f->srcs[i].fd);
		free(f->srcs[i].path);
	}
	free(f->srcs);
	f->srcs = NULL;
	f->nr_srcs = 0;
	if (f->own_dir_fd && f->dir_fd >= 0)
		close(f->dir_fd);
	f->dir_fd = -1;
}
