/* SPDX-License-Identifier: GPL-2.0 */
/* check --live: the rings and the per-record rules (check-live-verify.c) */
#ifndef __PERF_RAWFRAG_CHECK_LIVE_VERIFY_H
#define __PERF_RAWFRAG_CHECK_LIVE_VERIFY_H

#include "check-live-int.h"

int live_ring__open(struct live *L, struct live_ring *lr, bool tracepoint, unsigned int pages,
		    int out_fd);
void live_ring__close(struct live_ring *lr);
/* read lr and check each record against L->want; returns records or -errno */
int live_ring__drain(struct live *L, struct live_ring *lr);
void live_case__violation(struct live_case *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void live_missing(struct live *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint32_t live_raw_size(uint32_t sum);

#endif
