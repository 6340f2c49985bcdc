// SPDX-License-Identifier: GPL-2.0
/*
 * What `perf rawfrag record` records: the cpu map (-C or all online cpus) and
 * the thread map (-p: every thread of the processes, -t: the threads, a command:
 * the forked workload, none: system-wide), as perf's target/evlist code does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/cpumap.h>
#include <perf/threadmap.h>

#include "record-int.h"
#include "record-target.h"

static int push_int(int **arr, int *nr, int v)
{
	int *n = realloc(*arr, (*nr + 1) * sizeof(int));

	if (!n)
		return -ENOMEM;
	*arr = n;
	n[(*nr)++] = v;
	return 0;
}

static int parse_pids(const char *list, bool threads_of, int **out, int *nr, int **procs,
		      int *nr_procs)
{
	char *s = strdup(list), *save = NULL, *t;
	int err = 0;

	if (!s)
		return -ENOMEM;
	for (t = strtok_r(s, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
		char *end, p[64];
		long pid = strtol(t, &end, 10);
		DIR *d;
		struct dirent *de;

		if (end == t || *end || pid <= 0) {
			record__err("bad pid/tid '%s'", t);
			err = -EINVAL;
			break;
		}
		snprintf(p, sizeof(p), "/proc/%ld/task", pid);
		if (access(p, F_OK)) {
			record__err("no such process/thread %ld", pid);
			err = -ESRCH;
			break;
		}
		err = push_int(procs, nr_procs, pid);
		d = threads_of ? opendir(p) : NULL;
		/* -p: every thread of the process; -t: just that thread */
		while (!err && (d ? (de = readdir(d)) != NULL : pid > 0)) {
			int tid = d ? atoi(de->d_name) : pid;

			if (!d)
				pid = 0;
			if (tid <= 0)
				continue;
			err = push_int(out, nr, tid);
		}
		if (d)
			closedir(d);
	}
	free(s);
	return err;
}

/*
 * fork the workload, stopped until go_fd is closed (after the events are set
 * up); a failed exec writes its errno into a close-on-exec pipe, so the parent
 * tells "could not run" from "ran and exited 127"
 */
static int start_workload(struct record *rec)
{
	int go[2], ex[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return err;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ex[0]);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* pipe mode: stdout carries perf.data, the workload talks on stderr */
		if (rec->opts.output && !strcmp(rec->opts.output, "-"))
			dup2(2, 1);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* record gave up before starting us */
		execvp(rec->opts.argv[0], rec->opts.argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	rec->go_fd = go[1];
	rec->exec_fd = ex[0];
	rec->child = pid;
	return 0;
}

/* the cpus of cpu_list that this machine has: "CPU 99 is not present", as perf */
static int check_present(struct record *rec)
{
	char buf[4096] = "";
	struct perf_cpu_map *present = NULL;
	FILE *f = fopen("/sys/devices/system/cpu/present", "r");
	int err = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (buf[0])
		present = perf_cpu_map__new(buf);
	if (!present)
		return 0; /* no sysfs: the kernel will say */
	for (int i = 0; i < perf_cpu_map__nr(rec->cpus) && !err; i++) {
		struct perf_cpu cpu = perf_cpu_map__cpu(rec->cpus, i);

		if (!perf_cpu_map__has(present, cpu)) {
			record__err("CPU %d is not present (present: %s)", cpu.cpu, buf);
			err = -ENODEV;
		}
	}
	perf_cpu_map__put(present);
	return err;
}

/* a target is gone when /proc has no such task or it is a zombie */
static bool task_gone(int pid)
{
	char p[64], buf[256], *rp;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	f = fopen(p, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

bool record__targets_gone(struct record *rec)
{
	if (!rec->opts.pid && !rec->opts.tid)
		return false;
	for (int i = 0; i < rec->nr_target_pids; i++)
		if (!task_gone(rec->target_pids[i]))
			return false;
	return true;
}

int record__setup_targets(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	int *tids = NULL, nr = 0, err = 0;

	/*
	 * as perf: -a/-C with a command record the cpus until the command exits,
	 * and no target at all is a system-wide recording
	 */
	rec->system_wide = o->system_wide || (!o->pid && !o->tid && (o->cpu_list || !o->argv));
	rec->cpus = perf_cpu_map__new(o->cpu_list);
	if (!rec->cpus || perf_cpu_map__nr(rec->cpus) == 0 ||
	    perf_cpu_map__cpu(rec->cpus, 0).cpu < 0) {
		record__err("bad cpu list '%s'", o->cpu_list ? o->cpu_list : "(online)");
		return -EINVAL;
	}
	if (o->cpu_list && check_present(rec))
		return -ENODEV;
	if (o->pid)
		err = parse_pids(o->pid, true, &tids, &nr, &rec->target_pids, &rec->nr_target_pids);
	if (!err && o->tid)
		err = parse_pids(o->tid, false, &tids, &nr, &rec->target_pids,
				 &rec->nr_target_pids);
	if (!err && o->argv) {
		err = start_workload(rec);
		if (err)
			record__err("cannot start '%s': %s", o->argv[0], strerror(-err));
		if (!err && !rec->system_wide)
			err = push_int(&tids, &nr, rec->child);
		if (!err && !rec->system_wide)
			err = push_int(&rec->target_pids, &rec->nr_target_pids, rec->child);
	}
	if (!err && rec->system_wide && nr) {
		record__err("-a and -p/-t exclude each other");
		err = -EINVAL;
	}
	if (!err)
		rec->threads = nr ? perf_thread_map__new_array(nr, tids) :
				    perf_thread_map__new_dummy();
	if (!err && !rec->threads)
		err = -ENOMEM;
	rec->nr_threads = rec->threads ? perf_thread_map__nr(rec->threads) : 0;
	free(tids);
	return err;
}

