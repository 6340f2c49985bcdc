// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One pipe read by several readers (report -j on a pipe): each reader's file
 * parses the whole stream, as -j's workers do with a file they open again, but
 * only the tee read()s the descriptor. What it reads is kept in blocks until
 * every reader is past them. A reader more than the bound ahead of the slowest
 * waits for it; the slowest never waits for another, so the readers cannot
 * all wait. A reader that stops reading leaves, so that it holds nobody back.
 * The input's end or read error is met by every reader at the same offset.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/tee.h"

#define TEE_BLOCK (1u << 20)
#define TEE_SPARE 4

struct tee_block {
	uint64_t off;
	size_t len;
	uint8_t data[];
};

struct rf_tee {
	pthread_mutex_t mu;
	pthread_cond_t moved; /* bytes read, the end met, or a reader moved on */
	int fd;
	uint64_t bound;
	struct tee_block **b; /* in offset order: b[0] holds the oldest byte kept */
	size_t nr, cap;
	/* blocks all readers are past, to fill again: fresh ones fault their pages in */
	struct tee_block *spare[TEE_SPARE];
	int nr_spare;
	uint64_t end; /* bytes read from fd */
	bool eof, reading;
	int err;
	int nr_readers;
	uint64_t pos[]; /* where each reader reads next; UINT64_MAX once it left */
};

struct rf_tee *rf_tee__new(int fd, const void *head, size_t len, int readers, uint64_t bound)
{
	struct rf_tee *t;
	struct tee_block *b;

	if (readers < 1 || len > TEE_BLOCK)
		return NULL;
	t = calloc(1, sizeof(*t) + (size_t)readers * sizeof(t->pos[0]));
	if (!t)
		return NULL;
	b = malloc(sizeof(*b) + TEE_BLOCK);
	t->b = malloc(16 * sizeof(*t->b));
	if (!b || !t->b) {
		free(b);
		free(t->b);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->moved, NULL);
	t->fd = fd;
	t->bound = bound < 2 * TEE_BLOCK ? 2 * TEE_BLOCK : bound;
	t->cap = 16;
	b->off = 0;
	b->len = len;
	memcpy(b->data, head, len);
	t->b[t->nr++] = b;
	t->end = len;
	t->nr_readers = readers;
	return t;
}

void rf_tee__delete(struct rf_tee *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		free(t->b[i]);
	for (int i = 0; i < t->nr_spare; i++)
		free(t->spare[i]);
	free(t->b);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->moved);
	free(t);
}

static uint64_t slowest(const struct rf_tee *t)
{
	uint64_t m = UINT64_MAX;

	for (int i = 0; i < t->nr_readers; i++)
		if (t->pos[i] < m)
			m = t->pos[i];
	return m;
}

/* the blocks every reader is past; mu held */
static void release(struct rf_tee *t)
{
	uint64_t m = slowest(t);
	size_t k = 0;

	for (; k + 1 < t->nr && t->b[k]->off + t->b[k]->len <= m; k++) {
		if (t->nr_spare < TEE_SPARE)
			t->spare[t->nr_spare++] = t->b[k];
		else
			free(t->b[k]);
	}
	if (k) {
		memmove(t->b, t->b + k, (t->nr - k) * sizeof(*t->b));
		t->nr -= k;
	}
}

/* the block new bytes go to (the last, or a new one); mu held; NULL without memory */
static struct tee_block *tail_block(struct rf_tee *t)
{
	struct tee_block *last = t->b[t->nr - 1], *b;

	if (last->len < TEE_BLOCK)
		return last;
	if (t->nr == t->cap) {
		struct tee_block **v = realloc(t->b, 2 * t->cap * sizeof(*v));

		if (!v)
			return NULL;
		t->b = v;
		t->cap *= 2;
	}
	b = t->nr_spare ? t->spare[--t->nr_spare] : malloc(sizeof(*b) + TEE_BLOCK);
	if (!b)
		return NULL;
	b->off = t->end;
	b->len = 0;
	t->b[t->nr++] = b;
	return b;
}

/* one read() into the last block, mu dropped meanwhile; mu held */
static void fill(struct rf_tee *t)
{
	struct tee_block *b = tail_block(t);
	size_t room;
	ssize_t n;
	int e;

	if (!b) {
		t->err = -ENOMEM;
		return;
	}
	room = TEE_BLOCK - b->len;
	t->reading = true;
	pthread_mutex_unlock(&t->mu);
	/* only this thread writes past b->len; readers copy below it */
	do
		n = read(t->fd, b->data + b->len, room);
	while (n < 0 && errno == EINTR);
	e = errno;

	pthread_mutex_lock(&t->mu);
	t->reading = false;
	if (n > 0) {
		b->len += (size_t)n;
		t->end += (uint64_t)n;
	} else if (n == 0) {
		t->eof = true;
	} else {
		t->err = -e;
	}
	pthread_cond_broadcast(&t->moved);
}

ssize_t rf_tee__read(struct rf_tee *t, int r, uint64_t off, void *buf, size_t cap)
{
	struct tee_block *b = NULL;
	size_t i, from = 0, n = 0;
	int err;

	pthread_mutex_lock(&t->mu);
	t->pos[r] = off;
	release(t);
	pthread_cond_broadcast(&t->moved);
	while (off >= t->end && !t->eof && !t->err) {
		if (t->reading || t->end - slowest(t) >= t->bound)
			pthread_cond_wait(&t->moved, &t->mu);
		else
			fill(t);
	}
	if (off < t->end) {
		for (i = t->nr; i-- > 0;)
			if (t->b[i]->off <= off)
				break;
		b = t->b[i];
		from = (size_t)(off - b->off);
		n = b->len - from < cap ? b->len - from : cap;
	}
	err = t->err;
	pthread_mutex_unlock(&t->mu);
	if (b) {
		/* below the length seen, which nobody writes, in a block r keeps */
		memcpy(buf, b->data + from, n);
		return (ssize_t)n;
	}
	return err;
}

void rf_tee__leave(struct rf_tee *t, int r)
{
	pthread_mutex_lock(&t->mu);
	t->pos[r] = UINT64_MAX;
	release(t);
	pthread_cond_broadcast(&t->moved);
	pthread_mutex_unlock(&t->mu);
}

void rf_tee__only(struct rf_tee *t, int r)
{
	pthread_mutex_lock(&t->mu);
	for (int i = 0; i < t->nr_readers; i++)
		if (i != r)
			t->pos[i] = UINT64_MAX;
	release(t);
	pthread_cond_broadcast(&t->moved);
	pthread_mutex_unlock(&t->mu);
}
