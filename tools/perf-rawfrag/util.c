// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the subcommands (see util.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int rf_lib_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	const struct rf_print_ctx *pc = ctx;
	int verbose = pc ? pc->verbose : 0;

	if (pc && pc->quiet)
		return 0;
	if ((level == RAWFRAG_INFO && verbose < 1) || (level == RAWFRAG_DEBUG && verbose < 2))
		return 0;
	int n = vfprintf(stderr, fmt, ap);
	size_t l = strlen(fmt);
	if (l && fmt[l - 1] != '\n')
		fputc('\n', stderr);
	return n;
}

void rf_print_err(const char *cmd, const char *path, const struct rawfrag_err *e)
{
	char buf[512];

	fprintf(stderr, "perf rawfrag %s: %s\n", cmd, rawfrag_err__format(e, path, buf, sizeof(buf)));
}

void rf_verrorf(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "perf rawfrag %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rf_errorf(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rf_verrorf(cmd, fmt, ap);
	va_end(ap);
}
