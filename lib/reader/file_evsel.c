// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Evsels of a perf.data file: attrs with their ids, names (EVENT_DESC,
 * EVENT_UPDATE, set_name, else generated like perf's evsel__name()), PMU names,
 * and the record -> evsel mapping by IDENTIFIER/ID as perf's evlist__event2evsel()
 * does, through an id hash built once (again when pipe mode adds attrs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>

#include "internal/evsel.h"

/* ---- evsels ---- */

struct rawfrag_evsel *rf_evsel__new(struct rawfrag_file *f, const struct perf_event_attr *attr,
				    uint32_t file_attr_size)
{
	struct rawfrag_evsel *e, **v;

	v = realloc(f->evsels, ((size_t)f->nr_evsels + 1) * sizeof(*v));
	if (!v)
		return NULL;
	f->evsels = v;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->attr = *attr;
	e->file_attr_size = file_attr_size;
	e->idx = f->nr_evsels;
	e->file = f;
	f->evsels[f->nr_evsels++] = e;
	f->id_hash_dirty = true;
	return e;
}

int rf_evsel__set_ids(struct rawfrag_evsel *e, const void *ids, uint64_t nr, bool swap)
{
	uint64_t *v, i;

	if (nr > RF_MAX_IDS - e->file->nr_ids_total + (uint64_t)e->nr_ids)
		return -E2BIG;
	v = calloc(nr ? nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		v[i] = rf_u64((const uint8_t *)ids + 8 * i, swap);
	free(e->ids);
	e->file->nr_ids_total += nr - (uint64_t)e->nr_ids;
	e->ids = v;
	e->nr_ids = (int)nr;
	e->file->id_hash_dirty = true;
	return 0;
}

static const char *const hw_names[] = {
	"cycles",	  "instructions",	     "cache-references",
	"cache-misses",	  "branches",		     "branch-misses",
	"bus-cycles",	  "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock",	   "task-clock",       "page-faults",	  "context-switches",
	"cpu-migrations",  "minor-faults",     "major-faults",	  "alignment-faults",
	"emulation-faults", "dummy",	       "bpf-output",	  "cgroup-switches",
};

static const char *const generic_pmus[] = {
	"cpu", "software", "tracepoint", "hw_cache", "raw", "breakpoint",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* a name like perf's evsel__name() when the file gives none */
static void name_default(struct rawfrag_evsel *e, char *buf, size_t len)
{
	const struct perf_event_attr *a = &e->attr;
	const char *pmu;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (a->config < ARRAY_LEN(hw_names)) {
			snprintf(buf, len, "%s", hw_names[a->config]);
			return;
		}
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < ARRAY_LEN(sw_names)) {
			snprintf(buf, len, "%s", sw_names[a->config]);
			return;
		}
		break;
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, len, "tracepoint:%" PRIu64, (uint64_t)a->config);
		return;
	case PERF_TYPE_RAW:
		snprintf(buf, len, "raw 0x%" PRIx64, (uint64_t)a->config);
		return;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, len, "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr,
			 a->bp_type & HW_BREAKPOINT_R ? "r" : "", a->bp_type & HW_BREAKPOINT_W ? "w" : "",
			 a->bp_type & HW_BREAKPOINT_X ? "x" : "");
		return;
	default:
		break;
	}
	pmu = rawfrag_evsel__pmu_name(e);
	if (pmu)
		snprintf(buf, len, "%s/config=0x%" PRIx64 "/", pmu, (uint64_t)a->config);
	else
		snprintf(buf, len, "unknown attr type %u/config=0x%" PRIx64 "/", a->type,
			 (uint64_t)a->config);
}

RAWFRAG_API const char *rawfrag_evsel__name(const struct rawfrag_evsel *ce)
{
	struct rawfrag_evsel *e = (struct rawfrag_evsel *)ce;
	char buf[128];

	if (!e)
		return NULL;
	if (!e->name) {
		/* generated on first use, when the PMU mappings are known */
		name_default(e, buf, sizeof(buf));
		e->name = rf_strndup(e->file, buf, sizeof(buf));
	}
	return e->name ? e->name : "?";
}

RAWFRAG_API int rawfrag_evsel__set_name(struct rawfrag_evsel *e, const char *name)
{
	char *s;

	if (!e || !name)
		return -EINVAL;
	s = rf_strndup(e->file, name, 4096);
	if (!s)
		return -ENOMEM;
	e->name = s;
	e->name_given = true;
	return 0;
}

RAWFRAG_API const char *rawfrag_evsel__pmu_name(const struct rawfrag_evsel *e)
{
	const struct rawfrag_env *env;
	int i;

	if (!e)
		return NULL;
	env = &e->file->env;
	for (i = 0; i < env->nr_pmu_mappings; i++)
		if (env->pmu_mappings[i].type == e->attr.type && env->pmu_mappings[i].name)
			return env->pmu_mappings[i].name;
	if (e->attr.type < ARRAY_LEN(generic_pmus))
		return generic_pmus[e->attr.type];
	return NULL;
}

