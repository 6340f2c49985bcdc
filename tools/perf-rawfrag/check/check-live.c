// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag check --live [--format json] [-o FILE] [--quick]
 *
 * Loads its own BPF programs (bpf/livecheck.bpf.c) and drives the running
 * kernel's PERF_SAMPLE_RAW producers on one pinned cpu: plain bpf output, skb
 * and xdp output with the packet as the second fragment, a tracepoint with a
 * __data_loc string, records across a small ring's end and at the 64 KiB
 * header.size limit. Each record is checked as it is read (check-live-verify.c).
 * Exit 0 conformant, 1 violations, 2 something could not run.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <rawfrag/writer.h>

#include "builtin.h"
#include "check-live-cases.h"
#include "check-live-verify.h"
#include "check-live.h"
#include "tracefs.h"
#include "util.h"
#include "tools/perf-rawfrag/check/bpf/livecheck.skel.h"

struct live_def {
	const char *name, *producer;
	int (*run)(struct live *L, struct live_case *c);
	bool tracepoint;
};

static const struct live_def live_defs[] = {
	{ "plain", "bpf", live_case_plain },
	{ "plain-large", "bpf", live_case_plain_large },
	{ "skb-linear", "bpf_skb", live_case_skb },
	{ "skb-paged", "bpf_skb", live_case_skb_paged },
	{ "xdp", "bpf_xdp", live_case_xdp },
	{ "xdp-frags", "bpf_xdp", live_case_xdp_frags },
	{ "exec-path", "tracepoint", live_case_exec, true },
	{ "ring-wrap", "bpf+bpf_skb", live_case_wrap },
	{ "size-limit", "bpf", live_case_limit },
};
#define NR_CASES (sizeof(live_defs) / sizeof(live_defs[0]))

static int live_err(const char *what, int err)
{
	rf_errorf("check", "--live: %s: %s", what, strerror(err < 0 ? -err : err));
	return RF_EXIT_USAGE;
}

static enum live_tamper tamper_mode(void)
{
	const char *t = getenv("RAWFRAG_LIVE_TAMPER");

	if (!t || !*t)
		return TAMPER_NONE;
	if (!strcmp(t, "size"))
		return TAMPER_SIZE;
	if (!strcmp(t, "shift"))
		return TAMPER_SHIFT;
	if (!strcmp(t, "pad"))
		return TAMPER_PAD;
	if (!strcmp(t, "trunc"))
		return TAMPER_TRUNC;
	return TAMPER_NONE;
}

static bool libbpf_verbose;

