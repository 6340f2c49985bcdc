// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_skb decoder on packets built in memory: meta + frame written as bpf-output
 * samples into a perf.data (rawfrag_writer), read back through a session so the
 * decoder is probed the way report/check use it. Covers the meta split and its
 * checks, the tcpdump-style text of every protocol, JSON fields, hex=1, and the
 * foreign-meta options meta=SIZE, meta=auto and meta_btf=.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rawfrag/rawfrag.h>
#include <rawfrag/skbdump.h>
#include "internal/check_sink.h"
#include "internal/pkt.h"

#define SNAP 256

struct frame {
	uint8_t b[2048];
	uint32_t len;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32be(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint16_t csum(const uint8_t *p, int n)
{
	uint32_t s = 0;

	for (int i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

static uint32_t eth(struct frame *f, uint16_t type, int vlan)
{
	uint32_t o = 12;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (vlan) {
		put16(f->b + o, 0x8100);
		put16(f->b + o + 2, (3 << 13) | vlan);
		o += 4;
	}
	put16(f->b + o, type);
	return o + 2;
}

/* IPv4 10.0.0.1 > 10.0.0.2 with l4 bytes of protocol proto; returns l4 offset */
static uint32_t ip4(struct frame *f, int vlan, uint8_t proto, uint32_t l4len)
{
	uint32_t o = eth(f, 0x0800, vlan);
	uint8_t *h = f->b + o;

	h[0] = 0x45;
	put16(h + 2, 20 + l4len);
	put16(h + 4, 0x1234);
	h[8] = 64;
	h[9] = proto;
	put32be(h + 12, 0x0a000001);
	put32be(h + 16, 0x0a000002);
	put16(h + 10, csum(h, 20));
	f->len = o + 20 + l4len;
	return o + 20;
}

static void udp4(struct frame *f, uint32_t payload)
{
	uint32_t o = ip4(f, 0, 17, 8 + payload);

	put16(f->b + o, 1234);
	put16(f->b + o + 2, 5678);
	put16(f->b + o + 4, 8 + payload);
	for (uint32_t i = 0; i < payload; i++)
		f->b[o + 8 + i] = 'a' + i % 26;
}

struct meta_in {
	uint32_t magic, caplen, orig, snap;
	uint16_t meta_len;
	uint8_t hook, dir, flags;
	uint32_t ifindex;
	uint32_t xdp_action, xdp_prog_id; /* hooks xdp-entry, xdp-exit */
};

/* raw = meta (our struct) + caplen frame bytes + pad of 0xee (stale) */
static uint8_t *make_raw(const struct frame *f, const struct meta_in *mi, uint32_t extra,
			 uint32_t *raw_size)
{
	struct rawfrag_skb_meta m = {
		.magic = mi->magic ? mi->magic : RAWFRAG_SKB_MAGIC,
		.version = RAWFRAG_SKB_VERSION,
		.meta_len = mi->meta_len ? mi->meta_len : sizeof(m),
		.hook = mi->hook ? mi->hook : RAWFRAG_SKB_HOOK_SOCKET,
		.dir = mi->dir ? mi->dir : RAWFRAG_SKB_DIR_IN,
		.ifindex = mi->ifindex ? mi->ifindex : 1,
		.orig_len = mi->orig ? mi->orig : f->len,
		.snaplen = mi->snap ? mi->snap : SNAP,
		.protocol = 0x0800,
		.mark = 7,
		.hash = 0xabcd,
	};
	uint32_t cap = mi->caplen ? mi->caplen : (f->len < SNAP ? f->len : SNAP);
	uint32_t body = sizeof(m) + (cap < f->len ? cap : f->len);
	uint32_t sz = ((4 + body + 7) & ~7u) - 4 + extra;
	uint8_t *r = malloc(sz);

	m.caplen = cap;
	m.flags = mi->flags;
	if (m.hook == RAWFRAG_SKB_HOOK_XDP_ENTRY || m.hook == RAWFRAG_SKB_HOOK_XDP_EXIT) {
		m.xdp_action = mi->xdp_action;
		m.xdp_prog_id = mi->xdp_prog_id;
	}
	assert_non_null(r);
	memset(r, 0xee, sz);
	memcpy(r, &m, sizeof(m));
	memcpy(r + sizeof(m), f->b, body - sizeof(m));
	*raw_size = sz;
	return r;
}

/* ---- a perf.data with the samples, read back through a session ---- */

#define MAX_S 16
struct fixture {
	bool big_endian; /* write the file (and expect the meta) in big-endian order */
	char path[64];
	int n;
	uint8_t *raw[MAX_S];
	uint32_t raw_size[MAX_S];
	int evsel[MAX_S];
};

/* size is read after raw is made (argument order is unspecified) */
static void fx_add(struct fixture *fx, int evsel, uint8_t *raw, const uint32_t *psize)
{
	uint32_t size = *psize;

	assert_true(fx->n < MAX_S);
	fx->raw[fx->n] = raw;
	fx->raw_size[fx->n] = size;
	fx->evsel[fx->n++] = evsel;
}

static void fx_write(struct fixture *fx)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
		.sample_period = 1,
		.sample_id_all = 1,
	};
	uint64_t id0 = 11, id1 = 12;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	int fd;

	snprintf(fx->path, sizeof(fx->path), "/tmp/test_bpf_skb.XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	close(fd);
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .big_endian = fx->big_endian);

	w = rawfrag_writer__new(fx->path, &wo, &err);
	assert_non_null(w);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "skbdump:1=lo,7=veth0", &id0, 1), 0);
	assert_int_equal(rawfrag_writer__add_evsel(w, &a, "bpf-output", &id1, 1), 1);
	assert_int_equal(rawfrag_writer__start(w), 0);
	for (int i = 0; i < fx->n; i++) {
		struct rawfrag_sample s = { 0 };

		s.identifier = s.id = fx->evsel[i] ? id1 : id0;
		s.pid = s.tid = 42;
		s.time = 1000 + i;
		s.cpu = 1;
		s.raw_size = fx->raw_size[i];
		s.raw_data = fx->raw[i];
		assert_int_equal(rawfrag_writer__write_sample(w, fx->evsel[i], &s, PERF_RECORD_MISC_KERNEL), 0);
	}
	assert_int_equal(rawfrag_writer__finish(w), 0);
	rawfrag_writer__delete(w);
}

