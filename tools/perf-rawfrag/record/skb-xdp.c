// SPDX-License-Identifier: GPL-2.0
/*
 * record --skb, hooks xdp-entry/xdp-exit: fentry/fexit programs on the XDP
 * program an interface already has (see skb-xdp.h). The traced program needs
 * BTF: fentry on a BPF program is typed by the BTF of its main function, whose
 * full name (the program's name is cut at 15 characters) is in that BTF.
 *
 * Everything is fd-based (links, programs): it goes away with the process,
 * and skb_xdp__close() lets it go earlier; the traced program stays attached.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <rawfrag/skbdump.h>

#include "skb-xdp.h"
#include "tools/perf-rawfrag/record/bpf/skbxdp.skel.h"

struct skb_xdp {
	struct skbxdp_bpf *skel;
	struct bpf_link *entry, *exit;
	int target_fd;
};

int skb_xdp__attached(int ifindex, uint32_t *prog_id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query(ifindex, 0, &q);

	*prog_id = 0;
	if (err)
		return err;
	/*
	 * The host's program (driver mode, else generic): one at most, and ours
	 * cannot go next to it. A program offloaded to the NIC (HW mode) is
	 * neither traceable nor in the way of one on the host.
	 */
	*prog_id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
	return 0;
}

/* the full name of the main function of program fd, from its BTF */
static int prog_func_name(int fd, char *name, size_t len, char *msg, size_t mlen)
{
	struct bpf_prog_info info = {};
	struct bpf_func_info fi = {};
	__u32 ilen = sizeof(info);
	const struct btf_type *t;
	struct btf *btf;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return -errno;
	snprintf(name, len, "%s", info.name);
	if (!info.btf_id || !info.nr_func_info) {
		snprintf(msg, mlen,
			 "its XDP program %s (id %u) has no BTF, which fentry/fexit need (load it from an object built with clang -g, or record at tc-ingress)",
			 info.name, info.id);
		return -ENOENT;
	}
	memset(&info, 0, sizeof(info));
	info.nr_func_info = 1; /* the first one is the main function (insn_off 0) */
	info.func_info_rec_size = sizeof(fi);
	info.func_info = (uintptr_t)&fi;
	ilen = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return -errno;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		snprintf(msg, mlen, "cannot read the BTF of program %s: %s", name, strerror(-err));
		return err;
	}
	t = btf__type_by_id(btf, fi.type_id);
	err = t && btf_is_func(t) ? 0 : -ENOENT;
	if (!err)
		snprintf(name, len, "%s", btf__name_by_offset(btf, t->name_off));
	else
		snprintf(msg, mlen, "program %s: no function in its BTF", name);
	btf__free(btf);
	return err;
}

static int load(struct skb_xdp *x, int ifindex, uint32_t prog_id, const char *func,
		const struct skb_xdp_opts *o)
{
	struct skbxdp_bpf *s;
	int err;

	s = x->skel = skbxdp_bpf__open();
	if (!s)
		return -errno;
	s->rodata->snaplen = o->snaplen;
	s->rodata->ifindex = ifindex;
	s->rodata->prog_id = prog_id;
	err = bpf_map__reuse_fd(s->maps.events, o->events_fd);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.stats, o->stats_fd);
	if (!err)
		err = bpf_program__set_attach_target(s->progs.skbdump_xdp_entry, x->target_fd, func);
	if (!err)
		err = bpf_program__set_attach_target(s->progs.skbdump_xdp_exit, x->target_fd, func);
	if (err)
		return err;
	bpf_program__set_autoload(s->progs.skbdump_xdp_entry, o->entry);
	bpf_program__set_autoload(s->progs.skbdump_xdp_exit, o->exit);
	err = skbxdp_bpf__load(s);
	if (err)
		return err;
	if (o->entry) {
		x->entry = bpf_program__attach_trace(s->progs.skbdump_xdp_entry);
		if (!x->entry)
			return -errno;
	}
	if (o->exit) {
		x->exit = bpf_program__attach_trace(s->progs.skbdump_xdp_exit);
		if (!x->exit)
			return -errno;
	}
	return 0;
}

int skb_xdp__open(struct skb_xdp **xp, int ifindex, const char *ifname, uint32_t prog_id,
		  const struct skb_xdp_opts *o, char *msg, size_t len)
{
	struct skb_xdp *x = calloc(1, sizeof(*x));
	char func[128];
	int err;

	*xp = NULL;
	snprintf(msg, len, "?");
	if (!x)
		return -ENOMEM;
	x->target_fd = bpf_prog_get_fd_by_id(prog_id);
	if (x->target_fd < 0) {
		err = -errno;
		snprintf(msg, len, "cannot open its XDP program (id %u): %s", prog_id,
			 strerror(-err));
		goto fail;
	}
	err = prog_func_name(x->target_fd, func, sizeof(func), msg, len);
	if (err)
		goto fail;
	/* said before the load, so that a refusal follows what was tried */
	fprintf(stderr, "perf rawfrag record: xdp: %s has program %s (id %u): capturing at its %s (%s)\n",
		ifname, func, prog_id,
		o->entry && o->exit ? "entry and exit" : o->entry ? "entry" : "exit",
		o->entry && o->exit ? "fentry/fexit" : o->entry ? "fentry" : "fexit");
	err = load(x, ifindex, prog_id, func, o);
	if (err) {
		/* root and still EPERM: the kernel does not allow BPF trampolines here */
		snprintf(msg, len, "cannot trace its XDP program %s (id %u) with %s: %s%s", func,
			 prog_id, o->entry && o->exit ? "fentry/fexit" : o->entry ? "fentry" : "fexit",
			 strerror(-err),
			 err == -EPERM ? " (this kernel refuses fentry/fexit programs; --hook tc-ingress sees what the XDP program passes)" : "");
		goto fail;
	}
	*xp = x;
	return 0;
fail:
	skb_xdp__close(x);
	return err;
}

void skb_xdp__close(struct skb_xdp *x)
{
	if (!x)
		return;
	bpf_link__destroy(x->entry);
	bpf_link__destroy(x->exit);
	skbxdp_bpf__destroy(x->skel);
	if (x->target_fd >= 0)
		close(x->target_fd);
	free(x);
}
