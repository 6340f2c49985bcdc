// SPDX-License-Identifier: GPL-2.0
/*
 * pkt-foreign: a perf.data as another tool's skb dump program would leave it:
 * one bpf-output event ("bpf-output", no rawfrag meta) whose samples are a
 * 16-byte meta of its own { u32 kind; u32 pid; u64 cookie } then an
 * Ethernet/IPv4/UDP frame, then stale pad (0xee). For tests/shell/t54.
 *   pkt-foreign FILE SIZE...      (UDP payload sizes)
 * Prints one line per sample: "kind K pid P cookie C udp N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/writer.h>

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
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

/* meta + frame with a UDP payload of n bytes ('a'..'z'), padded for raw_size */
static uint8_t *sample(int i, uint32_t n, uint32_t *raw_size)
{
	uint32_t flen = 14 + 20 + 8 + n, sz = ((4 + 16 + flen + 7) & ~7u) - 4;
	uint8_t *r = malloc(sz), *f = r + 16, *ip = f + 14, *udp = ip + 20;
	uint32_t kind = 1, pid = 4242 + i;
	uint64_t cookie = 0x1000 + i;

	if (!r)
		return NULL;
	memset(r, 0xee, sz);
	memcpy(r, &kind, 4);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &cookie, 8);
	memset(f, 0, 14);
	f[5] = 2;
	f[11] = 1;
	be16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	be16(ip + 2, 20 + 8 + n);
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = ip[16] = 10;
	ip[15] = 1;
	ip[19] = 2;
	be16(ip + 10, csum(ip, 20));
	be16(udp, 5000);
	be16(udp + 2, 6000 + i);
	be16(udp + 4, 8 + n);
	be16(udp + 6, 0);
	for (uint32_t k = 0; k < n; k++)
		udp[8 + k] = 'a' + k % 26;
	*raw_size = sz;
	printf("kind %u pid %u cookie %llu udp %u\n", kind, pid, (unsigned long long)cookie, n);
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
	uint64_t id = 7;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	char buf[512];

	if (argc < 3) {
		fprintf(stderr, "usage: pkt-foreign FILE SIZE...\n");
		return 2;
	}
	w = rawfrag_writer__new(argv[1], NULL, &err);
	if (!w || rawfrag_writer__add_evsel(w, &a, "bpf-output", &id, 1) < 0 ||
	    rawfrag_writer__set_host_features(w) || rawfrag_writer__start(w))
		goto fail;
	for (int i = 2; i < argc; i++) {
		struct rawfrag_sample s = { 0 };
		uint8_t *raw = sample(i - 2, atoi(argv[i]), &s.raw_size);

		if (!raw)
			goto fail;
		s.identifier = s.id = id;
		s.pid = s.tid = 4242;
		s.time = 1000000 + i;
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
