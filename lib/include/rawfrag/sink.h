/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Outputs as sinks, and the report that feeds them.
 *
 * A report (struct rawfrag_report) is a session read for an output: it selects
 * samples (events, pids, tids, CPUs, time ranges, --where on decoded fields),
 * keeps the recorded machine (maps, symbols, call chains) and the threads'
 * names as perf script shows them, handles samples that do not parse (stop, or
 * count them with force), and hands what is left to one sink.
 *
 * A sink (struct rawfrag_sink) owns its output. The library's own are opened
 * by name with rawfrag_sink__open(): "text" (perf script's lines), "json"
 * (JSON Lines), "pcapng" (the skb/xdp dumps as packets), "stats" (record
 * counts as perf report --stats prints them) and "header" (the file's header
 * as perf report --header-only prints it). Any other is a table of callbacks
 * given to rawfrag_sink__new(), as perf's struct perf_tool is for input.
 *
 * The order of calls: rawfrag_report__start() calls the sink's begin() (it
 * checks its options against the file and opens its output: an error there is
 * about the options, not the input), rawfrag_report__run() its sample(),
 * task(), lost(), describe() and user() handlers in perf's order, and
 * rawfrag_report__finish() its end() with the stream's status.
 *
 * Ownership: the report does not own the session or the sink; a sink owns its
 * output (it closes a file it opened, never a descriptor it was given).
 */
#ifndef __RAWFRAG_SINK_H
#define __RAWFRAG_SINK_H

#include <rawfrag/tool.h>
#include <rawfrag/machine.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_sink;
struct rawfrag_report;

/* what a sink asks of the report */
enum rawfrag_sink_flags {
	/* file order: no ordering queue (counting only) */
	RAWFRAG_SINK_UNORDERED = 1,
	/* no machine: the sink resolves no ip, symbol or chain */
	RAWFRAG_SINK_NO_MACHINE = 2,
	/* every sample, before the report's selection (counting only) */
	RAWFRAG_SINK_UNSELECTED = 4,
	/* samples are not parsed (the header alone) */
	RAWFRAG_SINK_NO_PARSE = 8,
};

/*
 * A sink's callbacks; priv is rawfrag_sink__new()'s. Each returns 0 to go on,
 * > 0 to stop quietly (the output is closed, e.g. | head) or -errno with err
 * filled in (rawfrag_report__err()). Any may be NULL.
 */
struct rawfrag_sink_ops {
	size_t sz;
	const char *name;
	unsigned int flags; /* enum rawfrag_sink_flags */
	int (*begin)(void *priv, struct rawfrag_report *rep);
	/* a selected sample of a known evsel, parsed */
	int (*sample)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	/* COMM, FORK, EXIT after the thread table took them */
	int (*task)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	/* LOST and LOST_SAMPLES */
	int (*lost)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	/* after records that describe the file: new evsels, names, decoders */
	int (*describe)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	/* user records (type >= 64) in file order, e.g. a pipe's HEADER_FEATURE */
	int (*user)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	/*
	 * The end of the stream: status is 0, or the error that ended it. The sink
	 * writes what it wrote nothing of yet (totals) only with status 0, and
	 * flushes always.
	 */
	int (*end)(void *priv, struct rawfrag_report *rep, int status);
	/* first write error of the output (-errno), 0 if none */
	int (*error)(void *priv);
	void (*free)(void *priv);
};
#define rawfrag_sink_ops__last_field free

struct rawfrag_sink_opts {
	size_t sz;
	/* the output: a path, "-" or NULL for fd */
	const char *path;
	/* with path NULL: this descriptor (not closed); 0 means standard output */
	int fd;
	/* "key=value" options of the sink, NULL-terminated (rawfrag_sink__option_help()) */
	const char *const *kv;
	/* the sink's notes and warnings; prefix starts each (default "rawfrag") */
	rawfrag_print_fn_t print;
	void *print_ctx;
	const char *prefix;
};
#define rawfrag_sink_opts__last_field prefix

/*
 * One of the library's sinks by name. NULL with err filled in for an unknown
 * name, an unknown or bad option ("fields=comm,bogus"). Nothing is written or
 * created before rawfrag_report__start().
 */
RAWFRAG_API struct rawfrag_sink *rawfrag_sink__open(const char *name,
						    const struct rawfrag_sink_opts *opts,
						    struct rawfrag_err *err);
/* A sink of the caller's (ops copied; priv owned by ops->free, if given). */
RAWFRAG_API struct rawfrag_sink *rawfrag_sink__new(const struct rawfrag_sink_ops *ops,
						   void *priv, struct rawfrag_err *err);
/* Frees the sink and what it owns (ops->free); accepts NULL. */
RAWFRAG_API void rawfrag_sink__delete(struct rawfrag_sink *sk);
RAWFRAG_API const char *rawfrag_sink__name(const struct rawfrag_sink *sk);
/* the first write error of the sink's output (-errno), 0 if none */
RAWFRAG_API int rawfrag_sink__error(const struct rawfrag_sink *sk);
/* the library's sink names, NULL-terminated */
RAWFRAG_API const char *const *rawfrag_sinks(void);
/* "key=value  what it does" lines of a sink's options, NULL for an unknown sink */
RAWFRAG_API const char *rawfrag_sink__option_help(const char *name);
/*
 * The DDL a database sink loads into, written to opts' output (path set: to
 * standard output; a URL path names the database), for a server prepared
 * by hand (clickhouse: kv cluster=NAME for a cluster's tables). 0, or -errno
 * with err (-EOPNOTSUPP for a sink without a schema).
 */
RAWFRAG_API int rawfrag_sink__schema(const char *name, const struct rawfrag_sink_opts *opts,
				     struct rawfrag_err *err);

