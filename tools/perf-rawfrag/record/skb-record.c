// SPDX-License-Identifier: GPL-2.0
/*
 * record --skb: load skbdump.bpf.c, attach it per interface and hook, open one
 * bpf-output event per recorded CPU and hand them to the record engine.
 *
 * Everything attached dies with the process: socket hook = an AF_PACKET socket
 * (closed on exit), tc hooks = tcx links (kernel 6.6+; on older kernels a
 * clsact filter removed by the cleanup, which a crash would leave behind),
 * xdp = a bpf_link (driver mode if the driver has it, else generic), or, when
 * the interface already has an XDP program, fentry/fexit links on that
 * program (skb-xdp.c).
 *
 * Ownership: struct skb_state owns the skeleton, sockets and links; it is freed
 * by the cleanup registered with the record (record__delete()).
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <rawfrag/skbdump.h>

#include "record.h"
#include "skb.h"
#include "skb-filter.h"
#include "cbpf-xlate.h"
#include "skb-xdp.h"
#include "tools/perf-rawfrag/record/bpf/skbdump.skel.h"

/* uapi values of kernels newer than the build host's headers */
#define SKB_TCX_INGRESS 46
#define SKB_TCX_EGRESS 47

#define SKB_MAX_IFACES 32
#define SKB_NR_HOOKS (RAWFRAG_SKB_HOOK_XDP_EXIT + 1)
#define SKB_MAX_ATTACH (SKB_MAX_IFACES * SKB_NR_HOOKS)
#define SKB_NAME_MAX 4096

struct skb_attach {
	int hook;
	int ifindex;
	int fd; /* socket or link fd (tcx, xdp), -1 */
	struct bpf_tc_hook tc_hook; /* clsact fallback */
	struct bpf_tc_opts tc_opts;
	bool tc_attached, tc_created;
	struct skb_xdp *xdp; /* xdp-entry/xdp-exit on the interface's own program */
};

struct skb_state {
	struct skbdump_bpf *skel;
	char name[SKB_NAME_MAX]; /* of the bpf-output evsel */
	bool loaded;
	int nr_att;
	struct skb_attach att[SKB_MAX_ATTACH];
};

/* libbpf's messages during load: the verifier log is kept for errors */
static char *skb_log;
static size_t skb_log_len;

static int skb_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *line = NULL, *p;
	int n;

	/* the verifier log and libbpf's errors come at WARN/INFO; DEBUG is noise */
	if (level == LIBBPF_DEBUG)
		return 0;
	/* whole: the verifier log comes as one message, and its end says why */
	n = vasprintf(&line, fmt, ap);
	if (n <= 0) {
		free(line);
		return 0;
	}
	p = realloc(skb_log, skb_log_len + n + 1);
	if (p) {
		memcpy(p + skb_log_len, line, n + 1);
		skb_log = p;
		skb_log_len += n;
	}
	free(line);
	return 0;
}

