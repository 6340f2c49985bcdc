// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Placeholder until the IBS issue lands: claims no evsel. */
#include "internal/decoders.h"

const struct rawfrag_decoder rawfrag_decoder_ibs_fetch = {
	.name = "ibs_fetch",
	.description = "(not yet implemented)",
};

const struct rawfrag_decoder rawfrag_decoder_ibs_op = {
	.name = "ibs_op",
	.description = "(not yet implemented)",
};
