// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The unit tests' shared input builders (fixture.h). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal/decoders.h"
#include "internal/tracepoint.h"
#include "fixture.h"

const char *fx_tmpfile(const char *tag)
{
	static char buf[128];
	int fd;

	snprintf(buf, sizeof(buf), "/tmp/%s.XXXXXX", tag);
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
	return buf;
}

void fx_sw_attr(struct perf_event_attr *a, uint64_t config, uint64_t sample_type,
		uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = config;
	a->sample_period = period;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
}

void fx_put(struct fx_buf *b, const void *d, size_t n)
{
	assert_true(b->len + n <= sizeof(b->p));
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

void fx_put_num(struct fx_buf *b, uint64_t v, int n)
{
	assert_true(b->len + (size_t)n <= sizeof(b->p));
	for (int i = 0; i < n; i++) {
		int shift = b->be ? 8 * (n - 1 - i) : 8 * i;

		b->p[b->len + i] = (uint8_t)(v >> shift);
	}
	b->len += n;
}

void fx_put_text64(struct fx_buf *b, const char *s)
{
	fx_put_num(b, strlen(s), 8);
	fx_put(b, s, strlen(s));
}

/* the kernel's header_page format (64-bit) */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

void fx_tracing_data(struct fx_buf *b, bool be, const char *sys, const char *const *fmts,
		     int nr, const char *printk, const char *cmdlines)
{
	memset(b, 0, sizeof(*b));
	b->be = be;
	fx_put(b, "\x17\x08\x44tracing", 10);
	fx_put(b, "0.6", 4);
	fx_put_num(b, be, 1);
	fx_put_num(b, 8, 1);
	fx_put_num(b, 4096, 4);
	fx_put(b, "header_page", 12);
	fx_put_text64(b, header_page);
	fx_put(b, "header_event", 13);
	fx_put_text64(b, "# compressed entry header\n");
	fx_put_num(b, 0, 4); /* ftrace formats */
	fx_put_num(b, 1, 4); /* systems */
	fx_put(b, sys, strlen(sys) + 1);
	fx_put_num(b, (uint64_t)nr, 4);
	for (int i = 0; i < nr; i++)
		fx_put_text64(b, fmts[i]);
	fx_put_num(b, 0, 4); /* kallsyms */
	fx_put_num(b, printk ? strlen(printk) : 0, 4);
	if (printk)
		fx_put(b, printk, strlen(printk));
	fx_put_text64(b, cmdlines ? cmdlines : "");
}

int fx_tp__bind(struct rawfrag_env *env, struct rawfrag_decoder_ctx *ctx,
		const struct fx_buf *blob, uint64_t id, void **priv)
{
	const struct rawfrag_decoder *dec = &rawfrag_decoder_tracepoint;

	env->tracing_data = blob->p;
	env->tracing_data_size = blob->len;
	ctx->env = env;
	assert_int_equal(dec->file_init(ctx, &ctx->file_priv), 0);
	assert_non_null(ctx->file_priv);
	return rawfrag_tp__bind(ctx, id, priv);
}

void fx_tp__unbind(struct rawfrag_decoder_ctx *ctx, void *priv)
{
	const struct rawfrag_decoder *dec = &rawfrag_decoder_tracepoint;

	dec->release(priv);
	dec->file_fini(ctx->file_priv);
}

char *fx_slurp(const char *path, size_t *len)
{
	char *buf = malloc(65536);
	ssize_t n = 0, r;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((r = read(fd, buf + n, 65535 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}
