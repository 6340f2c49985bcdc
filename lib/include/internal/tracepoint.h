/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoint producer internals, shared by lib/decoders/tracepoint*.c and the
 * in-tree tests: the parsed tracing data of one perf.data file (HEADER_TRACING_DATA
 * or the pipe-mode TRACING_DATA record), in the shape perf's trace_report() leaves
 * its tep_handle, plus the saved cmdlines as a pid -> comm table.
 *
 * Ownership: a rawfrag_tp_data owns its tep_handle and its comm table; the blob it
 * was parsed from is not referenced after rawfrag_tp_data__parse() returns.
 */
#ifndef __RAWFRAG_INTERNAL_TRACEPOINT_H
#define __RAWFRAG_INTERNAL_TRACEPOINT_H

#include <rawfrag/decoder.h>

struct tep_handle;

struct rawfrag_tp_comm {
	uint32_t pid;
	char comm[20];
};

struct rawfrag_tp_data {
	struct tep_handle *tep;
	bool big_endian; /* numbers of the blob and of the payloads */
	bool swap; /* big_endian != host order */
	int long_size; /* after header_page, as perf sets it */
	uint32_t page_size;
	char version[16];
	int nr_formats; /* formats that parsed */
	int nr_bad_formats; /* formats libtraceevent refused (warned) */
	/* saved cmdlines, sorted by pid (last entry wins for duplicates) */
	struct rawfrag_tp_comm *comms;
	size_t nr_comms;
};

/*
 * Parse a tracing-data blob as perf's trace_report() does (version, byte order,
 * long size, page size, header_page, ftrace and event formats, printk formats,
 * saved cmdlines) into td. Every length is checked against size. A format that
 * libtraceevent refuses is skipped with a warning through ctx (may be NULL); a
 * blob that is cut short keeps what parsed before the cut and returns -EINVAL
 * with err->reason saying where (err->offset = offset inside the blob).
 */
int rawfrag_tp_data__parse(struct rawfrag_tp_data *td, const void *blob, uint64_t size,
			   const struct rawfrag_decoder_ctx *ctx, struct rawfrag_err *err);
void rawfrag_tp_data__fini(struct rawfrag_tp_data *td);

/* Register kernel symbols from a kallsyms text file for %ps/%pS print formats. */
int rawfrag_tp_data__load_kallsyms(struct rawfrag_tp_data *td, const char *path);

/* Saved-cmdline task name of pid, or NULL. */
const char *rawfrag_tp_data__comm(const struct rawfrag_tp_data *td, uint32_t pid);

/*
 * A print fmt compiled for the fast text path (tracepoint_print.c). compile()
 * returns NULL when the format uses something only libtraceevent can print;
 * print() renders one payload whose fixed part and dynamic locators have been
 * checked to lie inside size bytes.
 */
struct tep_event;
struct rawfrag_tp_prog;
struct rawfrag_tp_prog *rawfrag_tp_prog__compile(const struct tep_event *ev, bool swap,
						 int long_size);
void rawfrag_tp_prog__free(struct rawfrag_tp_prog *p);
void rawfrag_tp_prog__print(const struct rawfrag_tp_prog *p, const uint8_t *data, uint32_t size,
			    struct rawfrag_out *o);

/*
 * The tracepoint decoder's probe without an evsel: bind event id config using the
 * file state in ctx->file_priv (from the decoder's file_init). Returns 100 and the
 * per-event state in *priv (free with the decoder's release), 0 if the tracing
 * data has no such event. For tests and tools that have payloads but no evsel.
 */
int rawfrag_tp__bind(struct rawfrag_decoder_ctx *ctx, uint64_t config, void **priv);

#endif /* __RAWFRAG_INTERNAL_TRACEPOINT_H */
