// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AMD IBS producer: ibs_fetch and ibs_op samples (Documentation/perf.data-raw-format.txt, AMD IBS).
 *
 * The payload is a u32 caps word and the MSR values the kernel read; which
 * registers they are depends on the caps word, on the PMU and, for fetch, on
 * whether the kernel predates the 2020 fix (36e1be8ada99) that stopped appending
 * IbsBrTarget/IbsOpData4 to fetch samples. Bit fields depend on the CPU family
 * (file CPUID) and on the zen4/ldlat PMU capabilities (file PMU_CAPS). All of it
 * lives in the per-evsel struct ibs_state; nothing is global.
 *
 * No register is read unless it lies inside raw_size (perf's own decoder reads
 * past a short payload).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/decoders.h"
#include "internal/ibs.h"

/* one sample, decoded */
struct ibs_sample {
	uint32_t caps;
	struct ibs_layout lay;
	bool have[IBS_NR_REGS];
	uint64_t val[IBS_NR_REGS];
	bool valid; /* En && Val in the control register */
};

static const char *const pmu_names[] = { "ibs_fetch", "ibs_op" };

static bool name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return name && !strncmp(name, want, n);
}

/* a PMU capability of ibs_op or ibs_fetch, present and not "0" */
static bool env_cap(const struct rawfrag_env *env, const char *cap)
{
	for (int i = 0; env && i < env->nr_pmu_caps; i++) {
		const struct rawfrag_pmu_cap *c = &env->pmu_caps[i];

		if (!c->pmu || !c->name || strcmp(c->name, cap))
			continue;
		if (strcmp(c->pmu, "ibs_op") && strcmp(c->pmu, "ibs_fetch"))
			continue;
		return c->value && strcmp(c->value, "0");
	}
	return false;
}

/*
 * The 2020 fix (36e1be8ada99) reached stable 4.14.y in Nov 2020, so mainline had
 * it by 5.10; older version numbers may or may not carry the backport.
 */
static bool kernel_has_fix20(const char *rel)
{
	unsigned int maj, min;

	if (!rel || sscanf(rel, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 5 || (maj == 5 && min >= 10);
}

void ibs_state_init(struct ibs_state *st, enum ibs_pmu pmu,
			   const struct rawfrag_env *env, const char *layout_opt)
{
	memset(st, 0, sizeof(*st));
	st->pmu = pmu;
	if (env)
		ibs_parse_cpuid(env->cpuid, &st->cpu);
	st->cpu.zen4 = env_cap(env, "zen4_ibs_extensions");
	st->cpu.ldlat = env_cap(env, "ldlat");
	st->cpu.dtlb_pgsize = env_cap(env, "dtlb_pgsize");
	if (layout_opt && (!strcmp(layout_opt, "old") || !strcmp(layout_opt, "new"))) {
		st->hint = layout_opt[0] == 'o' ? IBS_HINT_OLD : IBS_HINT_NEW;
		st->hint_from = "option";
	} else if (env && kernel_has_fix20(env->osrelease)) {
		st->hint = IBS_HINT_NEW;
		st->hint_from = "osrelease";
	}
}

static int ibs_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		     void **priv, enum ibs_pmu pmu)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	const char *want = pmu_names[pmu];
	struct ibs_state *st;
	int score = 0;

	/* the PMU_MAPPINGS entry of attr.type names the PMU, as perf decides */
	if (name_is(rawfrag_evsel__pmu_name(evsel), want))
		score = 100;
	else if (attr && attr->type >= PERF_TYPE_MAX) {
		const char *n = rawfrag_evsel__name(evsel);
		size_t l = strlen(want);

		/* no mapping: a dynamic PMU type and an event named "ibs_op//" etc. */
		if (name_is(n, want) && (n[l] == '/' || n[l] == ':' || !n[l]))
			score = 50;
	}
	if (!score)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	ibs_state_init(st, pmu, ctx ? ctx->env : NULL,
		       ctx ? rawfrag_decoder_ctx__opt(ctx, "ibs_layout") : NULL);
	*priv = st;
	return score;
}

static int ibs_fetch_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
			   void **priv)
{
	return ibs_probe(ctx, evsel, priv, IBS_PMU_FETCH);
}

static int ibs_op_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
			void **priv)
{
	return ibs_probe(ctx, evsel, priv, IBS_PMU_OP);
}

