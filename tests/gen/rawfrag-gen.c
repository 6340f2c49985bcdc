// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rawfrag-gen DIR [TRACEFS]: write the core's perf.data fixtures into DIR with
 * the library's writer, plus DIR/MANIFEST and DIR/PERF_SKIP.
 * rawfrag-gen -t OUT SYS:NAME...: write rawfrag_tracing_data__build()'s blob
 * for those events (host order) to OUT, for comparison with perf's.
 * rawfrag-gen -p FILE [TRACEFS]: stale pad bytes (see write_pads()).
 *
 * MANIFEST has one line per fixture: "file expected-exit expected-error" where
 * expected-error is a substring of the error rawfrag-dump (and perf rawfrag
 * check) must print, "-" for valid files. PERF_SKIP lists "file reason" for
 * valid fixtures that perf 6.1 cannot read (so the tests do not compare them).
 * CHECK lists, in MANIFEST's format, the fixtures for which `perf rawfrag check`
 * answers differently from a plain read: a RAW area past header.size is a
 * raw-layout violation for the checker (exit 1), not unusable input.
 *
 * Valid fixtures (perf 6.1 reads them; the tests compare perf script with
 * rawfrag-dump sample by sample):
 *   tp-{le,be}.data          file mode, sched:sched_switch + sched:sched_wakeup
 *                            (IDENTIFIER, ids 101,102 / 201), sample_id_all, COMM,
 *                            tracing data from this host's tracefs in that order
 *   tp-{le,be}-pipe.data     the same stream in pipe mode (BE: perf 6.1 gap, see
 *                            Documentation/perf.data-raw-format.txt, Other byte
 *                            order; in PERF_SKIP)
 *   tp-{le,be}-z.data        file mode, zstd PERF_RECORD_COMPRESSED
 *   tp-le-pipe-z.data        pipe mode, compressed
 *   tp-le-attr{64..120}.data, tp-be-attr64.data: every attr size perf can write
 *   types-{le,be}.data       every sample_type bit: one cpu-clock evsel per
 *                            PERF_SAMPLE_* bit on top of IDENTIFIER|IP|TID|TIME|
 *                            CPU|PERIOD, plus one evsel with every bit (all
 *                            2^25 combinations are covered by the round trip in
 *                            tests/unit/test_sample.c, not by files)
 *
 * Corrupt fixtures (exit 2, error in MANIFEST), each built from a valid stream
 * with one defect; see the table in main().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rawfrag/writer.h>

#define NR_TP_SAMPLES 400
#define NR_TYPE_SAMPLES 4
#define GEN_PID 4242
#define GEN_TID 4243

static const char *dir;
static const char *tracefs = "/sys/kernel/tracing";
static FILE *manifest, *perf_skip, *check;
static uint64_t bad_offset; /* file offset of the spoilt record (uncompressed) */

struct tp {
	const char *name; /* sys:name */
	uint32_t id;
	uint32_t len; /* payload length from the format */
	char format[8192];
};

static struct tp tps[2] = { { .name = "sched:sched_switch" }, { .name = "sched:sched_wakeup" } };

static void die(const char *what, const char *why)
{
	fprintf(stderr, "rawfrag-gen: %s: %s\n", what, why);
	exit(1);
}

static void wdie(struct rawfrag_writer *w, const char *what)
{
	die(what, rawfrag_writer__error(w)->reason);
}

static char *path_of(const char *file)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, file);
	return buf;
}

static size_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r, n = 0;

	if (fd < 0)
		die(path, strerror(errno));
	while ((r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return (size_t)n;
}

static void load_tp(struct tp *t)
{
	char path[512], buf[64], sys[64];
	const char *ev = strchr(t->name, ':') + 1;
	const char *p;
	unsigned int off, size;

	snprintf(sys, sizeof(sys), "%.*s", (int)(ev - 1 - t->name), t->name);
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, ev);
	slurp(path, buf, sizeof(buf));
	t->id = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, ev);
	slurp(path, t->format, sizeof(t->format));
	for (p = t->format; (p = strstr(p, "offset:")); p++)
		if (sscanf(p, "offset:%u;\tsize:%u;", &off, &size) == 2 && off + size > t->len)
			t->len = off + size;
}

