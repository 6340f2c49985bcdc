/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * File mode's header: perf_file_header, the attrs and their ids, the feature
 * table (header.c), on the core, attrs, evsels and features.
 */
#ifndef __RAWFRAG_INTERNAL_HEADER_H
#define __RAWFRAG_INTERNAL_HEADER_H

#include "internal/file.h"

int rf_header__read(struct rawfrag_file *f);

#endif /* __RAWFRAG_INTERNAL_HEADER_H */
