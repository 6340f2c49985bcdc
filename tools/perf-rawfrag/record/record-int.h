/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of the record engine (struct record) and its error printer
 * (record-int.c), shared by the engine's parts: record.c (maps, open, rings,
 * loop) and the layers below it, record-target.c, record-buildid.c and
 * record-synth.c, each with a header of its own. Not for other event sources:
 * they use record.h.
 */
#ifndef __PERF_RAWFRAG_RECORD_INT_H
#define __PERF_RAWFRAG_RECORD_INT_H

#include <pthread.h>
#include <sys/types.h>

#include <rawfrag/core.h>

#include "events.h"
#include "record-opts.h"

struct perf_evsel;
struct rf_ring;
struct rawfrag_writer;
struct rec_threads;

/* one recorded event: ours (libperf evsel) or external (fds from the caller) */
struct rec_sel {
	struct rf_event ev;
	struct perf_evsel *evsel; /* NULL for external evsels */
	int *fds; /* [cpu idx * nr_threads + thread], owned only when external */
	int nr_fds;
	uint64_t *ids; /* same order as fds */
	uint64_t samples, bytes;
};

struct rec_cleanup {
	void (*fn)(void *);
	void *arg;
};

struct record {
	struct record_opts opts;
	unsigned int pages;
	const char *tracefs;
	bool system_wide;
	int first_of_last_spec; /* --filter applies to events from here on */

	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	int nr_threads;
	int *target_pids; /* -p/-t/command: processes to synthesize */
	int nr_target_pids;

	struct rec_sel *sel;
	int nr_sel;
	struct rf_ring *rings;
	int nr_rings;
	struct { uint64_t id; int sel; } *idmap; /* sorted by id */
	int nr_idmap;

	struct rawfrag_writer *w;
	pid_t child;
	int go_fd; /* write end: the child execs when it closes */
	int child_status;
	bool child_exited;
	int exec_fd; /* read end: the child writes errno here when exec fails */
	int exec_errno;
	bool targets_gone; /* -p/-t: every target exited */

	uint64_t *lost; /* per cpu idx: PERF_RECORD_LOST totals */
	uint64_t lost_samples, wakeups, other_records;
	uint64_t data_bytes; /* bytes of records handed to the writer (before -z) */

	struct bid *bid; /* record-buildid.c, NULL with -B or a pipe */
	struct rec_cleanup *cleanups;
	int nr_cleanups;
	struct {
		void (*fn)(struct record *, void *);
		void *arg;
	} *finish_hooks;
	int nr_finish_hooks;
	bool prepared;
	struct rec_threads *thr; /* --threads: the writer threads (record-threads.c) */
	pthread_mutex_t bid_lock; /* --threads: the build-id tracking is shared */
};

/*
 * Who reads a ring, the ctx of its record callback: the main thread (counts go
 * into struct record and its sels, records into rec->w) or a writer thread
 * (counts of its own, summed at the end; each ring's records into its file).
 */
struct rec_reader {
	struct record *rec;
	struct rawfrag_writer **files; /* per ring index; NULL: rec->w */
	uint64_t *samples, *bytes; /* per sel; NULL: the sel's own */
	uint64_t lost_samples, other_records, data_bytes, wakeups;
};

/* "perf rawfrag record: <message>" on stderr */
void record__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the clock of every evsel: -k or CLOCK_MONOTONIC */
int record__clockid(struct record *rec);

#endif
