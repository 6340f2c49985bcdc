/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the perf script plugins (the --dlfilter object and the Python module's
 * Decoder) share: finding perf script's input, opening it beside perf, and
 * decoding/checking one sample that perf hands over (event + raw bytes).
 *
 * perf gives a plugin the sample fields and the raw bytes but not the tracing
 * formats, CPUID or PMU mappings: those come from opening the same perf.data
 * ourselves. perf's stdin cannot be shared (reading it would take perf's
 * records away), so a pipe on stdin is reported, never read.
 *
 * Ownership: a struct rfp owns its file, session, checker and buffers; results
 * point into them and are valid until the next rfp_process().
 */
#ifndef __RFPLUGIN_H
#define __RFPLUGIN_H

#include <rawfrag/rawfrag.h>

enum rfp_input {
	RFP_INPUT_FILE, /* path holds the file perf script reads */
	RFP_INPUT_PIPE, /* perf script reads its stdin (-i - or a FIFO on stdin) */
};

/*
 * perf script's input as perf decides it (builtin-script.c, util/data.c):
 * -i/--input from /proc/self/cmdline, "-" or (without -i) a FIFO on stdin is
 * a pipe, else "perf.data".
 */
enum rfp_input rfp_perf_input(char *path, size_t len);

struct rfp {
	struct rawfrag_file *file;
	struct rawfrag_session *sess;
	struct rawfrag_checker *chk;
	bool swap;
	uint8_t buf[65536 + 8]; /* the re-synthesized record */
};

/*
 * Open path (a perf.data in file or pipe format, never stdin) with a session and
 * a checker. A pipe-format file is read through once so its attrs and tracing
 * data are known. 0 or -errno with err filled in.
 */
int rfp_open(struct rfp *p, const char *path, bool strict, rawfrag_print_fn_t print,
	     void *print_ctx, struct rawfrag_err *err);
void rfp_close(struct rfp *p);

/* The evsel of a sample: by sample id, else by attr (type, config, sample_type). */
struct rawfrag_evsel *rfp_find_evsel(struct rfp *p, uint64_t id,
				     const struct perf_event_attr *attr);
/* The evsel named name (perf script's ev_name), NULL if none. */
struct rawfrag_evsel *rfp_evsel_by_name(struct rfp *p, const char *name);

struct rfp_result {
	struct rawfrag_evsel *evsel;
	const struct rawfrag_decoder *dec;
	int errors;
	int first_violation, nr_violations;
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
};

/*
 * Rebuild the sample record of evsel in the file's byte order from in (host
 * order scalars, raw_data/raw_size as perf gives them), then check it as
 * `perf rawfrag check` would. 0 or -errno (-E2BIG: does not fit a record).
 */
int rfp_process(struct rfp *p, struct rawfrag_evsel *evsel, const struct rawfrag_sample *in,
		uint16_t misc, struct rfp_result *r);
/* The decoder's fields of a processed sample into em (inside the caller's object). */
void rfp_fields(struct rfp *p, const struct rfp_result *r, struct rawfrag_emit *em);
/* Its decoder text (one line, no newline) into o; -ENODATA when there is none. */
int rfp_text(struct rfp *p, const struct rfp_result *r, struct rawfrag_out *o);
/* Forget the checker's kept violations when they grow past max (memory stays flat). */
int rfp_trim_violations(struct rfp *p, bool strict, int max);

#endif
