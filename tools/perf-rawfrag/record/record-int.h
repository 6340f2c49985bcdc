/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the record engine shared by record.c (maps, open, rings, loop)
 * and record-synth.c (features, synthesized task records). Not for other
 * event sources: they use record.h.
 */
#ifndef __PERF_RAWFRAG_RECORD_INT_H
#define __PERF_RAWFRAG_RECORD_INT_H

#include <sys/types.h>

#include <rawfrag/core.h>

#include "record.h"

struct perf_evsel;

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
};

void record__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* record-target.c: cpu/thread maps, -p/-t parsing, the forked workload */
int record__setup_targets(struct record *rec);
/* -p/-t: true once every target process/thread has exited */
bool record__targets_gone(struct record *rec);
/* the clock of every evsel: -k or CLOCK_MONOTONIC */
int record__clockid(struct record *rec);
int record__setup_features(struct record *rec, struct rawfrag_err *rerr);
int record__synth_task(struct record *rec, int pid);
int record__synth_all(struct record *rec);

/* record-buildid.c: BUILD_ID feature of the DSOs hit, the build-id cache */
int bid__start(struct record *rec);
void bid__mmap(struct record *rec, int pid, uint64_t start, uint64_t len, const char *name);
void bid__fork(struct record *rec, int pid, int ppid);
void bid__exec(struct record *rec, int pid);
void bid__sample(struct record *rec, uint16_t misc, int pid, uint64_t ip);
/* build-ids of the DSOs hit, into the cache (unless -N) and the feature */
int bid__finish(struct record *rec);
void bid__free(struct record *rec);
/* record-bidcache.c: one binary into perf's build-id cache */
int bid_cache__add(const char *name, const uint8_t *id, int id_len);

#endif