static void ibs_release(void *priv)
{
	free(priv);
}

static void ibs_decode(const struct ibs_state *st, const struct rawfrag_raw *raw,
		       struct ibs_sample *d)
{
	memset(d, 0, sizeof(*d));
	if (raw->size < 4) {
		ibs_layout_pick(st->pmu, 0, raw->size, st->hint, &d->lay);
		return;
	}
	d->caps = rawfrag__get32(raw->data, raw->swap);
	ibs_layout_pick(st->pmu, d->caps, raw->size, st->hint, &d->lay);
	/* nr_regs <= (raw->size - 4) / 8: every read below is inside the raw area */
	for (int i = 0; i < d->lay.nr_regs; i++) {
		enum ibs_reg_id id = d->lay.regs[i];

		d->have[id] = true;
		d->val[id] = rawfrag__get64(raw->data + 4 + 8 * i, raw->swap);
	}
	if (st->pmu == IBS_PMU_FETCH)
		d->valid = d->have[IBS_FETCH_CTL] && ((d->val[IBS_FETCH_CTL] >> 48) & 3) == 3;
	else
		d->valid = d->have[IBS_OP_CTL] && ((d->val[IBS_OP_CTL] >> 17) & 3) == 3;
}

/* bit b of register id (0 if the register is absent) */
static unsigned int bit(const struct ibs_sample *d, enum ibs_reg_id id, int b)
{
	return d->have[id] ? (d->val[id] >> b) & 1 : 0;
}

static unsigned int bits(const struct ibs_sample *d, enum ibs_reg_id id, int lo, int w)
{
	return d->have[id] ? (d->val[id] >> lo) & ((1u << w) - 1) : 0;
}

static bool fam19_early(const struct ibs_cpu *c)
{
	return c->family == 0x19 && c->model < 0x10;
}

/*
 * family 1Ah models whose fetch fields need PhyAddrValid (not confirmed; see
 * Documentation/perf.data-raw-format.txt, AMD IBS)
 */
static bool fetch_needs_phys(const struct ibs_cpu *c)
{
	unsigned int m = c->model;

	if (c->family > 0x1a)
		return true;
	return c->family == 0x1a && ((m >= 0x50 && m <= 0x5f) || (m >= 0x80 && m <= 0xaf) ||
				     (m >= 0xc0 && m <= 0xcf));
}

static bool erratum_1293(const struct ibs_state *st, const struct ibs_sample *d)
{
	return fam19_early(&st->cpu) && st->cpu.family &&
	       (bit(d, IBS_OP_DATA3, 16) || bit(d, IBS_OP_DATA3, 21));
}

static unsigned int data_src(const struct ibs_state *st, const struct ibs_sample *d,
			     bool *extended)
{
	*extended = ibs_gate_open(IBS_G_ZEN4, &st->cpu, d->caps);
	return bits(d, IBS_OP_DATA2, 0, 3) | (*extended ? bits(d, IBS_OP_DATA2, 6, 2) << 3 : 0);
}

/* Why a whole register is not meaningful, or NULL. */
static const char *reg_invalid(const struct ibs_state *st, const struct ibs_sample *d,
			       enum ibs_reg_id id)
{
	switch (id) {
	case IBS_FETCH_PHYSAD:
		return bit(d, IBS_FETCH_CTL, 52) ? NULL : "PhyAddrValid=0";
	case IBS_OP_RIP:
		if (ibs_gate_open(IBS_G_RIPINV, &st->cpu, d->caps) && bit(d, IBS_OP_DATA, 38))
			return "RipInvalid=1";
		return NULL;
	case IBS_OP_DATA2:
		return erratum_1293(st, d) ? "erratum 1293 (DcMissNoMabAlloc or SwPf)" : NULL;
	case IBS_DC_LINAD:
		return bit(d, IBS_OP_DATA3, 17) ? NULL : "DcLinAddrValid=0";
	case IBS_DC_PHYSAD:
		return bit(d, IBS_OP_DATA3, 18) ? NULL : "DcPhyAddrValid=0";
	case IBS_BR_TARGET:
		if (st->pmu == IBS_PMU_FETCH)
			return "op register read on a fetch sample (pre-2020 kernel)";
		return bit(d, IBS_OP_DATA, 37) ? NULL : "OpBrnRet=0";
	case IBS_OP_DATA4:
		if (st->pmu == IBS_PMU_FETCH)
			return "op register read on a fetch sample (pre-2020 kernel)";
		return NULL;
	default:
		return NULL;
	}
}

