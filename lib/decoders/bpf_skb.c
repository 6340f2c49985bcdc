// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF skb/xdp packet dumps: bpf-output events (PERF_TYPE_SOFTWARE, config 10)
 * whose raw payload is meta data then the first caplen bytes of a packet then
 * stale pad (Documentation/perf.data-raw-format.txt, BPF output; <rawfrag/skbdump.h>,
 * read through lib/skbdump.c).
 *
 * Our own dumps (struct rawfrag_skb_meta, found by its magic) split exactly.
 * Dumps of other tools need the meta size from a decoder option:
 *   meta=SIZE              fixed meta size in bytes
 *   meta=auto              find the frame start by validating Ethernet + IPv4
 *                          (header checksum, lengths) or IPv6 headers; learned
 *                          once per evsel, re-validated on every sample
 *   meta_btf=OBJ.o:STRUCT  meta size and field names from BTF (libbpf)
 * and "hex=1" adds a tcpdump -xx style dump to the text.
 *
 * Interface names: our recorder names the evsel "skbdump:IFINDEX=NAME,..."
 * (EVENT_DESC), so they need no extra file section and survive any tool that
 * keeps event names (rawfrag_skb_event__ifname()).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <rawfrag/skbdump.h>

#include "internal/decoders.h"
#include "internal/pkt.h"

#define SKB_AUTO_SCAN 512 /* meta=auto: farthest frame start tried */

enum skb_mode {
	SKB_OURS, /* our magic, else shown as hex */
	SKB_FIXED, /* meta=SIZE or meta_btf= */
	SKB_AUTO, /* meta=auto */
};

struct skb_btf_field {
	char *name;
	uint32_t off, size;
};

/* Per-evsel state; owns the BTF field names. */
struct skb_priv {
	enum skb_mode mode;
	bool named; /* evsel named "skbdump:": every sample must be ours */
	bool hex;
	uint32_t meta; /* SKB_FIXED */
	int64_t auto_off; /* SKB_AUTO: learned meta size, -1 before */
	char *evname; /* "skbdump:IFINDEX=NAME,...": names interfaces */
	struct pkt_tcpseq *tcpseq; /* relative TCP numbers in the text, made on first use */
	int nr_bf;
	struct skb_btf_field *bf;
};

/* One sample split into meta and packet. */
struct skb_split {
	bool ours, found;
	struct rawfrag_skb_meta m; /* host order (ours) */
	uint32_t meta_len, caplen, orig_len;
	bool len_known; /* meta_len + caplen is the true length */
	const char *why; /* !found: reason */
};

/* the hooks on someone else's XDP program: no skb, so no mark or hash */
static bool is_xdp_trace(uint8_t hook)
{
	return hook == RAWFRAG_SKB_HOOK_XDP_ENTRY || hook == RAWFRAG_SKB_HOOK_XDP_EXIT;
}

static const char *dir_name(uint8_t d)
{
	return d == RAWFRAG_SKB_DIR_IN ? "In" : d == RAWFRAG_SKB_DIR_OUT ? "Out" : "?";
}

/* the interface name of ifindex, from the event name (buf: IF_NAMESIZE bytes) */
static const char *ifname(const struct skb_priv *sp, uint32_t ifindex, char *buf)
{
	rawfrag_skb_event__ifname(sp->evname, ifindex, buf, IF_NAMESIZE);
	return buf;
}

