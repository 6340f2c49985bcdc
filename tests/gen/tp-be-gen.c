// SPDX-License-Identifier: GPL-2.0
/*
 * tp-be-gen: a tracepoint perf.data in big-endian (s390/ppc) byte order, built
 * with the writer and rawfrag_tracing_data__build(), with payloads whose values
 * this program chooses, laid out by the running kernel's formats (read from
 * tracefs with libtraceevent, independently of the decoder under test).
 *
 *   tp-be-gen [-l] [-p] [-c] [-n NR] OUT.data EXPECT.jsonl
 *   tp-be-gen DIR      (fuzz seeds: tp-{be,be-pipe,le,be-bad}.data and .jsonl)
 *     -l   little-endian instead (a control)
 *     -p   pipe mode
 *     -n   number of samples (default 200)
 *     -N   give the evsels no names (they come from the tracing data)
 *     -c   corrupt some payloads: every 10th from the 4th a wrong common_type,
 *          from the 7th a raw area shorter than the fixed fields, from the 10th a
 *          __data_loc pointing past the raw area; their EXPECT lines are
 *          {"event", "cpu", "time", "corrupt": "<check kind>"}
 *
 * EXPECT.jsonl holds, per sample, the values perf's Python scripting should hand
 * to tests/scripts/tp_fields.py (same shape), so the same comparator checks both
 * perf and perf-rawfrag against the values chosen here.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <rawfrag/writer.h>

#define TRACEFS "/sys/kernel/tracing"
#define MAX_RAW 512
#define T0 5000000000ULL

static const char *const events[] = {
	"sched:sched_switch",	   "sched:sched_wakeup",    "sched:sched_process_exec",
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "irq:irq_handler_entry",
	"irq:softirq_entry",
};
#define NR_EVENTS ((int)(sizeof(events) / sizeof(events[0])))

static bool be, no_names;

static void put_num(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (be ? 8 * (n - 1 - i) : 8 * i));
}

static bool has_dynamic(const struct tep_event *ev, const struct tep_format_field **df)
{
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			*df = f;
			return true;
		}
	return false;
}

/* Spoil sample i's payload as -c says; returns the check kind, or NULL. */
static const char *corrupt(const struct tep_event *ev, int i, uint8_t *raw, uint32_t *raw_size,
			   uint32_t fixed)
{
	const struct tep_format_field *df;

	switch (i % 10) {
	case 3:
		put_num(raw, ev->id + 1, 2);
		return "tp_common_type";
	case 6:
		if (fixed <= 12)
			return NULL;
		*raw_size = 12;
		return "tp_short";
	case 9:
		if (!has_dynamic(ev, &df))
			return NULL;
		put_num(raw + df->offset, (4u << 16) | *raw_size, 4);
		return "tp_dynamic_outside";
	}
	return NULL;
}

static struct tep_event *load_format(struct tep_handle *tep, const char *spec)
{
	char sys[64], path[256], *buf = malloc(65536);
	struct tep_event *ev = NULL;
	const char *colon = strchr(spec, ':');
	ssize_t n = 0, r;
	int fd;

	if (!buf || !colon)
		goto out;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/format", sys, colon + 1);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		goto out;
	}
	while ((r = read(fd, buf + n, 65535 - n)) > 0)
		n += r;
	close(fd);
	if (tep_parse_format(tep, &ev, buf, n, sys))
		ev = NULL;
out:
	free(buf);
	return ev;
}

static bool is_char_string(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_STRING) && strstr(f->type, "char") &&
	       !strstr(f->type, "unsigned");
}

static void json_hex(FILE *o, const uint8_t *p, size_t n)
{
	fputc('"', o);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%02x", p[i]);
	fputc('"', o);
}

/* a value that fits the field, exercising sign and all 64 bits */
static uint64_t pick(int i, int j, int size, bool sign)
{
	uint64_t v = 0x0123456789abcdefULL * (uint64_t)(i * 13 + j + 1);

	if (size < 8)
		v &= (1ULL << (8 * size)) - 1;
	if (sign && (i + j) % 3 == 0)
		v |= 1ULL << (8 * size - 1); /* negative */
	return v;
}

static int64_t sext(uint64_t v, int size)
{
	if (size >= 8)
		return (int64_t)v;
	if (v & (1ULL << (8 * size - 1)))
		v |= ~0ULL << (8 * size);
	return (int64_t)v;
}