struct found {
	int n;
	char kind[8][32];
};

static void collect(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
		    const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct found *f = sink->ctx;

	if (f->n < 8)
		snprintf(f->kind[f->n++], sizeof(f->kind[0]), "%s", kind);
}

struct result {
	int len_ret;
	uint32_t len;
	struct found found;
	char text[16384];
	char json[16384];
	char dec[32];
};

/* decode every sample of fx with decoder options dopts into r[] */
static void fx_decode(struct fixture *fx, const char *const *dopts, struct result *r)
{
	RAWFRAG_OPTS(rawfrag_session_opts, so, .dopts = dopts);
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *em = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
	struct rawfrag_session *sess;
	struct rawfrag_record rec;
	struct rawfrag_err err;
	struct rawfrag_file *f;
	int i = 0;

	f = rawfrag_file__open(fx->path, NULL, &err);
	assert_non_null(f);
	sess = rawfrag_session__new(f, &so, &err);
	assert_non_null(sess);
	while (rawfrag_file__next(f, &rec) > 0) {
		const struct rawfrag_decoder *dec;
		struct rawfrag_check_sink sink;
		struct rawfrag_evsel *ev;
		struct rawfrag_sample smp;
		struct rawfrag_raw raw;
		const char *m;
		void *priv;
		size_t len;

		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		assert_true(i < fx->n);
		ev = rawfrag_file__evsel_of(f, &rec);
		assert_non_null(ev);
		assert_int_equal(rawfrag_sample__parse(&smp, rawfrag_evsel__attr(ev), &rec,
						       rawfrag_file__needs_swap(f), &err), 0);
		assert_true(rawfrag_session__raw(sess, &rec, &smp, &raw));
		dec = rawfrag_session__decoder(sess, ev);
		priv = rawfrag_session__decoder_priv(sess, ev);
		snprintf(r[i].dec, sizeof(r[i].dec), "%s", dec->name);
		rawfrag_check_sink__init(&sink, false, NULL);
		sink.report = collect;
		sink.ctx = &r[i].found;
		r[i].len_ret = dec->length(priv, &raw, &smp, &r[i].len, &sink);
		rawfrag_out__reset(o);
		assert_int_equal(dec->text(priv, &raw, &smp, o, false), 0);
		m = rawfrag_out__mem(o, &len);
		assert_true(len < sizeof(r[i].text));
		memcpy(r[i].text, m, len);
		rawfrag_out__reset(o);
		rawfrag_emit__reset(em);
		rawfrag_emit__begin_object(em, NULL);
		assert_int_equal(dec->fields(priv, &raw, &smp, em), 0);
		rawfrag_emit__end_object(em);
		m = rawfrag_out__mem(o, &len);
		assert_true(len < sizeof(r[i].json));
		memcpy(r[i].json, m, len);
		i++;
	}
	assert_int_equal(i, fx->n);
	rawfrag_emit__delete(em);
	rawfrag_out__delete(o);
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
}