static int load_btf(struct rawfrag_decoder_ctx *ctx, struct skb_priv *sp, const char *spec)
{
	char *path = strdup(spec), *st = path ? strrchr(path, ':') : NULL;
	const struct btf_member *m;
	const struct btf_type *t;
	struct btf *btf = NULL;
	int id, err = -EINVAL;

	if (!st) {
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN, "meta_btf=%s: want OBJECT.o:STRUCT", spec);
		goto out;
	}
	*st++ = 0;
	btf = btf__parse(path, NULL);
	if (!btf) {
		err = -errno;
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN, "meta_btf: cannot read BTF of %s: %s",
					 path, strerror(errno));
		goto out;
	}
	id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t) {
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN, "meta_btf: no struct %s in %s", st, path);
		goto out;
	}
	sp->meta = t->size;
	sp->bf = calloc(btf_vlen(t) + 1, sizeof(*sp->bf));
	if (!sp->bf) {
		err = -ENOMEM;
		goto out;
	}
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		long sz = btf__resolve_size(btf, m->type);
		const char *n = btf__name_by_offset(btf, m->name_off);

		/* bitfields and anonymous members are left to the hex of the meta */
		if (sz <= 0 || btf_member_bitfield_size(t, i) || !n || !*n)
			continue;
		sp->bf[sp->nr_bf].name = strdup(n);
		sp->bf[sp->nr_bf].off = btf_member_bit_offset(t, i) / 8;
		sp->bf[sp->nr_bf].size = sz;
		if (sp->bf[sp->nr_bf].name)
			sp->nr_bf++;
	}
	err = 0;
out:
	btf__free(btf);
	free(path);
	return err;
}

static void skb_release(void *priv)
{
	struct skb_priv *sp = priv;

	if (!sp)
		return;
	for (int i = 0; i < sp->nr_bf; i++)
		free(sp->bf[i].name);
	free(sp->bf);
	free(sp->evname);
	free(sp->tcpseq);
	free(sp);
}

static int skb_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		     void **priv)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	const char *name = rawfrag_evsel__name(evsel), *meta, *btf, *hex;
	struct skb_priv *sp;
	int err;

	if (attr->type != PERF_TYPE_SOFTWARE || attr->config != PERF_COUNT_SW_BPF_OUTPUT ||
	    !(attr->sample_type & PERF_SAMPLE_RAW))
		return 0;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->auto_off = -1;
	sp->named = name && !strncmp(name, RAWFRAG_SKB_EVENT_PREFIX,
				     strlen(RAWFRAG_SKB_EVENT_PREFIX));
	if (sp->named) {
		sp->evname = strdup(name);
		if (!sp->evname) {
			free(sp);
			return -ENOMEM;
		}
	}
	meta = rawfrag_decoder_ctx__opt(ctx, "meta");
	btf = rawfrag_decoder_ctx__opt(ctx, "meta_btf");
	hex = rawfrag_decoder_ctx__opt(ctx, "hex");
	sp->hex = hex && strcmp(hex, "0");
	if (btf && !sp->named) {
		err = load_btf(ctx, sp, btf);
		if (err) {
			skb_release(sp);
			return err;
		}
		sp->mode = SKB_FIXED;
	} else if (meta && !sp->named) {
		char *end;

		if (!strcmp(meta, "auto")) {
			sp->mode = SKB_AUTO;
		} else {
			sp->meta = strtoul(meta, &end, 0);
			if (*end || end == meta || sp->meta > 65535) {
				rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
							 "meta=%s: want a size in bytes or auto", meta);
				skb_release(sp);
				return -EINVAL;
			}
			sp->mode = SKB_FIXED;
		}
	}
	*priv = sp;
	/* ours by name, or asked for by option: above any generic bpf-output decoder */
	return sp->named || sp->mode != SKB_OURS ? 100 : 10;
}

/* foreign meta of size meta: the frame's own length tells caplen when complete */
static void split_foreign(struct skb_split *x, const struct rawfrag_raw *raw, uint32_t meta)
{
	uint32_t avail, flen;

	if (meta > raw->size) {
		x->why = "meta size larger than the raw data";
		return;
	}
	avail = raw->size - meta;
	x->found = true;
	x->meta_len = meta;
	x->caplen = avail;
	x->orig_len = avail;
	if (pkt_looks_like_frame(raw->data + meta, avail, &flen)) {
		x->orig_len = flen;
		if (flen <= avail) {
			x->caplen = flen;
			/* only then is the pad (avail - flen) known */
			x->len_known = avail - flen < 8;
		}
	}
}

