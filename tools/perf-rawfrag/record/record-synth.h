/* SPDX-License-Identifier: GPL-2.0 */
/* record-synth.c: the file's features and the synthesized task records */
#ifndef __PERF_RAWFRAG_RECORD_SYNTH_H
#define __PERF_RAWFRAG_RECORD_SYNTH_H

struct record;
struct rawfrag_err;

int record__setup_features(struct record *rec, struct rawfrag_err *rerr);
int record__synth_task(struct record *rec, int pid);
int record__synth_all(struct record *rec);

#endif
