/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording engine of `perf rawfrag record` (record.c) and the pieces it is
 * built from: event parsing (events.c), tracefs lookup (tracefs.c) and the
 * wrap-aware ring reader (ring.c).
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

struct record;

struct record_opts {
	const char *output; /* path, "-" = pipe mode to stdout; NULL = perf.data */
	bool system_wide; /* -a */
	const char *cpu_list; /* -C */
	const char *pid; /* -p, comma list */
	const char *tid; /* -t, comma list */
	char **argv; /* -- COMMAND ARGS (NULL-terminated) or NULL */
	unsigned int mmap_pages; /* -m, 0 = default; power of two */
	uint64_t period; /* -c */
	uint64_t freq; /* -F */
	bool callchain; /* -g, --call-graph */
	enum { RF_CG_FP, RF_CG_DWARF, RF_CG_LBR } cg_mode;
	uint32_t cg_stack_size; /* --call-graph dwarf,SIZE (multiple of 8) */
	uint64_t user_regs; /* --user-regs mask, 0 = none */
	uint64_t intr_regs; /* -I/--intr-regs mask, 0 = none */
	bool sample_addr; /* -d */
	bool clock_set; /* -k */
	int clockid;
	int comp_level; /* -z: 1..22, 0 = no compression */
	bool no_buildid; /* -B: no BUILD_ID feature */
	bool no_buildid_cache; /* -N: nothing copied into ~/.debug */
	bool buildid_all; /* --buildid-all: every mapped DSO, not only those hit */
	double duration; /* --duration SECS, 0 = none */
	bool quiet; /* -q */
	/*
	 * -r PRIO: the recorder's SCHED_FIFO priority, as perf record -r; without
	 * -r it tries priority 1 and stays SCHED_OTHER when not allowed; -r 0 or
	 * --no-realtime: normal scheduling
	 */
	bool realtime_set;
	int realtime_prio;
	int cmd_argc; /* the recording command line, for HEADER_CMDLINE */
	const char *const *cmd_argv;
};

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

/* ---- record-opts.c: option values with perf record's syntax ---- */
/* fp | dwarf[,SIZE] | lbr */
int record_opts__call_graph(struct record_opts *o, const char *arg);
/* REGS (comma list of register names) or NULL = the default set; "?" lists them */
int record_opts__regs(uint64_t *mask, const char *arg, const char *opt, bool intr);
/* CLOCK_MONOTONIC, monotonic, mono, raw, realtime, boottime, tai or a number */
int record_opts__clockid(struct record_opts *o, const char *arg);
/* -r PRIO (0..99), arg NULL = --no-realtime */
int record_opts__realtime(struct record_opts *o, const char *arg);
/* perf record's default -m: from kernel.perf_event_mlock_kb */
unsigned int record_opts__default_pages(void);

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

/* ---- events.c ---- */
struct rf_event {
	struct perf_event_attr attr;
	char *name; /* as perf names it: "sched:sched_switch", "ibs_op//" */
	char *tp; /* "sys:name" for tracepoints, else NULL */
	char *filter; /* --filter for this tracepoint, or NULL */
};

/*
 * Append the events of spec to *evs (realloc'd, *nr updated). tracefs is the
 * tracefs mount (may be NULL when no tracepoint is asked for: then it is looked
 * up on demand). On error writes one message into msg.
 */
int events__parse(const char *spec, struct rf_event **evs, int *nr, char *msg, size_t msglen);
void events__free(struct rf_event *evs, int nr);

/* ---- tracefs.c ---- */
/*
 * The tracefs mount point (/sys/kernel/tracing, else debugfs/tracing); mounts
 * it when root. NULL + message when there is none.
 */
const char *tracefs__path(char *msg, size_t msglen);

/* ---- ring.c ---- */
/* One mmap'd perf ring: control page + 2^n data pages. */
struct rf_ring {
	int fd; /* not owned */
	int cpu;
	void *base; /* control page */
	size_t len; /* mapping length */
	uint64_t mask; /* data size - 1 */
	unsigned char *copy; /* 64 KiB for records that wrap, owned */
	uint64_t bytes; /* bytes read so far */
	uint64_t wrapped; /* records copied whole across the ring end */
	uint32_t wrapped_max; /* the largest of them */
};

typedef int (*rf_ring_fn)(void *ctx, struct rf_ring *ring, const void *rec, size_t len);

/* mmap pages data pages (power of two) of fd. */
int ring__mmap(struct rf_ring *r, int fd, int cpu, unsigned int pages);
void ring__munmap(struct rf_ring *r);
/*
 * Hand every complete record in the ring to fn (contiguous: a wrapped record is
 * copied whole, up to 64 KiB) and release the space. Returns the number of
 * records, or fn's negative return / -EBADMSG on a corrupt ring.
 */
int ring__read(struct rf_ring *r, rf_ring_fn fn, void *ctx);

#endif
