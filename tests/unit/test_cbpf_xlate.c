// SPDX-License-Identifier: GPL-2.0
/*
 * The classic-to-eBPF translator (tools/perf-rawfrag/record/cbpf-xlate.c) against
 * libpcap's own interpreter: for each pcap-filter(7) expression, libpcap
 * compiles it (skb_filter__compile, as record --skb does), the translation
 * runs in the kernel with BPF_PROG_TEST_RUN on crafted frames, and its
 * return value must equal pcap_offline_filter()'s on the same frame: as a tc
 * program (bpf_skb_load_bytes), as one whose VLAN tag was offloaded (the
 * frame without it, the tag passed apart; libpcap sees it in place), and as
 * an xdp program (bpf_xdp_load_bytes). Needs root (BPF): skipped otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/bpf.h>

#include "tools/perf-rawfrag/record/cbpf-xlate.h"
#include "tools/perf-rawfrag/record/skb-filter.h"
#include "pcap_oracle.h"

#define SNAPLEN 65535
#define MAXPKT 1600
#define NPKT 40

struct pkt {
	uint8_t b[MAXPKT];
	uint32_t len;
	const char *what;
};

static struct pkt pkts[NPKT];
static int npkts;

static const uint8_t mac_a[6] = { 0x02, 0x52, 0x46, 0, 0, 1 };
static const uint8_t mac_b[6] = { 0x02, 0x52, 0x46, 0, 0, 2 };
static const uint8_t mac_c[6] = { 0x02, 0x52, 0x46, 0, 0, 3 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t ns_mc[6] = { 0x33, 0x33, 0xff, 0, 0, 2 };

static uint8_t *put(struct pkt *p, const void *d, size_t n)
{
	uint8_t *at = p->b + p->len;

	assert_true(p->len + n <= MAXPKT);
	memcpy(at, d, n);
	p->len += n;
	return at;
}

static void put8(struct pkt *p, uint8_t v)
{
	put(p, &v, 1);
}

static void put16(struct pkt *p, uint16_t v)
{
	uint8_t b[2] = { v >> 8, v };

	put(p, b, 2);
}

static void put32(struct pkt *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v);
}

static struct pkt *pkt_new(const char *what, const uint8_t *dst, const uint8_t *src, int vlan,
			   uint16_t type)
{
	struct pkt *p = &pkts[npkts++];

	assert_true(npkts <= NPKT);
	p->what = what;
	put(p, dst, 6);
	put(p, src, 6);
	if (vlan >= 0) {
		put16(p, 0x8100);
		put16(p, vlan);
	}
	put16(p, type);
	return p;
}

/* IPv4 header: a.b.c.d as host-order words; opt_words of NOP options */
static void ip4(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto, uint16_t paylen,
		uint16_t frag, uint8_t ttl, int opt_words)
{
	put8(p, 0x40 | (5 + opt_words));
	put8(p, 0);
	put16(p, (5 + opt_words) * 4 + paylen);
	put16(p, 0x1234);
	put16(p, frag);
	put8(p, ttl);
	put8(p, proto);
	put16(p, 0);
	put32(p, src);
	put32(p, dst);
	for (int i = 0; i < opt_words; i++)
		put32(p, 0x01010101);
}

static void ip6(struct pkt *p, const uint8_t *src16, const uint8_t *dst16, uint8_t nh,
		uint16_t paylen)
{
	put32(p, 0x60000000);
	put16(p, paylen);
	put8(p, nh);
	put8(p, 64);
	put(p, src16, 16);
	put(p, dst16, 16);
}

static void udp(struct pkt *p, uint16_t sp, uint16_t dp, int datalen)
{
	put16(p, sp);
	put16(p, dp);
	put16(p, 8 + datalen);
	put16(p, 0);
	for (int i = 0; i < datalen; i++)
		put8(p, i * 7);
}

static void tcp(struct pkt *p, uint16_t sp, uint16_t dp, uint8_t flags, int optlen,
		const char *data)
{
	put16(p, sp);
	put16(p, dp);
	put32(p, 1000);
	put32(p, flags & 0x10 ? 2000 : 0);
	put8(p, (uint8_t)((5 + optlen / 4) << 4));
	put8(p, flags);
	put16(p, 65495);
	put32(p, 0);
	for (int i = 0; i < optlen; i++)
		put8(p, i ? 1 : 2);
	put(p, data, strlen(data));
}

