// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "pcapng" sink: the skb/xdp dumps of a perf.data as a pcapng file
 * (draft-ietf-opsawg-pcapng): one Section Header Block, one Interface
 * Description Block per (ifindex, hook) the first time it appears (link type
 * ETHERNET, snaplen from the meta, if_name = interface, if_description =
 * interface, hook and ifindex, if_tsresol = 9: nanoseconds), one Enhanced Packet
 * Block per dump with the packet bytes only (never the raw pad), the original
 * length from the meta, epb_flags (direction from the hook, reception type from
 * pkt_type) and a comment "cpu N pid P tid T comm C". A VLAN tag the meta says
 * was offloaded is put back into the frame (and, as libpcap does, the frame cut
 * to the snaplen again). Packets are written in time order: the session
 * delivers samples ordered as perf's ordered events do (the file holds each
 * CPU's ring in turn).
 *
 * Timestamps: sample time - clockid_ns + tod_ns from HEADER_CLOCK_DATA (a file
 * section, or a HEADER_FEATURE record in a pipe: taken at the first packet).
 * Without it, this host's present offset between CLOCK_REALTIME and
 * CLOCK_MONOTONIC is used (right only on the boot that recorded the file) and a
 * warning says so, once there is a packet.
 *
 * A sample that does not parse stops the export as it stops every sink (the
 * report decides, for all of them); so does a "skbdump:" event's sample
 * without an intact meta, with the error report --format json gives; with
 * force it is counted and reported. bpf-output events of other tools (no
 * rawfrag meta) are left out and counted, and so are samples of other events.
 *
 * Ownership: struct pcap owns the output stream (a file it opened, or a
 * duplicate of the descriptor it was given), the interface table and the
 * pid → comm table built from COMM records.
 *
 * The block writers (write_shb/write_idb/write_epb) come first; the sink's
 * callbacks that feed them are at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rawfrag/skbdump.h>

#include "internal/opts.h"
#include "internal/report.h"

#define PCAPNG_SHB 0x0A0D0D0A
#define PCAPNG_IDB 1
#define PCAPNG_EPB 6
#define PCAPNG_BOM 0x1A2B3C4D
#define LINKTYPE_ETHERNET 1
#define MAX_IFS 256
/* epb_flags: bits 0-1 direction, bits 2-4 reception type */
#define EPB_IN 1
#define EPB_OUT 2
#define EPB_UNICAST (1 << 2)
#define EPB_MULTICAST (2 << 2)
#define EPB_BROADCAST (3 << 2)
#define EPB_PROMISC (4 << 2)

struct pcap_if {
	uint32_t ifindex, snaplen;
	uint8_t hook;
	const struct rawfrag_evsel *evsel; /* names the interface */
};

struct pcap_comm {
	uint32_t pid;
	uint64_t time;
	char comm[16];
};

struct pcap {
	struct rawfrag_tool tool; /* the first pass's: names by pid */
	char *path; /* NULL or "-": fd */
	int fd;
	rawfrag_print_fn_t print;
	void *print_ctx;
	char *prefix;
	FILE *f;
	int nr_if;
	struct pcap_if ifs[MAX_IFS];
	struct pcap_comm *comm; /* sorted by pid, time (file mode) */
	size_t nr_comm, cap_comm;
	bool comms_done;
	bool clock_set;
	int64_t clock_off; /* wall = time + clock_off */
	uint64_t packets, foreign, bad;
	bool force;
	struct rawfrag_err *err; /* the report's */
};


static void put(struct pcap *pc, const void *p, size_t n)
{
	static const uint8_t zero[4];

	fwrite(p, 1, n, pc->f);
	if (n & 3)
		fwrite(zero, 1, 4 - (n & 3), pc->f);
}

static void put32(struct pcap *pc, uint32_t v)
{
	fwrite(&v, 4, 1, pc->f);
}

static size_t opt_size(size_t len)
{
	return 4 + ((len + 3) & ~(size_t)3);
}

static void put_opt(struct pcap *pc, uint16_t code, const void *p, size_t len)
{
	uint16_t h[2] = { code, (uint16_t)len };

	fwrite(h, 2, 2, pc->f);
	put(pc, p, len);
}

