// SPDX-License-Identifier: GPL-2.0
/*
 * -e parsing: tracepoints "sys:name" (globs allowed) from tracefs, software and
 * hardware events by perf's names, and PMU events "pmu/term=value,.../" whose
 * terms are resolved from /sys/bus/event_source/devices/<pmu>/{type,format,events}.
 * Only the event identity (type, config*, exclude bits) is set here; the record
 * decides sample_type, period and tracking bits.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "tracefs.h"

#define PMU_DIR "/sys/bus/event_source/devices"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */ },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int add_event(struct rf_event **evs, int *nr, const struct perf_event_attr *attr,
		     const char *name, const char *tp)
{
	struct rf_event *n = realloc(*evs, (*nr + 1) * sizeof(**evs));

	if (!n)
		return -ENOMEM;
	*evs = n;
	n += *nr;
	memset(n, 0, sizeof(*n));
	n->attr = *attr;
	n->name = strdup(name);
	n->tp = tp ? strdup(tp) : NULL;
	if (!n->name || (tp && !n->tp)) {
		free(n->name);
		free(n->tp);
		return -ENOMEM;
	}
	(*nr)++;
	return 0;
}

/* ":u", ":k", ":p"... after an event; unknown letters are an error */
static int apply_modifiers(struct perf_event_attr *attr, const char *mod)
{
	bool u = false, k = false, h = false;

	for (; mod && *mod; mod++) {
		switch (*mod) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p': attr->precise_ip++; break;
		case 'G': case 'H': break;
		default: return -EINVAL;
		}
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return 0;
}

static int tp_id(const char *tracefs, const char *sys, const char *name, __u64 *id)
{
	char p[512], buf[64];
	int err;

	snprintf(p, sizeof(p), "%s/events/%s/%s/id", tracefs, sys, name);
	err = read_file(p, buf, sizeof(buf));
	if (err)
		return err;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

static int add_tracepoint(const char *tracefs, const char *sys, const char *name,
			  struct rf_event **evs, int *nr)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT };
	char full[512];
	int err;

	err = tp_id(tracefs, sys, name, &attr.config);
	if (err)
		return err;
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	return add_event(evs, nr, &attr, full, full);
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int parse_tracepoint(const char *sys, const char *name, struct rf_event **evs,
			    int *nr, char *msg, size_t msglen)
{
	const char *tracefs = tracefs__path(msg, msglen);
	char p[512];
	DIR *sd, *ed;
	struct dirent *s, *e;
	int found = 0, err = 0;

	if (!tracefs)
		return -ENOENT;
	if (!is_glob(sys) && !is_glob(name)) {
		err = add_tracepoint(tracefs, sys, name, evs, nr);
		if (err == -ENOENT)
			snprintf(msg, msglen, "unknown tracepoint '%s:%s' (no %s/events/%s/%s)",
				 sys, name, tracefs, sys, name);
		else if (err)
			snprintf(msg, msglen, "tracepoint '%s:%s': %s", sys, name, strerror(-err));
		return err;
	}
	snprintf(p, sizeof(p), "%s/events", tracefs);
	sd = opendir(p);
	if (!sd) {
		err = -errno;
		snprintf(msg, msglen, "%s: %s", p, strerror(errno));
		return err;
	}
	while (!err && (s = readdir(sd))) {
		if (s->d_name[0] == '.' || fnmatch(sys, s->d_name, 0))
			continue;
		snprintf(p, sizeof(p), "%s/events/%s", tracefs, s->d_name);
		ed = opendir(p);
		if (!ed)
			continue;
		while (!err && (e = readdir(ed))) {
			if (e->d_name[0] == '.' || fnmatch(name, e->d_name, 0))
				continue;
			err = add_tracepoint(tracefs, s->d_name, e->d_name, evs, nr);
			if (err == -ENOENT || err == -ENOTDIR)
				err = 0; /* "enable", "filter": not events */
			else if (!err)
				found++;
		}
		closedir(ed);
	}
	closedir(sd);
	if (!err && !found) {
		snprintf(msg, msglen, "no tracepoint matches '%s:%s'", sys, name);
		err = -ENOENT;
	}
	return err;
}

/* "config:0-7,32-35" -> put value's low bits into those bit ranges in order */
static int apply_format(struct perf_event_attr *attr, const char *fmt, uint64_t val)
{
	__u64 *dst;
	const char *p;
	int shift = 0;

	if (!strncmp(fmt, "config:", 7))
		dst = &attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		dst = &attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		dst = &attr->config2;
	else
		return -EINVAL;
	p = strchr(fmt, ':') + 1;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -EINVAL;
			p = end;
		}
		for (long b = lo; b <= hi; b++, shift++)
			if (shift < 64 && (val >> shift) & 1)
				*dst |= 1ULL << b;
			else
				*dst &= ~(1ULL << b);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

static int apply_terms(const char *pmu, char *terms, struct perf_event_attr *attr, int depth,
		       char *msg, size_t msglen);

