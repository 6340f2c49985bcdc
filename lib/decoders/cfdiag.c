// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * s390 CPUM-CF CF_DIAG (event 0xBC000): the counter sets the kernel saved when
 * the task was scheduled in and out, as deltas, followed by a 64-byte trailer
 * (Documentation/perf.data-raw-format.txt, s390). Payload, big-endian:
 *   per authorised set: {u16 0xFEEF, u16 set, u16 counters, u16 0}, counters x u64
 *   trailer: u64 flags, u16 cfvn, u16 csvn, u32 cpu_speed, u64 timestamp,
 *            u64 progusage1..3, u64 tod_base, u16 machine type, 6 reserved bytes
 * raw_size is the payload + 4 unwritten pad bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/decoders.h"
#include "internal/s390.h"

struct cfdiag_priv {
	const struct s390_machine *machine; /* from the file's CPUID, may be NULL */
};

/* Where the sets end and the trailer starts, found by cfdiag_walk(). */
struct cfdiag_layout {
	uint32_t nr_sets;
	uint32_t trailer_off;
	bool has_trailer;
	char why[160]; /* empty when the framing is sound */
};

struct cfdiag_trailer {
	uint64_t flags, timestamp, progusage[3], tod_base;
	uint16_t cfvn, csvn, mach_type, res1;
	uint32_t cpu_speed, res2;
};

static const char *const flag_names[] = {"clock_base", "speed", "mtda", "caca", "lcda"};

static void trailer_read(const uint8_t *t, struct cfdiag_trailer *tr)
{
	tr->flags = s390_get64(t);
	tr->cfvn = s390_get16(t + 8);
	tr->csvn = s390_get16(t + 10);
	tr->cpu_speed = s390_get32(t + 12);
	tr->timestamp = s390_get64(t + 16);
	for (int i = 0; i < 3; i++)
		tr->progusage[i] = s390_get64(t + 24 + 8 * i);
	tr->tod_base = s390_get64(t + 48);
	tr->mach_type = s390_get16(t + 56);
	tr->res1 = s390_get16(t + 58);
	tr->res2 = s390_get32(t + 60);
}

/* flags are numbered from the MSB (IBM bit 0 = clock_base) */
static bool trailer_flag(const struct cfdiag_trailer *tr, int i)
{
	return tr->flags >> (63 - i) & 1;
}

/* A trailer where a short set would have hidden it: facility versions look real. */
static bool trailer_plausible(const uint8_t *t)
{
	uint16_t cfvn = s390_get16(t + 8), csvn = s390_get16(t + 10);

	return cfvn >= 1 && cfvn <= 15 && csvn >= 1 && csvn <= 15;
}

static int fail(struct cfdiag_layout *lay, struct rawfrag_check_sink *sink, const char *kind,
		int64_t off, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail(struct cfdiag_layout *lay, struct rawfrag_check_sink *sink, const char *kind,
		int64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lay->why, sizeof(lay->why), fmt, ap);
	va_end(ap);
	if (sink)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, kind, off, "%s", lay->why);
	return -EINVAL;
}

/*
 * A header of a later set inside the previous set's claimed counters means that
 * set is shorter than its header says.
 */
static bool find_next_header(const uint8_t *p, uint64_t prev_off, uint64_t end, int prev_set,
			     uint64_t *found)
{
	for (uint64_t q = prev_off + S390_CFDIAG_SET_HDR; q + S390_CFDIAG_SET_HDR <= end; q += 8) {
		uint16_t set = s390_get16(p + q + 2);

		if (s390_get16(p + q) == S390_CFDIAG_MAGIC && (int)set > prev_set &&
		    set < S390_CTRSET_MAX && !s390_get16(p + q + 6)) {
			*found = q;
			return true;
		}
	}
	return false;
}

/*
 * Follow the set headers to the trailer. The trailer must end 0..7 bytes before
 * raw_size; the position it would start at if the sets were sound is
 * ((raw_size - 64) & ~7), which tells a set that is shorter than its header says
 * (it runs into a plausible trailer there) from a truncated trailer.
 */
static int cfdiag_walk(const struct rawfrag_raw *raw, struct cfdiag_layout *lay,
		       struct rawfrag_check_sink *sink)
{
	const uint8_t *p = raw->data;
	uint64_t size = raw->size, off = 0, toff = 0;
	bool have_toff = size >= S390_CFDIAG_TRAILER;
	uint64_t prev_off = 0, found;
	int prev = -1;

