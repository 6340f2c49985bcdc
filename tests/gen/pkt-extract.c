// SPDX-License-Identifier: GPL-2.0
/*
 * pkt-extract: the skb/xdp dumps of a perf.data, one line each, for
 * tests/shell/t5*.sh and scripts/bench-skb.sh:
 *   HOOK DIR IFINDEX ORIG_LEN CAPLEN RAW_SIZE CPU PID HEX VLAN
 * where HEX is the captured packet (never the pad) and VLAN the offloaded
 * VLAN TCI (not in HEX) or "-". At the end, on stderr:
 *   "summary dumps N bad N lost N"
 * (bad: samples of the skbdump evsel whose meta does not split: wrong magic,
 * meta + caplen past raw_size, raw_size != round_up(4 + meta + caplen, 8) - 4).
 * Only the library's reader and sample parser are used, not the decoder.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/file.h>
#include <rawfrag/sample.h>
#include <rawfrag/skbdump.h>
#include <rawfrag/tool.h>

static int one(const struct rawfrag_sample *s, bool swap, bool quiet)
{
	const uint8_t *p = s->raw_data;
	uint32_t ml, cap, orig;

	if (!p || s->raw_size < 40 || rawfrag__get32(p, swap) != RAWFRAG_SKB_MAGIC)
		return -1;
	ml = rawfrag__get16(p + 6, swap);
	orig = rawfrag__get32(p + 16, swap);
	cap = rawfrag__get32(p + 20, swap);
	if (ml < 40 || (uint64_t)ml + cap > s->raw_size ||
	    s->raw_size != ((4 + (uint64_t)ml + cap + 7) & ~7ULL) - 4)
		return -1;
	if (quiet)
		return 0;
	printf("%u %u %u %u %u %u %u %u ", p[8], p[9], rawfrag__get32(p + 12, swap), orig, cap,
	       s->raw_size, s->cpu, s->pid);
	for (uint32_t i = 0; i < cap; i++)
		printf("%02x", p[ml + i]);
	if (p[11] & RAWFRAG_SKB_F_VLAN)
		printf(" %u\n", rawfrag__get16(p + 30, swap));
	else
		printf(" -\n");
	return 0;
}

struct extract {
	struct rawfrag_tool tool; /* first: the handlers get &x->tool */
	bool quiet, swap;
	uint64_t dumps, bad;
};

static bool is_dump(const struct rawfrag_evsel *ev)
{
	return ev && !strncmp(rawfrag_evsel__name(ev), "skbdump:", 8);
}

static int on_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
		     const struct rawfrag_event *ev)
{
	struct extract *x = (struct extract *)tool;

	if (!is_dump(ev->evsel))
		return 0;
	if (one(ev->sample, x->swap, x->quiet))
		x->bad++;
	else
		x->dumps++;
	return 0;
}

/* a dump that does not parse is counted; other samples are not ours */
static int on_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
			 const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	struct extract *x = (struct extract *)tool;

	x->bad += is_dump(ev->evsel);
	return 0;
}

int main(int argc, char **argv)
{
	struct extract x = { .tool = { .sz = sizeof(x.tool), .sample = on_sample,
				       .sample_error = on_bad_sample },
			     .quiet = argc > 2 && !strcmp(argv[2], "-q") };
	struct rawfrag_session *sess;
	struct rawfrag_err err;
	struct rawfrag_file *f;
	char buf[512];

	if (argc < 2) {
		fprintf(stderr, "usage: pkt-extract FILE [-q]\n");
		return 2;
	}
	f = rawfrag_file__open(argv[1], NULL, &err);
	if (!f) {
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, argv[1], buf, sizeof(buf)));
		return 2;
	}
	x.swap = rawfrag_file__needs_swap(f);
	sess = rawfrag_session__new(f, NULL, &err);
	if (!sess || rawfrag_session__process(sess, &x.tool, &err) < 0) {
		fprintf(stderr, "%s\n", rawfrag_err__format(&err, argv[1], buf, sizeof(buf)));
		rawfrag_session__delete(sess);
		rawfrag_file__close(f);
		return 2;
	}
	fprintf(stderr, "summary dumps %" PRIu64 " bad %" PRIu64 " lost %" PRIu64 "\n", x.dumps,
		x.bad, rawfrag_file__stats(f)->nr_lost + rawfrag_file__stats(f)->nr_lost_samples);
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
	return 0;
}
