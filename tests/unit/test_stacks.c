// SPDX-License-Identifier: GPL-2.0
/*
 * The stack trie of the flame graph sinks (lib/output/stacks.c): nodes made
 * once per (parent, name), first-seen child order, totals, folded lines
 * sorted by bytes with equal strings merged, the JSON tree without zero
 * subtrees, growth past the initial tables, the weight limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/emit.h>

#include "internal/stacks.h"

/* the node of a path "a;b;c" under the root, made as needed */
static uint32_t path(struct rf_stacks *st, const char *p)
{
	char *dup = strdup(p), *save = NULL;
	uint32_t n = RF_STACKS_ROOT;

	for (char *f = strtok_r(dup, ";", &save); f; f = strtok_r(NULL, ";", &save))
		assert_int_equal(rf_stacks__child(st, n, f, strlen(f), RF_STACK_USER, &n), 0);
	free(dup);
	return n;
}

static char *text_of(struct rawfrag_out *o)
{
	size_t len;
	const char *m = rawfrag_out__mem(o, &len);
	char *s = malloc(len + 1);

	memcpy(s, m, len);
	s[len] = '\0';
	return s;
}

static void test_trie(void **state)
{
	struct rf_stacks *st = rf_stacks__new("all");
	uint32_t a, b, c;
	uint64_t *tot;

	assert_non_null(st);
	assert_int_equal(rf_stacks__weight(st, "samples", 7), 0);
	assert_int_equal(rf_stacks__weight(st, "period", 6), 1);
	assert_int_equal(rf_stacks__weight(st, "samples", 7), 0);
	a = path(st, "sh;main;f");
	b = path(st, "sh;main;g");
	c = path(st, "sh;main;f");
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	/* sh, main, f, g under the root */
	assert_int_equal(rf_stacks__nr_nodes(st), 5);
	/* one name, one ordinal: "main" twice under different parents is one name */
	path(st, "ls;main");
	assert_int_equal(rf_stacks__nr_names(st), 1 + 5);
	assert_int_equal(rf_stacks__add(st, a, 0, 3), 0);
	assert_int_equal(rf_stacks__add(st, b, 0, 1), 0);
	assert_int_equal(rf_stacks__add(st, b, 1, 100), 0);
	assert_int_equal(rf_stacks__add(st, b, 2, 1), -EINVAL);
	tot = rf_stacks__totals(st, 0);
	assert_int_equal(tot[RF_STACKS_ROOT], 4);
	assert_int_equal(tot[rf_stacks__node(st, a)->parent], 4);
	free(tot);
	/* children in first-seen order */
	assert_string_equal(rf_stacks__name(st, rf_stacks__node(st, rf_stacks__node(st, a)->parent)->first), "f");
	rf_stacks__delete(st);
}

static void test_folded(void **state)
{
	struct rf_stacks *st = rf_stacks__new("all");
	struct rawfrag_out *o = rawfrag_out__new(-1);
	uint32_t n;
	char *s;

	rf_stacks__weight(st, "w", 1);
	rf_stacks__add(st, path(st, "sh;b"), 0, 2);
	rf_stacks__add(st, path(st, "sh;a;x"), 0, 1);
	rf_stacks__add(st, path(st, "sh"), 0, 5);
	rf_stacks__add(st, path(st, "Zed;q"), 0, 7);
	rf_stacks__add(st, path(st, "sh;a"), 0, 0); /* no value: no line */
	/* two paths, one string ("a;b" as one name): one line with both counts */
	rf_stacks__add(st, path(st, "x;y"), 0, 1);
	assert_int_equal(rf_stacks__child(st, RF_STACKS_ROOT, "x;y", 3, 0, &n), 0);
	rf_stacks__add(st, n, 0, 4);
	assert_int_equal(rf_stacks__folded(st, 0, o), 0);
	s = text_of(o);
	/* bytes order: upper case first, "sh" before "sh;a;x" */
	assert_string_equal(s, "Zed;q 7\nsh 5\nsh;a;x 1\nsh;b 2\nx;y 5\n");
	free(s);
	rawfrag_out__delete(o);
	rf_stacks__delete(st);
}

