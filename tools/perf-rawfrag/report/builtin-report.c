// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag report: every sample's RAW payload decoded by its producer's
 * decoder, written by one of the library's sinks (<rawfrag/sink.h>): perf
 * script-like text (default), JSON Lines, pcapng, or the call stacks as
 * folded lines, flamegraph.py's JSON or an HTML page; --stats counts records
 * like perf report --stats, --header-only prints the header. This file only
 * turns options into the session's, the report's and the sink's, and exit
 * codes and messages out of their results.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/sink.h>

#include "builtin.h"
#include "util.h"

struct report {
	const char *input, *output;
	const char *format; /* the sink's name */
	bool stats, header, header_only, show_task, force, no_order, hide_cg, ns;
	bool overwrite; /* --format sqlite: replace an existing -o file */
	/* --format clickhouse: the samples' host; print the DDL (for a cluster) */
	const char *host, *cluster;
	bool schema, input_set; /* --schema -i FILE: the file's event tables too */
	const char *fields, *max_stack; /* -F, --max-stack */
	/* the table (--stdio, --sort): perf report's options */
	bool table, show_nr, show_period, quiet, children_set, children;
	const char *sort, *percent_limit, *callgraph;
	const char *hist, *percentage, *sep, *comms, *dsos;
	bool format_set;
	/* the stack formats: stackcollapse.py's options */
	bool sc_kernel, sc_pid, sc_tid, sc_no_comm;
	/* --labels (pprof), --weight (stacks, pprof): comma lists, repeatable */
	char *labels, *weight;
	int verbose, jobs_ran;
	struct rawfrag_machine_opts mopts;
	struct rawfrag_report_opts ropts;
	/* "key=value" options: the decoders' and the sink's */
	const char *dopts[8];
	int nr_dopts;
	const char *kv[16];
	int nr_kv;
	char *owned[24];
	int nr_owned;
	/* samples and losses per CPU, for the loss warning */
	struct rawfrag_tool tap;
	struct rf_loss_cpus *loss;
	bool swap;
};

