// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag check [-v] [--strict] [--force] [-q] [-j N] [FILE...]
 *
 * Every sample with RAW of each file against the kernel's framing rules and its
 * producer's own (lib/check*.c, decoders' length()). Prints a per-event table and
 * the first violations; exit 0 clean, 1 violations, 2 unusable input/options.
 * -j N checks N files at a time, each in a child whose output is kept until
 * the files before it are written, so that the output is that of -j 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rawfrag/check.h>
#include <rawfrag/tool.h>

#include "builtin.h"
#include "check-live.h"
#include "util.h"

struct check_args {
	int verbose, jobs;
	bool strict, force, quiet;
};

static const char check_usage[] =
	"\n usage: perf rawfrag check [<options>] [<file>...]\n\n"
	"    -v, --verbose     list every violation (and more messages); twice: debug\n"
	"        --strict      non-zero pad bytes are violations, not warnings\n"
	"    -f, --force       go on past bad records where the framing allows\n"
	"    -q, --quiet       print nothing; only the exit status tells\n"
	"    -j, --jobs <n>    check n of the files at a time (a file is read by one);\n"
	"                      the output as with -j 1\n"
	"        --live        test the running kernel's raw-record paths (loads BPF programs;\n"
	"                      root); no file is read\n"
	"        --quick       with --live: a representative subset in a few seconds\n"
	"        --format FMT  with --live: table (default) or json (JSON Lines, one per case)\n"
	"    -o, --output FILE with --live: keep the whole recording as a perf.data file\n"
	"    -h, --help        show this help\n\n"
	" Exit status: 0 clean, 1 violations, 2 unusable input or options.\n"
	" Default file: perf.data\n";

static const char *sev_name(enum rawfrag_severity s)
{
	return s == RAWFRAG_SEV_ERROR ? "error" : "warning";
}

static void print_hist(const char *what, const uint64_t *h, int n, bool log2)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		if (!h[i])
			continue;
		if (!any)
			printf("    %-11s", what);
		any = true;
		if (!log2)
			printf(" %d:%" PRIu64, i, h[i]);
		else if (i == 0)
			printf(" 0-1:%" PRIu64, h[i]);
		else if (i == n - 1)
			printf(" %llu+:%" PRIu64, 1ULL << i, h[i]);
		else
			printf(" %llu-%llu:%" PRIu64, 1ULL << i, (2ULL << i) - 1, h[i]);
	}
	if (any)
		putchar('\n');
}

static const char *ev_name(struct rawfrag_session *s, int idx)
{
	struct rawfrag_evsel *ev = idx >= 0 ? rawfrag_file__evsel(rawfrag_session__file(s), idx) : NULL;

	return ev ? rawfrag_evsel__name(ev) : "(unknown id)";
}

static void print_table(struct rawfrag_session *s, struct rawfrag_checker *c)
{
	struct rawfrag_file *f = rawfrag_session__file(s);
	int n = rawfrag_file__nr_evsels(f), w = 5;

	for (int i = -1; i < n; i++) {
		const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(c, i);
		int l = (int)strlen(ev_name(s, i));

		if (st && st->samples && l > w)
			w = l;
	}
	printf("  %-*s %-11s %10s %10s %12s %9s %9s %7s %8s\n", w, "event", "producer", "samples",
	       "with raw", "raw bytes", "pad zero", "pad stale", "errors", "warnings");
	for (int i = -1; i < n; i++) {
		const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(c, i);
		const struct rawfrag_decoder *d;

		if (!st || !st->samples)
			continue;
		d = i >= 0 ? rawfrag_session__decoder(s, rawfrag_file__evsel(f, i)) : NULL;
		printf("  %-*s %-11s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %9" PRIu64
		       " %9" PRIu64 " %7" PRIu64 " %8" PRIu64 "\n",
		       w, ev_name(s, i), d ? rawfrag_decoder__name(d) : "-", st->samples, st->raw_samples,
		       st->raw_bytes, st->pad_zero, st->pad_stale, st->errors, st->warnings);
		print_hist("raw sizes:", st->size_hist, RAWFRAG_CHECK_SIZE_BUCKETS, true);
		print_hist("pad bytes:", st->pad_hist, 8, false);
		if (st->pad_unknown)
			printf("    %-11s %" PRIu64 " samples (producer length not known)\n",
			       "pad unknown:", st->pad_unknown);
		if (st->empty)
			printf("    %-11s %" PRIu64 " samples (no-data form)\n", "empty:", st->empty);
		for (int k = 0; k < st->nr_kinds; k++)
			printf("    %-11s %s (%s): %" PRIu64 "\n", k ? "" : "violations:",
			       st->kinds[k].kind, sev_name(st->kinds[k].sev), st->kinds[k].count);
		if (st->nr_stale_examples) {
			printf("    %-11s", "stale pad:");
			for (int k = 0; k < st->nr_stale_examples; k++)
				printf(" 0x%" PRIx64, st->stale_examples[k]);
			printf("%s\n", st->pad_stale > (uint64_t)st->nr_stale_examples ? " ..." : "");
		}
	}
}

