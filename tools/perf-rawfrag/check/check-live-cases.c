// SPDX-License-Identifier: GPL-2.0
/*
 * The producers of `perf rawfrag check --live`. Every case sets what the record
 * must hold (L->want) before it makes the kernel write it, then drains the ring
 * so each output is checked on its own. The process is pinned to one cpu, so
 * BPF_F_CURRENT_CPU, the socket's softirq on lo and the exec'd children all
 * land on the event opened on that cpu.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check-live-cases.h"
#include "check-live-verify.h"
#include "tracefs.h"
#include "util.h"
#include "tools/perf-rawfrag/check/bpf/livecheck.skel.h"

/* the largest sum: header.size 52 + raw 65476 = 65528, the last multiple of 8 a u16 holds */
#define LIMIT_SUM 65476
#define UDP_HDR 8

static int map_ring(struct live *L, struct live_ring *lr)
{
	int fd = bpf_map__fd(L->skel->maps.events);
	uint32_t k = L->cpu, v = lr->fd;

	return bpf_map_update_elem(fd, &k, &v, BPF_ANY) ? -errno : 0;
}

static void expect(struct live *L, uint32_t meta, const unsigned char *pkt, uint32_t plen)
{
	memcpy(L->exp, L->meta_pat, meta);
	if (plen)
		memcpy(L->exp + meta, pkt, plen);
	L->want = (struct live_expect){ .sum = meta + plen, .frag1 = meta, .exp = L->exp };
	L->got = 0;
	L->skel->bss->size = meta;
	L->skel->bss->ret = 0;
}

enum { SENT_GOT = 1, SENT_REFUSED, SENT_MISSING };

/*
 * After one output: SENT_GOT a record was checked, SENT_REFUSED the helper
 * returned an error, SENT_MISSING it said yes but no record came (nor a LOST);
 * or -errno when the ring could not be read. strict: the last two are
 * violations.
 */
static int settle(struct live *L, struct live_ring *lr, bool strict)
{
	struct live_case *c = L->cur;
	int64_t ret = L->skel->bss->ret;
	uint64_t lost = c->lost;
	int n;

	c->sent++;
	n = live_ring__drain(L, lr);
	L->want.exp = NULL;
	if (n < 0 && n != -EBADMSG)
		return n;
	if (ret < 0) {
		c->refused++;
		if (strict) {
			c->violations++;
			live_case__violation(c, "%s: size %u: bpf_perf_event_output refused it: %s",
					     c->name, L->want.sum, strerror((int)-ret));
		}
		return SENT_REFUSED;
	}
	if (L->got)
		return SENT_GOT;
	c->missing++;
	if (strict && c->lost == lost) {
		c->violations++;
		live_case__violation(c, "%s: size %u: output returned 0 but no record (and no LOST) came",
				     c->name, L->want.sum);
	}
	return SENT_MISSING;
}

static int run_prog(struct bpf_program *p, const void *data, uint32_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data, .data_size_in = len);

	return bpf_prog_test_run_opts(bpf_program__fd(p), &t) ? -errno : 0;
}

/* one plain output of n meta bytes: SENT_* or -errno */
static int output_plain(struct live *L, struct live_ring *lr, uint32_t n, bool strict)
{
	int err;

	expect(L, n, NULL, 0);
	L->want.beyond = !strict; /* only the size-limit case sends what may not fit */
	err = run_prog(L->skel->progs.live_plain, NULL, 0);
	if (err)
		return err;
	return settle(L, lr, strict);
}

/* 0 (what happened is in the case's counters) or -errno */
static int send_plain(struct live *L, struct live_ring *lr, uint32_t n, bool strict)
{
	int r = output_plain(L, lr, n, strict);

	return r < 0 ? r : 0;
}