static void fx_free(struct fixture *fx)
{
	unlink(fx->path);
	for (int i = 0; i < fx->n; i++)
		free(fx->raw[i]);
}

static bool has(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		return true;
	print_error("expected \"%s\" in: %s\n", needle, hay);
	return false;
}

static bool found_kind(const struct found *f, const char *kind)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->kind[i], kind))
			return true;
	print_error("kind %s not reported (%d findings)\n", kind, f->n);
	return false;
}

/* ---- tests ---- */

static void test_udp_text_json(void **state)
{
	struct fixture fx = { 0 };
	struct result *r = calloc(3, sizeof(*r));
	struct frame f;
	struct meta_in mi = { 0 };
	uint32_t sz;

	udp4(&f, 100); /* 142 bytes: whole frame captured */
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	udp4(&f, 1000); /* cut at the snaplen */
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	mi.ifindex = 7;
	mi.hook = RAWFRAG_SKB_HOOK_TC_EGRESS;
	mi.dir = RAWFRAG_SKB_DIR_OUT;
	udp4(&f, 1);
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	fx_write(&fx);
	fx_decode(&fx, NULL, r);

	assert_string_equal(r[0].dec, "bpf_skb");
	assert_int_equal(r[0].len_ret, 0);
	assert_int_equal(r[0].len, 40 + 142);
	assert_true(has(r[0].text, "lo socket In 02:00:00:00:00:01 > 02:00:00:00:00:02, ethertype IPv4 (0x0800), length 142: IP 10.0.0.1.1234 > 10.0.0.2.5678: UDP, length 100"));
	assert_true(has(r[0].json, "\"ifname\":\"lo\""));
	assert_true(has(r[0].json, "\"udp\":{\"sport\":1234,\"dport\":5678,\"len\":108"));
	assert_true(has(r[0].json, "\"csum_ok\":true"));
	assert_true(has(r[0].json, "\"data\":\"020000000002"));
	/* snaplen cut: length from the IP header, bytes up to the snaplen */
	assert_int_equal(r[1].len_ret, 0);
	assert_int_equal(r[1].len, 40 + SNAP);
	assert_true(has(r[1].text, "length 1042: IP 10.0.0.1.1234 > 10.0.0.2.5678: UDP, length 1000"));
	assert_true(has(r[1].json, "\"orig_len\":1042,\"caplen\":256"));
	assert_true(has(r[2].text, "veth0 tc-egress Out "));
	assert_true(has(r[2].text, "UDP, length 1"));
	fx_free(&fx);
	free(r);
}

/* dumps at the entry and exit of someone else's XDP program: its id and action */
static void test_xdp_trace(void **state)
{
	struct fixture fx = { 0 };
	struct result *r = calloc(2, sizeof(*r));
	struct meta_in mi = { .ifindex = 7, .xdp_prog_id = 77 };
	struct frame f;
	uint32_t sz;

	udp4(&f, 10);
	mi.hook = RAWFRAG_SKB_HOOK_XDP_ENTRY;
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	mi.hook = RAWFRAG_SKB_HOOK_XDP_EXIT;
	mi.flags = RAWFRAG_SKB_F_XDP_ACTION;
	mi.xdp_action = 1; /* XDP_DROP */
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	fx_write(&fx);
	fx_decode(&fx, NULL, r);

	assert_true(has(r[0].text, "veth0 xdp-entry In 02:00:00:00:00:01 > 02:00:00:00:00:02, "));
	assert_true(has(r[0].json, "\"hook\":\"xdp-entry\""));
	assert_true(has(r[0].json, "\"xdp_prog_id\":77"));
	assert_null(strstr(r[0].json, "xdp_action"));
	assert_null(strstr(r[0].json, "\"mark\""));
	assert_true(has(r[1].text, "veth0 xdp-exit In XDP_DROP 02:00:00:00:00:01 > 02:00:00:00:00:02, "));
	assert_true(has(r[1].text, "UDP, length 10"));
	assert_true(has(r[1].json, "\"xdp_prog_id\":77,\"xdp_action\":\"XDP_DROP\""));
	fx_free(&fx);
	free(r);
}