static const char report_usage[] =
	"\n usage: perf rawfrag report [<options>]\n\n"
	"    -i, --input <file>    input file name, '-' for stdin (default: perf.data)\n"
	"        --stats           record counts per type and event, as perf report --stats\n"
	"        --format <fmt>    text (default), json (JSON Lines), pcapng, folded\n"
	"                          (stackcollapse.py), flamegraph-json (flamegraph.py -f json),\n"
	"                          flamegraph (one offline HTML page, -o page.html), pprof,\n"
	"                          sqlite (a database, -o FILE.db) or clickhouse\n"
	"                          (-o 'http://HOST:8123/?database=DB')\n"
	"        --weight <w>      stacks count samples (default), period or a numeric\n"
	"                          decoded field (names as --where's); pprof: more sample types;\n"
	"                          other formats: the table, Overhead as the field's share\n"
	"        --kernel          folded: _[k] after kernel symbols\n"
	"        --include-pid     folded: comm-PID as the first frame\n"
	"        --include-tid     folded: comm-TID (comm-PID/TID) as the first frame\n"
	"        --no-comm         folded: no comm frame\n"
	"    -o, --output <file>   write here instead of stdout\n"
	"        --overwrite       --format sqlite: replace an existing output file\n"
	"        --host <name>     --format clickhouse: the samples' host (default: the file's)\n"
	"        --schema          --format clickhouse: print the tables' DDL, load nothing\n"
	"                          (with -i: the file's event tables too)\n"
	"        --cluster <name>  with --schema: <table>_local tables and Distributed tables\n"
	"                          over this cluster of the servers' remote_servers\n"
	"    -v, --verbose         all fields in text output (twice: debug messages)\n"
	"    -x, --hex             also show payloads as hex\n"
	"        --meta <spec>     layout of BPF output metadata (decoder option meta=)\n"
	"        --meta-btf <obj:struct>  metadata layout from BTF (decoder option meta_btf=)\n"
	"        --decoder-opt <key=value>  any decoder option (e.g. ibs_layout=old, kallsyms=none)\n"
	"    -f, --force           go on past bad records where the framing allows\n"
	"    -e, --event <names>   only these events (comma list, globs allowed)\n"
	"        --pid <list>      only these process ids (e.g. 1,5-9,-1)\n"
	"        --tid <list>      only these thread ids\n"
	"    -C, --cpu <list>      only these CPUs\n"
	"        --time <range>    start,stop in seconds, or percentages (10%-20%, 10%/2)\n"
	"    -F, --fields <list>   text columns: comm,pid,tid,cpu,time,event,trace,ip,sym,\n"
	"                          symoff,dso,addr,period,iregs,uregs,tod,flags\n"
	"    -G, --hide-call-graph  one line per sample, no call chain\n"
	"        --max-stack <n>   at most n frames per call chain (default 127)\n"
	"        --ns              times with nanoseconds\n"
	"        --show-task-events  also COMM, FORK and EXIT records, as perf script\n"
	"        --header          the file's header first, as perf script --header\n"
	"        --header-only     only the header, as perf report --header-only\n"
	"        --no-inline       no inlined functions in DWARF-unwound chains\n"
	"        --symfs <dir>     look for DSOs and debug files under dir\n"
	"        --kallsyms <file> kernel symbols from this file\n"
	"    -k, --vmlinux <file>  kernel symbols from this vmlinux\n"
	"        --no-order        file order instead of perf script's time order (faster)\n"
	"    -j, --jobs <n>        render or count the samples on n threads, each reading\n"
	"                          the whole file; output as with -j 1 (default: one per\n"
	"                          16 MiB of records, at most the CPUs it may use)\n"
	"        --where <expr>    only samples whose decoded fields match, e.g.\n"
	"                          'prev_state == 1 && next_comm == \"ksoftirqd/*\"'\n"
	"        --stdio           perf report's table (sorted by comm,dso,sym)\n"
	"    -s, --sort <keys>     the table by these keys: comm, pid, tid, dso, sym, cpu,\n"
	"                          trace, trace_fields,\n"
	"                          tracepoint fields ([event.]field[/raw]), decoded fields\n"
	"    -n, --show-nr-samples  the table's Samples column\n"
	"        --show-total-period  the table's Period column\n"
	"        --percent-limit <n>  only table entries of at least n%\n"
	"    -q, --quiet           the table without its '#' lines\n"
	"        --children        the table's Children column (default with call chains)\n"
	"        --no-children     the table's Self column only\n"
	"    -g, --call-graph <type>  the graph under the table's entries, as perf:\n"
	"                          graph|fractal|flat|folded|none[,threshold[,limit]]\n"
	"                          [,caller|callee][,percent|period|count]\n"
	"        --labels <list>   pprof labels: pid,tid,cpu,comm,event, decoded fields\n"
	"        --hist <field>[,log2|linear:<step>]  the field's distribution per event\n"
	"                          (per entry with --sort), as bpftrace's hist()/lhist()\n"
	"    -t, --field-separator <sep>  the table's columns separated by sep, as perf's -t\n"
	"        --percentage <how>  relative or absolute (default): the table's share after\n"
	"                          --comms/--dsos, of the samples kept or of all\n"
	"    -c, --comms <list>    the table's entries of these commands only\n"
	"    -d, --dsos <list>     the table's entries of these shared objects only\n"
	"    -h, --help            show this help\n";

static char *own(struct report *r, char *s)
{
	if (!s)
		return NULL;
	if (r->nr_owned == (int)(sizeof(r->owned) / sizeof(r->owned[0]))) {
		free(s);
		return NULL;
	}
	return r->owned[r->nr_owned++] = s;
}

static char *kvstr(struct report *r, const char *key, const char *val)
{
	char *s;

	if (asprintf(&s, "%s=%s", key, val) < 0)
		return NULL;
	return own(r, s);
}

static int add_dopt(struct report *r, char *d)
{
	if (!d || r->nr_dopts == (int)(sizeof(r->dopts) / sizeof(r->dopts[0])) - 1) {
		rf_errorf("report", "too many decoder options");
		return -EINVAL;
	}
	r->dopts[r->nr_dopts++] = d;
	return 0;
}

static int add_kv(struct report *r, const char *key, const char *val)
{
	char *s = kvstr(r, key, val);

	if (!s || r->nr_kv == (int)(sizeof(r->kv) / sizeof(r->kv[0])) - 1)
		return -ENOMEM;
	r->kv[r->nr_kv++] = s;
	return 0;
}

/* LOST and LOST_SAMPLES per CPU, before the report's selection */
static int tap_lost(struct rawfrag_tool *tool, struct rawfrag_session *s,
		    const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)((char *)tool - offsetof(struct report, tap));

	rf_loss_cpus__lost(r->loss, ev->rec, ev->sample, r->swap);
	return 0;
}

