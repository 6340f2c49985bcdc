// SPDX-License-Identifier: GPL-2.0
/*
 * The hists of the table (lib/output/hists.c): entries made once per key,
 * strings interned once, and report -j's part of a key: the same in two
 * hists that interned their strings in another order (so at other
 * addresses), spread over the parts, and told apart by the bytes of an id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal/hists.h"

static void key_of(struct rf_hists *h, struct rf_hkey *k, const char *comm, const char *dso,
		   uint64_t start)
{
	memset(k, 0, 2 * sizeof(*k));
	k[0].id = k[0].show = rf_hists__intern(h, comm, strlen(comm));
	k[1].id = rf_hists__intern(h, dso, strlen(dso));
	k[1].u = start;
	assert_non_null(k[0].id);
	assert_non_null(k[1].id);
}

static void test_findnew(void **state)
{
	struct rf_hists h;
	struct rf_hkey a[2], b[2];
	struct rf_hentry *e, *f;
	bool made;

	(void)state;
	assert_int_equal(rf_hists__init(&h, 2), 0);
	key_of(&h, a, "ls", "libc.so.6", 0x1000);
	key_of(&h, b, "ls", "libc.so.6", 0x1000);
	assert_ptr_equal(a[0].id, b[0].id);
	e = rf_hists__findnew(&h, a, &made);
	assert_non_null(e);
	assert_true(made);
	/* no sample set it yet: -j's merge orders by it */
	assert_true(e->first == UINT64_MAX);
	f = rf_hists__findnew(&h, b, &made);
	assert_ptr_equal(e, f);
	assert_false(made);
	b[1].u = 0x2000;
	f = rf_hists__findnew(&h, b, &made);
	assert_true(made);
	assert_ptr_not_equal(e, f);
	assert_int_equal(f->seq, 1);
	rf_hists__fini(&h);
}

static void test_part(void **state)
{
	static const char *const comms[] = { "ls", "sh", "swapper", "perf", "kworker/0:1" };
	static const char *const dsos[] = { "[kernel.kallsyms]", "libc.so.6", "ls", "ld.so" };
	struct rf_hists x, y;
	uint32_t seen[4] = { 0 };

	(void)state;
	assert_int_equal(rf_hists__init(&x, 2), 0);
	assert_int_equal(rf_hists__init(&y, 2), 0);
	/* y interns the strings in the other order: other addresses, other pointers */
	for (int i = 4; i >= 0; i--)
		assert_non_null(rf_hists__intern(&y, comms[i], strlen(comms[i])));
	for (int i = 3; i >= 0; i--)
		assert_non_null(rf_hists__intern(&y, dsos[i], strlen(dsos[i])));
	for (int c = 0; c < 5; c++) {
		for (int d = 0; d < 4; d++) {
			for (uint64_t s = 0; s < 8; s++) {
				struct rf_hkey a[2], b[2];
				uint32_t p;

				key_of(&x, a, comms[c], dsos[d], 0x400000 + s * 64);
				key_of(&y, b, comms[c], dsos[d], 0x400000 + s * 64);
				p = rf_hists__part(&x, a, 4);
				assert_true(p < 4);
				assert_int_equal(p, rf_hists__part(&y, b, 4));
				assert_int_equal(rf_hists__part(&x, a, 1), 0);
				seen[p]++;
			}
		}
	}
	/* 160 keys over 4 parts: every part gets some */
	for (int i = 0; i < 4; i++)
		assert_true(seen[i] > 10);
	rf_hists__fini(&x);
	rf_hists__fini(&y);
}

/* the part follows the id's bytes: keys that differ only there part apart somewhere */
static void test_part_bytes(void **state)
{
	struct rf_hists h;
	int differ = 0;

	(void)state;
	assert_int_equal(rf_hists__init(&h, 2), 0);
	for (int i = 0; i < 32; i++) {
		char c1[16], c2[16];
		struct rf_hkey a[2], b[2];

		snprintf(c1, sizeof(c1), "task%d", i);
		snprintf(c2, sizeof(c2), "task%d", i + 1000);
		key_of(&h, a, c1, "ls", 0x10);
		key_of(&h, b, c2, "ls", 0x10);
		differ += rf_hists__part(&h, a, 2) != rf_hists__part(&h, b, 2);
	}
	assert_true(differ > 4);
	rf_hists__fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_findnew),
		cmocka_unit_test(test_part),
		cmocka_unit_test(test_part_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
