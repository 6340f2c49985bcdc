// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag report: every sample's RAW payload decoded by its producer's
 * decoder, as perf script-like text (default), JSON Lines or pcapng; --stats
 * counts records like perf report --stats.
 *
 * Text lines use perf script's columns (builtin-script.c): "%16s " comm,
 * "%5d " tid (or "%5d/%-5d " pid/tid), "[%03d] " cpu, "%5lu.%06lu: " time,
 * "%*s: " event padded to the longest event name, then the decoder's text.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rawfrag/emit.h>
#include <rawfrag/line.h>
#include <rawfrag/tool.h>
#include <rawfrag/where.h>

#include "internal/out.h"
#include "internal/session_json.h"

#include "builtin.h"
#include "report-header.h"
#include "report-sym.h"
#include "skb.h"
#include "util.h"

/* the text columns: the library's line fields, then ours (report-sym.h) */

enum out_format { FMT_TEXT, FMT_JSON, FMT_PCAPNG };

struct report {
	struct rawfrag_tool tool; /* first: handlers get &r->tool */
	const char *input, *output;
	enum out_format fmt;
	bool stats, verbose_text, force;
	int verbose;
	unsigned int fields;
	bool fields_set;
	bool show_task; /* --show-task-events */
	bool header, header_only; /* --header, --header-only */
	/* symbols and call chains (report-sym.c) */
	struct rs_ctx rs;
	struct rawfrag_machine_opts mopts;
	/* selection */
	const char *events; /* comma list of names/globs */
	bool has_pid, has_tid, has_cpu, has_time;
	bool filtered; /* any of them */
	struct rf_list pids, tids, cpus;
	struct rf_time time;
	const char *where_src; /* --where */
	struct rawfrag_where *where;
	struct rawfrag_out *wout; /* the fields as JSON, for --where */
	struct rawfrag_emit *wem;
	bool where_failed;
	const char *dopts[8];
	int nr_dopts;
	/* per file */
	struct rawfrag_file *file;
	struct rawfrag_session *sess;
	struct rawfrag_out *out;
	struct rawfrag_emit *em;
	struct rawfrag_line *line;
	bool swap;
	int nr_known; /* evsels seen so far */
	bool *selected; /* by evsel idx */
	int name_width;
	/* per evsel idx: the text event column and the JSON line up to "producer" */
	struct ev_cache {
		char *text, *json;
		uint32_t text_len, json_len;
		const struct rawfrag_evsel *ev;
		unsigned int fields; /* -F, else perf script's default for the event */
		const struct perf_event_attr *attr;
		/* what the lines were built from (a rename is a new string) */
		const struct rawfrag_decoder *d;
		const char *name;
	} *evc;
	/*
	 * Task names as task_name() found them, one slot per tid hash: a
	 * thread's name changes only with a COMM, FORK or EXIT record (or new
	 * tracing data), and each of those starts a new generation.
	 */
	struct name_slot {
		uint64_t gen;
		int32_t pid, tid;
		int len;
		char name[36];
	} names[64];
	uint64_t name_gen;
	uint64_t *ev_samples, *ev_lost; /* --stats */
	struct rf_loss_cpus *loss; /* samples and losses per CPU, for the loss warning */
	uint64_t nr_bad;
	/* perf's order (default): the session orders records */
	bool no_order;
	struct rawfrag_err *err; /* where a delivered sample's error goes */
};

static const char report_usage[] =
	"\n usage: perf rawfrag report [<options>]\n\n"
	"    -i, --input <file>    input file name, '-' for stdin (default: perf.data)\n"
	"        --stats           record counts per type and event, as perf report --stats\n"
	"        --format <fmt>    text (default), json (JSON Lines) or pcapng\n"
	"    -o, --output <file>   write here instead of stdout\n"
	"    -v, --verbose         all fields in text output (twice: debug messages)\n"
	"    -x, --hex             also show payloads as hex\n"
	"        --meta <spec>     layout of BPF output metadata (decoder option meta=)\n"
	"        --meta-btf <obj:struct>  metadata layout from BTF (decoder option meta_btf=)\n"
	"        --decoder-opt <key=value>  any decoder option (e.g. ibs_layout=old, kallsyms=none)\n"
	"    -f, --force           go on past bad records where the framing allows\n"
	"    -e, --event <names>   only these events (comma list, globs allowed)\n"
	"        --pid <list>      only these process ids (e.g. 1,5-9)\n"
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
	"        --where <expr>    only samples whose decoded fields match, e.g.\n"
	"                          'prev_state == 1 && next_comm == \"ksoftirqd/*\"'\n"
	"    -h, --help            show this help\n";

static int parse_fields(const char *s, unsigned int *out)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = { { "comm", F_COMM },     { "pid", F_PID },	      { "tid", F_TID },
		      { "cpu", F_CPU },	      { "time", F_TIME },     { "event", F_EVENT },
		      { "trace", F_TRACE },   { "raw", F_TRACE },     { "ip", F_IP },
		      { "sym", F_SYM },	      { "symoff", F_SYMOFF }, { "dso", F_DSO },
		      { "addr", F_ADDR },     { "period", F_PERIOD }, { "iregs", F_IREGS },
		      { "uregs", F_UREGS },   { "tod", F_TOD },	      { "flags", F_FLAGS } };
	unsigned int f = 0;
	char *dup = strdup(s), *save = NULL;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(t, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			rf_errorf("report", "unknown field '%s' in -F (comm,pid,tid,cpu,time,event,trace,"
				  "ip,sym,symoff,dso,addr,period,iregs,uregs,tod,flags)", t);
			free(dup);
			return -EINVAL;
		}
		f |= names[i].bit;
	}
	free(dup);
	if (!f)
		return -EINVAL;
	*out = f;
	return 0;
}

