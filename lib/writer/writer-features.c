// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer: feature payloads and the attr in the target byte order
 * (Documentation/perf.data-raw-format.txt, sections 1 and 4). Payloads are built in
 * target order when set, except EVENT_DESC, PMU_MAPPINGS and PMU_CAPS, which are built
 * from the collected lists when output starts (rw_build_features()).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal/writer.h"

void rw_buf__put(struct rw_buf *b, const void *p, size_t n)
{
	size_t cap;
	uint8_t *np;

	if (b->oom)
		return;
	if (n > b->cap - b->len) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->len < n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	if (p)
		memcpy(b->p + b->len, p, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

void rw_buf__put32(struct rw_buf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	rw_buf__put(b, &v, 4);
}

void rw_buf__put64(struct rw_buf *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	rw_buf__put(b, &v, 8);
}

void rw_buf__pad(struct rw_buf *b, size_t align)
{
	if (b->len % align)
		rw_buf__put(b, NULL, align - b->len % align);
}

void rw_buf__put_string(struct rw_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t len = (n + RW_NAME_ALIGN - 1) / RW_NAME_ALIGN * RW_NAME_ALIGN;

	rw_buf__put32(b, (uint32_t)len);
	rw_buf__put(b, s, n);
	rw_buf__put(b, NULL, len - n);
}

static uint8_t bitrev8(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	return (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
}

/*
 * A foreign-order attr is what that machine's compiler would lay out: every
 * number swapped (clockid and sig_data too, although perf 6.1 does not swap
 * them back) and each byte of the flags bitfield bit-reversed, because a
 * big-endian compiler allocates bitfields from the most significant bit.
 */
void rw_attr__to_target(const struct perf_event_attr *attr, uint32_t size, bool swap,
			uint8_t *out)
{
	struct perf_event_attr a;
	uint8_t *flags;

	memcpy(&a, attr, sizeof(a));
	a.size = size;
	if (swap) {
#define S(f, bits) (a.f = __builtin_bswap##bits(a.f))
		S(type, 32);
		S(size, 32);
		S(config, 64);
		S(sample_period, 64);
		S(sample_type, 64);
		S(read_format, 64);
		S(wakeup_events, 32);
		S(bp_type, 32);
		S(config1, 64);
		S(config2, 64);
		S(branch_sample_type, 64);
		S(sample_regs_user, 64);
		S(sample_stack_user, 32);
		a.clockid = (int32_t)__builtin_bswap32((uint32_t)a.clockid);
		S(sample_regs_intr, 64);
		S(aux_watermark, 32);
		S(sample_max_stack, 16);
		S(aux_sample_size, 32);
		S(sig_data, 64);
#undef S
		flags = (uint8_t *)&a + offsetof(struct perf_event_attr, read_format) + 8;
		for (int i = 0; i < 8; i++)
			flags[i] = bitrev8(flags[i]);
	}
	memset(out, 0, size);
	memcpy(out, &a, size < sizeof(a) ? size : sizeof(a));
}

int rw_set_feat(struct rawfrag_writer *w, int feat, struct rw_buf *b)
{
	if (b->oom) {
		free(b->p);
		return rw_fail(w, -ENOMEM, "feature %d: out of memory", feat);
	}
	free(w->feat[feat].data);
	w->feat[feat].data = b->p;
	w->feat[feat].len = b->len;
	return 0;
}

static int check_before_start(struct rawfrag_writer *w, int feat)
{
	if (w->failed)
		return w->err.err;
	if (w->started)
		return rw_usage(w, -EBUSY, "feature %d set after start", feat);
	if (feat <= 0 || feat >= RAWFRAG_FEAT_LAST)
		return rw_usage(w, -EINVAL, "feature %d out of range 1..%d", feat,
			       RAWFRAG_FEAT_LAST - 1);
	return 0;
}

#define BUILD_ID_NAME_ALIGN 64
#define MISC_BUILD_ID_SIZE (1 << 15)

int rawfrag_writer__add_build_id(struct rawfrag_writer *w, uint16_t misc, int32_t pid,
				 const uint8_t *id, int id_len, const char *name)
{
	const void *old = w->feat[RAWFRAG_FEAT_BUILD_ID].data;
	size_t old_len = w->feat[RAWFRAG_FEAT_BUILD_ID].len;
	struct rw_buf b = { .swap = w->swap };
	uint16_t h16[2];
	uint8_t bid[24] = { 0 };
	size_t nlen, padded;
	bool late = w->started && !w->pipe && !w->finished;

	if (w->failed)
		return w->err.err;
	if (w->started && !late)
		return rw_usage(w, -EBUSY, "build-id added after start in pipe mode or after finish");
	if (!id || id_len <= 0 || id_len > 20 || !name)
		return rw_usage(w, -EINVAL, "add_build_id: bad build-id or name");
	nlen = strlen(name) + 1;
	padded = (nlen + BUILD_ID_NAME_ALIGN - 1) & ~(size_t)(BUILD_ID_NAME_ALIGN - 1);
	if (8 + 4 + sizeof(bid) + padded > 0xffff)
		return rw_usage(w, -E2BIG, "add_build_id: name too long");
	memcpy(bid, id, id_len);
	bid[20] = (uint8_t)id_len;
	/* the entries so far, then this one: header, pid, build_id[24], padded name */
	if (old_len)
		rw_buf__put(&b, old, old_len);
	rw_buf__put32(&b, RAWFRAG_RECORD_HEADER_BUILD_ID);
	h16[0] = misc | MISC_BUILD_ID_SIZE;
	h16[1] = (uint16_t)(8 + 4 + sizeof(bid) + padded);
	for (int i = 0; i < 2; i++)
		h16[i] = b.swap ? __builtin_bswap16(h16[i]) : h16[i];
	rw_buf__put(&b, h16, sizeof(h16));
	rw_buf__put32(&b, (uint32_t)pid);
	rw_buf__put(&b, bid, sizeof(bid));
	rw_buf__put(&b, name, nlen);
	rw_buf__put(&b, NULL, padded - nlen);
	return rw_set_feat(w, RAWFRAG_FEAT_BUILD_ID, &b);
}

int rawfrag_writer__set_string(struct rawfrag_writer *w, int feat, const char *s)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_before_start(w, feat);

	if (ret)
		return ret;
	rw_buf__put_string(&b, s ? s : "");
	return rw_set_feat(w, feat, &b);
}

int rawfrag_writer__set_cmdline(struct rawfrag_writer *w, int argc, const char *const *argv)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_before_start(w, RAWFRAG_FEAT_CMDLINE);

	if (ret)
		return ret;
	rw_buf__put32(&b, (uint32_t)argc);
	for (int i = 0; i < argc; i++)
		rw_buf__put_string(&b, argv[i] ? argv[i] : "");
	return rw_set_feat(w, RAWFRAG_FEAT_CMDLINE, &b);
}

int rawfrag_writer__set_dir_format(struct rawfrag_writer *w, uint64_t version)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_before_start(w, RAWFRAG_FEAT_DIR_FORMAT);

	if (ret)
		return ret;
	rw_buf__put64(&b, version);
	return rw_set_feat(w, RAWFRAG_FEAT_DIR_FORMAT, &b);
}