static void put_num(uint8_t *p, uint64_t v, unsigned int size, bool be)
{
	for (unsigned int i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/*
 * A payload laid out by the format: common_type, common_pid, "gen<i>" in char
 * arrays, distinct values in 4-byte ints, the rest zero; padded like the kernel
 * (raw_size % 8 == 4, zero tail). Returns raw_size.
 */
static uint32_t tp_payload(const struct tp *t, uint8_t *buf, int seq, bool be)
{
	const char *p;
	char type[128];
	unsigned int off, size, n = 0;
	uint32_t raw_size = ((t->len + 4 + 7) & ~7U) - 4;

	memset(buf, 0, raw_size);
	for (p = t->format; (p = strstr(p, "field:")); p++) {
		const char *o = strstr(p, "offset:");

		if (!o || sscanf(o, "offset:%u;\tsize:%u;", &off, &size) != 2 ||
		    off + size > t->len)
			continue;
		snprintf(type, sizeof(type), "%.*s", (int)(o - p), p);
		if (strstr(type, "common_type"))
			put_num(buf + off, t->id, size, be);
		else if (strstr(type, "common_pid"))
			put_num(buf + off, GEN_TID, size, be);
		else if (strstr(type, "char") && strchr(type, '['))
			snprintf((char *)buf + off, size, "gen%d", seq % 10);
		else if (size == 4 && !strstr(type, "common_"))
			put_num(buf + off, 100 + seq + n++, 4, be);
	}
	return raw_size;
}

static struct rawfrag_sample sid(uint64_t identifier, uint64_t time, uint32_t cpu)
{
	return (struct rawfrag_sample){ .pid = GEN_PID, .tid = GEN_TID, .time = time,
					.cpu = cpu, .identifier = identifier };
}

struct tp_opts {
	bool be, pipe, z;
	uint32_t attr_size; /* 0: sizeof(struct perf_event_attr) */
	/* corruption hooks: which sample to spoil and how */
	int bad_sample;
	void (*spoil)(uint8_t *rec, int len, bool be);
};

static uint64_t tp_ids[2][2] = { { 101, 102 }, { 201, 0 } };

static struct rawfrag_writer *tp_writer(const char *file, const struct tp_opts *o)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .big_endian = o->be, .pipe = o->pipe,
		     .compress = o->z);
	const char *names[2] = { tps[0].name, tps[1].name };
	const char *argv[] = { "rawfrag-gen", file };
	struct perf_event_attr a;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	void *blob;
	size_t len;

	w = rawfrag_writer__new(path_of(file), &wo, &err);
	if (!w)
		die(file, err.reason);
	for (int i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_TRACEPOINT;
		a.size = o->attr_size ? o->attr_size : sizeof(a);
		a.config = tps[i].id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				PERF_SAMPLE_RAW;
		a.sample_id_all = 1;
		a.disabled = 1;
		a.inherit = 1;
		if (rawfrag_writer__add_evsel(w, &a, tps[i].name, tp_ids[i], i ? 1 : 2) < 0)
			wdie(w, file);
	}
	if (rawfrag_tracing_data__build(tracefs, names, 2, o->be, &blob, &len, &err))
		die(file, err.reason);
	if (rawfrag_writer__set_tracing_data(w, blob, len) ||
	    rawfrag_writer__set_host_features(w) || rawfrag_writer__set_cmdline(w, 2, argv) ||
	    rawfrag_writer__add_pmu_mapping(w, PERF_TYPE_TRACEPOINT, "tracepoint") ||
	    rawfrag_writer__add_pmu_mapping(w, PERF_TYPE_SOFTWARE, "software"))
		wdie(w, file);
	if (o->be) {
		/* a big-endian file claims a big-endian machine */
		rawfrag_writer__set_string(w, RAWFRAG_FEAT_ARCH, "s390x");
		rawfrag_writer__set_string(w, RAWFRAG_FEAT_CPUID, "IBM,3931,A01,3CX,000001");
	}
	free(blob);
	if (rawfrag_writer__start(w))
		wdie(w, file);
	return w;
}

