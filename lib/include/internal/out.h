/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rawfrag_out buffer, shared by out.c and emit.c so the emitter's
 * one-byte and short writes are inline (they are most of a JSON line). The out
 * object owns buf; it never closes fd.
 */
#ifndef __RAWFRAG_INTERNAL_OUT_H
#define __RAWFRAG_INTERNAL_OUT_H

#include <string.h>
#include <rawfrag/emit.h>

struct rawfrag_out {
	int fd; /* < 0: memory only */
	int err; /* first write error, -errno */
	char *buf;
	size_t len, cap;
};

static inline void rf_out_putc(struct rawfrag_out *o, char c)
{
	if (__builtin_expect(o->len < o->cap, 1))
		o->buf[o->len++] = c;
	else
		rawfrag_out__write(o, &c, 1);
}

static inline void rf_out_write(struct rawfrag_out *o, const void *p, size_t n)
{
	if (__builtin_expect(o->cap - o->len >= n && !o->err, 1)) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	} else {
		rawfrag_out__write(o, p, n);
	}
}

char *rf_out_room_slow(struct rawfrag_out *o, size_t n);

/*
 * Room for n bytes at the out's end: where to write them (commit by setting
 * o->len past what was written), or NULL after an error.
 */
static inline char *rf_out_room(struct rawfrag_out *o, size_t n)
{
	if (__builtin_expect(o->cap - o->len >= n && !o->err, 1))
		return o->buf + o->len;
	return rf_out_room_slow(o, n);
}

#endif /* __RAWFRAG_INTERNAL_OUT_H */