int rawfrag_writer__set_nrcpus(struct rawfrag_writer *w, uint32_t avail, uint32_t online)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_before_start(w, RAWFRAG_FEAT_NRCPUS);

	if (ret)
		return ret;
	rw_buf__put32(&b, avail);
	rw_buf__put32(&b, online);
	return rw_set_feat(w, RAWFRAG_FEAT_NRCPUS, &b);
}

int rawfrag_writer__set_clock_data(struct rawfrag_writer *w, uint32_t clockid,
				   uint64_t tod_ns, uint64_t clockid_ns)
{
	struct rw_buf b = { .swap = w->swap };
	int ret = check_before_start(w, RAWFRAG_FEAT_CLOCK_DATA);

	if (ret)
		return ret;
	rw_buf__put32(&b, 1); /* version: perf rejects anything else */
	rw_buf__put32(&b, clockid);
	rw_buf__put64(&b, tod_ns);
	rw_buf__put64(&b, clockid_ns);
	return rw_set_feat(w, RAWFRAG_FEAT_CLOCK_DATA, &b);
}

int rawfrag_writer__set_tracing_data(struct rawfrag_writer *w, const void *blob, size_t len)
{
	int ret = check_before_start(w, RAWFRAG_FEAT_TRACING_DATA);
	void *copy;

	if (ret)
		return ret;
	copy = malloc(len ? len : 1);
	if (!copy)
		return rw_fail(w, -ENOMEM, "tracing data: out of memory");
	memcpy(copy, blob, len);
	free(w->tracing_data);
	w->tracing_data = copy;
	w->tracing_data_len = len;
	return 0;
}

