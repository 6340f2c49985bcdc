/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Threads as perf's machine keeps them, fed in delivery order by
 * rawfrag_session__process(): COMM sets a thread's name; FORK replaces the
 * child by a new thread that takes its parent's name if the parent has one (a
 * parent whose pid disagrees with the FORK is replaced first); EXIT changes
 * nothing. tid 0 starts as "swapper". The name is the last one set, as perf
 * script's thread__comm_str() gives it.
 */
#ifndef __RAWFRAG_INTERNAL_THREADS_H
#define __RAWFRAG_INTERNAL_THREADS_H

#include <rawfrag/file.h>

struct rf_threads;
struct rf_threads *rf_threads__new(void);
void rf_threads__delete(struct rf_threads *t);
/* a COMM or FORK record (others ignored); -ENOMEM */
int rf_threads__event(struct rf_threads *t, const struct rawfrag_record *rec, bool swap);
/*
 * The thread's name and its length, in a 16-byte NUL-padded buffer valid until
 * the next call; NULL if none was set (perf shows ":tid").
 */
const char *rf_threads__comm(struct rf_threads *t, int32_t pid, int32_t tid, int *len);
/* the pid of thread tid as perf knows it (the first known of its samples), -1 if none; -ENOMEM */
int rf_threads__pid(struct rf_threads *t, int32_t pid, int32_t tid, int32_t *out);

#endif
