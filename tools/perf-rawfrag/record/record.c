// SPDX-License-Identifier: GPL-2.0
/*
 * The recording engine: cpu/thread maps and evsels (open, ids, enable) through libperf,
 * rings read with our wrap-aware reader (ring.c), everything written with the
 * library's perf.data writer.
 *
 * Why not libperf's mmap/poll/reader: its reader truncates wrapped records
 * larger than 4168 bytes, and its public API exposes neither the ring base of
 * evlist mmaps nor the event fds (needed for PERF_EVENT_IOC_SET_FILTER,
 * IOC_SET_OUTPUT of external events, and FD_CLOEXEC). We find the fds libperf
 * opened without relying on its private layout: perf_evsel__read() (read_format
 * ID) gives the kernel id of every (cpu, thread) slot, and PERF_EVENT_IOC_ID on
 * each perf_event fd in /proc/self/fd tells which fd has that id.
 * No perf_evlist either: in 6.1 perf_evlist__set_maps() gives every evsel map
 * references that perf_evsel__delete() never drops (a leak ASan reports), and
 * without its mmap/poll the evlist adds nothing over a loop over the evsels.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <rawfrag/writer.h>

#include "events.h"
#include "record-buildid.h"
#include "record-int.h"
#include "record-opts.h"
#include "record-synth.h"
#include "record-target.h"
#include "record-threads.h"
#include "record.h"
#include "ring.h"
#include "tracefs.h"
#include "util.h"

#define DEFAULT_FREQ 4000
#define ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7: the largest perf 6.1 reads */

static volatile sig_atomic_t rec_done;

static void rec_sig(int sig)
{
	rec_done = 1;
}

static void rec_sigchld(int sig)
{
	/* only interrupts poll(); waitpid() in the loop decides */
}

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return level <= LIBPERF_ERR ? vfprintf(stderr, fmt, ap) : 0;
}

struct record *record__new(const struct record_opts *opts)
{
	struct record *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->opts = *opts;
	rec->pages = opts->mmap_pages ? opts->mmap_pages : record_opts__default_pages();
	rec->child = -1;
	rec->go_fd = -1;
	rec->exec_fd = -1;
	pthread_mutex_init(&rec->bid_lock, NULL);
	libperf_init(libperf_print);
	return rec;
}