static bool event_matches(const char *list, const char *name)
{
	const char *p = list;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char pat[256];

		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = 0;
			if (!fnmatch(pat, name, 0))
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static void free_evc(struct report *r)
{
	for (int i = 0; r->evc && i < r->nr_known; i++) {
		free(r->evc[i].text);
		free(r->evc[i].json);
		r->evc[i] = (struct ev_cache){ 0 };
	}
}

/* perf script shows symbols for all tracepoints when one of them has call chains */
static bool any_tp_chain(struct report *r)
{
	for (int i = 0; i < rawfrag_file__nr_evsels(r->file); i++) {
		const struct perf_event_attr *a = rawfrag_evsel__attr(rawfrag_file__evsel(r->file, i));

		if (a->type == PERF_TYPE_TRACEPOINT && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
			return !r->rs.hide_cg;
	}
	return false;
}

/*
 * perf script's evsel__check_attr(): a column asked for with -F that the
 * event did not sample is an error (a default one is just left out).
 */
static int check_fields(struct report *r)
{
	static const struct {
		unsigned int f;
		uint64_t need;
		const char *msg, *name;
	} req[] = {
		{ F_IP, PERF_SAMPLE_IP, "IP", "ip" },
		{ F_ADDR, PERF_SAMPLE_ADDR, "ADDR", "addr" },
		{ F_PID | F_TID, PERF_SAMPLE_TID, "TID", "tid" },
		{ F_TIME, PERF_SAMPLE_TIME, "TIME", "time" },
		{ F_CPU, PERF_SAMPLE_CPU, "CPU", "cpu" },
		{ F_IREGS, PERF_SAMPLE_REGS_INTR, "IREGS", "iregs" },
		{ F_UREGS, PERF_SAMPLE_REGS_USER, "UREGS", "uregs" },
	};

	if (!r->fields_set)
		return 0;
	if ((r->fields & F_SYMOFF) && !(r->fields & F_SYM)) {
		rf_errorf("report", "Display of offsets requested but symbol is not selected.");
		return -EINVAL;
	}
	for (int i = 0; i < rawfrag_file__nr_evsels(r->file); i++) {
		struct rawfrag_evsel *ev = rawfrag_file__evsel(r->file, i);
		uint64_t st = rawfrag_evsel__attr(ev)->sample_type;

		for (size_t k = 0; k < sizeof(req) / sizeof(req[0]); k++) {
			if (!(r->fields & req[k].f) || (st & req[k].need))
				continue;
			rf_errorf("report", "Samples for '%s' event do not have %s attribute set. "
				  "Cannot print '%s' field.", rawfrag_evsel__name(ev), req[k].msg,
				  req[k].name);
			return -EINVAL;
		}
		if ((r->fields & (F_SYM | F_DSO)) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
			rf_errorf("report", "Display of symbols requested but neither sample IP nor "
				  "sample address available.");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The constant parts of an evsel's lines, rendered once: "%*s: " of the event
 * name (perf script pads to the longest name) and '{"event":..,"producer":..'.
 */
static int build_evc(struct report *r, int i, struct rawfrag_out *mem)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel(r->file, i);
	const struct rawfrag_decoder *d = rawfrag_session__decoder(r->sess, ev);
	const char *name = rawfrag_evsel__name(ev);
	struct ev_cache *c = &r->evc[i];
	size_t len;
	int l;

	free(c->text);
	free(c->json);
	c->json = NULL;
	c->ev = ev;
	c->attr = rawfrag_evsel__attr(ev);
	c->fields = r->fields_set ? r->fields :
		    rs_default_fields(rawfrag_evsel__attr(ev), any_tp_chain(r)) &
			    rs_available(rawfrag_evsel__attr(ev));
	c->d = d;
	c->name = name;
	name = name ? name : "";
	l = (int)strlen(name);
	c->text = calloc(1, (size_t)(l > r->name_width ? l : r->name_width) + 3);
	if (!c->text)
		return -ENOMEM;
	c->text_len = (uint32_t)sprintf(c->text, "%*s: ", r->name_width, name);
	rawfrag_out__reset(mem);
	rawfrag_out__puts(mem, "{\"event\":");
	rawfrag_out__json_str(mem, name, (size_t)-1);
	rawfrag_out__puts(mem, ",\"producer\":");
	if (rawfrag_decoder__name(d))
		rawfrag_out__json_str(mem, rawfrag_decoder__name(d), (size_t)-1);
	else
		rawfrag_out__puts(mem, "null");
	rawfrag_out__mem(mem, &len);
	c->json = malloc(len);
	if (!c->json || rawfrag_out__error(mem))
		return -ENOMEM;
	memcpy(c->json, rawfrag_out__mem(mem, NULL), len);
	c->json_len = (uint32_t)len;
	return 0;
}

/* Per-evsel state for evsels not seen yet (pipe mode adds them as records). */
/* the cached lines of evsel i are still what build_evc() would make */
static bool evc_current(struct report *r, int i)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel(r->file, i);
	const struct ev_cache *c = &r->evc[i];

	return c->text && c->ev == ev && c->name == rawfrag_evsel__name(ev) &&
	       c->d == rawfrag_session__decoder(r->sess, ev);
}

/*
 * After records that describe the file: new evsels, renames, rebound decoders.
 * Only what changed is rebuilt (all of it when the name column widens): a pipe
 * of n HEADER_ATTR records must not cost n^2 line builds.
 */
static int update_evsels(struct report *r)
{
	int n = rawfrag_file__nr_evsels(r->file), ret = 0, width = 0, old_width = r->name_width;
	struct rawfrag_out *mem;

	if (n > r->nr_known) {
		bool *sel = realloc(r->selected, n * sizeof(*sel));
		uint64_t *cnt = realloc(r->ev_samples, n * sizeof(*cnt));
		uint64_t *lost = realloc(r->ev_lost, n * sizeof(*lost));
		struct ev_cache *evc = realloc(r->evc, n * sizeof(*evc));

		if (sel)
			r->selected = sel;
		if (cnt)
			r->ev_samples = cnt;
		if (lost)
			r->ev_lost = lost;
		if (evc)
			r->evc = evc;
		if (!sel || !cnt || !lost || !evc)
			return -ENOMEM;
		for (int i = r->nr_known; i < n; i++) {
			r->ev_samples[i] = r->ev_lost[i] = 0;
			r->evc[i] = (struct ev_cache){ 0 };
		}
	}
	r->nr_known = n;
	/* names can change with tracing data or EVENT_UPDATE: recompute all */
	for (int i = 0; i < n; i++) {
		const char *name = rawfrag_evsel__name(rawfrag_file__evsel(r->file, i));
		int l = name ? (int)strlen(name) : 0;

		r->selected[i] = !r->events || (name && event_matches(r->events, name));
		if (l > width)
			width = l;
	}
	r->name_width = width;
	if (r->stats)
		return 0;
	mem = rawfrag_out__new(-1);
	if (!mem)
		return -ENOMEM;
	for (int i = 0; i < n && !ret; i++)
		if (width != old_width || !evc_current(r, i))
			ret = build_evc(r, i, mem);
	rawfrag_out__delete(mem);
	return ret;
}

static bool keep_filtered(struct report *r, const struct rawfrag_sample *smp)
{
	if (r->has_pid && !rf_list__has(&r->pids, smp->pid))
		return false;
	if (r->has_tid && !rf_list__has(&r->tids, smp->tid))
		return false;
	if (r->has_cpu && !rf_list__has(&r->cpus, smp->cpu))
		return false;
	if (r->has_time && !rf_time__has(&r->time, smp->time))
		return false;
	return true;
}

static inline bool keep_sample(struct report *r, int idx, const struct rawfrag_sample *smp)
{
	if (idx >= r->nr_known || !r->selected[idx])
		return false;
	return !r->filtered || keep_filtered(r, smp);
}

/* a thread without a COMM: the file's saved cmdlines, else perf's names */
static const char *task_name_fallback(struct report *r, const struct rawfrag_sample *smp,
				      char *buf, size_t len)
{
	const char *c = rawfrag_session__saved_comm(r->sess, smp->pid);

	if (c)
		return c;
	/* perf's names for threads without a COMM record */
	if (smp->tid == 0)
		return "swapper";
	snprintf(buf, len, ":%d", (int32_t)smp->tid);
	return buf;
}

/* task_name() when the slot holds another task or an older generation */
static __attribute__((noinline)) const char *task_name_find(struct report *r,
							    const struct rawfrag_sample *smp,
							    struct name_slot *n, int *len)
{
	char buf[32];
	const char *c;

	c = rawfrag_session__thread_comm(r->sess, (int32_t)smp->pid, (int32_t)smp->tid, len);
	if (!c) {
		c = task_name_fallback(r, smp, buf, sizeof(buf));
		*len = (int)strnlen(c, 32);
	}
	if (*len > 32)
		*len = 32;
	memset(n->name, 0, sizeof(n->name));
	memcpy(n->name, c, *len);
	n->gen = r->name_gen;
	n->pid = (int32_t)smp->pid;
	n->tid = (int32_t)smp->tid;
	n->len = *len;
	return n->name;
}

/*
 * The name as perf script shows it and its length (at most 32), in a buffer
 * with at least 16 readable bytes, valid until the next call. Inline: the
 * slot's hit is most calls.
 */
static inline const char *task_name(struct report *r, const struct rawfrag_sample *smp, int *len)
{
	struct name_slot *n = &r->names[((uint32_t)smp->tid * 2654435761u) >> 26];

	if (n->gen == r->name_gen && n->pid == (int32_t)smp->pid && n->tid == (int32_t)smp->tid) {
		*len = n->len;
		return n->name;
	}
	return task_name_find(r, smp, n, len);
}

/* the records that may rename a thread: names found before are not reused */
static inline void names_forget(struct report *r, const struct rawfrag_record *rec)
{
	if (!rec || rec->type == PERF_RECORD_COMM || rec->type == PERF_RECORD_FORK ||
	    rec->type == PERF_RECORD_EXIT)
		r->name_gen++;
}

/* perf script's line: the library's columns, then the decoder's text */
#define LINE_MASK (F_COMM | F_PID | F_TID | F_CPU | F_TIME | F_EVENT)

/*
 * The columns before the trace text when they are more than the library's
 * line gives (perf script's per-event defaults, a chain's unpadded comm, tod,
 * --ns, period).
 */
static void text_head(struct report *r, const struct ev_cache *c,
		      const struct rawfrag_sample *smp, const char *comm, int l)
{
	struct rawfrag_out *o = r->out;
	unsigned int f = c->fields;

	if (f & F_COMM)
		rs_text_comm(o, comm, l, !rs_chain_line(&r->rs, c->attr, f));
	if (f & (F_PID | F_TID))
		rs_text_pid_tid(o, f, (int32_t)smp->pid, (int32_t)smp->tid);
	if (f & F_CPU)
		rawfrag_out__printf(o, "[%03d] ", (int32_t)smp->cpu);
	if (f & F_TOD) {
		char buf[64];

		rawfrag_out__write(o, buf, (size_t)(rs_text_tod(&r->rs, buf, smp->time) - buf));
	}
	if ((f & F_TIME) && !r->rs.ns)
		rs_text_time(o, smp->time);
	else if (f & F_TIME)
		rawfrag_out__printf(o, r->rs.ns ? "%5" PRIu64 ".%09" PRIu64 ": " :
						  "%5" PRIu64 ".%06" PRIu64 ": ",
				    smp->time / 1000000000,
				    r->rs.ns ? smp->time % 1000000000 : smp->time % 1000000000 / 1000);
	/* without PERIOD in the sample, perf shows the attr's period */
	if (f & F_PERIOD)
		rawfrag_out__printf(o, "%10" PRIu64 " ", smp->sample_type & PERF_SAMPLE_PERIOD ?
						       smp->period : (uint64_t)c->attr->sample_period);
	if (f & F_EVENT)
		rawfrag_out__write(o, c->text, c->text_len);
}

static void print_text(struct report *r, const struct ev_cache *c,
		       const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	struct rawfrag_out *o = r->out;
	unsigned int f = c->fields;
	const char *comm = NULL;
	int l = 0;

	if (f & F_COMM)
		comm = task_name(r, smp, &l);
	/* the library's line when the columns are its own */
	if (!r->rs.ns && (f & ~F_TRACE) == (r->fields & LINE_MASK))
		rawfrag_line__text_head(r->line, smp, comm, (size_t)l, c->text, c->text_len);
	else
		text_head(r, c, smp, comm, l);
	if (f & F_FLAGS) /* perf's flags are those of branch samples (PT, BTS): none here */
		rawfrag_out__printf(o, "  %-21s ", "");
	if (f & F_TRACE)
		rawfrag_session__sample_text(r->sess, c->ev, rec, smp, o, r->verbose_text);
	if (f & (F_ADDR | F_IP | F_IREGS | F_UREGS))
		rs_text_tail(&r->rs, o, f, smp, c->attr);
	rawfrag_out__putc(o, '\n');
}

/*
 * The event and producer part was rendered once per evsel, the sample's
 * members by the library; the decoder's fields go through the emitter, which
 * starts at the top level inside "fields".
 */
static void print_json(struct report *r, const struct ev_cache *c,
		       const struct rawfrag_record *rec, const struct rawfrag_sample *smp)
{
	struct rawfrag_out *o = r->out;
	const char *comm = NULL;
	int l = 0;

	if (smp->sample_type & PERF_SAMPLE_TID)
		comm = task_name(r, smp, &l);
	rawfrag_line__json_head(r->line, c->json, c->json_len, smp, comm, (size_t)l);
	if (smp->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
				PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_REGS_INTR))
		rs_json(&r->rs, o, smp, c->attr);
	/* the raw summary and the fields with one decoder look-up */
	if (rf_session__json_tail(r->sess, c->ev, rec, smp, r->line, r->em))
		rf_out_write(o, "}}\n", 3);
}

static void print_stats(struct report *r)
{
	const struct rawfrag_file_stats *fs = rawfrag_file__stats(r->file);
	struct rawfrag_out *o = r->out;
	uint64_t total = fs->nr_other_records;

	for (int t = 0; t < RAWFRAG_RECORD_USER_MAX; t++)
		total += rawfrag_file__nr_records(r->file, t);
	rawfrag_out__printf(o, "\nAggregated stats:\n%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (int t = 0; t < RAWFRAG_RECORD_USER_MAX; t++) {
		uint64_t n = rawfrag_file__nr_records(r->file, t);

		if (!n)
			continue;
		rawfrag_out__printf(o, "%16s events: %10" PRIu64 "  (%4.1f%%)\n", rawfrag_record_type__perf_name(t),
				    n, 100.0 * n / total);
	}
	if (fs->nr_other_records)
		rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "UNKNOWN",
				    fs->nr_other_records);
	if (fs->nr_lost || fs->nr_lost_samples)
		rawfrag_out__printf(o, "%16s: %10" PRIu64 " events lost, %" PRIu64
				    " samples lost\n", "lost", fs->nr_lost, fs->nr_lost_samples);
	if (fs->nr_skipped)
		rawfrag_out__printf(o, "%16s: %10" PRIu64 " bad records (%" PRIu64
				    " bytes, --force)\n", "skipped", fs->nr_skipped,
				    fs->bytes_skipped);
	for (int i = 0; i < r->nr_known; i++) {
		if (!r->ev_samples[i] && !r->ev_lost[i])
			continue;
		rawfrag_out__printf(o, "%s stats:\n",
				    rawfrag_evsel__name(rawfrag_file__evsel(r->file, i)));
		if (r->ev_samples[i])
			rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "SAMPLE",
					    r->ev_samples[i]);
		/* perf shows the samples lost, not the records, per event */
		if (r->ev_lost[i])
			rawfrag_out__printf(o, "%16s events: %10" PRIu64 "\n", "LOST_SAMPLES",
					    r->ev_lost[i]);
	}
}