RAWFRAG_API const struct perf_event_attr *rawfrag_evsel__attr(const struct rawfrag_evsel *e)
{
	return e ? &e->attr : NULL;
}

RAWFRAG_API int rawfrag_evsel__idx(const struct rawfrag_evsel *e)
{
	return e ? e->idx : -1;
}

RAWFRAG_API int rawfrag_evsel__nr_ids(const struct rawfrag_evsel *e)
{
	return e ? e->nr_ids : 0;
}

RAWFRAG_API const uint64_t *rawfrag_evsel__ids(const struct rawfrag_evsel *e)
{
	return e ? e->ids : NULL;
}

/* ---- id -> evsel ---- */


/* perf's id_pos (SAMPLE) and is_pos (other records, from the end) */
static void calc_id_pos(struct rawfrag_file *f)
{
	uint64_t st;

	f->id_pos = f->is_pos = -1;
	if (!f->nr_evsels)
		return;
	st = f->evsels[0]->attr.sample_type;
	f->sample_id_all = f->evsels[0]->attr.sample_id_all;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		f->id_pos = 0;
		f->is_pos = 1;
		return;
	}
	if (!(st & PERF_SAMPLE_ID))
		return;
	f->id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		    !!(st & PERF_SAMPLE_ADDR);
	f->is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
}

int rf_build_id_hash(struct rawfrag_file *f)
{
	uint64_t total = 0;
	uint32_t size = 16, h;
	struct rf_id_slot *tab;
	int i, j;

	calc_id_pos(f);
	f->id_hash_dirty = false;
	for (i = 0; i < f->nr_evsels; i++)
		total += (uint64_t)f->evsels[i]->nr_ids;
	while (size < 2 * total && size < (1U << 30))
		size <<= 1;
	tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < f->nr_evsels; i++) {
		struct rawfrag_evsel *e = f->evsels[i];

		for (j = 0; j < e->nr_ids; j++) {
			uint64_t id = e->ids[j];

			if (!id)
				continue;
			/* first evsel with an id wins on duplicates */
			for (h = rf_id_hash(id) & (size - 1); tab[h].id && tab[h].id != id;
			     h = (h + 1) & (size - 1))
				;
			if (!tab[h].id) {
				tab[h].id = id;
				tab[h].evsel = e;
			}
		}
	}
	free(f->id_hash);
	f->id_hash = tab;
	f->id_hash_mask = size - 1;
	return 0;
}


RAWFRAG_API struct rawfrag_evsel *rawfrag_file__evsel_of(const struct rawfrag_file *f,
							 const struct rawfrag_record *rec)
{
	struct rawfrag_evsel *e;
	uint64_t n, id;

	if (!f || !rec || !f->nr_evsels || rec->size < 8) {
		errno = ENOENT;
		return NULL;
	}
	if (f->nr_evsels == 1)
		return f->evsels[0];
	if (rec->type >= RAWFRAG_RECORD_HEADER_ATTR) {
		/* user records belong to no evsel */
		errno = ENOENT;
		return NULL;
	}
	if (f->id_hash_dirty)
		rf_build_id_hash((struct rawfrag_file *)f);
	if (!f->sample_id_all && rec->type != PERF_RECORD_SAMPLE)
		return f->evsels[0];
	n = (rec->size - 8u) / 8;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (f->id_pos < 0 || (uint64_t)f->id_pos >= n) {
			errno = ENOENT;
			return NULL;
		}
		id = rf_u64((const uint8_t *)rec->data + 8 + 8 * (uint64_t)f->id_pos, f->swap);
	} else {
		if (f->is_pos < 0 || (uint64_t)f->is_pos > n) {
			errno = ENOENT;
			return NULL;
		}
		id = rf_u64((const uint8_t *)rec->data + 8 + 8 * (n - (uint64_t)f->is_pos), f->swap);
	}
	/* synthesized records carry id 0 */
	if (!id)
		return f->evsels[0];
	e = rf_find_id(f, id);
	if (!e)
		errno = ENOENT;
	return e;
}

RAWFRAG_API int rawfrag_file__nr_evsels(const struct rawfrag_file *f)
{
	return f ? f->nr_evsels : 0;
}

RAWFRAG_API struct rawfrag_evsel *rawfrag_file__evsel(const struct rawfrag_file *f, int idx)
{
	if (!f || idx < 0 || idx >= f->nr_evsels) {
		errno = ENOENT;
		return NULL;
	}
	return f->evsels[idx];
}