int record__add_cleanup(struct record *rec, void (*fn)(void *), void *arg)
{
	struct rec_cleanup *n = realloc(rec->cleanups, (rec->nr_cleanups + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	rec->cleanups = n;
	n[rec->nr_cleanups].fn = fn;
	n[rec->nr_cleanups].arg = arg;
	rec->nr_cleanups++;
	return 0;
}

int record__add_finish_hook(struct record *rec, void (*fn)(struct record *, void *), void *arg)
{
	int n = rec->nr_finish_hooks;
	void *p = realloc(rec->finish_hooks, (n + 1) * sizeof(*rec->finish_hooks));

	if (!p)
		return -ENOMEM;
	rec->finish_hooks = p;
	rec->finish_hooks[n].fn = fn;
	rec->finish_hooks[n].arg = arg;
	rec->nr_finish_hooks++;
	return 0;
}

int record__add_drops(struct record *rec, const char *name, int idx, uint64_t dropped)
{
	struct rawfrag_sample sid = { 0 };
	struct timespec ts;
	struct rec_sel *s = NULL;
	uint64_t left;
	int err;

	for (int i = 0; i < rec->nr_sel && !s; i++)
		if (!rec->sel[i].evsel && !strcmp(rec->sel[i].ev.name, name))
			s = &rec->sel[i];
	if (!s || idx < 0 || idx >= s->nr_fds || !rec->w)
		return -EINVAL;
	left = dropped > rec->lost[idx] ? dropped - rec->lost[idx] : 0;
	if (!left)
		return 0;
	clock_gettime(record__clockid(rec), &ts);
	sid.time = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	sid.cpu = record__cpu(rec, idx);
	sid.id = sid.identifier = s->ids[idx];
	err = rawfrag_writer__write_lost(rec->w, s->ids[idx], left, &sid);
	if (!err)
		rec->lost[idx] += left;
	return err;
}

static void close_rings(struct record *rec)
{
	for (int i = 0; i < rec->nr_rings; i++)
		ring__munmap(&rec->rings[i]);
	free(rec->rings);
	rec->rings = NULL;
	rec->nr_rings = 0;
}

static void kill_child(struct record *rec)
{
	if (rec->go_fd >= 0) {
		close(rec->go_fd); /* an unstarted child sees EOF ... */
		rec->go_fd = -1;
	}
	if (rec->child > 0 && !rec->child_exited) {
		kill(rec->child, SIGTERM); /* ... and is told not to exec */
		waitpid(rec->child, &rec->child_status, 0);
		rec->child_exited = true;
	}
	if (rec->exec_fd >= 0) {
		close(rec->exec_fd);
		rec->exec_fd = -1;
	}
}

void record__delete(struct record *rec)
{
	if (!rec)
		return;
	/* others' cleanups first: they may detach BPF programs that feed our rings */
	for (int i = rec->nr_cleanups - 1; i >= 0; i--)
		rec->cleanups[i].fn(rec->cleanups[i].arg);
	free(rec->cleanups);
	free(rec->finish_hooks);
	rthreads__free(rec); /* its threads read the rings */
	kill_child(rec);
	close_rings(rec);
	if (rec->w) {
		rawfrag_writer__finish(rec->w);
		rawfrag_writer__delete(rec->w);
	}
	for (int i = 0; i < rec->nr_sel; i++) {
		struct rec_sel *s = &rec->sel[i];

		if (s->evsel) {
			perf_evsel__close(s->evsel);
			perf_evsel__delete(s->evsel);
		} else {
			for (int j = 0; j < s->nr_fds; j++)
				if (s->fds[j] >= 0)
					close(s->fds[j]);
		}
		free(s->fds);
		free(s->ids);
		free(s->ev.name);
		free(s->ev.tp);
		free(s->ev.filter);
	}
	free(rec->sel);
	perf_cpu_map__put(rec->cpus);
	perf_thread_map__put(rec->threads);
	free(rec->target_pids);
	free(rec->idmap);
	free(rec->lost);
	bid__free(rec);
	pthread_mutex_destroy(&rec->bid_lock);
	free(rec);
}

static int add_sel(struct record *rec, const struct rf_event *ev)
{
	struct rec_sel *n = realloc(rec->sel, (rec->nr_sel + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	rec->sel = n;
	memset(&n[rec->nr_sel], 0, sizeof(*n));
	n[rec->nr_sel].ev = *ev;
	rec->nr_sel++;
	return 0;
}

int record__add_events(struct record *rec, const char *spec)
{
	struct rf_event *evs = NULL;
	char msg[512] = "";
	int nr = 0, err;

	err = events__parse(spec, &evs, &nr, msg, sizeof(msg));
	if (err) {
		record__err("%s", msg[0] ? msg : strerror(-err));
		events__free(evs, nr);
		return err;
	}
	rec->first_of_last_spec = rec->nr_sel;
	for (int i = 0; i < nr; i++) {
		err = add_sel(rec, &evs[i]);
		if (err) {
			events__free(evs + i, nr - i);
			free(evs);
			return err;
		}
		if (evs[i].tp && !rec->tracefs)
			rec->tracefs = tracefs__path(msg, sizeof(msg));
	}
	free(evs); /* the names moved into rec->sel */
	return 0;
}

int record__set_filter(struct record *rec, const char *filter)
{
	int n = 0;

	for (int i = rec->first_of_last_spec; i < rec->nr_sel; i++) {
		if (!rec->sel[i].ev.tp)
			continue;
		free(rec->sel[i].ev.filter);
		rec->sel[i].ev.filter = strdup(filter);
		if (!rec->sel[i].ev.filter)
			return -ENOMEM;
		n++;
	}
	if (!n) {
		record__err("--filter '%s': the preceding -e has no tracepoint", filter);
		return -EINVAL;
	}
	return 0;
}

uint64_t record__sample_type(struct record *rec)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;

	return rec->opts.callchain ? st | PERF_SAMPLE_CALLCHAIN : st;
}

int record__nr_cpus(struct record *rec)
{
	return rec->cpus ? perf_cpu_map__nr(rec->cpus) : 0;
}

int record__cpu(struct record *rec, int idx)
{
	return perf_cpu_map__cpu(rec->cpus, idx).cpu;
}

unsigned int record__mmap_pages(struct record *rec)
{
	return rec->pages;
}

/* --call-graph dwarf|lbr, --user-regs, --intr-regs, -d: what perf's evsel__config adds */
static void setup_attr_extra(struct record *rec, struct perf_event_attr *a)
{
	const struct record_opts *o = &rec->opts;
	uint64_t regs = 0;

	if (o->sample_addr)
		a->sample_type |= PERF_SAMPLE_ADDR;
	if (o->callchain && o->cg_mode == RF_CG_DWARF) {
		record_opts__regs(&regs, NULL, "--call-graph", false);
		/* perf record adds ADDR with dwarf too */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_ADDR;
		a->sample_regs_user = regs;
		a->sample_stack_user = o->cg_stack_size;
		a->exclude_callchain_user = 1; /* the user stack is unwound from the dump */
	}
	if (o->callchain && o->cg_mode == RF_CG_LBR) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
	}
	if (o->user_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= o->user_regs;
	}
	if (o->intr_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = o->intr_regs;
	}
}

static void setup_period(struct record *rec, struct perf_event_attr *a)
{
	bool one = a->type == PERF_TYPE_TRACEPOINT ||
		   (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_DUMMY ||
						      a->config == PERF_COUNT_SW_BPF_OUTPUT));

	if (rec->opts.period) {
		a->sample_period = rec->opts.period;
		a->freq = 0;
	} else if (rec->opts.freq) {
		a->sample_freq = rec->opts.freq;
		a->freq = 1;
	} else if (!a->sample_period) {
		if (one) {
			a->sample_period = 1;
		} else {
			a->sample_freq = DEFAULT_FREQ;
			a->freq = 1;
		}
	}
}

static void setup_attr(struct record *rec, struct rec_sel *s, bool first)
{
	struct perf_event_attr *a = &s->ev.attr;

	a->size = ATTR_SIZE;
	a->sample_type = record__sample_type(rec);
	setup_attr_extra(rec, a);
	a->read_format = PERF_FORMAT_ID;
	a->sample_id_all = 1;
	/*
	 * CLOCK_MONOTONIC timestamps (or -k's clock) with a CLOCK_DATA reference,
	 * so a recording maps to wall-clock time (pcapng) as `perf record -k
	 * CLOCK_MONOTONIC` does; every event sharing a ring must use the same clock.
	 */
	a->use_clockid = 1;
	a->clockid = record__clockid(rec);
	a->disabled = 1;
	a->inherit = !rec->system_wide && !rec->opts.tid;
	/* a command (not just a timer for -a/-C): count from its exec on */
	a->enable_on_exec = rec->opts.argv && !rec->system_wide;
	/* batched wakeups: a quarter of the ring, so the workload is not woken per event */
	a->watermark = 1;
	a->wakeup_watermark = rec->pages * sysconf(_SC_PAGESIZE) / 4;
	setup_period(rec, a);
	if (first) {
		/* task tracking on one evsel only, as perf does */
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->mmap = 1;
		a->mmap2 = 1;
	}
}

static void open_error(struct record *rec, struct rec_sel *s, int err)
{
	int paranoid = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	switch (-err) {
	case EACCES:
	case EPERM:
		record__err("no permission to open %s (perf_event_paranoid=%d): run as root, grant CAP_PERFMON (and CAP_BPF for --skb), or lower /proc/sys/kernel/perf_event_paranoid%s",
			s->ev.name, paranoid,
			paranoid >= 2 && !s->ev.attr.exclude_kernel && !rec->system_wide ?
			"; or record user space only (:u)" : "");
		break;
	case EOPNOTSUPP:
		if (s->ev.attr.sample_type & PERF_SAMPLE_BRANCH_STACK) {
			/* --call-graph lbr without LBR: perf record's words */
			record__err("%s: PMU Hardware or event type doesn't support branch stack sampling.",
				s->ev.name);
			break;
		}
		/* fall through */
	case ENOENT:
	case ENODEV:
		record__err("event %s is not supported on this machine (%s)", s->ev.name,
			strerror(-err));
		break;
	case EINVAL:
		if (rec->opts.clock_set && rec->opts.clockid != CLOCK_MONOTONIC &&
		    rec->opts.clockid != CLOCK_MONOTONIC_RAW) {
			/* the kernel takes other clocks only for PMUs that never fire in NMI */
			record__err("cannot open %s with clock %d: %s (the PMU needs an NMI-safe clock: -k monotonic or monotonic_raw)",
				s->ev.name, rec->opts.clockid, strerror(-err));
			break;
		}
		record__err("cannot open %s: %s (does the PMU support sampling and these terms?)",
			s->ev.name, strerror(-err));
		break;
	default:
		record__err("cannot open %s: %s", s->ev.name, strerror(-err));
	}
}

/* map id -> fd for every perf_event fd of this process */
static int find_fds(struct record *rec)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char p[64], link[64];
		int fd = atoi(de->d_name);
		ssize_t n;
		__u64 id;

		if (de->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]") || ioctl(fd, PERF_EVENT_IOC_ID, &id))
			continue;
		for (int i = 0; i < rec->nr_sel; i++) {
			struct rec_sel *s = &rec->sel[i];

			for (int j = 0; s->evsel && j < s->nr_fds; j++)
				if (s->ids[j] == id)
					s->fds[j] = fd;
		}
	}
	closedir(d);
	for (int i = 0; i < rec->nr_sel; i++)
		for (int j = 0; rec->sel[i].evsel && j < rec->sel[i].nr_fds; j++)
			if (rec->sel[i].fds[j] < 0)
				err = -ENOENT;
	return err;
}

