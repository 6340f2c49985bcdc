/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rawfrag_out buffer, shared by out.c and emit.c so the emitter's
 * one-byte and short writes are inline (they are most of a JSON line). The out
 * object owns buf; it never closes fd.
 */
#ifndef __RAWFRAG_INTERNAL_OUT_H
#define __RAWFRAG_INTERNAL_OUT_H

#include <stdint.h>
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

/*
 * Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid: the
 * JSON string writer keeps such sequences and escapes other bytes of 0x80 and
 * above; --where reads the strings of a visit as that JSON would give them.
 */
static inline size_t rf_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

#endif /* __RAWFRAG_INTERNAL_OUT_H */
