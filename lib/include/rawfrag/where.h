/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --where: a small expression language over a sample's decoded fields, shared by
 * report, the dlfilter and the Python module.
 *
 *   expr    := or
 *   or      := and ( "||" and )*
 *   and     := unary ( "&&" unary )*
 *   unary   := "!" unary | "(" expr ")" | field op value
 *   field   := name ( "." name )*      names as in the JSON "fields" (nested: a.b)
 *   op      := "==" | "!=" | "<" | "<=" | ">" | ">="
 *   value   := number (decimal, -decimal, 0x hex) | "string" | true | false | null
 *
 * Strings compared with == or != are globs when they hold * ? or [ (fnmatch).
 * Hex strings of the JSON ("0x...") compare with numbers as numbers. A field a
 * sample does not have makes its comparison false; comparing a string field with
 * a number (or the like) is an error naming the field and both types.
 *
 * Ownership: a rawfrag_where owns its compiled expression.
 */
#ifndef __RAWFRAG_WHERE_H
#define __RAWFRAG_WHERE_H

#include <rawfrag/core.h>
#include <rawfrag/decoder.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_where;

/* Compile expr. NULL with err filled in (reason names the position) on a syntax error. */
RAWFRAG_API struct rawfrag_where *rawfrag_where__new(const char *expr, struct rawfrag_err *err);
RAWFRAG_API void rawfrag_where__delete(struct rawfrag_where *w);

/*
 * Evaluate on one sample's fields: json is the JSON object report writes as
 * "fields" (braces included). 1 match, 0 no match, -EINVAL with err (a type
 * error) when the expression cannot be applied to these fields.
 */
RAWFRAG_API int rawfrag_where__match(struct rawfrag_where *w, const char *json, size_t len,
				     struct rawfrag_err *err);

/*
 * The same on a sample of s (parsed from rec, of evsel): its fields visited
 * (rawfrag_session__sample_visit()), no JSON written. Same answers, messages and
 * seen fields as rawfrag_where__match() on the JSON of
 * rawfrag_session__sample_fields(); a sample without fields matches as "{}".
 * -ENOMEM (err filled in) when the fields cannot be visited.
 */
RAWFRAG_API int rawfrag_where__match_sample(struct rawfrag_where *w, struct rawfrag_session *s,
					    const struct rawfrag_evsel *evsel,
					    const struct rawfrag_record *rec,
					    const struct rawfrag_sample *smp,
					    struct rawfrag_err *err);

/*
 * A field the expression names that no sample evaluated so far had (a typo, or
 * no such event in the input), or NULL when every field was seen.
 */
RAWFRAG_API const char *rawfrag_where__unseen_field(const struct rawfrag_where *w);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_WHERE_H */
