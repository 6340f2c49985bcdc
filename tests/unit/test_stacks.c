// SPDX-License-Identifier: GPL-2.0
/*
 * The stack trie of the flame graph sinks (lib/output/stacks.c): nodes made
 * once per (parent, name), first-seen child order, totals, folded lines
 * sorted by bytes with equal strings merged, the JSON tree without zero
 * subtrees, growth past the initial tables, the weight limit, -j's merge of
 * tries in first-seen order.
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

/*
 * -j's merge: samples dealt round-robin to three tries (sequence numbers set)
 * give, merged, the JSON (children in first-seen order) and the folded
 * lines of one trie fed every sample in order
 */
static void test_merge(void **state)
{
	static const char *const samples[] = {
		"sh;main;f", "ls;main;g", "sh;main;g", "sh;x", "ls;main;f", "sh;main;f;h",
		"ls;y", "sh;main;f", "cc;z", "ls;main;g;k", "sh;x;q", "cc;z;w", "ls;y",
	};
	const size_t n = sizeof(samples) / sizeof(samples[0]);
	struct rf_stacks *one = rf_stacks__new("all"), *part[3];
	struct rawfrag_out *o1 = rawfrag_out__new(-1), *o2 = rawfrag_out__new(-1);
	char *a, *b;

	rf_stacks__weight(one, "w", 1);
	for (int k = 0; k < 3; k++) {
		part[k] = rf_stacks__new("all");
		rf_stacks__weight(part[k], "w", 1);
	}
	for (size_t i = 0; i < n; i++) {
		struct rf_stacks *p = part[i % 3];

		rf_stacks__add(one, path(one, samples[i]), 0, i + 1);
		assert_int_equal(rf_stacks__set_seq(p, i), 0);
		rf_stacks__add(p, path(p, samples[i]), 0, i + 1);
	}
	/* a trie never set_seq'd cannot be ordered, unless it is the root alone */
	assert_int_equal(rf_stacks__merge(part[0], &one, 1), -EINVAL);
	{
		struct rf_stacks *empty = rf_stacks__new("all");
		uint32_t before = rf_stacks__nr_nodes(part[2]);

		rf_stacks__weight(empty, "w", 1);
		assert_int_equal(rf_stacks__merge(part[2], &empty, 1), 0);
		assert_int_equal(rf_stacks__nr_nodes(part[2]), before);
		rf_stacks__delete(empty);
	}
	assert_int_equal(rf_stacks__merge(part[0], &part[1], 2), 0);
	assert_int_equal(rf_stacks__nr_nodes(part[0]), rf_stacks__nr_nodes(one));
	assert_int_equal(rf_stacks__json(one, 0, rf_stack_kinds, o1), 0);
	assert_int_equal(rf_stacks__json(part[0], 0, rf_stack_kinds, o2), 0);
	a = text_of(o1);
	b = text_of(o2);
	assert_string_equal(a, b);
	/* the order is first-seen, not by name: sh before ls before cc */
	assert_true(strstr(a, "\"sh\"") < strstr(a, "\"ls\"") &&
		    strstr(a, "\"ls\"") < strstr(a, "\"cc\""));
	free(a);
	free(b);
	rawfrag_out__delete(o1);
	rawfrag_out__delete(o2);
	o1 = rawfrag_out__new(-1);
	o2 = rawfrag_out__new(-1);
	assert_int_equal(rf_stacks__folded(one, 0, o1), 0);
	assert_int_equal(rf_stacks__folded(part[0], 0, o2), 0);
	a = text_of(o1);
	b = text_of(o2);
	assert_string_equal(a, b);
	free(a);
	free(b);
	rawfrag_out__delete(o1);
	rawfrag_out__delete(o2);
	for (int k = 0; k < 3; k++)
		rf_stacks__delete(part[k]);
	rf_stacks__delete(one);
}

/*
 * Weights made on first use (the HTML page's decoded fields): merged tries
 * list them in the order one trie fed in order made them, by the sample that
 * first had each, and keep every node's value under the right one.
 */
static void test_merge_weights(void **state)
{
	static const struct {
		const char *stack, *w;
	} samples[] = {
		{ "sh;main", "a" }, { "ls;main", "b" }, { "sh;f", "c" }, { "ls;main", "c" },
		{ "sh;main", "b" }, { "cc;z", "d" }, { "ls;g", "a" }, { "cc;z", "e" },
	};
	const size_t n = sizeof(samples) / sizeof(samples[0]);
	struct rf_stacks *one = rf_stacks__new("all"), *part[3];

	for (int k = 0; k < 3; k++)
		part[k] = rf_stacks__new("all");
	for (size_t i = 0; i < n; i++) {
		struct rf_stacks *p = part[i % 3];
		const char *w = samples[i].w;

		rf_stacks__add(one, path(one, samples[i].stack), rf_stacks__weight(one, w, 1), i + 1);
		assert_int_equal(rf_stacks__set_seq(p, i), 0);
		rf_stacks__add(p, path(p, samples[i].stack), rf_stacks__weight(p, w, 1), i + 1);
	}
	/* c is part 0's second weight and part 2's first: the merge takes sample 2's place */
	assert_string_equal(rf_stacks__weight_name(part[0], 1), "c");
	assert_int_equal(rf_stacks__merge(part[0], &part[1], 2), 0);
	assert_int_equal(rf_stacks__nr_weights(part[0]), rf_stacks__nr_weights(one));
	for (int w = 0; w < rf_stacks__nr_weights(one); w++) {
		assert_string_equal(rf_stacks__weight_name(part[0], w), rf_stacks__weight_name(one, w));
		for (uint32_t id = 0; id < rf_stacks__nr_nodes(one); id++)
			assert_int_equal(rf_stacks__self(part[0], id, w), rf_stacks__self(one, id, w));
	}
	assert_string_equal(rf_stacks__weight_name(part[0], 4), "e");
	rf_stacks__delete(one);
	for (int k = 0; k < 3; k++)
		rf_stacks__delete(part[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trie),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
