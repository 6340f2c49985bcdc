// SPDX-License-Identifier: GPL-2.0
/*
 * The ordering queue (lib/session/ordered_events.c) against a model of perf's
 * ordered events written here from perf's rules, not from the queue's code:
 * a list kept sorted by inserting each record after every record with a time
 * <= its own (ties in arrival order); max_timestamp set by an insertion at the
 * tail or into an empty list; a round marker delivers what is <= the previous
 * marker's max_timestamp (nothing while that is 0, nothing changes on an empty
 * list); over the byte bound, the older half of the queued time span goes out
 * at once and becomes the next round's limit.
 *
 * Cases: two CPUs' interleaved runs, equal times across runs, a record older
 * than what was already flushed, the early flush at every record, a pause
 * taken after any record, and random sequences of all of these.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal/ordered_events.h"

#define MAX_OPS 4000

/* ---- the model ---- */

struct m_ent {
	uint64_t time;
	uint32_t id;
	bool keep;
};

struct model {
	struct m_ent l[MAX_OPS]; /* sorted */
	size_t n;
	uint64_t max_ts, next_flush;
	uint32_t out[MAX_OPS];
	size_t nout, halves;
};

static void m_deliver(struct model *m, uint64_t limit)
{
	size_t k = 0, o = 0;

	while (k < m->n && m->l[k].time <= limit) {
		if (m->l[k].keep)
			m->out[m->nout++] = m->l[k].id;
		k++;
	}
	while (k < m->n)
		m->l[o++] = m->l[k++];
	m->n = o;
}

static void m_add(struct model *m, uint64_t time, uint32_t id, bool keep)
{
	size_t at = m->n;

	while (at && m->l[at - 1].time > time)
		at--;
	if (at == m->n)
		m->max_ts = time; /* at the tail, or into an empty list */
	memmove(&m->l[at + 1], &m->l[at], (m->n - at) * sizeof(m->l[0]));
	m->l[at] = (struct m_ent){ time, id, keep };
	m->n++;
}

static void m_half(struct model *m)
{
	uint64_t first = m->l[0].time, last = m->l[m->n - 1].time;
	uint64_t limit = first + (last - first) / 2;

	m_deliver(m, limit);
	m->next_flush = limit;
	m->halves++;
}

static void m_round(struct model *m)
{
	if (!m->n)
		return;
	if (m->next_flush)
		m_deliver(m, m->next_flush);
	m->next_flush = m->max_ts;
}

/* ---- the queue ---- */

struct sink {
	struct oe_queue *q;
	uint32_t out[MAX_OPS];
	size_t nout;
	uint32_t pause_every; /* ask for a pause after every Nth delivery */
	uint8_t data[64];
};

static int on_record(void *ctx, const struct rawfrag_record *rec, void *priv)
{
	struct sink *s = ctx;
	uint32_t id;

	memcpy(&id, rec->data, 4);
	/* the copy, the offset and priv all come back as given */
	assert_int_equal(id, (uint32_t)rec->offset);
	assert_ptr_equal(priv, (void *)(uintptr_t)(id * 2 + 1));
	s->out[s->nout++] = id;
	if (s->pause_every && s->nout % s->pause_every == 0)
		oe_queue__request_pause(s->q, true);
	return 0;
}

static void q_drain(struct sink *s, int ret)
{
	assert_int_equal(ret, 0);
	while (oe_queue__paused(s->q))
		assert_int_equal(oe_queue__resume(s->q), 0);
}

static void q_add(struct sink *s, uint64_t time, uint32_t id, bool keep)
{
	struct rawfrag_record rec = { .type = 9, .size = 8 + id % 40, .data = s->data, .offset = id };

	memcpy(s->data, &id, 4);
	q_drain(s, oe_queue__add(s->q, &rec, time, keep, (void *)(uintptr_t)(id * 2 + 1)));
}

/* ---- one scripted or random sequence through both ---- */

enum op_kind { OP_ADD, OP_ROUND, OP_FLUSH };

struct op {
	enum op_kind kind;
	uint64_t time;
	bool keep;
};

/*
 * bound: the queue's max_bytes (0: none). When to flush early depends on how
 * the queue counts its bytes: the model follows the queue's count of early
 * flushes, and checks what each one delivers. With a bound of 1 byte every
 * record flushes. Returns the number of early flushes.
 */
static size_t check_ops(const struct op *ops, size_t nops, uint64_t bound, uint32_t pause_every)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sink *s = calloc(1, sizeof(*s));
	uint32_t id = 0;
	size_t halves;

	assert_non_null(m);
	assert_non_null(s);
	s->q = oe_queue__new(on_record, s, bound);
	assert_non_null(s->q);
	s->pause_every = pause_every;
	for (size_t i = 0; i < nops; i++) {
		switch (ops[i].kind) {
		case OP_ADD:
			id++;
			m_add(m, ops[i].time, id, ops[i].keep);
			q_add(s, ops[i].time, id, ops[i].keep);
			if (oe_queue__nr_half_flushes(s->q) != m->halves || bound == 1)
				m_half(m);
			assert_int_equal(oe_queue__nr_half_flushes(s->q), m->halves);
			break;
		case OP_ROUND:
			m_round(m);
			q_drain(s, oe_queue__round(s->q));
			break;
		case OP_FLUSH:
			m_deliver(m, UINT64_MAX);
			q_drain(s, oe_queue__flush(s->q));
			break;
		}
		/* what went out so far, at every step */
		assert_int_equal(s->nout, m->nout);
		assert_memory_equal(s->out, m->out, m->nout * sizeof(m->out[0]));
	}
	m_deliver(m, UINT64_MAX);
	q_drain(s, oe_queue__flush(s->q));
	assert_int_equal(s->nout, m->nout);
	assert_memory_equal(s->out, m->out, m->nout * sizeof(m->out[0]));
	halves = m->halves;
	oe_queue__delete(s->q);
	free(m);
	free(s);
	return halves;
}

