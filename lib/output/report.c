// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report of <rawfrag/sink.h>: one session read for one sink. The report is
 * the session's tool; it keeps the selection, the machine, the threads' names
 * and the handling of samples that do not parse, so that every sink sees the
 * same samples and fails on the same records.
 */
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal/file.h"
#include "internal/machine.h"
#include "internal/opts.h"
#include "internal/report.h"

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

/* evsels not seen yet (a pipe adds them as records), and names that changed */
static int update_evsels(struct rawfrag_report *rep)
{
	int n = rawfrag_file__nr_evsels(rep->file);

	if (n > rep->nr_known) {
		bool *sel = realloc(rep->selected, n * sizeof(*sel));

		if (!sel)
			return -ENOMEM;
		rep->selected = sel;
	}
	rep->nr_known = n;
	for (int i = 0; i < n; i++) {
		const char *name = rawfrag_evsel__name(rawfrag_file__evsel(rep->file, i));

		rep->selected[i] = !rep->events || (name && event_matches(rep->events, name));
	}
	return 0;
}

static bool keep_filtered(struct rawfrag_report *rep, const struct rawfrag_sample *smp)
{
	if (rep->has_pid && !rf_list__has(&rep->pids, rf_report__pid(rep, smp)))
		return false;
	if (rep->has_tid && !rf_list__has(&rep->tids, smp->tid))
		return false;
	if (rep->has_cpu && !rf_list__has(&rep->cpus, smp->cpu))
		return false;
	if (rep->has_time && !rf_time__has(&rep->time, smp->time))
		return false;
	return true;
}

static inline bool keep_sample(struct rawfrag_report *rep, int idx,
			       const struct rawfrag_sample *smp)
{
	if (idx >= rep->nr_known || !rep->selected[idx])
		return false;
	return !rep->filtered || keep_filtered(rep, smp);
}

/* a thread without a COMM: the file's saved cmdlines, else perf's names */
static const char *comm_fallback(struct rawfrag_report *rep, const struct rawfrag_sample *smp,
				 char *buf, size_t len)
{
	const char *c = rawfrag_session__saved_comm(rep->sess, smp->pid);

	if (c)
		return c;
	if (smp->tid == 0)
		return "swapper";
	snprintf(buf, len, ":%d", (int32_t)smp->tid);
	return buf;
}

/* rf_report__comm() when the slot holds another task or an older generation */
__attribute__((noinline)) const char *rf_report__comm_find(struct rawfrag_report *rep,
							   const struct rawfrag_sample *smp,
							   struct rf_name_slot *n, int *len)
{
	char buf[32];
	const char *c;

	c = rawfrag_session__thread_comm(rep->sess, (int32_t)smp->pid, (int32_t)smp->tid, len);
	if (!c) {
		c = comm_fallback(rep, smp, buf, sizeof(buf));
		*len = (int)strnlen(c, 32);
	}
	if (*len > 32)
		*len = 32;
	memset(n->name, 0, sizeof(n->name));
	memcpy(n->name, c, *len);
	n->gen = rep->name_gen;
	n->pid = (int32_t)smp->pid;
	n->tid = (int32_t)smp->tid;
	n->len = *len;
	return n->name;
}

/* the records that may rename a thread: names found before are not reused */
static inline void names_forget(struct rawfrag_report *rep, const struct rawfrag_record *rec)
{
	if (!rec || rec->type == PERF_RECORD_COMM || rec->type == PERF_RECORD_FORK ||
	    rec->type == PERF_RECORD_EXIT)
		rep->name_gen++;
}

/*
 * --where on the sample's fields, visited (the answers of the JSON sink's
 * fields). 1 keep, 0 drop, -1 the expression does not apply (rep->err set).
 */
static int where_keep(struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	int ret = rawfrag_where__match_sample(rep->where, rep->sess, ev->evsel, ev->rec,
					      ev->sample, rep->err);

	if (ret < 0) {
		rep->err->offset = (int64_t)ev->rec->offset;
		rep->err->rec_type = ev->rec->type;
		rep->where_failed = true;
		return -1;
	}
	return ret;
}

/* the selection of a sample: 1 keep, 0 drop, or -errno (--where cannot apply) */
static __attribute__((noinline)) int select_sample(struct rawfrag_report *rep, int idx,
						    const struct rawfrag_event *ev)
{
	int w;

	if (!keep_sample(rep, idx, ev->sample))
		return 0;
	if (!rep->where)
		return 1;
	w = where_keep(rep, ev);
	if (w < 0 && rep->force) {
		rep->nr_bad_where++;
		return 0;
	}
	if (w < 0)
		return rep->err->err ? rep->err->err : -EINVAL;
	return w;
}

