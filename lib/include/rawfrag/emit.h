/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffered output and a typed-field emitter shared by all decoders.
 *
 * rawfrag_out: an append buffer that flushes to an fd in large writes (or keeps
 * everything in memory when created with fd -1). The out object owns its buffer.
 *
 * rawfrag_emit: decoders describe fields once (name, type, value); the emitter
 * renders them as JSON (one object, 64-bit integers exact, strings escaped) or as
 * text ("name=value" separated by spaces, nested objects as "name={...}"), or
 * hands them to a visitor, typed (<rawfrag/visit.h>).
 */
#ifndef __RAWFRAG_EMIT_H
#define __RAWFRAG_EMIT_H

#include <rawfrag/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_out;
struct rawfrag_emit;

/* fd < 0: memory only (read back with rawfrag_out__mem) */
RAWFRAG_API struct rawfrag_out *rawfrag_out__new(int fd);
/* Flushes, then frees; accepts NULL. Does not close fd. */
RAWFRAG_API void rawfrag_out__delete(struct rawfrag_out *o);
RAWFRAG_API int rawfrag_out__flush(struct rawfrag_out *o);
/* first error seen while writing (-errno), e.g. -EPIPE or -ENOSPC */
RAWFRAG_API int rawfrag_out__error(const struct rawfrag_out *o);
RAWFRAG_API void rawfrag_out__write(struct rawfrag_out *o, const void *p, size_t len);
RAWFRAG_API void rawfrag_out__puts(struct rawfrag_out *o, const char *s);
RAWFRAG_API void rawfrag_out__putc(struct rawfrag_out *o, char c);
RAWFRAG_API void rawfrag_out__printf(struct rawfrag_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
RAWFRAG_API void rawfrag_out__u64(struct rawfrag_out *o, uint64_t v); /* decimal, fast */
RAWFRAG_API void rawfrag_out__s64(struct rawfrag_out *o, int64_t v);
RAWFRAG_API void rawfrag_out__hex(struct rawfrag_out *o, uint64_t v); /* "0x%lx" */
/* JSON string literal with quotes; len (size_t)-1 = strlen; stops at NUL */
RAWFRAG_API void rawfrag_out__json_str(struct rawfrag_out *o, const char *s, size_t len);
/* memory mode: contents so far (not NUL-terminated) / reset to empty */
RAWFRAG_API const char *rawfrag_out__mem(const struct rawfrag_out *o, size_t *len);
RAWFRAG_API void rawfrag_out__reset(struct rawfrag_out *o);

enum rawfrag_emit_format {
	RAWFRAG_EMIT_TEXT,
	RAWFRAG_EMIT_JSON,
	/* typed field visits, no bytes: rawfrag_emit__new_visitor() in <rawfrag/visit.h> */
	RAWFRAG_EMIT_VISIT,
};

/* TEXT or JSON (a visit emitter comes from rawfrag_emit__new_visitor()) */
RAWFRAG_API struct rawfrag_emit *rawfrag_emit__new(struct rawfrag_out *o,
						   enum rawfrag_emit_format fmt);
RAWFRAG_API void rawfrag_emit__delete(struct rawfrag_emit *e);
RAWFRAG_API enum rawfrag_emit_format rawfrag_emit__format(const struct rawfrag_emit *e);
RAWFRAG_API struct rawfrag_out *rawfrag_emit__out(const struct rawfrag_emit *e);
/* forget nesting state (start of a new top-level value) */
RAWFRAG_API void rawfrag_emit__reset(struct rawfrag_emit *e);

/* name is NULL for array elements and the top-level value */
RAWFRAG_API void rawfrag_emit__begin_object(struct rawfrag_emit *e, const char *name);
RAWFRAG_API void rawfrag_emit__end_object(struct rawfrag_emit *e);
RAWFRAG_API void rawfrag_emit__begin_array(struct rawfrag_emit *e, const char *name);
RAWFRAG_API void rawfrag_emit__end_array(struct rawfrag_emit *e);
RAWFRAG_API void rawfrag_emit__u64(struct rawfrag_emit *e, const char *name, uint64_t v);
RAWFRAG_API void rawfrag_emit__s64(struct rawfrag_emit *e, const char *name, int64_t v);
RAWFRAG_API void rawfrag_emit__bool(struct rawfrag_emit *e, const char *name, bool v);
/* integer rendered as a "0x..." string (JSON) or 0x... (text): addresses, registers */
RAWFRAG_API void rawfrag_emit__hex(struct rawfrag_emit *e, const char *name, uint64_t v);
/* len (size_t)-1 = strlen */
RAWFRAG_API void rawfrag_emit__str(struct rawfrag_emit *e, const char *name, const char *s,
				   size_t len);
/* bytes as one lowercase hex string */
RAWFRAG_API void rawfrag_emit__bytes(struct rawfrag_emit *e, const char *name, const void *p,
				     size_t len);
RAWFRAG_API void rawfrag_emit__null(struct rawfrag_emit *e, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_EMIT_H */
