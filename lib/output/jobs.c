// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * -j: one report's samples rendered by several workers, its output byte for
 * byte that of one.
 *
 * Every worker reads the whole input with a file, session, machine and sink of
 * its own, and keeps all the state one report keeps (threads, maps, names, the
 * queue's order), but renders only the samples of its chunks: sample i is in
 * chunk i / 1024 (RF_JOBS_CHUNK_SHIFT), chunk c is worker c % n's. What a worker's
 * sink writes while a chunk is its own is posted as that chunk; chunks are
 * written in order by whichever worker completes the next one. The caller's
 * report is worker 0 and runs on the caller's thread, so its tap, warnings and
 * counts are those of one job.
 *
 * Why copies of the state instead of one reader handing samples out: a sample
 * is rendered with its thread's maps and name as they were at that time, and
 * a copy has them without snapshots or locks. The price is that each worker
 * reads and orders the whole input: -j pays where rendering (symbols, chains,
 * decoding) costs more than reading.
 *
 * DWARF unwinding is split by process instead (J->by_pid, see unwinds()):
 * a chain can depend on the samples of its process unwound before it, so a
 * worker renders every sample of its processes (pid_part()), in every
 * chunk, and the records other than samples of its chunks. Its output in a
 * chunk is marked piece by piece with where one job writes the piece (key
 * 2i + 1: sample i; 2i: what other records wrote before it), and the
 * writer interleaves the workers' pieces of a chunk by key (write_parts()).
 * Every worker still picks every sample's unwinding cache slot
 * (rf_unwind__touch()), so that which caches are flushed does not depend on
 * the split.
 *
 * Messages: while the workers run, every worker's file, session and machine
 * speak into its current chunk; the chunk's owner's are said (through the
 * caller's print functions, on the caller's thread) once the chunk is
 * written, so they come in the order one job says them (split by process:
 * the sample's renderer says what rendering gave, the chunk's owner the
 * rest, in key order). The machine says each of its warnings once (a
 * file it refuses, kernel symbols it cannot read), when a sample first needs
 * it: each worker's machine would, so a machine's message already said is not
 * said again.
 *
 * Aggregating sinks (folded, flamegraph-json, the HTML page, pprof, the
 * table without call chains or filters) write nothing per chunk: each
 * worker counts its chunks' samples, and the caller's sink takes the
 * others' counts before its end writes them (rawfrag_sink.merge).
 *
 * How a run ends: a worker that stops on an error (the input's, which all of
 * them meet at the same sample, or --where's, which only the renderer meets)
 * ends the output at its chunk; the first such chunk wins and workers past it
 * stop. A write error of the output ends it quietly, as one job's would.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/file.h"
#include "internal/machine.h"
#include "internal/opts.h"
#include "internal/out.h"
#include "internal/probes.h"
#include "internal/report.h"
#include "internal/stream.h"
#include "internal/tee.h"
#include "internal/where.h"

/* where a message came from: the caller's print function for it */
enum { MSG_FILE, MSG_SESSION, MSG_MACHINE, NR_MSG };

struct rf_jobs_msg {
	struct rf_jobs_msg *next;
	uint64_t key; /* split by process: where in the output it was said */
	int src;
	enum rawfrag_print_level level;
	char text[];
};

/*
 * Split by process: where a piece of a worker's chunk output starts, and
 * whose it is. Key 2i + 1 is sample i's rendering, key 2i what records other
 * than samples wrote before it; keys grow along a worker's output.
 */
struct rf_jobs_mark {
	uint64_t key;
	size_t off;
};

/* split by process: one worker's share of a chunk */
struct rf_jobs_part {
	char *buf;
	size_t len, cap;
	struct rf_jobs_mark *marks;
	size_t nr_marks;
	struct rf_jobs_msg *msgs;
};

struct rf_jobs_slot {
	char *buf;
	size_t len, cap;
	struct rf_jobs_msg *msgs;
	bool ready;
	struct rf_jobs_part *parts; /* split by process: every worker's, n of them */
	int nr_posted;
};

struct rf_job;

/* a print function's context: the worker and the source */
struct rf_job_ear {
	struct rf_job *w;
	int src;
};

/* written chunks' buffers, handed to the next post: fresh ones would fault in anew */
struct rf_jobs_buf {
	char *buf;
	size_t cap;
};

struct rf_job {
	struct rf_jobs *J;
	struct rawfrag_file *f; /* NULL for worker 0 (the caller's) */
	struct rawfrag_session *s;
	struct rawfrag_sink *sk;
	struct rawfrag_report *rep;
	struct rawfrag_err err;
	pthread_t th;
	bool running;
	int ret;
	struct rf_job_ear ear[NR_MSG];
	struct rf_jobs_msg *msgs, **tail; /* said during the current chunk */
	/* split by process: the current chunk's marks, and where the run stopped */
	struct rf_jobs_mark *marks;
	size_t nr_marks, cap_marks;
	uint64_t stop_key;
};

struct rf_jobs {
	pthread_mutex_t mu;
	pthread_cond_t space;
	int n;
	uint32_t window; /* chunks posted ahead of the writer, at most */
	struct rf_jobs_slot *slots;
	uint64_t next; /* the next chunk to write */
	bool writing;
	uint64_t end; /* the last chunk to write (UINT64_MAX: not known yet) */
	bool write_failed;
	struct rawfrag_out *real; /* the caller's output, written in chunk order */
	struct rf_job *w;
	struct rf_jobs_buf *spare;
	uint32_t nr_spare; /* at most window + n */
	unsigned int chunk_shift;
	/* the caller's print functions, and the machine messages said so far */
	rawfrag_print_fn_t print[NR_MSG];
	void *print_ctx[NR_MSG];
	char **said;
	size_t nr_said, cap_said;
	struct rf_symstore *store; /* the DSOs' symbols, loaded once for all */
	struct rf_tee *tee; /* a pipe's stream for all (not owned); NULL for a file */
	struct rf_probes *probes; /* tracing data probes, made once for all */
	struct rf_jobs_msg *pend, **pend_tail; /* written chunks' messages, not said yet */
	/*
	 * Split by process (DWARF unwinding, see unwinds()): every worker
	 * renders the samples of its processes in every chunk, and the records
	 * other than samples of its chunks; the chunk is written by key from
	 * all workers' parts. The output ends at end_key in chunk end.
	 */
	bool by_pid;
	uint64_t end_key;
	size_t *merge_at; /* the writer's place in each part */
	struct rf_jobs_msg **merge_msgs;
};

/* split by process: where the worker is in the output */
static uint64_t cur_key(const struct rawfrag_report *rep)
{
	return rep->rendering ? ((rep->seq - 1) << 1) | 1 : rep->seq << 1;
}

/* the chunk's records other than samples are this worker's */
static bool chunk_own(const struct rf_jobs *J, const struct rawfrag_report *rep)
{
	return rep->chunk % (uint64_t)J->n == (uint64_t)rep->job;
}

static int hear(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct rf_job_ear *e = ctx;
	struct rf_job *w = e->w;
	struct rf_jobs_msg *m;
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		return n;
	/*
	 * Split by process: every worker reads every record and hears what it
	 * gives; the sample's renderer says what rendering it gave, the chunk's
	 * worker the rest
	 */
	if (w->J->by_pid && !w->rep->rendering && !chunk_own(w->J, w->rep))
		return n;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	m = malloc(sizeof(*m) + (size_t)n + 1);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->key = w->J->by_pid ? cur_key(w->rep) : 0;
	m->src = e->src;
	m->level = level;
	memcpy(m->text, buf, (size_t)n + 1);
	*w->tail = m;
	w->tail = &m->next;
	return n;
}

static void msgs_free(struct rf_jobs_msg *m)
{
	while (m) {
		struct rf_jobs_msg *next = m->next;

		free(m);
		m = next;
	}
}

/* the worker's messages of its chunk, taken (to post) or dropped */
static struct rf_jobs_msg *msgs_take(struct rf_job *w)
{
	struct rf_jobs_msg *m = w->msgs;

	w->msgs = NULL;
	w->tail = &w->msgs;
	return m;
}

/* a machine's message said before (by another worker's machine): true */
static bool said_before(struct rf_jobs *J, const char *text)
{
	char *dup;

	for (size_t i = 0; i < J->nr_said; i++)
		if (!strcmp(J->said[i], text))
			return true;
	if (J->nr_said == J->cap_said) {
		size_t cap = J->cap_said ? 2 * J->cap_said : 16;
		char **v = realloc(J->said, cap * sizeof(*v));

		if (!v)
			return false;
		J->said = v;
		J->cap_said = cap;
	}
	dup = strdup(text);
	if (dup)
		J->said[J->nr_said++] = dup;
	return false;
}

/* written chunks' messages, through the caller's print functions, on the caller's thread */
static void say(struct rf_jobs *J, struct rf_jobs_msg *m)
{
	for (; m; m = m->next) {
		if (m->src == MSG_MACHINE && said_before(J, m->text))
			continue;
		/* a print function may end a line itself unless the format does */
		size_t n = strlen(m->text);
		bool nl = n && m->text[n - 1] == '\n';

		if (J->print[m->src])
			rf_print_va(J->print[m->src], J->print_ctx[m->src], m->level, nl ? "%.*s\n" : "%.*s",
			       (int)(nl ? n - 1 : n), m->text);
	}
}

static struct rawfrag_out *job_out(const struct rawfrag_report *rep)
{
	return rep->sink->out(rep->sink->priv);
}

/*
 * DWARF-unwound chains: libunwind's cache of unwind rules, kept per process
 * as perf keeps it, answers an address as it was first asked (a frame's
 * own address or a return address), so a chain can depend on the samples
 * of its process unwound before it. A worker that unwinds only its chunks
 * would give some samples other chains than one job (3 of 40000 on the
 * DWARF bench file): such a run, or one whose events are not known yet,
 * is not split.
 */
static bool unwinds(struct rawfrag_file *f)
{
	const uint64_t both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t types;

	return rf_file__sample_types(f, &types) || (types & both) == both;
}

bool rf_jobs__possible(const struct rawfrag_report *rep)
{
	const struct rawfrag_sink *sk = rep->sink;

	/*
	 * Split by process: when asked for, not by default, as a recording of
	 * one program (perf record --call-graph dwarf ./prog) has one process
	 * and would pay a second reading for nothing; never where each worker
	 * would unwind every sample
	 */
	if (unwinds(rep->file) && (rep->jobs_auto || (sk->sees_all && sk->sees_all(sk->priv))))
		return false;
	/*
	 * A sink that sees every sample in every job gains only where its own
	 * counting costs more than reading (the table's call trees of a -g
	 * file, not of a tracepoint file): when asked for, not by default
	 */
	if (rep->jobs_auto && sk->sees_all && sk->sees_all(sk->priv))
		return false;
	return sk->out && sk->lib_name && (!sk->splittable || sk->splittable(sk->priv)) &&
	       (rf_file__can_reopen(rep->file) || rf_file__can_tee(rep->file));
}

/*
 * Split by process: a chunk's parts written by key, up to limit; their
 * messages too, in the same order. mu not held: the slot is the writer's.
 */
static struct rf_jobs_msg *write_parts(struct rf_jobs *J, struct rf_jobs_part *parts,
				       uint64_t limit)
{
	size_t *at = J->merge_at;
	struct rf_jobs_msg **m = J->merge_msgs, *out = NULL, **tail = &out;

	for (int p = 0; p < J->n; p++) {
		at[p] = 0;
		m[p] = parts[p].msgs;
		parts[p].msgs = NULL;
	}
	for (;;) {
		const struct rf_jobs_part *pp;
		int best = -1;
		size_t from, to;

		for (int p = 0; p < J->n; p++)
			if (at[p] < parts[p].nr_marks &&
			    (best < 0 || parts[p].marks[at[p]].key < parts[best].marks[at[best]].key))
				best = p;
		if (best < 0 || parts[best].marks[at[best]].key > limit)
			break;
		pp = &parts[best];
		/* bytes before a part's first mark go with it */
		from = at[best] ? pp->marks[at[best]].off : 0;
		to = at[best] + 1 < pp->nr_marks ? pp->marks[at[best] + 1].off : pp->len;
		if (to > from)
			rawfrag_out__write(J->real, pp->buf + from, to - from);
		at[best]++;
	}
	for (;;) {
		int best = -1;

		for (int p = 0; p < J->n; p++)
			if (m[p] && (best < 0 || m[p]->key < m[best]->key))
				best = p;
		if (best < 0 || m[best]->key > limit)
			break;
		*tail = m[best];
		m[best] = m[best]->next;
		tail = &(*tail)->next;
		*tail = NULL;
	}
	for (int p = 0; p < J->n; p++)
		msgs_free(m[p]);
	return out;
}

/* write the chunks that are ready, in order; mu held, dropped while writing */
static void drain(struct rf_jobs *J)
{
	while (!J->writing && J->next <= J->end && J->slots[J->next % J->window].ready) {
		struct rf_jobs_slot *sl = &J->slots[J->next % J->window];
		struct rf_jobs_buf b = { sl->buf, sl->cap };
		struct rf_jobs_msg *msgs = sl->msgs;
		uint64_t limit = J->next == J->end ? J->end_key : UINT64_MAX;
		size_t len = sl->len;

		sl->buf = NULL;
		sl->msgs = NULL;
		sl->ready = false;
		J->writing = true;
		pthread_mutex_unlock(&J->mu);
		if (J->by_pid)
			msgs = write_parts(J, sl->parts, limit);
		else
			rawfrag_out__write(J->real, b.buf, len);
		pthread_mutex_lock(&J->mu);
		/* said on the caller's thread (its print functions may need it) */
		if (msgs) {
			*J->pend_tail = msgs;
			while (msgs->next)
				msgs = msgs->next;
			J->pend_tail = &msgs->next;
		}
		if (J->by_pid) {
			for (int p = 0; p < J->n; p++) {
				struct rf_jobs_part *pp = &sl->parts[p];

				J->spare[J->nr_spare++] = (struct rf_jobs_buf){ pp->buf, pp->cap };
				free(pp->marks);
				*pp = (struct rf_jobs_part){ 0 };
			}
			sl->nr_posted = 0;
		} else {
			J->spare[J->nr_spare++] = b;
		}
		J->writing = false;
		/* the output is closed or failed: one job would stop here too */
		if (rawfrag_out__error(J->real) && !J->write_failed) {
			J->write_failed = true;
			if (J->end > J->next)
				__atomic_store_n(&J->end, J->next, __ATOMIC_RELEASE);
		}
		J->next++;
		pthread_cond_broadcast(&J->space);
	}
}

/*
 * Chunk c's output (o's buffer) to the writer; o gets an empty buffer. Waits
 * while c is a window ahead of the writer. > 0 when c is past the end found.
 */
static int post(struct rf_job *w, uint64_t c, struct rawfrag_out *o)
{
	struct rf_jobs *J = w->J;
	struct rf_jobs_buf fresh = { NULL, 0 };
	struct rf_jobs_msg *msgs = msgs_take(w);
	int ret = 0;

	if (rawfrag_out__error(o)) {
		msgs_free(msgs);
		w->nr_marks = 0;
		return -ENOMEM; /* a memory output fails only so */
	}
	pthread_mutex_lock(&J->mu);
	while (c >= J->next + J->window && c <= J->end)
		pthread_cond_wait(&J->space, &J->mu);
	if (c > J->end) {
		ret = 1;
		o->len = 0;
		w->nr_marks = 0;
	} else {
		struct rf_jobs_slot *sl = &J->slots[c % J->window];

		if (J->nr_spare)
			fresh = J->spare[--J->nr_spare];
		if (J->by_pid) {
			struct rf_jobs_part *pp = &sl->parts[w->rep->job];

			*pp = (struct rf_jobs_part){ .buf = o->buf, .len = o->len, .cap = o->cap,
						     .marks = w->marks, .nr_marks = w->nr_marks,
						     .msgs = msgs };
			w->marks = NULL;
			w->nr_marks = w->cap_marks = 0;
			sl->ready = ++sl->nr_posted == J->n;
		} else {
			sl->buf = o->buf;
			sl->len = o->len;
			sl->cap = o->cap;
			sl->msgs = msgs;
			sl->ready = true;
		}
		msgs = NULL;
		o->buf = NULL;
		o->len = 0;
		drain(J);
	}
	pthread_mutex_unlock(&J->mu);
	msgs_free(msgs);
	if (ret)
		return ret;
	if (!fresh.buf) {
		fresh.cap = o->cap;
		fresh.buf = malloc(fresh.cap);
	}
	o->buf = fresh.buf;
	o->cap = fresh.buf ? fresh.cap : 0;
	if (!fresh.buf) {
		o->err = -ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

/* the caller's thread says the written chunks' messages, in order */
static void say_pending(struct rf_jobs *J)
{
	struct rf_jobs_msg *m;

	pthread_mutex_lock(&J->mu);
	m = J->pend;
	J->pend = NULL;
	J->pend_tail = &J->pend;
	pthread_mutex_unlock(&J->mu);
	say(J, m);
	msgs_free(m);
}

uint32_t rf_jobs__part(const struct rawfrag_report *rep, uint32_t *n)
{
	*n = rep->J && rep->all ? (uint32_t)rep->J->n : 1;
	return *n > 1 ? (uint32_t)rep->job : 0;
}

int rf_jobs__turn(struct rawfrag_report *rep, uint64_t c)
{
	struct rf_jobs *J = rep->J;
	struct rawfrag_out *o = job_out(rep);
	int ret = 0;

	if (rep->own || J->by_pid) {
		ret = post(&J->w[rep->job], rep->chunk, o);
	} else {
		o->len = 0; /* task lines and the like of another's chunk */
		msgs_free(msgs_take(&J->w[rep->job]));
	}
	rep->chunk = c;
	rep->own = c % (uint64_t)J->n == (uint64_t)rep->job;
	if (!ret && c > __atomic_load_n(&J->end, __ATOMIC_ACQUIRE))
		ret = 1;
	if (rep->job == 0)
		say_pending(J);
	if (ret > 0)
		rep->past_end = true;
	if (ret < 0)
		rf_err_set(rep->err, ret, "out of memory");
	return ret;
}

static void mark(struct rf_job *w, uint64_t key, size_t off)
{
	if (w->nr_marks) {
		struct rf_jobs_mark *last = &w->marks[w->nr_marks - 1];

		if (last->key == key)
			return; /* the same piece goes on */
		if (last->off == off) {
			*last = (struct rf_jobs_mark){ key, off }; /* an empty piece */
			return;
		}
	}
	if (w->nr_marks == w->cap_marks) {
		size_t cap = w->cap_marks ? 2 * w->cap_marks : 256;
		struct rf_jobs_mark *v = realloc(w->marks, cap * sizeof(*v));

		if (!v) {
			/* a failed output: post() reports it, one job's out of memory */
			job_out(w->rep)->err = -ENOMEM;
			return;
		}
		w->marks = v;
		w->cap_marks = cap;
	}
	w->marks[w->nr_marks++] = (struct rf_jobs_mark){ key, off };
}

/* pids in turn (dd, ls, dd, ...) should not all go to one worker */
static uint32_t pid_part(uint32_t pid, int n)
{
	return ((pid * 2654435761u) >> 8) % (uint32_t)n;
}

bool rf_jobs__own_sample(struct rawfrag_report *rep, uint32_t pid)
{
	struct rf_jobs *J = rep->J;

	if (pid_part(pid, J->n) != (uint32_t)rep->job)
		return false;
	rep->rendering = true;
	mark(&J->w[rep->job], cur_key(rep), job_out(rep)->len);
	return true;
}

int rf_jobs__other(struct rawfrag_report *rep, rf_jobs_op_fn op, const struct rawfrag_event *ev)
{
	struct rawfrag_out *o = job_out(rep);
	size_t before = o->len;
	int ret = op(rep->sink->priv, rep, ev);

	if (!chunk_own(rep->J, rep))
		o->len = before < o->len ? before : o->len;
	else if (o->len > before)
		mark(&rep->J->w[rep->job], cur_key(rep), before);
	return ret;
}

/* a worker's run ended with ret: its last chunk is the output's end, or past it */
static void job_end(struct rf_job *w, int ret)
{
	struct rawfrag_report *rep = w->rep;
	struct rf_jobs *J = w->J;

	w->ret = ret;
	if (rep->past_end)
		return;
	pthread_mutex_lock(&J->mu);
	if (J->by_pid) {
		/* the others may have written past it in this chunk: the writer stops there */
		w->stop_key = cur_key(rep);
		if (w->stop_key < J->end_key) {
			J->end_key = w->stop_key;
			__atomic_store_n(&J->end, rep->chunk, __ATOMIC_RELEASE);
			pthread_cond_broadcast(&J->space);
		}
	} else if (rep->chunk < J->end) {
		__atomic_store_n(&J->end, rep->chunk, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&J->space);
	}
	pthread_mutex_unlock(&J->mu);
	if (!rep->own && !J->by_pid)
		msgs_free(msgs_take(w));
	else if (post(w, rep->chunk, job_out(rep)) < 0 && w->ret >= 0) {
		w->ret = -ENOMEM;
		rf_err_set(&w->err, -ENOMEM, "out of memory");
	}
}

static void *job_main(void *arg)
{
	struct rf_job *w = arg;
	struct rawfrag_report *rep = w->rep;

	rep->err = &w->err;
	job_end(w, rawfrag_session__process(rep->sess, &rep->tool, &w->err));
	/* reads no more: the others need not wait for it */
	rf_file__untee(w->f);
	rf_probes__leave(w->J->probes, (int)(w - w->J->w));
	return NULL;
}

/* the worker's file, session and machine speak into its chunk */
static void job_listen(struct rf_job *w)
{
	struct rawfrag_report *rep = w->rep;

	for (int k = 0; k < NR_MSG; k++)
		w->ear[k] = (struct rf_job_ear){ .w = w, .src = k };
	w->tail = &w->msgs;
	rep->file->print = hear;
	rep->file->print_ctx = &w->ear[MSG_FILE];
	rf_session__set_print(rep->sess, hear, &w->ear[MSG_SESSION]);
	rf_session__set_probes(rep->sess, w->J->probes);
	rep->all = rep->sink->sees_all && rep->sink->sees_all(rep->sink->priv);
	if (rep->m) {
		rf_machine__set_print(rep->m, hear, &w->ear[MSG_MACHINE]);
		rf_machine__set_symstore(rep->m, w->J->store);
	}
}

/* worker i's copy of the caller's report: its own file, session, sink; quiet */
static int job_open(struct rf_jobs *J, struct rawfrag_report *main, int i)
{
	struct rf_job *w = &J->w[i];
	struct rawfrag_machine_opts mo = main->mopts;
	RAWFRAG_OPTS(rawfrag_sink_opts, ko, .kv = (const char *const *)main->sink->kv);
	RAWFRAG_OPTS(rawfrag_report_opts, ro, .events = main->events, .pids = main->o_pids,
		     .tids = main->o_tids, .cpus = main->o_cpus, .time = main->o_time,
		     .where = main->o_where, .force = main->force, .no_order = main->no_order,
		     .machine = &mo);
	struct rawfrag_out *o;

	mo.print = NULL;
	mo.print_ctx = NULL;
	w->J = J;
	w->err.offset = -1;
	w->f = J->tee ? rf_file__open_tee(main->file, J->tee, i) : rf_file__reopen(main->file);
	if (!w->f ||
	    !(w->s = rf_session__clone(main->sess, w->f, &w->err)) ||
	    !(w->sk = rawfrag_sink__open(main->sink->lib_name, &ko, &w->err)) ||
	    !(w->rep = rawfrag_report__new(w->s, &ro, &w->err)) ||
	    rawfrag_report__start(w->rep, w->sk, &w->err))
		return -1;
	/* the copy's output stays in memory: what it wrote before its first chunk is dropped */
	o = job_out(w->rep);
	o->fd = -1;
	o->len = 0;
	w->rep->J = J;
	w->rep->job = i;
	w->rep->by_pid = J->by_pid;
	w->rep->chunk_shift = J->chunk_shift;
	job_listen(w);
	return 0;
}

static void jobs_free(struct rf_jobs *J)
{
	for (int i = 1; J->w && i < J->n; i++) {
		struct rf_job *w = &J->w[i];

		rawfrag_report__delete(w->rep);
		rawfrag_sink__delete(w->sk);
		rawfrag_session__delete(w->s);
		rawfrag_file__close(w->f);
	}
	for (int i = 0; J->w && i < J->n; i++)
		msgs_free(msgs_take(&J->w[i]));
	for (int i = 0; J->w && i < J->n; i++)
		free(J->w[i].marks);
	for (uint32_t i = 0; J->slots && i < J->window; i++) {
		free(J->slots[i].buf);
		msgs_free(J->slots[i].msgs);
		for (int p = 0; J->slots[i].parts && p < J->n; p++) {
			free(J->slots[i].parts[p].buf);
			free(J->slots[i].parts[p].marks);
			msgs_free(J->slots[i].parts[p].msgs);
		}
		free(J->slots[i].parts);
	}
	free(J->merge_at);
	free(J->merge_msgs);
	msgs_free(J->pend);
	for (size_t i = 0; i < J->nr_said; i++)
		free(J->said[i]);
	free(J->said);
	rf_symstore__delete(J->store);
	rf_probes__delete(J->probes);
	for (uint32_t i = 0; i < J->nr_spare; i++)
		free(J->spare[i].buf);
	free(J->spare);
	free(J->slots);
	free(J->w);
	pthread_mutex_destroy(&J->mu);
	pthread_cond_destroy(&J->space);
	free(J);
}

static unsigned int chunk_shift(void)
{
	const char *v = getenv("RAWFRAG_JOBS_CHUNK");
	unsigned long n = v ? strtoul(v, NULL, 10) : 0;

	if (!n || (n & (n - 1)) || n > (1UL << 20))
		return RF_JOBS_CHUNK_SHIFT;
	return (unsigned int)__builtin_ctzl(n);
}

static struct rf_jobs *jobs_new(struct rawfrag_report *rep, struct rf_tee *tee)
{
	struct rf_jobs *J = calloc(1, sizeof(*J));

	if (!J)
		return NULL;
	pthread_mutex_init(&J->mu, NULL);
	pthread_cond_init(&J->space, NULL);
	J->n = rep->njobs;
	J->window = 4 * (uint32_t)J->n;
	J->chunk_shift = chunk_shift();
	J->end = UINT64_MAX;
	J->end_key = UINT64_MAX;
	J->by_pid = unwinds(rep->file);
	J->tee = tee;
	J->pend_tail = &J->pend;
	J->slots = calloc(J->window, sizeof(*J->slots));
	J->w = calloc(J->n, sizeof(*J->w));
	/* every buffer is o's, a slot's (n parts of it split by process) or spare */
	J->spare = calloc(J->by_pid ? (J->window + 1) * (size_t)J->n : J->window + J->n,
			  sizeof(*J->spare));
	if (J->by_pid && J->slots) {
		bool ok = (J->merge_at = calloc(J->n, sizeof(*J->merge_at))) &&
			  (J->merge_msgs = calloc(J->n, sizeof(*J->merge_msgs)));

		for (uint32_t i = 0; ok && i < J->window; i++)
			ok = (J->slots[i].parts = calloc(J->n, sizeof(*J->slots[i].parts)));
		if (!ok) {
			jobs_free(J);
			return NULL;
		}
	}
	J->store = rf_symstore__new();
	J->probes = rf_probes__new(J->n);
	if (!J->slots || !J->w || !J->spare || !J->store || !J->probes) {
		jobs_free(J);
		return NULL;
	}
	J->w[0] = (struct rf_job){ .J = J, .rep = rep, .sk = rep->sink, .s = rep->sess };
	for (int i = 1; i < J->n; i++) {
		if (job_open(J, rep, i)) {
			J->n = i + 1; /* what job_open() made is freed */
			jobs_free(J);
			return NULL;
		}
	}
	return J;
}

/*
 * The run's status: that of the worker whose end came first in the output
 * (an error before a clean end in the same chunk); a write error ends it
 * quietly. Its error goes to err.
 */
static int jobs_status(struct rf_jobs *J, struct rawfrag_err *err)
{
	const struct rf_job *best = NULL;

	for (int i = 0; i < J->n; i++) {
		const struct rf_job *w = &J->w[i];

		if (w->rep->past_end)
			continue;
		if (J->by_pid ? !best || w->stop_key < best->stop_key ||
				    (w->stop_key == best->stop_key && w->ret < 0 && best->ret >= 0) :
				!best || w->rep->chunk < best->rep->chunk ||
				    (w->rep->chunk == best->rep->chunk && w->ret < 0 && best->ret >= 0))
			best = w;
	}
	if (best && best->ret < 0) {
		*err = best->err;
		return best->ret;
	}
	return J->write_failed ? 1 : best ? best->ret : 0;
}

/* stop the workers that started (end at chunk 0, which is worker 0's) and wait */
static void jobs_abort(struct rf_jobs *J)
{
	pthread_mutex_lock(&J->mu);
	__atomic_store_n(&J->end, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&J->space);
	pthread_mutex_unlock(&J->mu);
	for (int i = 1; i < J->n; i++)
		if (J->w[i].running)
			pthread_join(J->w[i].th, NULL);
}

static int jobs_run(struct rawfrag_report *rep, struct rawfrag_err *err, struct rf_tee *tee)
{
	struct rawfrag_out *o = job_out(rep);
	struct rf_jobs *J;
	int ret, fd = o->fd;

	/* what begin() wrote goes first; then worker 0 writes to memory too */
	if (rawfrag_out__flush(o) < 0)
		return 1;
	J = jobs_new(rep, tee);
	if (J && !(J->real = rawfrag_out__new(fd))) {
		jobs_free(J);
		J = NULL;
	}
	for (int i = 1; J && i < J->n; i++) {
		if (pthread_create(&J->w[i].th, NULL, job_main, &J->w[i])) {
			jobs_abort(J);
			rawfrag_out__delete(J->real);
			jobs_free(J);
			J = NULL;
			break;
		}
		J->w[i].running = true;
	}
	/* no memory or no thread for the copies: one job, as asked for without -j */
	if (!J) {
		rep->ran_jobs = 1;
		if (tee)
			rf_tee__only(tee, 0);
		return rawfrag_session__process(rep->sess, &rep->tool, err);
	}
	o->fd = -1;
	J->print[MSG_FILE] = rep->file->print;
	J->print_ctx[MSG_FILE] = rep->file->print_ctx;
	rf_session__get_print(rep->sess, &J->print[MSG_SESSION], &J->print_ctx[MSG_SESSION]);
	if (rep->m)
		rf_machine__get_print(rep->m, &J->print[MSG_MACHINE], &J->print_ctx[MSG_MACHINE]);
	job_listen(&J->w[0]);
	rep->J = J;
	rep->job = 0;
	rep->by_pid = J->by_pid;
	rep->own = true;
	rep->chunk_shift = J->chunk_shift;
	J->w[0].err = *err;
	rep->err = &J->w[0].err;
	job_end(&J->w[0], rawfrag_session__process(rep->sess, &rep->tool, &J->w[0].err));
	rf_file__untee(rep->file);
	rf_probes__leave(J->probes, 0);
	for (int i = 1; i < J->n; i++)
		pthread_join(J->w[i].th, NULL);
	pthread_mutex_lock(&J->mu);
	drain(J);
	pthread_mutex_unlock(&J->mu);
	say_pending(J);
	rep->err = err;
	rep->file->print = J->print[MSG_FILE];
	rep->file->print_ctx = J->print_ctx[MSG_FILE];
	rf_session__set_print(rep->sess, J->print[MSG_SESSION], J->print_ctx[MSG_SESSION]);
	rf_session__set_probes(rep->sess, NULL);
	if (rep->m) {
		rf_machine__set_print(rep->m, J->print[MSG_MACHINE], J->print_ctx[MSG_MACHINE]);
		rf_machine__set_symstore(rep->m, NULL);
	}
	ret = jobs_status(J, err);
	/* an aggregating sink writes at its end: the workers' counts first */
	if (!ret && rep->sink->merge) {
		void **others = calloc((size_t)J->n, sizeof(*others));

		for (int i = 1; others && i < J->n; i++)
			others[i - 1] = J->w[i].sk->priv;
		ret = others ? rep->sink->merge(rep->sink->priv, others, J->n - 1) : -ENOMEM;
		if (ret)
			rf_err_set(err, ret, ret == -ENOMEM ? "out of memory" :
					     "the workers' counts do not merge");
		free(others);
	}
	/* the caller's output again, with its error */
	rawfrag_out__flush(J->real);
	o->fd = fd;
	o->len = 0;
	o->err = rawfrag_out__error(J->real);
	J->real->fd = -1; /* not flushed again by its delete */
	rawfrag_out__delete(J->real);
	for (int i = 1; i < J->n; i++) {
		struct rawfrag_report *w = J->w[i].rep;

		rep->nr_bad_where += w->nr_bad_where;
		if (rep->where && w->where)
			rf_where__merge_seen(rep->where, w->where);
	}
	rep->J = NULL;
	rep->all = false;
	rep->by_pid = false;
	rep->ran_jobs = J->n;
	jobs_free(J);
	return ret;
}

/* RAWFRAG_JOBS_TEE=N: how far (bytes) a pipe's readers may run ahead, for tests */
static uint64_t tee_bound(void)
{
	const char *v = getenv("RAWFRAG_JOBS_TEE");
	unsigned long long n = v ? strtoull(v, NULL, 10) : 0;

	return n ? n : RF_JOBS_TEE_BOUND;
}

int rf_jobs__run(struct rawfrag_report *rep, struct rawfrag_err *err)
{
	struct rf_tee *tee = NULL;
	int ret;

	/* a pipe: every worker parses its stream, which only a tee reads */
	if (!rf_file__can_reopen(rep->file)) {
		tee = rf_file__tee(rep->file, rep->njobs, tee_bound());
		if (!tee) {
			rep->ran_jobs = 1;
			return rawfrag_session__process(rep->sess, &rep->tool, err);
		}
	}
	ret = jobs_run(rep, err, tee);
	rf_file__untee(rep->file);
	rf_tee__delete(tee);
	return ret;
}