/* perf report's table: the "table" sink */
static int table_options(struct report *r)
{
	if ((r->weight && add_kv(r, "weight", r->weight)) ||
	    (r->hist && add_kv(r, "hist", r->hist)) ||
	    (r->percentage && add_kv(r, "percentage", r->percentage)) ||
	    (r->sep && add_kv(r, "field_separator", r->sep)) ||
	    (r->comms && add_kv(r, "comms", r->comms)) ||
	    (r->dsos && add_kv(r, "dsos", r->dsos)) ||
	    (r->ropts.pids && add_kv(r, "pids", r->ropts.pids)) ||
	    (r->ropts.tids && add_kv(r, "tids", r->ropts.tids)) ||
	    (r->format_set && add_kv(r, "format", r->format)))
		return -ENOMEM;
	/* perf report's --pid/--tid filter the table's entries, not the samples */
	r->ropts.pids = r->ropts.tids = NULL;
	r->format = "table";
	if ((r->sort && add_kv(r, "sort", r->sort)) ||
	    (r->show_nr && add_kv(r, "show_nr_samples", "1")) ||
	    (r->show_period && add_kv(r, "show_total_period", "1")) ||
	    (r->quiet && add_kv(r, "quiet", "1")) ||
	    (r->percent_limit && add_kv(r, "percent_limit", r->percent_limit)) ||
	    (r->callgraph && add_kv(r, "callgraph", r->callgraph)) ||
	    (r->max_stack && add_kv(r, "max_stack", r->max_stack)) ||
	    (r->children_set && add_kv(r, "children", r->children ? "1" : "0")))
		return -ENOMEM;
	return 0;
}

static bool stack_format(const char *f)
{
	return !strcmp(f, "folded") || !strcmp(f, "flamegraph-json") || !strcmp(f, "flamegraph");
}

/* folded, flamegraph-json, flamegraph: the stack sinks */
static int stack_options(struct report *r)
{
	if ((r->sc_kernel && add_kv(r, "kernel", "1")) ||
	    (r->sc_pid && add_kv(r, "include_pid", "1")) ||
	    (r->sc_tid && add_kv(r, "include_tid", "1")) ||
	    (r->sc_no_comm && add_kv(r, "no_comm", "1")) ||
	    (r->weight && add_kv(r, "weight", r->weight)) ||
	    (r->max_stack && add_kv(r, "max_stack", r->max_stack)))
		return -ENOMEM;
	return 0;
}

/* a comma list that --labels or --weight given again extends */
static int append_list(struct report *r, char **list, const char *arg)
{
	char *s;

	if (asprintf(&s, "%s%s%s", *list ? *list : "", *list ? "," : "", arg) < 0 || !own(r, s)) {
		rf_errorf("report", "out of memory");
		return -ENOMEM;
	}
	*list = s;
	return 0;
}

/*
 * --format sqlite loads into FILE.tmp-PID, renamed to FILE at the end; an
 * interrupt removes it (the library keeps no signal handler of its own).
 */
static char sqlite_tmp[4200];