static void split_auto(struct skb_priv *sp, struct skb_split *x, const struct rawfrag_raw *raw)
{
	uint32_t flen;

	if (sp->auto_off >= 0 && (uint64_t)sp->auto_off + 34 <= raw->size &&
	    pkt_looks_like_frame(raw->data + sp->auto_off, raw->size - sp->auto_off, &flen)) {
		split_foreign(x, raw, sp->auto_off);
		return;
	}
	for (uint32_t off = 0; off + 34 <= raw->size && off <= SKB_AUTO_SCAN; off++) {
		if (pkt_looks_like_frame(raw->data + off, raw->size - off, &flen)) {
			sp->auto_off = off;
			split_foreign(x, raw, off);
			return;
		}
	}
	x->why = "meta=auto: cannot decide where the packet starts (no valid Ethernet+IP header)";
}

static void skb_split(struct skb_priv *sp, const struct rawfrag_raw *raw, struct skb_split *x)
{
	struct rawfrag_skb_dump d;
	int err;

	memset(x, 0, sizeof(*x));
	if (sp->mode == SKB_FIXED) {
		split_foreign(x, raw, sp->meta);
		return;
	}
	if (sp->mode == SKB_AUTO) {
		split_auto(sp, x, raw);
		return;
	}
	err = rawfrag_skb_dump__split(&d, raw->data, raw->size, &x->why);
	if (err == -ENOMSG) {
		x->why = "no rawfrag skb meta (magic); try meta=SIZE, meta=auto or meta_btf=";
		return;
	}
	x->ours = true;
	x->m = d.meta;
	if (err)
		return;
	x->meta_len = x->m.meta_len;
	x->orig_len = x->m.orig_len;
	x->caplen = x->m.caplen;
	x->found = true;
	x->len_known = true;
}

static int skb_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      uint32_t *len, struct rawfrag_check_sink *sink)
{
	struct skb_priv *sp = priv;
	struct rawfrag_skb_meta m;
	struct skb_split x;
	uint64_t want;

	skb_split(sp, raw, &x);
	if (!x.ours && sp->mode == SKB_OURS) {
		if (!sp->named)
			return -ENODATA; /* someone else's bpf-output: not ours to judge */
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_magic", 0,
					   "skbdump sample without the meta magic (raw_size %u)",
					   raw->size);
		return -EINVAL;
	}
	if (!x.ours)
		goto foreign;
	m = x.m;
	if (m.version != RAWFRAG_SKB_VERSION)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "skb_version", 4,
					   "meta version %u (this reader knows %u)", m.version,
					   RAWFRAG_SKB_VERSION);
	if (m.meta_len < RAWFRAG_SKB_META_V1_LEN || m.meta_len > raw->size) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_meta_len", 6,
					   "meta_len %u outside %u..raw_size %u", m.meta_len,
					   RAWFRAG_SKB_META_V1_LEN, raw->size);
		return -EINVAL;
	}
	if (m.caplen > m.orig_len)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_caplen_gt_len", 20,
					   "caplen %u > original length %u", m.caplen, m.orig_len);
	if (m.caplen > m.snaplen)
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_caplen_gt_snaplen", 20,
					   "caplen %u > snaplen %u", m.caplen, m.snaplen);
	want = (uint64_t)m.meta_len + m.caplen;
	if (want > raw->size) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_cut", -1,
					   "meta %u + caplen %u = %llu bytes but raw_size is %u (record cut, e.g. by the 64 KiB header.size limit)",
					   m.meta_len, m.caplen, (unsigned long long)want, raw->size);
		return -EINVAL;
	}
	if (raw->size != ((4 + want + 7) & ~7ULL) - 4) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "skb_raw_size", -1,
					   "raw_size %u != round_up(4 + %llu, 8) - 4", raw->size,
					   (unsigned long long)want);
		return -EINVAL;
	}
	*len = want;
	return 0;
