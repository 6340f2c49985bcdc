// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * s390 PAI (processor activity instrumentation): pai_crypto CRYPTO_ALL (0x1000)
 * and pai_ext NNPA_ALL (0x1800) samples (Documentation/perf.data-raw-format.txt, s390). Payload,
 * big-endian: packed 10-byte entries {u16 counter number (1-based), u64 value},
 * only the counters that moved, in counter order; the kernel pads raw_size up to
 * 8n+4 without writing the pad. Counter n is event base + n.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/decoders.h"
#include "internal/s390.h"

enum pai_kind {
	PAI_CRYPTO,
	PAI_NNPA,
};

struct pai_priv {
	enum pai_kind kind;
};

static const struct {
	const char *pmu, *producer;
	unsigned int base, maxctr;
	const char *(*name)(unsigned int nr);
} kinds[] = {
	[PAI_CRYPTO] = {"pai_crypto", "pai_crypto", S390_PAI_CRYPTO_BASE, S390_PAI_CRYPTO_MAXCTR,
			s390_pai__crypto_name},
	[PAI_NNPA] = {"pai_ext", "pai_nnpa", S390_PAI_NNPA_BASE, S390_PAI_NNPA_MAXCTR,
		      s390_pai__nnpa_name},
};

/* Whole entries in raw_size: the pad after them is at most 7 bytes. */
static uint32_t pai_entries(const struct rawfrag_raw *raw)
{
	return raw->size / S390_PAI_ENTRY;
}

static int pai_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      uint32_t *len, struct rawfrag_check_sink *sink)
{
	const struct pai_priv *pv = priv;
	uint32_t n = pai_entries(raw), rest = raw->size - n * S390_PAI_ENTRY;
	unsigned int prev = 0;

	/* 10n + pad with pad <= 7: a remainder of 8 or 9 is a cut entry */
	if (rest > 7) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "pai_partial_entry",
					   n * S390_PAI_ENTRY,
					   "raw_size %u leaves %u bytes after %u entries: not a "
					   "whole entry, more than the pad",
					   raw->size, rest, n);
		return -EINVAL;
	}
	for (uint32_t i = 0; sink && i < n; i++) {
		const uint8_t *e = raw->data + i * S390_PAI_ENTRY;
		unsigned int nr = s390_get16(e);

		if (!s390_get64(e + 2))
			rawfrag_check_sink__report(
				sink, RAWFRAG_SEV_WARN, "pai_zero_value", e - raw->data,
				"counter %u is zero (the kernel stores only nonzero ones)", nr);
		if (nr < 1 || nr > kinds[pv->kind].maxctr) {
			rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "pai_counter_range",
						   e - raw->data, "counter %u outside 1..%u", nr,
						   kinds[pv->kind].maxctr);
			continue; /* judge the order by the counters that exist */
		}
		if (nr <= prev)
			rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "pai_counter_order",
						   e - raw->data, "counter %u after %u", nr, prev);
		prev = nr;
	}
	*len = n * S390_PAI_ENTRY;
	return 0;
}

static int pai_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      struct rawfrag_emit *em)
{
	const struct pai_priv *pv = priv;
	uint32_t n = pai_entries(raw);

	rawfrag_emit__str(em, "pmu", kinds[pv->kind].pmu, (size_t)-1);
	rawfrag_emit__u64(em, "nr_entries", n);
	rawfrag_emit__begin_array(em, "entries");
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = raw->data + i * S390_PAI_ENTRY;
		unsigned int nr = s390_get16(e);
		const char *name = kinds[pv->kind].name(nr);

		rawfrag_emit__begin_object(em, NULL);
		rawfrag_emit__u64(em, "nr", nr);
		rawfrag_emit__u64(em, "event", kinds[pv->kind].base + nr);
		if (name)
			rawfrag_emit__str(em, "name", name, (size_t)-1);
		else
			rawfrag_emit__null(em, "name");
		rawfrag_emit__u64(em, "value", s390_get64(e + 2));
		rawfrag_emit__end_object(em);
	}
	rawfrag_emit__end_array(em);
	if (raw->size - n * S390_PAI_ENTRY > 7)
		rawfrag_emit__str(em, "error", "partial entry at the end", (size_t)-1);
	return 0;
}

static int pai_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		    struct rawfrag_out *out, bool verbose)
{
	const struct pai_priv *pv = priv;
	uint32_t n = pai_entries(raw);
	struct rawfrag_emit *em;

	if (verbose) {
		em = rawfrag_emit__new(out, RAWFRAG_EMIT_TEXT);
		if (!em)
			return -errno;
		pai_fields(priv, raw, s, em);
		rawfrag_emit__delete(em);
		return 0;
	}
	rawfrag_out__printf(out, "%s entries=%u", kinds[pv->kind].producer, n);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = raw->data + i * S390_PAI_ENTRY;
		unsigned int nr = s390_get16(e);
		const char *name = kinds[pv->kind].name(nr);

		if (name)
			rawfrag_out__printf(out, " %s=", name);
		else
			rawfrag_out__printf(out, " #%u=", nr);
		rawfrag_out__u64(out, s390_get64(e + 2));
	}
	return 0;
}

static int pai_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		     void **priv)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	const char *pmu = rawfrag_evsel__pmu_name(evsel);
	struct pai_priv *pv;
	int kind = -1, score = 0;

	if (s390_env__not_s390(ctx->env))
		return 0;
	/*
	 * Only the *_ALL events sample; the single counters only count. Without
	 * PMU_MAPPINGS an s390 file is matched by config alone, as perf does.
	 */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (attr->config != kinds[i].base)
			continue;
		if (pmu && !strcmp(pmu, kinds[i].pmu))
			score = 100;
		else if (!pmu && s390_env__is_s390(ctx->env) && attr->type >= PERF_TYPE_MAX)
			score = 50;
		else
			continue;
		kind = (int)i;
	}
	if (kind < 0)
		return 0;
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return -ENOMEM;
	pv->kind = kind;
	*priv = pv;
	return score;
}

static void pai_release(void *priv)
{
	free(priv);
}

const struct rawfrag_decoder rawfrag_decoder_pai = {
	.name = "pai",
	.description = "s390 PAI crypto and NNPA counter entries",
	.probe = pai_probe,
	.release = pai_release,
	.length = pai_length,
	.text = pai_text,
	.fields = pai_fields,
};