int rawfrag_writer__add_pmu_mapping(struct rawfrag_writer *w, uint32_t type, const char *name)
{
	struct rw_pmu_map *m;
	int ret = check_before_start(w, RAWFRAG_FEAT_PMU_MAPPINGS);

	if (ret)
		return ret;
	m = realloc(w->pmu_maps, (w->nr_pmu_maps + 1) * sizeof(*m));
	if (!m)
		return rw_fail(w, -ENOMEM, "PMU_MAPPINGS: out of memory");
	w->pmu_maps = m;
	m[w->nr_pmu_maps].type = type;
	m[w->nr_pmu_maps].name = strdup(name);
	if (!m[w->nr_pmu_maps].name)
		return rw_fail(w, -ENOMEM, "PMU_MAPPINGS: out of memory");
	w->nr_pmu_maps++;
	return 0;
}

int rawfrag_writer__add_pmu_cap(struct rawfrag_writer *w, const char *pmu, const char *name,
				const char *value)
{
	struct rw_pmu_cap *c;
	int ret = check_before_start(w, RAWFRAG_FEAT_PMU_CAPS);

	if (ret)
		return ret;
	c = realloc(w->pmu_caps, (w->nr_pmu_caps + 1) * sizeof(*c));
	if (!c)
		return rw_fail(w, -ENOMEM, "PMU_CAPS: out of memory");
	w->pmu_caps = c;
	c += w->nr_pmu_caps;
	c->pmu = strdup(pmu ? pmu : "");
	c->name = strdup(name);
	c->value = strdup(value);
	w->nr_pmu_caps++;
	if (!c->pmu || !c->name || !c->value)
		return rw_fail(w, -ENOMEM, "PMU_CAPS: out of memory");
	return 0;
}

/* value of "key : value" from /proc/cpuinfo's first processor, or NULL */
static char *cpuinfo_value(const char *key, char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	size_t klen = strlen(key);
	char *v = NULL, *colon, *end;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						 line[klen] != ':'))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		end = colon + strlen(colon);
		while (end > colon && isspace((unsigned char)end[-1]))
			*--end = 0;
		snprintf(out, len, "%s", colon);
		v = out;
		break;
	}
	fclose(f);
	return v;
}

/* CPUID as perf writes it on x86: "vendor,family,model,stepping" */
static int set_cpuid(struct rawfrag_writer *w)
{
	char vendor[64], fam[16], model[16], step[16], desc[256];
	char cpuid[160];
	int ret = 0;

	if (cpuinfo_value("vendor_id", vendor, sizeof(vendor)) &&
	    cpuinfo_value("cpu family", fam, sizeof(fam)) &&
	    cpuinfo_value("model", model, sizeof(model)) &&
	    cpuinfo_value("stepping", step, sizeof(step))) {
		snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, fam, model, step);
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUID, cpuid);
	}
	if (!ret && cpuinfo_value("model name", desc, sizeof(desc)))
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUDESC, desc);
	return ret;
}

int rawfrag_writer__set_host_features(struct rawfrag_writer *w)
{
	struct utsname u;
	struct sysinfo si;
	struct rw_buf b = { .swap = w->swap };
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	long onln = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	if (uname(&u))
		return rw_fail(w, -errno, "uname: %s", strerror(errno));
	ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_HOSTNAME, u.nodename);
	if (!ret)
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_OSRELEASE, u.release);
	if (!ret)
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_ARCH, u.machine);
	if (!ret)
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_VERSION, "perf-rawfrag 0.1");
	if (!ret)
		ret = rawfrag_writer__set_nrcpus(w, conf > 0 ? (uint32_t)conf : 1,
						 onln > 0 ? (uint32_t)onln : 1);
	if (!ret)
		ret = set_cpuid(w);
	if (!ret && !sysinfo(&si)) {
		rw_buf__put64(&b, (uint64_t)si.totalram * si.mem_unit / 1024);
		ret = rw_set_feat(w, RAWFRAG_FEAT_TOTAL_MEM, &b);
	}
	return ret;
}

static int build_event_desc(struct rawfrag_writer *w)
{
	struct rw_buf b = { .swap = w->swap };
	uint8_t attr[sizeof(struct perf_event_attr) + 64];
	bool named = false;

	for (int i = 0; i < w->nr_evsels; i++)
		named |= w->evsels[i].name != NULL;
	if (!named || w->feat[RAWFRAG_FEAT_EVENT_DESC].data)
		return 0;
	rw_buf__put32(&b, (uint32_t)w->nr_evsels);
	rw_buf__put32(&b, w->attr_size);
	for (int i = 0; i < w->nr_evsels; i++) {
		struct rw_evsel *e = &w->evsels[i];

		rw_attr__to_target(&e->attr, w->attr_size, w->swap, attr);
		rw_buf__put(&b, attr, w->attr_size);
		rw_buf__put32(&b, (uint32_t)e->nr_ids);
		rw_buf__put_string(&b, e->name ? e->name : "");
		for (int j = 0; j < e->nr_ids; j++)
			rw_buf__put64(&b, e->ids[j]);
	}
	return rw_set_feat(w, RAWFRAG_FEAT_EVENT_DESC, &b);
}