static void write_shb(struct pcap *pc)
{
	static const char app[] = "perf-rawfrag report";
	uint32_t len = 28 + opt_size(strlen(app)) + 4;
	uint16_t ver[2] = { 1, 0 };
	int64_t section = -1;

	put32(pc, PCAPNG_SHB);
	put32(pc, len);
	put32(pc, PCAPNG_BOM);
	fwrite(ver, 2, 2, pc->f);
	fwrite(&section, 8, 1, pc->f);
	put_opt(pc, 4 /* shb_userappl */, app, strlen(app));
	put32(pc, 0);
	put32(pc, len);
}

static void write_idb(struct pcap *pc, const struct pcap_if *pi)
{
	char name[64], desc[96];
	uint8_t tsresol = 9;
	uint16_t lt[2] = { LINKTYPE_ETHERNET, 0 };
	uint32_t len;

	rawfrag_skb_event__ifname(pi->evsel ? rawfrag_evsel__name(pi->evsel) : NULL, pi->ifindex,
				  name, sizeof(name));
	snprintf(desc, sizeof(desc), "%s %s (ifindex %u)", name, rawfrag_skb_hook__name(pi->hook),
		 pi->ifindex);
	len = 20 + opt_size(strlen(name)) + opt_size(strlen(desc)) + opt_size(1) + 4;
	put32(pc, PCAPNG_IDB);
	put32(pc, len);
	fwrite(lt, 2, 2, pc->f);
	put32(pc, pi->snaplen);
	put_opt(pc, 2 /* if_name */, name, strlen(name));
	put_opt(pc, 3 /* if_description */, desc, strlen(desc));
	put_opt(pc, 9 /* if_tsresol */, &tsresol, 1);
	put32(pc, 0);
	put32(pc, len);
}

static int if_id(struct pcap *pc, const struct rawfrag_evsel *evsel,
		 const struct rawfrag_skb_meta *m)
{
	for (int i = 0; i < pc->nr_if; i++)
		if (pc->ifs[i].ifindex == m->ifindex && pc->ifs[i].hook == m->hook)
			return i;
	if (pc->nr_if == MAX_IFS)
		return -1;
	pc->ifs[pc->nr_if] = (struct pcap_if){ m->ifindex, m->snaplen, m->hook, evsel };
	write_idb(pc, &pc->ifs[pc->nr_if]);
	return pc->nr_if++;
}


