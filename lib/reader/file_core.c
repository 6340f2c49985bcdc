// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's core services (internal/file.h): the one error of a file,
 * messages through its print callback, and allocations kept until close. They
 * sit below every other part of the reader so that none of those parts calls
 * back up into file.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/file.h"

/*
 * An error at an offset of a directory recording's data or data.N: callers
 * name what they opened (the directory), so the data file, the offset in it
 * and the record type go first in the reason ("perf.data: data.1: offset
 * 0x...: SAMPLE: ..."), and the error has no offset of its own.
 */
static void name_data_file(struct rawfrag_file *f)
{
	struct rawfrag_err e = f->err;
	const char *name = f->nr_srcs ? f->srcs[f->src].name : "data";

	rawfrag_err__format(&e, name, f->err.reason, sizeof(f->err.reason));
	f->err.offset = -1;
	f->err.rec_type = 0;
}

int rf_error(struct rawfrag_file *f, int64_t offset, uint32_t type, const char *fmt, ...)
{
	va_list ap;

	f->err.err = -EINVAL;
	f->err.offset = offset;
	f->err.rec_type = type;
	va_start(ap, fmt);
	vsnprintf(f->err.reason, sizeof(f->err.reason), fmt, ap);
	va_end(ap);
	if (f->dir_fd >= 0 && offset >= 0)
		name_data_file(f);
	return -EINVAL;
}

int rf_rec_error(struct rawfrag_file *f, int64_t offset, uint32_t type, const char *fmt, ...)
{
	char why[sizeof(f->err.reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (type)
		return rf_error(f, offset, type, "%s", why);
	return rf_error(f, offset, 0, "UNKNOWN(0): %s", why);
}

void rf_print(const struct rawfrag_file *f, enum rawfrag_print_level level, const char *fmt,
	      ...)
{
	va_list ap;

	if (!f->print)
		return;
	va_start(ap, fmt);
	f->print(level, f->print_ctx, fmt, ap);
	va_end(ap);
}

/* Remember p to free it at close; returns p (NULL stays NULL). */
void *rf_keep(struct rawfrag_file *f, void *p)
{
	if (!p)
		return NULL;
	if (f->nr_allocs == f->cap_allocs) {
		size_t cap = f->cap_allocs ? 2 * f->cap_allocs : 32;
		void **v = realloc(f->allocs, cap * sizeof(*v));

		if (!v) {
			free(p);
			return NULL;
		}
		f->allocs = v;
		f->cap_allocs = cap;
	}
	f->allocs[f->nr_allocs++] = p;
	return p;
}

char *rf_strndup(struct rawfrag_file *f, const char *s, size_t max)
{
	return rf_keep(f, strndup(s, max));
}
