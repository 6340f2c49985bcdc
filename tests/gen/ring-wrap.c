// SPDX-License-Identifier: GPL-2.0
/*
 * ring-wrap: show that libperf 6.1's perf_mmap__read_event() truncates records
 * larger than 4168 bytes that wrap around the ring end, and that our reader
 * (tools/perf-rawfrag/record/ring.c, compiled in below) returns them intact.
 *
 * Two identical task-clock evsels on this thread sample 8 KiB of user stack
 * (records of ~8.2 KiB) into 4-page (16 KiB) rings, so about every other record
 * wraps. The stack holds a buffer filled with 0xa5 (sample_loop), so an intact
 * record has dyn_size == 8192 and the pattern in its second half. Evsel A goes through
 * perf_evlist__mmap + perf_mmap__read_event, evsel B through perf_evsel__mmap
 * and ring__read over perf_evsel__mmap_base.
 *
 * Output: "libperf records=N damaged=M" and "rawfrag records=N damaged=M
 * wrapped=W". Exit 0 when our reader saw wrapped records and none damaged;
 * 1 otherwise; 77 when the events cannot be opened here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "../../tools/perf-rawfrag/record/ring.c"

#define STACK 8192
#define PAGES 4
#define PATTERN 0xa5

struct stats {
	unsigned long records, damaged, wrapped, lost;
};

/* IP, TID, TIME, then STACK_USER: u64 size, data[size], u64 dyn_size */
static bool intact(const void *rec, size_t len)
{
	const unsigned char *p = (const unsigned char *)rec + 8 + 24;
	uint64_t size, dyn;
	size_t hits = 0;

	if (len < 8 + 24 + 8 + STACK + 8)
		return false;
	memcpy(&size, p, 8);
	memcpy(&dyn, p + 8 + STACK, 8);
	if (size != STACK || dyn != STACK)
		return false;
	for (size_t i = STACK / 2; i < STACK; i++)
		hits += p[8 + i] == PATTERN;
	return hits > STACK / 4;
}

static void account(struct stats *st, const struct perf_event_header *h, size_t len)
{
	if (h->type == PERF_RECORD_LOST) {
		st->lost++;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	st->records++;
	if (!intact(h, len))
		st->damaged++;
}

static int on_rec(void *ctx, struct rf_ring *r, const void *rec, size_t len)
{
	struct stats *st = ctx;

	if (rec == r->copy)
		st->wrapped++;
	account(st, rec, len);
	return 0;
}

static void read_libperf(struct perf_evlist *el, struct stats *st)
{
	struct perf_mmap *map;
	union perf_event *ev;

	perf_evlist__for_each_mmap(el, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			account(st, &ev->header, ev->header.size);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		;
}

/*
 * Every sample must see the pattern, wherever it hits: the sampling loop runs
 * below a pattern-filled buffer three times the sampled stack size, and the
 * frames under it (spin, the two readers) are small.
 */
static __attribute__((noinline)) void sample_loop(int rounds, struct perf_evlist *el,
						  struct rf_ring *ring, struct stats *lp,
						  struct stats *rf, struct perf_evsel *b)
{
	volatile unsigned char buf[3 * STACK];

	memset((void *)buf, PATTERN, sizeof(buf));
	perf_evlist__enable(el);
	perf_evsel__enable(b);
	for (int i = 0; i < rounds; i++) {
		spin(0.0005);
		read_libperf(el, lp);
		ring__read(ring, on_rec, rf);
	}
	perf_evlist__disable(el);
	perf_evsel__disable(b);
	read_libperf(el, lp);
	ring__read(ring, on_rec, rf);
	buf[0]++;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = 200000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_STACK_USER,
		.sample_stack_user = STACK, .disabled = 1, .exclude_hv = 1,
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	struct stats lp = { 0 }, rf = { 0 };
	struct perf_thread_map *threads;
	struct perf_cpu_map *cpus;
	struct perf_evsel *a, *b;
	struct perf_evlist *el;
	struct rf_ring ring = { 0 };
	pid_t self = getpid();
	long psz;

	libperf_init(NULL);
	psz = sysconf(_SC_PAGESIZE);
	threads = perf_thread_map__new_array(1, &self);
	cpus = perf_cpu_map__dummy_new();
	el = perf_evlist__new();
	a = perf_evsel__new(&attr);
	b = perf_evsel__new(&attr);
	if (!threads || !cpus || !el || !a || !b)
		return 1;
	perf_evlist__add(el, a);
	perf_evlist__set_maps(el, cpus, threads);
	if (perf_evlist__open(el) || perf_evsel__open(b, cpus, threads)) {
		printf("SKIP: cannot open task-clock with a user stack\n");
		return 77;
	}
	if (perf_evlist__mmap(el, PAGES) || perf_evsel__mmap(b, PAGES)) {
		printf("SKIP: cannot mmap the rings\n");
		return 77;
	}
	ring.base = perf_evsel__mmap_base(b, 0, 0);
	ring.len = (PAGES + 1) * psz;
	ring.mask = PAGES * psz - 1;
	ring.copy = malloc(RING_COPY_MAX);
	if (!ring.base || !ring.copy)
		return 1;
	sample_loop(rounds, el, &ring, &lp, &rf, b);
	printf("libperf records=%lu damaged=%lu lost=%lu\n", lp.records, lp.damaged, lp.lost);
	printf("rawfrag records=%lu damaged=%lu wrapped=%lu lost=%lu\n", rf.records, rf.damaged,
	       rf.wrapped, rf.lost);
	free(ring.copy);
	perf_evsel__munmap(b);
	perf_evsel__close(b);
	perf_evsel__delete(b);
	perf_evlist__delete(el);
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	return rf.wrapped > 0 && rf.damaged == 0 ? 0 : 1;
}