int live_ring__prefill(struct live *L, struct live_ring *lr)
{
	struct live_case fill = { .name = "fill", .tampered = true }, *cur = L->cur;
	uint64_t size = lr->r.mask + 1, end = lr->r.bytes + 2 * size;
	int err = map_ring(L, lr);

	fill.seen = L->tbuf + LIVE_META_MAX; /* scratch: the fill case is not reported */
	memset(fill.seen, 0, LIVE_SIZES_MAX / 8);
	L->cur = &fill;
	/* 4092 + 4 is a multiple of 8: no pad, every byte of the ring known */
	while (!err && lr->r.bytes < end)
		err = send_plain(L, lr, 4092, true);
	L->cur = cur;
	if (!err && fill.violations)
		rf_errorf("check", "--live: %s", fill.first);
	return err < 0 ? err : fill.violations ? -EPROTO : 0;
}

int live_case_plain(struct live *L, struct live_case *c)
{
	static const uint32_t quick[] = { 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049,
					  4087, 4088, 4089, 4090, 4091, 4092, 4093, 4094, 4095, 4096 };
	int err = map_ring(L, &L->bo[0]);

	for (uint32_t n = 1; !err && n <= (L->o.quick ? 64 : 4096); n++)
		err = send_plain(L, &L->bo[0], n, true);
	for (size_t i = 0; L->o.quick && !err && i < sizeof(quick) / sizeof(quick[0]); i++)
		err = send_plain(L, &L->bo[0], quick[i], true);
	return err < 0 ? err : 0;
}

int live_case_plain_large(struct live *L, struct live_case *c)
{
	uint32_t step = L->o.quick ? 6151 : 61;
	int err = map_ring(L, &L->bo[2]);

	for (uint32_t n = 4097; !err && n < LIMIT_SUM; n += step)
		err = send_plain(L, &L->bo[2], n, true);
	if (!err)
		err = send_plain(L, &L->bo[2], LIMIT_SUM, true);
	return err < 0 ? err : 0;
}

