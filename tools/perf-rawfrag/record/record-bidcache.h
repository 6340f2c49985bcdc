/* SPDX-License-Identifier: GPL-2.0 */
/* record-bidcache.c: one binary into perf's build-id cache */
#ifndef __PERF_RAWFRAG_RECORD_BIDCACHE_H
#define __PERF_RAWFRAG_RECORD_BIDCACHE_H

#include <stdint.h>

int bid_cache__add(const char *name, const uint8_t *id, int id_len);

#endif