static void sqlite_interrupted(int sig)
{
	if (sqlite_tmp[0])
		unlink(sqlite_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int clickhouse_options(struct report *r)
{
	if ((r->host && add_kv(r, "host", r->host)) || (r->cluster && add_kv(r, "cluster", r->cluster)) ||
	    (r->schema && r->input_set && add_kv(r, "schema", "1")) ||
	    (r->max_stack && add_kv(r, "max_stack", r->max_stack)))
		return -ENOMEM;
	return 0;
}

static int sqlite_options(struct report *r)
{
	if (!r->output)
		return 0; /* the sink says it needs -o */
	if (snprintf(sqlite_tmp, sizeof(sqlite_tmp), "%s.tmp-%d", r->output, (int)getpid()) >=
	    (int)sizeof(sqlite_tmp))
		return -ENOMEM;
	if (add_kv(r, "tmp", sqlite_tmp) || (r->overwrite && add_kv(r, "overwrite", "1")) ||
	    (r->max_stack && add_kv(r, "max_stack", r->max_stack)))
		return -ENOMEM;
	signal(SIGINT, sqlite_interrupted);
	signal(SIGTERM, sqlite_interrupted);
	signal(SIGHUP, sqlite_interrupted);
	return 0;
}

/* the sink's name and options from report's own */
static int sink_options(struct report *r)
{
	bool text = !strcmp(r->format, "text"), lines = text || !strcmp(r->format, "json");

	if (!strcmp(r->format, "pprof"))
		return (r->labels && add_kv(r, "labels", r->labels)) ||
		       (r->weight && add_kv(r, "weight", r->weight)) ||
		       (r->max_stack && add_kv(r, "max_stack", r->max_stack)) ? -ENOMEM : 0;

	if (!strcmp(r->format, "sqlite"))
		return sqlite_options(r);
	if (!strcmp(r->format, "clickhouse"))
		return clickhouse_options(r);

	if (r->header_only)
		r->format = "header";
	else if (r->table && !r->stats)
		return table_options(r);
	else if (r->stats)
		r->format = "stats";
	else if (stack_format(r->format))
		return stack_options(r);
	if (r->header_only || (text && r->header && !r->stats))
		if (add_kv(r, "input", r->input))
			return -ENOMEM;
	if (r->stats || r->header_only || !lines)
		return 0;
	if ((r->fields && add_kv(r, "fields", r->fields)) ||
	    (r->hide_cg && add_kv(r, "callchain", "0")) ||
	    (r->max_stack && add_kv(r, "max_stack", r->max_stack)))
		return -ENOMEM;
	if (text && ((r->verbose && add_kv(r, "verbose", "1")) ||
		     (r->ns && add_kv(r, "ns", "1")) ||
		     (r->show_task && add_kv(r, "tasks", "1")) ||
		     (r->header && add_kv(r, "header", "1"))))
		return -ENOMEM;
	return 0;
}

/*
 * After the walk: the write error, the ordering queue (-vv), the samples
 * skipped with -f and the losses, as perf says them.
 */
static int report_after(struct report *r, struct rawfrag_session *sess, struct rawfrag_sink *sk)
{
	int ret = rawfrag_sink__error(sk);

	/* reader closed early (| head): not an error */
	if (ret && ret != -EPIPE) {
		rf_errorf("report", "write error: %s", strerror(-ret));
		return RF_EXIT_USAGE;
	}
	if (r->header_only)
		return RF_EXIT_OK;
	if (r->verbose >= 2 && r->jobs_ran > 1)
		fprintf(stderr, "perf rawfrag report: %d jobs rendered the samples\n", r->jobs_ran);
	if (!r->stats && !r->no_order && r->verbose >= 2) {
		struct rawfrag_process_stats ps = { .sz = sizeof(ps) };

		rawfrag_session__process_stats(sess, &ps);
		fprintf(stderr, "perf rawfrag report: the ordering queue held at most %" PRIu64
			" records\n", ps.queue_peak);
	}
	return RF_EXIT_OK;
}

/* a report error: about the input (it has a place in the file) or about the options */
static void print_report_err(struct report *r, const struct rawfrag_err *err)
{
	if (err->offset >= 0 || err->rec_type)
		rf_print_err("report", r->input, err);
	else
		rf_errorf("report", "%s", err->reason);
}

static int run_report(struct report *r, struct rawfrag_session *sess, struct rawfrag_sink *sk,
		      struct rawfrag_err *err)
{
	struct rawfrag_report *rep;
	int ret, rc = RF_EXIT_USAGE;

	rep = rawfrag_report__new(sess, &r->ropts, err);
	if (!rep) {
		print_report_err(r, err);
		return RF_EXIT_USAGE;
	}
	ret = rawfrag_report__start(rep, sk, err);
	if (ret < 0) {
		rawfrag_report__finish(rep, ret, err);
		print_report_err(r, err);
		goto out;
	}
	if (!ret)
		ret = rawfrag_report__run(rep, err);
	if (ret < 0) {
		struct rawfrag_err run_err = *err;

		rawfrag_report__finish(rep, ret, err);
		rf_print_err("report", r->input, &run_err);
		goto out;
	}
	if (rawfrag_report__finish(rep, 0, err)) {
		print_report_err(r, err);
		goto out;
	}
	r->jobs_ran = rawfrag_report__jobs(rep);
	rc = report_after(r, sess, sk);
	if (rc || r->header_only)
		goto out;
	if (rawfrag_report__nr_skipped(rep))
		fprintf(stderr, "perf rawfrag report: skipped %" PRIu64 " bad samples (--force)\n",
			rawfrag_report__nr_skipped(rep));
	/* what was read: the per-CPU lines and the totals cover the same records */
	for (int i = 0; i <= rawfrag_report__max_cpu(rep) && i < RF_LOSS_MAX_CPUS; i++)
		r->loss->c[i].samples = rawfrag_report__cpu_samples(rep, (uint32_t)i);
	if (rawfrag_report__max_cpu(rep) > r->loss->max)
		r->loss->max = rawfrag_report__max_cpu(rep) < RF_LOSS_MAX_CPUS ?
				       rawfrag_report__max_cpu(rep) : RF_LOSS_MAX_CPUS - 1;
	rf_loss_warn("report", r->input, sess, r->loss);
out:
	rawfrag_report__delete(rep);
	return rc;
}

static int run(struct report *r)
{
	struct rf_print_ctx pc = { .verbose = r->verbose };
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = rf_lib_print, .print_ctx = &pc,
		     .force = r->force);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = rf_lib_print, .print_ctx = &pc,
		     .dopts = r->dopts);
	RAWFRAG_OPTS(rawfrag_sink_opts, kopts, .path = r->output, .kv = r->kv,
		     .print = rf_lib_print, .print_ctx = &pc, .prefix = "perf rawfrag report");
	struct rawfrag_err err = { .offset = -1 };
	struct rawfrag_session *sess = NULL;
	struct rawfrag_file *file = NULL;
	struct rawfrag_sink *sk;
	int rc = RF_EXIT_USAGE;

	r->dopts[r->nr_dopts] = NULL;
	r->kv[r->nr_kv] = NULL;
	sk = rawfrag_sink__open(r->format, &kopts, &err);
	if (!sk) {
		rf_errorf("report", "%s", err.reason);
		return RF_EXIT_USAGE;
	}
	file = rawfrag_file__open(r->input, &fopts, &err);
	if (file)
		sess = rawfrag_session__new(file, &sopts, &err);
	r->loss = rf_loss_cpus__new();
	if (!sess || !r->loss) {
		if (!r->loss)
			err = (struct rawfrag_err){ .err = -ENOMEM, .offset = -1, .reason = "out of memory" };
		rf_print_err("report", r->input, &err);
		goto out;
	}
	r->swap = rawfrag_file__needs_swap(file);
	r->tap = (struct rawfrag_tool){ .sz = sizeof(r->tap), .lost = tap_lost,
					.lost_samples = tap_lost };
	r->mopts.sz = sizeof(r->mopts);
	r->mopts.print = rf_lib_print;
	r->mopts.print_ctx = &pc;
	r->ropts.sz = sizeof(r->ropts);
	r->ropts.force = r->force;
	r->ropts.no_order = r->no_order;
	r->ropts.machine = &r->mopts;
	r->ropts.print = rf_lib_print;
	r->ropts.print_ctx = &pc;
	r->ropts.tap = &r->tap;
	if (!r->ropts.jobs) /* no -j */
		r->ropts.jobs = RAWFRAG_REPORT_JOBS_AUTO;
	rc = run_report(r, sess, sk, &err);
out:
	rawfrag_sink__delete(sk);
	rawfrag_session__delete(sess);
	rawfrag_file__close(file);
	free(r->loss);
	return rc;
}

