// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the skb/xdp dump issue lands. */
#include <errno.h>
#include <stdio.h>

#include "skb.h"

int skb_record_setup(struct record *rec, const struct skb_opts *opts)
{
	fprintf(stderr, "perf rawfrag record: --skb is not implemented yet\n");
	return -EOPNOTSUPP;
}