/* The tracepoint stream: COMM, then NR_TP_SAMPLES samples over both events. */
static void write_tp(const char *file, const struct tp_opts *o)
{
	struct rawfrag_writer *w = tp_writer(file, o);
	struct rawfrag_sample s, id = sid(101, 1000, 0);
	uint8_t raw[512], rec[1024];
	int len;

	if (rawfrag_writer__write_comm(w, GEN_PID, GEN_TID, "gen-task", false, &id))
		wdie(w, file);
	for (int i = 0; i < NR_TP_SAMPLES; i++) {
		int e = i % 3 == 2; /* two switches, one wakeup */
		struct perf_event_attr a = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							    PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
							    PERF_SAMPLE_RAW };

		memset(&s, 0, sizeof(s));
		s.identifier = e ? 201 : tp_ids[0][i & 1];
		s.ip = 0xffffffff81000000ULL + i;
		s.pid = GEN_PID;
		s.tid = GEN_TID;
		s.time = 1000000000ULL + 1000ULL * i;
		s.cpu = i & 1;
		s.period = 1;
		s.raw_size = tp_payload(&tps[e], raw, i, o->be);
		s.raw_data = raw;
		len = rawfrag_sample__synthesize(&a, &s, PERF_RECORD_MISC_KERNEL,
						 o->be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__),
						 rec, sizeof(rec));
		if (len < 0)
			die(file, strerror(-len));
		if (i == o->bad_sample && o->spoil) {
			o->spoil(rec, len, o->be);
			bad_offset = rawfrag_writer__bytes(w);
		}
		if (rawfrag_writer__write_record(w, rec, len))
			wdie(w, file);
		if (i % 64 == 63 && rawfrag_writer__finished_round(w))
			wdie(w, file);
	}
	if (rawfrag_writer__finish(w))
		wdie(w, file);
	rawfrag_writer__delete(w);
}

/*
 * A sample whose true size passed 64 KiB, so its u16 header.size wrapped (as
 * the kernel writes it): raw_size 65540, 65600 bytes
 * written, header.size 64. Returns the file offset of that record.
 */
static uint64_t write_wrapped(const char *file, bool be)
{
	struct tp_opts o = { .be = be, .bad_sample = -1 };
	struct rawfrag_writer *w = tp_writer(file, &o);
	struct perf_event_attr a = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						    PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
						    PERF_SAMPLE_RAW };
	struct rawfrag_sample s = { .identifier = 101, .pid = GEN_PID, .tid = GEN_TID,
				    .time = 1000000000ULL, .period = 1 };
	bool swap = be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	static uint8_t big[65600];
	uint8_t rec[64];
	uint64_t off;
	int len;

	/* the head of the record: fields up to raw_size */
	s.raw_size = 4;
	len = rawfrag_sample__synthesize(&a, &s, PERF_RECORD_MISC_KERNEL, swap, rec, sizeof(rec));
	if (len != 64)
		die(file, "unexpected sample size");
	memcpy(big, rec, 56);
	put_num(big + 6, 65600 & 0xffff, 2, be);
	put_num(big + 56, 65540, 4, be);
	tp_payload(&tps[0], big + 60, 0, be);
	off = rawfrag_writer__bytes(w);
	/* write_record copies bytes as given; two calls keep each under 64 KiB */
	if (rawfrag_writer__write_record(w, big, 32800) ||
	    rawfrag_writer__write_record(w, big + 32800, 65600 - 32800) ||
	    rawfrag_writer__finish(w))
		wdie(w, file);
	rawfrag_writer__delete(w);
	return off;
}

/* ---- every sample_type bit ---- */

#define TYPE_BASE                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |      \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const uint64_t type_bits[] = {
	PERF_SAMPLE_ADDR,	    PERF_SAMPLE_ID,	       PERF_SAMPLE_STREAM_ID,
	PERF_SAMPLE_READ,	    PERF_SAMPLE_CALLCHAIN,     PERF_SAMPLE_RAW,
	PERF_SAMPLE_BRANCH_STACK,   PERF_SAMPLE_REGS_USER,     PERF_SAMPLE_STACK_USER,
	PERF_SAMPLE_WEIGHT,	    PERF_SAMPLE_DATA_SRC,      PERF_SAMPLE_TRANSACTION,
	PERF_SAMPLE_REGS_INTR,	    PERF_SAMPLE_PHYS_ADDR,     PERF_SAMPLE_CGROUP,
	PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_WEIGHT_STRUCT,
	PERF_SAMPLE_AUX,
};
#define NR_TYPES (sizeof(type_bits) / sizeof(type_bits[0]) + 1)

