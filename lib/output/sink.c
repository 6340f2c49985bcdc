// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sinks of <rawfrag/sink.h>: the library's by name, a caller's by its
 * callbacks, and the "key=value" options every sink parses the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/opts.h"
#include "internal/lines.h"
#include "internal/report.h"

static const struct {
	const char *name;
	rf_sink_open_fn open;
	const char *help;
} sinks[] = {
	{ "text", rf_sink_text_open,
	  "fields=LIST   perf script's columns (comm,pid,tid,cpu,time,event,trace,ip,sym,\n"
	  "              symoff,dso,addr,period,iregs,uregs,tod,flags)\n"
	  "verbose=1     every decoded field in the trace text\n"
	  "ns=1          times with nanoseconds\n"
	  "tasks=1       COMM, FORK and EXIT records too\n"
	  "header=1      the file's header first\n"
	  "callchain=0   one line per sample, no call chain\n"
	  "max_stack=N   at most N frames per call chain (default 127)\n"
	  "input=NAME    the input's name in the header\n" },
	{ "json", rf_sink_json_open,
	  "fields=LIST   checked as text's (the JSON has every member)\n"
	  "callchain=0   no \"callchain\" member\n"
	  "max_stack=N   at most N frames per call chain (default 127)\n" },
	{ "pcapng", rf_sink_pcapng_open,
	  "(none)        the bpf_skb dumps as packets; other samples are left out\n" },
	{ "stats", rf_sink_stats_open,
	  "(none)        record counts per type and event, as perf report --stats\n" },
	{ "header", rf_sink_header_open,
	  "input=NAME    the input's name in the header\n" },
	{ "table", rf_sink_table_open,
	  "sort=KEYS     perf report's sort keys (comm,dso,sym by default; pid, cpu,\n"
	  "              tracepoint fields as perf spells them, any decoded field)\n"
	  "show_nr_samples=1    the Samples column\n"
	  "show_total_period=1  the Period column\n"
	  "percent_limit=N      only entries of at least N%\n"
	  "quiet=1       no '#' lines\n"
	  "callgraph=none  no call graph under entries (the only one so far)\n"
	  "children=0    Self only (the only one so far)\n"
	  "weight=FIELD  Overhead as the share of a numeric field's sum (period: perf's)\n"
	  "hist=FIELD[,log2|linear:STEP]  the field's buckets per event (per entry with sort=)\n"
	  "format=json   one JSON object per entry or bucket\n"
	  "field_separator=SEP  perf's -t\n"
	  "comms=LIST, dsos=LIST  perf's --comms, --dsos\n"
	  "pids=LIST, tids=LIST  perf report's --pid, --tid: entries, not samples\n"
	  "percentage=relative|absolute  shares after the filters\n" },
	{ "folded", rf_sink_folded_open,
	  "(stacks)      perf's stackcollapse.py lines: comm;root;...;leaf count, sorted\n"
	  "kernel=1      _[k] after kernel symbols\n"
	  "include_pid=1 comm-PID first\n"
	  "include_tid=1 comm-TID (comm-PID/TID with include_pid) first\n"
	  "no_comm=1     no comm frame\n"
	  "weight=W      count samples (default), period, or a numeric decoded field\n"
	  "max_stack=N   at most N frames per call chain (default 127)\n" },
	{ "flamegraph-json", rf_sink_flamejson_open,
	  "(stacks)      perf's flamegraph.py -f json tree {n,l,v,c}\n"
	  "weight=W      count samples (default), period, or a numeric decoded field\n"
	  "max_stack=N   at most N frames per call chain (default 127)\n" },
	{ "flamegraph", rf_sink_flamegraph_open,
	  "(page)        one offline HTML page: d3-flame-graph of every weight (samples,\n"
	  "              period, each numeric decoded field), field histograms, check\n"
	  "              summary, losses, header facts\n"
	  "weight=W      the weight shown first (default samples)\n"
	  "max_stack=N   at most N frames per call chain (default 127)\n"
	  "js=DIR        d3-flame-graph and d3 from DIR (default: the build's, then the\n"
	  "              installed share/perf-rawfrag/js)\n" },
	{ "pprof", rf_sink_pprof_open,
	  "labels=LIST   pprof labels: pid, tid, cpu, comm, event, decoded fields\n"
	  "              ([sys:event.]path as --where names them)\n"
	  "weight=LIST   one more sample type per numeric decoded field, its sum\n"
	  "max_stack=N   at most N frames per stack (default 127)\n" },
	{ "sqlite", rf_sink_sqlite_open,
	  "overwrite=1   replace an existing file (else refused)\n"
	  "tmp=PATH      load here, renamed to the output at the end (FILE.tmp-PID)\n"
	  "max_stack=N   at most N frames per call path (default 127)\n"
	  "raw_check=0   no raw_check table\n" },
	{ "clickhouse", rf_sink_clickhouse_open,
	  "host=NAME     the samples' host (default: the file's hostname header)\n"
	  "max_stack=N   at most N frames per stack (default 127)\n"
	  "batch_mb=N    rows sent per INSERT, in MiB of TabSeparated (default 64)\n"
	  "cluster=NAME  rawfrag_sink__schema() only: <table>_local tables and\n"
	  "              Distributed(NAME, DB, <table>_local, key) tables\n" },
};
#define NR_SINKS (sizeof(sinks) / sizeof(sinks[0]))