struct span {
	struct rawfrag_tool tool;
	uint64_t first, last;
};

static int span_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct span *sp = (struct span *)tool;

	if (ev->sample->time < sp->first)
		sp->first = ev->sample->time;
	if (ev->sample->time > sp->last)
		sp->last = ev->sample->time;
	return 0;
}

/* samples that do not parse are left to the real pass */
static int span_skip(struct rawfrag_tool *tool, struct rawfrag_session *s,
		     const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

/* Time span for percentage --time: the SAMPLE_TIME feature, else one pass. */
static int time_span(struct report *r)
{
	const struct rawfrag_env *env = rawfrag_file__env(r->file);
	struct span sp = { .tool = { .sz = sizeof(sp.tool), .sample = span_sample,
				     .sample_error = span_skip },
			   .first = env ? env->first_sample_time : 0,
			   .last = env ? env->last_sample_time : 0 };
	struct rawfrag_err err;

	if (!r->time.nr_pct)
		return 0;
	if (!sp.last && rawfrag_file__mode(r->file) == RAWFRAG_MODE_FILE) {
		sp.first = UINT64_MAX;
		if (rawfrag_session__process(r->sess, &sp.tool, &err) < 0 ||
		    rawfrag_session__rewind(r->sess) < 0)
			return -EIO;
		if (sp.first == UINT64_MAX)
			sp.first = 0;
	}
	if (!sp.last) {
		rf_errorf("report", "--time with percentages needs the sample time span (not in this input)");
		return -EINVAL;
	}
	return rf_time__resolve(&r->time, sp.first, sp.last);
}

/*
 * --where on the sample's fields as report --format json writes them (visited,
 * not written). 1 keep, 0 drop, -1 the expression does not apply (r->err set).
 */
static int where_keep(struct report *r, int idx, const struct rawfrag_record *rec,
		      const struct rawfrag_sample *smp)
{
	int ret = rawfrag_where__match_sample(r->where, r->sess, r->evc[idx].ev, rec, smp,
					      r->err);

	if (ret < 0) {
		r->err->offset = (int64_t)rec->offset;
		r->err->rec_type = rec->type;
		r->where_failed = true;
		return -1;
	}
	return ret;
}

static bool pcapng_keep(void *ctx, const struct rawfrag_record *rec,
			const struct rawfrag_sample *smp)
{
	struct report *r = ctx;
	struct rawfrag_evsel *ev = rawfrag_file__evsel_of(r->file, rec);

	if (!ev)
		return false;
	if (r->nr_known < rawfrag_file__nr_evsels(r->file) && update_evsels(r))
		return false;
	if (!keep_sample(r, rawfrag_evsel__idx(ev), smp))
		return false;
	return !r->where || (!r->where_failed && where_keep(r, rawfrag_evsel__idx(ev), rec, smp) > 0);
}

/* One sample of a known evsel: count it, or print it if selected. */
static int report_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			 const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;
	int idx = rawfrag_evsel__idx(ev->evsel);

	if (idx >= r->nr_known && update_evsels(r))
		return -ENOMEM;
	rf_loss_cpus__sample(r->loss, ev->sample);
	if (r->stats) {
		r->ev_samples[idx]++;
		return 0;
	}
	if (!keep_sample(r, idx, ev->sample))
		return 0;
	if (r->where) {
		int w = where_keep(r, idx, ev->rec, ev->sample);

		if (w < 0 && r->force) {
			r->nr_bad++;
			return 0;
		}
		if (w < 0)
			return r->err->err ? r->err->err : -EINVAL;
		if (!w)
			return 0;
	}
	if (r->fmt == FMT_JSON)
		print_json(r, &r->evc[idx], ev->rec, ev->sample);
	else
		print_text(r, &r->evc[idx], ev->rec, ev->sample);
	/* output closed or failed: stop quietly */
	return rawfrag_out__error(r->out) ? 1 : 0;
}