/* Payload of sample i of ev into raw; the fields as perf's Python would see them to o. */
static uint32_t build(struct tep_event *ev, int i, uint32_t pid, uint8_t *raw, FILE *o,
		      uint32_t *fixed)
{
	struct tep_format_field *f;
	uint32_t end = 0;
	int j = 0;

	memset(raw, 0, MAX_RAW);
	for (f = ev->format.common_fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	*fixed = end;
	put_num(raw, ev->id, 2);
	put_num(raw + 2, (i * 7) & 0xff, 1);
	put_num(raw + 3, i & 0x1f, 1);
	put_num(raw + 4, pid, 4);
	fprintf(o, "\"fields\": {");
	for (f = ev->format.fields; f; f = f->next, j++) {
		uint8_t *p = raw + f->offset;

		fprintf(o, "%s\"%s\": ", j ? ", " : "", f->name);
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t off = end, len;

			if (is_char_string(f)) {
				char s[48];

				len = snprintf(s, sizeof(s), "/gen/%s/%d", f->name, i) + 1;
				memcpy(raw + off, s, len);
				fprintf(o, "\"%s\"", s);
			} else {
				uint32_t es = f->elementsize ? f->elementsize : 1;

				len = es * (1 + i % 3);
				for (uint32_t k = 0; k < len; k += es)
					put_num(raw + off + k, pick(i, j + k, es, false), es);
				fprintf(o, "{\"bytes\": ");
				json_hex(o, raw + off, len);
				fputc('}', o);
			}
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= f->offset + f->size;
			put_num(p, ((uint64_t)len << 16) | off, 4);
			end += len;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			if (is_char_string(f)) {
				char s[64];

				snprintf(s, sizeof(s), "g%d-%s", i, f->name);
				s[f->size - 1 < 63 ? f->size - 1 : 63] = '\0';
				memcpy(p, s, strlen(s));
				fprintf(o, "\"%s\"", s);
			} else {
				uint32_t es = f->arraylen ? f->size / f->arraylen : 1;

				for (int k = 0; k + es <= (uint32_t)f->size; k += es)
					put_num(p + k, pick(i, j + k, es, false), es);
				fprintf(o, "{\"bytes\": ");
				json_hex(o, p, f->size);
				fputc('}', o);
			}
		} else {
			bool sign = f->flags & TEP_FIELD_IS_SIGNED;
			uint64_t v = pick(i, j, f->size, sign);

			put_num(p, v, f->size);
			if (sign)
				fprintf(o, "%lld", (long long)sext(v, f->size));
			else
				fprintf(o, "%llu", (unsigned long long)v);
		}
	}
	fprintf(o, "}");
	return end;
}

static int usage(void)
{
	fprintf(stderr, "usage: tp-be-gen [-l] [-p] [-c] [-N] [-n NR] OUT.data EXPECT.jsonl\n");
	return 2;
}

