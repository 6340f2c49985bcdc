/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * s390 CPU-measurement facts shared by the s390 decoders (cpumsf.c, cfdiag.c,
 * pai.c) and their name tables (s390_names.c). Layouts:
 * Documentation/perf.data-raw-format.txt, s390.
 *
 * Every s390 payload is big-endian, as the s390 kernel wrote it; the decoders
 * read it with s390_get16/32/64() whatever the file's byte order: raw data stays
 * in the producer's order (raw->big_endian only tells the file's framing), and a
 * big-endian file rewritten on a little-endian host, e.g. by perf inject, keeps
 * its raw data unchanged.
 */
#ifndef __RAWFRAG_INTERNAL_S390_H
#define __RAWFRAG_INTERNAL_S390_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/decoder.h"

/* attr.config values (arch/s390/include/asm/perf_event.h, asm/pai.h) */
#define S390_EVENT_CPUM_SF	0xB0000 /* basic sampling */
#define S390_EVENT_CPUM_SF_DIAG 0xBD000 /* basic + diagnostic sampling */
#define S390_EVENT_CF_DIAG	0xBC000 /* counter sets as raw data */
#define S390_PAI_CRYPTO_BASE	0x1000	/* CRYPTO_ALL, counter n = base + n */
#define S390_PAI_CRYPTO_MAXCTR	256
#define S390_PAI_NNPA_BASE	0x1800 /* NNPA_ALL */
#define S390_PAI_NNPA_MAXCTR	128

/* CF_DIAG: 8-byte set header {u16 0xFEEF, u16 set, u16 counters, u16 0}, 64-byte trailer */
#define S390_CFDIAG_MAGIC   0xFEEF
#define S390_CFDIAG_SET_HDR 8
#define S390_CFDIAG_TRAILER 64

/* PAI: packed {u16 counter number, u64 value} */
#define S390_PAI_ENTRY 10

/* legacy sf_raw_sample: u64 format, u32 size, u16 bsdes, u16 dsdes, basic entry, diag entry */
#define S390_SF_FMT_BASIC  0x1
#define S390_SF_FMT_DIAG   0x2
#define S390_SF_BASIC_OFF  16
#define S390_SF_BASIC_SIZE 32
#define S390_SF_DIAG_OFF   48
#define S390_SF_DIAG_HDR   4

/* counter-set ids as the Linux kernel numbers them (enum cpumf_ctr_set) */
enum s390_ctrset {
	S390_CTRSET_BASIC,
	S390_CTRSET_USER, /* problem state */
	S390_CTRSET_CRYPTO,
	S390_CTRSET_EXT,
	S390_CTRSET_MT_DIAG,
	S390_CTRSET_MAX,
};

struct s390_event_name {
	uint16_t code; /* event number (attr.config of the counter) */
	const char *name;
};

/* One machine generation: the names perf's pmu-events know for it. */
struct s390_machine {
	const char *name;  /* "z16" */
	uint16_t types[2]; /* machine types as written in hex digits: 0x3931, 0x3932 */
	const struct s390_event_name *ext; /* extended counter set, sorted */
	unsigned int nr_ext;
};

/* the payload's order is big-endian: swap on little-endian hosts */
#define S390_RAW_SWAP (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

static inline uint16_t s390_get16(const uint8_t *p)
{
	return rawfrag__get16(p, S390_RAW_SWAP);
}

static inline uint32_t s390_get32(const uint8_t *p)
{
	return rawfrag__get32(p, S390_RAW_SWAP);
}

static inline uint64_t s390_get64(const uint8_t *p)
{
	return rawfrag__get64(p, S390_RAW_SWAP);
}

/* Machine from a perf CPUID string "IBM,<type>,<model...>[,<cfvn.csvn>,<auth>]". */
const struct s390_machine *s390_machine__from_cpuid(const char *cpuid);
/* Machine from the CF_DIAG trailer's machine type (0x3931 for a z16). */
const struct s390_machine *s390_machine__from_type(uint16_t type);

/* "basic", "problem_state", "crypto", "extended", "mt_diag" or NULL */
const char *s390_ctrset__name(unsigned int set);
/* first event number of a set (0, 32, 64, 128, 448) or -1 */
int s390_ctrset__base(unsigned int set);
/* counters the kernel stores for a set at these facility versions (0: not stored) */
unsigned int s390_ctrset__expected(unsigned int set, unsigned int cfvn, unsigned int csvn);
/* name of counter idx of a set on machine m (m may be NULL: common sets only) */
const char *s390_cf__counter_name(const struct s390_machine *m, unsigned int set, unsigned int idx);
/* PAI counter names: event = base + nr */
const char *s390_pai__crypto_name(unsigned int nr);
const char *s390_pai__nnpa_name(unsigned int nr);

/* The file was recorded on s390 (ARCH "s390x" or "s390"); unknown arch -> unknown. */
bool s390_env__is_s390(const struct rawfrag_env *env);
/* The file's arch is known and is not s390. */
bool s390_env__not_s390(const struct rawfrag_env *env);

#endif