/* a sample with an unknown id or that does not parse: the error, or skip it with -f */
static int report_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			     const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	struct report *r = (struct report *)tool;

	if (!r->force) {
		*r->err = *err;
		return err->err;
	}
	r->nr_bad++;
	return 0;
}

/* LOST: the events lost per CPU, for the warning at the end */
static int report_lost(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;

	rf_loss_cpus__lost(r->loss, ev->rec, ev->sample, r->swap);
	return 0;
}

/* LOST_SAMPLES: per CPU for the warning; --stats shows the samples lost per event */
static int report_lost_samples(struct rawfrag_tool *tool, struct rawfrag_session *s,
			       const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;
	int idx = ev->evsel ? rawfrag_evsel__idx(ev->evsel) : -1;

	rf_loss_cpus__lost(r->loss, ev->rec, ev->sample, r->swap);
	if (!r->stats || ev->rec->size < 16)
		return 0;
	if (idx >= r->nr_known && update_evsels(r))
		return -ENOMEM;
	if (idx >= 0)
		r->ev_lost[idx] += rawfrag__get64((const uint8_t *)ev->rec->data + 8, r->swap);
	return 0;
}

/* new evsels or names (pipe mode): the per-evsel state again */
static int report_describe(struct rawfrag_tool *tool, struct rawfrag_session *s,
			   const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;

	names_forget(r, NULL); /* new tracing data: other saved cmdlines */
	return update_evsels(r) ? -ENOMEM : 0;
}