/* --schema: the DDL to standard output, no input read */
static int schema(struct report *r)
{
	RAWFRAG_OPTS(rawfrag_sink_opts, kopts, .path = r->output, .fd = 1, .kv = r->kv,
		     .print = rf_lib_print, .prefix = "perf rawfrag report");
	struct rawfrag_err err = { .offset = -1 };

	r->kv[r->nr_kv] = NULL;
	if (rawfrag_sink__schema(r->format, &kopts, &err)) {
		rf_errorf("report", "%s", err.reason);
		return RF_EXIT_USAGE;
	}
	return RF_EXIT_OK;
}

enum { O_STATS = 256, O_FORMAT, O_META, O_META_BTF, O_PID, O_TID, O_TIME, O_NO_ORDER,
       O_DECODER_OPT, O_MAX_STACK, O_NS, O_SYMFS, O_KALLSYMS, O_SHOW_TASK, O_NO_INLINE,
       O_WHERE, O_HEADER, O_HEADER_ONLY, O_STDIO, O_SHOW_PERIOD, O_PERCENT_LIMIT,
       O_CHILDREN, O_NO_CHILDREN, O_WEIGHT, O_SC_KERNEL, O_SC_PID, O_SC_TID, O_SC_NO_COMM,
       O_LABELS, O_OVERWRITE, O_HIST, O_PERCENTAGE,
       O_HOST, O_SCHEMA, O_CLUSTER };

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "stats", no_argument, NULL, O_STATS },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "overwrite", no_argument, NULL, O_OVERWRITE },
	{ "host", required_argument, NULL, O_HOST },
	{ "schema", no_argument, NULL, O_SCHEMA },
	{ "cluster", required_argument, NULL, O_CLUSTER },
	{ "verbose", no_argument, NULL, 'v' },
	{ "hex", no_argument, NULL, 'x' },
	{ "meta", required_argument, NULL, O_META },
	{ "meta-btf", required_argument, NULL, O_META_BTF },
	{ "decoder-opt", required_argument, NULL, O_DECODER_OPT },
	{ "force", no_argument, NULL, 'f' },
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, O_PID },
	{ "tid", required_argument, NULL, O_TID },
	{ "cpu", required_argument, NULL, 'C' },
	{ "time", required_argument, NULL, O_TIME },
	{ "fields", required_argument, NULL, 'F' },
	{ "no-order", no_argument, NULL, O_NO_ORDER },
	{ "hide-call-graph", no_argument, NULL, 'G' },
	{ "max-stack", required_argument, NULL, O_MAX_STACK },
	{ "ns", no_argument, NULL, O_NS },
	{ "show-task-events", no_argument, NULL, O_SHOW_TASK },
	{ "no-inline", no_argument, NULL, O_NO_INLINE },
	{ "symfs", required_argument, NULL, O_SYMFS },
	{ "kallsyms", required_argument, NULL, O_KALLSYMS },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "where", required_argument, NULL, O_WHERE },
	{ "header", no_argument, NULL, O_HEADER },
	{ "header-only", no_argument, NULL, O_HEADER_ONLY },
	{ "stdio", no_argument, NULL, O_STDIO },
	{ "sort", required_argument, NULL, 's' },
	{ "show-nr-samples", no_argument, NULL, 'n' },
	{ "show-total-period", no_argument, NULL, O_SHOW_PERIOD },
	{ "percent-limit", required_argument, NULL, O_PERCENT_LIMIT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "children", no_argument, NULL, O_CHILDREN },
	{ "no-children", no_argument, NULL, O_NO_CHILDREN },
	{ "call-graph", required_argument, NULL, 'g' },
	{ "weight", required_argument, NULL, O_WEIGHT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "hist", required_argument, NULL, O_HIST },
	{ "field-separator", required_argument, NULL, 't' },
	{ "percentage", required_argument, NULL, O_PERCENTAGE },
	{ "comms", required_argument, NULL, 'c' },
	{ "dsos", required_argument, NULL, 'd' },
	{ "kernel", no_argument, NULL, O_SC_KERNEL },
	{ "include-pid", no_argument, NULL, O_SC_PID },
	{ "include-tid", no_argument, NULL, O_SC_TID },
	{ "no-comm", no_argument, NULL, O_SC_NO_COMM },
	{ "labels", required_argument, NULL, O_LABELS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* one option; 0, or -EINVAL after saying why (1 for --help) */
static int parse_jobs(struct report *r, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 1 || n > RAWFRAG_REPORT_MAX_JOBS) {
		rf_errorf("report", "bad --jobs '%s' (a number from 1 to %d)", arg,
			  RAWFRAG_REPORT_MAX_JOBS);
		return -EINVAL;
	}
	r->ropts.jobs = (int)n;
	return 0;
}