static void skb_err(const char *fmt, ...)
{
	va_list ap;

	fputs("perf rawfrag record: --skb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* print the last lines of the captured libbpf/verifier log */
static void skb_log_tail(int lines)
{
	size_t i;

	if (!skb_log_len)
		return;
	i = skb_log_len;
	while (i > 0 && lines >= 0) {
		i--;
		if (skb_log[i] == '\n' && i + 1 < skb_log_len)
			lines--;
	}
	fprintf(stderr, "--- verifier/libbpf log (tail) ---\n%s", skb_log + (i ? i + 1 : 0));
	if (skb_log[skb_log_len - 1] != '\n')
		fputc('\n', stderr);
}

static void skb_state__detach(struct skb_state *st)
{
	for (int i = 0; i < st->nr_att; i++) {
		struct skb_attach *a = &st->att[i];

		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		skb_xdp__close(a->xdp);
		a->xdp = NULL;
		if (a->tc_attached) {
			a->tc_opts.prog_fd = a->tc_opts.prog_id = a->tc_opts.flags = 0;
			bpf_tc_detach(&a->tc_hook, &a->tc_opts);
			a->tc_attached = false;
		}
		if (a->tc_created) {
			/* destroying clsact removes both directions: only if we made it */
			a->tc_hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&a->tc_hook);
			a->tc_created = false;
		}
	}
	st->nr_att = 0;
}

static void skb_print_stats(struct skb_state *st)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t tot[4] = {}, *v;

	if (ncpu <= 0 || !st->skel || !st->loaded)
		return;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return;
	for (uint32_t k = 0; k < 4; k++) {
		if (bpf_map__lookup_elem(st->skel->maps.stats, &k, sizeof(k), v,
					 sizeof(*v) * ncpu, 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			tot[k] += v[c];
	}
	free(v);
	fprintf(stderr,
		"[ perf rawfrag record: skb: %llu packets seen, %llu filtered out, %llu not written (ring full), %llu before the start ]\n",
		(unsigned long long)tot[0], (unsigned long long)tot[1],
		(unsigned long long)tot[2], (unsigned long long)tot[3]);
}

/* dumps refused by a full ring (stats[2], per cpu): into the file as LOST */
static void skb_write_drops(struct record *rec, void *arg)
{
	struct skb_state *st = arg;
	int ncpu = libbpf_num_possible_cpus();
	uint32_t k = 2;
	uint64_t *v;

	if (ncpu <= 0 || !st->skel || !st->loaded || !(v = calloc(ncpu, sizeof(*v))))
		return;
	if (!bpf_map__lookup_elem(st->skel->maps.stats, &k, sizeof(k), v, sizeof(*v) * ncpu, 0))
		for (int i = 0; i < record__nr_cpus(rec); i++)
			if (record__cpu(rec, i) < ncpu && v[record__cpu(rec, i)])
				record__add_drops(rec, st->name, i, v[record__cpu(rec, i)]);
	free(v);
}

static void skb_cleanup(void *arg)
{
	struct skb_state *st = arg;

	skb_state__detach(st);
	skb_print_stats(st);
	skbdump_bpf__destroy(st->skel);
	free(st);
}

/* "a,b,c" → words (in place); returns count or -1 when too many */
static int split(char *s, char **w, int max)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -1;
		w[n++] = t;
	}
	return n;
}

