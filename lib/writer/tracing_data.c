// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * HEADER_TRACING_DATA blob, version 0.6, as perf's tracing_data_get() lays it
 * out (Documentation/perf.data-raw-format.txt, Tracepoints), from tracefs. Numbers are
 * in the requested byte order, which the blob itself declares. Systems and
 * events come in tracefs directory order, as perf writes them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/writer.h"

#define TRACEFS_DEFAULT "/sys/kernel/tracing"

static int td_fail(struct rawfrag_err *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int td_fail(struct rawfrag_err *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		memset(err, 0, sizeof(*err));
		err->err = e;
		err->offset = -1;
		va_start(ap, fmt);
		vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
		va_end(ap);
	}
	return e;
}

/* tracefs files report size 0: read until EOF into b (no length prefix) */
static int read_file(struct rw_buf *b, const char *path)
{
	char chunk[8192];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		rw_buf__put(b, chunk, (size_t)r);
	}
	if (r < 0)
		r = -errno;
	close(fd);
	return r < 0 ? (int)r : (b->oom ? -ENOMEM : 0);
}

/* u64 size + contents of path, or u32 size when size32 */
static int put_file(struct rw_buf *b, const char *path, bool size32)
{
	struct rw_buf tmp = { .swap = b->swap };
	int ret = read_file(&tmp, path);

	if (!ret) {
		if (size32)
			rw_buf__put32(b, (uint32_t)tmp.len);
		else
			rw_buf__put64(b, tmp.len);
		rw_buf__put(b, tmp.p, tmp.len);
	}
	free(tmp.p);
	return ret;
}

struct td_event {
	char sys[128];
	char name[128];
};

static int split_events(const char *const *events, int nr, struct td_event *ev,
			struct rawfrag_err *err)
{
	const char *colon;

	for (int i = 0; i < nr; i++) {
		colon = strchr(events[i], ':');
		if (!colon || colon == events[i] || !colon[1] ||
		    (size_t)(colon - events[i]) >= sizeof(ev[i].sys) ||
		    strlen(colon + 1) >= sizeof(ev[i].name) || strchr(events[i], '/'))
			return td_fail(err, -EINVAL, "%s: not a sys:name tracepoint", events[i]);
		memcpy(ev[i].sys, events[i], colon - events[i]);
		ev[i].sys[colon - events[i]] = 0;
		strcpy(ev[i].name, colon + 1);
	}
	return 0;
}

static bool wanted(const struct td_event *ev, int nr, const char *sys, const char *name)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(ev[i].sys, sys) && (!name || !strcmp(ev[i].name, name)))
			return true;
	return false;
}

/*
 * count + formats of the wanted events of system sys, in the directory's order
 * as perf writes them (so our blob and perf's compare byte for byte).
 */
static int put_system(struct rw_buf *b, const char *tracefs, const struct td_event *ev,
		      int nr, const char *sys, struct rawfrag_err *err)
{
	char path[512];
	struct dirent *d;
	uint32_t count = 0;
	DIR *dir;
	int ret = 0;

	if (!wanted(ev, nr, sys, NULL)) {
		rw_buf__put32(b, 0);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events/%s", tracefs, sys);
	dir = opendir(path);
	if (!dir)
		return td_fail(err, -errno, "%s: cannot open %s: %s", sys, path, strerror(errno));
	while ((d = readdir(dir)))
		count += wanted(ev, nr, sys, d->d_name);
	rw_buf__put32(b, count);
	rewinddir(dir);
	while (!ret && (d = readdir(dir))) {
		if (!wanted(ev, nr, sys, d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, d->d_name);
		ret = put_file(b, path, false);
		if (ret)
			td_fail(err, ret, "%s:%s: cannot read %s: %s", sys, d->d_name, path,
				strerror(-ret));
	}
	closedir(dir);
	return ret;
}

static int put_events(struct rw_buf *b, const char *tracefs, const struct td_event *ev,
		      int nr, struct rawfrag_err *err)
{
	char path[512];
	struct dirent *d;
	uint32_t nr_sys = 0;
	DIR *dir;
	int ret;

	/* every event must exist: a missing one is an error, not a silent omission */
	for (int i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, ev[i].sys,
			 ev[i].name);
		if (access(path, R_OK))
			return td_fail(err, -errno, "%s:%s: no such tracepoint (%s: %s)",
				       ev[i].sys, ev[i].name, path, strerror(errno));
	}
	/* perf keeps ftrace's own events in a section of their own */
	ret = put_system(b, tracefs, ev, nr, "ftrace", err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/events", tracefs);
	dir = opendir(path);
	if (!dir)
		return td_fail(err, -errno, "cannot open %s: %s", path, strerror(errno));
	while ((d = readdir(dir)))
		nr_sys += strcmp(d->d_name, "ftrace") && wanted(ev, nr, d->d_name, NULL);
	rw_buf__put32(b, nr_sys);
	rewinddir(dir);
	while (!ret && (d = readdir(dir))) {
		if (!strcmp(d->d_name, "ftrace") || !wanted(ev, nr, d->d_name, NULL))
			continue;
		rw_buf__put(b, d->d_name, strlen(d->d_name) + 1);
		ret = put_system(b, tracefs, ev, nr, d->d_name, err);
	}
	closedir(dir);
	return ret;
}

int rawfrag_tracing_data__build(const char *tracefs, const char *const *events,
				int nr_events, bool big_endian, void **blob, size_t *len,
				struct rawfrag_err *err)
{
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	struct rw_buf b = { .swap = big_endian != host_be };
	struct td_event *ev = NULL;
	char path[512];
	uint8_t c;
	int ret;

	if (!tracefs)
		tracefs = TRACEFS_DEFAULT;
	if (nr_events < 0 || (nr_events && !events))
		return td_fail(err, -EINVAL, "tracing data: bad event list");
	ev = calloc(nr_events ? nr_events : 1, sizeof(*ev));
	if (!ev)
		return td_fail(err, -ENOMEM, "tracing data: out of memory");
	ret = split_events(events, nr_events, ev, err);
	if (ret)
		goto out;

	rw_buf__put(&b, "\027\010\104tracing", 10);
	rw_buf__put(&b, "0.6", 4);
	c = big_endian;
	rw_buf__put(&b, &c, 1);
	c = sizeof(long);
	rw_buf__put(&b, &c, 1);
	rw_buf__put32(&b, (uint32_t)sysconf(_SC_PAGESIZE));

	rw_buf__put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	ret = put_file(&b, path, false);
	if (!ret) {
		rw_buf__put(&b, "header_event", 13);
		snprintf(path, sizeof(path), "%s/events/header_event", tracefs);
		ret = put_file(&b, path, false);
	}
	if (ret) {
		ret = td_fail(err, ret, "tracing data: cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	ret = put_events(&b, tracefs, ev, nr_events, err);
	if (ret)
		goto out;
	rw_buf__put32(&b, 0); /* kallsyms: perf always writes none */
	snprintf(path, sizeof(path), "%s/printk_formats", tracefs);
	if (put_file(&b, path, true))
		rw_buf__put32(&b, 0);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs);
	if (put_file(&b, path, false))
		rw_buf__put64(&b, 0);
	if (b.oom) {
		ret = td_fail(err, -ENOMEM, "tracing data: out of memory");
		goto out;
	}
	*blob = b.p;
	*len = b.len;
	b.p = NULL;
out:
	free(b.p);
	free(ev);
	return ret;
}