const char *const *rawfrag_sinks(void)
{
	static const char *const names[] = { "text", "json", "pcapng", "stats", "header", "table",
					      "folded", "flamegraph-json", "flamegraph", "pprof", "sqlite", "clickhouse", NULL };

	return names;
}

const char *rawfrag_sink__option_help(const char *name)
{
	for (size_t i = 0; name && i < NR_SINKS; i++)
		if (!strcmp(sinks[i].name, name))
			return sinks[i].help;
	return NULL;
}

static struct rawfrag_sink *sink_alloc(const struct rawfrag_sink_ops *ops, void *priv,
				       struct rawfrag_err *err)
{
	struct rawfrag_sink *sk = calloc(1, sizeof(*sk));

	if (!sk) {
		if (ops->free)
			ops->free(priv);
		rf_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	sk->ops = *ops;
	sk->priv = priv;
	return sk;
}

/*
 * The line sinks render each sample from the report's state alone: a copy
 * opened with the same options renders any sample as the sink would (-j).
 * The stack sinks' copies (folded, flamegraph-json, the HTML page, pprof)
 * count their samples, merged before the end.
 * Without the memory for the copy the sink is just not split.
 */
static void splittable(struct rawfrag_sink *sk, const char *name, const char *const *kv,
		       struct rawfrag_out *(*out)(void *priv),
		       int (*merge)(void *priv, void *const *others, int n))
{
	sk->kv = rf_strv__dup(kv);
	if (!sk->kv)
		return;
	sk->lib_name = name;
	sk->out = out;
	sk->merge = merge;
}

struct rawfrag_sink *rawfrag_sink__open(const char *name, const struct rawfrag_sink_opts *opts,
					struct rawfrag_err *err)
{
	struct rawfrag_sink_opts o = { .sz = sizeof(o) };
	struct rawfrag_sink_ops ops = { .sz = sizeof(ops) };
	void *priv = NULL;
	char msg[200];

	if (RF_OPTS_CHECK(opts, rawfrag_sink_opts, err))
		return NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	if (!o.prefix)
		o.prefix = "rawfrag";
	for (size_t i = 0; name && i < NR_SINKS; i++) {
		if (strcmp(sinks[i].name, name))
			continue;
		struct rawfrag_sink *sk;

		if (sinks[i].open(&o, &ops, &priv, err))
			return NULL;
		sk = sink_alloc(&ops, priv, err);
		if (sk && (sinks[i].open == rf_sink_text_open || sinks[i].open == rf_sink_json_open))
			splittable(sk, sinks[i].name, o.kv, rf_lines__out, NULL);
		/* the stack tries: each worker's its samples', merged at the end */
		else if (sk && (sinks[i].open == rf_sink_folded_open ||
				sinks[i].open == rf_sink_flamejson_open))
			splittable(sk, sinks[i].name, o.kv, rf_folded__out, rf_folded__merge);
		else if (sk && sinks[i].open == rf_sink_flamegraph_open)
			splittable(sk, sinks[i].name, o.kv, rf_flamegraph__out, rf_flamegraph__merge);
		else if (sk && sinks[i].open == rf_sink_pprof_open)
			splittable(sk, sinks[i].name, o.kv, rf_pprof_sink__out, rf_pprof_sink__merge);
		else if (sk && sinks[i].open == rf_sink_table_open) {
			splittable(sk, sinks[i].name, o.kv, rf_table__out, rf_table__merge);
			sk->splittable = rf_table__splittable;
			sk->sees_all = rf_table__sees_all;
		}
		return sk;
	}
	snprintf(msg, sizeof(msg), "unknown format '%.40s' (text, json, pcapng, stats, header, table, "
		 "folded, flamegraph-json, flamegraph, pprof, sqlite, clickhouse)",
		 name ? name : "(null)");
	rf_err_set(err, -EINVAL, msg);
	return NULL;
}

struct rawfrag_sink *rawfrag_sink__new(const struct rawfrag_sink_ops *ops, void *priv,
				       struct rawfrag_err *err)
{
	struct rawfrag_sink_ops o = { .sz = sizeof(o) };