static void test_protocols(void **state)
{
	struct fixture fx = { 0 };
	struct result *r = calloc(8, sizeof(*r));
	struct meta_in mi = { 0 };
	struct frame f;
	uint32_t o, sz;
	uint8_t *t;

	/* TCP SYN-ACK with 12 option bytes */
	o = ip4(&f, 0, 6, 32);
	t = f.b + o;
	put16(t, 80);
	put16(t + 2, 40000);
	put32be(t + 4, 1000);
	put32be(t + 8, 2000);
	t[12] = 8 << 4;
	t[13] = 0x12;
	put16(t + 14, 512);
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	/* ICMP echo request in a VLAN */
	o = ip4(&f, 10, 1, 64);
	f.b[o] = 8;
	put16(f.b + o + 4, 77);
	put16(f.b + o + 6, 3);
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	/* IPv6 hop-by-hop then UDP */
	o = eth(&f, 0x86dd, 0);
	f.b[o] = 0x60;
	put16(f.b + o + 4, 8 + 12);
	f.b[o + 6] = 0;
	f.b[o + 7] = 64;
	f.b[o + 8 + 15] = 1;
	f.b[o + 24 + 15] = 2;
	f.b[o + 40] = 17; /* hbh: next UDP, length 0 (8 bytes) */
	put16(f.b + o + 48, 5);
	put16(f.b + o + 50, 6);
	put16(f.b + o + 52, 12);
	f.len = o + 40 + 8 + 12;
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	/* ARP request */
	o = eth(&f, 0x0806, 0);
	t = f.b + o;
	put16(t, 1);
	put16(t + 2, 0x0800);
	t[4] = 6;
	t[5] = 4;
	put16(t + 6, 1);
	put32be(t + 14, 0x0a000001);
	put32be(t + 24, 0x0a000002);
	f.len = o + 28;
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	/* ICMP cut inside its header (caplen 36: 2 bytes of ICMP) */
	o = ip4(&f, 0, 1, 64);
	f.b[o] = 8;
	mi.caplen = 36;
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	fx_write(&fx);
	fx_decode(&fx, NULL, r);

	assert_true(has(r[0].text, "IP 10.0.0.1.80 > 10.0.0.2.40000: Flags [S.], seq 1000, ack 2000, win 512, options [eol], length 0"));
	assert_true(has(r[0].json, "\"tcp\":{\"sport\":80,\"dport\":40000,\"seq\":1000,\"ack\":2000,\"hlen\":32,\"flags\":\"0x12\",\"win\":512,\"options_len\":12}"));
	assert_true(has(r[1].text, "ethertype 802.1Q (0x8100), length 102: vlan 10, p 3, ethertype IPv4 (0x0800), IP 10.0.0.1 > 10.0.0.2: ICMP echo request, id 77, seq 3, length 64"));
	assert_true(has(r[1].json, "\"vlan\":[{\"tpid\":\"0x8100\",\"id\":10,\"pcp\":3}]"));
	assert_true(has(r[2].text, "IP6 ::1 > ::2: HBH 5 > 6: UDP, length 4"));
	assert_true(has(r[2].json, "\"ext\":[\"hbh\"]"));
	assert_true(has(r[3].text, "ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28"));
	assert_true(has(r[4].text, "ICMP [|icmp]"));
	assert_int_equal(r[4].len, 40 + 36);
	fx_free(&fx);
	free(r);
}

static void test_checks(void **state)
{
	struct fixture fx = { 0 };
	struct result *r = calloc(6, sizeof(*r));
	struct frame f;
	struct meta_in mi = { 0 };
	uint32_t sz;
	uint8_t *raw;

	udp4(&f, 100);
	mi.orig = 100; /* caplen 142 > orig 100 */
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	mi.orig = 0;
	mi.snap = 64; /* caplen 142 > snaplen */
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	mi.snap = 0;
	fx_add(&fx, 0, make_raw(&f, &mi, 8, &sz), &sz); /* 8 bytes too many */
	raw = make_raw(&f, &mi, 0, &sz);
	sz -= 64; /* cut: meta + caplen past raw_size */
	fx_add(&fx, 0, raw, &sz);
	mi.magic = 0x12345678;
	fx_add(&fx, 0, make_raw(&f, &mi, 0, &sz), &sz);
	fx_write(&fx);
	fx_decode(&fx, NULL, r);

	assert_true(found_kind(&r[0].found, "skb_caplen_gt_len"));
	assert_true(found_kind(&r[1].found, "skb_caplen_gt_snaplen"));
	assert_int_equal(r[2].len_ret, -EINVAL);
	assert_true(found_kind(&r[2].found, "skb_raw_size"));
	assert_int_equal(r[3].len_ret, -EINVAL);
	assert_true(found_kind(&r[3].found, "skb_cut"));
	assert_int_equal(r[4].len_ret, -EINVAL);
	assert_true(found_kind(&r[4].found, "skb_magic"));
	fx_free(&fx);
	free(r);
}

