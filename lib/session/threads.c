// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The session's thread table (see internal/threads.h): an open-addressing
 * hash by tid, with the previous lookup cached because samples come in runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/threads.h"

struct rf_thread {
	int32_t tid, pid; /* pid -1: not known yet */
	bool used, comm_set;
	uint8_t comm_len;
	char comm[16]; /* NUL-padded */
};

struct rf_threads {
	struct rf_thread *slots;
	uint32_t mask, used;
	struct rf_thread *last; /* the previous lookup: samples come in runs */
};

static struct rf_thread *thread_slot(const struct rf_threads *t, int32_t tid)
{
	uint32_t i = ((uint32_t)tid * 2654435761u) & t->mask;

	while (t->slots[i].used && t->slots[i].tid != tid)
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

static int threads_grow(struct rf_threads *t)
{
	struct rf_threads n = { .mask = 2 * t->mask + 1 };

	n.slots = calloc(n.mask + 1, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->slots[i].used)
			*thread_slot(&n, t->slots[i].tid) = t->slots[i];
	free(t->slots);
	t->slots = n.slots;
	t->mask = n.mask;
	t->last = NULL;
	return 0;
}

/* perf's machine__findnew_thread(): an unknown pid is learnt once */
static struct rf_thread *thread_findnew(struct rf_threads *t, int32_t pid, int32_t tid)
{
	struct rf_thread *th = t->last;

	if (!th || th->tid != tid) {
		/* the table only grows when a thread is added: a lookup needs no check */
		th = thread_slot(t, tid);
		if (!th->used) {
			if ((t->used + 1) * 2 > t->mask + 1) {
				if (threads_grow(t))
					return NULL;
				th = thread_slot(t, tid);
			}
			*th = (struct rf_thread){ .tid = tid, .pid = pid, .used = true };
			t->used++;
		}
		t->last = th;
	}
	if (th->pid == -1)
		th->pid = pid;
	return th;
}

struct rf_threads *rf_threads__new(void)
{
	struct rf_threads *t = calloc(1, sizeof(*t));
	struct rf_thread *idle;

	if (!t)
		return NULL;
	t->mask = 1023;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	/* perf_session__register_idle_thread() */
	idle = thread_findnew(t, 0, 0);
	idle->comm_set = true;
	idle->comm_len = 7;
	memcpy(idle->comm, "swapper", 8);
	return t;
}

void rf_threads__delete(struct rf_threads *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

/* machine__process_fork_event() */
static int thread_fork(struct rf_threads *t, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	struct rf_thread *parent = thread_findnew(t, ppid, ptid), *child;
	char comm[16];
	uint8_t len;
	bool has;

	if (!parent)
		return -ENOMEM;
	/* "removing erroneous parent thread": a new one takes its place */
	if (parent->pid != ppid)
		*parent = (struct rf_thread){ .tid = ptid, .pid = ppid, .used = true };
	has = parent->comm_set;
	len = parent->comm_len;
	memcpy(comm, parent->comm, sizeof(comm));
	/* an existing thread with the child's tid is removed; the child is new */
	child = thread_findnew(t, pid, tid);
	if (!child)
		return -ENOMEM;
	*child = (struct rf_thread){ .tid = tid, .pid = pid, .used = true, .comm_set = has,
				     .comm_len = len };
	memcpy(child->comm, comm, sizeof(comm));
	return 0;
}

int rf_threads__event(struct rf_threads *t, const struct rawfrag_record *rec, bool swap)
{
	const uint8_t *d = rec->data;

	if (rec->type == PERF_RECORD_COMM && rec->size > 16) {
		struct rf_thread *th = thread_findnew(t, (int32_t)rawfrag__get32(d + 8, swap),
						      (int32_t)rawfrag__get32(d + 12, swap));
		size_t len = rec->size - 16u;

		if (!th)
			return -ENOMEM;
		len = strnlen((const char *)d + 16, len < 15 ? len : 15);
		memset(th->comm, 0, sizeof(th->comm));
		memcpy(th->comm, d + 16, len);
		th->comm_len = (uint8_t)len;
		th->comm_set = true;
		return 0;
	}
	if (rec->type == PERF_RECORD_FORK && rec->size >= 24)
		return thread_fork(t, (int32_t)rawfrag__get32(d + 8, swap),
				   (int32_t)rawfrag__get32(d + 12, swap),
				   (int32_t)rawfrag__get32(d + 16, swap),
				   (int32_t)rawfrag__get32(d + 20, swap));
	return 0;
}

int rf_threads__pid(struct rf_threads *t, int32_t pid, int32_t tid, int32_t *out)
{
	struct rf_thread *th = thread_findnew(t, pid, tid);

	if (!th)
		return -ENOMEM;
	*out = th->pid;
	return 0;
}

const char *rf_threads__comm(struct rf_threads *t, int32_t pid, int32_t tid, int *len)
{
	struct rf_thread *th = thread_findnew(t, pid, tid);

	if (!th || !th->comm_set)
		return NULL;
	*len = th->comm_len;
	return th->comm;
}