static int generate(const char *out_path, const char *expect_path, bool pipe, bool spoil, int nr)
{
	struct tep_event *evs[NR_EVENTS];
	struct rawfrag_err err = { 0 };
	struct rawfrag_writer *w = NULL;
	struct tep_handle *tep = tep_alloc();
	int ret = 1;
	void *blob = NULL;
	size_t blob_len, lsize;
	char *lbuf = NULL;
	FILE *o = NULL;

	if (!tep)
		return 1;
	for (int e = 0; e < NR_EVENTS; e++) {
		evs[e] = load_format(tep, events[e]);
		if (!evs[e]) {
			fprintf(stderr, "tp-be-gen: no format for %s\n", events[e]);
			tep_free(tep);
			return 77;
		}
	}
	if (rawfrag_tracing_data__build(NULL, events, NR_EVENTS, be, &blob, &blob_len, &err)) {
		fprintf(stderr, "tp-be-gen: %s\n", err.reason);
		goto out;
	}
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .big_endian = be, .pipe = pipe);
	w = rawfrag_writer__new(out_path, &wo, &err);
	o = fopen(expect_path, "w");
	if (!w || !o) {
		fprintf(stderr, "tp-be-gen: %s\n", w ? strerror(errno) : err.reason);
		goto out;
	}
	for (int e = 0; e < NR_EVENTS; e++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_TRACEPOINT,
			.size = sizeof(a),
			.config = (uint64_t)evs[e]->id,
			.sample_period = 1,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				       PERF_SAMPLE_RAW,
			.sample_id_all = 1,
		};
		uint64_t id = 100 + e;

		if (rawfrag_writer__add_evsel(w, &a, no_names ? NULL : events[e], &id, 1) < 0)
			goto werr;
	}
	if (rawfrag_writer__set_host_features(w) || rawfrag_writer__set_tracing_data(w, blob, blob_len) ||
	    rawfrag_writer__start(w))
		goto werr;
	for (uint32_t pid = 1000; pid < 1005; pid++) {
		struct rawfrag_sample id = { .pid = pid, .tid = pid, .time = T0 - 1, .id = 100 };
		char comm[16];

		snprintf(comm, sizeof(comm), "gen%u", pid);
		if (rawfrag_writer__write_comm(w, pid, pid, comm, false, &id))
			goto werr;
	}
	for (int i = 0; i < nr; i++) {
		int e = i % NR_EVENTS;
		uint8_t raw[MAX_RAW];
		uint32_t pid = 1000 + i % 5, len;
		struct rawfrag_sample s = {
			.ip = 0xffffffff81000000ULL + i,
			.pid = pid,
			.tid = pid,
			.time = T0 + (uint64_t)i * 1000,
			.id = 100 + e,
			.cpu = i % 2,
			.period = 1,
			.raw_data = raw,
		};

		FILE *line = open_memstream(&lbuf, &lsize);
		const char *kind;
		uint32_t fixed;

		if (!line)
			goto out;
		fprintf(line, "{\"event\": \"%s\", \"cpu\": %u, \"time\": %llu, ", events[e], s.cpu,
			(unsigned long long)s.time);
		fprintf(line, "\"pid\": %u, \"tid\": %u, \"comm\": \"gen%u\", \"common_flags\": %d, "
			      "\"common_preempt_count\": %d, ",
			pid, pid, pid, (i * 7) & 0xff, i & 0x1f);
		len = build(evs[e], i, pid, raw, line, &fixed);
		/* the kernel's entry size: raw_size % 8 == 4, tail zeroed */
		s.raw_size = ((len + 4 + 7) & ~7u) - 4;
		fprintf(line, ", \"raw\": ");
		json_hex(line, raw, s.raw_size);
		fprintf(line, "}\n");
		fclose(line);
		kind = spoil ? corrupt(evs[e], i, raw, &s.raw_size, fixed) : NULL;
		if (kind)
			fprintf(o, "{\"event\": \"%s\", \"cpu\": %u, \"time\": %llu, \"corrupt\": \"%s\"}\n",
				events[e], s.cpu, (unsigned long long)s.time, kind);
		else
			fputs(lbuf, o);
		free(lbuf);
		lbuf = NULL;
		if (rawfrag_writer__write_sample(w, e, &s, PERF_RECORD_MISC_KERNEL))
			goto werr;
	}
	if (rawfrag_writer__finish(w))
		goto werr;
	ret = 0;
	goto out;
werr:
	fprintf(stderr, "tp-be-gen: %s\n", rawfrag_writer__error(w)->reason);
out:
	if (o)
		fclose(o);
	rawfrag_writer__delete(w);
	free(blob);
	tep_free(tep);
	return ret;
}

/* tp-be-gen DIR (the fuzz seed script's call): a few small variants */
static int generate_dir(const char *dir)
{
	static const struct {
		const char *name;
		bool be, pipe, spoil;
	} v[] = {
		{ "be", true, false, false },
		{ "be-pipe", true, true, false },
		{ "le", false, false, false },
		{ "be-bad", true, false, true },
	};
	char out[4096], expect[4096];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int ret;

		be = v[i].be;
		snprintf(out, sizeof(out), "%s/tp-%s.data", dir, v[i].name);
		snprintf(expect, sizeof(expect), "%s/tp-%s.jsonl", dir, v[i].name);
		ret = generate(out, expect, v[i].pipe, v[i].spoil, 60);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool pipe = false, spoil = false;
	struct stat st;
	int nr = 200, c;

	be = true;
	while ((c = getopt(argc, argv, "lpcNn:")) != -1) {
		if (c == 'l')
			be = false;
		else if (c == 'p')
			pipe = true;
		else if (c == 'c')
			spoil = true;
		else if (c == 'N')
			no_names = true;
		else if (c == 'n')
			nr = atoi(optarg);
		else
			return usage();
	}
	if (argc - optind == 1 && !stat(argv[optind], &st) && S_ISDIR(st.st_mode))
		return generate_dir(argv[optind]);
	if (argc - optind != 2 || nr <= 0)
		return usage();
	return generate(argv[optind], argv[optind + 1], pipe, spoil, nr);
}
