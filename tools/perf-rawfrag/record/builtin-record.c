// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag record: record raw-sample events into perf.data. Option parsing
 * only; the engine is record.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <unistd.h>

#include <rawfrag/skbdump.h>

#include "builtin.h"
#include "record.h"
#include "skb.h"

static const char record_usage[] =
	"\n usage: perf rawfrag record [<options>] [-- <command> [<args>]]\n\n"
	"    -e, --event <event>   event to record (repeatable, comma lists): sys:name (globs),\n"
	"                          software/hardware names, pmu/term=value,.../\n"
	"        --filter <expr>   tracepoint filter for the preceding -e (packet filter with --skb)\n"
	"    -a, --all-cpus        system-wide collection from all CPUs\n"
	"    -C, --cpu <cpus>      list of CPUs to record (0-3,5)\n"
	"    -p, --pid <pid>       record existing process ids (comma list)\n"
	"    -t, --tid <tid>       record existing thread ids (comma list)\n"
	"    -o, --output <file>   output file (default perf.data, '-' = pipe mode to stdout)\n"
	"    -m, --mmap-pages <n>  ring size in pages per CPU (power of two; default as perf:\n"
	"                          perf_event_mlock_kb less a page, 128 pages for 516 KiB)\n"
	"    -r, --realtime <prio> the recorder's SCHED_FIFO priority (default 1 when allowed;\n"
	"                          0 or --no-realtime: normal scheduling)\n"
	"    -c, --count <n>       sample period\n"
	"    -F, --freq <n>        sample frequency\n"
	"    -g                    record call chains (frame pointers)\n"
	"        --call-graph <mode>  fp, dwarf[,SIZE] (user regs + stack, default 8192) or lbr\n"
	"        --user-regs[=<regs>] sample user registers (default all; '=?' lists them)\n"
	"    -I, --intr-regs[=<regs>] sample registers at the interrupt (default all)\n"
	"    -T, --timestamp       sample timestamps (always on)\n"
	"    -d, --data            sample data addresses (PERF_SAMPLE_ADDR)\n"
	"    -k, --clockid <clock> clock of the timestamps (default CLOCK_MONOTONIC)\n"
	"    -z, --compression-level[=<n>] zstd-compress the data (default level 1, max 22)\n"
	"    -N, --no-buildid-cache   do not copy the binaries into ~/.debug\n"
	"    -B, --no-buildid      no BUILD_ID feature (implies -N)\n"
	"        --buildid-all     build-ids of every mapped DSO, not only those with samples\n"
	"        --threads[=<spec>] a perf.data/ directory written by parallel threads, one\n"
	"                          per cpu, core, package or numa node (default cpu)\n"
	"        --duration <s>    stop after this many seconds\n"
	"    -q, --quiet           no summary\n"
	"    -v, --verbose         more messages (--skb: how the filter runs)\n"
	"        --skb <ifaces>    dump packets of these interfaces with BPF (comma list)\n"
	"        --hook <hooks>    --skb attach points: socket, tc-ingress, tc-egress, xdp,\n"
	"                          xdp-entry, xdp-exit (xdp on an interface with its own XDP\n"
	"                          program: fentry/fexit on it, at its entry and exit)\n"
	"        --snaplen <n>     --skb bytes per packet (default 256, 0 = the largest, 65436)\n"
	"    -h, --help            this help\n\n";

enum {
	OPT_FILTER = 256, OPT_DURATION, OPT_SKB, OPT_HOOK, OPT_SNAPLEN, OPT_CALL_GRAPH,
	OPT_USER_REGS, OPT_BUILDID_ALL, OPT_NO_REALTIME, OPT_THREADS,
};

