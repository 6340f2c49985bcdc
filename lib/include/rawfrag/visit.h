/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Typed field visits: the third rendering of a decoder's fields, beside JSON
 * and text. A decoder describes each field once through the emitter; an
 * emitter made by rawfrag_emit__new_visitor() hands every field, typed and
 * with its dotted path, to a callback instead of writing bytes. SQL columns,
 * pprof labels, sort keys, histograms and --where read fields this way, with
 * no JSON written and parsed again.
 *
 * The visit follows the JSON "fields" object member by member, in its order:
 * each scalar is one field() call; an object or an array is one field() call
 * (type OBJECT or ARRAY) before its members and one end() call after them.
 * Values are as the JSON has them: a HEX field is the number the JSON writes
 * as a "0x..." string, a STR field's bytes stop at the first NUL, BYTES are
 * the raw bytes the JSON writes as lowercase hex, a NULL field (or a string
 * field given no string) is the JSON's null.
 *
 * Ownership: the field, its name, path and string bytes belong to the visit and
 * are valid only during the call that receives them.
 */
#ifndef __RAWFRAG_VISIT_H
#define __RAWFRAG_VISIT_H

#include <rawfrag/decoder.h>
#include <rawfrag/emit.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rawfrag_field_type {
	RAWFRAG_FIELD_U64,
	RAWFRAG_FIELD_S64,
	RAWFRAG_FIELD_BOOL,
	RAWFRAG_FIELD_HEX, /* unsigned shown in hex: addresses, registers */
	RAWFRAG_FIELD_STR,
	RAWFRAG_FIELD_BYTES,
	RAWFRAG_FIELD_NULL,
	RAWFRAG_FIELD_OBJECT,
	RAWFRAG_FIELD_ARRAY,
};

struct rawfrag_field {
	/* member name (not NUL-terminated); NULL for array elements */
	const char *name;
	size_t name_len;
	/*
	 * dotted path from the top of "fields", as --where names it:
	 * "regs.IbsOpData3.fields.DcMissLat"; an array element's path is its
	 * array's (not NUL-terminated)
	 */
	const char *path;
	size_t path_len;
	uint32_t depth; /* 0: a member of "fields" itself */
	uint32_t index; /* element index in an array (0 outside arrays) */
	enum rawfrag_field_type type;
	union {
		uint64_t u; /* U64, HEX */
		int64_t s; /* S64 */
		bool b; /* BOOL */
		struct {
			const char *p;
			size_t len;
		} str; /* STR, BYTES */
	} v;
};

/*
 * field(): a scalar, or the start of an object or array; end(): the end of an
 * object or array (optional). A non-zero return stops the visit: the
 * decoder's later calls become no-ops and the visit returns that value.
 */
struct rawfrag_visitor {
	size_t sz;
	int (*field)(void *ctx, const struct rawfrag_field *f);
	int (*end)(void *ctx, const struct rawfrag_field *f);
	void *ctx;
};
#define rawfrag_visitor__last_field ctx

/*
 * An emitter whose calls become visits (rawfrag_emit__format() tells
 * RAWFRAG_EMIT_VISIT); its rawfrag_emit__out() writes nowhere. The visitor is
 * copied. NULL with errno EINVAL when v has no field() or fields this library
 * does not know (non-zero bytes past rawfrag_visitor__last_field).
 * rawfrag_emit__reset() starts a new top level and forgets a stop.
 */
RAWFRAG_API struct rawfrag_emit *rawfrag_emit__new_visitor(const struct rawfrag_visitor *v);
/* the stop value of the visit so far (0: not stopped) */
RAWFRAG_API int rawfrag_emit__visit_status(const struct rawfrag_emit *e);

/*
 * Visit one sample's fields (those rawfrag_session__sample_fields() writes) with
 * v. Returns as rawfrag_session__sample_fields() does, or the visitor's stop
 * value when it stopped the visit, or -EINVAL for a bad v. The session keeps
 * one visit emitter, so a call allocates nothing.
 */
RAWFRAG_API int rawfrag_session__sample_visit(struct rawfrag_session *s,
					      const struct rawfrag_evsel *evsel,
					      const struct rawfrag_record *rec,
					      const struct rawfrag_sample *smp,
					      const struct rawfrag_visitor *v);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_VISIT_H */