static int open_sel(struct record *rec, struct rec_sel *s)
{
	int ncpu = perf_cpu_map__nr(rec->cpus), err;

	s->evsel = perf_evsel__new(&s->ev.attr);
	if (!s->evsel)
		return -ENOMEM;
	s->nr_fds = ncpu * rec->nr_threads;
	s->fds = malloc(s->nr_fds * sizeof(int));
	s->ids = calloc(s->nr_fds, sizeof(uint64_t));
	if (!s->fds || !s->ids)
		return -ENOMEM;
	err = perf_evsel__open(s->evsel, rec->cpus, rec->threads);
	if (err) {
		open_error(rec, s, err);
		return err;
	}
	for (int c = 0; c < ncpu; c++) {
		for (int t = 0; t < rec->nr_threads; t++) {
			struct perf_counts_values cv;
			int k = c * rec->nr_threads + t;

			s->fds[k] = -1;
			err = perf_evsel__read(s->evsel, c, t, &cv);
			if (err) {
				record__err("cannot read the id of %s: %s", s->ev.name, strerror(-err));
				return err;
			}
			s->ids[k] = cv.id;
		}
	}
	return 0;
}

static int apply_filters(struct record *rec)
{
	for (int i = 0; i < rec->nr_sel; i++) {
		struct rec_sel *s = &rec->sel[i];

		for (int j = 0; s->ev.filter && j < s->nr_fds; j++) {
			if (ioctl(s->fds[j], PERF_EVENT_IOC_SET_FILTER, s->ev.filter)) {
				int err = -errno;

				record__err("bad filter '%s' for %s: %s", s->ev.filter, s->ev.name,
					strerror(errno));
				return err;
			}
		}
	}
	return 0;
}