/* Why field f of register id is not meaningful in this sample, or NULL. */
static const char *field_invalid(const struct ibs_state *st, const struct ibs_sample *d,
				 enum ibs_reg_id id, const struct ibs_field *f)
{
	const char *n = f->name;
	bool ext;
	unsigned int src;

	switch (id) {
	case IBS_FETCH_CTL:
		if (!strcmp(n, "IcMiss") && fam19_early(&st->cpu))
			return "erratum 1238";
		if (fetch_needs_phys(&st->cpu) && !bit(d, id, 52) &&
		    (!strcmp(n, "FetchLat") || !strcmp(n, "IcMiss") || !strcmp(n, "L1TlbMiss") ||
		     !strcmp(n, "L2TlbMiss")))
			return "PhyAddrValid=0";
		if (!strcmp(n, "L1TlbPgSz") && !bit(d, id, 52))
			return "PhyAddrValid=0";
		if (!strcmp(n, "FetchL2Miss") && !bit(d, id, 50))
			return "FetchComp=0";
		return NULL;
	case IBS_OP_DATA:
		if ((!strcmp(n, "OpReturn") || !strcmp(n, "OpBrnTaken") ||
		     !strcmp(n, "OpBrnMisp")) && !bit(d, id, 37))
			return "OpBrnRet=0";
		return NULL;
	case IBS_OP_DATA2:
		if (strcmp(n, "CacheHitSt"))
			return NULL;
		src = data_src(st, d, &ext);
		if (ext ? (src == 1 || src == 2 || src == 5) : src == 2)
			return NULL;
		return "data source is not a cache";
	case IBS_OP_DATA3:
		if ((!strcmp(n, "L2Miss") || !strcmp(n, "OpDcMissOpenMemReqs")) &&
		    erratum_1293(st, d))
			return "erratum 1293";
		if (!strcmp(n, "DcMissLat") && !bit(d, id, 7))
			return "DcMiss=0";
		if (!strcmp(n, "TlbRefillLat") && !bit(d, id, 2))
			return "DcL1TlbMiss=0";
		return NULL;
	default:
		return NULL;
	}
}

/* ---- derived values ---- */

struct ibs_derived {
	const char *tlb; /* "L1-hit", "L2-hit", "L2-miss" or NULL */
	const char *page_size; /* NULL: unknown */
	const char *op_type; /* op */
	const char *dc; /* "hit"/"miss" or NULL */
	const char *level; /* cache level / where the data came from */
	int64_t latency; /* fetch latency or DC miss latency, -1 n/a */
	int64_t refill; /* TLB refill latency, -1 n/a */
	int64_t mem_width; /* bytes, -1 n/a */
};

static const char *fetch_page_size(const struct ibs_state *st, const struct ibs_sample *d)
{
	static const char *const sz[4] = { "4K", "2M", "1G", "reserved" };
	/* erratum 1347: family 19h models < 10h encode 4K/16K/2M/1G */
	static const char *const sz1347[4] = { "4K", "16K", "2M", "1G" };

	if (!bit(d, IBS_FETCH_CTL, 52))
		return NULL;
	return (fam19_early(&st->cpu) ? sz1347 : sz)[bits(d, IBS_FETCH_CTL, 53, 2)];
}

static void derive_fetch(const struct ibs_state *st, const struct ibs_sample *d,
			 struct ibs_derived *v)
{
	bool phys_only = fetch_needs_phys(&st->cpu) && !bit(d, IBS_FETCH_CTL, 52);