static uint64_t type_of(size_t i)
{
	if (i < NR_TYPES - 1)
		return TYPE_BASE | type_bits[i];
	/* WEIGHT and WEIGHT_STRUCT share their slot: keep one */
	return (TYPE_BASE | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
		PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX);
}

static void type_attr(struct perf_event_attr *a, size_t i)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 100000;
	a->sample_type = type_of(i);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			 PERF_FORMAT_ID;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a->sample_regs_user = 0xff; /* x86: ax bx cx dx si di bp sp */
	a->sample_regs_intr = 0x3;
	a->sample_stack_user = 64;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->exclude_kernel = 1;
}

static uint64_t tgt(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

/* arrays in target order, values the tests can recognise */
static void type_sample(struct rawfrag_sample *s, uint64_t *arr, uint8_t *bytes, size_t i,
			int k, bool swap)
{
	uint64_t *p = arr;

	memset(s, 0, sizeof(*s));
	s->identifier = 1000 + i;
	s->id = 1000 + i;
	s->ip = 0x400000 + 0x10 * i + k;
	s->pid = GEN_PID;
	s->tid = GEN_TID;
	s->time = 2000000000ULL + 1000ULL * (i * NR_TYPE_SAMPLES + k);
	s->cpu = k & 1;
	s->period = 100000;
	s->addr = 0x7f0000001000ULL + k;
	s->stream_id = 1000 + i;
	s->read.data = p;
	s->read.nr = 1;
	/* perf derives the period from READ value deltas: make them equal it */
	*p++ = tgt(100000ULL * (k + 1), swap);
	*p++ = tgt(s->read.time_enabled = 5000, swap);
	*p++ = tgt(s->read.time_running = 4000, swap);
	*p++ = tgt(1000 + i, swap);
	s->read.size = 32;
	s->callchain_nr = 3;
	s->callchain = p;
	*p++ = tgt(PERF_CONTEXT_USER, swap);
	*p++ = tgt(s->ip, swap);
	*p++ = tgt(0x400100, swap);
	s->raw_size = 12;
	s->raw_data = bytes;
	memcpy(bytes, "hello, raw!\0", 12);
	s->branch_nr = 1;
	s->branch_has_hw_idx = true;
	s->branch_hw_idx = 0;
	s->branch_entries = p;
	*p++ = tgt(0x400010, swap);
	*p++ = tgt(0x400020, swap);
	*p++ = 0;
	s->user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s->user_regs = p;
	for (int r = 0; r < 8; r++)
		*p++ = tgt(0x1000 + r, swap);
	s->intr_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s->intr_regs = p;
	*p++ = tgt(0x2000, swap);
	*p++ = tgt(0x2001, swap);
	s->stack_size = 64;
	s->stack_dyn_size = 32;
	s->stack_data = bytes + 16;
	s->weight = 77;
	s->data_src = 0x68100142ULL;
	s->transaction = 0;
	s->phys_addr = 0x12345000ULL;
	s->cgroup = 1;
	s->data_page_size = 4096;
	s->code_page_size = 4096;
	s->aux_size = 16;
	s->aux_data = bytes + 96;
}

static void write_types(const char *file, bool be, void (*spoil)(uint8_t *, int, bool))
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .big_endian = be);
	bool swap = be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	struct rawfrag_sample s, id = sid(1000, 1000, 0);
	struct perf_event_attr a;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	uint64_t arr[64], ids[1];
	uint8_t bytes[256] = { 0 }, rec[2048];
	char name[64];
	int len;

	w = rawfrag_writer__new(path_of(file), &wo, &err);
	if (!w)
		die(file, err.reason);
	for (size_t i = 0; i < NR_TYPES; i++) {
		type_attr(&a, i);
		ids[0] = 1000 + i;
		snprintf(name, sizeof(name), "cpu-clock-%zu", i);
		if (rawfrag_writer__add_evsel(w, &a, name, ids, 1) < 0)
			wdie(w, file);
	}
	if (rawfrag_writer__set_host_features(w) || rawfrag_writer__start(w))
		wdie(w, file);
	if (rawfrag_writer__write_comm(w, GEN_PID, GEN_TID, "gen-types", false, &id))
		wdie(w, file);
	for (size_t i = 0; i < NR_TYPES; i++)
		for (int k = 0; k < NR_TYPE_SAMPLES; k++) {
			type_attr(&a, i);
			type_sample(&s, arr, bytes, i, k, swap);
			len = rawfrag_sample__synthesize(&a, &s, PERF_RECORD_MISC_USER, swap, rec,
							 sizeof(rec));
			if (len < 0)
				die(file, strerror(-len));
			if (spoil && i == NR_TYPES - 1 && k == 1)
				spoil(rec, len, be);
			if (rawfrag_writer__write_record(w, rec, len))
				wdie(w, file);
		}
	if (rawfrag_writer__finish(w))
		wdie(w, file);
	rawfrag_writer__delete(w);
}