static int apply_term(const char *pmu, char *term, struct perf_event_attr *attr, int depth,
		      char *msg, size_t msglen)
{
	char path[512], fmt[256], *eq = strchr(term, '='), *end;
	uint64_t val = 1;
	int err;

	if (eq) {
		*eq = '\0';
		val = strtoull(eq + 1, &end, 0);
		if (end == eq + 1 || *end) {
			snprintf(msg, msglen, "%s: bad value '%s' for term '%s'", pmu, eq + 1, term);
			return -EINVAL;
		}
	}
	if (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2")) {
		__u64 *dst = term[6] == '1' ? &attr->config1 :
				term[6] == '2' ? &attr->config2 : &attr->config;
		*dst = val;
		return 0;
	}
	if (!strcmp(term, "period") || !strcmp(term, "sample_period")) {
		attr->sample_period = val;
		return 0;
	}
	snprintf(path, sizeof(path), PMU_DIR "/%s/format/%s", pmu, term);
	if (!read_file(path, fmt, sizeof(fmt))) {
		err = apply_format(attr, fmt, val);
		if (err)
			snprintf(msg, msglen, "%s: cannot use format '%s' of term '%s'", pmu, fmt, term);
		return err;
	}
	/* an event alias: events/<name> holds more terms */
	snprintf(path, sizeof(path), PMU_DIR "/%s/events/%s", pmu, term);
	if (!eq && depth == 0 && !read_file(path, fmt, sizeof(fmt)))
		return apply_terms(pmu, fmt, attr, depth + 1, msg, msglen);
	snprintf(msg, msglen, "PMU %s has no term or event '%s'", pmu, term);
	return -EINVAL;
}

static int apply_terms(const char *pmu, char *terms, struct perf_event_attr *attr, int depth,
		       char *msg, size_t msglen)
{
	char *save = NULL, *t;

	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int err = apply_term(pmu, t, attr, depth, msg, msglen);

		if (err)
			return err;
	}
	return 0;
}

/* "pmu/terms/[:mods]" */
static int parse_pmu(char *tok, struct rf_event **evs, int *nr, char *msg, size_t msglen)
{
	struct perf_event_attr attr = { 0 };
	char *slash = strchr(tok, '/'), *close, path[512], buf[64], *terms;
	char *name = strdup(tok);
	int err;

	if (!name)
		return -ENOMEM;
	*slash = '\0';
	close = strrchr(slash + 1, '/');
	if (!close) {
		snprintf(msg, msglen, "event '%s': missing closing '/'", name);
		err = -EINVAL;
		goto out;
	}
	*close = '\0';
	terms = slash + 1;
	snprintf(path, sizeof(path), PMU_DIR "/%s/type", tok);
	if (read_file(path, buf, sizeof(buf))) {
		snprintf(msg, msglen, "PMU %s is not present on this machine", tok);
		err = -ENODEV;
		goto out;
	}
	attr.type = strtoul(buf, NULL, 10);
	err = apply_terms(tok, terms, &attr, 0, msg, msglen);
	if (err)
		goto out;
	if (close[1] == ':' && apply_modifiers(&attr, close + 2)) {
		snprintf(msg, msglen, "event '%s': bad modifier", name);
		err = -EINVAL;
		goto out;
	}
	err = add_event(evs, nr, &attr, name, NULL);
out:
	free(name);
	return err;
}

static int parse_one(char *tok, struct rf_event **evs, int *nr, char *msg, size_t msglen)
{
	struct perf_event_attr attr = { 0 };
	char full[256], *colon;

	if (strchr(tok, '/'))
		return parse_pmu(tok, evs, nr, msg, msglen);
	snprintf(full, sizeof(full), "%s", tok); /* the name keeps its modifiers, as perf's */
	colon = strchr(tok, ':');
	if (colon)
		*colon = '\0';
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (strcmp(tok, named_events[i].name))
			continue;
		attr.type = named_events[i].type;
		attr.config = named_events[i].config;
		if (colon && apply_modifiers(&attr, colon + 1)) {
			snprintf(msg, msglen, "event '%s': bad modifier '%s'", tok, colon + 1);
			return -EINVAL;
		}
		return add_event(evs, nr, &attr, full, NULL);
	}
	if (colon)
		return parse_tracepoint(tok, colon + 1, evs, nr, msg, msglen);
	snprintf(msg, msglen, "unknown event '%s'", tok);
	return -ENOENT;
}

int events__parse(const char *spec, struct rf_event **evs, int *nr, char *msg, size_t msglen)
{
	char *s = strdup(spec), *p, *start;
	int depth = 0, err = 0;

	if (!s)
		return -ENOMEM;
	/* split at commas outside pmu/.../ term lists */
	for (p = start = s; !err; p++) {
		if (*p == '/')
			depth = !depth;
		if (*p && (*p != ',' || depth))
			continue;
		bool last = !*p;

		*p = '\0';
		if (*start)
			err = parse_one(start, evs, nr, msg, msglen);
		else if (!last || start == s) {
			snprintf(msg, msglen, "empty event in '%s'", spec);
			err = -EINVAL;
		}
		if (last)
			break;
		start = p + 1;
	}
	free(s);
	return err;
}

void events__free(struct rf_event *evs, int nr)
{
	for (int i = 0; i < nr; i++) {
		free(evs[i].name);
		free(evs[i].tp);
		free(evs[i].filter);
	}
	free(evs);
}
