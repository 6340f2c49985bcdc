/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report and sink objects of <rawfrag/sink.h>, for the library's own sinks:
 * they read the report's thread names inline (a hit of the name slot is most
 * samples' only look-up) and share the option parser of sink.c.
 *
 * Ownership: the report owns its selection, its machine and call-chain
 * resolver, its name slots and its where expression; not the session or sink.
 */
#ifndef __RAWFRAG_INTERNAL_REPORT_H
#define __RAWFRAG_INTERNAL_REPORT_H

#include <rawfrag/sink.h>
#include <rawfrag/where.h>

#include "internal/select.h"

struct rawfrag_sink {
	struct rawfrag_sink_ops ops;
	void *priv;
	/*
	 * A library sink that can be split over jobs: its name and options (to
	 * open a copy for each worker) and its output, whose buffer holds what
	 * the sink wrote since the last chunk.
	 */
	const char *lib_name;
	char **kv;
	struct rawfrag_out *(*out)(void *priv);
	/*
	 * An aggregating sink (it writes at its end): the workers' sinks' totals
	 * into this one, before its end. 0 or -errno.
	 */
	int (*merge)(void *priv, void *const *others, int n);
	/* NULL, or whether this run of the sink splits (known once it began) */
	bool (*splittable)(void *priv);
	/*
	 * NULL, or whether each worker's sink of this run gets every sample
	 * (not only its chunks') and keeps its part of what it counts
	 * (rf_jobs__part())
	 */
	bool (*sees_all)(void *priv);
};

struct rf_jobs;

/* the task names as rawfrag_report__comm() found them, one slot per tid hash */
struct rf_name_slot {
	uint64_t gen;
	int32_t pid, tid;
	int len;
	char name[36];
};

#define RF_REPORT_CPUS 4096

struct rawfrag_report {
	struct rawfrag_tool tool; /* first: the session's handlers get &rep->tool */
	struct rawfrag_session *sess;
	struct rawfrag_file *file;
	struct rawfrag_sink *sink;
	struct rawfrag_tool *tap;
	rawfrag_print_fn_t print;
	void *print_ctx;
	bool swap, force, no_order, started;
	/* what each sample needs, decided at start */
	bool select; /* a selection to apply (events, lists, time, where) */
	rawfrag_tool_fn tap_sample;
	int (*sink_sample)(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev);
	int cur_idx; /* the evsel index of the sample the sink is given */
	/* selection */
	char *events;
	bool has_pid, has_tid, has_cpu, has_time, filtered;
	int32_t exiting_pid; /* the pid perf gives a sample of pid or tid -1 (its thread's) */
	struct rf_list pids, tids, cpus;
	struct rf_time time;
	struct rawfrag_where *where;
	bool where_failed;
	int nr_known; /* evsels seen so far */
	bool *selected; /* by evsel idx */
	/* the machine (not for NO_MACHINE sinks) */
	struct rawfrag_machine_opts mopts;
	struct rawfrag_machine *m;
	uint32_t kgen;
	/* a thread's name changes only with COMM, FORK, EXIT or new tracing data */
	struct rf_name_slot names[64];
	uint64_t name_gen;
	uint64_t nr_bad;
	/* samples per CPU, for a loss warning's breakdown (RF_REPORT_CPUS of them) */
	uint64_t *cpu_samples;
	int max_cpu;
	struct rawfrag_err *err; /* where a delivered sample's error goes */
	/* -j (jobs.c): the options kept to open each worker's copy */
	int njobs, ran_jobs;
	bool jobs_auto; /* njobs is the default's, not asked for */
	char *o_pids, *o_tids, *o_cpus, *o_time, *o_where;
	/* a worker: its index, samples so far, its chunk and whether it is its own */
	struct rf_jobs *J;
	int job;
	bool own, past_end;
	bool all; /* the sink gets every sample (rawfrag_sink.sees_all) */
	/* split by process (DWARF unwinding): rendering one of its samples now */
	bool by_pid, rendering;
	unsigned int chunk_shift;
	uint64_t seq, chunk;
	uint64_t nr_bad_where; /* --where could not apply, -f: by the sample's renderer */
};

/*
 * log2 of the samples per chunk of -j output (chunk c is rendered by worker
 * c % jobs); RAWFRAG_JOBS_CHUNK=N (a power of two) sets it for tests, where
 * small files should still make many chunks
 */
/* 1024: the same time as 2048 on the bench files, 8 MB less a job for -g JSON */
#define RF_JOBS_CHUNK_SHIFT 10
/* RAWFRAG_REPORT_JOBS_AUTO: bytes of records per job (report.c, auto_jobs()) */
#define RF_JOBS_AUTO_BYTES (16ULL << 20)
/* -j on a pipe: how far (bytes) one worker may read ahead of the slowest */
#define RF_JOBS_TEE_BOUND (8ULL << 20)

/* jobs.c: can this started report be split, and its run over the workers */
bool rf_jobs__possible(const struct rawfrag_report *rep);
int rf_jobs__run(struct rawfrag_report *rep, struct rawfrag_err *err);
/* which part of n this worker's sink keeps when it sees every sample; 0 of 1 otherwise */
uint32_t rf_jobs__part(const struct rawfrag_report *rep, uint32_t *n);
/* a worker's sample starts chunk c: post or drop the last one's output; > 0 stop */
int rf_jobs__turn(struct rawfrag_report *rep, uint64_t c);

/*
 * Split by process: is the sample of pid this worker's to render (its
 * output is marked as the sample's; rep->rendering until it is done)
 */
