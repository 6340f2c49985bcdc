// SPDX-License-Identifier: GPL-2.0
/*
 * Wrap-aware perf ring reader. libperf 6.1's perf_mmap__read_event() copies at
 * most sizeof(union perf_event) (4168 bytes) of a record that straddles the end
 * of the ring (Documentation/perf.data-raw-format.txt, Reading the ring buffer), so
 * larger records (bpf-output blobs, long exec paths, user stacks) come back truncated.
 * Here a wrapped record is copied whole into a 64 KiB buffer (the largest record:
 * header.size is u16).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "ring.h"

#define RING_COPY_MAX 65536
/*
 * Hand space back to the kernel every 16 KiB read, not only at the end of a
 * drain: a write() that blocks midway (page cache, journal) then costs the
 * producer less of its ring. Not per record: data_tail's cache line would
 * bounce between us and the producing cpu.
 */
#define RING_RELEASE_STEP 16384

int ring__mmap(struct rf_ring *r, int fd, int cpu, unsigned int pages)
{
	long psz = sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->fd = fd;
	r->cpu = cpu;
	r->len = (size_t)(pages + 1) * psz;
	r->mask = (uint64_t)pages * psz - 1;
	r->copy = malloc(RING_COPY_MAX);
	if (!r->copy)
		return -ENOMEM;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int err = -errno;

		r->base = NULL;
		free(r->copy);
		r->copy = NULL;
		return err;
	}
	return 0;
}

void ring__munmap(struct rf_ring *r)
{
	if (r->base)
		munmap(r->base, r->len);
	free(r->copy);
	r->base = NULL;
	r->copy = NULL;
}

static unsigned char *ring_data(struct rf_ring *r)
{
	return (unsigned char *)r->base + (r->len - (r->mask + 1));
}

int ring__read(struct rf_ring *r, rf_ring_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pc = r->base;
	unsigned char *data;
	uint64_t head, tail, size = r->mask + 1, released;
	int n = 0, err = 0;

	if (!pc)
		return 0;
	data = ring_data(r);
	/* acquire: the record bytes are visible once data_head is */
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	released = tail;
	while (tail < head) {
		uint64_t off = tail & r->mask;
		struct perf_event_header hdr;
		const void *rec;

		/* records are 8-byte multiples: the header never straddles the end */
		if (head - tail < sizeof(hdr)) {
			err = -EBADMSG;
			break;
		}
		memcpy(&hdr, data + off, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			err = -EBADMSG;
			break;
		}
		if (off + hdr.size <= size) {
			rec = data + off;
		} else {
			uint64_t first = size - off;

			memcpy(r->copy, data + off, first);
			memcpy(r->copy + first, data, hdr.size - first);
			rec = r->copy;
			r->wrapped++;
			if (hdr.size > r->wrapped_max)
				r->wrapped_max = hdr.size;
		}
		err = fn(ctx, r, rec, hdr.size);
		tail += hdr.size;
		r->bytes += hdr.size;
		if (err < 0)
			break;
		n++;
		if (tail - released >= RING_RELEASE_STEP) {
			/* the record is in the writer's buffer: its ring bytes are free */
			__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
			released = tail;
		}
	}
	if (err == -EBADMSG)
		tail = head; /* resynchronise: nothing after a bad header can be trusted */
	/* release: we are done reading before the kernel may overwrite */
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}
