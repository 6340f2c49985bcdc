// SPDX-License-Identifier: GPL-2.0
/*
 * --threads: writer threads, each polling and draining its own rings into
 * their data.N files, as perf record --threads does. No FINISHED_ROUND in the
 * data.N files (perf writes none in directory mode either): a ring's records
 * are in time order already, and the reader sorts across the files.
 *
 * Sharing: a thread touches only its rings, their writers and its own
 * counters (struct rec_reader); the per-cpu loss counts of rec->lost are
 * disjoint (a cpu's rings belong to one thread); the build-id tracking takes
 * rec->bid_lock. The main thread reads the counters after pthread_join().
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/writer.h>

#include "record-int.h"
#include "record-threads.h"
#include "ring.h"

struct rec_wthread {
	struct rec_threads *all;
	pthread_t tid;
	bool started;
	int *rings; /* indexes into rec->rings */
	int nr_rings;
	struct pollfd *pfd;
	struct rec_reader rd;
	int err;
};

struct rec_threads {
	struct record *rec;
	rf_ring_fn fn;
	struct rawfrag_writer **files; /* per ring: dir/data.N */
	int nr_files;
	struct rec_wthread *t;
	int nr;
	int stop, failed; /* atomics: main -> threads, threads -> main */
};

/* the first cpu number of a sysfs cpu list ("0-1,4"), -1 when unreadable */
static int first_cpu_of(const char *path)
{
	FILE *f = fopen(path, "r");
	int cpu = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	fclose(f);
	return cpu;
}

static int numa_node_of(int cpu)
{
	char p[64];
	struct dirent *de;
	DIR *d;
	int node = 0;

	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(p);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9') {
			node = atoi(de->d_name + 4);
			break;
		}
	closedir(d);
	return node;
}

/* which thread a cpu's rings go to: cpus with the same key share one */
static int group_key(int spec, int cpu)
{
	static const char *const lists[][2] = {
		[RF_THREADS_CORE] = { "core_cpus_list", "thread_siblings_list" },
		[RF_THREADS_PACKAGE] = { "package_cpus_list", "core_siblings_list" },
	};
	char p[128];
	int k = -1;

	if (spec == RF_THREADS_NUMA)
		return numa_node_of(cpu);
	if (spec != RF_THREADS_CORE && spec != RF_THREADS_PACKAGE)
		return cpu;
	/* older kernels have only the second name */
	for (int i = 0; i < 2 && k < 0; i++) {
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
			 lists[spec][i]);
		k = first_cpu_of(p);
	}
	return k < 0 ? cpu : k;
}

static int plan(struct rec_threads *th, int spec)
{
	struct record *rec = th->rec;
	int *keys = calloc(rec->nr_rings, sizeof(int));

	if (!keys)
		return -ENOMEM;
	th->t = calloc(rec->nr_rings, sizeof(*th->t));
	if (!th->t) {
		free(keys);
		return -ENOMEM;
	}
	for (int r = 0; r < rec->nr_rings; r++) {
		int key = group_key(spec, rec->rings[r].cpu), i;
		struct rec_wthread *t;
		int *n;

		for (i = 0; i < th->nr && keys[i] != key; i++)
			;
		if (i == th->nr)
			keys[th->nr++] = key;
		t = &th->t[i];
		n = realloc(t->rings, (t->nr_rings + 1) * sizeof(int));
		if (!n) {
			free(keys);
			return -ENOMEM;
		}
		t->rings = n;
		t->rings[t->nr_rings++] = r;
	}
	free(keys);
	return 0;
}

static int open_files(struct rec_threads *th, const char *dir)
{
	struct record *rec = th->rec;
	RAWFRAG_OPTS(rawfrag_writer_opts, wo, .records_only = true,
		     .compress = rec->opts.comp_level > 0, .comp_level = rec->opts.comp_level);

	th->files = calloc(rec->nr_rings, sizeof(*th->files));
	if (!th->files)
		return -ENOMEM;
	for (int i = 0; i < rec->nr_rings; i++) {
		struct rawfrag_err rerr = { 0 };
		char path[4096];

		snprintf(path, sizeof(path), "%s/data.%d", dir, i);
		th->files[i] = rawfrag_writer__new(path, &wo, &rerr);
		if (!th->files[i] || rawfrag_writer__start(th->files[i])) {
			record__err("cannot write %s: %s", path,
				    rerr.reason[0] ? rerr.reason : strerror(errno));
			return rerr.err ? rerr.err : -EIO;
		}
		th->nr_files++;
	}
	return 0;
}