/* by (pid, time): the name a pid had at a sample's time (COMM exec included) */
static int comm_cmp(const void *a, const void *b)
{
	const struct pcap_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static const char *comm_of(struct pcap *pc, struct rawfrag_session *sess, uint32_t pid,
			   uint64_t time)
{
	const struct pcap_comm *best = NULL;
	size_t lo = 0, hi = pc->nr_comm;
	const char *s;

	/* first entry of pid, then walk to the last one not after time */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc->comm[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pc->nr_comm && pc->comm[lo].pid == pid; lo++)
		if (!best || pc->comm[lo].time <= time)
			best = &pc->comm[lo];
	if (best)
		return best->comm;
	s = rawfrag_session__saved_comm(sess, pid);
	return s ? s : pid ? ":unknown" : "swapper";
}

static void note_comm(struct pcap *pc, const struct rawfrag_event *ev, bool swap)
{
	const struct rawfrag_record *rec = ev->rec;
	const uint8_t *p = rec->data;
	struct pcap_comm *c;

	if (rec->size < 8 + 8 + 1)
		return;
	if (pc->nr_comm == pc->cap_comm) {
		size_t n = pc->cap_comm ? 2 * pc->cap_comm : 256;
		struct pcap_comm *nc = realloc(pc->comm, n * sizeof(*nc));

		if (!nc)
			return;
		pc->comm = nc;
		pc->cap_comm = n;
	}
	c = &pc->comm[pc->nr_comm++];
	c->pid = rawfrag__get32(p + 8, swap);
	c->time = ev->sample ? ev->sample->time : 0;
	snprintf(c->comm, sizeof(c->comm), "%.*s", (int)(rec->size - 16), (const char *)p + 16);
}

/* one Enhanced Packet Block to write */
struct epb {
	int ifid;
	uint64_t ts; /* ns since the epoch */
	const uint8_t *pkt;
	uint32_t caplen, orig, snaplen, flags;
	int vlan; /* offloaded 802.1Q TCI, or -1 */
	const char *comment;
};

/*
 * An offloaded VLAN tag is put back after the MAC addresses, as libpcap does for
 * packet sockets, so the frame is the one on the wire; like libpcap, the frame
 * is then cut to the snaplen again.
 */
static void write_epb(struct pcap *pc, const struct epb *e)
{
	size_t clen = strlen(e->comment);
	uint32_t len, data = e->caplen, orig = e->orig, tail = e->caplen;
	uint8_t tag[4] = { 0x81, 0x00, (uint8_t)(e->vlan >> 8), (uint8_t)e->vlan };
	bool vlan = e->vlan >= 0 && e->caplen >= 12;

	if (vlan) {
		data += 4;
		orig += 4;
		if (e->snaplen >= 16 && data > e->snaplen) {
			data = e->snaplen;
			tail = data - 4;
		}
	}
	len = 32 + ((data + 3) & ~3u) + opt_size(4) + opt_size(clen) + 4;

	put32(pc, PCAPNG_EPB);
	put32(pc, len);
	put32(pc, e->ifid);
	put32(pc, e->ts >> 32);
	put32(pc, (uint32_t)e->ts);
	put32(pc, data);
	put32(pc, orig);
	if (vlan) {
		fwrite(e->pkt, 1, 12, pc->f);
		fwrite(tag, 1, 4, pc->f);
		put(pc, e->pkt + 12, tail - 12);
	} else {
		put(pc, e->pkt, e->caplen);
	}
	put_opt(pc, 2 /* epb_flags */, &e->flags, 4);
	put_opt(pc, 1 /* opt_comment */, e->comment, clen);
	put32(pc, 0);
	put32(pc, len);
}

/* epb_flags: direction from the hook's meta, reception type from skb->pkt_type */
static uint32_t epb_flags(const struct rawfrag_skb_meta *m)
{
	static const uint32_t rx[] = { EPB_UNICAST, EPB_BROADCAST, EPB_MULTICAST, EPB_PROMISC };
	uint32_t fl = m->dir == RAWFRAG_SKB_DIR_IN ? EPB_IN : m->dir == RAWFRAG_SKB_DIR_OUT ? EPB_OUT : 0;

	/* xdp runs before the stack has classified the packet: pkt_type says nothing */
	if (m->dir == RAWFRAG_SKB_DIR_IN && m->hook < RAWFRAG_SKB_HOOK_XDP && m->pkt_type < 4)
		fl |= rx[m->pkt_type];
	return fl;
}

static int64_t clock_offset(struct pcap *pc, const struct rawfrag_env *env)
{
	struct timespec rt, mono;

	if (env && env->has_clock_data)
		return (int64_t)env->clock_tod_ns - (int64_t)env->clock_clockid_ns;
	rf_sink_note(pc->print, pc->print_ctx, pc->prefix, RAWFRAG_WARN,
		     "warning: no HEADER_CLOCK_DATA in the file; pcapng times use this host's current CLOCK_REALTIME - CLOCK_MONOTONIC offset");
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000LL + rt.tv_nsec - mono.tv_nsec;
}

/* a dump that cannot be exported: the error json gives for it; false stops the export */
static bool bad_dump(struct pcap *pc, const struct rawfrag_record *rec, int err,
		     const char *why)
{
	pc->bad++;
	if (pc->force)
		return true;
	pc->err->err = err;
	pc->err->offset = (int64_t)rec->offset;
	pc->err->rec_type = rec->type;
	snprintf(pc->err->reason, sizeof(pc->err->reason), "%s", why);
	return false;
}

/* one sample of a bpf_skb evsel; false: stop (pc->err says why) */
static bool do_sample(struct pcap *pc, struct rawfrag_session *sess,
		      const struct rawfrag_evsel *evsel, const struct rawfrag_record *rec,
		      const struct rawfrag_sample *smp, const struct rawfrag_raw *raw)
{
	const char *name = rawfrag_evsel__name(evsel), *why = NULL;
	struct rawfrag_skb_dump d;
	char comment[128];
	struct epb e;
	int err;

	err = rawfrag_skb_dump__split(&d, raw->data, raw->size, &why);
	if (err == -ENOMSG && (!name || strncmp(name, RAWFRAG_SKB_EVENT_PREFIX,
						 strlen(RAWFRAG_SKB_EVENT_PREFIX)))) {
		pc->foreign++; /* another tool's bpf-output: no meta to split by */
		return true;
	}
	if (err) {
		char msg[128];

		snprintf(msg, sizeof(msg), "skb dump: %s", why);
		return bad_dump(pc, rec, -EINVAL, msg);
	}
	e.ifid = if_id(pc, evsel, &d.meta);
	if (e.ifid < 0)
		return bad_dump(pc, rec, -E2BIG, "more than 256 (interface, hook) pairs");
	if (!pc->clock_set) {
		/* now: in a pipe, CLOCK_DATA comes as a HEADER_FEATURE record */
		pc->clock_off = clock_offset(pc, rawfrag_file__env(rawfrag_session__file(sess)));
		pc->clock_set = true;
	}
	snprintf(comment, sizeof(comment), "cpu %u pid %u tid %u comm %s%s%s", smp->cpu, smp->pid,
		 smp->tid, comm_of(pc, sess, smp->pid, smp->time),
		 d.meta.flags & RAWFRAG_SKB_F_XDP_ACTION ? " xdp_action " : "",
		 d.meta.flags & RAWFRAG_SKB_F_XDP_ACTION ?
			 rawfrag_skb_xdp_action__name(d.meta.xdp_action) : "");
	e.ts = smp->time + pc->clock_off;
	e.pkt = d.data;
	e.caplen = d.meta.caplen;
	e.orig = d.meta.orig_len < e.caplen ? e.caplen : d.meta.orig_len;
	e.snaplen = d.meta.snaplen;
	e.flags = epb_flags(&d.meta);
	e.vlan = d.meta.flags & RAWFRAG_SKB_F_VLAN ? d.meta.vlan_tci : -1;
	e.comment = comment;
	write_epb(pc, &e);
	pc->packets++;
	return true;
}

static bool is_skb(struct rawfrag_session *sess, const struct rawfrag_evsel *evsel)
{
	const char *name = rawfrag_decoder__name(rawfrag_session__decoder(sess, evsel));

	return name && !strcmp(name, "bpf_skb");
}

/* ---- the sink ---- */

/*
 * The names by pid and time: a pid's COMM may come after its packets (ring
 * order), so in file mode a first pass collects them all.
 */
static int pcap_comm(struct rawfrag_tool *tool, struct rawfrag_session *sess,
		     const struct rawfrag_event *ev)
{
	struct pcap *pc = (struct pcap *)tool;

	note_comm(pc, ev, rawfrag_file__needs_swap(rawfrag_session__file(sess)));
	return 0;
}

static int collect_comms(struct pcap *pc, struct rawfrag_session *sess)
{
	struct rawfrag_tool t = { .sz = sizeof(t), .comm = pcap_comm, .no_parse = true };
	struct rawfrag_err err;
	int ret;

	if (rawfrag_file__mode(rawfrag_session__file(sess)) != RAWFRAG_MODE_FILE)
		return 0;
	pc->tool = t;
	/* a bad record is reported by the real pass, at its place */
	rawfrag_session__process(sess, &pc->tool, &err);
	ret = rawfrag_session__rewind(sess);
	if (pc->nr_comm)
		qsort(pc->comm, pc->nr_comm, sizeof(*pc->comm), comm_cmp);
	pc->comms_done = true;
	return ret;
}

/* the second pass, or a pipe: names as they come, kept sorted (few) */
static int pcap_task(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct pcap *pc = priv;
	struct rawfrag_session *sess = rawfrag_report__session(rep);

	if (pc->comms_done || ev->rec->type != PERF_RECORD_COMM)
		return 0;
	note_comm(pc, ev, rawfrag_file__needs_swap(rawfrag_session__file(sess)));
	if (pc->nr_comm)
		qsort(pc->comm, pc->nr_comm, sizeof(*pc->comm), comm_cmp);
	return 0;
}

static int pcap_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct pcap *pc = priv;
	struct rawfrag_session *sess = rawfrag_report__session(rep);
	struct rawfrag_raw raw;

	if (!is_skb(sess, ev->evsel))
		return 0;
	if (rawfrag_session__raw(sess, ev->rec, ev->sample, &raw) &&
	    !do_sample(pc, sess, ev->evsel, ev->rec, ev->sample, &raw))
		return pc->err->err;
	return 0;
}

