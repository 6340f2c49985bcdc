/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What several unit tests build their input from, in one place: temporary
 * files for the writer's output, the software attr the writer tests start
 * from, byte blobs in either order, tracing data with chosen event formats,
 * and the tracepoint decoder bound to one event of it. Failures are cmocka
 * assertions, so a test needs no checks of its own around them.
 */
#ifndef __RAWFRAG_TESTS_FIXTURE_H
#define __RAWFRAG_TESTS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/decoder.h"

/* a fresh empty file /tmp/<tag>.XXXXXX; the name is valid until the next call */
const char *fx_tmpfile(const char *tag);

/* a software event's attr: sample_type, period 1 .. and sample_id_all */
void fx_sw_attr(struct perf_event_attr *a, uint64_t config, uint64_t sample_type,
		uint64_t period);

/* a byte blob; numbers in the blob's byte order */
struct fx_buf {
	uint8_t p[65536];
	size_t len;
	bool be;
};
void fx_put(struct fx_buf *b, const void *d, size_t n);
void fx_put_num(struct fx_buf *b, uint64_t v, int n);
/* a u64 length, then the text without its NUL (tracing data's files) */
void fx_put_text64(struct fx_buf *b, const char *s);

/*
 * Tracing data (version 0.6, 8-byte longs, 4 KiB pages) in byte order be
 * with the nr event formats fmts of system sys; printk formats and saved
 * cmdlines when not NULL.
 */
void fx_tracing_data(struct fx_buf *b, bool be, const char *sys, const char *const *fmts,
		     int nr, const char *printk, const char *cmdlines);

/*
 * The tracepoint decoder's file state over the tracing data in blob (env and
 * ctx filled in, the decoder's file_init asserted), then bound to event id:
 * returns rawfrag_tp__bind()'s result (its score, 0 when id is unknown).
 * fx_tp__unbind() releases both.
 */
int fx_tp__bind(struct rawfrag_env *env, struct rawfrag_decoder_ctx *ctx,
		const struct fx_buf *blob, uint64_t id, void **priv);
void fx_tp__unbind(struct rawfrag_decoder_ctx *ctx, void *priv);

/* a whole small file (< 64 KiB) NUL-terminated, or NULL; free() it */
char *fx_slurp(const char *path, size_t *len);

#endif /* __RAWFRAG_TESTS_FIXTURE_H */