/* libbpf's messages only with -v: the one error line says what failed */
static int live_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* pin to the cpu we run on: every producer then writes to the events opened there */
static int pin_cpu(struct live *L)
{
	cpu_set_t set;

	L->cpu = sched_getcpu();
	if (L->cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(L->cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void fill_patterns(struct live *L)
{
	/* different in every byte of a page and between the fragments, so a shift shows */
	for (uint32_t i = 0; i < LIVE_META_MAX; i++) {
		L->meta_pat[i] = (unsigned char)(i * 131 + (i >> 8) * 17 + 0x5b);
		L->pkt_pat[i] = (unsigned char)(i * 29 + (i >> 8) * 3 + 0xc3);
	}
}

static int open_writer(struct live *L)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo);
	struct rawfrag_err e = { 0 };

	L->w = rawfrag_writer__new(L->o.output, &wo, &e);
	if (!L->w) {
		rf_print_err("check", L->o.output, &e);
		return -EIO;
	}
	return 0;
}

static int start_writer(struct live *L)
{
	static const char *const tps[] = { "sched:sched_process_exec" };
	struct rawfrag_err e = { 0 };
	void *blob = NULL;
	size_t len = 0;
	int err = rawfrag_writer__set_host_features(L->w);

	if (!err && L->have_tp) {
		err = rawfrag_tracing_data__build(NULL, tps, 1, false, &blob, &len, &e);
		if (!err)
			err = rawfrag_writer__set_tracing_data(L->w, blob, len);
		free(blob);
	}
	if (!err)
		err = rawfrag_writer__start(L->w);
	return err;
}

/* the tracepoint's id, or -errno with the reason in msg */
static int tp_id(char *msg, size_t msglen)
{
	const char *tf = tracefs__path(msg, msglen);
	char path[384];
	FILE *f;
	int id = -1;

	if (!tf)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/sched/sched_process_exec/id", tf);
	f = fopen(path, "re");
	if (!f) {
		id = -errno;
		snprintf(msg, msglen, "%s: %s", path, strerror(-id));
		return id;
	}
	if (fscanf(f, "%d", &id) != 1) {
		id = -EINVAL;
		snprintf(msg, msglen, "%s: no id", path);
	}
	fclose(f);
	return id;
}

/*
 * live_rx (a BTF tracepoint) only tells linear from paged skbs: without BTF
 * or tracing rights the other programs load without it.
 */
static int load_progs(struct live *L)
{
	int err;

	for (int with_rx = 1; with_rx >= 0; with_rx--) {
		L->skel = livecheck_bpf__open();
		if (!L->skel)
			return -errno;
		bpf_program__set_autoload(L->skel->progs.live_rx, with_rx);
		err = livecheck_bpf__load(L->skel);
		if (!err) {
			L->have_rx = with_rx;
			return 0;
		}
		livecheck_bpf__destroy(L->skel);
		L->skel = NULL;
	}
	return err;
}

static int setup(struct live *L)
{
	static const unsigned int pages[3] = { LIVE_PAGES_MAIN, LIVE_PAGES_WRAP, LIVE_PAGES_BIG };
	char msg[640] = "";
	uint32_t k = 0;
	int err;

	L->meta_pat = malloc(LIVE_META_MAX);
	L->pkt_pat = malloc(LIVE_META_MAX);
	L->exp = malloc(2 * LIVE_META_MAX);
	L->tbuf = malloc(2 * LIVE_META_MAX);
	if (!L->meta_pat || !L->pkt_pat || !L->exp || !L->tbuf)
		return live_err("memory", -ENOMEM);
	fill_patterns(L);
	err = pin_cpu(L);
	if (err)
		return live_err("pinning to a cpu", err);
	libbpf_verbose = L->o.verbose;
	libbpf_set_print(live_libbpf_print);
	err = load_progs(L);
	if (err)
		return live_err("loading the BPF programs (root or CAP_BPF+CAP_PERFMON needed)", err);
	if (bpf_map_update_elem(bpf_map__fd(L->skel->maps.meta), &k, L->meta_pat, BPF_ANY))
		return live_err("filling the meta map", -errno);
	if (L->o.output && open_writer(L))
		return RF_EXIT_USAGE;
	for (int i = 0; i < 3; i++) {
		err = live_ring__open(L, &L->bo[i], false, pages[i], -1);
		if (err)
			return live_err("perf_event_open(bpf-output)", err);
	}
	L->tp_id = tp_id(msg, sizeof(msg));
	L->tp.fd = -1;
	err = L->tp_id > 0 ? live_ring__open(L, &L->tp, true, 0, L->bo[0].fd) : L->tp_id;
	if (!err)
		L->have_tp = true;
	else
		live_missing(L, "exec-path (tracepoint sched:sched_process_exec): %s",
			     L->tp_id > 0 ? strerror(-err) : msg);
	if (L->w && start_writer(L))
		return live_err("writing the output file header", -EIO);
	for (int i = 0; i < 3; i++) {
		err = live_ring__prefill(L, &L->bo[i]);
		if (err)
			return live_err("filling the rings", err);
	}
	return 0;
}

static void print_sizes(FILE *f, const struct live_case *c, bool json)
{
	if (json)
		fprintf(f, "\"sizes\":{\"min\":%u,\"max\":%u,\"distinct\":%u}", c->min_sum,
			c->max_sum, c->nsizes);
	else if (c->records)
		fprintf(f, "%u-%u/%u", c->min_sum, c->max_sum, c->nsizes);
	else
		fputs("-", f);
}

static void print_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
	putchar('"');
}

static void print_json(const struct live_case *c, const char *missing)
{
	printf("{\"case\":\"%s\",\"producer\":\"%s\",\"ran\":%s,\"sent\":%" PRIu64
	       ",\"records\":%" PRIu64 ",\"ok\":%" PRIu64 ",\"violations\":%" PRIu64
	       ",\"pad_zero\":%" PRIu64 ",\"pad_stale\":%" PRIu64 ",\"pad_none\":%" PRIu64
	       ",\"wrapped\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"refused\":%" PRIu64 ",",
	       c->name, c->producer, c->ran ? "true" : "false", c->sent, c->records, c->ok,
	       c->violations, c->pad_zero, c->pad_stale, c->pad_none, c->wrapped, c->lost,
	       c->refused);
	print_sizes(stdout, c, true);
	printf(",\"first_violation\":");
	print_json_str(c->first);
	printf(",\"note\":");
	print_json_str(missing ? missing : c->note);
	printf("}\n");
}