static void print_violations(const char *path, struct rawfrag_session *s,
			     struct rawfrag_checker *c)
{
	int n = rawfrag_checker__nr_violations(c);
	uint64_t total = rawfrag_checker__nr_errors(c) + rawfrag_checker__nr_warnings(c);

	for (int i = 0; i < n; i++) {
		const struct rawfrag_violation *v = rawfrag_checker__violation(c, i);

		printf("%s: offset 0x%" PRIx64 "%s: SAMPLE: %s: %s (%s): %s", path, v->rec_offset,
		       v->in_compressed ? " (compressed)" : "", ev_name(s, v->evsel_idx), v->kind,
		       sev_name(v->sev), v->message);
		if (v->raw_off >= 0)
			printf(" [raw+0x%" PRIx64 "]", (uint64_t)v->raw_off);
		putchar('\n');
	}
	if (total > (uint64_t)n)
		printf("... %" PRIu64 " more not shown (-v shows all)\n", total - n);
}

/*
 * A sample that does not parse for a reason other than its RAW area (unknown
 * id, a CALLCHAIN crossing header.size, ...) makes the input unusable: print
 * the first one as the error. RAW framing faults (raw_outside, size_wrapped)
 * are what check looks for: those stay violations. --force makes all of them
 * violations.
 */
static bool unparsable(const char *path, struct rawfrag_session *s,
		       struct rawfrag_checker *c)
{
	int nr = rawfrag_file__nr_evsels(rawfrag_session__file(s));
	uint64_t count = 0;

	for (int i = -1; i < nr; i++) {
		const struct rawfrag_check_evstats *st = rawfrag_checker__evstats(c, i);

		for (int k = 0; st && k < st->nr_kinds; k++)
			if (!strcmp(st->kinds[k].kind, "sample_parse"))
				count += st->kinds[k].count;
	}
	if (!count)
		return false;
	for (int i = 0; i < rawfrag_checker__nr_violations(c); i++) {
		const struct rawfrag_violation *v = rawfrag_checker__violation(c, i);

		if (strcmp(v->kind, "sample_parse"))
			continue;
		fflush(stdout);
		fprintf(stderr, "perf rawfrag check: %s: offset 0x%" PRIx64 ": SAMPLE: %s\n", path,
			v->rec_offset, v->message);
		return true;
	}
	fflush(stdout);
	fprintf(stderr, "perf rawfrag check: %s: %" PRIu64 " samples do not parse (-v shows them)\n",
		path, count);
	return true;
}

struct check_tool {
	struct rawfrag_tool tool; /* first: the handlers get &ct->tool */
	struct rawfrag_checker *c;
	struct rf_loss_cpus *loss; /* LOST/LOST_SAMPLES by CPU, counted in the one walk */
	bool swap;
	bool oom;
};

static int check_one(struct check_tool *ct, const struct rawfrag_event *ev)
{
	if (rawfrag_checker__event(ct->c, ev) >= 0)
		return 0;
	ct->oom = true;
	return -ENOMEM;
}

static int check_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			const struct rawfrag_event *ev)
{
	return check_one((struct check_tool *)tool, ev);
}

static int check_lost(struct rawfrag_tool *tool, struct rawfrag_session *s,
		      const struct rawfrag_event *ev)
{
	struct check_tool *ct = (struct check_tool *)tool;

	rf_loss_cpus__lost(ct->loss, ev->rec, ev->sample, ct->swap);
	return 0;
}

/* the loss lines' per-CPU samples are the checker's count: no second walk */
static const struct rf_loss_cpus *loss_cpus(struct check_tool *ct)
{
	struct rf_loss_cpus *lc = ct->loss;
	int max = rawfrag_checker__max_cpu(ct->c);

	for (int i = 0; i <= max && i < RF_LOSS_MAX_CPUS; i++)
		lc->c[i].samples = rawfrag_checker__cpu_samples(ct->c, (uint32_t)i);
	if (max > lc->max)
		lc->max = max < RF_LOSS_MAX_CPUS ? max : RF_LOSS_MAX_CPUS - 1;
	return lc;
}

/* a sample that does not parse is what the checker diagnoses */
static int check_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			    const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return check_one((struct check_tool *)tool, ev);
}

