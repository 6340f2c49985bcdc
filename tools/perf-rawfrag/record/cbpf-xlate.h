/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Classic BPF (libpcap's --filter program) translated to eBPF instructions
 * (cbpf-xlate.c), and spliced into a libbpf program before it is loaded in
 * place of a placeholder function (cbpf-splice.c).
 */
#ifndef __PERF_RAWFRAG_CBPF_XLATE_H
#define __PERF_RAWFRAG_CBPF_XLATE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

struct bpf_program;
struct bpf_prog_load_opts;
struct btf;

/* how the translated program reads packet bytes */
enum cbpf_load {
	/*
	 * ctx is a struct __sk_buff (socket filter, tc): bpf_skb_load_bytes();
	 * the third argument is the offloaded VLAN tag as it would sit in the
	 * frame (0x8100 << 16 | TCI), 0 when untagged: loads see the frame as
	 * the pcapng shows it, with the tag back at bytes 12..15
	 */
	CBPF_LOAD_SKB,
	/* ctx is a struct xdp_md: bpf_xdp_load_bytes() (frags too); no tag */
	CBPF_LOAD_XDP,
};

/*
 * The translated program is the body of a function
 *	int f(void *ctx, __u32 wirelen, __u32 vlan_tag)
 * returning the classic program's return value (0 = reject). A load out of
 * the packet and a division by zero return 0, as classic BPF does.
 * Limits: at most 4096 classic instructions; a jump farther than 32767 eBPF
 * instructions (a cBPF "ja" over a long program) fails with -E2BIG.
 */
#define CBPF_XLATE_MAX_CBPF 4096

/*
 * cbpf[i] = code | jt << 16 | jf << 24 | k << 32 (struct skb_filter's
 * layout). On success *out (malloc'ed, the caller frees it) holds *cnt
 * instructions. -EINVAL / -E2BIG / -ENOMEM with a message in msg.
 */
int cbpf_xlate(const uint64_t *cbpf, uint32_t n, enum cbpf_load how, struct bpf_insn **out,
	       size_t *cnt, char *msg, size_t len);

/* what cbpf_splice() allocated for the load: free after bpf_object__load() */
struct cbpf_splice_mem {
	void *func_info, *line_info;
};

/*
 * In the relocated instructions of prog (called from a libbpf
 * prog_prepare_load_fn, whose opts are passed on), replace the body of the
 * function named func (found through the object's BTF func_info) with body:
 * calls and function references across it, func_info and line_info are
 * moved by the difference in length. -ENOENT when prog has no such function.
 */
int cbpf_splice(struct bpf_program *prog, struct bpf_prog_load_opts *opts, const struct btf *btf,
		const char *func, const struct bpf_insn *body, size_t cnt,
		struct cbpf_splice_mem *mem);

void cbpf_splice_mem__free(struct cbpf_splice_mem *mem);

#endif