static void print_table(const struct live *L, const struct live_case *cs)
{
	struct utsname u;

	if (uname(&u))
		strcpy(u.release, "?");
	printf("perf rawfrag check --live: kernel %s, cpu %d%s\n", u.release, L->cpu,
	       L->o.quick ? " (--quick)" : "");
	printf("  %-12s %-11s %8s %-18s %8s %6s %8s %9s %7s\n", "case", "producer", "records",
	       "sizes min-max/n", "ok", "viol", "pad zero", "pad stale", "wrapped");
	for (size_t i = 0; i < NR_CASES; i++) {
		const struct live_case *c = &cs[i];
		char sz[40];
		FILE *f = fmemopen(sz, sizeof(sz), "w");

		print_sizes(f, c, false);
		fclose(f);
		printf("  %-12s %-11s %8" PRIu64 " %-18s %8" PRIu64 " %6" PRIu64 " %8" PRIu64
		       " %9" PRIu64 " %7" PRIu64 "%s\n",
		       c->name, c->producer, c->records, sz, c->ok, c->violations, c->pad_zero,
		       c->pad_stale, c->wrapped, c->ran ? "" : "  (not run)");
	}
	for (size_t i = 0; i < NR_CASES; i++)
		if (cs[i].note[0] && cs[i].ran)
			printf("  %s: %s\n", cs[i].name, cs[i].note);
	for (size_t i = 0; i < NR_CASES; i++)
		if (cs[i].first[0])
			printf("violation: %s\n", cs[i].first);
}

static void teardown(struct live *L)
{
	for (int i = 0; i < 3; i++)
		if (L->bo[i].shadow)
			live_ring__close(&L->bo[i]);
	if (L->have_tp)
		live_ring__close(&L->tp);
	if (L->w)
		rawfrag_writer__delete(L->w);
	livecheck_bpf__destroy(L->skel);
	free(L->meta_pat);
	free(L->pkt_pat);
	free(L->exp);
	free(L->tbuf);
}

static int run_cases(struct live *L, struct live_case *cs)
{
	for (size_t i = 0; i < NR_CASES; i++) {
		struct live_case *c = &cs[i];
		int err;

		c->name = live_defs[i].name;
		c->producer = live_defs[i].producer;
		c->seen = calloc(1, LIVE_SIZES_MAX / 8);
		if (!c->seen)
			return -ENOMEM;
		if (live_defs[i].tracepoint && !L->have_tp)
			continue;
		L->cur = c;
		err = live_defs[i].run(L, c);
		c->ran = true;
		if (err == -EIO)
			return err;
		if (err) {
			c->ran = c->records > 0;
			live_missing(L, "%s (%s): %s", c->name, c->producer, strerror(-err));
		}
	}
	return 0;
}

int cmd_check_live(const struct live_opts *o)
{
	struct live L = { .o = *o, .tamper = tamper_mode() };
	struct live_case cs[NR_CASES] = { 0 };
	uint64_t viol = 0;
	int rc = setup(&L);

	if (!rc && run_cases(&L, cs))
		rc = live_err("writing the output file", -EIO);
	if (!rc && L.w && rawfrag_writer__finish(L.w))
		rc = live_err(o->output, -EIO);
	if (rc) {
		teardown(&L);
		return rc;
	}
	for (size_t i = 0; i < NR_CASES; i++) {
		viol += cs[i].violations;
		if (o->json)
			print_json(&cs[i], NULL);
	}
	if (!o->json)
		print_table(&L, cs);
	fflush(stdout);
	for (int i = 0; i < L.nr_missing; i++)
		fprintf(stderr, "perf rawfrag check --live: not tested: %s\n", L.missing[i]);
	if (L.nr_missing) {
		fprintf(stderr, "perf rawfrag check --live: still tested:");
		for (size_t i = 0; i < NR_CASES; i++)
			if (cs[i].ran)
				fprintf(stderr, " %s", cs[i].name);
		fputc('\n', stderr);
	}
	if (!o->json)
		printf("verdict: %s\n", viol ? "VIOLATIONS" : L.nr_missing ? "INCOMPLETE" : "CONFORMANT");
	for (size_t i = 0; i < NR_CASES; i++)
		free(cs[i].seen);
	teardown(&L);
	return viol ? RF_EXIT_VIOLATIONS : L.nr_missing ? RF_EXIT_USAGE : RF_EXIT_OK;
}