int record__prepare(struct record *rec)
{
	int err, nr_ours;

	if (!rec->nr_sel) {
		err = record__add_events(rec, "cpu-clock");
		if (err)
			return err;
	}
	err = record__setup_targets(rec);
	if (err)
		return err;
	nr_ours = rec->nr_sel;
	for (int i = 0; i < nr_ours; i++) {
		setup_attr(rec, &rec->sel[i], i == 0);
		err = open_sel(rec, &rec->sel[i]);
		if (err)
			return err;
	}
	err = find_fds(rec);
	if (err) {
		record__err("cannot find the fds of the opened events");
		return err;
	}
	for (int i = 0; i < rec->nr_sel; i++)
		for (int j = 0; j < rec->sel[i].nr_fds; j++)
			fcntl(rec->sel[i].fds[j], F_SETFD, FD_CLOEXEC); /* not the workload's */
	err = apply_filters(rec);
	if (err)
		return err;
	rec->lost = calloc(perf_cpu_map__nr(rec->cpus), sizeof(*rec->lost));
	if (!rec->lost)
		return -ENOMEM;
	rec->prepared = true;
	return 0;
}

int record__add_external_evsel(struct record *rec, const struct perf_event_attr *attr,
			       const char *name, const int *fds, int nr_fds)
{
	struct rf_event ev = { .attr = *attr };
	int *myfds = NULL;
	uint64_t *ids = NULL;
	int err = -ENOMEM;

	if (!rec->prepared || nr_fds != record__nr_cpus(rec))
		return -EINVAL;
	/* perf maps records to evsels by IDENTIFIER; all attrs must agree */
	if (!attr->sample_id_all || !(attr->sample_type & PERF_SAMPLE_IDENTIFIER)) {
		record__err("%s: external events need sample_id_all and PERF_SAMPLE_IDENTIFIER", name);
		return -EINVAL;
	}
	/* all or nothing: the caller keeps its fds when this fails */
	ev.name = strdup(name);
	myfds = malloc(nr_fds * sizeof(int));
	ids = calloc(nr_fds, sizeof(uint64_t));
	if (!ev.name || !myfds || !ids)
		goto fail;
	for (int i = 0; i < nr_fds; i++) {
		__u64 id;

		if (ioctl(fds[i], PERF_EVENT_IOC_ID, &id)) {
			err = -errno;
			goto fail;
		}
		ids[i] = id;
		myfds[i] = fds[i];
	}
	ev.attr.size = ATTR_SIZE;
	err = add_sel(rec, &ev);
	if (err)
		goto fail;
	rec->sel[rec->nr_sel - 1].fds = myfds;
	rec->sel[rec->nr_sel - 1].ids = ids;
	rec->sel[rec->nr_sel - 1].nr_fds = nr_fds;
	for (int i = 0; i < nr_fds; i++)
		fcntl(fds[i], F_SETFD, FD_CLOEXEC); /* not the workload's */
	return 0;
fail:
	free(ev.name);
	free(myfds);
	free(ids);
	return err;
}

/* ---- rings ---- */

static int add_ring(struct record *rec, int fd, int cpu)
{
	struct rf_ring *n = realloc(rec->rings, (rec->nr_rings + 1) * sizeof(*n));
	int err;

	if (!n)
		return -ENOMEM;
	rec->rings = n;
	err = ring__mmap(&n[rec->nr_rings], fd, cpu, rec->pages);
	if (err)
		return err;
	rec->nr_rings++;
	return 0;
}

/*
 * One ring per cpu, as perf_evlist__mmap() makes them: the first fd on the cpu
 * owns it and every other event on that cpu is redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT. An external event that cannot be redirected (other
 * clock) gets its own ring.
 */
