// SPDX-License-Identifier: GPL-2.0
/*
 * What `perf rawfrag record` writes besides the kernel's records: the header
 * features (host, cmdline, PMU mappings, tracing data) and COMM/MMAP2 records for
 * the tasks that existed before recording started, read from /proc, so that
 * `perf script` can name them (perf's synthetic-events.c does the same).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rawfrag/writer.h>

#include "record-buildid.h"
#include "record-int.h"
#include "record-synth.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static int add_pmu_mappings(struct rawfrag_writer *w)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0; /* no PMUs: the feature is simply empty */
	while (!err && (de = readdir(d))) {
		char p[512], buf[32];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), PMU_DIR "/%s/type", de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f))
			err = rawfrag_writer__add_pmu_mapping(w, strtoul(buf, NULL, 10), de->d_name);
		fclose(f);
	}
	closedir(d);
	return err;
}

static int add_tracing_data(struct record *rec, struct rawfrag_err *rerr)
{
	const char **tps = calloc(rec->nr_sel + 1, sizeof(*tps));
	void *blob = NULL;
	size_t len = 0;
	int n = 0, err = 0;

	if (!tps)
		return -ENOMEM;
	for (int i = 0; i < rec->nr_sel; i++)
		if (rec->sel[i].ev.tp)
			tps[n++] = rec->sel[i].ev.tp;
	if (n) {
		err = rawfrag_tracing_data__build(rec->tracefs, tps, n, false, &blob, &len, rerr);
		if (!err)
			err = rawfrag_writer__set_tracing_data(rec->w, blob, len);
	}
	free(blob);
	free(tps);
	return err;
}

/* wall-clock reference for the events' CLOCK_MONOTONIC timestamps (HEADER_CLOCK_DATA) */
static int set_clock_data(struct record *rec)
{
	struct timespec rt, mono;
	int clk = record__clockid(rec);

	/* read back to back: the pair is the reference perf -k writes */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(clk, &mono);
	return rawfrag_writer__set_clock_data(rec->w, clk,
					      rt.tv_sec * 1000000000ULL + rt.tv_nsec,
					      mono.tv_sec * 1000000000ULL + mono.tv_nsec);
}

int record__setup_features(struct record *rec, struct rawfrag_err *rerr)
{
	struct rawfrag_writer *w = rec->w;
	int err;

	err = rawfrag_writer__set_host_features(w);
	if (!err)
		err = set_clock_data(rec);
	if (!err && rec->opts.cmd_argc)
		err = rawfrag_writer__set_cmdline(w, rec->opts.cmd_argc, rec->opts.cmd_argv);
	if (!err)
		err = add_pmu_mappings(w);
	if (!err)
		err = add_tracing_data(rec, rerr);
	return err;
}

static void read_comm(int pid, int tid, char *comm, size_t len)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(p, "r");
	comm[0] = '\0';
	if (f) {
		if (fgets(comm, len, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	/*
	 * A task's comm is at most 15 characters (TASK_COMM_LEN), as the kernel's
	 * own COMM records and perf record's synthesized ones carry it; /proc adds
	 * a kworker's workqueue ("kworker/1:0-events"), which the kernel never
	 * reports in a record: readers would otherwise disagree on the name.
	 */
	if (len > 16)
		comm[15] = '\0';
}

/* executable mappings of pid, as MMAP2 records (perf symbolizes user ips with them) */
static int synth_mmaps(struct record *rec, int pid)
{
	char p[64], line[4608];
	FILE *f;
	int err = 0;

	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "r");
	if (!f)
		return 0; /* the task is gone: nothing to name */
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[5], name[4096] = "";
		uint32_t prot = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %4095[^\n]", &start, &end, perms,
			   &pgoff, name) < 4)
			continue;
		if (perms[2] != 'x')
			continue;
		if (name[0] == '\0')
			snprintf(name, sizeof(name), "//anon");
		prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		       PROT_EXEC;
		bid__mmap(rec, pid, start, end - start, name);
		err = rawfrag_writer__write_mmap2(rec->w, PERF_RECORD_MISC_USER, pid, pid, start,
						  end - start, pgoff, prot,
						  perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE,
						  name, NULL);
	}
	fclose(f);
	return err;
}

/* COMM for every thread of pid (+ FORK for the non-leaders), MMAP2 for the process */
int record__synth_task(struct record *rec, int pid)
{
	char p[64], comm[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", pid);
	d = opendir(p);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		read_comm(pid, tid, comm, sizeof(comm));
		if (tid != pid)
			err = rawfrag_writer__write_fork(rec->w, false, pid, pid, tid, pid, 0, NULL);
		if (!err)
			err = rawfrag_writer__write_comm(rec->w, pid, tid, comm, false, NULL);
	}
	closedir(d);
	/*
	 * the forked workload still runs our binary: its maps go at its exec, so
	 * perf record writes only its COMM (and so do we)
	 */
	if (!err && pid != rec->child)
		err = synth_mmaps(rec, pid);
	return err;
}

/* the kernel map perf expects: "[kernel.kallsyms]_text" at _text */
static int synth_kernel_mmap(struct rawfrag_writer *w)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr = 0, a;
	char line[512], name[256], type;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, "_text")) {
			addr = a;
			break;
		}
	}
	fclose(f);
	if (!addr)
		return 0; /* kptr_restrict: perf falls back to kallsyms itself */
	return rawfrag_writer__write_mmap2(w, PERF_RECORD_MISC_KERNEL, -1, 0, addr,
					   ~0ULL - addr, addr, PROT_READ | PROT_EXEC, 0,
					   "[kernel.kallsyms]_text", NULL);
}

int record__synth_all(struct record *rec)
{
	DIR *d;
	struct dirent *de;
	int err;

	err = synth_kernel_mmap(rec->w);
	if (err || !rec->system_wide) {
		for (int i = 0; !err && i < rec->nr_target_pids; i++)
			err = record__synth_task(rec, rec->target_pids[i]);
		return err;
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		int pid = atoi(de->d_name);

		if (pid > 0)
			err = record__synth_task(rec, pid);
	}
	closedir(d);
	return err;
}
