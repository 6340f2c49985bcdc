#!/usr/bin/env bash
# The Python module's Sample attributes on a multi-threaded workload (a pthread
# program built here: three named threads making system calls besides the main
# one): every attribute of every sample (pid, tid, cpu, time_ns, comm, event,
# producer, period, ip, sym, symoff, dso, addr, callchain, raw and its sizes,
# fields) equals report --format json's value for the same sample, read one
# attribute at a time (tests/scripts/py_attrs.py); the workload's samples carry
# its pid and the tids it reports, pid != tid on the threads' samples, and each
# thread's comm is the name it gave itself.
source "$(dirname "$0")/lib.sh"
t_plan 6
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export PYTHONPATH=$O/python
if ! ls "$O"/python/rawfrag*.so >/dev/null 2>&1; then
	t_fail "python module built" "no $O/python/rawfrag*.so"
	t_skip_rest "the module is not built"
fi
if ! is_root || ! ensure_tracefs; then t_skip_rest "recording needs root and tracefs"; fi
if ! command -v cc >/dev/null; then t_skip_rest "needs a C compiler for the workload"; fi

cat >mt.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pid_t tids[3];

static void *run(void *arg)
{
	long k = (long)arg;
	char name[16];
	struct timespec ts = { 0, 200000 };

	snprintf(name, sizeof(name), "rfmt-%d", (int)k + 1);
	pthread_setname_np(pthread_self(), name);
	tids[k] = gettid();
	for (int i = 0; i < 50; i++) {
		getppid();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	FILE *f;

	for (long k = 0; k < 3; k++)
		if (pthread_create(&t[k], NULL, run, (void *)k))
			return 1;
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d %d %d\n", getpid(), tids[0], tids[1], tids[2]);
	return fclose(f) != 0;
}
C
t_setup "build the pthread workload" cc -O1 -g -pthread -o mt mt.c
t_setup "record the workload" "$RAWFRAG" record -e raw_syscalls:sys_enter,sched:sched_switch -g \
	-o mt.data -- ./mt ids.txt
t_run "report --format json of the recording" 0 "$RAWFRAG" report --format json -i mt.data
mv "$T/out" mt.json
read -r wpid t1 t2 t3 <ids.txt
$PY "$TOP/tests/scripts/py_attrs.py" mt.data mt.json "$wpid" "$t1" "$t2" "$t3" >attrs.out 2>&1
tail -n1 attrs.out
sum=$(grep '^samples ' attrs.out)
t_eq "every attribute of every sample equals report's JSON" \
	"0" "$(awk '{print $8}' <<<"$sum")$(grep -m5 -E 'MISMATCH|Error' attrs.out)"
n=$(awk '{print $2}' <<<"$sum")
if [ "${n:-0}" -ge 100 ] && [ "$n" = "$(wc -l <mt.json)" ]; then
	t_ok "all $n samples compared"
else
	t_fail "all samples (at least 100) compared" "python: $n json: $(wc -l <mt.json)" "$(tail -3 attrs.out)"
fi
t_eq "samples of all four threads of the workload (pid $wpid)" 4 "$(awk '{print $10}' <<<"$sum")"
ne=$(awk '{print $12}' <<<"$sum")
if [ "${ne:-0}" -ge 30 ]; then t_ok "pid != tid on $ne samples of the threads"; else
	t_fail "pid != tid on the threads' samples" "$sum"; fi
t_grep "each thread's comm is the name it set" "comms .*rfmt-1,rfmt-2,rfmt-3" attrs.out
