// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "header" sink: the file's header as perf report --header-only prints
 * it (internal/header_print.h); in a pipe, the features as their
 * HEADER_FEATURE records come, up to the record that ends them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/header_print.h"
#include "internal/opts.h"
#include "internal/report.h"

struct header_sink {
	char *path, *input;
	int fd, own_fd;
	struct rawfrag_out *out;
	struct rawfrag_file *file;
};

static int header_begin(void *priv, struct rawfrag_report *rep)
{
	struct header_sink *h = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	h->file = rawfrag_session__file(rawfrag_report__session(rep));
	fd = rf_sink_open_fd(h->path, h->fd, err);
	if (fd < 0)
		return fd;
	if (h->path && strcmp(h->path, "-"))
		h->own_fd = fd;
	h->out = rawfrag_out__new(fd);
	if (!h->out) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	rh_top(h->out, h->file, h->input ? h->input : rawfrag_file__path(h->file));
	/* a file's features are in its header: nothing more to read */
	return rawfrag_file__mode(h->file) == RAWFRAG_MODE_PIPE ? 0 : 1;
}

static int header_user(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct header_sink *h = priv;
	uint64_t feat;

	if (ev->rec->type != RAWFRAG_RECORD_HEADER_FEATURE || ev->rec->size < 16)
		return 0;
	feat = rawfrag__get64((const uint8_t *)ev->rec->data + 8,
			      rawfrag_file__needs_swap(h->file));
	if (feat >= RAWFRAG_FEAT_LAST)
		return 1;
	rh_feature(h->out, h->file, (int)feat);
	return rawfrag_out__error(h->out) ? 1 : 0;
}

static int header_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct header_sink *h = priv;

	if (h->out)
		rawfrag_out__flush(h->out);
	return 0;
}

static int header_error(void *priv)
{
	struct header_sink *h = priv;

	return h->out ? rawfrag_out__error(h->out) : 0;
}

static void header_free(void *priv)
{
	struct header_sink *h = priv;

	rawfrag_out__delete(h->out);
	if (h->own_fd >= 0)
		close(h->own_fd);
	free(h->path);
	free(h->input);
	free(h);
}

int rf_sink_header_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "input", NULL };
	const char *input = rf_sink_opt(opts->kv, "input");
	struct header_sink *h;

	if (rf_sink_opts_known("header", opts->kv, keys, err))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h || (opts->path && !(h->path = strdup(opts->path))) ||
	    (input && !(h->input = strdup(input)))) {
		if (h)
			header_free(h);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	h->fd = opts->fd;
	h->own_fd = -1;
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "header",
		.flags = RAWFRAG_SINK_UNORDERED | RAWFRAG_SINK_NO_MACHINE | RAWFRAG_SINK_NO_PARSE,
		.begin = header_begin,
		.user = header_user,
		.end = header_end,
		.error = header_error,
		.free = header_free,
	};
	*priv = h;
	return 0;
}