/*
 * --show-task-events: perf script's line for a COMM, FORK or EXIT record, the
 * start columns of its event (its sample_id_all tid, cpu and time) and
 * perf_event__fprintf()'s text; the name is that of the record's thread.
 */
static void print_task_event(struct report *r, const struct rawfrag_record *rec)
{
	struct rawfrag_evsel *ev = rawfrag_file__evsel_of(r->file, rec);
	const uint8_t *p = rec->data;
	struct rawfrag_sample id = { 0 }, who = { 0 };
	const struct perf_event_attr *a;
	unsigned int f;
	const char *comm;
	int l;

	if (!ev || rec->size < 24 || rawfrag_evsel__idx(ev) >= r->nr_known)
		return;
	a = rawfrag_evsel__attr(ev);
	f = r->evc[rawfrag_evsel__idx(ev)].fields;
	if (!a->sample_id_all || rawfrag_sample__parse_id_trailer(&id, a, rec, r->swap, NULL))
		id = (struct rawfrag_sample){ 0 };
	who.pid = rawfrag__get32(p + 8, r->swap);
	who.tid = rawfrag__get32(p + (rec->type == PERF_RECORD_COMM ? 12 : 16), r->swap);
	comm = task_name(r, &who, &l);
	if (f & F_COMM)
		rawfrag_out__printf(r->out, rs_chain_line(&r->rs, a, f) ? "%.*s " : "%16.*s ", l, comm);
	if ((f & F_PID) && (f & F_TID))
		rawfrag_out__printf(r->out, "%5d/%-5d ", (int32_t)id.pid, (int32_t)id.tid);
	else if (f & (F_PID | F_TID))
		rawfrag_out__printf(r->out, "%5d ", (int32_t)(f & F_PID ? id.pid : id.tid));
	if (f & F_CPU)
		rawfrag_out__printf(r->out, "[%03d] ", (int32_t)id.cpu);
	if (f & F_TIME)
		rawfrag_out__printf(r->out, r->rs.ns ? "%5" PRIu64 ".%09" PRIu64 ": " :
						   "%5" PRIu64 ".%06" PRIu64 ": ",
				    id.time / 1000000000, r->rs.ns ? id.time % 1000000000 :
								     id.time % 1000000000 / 1000);
	if (rec->type == PERF_RECORD_COMM) {
		const char *name = (const char *)p + 16;

		rawfrag_out__printf(r->out, "PERF_RECORD_COMM%s: %.*s:%d/%d\n",
				    rec->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "",
				    (int)strnlen(name, rec->size - 16), name, (int32_t)who.pid,
				    (int32_t)who.tid);
		return;
	}
	rawfrag_out__printf(r->out, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
			    rec->type == PERF_RECORD_FORK ? "FORK" : "EXIT", (int32_t)who.pid,
			    (int32_t)who.tid, (int32_t)rawfrag__get32(p + 12, r->swap),
			    (int32_t)rawfrag__get32(p + 20, r->swap));
}

