/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --threads (record-threads.c): perf record's parallel streaming. The output
 * is a perf.data/ directory: "data" (header, features with HEADER_DIR_FORMAT
 * 1, the main thread's records) written by record.c, and data.N, one per ring
 * (rec->rings[N]), written here by the writer thread that owns the ring. The
 * rings are shared out by the --threads spec: one thread per cpu, core,
 * package or numa node.
 */
#ifndef __PERF_RAWFRAG_RECORD_THREADS_H
#define __PERF_RAWFRAG_RECORD_THREADS_H

#include <stdint.h>

#include "record-int.h"
#include "ring.h"

/* Group the rings into threads, open dir/data.N; prints one error. 0 or -errno */
int rthreads__open(struct record *rec, const char *dir);
/* Start the threads; each reads its rings with fn(reader, ring, ...). */
int rthreads__start(struct record *rec, rf_ring_fn fn);
/* a writer thread failed: the main loop stops */
bool rthreads__failed(struct record *rec);
/*
 * After the events are disabled: every thread drains its rings once more and
 * exits; their counts go into rec and its sels; the data.N files are finished.
 * Returns the first error.
 */
int rthreads__stop(struct record *rec);
int rthreads__nr(struct record *rec);
/* bytes in the data.N files */
uint64_t rthreads__bytes(struct record *rec);
void rthreads__free(struct record *rec);

#endif