	v->latency = -1;
	if (!phys_only && d->have[IBS_FETCH_CTL])
		v->latency = bits(d, IBS_FETCH_CTL, 32, 16);
	v->refill = d->have[IBS_FETCH_EXTD_CTL] ? (int64_t)bits(d, IBS_FETCH_EXTD_CTL, 0, 16) : -1;
	if (!phys_only && d->have[IBS_FETCH_CTL])
		v->tlb = !bit(d, IBS_FETCH_CTL, 55) ? "L1-hit" :
			 !bit(d, IBS_FETCH_CTL, 56) ? "L2-hit" : "L2-miss";
	v->page_size = fetch_page_size(st, d);
	if (!bit(d, IBS_FETCH_CTL, 50))
		v->dc = NULL, v->level = "not completed";
	else if (fam19_early(&st->cpu) || phys_only)
		v->level = NULL; /* IcMiss unusable */
	else if (!bit(d, IBS_FETCH_CTL, 51))
		v->level = "IC";
	else if (ibs_gate_open(IBS_G_FAM17, &st->cpu, d->caps) && !bit(d, IBS_FETCH_CTL, 58))
		v->level = "L2";
	else if (ibs_gate_open(IBS_G_ZEN4, &st->cpu, d->caps))
		v->level = bit(d, IBS_FETCH_CTL, 61) ? "beyond L3" : "L3";
	else
		v->level = "IC miss";
}

static const char *ext_level(unsigned int src)
{
	switch (src) {
	case 1:
		return "L3";
	case 2:
	case 5:
		return "peer CCX cache";
	case 3:
	case 6:
		return "DRAM";
	case 7:
		return "IO";
	case 8:
		return "extension memory";
	case 12:
		return "peer agent memory";
	default:
		return "beyond L2";
	}
}

static void derive_op(const struct ibs_state *st, const struct ibs_sample *d,
		      struct ibs_derived *v)
{
	bool ld = bit(d, IBS_OP_DATA3, 0), stop = bit(d, IBS_OP_DATA3, 1);
	bool zen = ibs_gate_open(IBS_G_FAM17, &st->cpu, d->caps), ext;
	unsigned int src = data_src(st, d, &ext);
	bool src_ok = d->have[IBS_OP_DATA2] && !reg_invalid(st, d, IBS_OP_DATA2);

	v->op_type = ld && stop ? "load+store" : ld ? "load" : stop ? "store" :
		     bit(d, IBS_OP_DATA, 37) ? "branch" : "other";
	v->latency = -1;
	v->refill = -1;
	v->mem_width = -1;
	if (!d->have[IBS_OP_DATA3] || !(ld || stop))
		return;
	v->dc = bit(d, IBS_OP_DATA3, 7) ? "miss" : "hit";
	if (bit(d, IBS_OP_DATA3, 7))
		v->latency = bits(d, IBS_OP_DATA3, 32, 16);
	if (!bit(d, IBS_OP_DATA3, 2))
		v->tlb = "L1-hit";
	else
		v->tlb = bit(d, IBS_OP_DATA3, 3) ? "L2-miss" : "L2-hit";
	if (!bit(d, IBS_OP_DATA3, 2))
		v->page_size = bit(d, IBS_OP_DATA3, 5) ? "1G" : bit(d, IBS_OP_DATA3, 4) ? "2M" : "4K";
	else if (!bit(d, IBS_OP_DATA3, 3))
		v->page_size = bit(d, IBS_OP_DATA3, 19) ? "1G" : bit(d, IBS_OP_DATA3, 6) ? "2M" : "4K";
	if (zen) {
		if (bit(d, IBS_OP_DATA3, 2))
			v->refill = bits(d, IBS_OP_DATA3, 48, 16);
		if (bits(d, IBS_OP_DATA3, 22, 4))
			v->mem_width = 1 << (bits(d, IBS_OP_DATA3, 22, 4) - 1);
	}
	if (!bit(d, IBS_OP_DATA3, 7))
		v->level = "L1";
	else if (zen && !erratum_1293(st, d) && !bit(d, IBS_OP_DATA3, 20))
		v->level = "L2";
	else if (zen)
		v->level = src_ok && src ? ext_level(src) : "beyond L2";
	else
		v->level = src_ok && src ? ibs_data_src_name(src, false) : "beyond L1";
}

static void derive(const struct ibs_state *st, const struct ibs_sample *d, struct ibs_derived *v)
{
	memset(v, 0, sizeof(*v));
	v->latency = v->refill = v->mem_width = -1;
	if (st->pmu == IBS_PMU_FETCH)
		derive_fetch(st, d, v);
	else
		derive_op(st, d, v);
}

/* ---- decoder callbacks ---- */

