// SPDX-License-Identifier: GPL-2.0
/* perf script --dlfilter plugin (placeholder until implemented). */
#include <perf/perf_dlfilter.h>

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	return 0;
}
