// SPDX-License-Identifier: GPL-2.0
/*
 * The wrap-aware ring reader of perf rawfrag record (tools/perf-rawfrag/record/ring.c,
 * compiled in) on a ring made in memory: a control page and 128 KiB of data, the
 * head and tail moved as the kernel and the reader would. Every record size from 8
 * to 65528 bytes is written whole, across the ring end with only its header before
 * the end, split in its middle, and unwrapped; each must come back byte for byte.
 * Several records in one read, and corrupt headers (resynchronised) too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../tools/perf-rawfrag/record/ring.c"

#define DATA (128 * 1024)
#define PAGE 4096
#define MAXREC 65528

struct fake {
	struct rf_ring r;
	unsigned char pat[65536]; /* record bytes after the header */
	unsigned char tmp[65536];
	uint64_t head; /* absolute, as data_head */
	unsigned long seen, bad;
	size_t want; /* size of the next record the callback expects */
};

static struct perf_event_mmap_page *pc(struct fake *f)
{
	return f->r.base;
}

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->r.len = PAGE + DATA;
	f->r.mask = DATA - 1;
	f->r.base = aligned_alloc(PAGE, f->r.len);
	f->r.copy = malloc(RING_COPY_MAX);
	assert_non_null(f->r.base);
	assert_non_null(f->r.copy);
	memset(f->r.base, 0xee, f->r.len);
	memset(pc(f), 0, sizeof(struct perf_event_mmap_page));
	/* no byte equals its neighbour's, and the sequence does not repeat in 256 */
	for (size_t i = 0; i < sizeof(f->pat); i++)
		f->pat[i] = (unsigned char)(i ^ (i >> 8) ^ 0x5a);
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->r.base);
	free(f->r.copy);
	free(f);
}

/* As the kernel writes: the record at data_head, across the end if it must. */
static void put(struct fake *f, uint16_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = size };
	unsigned char *data = (unsigned char *)f->r.base + PAGE;
	uint64_t off = f->head & f->r.mask, first = DATA - off;

	memcpy(f->tmp, &h, sizeof(h));
	memcpy(f->tmp + sizeof(h), f->pat + sizeof(h), size - sizeof(h));
	if (first >= size) {
		memcpy(data + off, f->tmp, size);
	} else {
		memcpy(data + off, f->tmp, first);
		memcpy(data, f->tmp + first, size - first);
	}
	f->head += size;
	__atomic_store_n(&pc(f)->data_head, f->head, __ATOMIC_RELEASE);
}

static int check_rec(void *ctx, struct rf_ring *ring, const void *rec, size_t len)
{
	struct fake *f = ctx;
	const struct perf_event_header *h = rec;

	f->seen++;
	if (len != f->want || h->size != len || h->type != PERF_RECORD_SAMPLE ||
	    memcmp((const unsigned char *)rec + sizeof(*h), f->pat + sizeof(*h), len - sizeof(*h)))
		f->bad++;
	return 0;
}

/* Move the (empty) ring so that the next record starts at data offset off. */
static void place(struct fake *f, uint64_t off)
{
	uint64_t cur = f->head & f->r.mask;

	f->head += (off - cur) & f->r.mask;
	pc(f)->data_tail = f->head;
	__atomic_store_n(&pc(f)->data_head, f->head, __ATOMIC_RELEASE);
}

static void test_every_size(void **state)
{
	struct fake *f = fake_new();
	unsigned long wrapped = 0, n = 0;

	for (uint32_t size = 8; size <= MAXREC; size += 8) {
		/* header alone before the end; split in the middle; not wrapped */
		uint64_t offs[3] = { DATA - 8, DATA - ((size / 2) & ~7u), 0 };

		for (int k = 0; k < 3; k++) {
			uint64_t off = offs[k] & f->r.mask;
			bool wraps = off + size > DATA;

			place(f, off);
			put(f, (uint16_t)size);
			f->want = size;
			if (ring__read(&f->r, check_rec, f) != 1 || f->bad)
				fail_msg("size %u at data offset %llu: %lu bad of %lu", size,
					 (unsigned long long)off, f->bad, f->seen);
			assert_int_equal(pc(f)->data_tail, f->head);
			wrapped += wraps;
			n++;
		}
	}
	assert_int_equal(f->seen, n);
	assert_int_equal(f->r.wrapped, wrapped);
	assert_int_equal(f->r.wrapped_max, MAXREC);
	/* 8191 sizes, 3 placements; every size but 8 wraps with only its header left */
	assert_int_equal(n, 3 * 8191);
	assert_true(wrapped >= 2 * 8190);
	fake_free(f);
}

static void test_many_in_one_read(void **state)
{
	struct fake *f = fake_new();
	/* 30 records of 4000 bytes (120000 bytes) from 64 KiB on: several wrap points */
	place(f, 65536);
	for (int i = 0; i < 30; i++)
		put(f, 4000);
	f->want = 4000;
	assert_int_equal(ring__read(&f->r, check_rec, f), 30);
	assert_int_equal(f->bad, 0);
	assert_int_equal(f->r.wrapped, 1);
	assert_int_equal(pc(f)->data_tail, f->head);
	assert_int_equal(f->r.bytes, 120000);
	fake_free(f);
}

static int count_rec(void *ctx, struct rf_ring *ring, const void *rec, size_t len)
{
	((struct fake *)ctx)->seen++;
	return 0;
}

static void test_corrupt(void **state)
{
	struct fake *f = fake_new();
	unsigned char *data = (unsigned char *)f->r.base + PAGE;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 4 };

	/* a good record, then a header whose size is below the header's own */
	place(f, 0);
	put(f, 64);
	memcpy(data + 64, &h, sizeof(h));
	f->head += 64;
	__atomic_store_n(&pc(f)->data_head, f->head, __ATOMIC_RELEASE);
	assert_int_equal(ring__read(&f->r, count_rec, f), -EBADMSG);
	assert_int_equal(f->seen, 1);
	/* resynchronised: the tail jumps to the head, nothing behind it is read */
	assert_int_equal(pc(f)->data_tail, f->head);

	/* a size reaching past data_head */
	h.size = 4096;
	memcpy(data + (f->head & f->r.mask), &h, sizeof(h));
	f->head += 64;
	__atomic_store_n(&pc(f)->data_head, f->head, __ATOMIC_RELEASE);
	assert_int_equal(ring__read(&f->r, count_rec, f), -EBADMSG);
	assert_int_equal(pc(f)->data_tail, f->head);
	assert_int_equal(f->seen, 1);

	/* fewer bytes than a header between tail and head */
	pc(f)->data_tail = f->head;
	f->head += 4;
	__atomic_store_n(&pc(f)->data_head, f->head, __ATOMIC_RELEASE);
	assert_int_equal(ring__read(&f->r, count_rec, f), -EBADMSG);
	fake_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_many_in_one_read),
		cmocka_unit_test(test_corrupt),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