	if (!ops) {
		rf_err_set(err, -EINVAL, "rawfrag_sink__new: no ops");
		return NULL;
	}
	if (RF_OPTS_CHECK(ops, rawfrag_sink_ops, err))
		return NULL;
	memcpy(&o, ops, ops->sz < sizeof(o) ? ops->sz : sizeof(o));
	o.sz = sizeof(o);
	if (!o.name)
		o.name = "custom";
	return sink_alloc(&o, priv, err);
}

int rawfrag_sink__schema(const char *name, const struct rawfrag_sink_opts *opts,
			 struct rawfrag_err *err)
{
	static const char *const keys[] = { "cluster", NULL };
	struct rawfrag_sink_opts o = { .sz = sizeof(o) };

	if (RF_OPTS_CHECK(opts, rawfrag_sink_opts, err))
		return -EINVAL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	if (!name || strcmp(name, "clickhouse")) {
		rf_err_set(err, -EOPNOTSUPP, "only the clickhouse output has a schema to print");
		return -EOPNOTSUPP;
	}
	if (rf_sink_opts_known("clickhouse", o.kv, keys, err))
		return -EINVAL;
	return rf_sink_clickhouse_schema(&o, err);
}

void rawfrag_sink__delete(struct rawfrag_sink *sk)
{
	if (!sk)
		return;
	if (sk->ops.free)
		sk->ops.free(sk->priv);
	rf_strv__free(sk->kv);
	free(sk);
}

const char *rawfrag_sink__name(const struct rawfrag_sink *sk)
{
	return sk ? sk->ops.name : NULL;
}

int rawfrag_sink__error(const struct rawfrag_sink *sk)
{
	return sk && sk->ops.error ? sk->ops.error(sk->priv) : 0;
}

/* ---- options ---- */

const char *rf_sink_opt(const char *const *kv, const char *key)
{
	size_t n = strlen(key);
	const char *v = NULL;

	/* the last one wins, as repeated command-line options do */
	for (; kv && *kv; kv++)
		if (!strncmp(*kv, key, n) && ((*kv)[n] == '=' || !(*kv)[n]))
			v = (*kv)[n] ? *kv + n + 1 : "";
	return v;
}

int rf_sink_opts_known(const char *sink, const char *const *kv, const char *const *keys,
		       struct rawfrag_err *err)
{
	char msg[200];

	for (; kv && *kv; kv++) {
		size_t n = strcspn(*kv, "=");
		const char *const *k;

		for (k = keys; *k; k++)
			if (strlen(*k) == n && !strncmp(*k, *kv, n))
				break;
		if (*k)
			continue;
		snprintf(msg, sizeof(msg), "%s output has no option '%.*s'", sink, (int)(n > 60 ? 60 : n),
			 *kv);
		rf_err_set(err, -EINVAL, msg);
		return -EINVAL;
	}
	return 0;
}

int rf_sink_opt_bool(const char *sink, const char *const *kv, const char *key, bool *v,
		     struct rawfrag_err *err)
{
	const char *s = rf_sink_opt(kv, key);
	char msg[200];

	if (!s)
		return 0;
	if (!*s || !strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true")) {
		*v = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false")) {
		*v = false;
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s output: %s=%.40s is not a boolean (1 or 0)", sink, key, s);
	rf_err_set(err, -EINVAL, msg);
	return -EINVAL;
}

int rf_sink_open_fd(const char *path, int fd, struct rawfrag_err *err)
{
	char msg[300];

	if (!path || !strcmp(path, "-"))
		return path ? 1 : (fd > 0 ? fd : 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(e));
		rf_err_set(err, -e, msg);
		return -e;
	}
	return fd;
}

int rf_print_va(rawfrag_print_fn_t print, void *ctx, enum rawfrag_print_level lvl,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = print(lvl, ctx, fmt, ap);
	va_end(ap);
	return n;
}

void rf_sink_note(rawfrag_print_fn_t print, void *ctx, const char *prefix,
		  enum rawfrag_print_level lvl, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (!print)
		return;
	n = snprintf(buf, sizeof(buf), "%s: ", prefix);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	rf_print_va(print, ctx, lvl, "%s\n", buf);
}
