// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* PERF_RECORD_COMPRESSED: placeholder until the zstd reader lands. */
#include <errno.h>

#include "internal/file.h"

int rf_zstd__feed(struct rawfrag_file *f, const struct rawfrag_record *rec)
{
	return rf_error(f, (int64_t)rec->offset, rec->type, "compressed data not supported yet");
}

int rf_zstd__next(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	return 0;
}

int rf_zstd__finish(struct rawfrag_file *f)
{
	return 0;
}

void rf_zstd__reset(struct rawfrag_file *f)
{
}

void rf_zstd__free(struct rawfrag_file *f)
{
}
