/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `perf rawfrag check --live`: drive the running kernel's PERF_SAMPLE_RAW
 * producers with known patterns and check every record fragment by fragment.
 * This header holds the state its parts share; each part has its own header
 * and includes only those below it:
 *   check-live-int.h < check-live-verify (the rings and the per-record rules)
 *   < check-live-cases (the producers) < check-live (runs the cases, reports)
 *   < builtin-check
 */
#ifndef __PERF_RAWFRAG_CHECK_LIVE_INT_H
#define __PERF_RAWFRAG_CHECK_LIVE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "record/ring.h"

struct livecheck_bpf;
struct rawfrag_writer;

struct live_opts {
	bool json, quick, verbose;
	const char *output; /* -o FILE or NULL */
};

#define LIVE_META_MAX (72 * 1024)
#define LIVE_SIZES_MAX (128 * 1024) /* bitmap of the payload sums seen */
#define LIVE_PAGES_MAIN 16
#define LIVE_PAGES_WRAP 2
#define LIVE_PAGES_BIG 32

enum live_tamper { TAMPER_NONE, TAMPER_SIZE, TAMPER_SHIFT, TAMPER_PAD, TAMPER_TRUNC };

struct live_case {
	const char *name, *producer;
	uint64_t sent, records, ok, violations, pad_zero, pad_stale, pad_none;
	uint64_t lost, wrapped, refused, missing, foreign, corrupt;
	uint32_t min_sum, max_sum, nsizes;
	unsigned char *seen; /* bitmap of sums */
	bool ran, tampered;
	char first[240]; /* the first violation */
	char note[240]; /* what the kernel did at the limit, skipped parts */
};

/* one bpf-output (or tracepoint) event on the pinned cpu with its ring */
struct live_ring {
	int fd;
	uint64_t id;
	unsigned int pages;
	struct rf_ring r;
	unsigned char *shadow; /* what the ring held at each offset: as mapped, then records */
};

/* what the record in flight must hold: raw = exp[0..sum), skip[] not compared */
struct live_expect {
	uint32_t sum, frag1; /* frag1: bytes of the first fragment (meta) */
	const unsigned char *exp;
	uint32_t skip_off, skip_len;
	int tp_pid; /* tracepoint: only records of this pid count */
	bool beyond; /* over the header.size limit: an unframed record is the kernel's answer */
};

struct live {
	struct live_opts o;
	int cpu;
	enum live_tamper tamper;
	struct livecheck_bpf *skel;
	struct live_ring bo[3]; /* main, wrap, big */
	struct live_ring tp;
	int tp_id;
	bool have_tp;
	bool have_rx; /* live_rx loaded: skb-paged can tell linear from paged */
	struct rawfrag_writer *w;
	unsigned char *meta_pat, *pkt_pat, *exp, *tbuf;
	struct live_case *cur;
	struct live_expect want;
	int got; /* samples matched for the send in flight */
	int last_hsize; /* header.size of the last sample (big case) */
	char missing[12][320];
	int nr_missing;
};

#endif
