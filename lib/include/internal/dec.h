/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decimal writing pieces shared by lib/out.c, the tracepoint printer
 * (internal/tracepoint.h) and the report's text columns: a digit-pair table
 * (two digits per division: numbers are most of a line) and the digit count.
 */
#ifndef __RAWFRAG_INTERNAL_DEC_H
#define __RAWFRAG_INTERNAL_DEC_H

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

#endif /* __RAWFRAG_INTERNAL_DEC_H */