/*
 * perf finds a sample's thread by tid and keeps the first pid it learns for
 * it: a sample of pid -1 after others of its tid is resolved (maps) and
 * selected (--pid) as that pid, and one of tid -1 teaches thread -1 its pid.
 */
static __attribute__((noinline)) int exiting(struct rawfrag_report *rep,
					    const struct rawfrag_sample *smp)
{
	if (rawfrag_session__thread_pid(rep->sess, (int32_t)smp->pid, (int32_t)smp->tid,
				   &rep->exiting_pid))
		return -1;
	if (rep->m)
		rawfrag_machine__set_exiting(rep->m, rep->exiting_pid);
	return 0;
}

static inline int render(struct rawfrag_report *rep, int idx, const struct rawfrag_event *ev)
{
	if (rep->select) {
		int keep = select_sample(rep, idx, ev);

		if (keep <= 0)
			return keep;
	}
	rep->cur_idx = idx;
	return rep->sink_sample(rep->sink->priv, rep, ev);
}

/* -j split by process: the worker of the sample's process renders it */
static __attribute__((noinline)) int render_own(struct rawfrag_report *rep, int idx,
					       const struct rawfrag_event *ev)
{
	int ret;

	if (!rf_jobs__own_sample(rep, rf_report__pid(rep, ev->sample)))
		return 0;
	ret = render(rep, idx, ev);
	/* a run that stops here ends the output inside this sample's piece */
	if (ret >= 0)
		rep->rendering = false;
	return ret;
}

static int report_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			 const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;
	const struct rawfrag_sample *smp = ev->sample;
	int idx = rawfrag_evsel__idx(ev->evsel);

	if (__builtin_expect(idx >= rep->nr_known, 0) && update_evsels(rep))
		return -ENOMEM;
	if ((smp->sample_type & PERF_SAMPLE_CPU) && smp->cpu < RF_REPORT_CPUS) {
		rep->cpu_samples[smp->cpu]++;
		if ((int)smp->cpu > rep->max_cpu)
			rep->max_cpu = (int)smp->cpu;
	}
	if (rep->tap_sample)
		rep->tap_sample(rep->tap, s, ev);
	if (rf_sample__exiting(smp) && exiting(rep, smp))
		return -ENOMEM;
	if (__builtin_expect(rep->m && rf_sample__unwound(smp), 0) && rf_unwind__touch(rep->m, smp))
		return -ENOMEM;
	/* -j: every worker keeps the state above, one renders the sample */
	if (rep->J) {
		int ret = rf_jobs__step(rep);

		if (!ret && rep->by_pid)
			return render_own(rep, idx, ev);
		if (ret || (!rep->own && !rep->all))
			return ret;
	}
	return render(rep, idx, ev);
}

static int sample_none(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	return 0;
}

/* a sample with an unknown id or that does not parse: the error, or skip it with force */
static int report_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			     const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;

	if (!rep->force) {
		*rep->err = *err;
		return err->err;
	}
	rep->nr_bad++;
	return 0;
}

/*
 * A record other than a sample, to the sink: -j split by process keeps what
 * it writes in the chunk's worker only (the others' is dropped).
 */
static int other(struct rawfrag_report *rep, rf_jobs_op_fn op, const struct rawfrag_event *ev)
{
	return rep->by_pid ? rf_jobs__other(rep, op, ev) : op(rep->sink->priv, rep, ev);
}

static int report_task(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;

	return other(rep, rep->sink->ops.task, ev);
}

static int report_lost(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;
	struct rawfrag_sink *sk = rep->sink;
	rawfrag_tool_fn tap = NULL;

	if (ev->evsel && rawfrag_evsel__idx(ev->evsel) >= rep->nr_known && update_evsels(rep))
		return -ENOMEM;
	if (rep->tap)
		tap = ev->rec->type == PERF_RECORD_LOST ? rep->tap->lost : rep->tap->lost_samples;
	if (tap)
		tap(rep->tap, s, ev);
	return sk->ops.lost ? other(rep, sk->ops.lost, ev) : 0;
}

/* new evsels or names (pipe mode): the selection again, then the sink's state */
static int report_describe(struct rawfrag_tool *tool, struct rawfrag_session *s,
			   const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;
	struct rawfrag_sink *sk = rep->sink;

	names_forget(rep, NULL); /* new tracing data: other saved cmdlines */
	if (update_evsels(rep))
		return -ENOMEM;
	return sk->ops.describe ? other(rep, sk->ops.describe, ev) : 0;
}