static int ibs_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      uint32_t *len, struct rawfrag_check_sink *sink)
{
	const struct ibs_state *st = priv;
	const char *pmu = pmu_names[st->pmu];
	struct ibs_sample d;

	ibs_decode(st, raw, &d);
	if (raw->size < 4) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "ibs_reg_count", 0,
					   "%s: raw area of %u bytes has no caps word", pmu,
					   raw->size);
		return -EINVAL;
	}
	if ((raw->size - 4) % 8) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "ibs_reg_count", 4,
					   "%s: raw size %u is not 4 + 8n (%u bytes after %d registers)",
					   pmu, raw->size, (raw->size - 4) % 8, d.lay.nr_found);
		return -EINVAL;
	}
	if (!(d.caps & IBS_CAP(AVAIL)))
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "ibs_caps", 0,
					   "%s: caps 0x%x without AVAIL (the kernel forces it)",
					   pmu, d.caps);
	if (d.lay.kind == IBS_LAYOUT_BAD) {
		if (d.lay.nr_alt >= 0)
			rawfrag_check_sink__report(
				sink, RAWFRAG_SEV_ERROR, "ibs_reg_count", 4,
				"%s: caps 0x%x: expected %d registers (2020 layout) or %d (pre-2020 layout), found %d",
				pmu, d.caps, d.lay.nr_expected, d.lay.nr_alt, d.lay.nr_found);
		else
			rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "ibs_reg_count", 4,
						   "%s: caps 0x%x: expected %d registers, found %d",
						   pmu, d.caps, d.lay.nr_expected, d.lay.nr_found);
		return -EINVAL;
	}
	*len = raw->size;
	return 0;
}

static void text_caps_layout(struct rawfrag_out *out, const struct ibs_state *st,
			     const struct ibs_sample *d)
{
	rawfrag_out__printf(out, "%s caps=%#x layout=%s%s regs=%d", pmu_names[st->pmu], d->caps,
			    ibs_layout_name(d->lay.kind), d->lay.ambiguous ? "(ambiguous)" : "",
			    d->lay.nr_found);
	if (d->lay.kind == IBS_LAYOUT_BAD)
		rawfrag_out__printf(out, "/%d", d->lay.nr_expected);
	if (!d->valid)
		rawfrag_out__puts(out, " not-valid(En/Val)");
}

static void text_addr(struct rawfrag_out *out, const struct ibs_state *st,
		      const struct ibs_sample *d, enum ibs_reg_id id, const char *label)
{
	if (d->have[id] && !reg_invalid(st, d, id))
		rawfrag_out__printf(out, " %s=%#llx", label, (unsigned long long)d->val[id]);
}

static void text_summary(struct rawfrag_out *out, const struct ibs_state *st,
			 const struct ibs_sample *d)
{
	struct ibs_derived v;

	derive(st, d, &v);
	text_caps_layout(out, st, d);
	if (st->pmu == IBS_PMU_FETCH) {
		text_addr(out, st, d, IBS_FETCH_LINAD, "lin");
		text_addr(out, st, d, IBS_FETCH_PHYSAD, "phys");
		if (v.latency >= 0)
			rawfrag_out__printf(out, " lat=%lld", (long long)v.latency);
		if (v.level)
			rawfrag_out__printf(out, " from=%s", v.level);
	} else {
		text_addr(out, st, d, IBS_OP_RIP, "rip");
		rawfrag_out__printf(out, " %s", v.op_type);
		if (bit(d, IBS_OP_DATA, 37))
			rawfrag_out__printf(out, "%s%s%s", bit(d, IBS_OP_DATA, 35) ? " taken" : " not-taken",
					    bit(d, IBS_OP_DATA, 36) ? " mispredicted" : "",
					    bit(d, IBS_OP_DATA, 34) ? " return" : "");
		text_addr(out, st, d, IBS_BR_TARGET, "target");
		if (v.dc)
			rawfrag_out__printf(out, " dc=%s", v.dc);
		if (v.latency >= 0)
			rawfrag_out__printf(out, " lat=%lld", (long long)v.latency);
		if (v.level)
			rawfrag_out__printf(out, " from=\"%s\"", v.level);
		text_addr(out, st, d, IBS_DC_LINAD, "lin");
		text_addr(out, st, d, IBS_DC_PHYSAD, "phys");
	}
	if (v.tlb)
		rawfrag_out__printf(out, " tlb=%s", v.tlb);
	if (v.page_size)
		rawfrag_out__printf(out, " page=%s", v.page_size);
	if (v.refill >= 0)
		rawfrag_out__printf(out, " refill_lat=%lld", (long long)v.refill);
}

