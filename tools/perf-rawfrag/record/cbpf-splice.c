// SPDX-License-Identifier: GPL-2.0
/*
 * Put a translated filter (cbpf-xlate.c) in place of a placeholder function
 * of a libbpf program, at the last moment before the kernel sees it: from a
 * prog_prepare_load_fn, where libbpf has appended the subprograms, resolved
 * the maps and built func_info/line_info in kernel units (instructions).
 *
 * The placeholder is a global (non-static) function, so the compiler cannot
 * fold its result into the callers, and the verifier checks it on its own
 * with the argument types of its BTF prototype (ctx, scalars).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cbpf-xlate.h"

static bool is_ldimm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* pseudo call or function reference: imm is relative to the next instruction */
static bool is_rel(const struct bpf_insn *in)
{
	return (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) ||
	       (is_ldimm64(in) && in->src_reg == BPF_PSEUDO_FUNC);
}

static int find_func(const struct bpf_prog_load_opts *opts, const struct btf *btf,
		     const char *func, size_t n, size_t *s, size_t *e)
{
	const char *fi = opts->func_info;
	size_t rec = opts->func_info_rec_size;

	if (!fi || !btf || rec < 8)
		return -ENOENT;
	for (size_t i = 0; i < opts->func_info_cnt; i++) {
		uint32_t off, id;
		const struct btf_type *t;
		const char *name;

		memcpy(&off, fi + i * rec, 4);
		memcpy(&id, fi + i * rec + 4, 4);
		t = btf__type_by_id(btf, id);
		name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (!name || strcmp(name, func))
			continue;
		*s = off;
		*e = n;
		if (i + 1 < opts->func_info_cnt)
			memcpy(&off, fi + (i + 1) * rec, 4), *e = off;
		return *s < *e && *e <= n ? 0 : -EINVAL;
	}
	return -ENOENT;
}

/* new position of old instruction o (not strictly inside the replaced [s, e)) */
static long moved(size_t o, size_t s, size_t e, long delta)
{
	return o < e ? (long)o : (long)o + delta;
}

static int fix_rel(struct bpf_insn *in, size_t total, size_t s, size_t e, size_t cnt, long delta)
{
	for (size_t i = 0; i < total; i++) {
		size_t oi;
		long ot;

		if (i >= s && i < s + cnt)
			continue;
		oi = i < s ? i : (size_t)((long)i - delta);
		if (is_rel(&in[i])) {
			ot = (long)oi + in[i].imm + 1;
			if (ot < 0 || (ot > (long)s && ot < (long)e))
				return -EINVAL;
			in[i].imm = (int32_t)(moved(ot, s, e, delta) - (long)i - 1);
		}
		if (is_ldimm64(&in[i]))
			i++;
	}
	return 0;
}

/* func_info or line_info records moved by delta past the function; inside it dropped */
static void *move_info(const void *info, uint32_t *cnt, uint32_t rec, size_t s, size_t e,
		       long delta)
{
	char *out = malloc((size_t)*cnt * rec + 1);
	uint32_t m = 0;

	if (!out)
		return NULL;
	for (uint32_t i = 0; i < *cnt; i++) {
		const char *r = (const char *)info + (size_t)i * rec;
		uint32_t off;

		memcpy(&off, r, 4);
		if (off > s && off < e)
			continue;
		memcpy(out + (size_t)m * rec, r, rec);
		off = (uint32_t)moved(off, s, e, delta);
		memcpy(out + (size_t)m * rec, &off, 4);
		m++;
	}
	*cnt = m;
	return out;
}

int cbpf_splice(struct bpf_program *prog, struct bpf_prog_load_opts *opts, const struct btf *btf,
		const char *func, const struct bpf_insn *body, size_t cnt,
		struct cbpf_splice_mem *mem)
{
	const struct bpf_insn *old = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog), s, e, total;
	uint32_t nfi = opts->func_info_cnt, nli = opts->line_info_cnt;
	struct bpf_insn *in;
	void *fi, *li;
	long delta;
	int err;

	err = find_func(opts, btf, func, n, &s, &e);
	if (err)
		return err;
	delta = (long)cnt - (long)(e - s);
	total = n + delta;
	in = malloc(total * sizeof(*in));
	if (!in)
		return -ENOMEM;
	memcpy(in, old, s * sizeof(*in));
	memcpy(in + s, body, cnt * sizeof(*in));
	memcpy(in + s + cnt, old + e, (n - e) * sizeof(*in));
	err = fix_rel(in, total, s, e, cnt, delta);
	/* opts may point at mem's arrays (a second function spliced): new ones first */
	fi = err ? NULL : move_info(opts->func_info, &nfi, opts->func_info_rec_size, s, e, delta);
	li = err || !opts->line_info ? NULL :
		move_info(opts->line_info, &nli, opts->line_info_rec_size, s, e, delta);
	if (!err && (!fi || (opts->line_info && !li)))
		err = -ENOMEM;
	if (!err)
		err = bpf_program__set_insns(prog, in, total);
	free(in);
	if (err) {
		free(fi);
		free(li);
		return err;
	}
	cbpf_splice_mem__free(mem);
	mem->func_info = fi;
	mem->line_info = li;
	opts->func_info = mem->func_info;
	opts->func_info_cnt = nfi;
	opts->line_info = mem->line_info;
	opts->line_info_cnt = nli;
	return 0;
}

void cbpf_splice_mem__free(struct cbpf_splice_mem *mem)
{
	free(mem->func_info);
	free(mem->line_info);
	mem->func_info = mem->line_info = NULL;
}