static const struct option record_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "realtime", required_argument, NULL, 'r' },
	{ "no-realtime", no_argument, NULL, OPT_NO_REALTIME },
	{ "count", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "user-regs", optional_argument, NULL, OPT_USER_REGS },
	{ "intr-regs", optional_argument, NULL, 'I' },
	{ "timestamp", no_argument, NULL, 'T' },
	{ "data", no_argument, NULL, 'd' },
	{ "clockid", required_argument, NULL, 'k' },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "buildid-all", no_argument, NULL, OPT_BUILDID_ALL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "threads", optional_argument, NULL, OPT_THREADS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "skb", required_argument, NULL, OPT_SKB },
	{ "hook", required_argument, NULL, OPT_HOOK },
	{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* -e and --filter in command-line order: a filter belongs to the -e before it */
struct ev_op {
	bool filter;
	const char *arg;
};

static int bad_number(const char *opt, const char *arg)
{
	fprintf(stderr, "perf rawfrag record: %s: bad number '%s'\n", opt, arg);
	return RF_EXIT_USAGE;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end && s[0] != '-';
}

/*
 * A packet dump larger than a quarter of the ring: the kernel wakes us at a
 * quarter, so a few such packets fill the ring and the next ones are dropped.
 */
static void warn_snaplen(const struct record_opts *o, const struct skb_opts *so)
{
	unsigned int snaplen = so->snaplen ? so->snaplen : RAWFRAG_SKB_SNAPLEN_DEFAULT;
	uint64_t quarter = (uint64_t)(o->mmap_pages ? o->mmap_pages : record_opts__default_pages()) *
			   (uint64_t)sysconf(_SC_PAGESIZE) / 4;
	/* header, IDENTIFIER, IP, TID, TIME, CPU, raw size, then meta + packet */
	uint64_t need = 8 + 5 * 8 + 4 + sizeof(struct rawfrag_skb_meta) + snaplen;

	if (so->ifaces && need > quarter)
		fprintf(stderr, "perf rawfrag record: warning: --snaplen %u + %zu bytes of meta do not "
			"fit in a quarter of the %" PRIu64 "-byte ring: packets will be dropped when it "
			"fills (raise -m)\n", snaplen, sizeof(struct rawfrag_skb_meta), quarter * 4);
}

static int run(struct record_opts *o, struct ev_op *ops, int nr_ops, struct skb_opts *so)
{
	struct record *rec = record__new(o);
	int err = 0, nr_ev = 0, status;

	if (!rec) {
		fprintf(stderr, "perf rawfrag record: out of memory\n");
		return RF_EXIT_USAGE;
	}
	warn_snaplen(o, so);
	for (int i = 0; i < nr_ops; i++)
		nr_ev += !ops[i].filter;
	/* --skb alone: a dummy event only tracks tasks (comm, mmap), as perf's dummy:HG */
	if (so->ifaces && !nr_ev)
		err = record__add_events(rec, "dummy");
	for (int i = 0; !err && i < nr_ops; i++) {
		if (!ops[i].filter)
			err = record__add_events(rec, ops[i].arg);
		else if (!so->ifaces)
			err = record__set_filter(rec, ops[i].arg);
	}
	if (!err)
		err = record__prepare(rec);
	if (!err && so->ifaces)
		err = skb_record_setup(rec, so);
	if (!err)
		err = record__run(rec);
	/* perf record's status: the workload's, unless recording itself failed */
	status = err ? RF_EXIT_USAGE : record__exit_status(rec);
	record__delete(rec);
	return status;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "perf rawfrag record: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see 'perf rawfrag record -h')\n");
	va_end(ap);
	return RF_EXIT_USAGE;
}

/* getopt's '?' and ':' as one message naming the option */
static int getopt_error(int c, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	char s[3] = { '-', (char)optopt, 0 };

	if (c == ':')
		return usage_error("option '%s' needs an argument", optopt && optopt < 256 ? s : arg);
	if (optopt && optopt < 256)
		return usage_error("unknown option '%s'", s);
	return usage_error("unknown option '%s'", arg);
}

static int parse_number_opt(int c, const char *arg, struct record_opts *o, struct skb_opts *so)
{
	uint64_t v;
	char *end;

	switch (c) {
	case 'm':
		if (!parse_u64(arg, &v) || !v || (v & (v - 1)) || v > (1u << 20)) {
			fprintf(stderr, "perf rawfrag record: -m: '%s' is not a power of two number of pages\n",
				arg);
			return RF_EXIT_USAGE;
		}
		o->mmap_pages = v;
		return 0;
	case 'c':
		return parse_u64(arg, &o->period) && o->period ? 0 : bad_number("-c", arg);
	case 'F':
		return parse_u64(arg, &o->freq) && o->freq ? 0 : bad_number("-F", arg);
	case 'z':
		if (!arg) {
			o->comp_level = 1;
			return 0;
		}
		if (!parse_u64(arg, &v) || !v || v > 22)
			return bad_number("-z (1..22)", arg);
		o->comp_level = (int)v;
		return 0;
	case OPT_DURATION:
		o->duration = strtod(arg, &end);
		return end == arg || *end || o->duration <= 0 ? bad_number("--duration", arg) : 0;
	case OPT_SNAPLEN:
		if (!parse_u64(arg, &v) || v > 65535)
			return bad_number("--snaplen", arg);
		/* 0: as tcpdump -s 0, the whole packet (up to what a sample holds) */
		so->snaplen = v ? v : RAWFRAG_SKB_SNAPLEN_MAX;
		return 0;
	}
	return RF_EXIT_USAGE;
}

