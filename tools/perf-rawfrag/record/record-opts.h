/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of perf rawfrag record as the engine takes them, and the parsers
 * of those whose values follow perf record's syntax (record-opts.c).
 */
#ifndef __PERF_RAWFRAG_RECORD_OPTS_H
#define __PERF_RAWFRAG_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

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
	/*
	 * --threads[=spec]: a perf.data/ directory, one writer thread per group of
	 * cpus (cpu, core, package, numa), each ring's records in its data.N
	 */
	enum { RF_THREADS_NONE, RF_THREADS_CPU, RF_THREADS_CORE, RF_THREADS_PACKAGE,
	       RF_THREADS_NUMA } threads;
	int cmd_argc; /* the recording command line, for HEADER_CMDLINE */
	const char *const *cmd_argv;
};

/* fp | dwarf[,SIZE] | lbr */
int record_opts__call_graph(struct record_opts *o, const char *arg);
/* REGS (comma list of register names) or NULL = the default set; "?" lists them */
int record_opts__regs(uint64_t *mask, const char *arg, const char *opt, bool intr);
/* CLOCK_MONOTONIC, monotonic, mono, raw, realtime, boottime, tai or a number */
int record_opts__clockid(struct record_opts *o, const char *arg);
/* --threads[=cpu|core|package|numa], arg NULL = cpu (perf's default) */
int record_opts__threads(struct record_opts *o, const char *arg);
/* -r PRIO (0..99), arg NULL = --no-realtime */
int record_opts__realtime(struct record_opts *o, const char *arg);
/* perf record's default -m: from kernel.perf_event_mlock_kb */
unsigned int record_opts__default_pages(void);

#endif