static int setup_rings(struct record *rec)
{
	int ncpu = perf_cpu_map__nr(rec->cpus), err;

	for (int c = 0; c < ncpu; c++) {
		int cpu = perf_cpu_map__cpu(rec->cpus, c).cpu, out = -1;

		for (int i = 0; i < rec->nr_sel; i++) {
			struct rec_sel *s = &rec->sel[i];
			int per_cpu = s->evsel ? rec->nr_threads : 1;

			for (int t = 0; t < per_cpu; t++) {
				int fd = s->fds[c * per_cpu + t];

				if (out >= 0 && !ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out))
					continue;
				if (out >= 0 && s->evsel) {
					err = -errno;
					record__err("cannot redirect %s into the cpu %d ring: %s",
						s->ev.name, cpu, strerror(errno));
					return err;
				}
				err = add_ring(rec, fd, cpu);
				if (err) {
					record__err("cannot mmap %u pages for cpu %d: %s%s", rec->pages,
						cpu, strerror(-err),
						err == -EPERM ? " (raise perf_event_mlock_kb or use -m)" : "");
					return err;
				}
				if (out < 0)
					out = fd;
			}
		}
	}
	return 0;
}

static int idmap_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int build_idmap(struct record *rec)
{
	int n = 0;

	for (int i = 0; i < rec->nr_sel; i++)
		n += rec->sel[i].nr_fds;
	rec->idmap = calloc(n, sizeof(*rec->idmap));
	if (!rec->idmap)
		return -ENOMEM;
	for (int i = 0; i < rec->nr_sel; i++)
		for (int j = 0; j < rec->sel[i].nr_fds; j++) {
			rec->idmap[rec->nr_idmap].id = rec->sel[i].ids[j];
			rec->idmap[rec->nr_idmap++].sel = i;
		}
	qsort(rec->idmap, rec->nr_idmap, sizeof(*rec->idmap), idmap_cmp);
	return 0;
}

static struct rec_sel *sel_of(struct record *rec, uint64_t id)
{
	int lo = 0, hi = rec->nr_idmap - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (rec->idmap[mid].id == id)
			return &rec->sel[rec->idmap[mid].sel];
		if (rec->idmap[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static int cpu_idx(struct record *rec, int cpu)
{
	for (int i = 0; i < perf_cpu_map__nr(rec->cpus); i++)
		if (perf_cpu_map__cpu(rec->cpus, i).cpu == cpu)
			return i;
	return 0;
}

/* the maps the build-ids need: MMAP/MMAP2 (exec maps), FORK, COMM exec */
static void track_task(struct record *rec, const struct perf_event_header *h, const void *buf,
		       size_t len)
{
	const uint8_t *b = buf;
	uint32_t pid, ppid;
	uint64_t start, mlen;
	size_t name_off = h->type == PERF_RECORD_MMAP ? 40 : 72;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (len <= name_off || (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
			return;
		memcpy(&pid, b + 8, 4);
		memcpy(&start, b + 16, 8);
		memcpy(&mlen, b + 24, 8);
		if (memchr(b + name_off, 0, len - name_off))
			bid__mmap(rec, (int)pid, start, mlen, (const char *)b + name_off);
		return;
	case PERF_RECORD_FORK:
		if (len < 16)
			return;
		memcpy(&pid, b + 8, 4);
		memcpy(&ppid, b + 12, 4);
		bid__fork(rec, (int)pid, (int)ppid);
		return;
	case PERF_RECORD_COMM:
		if (len >= 16 && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
			memcpy(&pid, b + 8, 4);
			bid__exec(rec, (int)pid);
		}
		return;
	}
}

/* a sample of sel s: into the sel's counts (main thread) or the reader's */
static void count_sample(struct rec_reader *rd, struct rec_sel *s, size_t len)
{
	if (rd->samples) {
		rd->samples[s - rd->rec->sel]++;
		rd->bytes[s - rd->rec->sel] += len;
	} else {
		s->samples++;
		s->bytes += len;
	}
}

static int on_record(void *ctx, struct rf_ring *ring, const void *buf, size_t len)
{
	struct rec_reader *rd = ctx;
	struct record *rec = rd->rec;
	const struct perf_event_header *h = buf;
	const uint64_t *u = (const uint64_t *)(h + 1);
	bool shared = rec->thr != NULL;
	struct rec_sel *s;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* IDENTIFIER is the first field of every sample */
		s = len >= 16 ? sel_of(rec, u[0]) : NULL;
		if (s)
			count_sample(rd, s, len);
		/* then IP and TID in every evsel of ours */
		if (rec->bid && len >= 32) {
			if (shared)
				pthread_mutex_lock(&rec->bid_lock);
			bid__sample(rec, h->misc, (int)(uint32_t)u[2], u[1]);
			if (shared)
				pthread_mutex_unlock(&rec->bid_lock);
		}
		break;
	case PERF_RECORD_LOST:
		/* a cpu's rings are read by one thread only */
		if (len >= 24)
			rec->lost[cpu_idx(rec, ring->cpu)] += u[1];
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (len >= 16)
			rd->lost_samples += u[0];
		break;
	default:
		rd->other_records++;
		if (rec->bid) {
			if (shared)
				pthread_mutex_lock(&rec->bid_lock);
			track_task(rec, h, buf, len);
			if (shared)
				pthread_mutex_unlock(&rec->bid_lock);
		}
	}
	rd->data_bytes += len;
	if (rd->files)
		return rawfrag_writer__write_record(rd->files[ring - rec->rings], buf, len);
	return rawfrag_writer__write_record(rec->w, buf, len);
}

/* Drain every ring once; a FINISHED_ROUND closes each non-empty batch. */
static int drain(struct record *rec)
{
	struct rec_reader rd = { .rec = rec };
	int total = 0, err = 0;

	for (int i = 0; i < rec->nr_rings; i++) {
		int n = ring__read(&rec->rings[i], on_record, &rd);

		if (n == -EBADMSG) {
			record__err("corrupt record in the cpu %d ring; skipped the rest of it",
				rec->rings[i].cpu);
			continue;
		}
		if (n < 0) {
			err = n;
			break;
		}
		total += n;
	}
	rec->lost_samples += rd.lost_samples;
	rec->other_records += rd.other_records;
	rec->data_bytes += rd.data_bytes;
	if (!err && total)
		return rawfrag_writer__finished_round(rec->w);
	return err;
}

/*
 * An earlier PATH.old directory (of --threads) goes only when it holds
 * nothing but data files, as perf's rm_rf_perf_data(): never remove what we
 * did not write.
 */
static int remove_data_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && !err) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strcmp(de->d_name, "data") && strncmp(de->d_name, "data.", 5))
			err = -ENOTEMPTY;
		else if (unlinkat(dirfd(d), de->d_name, 0))
			err = -errno;
	}
	closedir(d);
	if (!err && rmdir(dir))
		err = -errno;
	return err;
}