foreign:
	if (!x.found) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_WARN, "skb_no_packet", -1, "%s", x.why);
		return -ENODATA;
	}
	if (!x.len_known)
		return -ENODATA;
	*len = x.meta_len + x.caplen;
	return 0;
}

static void hex_bytes(struct rawfrag_out *out, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rawfrag_out__printf(out, " %02x", p[i]);
}

static int skb_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		    struct rawfrag_out *out, bool verbose)
{
	struct skb_priv *sp = priv;
	struct skb_split x;
	struct pkt k;
	char buf[16];

	skb_split(sp, raw, &x);
	if (!x.found) {
		rawfrag_out__printf(out, "%s:", x.why);
		hex_bytes(out, raw->data, raw->size);
		return 0;
	}
	if (x.ours) {
		rawfrag_out__printf(out, "%s %s %s ", ifname(sp, x.m.ifindex, buf), rawfrag_skb_hook__name(x.m.hook),
				    dir_name(x.m.dir));
		if (verbose && is_xdp_trace(x.m.hook))
			rawfrag_out__printf(out, "[prog id %u proto %#06x caplen %u snaplen %u] ",
					    x.m.xdp_prog_id, x.m.protocol, x.m.caplen, x.m.snaplen);
		else if (verbose)
			rawfrag_out__printf(out,
					    "[pkt_type %u mark %#x hash %#x proto %#06x caplen %u snaplen %u%s] ",
					    x.m.pkt_type, x.m.mark, x.m.hash, x.m.protocol, x.m.caplen,
					    x.m.snaplen, x.m.flags & RAWFRAG_SKB_F_VLAN ? " vlan" : "");
		/* the traced program's verdict on the packet that follows */
		if (x.m.flags & RAWFRAG_SKB_F_XDP_ACTION)
			rawfrag_out__printf(out, "%s ", rawfrag_skb_xdp_action__name(x.m.xdp_action));
		/* the tag was taken off the bytes by the driver or the stack */
		if (x.m.flags & RAWFRAG_SKB_F_VLAN)
			rawfrag_out__printf(out, "vlan %u (offloaded), p %u, ", x.m.vlan_tci & 0xfff,
					    x.m.vlan_tci >> 13);
	} else {
		rawfrag_out__printf(out, "meta %u bytes:", x.meta_len);
		if (verbose)
			hex_bytes(out, raw->data, x.meta_len);
		rawfrag_out__putc(out, ' ');
	}
	pkt_parse(&k, raw->data + x.meta_len, x.caplen, x.orig_len);
	/* without the table (no memory) the numbers are absolute, as tcpdump -S */
	if (!sp->tcpseq)
		sp->tcpseq = calloc(1, sizeof(*sp->tcpseq));
	pkt_text(&k, out, sp->tcpseq);
	if (sp->hex)
		pkt_hex(&k, out);
	return 0;
}

static void btf_meta_fields(const struct skb_priv *sp, const struct rawfrag_raw *raw,
			    struct rawfrag_emit *em)
{
	rawfrag_emit__begin_object(em, "meta");
	for (int i = 0; i < sp->nr_bf; i++) {
		const struct skb_btf_field *f = &sp->bf[i];
		const uint8_t *p = raw->data + f->off;

		if (f->off > raw->size || f->size > raw->size - f->off)
			continue;
		if (f->size == 1)
			rawfrag_emit__u64(em, f->name, *p);
		else if (f->size == 2)
			rawfrag_emit__u64(em, f->name, rawfrag__get16(p, raw->swap));
		else if (f->size == 4)
			rawfrag_emit__u64(em, f->name, rawfrag__get32(p, raw->swap));
		else if (f->size == 8)
			rawfrag_emit__u64(em, f->name, rawfrag__get64(p, raw->swap));
		else
			rawfrag_emit__bytes(em, f->name, p, f->size);
	}
	rawfrag_emit__end_object(em);
}

