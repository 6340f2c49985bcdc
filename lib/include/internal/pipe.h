/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pipe mode's reader and the user records that describe a file as they pass
 * (pipe.c), on the core, attrs, evsels and features.
 */
#ifndef __RAWFRAG_INTERNAL_PIPE_H
#define __RAWFRAG_INTERNAL_PIPE_H

#include "internal/file.h"

int rf_pipe__open(struct rawfrag_file *f);
int rf_pipe__next_raw(struct rawfrag_file *f, struct rawfrag_record *rec);
void rf_pipe__free(struct rawfrag_file *f);
/* apply records that describe the file (HEADER_ATTR, FEATURE, EVENT_UPDATE...) */
int rf_record__apply(struct rawfrag_file *f, struct rawfrag_record *rec);

#endif /* __RAWFRAG_INTERNAL_PIPE_H */
