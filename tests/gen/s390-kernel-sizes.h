/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters per CF_DIAG counter set and version, written out from the kernel's
 * cpum_cf_ctrset_size() (arch/s390/kernel/perf_cpum_cf.c, Linux 6.1) as a table
 * of its own, so that the fixtures and tests never take these sizes from the
 * library (s390_ctrset__expected) they check. Sets in the kernel's enum order:
 * basic, problem-state, crypto, extended, MT-diagnostic. Versions past the
 * table's end store nothing.
 */
#ifndef RAWFRAG_TESTS_S390_KERNEL_SIZES_H
#define RAWFRAG_TESTS_S390_KERNEL_SIZES_H

#define KS_CFVN_MAX 5
#define KS_CSVN_MAX 9

/* basic and problem-state depend on cfvn 0..4 */
static const unsigned char ks_basic[KS_CFVN_MAX] = { 0, 6, 6, 6, 6 };
static const unsigned char ks_user[KS_CFVN_MAX] = { 0, 6, 0, 2, 2 };
/* crypto, extended and MT-diagnostic depend on csvn 0..8 */
static const unsigned char ks_crypto[KS_CSVN_MAX] = { 0, 16, 16, 16, 16, 16, 20, 20, 0 };
static const unsigned char ks_ext[KS_CSVN_MAX] = { 0, 32, 48, 128, 128, 128, 160, 160, 0 };
static const unsigned char ks_mt_diag[KS_CSVN_MAX] = { 0, 0, 0, 0, 48, 48, 48, 48, 48 };

static inline unsigned int kernel_ctrset_size(unsigned int set, unsigned int cfvn,
					      unsigned int csvn)
{
	switch (set) {
	case 0:
		return cfvn < KS_CFVN_MAX ? ks_basic[cfvn] : 6;
	case 1:
		return cfvn < KS_CFVN_MAX ? ks_user[cfvn] : 2;
	case 2:
		return csvn < KS_CSVN_MAX ? ks_crypto[csvn] : 0;
	case 3:
		return csvn < KS_CSVN_MAX ? ks_ext[csvn] : 0;
	case 4:
		return csvn < KS_CSVN_MAX ? ks_mt_diag[csvn] : 48;
	default:
		return 0;
	}
}

#endif
