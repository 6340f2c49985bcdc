/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Feature payloads, from file sections or pipe mode's HEADER_FEATURE records,
 * into the file's env and its evsels' names (header_features.c), on the
 * reader's core (internal/file.h).
 */
#ifndef __RAWFRAG_INTERNAL_FEATURES_H
#define __RAWFRAG_INTERNAL_FEATURES_H

#include "internal/file.h"

int rf_feature__parse(struct rawfrag_file *f, int feat, const void *buf, uint64_t size,
		      int64_t offset);

#endif /* __RAWFRAG_INTERNAL_FEATURES_H */
