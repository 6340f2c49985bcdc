// SPDX-License-Identifier: GPL-2.0
/*
 * pkt-lens: a perf.data of our skb dump event ("skbdump:1=lo") with one packet
 * of every captured length MIN..MAX, for tests/shell/t57-skb-pcapng-lens.sh.
 *   pkt-lens [-v] FILE MIN MAX
 * Packet N has N bytes (byte k = (N * 7 + k * 13) & 0xff) and an original
 * length of N, or N + 100 for every third N (a cut capture); with -v an
 * offloaded VLAN tag (TCI 0x0N05) on the packets of 12 bytes or more, which
 * the pcapng export puts back after the MAC addresses. Stale pad bytes 0xee
 * after the packet. Prints what the export must hold, one line per packet:
 *   "ORIG_LEN CAPLEN HEX" (the VLAN tag in place).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/skbdump.h>
#include <rawfrag/writer.h>

static uint8_t *sample(uint32_t n, bool vlan_opt, uint32_t *raw_size)
{
	struct rawfrag_skb_meta m = {
		.magic = RAWFRAG_SKB_MAGIC,
		.version = RAWFRAG_SKB_VERSION,
		.meta_len = sizeof(m),
		.hook = RAWFRAG_SKB_HOOK_SOCKET,
		.dir = RAWFRAG_SKB_DIR_IN,
		.ifindex = 1,
		.orig_len = n % 3 ? n : n + 100,
		.caplen = n,
		.snaplen = 256,
		.protocol = 0x0800,
	};
	uint32_t sz = ((4 + (uint32_t)sizeof(m) + n + 7) & ~7u) - 4;
	uint8_t *r = malloc(sz), *p = r + sizeof(m);
	bool vlan = vlan_opt && n >= 12;
	uint32_t orig = m.orig_len;

	if (!r)
		return NULL;
	if (vlan) {
		m.flags = RAWFRAG_SKB_F_VLAN;
		m.vlan_tci = (uint16_t)(n << 8 | 5);
	}
	memset(r, 0xee, sz);
	memcpy(r, &m, sizeof(m));
	for (uint32_t k = 0; k < n; k++)
		p[k] = (uint8_t)(n * 7 + k * 13);
	printf("%u %u ", vlan ? orig + 4 : orig, vlan ? n + 4 : n);
	for (uint32_t k = 0; k < n; k++) {
		if (vlan && k == 12)
			printf("8100%04x", m.vlan_tci);
		printf("%02x", p[k]);
	}
	if (vlan && n == 12) /* the tag ends the frame */
		printf("8100%04x", m.vlan_tci);
	printf("\n");
	*raw_size = sz;
	return r;
}

int main(int argc, char **argv)
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
	bool vlan = argc > 1 && !strcmp(argv[1], "-v");
	uint64_t id = 7;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	char buf[512];
	int lo, hi;

	argv += vlan;
	argc -= vlan;
	if (argc != 4 || (lo = atoi(argv[2])) < 1 || (hi = atoi(argv[3])) < lo || hi > 200) {
		fprintf(stderr, "usage: pkt-lens [-v] FILE MIN MAX (1 <= MIN <= MAX <= 200)\n");
		return 2;
	}
	w = rawfrag_writer__new(argv[1], NULL, &err);
	if (!w || rawfrag_writer__add_evsel(w, &a, "skbdump:1=lo", &id, 1) < 0 ||
	    rawfrag_writer__set_host_features(w) || rawfrag_writer__start(w))
		goto fail;
	for (int n = lo; n <= hi; n++) {
		struct rawfrag_sample s = { 0 };
		uint8_t *raw = sample((uint32_t)n, vlan, &s.raw_size);

		if (!raw)
			goto fail;
		s.identifier = s.id = id;
		s.pid = s.tid = 4242;
		s.time = 1000000 + (uint64_t)n * 1000;
		s.raw_data = raw;
		if (rawfrag_writer__write_sample(w, 0, &s, PERF_RECORD_MISC_KERNEL)) {
			free(raw);
			goto fail;
		}
		free(raw);
	}
	if (rawfrag_writer__finish(w))
		goto fail;
	rawfrag_writer__delete(w);
	return 0;
fail:
	if (w)
		fprintf(stderr, "%s\n", rawfrag_err__format(rawfrag_writer__error(w), argv[1], buf,
							    sizeof(buf)));
	else
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, argv[1], buf, sizeof(buf)));
	rawfrag_writer__delete(w);
	return 2;
}
