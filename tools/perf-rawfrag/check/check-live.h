/* SPDX-License-Identifier: GPL-2.0 */
/* `perf rawfrag check --live` (check-live.c), as builtin-check.c runs it */
#ifndef __PERF_RAWFRAG_CHECK_LIVE_H
#define __PERF_RAWFRAG_CHECK_LIVE_H

#include "check-live-int.h"

int cmd_check_live(const struct live_opts *o);

#endif