/* foreign producer: 16 bytes of its own meta then the frame, on evsel 1 */
static uint8_t *foreign(const struct frame *f, uint32_t cap, uint32_t *size)
{
	uint32_t sz = ((4 + 16 + cap + 7) & ~7u) - 4;
	uint8_t *r = malloc(sz);

	assert_non_null(r);
	memset(r, 0x5a, sz);
	memcpy(r, "\x01\x00\x00\x00\x2a\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00", 16);
	memcpy(r + 16, f->b, cap);
	*size = sz;
	return r;
}

static void test_foreign(void **state)
{
	static const char *const d_fixed[] = { "meta=16", "hex=1", NULL };
	static const char *const d_auto[] = { "meta=auto", NULL };
	struct fixture fx = { 0 };
	struct result *r = calloc(3, sizeof(*r));
	struct frame f;
	uint32_t sz;

	udp4(&f, 30);
	fx_add(&fx, 1, foreign(&f, f.len, &sz), &sz);
	udp4(&f, 500);
	fx_add(&fx, 1, foreign(&f, 200, &sz), &sz); /* cut by the producer */
	memset(&f, 0x33, sizeof(f));
	fx_add(&fx, 1, foreign(&f, 100, &sz), &sz); /* no IP anywhere */
	fx_write(&fx);

	/* without an option: not ours, shown as hex, length unknown */
	fx_decode(&fx, NULL, r);
	assert_string_equal(r[0].dec, "bpf_skb");
	assert_int_equal(r[0].len_ret, -ENODATA);
	assert_true(has(r[0].text, "no rawfrag skb meta"));

	memset(r, 0, 3 * sizeof(*r));
	fx_decode(&fx, d_fixed, r);
	assert_int_equal(r[0].len_ret, 0);
	assert_int_equal(r[0].len, 16 + 72);
	assert_true(has(r[0].text, "meta 16 bytes: "));
	assert_true(has(r[0].text, "UDP, length 30"));
	assert_true(has(r[0].text, "\n\t0x0000:  0200 0000 0002 0200 0000 0001 0800 4500"));
	assert_int_equal(r[1].len_ret, -ENODATA); /* frame cut: pad unknown */
	assert_true(has(r[1].json, "\"orig_len\":542"));

	memset(r, 0, 3 * sizeof(*r));
	fx_decode(&fx, d_auto, r);
	assert_int_equal(r[0].len_ret, 0);
	assert_true(has(r[0].json, "\"meta_len\":16"));
	assert_true(has(r[1].text, "length 542: IP 10.0.0.1.1234 > 10.0.0.2.5678: UDP, length 500"));
	assert_true(has(r[2].text, "cannot decide"));
	fx_free(&fx);
	free(r);
}

