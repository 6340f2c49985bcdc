// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include "internal/opts.h"
#include "internal/report.h"

int rf_sink_flamegraph_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			    void **priv, struct rawfrag_err *err)
{
	rf_err_set(err, -ENOTSUP, "flamegraph: not yet");
	return -ENOTSUP;
}
