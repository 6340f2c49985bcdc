// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one table of decoders; a session probes them in this order (ties: first wins). */
#include <string.h>

#include "internal/decoders.h"

static const struct rawfrag_decoder *const decoders[] = {
	&rawfrag_decoder_tracepoint,
	&rawfrag_decoder_ibs_fetch,
	&rawfrag_decoder_ibs_op,
	&rawfrag_decoder_cpumsf,
	&rawfrag_decoder_cfdiag,
	&rawfrag_decoder_pai,
	&rawfrag_decoder_bpf_skb,
	&rawfrag_decoder_hexdump,
	NULL,
};

const struct rawfrag_decoder *const *rawfrag_decoders(void)
{
	return decoders;
}

const struct rawfrag_decoder *rawfrag_decoder__find(const char *name)
{
	for (int i = 0; decoders[i]; i++)
		if (!strcmp(decoders[i]->name, name))
			return decoders[i];
	return NULL;
}
