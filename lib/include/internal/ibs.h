/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * AMD IBS (ibs_fetch / ibs_op) raw payloads: register and bit-field tables
 * (lib/decoders/ibs_regs.c) and the per-evsel state of the decoders
 * (lib/decoders/ibs.c). Shared with tests/unit/test_ibs.c.
 *
 * Payload: u32 caps, then n little-endian u64 MSR values in the kernel's order;
 * raw_size = 4 + 8n, pad 0 (Documentation/perf.data-raw-format.txt, AMD IBS).
 *
 * Ownership: the tables are const; struct ibs_state belongs to the session's
 * evsel binding (allocated by probe, freed by release).
 */
#ifndef __RAWFRAG_INTERNAL_IBS_H
#define __RAWFRAG_INTERNAL_IBS_H

#include <stdbool.h>
#include <stdint.h>

#include <rawfrag/file.h>

/* caps word bits (CPUID 8000_001B EAX) */
enum ibs_cap_bit {
	IBS_CAP_AVAIL = 0,
	IBS_CAP_FETCHSAM = 1,
	IBS_CAP_OPSAM = 2,
	IBS_CAP_RDWROPCNT = 3,
	IBS_CAP_OPCNT = 4,
	IBS_CAP_BRNTRGT = 5,
	IBS_CAP_OPCNTEXT = 6,
	IBS_CAP_RIPINVALIDCHK = 7,
	IBS_CAP_OPBRNFUSE = 8,
	IBS_CAP_FETCHCTLEXTD = 9,
	IBS_CAP_OPDATA4 = 10,
	IBS_CAP_ZEN4 = 11,
	IBS_CAP_OPLDLAT = 12,
	IBS_CAP_DIS = 13,
	IBS_CAP_FETCHLAT = 14,
	IBS_CAP_BIT63_FILTER = 15,
	IBS_CAP_STRMST_RMTSOCKET = 16,
	IBS_CAP_MEM_PROFILER = 18,
	IBS_CAP_OPDTLBPGSIZE = 19,
};
#define IBS_CAP(b) (1u << IBS_CAP_##b)

/* name of caps bit b, or NULL when no kernel defines it */
const char *ibs_cap_name(unsigned int bit);

enum ibs_pmu {
	IBS_PMU_FETCH,
	IBS_PMU_OP,
};

/* register ids, in no particular order; the payload order is ibs_layout's */
enum ibs_reg_id {
	IBS_FETCH_CTL,
	IBS_FETCH_LINAD,
	IBS_FETCH_PHYSAD,
	IBS_FETCH_EXTD_CTL,
	IBS_OP_CTL,
	IBS_OP_RIP,
	IBS_OP_DATA,
	IBS_OP_DATA2,
	IBS_OP_DATA3,
	IBS_DC_LINAD,
	IBS_DC_PHYSAD,
	IBS_BR_TARGET,
	IBS_OP_DATA4,
	IBS_NR_REGS,
};

/*
 * When a bit field exists. The family decides the meaning of a few bits
 * (families 10h-16h vs 17h and later); PMU caps and the zen4 sysfs capability
 * add fields.
 */
enum ibs_gate {
	IBS_G_ALL,
	IBS_G_FAM_LEGACY, /* families 10h-16h */
	IBS_G_FAM17, /* family 17h and later */
	IBS_G_ZEN4, /* zen4_ibs_extensions (caps bit 11 or the PMU_CAPS entry) */
	IBS_G_OPCNTEXT, /* caps OPCNTEXT */
	IBS_G_OPCNT, /* caps OPCNT */
	IBS_G_RIPINV, /* caps RIPINVALIDCHK */
	IBS_G_BRNFUSE, /* caps OPBRNFUSE */
	IBS_G_LDLAT, /* caps OPLDLAT / "ldlat" PMU cap */
	IBS_G_STRMST, /* caps STRMST_RMTSOCKET */
};

struct ibs_field {
	const char *name;
	uint8_t lo, width;
	uint8_t gate; /* enum ibs_gate */
	const char *desc;
};

