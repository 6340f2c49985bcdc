/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * PERF_RECORD_COMPRESSED payloads expanded into records (compress.c), on the
 * reader's core only.
 */
#ifndef __RAWFRAG_INTERNAL_COMPRESS_H
#define __RAWFRAG_INTERNAL_COMPRESS_H

#include "internal/file.h"

int rf_zstd__feed(struct rawfrag_file *f, const struct rawfrag_record *rec);
/* 1 record, 0 nothing pending, -errno */
int rf_zstd__next(struct rawfrag_file *f, struct rawfrag_record *rec);
int rf_zstd__finish(struct rawfrag_file *f);
void rf_zstd__reset(struct rawfrag_file *f);
void rf_zstd__free(struct rawfrag_file *f);

#endif /* __RAWFRAG_INTERNAL_COMPRESS_H */