/*
 * As perf's check_backup(): a non-empty earlier file, or a directory of
 * --threads, becomes PATH.old
 */
static int rotate_old(const char *path)
{
	char old[4096];
	struct stat st;
	int err;

	if (stat(path, &st) || !st.st_size || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (!stat(old, &st) && S_ISDIR(st.st_mode)) {
		err = remove_data_dir(old);
		if (err) {
			record__err("cannot remove %s: %s", old, strerror(-err));
			return err;
		}
	} else if (unlink(old) && errno != ENOENT) {
		record__err("cannot remove %s: %s", old, strerror(errno));
		return -errno;
	}
	if (rename(path, old)) {
		record__err("cannot rename %s to %s: %s", path, old, strerror(errno));
		return -errno;
	}
	return 0;
}

/* --threads: PATH/ with PATH/data (the header, main records) and the data.N files */
static int open_dir(struct record *rec, const char *dir, char *data, size_t len)
{
	int err = rotate_old(dir);

	if (err)
		return err;
	if (mkdir(dir, 0700)) {
		err = -errno;
		record__err("cannot create the directory %s: %s", dir, strerror(errno));
		return err;
	}
	snprintf(data, len, "%s/data", dir);
	return rthreads__open(rec, dir);
}

static int open_writer(struct record *rec)
{
	const char *dir = rec->opts.output ? rec->opts.output : "perf.data", *path = dir;
	bool pipe = !strcmp(path, "-");
	char data[4096];
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .pipe = pipe, .use_fd = pipe, .fd = STDOUT_FILENO,
		     .compress = rec->opts.comp_level > 0, .comp_level = rec->opts.comp_level);
	struct rawfrag_err rerr = { 0 };
	int err;

	if (rec->opts.threads) {
		err = open_dir(rec, dir, data, sizeof(data));
		if (err)
			return err;
		path = data;
	} else if (!pipe && (err = rotate_old(path))) {
		return err;
	}
	rec->w = rawfrag_writer__new(path, &wo, &rerr);
	if (!rec->w) {
		record__err("cannot write %s: %s", path, rerr.reason[0] ? rerr.reason : strerror(errno));
		return rerr.err ? rerr.err : -errno;
	}
	for (int i = 0; i < rec->nr_sel; i++) {
		struct rec_sel *s = &rec->sel[i];

		err = rawfrag_writer__add_evsel(rec->w, &s->ev.attr, s->ev.name, s->ids, s->nr_fds);
		if (err < 0)
			goto fail;
	}
	err = record__setup_features(rec, &rerr);
	/* version 1: the ring records are in the data.N files */
	if (!err && rec->opts.threads)
		err = rawfrag_writer__set_dir_format(rec->w, 1);
	if (!err)
		err = rawfrag_writer__start(rec->w);
	if (!err)
		return 0;
fail:
	record__err("%s: %s", path, rerr.reason[0] ? rerr.reason :
		rawfrag_writer__error(rec->w) && rawfrag_writer__error(rec->w)->reason[0] ?
		rawfrag_writer__error(rec->w)->reason : strerror(-err));
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* after the child exited: did its exec fail? (its errno is in the pipe) */
static void read_exec_errno(struct record *rec)
{
	int e[1] = { 0 };

	if (rec->exec_fd < 0)
		return;
	if (read(rec->exec_fd, e, sizeof(e)) == sizeof(e) && e[0]) {
		rec->exec_errno = e[0];
		record__err("cannot run '%s': %s", rec->opts.argv[0], strerror(e[0]));
	}
	close(rec->exec_fd);
	rec->exec_fd = -1;
}

static void child_poll(struct record *rec)
{
	if (rec->child > 0 && !rec->child_exited &&
	    waitpid(rec->child, &rec->child_status, WNOHANG) == rec->child) {
		rec->child_exited = true;
		read_exec_errno(rec);
		rec_done = 1;
	}
}

int record__exit_status(struct record *rec)
{
	int st = rec->child_status;

	if (rec->child <= 0 || !rec->child_exited)
		return 0;
	if (rec->exec_errno)
		return 255; /* as perf: the workload could not be started */
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 0;
}

static int loop(struct record *rec)
{
	/* --threads: the writer threads poll the rings; here only the stop conditions */
	int nr_pfd = rec->thr ? 0 : rec->nr_rings;
	struct pollfd *pfd = calloc(rec->nr_rings ? rec->nr_rings : 1, sizeof(*pfd));
	double end = rec->opts.duration > 0 ? now() + rec->opts.duration : 0, next_check = 0;
	int err = 0;

	if (!pfd)
		return -ENOMEM;
	for (int i = 0; i < nr_pfd; i++) {
		pfd[i].fd = rec->rings[i].fd;
		pfd[i].events = POLLIN;
	}
	if (rec->thr)
		err = rthreads__start(rec, on_record);
	while (!rec_done && !err) {
		int n = poll(pfd, nr_pfd, 100);

		if (n > 0)
			rec->wakeups++;
		for (int i = 0; n > 0 && i < nr_pfd; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1; /* its task is gone: stop polling, still read it */
		if (rthreads__failed(rec))
			break; /* its error comes with rthreads__stop() */
		err = rec->thr ? 0 : drain(rec);
		if (err)
			break;
		child_poll(rec);
		if (end && now() >= end)
			break;
		/* -p/-t: perf stops by itself once every target has exited */
		if (now() >= next_check) {
			next_check = now() + 0.2;
			if (record__targets_gone(rec)) {
				rec->targets_gone = true;
				break;
			}
		}
	}
	free(pfd);
	return err;
}

static void fmt_size(char *buf, size_t len, uint64_t bytes)
{
	snprintf(buf, len, "%.3f MB", bytes / (1024.0 * 1024.0));
}

static uint64_t total_lost(struct record *rec)
{
	uint64_t n = rec->lost_samples;

	for (int i = 0; i < perf_cpu_map__nr(rec->cpus); i++)
		n += rec->lost[i];
	return n;
}

static void loss_line(struct record *rec)
{
	fprintf(stderr, "[ perf rawfrag record: lost:");
	for (int i = 0; i < perf_cpu_map__nr(rec->cpus); i++)
		fprintf(stderr, " cpu%d %" PRIu64, perf_cpu_map__cpu(rec->cpus, i).cpu, rec->lost[i]);
	fprintf(stderr, " (lost samples %" PRIu64 ") ]\n", rec->lost_samples);
}

static void summary(struct record *rec, int err)
{
	const char *path = rec->opts.output ? rec->opts.output : "perf.data";
	uint64_t samples = 0, wrapped = 0, size = rawfrag_writer__bytes(rec->w);
	uint32_t wmax = 0;
	char sz[32], orig[32];
	struct stat st;

	for (int i = 0; i < rec->nr_sel; i++)
		samples += rec->sel[i].samples;
	if (rec->opts.quiet) {
		/* -q hides the chatter, never a loss */
		if (total_lost(rec))
			loss_line(rec);
		return;
	}
	if (rec->thr)
		size += rthreads__bytes(rec); /* the data file is rec->w */
	else if (strcmp(path, "-") && !stat(path, &st))
		size = st.st_size;
	for (int i = 0; i < rec->nr_rings; i++) {
		wrapped += rec->rings[i].wrapped;
		if (rec->rings[i].wrapped_max > wmax)
			wmax = rec->rings[i].wrapped_max;
	}
	fprintf(stderr, "[ perf rawfrag record: Woken up %" PRIu64 " times to write data, %" PRIu64
		" records (up to %u bytes) copied across the ring end ]\n", rec->wakeups, wrapped,
		wmax);
	if (rec->thr)
		fprintf(stderr, "[ perf rawfrag record: %d writer threads, %d data.N files ]\n",
			rthreads__nr(rec), rec->nr_rings);
	for (int i = 0; i < rec->nr_sel; i++)
		fprintf(stderr, "[ perf rawfrag record: %s: %" PRIu64 " samples, %" PRIu64 " bytes ]\n",
			rec->sel[i].ev.name, rec->sel[i].samples, rec->sel[i].bytes);
	loss_line(rec);
	fmt_size(sz, sizeof(sz), size);
	if (err) {
		/* a write error: the file is cut short, say so instead of "Captured" */
		fprintf(stderr, "[ perf rawfrag record: FAILED: %s is incomplete (%s written, %" PRIu64
			" samples read): %s ]\n", strcmp(path, "-") ? path : "<stdout>", sz, samples,
			strerror(-err));
		return;
	}
	fprintf(stderr, "[ perf rawfrag record: Captured and wrote %s %s (%" PRIu64 " samples)",
		sz, strcmp(path, "-") ? path : "<stdout>", samples);
	if (rec->opts.comp_level && rec->data_bytes) {
		fmt_size(orig, sizeof(orig), rec->data_bytes);
		fprintf(stderr, ", compressed (original %s)", orig);
	}
	fprintf(stderr, " ]\n");
}

/*
 * Started by the perf dispatcher (`perf rawfrag record`, perf forks and waits):
 * when perf dies, a SIGTERM tells us to stop and finish the file, instead of
 * recording on as an orphan.
 */
static void die_with_perf(void)
{
	char p[64], comm[32] = "";
	pid_t ppid = getppid();
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)ppid);
	f = fopen(p, "r");
	if (!f)
		return;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	if (strcmp(comm, "perf") && strncmp(comm, "perf_", 5))
		return;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != ppid) /* it died before prctl */
		rec_done = 1;
}