#define V4(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static const uint8_t v6a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t v6b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static void build_v4(void)
{
	struct pkt *p;

	p = pkt_new("udp 5000>9053", mac_b, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 9, 9), 17, 28, 0, 64, 0);
	udp(p, 5000, 9053, 20);
	p = pkt_new("udp 1500>7500", mac_b, mac_c, -1, 0x0800);
	ip4(p, V4(192, 168, 7, 1), V4(10, 1, 2, 3), 17, 18, 0, 32, 0);
	udp(p, 1500, 7500, 10);
	p = pkt_new("tcp syn >22 with options", mac_a, mac_b, -1, 0x0800);
	ip4(p, V4(10, 1, 9, 9), V4(192, 168, 1, 1), 6, 32, 0x4000, 64, 0);
	tcp(p, 40000, 22, 0x02, 12, "");
	p = pkt_new("tcp GET >80", mac_a, mac_c, -1, 0x0800);
	ip4(p, V4(192, 168, 5, 5), V4(10, 1, 2, 3), 6, 24, 0, 64, 0);
	tcp(p, 33000, 80, 0x18, 0, "GET ");
	p = pkt_new("icmp echo", mac_b, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 9, 9), V4(10, 1, 2, 3), 1, 16, 0, 64, 0);
	put32(p, 0x08000000);
	put32(p, 0x00010001);
	put32(p, 0xdeadbeef);
	put32(p, 0xcafef00d);
	p = pkt_new("icmp unreachable", mac_a, mac_b, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 9, 9), 1, 8, 0, 255, 0);
	put32(p, 0x03030000);
	put32(p, 0);
	p = pkt_new("udp with ip options >5001", mac_b, mac_a, -1, 0x0800);
	ip4(p, V4(172, 16, 0, 5), V4(10, 1, 2, 3), 17, 12, 0, 64, 2);
	udp(p, 6000, 5001, 4);
	p = pkt_new("udp fragment", mac_b, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 9, 9), 17, 16, 0x0020, 64, 0);
	put32(p, 0x11111111);
	put32(p, 0x22222222);
	p = pkt_new("tcp >1500", mac_c, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 200, 1), 6, 20, 0, 64, 0);
	tcp(p, 1234, 1500, 0x10, 0, "");
	p = pkt_new("udp 1100 bytes broadcast", bcast, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 255, 255), 17, 1060, 0, 1, 0);
	udp(p, 68, 67, 1052);
	p = pkt_new("udp 300 bytes >9", mac_b, mac_a, -1, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 9, 9), 17, 266, 0, 64, 0);
	udp(p, 9, 9, 258);
}

static void build_v6_other(void)
{
	struct pkt *p;

	p = pkt_new("ip6 udp 53", mac_b, mac_a, -1, 0x86dd);
	ip6(p, v6a, v6b, 17, 16);
	udp(p, 40000, 53, 8);
	p = pkt_new("ip6 tcp 5001", mac_a, mac_b, -1, 0x86dd);
	ip6(p, v6b, v6a, 6, 20);
	tcp(p, 5001, 41000, 0x12, 0, "");
	p = pkt_new("ip6 hop-by-hop + icmp6 ns", ns_mc, mac_a, -1, 0x86dd);
	ip6(p, v6a, v6b, 0, 8 + 24);
	put8(p, 58);
	put8(p, 0);
	put16(p, 0x0502);
	put32(p, 0);
	put32(p, 0x87000000);
	put32(p, 0);
	put(p, v6b, 16);
	p = pkt_new("ip6 icmp6 ns", ns_mc, mac_b, -1, 0x86dd);
	ip6(p, v6b, v6a, 58, 24);
	put32(p, 0x87000000);
	put32(p, 0);
	put(p, v6a, 16);
	p = pkt_new("ip6 icmp6 echo", mac_b, mac_a, -1, 0x86dd);
	ip6(p, v6a, v6b, 58, 8);
	put32(p, 0x80000000);
	put32(p, 0x00010002);
	p = pkt_new("arp request", bcast, mac_a, -1, 0x0806);
	put32(p, 0x00010800);
	put32(p, 0x06040001);
	put(p, mac_a, 6);
	put32(p, V4(10, 1, 2, 3));
	put(p, bcast, 6);
	put32(p, V4(10, 1, 9, 9));
	p = pkt_new("vlan 100 udp", mac_b, mac_a, 100, 0x0800);
	ip4(p, V4(10, 1, 2, 3), V4(10, 1, 9, 9), 17, 12, 0, 64, 0);
	udp(p, 7000, 7001, 4);
	p = pkt_new("vlan 200 arp", bcast, mac_c, 200, 0x0806);
	put32(p, 0x00010800);
	put32(p, 0x06040001);
	put(p, mac_c, 6);
	put32(p, V4(10, 1, 2, 4));
	p = pkt_new("vlan 100 ip6 tcp", mac_b, mac_a, 0x2064, 0x86dd);
	ip6(p, v6a, v6b, 6, 20);
	tcp(p, 22, 40022, 0x11, 0, "");
	p = pkt_new("truncated ip", mac_b, mac_a, -1, 0x0800);
	put32(p, 0x45000054);
	put32(p, 0x12340000);
	put16(p, 0x4011);
	p = pkt_new("lldp", mac_a, mac_c, -1, 0x88cc);
	put32(p, 0x02070402);
	p = pkt_new("ethernet header only", mac_a, mac_b, -1, 0x0800);
}