	memset(lay, 0, sizeof(*lay));
	if (have_toff)
		toff = (size - S390_CFDIAG_TRAILER) & ~7ULL;
	for (;;) {
		uint64_t rem = size - off, need;
		uint16_t set, ctr;

		if (rem >= S390_CFDIAG_SET_HDR && s390_get16(p + off) == S390_CFDIAG_MAGIC) {
			set = s390_get16(p + off + 2);
			ctr = s390_get16(p + off + 4);
			need = S390_CFDIAG_SET_HDR + 8ULL * ctr;
			if (need > rem)
				return fail(
					lay, sink, "cfdiag_set_length", off,
					"set %u at 0x%llx: %u counters need %llu bytes, %llu left",
					set, (unsigned long long)off, ctr, (unsigned long long)need,
					(unsigned long long)rem);
			if (sink && s390_get16(p + off + 6))
				rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN,
							   "cfdiag_set_reserved", off + 6,
							   "set %u: reserved half-word 0x%04x", set,
							   s390_get16(p + off + 6));
			if (sink && set >= S390_CTRSET_MAX)
				rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "cfdiag_set_id",
							   off, "unknown counter set %u", set);
			if (sink && (int)set <= prev)
				rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN,
							   "cfdiag_set_order", off,
							   "set %u after set %d", set, prev);
			prev = set;
			prev_off = off;
			lay->nr_sets++;
			off += need;
			continue;
		}
		if (rem >= S390_CFDIAG_TRAILER && rem - S390_CFDIAG_TRAILER <= 7)
			break;
		if (lay->nr_sets && find_next_header(p, prev_off, off, prev, &found))
			return fail(lay, sink, "cfdiag_set_length", prev_off,
				    "set %d at 0x%llx says %u counters but the next set header is "
				    "at 0x%llx (%llu counters)",
				    prev, (unsigned long long)prev_off,
				    s390_get16(p + prev_off + 4), (unsigned long long)found,
				    (unsigned long long)(found - prev_off - S390_CFDIAG_SET_HDR) /
					    8);
		if (have_toff && off > toff && trailer_plausible(p + toff))
			return fail(lay, sink, "cfdiag_set_length", toff,
				    "set lengths do not sum to the payload: the sets end at "
				    "0x%llx, past the trailer at 0x%llx",
				    (unsigned long long)off, (unsigned long long)toff);
		if (rem >= S390_CFDIAG_SET_HDR && rem > S390_CFDIAG_TRAILER + 7)
			return fail(lay, sink, "cfdiag_bad_magic", off,
				    "set header at 0x%llx starts 0x%04x, not 0xfeef, and %llu "
				    "bytes remain",
				    (unsigned long long)off, s390_get16(p + off),
				    (unsigned long long)rem);
		return fail(lay, sink, "cfdiag_no_trailer", off,
			    "no trailer: %llu bytes after the last set at 0x%llx, 64 needed",
			    (unsigned long long)rem, (unsigned long long)off);
	}
	lay->has_trailer = true;
	lay->trailer_off = (uint32_t)off;
	return 0;
}

/* Counters per set against what the kernel stores at the trailer's versions. */
static void cfdiag_check_counts(const struct rawfrag_raw *raw, const struct cfdiag_layout *lay,
				struct rawfrag_check_sink *sink)
{
	struct cfdiag_trailer tr;
	uint32_t off = 0;

	trailer_read(raw->data + lay->trailer_off, &tr);
	for (uint32_t i = 0; i < lay->nr_sets; i++) {
		uint16_t set = s390_get16(raw->data + off + 2);
		uint16_t ctr = s390_get16(raw->data + off + 4);
		unsigned int want = s390_ctrset__expected(set, tr.cfvn, tr.csvn);

		if (set < S390_CTRSET_MAX && want != ctr)
			rawfrag_check_sink__report(
				sink, RAWFRAG_SEV_ERROR, "cfdiag_set_count", off,
				"set %u (%s) has %u counters, cfvn %u csvn %u store %u", set,
				s390_ctrset__name(set), ctr, tr.cfvn, tr.csvn, want);
		off += S390_CFDIAG_SET_HDR + 8U * ctr;
	}
	/* only the top five flag bits are defined */
	if (tr.flags & ~(0x1FULL << 59))
		rawfrag_check_sink__report(
			sink, RAWFRAG_SEV_WARN, "cfdiag_trailer_flags", lay->trailer_off,
			"trailer flags 0x%016llx: reserved bits set", (unsigned long long)tr.flags);
	if (tr.res1 || tr.res2)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "cfdiag_trailer_reserved",
					   lay->trailer_off + 58,
					   "trailer reserved bytes not zero");
}

