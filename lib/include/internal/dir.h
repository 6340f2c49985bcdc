/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A directory recording's data files (dir.c), on the reader's core only:
 * perf.data/data opened as the file, then, after its header, the data.N
 * files HEADER_DIR_FORMAT says are there, checked and opened.
 */
#ifndef __RAWFRAG_INTERNAL_DIR_H
#define __RAWFRAG_INTERNAL_DIR_H

#include "internal/file.h"

/* f->fd is a directory: keep it as f->dir_fd and open its data file as f->fd */
int rf_dir__open_data(struct rawfrag_file *f);
/* after the header: the data.N files of a version 1 directory into f->srcs */
int rf_dir__open_files(struct rawfrag_file *f);
/* close and free f->srcs' fds and paths (their windows and zstd states: file.c) */
void rf_dir__free(struct rawfrag_file *f);

#endif /* __RAWFRAG_INTERNAL_DIR_H */