/* main: wire length and tag from the context, call the translated body, exit */
static size_t prologue(struct bpf_insn *in, enum cbpf_load how)
{
	size_t n = 0;

#define INSN(c, d, s, o, i) \
	(in[n++] = (struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
	if (how == CBPF_LOAD_SKB) {
		/* priority: the wire length, mark: the tag word (both set through ctx_in) */
		INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(struct __sk_buff, priority), 0);
		INSN(BPF_LDX | BPF_MEM | BPF_W, 3, 1, offsetof(struct __sk_buff, mark), 0);
	} else {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_xdp_get_buff_len);
		INSN(BPF_ALU | BPF_MOV | BPF_X, 2, 0, 0, 0);
		INSN(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, 0);
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	}
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1);
	INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
#undef INSN
	return n;
}

static int load(const struct skb_filter *f, enum cbpf_load how)
{
	struct bpf_insn *body, *all;
	size_t cnt, n;
	char msg[256];
	int fd;

	assert_int_equal(cbpf_xlate(f->insns, f->len, how, &body, &cnt, msg, sizeof(msg)), 0);
	all = calloc(cnt + 16, sizeof(*all));
	assert_non_null(all);
	n = prologue(all, how);
	memcpy(all + n, body, cnt * sizeof(*body));
	free(body);
	fd = bpf_prog_load(how == CBPF_LOAD_SKB ? BPF_PROG_TYPE_SCHED_CLS : BPF_PROG_TYPE_XDP,
			   "cbpf_test", "GPL", all, n + cnt, NULL);
	if (fd < 0) {
		static char log[65536];
		LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log, .log_size = sizeof(log),
			    .log_level = 1);

		fprintf(stderr, "# bpf_prog_load: %s\n", strerror(errno));
		bpf_prog_load(how == CBPF_LOAD_SKB ? BPF_PROG_TYPE_SCHED_CLS : BPF_PROG_TYPE_XDP,
			      "cbpf_test", "GPL", all, n + cnt, &lo);
		for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"))
			fprintf(stderr, "# %s\n", l);
	}
	free(all);
	return fd;
}

/* frames the kernel's tc test run refuses (IPv4 shorter than its header): not run */
static int refused;

/* the program's return value, or want when the kernel cannot run it on this frame */
static uint32_t run(int fd, enum cbpf_load how, const uint8_t *data, uint32_t len, uint32_t wirelen,
		    uint32_t tag, uint32_t want)
{
	struct __sk_buff skb = { .priority = wirelen, .mark = tag };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = data, .data_size_in = len, .repeat = 1);

	if (how == CBPF_LOAD_SKB) {
		o.ctx_in = &skb;
		o.ctx_size_in = sizeof(skb);
	}
	if (!bpf_prog_test_run_opts(fd, &o))
		return o.retval;
	if (how == CBPF_LOAD_SKB && errno == EINVAL && len < 14 + 20) {
		refused++;
		return want;
	}
	fprintf(stderr, "# test run (%s, %u bytes): %s\n", how == CBPF_LOAD_SKB ? "tc" : "xdp", len,
		strerror(errno));
	return ~want;
}

/* the packet without its 802.1Q tag, and the tag word as the dump program passes it */
static bool untag(const struct pkt *p, uint8_t *out, uint32_t *len, uint32_t *tag)
{
	if (p->len < 18 || p->b[12] != 0x81 || p->b[13] != 0x00)
		return false;
	memcpy(out, p->b, 12);
	memcpy(out + 12, p->b + 16, p->len - 16);
	*len = p->len - 4;
	*tag = (uint32_t)p->b[12] << 24 | p->b[13] << 16 | p->b[14] << 8 | p->b[15];
	return true;
}

/* the packet with a tag put in, as libpcap sees a frame whose tag was offloaded */
static void tag_in(const struct pkt *p, uint8_t *out, uint16_t tci)
{
	memcpy(out, p->b, 12);
	out[12] = 0x81;
	out[13] = 0x00;
	out[14] = tci >> 8;
	out[15] = tci;
	memcpy(out + 16, p->b + 12, p->len - 12);
}