static int parse_one(struct report *r, int opt, const char *arg)
{
	switch (opt) {
	case 'i': r->input = arg; r->input_set = true; break;
	case 'o': r->output = arg; break;
	case O_OVERWRITE: r->overwrite = true; break;
	case O_HOST: r->host = arg; break;
	case O_SCHEMA: r->schema = true; break;
	case O_CLUSTER: r->cluster = arg; break;
	case O_STATS: r->stats = true; break;
	case O_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json") && strcmp(arg, "pcapng") &&
		    !stack_format(arg) && strcmp(arg, "pprof") &&
		    strcmp(arg, "sqlite") && strcmp(arg, "clickhouse")) {
			rf_errorf("report", "unknown format '%s' (text, json, pcapng, folded, "
				  "flamegraph-json, flamegraph, pprof, sqlite, clickhouse)", arg);
			return -EINVAL;
		}
		r->format = arg;
		r->format_set = true;
		break;
	case 'v': r->verbose++; break;
	case 'x': return add_dopt(r, kvstr(r, "hex", "1"));
	case O_META: return add_dopt(r, kvstr(r, "meta", arg));
	case O_META_BTF: return add_dopt(r, kvstr(r, "meta_btf", arg));
	case O_DECODER_OPT:
		if (!strchr(arg, '=') || arg[0] == '=') {
			rf_errorf("report", "bad decoder option '%s' (want key=value)", arg);
			return -EINVAL;
		}
		return add_dopt(r, own(r, strdup(arg)));
	case 'f': r->force = true; break;
	case O_NO_ORDER: r->no_order = true; break;
	case O_WHERE: r->ropts.where = arg; break;
	case 'e': r->ropts.events = arg; break;
	case O_PID: r->ropts.pids = arg; break;
	case O_TID: r->ropts.tids = arg; break;
	case 'C': r->ropts.cpus = arg; break;
	case O_TIME: r->ropts.time = arg; break;
	case 'F': r->fields = arg; break;
	case 'G': r->hide_cg = true; break;
	case O_NS: r->ns = true; break;
	case O_SHOW_TASK: r->show_task = true; break;
	case O_HEADER: r->header = true; break;
	case O_HEADER_ONLY: r->header_only = true; break;
	case O_NO_INLINE: r->mopts.no_inline = true; break;
	case O_SYMFS: r->mopts.symfs = arg; break;
	case O_KALLSYMS: r->mopts.kallsyms = arg; break;
	case 'k': r->mopts.vmlinux = arg; break;
	case O_MAX_STACK: r->max_stack = arg; break;
	case O_STDIO: r->table = true; break;
	case 's': r->table = true; r->sort = arg; break;
	case 'n': r->show_nr = true; break;
	case O_SHOW_PERIOD: r->show_period = true; break;
	case O_PERCENT_LIMIT: r->percent_limit = arg; break;
	case 'q': r->quiet = true; break;
	case O_CHILDREN: r->children_set = r->children = true; break;
	case O_NO_CHILDREN: r->children_set = true; r->children = false; break;
	case 'g': r->callgraph = arg; break;
	/* the table's own; --hist makes the table alone (so does --weight without a stack format) */
	case O_HIST: r->table = true; r->hist = arg; break;
	case 't': r->sep = arg; break;
	case O_PERCENTAGE:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute")) {
			rf_errorf("report", "--percentage %s: relative or absolute", arg);
			return -EINVAL;
		}
		r->percentage = arg;
		break;
	case 'c': r->comms = arg; break;
	case 'd': r->dsos = arg; break;
	case O_SC_KERNEL: r->sc_kernel = true; break;
	case O_SC_PID: r->sc_pid = true; break;
	case O_SC_TID: r->sc_tid = true; break;
	case O_SC_NO_COMM: r->sc_no_comm = true; break;
	case O_LABELS: return append_list(r, &r->labels, arg);
	case O_WEIGHT: return append_list(r, &r->weight, arg);
	case 'j': return parse_jobs(r, arg);
	case 'h':
		fputs(report_usage, stdout);
		return 1;
	default:
		rf_errorf("report", "unknown option or missing argument '%s'", arg);
		fputs(report_usage, stderr);
		return -EINVAL;
	}
	return 0;
}