/* the file's verdict line, the table of rules and the violations */
static void print_summary(const char *path, struct rawfrag_file *f, struct rawfrag_session *s,
			  struct rawfrag_checker *c)
{
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(f);

	printf("%s: %" PRIu64 " samples, %" PRIu64 " errors, %" PRIu64 " warnings",
	       path, rawfrag_file__nr_records(f, PERF_RECORD_SAMPLE),
	       rawfrag_checker__nr_errors(c),
	       rawfrag_checker__nr_warnings(c));
	/* lost data is part of the verdict a user reads */
	if (fs->nr_lost_records || fs->nr_lost_samples)
		printf(", %" PRIu64 " lost events (%" PRIu64 " LOST records, %" PRIu64
		       " in LOST_SAMPLES)", fs->nr_lost, fs->nr_lost_records,
		       fs->nr_lost_samples);
	printf("\n");
	if (fs->nr_skipped)
		printf("  skipped %" PRIu64 " bad records (%" PRIu64 " bytes) (--force)\n",
		       fs->nr_skipped, fs->bytes_skipped);
	print_table(s, c);
	print_violations(path, s, c);
	fflush(stdout);
}

/* Returns an exit status for this file. */
static int check_file(const char *path, const struct check_args *a)
{
	struct rf_print_ctx pc = { .verbose = a->verbose, .quiet = a->quiet };
	RAWFRAG_OPTS(rawfrag_file_opts, fopts);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts);
	RAWFRAG_OPTS(rawfrag_check_opts, copts);
	struct rawfrag_err err = { 0 };
	struct rawfrag_file *f = NULL;
	struct rawfrag_session *s = NULL;
	struct rawfrag_checker *c = NULL;
	/* no_parse: the checker decodes only what its rules read (its quick path) */
	struct check_tool ct = { .tool = { .sz = sizeof(ct.tool), .sample = check_sample,
					   .sample_error = check_bad_sample, .lost = check_lost,
					   .lost_samples = check_lost, .no_parse = true } };
	int ret, rc = RF_EXIT_USAGE;

	fopts.print = rf_lib_print;
	fopts.print_ctx = &pc;
	fopts.force = a->force;
	sopts.print = rf_lib_print;
	sopts.print_ctx = &pc;
	copts.strict = a->strict;
	copts.max_examples = a->verbose ? -1 : 0;

	f = rawfrag_file__open(path, &fopts, &err);
	if (!f)
		goto fail;
	s = rawfrag_session__new(f, &sopts, &err);
	if (!s)
		goto fail;
	c = rawfrag_checker__new(s, &copts, &err);
	if (!c)
		goto fail;
	ct.c = c;
	ct.swap = rawfrag_file__needs_swap(f);
	ct.loss = rf_loss_cpus__new();
	if (!ct.loss) {
		err = (struct rawfrag_err){ .err = -ENOMEM, .offset = -1, .reason = "out of memory" };
		goto fail;
	}
	ret = rawfrag_session__process(s, &ct.tool, &err);
	if (ret < 0 && ct.oom)
		goto fail;
	rc = rawfrag_checker__nr_errors(c) ? RF_EXIT_VIOLATIONS : RF_EXIT_OK;
	if (ret < 0) {
		/* what was found up to the bad record still helps (e.g. size_wrapped) */
		rc = RF_EXIT_USAGE;
	} else if (!a->force && unparsable(path, s, c)) {
		rc = RF_EXIT_USAGE;
	}
	if (!a->quiet)
		print_summary(path, f, s, c);
	if (ret >= 0)
		rf_loss_warn("check", path, s, loss_cpus(&ct));
	if (ret < 0)
		goto fail;
	goto out;
fail:
	if (!a->quiet)
		fflush(stdout);
	rf_print_err("check", path, &err);
out:
	free(ct.loss);
	rawfrag_checker__delete(c);
	rawfrag_session__delete(s);
	rawfrag_file__close(f);
	return rc;
}

/* a file's check in a child: its output in memory files until its turn */
struct check_job {
	pid_t pid; /* -1: checked here, in its turn */
	int out, err; /* err -1: stderr goes with stdout (the same file) */
};

/* do stdout and stderr write to one file (2>&1, a terminal)? then one memory file keeps their order */
static bool one_output(void)
{
	struct stat o, e;

	return !fstat(1, &o) && !fstat(2, &e) && o.st_dev == e.st_dev && o.st_ino == e.st_ino;
}

