// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "folded" and "flamegraph-json" sinks: call stacks aggregated in a trie
 * (stacks.c), written at the end as perf 6.1's stackcollapse.py prints them
 * ("comm;root;...;leaf count" lines, sorted) or as flamegraph.py -f json's
 * tree. Both count samples, as the scripts do, unless weight= names period or
 * a numeric decoded field (the path --where uses).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/opts.h"
#include "internal/report.h"
#include "internal/stacks.h"

struct folded_sink {
	const char *name; /* the sink's */
	bool json;
	char *path;
	int fd, own_fd;
	struct rawfrag_out *out;
	struct rf_stacks *st;
	struct rf_stack_walk walk;
	char *weight; /* NULL: samples */
	bool weight_seen;
};

static int folded_begin(void *priv, struct rawfrag_report *rep)
{
	struct folded_sink *fs = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int fd;

	fs->st = rf_stacks__new("all");
	if (!fs->st || rf_stacks__weight(fs->st, "w", 1) != 0) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	fd = rf_sink_open_fd(fs->path, fs->fd, err);
	if (fd < 0)
		return fd;
	if (fs->path && strcmp(fs->path, "-"))
		fs->own_fd = fd;
	fs->out = rawfrag_out__new(fd);
	if (!fs->out) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int folded_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct folded_sink *fs = priv;
	uint64_t v = 1;
	uint32_t leaf;
	int ret;

	if (fs->weight) {
		if (!rf_stacks__sample_weight(rep, ev, fs->weight, &v))
			return 0;
		fs->weight_seen = true;
		/* a stack of no weight is no line (the scripts count 1 at least) */
		if (!v)
			return 0;
	}
	/* -j: the sample's number orders the nodes it makes in the merge */
	ret = rep->J ? rf_stacks__set_seq(fs->st, rep->seq - 1) : 0;
	if (!ret)
		ret = rf_stack_walk__sample(&fs->walk, fs->st, rep, ev, &leaf);
	if (!ret)
		ret = rf_stacks__add(fs->st, leaf, 0, v);
	if (ret)
		rf_err_set(rawfrag_report__err(rep), ret, "out of memory");
	return ret;
}

static int folded_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct folded_sink *fs = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	char msg[200];
	int ret = 0;

	if (!fs->out)
		return 0;
	if (!status && fs->weight && !fs->weight_seen) {
		snprintf(msg, sizeof(msg), "%s output: no sample has a numeric field '%.60s' "
			 "(weight=; names as --where's)", fs->name, fs->weight);
		rf_err_set(err, -ENOENT, msg);
		ret = -ENOENT;
	} else if (!status) {
		ret = fs->json ? rf_stacks__json(fs->st, 0, rf_stack_kinds, fs->out) :
				 rf_stacks__folded(fs->st, 0, fs->out);
		if (ret)
			rf_err_set(err, ret, "out of memory");
	}
	rawfrag_out__flush(fs->out);
	return ret;
}

struct rawfrag_out *rf_folded__out(void *priv)
{
	struct folded_sink *fs = priv;

	return fs->out;
}

int rf_folded__merge(void *priv, void *const *others, int n)
{
	struct folded_sink *fs = priv;
	struct rf_stacks **v = calloc((size_t)n + 1, sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct folded_sink *o = others[i];

		v[i] = o->st;
		fs->weight_seen |= o->weight_seen;
	}
	ret = rf_stacks__merge(fs->st, v, n);
	free(v);
	/* the walk's names and chains were of the trie replaced */
	fs->walk.memo_st = NULL;
	fs->walk.chains_st = NULL;
	return ret;
}

static int folded_error(void *priv)
{
	struct folded_sink *fs = priv;

	return fs->out ? rawfrag_out__error(fs->out) : 0;
}

static void folded_free(void *priv)
{
	struct folded_sink *fs = priv;

	rawfrag_out__delete(fs->out);
	if (fs->own_fd >= 0)
		close(fs->own_fd);
	rf_stacks__delete(fs->st);
	rf_stack_walk__fini(&fs->walk);
	free(fs->weight);
	free(fs->path);
	free(fs);
}

/* weight= and max_stack=, the options of every stack sink */
int rf_stack_opts(const char *sink, const char *const *kv, char **weight, uint32_t *max_stack,
		  struct rawfrag_err *err)
{
	const char *w = rf_sink_opt(kv, "weight"), *m = rf_sink_opt(kv, "max_stack");
	char msg[200], *end;
	unsigned long n;

	if (m) {
		errno = 0;
		n = strtoul(m, &end, 10);
		if (!*m || *end || errno || n > 1024 || *m == '-') {
			snprintf(msg, sizeof(msg), "%s output: max_stack=%.40s is not a number "
				 "of frames (0 to 1024)", sink, m);
			rf_err_set(err, -EINVAL, msg);
			return -EINVAL;
		}
		*max_stack = (uint32_t)n;
	}
	if (w && !*w) {
		snprintf(msg, sizeof(msg), "%s output: weight= wants samples, period or a "
			 "decoded field's name", sink);
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	if (w && strcmp(w, "samples") && !(*weight = strdup(w))) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int stack_sink_open(const char *name, bool json, const struct rawfrag_sink_opts *opts,
			   struct rawfrag_sink_ops *ops, void **priv, struct rawfrag_err *err)
{
	static const char *const fkeys[] = { "kernel", "include_pid", "include_tid", "no_comm",
					     "weight", "max_stack", NULL };
	static const char *const jkeys[] = { "weight", "max_stack", NULL };
	struct folded_sink *fs;
	bool no_comm = false;
	char msg[200];

	if (rf_sink_opts_known(name, opts->kv, json ? jkeys : fkeys, err))
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (!fs || (opts->path && !(fs->path = strdup(opts->path)))) {
		free(fs);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	fs->name = name;
	fs->json = json;
	fs->fd = opts->fd;
	fs->own_fd = -1;
	fs->walk.flame = json;
	if (rf_sink_opt_bool(name, opts->kv, "kernel", &fs->walk.kernel, err) ||
	    rf_sink_opt_bool(name, opts->kv, "include_pid", &fs->walk.pid, err) ||
	    rf_sink_opt_bool(name, opts->kv, "include_tid", &fs->walk.tid, err) ||
	    rf_sink_opt_bool(name, opts->kv, "no_comm", &no_comm, err) ||
	    rf_stack_opts(name, opts->kv, &fs->weight, &fs->walk.max_stack, err))
		goto bad;
	fs->walk.comm = !no_comm;
	/* stackcollapse.py's own refusal */
	if (no_comm && (fs->walk.pid || fs->walk.tid)) {
		snprintf(msg, sizeof(msg), "%s output: include_pid and include_tid need the comm "
			 "(not no_comm)", name);
		rf_err_set(err, -EINVAL, msg);
		goto bad;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = name,
		.begin = folded_begin,
		.sample = folded_sample,
		.end = folded_end,
		.error = folded_error,
		.free = folded_free,
	};
	*priv = fs;
	return 0;
bad:
	folded_free(fs);
	return err->err ? err->err : -EINVAL;
}

int rf_sink_folded_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err)
{
	return stack_sink_open("folded", false, opts, ops, priv, err);
}

int rf_sink_flamejson_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			   void **priv, struct rawfrag_err *err)
{
	return stack_sink_open("flamegraph-json", true, opts, ops, priv, err);
}