/* --show-task-events: COMM, FORK and EXIT after the thread table took them */
static int report_task(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;

	print_task_event(r, ev->rec);
	return rawfrag_out__error(r->out) ? 1 : 0;
}

/*
 * --header on a pipe: each feature as its HEADER_FEATURE record arrives, as
 * perf prints them; --header-only stops at the record that ends them.
 */
static int report_header_user(struct rawfrag_tool *tool, struct rawfrag_session *s,
			      const struct rawfrag_event *ev)
{
	struct report *r = (struct report *)tool;
	uint64_t feat;

	if (ev->rec->type != RAWFRAG_RECORD_HEADER_FEATURE || ev->rec->size < 16)
		return 0;
	feat = rawfrag__get64((const uint8_t *)ev->rec->data + 8, r->swap);
	if (feat >= RAWFRAG_FEAT_LAST)
		return r->header_only ? 1 : 0;
	rh_feature(r->out, r->file, (int)feat);
	return rawfrag_out__error(r->out) ? 1 : 0;
}

/* --header-only: the header, and for a pipe its feature records, nothing else */
static int header_only(struct report *r, struct rawfrag_err *err)
{
	int ret = 0;

	rh_top(r->out, r->file, r->input);
	if (rawfrag_file__mode(r->file) == RAWFRAG_MODE_PIPE) {
		r->tool = (struct rawfrag_tool){
			.sz = sizeof(r->tool),
			.user = report_header_user,
			.no_parse = true,
		};
		ret = rawfrag_session__process(r->sess, &r->tool, err);
	}
	rawfrag_out__flush(r->out);
	return ret < 0 ? ret : 0;
}

/* the machine's maps follow every non-sample record in delivery order */
static int machine_observer(void *ctx, struct rawfrag_session *s, const struct rawfrag_event *ev)
{
	struct report *r = ctx;

	rs_machine_record(&r->rs, ev->rec->type);
	names_forget(r, ev->rec);
	return rawfrag_machine__process_record(r->rs.m, ev->rec, r->swap);
}

static int open_output(struct report *r)
{
	int fd = 1;

	if (r->output && strcmp(r->output, "-")) {
		fd = open(r->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			rf_errorf("report", "%s: %s", r->output, strerror(errno));
			return -errno;
		}
	}
	r->out = rawfrag_out__new(fd);
	if (!r->out || !(r->em = rawfrag_emit__new(r->out, r->fmt == FMT_JSON ?
						    RAWFRAG_EMIT_JSON : RAWFRAG_EMIT_TEXT)) ||
	    !(r->line = rawfrag_line__new(r->out, r->fields & LINE_MASK)))
		return -ENOMEM;
	return fd;
}

/* a field --where names that no selected sample had: a typo, or the wrong events */
static bool where_unseen(struct report *r)
{
	const char *f = r->where ? rawfrag_where__unseen_field(r->where) : NULL;

	if (f)
		rf_errorf("report", "--where: no sample has a field '%s' (names as in --format json "
				    "\"fields\"; nested: a.b)", f);
	return f != NULL;
}