static void set_signals(void)
{
	struct sigaction sa = { .sa_handler = rec_sig };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	die_with_perf();
	sa.sa_handler = rec_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* pipe mode: a closed reader is a write error */
}

static int enable_all(struct record *rec)
{
	for (int i = 0; i < rec->nr_sel; i++)
		if (!rec->sel[i].evsel)
			for (int j = 0; j < rec->sel[i].nr_fds; j++)
				ioctl(rec->sel[i].fds[j], PERF_EVENT_IOC_ENABLE, 0);
	/* a recorded command's events enable themselves at exec (enable_on_exec) */
	for (int i = 0; !(rec->child > 0 && !rec->system_wide) && i < rec->nr_sel; i++)
		if (rec->sel[i].evsel)
			perf_evsel__enable(rec->sel[i].evsel);
	if (rec->child > 0) {
		char c = 1;

		if (write(rec->go_fd, &c, 1) != 1)
			return -errno;
		close(rec->go_fd);
		rec->go_fd = -1;
	}
	return 0;
}

/*
 * The recorder runs SCHED_FIFO (priority 1 unless -r says otherwise): a
 * workload busy on every cpu otherwise keeps it off the cpu for milliseconds
 * after the watermark wakeup, and the rings overflow. It only sleeps in poll()
 * and drains, so it takes the cpu in short bursts. RESET_ON_FORK: nothing it
 * starts inherits the priority. Without -r, a refusal (no CAP_SYS_NICE) keeps
 * normal scheduling silently; an explicit -r fails as perf record -r does.
 */
