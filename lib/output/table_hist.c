// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --hist's buckets: log2 as bpftrace's hist() ((..., 0), [0], [1], [2, 4),
 * [4, 8), ... with K/M/G for powers of 1024), linear as its lhist() with
 * buckets of STEP from 0 ([0, STEP), [STEP, 2*STEP), ...), printed with the
 * count and a bar of '@' scaled to the largest bucket, 52 wide.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/table_hist.h"

#define LOG2_BUCKETS 66 /* (..., 0), [0], [1], then one per power of 2 up to 2^64 */
#define BAR 52

int rf_thist__parse(const char *arg, char **field, struct rf_thist_spec *spec, char *msg,
		    size_t msg_len)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	*spec = (struct rf_thist_spec){ 0 };
	*field = NULL;
	if (!n) {
		snprintf(msg, msg_len, "--hist: no field named in '%.60s'", arg);
		return -EINVAL;
	}
	if (comma && strcmp(comma + 1, "log2")) {
		const char *s = comma + 1;
		char *end;

		if (strncmp(s, "linear:", 7)) {
			snprintf(msg, msg_len, "--hist %.60s: buckets are 'log2' or 'linear:STEP', "
					       "not '%.30s'", arg, s);
			return -EINVAL;
		}
		errno = 0;
		spec->step = strtoull(s + 7, &end, 0);
		if (!s[7] || *end || errno || !spec->step || s[7] == '-') {
			snprintf(msg, msg_len, "--hist %.60s: STEP is a whole number above 0", arg);
			return -EINVAL;
		}
		spec->linear = true;
	}
	*field = strndup(arg, n);
	if (!*field) {
		snprintf(msg, msg_len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static uint32_t bucket_of(const struct rf_thist_spec *spec, uint64_t v, bool neg)
{
	uint64_t k;

	if (neg)
		return 0;
	if (spec->linear) {
		k = v / spec->step;
		return 1 + (uint32_t)(k > RF_THIST_LINEAR_MAX ? RF_THIST_LINEAR_MAX : k);
	}
	if (!v)
		return 1;
	return 2 + (uint32_t)(63 - __builtin_clzll(v));
}

int rf_thist__add(struct rf_thist *h, const struct rf_thist_spec *spec, uint64_t v, bool neg)
{
	uint32_t i = bucket_of(spec, v, neg);

	if (i >= h->nb) {
		/* grown to the highest bucket used: few for most fields */
		uint32_t nb = spec->linear ? i + 16 : LOG2_BUCKETS;
		uint64_t *b;

		if (spec->linear && nb > RF_THIST_LINEAR_MAX + 2)
			nb = RF_THIST_LINEAR_MAX + 2;
		b = realloc(h->b, nb * sizeof(*b));
		if (!b)
			return -ENOMEM;
		memset(b + h->nb, 0, (nb - h->nb) * sizeof(*b));
		h->b = b;
		h->nb = nb;
	}
	h->b[i]++;
	h->n++;
	if (neg)
		h->nneg++;
	else if (v > h->max || h->n - h->nneg == 1)
		h->max = v;
	return 0;
}

int rf_thist__merge(struct rf_thist *h, const struct rf_thist *o)
{
	if (o->nb > h->nb) {
		uint64_t *b = realloc(h->b, o->nb * sizeof(*b));

		if (!b)
			return -ENOMEM;
		memset(b + h->nb, 0, (o->nb - h->nb) * sizeof(*b));
		h->b = b;
		h->nb = o->nb;
	}
	for (uint32_t i = 0; i < o->nb; i++)
		h->b[i] += o->b[i];
	if (o->n > o->nneg && (h->n == h->nneg || o->max > h->max))
		h->max = o->max;
	h->n += o->n;
	h->nneg += o->nneg;
	return 0;
}

void rf_thist__fini(struct rf_thist *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

void rf_thist__bucket(const struct rf_thist_spec *spec, uint32_t i, uint64_t *lo, uint64_t *hi,
		      bool *lo_open, bool *hi_open)
{
	*lo_open = i == 0;
	*hi_open = false;
	*lo = 0;
	*hi = 0;
	if (!i)
		return;
	if (spec->linear) {
		*lo = (uint64_t)(i - 1) * spec->step;
		*hi = *lo + spec->step;
		*hi_open = i == RF_THIST_LINEAR_MAX + 1;
		return;
	}
	if (i == 1) {
		*hi = 1;
		return;
	}
	*lo = 1ull << (i - 2);
	*hi = i - 2 == 63 ? UINT64_MAX : 1ull << (i - 1);
}

/* bpftrace's label of 2^power: K, M, G, T, P, E for powers of 1024 */
static int pow2_label(char *b, size_t len, unsigned power)
{
	static const char suffix[] = " KMGTPE";
	unsigned k = 0;

	while (power >= 10 && k < 6) {
		power -= 10;
		k++;
	}
	if (!k)
		return snprintf(b, len, "%" PRIu64, (uint64_t)1 << power);
	return snprintf(b, len, "%" PRIu64 "%c", (uint64_t)1 << power, suffix[k]);
}

static void label(const struct rf_thist_spec *spec, uint32_t i, char *b, size_t len)
{
	uint64_t lo, hi;
	bool lo_open, hi_open;
	char x[32], y[32];

	rf_thist__bucket(spec, i, &lo, &hi, &lo_open, &hi_open);
	if (lo_open) {
		snprintf(b, len, "(..., 0)");
	} else if (hi_open) {
		snprintf(b, len, "[%" PRIu64 ", ...)", lo);
	} else if (spec->linear) {
		snprintf(b, len, "[%" PRIu64 ", %" PRIu64 ")", lo, hi);
	} else if (i <= 2) {
		snprintf(b, len, "[%u]", i - 1);
	} else {
		pow2_label(x, sizeof(x), i - 2);
		pow2_label(y, sizeof(y), i - 1);
		snprintf(b, len, "[%s, %s)", x, y);
	}
}

uint64_t rf_thist__percentile(const struct rf_thist *h, const struct rf_thist_spec *spec,
			      double q, bool *neg)
{
	uint64_t rank = (uint64_t)(q * (double)h->n), seen = 0;

	*neg = false;
	if (rank < q * (double)h->n)
		rank++;
	if (!rank)
		rank = 1;
	for (uint32_t i = 0; i < h->nb; i++) {
		uint64_t lo, hi;
		bool lo_open, hi_open;

		seen += h->b[i];
		if (seen < rank)
			continue;
		if (!i) {
			*neg = true;
			return 0;
		}
		rf_thist__bucket(spec, i, &lo, &hi, &lo_open, &hi_open);
		/* the bucket's last whole value, never above the largest value seen */
		return hi_open || hi - 1 > h->max ? h->max : hi - 1;
	}
	return h->max;
}

void rf_thist__print(const struct rf_thist *h, const struct rf_thist_spec *spec,
		     struct rawfrag_out *o)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 } };
	uint32_t first = UINT32_MAX, last = 0;
	uint64_t top = 0;
	char b[80], bar[BAR + 1];

	for (uint32_t i = 0; i < h->nb; i++) {
		if (!h->b[i])
			continue;
		if (first == UINT32_MAX)
			first = i;
		last = i;
		if (h->b[i] > top)
			top = h->b[i];
	}
	if (first == UINT32_MAX)
		return;
	/* as bpftrace: from the first bucket used to the last, empty ones between kept */
	for (uint32_t i = first; i <= last; i++) {
		int w = (int)((double)h->b[i] / (double)top * BAR);

		label(spec, i, b, sizeof(b));
		memset(bar, '@', (size_t)w);
		memset(bar + w, ' ', (size_t)(BAR - w));
		bar[BAR] = '\0';
		rawfrag_out__printf(o, "%-16s %8" PRIu64 " |%s|\n", b, h->b[i], bar);
	}
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		bool neg;
		uint64_t v = rf_thist__percentile(h, spec, pct[k].q, &neg);

		if (neg)
			rawfrag_out__printf(o, "%s < 0  ", pct[k].name);
		else
			rawfrag_out__printf(o, "%s <= %" PRIu64 "  ", pct[k].name, v);
	}
	if (h->n == h->nneg)
		rawfrag_out__puts(o, "max < 0\n");
	else
		rawfrag_out__printf(o, "max %" PRIu64 "\n", h->max);
}
