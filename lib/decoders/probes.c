// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probing a tracing data blob forks a child that runs libtraceevent
 * (tracepoint_data.c). Forked from one of several threads, the child gets
 * every lock another thread held at that moment, the allocator's included,
 * and each child holds the others' pipe ends: with report -j, where every
 * worker meets the same blob at once, children hung. So the workers of one
 * report share a blob's answer: the first to meet it waits until the other
 * live workers have met it too (they then wait in here, holding nothing),
 * forks, and hands them what it found. A worker kept elsewhere (a stream
 * where the blob comes late, after a worker waits for the output's writer)
 * is waited for only a while, then the probe goes on without it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal/probes.h"

#define PROBE_WAIT_MS 200

struct probe_entry {
	struct probe_entry *next;
	uint64_t size;
	void *blob;
	int arrived;
	bool probing, done;
	int nr;
	int skip[];
};

struct rf_probes {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int live;
	struct probe_entry *e;
	bool left[];
};

struct rf_probes *rf_probes__new(int workers)
{
	struct rf_probes *p = calloc(1, sizeof(*p) + (size_t)workers * sizeof(p->left[0]));
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	p->live = workers;
	return p;
}

void rf_probes__delete(struct rf_probes *p)
{
	if (!p)
		return;
	while (p->e) {
		struct probe_entry *e = p->e;

		p->e = e->next;
		free(e->blob);
		free(e);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}

void rf_probes__leave(struct rf_probes *p, int id)
{
	pthread_mutex_lock(&p->mu);
	if (!p->left[id]) {
		p->left[id] = true;
		p->live--;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

static struct probe_entry *find(struct rf_probes *p, const void *blob, uint64_t size, int max)
{
	struct probe_entry *e;

	for (e = p->e; e; e = e->next)
		if (e->size == size && !memcmp(e->blob, blob, size))
			return e;
	e = calloc(1, sizeof(*e) + (size_t)max * sizeof(e->skip[0]));
	if (!e || !(e->blob = malloc(size ? size : 1))) {
		free(e);
		return NULL;
	}
	memcpy(e->blob, blob, size);
	e->size = size;
	e->next = p->e;
	p->e = e;
	return e;
}

int rf_probes__get(struct rf_probes *p, const void *blob, uint64_t size, int *skip, int max,
		   int *nr,
		   void (*probe)(const void *blob, uint64_t size, int *skip, int max, int *nr))
{
	struct probe_entry *e;
	struct timespec until;

	pthread_mutex_lock(&p->mu);
	e = find(p, blob, size, max);
	if (!e) {
		pthread_mutex_unlock(&p->mu);
		return -ENOMEM;
	}
	e->arrived++;
	pthread_cond_broadcast(&p->cv);
	if (!e->done && !e->probing) {
		e->probing = true;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += PROBE_WAIT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (e->arrived < p->live &&
		       pthread_cond_timedwait(&p->cv, &p->mu, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&p->mu);
		probe(blob, size, e->skip, max, &e->nr);
		pthread_mutex_lock(&p->mu);
		e->done = true;
		pthread_cond_broadcast(&p->cv);
	}
	while (!e->done)
		pthread_cond_wait(&p->cv, &p->mu);
	memcpy(skip, e->skip, (size_t)e->nr * sizeof(*skip));
	*nr = e->nr;
	pthread_mutex_unlock(&p->mu);
	return 0;
}