static void test_meta_btf(void **state)
{
	static const char src[] =
		"struct fmeta { unsigned int kind; unsigned int pid; unsigned long long cookie; };\n"
		"struct fmeta m __attribute__((section(\".data\"), used));\n";
	char dir[] = "/tmp/skbbtf.XXXXXX", cmd[512], opt[256];
	const char *dopts[] = { opt, NULL };
	struct fixture fx = { 0 };
	struct result *r = calloc(1, sizeof(*r));
	struct frame f;
	uint32_t sz;
	FILE *fp;

	if (system("command -v clang >/dev/null 2>&1")) {
		free(r);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/m.c", dir);
	fp = fopen(cmd, "w");
	assert_non_null(fp);
	fputs(src, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "clang -g -O2 -target bpf -c %s/m.c -o %s/m.o", dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(opt, sizeof(opt), "meta_btf=%s/m.o:fmeta", dir);

	udp4(&f, 30);
	fx_add(&fx, 1, foreign(&f, f.len, &sz), &sz);
	fx_write(&fx);
	fx_decode(&fx, dopts, r);
	assert_int_equal(r[0].len_ret, 0);
	assert_true(has(r[0].json, "\"meta\":{\"kind\":1,\"pid\":42,\"cookie\":4294967295}"));
	assert_true(has(r[0].json, "\"udp\":{\"sport\":1234"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	fx_free(&fx);
	free(r);
}

/* every truncation of every protocol, and random bytes, in exactly sized buffers */
static void test_pkt_robust(void **state)
{
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x0806, 0x8100, 0x88a8, 0x1234 };
	static const uint8_t protos[] = { 6, 17, 1, 58, 0, 43, 44, 60, 51, 132 };
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct rawfrag_emit *em = rawfrag_emit__new(o, RAWFRAG_EMIT_JSON);
	struct pkt_tcpseq *ts = calloc(1, sizeof(*ts));
	unsigned int seed = 12345;

	assert_non_null(em);
	assert_non_null(ts);
	for (int it = 0; it < 20000; it++) {
		uint32_t len = rand_r(&seed) % 160, flen;
		uint8_t *b = malloc(len ? len : 1);
		struct pkt k;

		assert_non_null(b);
		for (uint32_t i = 0; i < len; i++)
			b[i] = rand_r(&seed);
		/* plausible headers so that the deeper parsers run too */
		if (len >= 14)
			put16(b + 12, types[rand_r(&seed) % 6]);
		if (len >= 18 && (b[12] == 0x81 || b[12] == 0x88))
			put16(b + 16, types[rand_r(&seed) % 3]);
		for (uint32_t o4 = 14; o4 <= 18 && o4 + 10 < len; o4 += 4) {
			b[o4] = (rand_r(&seed) & 1 ? 0x45 : 0x60) + (rand_r(&seed) % 3);
			b[o4 + 6] = b[o4 + 9] = protos[rand_r(&seed) % 10];
		}
		pkt_parse(&k, b, len, rand_r(&seed) % 70000);
		rawfrag_out__reset(o);
		/* with and without the relative TCP numbers' table */
		pkt_text(&k, o, it & 1 ? ts : NULL);
		pkt_hex(&k, o);
		rawfrag_emit__reset(em);
		rawfrag_emit__begin_object(em, NULL);
		pkt_fields(&k, em);
		rawfrag_emit__end_object(em);
		(void)pkt_looks_like_frame(b, len, &flen);
		free(b);
	}
	free(ts);
	rawfrag_emit__delete(em);
	rawfrag_out__delete(o);
}

/* a big-endian recording (s390x): the meta is in the producer's order, found by the magic */
static void swap_meta(uint8_t *r)
{
	static const uint8_t w32[] = { 0, 12, 16, 20, 24, 32, 36 }, w16[] = { 4, 6, 28, 30 };

	for (size_t i = 0; i < sizeof(w32); i++) {
		uint32_t v;

		memcpy(&v, r + w32[i], 4);
		v = __builtin_bswap32(v);
		memcpy(r + w32[i], &v, 4);
	}
	for (size_t i = 0; i < sizeof(w16); i++) {
		uint16_t v;

		memcpy(&v, r + w16[i], 2);
		v = __builtin_bswap16(v);
		memcpy(r + w16[i], &v, 2);
	}
}

static void test_big_endian(void **state)
{
	struct fixture fx = { .big_endian = true };
	struct result *r = calloc(1, sizeof(*r));
	struct meta_in mi = { .ifindex = 7 };
	struct frame f;
	uint32_t sz;
	uint8_t *raw;

	udp4(&f, 300);
	raw = make_raw(&f, &mi, 0, &sz);
	swap_meta(raw);
	fx_add(&fx, 0, raw, &sz);
	fx_write(&fx);
	fx_decode(&fx, NULL, r);
	assert_int_equal(r[0].len_ret, 0);
	assert_int_equal(r[0].len, 40 + SNAP);
	assert_int_equal(r[0].found.n, 0);
	assert_true(has(r[0].text, "veth0 socket In "));
	assert_true(has(r[0].text, "length 342: IP 10.0.0.1.1234 > 10.0.0.2.5678: UDP, length 300"));
	assert_true(has(r[0].json, "\"mark\":7,\"hash\":\"0xabcd\""));
	fx_free(&fx);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_text_json),
		cmocka_unit_test(test_xdp_trace),
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_meta_btf),
		cmocka_unit_test(test_pkt_robust),
		cmocka_unit_test(test_big_endian),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