static int cfdiag_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
			 uint32_t *len, struct rawfrag_check_sink *sink)
{
	struct cfdiag_layout lay;
	int err;

	err = cfdiag_walk(raw, &lay, sink);
	if (err)
		return err;
	if (sink)
		cfdiag_check_counts(raw, &lay, sink);
	*len = lay.trailer_off + S390_CFDIAG_TRAILER;
	return 0;
}

static const struct s390_machine *cfdiag_machine(const struct cfdiag_priv *pv,
						 const struct rawfrag_raw *raw,
						 const struct cfdiag_layout *lay)
{
	if (pv && pv->machine)
		return pv->machine;
	/* no usable CPUID: the trailer names the machine type too */
	if (lay->has_trailer)
		return s390_machine__from_type(s390_get16(raw->data + lay->trailer_off + 56));
	return NULL;
}

static void emit_set(struct rawfrag_emit *em, const struct s390_machine *m, const uint8_t *p,
		     uint32_t off)
{
	uint16_t set = s390_get16(p + off + 2), ctr = s390_get16(p + off + 4);
	int base = s390_ctrset__base(set);
	const char *sname = s390_ctrset__name(set);

	rawfrag_emit__begin_object(em, NULL);
	rawfrag_emit__u64(em, "offset", off);
	rawfrag_emit__u64(em, "set", set);
	if (sname)
		rawfrag_emit__str(em, "name", sname, (size_t)-1);
	else
		rawfrag_emit__null(em, "name");
	rawfrag_emit__u64(em, "nr_counters", ctr);
	rawfrag_emit__begin_array(em, "counters");
	for (unsigned int i = 0; i < ctr; i++) {
		const char *cn = s390_cf__counter_name(m, set, i);

		rawfrag_emit__begin_object(em, NULL);
		rawfrag_emit__u64(em, "nr", i);
		if (base >= 0)
			rawfrag_emit__u64(em, "event", (uint64_t)base + i);
		if (cn)
			rawfrag_emit__str(em, "name", cn, (size_t)-1);
		else
			rawfrag_emit__null(em, "name");
		rawfrag_emit__u64(em, "value", s390_get64(p + off + 8 + 8 * i));
		rawfrag_emit__end_object(em);
	}
	rawfrag_emit__end_array(em);
	rawfrag_emit__end_object(em);
}

static void emit_trailer(struct rawfrag_emit *em, const uint8_t *t, uint32_t off)
{
	struct cfdiag_trailer tr;

	trailer_read(t, &tr);
	rawfrag_emit__begin_object(em, "trailer");
	rawfrag_emit__u64(em, "offset", off);
	rawfrag_emit__hex(em, "flags", tr.flags);
	for (int i = 0; i < 5; i++)
		rawfrag_emit__bool(em, flag_names[i], trailer_flag(&tr, i));
	rawfrag_emit__u64(em, "cfvn", tr.cfvn);
	rawfrag_emit__u64(em, "csvn", tr.csvn);
	rawfrag_emit__u64(em, "cpu_speed", tr.cpu_speed);
	rawfrag_emit__hex(em, "timestamp", tr.timestamp);
	rawfrag_emit__hex(em, "progusage1", tr.progusage[0]);
	rawfrag_emit__hex(em, "progusage2", tr.progusage[1]);
	rawfrag_emit__hex(em, "progusage3", tr.progusage[2]);
	rawfrag_emit__hex(em, "tod_base", tr.tod_base);
	rawfrag_emit__hex(em, "mach_type", tr.mach_type);
	rawfrag_emit__end_object(em);
}

static int cfdiag_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
			 struct rawfrag_emit *em)
{
	const struct s390_machine *m;
	struct cfdiag_layout lay;
	uint32_t off = 0, n;

