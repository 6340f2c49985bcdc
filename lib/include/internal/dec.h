/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one number formatter of the library (decimal and hex), used by out.c,
 * the emitter, the tracepoint printer and the sample line heads: a digit-pair
 * table (two digits per division: numbers are most of a line), the digit
 * count, and writers that put a number at p and return its end.
 */
#ifndef __RAWFRAG_INTERNAL_DEC_H
#define __RAWFRAG_INTERNAL_DEC_H

#include <stdbool.h>
#include <stdint.h>

static const char rf_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* decimal digits of v (1..20, 0 has one): log10 from the bit length, corrected by one compare */
static inline __attribute__((always_inline)) unsigned int rf_ndigits(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	uint64_t w = v | 1;
	/* 1233/4096 ~ log10(2) */
	unsigned int t = ((64 - (unsigned int)__builtin_clzll(w)) * 1233) >> 12;

	return t - (w < p10[t]) + 1;
}

/*
 * Decimal digits of v ending just before end; returns where they start.
 * Eight digits at a time leave 64-bit divisions for the top part only
 * (nanosecond times have 13 digits and more).
 */
static inline __attribute__((always_inline)) char *rf_dec_back(char *end, uint64_t v)
{
	uint32_t w;

	while (v >= 100000000) {
		uint32_t lo = (uint32_t)(v % 100000000);

		v /= 100000000;
		for (int i = 0; i < 4; i++, lo /= 100) {
			end -= 2;
			__builtin_memcpy(end, rf_digit_pairs + 2 * (lo % 100), 2);
		}
	}
	w = (uint32_t)v;
	while (w >= 100) {
		end -= 2;
		__builtin_memcpy(end, rf_digit_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		end -= 2;
		__builtin_memcpy(end, rf_digit_pairs + 2 * w, 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

/*
 * v (< 10^8) as exactly 8 digits at p: two halves of four, each two pairs,
 * so the divisions do not wait on each other as a pair-at-a-time loop does.
 */
static inline __attribute__((always_inline)) void rf_put8(char *p, uint32_t v)
{
	uint32_t a = v / 10000, b = v % 10000;

	__builtin_memcpy(p, rf_digit_pairs + 2 * (a / 100), 2);
	__builtin_memcpy(p + 2, rf_digit_pairs + 2 * (a % 100), 2);
	__builtin_memcpy(p + 4, rf_digit_pairs + 2 * (b / 100), 2);
	__builtin_memcpy(p + 6, rf_digit_pairs + 2 * (b % 100), 2);
}

/*
 * The low 8 digits of a number of 9 and more (addresses and pointers printed
 * in decimal, nanosecond times) at e - 8, and the part above them; out of
 * line: the common numbers are short, and rf_put_u64 is inlined many times
 * over (the tracepoint printer).
 */
static __attribute__((noinline, unused)) uint32_t rf_put_low8(char **e, uint64_t v)
{
	uint64_t hi = v / 100000000;

	rf_put8(*e - 8, (uint32_t)(v - hi * 100000000));
	*e -= 8;
	if (hi >= 100000000) {
		uint64_t hh = hi / 100000000;

		rf_put8(*e - 8, (uint32_t)(hi - hh * 100000000));
		*e -= 8;
		hi = hh;
	}
	return (uint32_t)hi;
}

/* v in decimal at p (room for 20 bytes); returns the end */
static inline __attribute__((always_inline)) char *rf_put_u64(char *p, uint64_t v)
{
	unsigned int n;
	uint32_t w;
	char *e;

	/* flags, small counts and zeros are most fields */
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	/* two digits per step on 32 bits for the top 8 digits */
	n = rf_ndigits(v);
	e = p + n;
	w = v < 100000000 ? (uint32_t)v : rf_put_low8(&e, v);
	while (w >= 100) {
		uint32_t r = w % 100;

		w /= 100;
		e -= 2;
		__builtin_memcpy(e, rf_digit_pairs + 2 * r, 2);
	}
	if (w >= 10)
		__builtin_memcpy(e - 2, rf_digit_pairs + 2 * w, 2);
	else
		e[-1] = (char)('0' + w);
	return p + n;
}

/* v in decimal at p (room for 20 bytes); INT64_MIN through unsigned negation */
static inline __attribute__((always_inline)) char *rf_put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return rf_put_u64(p, 0 - (uint64_t)v);
	}
	return rf_put_u64(p, (uint64_t)v);
}

/*
 * The 8 nibbles of x as 8 hex digits, most significant first in memory: the
 * nibbles are spread one per byte, then each byte gets '0' added, and the
 * distance to 'a' (or 'A') where it is 10 or more. Pointers and addresses are
 * most of a tracepoint line; a digit at a time was its largest cost.
 */
static inline uint64_t rf_hex8(uint32_t v, uint64_t alpha)
{
	uint64_t x = v, ge10;

	x = ((x & 0xffff0000ULL) << 16) | (x & 0xffffULL);
	x = ((x & 0x0000ff000000ff00ULL) << 8) | (x & 0x000000ff000000ffULL);
	x = ((x & 0x00f000f000f000f0ULL) << 4) | (x & 0x000f000f000f000fULL);
	ge10 = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + ge10 * alpha;
	return __builtin_bswap64(x); /* byte 0 (lowest) held the lowest nibble */
}

/*
 * v in hex without a prefix at p, upper or lower case; the caller made room
 * for 16 bytes (whole 8-byte stores are written). Returns the end.
 */
static inline __attribute__((always_inline)) char *rf_put_hexc(char *p, uint64_t v, bool upper)
{
	uint64_t alpha = upper ? 'A' - '0' - 10 : 'a' - '0' - 10, hi, lo;
	size_t n;

	if (v < 16) {
		/* most values are small: flags, counts, zero */
		*p = (char)(v < 10 ? '0' + v : '0' + alpha + v);
		return p + 1;
	}
	/*
	 * Digits in memory order are the bytes of rf_hex8() from the lowest:
	 * dropping the leading zero digits is a right shift, and each half one
	 * 8-byte store.
	 */
	n = (size_t)(67 - __builtin_clzll(v)) >> 2;
	lo = rf_hex8((uint32_t)v, alpha);
	if (n <= 8) {
		lo >>= 8 * (8 - n);
		__builtin_memcpy(p, &lo, 8);
	} else {
		hi = rf_hex8((uint32_t)(v >> 32), alpha) >> (8 * (16 - n));
		__builtin_memcpy(p, &hi, 8);
		__builtin_memcpy(p + n - 8, &lo, 8);
	}
	return p + n;
}

/* lowercase */
static inline __attribute__((always_inline)) char *rf_put_hex(char *p, uint64_t v)
{
	return rf_put_hexc(p, v, false);
}

#endif /* __RAWFRAG_INTERNAL_DEC_H */