static int set_realtime(struct record *rec)
{
	struct sched_param sp = { .sched_priority = rec->opts.realtime_prio };
	int e;

	if (rec->opts.realtime_set && !rec->opts.realtime_prio)
		return 0;
	if (!rec->opts.realtime_set)
		sp.sched_priority = 1;
	if (!sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		return 0;
	e = errno;
	if (!rec->opts.realtime_set)
		return 0;
	record__err("could not set realtime priority %d (SCHED_FIFO): %s", sp.sched_priority,
		strerror(e));
	return -e;
}

int record__run(struct record *rec)
{
	int err, err2;

	if (!rec->prepared)
		return -EINVAL;
	set_signals();
	err = set_realtime(rec);
	if (err)
		return err;
	err = setup_rings(rec);
	if (!err)
		err = build_idmap(rec);
	if (!err)
		err = open_writer(rec);
	if (!err)
		err = bid__start(rec);
	if (err)
		return err;
	err = record__synth_all(rec);
	if (!err)
		err = enable_all(rec);
	if (!err)
		err = loop(rec);
	/* stop, then take what is left in the rings: the file keeps every sample */
	for (int i = 0; i < rec->nr_sel; i++)
		if (rec->sel[i].evsel)
			perf_evsel__disable(rec->sel[i].evsel);
		else
			for (int j = 0; j < rec->sel[i].nr_fds; j++)
				ioctl(rec->sel[i].fds[j], PERF_EVENT_IOC_DISABLE, 0);
	err2 = rec->thr ? rthreads__stop(rec) : drain(rec);
	if (!err)
		err = err2;
	for (int i = 0; !err && i < rec->nr_finish_hooks; i++)
		rec->finish_hooks[i].fn(rec, rec->finish_hooks[i].arg);
	if (!err)
		err = bid__finish(rec);
	err2 = rawfrag_writer__finish(rec->w);
	if (!err)
		err = err2;
	if (err) {
		const struct rawfrag_err *we = rawfrag_writer__error(rec->w);

		record__err("writing %s: %s", rec->opts.output ? rec->opts.output : "perf.data",
			we && we->reason[0] ? we->reason : strerror(-err));
	}
	if (rec->child > 0 && !rec->child_exited) {
		kill(rec->child, SIGTERM);
		waitpid(rec->child, &rec->child_status, 0);
		rec->child_exited = true;
	}
	if (rec->child > 0)
		read_exec_errno(rec);
	summary(rec, err);
	return err;
}