int rthreads__open(struct record *rec, const char *dir)
{
	struct rec_threads *th = calloc(1, sizeof(*th));
	int err;

	if (!th)
		return -ENOMEM;
	th->rec = rec;
	rec->thr = th;
	err = plan(th, rec->opts.threads);
	if (!err)
		err = open_files(th, dir);
	for (int i = 0; !err && i < th->nr; i++) {
		struct rec_wthread *t = &th->t[i];

		t->all = th;
		t->rd.rec = rec;
		t->rd.files = th->files;
		t->rd.samples = calloc(rec->nr_sel, sizeof(uint64_t));
		t->rd.bytes = calloc(rec->nr_sel, sizeof(uint64_t));
		t->pfd = calloc(t->nr_rings, sizeof(*t->pfd));
		if (!t->rd.samples || !t->rd.bytes || !t->pfd)
			err = -ENOMEM;
		for (int j = 0; !err && j < t->nr_rings; j++) {
			t->pfd[j].fd = rec->rings[t->rings[j]].fd;
			t->pfd[j].events = POLLIN;
		}
	}
	if (err == -ENOMEM)
		record__err("--threads: out of memory");
	return err;
}

static int drain_rings(struct rec_wthread *t)
{
	struct record *rec = t->all->rec;

	for (int i = 0; i < t->nr_rings; i++) {
		struct rf_ring *r = &rec->rings[t->rings[i]];
		int n = ring__read(r, t->all->fn, &t->rd);

		if (n == -EBADMSG) {
			record__err("corrupt record in the cpu %d ring; skipped the rest of it", r->cpu);
			continue;
		}
		if (n < 0)
			return n;
	}
	return 0;
}

static void *wthread_main(void *arg)
{
	struct rec_wthread *t = arg;
	struct rec_threads *th = t->all;

	while (!__atomic_load_n(&th->stop, __ATOMIC_ACQUIRE)) {
		int n = poll(t->pfd, t->nr_rings, 100);

		if (n > 0)
			t->rd.wakeups++;
		for (int i = 0; n > 0 && i < t->nr_rings; i++)
			if (t->pfd[i].revents & (POLLHUP | POLLERR))
				t->pfd[i].fd = -1; /* its task is gone: stop polling, still read it */
		t->err = drain_rings(t);
		if (t->err) {
			__atomic_store_n(&th->failed, 1, __ATOMIC_RELEASE);
			return NULL;
		}
	}
	/* the events are disabled now: what is left in the rings is the last of it */
	t->err = drain_rings(t);
	return NULL;
}

int rthreads__start(struct record *rec, rf_ring_fn fn)
{
	struct rec_threads *th = rec->thr;
	sigset_t all, old;
	int err = 0;

	th->fn = fn;
	/* the signals (SIGINT, SIGCHLD) are for the main thread's loop */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < th->nr && !err; i++) {
		err = -pthread_create(&th->t[i].tid, NULL, wthread_main, &th->t[i]);
		th->t[i].started = !err;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		record__err("cannot start the writer threads: %s", strerror(-err));
	return err;
}

bool rthreads__failed(struct record *rec)
{
	return rec->thr && __atomic_load_n(&rec->thr->failed, __ATOMIC_ACQUIRE);
}

static void add_counts(struct record *rec, const struct rec_reader *rd)
{
	for (int i = 0; i < rec->nr_sel; i++) {
		rec->sel[i].samples += rd->samples[i];
		rec->sel[i].bytes += rd->bytes[i];
	}
	rec->lost_samples += rd->lost_samples;
	rec->other_records += rd->other_records;
	rec->data_bytes += rd->data_bytes;
	rec->wakeups += rd->wakeups;
}

int rthreads__stop(struct record *rec)
{
	struct rec_threads *th = rec->thr;
	int err = 0;

	if (!th)
		return 0;
	__atomic_store_n(&th->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < th->nr; i++) {
		struct rec_wthread *t = &th->t[i];

		if (!t->started)
			continue;
		pthread_join(t->tid, NULL);
		t->started = false;
		add_counts(rec, &t->rd);
		if (t->err && !err)
			err = t->err;
	}
	for (int i = 0; i < th->nr_files; i++) {
		int e = rawfrag_writer__finish(th->files[i]);

		if (e && !err) {
			const struct rawfrag_err *we = rawfrag_writer__error(th->files[i]);

			record__err("data.%d: %s", i, we->reason[0] ? we->reason : strerror(-e));
			err = e;
		}
	}
	return err;
}

int rthreads__nr(struct record *rec)
{
	return rec->thr ? rec->thr->nr : 0;
}

uint64_t rthreads__bytes(struct record *rec)
{
	uint64_t n = 0;

	for (int i = 0; rec->thr && i < rec->thr->nr_files; i++)
		n += rawfrag_writer__bytes(rec->thr->files[i]);
	return n;
}

void rthreads__free(struct record *rec)
{
	struct rec_threads *th = rec->thr;

	if (!th)
		return;
	__atomic_store_n(&th->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < th->nr; i++) {
		if (th->t[i].started)
			pthread_join(th->t[i].tid, NULL);
		free(th->t[i].rings);
		free(th->t[i].pfd);
		free(th->t[i].rd.samples);
		free(th->t[i].rd.bytes);
	}
	for (int i = 0; i < rec->nr_rings && th->files; i++)
		rawfrag_writer__delete(th->files[i]);
	free(th->files);
	free(th->t);
	free(th);
	rec->thr = NULL;
}