static int attach_socket(struct skb_state *st, struct skb_attach *a)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = a->ifindex,
	};
	int prog = bpf_program__fd(st->skel->progs.skbdump_socket);
	int one = 1;

	/* protocol 0: sees nothing until bound, so the filter is in place first */
	a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (a->fd < 0)
		return -errno;
	if (setsockopt(a->fd, SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)))
		return -errno;
	/*
	 * Loopback: the program drops the outgoing copy of every packet anyway;
	 * telling the kernel spares the sender a clone and a run of the program
	 * per packet. Before 4.20 the option is unknown and the program does it.
	 */
	if (a->ifindex == 1 /* LOOPBACK_IFINDEX */)
		(void)setsockopt(a->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (bind(a->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	return 0;
}

static int attach_tc(struct skb_state *st, struct skb_attach *a)
{
	bool in = a->hook == RAWFRAG_SKB_HOOK_TC_INGRESS;
	struct bpf_program *p = in ? st->skel->progs.skbdump_tc_ingress :
				     st->skel->progs.skbdump_tc_egress;
	int err;

	a->fd = bpf_link_create(bpf_program__fd(p), a->ifindex,
				in ? SKB_TCX_INGRESS : SKB_TCX_EGRESS, NULL);
	if (a->fd >= 0)
		return 0;
	err = -errno;
	if (err != -EINVAL && err != -EOPNOTSUPP)
		return err;
	/* no tcx (kernel < 6.6): clsact, removed by the cleanup */
	a->fd = -1;
	memset(&a->tc_hook, 0, sizeof(a->tc_hook));
	a->tc_hook.sz = sizeof(a->tc_hook);
	a->tc_hook.ifindex = a->ifindex;
	a->tc_hook.attach_point = in ? BPF_TC_INGRESS : BPF_TC_EGRESS;
	err = bpf_tc_hook_create(&a->tc_hook);
	if (err && err != -EEXIST)
		return err;
	a->tc_created = !err;
	memset(&a->tc_opts, 0, sizeof(a->tc_opts));
	a->tc_opts.sz = sizeof(a->tc_opts);
	a->tc_opts.prog_fd = bpf_program__fd(p);
	err = bpf_tc_attach(&a->tc_hook, &a->tc_opts);
	if (err)
		return err;
	a->tc_attached = true;
	return 0;
}

/* driver mode with the multi-buffer program, else generic mode (see skbdump.bpf.c) */
static int attach_xdp(struct skb_state *st, struct skb_attach *a)
{
	LIBBPF_OPTS(bpf_link_create_opts, drv, .flags = XDP_FLAGS_DRV_MODE);
	LIBBPF_OPTS(bpf_link_create_opts, gen, .flags = XDP_FLAGS_SKB_MODE);

	a->fd = bpf_link_create(bpf_program__fd(st->skel->progs.skbdump_xdp_mb), a->ifindex,
				BPF_XDP, &drv);
	if (a->fd >= 0)
		return 0;
	a->fd = bpf_link_create(bpf_program__fd(st->skel->progs.skbdump_xdp), a->ifindex,
				BPF_XDP, &gen);
	return a->fd >= 0 ? 0 : -errno;
}

static int attach_one(struct skb_state *st, struct skb_attach *a, const char *ifname)
{
	int err;

	switch (a->hook) {
	case RAWFRAG_SKB_HOOK_SOCKET:
		err = attach_socket(st, a);
		break;
	case RAWFRAG_SKB_HOOK_TC_INGRESS:
	case RAWFRAG_SKB_HOOK_TC_EGRESS:
		err = attach_tc(st, a);
		break;
	default:
		err = attach_xdp(st, a);
		break;
	}
	if (err) {
		skb_err("cannot attach hook %s to interface %s: %s%s", rawfrag_skb_hook__name(a->hook), ifname,
			strerror(-err),
			err == -EOPNOTSUPP || err == -EINVAL ?
				" (hook not supported by the kernel or driver)" :
				err == -EBUSY || err == -EEXIST ?
				" (another program is attached)" : "");
		if (a->hook == RAWFRAG_SKB_HOOK_XDP)
			skb_log_tail(5);
	}
	return err;
}

/*
 * The hooks of one interface. With an XDP program already there, "xdp" traces
 * that program at its entry and exit instead of failing next to it, as xdpdump
 * does; "xdp-entry"/"xdp-exit" ask for one of them.
 */
static int attach_iface(struct skb_state *st, int ifindex, const char *ifname, const bool *hooks,
			unsigned int snaplen, bool filtered)
{
	struct skb_xdp_opts xo = {
		.entry = hooks[RAWFRAG_SKB_HOOK_XDP_ENTRY],
		.exit = hooks[RAWFRAG_SKB_HOOK_XDP_EXIT],
		.snaplen = snaplen,
		.events_fd = bpf_map__fd(st->skel->maps.events),
		.stats_fd = bpf_map__fd(st->skel->maps.stats),
	};
	struct skb_attach *a;
	char msg[256];
	uint32_t id = 0;
	int err;

	if (hooks[RAWFRAG_SKB_HOOK_XDP] || xo.entry || xo.exit) {
		err = skb_xdp__attached(ifindex, &id);
		if (err) {
			skb_err("cannot query the XDP program of %s: %s", ifname, strerror(-err));
			return err;
		}
	}
	if (hooks[RAWFRAG_SKB_HOOK_XDP] && id)
		xo.entry = xo.exit = true;
	for (int h = 1; h <= RAWFRAG_SKB_HOOK_XDP; h++) {
		if (!hooks[h] || (h == RAWFRAG_SKB_HOOK_XDP && id))
			continue;
		a = &st->att[st->nr_att++];
		a->hook = h;
		a->ifindex = ifindex;
		err = attach_one(st, a, ifname);
		if (err)
			return err;
	}
	if (!xo.entry && !xo.exit)
		return 0;
	if (!id) {
		skb_err("hook xdp-entry/xdp-exit: %s has no XDP program to trace ('--hook xdp' attaches ours)",
			ifname);
		return -ENOENT;
	}
	if (filtered) {
		skb_err("--filter is not applied at xdp-entry/xdp-exit, where %s's own XDP program (id %u) is traced: record without --filter (tcpdump -r of the pcapng selects afterwards) or use --hook tc-ingress",
			ifname, id);
		return -EOPNOTSUPP;
	}
	a = &st->att[st->nr_att++];
	a->hook = RAWFRAG_SKB_HOOK_XDP_ENTRY;
	a->ifindex = ifindex;
	err = skb_xdp__open(&a->xdp, ifindex, ifname, id, &xo, msg, sizeof(msg));
	if (err) {
		skb_err("xdp on %s: %s", ifname, msg);
		skb_log_tail(8);
	}
	return err;
}

/* one bpf-output event per recorded cpu, each put in the events map */
static int open_events(struct record *rec, struct skb_state *st, const char *name, int *fds,
		       int n)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		/* IP: perf script 6.1 refuses software events without it */
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
		.sample_period = 1,
		.sample_id_all = 1,
		/* the record's clock: events sharing a ring need the same one */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.watermark = 1,
		/*
		 * the record enables it once its rings exist: until then the
		 * program's output fails cleanly (counted "before the start")
		 */
		.disabled = 1,
	};
	int map = bpf_map__fd(st->skel->maps.events);
	unsigned int pages = record__mmap_pages(rec);
	int err;

	/* wake the reader at a quarter of the ring, not per packet */
	attr.wakeup_watermark = (pages ? pages : 1) * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
	for (int i = 0; i < n; i++) {
		uint32_t cpu = record__cpu(rec, i);

		fds[i] = syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			err = -errno;

			skb_err("perf_event_open(bpf-output, cpu %u): %s", cpu, strerror(-err));
			return err;
		}
		if (bpf_map_update_elem(map, &cpu, &fds[i], BPF_ANY)) {
			err = -errno;

			skb_err("cannot put the bpf-output event of cpu %u in the map: %s", cpu,
				strerror(-err));
			return err;
		}
	}
	err = record__add_external_evsel(rec, &attr, name, fds, n);
	if (err)
		skb_err("cannot add the bpf-output event to the recording: %s", strerror(-err));
	return err;
}

