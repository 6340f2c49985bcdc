/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the packet dump programs share: skbdump.bpf.c owns these maps, and
 * skbxdp.bpf.c's copies are replaced by them before load (bpf_map__reuse_fd),
 * which needs the definitions to be the same: one definition serves both.
 */
#ifndef __RAWFRAG_SKBDUMP_BPF_H
#define __RAWFRAG_SKBDUMP_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include <rawfrag/skbdump.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/*
 * per CPU: [0] packets seen, [1] filtered out, [2] ring full (-ENOSPC),
 * [3] other output failures: the event not enabled yet (before the recorder's
 * rings exist) or not on this CPU
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

const volatile __u32 snaplen = RAWFRAG_SKB_SNAPLEN_DEFAULT;

static __always_inline void count(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &i);

	if (v)
		*v += 1;
}

#endif
