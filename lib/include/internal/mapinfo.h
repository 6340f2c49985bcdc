/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The map an address falls in, for outputs that describe maps and not only
 * symbols (pprof's mappings: file, build-id, start, limit, offset). The maps
 * and DSOs stay the machine's (lib/symbols/machine.c); this is a read-only
 * copy of what such an output needs.
 */
#ifndef __RAWFRAG_INTERNAL_MAPINFO_H
#define __RAWFRAG_INTERNAL_MAPINFO_H

#include <stdbool.h>
#include <stdint.h>

struct rawfrag_machine;

struct rf_map_info {
	uint64_t start, end, pgoff;
	const char *name; /* the DSO as perf names it, valid while the machine lives */
	const uint8_t *bid; /* its build-id, bid_size bytes (0: none known) */
	uint8_t bid_size;
	bool kernel; /* the kernel or a module */
	const void *dso; /* the same for every map of the same DSO */
};

/*
 * The map holding addr in the address space cpumode names (process pid's for
 * PERF_RECORD_MISC_USER, the kernel's for PERF_RECORD_MISC_KERNEL), as
 * rawfrag_machine__resolve() finds it: 0 with mi filled, or -ENOENT.
 */
int rf_machine__map_info(struct rawfrag_machine *m, int32_t pid, uint8_t cpumode, uint64_t addr,
			 struct rf_map_info *mi);

#endif /* __RAWFRAG_INTERNAL_MAPINFO_H */
