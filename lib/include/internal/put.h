/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf script's column formats ("%*d", "%16s ", "%16lx", ".%06lu: "), put
 * straight into an out's free space: the sample line heads of the library
 * (line.c) and the tool's symbol and chain columns share them, so each format
 * has one writer. The caller asks the out for room first (rf_out_room); each
 * writer says how much slack past its end it may store into.
 */
#ifndef __RAWFRAG_INTERNAL_PUT_H
#define __RAWFRAG_INTERNAL_PUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal/dec.h"

/*
 * "%*d" / "%-*d" (left) / "%0*d" (fill '0', v >= 0) at p, width at most 8:
 * the fill is one 8-byte store, the digits are written backwards from their
 * end. p must have 8 bytes beyond the number.
 */
static inline __attribute__((always_inline)) char *rf_put_num(char *p, int64_t v, int width,
							       bool left, char fill)
{
	static const uint32_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
					  10000000, 100000000 };
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n, w;
	char *s;

	memset(p, fill, 8);
	/* the common case: a right-aligned number that fits its width */
	if (!left && v >= 0 && mag < pow10[width]) {
		rf_dec_back(p + width, mag);
		return p + width;
	}
	n = (int)rf_ndigits(mag) + (v < 0);
	w = n > width ? n : width;
	s = rf_dec_back(left ? p + n : p + w, mag);
	if (v < 0)
		s[-1] = '-';
	return p + w;
}

/*
 * n bytes (names, the event column: mostly under 32, the JSON event and
 * producer under 64) as at most two overlapping fixed-size moves: a libc call
 * per column was a tenth of a line.
 */
static inline __attribute__((always_inline)) void rf_copy_small(char *d, const char *s, size_t n)
{
	if (n > 64) {
		memcpy(d, s, n);
	} else if (n > 32) {
		memcpy(d, s, 32);
		memcpy(d + n - 32, s + n - 32, 32);
	} else if (n >= 16) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* the n bytes at a and b are equal (n <= 16: names), by overlapping loads */
static inline __attribute__((always_inline)) bool rf_eq_small(const char *a, const char *b,
							      size_t n)
{
	uint64_t x0, x1, y0, y1;
	uint32_t u0, u1, v0, v1;

	if (n >= 8) {
		memcpy(&x0, a, 8);
		memcpy(&x1, a + n - 8, 8);
		memcpy(&y0, b, 8);
		memcpy(&y1, b + n - 8, 8);
		return n <= 16 ? ((x0 ^ y0) | (x1 ^ y1)) == 0 : !memcmp(a, b, n);
	}
	if (n >= 4) {
		memcpy(&u0, a, 4);
		memcpy(&u1, a + n - 4, 4);
		memcpy(&v0, b, 4);
		memcpy(&v1, b + n - 4, 4);
		return ((u0 ^ v0) | (u1 ^ v1)) == 0;
	}
	/* short names ("sh", "dd"): first and last byte, then the middle one */
	if (n)
		return a[0] == b[0] && a[n - 1] == b[n - 1] && a[n / 2] == b[n / 2];
	return true;
}

/* "%16s " (pad) or "%s ": spaces first, then the name right-aligned */
static inline char *rf_put_comm(char *p, const char *comm, size_t len, bool pad)
{
	if (pad && len < 16) {
		memset(p, ' ', 16);
		rf_copy_small(p + 16 - len, comm, len);
		p += 16;
	} else {
		rf_copy_small(p, comm, len);
		p += len;
	}
	*p++ = ' ';
	return p;
}

/* ".%06u: " of the microseconds (< 10^6) at p; 9 bytes */
static inline char *rf_put_usecs(char *p, uint32_t usecs)
{
	*p = '.';
	memcpy(p + 1, rf_digit_pairs + 2 * (usecs / 10000), 2);
	memcpy(p + 3, rf_digit_pairs + 2 * (usecs / 100 % 100), 2);
	memcpy(p + 5, rf_digit_pairs + 2 * (usecs % 100), 2);
	memcpy(p + 7, ": ", 2);
	return p + 9;
}

/* "%16lx" at p (16 bytes, whole 8-byte stores) */
static inline char *rf_put_hex16(char *p, uint64_t v)
{
	size_t n = v < 16 ? 1 : (size_t)(67 - __builtin_clzll(v)) >> 2;

	memset(p, ' ', 16);
	rf_put_hex(p + 16 - n, v);
	return p + 16;
}

#endif /* __RAWFRAG_INTERNAL_PUT_H */
