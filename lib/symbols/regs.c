// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perf's register names (perf_regs.c), by PERF_REG_<ARCH>_* index. */
#include <string.h>

#include "internal/machine.h"

static const char *const x86_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

static const char *const xmm_names[] = {
	"XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7",
	"XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
};

const char *rawfrag_regs__name(const char *arch, unsigned int idx)
{
	if (arch && strcmp(arch, "x86_64") && strcmp(arch, "x86"))
		return NULL;
	if (idx < sizeof(x86_names) / sizeof(x86_names[0]))
		return x86_names[idx];
	/* XMM registers are 128 bits: two indices each, from 32 */
	if (idx >= 32 && idx < 64)
		return xmm_names[(idx - 32) / 2];
	return NULL;
}