static int build_pmu_mappings(struct rawfrag_writer *w)
{
	struct rw_buf b = { .swap = w->swap };

	if (!w->nr_pmu_maps)
		return 0;
	rw_buf__put32(&b, (uint32_t)w->nr_pmu_maps);
	for (int i = 0; i < w->nr_pmu_maps; i++) {
		rw_buf__put32(&b, w->pmu_maps[i].type);
		rw_buf__put_string(&b, w->pmu_maps[i].name);
	}
	return rw_set_feat(w, RAWFRAG_FEAT_PMU_MAPPINGS, &b);
}

/*
 * Caps with pmu "" go to CPU_PMU_CAPS ({name, value} list); the others to
 * PMU_CAPS, grouped per PMU in order of first appearance: u32 nr_caps, pairs,
 * then the PMU name.
 */
static int build_pmu_caps(struct rawfrag_writer *w)
{
	struct rw_buf cpu = { .swap = w->swap }, b = { .swap = w->swap };
	uint32_t nr_cpu = 0, nr_pmu = 0, n;
	int ret = 0;

	for (int i = 0; i < w->nr_pmu_caps; i++)
		nr_cpu += !w->pmu_caps[i].pmu[0];
	if (nr_cpu) {
		rw_buf__put32(&cpu, nr_cpu);
		for (int i = 0; i < w->nr_pmu_caps; i++)
			if (!w->pmu_caps[i].pmu[0]) {
				rw_buf__put_string(&cpu, w->pmu_caps[i].name);
				rw_buf__put_string(&cpu, w->pmu_caps[i].value);
			}
		ret = rw_set_feat(w, RAWFRAG_FEAT_CPU_PMU_CAPS, &cpu);
		if (ret)
			return ret;
	}
	rw_buf__put32(&b, 0); /* nr_pmu, patched below */
	for (int i = 0; i < w->nr_pmu_caps; i++) {
		const char *pmu = w->pmu_caps[i].pmu;
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(w->pmu_caps[j].pmu, pmu);
		if (!pmu[0] || seen)
			continue;
		nr_pmu++;
		n = 0;
		for (int j = i; j < w->nr_pmu_caps; j++)
			n += !strcmp(w->pmu_caps[j].pmu, pmu);
		rw_buf__put32(&b, n);
		for (int j = i; j < w->nr_pmu_caps; j++)
			if (!strcmp(w->pmu_caps[j].pmu, pmu)) {
				rw_buf__put_string(&b, w->pmu_caps[j].name);
				rw_buf__put_string(&b, w->pmu_caps[j].value);
			}
		rw_buf__put_string(&b, pmu);
	}
	if (!nr_pmu || b.oom) {
		free(b.p);
		return b.oom ? rw_fail(w, -ENOMEM, "PMU_CAPS: out of memory") : 0;
	}
	n = w->swap ? __builtin_bswap32(nr_pmu) : nr_pmu;
	memcpy(b.p, &n, 4);
	return rw_set_feat(w, RAWFRAG_FEAT_PMU_CAPS, &b);
}

int rw_build_features(struct rawfrag_writer *w)
{
	struct utsname u;
	int ret;

	/* HOSTNAME is perf's probe for the bitmap's byte order: always write it */
	if (!w->feat[RAWFRAG_FEAT_HOSTNAME].data) {
		ret = rawfrag_writer__set_string(w, RAWFRAG_FEAT_HOSTNAME,
						 uname(&u) ? "" : u.nodename);
		if (ret)
			return ret;
	}
	if (w->tracing_data) {
		struct rw_buf b = { .swap = w->swap };

		rw_buf__put(&b, w->tracing_data, w->tracing_data_len);
		ret = rw_set_feat(w, RAWFRAG_FEAT_TRACING_DATA, &b);
		if (ret)
			return ret;
	}
	ret = build_event_desc(w);
	if (!ret)
		ret = build_pmu_mappings(w);
	if (!ret)
		ret = build_pmu_caps(w);
	return ret;
}
