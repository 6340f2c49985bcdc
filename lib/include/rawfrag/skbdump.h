/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The meta data that perf-rawfrag's skb/xdp dump programs
 * (tools/perf-rawfrag/record/bpf/skbdump.bpf.c) put in front of every packet they send
 * to a bpf-output event. Public so that other tools can produce or read the same
 * dumps. Usable from BPF programs (only <linux/types.h> is needed).
 *
 * One PERF_SAMPLE_RAW payload is, back to back:
 *   struct rawfrag_skb_meta   (meta_len bytes, CPU byte order of the producer)
 *   caplen packet bytes       (from the link-layer header on, as on the wire)
 *   pad                       (0..7 bytes, not written by the kernel: stale)
 * and raw_size == round_up(4 + meta_len + caplen, 8) - 4.
 *
 * The kernel does not record where meta ends and the packet starts; meta_len and
 * caplen say it. A reader finds its byte order from the magic.
 *
 * Interface names travel in the bpf-output event's name (EVENT_DESC):
 * "skbdump:IFINDEX=NAME,IFINDEX=NAME,...", e.g. "skbdump:1=lo,5=eth0".
 *
 * Outside BPF programs this header also declares the one reader of the layout
 * (lib/skbdump.c): the meta by field, bounds-checked, hook names both ways and
 * the event-name encoding of interface names.
 */
#ifndef __RAWFRAG_SKBDUMP_H
#define __RAWFRAG_SKBDUMP_H

#include <linux/types.h>

#define RAWFRAG_SKB_MAGIC 0x52464b53u /* "SKFR" in little-endian memory */
#define RAWFRAG_SKB_VERSION 1

/* default and largest capture length (the largest keeps a sample under 64 KiB) */
#define RAWFRAG_SKB_SNAPLEN_DEFAULT 256
/*
 * A sample of our bpf-output event is header (8) + IDENTIFIER, IP, TID, TIME,
 * CPU (5 x 8) + raw_size (4) + round_up(4 + meta + caplen, 8) - 4 =
 * 48 + round_up(44 + caplen, 8), and header.size is a u16 (<= 65535).
 */
#define RAWFRAG_SKB_SNAPLEN_MAX 65436

enum rawfrag_skb_hook {
	RAWFRAG_SKB_HOOK_NONE = 0,
	RAWFRAG_SKB_HOOK_SOCKET = 1, /* AF_PACKET socket filter: both directions */
	RAWFRAG_SKB_HOOK_TC_INGRESS = 2,
	RAWFRAG_SKB_HOOK_TC_EGRESS = 3,
	RAWFRAG_SKB_HOOK_XDP = 4,
	/*
	 * fentry and fexit of an XDP program attached by someone else (the
	 * interface's own program): the packet as that program gets it and as
	 * it leaves it, with the action it returned (RAWFRAG_SKB_F_XDP_ACTION)
	 */
	RAWFRAG_SKB_HOOK_XDP_ENTRY = 5,
	RAWFRAG_SKB_HOOK_XDP_EXIT = 6,
};

enum rawfrag_skb_dir {
	RAWFRAG_SKB_DIR_UNKNOWN = 0,
	RAWFRAG_SKB_DIR_IN = 1,
	RAWFRAG_SKB_DIR_OUT = 2,
};

/* flags */
#define RAWFRAG_SKB_F_VLAN 0x01 /* vlan_tci holds an offloaded tag (not in the bytes) */
#define RAWFRAG_SKB_F_XDP_ACTION 0x02 /* xdp_action holds the traced program's return value */

/* the event name of a dump: RAWFRAG_SKB_EVENT_PREFIX then "IFINDEX=NAME" pairs */
#define RAWFRAG_SKB_EVENT_PREFIX "skbdump:"

