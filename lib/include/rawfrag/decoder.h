/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decoding through a session. A session binds every evsel of a file to the decoder
 * of its producer (tracepoint, ibs_fetch, ibs_op, cpumsf, cfdiag, pai, bpf_skb,
 * bpf_output, or the hexdump fallback), once; then each sample's RAW payload is
 * decoded through the session: its text (as perf script prints it), its typed
 * fields (through rawfrag_emit), the producer's true length, and the producer's
 * layout violations. The decoders themselves are private to the library
 * (struct rawfrag_decoder is opaque here).
 *
 * Ownership: the session owns the decoders' per-file and per-evsel state; it does
 * not own the file. Raw data belongs to the record.
 */
#ifndef __RAWFRAG_DECODER_H
#define __RAWFRAG_DECODER_H

#include <rawfrag/emit.h>
#include <rawfrag/file.h>
#include <rawfrag/sample.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_session;
/* a producer's decoder (opaque) */
struct rawfrag_decoder;

/* One RAW payload as a decoder sees it. */
struct rawfrag_raw {
	const uint8_t *data; /* payload, in the file's byte order */
	uint32_t size; /* raw_size: payload + pad */
	bool swap; /* file order != host order */
	bool big_endian; /* file order */
	uint64_t rec_offset; /* file offset of the record (for messages) */
	uint32_t raw_offset; /* offset of data inside the record */
};

/* NULL-terminated table of all decoders (lib/decoders/registry.c). */
RAWFRAG_API const struct rawfrag_decoder *const *rawfrag_decoders(void);
RAWFRAG_API const struct rawfrag_decoder *rawfrag_decoder__find(const char *name);
/* its producer name ("tracepoint", "bpf_skb", ...; NULL for NULL) and a description */
RAWFRAG_API const char *rawfrag_decoder__name(const struct rawfrag_decoder *d);
RAWFRAG_API const char *rawfrag_decoder__description(const struct rawfrag_decoder *d);

/* ---- session: a file with every evsel bound to its decoder ---- */

struct rawfrag_session_opts {
	size_t sz;
	rawfrag_print_fn_t print;
	void *print_ctx;
	/* "key=value" decoder options, NULL-terminated (e.g. "meta=auto") */
	const char *const *dopts;
	/* force one decoder by name for every evsel (e.g. "hexdump"); NULL = probe */
	const char *decoder;
};
#define rawfrag_session_opts__last_field decoder

RAWFRAG_API struct rawfrag_session *
rawfrag_session__new(struct rawfrag_file *f, const struct rawfrag_session_opts *opts,
		     struct rawfrag_err *err);
RAWFRAG_API void rawfrag_session__delete(struct rawfrag_session *s);
RAWFRAG_API struct rawfrag_file *rawfrag_session__file(const struct rawfrag_session *s);
RAWFRAG_API const struct rawfrag_decoder *
rawfrag_session__decoder(const struct rawfrag_session *s, const struct rawfrag_evsel *evsel);
/*
 * Bind evsels that appeared after rawfrag_session__new() (pipe mode delivers
 * HEADER_ATTR and tracing data as records): call after rawfrag_file__next()
 * returned a HEADER_ATTR / TRACING_DATA / HEADER_FEATURE record. Cheap when
 * nothing changed.
 */
RAWFRAG_API int rawfrag_session__refresh(struct rawfrag_session *s, struct rawfrag_err *err);

/* Task name from any decoder's pid_comm (e.g. tracing data's saved cmdlines), or NULL. */
RAWFRAG_API const char *rawfrag_session__saved_comm(const struct rawfrag_session *s,
						    uint32_t pid);

/* Fill raw from a parsed sample of this session's file. false if no RAW. */
RAWFRAG_API bool rawfrag_session__raw(const struct rawfrag_session *s,
				      const struct rawfrag_record *rec,
				      const struct rawfrag_sample *smp, struct rawfrag_raw *raw);

/*
 * Decode one sample (parsed from rec, of evsel) through the decoder bound to evsel.
 * Each returns 0, -ENODATA when the sample has no RAW payload or evsel no decoder
 * (or, for length, when the producer's length cannot be told), or the decoder's
 * -errno (-EINVAL: malformed payload; what could be decoded was still written).
 *
 * text: one line body as perf script prints the payload (no newline); verbose:
 * every field. fields: the typed fields into em, inside the caller's open object.
 * length: the producer's true payload length (pad = raw_size - *len).
 */
RAWFRAG_API int rawfrag_session__sample_text(struct rawfrag_session *s,
					     const struct rawfrag_evsel *evsel,
					     const struct rawfrag_record *rec,
					     const struct rawfrag_sample *smp,
					     struct rawfrag_out *out, bool verbose);
RAWFRAG_API int rawfrag_session__sample_fields(struct rawfrag_session *s,
					       const struct rawfrag_evsel *evsel,
					       const struct rawfrag_record *rec,
					       const struct rawfrag_sample *smp,
					       struct rawfrag_emit *em);
RAWFRAG_API int rawfrag_session__sample_length(struct rawfrag_session *s,
					       const struct rawfrag_evsel *evsel,
					       const struct rawfrag_record *rec,
					       const struct rawfrag_sample *smp, uint32_t *len);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_DECODER_H */
