// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the skb/xdp dump issue lands. */
#include <errno.h>
#include <stdio.h>

#include "skb.h"

int report_pcapng(struct rawfrag_session *sess, const char *path,
		  bool (*keep)(void *ctx, const struct rawfrag_record *rec,
			       const struct rawfrag_sample *smp),
		  void *keep_ctx)
{
	fprintf(stderr, "perf rawfrag report: --format pcapng is not implemented yet\n");
	return -EOPNOTSUPP;
}