static int report_user(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = (struct rawfrag_report *)tool;

	return other(rep, rep->sink->ops.user, ev);
}

/* the machine's maps follow every non-sample record in delivery order */
static int machine_observer(void *ctx, struct rawfrag_session *s, const struct rawfrag_event *ev)
{
	struct rawfrag_report *rep = ctx;

	switch (ev->rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_KSYMBOL:
	case RAWFRAG_RECORD_HEADER_BUILD_ID:
		rep->kgen++;
		break;
	default:
		break;
	}
	names_forget(rep, ev->rec);
	return rep->m ? rawfrag_machine__process_record(rep->m, ev->rec, rep->swap) : 0;
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
static int time_span(struct rawfrag_report *rep, struct rawfrag_err *err)
{
	const struct rawfrag_env *env = rawfrag_file__env(rep->file);
	struct span sp = { .tool = { .sz = sizeof(sp.tool), .sample = span_sample,
				     .sample_error = span_skip },
			   .first = env ? env->first_sample_time : 0,
			   .last = env ? env->last_sample_time : 0 };
	struct rawfrag_err perr;

	if (!rep->time.nr_pct)
		return 0;
	if (!sp.last && rawfrag_file__mode(rep->file) == RAWFRAG_MODE_FILE) {
		sp.first = UINT64_MAX;
		if (rawfrag_session__process(rep->sess, &sp.tool, &perr) < 0 ||
		    rawfrag_session__rewind(rep->sess) < 0) {
			*err = perr;
			return -EIO;
		}
		if (sp.first == UINT64_MAX)
			sp.first = 0;
	}
	if (!sp.last) {
		rf_err_set(err, -EINVAL,
			   "--time with percentages needs the sample time span (not in this input)");
		return -EINVAL;
	}
	return rf_time__resolve(&rep->time, sp.first, sp.last);
}

/* a copy of an optional string option: false when out of memory */
static bool dup_opt(char **dst, const char *src)
{
	return !src || (*dst = strdup(src));
}

/*
 * RAWFRAG_REPORT_JOBS_AUTO: a job per RF_JOBS_AUTO_BYTES of records, at most
 * the CPUs this thread may run on. Every job reads the whole input and keeps
 * its own machine (15-19 MB on a big -g file), so a small input, where
 * that costs more than it saves, stays on one; so does a small compressed
 * input however far it expands, whose decompression buffers each job would
 * hold.
 */
static int auto_jobs(const struct rawfrag_file *f)
{
	uint64_t bytes = 0, n;
	cpu_set_t set;
	struct stat st;
	int cpus = 1;

	if (!rf_file__can_reopen(f))
		return 1;
	if (f->nr_srcs) {
		for (int i = 0; i < f->nr_srcs; i++)
			bytes += f->srcs[i].end - f->srcs[i].start;
	} else if (rawfrag_file__mode(f) == RAWFRAG_MODE_FILE) {
		bytes = rawfrag_file__data_size(f);
	} else if (!fstat(f->fd, &st)) {
		bytes = (uint64_t)st.st_size; /* a regular file in pipe format */
	}
	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = CPU_COUNT(&set);
	n = bytes / RF_JOBS_AUTO_BYTES;
	if (n > (uint64_t)cpus)
		n = (uint64_t)cpus;
	if (n > RAWFRAG_REPORT_MAX_JOBS)
		n = RAWFRAG_REPORT_MAX_JOBS;
	return n ? (int)n : 1;
}

struct rawfrag_report *rawfrag_report__new(struct rawfrag_session *s,
					   const struct rawfrag_report_opts *opts,
					   struct rawfrag_err *err)
{
	struct rawfrag_report *rep;
	char msg[300];

	if (!s) {
		rf_err_set(err, -EINVAL, "rawfrag_report__new: no session");
		return NULL;
	}
	if (RF_OPTS_CHECK(opts, rawfrag_report_opts, err))
		return NULL;
	rep = calloc(1, sizeof(*rep));
	if (!rep) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	rep->sess = s;
	rep->file = rawfrag_session__file(s);
	rep->swap = rawfrag_file__needs_swap(rep->file);
	rep->mopts.sz = sizeof(rep->mopts);
	rep->max_cpu = -1;
	rep->cpu_samples = calloc(RF_REPORT_CPUS, sizeof(*rep->cpu_samples));
	if (!rep->cpu_samples) {
		rf_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (!opts)
		return rep;
	rep->force = opts->force;
	rep->no_order = opts->no_order;
	rep->print = opts->print;
	rep->print_ctx = opts->print_ctx;
	rep->tap = opts->tap;
	if (opts->machine)
		rep->mopts = *opts->machine;
	rep->mopts.sz = sizeof(rep->mopts);
	if (!rep->mopts.print) {
		rep->mopts.print = opts->print;
		rep->mopts.print_ctx = opts->print_ctx;
	}
	if (opts->events && !(rep->events = strdup(opts->events))) {
		rf_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (rf_list__parse_opt(&rep->pids, &rep->has_pid, opts->pids, true, err) ||
	    rf_list__parse_opt(&rep->tids, &rep->has_tid, opts->tids, true, err) ||
	    rf_list__parse_opt(&rep->cpus, &rep->has_cpu, opts->cpus, false, err))
		goto fail;
	if (opts->time) {
		if (rf_time__parse(&rep->time, opts->time)) {
			snprintf(msg, sizeof(msg),
				 "bad time range '%s' (start,stop in seconds, or 10%%-20%%)",
				 opts->time);
			rf_err_set(err, -EINVAL, msg);
			goto fail;
		}
		rep->has_time = true;
	}
	if (opts->where && !(rep->where = rawfrag_where__new(opts->where, err)))
		goto fail;
	rep->njobs = RAWFRAG_OPTS_GET(opts, jobs, 0);
	if (rep->njobs < RAWFRAG_REPORT_JOBS_AUTO || rep->njobs > RAWFRAG_REPORT_MAX_JOBS) {
		snprintf(msg, sizeof(msg), "bad number of jobs %d (1 to %d, 0: one, -1: by the input)",
			 rep->njobs, RAWFRAG_REPORT_MAX_JOBS);
		rf_err_set(err, -EINVAL, msg);
		goto fail;
	}
	if (rep->njobs == RAWFRAG_REPORT_JOBS_AUTO) {
		rep->njobs = auto_jobs(rep->file);
		rep->jobs_auto = true;
	}
	if (rep->njobs > 1 && (!dup_opt(&rep->o_pids, opts->pids) ||
			       !dup_opt(&rep->o_tids, opts->tids) ||
			       !dup_opt(&rep->o_cpus, opts->cpus) ||
			       !dup_opt(&rep->o_time, opts->time) ||
			       !dup_opt(&rep->o_where, opts->where))) {
		rf_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	return rep;
fail:
	rawfrag_report__delete(rep);
	return NULL;
}

void rawfrag_report__delete(struct rawfrag_report *rep)
{
	if (!rep)
		return;
	if (rep->started)
		rawfrag_session__set_observer(rep->sess, NULL, NULL);
	rawfrag_machine__delete(rep->m);
	rawfrag_where__delete(rep->where);
	rf_list__free(&rep->pids);
	rf_list__free(&rep->tids);
	rf_list__free(&rep->cpus);
	rf_time__free(&rep->time);
	free(rep->events);
	free(rep->o_pids);
	free(rep->o_tids);
	free(rep->o_cpus);
	free(rep->o_time);
	free(rep->o_where);
	free(rep->selected);
	free(rep->cpu_samples);
	free(rep);
}

static void report_tool(struct rawfrag_report *rep)
{
	const struct rawfrag_sink_ops *ops = &rep->sink->ops;
	bool no_parse = ops->flags & RAWFRAG_SINK_NO_PARSE;

	rep->tool = (struct rawfrag_tool){
		.sz = sizeof(rep->tool),
		.sample = no_parse ? NULL : report_sample,
		.sample_error = no_parse ? NULL : report_bad_sample,
		.lost = no_parse ? NULL : report_lost,
		.lost_samples = no_parse ? NULL : report_lost,
		.describe = report_describe,
		.user = ops->user ? report_user : NULL,
		.ordered = !(ops->flags & RAWFRAG_SINK_UNORDERED) && !rep->no_order,
		.no_parse = no_parse,
	};
	if (ops->task)
		rep->tool.comm = rep->tool.fork = rep->tool.exit = report_task;
}

int rawfrag_report__start(struct rawfrag_report *rep, struct rawfrag_sink *sk,
			  struct rawfrag_err *err)
{
	int ret;

	if (!rep || !sk || rep->started) {
		rf_err_set(err, -EINVAL, "rawfrag_report__start: no report or sink, or started");
		return -EINVAL;
	}
	memset(err, 0, sizeof(*err));
	err->offset = -1;
	rep->sink = sk;
	rep->err = err;
	if (update_evsels(rep))
		goto oom;
	if (rep->has_time && (ret = time_span(rep, err)))
		return ret;
	rep->filtered = rep->has_pid || rep->has_tid || rep->has_cpu || rep->has_time;
	rep->select = !(sk->ops.flags & RAWFRAG_SINK_UNSELECTED) &&
		      (rep->events || rep->filtered || rep->where);
	rep->tap_sample = rep->tap ? rep->tap->sample : NULL;
	rep->sink_sample = sk->ops.sample ? sk->ops.sample : sample_none;
	if (!(sk->ops.flags & RAWFRAG_SINK_NO_MACHINE) && !(rep->m = rawfrag_machine__new(rep->file, &rep->mopts)))
		goto oom;
	report_tool(rep);
	rep->name_gen = 1; /* the slots start empty (generation 0) */
	rawfrag_session__set_observer(rep->sess, machine_observer, rep);
	rep->started = true;
	if (!sk->ops.begin)
		return 0;
	ret = sk->ops.begin(sk->priv, rep);
	if (ret < 0 && !err->err)
		rf_err_set(err, ret, strerror(-ret));
	return ret;
oom:
	rf_err_set(err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

int rawfrag_report__run(struct rawfrag_report *rep, struct rawfrag_err *err)
{
	int ret;

	if (!rep || !rep->started) {
		rf_err_set(err, -EINVAL, "rawfrag_report__run: not started");
		return -EINVAL;
	}
	memset(err, 0, sizeof(*err));
	err->offset = -1;
	rep->err = err;
	if (rep->njobs > 1 && !rep->J && rf_jobs__possible(rep))
		return rf_jobs__run(rep, err);
	ret = rawfrag_session__process(rep->sess, &rep->tool, err);
	if (ret < 0 && !err->err)
		rf_err_set(err, ret, strerror(-ret));
	return ret;
}

int rawfrag_report__finish(struct rawfrag_report *rep, int status, struct rawfrag_err *err)
{
	const struct rawfrag_sink *sk;
	const char *f;
	char msg[300];
	int ret = 0;

	/* after a failed start there is nothing to end */
	if (rep && !rep->started && status < 0)
		return 0;
	if (!rep || !rep->started) {
		rf_err_set(err, -EINVAL, "rawfrag_report__finish: not started");
		return -EINVAL;
	}
	sk = rep->sink;
	if (sk->ops.end)
		ret = sk->ops.end(sk->priv, rep, status);
	if (status < 0 || ret < 0)
		return ret < 0 ? ret : 0;
	/* a field --where names that no selected sample had: a typo, or the wrong events */
	f = rep->where ? rawfrag_where__unseen_field(rep->where) : NULL;
	if (f) {
		snprintf(msg, sizeof(msg),
			 "--where: no sample has a field '%s' (names as in --format json "
			 "\"fields\"; nested: a.b)", f);
		rf_err_set(err, -ENOENT, msg);
		return -ENOENT;
	}
	return 0;
}

struct rawfrag_session *rawfrag_report__session(const struct rawfrag_report *rep)
{
	return rep ? rep->sess : NULL;
}

struct rawfrag_machine *rawfrag_report__machine(const struct rawfrag_report *rep)
{
	return rep ? rep->m : NULL;
}

struct rawfrag_err *rawfrag_report__err(const struct rawfrag_report *rep)
{
	return rep ? rep->err : NULL;
}

bool rawfrag_report__selected(const struct rawfrag_report *rep, int idx)
{
	return rep && idx >= 0 && idx < rep->nr_known && rep->selected[idx];
}

const char *rawfrag_report__comm(struct rawfrag_report *rep, const struct rawfrag_sample *smp,
				 int *len)
{
	return rf_report__comm(rep, smp, len);
}

uint32_t rawfrag_report__kernel_gen(const struct rawfrag_report *rep)
{
	return rep ? rep->kgen : 0;
}

uint64_t rawfrag_report__nr_skipped(const struct rawfrag_report *rep)
{
	return rep ? rep->nr_bad + rep->nr_bad_where : 0;
}

uint64_t rawfrag_report__cpu_samples(const struct rawfrag_report *rep, uint32_t cpu)
{
	return rep && cpu < RF_REPORT_CPUS ? rep->cpu_samples[cpu] : 0;
}

int rawfrag_report__jobs(const struct rawfrag_report *rep)
{
	return rep && rep->ran_jobs > 1 ? rep->ran_jobs : 1;
}

int rawfrag_report__max_cpu(const struct rawfrag_report *rep)
{
	return rep ? rep->max_cpu : -1;
}
