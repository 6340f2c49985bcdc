// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A report's selection lists and time ranges (internal/select.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/opts.h"
#include "internal/select.h"

/* ---- lists ---- */

static int parse_u64(const char **s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno)
		return -EINVAL;
	*s = end;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int rf_list__parse(struct rf_list *l, const char *s, bool minus_one)
{
	int cap = 0;

	l->nr = 0;
	l->r = NULL;
	while (*s) {
		bool neg = minus_one && s[0] == '-' && s[1] == '1' && (!s[2] || s[2] == ',');
		uint64_t lo, hi;

		/* a task caught exiting has pid and tid -1: the u32 fields' all-ones */
		if (neg) {
			lo = UINT32_MAX;
			s += 2;
		} else if (parse_u64(&s, &lo)) {
			goto bad;
		}
		hi = lo;
		if (!neg && *s == '-') {
			s++;
			if (parse_u64(&s, &hi) || hi < lo)
				goto bad;
		}
		if (*s == ',')
			s++;
		else if (*s)
			goto bad;
		if (l->nr == cap) {
			cap = cap ? 2 * cap : 8;
			void *n = realloc(l->r, cap * sizeof(*l->r));
			if (!n)
				goto bad;
			l->r = n;
		}
		l->r[l->nr].lo = lo;
		l->r[l->nr].hi = hi;
		l->nr++;
	}
	if (!l->nr)
		goto bad;
	qsort(l->r, l->nr, sizeof(*l->r), range_cmp);
	return 0;
bad:
	rf_list__free(l);
	return -EINVAL;
}

bool rf_list__has(const struct rf_list *l, uint64_t v)
{
	int lo = 0, hi = l->nr;

	/* last range starting at or before v; overlapping ranges are checked too */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (l->r[mid].lo <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo - 1; i >= 0; i--)
		if (v <= l->r[i].hi)
			return true;
	return false;
}

int rf_list__parse_opt(struct rf_list *l, bool *has, const char *s, bool minus_one,
		       struct rawfrag_err *err)
{
	char msg[300];

	if (!s)
		return 0;
	if (rf_list__parse(l, s, minus_one)) {
		snprintf(msg, sizeof(msg), "bad list '%s' (e.g. 0,2-3%s)", s, minus_one ? ",-1" : "");
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	*has = true;
	return 0;
}

void rf_list__free(struct rf_list *l)
{
	free(l->r);
	l->r = NULL;
	l->nr = 0;
}

/* ---- time ---- */

/* "sec[.frac]" to ns; frac up to 9 digits (more are dropped, as perf) */
static int parse_ns(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;

	if (p == end)
		return -EINVAL;
	while (p < end && isdigit((unsigned char)*p)) {
		if (sec > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && isdigit((unsigned char)*p)) {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			p++;
		}
	}
	if (p != end || (p == s))
		return -EINVAL;
	while (digits++ < 9)
		frac *= 10;
	if (sec > (UINT64_MAX - frac) / 1000000000ULL)
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

static int parse_pct(const char *s, const char *end, double *v)
{
	char buf[64], *e;
	size_t n = (size_t)(end - s);

	if (!n || n >= sizeof(buf) || end[-1] != '%')
		return -EINVAL;
	memcpy(buf, s, n - 1);
	buf[n - 1] = 0;
	*v = strtod(buf, &e);
	if (e == buf || *e || *v < 0 || *v > 100)
		return -EINVAL;
	*v /= 100;
	return 0;
}

static int add_pct(struct rf_time *t, double lo, double hi)
{
	void *n = realloc(t->pct, (t->nr_pct + 1) * sizeof(*t->pct));

	if (!n)
		return -ENOMEM;
	t->pct = n;
	t->pct[t->nr_pct].lo = lo;
	t->pct[t->nr_pct].hi = hi;
	t->nr_pct++;
	return 0;
}

/* one percentage item: "a%-b%" or "x%/n" */
static int parse_pct_item(struct rf_time *t, const char *s, const char *end)
{
	const char *dash = memchr(s, '-', (size_t)(end - s));
	const char *slash = memchr(s, '/', (size_t)(end - s));
	double a, b;

	if (dash) {
		if (parse_pct(s, dash, &a) || parse_pct(dash + 1, end, &b) || b < a)
			return -EINVAL;
		return add_pct(t, a, b);
	}
	if (slash) {
		char *e;
		long n = strtol(slash + 1, &e, 10);

		if (parse_pct(s, slash, &a) || e != end || n < 1 || a <= 0 || a * n > 1.0 + 1e-9)
			return -EINVAL;
		return add_pct(t, a * (n - 1), a * n);
	}
	return -EINVAL;
}

int rf_time__parse(struct rf_time *t, const char *s)
{
	const char *comma = strchr(s, ',');

	memset(t, 0, sizeof(*t));
	if (strchr(s, '%')) {
		while (*s) {
			const char *end = strchr(s, ',');

			if (!end)
				end = s + strlen(s);
			if (parse_pct_item(t, s, end))
				goto bad;
			s = *end ? end + 1 : end;
		}
		return t->nr_pct ? 0 : -EINVAL;
	}
	t->r = calloc(1, sizeof(*t->r));
	if (!t->r)
		return -ENOMEM;
	t->nr = 1;
	if (!comma) {
		/* perf needs the comma; a lone time is a start */
		if (parse_ns(s, s + strlen(s), &t->r[0].start))
			goto bad;
		return 0;
	}
	if (comma > s && parse_ns(s, comma, &t->r[0].start))
		goto bad;
	if (comma[1] && parse_ns(comma + 1, comma + strlen(comma), &t->r[0].end))
		goto bad;
	if (t->r[0].end && t->r[0].end < t->r[0].start)
		goto bad;
	return 0;
bad:
	rf_time__free(t);
	return -EINVAL;
}

int rf_time__resolve(struct rf_time *t, uint64_t first, uint64_t last)
{
	double span = last > first ? (double)(last - first) : 0;

	if (!t->nr_pct)
		return 0;
	free(t->r);
	t->r = calloc(t->nr_pct, sizeof(*t->r));
	if (!t->r)
		return -ENOMEM;
	for (int i = 0; i < t->nr_pct; i++) {
		t->r[i].start = first + (uint64_t)(span * t->pct[i].lo);
		t->r[i].end = first + (uint64_t)(span * t->pct[i].hi);
	}
	t->nr = t->nr_pct;
	return 0;
}

bool rf_time__has(const struct rf_time *t, uint64_t time)
{
	for (int i = 0; i < t->nr; i++)
		if (time >= t->r[i].start && (!t->r[i].end || time <= t->r[i].end))
			return true;
	return false;
}

void rf_time__free(struct rf_time *t)
{
	free(t->r);
	free(t->pct);
	memset(t, 0, sizeof(*t));
}
