/* SPDX-License-Identifier: GPL-2.0 */
/* record-buildid.c: BUILD_ID feature of the DSOs hit, the build-id cache */
#ifndef __PERF_RAWFRAG_RECORD_BUILDID_H
#define __PERF_RAWFRAG_RECORD_BUILDID_H

#include <stdint.h>

struct record;

int bid__start(struct record *rec);
void bid__mmap(struct record *rec, int pid, uint64_t start, uint64_t len, const char *name);
void bid__fork(struct record *rec, int pid, int ppid);
void bid__exec(struct record *rec, int pid);
void bid__sample(struct record *rec, uint16_t misc, int pid, uint64_t ip);
/* build-ids of the DSOs hit, into the cache (unless -N) and the feature */
int bid__finish(struct record *rec);
void bid__free(struct record *rec);

#endif
