// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Feature payloads (file sections or pipe-mode HEADER_FEATURE records) into
 * struct rawfrag_env. Each payload is parsed with a cursor that checks every read
 * against the payload size; a malformed payload is reported through the print
 * callback and dropped, the file stays usable (perf also goes on without it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal/attr.h"
#include "internal/features.h"

struct cur {
	const uint8_t *p;
	uint64_t left;
	bool swap;
	bool bad;
};

static bool need(struct cur *c, uint64_t n)
{
	if (c->bad || c->left < n) {
		c->bad = true;
		return false;
	}
	return true;
}

static uint32_t get_u32(struct cur *c)
{
	uint32_t v;

	if (!need(c, 4))
		return 0;
	v = rf_u32(c->p, c->swap);
	c->p += 4;
	c->left -= 4;
	return v;
}

static uint64_t get_u64(struct cur *c)
{
	uint64_t v;

	if (!need(c, 8))
		return 0;
	v = rf_u64(c->p, c->swap);
	c->p += 8;
	c->left -= 8;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if (!need(c, n))
		return;
	c->p += n;
	c->left -= n;
}

/* perf_header_string: u32 len, len bytes, NUL-terminated prefix used */
static const char *get_str(struct rawfrag_file *f, struct cur *c)
{
	uint32_t len = get_u32(c);
	const char *s;

	if (!need(c, len))
		return NULL;
	s = rf_strndup(f, (const char *)c->p, len);
	c->p += len;
	c->left -= len;
	if (!s)
		c->bad = true;
	return s;
}

/* count sanity: each entry takes at least min bytes of what is left */
static bool plausible(struct cur *c, uint64_t nr, uint64_t min)
{
	if (c->bad || nr > c->left / min) {
		c->bad = true;
		return false;
	}
	return true;
}

static void parse_cmdline(struct rawfrag_file *f, struct cur *c)
{
	uint32_t nr = get_u32(c), i;
	const char **v;

	if (!plausible(c, nr, 4))
		return;
	v = rf_keep(f, calloc(nr + 1, sizeof(*v)));
	if (!v) {
		c->bad = true;
		return;
	}
	for (i = 0; i < nr && !c->bad; i++)
		v[i] = get_str(f, c);
	if (c->bad)
		return;
	f->env.cmdline = v;
	f->env.nr_cmdline = (int)nr;
}

static void parse_pmu_mappings(struct rawfrag_file *f, struct cur *c)
{
	uint32_t nr = get_u32(c), i;
	struct rawfrag_pmu_mapping *m;

	if (!plausible(c, nr, 8))
		return;
	m = rf_keep(f, calloc(nr + 1, sizeof(*m)));
	if (!m) {
		c->bad = true;
		return;
	}
	for (i = 0; i < nr && !c->bad; i++) {
		m[i].type = get_u32(c);
		m[i].name = get_str(f, c);
	}
	if (c->bad)
		return;
	f->env.pmu_mappings = m;
	f->env.nr_pmu_mappings = (int)nr;
}

static bool add_caps(struct rawfrag_file *f, struct cur *c, uint32_t nr, const char *pmu)
{
	struct rawfrag_pmu_cap *caps;
	int n = f->env.nr_pmu_caps;
	uint32_t i;

	if (!plausible(c, nr, 8))
		return false;
	caps = realloc(f->pmu_caps, ((size_t)n + nr + 1) * sizeof(*caps));
	if (!caps)
		return false;
	f->pmu_caps = caps;
	for (i = 0; i < nr && !c->bad; i++) {
		caps[n + i].pmu = pmu;
		caps[n + i].name = get_str(f, c);
		caps[n + i].value = get_str(f, c);
	}
	if (c->bad)
		return false;
	f->env.nr_pmu_caps = n + (int)nr;
	f->env.pmu_caps = caps;
	return true;
}

static void parse_pmu_caps(struct rawfrag_file *f, struct cur *c)
{
	uint32_t nr_pmu = get_u32(c), i, j;

	if (!plausible(c, nr_pmu, 8))
		return;
	for (i = 0; i < nr_pmu && !c->bad; i++) {
		int first = f->env.nr_pmu_caps;
		uint32_t nr = get_u32(c);
		const char *pmu;

		if (!add_caps(f, c, nr, "")) {
			c->bad = true;
			return;
		}
		/* the PMU name comes after its caps */
		pmu = get_str(f, c);
		for (j = (uint32_t)first; pmu && j < (uint32_t)f->env.nr_pmu_caps; j++)
			f->pmu_caps[j].pmu = pmu;
	}
}

/* GROUP_DESC: u32 nr, then per group its name, leader index and member count */
static void parse_group_desc(struct rawfrag_file *f, struct cur *c)
{
	uint32_t nr = get_u32(c), i;
	struct rawfrag_group_desc *g;

	if (!plausible(c, nr, 12))
		return;
	g = rf_keep(f, calloc(nr + 1, sizeof(*g)));
	if (!g) {
		c->bad = true;
		return;
	}
	for (i = 0; i < nr && !c->bad; i++) {
		g[i].name = get_str(f, c);
		g[i].leader_idx = get_u32(c);
		g[i].nr_members = get_u32(c);
	}
	if (c->bad)
		return;
	f->env.groups = g;
	f->env.nr_groups = (int)nr;
}

/* EVENT_DESC: names by position, for evsels that have none yet */
static void parse_event_desc(struct rawfrag_file *f, struct cur *c)
{
	uint32_t nr = get_u32(c), asz = get_u32(c), i;

	if (asz < RF_ATTR_VER0 || !plausible(c, nr, (uint64_t)asz + 8)) {
		c->bad = true;
		return;
	}
	for (i = 0; i < nr && !c->bad; i++) {
		uint32_t nr_ids;
		const char *name;

		skip(c, asz);
		nr_ids = get_u32(c);
		name = get_str(f, c);
		skip(c, (uint64_t)nr_ids * 8);
		if (c->bad || !name)
			break;
		if ((int)i < f->nr_evsels && !f->evsels[i]->name_given) {
			if (rawfrag_evsel__set_name(f->evsels[i], name)) {
				c->bad = true;
				break;
			}
		}
	}
}

/*
 * Parse one feature payload (file order). Returns 0, or -EINVAL when the payload
 * is malformed (after telling the print callback).
 */
/* the features that are one string: where it goes in the env; false for others */
static bool str_feature(struct rawfrag_file *f, struct rawfrag_env *env, int feat,
			struct cur *c)
{
	const char **dst;

	switch (feat) {
	case RAWFRAG_FEAT_HOSTNAME: dst = &env->hostname; break;
	case RAWFRAG_FEAT_OSRELEASE: dst = &env->osrelease; break;
	case RAWFRAG_FEAT_VERSION: dst = &env->version; break;
	case RAWFRAG_FEAT_ARCH: dst = &env->arch; break;
	case RAWFRAG_FEAT_CPUDESC: dst = &env->cpudesc; break;
	case RAWFRAG_FEAT_CPUID: dst = &env->cpuid; break;
	default: return false;
	}
	*dst = get_str(f, c);
	return true;
}

int rf_feature__parse(struct rawfrag_file *f, int feat, const void *buf, uint64_t size,
		      int64_t offset)
{
	struct cur c = { .p = buf, .left = size, .swap = f->swap };
	struct rawfrag_env *env = &f->env;

	if (str_feature(f, env, feat, &c))
		goto out;
	switch (feat) {
	case RAWFRAG_FEAT_TRACING_DATA:
		env->tracing_data = buf;
		env->tracing_data_size = size;
		break;
	case RAWFRAG_FEAT_NRCPUS:
		env->nr_cpus_avail = get_u32(&c);
		env->nr_cpus_online = get_u32(&c);
		break;
	case RAWFRAG_FEAT_TOTAL_MEM:
		env->total_mem = get_u64(&c);
		break;
	case RAWFRAG_FEAT_CMDLINE:
		parse_cmdline(f, &c);
		break;
	case RAWFRAG_FEAT_EVENT_DESC:
		parse_event_desc(f, &c);
		break;
	case RAWFRAG_FEAT_PMU_MAPPINGS:
		parse_pmu_mappings(f, &c);
		break;
	case RAWFRAG_FEAT_CPU_PMU_CAPS:
		if (!add_caps(f, &c, get_u32(&c), ""))
			c.bad = true;
		break;
	case RAWFRAG_FEAT_PMU_CAPS:
		parse_pmu_caps(f, &c);
		break;
	case RAWFRAG_FEAT_GROUP_DESC:
		parse_group_desc(f, &c);
		break;
	case RAWFRAG_FEAT_COMPRESSED:
		get_u32(&c); /* version */
		env->comp_type = get_u32(&c);
		env->comp_level = get_u32(&c);
		env->comp_ratio = get_u32(&c);
		env->comp_mmap_len = get_u32(&c);
		env->has_compressed = !c.bad;
		break;
	case RAWFRAG_FEAT_CLOCK_DATA:
		get_u32(&c); /* version */
		env->clockid = get_u32(&c);
		env->clock_tod_ns = get_u64(&c);
		env->clock_clockid_ns = get_u64(&c);
		env->has_clock_data = !c.bad;
		break;
	case RAWFRAG_FEAT_SAMPLE_TIME:
		env->first_sample_time = get_u64(&c);
		env->last_sample_time = get_u64(&c);
		break;
	case RAWFRAG_FEAT_CLOCKID:
		env->clockid_res_ns = get_u64(&c);
		break;
	default:
		/* kept as a raw payload only */
		break;
	}
out:
	if (c.bad) {
		rf_print(f, RAWFRAG_WARN,
			 "rawfrag: %s: offset 0x%" PRIx64 ": feature %d: malformed payload "
			 "(%" PRIu64 " bytes), ignored\n",
			 f->path, (uint64_t)offset, feat, size);
		return -EINVAL;
	}
	return 0;
}
