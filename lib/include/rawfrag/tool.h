/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The stream of a session, as perf's struct perf_tool + perf_session give it:
 * rawfrag_session__process() reads every record, applies the ones that
 * describe the file (attrs, tracing data, features, event updates) to the
 * session itself, keeps a thread table (tid -> pid, comm) from COMM/FORK/EXIT,
 * optionally orders records by time as perf's ordered events do, and calls the
 * tool's handlers with each sample parsed once (its time in sample->time).
 *
 * Order (tool.ordered): records with a time are queued; at each FINISHED_ROUND
 * the ones up to the newest time seen at the round before go out (perf's
 * two-round lag); the rest at the end. Records without a time (0 or none) go
 * out at once, as in perf. The queue holds at most ordered_max_bytes (default
 * 64 MiB; none for a directory recording, which has no rounds and which perf
 * orders whole): past that it delivers the older half of what it holds early,
 * as perf does when its queue is full; a warning through the session's print
 * callback says so at the end.
 *
 * Handlers return 0 to go on, > 0 to stop quietly (rawfrag_session__process()
 * returns that value) or -errno to fail; a failing handler may fill the err
 * given to rawfrag_session__process(), else the session fills it in.
 *
 * Ownership: the record, evsel and sample handed to a handler are valid during
 * the call only.
 */
#ifndef __RAWFRAG_TOOL_H
#define __RAWFRAG_TOOL_H

#include <rawfrag/check.h>
#include <rawfrag/decoder.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One record as a handler gets it. */
struct rawfrag_event {
	const struct rawfrag_record *rec;
	/* the evsel the record's id names; NULL for user records or an unknown id */
	struct rawfrag_evsel *evsel;
	/*
	 * Samples: the parsed sample (NULL with tool.no_parse). Other kernel
	 * records: the sample_id_all trailer when the evsel has one and it parsed
	 * (pid/tid/time/id/cpu), else NULL.
	 */
	const struct rawfrag_sample *sample;
	/* perf's timestamp of the record (sample TIME or trailer time), 0 when none */
	uint64_t time;
};

struct rawfrag_tool;
typedef int (*rawfrag_tool_fn)(struct rawfrag_tool *tool, struct rawfrag_session *s,
			       const struct rawfrag_event *ev);

struct rawfrag_tool {
	size_t sz;
	rawfrag_tool_fn sample;
	/*
	 * A sample whose id names no evsel or that does not parse; err says where
	 * and why. Without this handler, processing stops with that error.
	 */
	int (*sample_error)(struct rawfrag_tool *tool, struct rawfrag_session *s,
			    const struct rawfrag_event *ev, const struct rawfrag_err *err);
	/* kernel records by type, after the session's thread table took them */
	rawfrag_tool_fn comm, fork, exit, mmap, mmap2, ksymbol, lost, lost_samples;
	/* any other kernel record */
	rawfrag_tool_fn other;
	/* after a record that describes the file was applied (evsels may be new) */
	rawfrag_tool_fn describe;
	/* every user record (type >= 64) in file order, after it was applied */
	rawfrag_tool_fn user;
	/*
	 * deliver in time order as perf does, not in file order (a file whose
	 * attrs lack sample_id_all is read in file order, as perf reads it)
	 */
	bool ordered;
	/* do not parse samples (counting only): ev->sample is NULL */
	bool no_parse;
	/* bound of the ordering queue in bytes; 0: 64 MiB, UINT64_MAX: none */
	uint64_t ordered_max_bytes;
};
#define rawfrag_tool__last_field ordered_max_bytes

/*
 * Every record from the file's present position to its end through tool.
 * Returns 0 at the end, a handler's positive value when it stopped, or
 * -errno with err filled in (a reader error, a sample that does not parse
 * without a sample_error handler, a handler's failure, out of memory).
 */
RAWFRAG_API int rawfrag_session__process(struct rawfrag_session *s, struct rawfrag_tool *tool,
					 struct rawfrag_err *err);