/* one option; 0 = go on, -1 = stop with status 0 (help), else the exit status */
static int parse_opt(int c, const char *arg, struct record_opts *o, struct skb_opts *so)
{
	int r;

	switch (c) {
	case 'a': o->system_wide = true; return 0;
	case 'C': o->cpu_list = arg; return 0;
	case 'p': o->pid = arg; return 0;
	case 't': o->tid = arg; return 0;
	case 'o': o->output = arg; return 0;
	case 'g': o->callchain = true; o->cg_mode = RF_CG_FP; return 0;
	case 'q': o->quiet = true; return 0;
	case 'v': so->verbose++; return 0;
	case 'T': return 0; /* TIME is always sampled */
	case 'd': o->sample_addr = true; return 0;
	case 'N': o->no_buildid_cache = true; return 0;
	case 'B': o->no_buildid = true; return 0;
	case OPT_BUILDID_ALL: o->buildid_all = true; return 0;
	case OPT_SKB: so->ifaces = arg; return 0;
	case OPT_HOOK: so->hooks = arg; return 0;
	case 'k': return record_opts__clockid(o, arg) ? RF_EXIT_USAGE : 0;
	case 'r':
	case OPT_NO_REALTIME:
		return record_opts__realtime(o, c == 'r' ? arg : NULL) ? RF_EXIT_USAGE : 0;
	case OPT_CALL_GRAPH: return record_opts__call_graph(o, arg) ? RF_EXIT_USAGE : 0;
	case OPT_THREADS: return record_opts__threads(o, arg) ? RF_EXIT_USAGE : 0;
	case OPT_USER_REGS:
	case 'I':
		r = record_opts__regs(c == 'I' ? &o->intr_regs : &o->user_regs, arg,
				      c == 'I' ? "--intr-regs" : "--user-regs", c == 'I');
		return r > 0 ? -1 : r ? RF_EXIT_USAGE : 0;
	case 'h':
		fputs(record_usage, stdout);
		return -1;
	}
	return parse_number_opt(c, arg, o, so);
}

/* options that exclude each other, checked before anything is opened or written */
static int check_conflicts(const struct record_opts *o, const struct skb_opts *so)
{
	if (o->period && o->freq)
		return usage_error("%s exclude each other", "-c and -F");
	if ((so->hooks || so->snaplen) && !so->ifaces)
		return usage_error("%s need --skb", "--hook and --snaplen");
	if (o->system_wide && (o->pid || o->tid))
		return usage_error("%s exclude each other", "-a and -p/-t");
	if ((o->pid || o->tid) && o->argv)
		return usage_error("%s exclude each other", "-p/-t and a command");
	/* a directory cannot go down a pipe */
	if (o->threads && o->output && !strcmp(o->output, "-"))
		return usage_error("%s exclude each other", "--threads and -o -");
	if (o->no_buildid && o->buildid_all)
		return usage_error("%s exclude each other", "-B and --buildid-all");
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct skb_opts so = { 0 };
	struct ev_op *ops = calloc(argc, sizeof(*ops));
	const char **cmdline = calloc(argc + 2, sizeof(char *));
	int nr_ops = 0, c, ret = RF_EXIT_USAGE;

	if (!ops || !cmdline)
		goto out;
	cmdline[0] = "perf-rawfrag";
	for (int i = 0; i < argc; i++)
		cmdline[i + 1] = argv[i];
	o.cmd_argc = argc + 1;
	o.cmd_argv = cmdline;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, the workload; ':': we say what is wrong */
	while ((c = getopt_long(argc, argv, "+:e:aC:p:t:o:m:r:c:F:gqvhI::Tdk:z::NB", record_options,
				NULL)) != -1) {
		if (c == '?' || c == ':') {
			ret = getopt_error(c, argc, argv);
			goto out;
		}
		if (c == 'e' || c == OPT_FILTER) {
			ops[nr_ops].filter = c == OPT_FILTER;
			ops[nr_ops++].arg = optarg;
			continue;
		}
		ret = parse_opt(c, optarg, &o, &so);
		if (ret) {
			ret = ret < 0 ? RF_EXIT_OK : ret;
			goto out;
		}
	}
	/* with --skb, --filter is the packet filter (the last one wins) */
	for (int i = 0; so.ifaces && i < nr_ops; i++)
		if (ops[i].filter)
			so.filter = ops[i].arg;
	if (optind < argc)
		o.argv = argv + optind;
	ret = check_conflicts(&o, &so);
	if (!ret)
		ret = run(&o, ops, nr_ops, &so);
out:
	free(ops);
	free(cmdline);
	return ret;
}
