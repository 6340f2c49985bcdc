/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the record engine needs from it: one error printer and
 * the evsels' clock. Here, below the parts, so that they need nothing of the
 * engine above them (record.c).
 */
#include <stdarg.h>
#include <time.h>

#include "record-int.h"
#include "util.h"

void record__err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rf_verrorf("record", fmt, ap);
	va_end(ap);
}

int record__clockid(struct record *rec)
{
	return rec->opts.clock_set ? rec->opts.clockid : CLOCK_MONOTONIC;
}