static int differs(const char *expr, const char *how, const char *what, uint32_t got,
		   uint32_t want)
{
	if (got != want)
		fprintf(stderr, "# '%s' %s, %s: %u, libpcap %u\n", expr, how, what, got, want);
	return got != want;
}

static int check_all(const char *expr, int fd_skb, int fd_xdp, struct pcap_oracle *o)
{
	static uint8_t b[MAXPKT + 4];
	int bad = 0, hits = 0;

	for (int i = 0; i < npkts; i++) {
		const struct pkt *p = &pkts[i];
		uint32_t want = pcap_oracle__run(o, p->b, p->len, p->len), len, tag, got;

		hits += want != 0;
		got = run(fd_skb, CBPF_LOAD_SKB, p->b, p->len, p->len, 0, want);
		bad += differs(expr, "skb", p->what, got, want);
		got = run(fd_xdp, CBPF_LOAD_XDP, p->b, p->len, p->len, 0, want);
		bad += differs(expr, "xdp", p->what, got, want);
		/* offloaded tag: the frame as received, the tag beside it */
		if (untag(p, b, &len, &tag)) {
			got = run(fd_skb, CBPF_LOAD_SKB, b, len, p->len, tag, want);
			bad += differs(expr, "tag offloaded", p->what, got, want);
		}
		/* and every frame as if a tag 0x2064 had been stripped from it */
		tag_in(p, b, 0x2064);
		want = pcap_oracle__run(o, b, p->len + 4, p->len + 4);
		got = run(fd_skb, CBPF_LOAD_SKB, p->b, p->len, p->len + 4, 0x81002064, want);
		bad += differs(expr, "tag 0x2064 offloaded", p->what, got, want);
	}
	/* an expression that selects nothing or everything tests little */
	if (!hits || hits == npkts)
		fprintf(stderr, "# '%s' selects %d of %d frames\n", expr, hits, npkts);
	return bad;
}

static const char *const exprs[] = {
	"ip", "ip6", "arp", "udp", "tcp", "icmp", "icmp6", "icmp or udp", "not ip",
	"tcp and (port 22 or port 80)", "udp and not port 9053", "net 10.1.0.0/16",
	"src net 192.168.0.0/16", "dst host 10.1.9.9", "host 2001:db8::2", "portrange 1000-2000",
	"udp portrange 7000-8000", "ip proto 1", "ip6 proto 58", "icmp[0] == 8",
	"icmp[icmptype] == icmp-unreach", "tcp[tcpflags] & tcp-syn != 0", "len > 200", "less 60",
	"greater 1000", "vlan", "vlan 100", "vlan and arp", "vlan 100 and ip6 and tcp",
	"ether host 02:52:46:00:00:03", "ether broadcast", "ether dst 33:33:ff:00:00:02",
	"ip[8] == 64 and udp", "ip6 and tcp", "(tcp or icmp) and src host 10.1.9.9",
	"ip[6:2] & 0x1fff != 0", "icmp6 and ip6[40] == 135", "tcp[((tcp[12] & 0xf0) >> 2):4] = 0x47455420",
	"ip[2:2] - ((ip[0] & 0xf) << 2) > 20", "len % 7 == 3", "len / (ip[9] - 17) > 2",
	"ip[1] ^ 0xff == 0xff", "-len < 0xfffffc00", "ip[0] << (ip[9] & 0x3f) != 0",
	"ip[0] >> (ip[8] & 7) == 34", "udp[8:2] * 3 > 20", "ether[12:4] == 0x81000064",
	"ether[14:2] & 0xfff == 100", "ip[0] & 0xf > 5", "udp dst port 5001",
	/* indirect loads past a tag, and across it (X + k in 12..15) */
	"vlan and udp dst port 7001", "vlan and tcp port 22 or port 80", "vlan and icmp[0] == 8",
	"vlan and ether[(ip[9] & 3) + 11:4] == 0x81000064", "vlan and ether[(ip[9] & 7) + 9:4] > 0x100",
	"vlan and ether[(ip[9] & 7) + 13:2] == 0x64", "vlan and ether[(ip[9] & 3) + 10:2] == 0x0181",
	"ether[11:2] == 0x0181", "ether[10:4] == 0x00018100", "ether[15] == 0x64",
	/* loads at and past the end of the first 128 bytes (copied once per packet) */
	"udp[250] == 158", "ether[127:2] != 0x1234", "ether[126:2] > 0", "ether[125:4] > 0",
};