struct rawfrag_report_opts {
	size_t sz;
	/* only these events: comma list of names or globs */
	const char *events;
	/* only these pids, tids, CPUs: "1,5-9" */
	const char *pids, *tids, *cpus;
	/* perf's --time: "start,stop" in seconds, or "10%-20%", "10%/2" */
	const char *time;
	/* only samples whose decoded fields match (<rawfrag/where.h>) */
	const char *where;
	/* samples that do not parse (or --where cannot apply to): count, go on */
	bool force;
	/* file order instead of perf's time order */
	bool no_order;
	/* how the machine finds symbols (NULL: defaults) */
	const struct rawfrag_machine_opts *machine;
	rawfrag_print_fn_t print;
	void *print_ctx;
	/*
	 * Called for every record the report reads, before its selection, with
	 * the session's tool handlers (sample, lost, lost_samples used): a
	 * caller's accounting beside the sink (e.g. losses per CPU).
	 */
	struct rawfrag_tool *tap;
	/*
	 * Workers that render the samples (0 or 1: the caller's thread alone).
	 * Each reads the whole input and keeps its own machine; sample i is
	 * rendered by worker (i / 1024) % jobs and the output is written in the
	 * samples' order, byte for byte that of one job. Sinks that can be
	 * split (text, json, folded, the flame graphs, pprof, the table; with
	 * frame-pointer call chains the table's workers each read every sample
	 * and keep a share of the entries whole, and only when jobs is given)
	 * are, but not over DWARF-unwound chains (a chain can depend on the
	 * samples unwound before it); others run on one thread
	 * (rawfrag_report__jobs() says how many ran). A pipe is read once, by a
	 * tee the workers share (a worker 8 MiB ahead of the slowest waits). The tap runs on the
	 * caller's thread, which is worker 0. RAWFRAG_REPORT_JOBS_AUTO: one job
	 * per 16 MiB of the input's records, at most the CPUs the calling
	 * thread may run on (sched_getaffinity()), at least one; one for a pipe.
	 */
	int jobs;
};
#define rawfrag_report_opts__last_field jobs
#define RAWFRAG_REPORT_MAX_JOBS 256
#define RAWFRAG_REPORT_JOBS_AUTO (-1)

/* NULL with err filled in (a bad list, time range or --where expression). */
RAWFRAG_API struct rawfrag_report *rawfrag_report__new(struct rawfrag_session *s,
						       const struct rawfrag_report_opts *opts,
						       struct rawfrag_err *err);
RAWFRAG_API void rawfrag_report__delete(struct rawfrag_report *rep);

/*
 * Bind sk and call its begin(): the evsels known, the options checked against
 * them, the output opened. 0, > 0 when the sink has nothing more to do
 * (--header-only of a file), or -errno with err: a problem of the options (no
 * file offset).
 */
RAWFRAG_API int rawfrag_report__start(struct rawfrag_report *rep, struct rawfrag_sink *sk,
				      struct rawfrag_err *err);
/*
 * Every record to the end through the sink. 0, > 0 when the sink stopped
 * quietly, or -errno with err: a record of the input (offset and type set).
 */
RAWFRAG_API int rawfrag_report__run(struct rawfrag_report *rep, struct rawfrag_err *err);
/*
 * The sink's end() with status (run()'s result), then, after a clean run, the
 * checks of the whole: -ENOENT when --where names a field no sample had. 0 or
 * -errno with err.
 */
RAWFRAG_API int rawfrag_report__finish(struct rawfrag_report *rep, int status,
				       struct rawfrag_err *err);

/* ---- for sinks ---- */

RAWFRAG_API struct rawfrag_session *rawfrag_report__session(const struct rawfrag_report *rep);
/* the recorded machine (NULL for a sink with RAWFRAG_SINK_NO_MACHINE) */
RAWFRAG_API struct rawfrag_machine *rawfrag_report__machine(const struct rawfrag_report *rep);
/* where a sink's handler puts the reason of its -errno */
RAWFRAG_API struct rawfrag_err *rawfrag_report__err(const struct rawfrag_report *rep);
/* is this evsel (by index) selected by the events option? */
RAWFRAG_API bool rawfrag_report__selected(const struct rawfrag_report *rep, int idx);
/*
 * The thread's name as perf script prints it (the thread table, else the
 * file's saved cmdlines, else "swapper" for tid 0 or ":tid") and its length
 * (at most 32), valid until the next call.
 */
RAWFRAG_API const char *rawfrag_report__comm(struct rawfrag_report *rep,
					     const struct rawfrag_sample *smp, int *len);
/*
 * A number that changes whenever a record changes the kernel's maps (MMAP,
 * MMAP2, KSYMBOL, a pipe's build-id): a sink's cache of kernel frames is
 * valid while it stays the same.
 */
RAWFRAG_API uint32_t rawfrag_report__kernel_gen(const struct rawfrag_report *rep);
/*
 * Samples read on a CPU (before the selection; those without PERF_SAMPLE_CPU
 * and CPUs from 4096 on are not counted) and the highest such CPU, -1 for none:
 * a loss warning's breakdown per CPU.
 */
RAWFRAG_API uint64_t rawfrag_report__cpu_samples(const struct rawfrag_report *rep, uint32_t cpu);
/* the workers the last rawfrag_report__run() used (1: not split) */
RAWFRAG_API int rawfrag_report__jobs(const struct rawfrag_report *rep);
RAWFRAG_API int rawfrag_report__max_cpu(const struct rawfrag_report *rep);
/* samples skipped with force (do not parse, --where does not apply) */
RAWFRAG_API uint64_t rawfrag_report__nr_skipped(const struct rawfrag_report *rep);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_SINK_H */
