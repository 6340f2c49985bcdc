/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The producer interface, private to the library. One decoder per producer of
 * PERF_SAMPLE_RAW data (tracepoint, ibs_fetch, ibs_op, cpumsf, cfdiag, pai, bpf_skb,
 * bpf_output, and the hexdump fallback), each in lib/decoders/<name>.c, all listed in
 * one table (lib/decoders/registry.c). A session binds each evsel of a file to the
 * decoder whose probe scores highest, once; per-sample work then goes straight to
 * that decoder with the per-evsel state its probe precompiled. Callers outside the
 * library decode through the session (rawfrag_session__sample_text() and friends in
 * <rawfrag/decoder.h>), so this table can change without breaking the ABI.
 *
 * What a decoder does for one RAW payload:
 *   length(): the producer's true length (so pad = raw_size - len is known) and
 *             the producer's own layout rules, reported into a check sink;
 *   text():   one line in the manner of perf script (verbose: every field);
 *   fields(): typed fields for JSON (and text -v) through rawfrag_emit.
 *
 * Ownership: the session owns the per-file state (file_init/file_fini) and the
 * per-evsel state (probe/release); raw data belongs to the record.
 */
#ifndef __RAWFRAG_INTERNAL_DECODER_H
#define __RAWFRAG_INTERNAL_DECODER_H

#include <rawfrag/decoder.h>
#include <rawfrag/check.h>
#include <rawfrag/visit.h>

struct rawfrag_check_sink;

/*
 * Report a finding about the current record. kind is a short stable id
 * ("raw_size_align", "ibs_reg_count", ...) used for the per-kind table; raw_off is
 * the offset inside the raw area the finding is about (or -1). sink may be NULL
 * (decoding without checking), then this does nothing.
 */
void rawfrag_check_sink__report(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
				const char *kind, int64_t raw_off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

struct rawfrag_decoder_ctx {
	struct rawfrag_session *session;
	struct rawfrag_file *file;
	const struct rawfrag_env *env;
	/* this decoder's per-file state from file_init */
	void *file_priv;
	/* "key=value" options for decoders, NULL-terminated (may be NULL) */
	const char *const *dopts;
	rawfrag_print_fn_t print;
	void *print_ctx;
};

/* Value of "key=..." in ctx->dopts or NULL. */
const char *rawfrag_decoder_ctx__opt(const struct rawfrag_decoder_ctx *ctx, const char *key);
/* Print through the session's callback with the "rawfrag: " prefix. */
void rawfrag_decoder_ctx__log(const struct rawfrag_decoder_ctx *ctx,
			      enum rawfrag_print_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct rawfrag_decoder {
	/* producer name as shown in output and JSON "producer" */
	const char *name;
	const char *description;
	/* optional: once per file, before any probe; *file_priv is handed to all calls */
	int (*file_init)(struct rawfrag_decoder_ctx *ctx, void **file_priv);
	void (*file_fini)(void *file_priv);
	/*
	 * Does this decoder handle evsel? Return a score > 0 (the highest wins; the
	 * hexdump fallback scores 1), 0 for no, -errno on error. On a positive score
	 * *priv may hold precompiled per-evsel state (freed with release()).
	 * Identify by attr type/config, PMU mapping name and evsel name.
	 */
	int (*probe)(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		     void **priv);
	void (*release)(void *priv);
	/*
	 * The producer's true payload length. Returns 0 with *len <= raw->size, or
	 * -ENODATA when the decoder cannot tell (pad is then unknown), or -EINVAL
	 * when the payload is malformed (after reporting why into sink).
	 * Producer-specific rules are reported into sink (may be NULL).
	 */
	int (*length)(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      uint32_t *len, struct rawfrag_check_sink *sink);
	/* one text line body (no trailing newline); verbose: all fields */
	int (*text)(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		    struct rawfrag_out *out, bool verbose);
	/* typed fields, emitted inside the caller's "fields" object */
	int (*fields)(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      struct rawfrag_emit *em);
	/* optional: a task name the file recorded outside COMM records (saved cmdlines) */
	const char *(*pid_comm)(void *file_priv, uint32_t pid);
};

/* the per-evsel state the bound decoder's probe made (NULL if none) */
void *rawfrag_session__decoder_priv(const struct rawfrag_session *s,
				    const struct rawfrag_evsel *evsel);

/* rawfrag_session__sample_visit(); can_skip: see rf_emit__set_visitor() */
int rf_session__sample_visit(struct rawfrag_session *s, const struct rawfrag_evsel *evsel,
			     const struct rawfrag_record *rec, const struct rawfrag_sample *smp,
			     const struct rawfrag_visitor *v, bool can_skip);

/* decoder bound to evsel index idx and its state (*priv), or NULL */
const struct rawfrag_decoder *rf_session__bound(const struct rawfrag_session *s, int idx,
						void **priv);

#endif /* __RAWFRAG_INTERNAL_DECODER_H */
