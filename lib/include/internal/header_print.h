/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report --header / --header-only: the header as perf report and perf script print it */
#ifndef __RAWFRAG_INTERNAL_HEADER_PRINT_H
#define __RAWFRAG_INTERNAL_HEADER_PRINT_H

struct rawfrag_out;
struct rawfrag_file;

/*
 * "# ========" up to the end of the block: a file's numbers, its features and
 * the missing ones; a pipe's numbers only (its features come with their records).
 */
void rh_top(struct rawfrag_out *o, struct rawfrag_file *f, const char *path);
/* the lines of one feature (RAWFRAG_FEAT_*) as perf prints them */
void rh_feature(struct rawfrag_out *o, struct rawfrag_file *f, int feat);

#endif
