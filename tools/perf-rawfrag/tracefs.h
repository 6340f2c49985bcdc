/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs lookup (tracefs.c), shared by record's -e and check --live. */
#ifndef __PERF_RAWFRAG_TRACEFS_H
#define __PERF_RAWFRAG_TRACEFS_H

#include <stddef.h>

/*
 * The tracefs mount point (/sys/kernel/tracing, else debugfs/tracing); mounts
 * it when root. NULL + message when there is none.
 */
const char *tracefs__path(char *msg, size_t msglen);

#endif