/*
 * The filter as the prepare-load callback sees it: libbpf runs the callback
 * of our "rawfrag/..." sections for each program right before its load, with
 * the program relocated (subprograms appended, maps resolved), which is where
 * the translated filter replaces rawfrag_filter_skb()/rawfrag_filter_xdp().
 * One load at a time (the tool is single-threaded while it sets up).
 */
struct skb_splice {
	const struct skb_filter *f;
	const struct btf *btf;
	struct cbpf_splice_mem mem;
	size_t ninsns[2]; /* eBPF instructions per cbpf_load mode, 0 = not used */
	int spliced; /* programs that got the filter */
	char msg[256]; /* why the translation failed */
};

static struct skb_splice *skb_splice_cur;

#define SKB_SEC_FRAGS 1 /* cookie: an xdp.frags program */

static int skb_prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	static const char *const stub[] = { [CBPF_LOAD_SKB] = "rawfrag_filter_skb",
					    [CBPF_LOAD_XDP] = "rawfrag_filter_xdp" };
	struct skb_splice *sp = skb_splice_cur;

	if (cookie & SKB_SEC_FRAGS)
		opts->prog_flags |= BPF_F_XDP_HAS_FRAGS;
	for (int m = 0; sp && m < 2; m++) {
		struct bpf_insn *body;
		size_t cnt;
		int err = cbpf_xlate(sp->f->insns, sp->f->len, m, &body, &cnt, sp->msg,
				     sizeof(sp->msg));

		if (err)
			return err;
		err = cbpf_splice(prog, opts, sp->btf, stub[m], body, cnt, &sp->mem);
		free(body);
		if (err == -ENOENT)
			continue;
		if (err) {
			snprintf(sp->msg, sizeof(sp->msg), "cannot put it in program %s: %s",
				 bpf_program__name(prog), strerror(-err));
			return err;
		}
		sp->ninsns[m] = cnt;
		sp->spliced++;
	}
	return 0;
}