/* ---- corruptions ---- */

static void set32(uint8_t *p, uint32_t v, bool be)
{
	put_num(p, v, 4, be);
}

/* tp sample layout: header 8, identifier, ip, tid, time, cpu, period, raw_size @56 */
static void spoil_raw_size(uint8_t *rec, int len, bool be)
{
	set32(rec + 56, 1000, be);
}

static void spoil_identifier(uint8_t *rec, int len, bool be)
{
	put_num(rec + 8, 999, 8, be);
}

/* types "all" sample: callchain nr is the word after READ (4 u64) */
static void spoil_callchain(uint8_t *rec, int len, bool be)
{
	/* header, identifier, ip, tid, time, addr, id, stream_id, cpu, period = 80 */
	put_num(rec + 80 + 32, 1ULL << 40, 8, be);
}

/*
 * The "all bits" types sample (456 bytes): READ @80, CALLCHAIN @112, RAW @144,
 * BRANCH_STACK @160, REGS_USER @200, STACK_USER @272 (dyn_size @344),
 * ..., AUX @432.
 */
static void spoil_stack_dyn(uint8_t *rec, int len, bool be)
{
	put_num(rec + 344, 1000, 8, be);
}

static void spoil_branch_nr(uint8_t *rec, int len, bool be)
{
	put_num(rec + 160, 1 << 20, 8, be);
}

static void spoil_aux_size(uint8_t *rec, int len, bool be)
{
	put_num(rec + 432, 4096, 8, be);
}

static void spoil_header_size(uint8_t *rec, int len, bool be)
{
	put_num(rec + 6, 4, 2, be); /* smaller than a record header */
}

static void patch_file(const char *file, off_t off, const void *p, size_t n)
{
	int fd = open(path_of(file), O_WRONLY);

	if (fd < 0 || pwrite(fd, p, n, off) != (ssize_t)n)
		die(file, strerror(errno));
	close(fd);
}

static void cut_file(const char *file, off_t len)
{
	if (truncate(path_of(file), len))
		die(file, strerror(errno));
}

static off_t file_size(const char *file)
{
	struct stat st;

	if (stat(path_of(file), &st))
		die(file, strerror(errno));
	return st.st_size;
}

static void entry(const char *file, int exit_code, const char *error)
{
	fprintf(manifest, "%s %d %s\n", file, exit_code, error ? error : "-");
}

static int tracing_blob(const char *out, const char *const *events, int nr)
{
	struct rawfrag_err err;
	void *blob;
	size_t len;
	FILE *f;

	if (rawfrag_tracing_data__build(NULL, events, nr,
					__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &blob, &len, &err))
		die("tracing data", err.reason);
	f = fopen(out, "w");
	if (!f || fwrite(blob, 1, len, f) != len || fclose(f))
		die(out, strerror(errno));
	free(blob);
	return 0;
}

/*
 * Stale pad bytes for `check` on a file: sched:sched_process_exec as the kernel
 * writes it (perf_trace_buf_alloc(): the entry is the struct trace_event_raw_*
 * padded to its largest field's natural alignment, then the __data_loc string;
 * raw_size rounded so that raw_size % 8 == 4, the alignment bytes after the
 * string being the pad). A filename of n bytes with its NUL leaves a pad of
 * (-n) mod 8: n = 7..1 give pads 1..7. For each pad length, one sample per pad
 * byte with only that byte stale (0x5a), then one with the pad all zero.
 * Prints what a checker must find, one line per sample:
 *   stale OFFSET PAD POS raw+STALE_BYTE_OFFSET | clean OFFSET PAD
 */
struct exec_layout {
	uint32_t entry, dloc, pid, old_pid;
};