/* the combinations report refuses */
static int check_combinations(struct report *r)
{
	bool text = !strcmp(r->format, "text");

	if (r->ropts.where && r->stats) {
		rf_errorf("report", "--where and --stats do not go together");
		return -EINVAL;
	}
	if (r->header && !r->header_only && (!text || r->stats)) {
		rf_errorf("report", "--header goes with text output (not --format json/pcapng or "
				    "--stats); --header-only prints the header alone");
		return -EINVAL;
	}
	if (r->weight && r->stats) {
		rf_errorf("report", "--weight does not go with --stats");
		return -EINVAL;
	}
	if (r->table && (r->stats || (strcmp(r->format, "text") && strcmp(r->format, "json")))) {
		rf_errorf("report", "the table (--stdio, --sort, --hist; --weight without a stack "
				    "format) goes with --format text or json, not --stats");
		return -EINVAL;
	}
	if (!r->table && (r->show_nr || r->show_period || r->quiet || r->percent_limit ||
			  r->children_set || r->callgraph || r->sep || r->percentage ||
			  r->comms || r->dsos)) {
		rf_errorf("report", "-n, --show-total-period, -q, --percent-limit, --children, "
				    "-g, -t, --percentage, --comms and --dsos go with the table "
				    "(--stdio or --sort)");
		return -EINVAL;
	}
	if ((r->sc_kernel || r->sc_pid || r->sc_tid || r->sc_no_comm) &&
	    (strcmp(r->format, "folded") || r->stats || r->table)) {
		rf_errorf("report", "--kernel, --include-pid, --include-tid and --no-comm go with "
				    "--format folded");
		return -EINVAL;
	}
	if (r->weight && (stack_format(r->format) || !strcmp(r->format, "pprof")) && r->table) {
		rf_errorf("report", "--weight with --format %s weights its stacks: not with the "
				    "table (--stdio, --sort, --hist)", r->format);
		return -EINVAL;
	}
	if (r->labels && strcmp(r->format, "pprof")) {
		rf_errorf("report", "--labels goes with --format pprof");
		return -EINVAL;
	}
	if (stack_format(r->format) && (r->stats || r->header || r->fields || r->hide_cg)) {
		rf_errorf("report", "--format %s does not go with --stats, --header, -F or -G",
			  r->format);
		return -EINVAL;
	}
	if (!strcmp(r->format, "pprof") && (r->stats || r->header_only || r->fields ||
					      r->hide_cg || r->ns || r->show_task)) {
		rf_errorf("report", "--format pprof does not go with --stats, --header-only, -F, "
				    "-G, --ns or --show-task-events");
		return -EINVAL;
	}
	if (!strcmp(r->format, "pprof") && !r->output) {
		rf_errorf("report", "--format pprof writes a gzipped file: give it with -o "
				    "(-o - for standard output)");
		return -EINVAL;
	}
	if (r->overwrite && strcmp(r->format, "sqlite")) {
		rf_errorf("report", "--overwrite goes with --format sqlite");
		return -EINVAL;
	}
	if (!strcmp(r->format, "sqlite") && (r->stats || r->header_only || r->header)) {
		rf_errorf("report", "--format sqlite does not go with --stats or --header");
		return -EINVAL;
	}
	if ((r->host || r->schema) && strcmp(r->format, "clickhouse")) {
		rf_errorf("report", "--host and --schema go with --format clickhouse");
		return -EINVAL;
	}
	if (r->cluster && !r->schema) {
		rf_errorf("report", "--cluster goes with --schema (a load goes through the "
				    "Distributed tables --schema --cluster made)");
		return -EINVAL;
	}
	if (r->schema && r->host) {
		rf_errorf("report", "--schema loads nothing: --host does not go with it");
		return -EINVAL;
	}
	if (!strcmp(r->format, "clickhouse") &&
	    (r->stats || r->header_only || r->header || r->table || r->fields || r->hide_cg)) {
		rf_errorf("report", "--format clickhouse does not go with --stats, --header, "
				    "the table or -F/-G");
		return -EINVAL;
	}
	if (!strcmp(r->format, "pcapng") && r->stats) {
		rf_errorf("report", "--stats and --format pcapng do not go together");
		return -EINVAL;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { .input = "perf.data", .format = "text" };
	int opt, rc = RF_EXIT_USAGE, ret = 0;

	optind = 1;
	opterr = 0;
	while (!ret && (opt = getopt_long(argc, argv, "i:o:vxfe:C:F:Gk:hs:nqg:t:c:d:j:", longopts, NULL)) != -1)
		ret = parse_one(&r, opt, opt == '?' || opt == ':' ? argv[optind - 1] : optarg);
	if (ret) {
		rc = ret > 0 ? RF_EXIT_OK : RF_EXIT_USAGE;
		goto out;
	}
	if (optind < argc) {
		rf_errorf("report", "unexpected argument '%s' (the input is given with -i)",
			  argv[optind]);
		goto out;
	}
	/* --weight without a stack format or pprof is the table's */
	if (r.weight && !stack_format(r.format) && strcmp(r.format, "pprof") && !r.stats)
		r.table = true;
	if (check_combinations(&r))
		goto out;
	if (sink_options(&r)) {
		rf_errorf("report", "out of memory");
		goto out;
	}
	/* a closed pipe is a write error (EPIPE) that ends the output quietly */
	signal(SIGPIPE, SIG_IGN);
	rc = r.schema && !r.input_set ? schema(&r) : run(&r);
out:
	for (int i = 0; i < r.nr_owned; i++)
		free(r.owned[i]);
	return rc;
}