/* our section names, each with the program type libbpf would give the usual one */
static int skb_register_sections(void)
{
	static const struct {
		const char *sec;
		enum bpf_prog_type type;
		enum bpf_attach_type attach;
		long cookie;
	} secs[] = {
		{ "rawfrag/socket", BPF_PROG_TYPE_SOCKET_FILTER, 0, 0 },
		{ "rawfrag/tc", BPF_PROG_TYPE_SCHED_CLS, 0, 0 },
		{ "rawfrag/xdp", BPF_PROG_TYPE_XDP, BPF_XDP, 0 },
		{ "rawfrag/xdp.frags", BPF_PROG_TYPE_XDP, BPF_XDP, SKB_SEC_FRAGS },
	};
	static bool done;

	for (size_t i = 0; !done && i < sizeof(secs) / sizeof(secs[0]); i++) {
		LIBBPF_OPTS(libbpf_prog_handler_opts, o, .cookie = secs[i].cookie,
			    .prog_prepare_load_fn = skb_prepare_load);
		int id = libbpf_register_prog_handler(secs[i].sec, secs[i].type, secs[i].attach, &o);

		if (id < 0) {
			skb_err("cannot register the BPF section %s with libbpf: %s", secs[i].sec,
				strerror(-id));
			return id;
		}
	}
	done = true;
	return 0;
}

/* open and load the skeleton; xlate: with the filter translated (sp) */
static int load_program(struct skb_state *st, unsigned int snaplen, const struct skb_filter *f,
			const bool *hooks, struct skb_splice *sp)
{
	struct skbdump_bpf__rodata *ro;
	int err;

	st->skel = skbdump_bpf__open();
	if (!st->skel)
		return -errno;
	ro = st->skel->rodata;
	ro->snaplen = snaplen;
	ro->f_len = f->len;
	ro->f_xlated = sp != NULL;
	if (!sp)
		memcpy((void *)ro->f_insns, f->insns, f->len * sizeof(f->insns[0]));
	/* load only what is attached: an unsupported program type fails alone */
	bpf_program__set_autoload(st->skel->progs.skbdump_socket, hooks[RAWFRAG_SKB_HOOK_SOCKET]);
	bpf_program__set_autoload(st->skel->progs.skbdump_tc_ingress,
				  hooks[RAWFRAG_SKB_HOOK_TC_INGRESS]);
	bpf_program__set_autoload(st->skel->progs.skbdump_tc_egress,
				  hooks[RAWFRAG_SKB_HOOK_TC_EGRESS]);
	bpf_program__set_autoload(st->skel->progs.skbdump_xdp, hooks[RAWFRAG_SKB_HOOK_XDP]);
	bpf_program__set_autoload(st->skel->progs.skbdump_xdp_mb, hooks[RAWFRAG_SKB_HOOK_XDP]);
	if (sp)
		sp->btf = bpf_object__btf(st->skel->obj);
	skb_splice_cur = sp;
	err = skbdump_bpf__load(st->skel);
	skb_splice_cur = NULL;
	if (sp)
		cbpf_splice_mem__free(&sp->mem);
	return err;
}

static void skb_unload(struct skb_state *st)
{
	skbdump_bpf__destroy(st->skel);
	st->skel = NULL;
	free(skb_log);
	skb_log = NULL;
	skb_log_len = 0;
}

/* dump programs loaded for these hooks (xdp: the frags one and the plain one) */
static int loaded_progs(const bool *hooks)
{
	return hooks[RAWFRAG_SKB_HOOK_SOCKET] + hooks[RAWFRAG_SKB_HOOK_TC_INGRESS] +
	       hooks[RAWFRAG_SKB_HOOK_TC_EGRESS] + 2 * hooks[RAWFRAG_SKB_HOOK_XDP];
}

/*
 * The filter translated to eBPF, or, when the translation or the verifier
 * fails, interpreted (-v says which and why). PERF_RAWFRAG_SKB_FILTER=interpret
 * forces the interpreter: to compare the two, and to test the fallback.
 */
