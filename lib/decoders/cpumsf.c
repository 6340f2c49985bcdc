// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * s390 CPUM-SF raw samples as the cpum_sf driver wrote them before its raw
 * support was removed (the 4.x-era sf_raw_sample, Documentation/perf.data-raw-format.txt, s390).
 * Payload, big-endian:
 *    0 u64 format (1 basic, 3 basic + diagnostic)
 *    8 u32 size of the whole buffer (= raw_size: the kernel hands the buffer over
 *          as one fragment, size = ALIGN(52 + dsdes, 8) - 4)
 *   12 u16 bsdes, 14 u16 dsdes (entry sizes from QSI)
 *   16 basic-sampling entry, 32 bytes
 *   48 diagnostic-sampling entry, dsdes bytes (zero in basic mode), zero fill
 * Basic entry word 0, IBM bit numbers (0 = MSB): 0-15 DEF, 20-23 U, 26 T, 27 W,
 * 28 P, 29-30 AS, 31 I, 32-33 CL, 34 H, 35 LS, 48-63 primary ASN; then IA, GPP,
 * HPP. Newer kernels send cpum_sf samples with the empty raw form instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/decoders.h"
#include "internal/s390.h"

struct sf_basic {
	uint16_t def;
	unsigned int u, t, w, p, as, i, cl, h, ls;
	uint16_t prim_asn;
	uint64_t ia, gpp, hpp;
};

/* bit at IBM position n of a 64-bit word */
#define IBM_BIT(w, n) ((unsigned int)((w) >> (63 - (n))) & 1)

static void sf_basic_read(const uint8_t *e, struct sf_basic *b)
{
	uint64_t w = s390_get64(e);

	b->def = (uint16_t)(w >> 48);
	b->u = (unsigned int)(w >> 40) & 0xf;
	b->t = IBM_BIT(w, 26);
	b->w = IBM_BIT(w, 27);
	b->p = IBM_BIT(w, 28);
	b->as = (unsigned int)(w >> 33) & 3;
	b->i = IBM_BIT(w, 31);
	b->cl = (unsigned int)(w >> 30) & 3;
	b->h = IBM_BIT(w, 34);
	b->ls = IBM_BIT(w, 35);
	b->prim_asn = (uint16_t)w;
	b->ia = s390_get64(e + 8);
	b->gpp = s390_get64(e + 16);
	b->hpp = s390_get64(e + 24);
}

/* The header fields, present when raw_size holds at least them. */
struct sf_hdr {
	uint64_t format;
	uint32_t size;
	uint16_t bsdes, dsdes;
};

static bool sf_hdr_read(const struct rawfrag_raw *raw, struct sf_hdr *h)
{
	if (raw->size < S390_SF_DIAG_OFF)
		return false;
	h->format = s390_get64(raw->data);
	h->size = s390_get32(raw->data + 8);
	h->bsdes = s390_get16(raw->data + 12);
	h->dsdes = s390_get16(raw->data + 14);
	return true;
}

static int cpumsf_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
			 uint32_t *len, struct rawfrag_check_sink *sink)
{
	struct sf_hdr h;
	struct sf_basic b;
	uint64_t want;

	/* kernels without raw support send the empty form {4, 0} */
	if (raw->size == 4 && !s390_get32(raw->data)) {
		*len = 0;
		return 0;
	}
	if (!sf_hdr_read(raw, &h)) {
		rawfrag_check_sink__report(
			sink, RAWFRAG_SEV_ERROR, "cpumsf_size", 0,
			"raw_size %u is smaller than the 48-byte header and basic entry",
			raw->size);
		return -EINVAL;
	}
	/* the kernel sized the buffer from QSI dsdes even in basic-only mode */
	want = ((52ULL + h.dsdes + 7) & ~7ULL) - 4;
	if (h.size != raw->size || want != raw->size) {
		rawfrag_check_sink__report(
			sink, RAWFRAG_SEV_ERROR, "cpumsf_size", 8,
			"recorded size %u, raw_size %u, ALIGN(52 + dsdes %u, 8) - 4 = %llu", h.size,
			raw->size, h.dsdes, (unsigned long long)want);
		return -EINVAL;
	}
	if (h.format != S390_SF_FMT_BASIC && h.format != (S390_SF_FMT_BASIC | S390_SF_FMT_DIAG))
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "cpumsf_format", 0,
					   "format 0x%llx is neither basic (1) nor basic+diag (3)",
					   (unsigned long long)h.format);
	if (h.bsdes != S390_SF_BASIC_SIZE)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "cpumsf_bsdes", 12,
					   "basic entry size %u, the sample holds %u", h.bsdes,
					   S390_SF_BASIC_SIZE);
	if (h.dsdes && h.dsdes < S390_SF_DIAG_HDR)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "cpumsf_dsdes", 14,
					   "diagnostic entry size %u is smaller than its header",
					   h.dsdes);
	sf_basic_read(raw->data + S390_SF_BASIC_OFF, &b);
	/* the driver pushes only valid entries: DEF 0x0001, not invalid, not wait */
	if (b.def != 1 || b.i || b.w)
		rawfrag_check_sink__report(
			sink, RAWFRAG_SEV_WARN, "cpumsf_basic_entry", S390_SF_BASIC_OFF,
			"basic entry DEF 0x%04x I=%u W=%u: not one the driver pushes", b.def, b.i,
			b.w);
	if ((h.format & S390_SF_FMT_DIAG) && s390_get16(raw->data + S390_SF_DIAG_OFF) < 0x8001)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "cpumsf_diag_def",
					   S390_SF_DIAG_OFF, "diagnostic entry DEF 0x%04x < 0x8001",
					   s390_get16(raw->data + S390_SF_DIAG_OFF));
	*len = S390_SF_DIAG_OFF + h.dsdes;
	return 0;
}