static void exec_layout(const struct tp *t, struct exec_layout *l)
{
	unsigned int off, size, end = 0, align = 1;
	char type[128];
	const char *p;

	memset(l, 0, sizeof(*l));
	for (p = t->format; (p = strstr(p, "field:")); p++) {
		const char *o = strstr(p, "offset:");
		unsigned int a;

		if (!o || sscanf(o, "offset:%u;\tsize:%u;", &off, &size) != 2)
			continue;
		snprintf(type, sizeof(type), "%.*s", (int)(o - p), p);
		a = strstr(type, "__data_loc") ? 4 : strchr(type, '[') ? 1 : size;
		if (a <= 8 && a > align)
			align = a;
		if (off + size > end)
			end = off + size;
		if (strstr(type, "__data_loc"))
			l->dloc = off;
		else if (strstr(type, " pid;"))
			l->pid = off;
		else if (strstr(type, " old_pid;"))
			l->old_pid = off;
	}
	l->entry = (end + align - 1) & ~(align - 1);
	if (!l->dloc || !l->pid || !l->old_pid)
		die(t->name, "format without filename, pid, old_pid");
}

static int write_pads(const char *file)
{
	struct tp t = { .name = "sched:sched_process_exec" };
	RAWFRAG_OPTS(rawfrag_writer_opts, wo);
	struct exec_layout l;
	struct perf_event_attr a;
	struct rawfrag_sample s;
	struct rawfrag_err err;
	struct rawfrag_writer *w;
	uint8_t raw[256], rec[512];
	uint64_t at;
	void *blob;
	size_t len;
	int k = 0, reclen;

	load_tp(&t);
	exec_layout(&t, &l);
	w = rawfrag_writer__new(file, &wo, &err);
	if (!w)
		die(file, err.reason);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = t.id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	if (rawfrag_writer__add_evsel(w, &a, t.name, (uint64_t[]){ 1000 }, 1) < 0)
		wdie(w, file);
	if (rawfrag_tracing_data__build(tracefs, &t.name, 1, false, &blob, &len, &err))
		die(file, err.reason);
	if (rawfrag_writer__set_tracing_data(w, blob, len) || rawfrag_writer__start(w))
		wdie(w, file);
	free(blob);
	for (uint32_t pad = 1; pad <= 7; pad++) {
		uint32_t n = 8 - pad, end = l.entry + n;

		for (uint32_t pos = 0; pos <= pad; pos++) {
			memset(raw, 0, sizeof(raw));
			put_num(raw, t.id, 2, false);
			put_num(raw + 4, GEN_TID, 4, false);
			put_num(raw + l.dloc, n << 16 | l.entry, 4, false);
			put_num(raw + l.pid, GEN_PID, 4, false);
			put_num(raw + l.old_pid, GEN_PID, 4, false);
			for (uint32_t i = 0; i + 1 < n; i++)
				raw[l.entry + i] = 'a' + i;
			if (pos < pad)
				raw[end + pos] = 0x5a; /* pos == pad: the pad left zero */
			memset(&s, 0, sizeof(s));
			s.identifier = 1000;
			s.pid = GEN_PID;
			s.tid = GEN_TID;
			s.time = 1000000000ULL + 1000ULL * k++;
			s.raw_size = ((end + 4 + 7) & ~7U) - 4;
			s.raw_data = raw;
			reclen = rawfrag_sample__synthesize(&a, &s, PERF_RECORD_MISC_KERNEL, false,
							    rec, sizeof(rec));
			if (reclen < 0)
				die(file, strerror(-reclen));
			at = rawfrag_writer__bytes(w);
			if (rawfrag_writer__write_record(w, rec, reclen))
				wdie(w, file);
			if (pos < pad)
				printf("stale 0x%llx %u %u raw+0x%x\n", (unsigned long long)at, pad, pos,
				       end + pos);
			else
				printf("clean 0x%llx %u\n", (unsigned long long)at, pad);
		}
	}
	if (rawfrag_writer__finish(w))
		wdie(w, file);
	rawfrag_writer__delete(w);
	return 0;
}

