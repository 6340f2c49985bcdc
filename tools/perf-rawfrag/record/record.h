/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording engine of `perf rawfrag record` (record.c): what the command
 * (builtin-record.c) and other event sources (skb-record.c) call. The layers of
 * the record room, each file including only headers of the layers below it:
 *   ring, events, record-opts, record-bidcache, skb-filter, cbpf-xlate, skb-xdp
 *   < record-int (the engine's state), cbpf-splice
 *   < record-target, record-buildid < record-synth
 *   < record (this header) < skb-record < builtin-record
 * (scripts/check-layers.sh holds the same order and checks it).
 *
 * Life cycle, as builtin-record.c drives it:
 *   record__new(opts) -> record__add_events(...)... -> record__prepare()
 *   (cpu/thread maps known, events opened, filters set)
 *   -> other event sources (skb_record_setup()) call record__add_external_evsel()
 *   -> record__run() (rings, perf.data, synthesized tasks, enable, loop until
 *      signal / duration / workload exit, summary) -> record__delete().
 *
 * Ownership: the record owns every evsel, fd, ring and the writer; external fds
 * handed to record__add_external_evsel() become the record's (closed by it).
 */
#ifndef __PERF_RAWFRAG_RECORD_H
#define __PERF_RAWFRAG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "record-opts.h"

struct record;

struct record *record__new(const struct record_opts *opts);
/* Runs the cleanups registered with record__add_cleanup(), closes everything. */
void record__delete(struct record *rec);

/*
 * Parse an -e argument (comma list of tracepoints with globs, software,
 * hardware and pmu/term=val,.../ events). Prints one error and returns -errno.
 */
int record__add_events(struct record *rec, const char *spec);
/* --filter: applies to the tracepoint event(s) added by the last -e. */
int record__set_filter(struct record *rec, const char *filter);

/* Build the maps, open the events, apply filters. Prints one error on failure. */
int record__prepare(struct record *rec);
/* Record until signal, --duration or the workload's exit; 0 or -errno. */
int record__run(struct record *rec);
/*
 * perf record's exit status once the run is over: the workload's exit status,
 * 128 + signal when a signal killed it, 255 when it could not be executed; 0
 * without a workload.
 */
int record__exit_status(struct record *rec);

/* --- for other event sources (skb-record.c), between prepare and run --- */
/* the cpus recorded: idx in [0, record__nr_cpus()) */
int record__nr_cpus(struct record *rec);
int record__cpu(struct record *rec, int idx);
unsigned int record__mmap_pages(struct record *rec);
/*
 * Add an event opened by the caller with perf_event_open(), one fd per recorded
 * cpu (fds[i] on record__cpu(rec, i), pid -1). The record takes the fds: it gives
 * them a ring of record__mmap_pages() pages each (via PERF_EVENT_IOC_SET_OUTPUT
 * onto the cpu's ring, or its own ring), reads them with the same reader, gets
 * their ids with PERF_EVENT_IOC_ID and writes attr + ids into the file. The attr
 * must have sample_id_all and PERF_SAMPLE_IDENTIFIER like the record's events
 * (record__sample_type() gives the default). Returns 0 or -errno.
 */
int record__add_external_evsel(struct record *rec, const struct perf_event_attr *attr,
			       const char *name, const int *fds, int nr_fds);
/* the sample_type every evsel of this record must use (default set, +CALLCHAIN) */
uint64_t record__sample_type(struct record *rec);
/* fn(rec, arg) runs after the last drain, before the file is finished */
int record__add_finish_hook(struct record *rec, void (*fn)(struct record *, void *), void *arg);
/*
 * From a finish hook: the producer of the external evsel `name` could not write
 * `dropped` samples on recorded cpu idx (the ring was full; e.g. a BPF program's
 * own count). The kernel reports such drops only with its next successful write
 * into that ring, so the part its LOST records did not count goes into the file
 * as a PERF_RECORD_LOST of that evsel and cpu. 0 or -errno.
 */
int record__add_drops(struct record *rec, const char *name, int idx, uint64_t dropped);
/* fn(arg) runs once at record__delete(), also after errors and signals */
int record__add_cleanup(struct record *rec, void (*fn)(void *), void *arg);

#endif