static FILE *open_out(struct pcap *pc, struct rawfrag_err *err)
{
	char msg[300];
	FILE *f;

	if (!pc->path || !strcmp(pc->path, "-")) {
		int fd = pc->path || pc->fd <= 0 ? 1 : pc->fd;

		if (fd == 1)
			return stdout;
		fd = dup(fd);
		f = fd < 0 ? NULL : fdopen(fd, "wb");
		if (!f && fd >= 0)
			close(fd);
	} else {
		f = fopen(pc->path, "wb");
	}
	if (!f) {
		int e = errno;

		snprintf(msg, sizeof(msg), "%s: %s", pc->path ? pc->path : "-", strerror(e));
		rf_err_set(err, -e, msg);
	}
	return f;
}

static int pcap_begin(void *priv, struct rawfrag_report *rep)
{
	struct pcap *pc = priv;
	struct rawfrag_err *err = rawfrag_report__err(rep);
	int ret;

	pc->err = err;
	pc->force = rep->force;
	pc->f = open_out(pc, err);
	if (!pc->f)
		return err->err;
	ret = collect_comms(pc, rawfrag_report__session(rep));
	if (ret) {
		rf_err_set(err, ret, "pcapng: cannot read the input twice");
		return ret;
	}
	write_shb(pc);
	return 0;
}

