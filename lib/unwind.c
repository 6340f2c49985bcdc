// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "internal/machine.h"

int rf_unwind__sample(struct rawfrag_machine *m, struct rawfrag_callchain *cc,
		      const struct rawfrag_sample *s, const struct perf_event_attr *attr,
		      uint32_t max_stack)
{
	return 0;
}

void rf_unwind__dso_free(struct rf_dso *d)
{
}
