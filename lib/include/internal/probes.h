/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __RAWFRAG_INTERNAL_PROBES_H
#define __RAWFRAG_INTERNAL_PROBES_H

#include <stdint.h>

/*
 * probes.c: report -j's workers share what probing a tracing data blob found
 * (the libtraceevent calls to skip), and the probe's fork happens once, while
 * the other workers wait for it (see probes.c for why).
 */
struct rf_probes;
struct rf_probes *rf_probes__new(int workers);
void rf_probes__delete(struct rf_probes *p);
/* worker id parses no more (its run ended) */
void rf_probes__leave(struct rf_probes *p, int id);
/*
 * The calls to skip for blob, into skip (at most max) and *nr: found by
 * probe() in one worker, the others given its answer. 0, or -ENOMEM (then
 * the caller probes alone).
 */
int rf_probes__get(struct rf_probes *p, const void *blob, uint64_t size, int *skip, int max,
		   int *nr,
		   void (*probe)(const void *blob, uint64_t size, int *skip, int max, int *nr));

#endif /* __RAWFRAG_INTERNAL_PROBES_H */