bool rf_jobs__own_sample(struct rawfrag_report *rep, uint32_t pid);
/* split by process: op's output for a record other than a sample kept by the chunk's worker only */
typedef int (*rf_jobs_op_fn)(void *priv, struct rawfrag_report *rep,
			     const struct rawfrag_event *ev);
int rf_jobs__other(struct rawfrag_report *rep, rf_jobs_op_fn op, const struct rawfrag_event *ev);

/* a worker's next sample: > 0 to stop, else rep->own tells whether to render it */
static inline int rf_jobs__step(struct rawfrag_report *rep)
{
	uint64_t c = rep->seq++ >> rep->chunk_shift;

	return c == rep->chunk ? 0 : rf_jobs__turn(rep, c);
}

const char *rf_report__comm_find(struct rawfrag_report *rep, const struct rawfrag_sample *smp,
				 struct rf_name_slot *n, int *len);

/* a sample of pid or tid -1: a task caught exiting */
static inline bool rf_sample__exiting(const struct rawfrag_sample *smp)
{
	return __builtin_expect(smp->pid == UINT32_MAX || smp->tid == UINT32_MAX, 0);
}

/* the pid perf's --pid matches: for a task caught exiting, its thread's */
static inline uint32_t rf_report__pid(const struct rawfrag_report *rep,
				      const struct rawfrag_sample *smp)
{
	return rf_sample__exiting(smp) ? (uint32_t)rep->exiting_pid : smp->pid;
}

static inline const char *rf_report__comm(struct rawfrag_report *rep,
					  const struct rawfrag_sample *smp, int *len)
{
	struct rf_name_slot *n = &rep->names[((uint32_t)smp->tid * 2654435761u) >> 26];

	if (n->gen == rep->name_gen && n->pid == (int32_t)smp->pid &&
	    n->tid == (int32_t)smp->tid) {
		*len = n->len;
		return n->name;
	}
	return rf_report__comm_find(rep, smp, n, len);
}

/* ---- sink options (sink.c) ---- */

/* the value of key in kv ("key=value"), NULL if absent; "" for "key" alone */
const char *rf_sink_opt(const char *const *kv, const char *key);
/*
 * 0 when every "key=value" of kv names a key of keys (NULL-terminated), else
 * -EINVAL with err naming the sink and the key.
 */
int rf_sink_opts_known(const char *sink, const char *const *kv, const char *const *keys,
		       struct rawfrag_err *err);
/* a boolean option: absent false; "", 1, yes, true true; 0, no, false false; else -EINVAL */
int rf_sink_opt_bool(const char *sink, const char *const *kv, const char *key, bool *v,
		     struct rawfrag_err *err);
/* the output of a sink's opts: a new fd (path given, created 0644) or the one given */
int rf_sink_open_fd(const char *path, int fd, struct rawfrag_err *err);
/* a print function called with a format and arguments (it takes a va_list) */
int rf_print_va(rawfrag_print_fn_t print, void *ctx, enum rawfrag_print_level lvl,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "<prefix>: " then the message, through print (nothing when print is NULL) */
void rf_sink_note(rawfrag_print_fn_t print, void *ctx, const char *prefix,
		  enum rawfrag_print_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* the library's sinks: each fills ops and priv from its options */
typedef int (*rf_sink_open_fn)(const struct rawfrag_sink_opts *opts,
			       struct rawfrag_sink_ops *ops, void **priv,
			       struct rawfrag_err *err);
int rf_sink_text_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		      void **priv, struct rawfrag_err *err);
int rf_sink_json_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		      void **priv, struct rawfrag_err *err);
int rf_sink_pcapng_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err);
int rf_sink_stats_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err);
int rf_sink_header_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err);
int rf_sink_table_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err);
/* the stack sinks: sink_folded.c, sink_flamegraph.c */
/* the stack sinks split over jobs: their output, and the workers' tries merged */
struct rawfrag_out *rf_folded__out(void *priv);
int rf_folded__merge(void *priv, void *const *others, int n);
/* the HTML page's sink likewise: tries, histograms and checks merged */
struct rawfrag_out *rf_flamegraph__out(void *priv);
int rf_flamegraph__merge(void *priv, void *const *others, int n);
/*
 * the table likewise (rf_table__splittable()); with call chains each
 * worker sees every sample and keeps its part of the entries whole
 * (rf_table__sees_all())
 */
struct rawfrag_out *rf_table__out(void *priv);
int rf_table__merge(void *priv, void *const *others, int n);
bool rf_table__splittable(void *priv);
bool rf_table__sees_all(void *priv);
/* pprof likewise: the profiles merged; the chunks' output is empty */
struct rawfrag_out *rf_pprof_sink__out(void *priv);
int rf_pprof_sink__merge(void *priv, void *const *others, int n);
int rf_sink_folded_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err);
int rf_sink_flamejson_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			   void **priv, struct rawfrag_err *err);
int rf_sink_flamegraph_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			    void **priv, struct rawfrag_err *err);
int rf_sink_pprof_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
		       void **priv, struct rawfrag_err *err);

int rf_sink_sqlite_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err);
int rf_sink_clickhouse_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			    void **priv, struct rawfrag_err *err);
/* the clickhouse tables' DDL (kv cluster=NAME: local and Distributed tables) to opts' output */
int rf_sink_clickhouse_schema(const struct rawfrag_sink_opts *opts, struct rawfrag_err *err);

#endif /* __RAWFRAG_INTERNAL_REPORT_H */
