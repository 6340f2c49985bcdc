// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag_out: an append buffer flushed to an fd in large writes.
 *
 * Ownership: the out object owns its buffer; it never closes the fd. In memory
 * mode (fd < 0) the buffer grows and is never flushed.
 *
 * Report output is dominated by integers and short strings, so those avoid
 * printf: decimal goes through a two-digit table, JSON strings are scanned for
 * the rare byte that needs escaping and copied in runs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/dec.h"
#include "internal/out.h"

#define OUT_CHUNK (256 * 1024) /* flush threshold: few, large write(2)s */

struct rawfrag_out *rawfrag_out__new(int fd)
{
	struct rawfrag_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fd = fd;
	o->cap = OUT_CHUNK;
	o->buf = malloc(o->cap);
	if (!o->buf) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

void rawfrag_out__delete(struct rawfrag_out *o)
{
	if (!o)
		return;
	rawfrag_out__flush(o);
	free(o->buf);
	free(o);
}

int rawfrag_out__flush(struct rawfrag_out *o)
{
	size_t off = 0;

	if (o->fd < 0)
		return o->err;
	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->err = -errno;
			break;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return o->err;
}

int rawfrag_out__error(const struct rawfrag_out *o)
{
	return o->err;
}

/* Make room for n more bytes; false (error recorded) when that is impossible. */
static bool out_room(struct rawfrag_out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return true;
	if (o->fd >= 0) {
		rawfrag_out__flush(o);
		if (o->cap >= n)
			return !o->err;
	}
	if (o->err)
		return false;
	size_t cap = o->cap;
	while (cap - o->len < n) {
		if (cap > SIZE_MAX / 2) {
			o->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	char *nb = realloc(o->buf, cap);
	if (!nb) {
		o->err = -ENOMEM;
		return false;
	}
	o->buf = nb;
	o->cap = cap;
	return true;
}

void rawfrag_out__write(struct rawfrag_out *o, const void *p, size_t len)
{
	/* the common case: room in the buffer */
	if (__builtin_expect(o->cap - o->len >= len && !o->err, 1)) {
		memcpy(o->buf + o->len, p, len);
		o->len += len;
		return;
	}
	if (o->err)
		return;
	if (o->fd >= 0 && len >= o->cap) {
		/* too big to be worth copying: write it straight through */
		const char *c = p;

		rawfrag_out__flush(o);
		while (len && !o->err) {
			ssize_t n = write(o->fd, c, len);

			if (n < 0) {
				if (errno != EINTR)
					o->err = -errno;
				continue;
			}
			c += n;
			len -= (size_t)n;
		}
		return;
	}
	if (!out_room(o, len))
		return;
	memcpy(o->buf + o->len, p, len);
	o->len += len;
}

void rawfrag_out__puts(struct rawfrag_out *o, const char *s)
{
	rawfrag_out__write(o, s, strlen(s));
}

void rawfrag_out__putc(struct rawfrag_out *o, char c)
{
	if (o->len < o->cap) {
		o->buf[o->len++] = c;
		return;
	}
	rawfrag_out__write(o, &c, 1);
}

void rawfrag_out__printf(struct rawfrag_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < o->cap - o->len) {
		o->len += (size_t)n;
		return;
	}
	if (!out_room(o, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

void rawfrag_out__u64(struct rawfrag_out *o, uint64_t v)
{
	char *p = rf_out_room(o, 20);

	if (p)
		o->len = (size_t)(rf_put_u64(p, v) - o->buf);
}

void rawfrag_out__s64(struct rawfrag_out *o, int64_t v)
{
	char *p = rf_out_room(o, 21);

	if (p)
		o->len = (size_t)(rf_put_s64(p, v) - o->buf);
}

void rawfrag_out__hex(struct rawfrag_out *o, uint64_t v)
{
	char *p = rf_out_room(o, 18);

	if (!p)
		return;
	p[0] = '0';
	p[1] = 'x';
	o->len = (size_t)(rf_put_hex(p + 2, v) - o->buf);
}

/* the slow side of rf_out_room(): flush or grow */
char *rf_out_room_slow(struct rawfrag_out *o, size_t n)
{
	/* a failed out, or a visit emitter's, which has no room ever */
	if (o->err)
		return NULL;
	return out_room(o, n) && !o->err ? o->buf + o->len : NULL;
}

/* bytes that go into a JSON string as they are */
static const unsigned char json_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/*
 * True when no byte of w needs escaping or a UTF-8 check: none below 0x20,
 * none 0x80 or above, no '"' and no '\\' (the exact "has a byte < n" and "has
 * a zero byte" tests on the 8 bytes at once).
 */
static inline bool swar_plain(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
	uint64_t bad = ((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((b - ONES) & ~b) | w;

	return !(bad & HIGHS);
}

void rawfrag_out__json_str(struct rawfrag_out *o, const char *str, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	if (len == (size_t)-1)
		len = strlen(str);
	else
		len = strnlen(str, len);
	/* the common case, plain ASCII with room in the buffer: one copying scan */
	if (o->cap - o->len >= len + 2 && !o->err) {
		char *d = o->buf + o->len;

		/* eight bytes at a time while none needs a look (names, symbols) */
		for (; i + 8 <= len; i += 8) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (!swar_plain(w))
				break;
			memcpy(d + i + 1, &w, 8);
		}
		for (; i < len && json_plain[s[i]]; i++)
			d[i + 1] = (char)s[i];
		if (i == len) {
			d[0] = '"';
			d[len + 1] = '"';
			o->len += len + 2;
			return;
		}
		/* nothing was committed: start over the long way */
		i = 0;
	}
	rf_out_putc(o, '"');
	while (i < len) {
		unsigned char c = s[i];
		char esc[6];
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (n = rf_utf8_seq(s + i, len - i))) {
			i += n;
			continue;
		}
		rawfrag_out__write(o, s + run, i - run);
		switch (c) {
		case '"': rawfrag_out__write(o, "\\\"", 2); break;
		case '\\': rawfrag_out__write(o, "\\\\", 2); break;
		case '\n': rawfrag_out__write(o, "\\n", 2); break;
		case '\t': rawfrag_out__write(o, "\\t", 2); break;
		case '\r': rawfrag_out__write(o, "\\r", 2); break;
		default:
			/* control bytes, and bytes that are not UTF-8 (taken as Latin-1) */
			memcpy(esc, "\\u00", 4);
			esc[4] = hx[c >> 4];
			esc[5] = hx[c & 0xf];
			rawfrag_out__write(o, esc, 6);
		}
		run = ++i;
	}
	rawfrag_out__write(o, s + run, i - run);
	rawfrag_out__putc(o, '"');
}

const char *rawfrag_out__mem(const struct rawfrag_out *o, size_t *len)
{
	if (len)
		*len = o->len;
	return o->buf;
}

void rawfrag_out__reset(struct rawfrag_out *o)
{
	o->len = 0;
}