/*
 * rawfrag_session__process() one input record at a time, for a caller that
 * pulls (an iterator): reads the next record and hands the tool what it
 * releases (none, one, or a round of the ordering queue); at the end of input
 * it delivers what is still queued. The ordering queue and the thread table
 * live on between calls made with the same tool; another tool, process() or
 * rewind start afresh from the present position.
 * Returns 1 after a record (call again), 0 at the end (and after it), a
 * handler's positive value when it stopped, or -errno with err filled in; the
 * last three end the stepping.
 */
RAWFRAG_API int rawfrag_session__next(struct rawfrag_session *s, struct rawfrag_tool *tool,
				      struct rawfrag_err *err);

/*
 * From a handler during rawfrag_session__next(): make that call return 1
 * after this record, although the ordering queue has more of the round (or
 * of the final flush) to release; the following calls hand those over, in
 * the same order, before the next record is read. A caller that builds
 * objects per sample thus holds a few at a time instead of a round's worth.
 * 0, or -EINVAL when no rawfrag_session__next() is under way.
 */
RAWFRAG_API int rawfrag_session__pause(struct rawfrag_session *s);

/*
 * Back to the first record (file mode; -ESPIPE in pipe mode), with an empty
 * thread table, for a tool that needs two passes.
 */
RAWFRAG_API int rawfrag_session__rewind(struct rawfrag_session *s);

/*
 * Is this user record type one the session applies to itself (attrs,
 * tracing data, features, event updates)?
 */
RAWFRAG_API bool rawfrag_record__describes(uint32_t type);

/*
 * The thread's name as perf's thread table has it at this point of the
 * delivery (COMM sets it, FORK copies the parent's, tid 0 is "swapper"), and
 * its length, in a 16-byte NUL-padded buffer valid until the next call; NULL
 * when no name was set. An unknown tid is added with pid, as perf does.
 */
RAWFRAG_API const char *rawfrag_session__thread_comm(struct rawfrag_session *s, int32_t pid,
						     int32_t tid, int *len);
/*
 * The pid of thread tid in the same table (*out, -1 when none is known):
 * perf keeps the first pid it learns for a tid, so a sample of pid -1 (a
 * task caught exiting) belongs to the process its thread's COMM, FORK or
 * earlier samples named. 0 or -ENOMEM.
 */
RAWFRAG_API int rawfrag_session__thread_pid(struct rawfrag_session *s, int32_t pid, int32_t tid,
					    int32_t *out);

/*
 * Something that wants every non-sample kernel record in delivery order, after
 * the thread table and before the tool's handler (e.g. a map table fed by
 * MMAP/MMAP2/KSYMBOL), and the HEADER_BUILD_ID records of a pipe as they are
 * read. One per session; NULL removes it. Return as a handler.
 */
typedef int (*rawfrag_observer_fn)(void *ctx, struct rawfrag_session *s,
				   const struct rawfrag_event *ev);
RAWFRAG_API void rawfrag_session__set_observer(struct rawfrag_session *s,
					       rawfrag_observer_fn fn, void *ctx);

/*
 * rawfrag_checker__record() for a sample the session delivered (to a sample or
 * sample_error handler): its evsel is known, its parsed sample is used when
 * there is one. Non-sample records are ignored (0).
 */
RAWFRAG_API int rawfrag_checker__event(struct rawfrag_checker *c, const struct rawfrag_event *ev);

/* Statistics of the last rawfrag_session__process() (for -v and tests). */
struct rawfrag_process_stats {
	size_t sz;
	uint64_t queue_peak; /* most records the ordering queue held */
	uint64_t queue_early_flushes; /* flushes because of ordered_max_bytes */
};
#define rawfrag_process_stats__last_field queue_early_flushes
RAWFRAG_API int rawfrag_session__process_stats(const struct rawfrag_session *s,
					       struct rawfrag_process_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_TOOL_H */
