// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The skb dump layout (<rawfrag/skbdump.h>) in one place: the meta read field
 * by field at its offsetof(), hook names, and the interface names kept in the
 * event name. The decoder (decoders/bpf_skb.c), the pcapng export and the
 * recorder all go through here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rawfrag/file.h>
#include <rawfrag/skbdump.h>

static const char *const hook_names[] = {
	[RAWFRAG_SKB_HOOK_NONE] = "none",
	[RAWFRAG_SKB_HOOK_SOCKET] = "socket",
	[RAWFRAG_SKB_HOOK_TC_INGRESS] = "tc-ingress",
	[RAWFRAG_SKB_HOOK_TC_EGRESS] = "tc-egress",
	[RAWFRAG_SKB_HOOK_XDP] = "xdp",
	[RAWFRAG_SKB_HOOK_XDP_ENTRY] = "xdp-entry",
	[RAWFRAG_SKB_HOOK_XDP_EXIT] = "xdp-exit",
};

/* enum xdp_action of <linux/bpf.h> */
static const char *const xdp_actions[] = {
	"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
};

#define NR_HOOKS (sizeof(hook_names) / sizeof(hook_names[0]))

/* a field of struct rawfrag_skb_meta from the payload p, by its own offset and size */
#define META_GET(m, p, field, swap)                                                   \
	do {                                                                          \
		const uint8_t *q_ = (p) + offsetof(struct rawfrag_skb_meta, field);   \
		switch (sizeof((m)->field)) {                                         \
		case 1: (m)->field = *q_; break;                                      \
		case 2: (m)->field = rawfrag__get16(q_, swap); break;                 \
		default: (m)->field = rawfrag__get32(q_, swap); break;                \
		}                                                                     \
	} while (0)

_Static_assert(sizeof(struct rawfrag_skb_meta) == RAWFRAG_SKB_META_V1_LEN,
	       "struct rawfrag_skb_meta version 1 is 40 bytes");

static void read_meta(struct rawfrag_skb_meta *m, const uint8_t *p, bool swap)
{
	META_GET(m, p, magic, swap);
	META_GET(m, p, version, swap);
	META_GET(m, p, meta_len, swap);
	META_GET(m, p, hook, swap);
	META_GET(m, p, dir, swap);
	META_GET(m, p, pkt_type, swap);
	META_GET(m, p, flags, swap);
	META_GET(m, p, ifindex, swap);
	META_GET(m, p, orig_len, swap);
	META_GET(m, p, caplen, swap);
	META_GET(m, p, snaplen, swap);
	META_GET(m, p, protocol, swap);
	META_GET(m, p, vlan_tci, swap);
	META_GET(m, p, mark, swap);
	META_GET(m, p, hash, swap);
}

int rawfrag_skb_dump__split(struct rawfrag_skb_dump *d, const void *raw, size_t size,
			    const char **why)
{
	const uint8_t *p = raw;
	const char *w = NULL;
	bool swap = false;

	memset(d, 0, sizeof(*d));
	if (!p || size < RAWFRAG_SKB_META_V1_LEN) {
		w = "shorter than the rawfrag skb meta";
	} else if (rawfrag__get32(p, false) == RAWFRAG_SKB_MAGIC) {
		swap = false;
	} else if (rawfrag__get32(p, true) == RAWFRAG_SKB_MAGIC) {
		swap = true;
	} else {
		w = "no rawfrag skb meta (magic)";
	}
	if (w) {
		if (why)
			*why = w;
		return -ENOMSG;
	}
	read_meta(&d->meta, p, swap);
	d->swapped = swap;
	if (d->meta.meta_len < RAWFRAG_SKB_META_V1_LEN || d->meta.meta_len > size)
		w = "meta_len out of range";
	else if (d->meta.caplen > size - d->meta.meta_len)
		w = "caplen reaches past the raw data";
	if (w) {
		if (why)
			*why = w;
		return -EINVAL;
	}
	d->data = p + d->meta.meta_len;
	return 0;
}

const char *rawfrag_skb_hook__name(unsigned int hook)
{
	return hook < NR_HOOKS ? hook_names[hook] : "unknown";
}

const char *rawfrag_skb_xdp_action__name(unsigned int action)
{
	return action < sizeof(xdp_actions) / sizeof(xdp_actions[0]) ? xdp_actions[action] : "XDP_?";
}

int rawfrag_skb_hook__parse(const char *name)
{
	for (unsigned int i = RAWFRAG_SKB_HOOK_SOCKET; name && i < NR_HOOKS; i++)
		if (!strcmp(hook_names[i], name))
			return i;
	return -EINVAL;
}

int rawfrag_skb_event__format(char *buf, size_t len, const char *const *names,
			      const uint32_t *ifindex, int n)
{
	size_t o;

	if (len)
		buf[0] = 0;
	o = snprintf(buf, len, "%s", RAWFRAG_SKB_EVENT_PREFIX);
	for (int i = 0; i < n; i++) {
		if (strpbrk(names[i], ",="))
			return -EINVAL;
		o += snprintf(o < len ? buf + o : NULL, o < len ? len - o : 0, "%s%u=%s",
			      i ? "," : "", ifindex[i], names[i]);
	}
	return o > (size_t)INT32_MAX ? -EINVAL : (int)o;
}

int rawfrag_skb_event__ifname(const char *evname, uint32_t ifindex, char *buf, size_t len)
{
	const size_t pl = strlen(RAWFRAG_SKB_EVENT_PREFIX);
	const char *p;

	snprintf(buf, len, "if%u", ifindex);
	if (!evname || strncmp(evname, RAWFRAG_SKB_EVENT_PREFIX, pl))
		return -EINVAL;
	for (p = evname + pl; *p;) {
		unsigned long idx = 0;
		const char *q = p;
		size_t n;

		while (*q >= '0' && *q <= '9' && idx <= UINT32_MAX)
			idx = idx * 10 + (*q++ - '0');
		n = strcspn(q, ",");
		if (q != p && *q == '=' && idx == ifindex) {
			snprintf(buf, len, "%.*s", (int)(n - 1), q + 1);
			return 0;
		}
		p = q + n;
		if (*p == ',')
			p++;
	}
	return -ENOENT;
}
