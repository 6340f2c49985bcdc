/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The decoders of lib/decoders/, for the registry and the in-tree tests. */
#ifndef __RAWFRAG_INTERNAL_DECODERS_H
#define __RAWFRAG_INTERNAL_DECODERS_H

#include "internal/decoder.h"

extern const struct rawfrag_decoder rawfrag_decoder_tracepoint; /* tracepoint.c */
extern const struct rawfrag_decoder rawfrag_decoder_ibs_fetch;	/* ibs.c */
extern const struct rawfrag_decoder rawfrag_decoder_ibs_op;	/* ibs.c */
extern const struct rawfrag_decoder rawfrag_decoder_cpumsf;	/* cpumsf.c */
extern const struct rawfrag_decoder rawfrag_decoder_cfdiag;	/* cfdiag.c */
extern const struct rawfrag_decoder rawfrag_decoder_pai;	/* pai.c */
extern const struct rawfrag_decoder rawfrag_decoder_bpf_skb;	/* bpf_skb.c */
extern const struct rawfrag_decoder rawfrag_decoder_hexdump;	/* hexdump.c */

#endif