/* the largest packet test_run takes for p (linear area), by bisection */
static uint32_t max_linear(struct live *L, struct bpf_program *p)
{
	uint32_t lo = 14, hi = 4096;

	L->skel->bss->mute = 1;
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (run_prog(p, L->pkt_pat, mid) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	L->skel->bss->mute = 0;
	return lo;
}

static int send_pkt(struct live *L, struct live_ring *lr, struct bpf_program *p, uint32_t meta,
		    uint32_t plen)
{
	int err;

	expect(L, meta, L->pkt_pat, plen);
	err = run_prog(p, L->pkt_pat, plen);
	if (err)
		return err;
	err = settle(L, lr, true);
	return err < 0 ? err : 0;
}

static const uint32_t quick_meta[] = { 0, 1, 2, 3, 4, 5, 7, 8, 31, 63, 64 };

/* meta sizes 0..64 against packet lengths from the minimum to max */
static int pkt_grid(struct live *L, struct bpf_program *p, uint32_t min, uint32_t max)
{
	int err = map_ring(L, &L->bo[0]);
	uint32_t nm = L->o.quick ? sizeof(quick_meta) / sizeof(quick_meta[0]) : 65;

	for (uint32_t i = 0; !err && i < nm; i++) {
		uint32_t m = L->o.quick ? quick_meta[i] : i;
		uint32_t dense = min + (L->o.quick ? 8 : 57), step = L->o.quick ? 997 : 61;

		for (uint32_t len = min; !err && len <= max; len += len < dense ? 1 : step)
			err = send_pkt(L, &L->bo[0], p, m, len);
		if (!err)
			err = send_pkt(L, &L->bo[0], p, m, max);
	}
	return err < 0 ? err : 0;
}

int live_case_skb(struct live *L, struct live_case *c)
{
	uint32_t max = max_linear(L, L->skel->progs.live_skb);

	if (max <= 14)
		return -EOPNOTSUPP;
	snprintf(c->note, sizeof(c->note), "linear skbs from BPF_PROG_TEST_RUN, 14..%u bytes", max);
	return pkt_grid(L, L->skel->progs.live_skb, 14, max);
}

/* the linear part of an xdp frame test_run builds: larger frames get page frags */
static uint32_t xdp_linear(struct live *L)
{
	L->skel->bss->mute = 1;
	L->skel->bss->linear = 0;
	run_prog(L->skel->progs.live_xdp, L->pkt_pat, 8192);
	L->skel->bss->mute = 0;
	return L->skel->bss->linear;
}

int live_case_xdp(struct live *L, struct live_case *c)
{
	uint32_t max = max_linear(L, L->skel->progs.live_xdp), lin = xdp_linear(L);

	if (max <= 14)
		return -EOPNOTSUPP;
	if (lin > 14 && lin < max)
		max = lin;
	snprintf(c->note, sizeof(c->note), "one-buffer frames, 14..%u bytes", max);
	return pkt_grid(L, L->skel->progs.live_xdp, 14, max);
}

/* send one multi-buffer frame; counts it in *frags when it did have frags */
static int send_frags(struct live *L, uint32_t meta, uint32_t len, uint32_t lin, uint64_t *frags)
{
	int err = send_pkt(L, &L->bo[2], L->skel->progs.live_xdp, meta, len);

	if (!err && L->skel->bss->linear < len)
		++*frags;
	return err;
}

/* multi-buffer frames: test_run puts what exceeds the linear area into page frags */
int live_case_xdp_frags(struct live *L, struct live_case *c)
{
	struct bpf_program *p = L->skel->progs.live_xdp;
	uint32_t lin = xdp_linear(L), top = 0;
	static const uint32_t meta[] = { 0, 1, 4, 7, 8, 64 };
	uint64_t frags = 0;
	int err = map_ring(L, &L->bo[2]);

	if (!lin || lin >= 8192)
		return -EOPNOTSUPP; /* test_run made no frags of 8 KiB */
	/* the largest frame test_run builds (its frag count is limited) */
	L->skel->bss->mute = 1;
	for (uint32_t len = lin + 1; len < LIMIT_SUM; len += 4096) {
		if (run_prog(p, L->pkt_pat, len))
			break;
		top = len;
	}
	L->skel->bss->mute = 0;
	for (size_t i = 0; !err && i < sizeof(meta) / sizeof(meta[0]); i++) {
		uint32_t step = L->o.quick ? 4093 : 509;

		for (uint32_t len = lin + 1; !err && len <= top && len + meta[i] <= LIMIT_SUM;
		     len += len < lin + 9 ? 1 : step)
			err = send_frags(L, meta[i], len, lin, &frags);
		/* frag boundaries: each page edge +-1 */
		for (uint32_t e = lin + 4096; !err && e + 1 <= top && e + 1 + meta[i] <= LIMIT_SUM;
		     e += L->o.quick ? 4096 * 4 : 4096)
			for (uint32_t len = e - 1; !err && len <= e + 1; len++)
				err = send_frags(L, meta[i], len, lin, &frags);
	}
	snprintf(c->note, sizeof(c->note), "linear part %u bytes, frames up to %u bytes, %" PRIu64
		 " of them with page frags", lin, top, frags);
	return err < 0 ? err : 0;
}

/*
 * Paged skbs: UDP datagrams over lo larger than one allocation are built from
 * page frags (lo has scatter-gather); the socket filter on the receiving socket
 * sends them whole, the kernel copying with skb_copy_bits.
 */
struct udp_pair {
	int rx, tx;
	struct sockaddr_in to;
	uint16_t sport;
	/* what live_rx saw: datagrams linear and paged, the lengths where that changed */
	uint64_t linear, paged, unknown;
	uint32_t linear_max, paged_min, paged_max;
};

#define IP_UDP_HDR 28

/* sort the datagram just sent by what live_rx saw of it at netif_receive_skb */
static void udp_pair__classify(struct live *L, struct udp_pair *u, uint32_t plen)
{
	struct livecheck_bpf__bss *b = L->skel->bss;

	if (b->rx_len != IP_UDP_HDR + plen) {
		u->unknown++; /* not seen (no live_rx), or another packet's */
	} else if (b->rx_data_len) {
		u->paged++;
		if (!u->paged_min || plen < u->paged_min)
			u->paged_min = plen;
		if (plen > u->paged_max)
			u->paged_max = plen;
	} else {
		u->linear++;
		if (plen > u->linear_max)
			u->linear_max = plen;
	}
}

static int udp_pair__open(struct live *L, struct udp_pair *u)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int pfd = bpf_program__fd(L->skel->progs.live_sock), big = 4 << 20;

	u->rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	u->tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->rx < 0 || u->tx < 0)
		return -errno;
	setsockopt(u->rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(u->tx, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	if (bind(u->rx, (struct sockaddr *)&a, sizeof(a)) || bind(u->tx, (struct sockaddr *)&a, sizeof(a)))
		return -errno;
	if (getsockname(u->rx, (struct sockaddr *)&u->to, &al))
		return -errno;
	al = sizeof(a);
	if (getsockname(u->tx, (struct sockaddr *)&a, &al))
		return -errno;
	u->sport = a.sin_port;
	if (setsockopt(u->rx, SOL_SOCKET, SO_ATTACH_BPF, &pfd, sizeof(pfd)))
		return -errno;
	return 0;
}

static void udp_pair__close(struct udp_pair *u)
{
	if (u->rx >= 0)
		close(u->rx);
	if (u->tx >= 0)
		close(u->tx);
}

static int send_udp(struct live *L, struct udp_pair *u, uint32_t meta, uint32_t plen)
{
	unsigned char *h;
	int r;

	expect(L, meta, NULL, 0);
	h = L->exp + meta;
	memcpy(h, &u->sport, 2);
	memcpy(h + 2, &u->to.sin_port, 2);
	h[4] = (unsigned char)((plen + UDP_HDR) >> 8);
	h[5] = (unsigned char)(plen + UDP_HDR);
	memcpy(h + UDP_HDR, L->pkt_pat, plen);
	L->want.sum = meta + UDP_HDR + plen;
	L->want.skip_off = meta + 6; /* the UDP checksum: whatever lo left there */
	L->want.skip_len = 2;
	L->skel->bss->rx_len = 0;
	L->skel->bss->rx_armed = 1;
	if (sendto(u->tx, L->pkt_pat, plen, 0, (struct sockaddr *)&u->to, sizeof(u->to)) < 0)
		return -errno;
	/* lo delivers in the sender's softirq: the datagram is there, or was dropped */
	while (recv(u->rx, L->tbuf, 1, MSG_DONTWAIT | MSG_TRUNC) > 0)
		;
	L->skel->bss->rx_armed = 0;
	udp_pair__classify(L, u, plen);
	r = settle(L, &L->bo[2], true);
	return r < 0 ? r : 0;
}

static void skb_paged_note(struct live *L, struct live_case *c, const struct udp_pair *u,
			   const char *why)
{
	int n = snprintf(c->note, sizeof(c->note), "UDP over lo to a socket filter: ");

	if (!L->have_rx || why)
		snprintf(c->note + n, sizeof(c->note) - n,
			 "linear or paged not known (tp_btf/netif_receive_skb %s)",
			 why ? why : "did not load");
	else
		snprintf(c->note + n, sizeof(c->note) - n,
			 "%" PRIu64 " linear (up to %u bytes), %" PRIu64
			 " paged (%u..%u bytes, in page frags), %" PRIu64 " not seen",
			 u->linear, u->linear_max, u->paged, u->paged_min, u->paged_max,
			 u->unknown);
}

/* meta 0..64; the dense length grid for a few of them, the sizes that matter for all */
static int skb_paged_grid(struct live *L, struct udp_pair *u)
{
	static const uint32_t dense[] = { 0, 1, 3, 4, 7, 8, 33, 64 };
	static const uint32_t sparse[] = { 1, 1472, 16000, 20000, 32761, 65400 };
	bool is_dense[65] = { false };
	int err = 0;

	for (size_t i = 0; i < sizeof(dense) / sizeof(dense[0]); i++)
		is_dense[dense[i]] = true;
	for (uint32_t m = 0; !err && m <= 64; m++) {
		uint32_t top = LIMIT_SUM - m - UDP_HDR;

		if (L->o.quick && !is_dense[m])
			continue;
		if (L->o.quick || !is_dense[m]) {
			for (size_t k = 0; !err && k < sizeof(sparse) / sizeof(sparse[0]); k++)
				err = send_udp(L, u, m, sparse[k] < top ? sparse[k] : top);
			continue;
		}
		for (uint32_t len = 1; !err && len < top; len += len < 64 ? 1 : 487)
			err = send_udp(L, u, m, len);
		if (!err)
			err = send_udp(L, u, m, top);
	}
	return err;
}

int live_case_skb_paged(struct live *L, struct live_case *c)
{
	struct udp_pair u = { -1, -1 };
	struct bpf_link *rx = NULL;
	const char *why = NULL;
	int err = udp_pair__open(L, &u);

	if (!err)
		err = map_ring(L, &L->bo[2]);
	if (!err && L->have_rx) {
		rx = bpf_program__attach(L->skel->progs.live_rx);
		if (!rx)
			why = strerror(errno);
	}
	L->skel->bss->ctxlen = 0;
	if (!err)
		err = skb_paged_grid(L, &u);
	bpf_link__destroy(rx);
	udp_pair__close(&u);
	skb_paged_note(L, c, &u, why);
	if (!err && L->have_rx && !why && !u.paged)
		live_missing(L, "skb-paged (bpf_skb): no datagram reached the filter paged; the non-linear skb copy was not driven");
	return err;
}

/* ---- sched_process_exec: the __data_loc filename of exec paths of every length ---- */
struct tp_fmt {
	int common_pid, filename, pid, old_pid, fixed;
};

static int tp_format(const char *tracefs, struct tp_fmt *f)
{
	char path[PATH_MAX], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/sched/sched_process_exec/format", tracefs);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	*f = (struct tp_fmt){ -1, -1, -1, -1, 0 };
	while (fgets(line, sizeof(line), fp)) {
		char *semi = strchr(line, ';'), *name;
		int off, size;

		if (!strstr(line, "field:") || !semi)
			continue;
		*semi = 0;
		name = strrchr(line, ' ');
		if (!name || sscanf(semi + 1, " offset:%d; size:%d;", &off, &size) != 2)
			continue;
		name++;
		if (!strcmp(name, "common_pid"))
			f->common_pid = off;
		else if (!strcmp(name, "filename"))
			f->filename = off;
		else if (!strcmp(name, "pid"))
			f->pid = off;
		else if (!strcmp(name, "old_pid"))
			f->old_pid = off;
		if (off + size > f->fixed)
			f->fixed = off + size;
	}
	fclose(fp);
	return f->common_pid < 0 || f->filename < 0 ? -ENOENT : 0;
}

static void put32(unsigned char *p, int off, uint32_t v)
{
	if (off >= 0)
		memcpy(p + off, &v, 4);
}

static int exec_one(struct live *L, const struct tp_fmt *f, const char *dir, uint32_t len)
{
	static char *const argv[] = { "t", NULL }, *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	char path[4096];
	pid_t pid;
	int st, err;

	if (len == 1 || len == 2) {
		memcpy(path, "tt", len);
	} else {
		path[0] = '.';
		memset(path + 1, '/', len - 2);
		path[len - 1] = 't';
	}
	path[len] = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	err = posix_spawn(&pid, path, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	memset(L->exp, 0, f->fixed);
	put32(L->exp, f->common_pid, pid);
	put32(L->exp, f->filename, (uint32_t)f->fixed | (len + 1) << 16);
	put32(L->exp, f->pid, pid);
	put32(L->exp, f->old_pid, pid);
	memcpy(L->exp + f->fixed, path, len + 1);
	L->want = (struct live_expect){ .sum = f->fixed + len + 1, .frag1 = f->fixed,
					.exp = L->exp, .skip_len = 4, .tp_pid = pid };
	L->got = 0;
	waitpid(pid, &st, 0);
	L->cur->sent++;
	err = live_ring__drain(L, &L->bo[0]); /* the tracepoint writes to the main ring */
	if (err < 0 && err != -EBADMSG)
		return err;
	if (!L->got) {
		L->cur->missing++;
		if (!L->cur->lost) {
			L->cur->violations++;
			live_case__violation(L->cur, "%s: exec path of %u bytes: no record", L->cur->name, len);
		}
	}
	L->want = (struct live_expect){ 0 };
	return 0;
}

int live_case_exec(struct live *L, struct live_case *c)
{
	static const uint32_t quick[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100, 1000, 2047,
					  2048, 4088, 4089, 4090, 4091, 4092, 4093, 4094, 4095 };
	char dir[] = "/tmp/rawfrag-live.XXXXXX", lnk[64];
	char msg[256];
	const char *tf = tracefs__path(msg, sizeof(msg));
	struct tp_fmt f;
	int err = tf ? tp_format(tf, &f) : -ENOENT;

	if (err)
		return err;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(lnk, sizeof(lnk), "%s/t", dir);
	err = symlink("/bin/true", lnk) ? -errno : 0;
	snprintf(lnk, sizeof(lnk), "%s/tt", dir);
	if (!err && symlink("/bin/true", lnk))
		err = -errno;
	if (L->o.quick)
		for (size_t i = 0; !err && i < sizeof(quick) / sizeof(quick[0]); i++)
			err = exec_one(L, &f, dir, quick[i]);
	else
		for (uint32_t len = 1; !err && len <= 4095; len += len < 300 || len > 3800 ? 1 : 7)
			err = exec_one(L, &f, dir, len);
	unlink(lnk);
	snprintf(lnk, sizeof(lnk), "%s/t", dir);
	unlink(lnk);
	rmdir(dir);
	snprintf(c->note, sizeof(c->note), "exec paths of 1..4095 bytes, pad zeroed by the tracepoint buffer");
	return err;
}

/* ---- records across the end of a 2-page ring: plain and skb alternately ---- */
int live_case_wrap(struct live *L, struct live_case *c)
{
	uint32_t lin = max_linear(L, L->skel->progs.live_skb), n = L->o.quick ? 300 : 3000;
	int err = map_ring(L, &L->bo[1]);

	for (uint32_t i = 0; !err && i < n; i++) {
		if (i & 1) {
			err = send_plain(L, &L->bo[1], 1 + (i * 1237) % 4096, true);
		} else {
			uint32_t m = (i / 2) % 65;

			err = send_pkt(L, &L->bo[1], L->skel->progs.live_skb, m, 14 + (i * 613) % (lin - 13));
		}
	}
	snprintf(c->note, sizeof(c->note), "%u-page ring", LIVE_PAGES_WRAP);
	return err < 0 ? err : 0;
}

/* ---- at and beyond the 64 KiB header.size limit: what does the kernel do? ---- */
int live_case_limit(struct live *L, struct live_case *c)
{
	uint32_t sizes[64], nr = 0, refused = 0, dropped = 0, fit = 0, beyond = 0, bad = 0;
	int64_t why = 0;
	int err = map_ring(L, &L->bo[2]);

	for (uint32_t s = LIMIT_SUM - 8; s <= LIMIT_SUM + 12; s++)
		sizes[nr++] = s;
	sizes[nr++] = 65535;
	sizes[nr++] = 65536;
	sizes[nr++] = 65537;
	sizes[nr++] = 70000;
	sizes[nr++] = LIVE_META_MAX;
	for (uint32_t i = 0; !err && i < nr; i++) {
		bool in = sizes[i] <= LIMIT_SUM;
		uint64_t viol = c->violations, corrupt = c->corrupt;
		int r;

		r = output_plain(L, &L->bo[2], sizes[i], in);

		if (r < 0) {
			err = r;
			break;
		}
		if (in) {
			fit += r == SENT_GOT && c->violations == viol;
			continue;
		}
		beyond++;
		/* what the kernel copied past the record it framed is in the ring now */
		err = live_ring__prefill(L, &L->bo[2]);
		if (err)
			break;
		if (c->corrupt > corrupt) {
			bad++;
		} else if (r == SENT_REFUSED) {
			refused++;
			why = L->skel->bss->ret;
		} else if (r == SENT_MISSING) {
			dropped++;
		} else if (c->violations == viol) {
			/* a record larger than header.size can say cannot be right */
			c->violations++;
			live_case__violation(c, "%s: size %u: a record of header.size %d came back",
					     c->name, sizes[i], L->last_hsize);
		}
	}
	snprintf(c->note, sizeof(c->note),
		 "sums up to %u fit (%u ok); beyond, of %u sizes the kernel refused %u%s%s, dropped %u without a record, wrote %u with a wrapped header.size",
		 LIMIT_SUM, fit, beyond, refused, why ? ": " : "", why ? strerror((int)-why) : "",
		 dropped, bad);
	return err;
}