static void text_verbose(struct rawfrag_out *out, const struct ibs_state *st,
			 const struct ibs_sample *d)
{
	for (int i = 0; i < d->lay.nr_regs; i++) {
		enum ibs_reg_id id = d->lay.regs[i];
		const struct ibs_reg *r = ibs_reg_desc(id);
		const char *why = reg_invalid(st, d, id);

		rawfrag_out__printf(out, " | %s=%#llx", r->name, (unsigned long long)d->val[id]);
		if (why)
			rawfrag_out__printf(out, " (invalid: %s)", why);
		for (int j = 0; j < r->nr_fields; j++) {
			const struct ibs_field *f = &r->fields[j];

			if (!ibs_gate_open(f->gate, &st->cpu, d->caps))
				continue;
			rawfrag_out__printf(out, " %s=%llu%s", f->name,
					    (unsigned long long)ibs_field_get(f, d->val[id]),
					    field_invalid(st, d, id, f) ? "(invalid)" : "");
		}
	}
}

static int ibs_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		    struct rawfrag_out *out, bool verbose)
{
	const struct ibs_state *st = priv;
	struct ibs_sample d;

	ibs_decode(st, raw, &d);
	if (raw->size < 4) {
		rawfrag_out__printf(out, "%s: raw area of %u bytes (no caps word)",
				    pmu_names[st->pmu], raw->size);
		return 0;
	}
	text_summary(out, st, &d);
	if (verbose)
		text_verbose(out, st, &d);
	return 0;
}

static void emit_caps(struct rawfrag_emit *em, uint32_t caps)
{
	rawfrag_emit__hex(em, "caps", caps);
	rawfrag_emit__begin_array(em, "caps_names");
	for (unsigned int b = 0; b < 32; b++) {
		const char *n;
		char tmp[16];

		if (!(caps & (1u << b)))
			continue;
		n = ibs_cap_name(b);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "bit%u", b);
			n = tmp;
		}
		rawfrag_emit__str(em, NULL, n, (size_t)-1);
	}
	rawfrag_emit__end_array(em);
}

static void emit_reg(struct rawfrag_emit *em, const struct ibs_state *st,
		     const struct ibs_sample *d, enum ibs_reg_id id, int idx)
{
	const struct ibs_reg *r = ibs_reg_desc(id);
	const char *why = reg_invalid(st, d, id);
	bool any_invalid = false;

	rawfrag_emit__begin_object(em, r->name);
	rawfrag_emit__u64(em, "index", idx);
	rawfrag_emit__hex(em, "msr", r->msr);
	rawfrag_emit__hex(em, "raw", d->val[id]);
	rawfrag_emit__bool(em, "valid", !why);
	if (why)
		rawfrag_emit__str(em, "invalid_reason", why, (size_t)-1);
	if (r->nr_fields) {
		rawfrag_emit__begin_object(em, "fields");
		for (int j = 0; j < r->nr_fields; j++) {
			const struct ibs_field *f = &r->fields[j];

			if (!ibs_gate_open(f->gate, &st->cpu, d->caps))
				continue;
			rawfrag_emit__u64(em, f->name, ibs_field_get(f, d->val[id]));
			any_invalid |= field_invalid(st, d, id, f) != NULL;
		}
		rawfrag_emit__end_object(em);
	}
	if (any_invalid) {
		rawfrag_emit__begin_object(em, "invalid_fields");
		for (int j = 0; j < r->nr_fields; j++) {
			const struct ibs_field *f = &r->fields[j];
			const char *fw;

			if (!ibs_gate_open(f->gate, &st->cpu, d->caps))
				continue;
			fw = field_invalid(st, d, id, f);
			if (fw)
				rawfrag_emit__str(em, f->name, fw, (size_t)-1);
		}
		rawfrag_emit__end_object(em);
	}
	rawfrag_emit__end_object(em);
}

