// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag record: record raw-sample events into perf.data. Option parsing
 * only; the engine is record.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"    -m, --mmap-pages <n>  ring size in pages per CPU (power of two, default 128)\n"
	"    -c, --count <n>       sample period\n"
	"    -F, --freq <n>        sample frequency\n"
	"    -g                    record call chains\n"
	"        --duration <s>    stop after this many seconds\n"
	"    -q, --quiet           no summary\n"
	"        --skb <ifaces>    dump packets of these interfaces with BPF (comma list)\n"
	"        --hook <hooks>    --skb attach points: socket, tc-ingress, tc-egress, xdp\n"
	"        --snaplen <n>     --skb bytes per packet (default 256, 0 = the largest, 65436)\n"
	"    -h, --help            this help\n\n";

enum { OPT_FILTER = 256, OPT_DURATION, OPT_SKB, OPT_HOOK, OPT_SNAPLEN };

static const struct option record_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "quiet", no_argument, NULL, 'q' },
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

static int run(struct record_opts *o, struct ev_op *ops, int nr_ops, struct skb_opts *so)
{
	struct record *rec = record__new(o);
	int err = 0;

	if (!rec) {
		fprintf(stderr, "perf rawfrag record: out of memory\n");
		return RF_EXIT_USAGE;
	}
	int nr_ev = 0;

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
	record__delete(rec);
	return err ? RF_EXIT_USAGE : RF_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct skb_opts so = { 0 };
	struct ev_op *ops = calloc(argc, sizeof(*ops));
	const char **cmdline = calloc(argc + 2, sizeof(char *));
	int nr_ops = 0, c, ret;
	uint64_t v;

	if (!ops || !cmdline) {
		free(ops);
		free(cmdline);
		return RF_EXIT_USAGE;
	}
	cmdline[0] = "perf-rawfrag";
	for (int i = 0; i < argc; i++)
		cmdline[i + 1] = argv[i];
	o.cmd_argc = argc + 1;
	o.cmd_argv = cmdline;
	optind = 1;
	/* '+': stop at the first non-option, the workload */
	while ((c = getopt_long(argc, argv, "+e:aC:p:t:o:m:c:F:gqh", record_options, NULL)) != -1) {
		ret = RF_EXIT_USAGE;
		switch (c) {
		case 'e':
		case OPT_FILTER:
			ops[nr_ops].filter = c == OPT_FILTER;
			ops[nr_ops++].arg = optarg;
			break;
		case 'a': o.system_wide = true; break;
		case 'C': o.cpu_list = optarg; break;
		case 'p': o.pid = optarg; break;
		case 't': o.tid = optarg; break;
		case 'o': o.output = optarg; break;
		case 'm':
			if (!parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > (1u << 20)) {
				fprintf(stderr, "perf rawfrag record: -m: '%s' is not a power of two number of pages\n",
					optarg);
				goto out;
			}
			o.mmap_pages = v;
			break;
		case 'c':
			if (!parse_u64(optarg, &o.period) || !o.period) {
				ret = bad_number("-c", optarg);
				goto out;
			}
			break;
		case 'F':
			if (!parse_u64(optarg, &o.freq) || !o.freq) {
				ret = bad_number("-F", optarg);
				goto out;
			}
			break;
		case 'g': o.callchain = true; break;
		case 'q': o.quiet = true; break;
		case OPT_DURATION: {
			char *end;

			o.duration = strtod(optarg, &end);
			if (end == optarg || *end || o.duration <= 0) {
				ret = bad_number("--duration", optarg);
				goto out;
			}
			break;
		}
		case OPT_SKB: so.ifaces = optarg; break;
		case OPT_HOOK: so.hooks = optarg; break;
		case OPT_SNAPLEN:
			if (!parse_u64(optarg, &v) || v > 65535) {
				ret = bad_number("--snaplen", optarg);
				goto out;
			}
			/* 0: as tcpdump -s 0, the whole packet (up to what a sample holds) */
			so.snaplen = v ? v : RAWFRAG_SKB_SNAPLEN_MAX;
			break;
		case 'h':
			fputs(record_usage, stdout);
			ret = RF_EXIT_OK;
			goto out;
		default:
			fputs(record_usage, stderr);
			goto out;
		}
	}
	if (o.period && o.freq) {
		fprintf(stderr, "perf rawfrag record: -c and -F exclude each other\n");
		ret = RF_EXIT_USAGE;
		goto out;
	}
	if ((so.hooks || so.snaplen) && !so.ifaces) {
		fprintf(stderr, "perf rawfrag record: --hook and --snaplen need --skb\n");
		ret = RF_EXIT_USAGE;
		goto out;
	}
	/* with --skb, --filter is the packet filter (the last one wins) */
	for (int i = 0; so.ifaces && i < nr_ops; i++)
		if (ops[i].filter)
			so.filter = ops[i].arg;
	if (optind < argc)
		o.argv = argv + optind;
	ret = run(&o, ops, nr_ops, &so);
out:
	free(ops);
	free(cmdline);
	return ret;
}