static int pcap_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct pcap *pc = priv;
	char msg[300];

	if (!pc->f)
		return 0;
	if (fflush(pc->f) || ferror(pc->f)) {
		snprintf(msg, sizeof(msg), "%s: write error", pc->path ? pc->path : "-");
		rf_err_set(pc->err, -EIO, msg);
		return -EIO;
	}
	if (pc->bad && pc->force)
		rf_sink_note(pc->print, pc->print_ctx, pc->prefix, RAWFRAG_WARN,
			     "pcapng: skipped %llu bad samples (--force)",
			     (unsigned long long)pc->bad);
	if (pc->foreign)
		rf_sink_note(pc->print, pc->print_ctx, pc->prefix, RAWFRAG_WARN,
			     "pcapng: %llu samples of other bpf-output events left out (no rawfrag skb meta)",
			     (unsigned long long)pc->foreign);
	return 0;
}

static int pcap_error(void *priv)
{
	struct pcap *pc = priv;

	return pc->f && ferror(pc->f) ? -EIO : 0;
}

static void pcap_free(void *priv)
{
	struct pcap *pc = priv;

	if (pc->f && pc->f != stdout)
		fclose(pc->f);
	free(pc->comm);
	free(pc->path);
	free(pc->prefix);
	free(pc);
}

int rf_sink_pcapng_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { NULL };
	struct pcap *pc;

	if (rf_sink_opts_known("pcapng", opts->kv, keys, err))
		return -EINVAL;
	pc = calloc(1, sizeof(*pc));
	if (!pc || (opts->path && !(pc->path = strdup(opts->path))) ||
	    !(pc->prefix = strdup(opts->prefix))) {
		if (pc)
			pcap_free(pc);
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	pc->fd = opts->fd;
	pc->print = opts->print;
	pc->print_ctx = opts->print_ctx;
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "pcapng",
		.flags = RAWFRAG_SINK_NO_MACHINE,
		.begin = pcap_begin,
		.sample = pcap_sample,
		.task = pcap_task,
		.end = pcap_end,
		.error = pcap_error,
		.free = pcap_free,
	};
	*priv = pc;
	return 0;
}