static int setup_program(struct skb_state *st, unsigned int snaplen, const struct skb_filter *f,
			 const bool *hooks, int verbose)
{
	struct skb_splice sp = { .f = f };
	const char *how = getenv("PERF_RAWFRAG_SKB_FILTER");
	bool interp = how && !strcmp(how, "interpret");
	int err = skb_register_sections();

	if (err)
		return err;
	if (interp && f->len && verbose)
		fprintf(stderr, "perf rawfrag record: --skb: filter: PERF_RAWFRAG_SKB_FILTER=interpret\n");
	err = load_program(st, snaplen, f, hooks, f->len && !interp ? &sp : NULL);
	/* a program left with the placeholder would pass every packet: not loaded */
	if (!err && f->len && !interp && sp.spliced != loaded_progs(hooks)) {
		snprintf(sp.msg, sizeof(sp.msg), "the placeholder was replaced in %d of %d programs",
			 sp.spliced, loaded_progs(hooks));
		err = -ENOENT;
	}
	if (err && f->len && st->skel && err != -EPERM && err != -EACCES) {
		if (verbose)
			fprintf(stderr, "perf rawfrag record: --skb: filter: the translation failed (%s), "
				"falling back to the interpreter\n",
				sp.msg[0] ? sp.msg : "the verifier refused it");
		if (verbose > 1)
			skb_log_tail(12);
		skb_unload(st);
		err = load_program(st, snaplen, f, hooks, NULL);
		if (!err && verbose)
			fprintf(stderr, "perf rawfrag record: --skb: filter: %u classic instructions, interpreted\n",
				f->len);
	} else if (!err && f->len && verbose && interp) {
		fprintf(stderr, "perf rawfrag record: --skb: filter: %u classic instructions, interpreted\n",
			f->len);
	} else if (!err && f->len && verbose) {
		fprintf(stderr, "perf rawfrag record: --skb: filter: %u classic instructions, translated to "
			"eBPF (%zu instructions for skb hooks, %zu for xdp; 0 = not loaded)\n",
			f->len, sp.ninsns[CBPF_LOAD_SKB], sp.ninsns[CBPF_LOAD_XDP]);
	}
	if (!st->skel) {
		skb_err("cannot open the BPF object: %s", strerror(-err));
	} else if (err == -EPERM || err == -EACCES) {
		skb_err("loading BPF programs is not permitted (%s): run as root or with CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN",
			strerror(-err));
	} else if (err) {
		skb_err("the kernel rejected the BPF program (%s)", strerror(-err));
		skb_log_tail(12);
	}
	st->loaded = !err;
	return err;
}

/* the interfaces and hooks asked for, checked */
struct skb_targets {
	char *ifcopy, *hkcopy; /* owned: ifn[] points into ifcopy */
	char *ifn[SKB_MAX_IFACES];
	uint32_t ifidx[SKB_MAX_IFACES];
	int nif;
	bool hooks[SKB_NR_HOOKS];
};

static int parse_targets(struct skb_targets *t, const struct skb_opts *opts)
{
	char *hkn[8];
	int nhk;

	t->ifcopy = strdup(opts->ifaces ? opts->ifaces : "");
	t->hkcopy = strdup(opts->hooks && *opts->hooks ? opts->hooks : "socket");
	if (!t->ifcopy || !t->hkcopy)
		return -ENOMEM;
	t->nif = split(t->ifcopy, t->ifn, SKB_MAX_IFACES);
	nhk = split(t->hkcopy, hkn, 8);
	if (t->nif <= 0 || nhk <= 0) {
		skb_err("give 1..%d interfaces and hooks", SKB_MAX_IFACES);
		return -EINVAL;
	}
	for (int i = 0; i < t->nif; i++) {
		t->ifidx[i] = if_nametoindex(t->ifn[i]);
		if (!t->ifidx[i]) {
			skb_err("interface '%s' not found", t->ifn[i]);
			return -ENODEV;
		}
	}
	for (int i = 0; i < nhk; i++) {
		int h = rawfrag_skb_hook__parse(hkn[i]);

		if (h < 0) {
			skb_err("unknown hook '%s' (socket, tc-ingress, tc-egress, xdp, xdp-entry, xdp-exit)",
				hkn[i]);
			return -EINVAL;
		}
		t->hooks[h] = true;
	}
	return 0;
}