/* one expression (the test's state): every frame, every way of loading */
static void test_expr(void **state)
{
	const char *expr = *state;
	static struct skb_filter f;
	struct pcap_oracle *o;
	char msg[256];
	int fd_skb, fd_xdp, bad;

	if (geteuid())
		skip();
	o = pcap_oracle__new(expr, SNAPLEN);
	assert_non_null(o);
	assert_int_equal(skb_filter__compile(&f, expr, SNAPLEN, msg, sizeof(msg)), 0);
	fd_skb = load(&f, CBPF_LOAD_SKB);
	fd_xdp = load(&f, CBPF_LOAD_XDP);
	if (fd_skb < 0 || fd_xdp < 0)
		fprintf(stderr, "# '%s': not loaded\n", expr);
	assert_true(fd_skb >= 0 && fd_xdp >= 0);
	bad = check_all(expr, fd_skb, fd_xdp, o);
	close(fd_skb);
	close(fd_xdp);
	pcap_oracle__delete(o);
	assert_int_equal(bad, 0);
}

/* classic programs libpcap does not write: refused with a reason, no output */
static void test_refused(void **state)
{
	/* code | jt << 16 | jf << 24 | k << 32 */
	const uint64_t ret = 0x06;
	const uint64_t jeq_out[] = { 0x15 | 5ull << 16, ret };
	const uint64_t ja_out[] = { 0x05 | 7ull << 32, ret };
	const uint64_t mem_out[] = { 0x02 | 16ull << 32, ret };
	const uint64_t bad_op[] = { 0xf4, ret };
	uint64_t big[CBPF_XLATE_MAX_CBPF + 1] = { 0 };
	struct bpf_insn *out = (void *)1;
	size_t cnt = 1;
	char msg[256];

	assert_int_equal(cbpf_xlate(jeq_out, 2, CBPF_LOAD_SKB, &out, &cnt, msg, sizeof(msg)), -EINVAL);
	assert_null(out);
	assert_int_equal(cnt, 0);
	assert_non_null(strstr(msg, "instruction 0"));
	assert_int_equal(cbpf_xlate(ja_out, 2, CBPF_LOAD_XDP, &out, &cnt, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cbpf_xlate(mem_out, 2, CBPF_LOAD_SKB, &out, &cnt, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cbpf_xlate(bad_op, 2, CBPF_LOAD_SKB, &out, &cnt, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cbpf_xlate(big, 0, CBPF_LOAD_SKB, &out, &cnt, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cbpf_xlate(big, CBPF_XLATE_MAX_CBPF + 1, CBPF_LOAD_SKB, &out, &cnt, msg,
				    sizeof(msg)), -EINVAL);
	/* the longest program: 4095 loads of a constant and a return, each one instruction */
	for (int i = 0; i < CBPF_XLATE_MAX_CBPF; i++)
		big[i] = (uint64_t)(i + 1) << 32;
	big[CBPF_XLATE_MAX_CBPF - 1] = 0x16; /* ret a */
	assert_int_equal(cbpf_xlate(big, CBPF_XLATE_MAX_CBPF, CBPF_LOAD_SKB, &out, &cnt, msg,
				    sizeof(msg)), 0);
	assert_true(cnt > CBPF_XLATE_MAX_CBPF && cnt < CBPF_XLATE_MAX_CBPF + 20);
	assert_int_equal(out[cnt - 2].code, BPF_ALU | BPF_MOV | BPF_X);
	assert_int_equal(out[cnt - 1].code, BPF_JMP | BPF_EXIT);
	free(out);
	/* 4095 indirect word loads (the longest translation): no jump out of 16-bit reach */
	for (int i = 0; i < CBPF_XLATE_MAX_CBPF - 1; i++)
		big[i] = 0x40 | 14ull << 32;
	assert_int_equal(cbpf_xlate(big, CBPF_XLATE_MAX_CBPF, CBPF_LOAD_SKB, &out, &cnt, msg,
				    sizeof(msg)), 0);
	assert_true(cnt > 100 * (CBPF_XLATE_MAX_CBPF - 1));
	free(out);
}

#define NEXPR (sizeof(exprs) / sizeof(exprs[0]))

int main(void)
{
	struct CMUnitTest tests[NEXPR + 1];

	build_v4();
	build_v6_other();
	for (size_t i = 0; i < NEXPR; i++)
		tests[i] = (struct CMUnitTest){ .name = exprs[i], .test_func = test_expr,
						.initial_state = (void *)exprs[i] };
	tests[NEXPR] = (struct CMUnitTest)cmocka_unit_test(test_refused);
	return _cmocka_run_group_tests("test_cbpf_xlate", tests, NEXPR + 1, NULL, NULL);
}
