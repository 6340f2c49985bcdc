/* SPDX-License-Identifier: GPL-2.0 */
/* check --live: the producers (check-live-cases.c) */
#ifndef __PERF_RAWFRAG_CHECK_LIVE_CASES_H
#define __PERF_RAWFRAG_CHECK_LIVE_CASES_H

#include "check-live-int.h"

/* cover the whole ring with known records that leave no pad */
int live_ring__prefill(struct live *L, struct live_ring *lr);

/* each returns 0, or -errno when the case could not run */
int live_case_plain(struct live *L, struct live_case *c);
int live_case_plain_large(struct live *L, struct live_case *c);
int live_case_skb(struct live *L, struct live_case *c);
int live_case_skb_paged(struct live *L, struct live_case *c);
int live_case_xdp(struct live *L, struct live_case *c);
int live_case_xdp_frags(struct live *L, struct live_case *c);
int live_case_exec(struct live *L, struct live_case *c);
int live_case_wrap(struct live *L, struct live_case *c);
int live_case_limit(struct live *L, struct live_case *c);

#endif