static void emit_derived(struct rawfrag_emit *em, const struct ibs_state *st,
			 const struct ibs_sample *d)
{
	struct ibs_derived v;
	bool ext;
	unsigned int src;

	derive(st, d, &v);
	rawfrag_emit__begin_object(em, "derived");
	if (v.op_type)
		rawfrag_emit__str(em, "op_type", v.op_type, (size_t)-1);
	if (st->pmu == IBS_PMU_OP && bit(d, IBS_OP_DATA, 37)) {
		rawfrag_emit__bool(em, "branch_taken", bit(d, IBS_OP_DATA, 35));
		rawfrag_emit__bool(em, "branch_mispredicted", bit(d, IBS_OP_DATA, 36));
		rawfrag_emit__bool(em, "branch_return", bit(d, IBS_OP_DATA, 34));
	}
	if (v.dc)
		rawfrag_emit__str(em, "dc", v.dc, (size_t)-1);
	if (v.latency >= 0)
		rawfrag_emit__u64(em, st->pmu == IBS_PMU_FETCH ? "fetch_latency" : "dc_miss_latency",
				  v.latency);
	if (v.level)
		rawfrag_emit__str(em, "cache_level", v.level, (size_t)-1);
	if (st->pmu == IBS_PMU_OP && d->have[IBS_OP_DATA2] && !reg_invalid(st, d, IBS_OP_DATA2)) {
		src = data_src(st, d, &ext);
		rawfrag_emit__u64(em, "data_source", src);
		rawfrag_emit__str(em, "data_source_name", ibs_data_src_name(src, ext), (size_t)-1);
	}
	if (v.tlb)
		rawfrag_emit__str(em, "tlb", v.tlb, (size_t)-1);
	if (v.page_size)
		rawfrag_emit__str(em, "page_size", v.page_size, (size_t)-1);
	if (v.refill >= 0)
		rawfrag_emit__u64(em, "tlb_refill_latency", v.refill);
	if (v.mem_width >= 0)
		rawfrag_emit__u64(em, "mem_width", v.mem_width);
	rawfrag_emit__end_object(em);
}

static int ibs_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      struct rawfrag_emit *em)
{
	const struct ibs_state *st = priv;
	struct ibs_sample d;

	ibs_decode(st, raw, &d);
	rawfrag_emit__str(em, "pmu", pmu_names[st->pmu], (size_t)-1);
	rawfrag_emit__u64(em, "family", st->cpu.family);
	rawfrag_emit__u64(em, "model", st->cpu.model);
	rawfrag_emit__u64(em, "stepping", st->cpu.stepping);
	rawfrag_emit__bool(em, "zen4_ibs_extensions", st->cpu.zen4);
	if (raw->size < 4) {
		rawfrag_emit__str(em, "error", "no caps word", (size_t)-1);
		return 0;
	}
	emit_caps(em, d.caps);
	rawfrag_emit__str(em, "layout", ibs_layout_name(d.lay.kind), (size_t)-1);
	rawfrag_emit__bool(em, "layout_ambiguous", d.lay.ambiguous);
	if (st->hint_from && st->pmu == IBS_PMU_FETCH)
		rawfrag_emit__str(em, "layout_hint_from", st->hint_from, (size_t)-1);
	rawfrag_emit__u64(em, "nr_regs", d.lay.nr_found);
	rawfrag_emit__u64(em, "expected_regs", d.lay.nr_expected);
	if (d.lay.nr_alt >= 0)
		rawfrag_emit__u64(em, "expected_regs_other_layout", d.lay.nr_alt);
	rawfrag_emit__bool(em, "valid", d.valid);
	rawfrag_emit__begin_object(em, "regs");
	for (int i = 0; i < d.lay.nr_regs; i++)
		emit_reg(em, st, &d, d.lay.regs[i], i);
	rawfrag_emit__end_object(em);
	emit_derived(em, st, &d);
	return 0;
}

const struct rawfrag_decoder rawfrag_decoder_ibs_fetch = {
	.name = "ibs_fetch",
	.description = "AMD IBS instruction fetch samples (caps word + fetch MSRs)",
	.probe = ibs_fetch_probe,
	.release = ibs_release,
	.length = ibs_length,
	.text = ibs_text,
	.fields = ibs_fields,
};

const struct rawfrag_decoder rawfrag_decoder_ibs_op = {
	.name = "ibs_op",
	.description = "AMD IBS execution (op) samples (caps word + op MSRs)",
	.probe = ibs_op_probe,
	.release = ibs_release,
	.length = ibs_length,
	.text = ibs_text,
	.fields = ibs_fields,
};