struct rawfrag_skb_meta {
	__u32 magic; /* RAWFRAG_SKB_MAGIC */
	__u16 version; /* RAWFRAG_SKB_VERSION */
	__u16 meta_len; /* sizeof(struct rawfrag_skb_meta) of the producer */
	__u8 hook; /* enum rawfrag_skb_hook */
	__u8 dir; /* enum rawfrag_skb_dir */
	__u8 pkt_type; /* skb->pkt_type (PACKET_HOST, ... PACKET_OUTGOING) */
	__u8 flags; /* RAWFRAG_SKB_F_* */
	__u32 ifindex; /* interface the packet was seen on */
	__u32 orig_len; /* packet length on the wire (skb->len, xdp buffer length) */
	__u32 caplen; /* packet bytes following the meta: min(orig_len, snaplen) */
	__u32 snaplen; /* the capture limit in force */
	__u16 protocol; /* skb->protocol (EtherType), host order */
	__u16 vlan_tci; /* with RAWFRAG_SKB_F_VLAN */
	/* the xdp-entry/xdp-exit hooks have no skb: their own values share the space */
	union {
		__u32 mark; /* skb->mark */
		__u32 xdp_action; /* with RAWFRAG_SKB_F_XDP_ACTION: XDP_ABORTED .. XDP_REDIRECT */
	};
	union {
		__u32 hash; /* skb->hash (0 if not computed) */
		__u32 xdp_prog_id; /* xdp-entry, xdp-exit: id of the traced XDP program */
	};
};

#ifndef __bpf__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rawfrag/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* meta_len of version 1: every later version only appends */
#define RAWFRAG_SKB_META_V1_LEN 40

/*
 * One dump split: the meta in host byte order and where the packet bytes are.
 * data points into the raw payload given to rawfrag_skb_dump__split().
 */
struct rawfrag_skb_dump {
	struct rawfrag_skb_meta meta;
	const uint8_t *data; /* meta.caplen packet bytes */
	bool swapped; /* the meta was in the other byte order */
};

/*
 * Split the raw payload raw (size bytes) of one dump. The byte order is the
 * one in which the magic reads right (the producer's). Every field is read at
 * its offsetof() and checked against size: meta_len >= RAWFRAG_SKB_META_V1_LEN
 * and inside the payload, caplen inside what follows the meta.
 * Returns 0; -ENOMSG when there is no magic (not our dump), -EINVAL when a
 * length is out of range; *why (may be NULL) then says which, in words.
 */
RAWFRAG_API int rawfrag_skb_dump__split(struct rawfrag_skb_dump *d, const void *raw,
					size_t size, const char **why);

/*
 * "socket", "tc-ingress", "tc-egress", "xdp", "xdp-entry", "xdp-exit"; "none"
 * for 0, "unknown" past the end
 */
RAWFRAG_API const char *rawfrag_skb_hook__name(unsigned int hook);
/* the enum rawfrag_skb_hook of a name above (not "none"), or -EINVAL */
RAWFRAG_API int rawfrag_skb_hook__parse(const char *name);
/* "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"; else "XDP_?" */
RAWFRAG_API const char *rawfrag_skb_xdp_action__name(unsigned int action);

/*
 * Write the event name for n interfaces into buf (always NUL-terminated).
 * Returns the length it needs (as snprintf), or -EINVAL when a name holds ',' or '='.
 */
RAWFRAG_API int rawfrag_skb_event__format(char *buf, size_t len, const char *const *names,
					  const uint32_t *ifindex, int n);
/*
 * The name of ifindex in an event name made by rawfrag_skb_event__format().
 * Returns 0 with the name in buf; -ENOENT when the event name does not have it
 * (buf then holds "ifN"), -EINVAL when evname is not a dump event's name.
 */
RAWFRAG_API int rawfrag_skb_event__ifname(const char *evname, uint32_t ifindex, char *buf,
					  size_t len);

#ifdef __cplusplus
}
#endif
#endif /* !__bpf__ */

#endif /* __RAWFRAG_SKBDUMP_H */
