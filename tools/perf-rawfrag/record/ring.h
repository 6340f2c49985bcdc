/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wrap-aware reader of one perf ring (ring.c): the lowest layer of the
 * record room, used by the record engine and by check --live.
 */
#ifndef __PERF_RAWFRAG_RECORD_RING_H
#define __PERF_RAWFRAG_RECORD_RING_H

#include <stddef.h>
#include <stdint.h>

/* One mmap'd perf ring: control page + 2^n data pages. */
struct rf_ring {
	int fd; /* not owned */
	int cpu;
	void *base; /* control page */
	size_t len; /* mapping length */
	uint64_t mask; /* data size - 1 */
	unsigned char *copy; /* 64 KiB for records that wrap, owned */
	uint64_t bytes; /* bytes read so far */
	uint64_t wrapped; /* records copied whole across the ring end */
	uint32_t wrapped_max; /* the largest of them */
};

typedef int (*rf_ring_fn)(void *ctx, struct rf_ring *ring, const void *rec, size_t len);

/* mmap pages data pages (power of two) of fd. */
int ring__mmap(struct rf_ring *r, int fd, int cpu, unsigned int pages);
void ring__munmap(struct rf_ring *r);
/*
 * Hand every complete record in the ring to fn (contiguous: a wrapped record is
 * copied whole, up to 64 KiB) and release the space. Returns the number of
 * records, or fn's negative return / -EBADMSG on a corrupt ring.
 */
int ring__read(struct rf_ring *r, rf_ring_fn fn, void *ctx);

#endif
