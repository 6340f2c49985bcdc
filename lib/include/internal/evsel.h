/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file's evsels, their ids and the id -> evsel hash (file_evsel.c), on the
 * reader's core (internal/file.h).
 */
#ifndef __RAWFRAG_INTERNAL_EVSEL_H
#define __RAWFRAG_INTERNAL_EVSEL_H

#include "internal/file.h"

struct rawfrag_evsel *rf_evsel__new(struct rawfrag_file *f, const struct perf_event_attr *attr,
				    uint32_t file_attr_size);
int rf_evsel__set_ids(struct rawfrag_evsel *e, const void *ids, uint64_t nr, bool swap);
struct rawfrag_evsel *rf_find_id(const struct rawfrag_file *f, uint64_t id);
int rf_build_id_hash(struct rawfrag_file *f);

#endif /* __RAWFRAG_INTERNAL_EVSEL_H */
