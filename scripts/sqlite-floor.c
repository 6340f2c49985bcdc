// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, SQLite: the floor of libsqlite3 itself for perf's samples table.
 * Inserts N rows of its 25 integer columns through one prepared statement in
 * one transaction, with the load PRAGMAs report --format sqlite uses, and
 * nothing else (no decoding, no other table, no index): no exporter that goes
 * through the library loads samples faster than this on the machine.
 *   sqlite-floor N DB   prints "N rows in S s: R rows/s"
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x)                                                                  \
	do {                                                                      \
		if ((x) != SQLITE_OK) {                                           \
			fprintf(stderr, "sqlite-floor: %s\n", sqlite3_errmsg(db)); \
			return 1;                                                 \
		}                                                                 \
	} while (0)

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	struct timespec a, b;
	long n;
	double s;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: sqlite-floor N DB\n");
		return 2;
	}
	remove(argv[2]);
	CHECK(sqlite3_open(argv[2], &db));
	CHECK(sqlite3_exec(db, "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; "
			       "PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; "
			       "PRAGMA cache_size = -65536", NULL, NULL, NULL));
	CHECK(sqlite3_exec(db,
			   "CREATE TABLE samples (id integer NOT NULL PRIMARY KEY, evsel_id bigint, "
			   "machine_id bigint, thread_id bigint, comm_id bigint, dso_id bigint, "
			   "symbol_id bigint, sym_offset bigint, ip bigint, time bigint, cpu integer, "
			   "to_dso_id bigint, to_symbol_id bigint, to_sym_offset bigint, to_ip bigint, "
			   "period bigint, weight bigint, transaction_ bigint, data_src bigint, "
			   "branch_type integer, in_tx boolean, call_path_id bigint, insn_count bigint, "
			   "cyc_count bigint, flags integer)",
			   NULL, NULL, NULL));
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
				     "?,?,?,?,?,?,?,?,?)", -1, &st, NULL));
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL));
	for (long i = 1; i <= n; i++) {
		sqlite3_bind_int64(st, 1, i);
		/* ip and time grow as a recording's do; the rest are small ids */
		for (int c = 2; c <= 25; c++)
			sqlite3_bind_int64(st, c, c == 9 ? (sqlite3_int64)(0xffffffff81000000ULL + i * 977)
					   : c == 10 ? i * 1000 : i % 7);
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "sqlite-floor: %s\n", sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(st);
	}
	CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL));
	clock_gettime(CLOCK_MONOTONIC, &b);
	sqlite3_finalize(st);
	sqlite3_close(db);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%ld rows in %.2f s: %.0f rows/s\n", n, s, (double)n / s);
	return 0;
}
