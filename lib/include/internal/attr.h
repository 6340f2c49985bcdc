/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf_event_attr as perf.data stores it (attr.c): any size from VER0 up, in
 * either byte order. Below everything else of the reader: it knows nothing of
 * struct rawfrag_file.
 */
#ifndef __RAWFRAG_INTERNAL_ATTR_H
#define __RAWFRAG_INTERNAL_ATTR_H

#include <rawfrag/file.h>

#define RF_ATTR_VER0 64 /* PERF_ATTR_SIZE_VER0 */

/* attr bytes (file order, len bytes available) to a host-order attr */
int rf_attr__read(struct perf_event_attr *attr, uint32_t *file_size, const void *buf,
		  uint64_t len, bool swap, const char **why);
void rf_attr__swap(struct perf_event_attr *attr);

#endif /* __RAWFRAG_INTERNAL_ATTR_H */
