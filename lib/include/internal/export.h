/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The relational model of a report, as perf's util/db-export.c assigns it for
 * export-to-sqlite.py and export-to-postgresql.py: ids of selected_events,
 * machines, threads, comms, comm_threads, dsos, symbols and call_paths (a trie
 * of (parent, symbol), ip kept only where the symbol is unknown, root first),
 * each row handed to a store once, before the first sample row that names it.
 * Id 0 is "unknown" in every table (the store writes those rows itself).
 *
 * perf's conventions kept: a sample's comm is the exec comm of its process's
 * main thread (threads of one program group under one comm); a thread is its
 * own row from its fork on (a FORK of a known tid makes a new one); an
 * address in a map without a symbol gets a symbol "unknown" of size 0 at that
 * address. Unlike perf, every sample of every event is a row (tracepoints too).
 *
 * Ownership: the model owns its threads, comms and look-up tables; names it
 * hands to the store are valid during the call.
 */
#ifndef __RAWFRAG_INTERNAL_EXPORT_H
#define __RAWFRAG_INTERNAL_EXPORT_H

#include <rawfrag/sink.h>

struct rf_export;

/* one row of perf's samples table */
struct rf_export_sample {
	uint64_t id, evsel_id, machine_id, thread_id, comm_id, dso_id, symbol_id, sym_offset;
	uint64_t ip, time;
	int32_t cpu;
	uint64_t to_dso_id, to_symbol_id, to_sym_offset, to_ip;
	uint64_t period, weight, transaction, data_src;
	uint64_t call_path_id;
};

/* a store's rows; each returns 0 or -errno (the store's message in its own err) */
struct rf_export_store {
	int (*evsel)(void *ctx, uint64_t id, const char *name);
	int (*machine)(void *ctx, uint64_t id, int32_t pid, const char *root_dir);
	int (*thread)(void *ctx, uint64_t id, uint64_t machine_id, uint64_t process_id,
		      int32_t pid, int32_t tid);
	int (*comm)(void *ctx, uint64_t id, const char *comm, uint64_t c_thread_id,
		    uint64_t c_time, bool exec);
	int (*comm_thread)(void *ctx, uint64_t id, uint64_t comm_id, uint64_t thread_id);
	int (*dso)(void *ctx, uint64_t id, uint64_t machine_id, const char *short_name,
		   const char *long_name, const char *build_id);
	int (*symbol)(void *ctx, uint64_t id, uint64_t dso_id, uint64_t sym_start,
		      uint64_t sym_end, int binding, const char *name);
	int (*call_path)(void *ctx, uint64_t id, uint64_t parent_id, uint64_t symbol_id,
			 uint64_t ip);
	void *ctx;
};

/* NULL on ENOMEM. max_stack: frames per call chain (0: perf's 127). */
struct rf_export *rf_export__new(const struct rf_export_store *st, uint32_t max_stack);
void rf_export__delete(struct rf_export *x);
/* the report's evsels (perf sets comm_exec from their attrs); call at begin() */
int rf_export__begin(struct rf_export *x, struct rawfrag_report *rep);
/* COMM, FORK, EXIT as the report's task() gets them; 0 or -ENOMEM */
int rf_export__task(struct rf_export *x, const struct rawfrag_event *ev, bool swap);
/*
 * A sample: its dimension rows go to the store (perf's order: event, machine,
 * threads and comms, DSO and symbol, call path), its samples row into *out.
 * 0 or -errno (-ENOMEM, or the store's).
 */
int rf_export__sample(struct rf_export *x, struct rawfrag_report *rep,
		      const struct rawfrag_event *ev, struct rf_export_sample *out);

#endif /* __RAWFRAG_INTERNAL_EXPORT_H */