static int run(struct report *r)
{
	struct rf_print_ctx pc = { .verbose = r->verbose };
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = rf_lib_print, .print_ctx = &pc,
		     .force = r->force);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = rf_lib_print, .print_ctx = &pc,
		     .dopts = r->dopts);
	struct rawfrag_err err = { .offset = -1 };
	int ret, rc = RF_EXIT_USAGE, fd = -1;

	r->dopts[r->nr_dopts] = NULL;
	r->file = rawfrag_file__open(r->input, &fopts, &err);
	if (!r->file)
		goto fail;
	r->swap = rawfrag_file__needs_swap(r->file);
	r->sess = rawfrag_session__new(r->file, &sopts, &err);
	if (!r->sess)
		goto fail;
	if (r->header_only) {
		fd = open_output(r);
		if (fd < 0)
			goto out;
		if (header_only(r, &err))
			goto fail;
		rc = RF_EXIT_OK;
		goto out;
	}
	if (update_evsels(r))
		goto oom;
	if (check_fields(r))
		goto out;
	if (r->has_time && time_span(r))
		goto out;
	r->filtered = r->has_pid || r->has_tid || r->has_cpu || r->has_time;
	r->err = &err;
	if (r->where_src) {
		r->where = rawfrag_where__new(r->where_src, &err);
		if (!r->where) {
			rf_errorf("report", "%s", err.reason);
			goto out;
		}
		r->wout = rawfrag_out__new(-1);
		r->wem = r->wout ? rawfrag_emit__new(r->wout, RAWFRAG_EMIT_JSON) : NULL;
		if (!r->wem)
			goto oom;
	}
	if (r->fmt == FMT_PCAPNG) {
		ret = report_pcapng(r->sess, r->output ? r->output : "-", r->force, pcapng_keep, r,
				    &err);
		if ((ret < 0 && err.err) || r->where_failed)
			goto fail;
		rc = ret ? RF_EXIT_USAGE : RF_EXIT_OK;
		if (!ret && where_unseen(r))
			rc = RF_EXIT_USAGE;
		goto out;
	}
	r->tool = (struct rawfrag_tool){
		.sz = sizeof(r->tool),
		.sample = report_sample,
		.sample_error = report_bad_sample,
		.lost = report_lost,
		.lost_samples = report_lost_samples,
		.describe = report_describe,
		.ordered = !r->stats && !r->no_order,
		/* --stats parses too: a sample text and JSON refuse is not counted as fine */
	};
	if (r->show_task && !r->stats && r->fmt == FMT_TEXT)
		r->tool.comm = r->tool.fork = r->tool.exit = report_task;
	if (!r->stats) {
		r->mopts.sz = sizeof(r->mopts);
		r->mopts.print = rf_lib_print;
		r->mopts.print_ctx = &pc;
		r->rs.m = rawfrag_machine__new(r->file, &r->mopts);
		r->rs.cc = rawfrag_callchain__new();
		if (!r->rs.m || !r->rs.cc)
			goto oom;
		r->rs.env = rawfrag_file__env(r->file);
		r->rs.arch = r->rs.env ? r->rs.env->arch : NULL;
		rawfrag_session__set_observer(r->sess, machine_observer, r);
	}
	r->loss = rf_loss_cpus__new();
	if (!r->loss)
		goto oom;
	r->name_gen = 1; /* the slots start empty (generation 0) */
	fd = open_output(r);
	if (fd < 0)
		goto out;
	if (r->header) {
		rh_top(r->out, r->file, r->input);
		r->tool.user = report_header_user;
	}
	ret = rawfrag_session__process(r->sess, &r->tool, &err);
	if (ret < 0)
		goto fail;
	if (r->stats)
		print_stats(r);
	rawfrag_out__flush(r->out);
	if (where_unseen(r))
		goto out;
	ret = rawfrag_out__error(r->out);
	if (ret && ret != -EPIPE) {
		rf_errorf("report", "write error: %s", strerror(-ret));
		goto out;
	}
	/* reader closed early (| head): not an error */
	if (r->tool.ordered && r->verbose >= 2) {
		struct rawfrag_process_stats ps = { .sz = sizeof(ps) };

		rawfrag_session__process_stats(r->sess, &ps);
		fprintf(stderr, "perf rawfrag report: the ordering queue held at most %" PRIu64
			" records\n", ps.queue_peak);
	}
	if (r->nr_bad)
		fprintf(stderr, "perf rawfrag report: skipped %" PRIu64 " bad samples (--force)\n",
			r->nr_bad);
	/* what was read: the per-CPU lines and the totals cover the same records */
	rf_loss_warn("report", r->input, r->sess, r->loss);
	rc = RF_EXIT_OK;
	goto out;
oom:
	err.err = -ENOMEM;
	snprintf(err.reason, sizeof(err.reason), "out of memory");
fail:
	if (r->out)
		rawfrag_out__flush(r->out);
	rf_print_err("report", r->input, &err);
out:
	rawfrag_line__delete(r->line);
	rs_ctx__fini(&r->rs);
	rawfrag_machine__delete(r->rs.m);
	rawfrag_callchain__delete(r->rs.cc);
	rawfrag_emit__delete(r->em);
	rawfrag_out__delete(r->out);
	rawfrag_emit__delete(r->wem);
	rawfrag_out__delete(r->wout);
	rawfrag_where__delete(r->where);
	if (fd > 1)
		close(fd);
	rawfrag_session__delete(r->sess);
	rawfrag_file__close(r->file);
	free_evc(r);
	free(r->evc);
	free(r->selected);
	free(r->ev_samples);
	free(r->ev_lost);
	free(r->loss);
	return rc;
}

