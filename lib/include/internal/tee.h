/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __RAWFRAG_INTERNAL_TEE_H
#define __RAWFRAG_INTERNAL_TEE_H

#include <stdint.h>
#include <sys/types.h>

/* tee.c: a pipe read once for several readers (report -j on a pipe) */
struct rf_tee;
/*
 * fd's stream for readers 0 .. readers - 1, of which the first len bytes
 * (at most 1 MiB) were read already and are head; a reader waits while it is
 * bound bytes ahead of the slowest
 */
struct rf_tee *rf_tee__new(int fd, const void *head, size_t len, int readers, uint64_t bound);
void rf_tee__delete(struct rf_tee *t);
/* reader r's bytes at off (it is past everything before): up to cap; 0 at the end, -errno */
ssize_t rf_tee__read(struct rf_tee *t, int r, uint64_t off, void *buf, size_t cap);
/* reader r reads no more */
void rf_tee__leave(struct rf_tee *t, int r);
/* every reader but r leaves */
void rf_tee__only(struct rf_tee *t, int r);

#endif /* __RAWFRAG_INTERNAL_TEE_H */
