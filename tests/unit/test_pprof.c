// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof profile builder and encoder (lib/output/pprof.c): strings,
 * mappings, functions, locations and samples each interned once with ids from
 * 1, samples aggregated by (stack, labels), and the written bytes a gzip
 * stream whose content protobuf-c's own decoder reads back as what was put in
 * (string 0 "", values in the columns' written order, labels, the main
 * binary's mapping first).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "internal/pprof.h"
#include "gen/profile.pb-c.h"

static void test_interning(void **state)
{
	struct rf_pprof *p = rf_pprof__new();
	int64_t a, b;
	uint64_t f1, f2, l1, l2, l3, fns[2];

	assert_non_null(p);
	assert_int_equal(rf_pprof__str(p, "", 0), 0);
	a = rf_pprof__str(p, "main", 4);
	b = rf_pprof__str(p, "mainx", 4); /* the first 4 bytes: the same string */
	assert_true(a > 0);
	assert_int_equal(a, b);
	assert_int_not_equal(rf_pprof__str(p, "main2", 5), a);
	f1 = rf_pprof__function(p, a, 0);
	f2 = rf_pprof__function(p, a, 0);
	assert_int_equal(f1, 1);
	assert_int_equal(f1, f2);
	assert_int_equal(rf_pprof__function(p, a, a), 2);
	fns[0] = 2;
	fns[1] = 1;
	l1 = rf_pprof__location(p, 0, 0x1000, fns, 2);
	l2 = rf_pprof__location(p, 0, 0x1000, fns, 2);
	l3 = rf_pprof__location(p, 0, 0x1000, fns, 1); /* other lines: another location */
	assert_int_equal(l1, 1);
	assert_int_equal(l1, l2);
	assert_int_equal(l3, 2);
	rf_pprof__delete(p);
}

/* gunzip all of fd's file into a malloc'ed buffer */
static uint8_t *gunzip_fd(int fd, size_t *len)
{
	gzFile gz;
	uint8_t *buf = malloc(1 << 20);
	int n;

	assert_non_null(buf);
	lseek(fd, 0, SEEK_SET);
	gz = gzdopen(dup(fd), "rb");
	assert_non_null(gz);
	n = gzread(gz, buf, 1 << 20);
	assert_true(n > 0);
	gzclose(gz);
	*len = (size_t)n;
	return buf;
}

static void test_roundtrip(void **state)
{
	struct rf_pprof *p = rf_pprof__new();
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct rf_pprof_mapping lib = { .start = 0x7f00, .limit = 0x8f00, .offset = 0x100,
					.file = "/lib/libc.so.6", .key = &lib };
	struct rf_pprof_mapping exe = { .start = 0x4000, .limit = 0x5000, .file = "/bin/prog",
					.bid = bid, .bid_size = 4, .key = &exe };
	int64_t types[3], units[3], comment;
	uint32_t order[3] = { 0, 2, 1 };
	struct rf_pprof_meta meta = { .types = types, .units = units, .order = order,
				      .nr_cols = 3, .time_nanos = 5, .duration_nanos = 7,
				      .comments = &comment, .nr_comments = 1 };
	struct rf_pprof_label lab = { 0 };
	struct rf_pprof_value v[2];
	uint64_t m1, m2, fn, locs[2];
	char path[] = "/tmp/test_pprof.XXXXXX";
	Perftools__Profiles__Profile *pr;
	const char *what;
	uint8_t *raw;
	size_t len;
	int fd;

	assert_non_null(p);
	types[0] = rf_pprof__str(p, "samples", 7);
	units[0] = units[1] = rf_pprof__str(p, "count", 5);
	types[1] = rf_pprof__str(p, "w", 1);
	types[2] = rf_pprof__str(p, "ev", 2);
	units[2] = rf_pprof__str(p, "nanoseconds", 11);
	comment = rf_pprof__str(p, "hello", 5);
	meta.default_type = types[2];
	m1 = rf_pprof__mapping(p, &lib);
	m2 = rf_pprof__mapping(p, &exe);
	assert_int_equal(m1, 1);
	assert_int_equal(m2, 2);
	assert_int_equal(rf_pprof__mapping(p, &exe), 2);
	fn = rf_pprof__function(p, rf_pprof__str(p, "leaf", 4), rf_pprof__str(p, "/bin/prog", 9));
	locs[0] = rf_pprof__location(p, m2, 0x4010, &fn, 1);
	locs[1] = rf_pprof__location(p, m1, 0x7f10, NULL, 0);
	lab.key = rf_pprof__str(p, "comm", 4);
	lab.str = rf_pprof__str(p, "prog", 4);
	/* three samples of one stack and label, one of the stack alone: two pprof samples */
	for (int i = 0; i < 3; i++) {
		v[0] = (struct rf_pprof_value){ 0, 1 };
		v[1] = (struct rf_pprof_value){ 2, 250 };
		assert_int_equal(rf_pprof__add(p, locs, 2, &lab, 1, v, 2), 0);
	}
	v[1] = (struct rf_pprof_value){ 1, 9 };
	assert_int_equal(rf_pprof__add(p, locs, 2, NULL, 0, v, 2), 0);
	assert_int_equal(rf_pprof__nr_samples(p), 2);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(rf_pprof__write(p, &meta, fd, &what), 0);
	raw = gunzip_fd(fd, &len);
	close(fd);
	pr = perftools__profiles__profile__unpack(NULL, len, raw);
	assert_non_null(pr);
	assert_string_equal(pr->string_table[0], "");
	assert_int_equal(pr->n_sample_type, 3);
	assert_string_equal(pr->string_table[pr->sample_type[1]->type], "ev");
	assert_string_equal(pr->string_table[pr->sample_type[1]->unit], "nanoseconds");
	assert_string_equal(pr->string_table[pr->sample_type[2]->type], "w");
	assert_string_equal(pr->string_table[pr->default_sample_type], "ev");
	assert_int_equal(pr->time_nanos, 5);
	assert_int_equal(pr->duration_nanos, 7);
	assert_string_equal(pr->string_table[pr->comment[0]], "hello");
	assert_int_equal(pr->n_sample, 2);
	/* columns as written: samples, ev, w */
	assert_int_equal(pr->sample[0]->n_value, 3);
	assert_int_equal(pr->sample[0]->value[0], 3);
	assert_int_equal(pr->sample[0]->value[1], 750);
	assert_int_equal(pr->sample[0]->value[2], 0);
	assert_int_equal(pr->sample[0]->n_label, 1);
	assert_string_equal(pr->string_table[pr->sample[0]->label[0]->str], "prog");
	assert_int_equal(pr->sample[1]->value[0], 1);
	assert_int_equal(pr->sample[1]->value[2], 9);
	assert_int_equal(pr->sample[1]->n_location_id, 2);
	/* the program is mapping 1, the library 2; locations follow */
	assert_int_equal(pr->n_mapping, 2);
	assert_int_equal(pr->mapping[0]->id, 1);
	assert_string_equal(pr->string_table[pr->mapping[0]->filename], "/bin/prog");
	assert_string_equal(pr->string_table[pr->mapping[0]->build_id], "deadbeef");
	assert_true(pr->mapping[0]->has_functions);
	assert_string_equal(pr->string_table[pr->mapping[1]->filename], "/lib/libc.so.6");
	assert_int_equal(pr->mapping[1]->file_offset, 0x100);
	assert_false(pr->mapping[1]->has_functions); /* a location without lines */
	assert_int_equal(pr->location[0]->mapping_id, 1);
	assert_int_equal(pr->location[1]->mapping_id, 2);
	assert_int_equal(pr->location[0]->n_line, 1);
	assert_string_equal(pr->string_table[pr->function[pr->location[0]->line[0]->function_id - 1]->name],
			    "leaf");
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(raw);
	rf_pprof__delete(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interning),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