#define ADD(t) { OP_ADD, (t), true }
#define TIME_ONLY(t) { OP_ADD, (t), false }
#define ROUND { OP_ROUND, 0, false }

/* two CPUs read in turn each round, their times interleaving */
static void test_interleaved_runs(void **state)
{
	struct op ops[600];
	size_t n = 0;
	uint64_t t0 = 1000, t1 = 1001;

	(void)state;
	for (int r = 0; r < 40; r++) {
		for (int k = 0; k < 6; k++)
			ops[n++] = (struct op)ADD(t0 += 2 + (uint64_t)(k % 3));
		for (int k = 0; k < 7; k++)
			ops[n++] = (struct op)ADD(t1 += 2 + (uint64_t)(k % 2));
		ops[n++] = (struct op)ROUND;
	}
	check_ops(ops, n, 0, 0);
	check_ops(ops, n, 0, 5);
	check_ops(ops, n, 1, 0);
	assert_true(check_ops(ops, n, 2000, 3) > 0);
}

/* the same times in several runs: they come out in arrival order */
static void test_equal_times(void **state)
{
	const struct op ops[] = {
		ADD(10), ADD(20), ADD(20), ADD(30), /* run 1 */
		ADD(10), ADD(20), ADD(30),	    /* run 2 */
		ADD(5),	 ADD(20), TIME_ONLY(20), ADD(20), ROUND,
		ADD(20), ADD(30), ADD(30),	    /* after a round */
		ADD(15), ADD(30), ROUND,
		ADD(30), ADD(40), ROUND,	    ROUND,
	};

	(void)state;
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 0, 0);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 0, 1);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1, 0);
}

/* older than what a round already delivered: goes out at the next round, first */
static void test_older_than_flushed(void **state)
{
	const struct op ops[] = {
		ADD(100), ADD(200), ROUND, ADD(300), ADD(400), ROUND, /* 100, 200 out */
		ADD(150), ADD(50),  ADD(500), ROUND,		  /* 50, 150, 300, 400 */
		ADD(10),  ROUND,    ROUND,			  /* 10, then 500 */
		ADD(1),	  TIME_ONLY(2), ADD(3), ROUND,
	};

	(void)state;
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 0, 0);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 0, 2);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1, 0);
}

/*
 * Over the bound: the older half of the span goes out at once. One byte:
 * every record; 1500 bytes: every few records (small records cost more than
 * their size), so the queue holds some records across the early flushes.
 */
static void test_early_flush(void **state)
{
	const struct op ops[] = {
		ADD(100), ADD(300), ADD(200), ADD(200), ADD(50),  ROUND,
		ADD(400), ADD(400), TIME_ONLY(1000), ADD(350), ROUND, ADD(60),
		ADD(70),  ADD(900), ADD(80), ADD(85), ADD(950), ADD(90), ROUND,
		ADD(960), ADD(960), ADD(960), ADD(961), ADD(100), ADD(990),
	};
	struct sink s = { 0 };

	(void)state;
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1, 0);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1, 1);
	assert_true(check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1500, 0) > 0);
	check_ops(ops, sizeof(ops) / sizeof(ops[0]), 1500, 2);
	/* one byte: each record goes out as it comes, one held at most */
	s.q = oe_queue__new(on_record, &s, 1);
	assert_non_null(s.q);
	for (uint32_t i = 1; i <= 3; i++) {
		q_add(&s, 400 - i * 100, i, true);
		assert_int_equal(s.nout, i);
	}
	assert_int_equal(oe_queue__nr_half_flushes(s.q), 3);
	assert_int_equal(oe_queue__peak(s.q), 1);
	oe_queue__delete(s.q);
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return rnd_state >> 33;
}

/* random CPUs' runs, stragglers and ties, with and without the bound and pauses */
static void test_random(void **state)
{
	struct op *ops = calloc(MAX_OPS, sizeof(*ops));
	size_t halves = 0, partial = 0;

	(void)state;
	assert_non_null(ops);
	for (uint64_t seed = 1; seed <= 300; seed++) {
		uint64_t cpu_t[8] = { 0 };
		unsigned ncpu = 1 + (unsigned)(seed % 8), step = seed % 3 ? 3 : 1000;
		size_t n = 1 + (size_t)(seed * 7 % 1500);

		rnd_state = seed;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = rnd() % 100;

			if (r < 85) {
				unsigned c = (unsigned)(rnd() % ncpu);

				cpu_t[c] += rnd() % step;
				ops[i].kind = OP_ADD;
				ops[i].time = rnd() % 12 ? cpu_t[c] + 1 : 1 + rnd() % (cpu_t[c] + 1);
				ops[i].keep = rnd() % 8 != 0;
			} else {
				ops[i].kind = r < 98 ? OP_ROUND : OP_FLUSH;
			}
		}
		check_ops(ops, n, 0, 0);
		check_ops(ops, n, seed % 2, 1 + (uint32_t)(seed % 9));
		check_ops(ops, n, 1, 0);
		halves = check_ops(ops, n, 500 + seed * 37 % 3000, (uint32_t)(seed % 4));
		partial += halves > 0;
	}
	/* the bounded runs did flush early, not only the one-byte ones */
	assert_true(partial > 50);
	free(ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved_runs),
		cmocka_unit_test(test_equal_times),
		cmocka_unit_test(test_older_than_flushed),
		cmocka_unit_test(test_early_flush),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