static void our_meta_fields(const struct skb_priv *sp, const struct rawfrag_skb_meta *m,
			    struct rawfrag_emit *em)
{
	char buf[16];

	rawfrag_emit__begin_object(em, "meta");
	rawfrag_emit__hex(em, "magic", m->magic);
	rawfrag_emit__u64(em, "version", m->version);
	rawfrag_emit__u64(em, "meta_len", m->meta_len);
	rawfrag_emit__str(em, "hook", rawfrag_skb_hook__name(m->hook), (size_t)-1);
	rawfrag_emit__str(em, "dir", m->dir == RAWFRAG_SKB_DIR_IN ? "in" :
				     m->dir == RAWFRAG_SKB_DIR_OUT ? "out" : "unknown", (size_t)-1);
	rawfrag_emit__u64(em, "pkt_type", m->pkt_type);
	rawfrag_emit__hex(em, "flags", m->flags);
	rawfrag_emit__u64(em, "ifindex", m->ifindex);
	rawfrag_emit__str(em, "ifname", ifname(sp, m->ifindex, buf), (size_t)-1);
	rawfrag_emit__u64(em, "orig_len", m->orig_len);
	rawfrag_emit__u64(em, "caplen", m->caplen);
	rawfrag_emit__u64(em, "snaplen", m->snaplen);
	rawfrag_emit__hex(em, "protocol", m->protocol);
	if (m->flags & RAWFRAG_SKB_F_VLAN)
		rawfrag_emit__u64(em, "vlan_tci", m->vlan_tci);
	if (is_xdp_trace(m->hook)) {
		rawfrag_emit__u64(em, "xdp_prog_id", m->xdp_prog_id);
		if (m->flags & RAWFRAG_SKB_F_XDP_ACTION)
			rawfrag_emit__str(em, "xdp_action",
					  rawfrag_skb_xdp_action__name(m->xdp_action), (size_t)-1);
	} else {
		rawfrag_emit__u64(em, "mark", m->mark);
		rawfrag_emit__hex(em, "hash", m->hash);
	}
	rawfrag_emit__end_object(em);
}

static int skb_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		      struct rawfrag_emit *em)
{
	struct skb_priv *sp = priv;
	struct skb_split x;
	struct pkt k;

	skb_split(sp, raw, &x);
	if (!x.found) {
		rawfrag_emit__str(em, "error", x.why, (size_t)-1);
		rawfrag_emit__bytes(em, "hex", raw->data, raw->size);
		return 0;
	}
	if (x.ours)
		our_meta_fields(sp, &x.m, em);
	else if (sp->nr_bf)
		btf_meta_fields(sp, raw, em);
	else
		rawfrag_emit__bytes(em, "meta", raw->data, x.meta_len);
	if (!x.ours) {
		rawfrag_emit__u64(em, "meta_len", x.meta_len);
		rawfrag_emit__u64(em, "caplen", x.caplen);
		rawfrag_emit__u64(em, "orig_len", x.orig_len);
	}
	pkt_parse(&k, raw->data + x.meta_len, x.caplen, x.orig_len);
	rawfrag_emit__begin_object(em, "packet");
	pkt_fields(&k, em);
	rawfrag_emit__end_object(em);
	rawfrag_emit__bytes(em, "data", raw->data + x.meta_len, x.caplen);
	return 0;
}

const struct rawfrag_decoder rawfrag_decoder_bpf_skb = {
	.name = "bpf_skb",
	.description = "BPF skb/xdp packet dumps (bpf-output: meta + packet)",
	.probe = skb_probe,
	.release = skb_release,
	.length = skb_length,
	.text = skb_text,
	.fields = skb_fields,
};
