// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "stats" sink: record counts per type, then per event the samples and
 * the samples lost, as perf report --stats prints them. Every sample is
 * parsed (one that text and JSON refuse is not counted as fine) but none is
 * selected, ordered or symbolized.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/opts.h"
#include "internal/report.h"

struct stats_sink {
	char *path;
	int fd, own_fd;
	struct rawfrag_out *out;
	struct rawfrag_file *file;
	bool swap;
	int nr;
	uint64_t *samples, *lost; /* by evsel idx */
};

static int grow(struct stats_sink *st, int idx)
{
	int n = rawfrag_file__nr_evsels(st->file);
	uint64_t *s, *l;

	if (idx < st->nr)
		return 0;
	if (n <= idx)
		n = idx + 1;
	s = realloc(st->samples, n * sizeof(*s));
	if (s)
		st->samples = s;
	l = realloc(st->lost, n * sizeof(*l));
	if (l)
		st->lost = l;
	if (!s || !l)
		return -ENOMEM;
	for (int i = st->nr; i < n; i++)
		st->samples[i] = st->lost[i] = 0;
	st->nr = n;
	return 0;
}

static int stats_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct stats_sink *st = priv;
	int idx = rawfrag_evsel__idx(ev->evsel);

	if (grow(st, idx))
		return -ENOMEM;
	st->samples[idx]++;
	return 0;
}

/* perf shows the samples lost, not the records, per event */
static int stats_lost(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct stats_sink *st = priv;

	if (ev->rec->type != PERF_RECORD_LOST_SAMPLES || ev->rec->size < 16 || !ev->evsel)
		return 0;
	if (grow(st, rawfrag_evsel__idx(ev->evsel)))
		return -ENOMEM;
	st->lost[rawfrag_evsel__idx(ev->evsel)] +=
		rawfrag__get64((const uint8_t *)ev->rec->data + 8, st->swap);
	return 0;
}

static void print_stats(struct stats_sink *st)
{
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(st->file);
	struct rawfrag_out *o = st->out;
	uint64_t total = fs->nr_other_records;

	for (int t = 0; t < RAWFRAG_RECORD_USER_MAX; t++)
		total += rawfrag_file__nr_records(st->file, t);
	rawfrag_out__printf(o, "\nAggregated stats:\n%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (int t = 0; t < RAWFRAG_RECORD_USER_MAX; t++) {
		uint64_t n = rawfrag_file__nr_records(st->file, t);

		if (!n)
			continue;
		rawfrag_out__printf(o, "%16s events: %10" PRIu64 "  (%4.1f%%)\n",
				    rawfrag_record_type__perf_name(t), n, 100.0 * n / total);
	}
	if (fs->nr_other_records)
		rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "UNKNOWN",
				    fs->nr_other_records);
	if (fs->nr_lost || fs->nr_lost_samples)
		rawfrag_out__printf(o, "%16s: %10" PRIu64 " events lost, %" PRIu64
				    " samples lost\n", "lost", fs->nr_lost, fs->nr_lost_samples);
	if (fs->nr_skipped)
		rawfrag_out__printf(o, "%16s: %10" PRIu64 " bad records (%" PRIu64
				    " bytes, --force)\n", "skipped", fs->nr_skipped,
				    fs->bytes_skipped);
	for (int i = 0; i < st->nr; i++) {
		if (!st->samples[i] && !st->lost[i])
			continue;
		rawfrag_out__printf(o, "%s stats:\n",
				    rawfrag_evsel__name(rawfrag_file__evsel(st->file, i)));
		if (st->samples[i])
			rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "SAMPLE",
					    st->samples[i]);
		if (st->lost[i])
			rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "LOST_SAMPLES",
					    st->lost[i]);
	}
}

static int stats_begin(void *priv, struct rawfrag_report *rep)
{
	struct stats_sink *st = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	st->file = rawfrag_session__file(rawfrag_report__session(rep));
	st->swap = rawfrag_file__needs_swap(st->file);
	fd = rf_sink_open_fd(st->path, st->fd, err);
	if (fd < 0)
		return fd;
	if (st->path && strcmp(st->path, "-"))
		st->own_fd = fd;
	st->out = rawfrag_out__new(fd);
	if (!st->out || grow(st, 0)) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int stats_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct stats_sink *st = priv;

	if (!st->out)
		return 0;
	if (!status)
		print_stats(st);
	rawfrag_out__flush(st->out);
	return 0;
}

static int stats_error(void *priv)
{
	struct stats_sink *st = priv;

	return st->out ? rawfrag_out__error(st->out) : 0;
}

static void stats_free(void *priv)
{
	struct stats_sink *st = priv;

	rawfrag_out__delete(st->out);
	if (st->own_fd >= 0)
		close(st->own_fd);
	free(st->samples);
	free(st->lost);
	free(st->path);
	free(st);
}

int rf_sink_stats_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { NULL };
	struct stats_sink *st;

	if (rf_sink_opts_known("stats", opts->kv, keys, err))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st || (opts->path && !(st->path = strdup(opts->path)))) {
		free(st);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	st->fd = opts->fd;
	st->own_fd = -1;
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "stats",
		.flags = RAWFRAG_SINK_UNORDERED | RAWFRAG_SINK_NO_MACHINE | RAWFRAG_SINK_UNSELECTED,
		.begin = stats_begin,
		.sample = stats_sample,
		.lost = stats_lost,
		.end = stats_end,
		.error = stats_error,
		.free = stats_free,
	};
	*priv = st;
	return 0;
}
