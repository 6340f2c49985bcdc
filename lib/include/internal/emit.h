/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The emitter's state and its fast form for decoders inside the library:
 * member names encoded once (rf_emit_key: the JSON form with quotes, escapes
 * and colon, the text form "name="), and the per-member writes inline, each a
 * single room check in the out followed by stores. Every decoder writes its
 * fields through these or the public rawfrag_emit__*() calls; both give the
 * same bytes.
 *
 * A visit emitter (rawfrag_emit__new_visitor()) renders no bytes: its out is
 * one that never has room, so every fast form takes the branch it already has
 * for a full or failed out, and that branch hands the field to the visit
 * (rf_emit__visit_num() and the like, out of line). JSON and text pay nothing
 * for visits.
 */
#ifndef __RAWFRAG_INTERNAL_EMIT_H
#define __RAWFRAG_INTERNAL_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rawfrag/visit.h>

#include "internal/dec.h"
#include "internal/out.h"

#define EMIT_MAX_DEPTH 64
#define RF_KEY_COPY 32 /* keys up to this long are copied in one fixed-size move */

struct rf_visit;

struct rawfrag_emit {
	struct rawfrag_out *out;
	enum rawfrag_emit_format fmt;
	int depth;
	/* per level: nothing emitted at this level yet */
	bool first[EMIT_MAX_DEPTH];
	/* RAWFRAG_EMIT_VISIT only: the visitor, the path and the levels (emit.c) */
	struct rf_visit *vis;
};

/* indexed by enum rawfrag_emit_format */
struct rf_emit_key {
	/*
	 * [TEXT] name= (as given), [JSON] "name": escaped; RF_KEY_COPY zero bytes
	 * of slack; [VISIT] the plain name (the text form without its '=')
	 */
	char *form[3];
	uint32_t len[3];
};

/* 0 or -ENOMEM; a key of a NULL name is an array element's (separator only) */
int rf_emit_key__init(struct rf_emit_key *k, const char *name);
void rf_emit_key__fini(struct rf_emit_key *k);

/*
 * Separator and key (k NULL: none) with room for value more bytes after
 * them; returns where the value goes, NULL after an out error.
 */
static inline __attribute__((always_inline)) char *rf_emit__key(struct rawfrag_emit *e,
								 const struct rf_emit_key *k,
								 size_t value)
{
	size_t kl = k ? k->len[e->fmt] : 0;
	char *p = rf_out_room(e->out, 1 + (kl > RF_KEY_COPY ? kl : RF_KEY_COPY) + value);
	bool *first = &e->first[e->depth];

	if (!p)
		return NULL;
	/* the separator is stored always and kept unless this is the first member */
	*p = e->fmt == RAWFRAG_EMIT_JSON ? ',' : ' ';
	p += !*first;
	*first = false;
	if (kl <= RF_KEY_COPY) {
		if (k)
			memcpy(p, k->form[e->fmt], RF_KEY_COPY);
	} else {
		memcpy(p, k->form[e->fmt], kl);
	}
	return p + kl;
}

static inline void rf_emit__commit(struct rawfrag_emit *e, const char *end)
{
	e->out->len = (size_t)(end - e->out->buf);
}

/*
 * The side of the fast forms where rf_emit__key() gave no room: nothing for a
 * failed out, the field's visit for a visit emitter.
 */
void rf_emit__visit_num(struct rawfrag_emit *e, const struct rf_emit_key *k,
			enum rawfrag_field_type type, uint64_t v);

/*
 * A visit emitter's visitor, as rawfrag_emit__new_visitor() checks it: 0 or
 * -EINVAL. can_skip (the library's own visitors only, e.g. --where): field()
 * returning RF_VISIT_SKIP at the start of an object or array leaves out its
 * members (its end is still visited) instead of stopping.
 */
#define RF_VISIT_SKIP (-0x7fff0001)
int rf_emit__set_visitor(struct rawfrag_emit *e, const struct rawfrag_visitor *v, bool can_skip);

static inline __attribute__((always_inline)) void rf_emit__u64k(struct rawfrag_emit *e, const struct rf_emit_key *k,
				 uint64_t v)
{
	char *p = rf_emit__key(e, k, 20);

	if (p)
		rf_emit__commit(e, rf_put_u64(p, v));
	else
		rf_emit__visit_num(e, k, RAWFRAG_FIELD_U64, v);
}

static inline __attribute__((always_inline)) void rf_emit__s64k(struct rawfrag_emit *e, const struct rf_emit_key *k,
				 int64_t v)
{
	char *p = rf_emit__key(e, k, 21);

	if (p)
		rf_emit__commit(e, rf_put_s64(p, v));
	else
		rf_emit__visit_num(e, k, RAWFRAG_FIELD_S64, (uint64_t)v);
}

/* "0x..." in JSON (a string: 64-bit addresses), 0x... in text */
static inline __attribute__((always_inline)) void rf_emit__hexk(struct rawfrag_emit *e, const struct rf_emit_key *k,
				 uint64_t v)
{
	bool json = e->fmt == RAWFRAG_EMIT_JSON;
	char *p = rf_emit__key(e, k, 20);

	if (!p) {
		rf_emit__visit_num(e, k, RAWFRAG_FIELD_HEX, v);
		return;
	}
	if (json)
		*p++ = '"';
	*p++ = '0';
	*p++ = 'x';
	p = rf_put_hex(p, v);
	if (json)
		*p++ = '"';
	rf_emit__commit(e, p);
}

static inline void rf_emit__nullk(struct rawfrag_emit *e, const struct rf_emit_key *k)
{
	char *p = rf_emit__key(e, k, 6);

	if (p)
		rf_emit__commit(e, (char *)memcpy(p, "null", 4) + 4);
	else
		rf_emit__visit_num(e, k, RAWFRAG_FIELD_NULL, 0);
}

/* strings, bytes and nesting: the same as the public calls, keys pre-encoded */
void rf_emit__strk(struct rawfrag_emit *e, const struct rf_emit_key *k, const char *s,
		   size_t len);
void rf_emit__bytesk(struct rawfrag_emit *e, const struct rf_emit_key *k, const void *p,
		     size_t len);
void rf_emit__openk(struct rawfrag_emit *e, const struct rf_emit_key *k, char c);
void rf_emit__close(struct rawfrag_emit *e, char c);

#endif /* __RAWFRAG_INTERNAL_EMIT_H */