static void emit_basic(struct rawfrag_emit *em, const uint8_t *e)
{
	struct sf_basic b;

	sf_basic_read(e, &b);
	rawfrag_emit__begin_object(em, "basic");
	rawfrag_emit__hex(em, "def", b.def);
	rawfrag_emit__u64(em, "unique_insns", b.u);
	rawfrag_emit__bool(em, "dat_mode", b.t);
	rawfrag_emit__bool(em, "wait_state", b.w);
	rawfrag_emit__bool(em, "problem_state", b.p);
	rawfrag_emit__u64(em, "address_space_control", b.as);
	rawfrag_emit__bool(em, "invalid", b.i);
	rawfrag_emit__u64(em, "config_level", b.cl);
	rawfrag_emit__bool(em, "host", b.h);
	rawfrag_emit__bool(em, "limited_sampling", b.ls);
	rawfrag_emit__u64(em, "primary_asn", b.prim_asn);
	rawfrag_emit__hex(em, "instruction_address", b.ia);
	rawfrag_emit__hex(em, "guest_program_param", b.gpp);
	rawfrag_emit__hex(em, "host_program_param", b.hpp);
	rawfrag_emit__end_object(em);
}

static void emit_diag(struct rawfrag_emit *em, const struct rawfrag_raw *raw,
		      const struct sf_hdr *h)
{
	const uint8_t *d = raw->data + S390_SF_DIAG_OFF;
	uint32_t room = raw->size - S390_SF_DIAG_OFF, n = h->dsdes;
	uint32_t w;

	if (n > room)
		n = room; /* malformed: show what is there */
	rawfrag_emit__begin_object(em, "diag");
	rawfrag_emit__u64(em, "size", h->dsdes);
	if (n >= S390_SF_DIAG_HDR) {
		w = s390_get32(d);
		rawfrag_emit__hex(em, "def", w >> 16);
		/* I is IBM bit 31 of the header word (4.x headers declared it at 30) */
		rawfrag_emit__bool(em, "invalid", w & 1);
		rawfrag_emit__hex(em, "header", w);
		rawfrag_emit__bytes(em, "data", d + S390_SF_DIAG_HDR, n - S390_SF_DIAG_HDR);
	}
	rawfrag_emit__end_object(em);
}

static int cpumsf_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
			 struct rawfrag_emit *em)
{
	struct sf_hdr h;

	if (!sf_hdr_read(raw, &h)) {
		if (raw->size == 4 && !s390_get32(raw->data))
			rawfrag_emit__bool(em, "empty", true);
		else
			rawfrag_emit__str(em, "error", "raw data shorter than the header",
					  (size_t)-1);
		return 0;
	}
	rawfrag_emit__hex(em, "format", h.format);
	rawfrag_emit__str(em, "mode", h.format & S390_SF_FMT_DIAG ? "basic+diagnostic" : "basic",
			  (size_t)-1);
	rawfrag_emit__u64(em, "size", h.size);
	rawfrag_emit__u64(em, "bsdes", h.bsdes);
	rawfrag_emit__u64(em, "dsdes", h.dsdes);
	emit_basic(em, raw->data + S390_SF_BASIC_OFF);
	if (h.format & S390_SF_FMT_DIAG)
		emit_diag(em, raw, &h);
	return 0;
}

static int cpumsf_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		       struct rawfrag_out *out, bool verbose)
{
	struct rawfrag_emit *em;
	struct sf_basic b;
	struct sf_hdr h;

	if (verbose) {
		em = rawfrag_emit__new(out, RAWFRAG_EMIT_TEXT);
		if (!em)
			return -errno;
		cpumsf_fields(priv, raw, s, em);
		rawfrag_emit__delete(em);
		return 0;
	}
	if (!sf_hdr_read(raw, &h)) {
		rawfrag_out__printf(out, "cpum_sf %s",
				    raw->size == 4 && !s390_get32(raw->data)
					    ? "empty"
					    : "error=\"raw data shorter than the header\"");
		return 0;
	}
	sf_basic_read(raw->data + S390_SF_BASIC_OFF, &b);
	rawfrag_out__printf(out, "cpum_sf %s ia=0x%llx asn=%u P=%u AS=%u W=%u I=%u hpp=0x%llx",
			    h.format & S390_SF_FMT_DIAG ? "basic+diag" : "basic",
			    (unsigned long long)b.ia, b.prim_asn, b.p, b.as, b.w, b.i,
			    (unsigned long long)b.hpp);
	if (h.format & S390_SF_FMT_DIAG)
		rawfrag_out__printf(out, " diag=%u bytes", h.dsdes);
	return 0;
}

static int cpumsf_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
			void **priv)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	const char *pmu = rawfrag_evsel__pmu_name(evsel);

	if (s390_env__not_s390(ctx->env))
		return 0;
	if (attr->config != S390_EVENT_CPUM_SF && attr->config != S390_EVENT_CPUM_SF_DIAG)
		return 0;
	if (pmu)
		return strcmp(pmu, "cpum_sf") ? 0 : 100;
	/* no PMU_MAPPINGS: an s390 file's dynamic PMU with the sampling config */
	return s390_env__is_s390(ctx->env) && attr->type >= PERF_TYPE_MAX ? 50 : 0;
}

const struct rawfrag_decoder rawfrag_decoder_cpumsf = {
	.name = "cpumsf",
	.description = "s390 CPUM-SF raw samples (legacy sf_raw_sample)",
	.probe = cpumsf_probe,
	.length = cpumsf_length,
	.text = cpumsf_text,
	.fields = cpumsf_fields,
};