/* the dump state, registered for record__delete() to free */
static int new_state(struct record *rec, struct skb_state **stp)
{
	struct skb_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	for (int i = 0; i < SKB_MAX_ATTACH; i++)
		st->att[i].fd = -1;
	err = record__add_cleanup(rec, skb_cleanup, st);
	if (err) {
		free(st);
		return err;
	}
	*stp = st;
	return 0;
}

/* the bpf-output event on every recorded cpu, handed to the record */
static int add_events(struct record *rec, struct skb_state *st, const struct skb_targets *t)
{
	char name[SKB_NAME_MAX];
	int ncpu = record__nr_cpus(rec), err;
	int *fds = calloc(ncpu > 0 ? ncpu : 1, sizeof(*fds));

	if (!fds)
		return -ENOMEM;
	for (int i = 0; i < ncpu; i++)
		fds[i] = -1;
	/* the interface names travel in the event name (see skbdump.h) */
	err = rawfrag_skb_event__format(name, sizeof(name), (const char *const *)t->ifn, t->ifidx,
					t->nif);
	if (err < 0 || err >= (int)sizeof(name)) {
		skb_err("interface names with '=' or too long for the event name");
		free(fds);
		return -EINVAL;
	}
	snprintf(st->name, sizeof(st->name), "%s", name);
	err = record__add_finish_hook(rec, skb_write_drops, st);
	if (!err)
		err = open_events(rec, st, name, fds, ncpu);
	if (err) {
		/* the record took the fds only on success */
		for (int i = 0; i < ncpu; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	free(fds);
	return err;
}

static int attach_all(struct skb_state *st, const struct skb_targets *t, unsigned int snaplen,
		      bool filtered)
{
	for (int i = 0; i < t->nif; i++) {
		int err = attach_iface(st, t->ifidx[i], t->ifn[i], t->hooks, snaplen, filtered);

		if (err) {
			skb_state__detach(st);
			st->loaded = false; /* no summary for a run that never started */
			return err;
		}
	}
	return 0;
}

int skb_record_setup(struct record *rec, const struct skb_opts *opts)
{
	unsigned int snaplen = opts->snaplen ? opts->snaplen : RAWFRAG_SKB_SNAPLEN_DEFAULT;
	struct skb_targets t = {};
	struct skb_filter *filt = NULL;
	struct skb_state *st = NULL;
	libbpf_print_fn_t old_print;
	char msg[256];
	int err = -EINVAL;

	old_print = libbpf_set_print(skb_libbpf_print);
	if (snaplen > RAWFRAG_SKB_SNAPLEN_MAX) {
		skb_err("snaplen %u out of range 1..%u (a sample must fit in 64 KiB)", snaplen,
			RAWFRAG_SKB_SNAPLEN_MAX);
		goto out;
	}
	filt = calloc(1, sizeof(*filt));
	if (!filt) {
		err = -ENOMEM;
		goto out;
	}
	if (skb_filter__compile(filt, opts->filter, snaplen, msg, sizeof(msg))) {
		skb_err("--filter '%s': %s", opts->filter, msg);
		goto out;
	}
	err = parse_targets(&t, opts);
	if (!err)
		err = new_state(rec, &st);
	/* from here on st is freed by record__delete() */
	if (!err)
		err = setup_program(st, snaplen, filt, t.hooks, opts->verbose);
	if (!err)
		err = add_events(rec, st, &t);
	if (!err)
		err = attach_all(st, &t, snaplen, opts->filter && *opts->filter);
out:
	libbpf_set_print(old_print);
	free(skb_log);
	skb_log = NULL;
	skb_log_len = 0;
	free(filt);
	free(t.ifcopy);
	free(t.hkcopy);
	return err;
}