static void test_json(void **state)
{
	struct rf_stacks *st = rf_stacks__new("all");
	struct rawfrag_out *o = rawfrag_out__new(-1);
	uint32_t k;
	char *s;

	rf_stacks__weight(st, "samples", 7);
	rf_stacks__weight(st, "lat", 3);
	assert_int_equal(rf_stacks__child(st, RF_STACKS_ROOT, "sh (1)", 6, RF_STACK_USER, &k), 0);
	assert_int_equal(rf_stacks__child(st, k, "schedule", 8, RF_STACK_KERNEL, &k), 0);
	rf_stacks__add(st, k, 0, 2);
	rf_stacks__add(st, k, 1, 9);
	rf_stacks__add(st, path(st, "sh (1);f\"<"), 0, 1);
	assert_int_equal(rf_stacks__json(st, 0, rf_stack_kinds, o), 0);
	s = text_of(o);
	assert_string_equal(s, "{\"n\": \"all\", \"l\": \"root\", \"v\": 0, \"c\": [{\"n\": \"sh (1)\", "
			       "\"l\": \"\", \"v\": 0, \"c\": [{\"n\": \"schedule\", \"l\": \"kernel\", "
			       "\"v\": 2, \"c\": []}, {\"n\": \"f\\\"<\", \"l\": \"\", \"v\": 1, \"c\": []}]}]}");
	free(s);
	/* the second weight: f has none, its subtree is left out */
	rawfrag_out__reset(o);
	assert_int_equal(rf_stacks__json(st, 1, rf_stack_kinds, o), 0);
	s = text_of(o);
	assert_null(strstr(s, "\"f"));
	assert_non_null(strstr(s, "\"schedule\", \"l\": \"kernel\", \"v\": 9"));
	free(s);
	rawfrag_out__delete(o);
	rf_stacks__delete(st);
}

static void test_growth(void **state)
{
	struct rf_stacks *st = rf_stacks__new("all");
	char name[32];
	uint64_t *tot;
	uint32_t n;

	rf_stacks__weight(st, "w", 1);
	/* 60000 leaves under 300 parents: past every initial table */
	for (int i = 0; i < 60000; i++) {
		snprintf(name, sizeof(name), "p%d", i % 300);
		assert_int_equal(rf_stacks__child(st, RF_STACKS_ROOT, name, strlen(name), 0, &n), 0);
		snprintf(name, sizeof(name), "leaf%d", i);
		assert_int_equal(rf_stacks__child(st, n, name, strlen(name), 0, &n), 0);
		assert_int_equal(rf_stacks__add(st, n, 0, (uint64_t)i), 0);
	}
	assert_int_equal(rf_stacks__nr_nodes(st), 1 + 300 + 60000);
	/* the same paths again: nothing new */
	assert_int_equal(rf_stacks__child(st, RF_STACKS_ROOT, "p7", 2, 0, &n), 0);
	assert_int_equal(rf_stacks__child(st, n, "leaf7", 5, 0, &n), 0);
	assert_int_equal(rf_stacks__self(st, n, 0), 7);
	assert_int_equal(rf_stacks__nr_nodes(st), 1 + 300 + 60000);
	tot = rf_stacks__totals(st, 0);
	assert_int_equal(tot[RF_STACKS_ROOT], 59999ull * 60000 / 2);
	free(tot);
	/* the weight limit */
	for (int w = 1; w < RF_STACKS_MAX_WEIGHTS; w++) {
		snprintf(name, sizeof(name), "f%d", w);
		assert_int_equal(rf_stacks__weight(st, name, strlen(name)), w);
	}
	assert_int_equal(rf_stacks__weight(st, "one_more", 8), -ENOSPC);
	rf_stacks__delete(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trie),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
