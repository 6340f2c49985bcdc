/* SPDX-License-Identifier: GPL-2.0 */
/* record-target.c: cpu/thread maps, -p/-t parsing, the forked workload */
#ifndef __PERF_RAWFRAG_RECORD_TARGET_H
#define __PERF_RAWFRAG_RECORD_TARGET_H

#include <stdbool.h>

struct record;

int record__setup_targets(struct record *rec);
/* -p/-t: true once every target process/thread has exited */
bool record__targets_gone(struct record *rec);

#endif
