// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Placeholder until the producer's issue lands: claims no evsel. */
#include "internal/decoders.h"

const struct rawfrag_decoder rawfrag_decoder_tracepoint = {
	.name = "tracepoint",
	.description = "(not yet implemented)",
};