int main(int argc, char **argv)
{
	struct tp_opts o = { .bad_sample = -1 };
	char msg[256];
	uint64_t v;

	if (argc >= 3 && !strcmp(argv[1], "-t"))
		return tracing_blob(argv[2], (const char *const *)argv + 3, argc - 3);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "-p")) {
		if (argc == 4)
			tracefs = argv[3];
		return write_pads(argv[2]);
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rawfrag-gen DIR [TRACEFS]\n");
		return 2;
	}
	dir = argv[1];
	if (argc == 3)
		tracefs = argv[2];
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir, strerror(errno));
	manifest = fopen(path_of("MANIFEST"), "w");
	perf_skip = fopen(path_of("PERF_SKIP"), "w");
	check = fopen(path_of("CHECK"), "w");
	if (!manifest || !perf_skip || !check)
		die(dir, strerror(errno));
	load_tp(&tps[0]);
	load_tp(&tps[1]);

	/* valid */
	for (int be = 0; be < 2; be++)
		for (int pipe = 0; pipe < 2; pipe++)
			for (int z = 0; z < 2; z++) {
				char name[64];

				if (be && pipe && z)
					continue;
				snprintf(name, sizeof(name), "tp-%s%s%s.data", be ? "be" : "le",
					 pipe ? "-pipe" : "", z ? "-z" : "");
				o.be = be;
				o.pipe = pipe;
				o.z = z;
				write_tp(name, &o);
				entry(name, 0, NULL);
				if (be && pipe)
					fprintf(perf_skip, "%s perf 6.1 does not swap evsels from "
							   "HEADER_ATTR (cross-endian pipe)\n",
						name);
			}
	/* every attr size from VER0 to VER6 (VER7 = 128 is the default above) */
	for (uint32_t sz = 64; sz <= 120; sz += 8) {
		char name[64];

		if (sz == 88)
			continue; /* no VER: 96 added 16 bytes at once */
		snprintf(name, sizeof(name), "tp-le-attr%u.data", sz);
		o = (struct tp_opts){ .bad_sample = -1, .attr_size = sz };
		write_tp(name, &o);
		entry(name, 0, NULL);
	}
	o = (struct tp_opts){ .bad_sample = -1, .attr_size = 64, .be = true };
	write_tp("tp-be-attr64.data", &o);
	entry("tp-be-attr64.data", 0, NULL);

	write_types("types-le.data", false, NULL);
	entry("types-le.data", 0, NULL);
	write_types("types-be.data", true, NULL);
	entry("types-be.data", 0, NULL);

	/* corrupt: sample level (our parser's messages) */
	o = (struct tp_opts){ .bad_sample = 7, .spoil = spoil_raw_size };
	write_tp("bad-raw-size.data", &o);
	/* sample 7 is a sched_switch: record size 60 + its raw_size */
	snprintf(msg, sizeof(msg),
		 "offset 0x%llx: SAMPLE: RAW: raw_size 1000 exceeds record (size %u, at offset 60)",
		 (unsigned long long)bad_offset, 60 + (((tps[0].len + 4 + 7) & ~7U) - 4));
	entry("bad-raw-size.data", 2, msg);
	fprintf(check, "bad-raw-size.data 1 offset 0x%llx: SAMPLE: sched:sched_switch: raw_outside\n",
		(unsigned long long)bad_offset);
	o.be = true;
	write_tp("bad-raw-size-be.data", &o);
	snprintf(msg, sizeof(msg),
		 "offset 0x%llx: SAMPLE: RAW: raw_size 1000 exceeds record (size %u, at offset 60)",
		 (unsigned long long)bad_offset, 60 + (((tps[0].len + 4 + 7) & ~7U) - 4));
	entry("bad-raw-size-be.data", 2, msg);
	fprintf(check, "bad-raw-size-be.data 1 offset 0x%llx: SAMPLE: sched:sched_switch: raw_outside\n",
		(unsigned long long)bad_offset);
	o = (struct tp_opts){ .bad_sample = 5, .spoil = spoil_raw_size, .z = true };
	write_tp("bad-raw-size-z.data", &o);
	entry("bad-raw-size-z.data", 2, "SAMPLE: RAW: raw_size 1000 exceeds record");
	fprintf(check, "bad-raw-size-z.data 1 SAMPLE: sched:sched_wakeup: raw_outside\n");
	o = (struct tp_opts){ .bad_sample = 3, .spoil = spoil_identifier };
	write_tp("bad-id.data", &o);
	snprintf(msg, sizeof(msg), "offset 0x%llx: SAMPLE: sample id matches no event",
		 (unsigned long long)bad_offset);
	entry("bad-id.data", 2, msg);
	write_types("bad-callchain.data", false, spoil_callchain);
	entry("bad-callchain.data", 2, "SAMPLE: CALLCHAIN: nr 1099511627776 exceeds record");

	write_types("bad-stack-dyn.data", false, spoil_stack_dyn);
	entry("bad-stack-dyn.data", 2, "SAMPLE: STACK_USER: dyn_size 1000 exceeds size 64 (at offset 344)");
	write_types("bad-branch-nr.data", true, spoil_branch_nr);
	entry("bad-branch-nr.data", 2,
	      "SAMPLE: BRANCH_STACK: nr 1048576 exceeds record (size 456, at offset 176)");
	write_types("bad-aux-size.data", false, spoil_aux_size);
	entry("bad-aux-size.data", 2, "SAMPLE: AUX: size 4096 exceeds record (size 456, at offset 440)");

	v = write_wrapped("bad-wrapped.data", false);
	snprintf(msg, sizeof(msg),
		 "offset 0x%llx: SAMPLE: RAW: raw_size 65540 exceeds record (size 64, at offset 60)",
		 (unsigned long long)v);
	entry("bad-wrapped.data", 2, msg);
	/* the checker goes on after the RAW violation: the next "record" is payload */
	fprintf(check, "bad-wrapped.data 2 offset 0x%llx: UNKNOWN(%d)\n",
		(unsigned long long)v + 64, GEN_TID);

	/* corrupt: framing (the reader's messages) */
	o = (struct tp_opts){ .bad_sample = 9, .spoil = spoil_header_size };
	write_tp("bad-header-size.data", &o);
	snprintf(msg, sizeof(msg), "offset 0x%llx: SAMPLE: record size 4 < 8",
		 (unsigned long long)bad_offset);
	entry("bad-header-size.data", 2, msg);
	write_tp("bad-magic.data", &(struct tp_opts){ .bad_sample = -1 });
	patch_file("bad-magic.data", 0, "PERFILE3", 8);
	entry("bad-magic.data", 2, "offset 0x0: HEADER: not a perf.data file (bad magic)");
	write_tp("trunc-data.data", &(struct tp_opts){ .bad_sample = -1 });
	cut_file("trunc-data.data", file_size("trunc-data.data") / 2 + 3);
	entry("trunc-data.data", 2, "DATA: recording was interrupted at offset");
	write_tp("trunc-header.data", &(struct tp_opts){ .bad_sample = -1 });
	cut_file("trunc-header.data", 60);
	entry("trunc-header.data", 2, "HEADER: file too short for a perf.data header (60 bytes)");
	write_tp("attr-size-zero.data", &(struct tp_opts){ .bad_sample = -1 });
	v = 0;
	patch_file("attr-size-zero.data", 16, &v, 8);
	entry("attr-size-zero.data", 2, "offset 0x10: HEADER: attr size field is 0");
	/* garbage in the first COMPRESSED record's zstd bytes (data offset @40, LE) */
	write_tp("bad-zstd.data", &(struct tp_opts){ .bad_sample = -1, .z = true });
	{
		uint8_t junk[16], off[8];
		int fd = open(path_of("bad-zstd.data"), O_RDONLY);

		if (fd < 0 || pread(fd, off, 8, 40) != 8)
			die("bad-zstd.data", strerror(errno));
		close(fd);
		memset(junk, 0xa5, sizeof(junk));
		v = 0;
		for (int i = 7; i >= 0; i--)
			v = v << 8 | off[i];
		patch_file("bad-zstd.data", (off_t)v + 8, junk, sizeof(junk));
		snprintf(msg, sizeof(msg), "offset 0x%llx: COMPRESSED: zstd", (unsigned long long)v);
		entry("bad-zstd.data", 2, msg);
	}
	write_tp("trunc-pipe.data", &(struct tp_opts){ .bad_sample = -1, .pipe = true });
	cut_file("trunc-pipe.data", file_size("trunc-pipe.data") - 13);
	entry("trunc-pipe.data", 2, "SAMPLE: truncated record: ");

	fclose(manifest);
	fclose(perf_skip);
	fclose(check);
	return 0;
}