static void job_start(struct check_job *j, const char *path, const struct check_args *a,
		      bool one)
{
	j->pid = -1;
	j->out = memfd_create("rawfrag-check-out", MFD_CLOEXEC);
	j->err = one ? -1 : memfd_create("rawfrag-check-err", MFD_CLOEXEC);
	fflush(stdout);
	fflush(stderr);
	if (j->out >= 0 && (one || j->err >= 0))
		j->pid = fork();
	if (j->pid == 0) {
		int rc;

		if (dup2(j->out, 1) < 0 || dup2(one ? j->out : j->err, 2) < 0)
			_exit(RF_EXIT_USAGE);
		rc = check_file(path, a);
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	if (j->pid < 0) {
		/* no child: checked here, in its turn */
		if (j->out >= 0)
			close(j->out);
		if (j->err >= 0)
			close(j->err);
		j->out = j->err = -1;
	}
}

/* fd's bytes to out_fd */
static void copy_out(int fd, int out_fd)
{
	char buf[65536];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out_fd, buf + off, (size_t)(n - off));

			if (w <= 0)
				return;
			off += w;
		}
	}
}

/* a file's turn: its child's status and output, or its check here */
static int job_finish(struct check_job *j, const char *path, const struct check_args *a)
{
	int st;

	if (j->pid < 0)
		return check_file(path, a);
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	/* what a file checked here printed goes first (the copies bypass stdio) */
	fflush(stdout);
	fflush(stderr);
	copy_out(j->out, 1);
	if (j->err >= 0)
		copy_out(j->err, 2);
	close(j->out);
	if (j->err >= 0)
		close(j->err);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	rf_errorf("check", "%s: the check of this file died (%s)", path,
		  WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "unknown status");
	return RF_EXIT_USAGE;
}

/* -j: n files at a time, written in their order; the worst status */
static int check_files(char **paths, int n, const struct check_args *a)
{
	struct check_job *jobs = calloc((size_t)n, sizeof(*jobs));
	bool one = one_output();
	int rc = RF_EXIT_OK, started = 0;

	for (int i = 0; i < n; i++) {
		int r;

		for (; jobs && started < n && started < i + a->jobs; started++)
			job_start(&jobs[started], paths[started], a, one);
		r = jobs ? job_finish(&jobs[i], paths[i], a) : check_file(paths[i], a);
		if (r > rc)
			rc = r;
	}
	free(jobs);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' }, { "strict", no_argument, NULL, 'S' },
		{ "force", no_argument, NULL, 'f' },   { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },    { "live", no_argument, NULL, 'L' },
		{ "quick", no_argument, NULL, 'Q' },   { "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_args a = { .jobs = 1 };
	struct live_opts lo = { 0 };
	bool live = false;
	int opt, rc = RF_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "vfqho:j:", longopts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'j': {
			long n = strtol(optarg, &end, 10);

			if (end == optarg || *end || n < 1 || n > 1024) {
				rf_errorf("check", "bad --jobs '%s' (a number from 1 to 1024)", optarg);
				return RF_EXIT_USAGE;
			}
			a.jobs = (int)n;
			break;
		}
		case 'L': live = true; break;
		case 'Q': lo.quick = true; break;
		case 'o': lo.output = optarg; break;
		case 'F':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				rf_errorf("check", "--format: '%s': table or json", optarg);
				return RF_EXIT_USAGE;
			}
			lo.json = !strcmp(optarg, "json");
			break;
		case 'v': a.verbose++; break;
		case 'S': a.strict = true; break;
		case 'f': a.force = true; break;
		case 'q': a.quiet = true; break;
		case 'h':
			fputs(check_usage, stdout);
			return RF_EXIT_OK;
		default:
			rf_errorf("check", "unknown option '%s'", argv[optind - 1]);
			fputs(check_usage, stderr);
			return RF_EXIT_USAGE;
		}
	}
	if (!live && (lo.quick || lo.json || lo.output)) {
		rf_errorf("check", "--quick, --format and -o go with --live");
		return RF_EXIT_USAGE;
	}
	if (live) {
		if (a.jobs > 1) {
			rf_errorf("check", "--jobs checks files at a time; --live reads none");
			return RF_EXIT_USAGE;
		}
		if (optind < argc) {
			rf_errorf("check", "--live reads no file ('%s')", argv[optind]);
			return RF_EXIT_USAGE;
		}
		lo.verbose = a.verbose;
		return cmd_check_live(&lo);
	}
	if (optind >= argc)
		return check_file("perf.data", &a);
	if (a.jobs > 1 && argc - optind > 1)
		return check_files(argv + optind, argc - optind, &a);
	for (int i = optind; i < argc; i++) {
		int r = check_file(argv[i], &a);

		/* the worst status wins: unusable (2) over violations (1) */
		if (r > rc)
			rc = r;
	}
	return rc;
}