	/* on malformed data, show the sets that are sound and why it stopped */
	cfdiag_walk(raw, &lay, NULL);
	m = cfdiag_machine(priv, raw, &lay);
	if (m)
		rawfrag_emit__str(em, "machine", m->name, (size_t)-1);
	else
		rawfrag_emit__null(em, "machine");
	rawfrag_emit__begin_array(em, "sets");
	for (n = 0; n < lay.nr_sets; n++) {
		emit_set(em, m, raw->data, off);
		off += S390_CFDIAG_SET_HDR + 8U * s390_get16(raw->data + off + 4);
	}
	rawfrag_emit__end_array(em);
	if (lay.has_trailer)
		emit_trailer(em, raw->data + lay.trailer_off, lay.trailer_off);
	if (lay.why[0])
		rawfrag_emit__str(em, "error", lay.why, (size_t)-1);
	return 0;
}

/* Short form: the sets with their counter count, cycles and instructions, versions. */
static void cfdiag_text_short(const struct rawfrag_raw *raw, const struct cfdiag_layout *lay,
			      const struct s390_machine *m, struct rawfrag_out *o)
{
	uint32_t off = 0;

	rawfrag_out__printf(o, "cf_diag machine=%s sets=", m ? m->name : "?");
	for (uint32_t n = 0; n < lay->nr_sets; n++) {
		uint16_t set = s390_get16(raw->data + off + 2),
			 ctr = s390_get16(raw->data + off + 4);
		const char *sn = s390_ctrset__name(set);

		if (n)
			rawfrag_out__putc(o, ',');
		if (sn)
			rawfrag_out__printf(o, "%s:%u", sn, ctr);
		else
			rawfrag_out__printf(o, "%u:%u", set, ctr);
		/* basic set: cycles and instructions are what people look for */
		if (set == S390_CTRSET_BASIC && ctr >= 2)
			rawfrag_out__printf(o, "(cycles=%llu,insns=%llu)",
					    (unsigned long long)s390_get64(raw->data + off + 8),
					    (unsigned long long)s390_get64(raw->data + off + 16));
		off += S390_CFDIAG_SET_HDR + 8U * ctr;
	}
	if (lay->has_trailer) {
		struct cfdiag_trailer tr;

		trailer_read(raw->data + lay->trailer_off, &tr);
		rawfrag_out__printf(o, " cfvn=%u csvn=%u speed=%u tod=0x%llx type=%x", tr.cfvn,
				    tr.csvn, tr.cpu_speed, (unsigned long long)tr.timestamp,
				    tr.mach_type);
	}
	if (lay->why[0])
		rawfrag_out__printf(o, " error=\"%s\"", lay->why);
}

static int cfdiag_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		       struct rawfrag_out *out, bool verbose)
{
	struct cfdiag_layout lay;
	struct rawfrag_emit *em;

	if (!verbose) {
		cfdiag_walk(raw, &lay, NULL);
		cfdiag_text_short(raw, &lay, cfdiag_machine(priv, raw, &lay), out);
		return 0;
	}
	em = rawfrag_emit__new(out, RAWFRAG_EMIT_TEXT);
	if (!em)
		return -errno;
	cfdiag_fields(priv, raw, s, em);
	rawfrag_emit__delete(em);
	return 0;
}

static int cfdiag_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
			void **priv)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	const char *pmu = rawfrag_evsel__pmu_name(evsel);
	struct cfdiag_priv *pv;
	int score = 0;

	if (attr->config != S390_EVENT_CF_DIAG || s390_env__not_s390(ctx->env))
		return 0;
	/* 6.1 registers CF_DIAG as PMU cpum_cf_diag; older kernels under cpum_cf */
	if (pmu && (!strcmp(pmu, "cpum_cf_diag") || !strcmp(pmu, "cpum_cf")))
		score = 100;
	else if (!pmu && s390_env__is_s390(ctx->env) && attr->type >= PERF_TYPE_MAX)
		score = 50; /* no PMU_MAPPINGS: perf's own rule (arch + config) */
	if (!score)
		return 0;
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return -ENOMEM;
	pv->machine = s390_machine__from_cpuid(ctx->env ? ctx->env->cpuid : NULL);
	*priv = pv;
	return score;
}

static void cfdiag_release(void *priv)
{
	free(priv);
}

const struct rawfrag_decoder rawfrag_decoder_cfdiag = {
	.name = "cfdiag",
	.description = "s390 CPUM-CF CF_DIAG counter sets and trailer",
	.probe = cfdiag_probe,
	.release = cfdiag_release,
	.length = cfdiag_length,
	.text = cfdiag_text,
	.fields = cfdiag_fields,
};