enum { O_STATS = 256, O_FORMAT, O_META, O_META_BTF, O_PID, O_TID, O_TIME, O_NO_ORDER,
       O_DECODER_OPT, O_MAX_STACK, O_NS, O_SYMFS, O_KALLSYMS, O_SHOW_TASK, O_NO_INLINE,
       O_WHERE, O_HEADER, O_HEADER_ONLY };

static char *dopt(const char *key, const char *val)
{
	char *s;

	if (asprintf(&s, "%s=%s", key, val) < 0)
		return NULL;
	return s;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, O_STATS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .input = "perf.data", .fields = F_DEFAULT };
	char *owned[8] = { 0 };
	int nr_owned = 0, opt, rc = RF_EXIT_USAGE;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:o:vxfe:C:F:Gk:h", longopts, NULL)) != -1) {
		char *d = NULL;

		switch (opt) {
		case 'i': r.input = optarg; break;
		case 'o': r.output = optarg; break;
		case O_STATS: r.stats = true; break;
		case O_FORMAT:
			if (!strcmp(optarg, "text"))
				r.fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				r.fmt = FMT_JSON;
			else if (!strcmp(optarg, "pcapng"))
				r.fmt = FMT_PCAPNG;
			else {
				rf_errorf("report", "unknown format '%s' (text, json, pcapng)", optarg);
				goto out;
			}
			break;
		case 'v':
			r.verbose++;
			r.verbose_text = true;
			break;
		case 'x': d = dopt("hex", "1"); break;
		case O_META: d = dopt("meta", optarg); break;
		case O_META_BTF: d = dopt("meta_btf", optarg); break;
		case O_DECODER_OPT:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				rf_errorf("report", "bad decoder option '%s' (want key=value)", optarg);
				goto out;
			}
			d = strdup(optarg);
			break;
		case 'f': r.force = true; break;
		case O_NO_ORDER: r.no_order = true; break;
		case O_WHERE: r.where_src = optarg; break;
		case 'e': r.events = optarg; break;
		case O_PID:
		case O_TID:
		case 'C': {
			struct rf_list *l = opt == O_PID ? &r.pids : opt == O_TID ? &r.tids : &r.cpus;

			rf_list__free(l);
			if (rf_list__parse(l, optarg)) {
				rf_errorf("report", "bad list '%s' (e.g. 0,2-3)", optarg);
				goto out;
			}
			*(opt == O_PID ? &r.has_pid : opt == O_TID ? &r.has_tid : &r.has_cpu) = true;
			break;
		}
		case O_TIME:
			rf_time__free(&r.time);
			if (rf_time__parse(&r.time, optarg)) {
				rf_errorf("report", "bad time range '%s' (start,stop in seconds, or 10%%-20%%)",
					  optarg);
				goto out;
			}
			r.has_time = true;
			break;
		case 'F':
			if (parse_fields(optarg, &r.fields))
				goto out;
			r.fields_set = true;
			break;
		case 'G': r.rs.hide_cg = true; break;
		case O_NS: r.rs.ns = true; break;
		case O_SHOW_TASK: r.show_task = true; break;
		case O_HEADER: r.header = true; break;
		case O_HEADER_ONLY: r.header_only = true; break;
		case O_NO_INLINE: r.mopts.no_inline = true; break;
		case O_SYMFS: r.mopts.symfs = optarg; break;
		case O_KALLSYMS: r.mopts.kallsyms = optarg; break;
		case 'k': r.mopts.vmlinux = optarg; break;
		case O_MAX_STACK: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v > 65535) {
				rf_errorf("report", "bad --max-stack '%s' (a number of frames)", optarg);
				goto out;
			}
			r.rs.max_stack = v ? (uint32_t)v : 1;
			break;
		}
		case 'h':
			fputs(report_usage, stdout);
			rc = RF_EXIT_OK;
			goto out;
		default:
			rf_errorf("report", "unknown option or missing argument '%s'", argv[optind - 1]);
			fputs(report_usage, stderr);
			goto out;
		}
		if (d) {
			if (nr_owned == (int)(sizeof(owned) / sizeof(owned[0])) - 1) {
				free(d);
				rf_errorf("report", "too many decoder options");
				goto out;
			}
			owned[nr_owned++] = d;
			r.dopts[r.nr_dopts++] = d;
		}
	}
	if (optind < argc) {
		rf_errorf("report", "unexpected argument '%s' (the input is given with -i)",
			  argv[optind]);
		goto out;
	}
	if (r.where_src && r.stats) {
		rf_errorf("report", "--where and --stats do not go together");
		goto out;
	}
	if (r.header && !r.header_only && (r.fmt != FMT_TEXT || r.stats)) {
		rf_errorf("report", "--header goes with text output (not --format json/pcapng or "
				    "--stats); --header-only prints the header alone");
		goto out;
	}
	if (r.fmt == FMT_PCAPNG && r.stats) {
		rf_errorf("report", "--stats and --format pcapng do not go together");
		goto out;
	}
	/* a closed pipe is a write error (EPIPE) that ends the output quietly */
	signal(SIGPIPE, SIG_IGN);
	rc = run(&r);
out:
	for (int i = 0; i < nr_owned; i++)
		free(owned[i]);
	rf_list__free(&r.pids);
	rf_list__free(&r.tids);
	rf_list__free(&r.cpus);
	rf_time__free(&r.time);
	return rc;
}
