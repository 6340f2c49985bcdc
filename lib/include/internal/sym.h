/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report's columns about where a sample happened, as perf script prints them:
 * ip/sym/symoff/dso (or the call chain, one frame a line), addr, period,
 * iregs/uregs, tod, flags; and the same as JSON members.
 */
#ifndef __RAWFRAG_INTERNAL_SYM_H
#define __RAWFRAG_INTERNAL_SYM_H

#include <rawfrag/machine.h>
#include <rawfrag/emit.h>

enum {
	F_COMM = 1, F_PID = 2, F_TID = 4, F_CPU = 8, F_TIME = 16, F_EVENT = 32, F_TRACE = 64,
	F_IP = 1 << 7, F_SYM = 1 << 8, F_SYMOFF = 1 << 9, F_DSO = 1 << 10, F_ADDR = 1 << 11,
	F_PERIOD = 1 << 12, F_IREGS = 1 << 13, F_UREGS = 1 << 14, F_TOD = 1 << 15,
	F_FLAGS = 1 << 16,
};
#define F_DEFAULT (F_COMM | F_TID | F_CPU | F_TIME | F_EVENT | F_TRACE)
#define F_SYMS (F_IP | F_SYM | F_SYMOFF | F_DSO)

/*
 * A sample's JSON ip/sym/symoff/dso members as last written for its ip: a
 * tracepoint file's samples come from a handful of ips, and writing the names
 * (escaped) again was a tenth of a JSON line. Valid while the lookup gives the
 * same symbol, offset and DSO: names stay where they are for the machine's life.
 */
#define RS_FRAME_CACHE 64
#define RS_FRAME_TEXT 176
struct rs_frame_json {
	uint64_t ip, symoff;
	const char *sym, *dso;
	uint16_t len; /* 0: empty */
	bool inlined;
	/*
	 * A kernel ip's text may be used without a lookup once a second lookup
	 * gave the same frame (the first may load the symbols, which moves the
	 * map), while no record that changes kernel maps came since (kgen).
	 */
	bool kernel, verified;
	uint32_t kgen;
	char text[RS_FRAME_TEXT + 32]; /* 32 bytes of slack: copied in 32-byte moves */
};

struct rs_ctx {
	struct rawfrag_machine *m;
	struct rawfrag_callchain *cc;
	const struct rawfrag_env *env;
	const char *arch;
	bool hide_cg, ns;
	uint32_t max_stack;
	struct rs_frame_json *fjson; /* RS_FRAME_CACHE entries, made at first use */
	struct rawfrag_out *fmem; /* a frame's members written apart for fjson */
	/* the report's count of records that moved kernel maps (rawfrag_report__kernel_gen) */
	const uint32_t *kgen;
};

/* frees what the ctx made for itself (not m, cc, env) */
void rs_ctx__fini(struct rs_ctx *c);

/* perf script's default columns for an evsel (-F not given) */
unsigned int rs_default_fields(const struct perf_event_attr *a, bool any_tp_chain);
/* fields the sample can give (perf drops the others from its defaults) */
unsigned int rs_available(const struct perf_event_attr *a);
/* comm printed "%s " (chain lines follow) instead of "%16s " */
static inline bool rs_chain_line(const struct rs_ctx *c, const struct perf_event_attr *a,
				 unsigned int f)
{
	return (f & F_IP) && (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !c->hide_cg;
}
/* columns after the event name and the trace text, up to the end of the line */
void rs_text_tail(struct rs_ctx *c, struct rawfrag_out *o, unsigned int f,
		  const struct rawfrag_sample *s, const struct perf_event_attr *a);
/*
 * The head columns of a sample with a chain or symbols (comm, pid/tid, time)
 * as text_head's printf formats give them, put by hand: they were a fifth of
 * the time of a -g file's report.
 */
void rs_text_comm(struct rawfrag_out *o, const char *comm, int len, bool pad);
void rs_text_pid_tid(struct rawfrag_out *o, unsigned int f, int32_t pid, int32_t tid);
/* "%5lu.%06lu: " */
void rs_text_time(struct rawfrag_out *o, uint64_t t);
/* the tod column at p (at most 48 bytes); returns the end */
char *rs_text_tod(struct rs_ctx *c, char *p, uint64_t t);
/* ,"ip":..,"sym":..,"symoff":..,"dso":..,"addr":..,"period":..,"callchain":[..],"regs":{..} */
void rs_json(struct rs_ctx *c, struct rawfrag_out *o, const struct rawfrag_sample *s,
	     const struct perf_event_attr *a);

#endif