struct ibs_reg {
	const char *name; /* AMD register name, also the JSON key */
	uint32_t msr;
	const struct ibs_field *fields;
	int nr_fields;
};

const struct ibs_reg *ibs_reg_desc(enum ibs_reg_id id);

/* what the file says about the machine, and the caps word of one sample */
struct ibs_cpu {
	unsigned int family, model, stepping; /* 0 = unknown */
	bool zen4; /* PMU_CAPS ibs_op/zen4_ibs_extensions */
	bool ldlat; /* PMU_CAPS ibs_op/ldlat */
	bool dtlb_pgsize; /* PMU_CAPS ibs_op/dtlb_pgsize */
};

/* "AuthenticAMD,25,17,1" → family/model/stepping; false if not AMD */
bool ibs_parse_cpuid(const char *cpuid, struct ibs_cpu *cpu);

bool ibs_gate_open(enum ibs_gate g, const struct ibs_cpu *cpu, uint32_t caps);

/* value of field f in v */
static inline uint64_t ibs_field_get(const struct ibs_field *f, uint64_t v)
{
	uint64_t m = f->width >= 64 ? ~0ull : (1ull << f->width) - 1;

	return (v >> f->lo) & m;
}

/* Layouts of the register list (Documentation/perf.data-raw-format.txt, AMD IBS). */
enum ibs_layout_kind {
	IBS_LAYOUT_OP, /* op: one layout in every kernel */
	IBS_LAYOUT_FETCH_BASE, /* fetch, 3 regs: both kernels agree */
	IBS_LAYOUT_FETCH_NEW, /* fetch after the 2020 fix: [IcIbsExtdCtl] */
	IBS_LAYOUT_FETCH_OLD, /* fetch before it: [IbsBrTarget] [IbsOpData4] */
	IBS_LAYOUT_BAD, /* the count matches no layout */
};

#define IBS_MAX_REGS 9 /* op: 7 base + BrTarget + OpData4 */

struct ibs_layout {
	enum ibs_layout_kind kind;
	bool ambiguous; /* old and new give the same count with different regs */
	int nr_found; /* registers in the payload (whole u64s) */
	int nr_expected; /* for the chosen/likely layout */
	int nr_alt; /* fetch: the other kernel's count (-1 if same) */
	int nr_regs; /* registers to decode: min(found, expected) */
	enum ibs_reg_id regs[IBS_MAX_REGS];
};

/* what decides a fetch layout the register count cannot tell */
enum ibs_layout_hint {
	IBS_HINT_NONE, /* guess the 2020 layout, say it is ambiguous */
	IBS_HINT_OLD, /* decoder option ibs_layout=old */
	IBS_HINT_NEW, /* option ibs_layout=new, or OSRELEASE >= 5.10 */
};

/* Pick the layout for a payload of raw_size bytes with this caps word. */
void ibs_layout_pick(enum ibs_pmu pmu, uint32_t caps, uint32_t raw_size,
		     enum ibs_layout_hint hint, struct ibs_layout *lay);
const char *ibs_layout_name(enum ibs_layout_kind k);

/* Data source text (IbsOpData2) for the legacy 3-bit or the zen4 5-bit encoding. */
const char *ibs_data_src_name(unsigned int src, bool extended);

/* per-evsel state of the decoders */
struct ibs_state {
	enum ibs_pmu pmu;
	struct ibs_cpu cpu;
	enum ibs_layout_hint hint;
	const char *hint_from; /* "option", "osrelease" or NULL */
};

/*
 * Fill the per-evsel state from the file's env (CPUID, PMU_CAPS) as probe does;
 * layout_opt is the "ibs_layout" decoder option ("old", "new" or NULL).
 */
void ibs_state_init(struct ibs_state *st, enum ibs_pmu pmu, const struct rawfrag_env *env,
		    const char *layout_opt);

#endif /* __RAWFRAG_INTERNAL_IBS_H */
