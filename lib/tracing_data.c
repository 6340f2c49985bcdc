// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * HEADER_TRACING_DATA blob, version 0.6, as perf's tracing_data_get() lays it
 * out (raw-layouts.md §4.2, perf-ecosystem.md §1.6), from tracefs. Numbers are
 * in the requested byte order, which the blob itself declares.
 */
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

/* count + formats of the events of system sys (each event once) */
static int put_system(struct rw_buf *b, const char *tracefs, const struct td_event *ev,
		      int nr, const char *sys, struct rawfrag_err *err)
{
	char path[512];
	uint32_t count = 0;
	int ret;

	for (int i = 0; i < nr; i++) {
		bool dup = false;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(ev[j].sys, ev[i].sys) && !strcmp(ev[j].name, ev[i].name);
		if (!strcmp(ev[i].sys, sys) && !dup)
			count++;
	}
	rw_buf__put32(b, count);
	for (int i = 0; i < nr; i++) {
		bool dup = false;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(ev[j].sys, ev[i].sys) && !strcmp(ev[j].name, ev[i].name);
		if (strcmp(ev[i].sys, sys) || dup)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, ev[i].sys,
			 ev[i].name);
		ret = put_file(b, path, false);
		if (ret)
			return td_fail(err, ret, "%s:%s: cannot read %s: %s", ev[i].sys,
				       ev[i].name, path, strerror(-ret));
	}
	return 0;
}

static int put_events(struct rw_buf *b, const char *tracefs, const struct td_event *ev,
		      int nr, struct rawfrag_err *err)
{
	uint32_t nr_sys = 0;
	int ret;

	/* perf keeps ftrace's own events in a section of their own */
	ret = put_system(b, tracefs, ev, nr, "ftrace", err);
	if (ret)
		return ret;
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			rw_buf__put32(b, nr_sys);
		for (int i = 0; i < nr; i++) {
			bool seen = !strcmp(ev[i].sys, "ftrace");

			for (int j = 0; j < i && !seen; j++)
				seen = !strcmp(ev[j].sys, ev[i].sys);
			if (seen)
				continue;
			if (!pass) {
				nr_sys++;
				continue;
			}
			rw_buf__put(b, ev[i].sys, strlen(ev[i].sys) + 1);
			ret = put_system(b, tracefs, ev, nr, ev[i].sys, err);
			if (ret)
				return ret;
		}
	}
	return 0;
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
