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
int rf_build_id_hash(struct rawfrag_file *f);

static inline uint32_t rf_id_hash(uint64_t id)
{
	id *= 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(id >> 32);
}

/* the evsel of a sample id, or NULL; inline: the ordering queue asks per sample */
static inline struct rawfrag_evsel *rf_find_id(const struct rawfrag_file *f, uint64_t id)
{
	uint32_t h;

	if (!f->id_hash || !id)
		return NULL;
	for (h = rf_id_hash(id) & f->id_hash_mask; f->id_hash[h].id; h = (h + 1) & f->id_hash_mask)
		if (f->id_hash[h].id == id)
			return f->id_hash[h].evsel;
	return NULL;
}

#endif /* __RAWFRAG_INTERNAL_EVSEL_H */
