// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Pipe mode (perf record -o -): placeholder until the pipe reader lands. */
#include <errno.h>

#include "internal/file.h"

int rf_pipe__open(struct rawfrag_file *f)
{
	return rf_error(f, 0, 0, "pipe mode not supported yet");
}

int rf_pipe__next_raw(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	return 0;
}

void rf_pipe__free(struct rawfrag_file *f)
{
}

int rf_record__apply(struct rawfrag_file *f, struct rawfrag_record *rec)
{
	return 0;
}
