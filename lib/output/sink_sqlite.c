// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "sqlite" sink: a SQLite database with perf's export-to-sqlite.py schema
 * (its tables, columns and types, row 0 = unknown, its views) filled from the
 * export model (internal/export.h), plus what perf leaves out: every sample
 * of every event (tracepoints too), one table per event with its decoded
 * fields as typed columns keyed by samples.id and a view "<event>_view"
 * joining them to time, cpu, pid, tid, comm, symbol and DSO, the table
 * event_tables naming them, raw_check (each RAW area's size, pad and
 * violations) and lost (LOST and LOST_SAMPLES records).
 *
 * Names from the file (events, fields, comms) only ever reach SQL as quoted
 * identifiers or bound values. The load is one transaction with prepared
 * statements and no journal, as perf's script does, indexes after it; it
 * goes to a temporary file renamed over the path at the end, so an
 * interrupted load leaves nothing under the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include <rawfrag/check.h>
#include <rawfrag/visit.h>

#include "internal/export.h"
#include "internal/opts.h"
#include "internal/report.h"

/* ---- perf's schema (export-to-sqlite.py, 'all calls callchains') ---- */

static const char *const perf_tables[] = {
	"CREATE TABLE selected_events (id integer NOT NULL PRIMARY KEY, name varchar(80))",
	"CREATE TABLE machines (id integer NOT NULL PRIMARY KEY, pid integer, "
	"root_dir varchar(4096))",
	"CREATE TABLE threads (id integer NOT NULL PRIMARY KEY, machine_id bigint, "
	"process_id bigint, pid integer, tid integer)",
	"CREATE TABLE comms (id integer NOT NULL PRIMARY KEY, comm varchar(16), "
	"c_thread_id bigint, c_time bigint, exec_flag boolean)",
	"CREATE TABLE comm_threads (id integer NOT NULL PRIMARY KEY, comm_id bigint, "
	"thread_id bigint)",
	"CREATE TABLE dsos (id integer NOT NULL PRIMARY KEY, machine_id bigint, "
	"short_name varchar(256), long_name varchar(4096), build_id varchar(64))",
	"CREATE TABLE symbols (id integer NOT NULL PRIMARY KEY, dso_id bigint, sym_start bigint, "
	"sym_end bigint, binding integer, name varchar(2048))",
	"CREATE TABLE branch_types (id integer NOT NULL PRIMARY KEY, name varchar(80))",
	"CREATE TABLE samples (id integer NOT NULL PRIMARY KEY, evsel_id bigint, "
	"machine_id bigint, thread_id bigint, comm_id bigint, dso_id bigint, symbol_id bigint, "
	"sym_offset bigint, ip bigint, time bigint, cpu integer, to_dso_id bigint, "
	"to_symbol_id bigint, to_sym_offset bigint, to_ip bigint, period bigint, weight bigint, "
	"transaction_ bigint, data_src bigint, branch_type integer, in_tx boolean, "
	"call_path_id bigint, insn_count bigint, cyc_count bigint, flags integer)",
	"CREATE TABLE call_paths (id integer NOT NULL PRIMARY KEY, parent_id bigint, "
	"symbol_id bigint, ip bigint)",
	"CREATE TABLE calls (id integer NOT NULL PRIMARY KEY, thread_id bigint, comm_id bigint, "
	"call_path_id bigint, call_time bigint, return_time bigint, branch_count bigint, "
	"call_id bigint, return_id bigint, parent_call_path_id bigint, flags integer, "
	"parent_id bigint, insn_count bigint, cyc_count bigint)",
	/* what perf leaves out */
	"CREATE TABLE event_tables (evsel_id bigint, event varchar(256), "
	"producer varchar(80), table_name varchar(256), view_name varchar(256))",
	"CREATE TABLE raw_check (id integer NOT NULL PRIMARY KEY, raw_size integer, "
	"len integer, pad integer, pad_zero boolean, violations integer, kinds text)",
	"CREATE TABLE lost (id integer NOT NULL PRIMARY KEY, type varchar(16), "
	"evsel_id bigint, time bigint, cpu integer, lost bigint)",
	/* row 0 = unknown, as perf's trace_begin() writes them */
	"INSERT INTO selected_events VALUES (0, 'unknown')",
	"INSERT INTO machines VALUES (0, 0, 'unknown')",
	"INSERT INTO threads VALUES (0, 0, 0, -1, -1)",
	"INSERT INTO comms VALUES (0, 'unknown', 0, 0, 0)",
	"INSERT INTO dsos VALUES (0, 0, 'unknown', 'unknown', '')",
	"INSERT INTO symbols VALUES (0, 0, 0, 0, 0, 'unknown')",
	"INSERT INTO samples VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
	"0, 0, 0, 0, 0)",
	"INSERT INTO call_paths VALUES (0, 0, 0, 0)",
	"INSERT INTO calls VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
	NULL,
};

/*
 * perf's branch_types rows (util/db-export.c's names for the PERF_IP_FLAG_*
 * combinations, "trace begin"/"trace end" joined to each); sampled events
 * never have a branch type, but perf's viewer names them from this table.
 */
static const struct {
	int id;
	const char *name;
} branch_names[] = {
	{ 0, "no branch" }, { 1, "unconditional jump" }, { 3, "call" }, { 5, "return" },
	{ 9, "conditional jump" }, { 19, "system call" }, { 21, "return from system call" },
	{ 33, "asynchronous branch" }, { 67, "software interrupt" },
	{ 69, "return from interrupt" }, { 99, "hardware interrupt" },
	{ 129, "transaction abort" }, { 2051, "vm entry" }, { 4099, "vm exit" },
};

/* perf's views ('all calls callchains'), hex through printf() as sqlite >= 3.8.3 has it */
static const char *const perf_views[] = {
	"CREATE VIEW machines_view AS SELECT id, pid, root_dir, CASE WHEN id=0 THEN 'unknown' "
	"WHEN pid=-1 THEN 'host' ELSE 'guest' END AS host_or_guest FROM machines",
	"CREATE VIEW dsos_view AS SELECT id, machine_id, (SELECT host_or_guest FROM machines_view "
	"WHERE id = machine_id) AS host_or_guest, short_name, long_name, build_id FROM dsos",
	"CREATE VIEW symbols_view AS SELECT id, name, (SELECT short_name FROM dsos WHERE "
	"id=dso_id) AS dso, dso_id, sym_start, sym_end, CASE WHEN binding=0 THEN 'local' WHEN "
	"binding=1 THEN 'global' ELSE 'weak' END AS binding FROM symbols",
	"CREATE VIEW threads_view AS SELECT id, machine_id, (SELECT host_or_guest FROM "
	"machines_view WHERE id = machine_id) AS host_or_guest, process_id, pid, tid FROM threads",
	"CREATE VIEW comm_threads_view AS SELECT comm_id, (SELECT comm FROM comms WHERE id = "
	"comm_id) AS command, thread_id, (SELECT pid FROM threads WHERE id = thread_id) AS pid, "
	"(SELECT tid FROM threads WHERE id = thread_id) AS tid FROM comm_threads",
	"CREATE VIEW call_paths_view AS SELECT c.id, printf(\"%x\", c.ip) AS ip, c.symbol_id, "
	"(SELECT name FROM symbols WHERE id = c.symbol_id) AS symbol, (SELECT dso_id FROM "
	"symbols WHERE id = c.symbol_id) AS dso_id, (SELECT dso FROM symbols_view  WHERE id = "
	"c.symbol_id) AS dso_short_name, c.parent_id, printf(\"%x\", p.ip) AS parent_ip, "
	"p.symbol_id AS parent_symbol_id, (SELECT name FROM symbols WHERE id = p.symbol_id) AS "
	"parent_symbol, (SELECT dso_id FROM symbols WHERE id = p.symbol_id) AS parent_dso_id, "
	"(SELECT dso FROM symbols_view  WHERE id = p.symbol_id) AS parent_dso_short_name "
	"FROM call_paths c INNER JOIN call_paths p ON p.id = c.parent_id",
	"CREATE VIEW calls_view AS SELECT calls.id, thread_id, (SELECT pid FROM threads WHERE "
	"id = thread_id) AS pid, (SELECT tid FROM threads WHERE id = thread_id) AS tid, (SELECT "
	"comm FROM comms WHERE id = comm_id) AS command, call_path_id, printf(\"%x\", ip) AS ip, "
	"symbol_id, (SELECT name FROM symbols WHERE id = symbol_id) AS symbol, call_time, "
	"return_time, return_time - call_time AS elapsed_time, branch_count, insn_count, "
	"cyc_count, CASE WHEN cyc_count=0 THEN CAST(0 AS FLOAT) ELSE ROUND(CAST(insn_count AS "
	"FLOAT) / cyc_count, 2) END AS IPC, call_id, return_id, CASE WHEN flags=0 THEN '' WHEN "
	"flags=1 THEN 'no call' WHEN flags=2 THEN 'no return' WHEN flags=3 THEN 'no call/return' "
	"WHEN flags=6 THEN 'jump' ELSE flags END AS flags, parent_call_path_id, calls.parent_id "
	"FROM calls INNER JOIN call_paths ON call_paths.id = call_path_id",
	"CREATE VIEW samples_view AS SELECT id, time, cpu, (SELECT pid FROM threads WHERE id = "
	"thread_id) AS pid, (SELECT tid FROM threads WHERE id = thread_id) AS tid, (SELECT comm "
	"FROM comms WHERE id = comm_id) AS command, (SELECT name FROM selected_events WHERE id = "
	"evsel_id) AS event, printf(\"%x\", ip) AS ip_hex, (SELECT name FROM symbols WHERE id = "
	"symbol_id) AS symbol, sym_offset, (SELECT short_name FROM dsos WHERE id = dso_id) AS "
	"dso_short_name, printf(\"%x\", to_ip) AS to_ip_hex, (SELECT name FROM symbols WHERE id = "
	"to_symbol_id) AS to_symbol, to_sym_offset, (SELECT short_name FROM dsos WHERE id = "
	"to_dso_id) AS to_dso_short_name, (SELECT name FROM branch_types WHERE id = branch_type) "
	"AS branch_type_name, in_tx, insn_count, cyc_count, CASE WHEN cyc_count=0 THEN CAST(0 AS "
	"FLOAT) ELSE ROUND(CAST(insn_count AS FLOAT) / cyc_count, 2) END AS IPC, flags "
	"FROM samples",
	"CREATE VIEW lost_view AS SELECT lost.id, type, (SELECT name FROM selected_events WHERE "
	"id = evsel_id) AS event, time, cpu, lost FROM lost",
	/* perf's trace_end() */
	"CREATE INDEX pcpid_idx ON calls (parent_call_path_id)",
	"CREATE INDEX pid_idx ON calls (parent_id)",
	"ALTER TABLE comms ADD has_calls boolean",
	"UPDATE comms SET has_calls = 1 WHERE comms.id IN (SELECT DISTINCT comm_id FROM calls)",
	/* ours, for joins by event, thread and time */
	"CREATE INDEX samples_evsel_time_idx ON samples (evsel_id, time)",
	"CREATE INDEX samples_thread_idx ON samples (thread_id)",
	"CREATE INDEX call_paths_parent_idx ON call_paths (parent_id)",
	NULL,
};

enum {
	S_EVSEL, S_MACHINE, S_THREAD, S_COMM, S_COMM_THREAD, S_DSO, S_SYMBOL, S_CALL_PATH,
	S_SAMPLE, S_RAW, S_LOST, S_EVTAB, NR_STMTS
};

static const char *const stmt_sql[NR_STMTS] = {
	[S_EVSEL] = "INSERT INTO selected_events VALUES (?, ?)",
	[S_MACHINE] = "INSERT INTO machines VALUES (?, ?, ?)",
	[S_THREAD] = "INSERT INTO threads VALUES (?, ?, ?, ?, ?)",
	[S_COMM] = "INSERT INTO comms VALUES (?, ?, ?, ?, ?)",
	[S_COMM_THREAD] = "INSERT INTO comm_threads VALUES (?, ?, ?)",
	[S_DSO] = "INSERT INTO dsos VALUES (?, ?, ?, ?, ?)",
	[S_SYMBOL] = "INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?)",
	[S_CALL_PATH] = "INSERT INTO call_paths VALUES (?, ?, ?, ?)",
	[S_SAMPLE] = "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		     "?, ?, ?, 0, 0, ?, 0, 0, 0)",
	[S_RAW] = "INSERT INTO raw_check VALUES (?, ?, ?, ?, ?, ?, ?)",
	[S_LOST] = "INSERT INTO lost VALUES (?, ?, ?, ?, ?, ?)",
	[S_EVTAB] = "INSERT INTO event_tables VALUES (?, ?, ?, ?, ?)",
};

/* ---- per-event tables ---- */

enum col_type { C_NONE, C_INT, C_TEXT, C_BLOB };

struct col {
	char *path; /* the field's dotted path */
	size_t path_len;
	char *name; /* the column's name (path, made unique) */
	enum col_type decl;
	/* this sample's value */
	enum col_type type;
	int64_t i;
	char *buf;
	size_t len, cap;
};

struct etab {
	bool made, stale;
	uint64_t evsel_id;
	char *name; /* table name (the event's, made unique) */
	struct col *cols;
	int nr_cols, cap_cols, next_col;
	sqlite3_stmt *ins;
};

struct sqlite_sink {
	char *path, *tmp;
	bool overwrite, raw_check;
	uint32_t max_stack;
	sqlite3 *db;
	bool created, done; /* the temporary file is ours / renamed */
	sqlite3_stmt *st[NR_STMTS];
	struct rf_export *x;
	struct rawfrag_session *sess;
	bool swap;
	struct rawfrag_err *err;
	struct etab *tabs; /* by evsel idx */
	int nr_tabs;
	char **names; /* table names taken (event tables), for uniqueness */
	int nr_names;
	uint64_t lost_id;
	/* the visit */
	struct etab *cur;
	const struct rawfrag_event *cur_ev;
	uint64_t cur_evsel_id;
	int jdepth; /* > 0: inside an array, written as JSON into jcol */
	struct col *jcol;
	bool jfirst[64];
	bool jobj[64];
	int ret;
	/* raw_check of the sample */
	int nr_viol;
	char kinds[256];
	size_t kinds_len;
};

static int db_err(struct sqlite_sink *q, const char *what)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "sqlite output: %s: %s", what,
		 q->db ? sqlite3_errmsg(q->db) : "cannot open");
	rf_err_set(q->err, -EIO, msg);
	return -EIO;
}

static int exec_sql(struct sqlite_sink *q, const char *sql)
{
	char *msg = NULL, buf[300];

	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(buf, sizeof(buf), "sqlite output: %.60s...: %s", sql, msg ? msg : "error");
	sqlite3_free(msg);
	rf_err_set(q->err, -EIO, buf);
	return -EIO;
}

static int step(struct sqlite_sink *q, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_err(q, what);
}

/* a name as a quoted identifier: "..." with " doubled, control bytes as '_' */
static char *quote_id(const char *s, size_t n)
{
	char *o = malloc(2 * n + 3), *p = o;

	if (!o)
		return NULL;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"')
			*p++ = '"';
		*p++ = c < 0x20 ? '_' : (char)c;
	}
	*p++ = '"';
	*p = '\0';
	return o;
}

/* SQLite's names are case-blind (ASCII): a name is free when no table or column has it */
static bool name_taken(char *const *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!sqlite3_stricmp(v[i], name))
			return true;
	return false;
}

static const char *const reserved[] = {
	"selected_events", "machines", "threads", "comms", "comm_threads", "dsos", "symbols",
	"branch_types", "samples", "call_paths", "calls", "event_tables", "raw_check", "lost",
	NULL,
};

/*
 * A unique name from base (NUL and control bytes made '_'): base, else
 * base#2, base#3... among taken (and perf's tables, for a table).
 */
static char *unique_name(const char *base, size_t n, char *const *taken, int nr, bool table)
{
	char *s = malloc(n + 16);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = (unsigned char)base[i] < 0x20 ? '_' : base[i];
	s[n] = '\0';
	for (int k = 2;; k++) {
		bool clash = name_taken(taken, nr, s) || !sqlite3_strnicmp(s, "sqlite_", 7);

		for (int i = 0; table && !clash && reserved[i]; i++) {
			char view[64];

			snprintf(view, sizeof(view), "%s_view", reserved[i]);
			clash = !sqlite3_stricmp(s, reserved[i]) || !sqlite3_stricmp(s, view);
		}
		if (table && !clash) {
			/* "<name>_view" must be free as well */
			char *v = malloc(strlen(s) + 6);

			if (!v) {
				free(s);
				return NULL;
			}
			sprintf(v, "%s_view", s);
			clash = name_taken(taken, nr, v);
			free(v);
		}
		if (!clash)
			return s;
		snprintf(s + n, 16, "#%d", k);
	}
}

static int add_name(struct sqlite_sink *q, char *name)
{
	char **v = realloc(q->names, (q->nr_names + 2) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	q->names = v;
	q->names[q->nr_names++] = name;
	if (asprintf(&q->names[q->nr_names], "%s_view", name) < 0)
		return -ENOMEM;
	q->nr_names++;
	return 0;
}

static struct etab *etab_of(struct sqlite_sink *q, int idx)
{
	if (idx >= q->nr_tabs) {
		struct etab *v = realloc(q->tabs, (idx + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + q->nr_tabs, 0, (idx + 1 - q->nr_tabs) * sizeof(*v));
		q->tabs = v;
		q->nr_tabs = idx + 1;
	}
	return &q->tabs[idx];
}

static const char *decl_of(enum col_type t)
{
	return t == C_INT ? "integer" : t == C_TEXT ? "text" : t == C_BLOB ? "blob" : "";
}

/* the event's table, on its first field */
static int make_table(struct sqlite_sink *q, struct etab *t, const struct rawfrag_event *ev,
		      uint64_t evsel_id)
{
	const char *ev_name = rawfrag_evsel__name(ev->evsel);
	const struct rawfrag_decoder *d = rawfrag_session__decoder(q->sess, ev->evsel);
	char *qn, *sql, *view;
	sqlite3_stmt *s = q->st[S_EVTAB];
	int ret;

	if (!ev_name)
		ev_name = "event";
	t->name = unique_name(ev_name, strlen(ev_name), q->names, q->nr_names, true);
	if (!t->name || add_name(q, t->name) || !(qn = quote_id(t->name, strlen(t->name))))
		return -ENOMEM;
	ret = asprintf(&sql, "CREATE TABLE %s (id integer NOT NULL PRIMARY KEY)", qn);
	free(qn);
	if (ret < 0)
		return -ENOMEM;
	ret = exec_sql(q, sql);
	free(sql);
	if (ret)
		return ret;
	if (asprintf(&view, "%s_view", t->name) < 0)
		return -ENOMEM;
	sqlite3_bind_int64(s, 1, (int64_t)evsel_id);
	sqlite3_bind_text(s, 2, ev_name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 3, d ? rawfrag_decoder__name(d) : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, t->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 5, view, -1, SQLITE_TRANSIENT);
	free(view);
	t->made = true;
	t->evsel_id = evsel_id;
	t->stale = true;
	return step(q, s, "event_tables");
}

/* a new column for path (a field no earlier sample of the event had) */
static struct col *add_col(struct sqlite_sink *q, struct etab *t, const char *path, size_t len,
			   enum col_type type)
{
	char **names, *qt, *qc, *sql;
	struct col *c;
	int ret;

	if (t->nr_cols == t->cap_cols) {
		int cap = t->cap_cols ? t->cap_cols * 2 : 16;
		struct col *v = realloc(t->cols, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->cols = v;
		t->cap_cols = cap;
	}
	/* "id" is the key: a field of that name is "id#2" */
	names = calloc(t->nr_cols + 1, sizeof(*names));
	if (!names)
		return NULL;
	names[0] = "id";
	for (int i = 0; i < t->nr_cols; i++)
		names[i + 1] = t->cols[i].name;
	c = &t->cols[t->nr_cols];
	*c = (struct col){ .path = malloc(len + 1), .path_len = len, .decl = type };
	c->name = unique_name(path, len, names, t->nr_cols + 1, false);
	free(names);
	if (!c->path || !c->name) {
		free(c->path);
		free(c->name);
		return NULL;
	}
	memcpy(c->path, path, len);
	c->path[len] = '\0';
	t->nr_cols++;
	qt = quote_id(t->name, strlen(t->name));
	qc = quote_id(c->name, strlen(c->name));
	ret = qt && qc ? asprintf(&sql, "ALTER TABLE %s ADD COLUMN %s %s", qt, qc, decl_of(type)) : -1;
	free(qt);
	free(qc);
	if (ret < 0)
		return NULL;
	q->ret = exec_sql(q, sql);
	free(sql);
	t->stale = true;
	return q->ret ? NULL : c;
}

static struct col *col_of(struct sqlite_sink *q, struct etab *t, const char *path, size_t len,
			  enum col_type type)
{
	/* the fields come in the same order sample after sample */
	for (int k = 0; k < t->nr_cols; k++) {
		int i = (t->next_col + k) % t->nr_cols;

		if (t->cols[i].path_len == len && !memcmp(t->cols[i].path, path, len)) {
			t->next_col = i + 1;
			return &t->cols[i];
		}
	}
	return add_col(q, t, path, len, type);
}

static int col_put(struct col *c, const void *p, size_t n)
{
	if (c->len + n + 1 > c->cap) {
		size_t cap = (c->len + n + 1) * 2;
		char *b = realloc(c->buf, cap);

		if (!b)
			return -ENOMEM;
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return 0;
}

/* a JSON string of bytes (escaped) */
static int json_str(struct col *c, const char *s, size_t n)
{
	int ret = col_put(c, "\"", 1);

	for (size_t i = 0; !ret && i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char e[8];

		if (ch == '"' || ch == '\\') {
			e[0] = '\\';
			e[1] = (char)ch;
			ret = col_put(c, e, 2);
		} else if (ch < 0x20) {
			snprintf(e, sizeof(e), "\\u%04x", ch);
			ret = col_put(c, e, 6);
		} else {
			ret = col_put(c, s + i, 1);
		}
	}
	return ret ? ret : col_put(c, "\"", 1);
}

static int json_value(struct col *c, const struct rawfrag_field *f)
{
	char b[32];
	int n;

	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: n = snprintf(b, sizeof(b), "%" PRIu64, f->v.u); break;
	case RAWFRAG_FIELD_S64: n = snprintf(b, sizeof(b), "%" PRId64, f->v.s); break;
	case RAWFRAG_FIELD_BOOL: n = snprintf(b, sizeof(b), "%s", f->v.b ? "true" : "false"); break;
	case RAWFRAG_FIELD_STR: return json_str(c, f->v.str.p, f->v.str.len);
	case RAWFRAG_FIELD_BYTES: {
		int ret = col_put(c, "\"", 1);

		for (size_t i = 0; !ret && i < f->v.str.len; i++) {
			snprintf(b, sizeof(b), "%02x", (unsigned char)f->v.str.p[i]);
			ret = col_put(c, b, 2);
		}
		return ret ? ret : col_put(c, "\"", 1);
	}
	case RAWFRAG_FIELD_OBJECT: return col_put(c, "{", 1);
	case RAWFRAG_FIELD_ARRAY: return col_put(c, "[", 1);
	default: n = snprintf(b, sizeof(b), "null"); break;
	}
	return col_put(c, b, (size_t)n);
}

static enum col_type type_of(enum rawfrag_field_type t)
{
	switch (t) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_S64:
	case RAWFRAG_FIELD_BOOL:
	case RAWFRAG_FIELD_HEX: return C_INT;
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_ARRAY: return C_TEXT;
	case RAWFRAG_FIELD_BYTES: return C_BLOB;
	default: return C_NONE;
	}
}

static int visit_field(void *ctx, const struct rawfrag_field *f)
{
	struct sqlite_sink *q = ctx;
	struct col *c;
	int ret;

	if (q->jdepth) {
		/* inside an array: its elements (and their members) as JSON */
		c = q->jcol;
		if (!q->jfirst[q->jdepth] && (ret = col_put(c, ",", 1)))
			return ret;
		q->jfirst[q->jdepth] = false;
		if (q->jobj[q->jdepth] && f->name &&
		    ((ret = json_str(c, f->name, f->name_len)) || (ret = col_put(c, ":", 1))))
			return ret;
		if ((ret = json_value(c, f)))
			return ret;
		if (f->type == RAWFRAG_FIELD_OBJECT || f->type == RAWFRAG_FIELD_ARRAY) {
			if (q->jdepth == 63)
				return -E2BIG;
			q->jdepth++;
			q->jfirst[q->jdepth] = true;
			q->jobj[q->jdepth] = f->type == RAWFRAG_FIELD_OBJECT;
		}
		return 0;
	}
	/* an object's members are columns of their own (dotted paths) */
	if (f->type == RAWFRAG_FIELD_OBJECT)
		return 0;
	/* the event's table on its first field: an event without fields has none */
	if (!q->cur->made && (q->ret = make_table(q, q->cur, q->cur_ev, q->cur_evsel_id)))
		return q->ret;
	c = col_of(q, q->cur, f->path, f->path_len, type_of(f->type));
	if (!c)
		return q->ret ? q->ret : -ENOMEM;
	c->len = 0;
	c->type = type_of(f->type);
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: c->i = (int64_t)f->v.u; break; /* as perf stores u64: the bits */
	case RAWFRAG_FIELD_S64: c->i = f->v.s; break;
	case RAWFRAG_FIELD_BOOL: c->i = f->v.b; break;
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES: return col_put(c, f->v.str.p, f->v.str.len);
	case RAWFRAG_FIELD_ARRAY:
		q->jcol = c;
		q->jdepth = 1;
		q->jfirst[1] = true;
		q->jobj[1] = false;
		return col_put(c, "[", 1);
	default: break;
	}
	return 0;
}

static int visit_end(void *ctx, const struct rawfrag_field *f)
{
	struct sqlite_sink *q = ctx;

	if (!q->jdepth)
		return 0;
	q->jdepth--;
	return col_put(q->jcol, f->type == RAWFRAG_FIELD_OBJECT ? "}" : "]", 1);
}

/* the insert of an event table, after its columns changed */
static int prepare_ins(struct sqlite_sink *q, struct etab *t)
{
	size_t cap = 64 + strlen(t->name) * 2, len = 0;
	char *sql, *qn;
	int ret = 0;

	for (int i = 0; i < t->nr_cols; i++)
		cap += strlen(t->cols[i].name) * 2 + 8;
	sql = malloc(cap);
	if (!sql)
		return -ENOMEM;
	qn = quote_id(t->name, strlen(t->name));
	if (!qn) {
		free(sql);
		return -ENOMEM;
	}
	len = (size_t)snprintf(sql, cap, "INSERT INTO %s (\"id\"", qn);
	free(qn);
	for (int i = 0; i < t->nr_cols; i++) {
		char *c = quote_id(t->cols[i].name, strlen(t->cols[i].name));

		if (!c) {
			free(sql);
			return -ENOMEM;
		}
		len += (size_t)snprintf(sql + len, cap - len, ", %s", c);
		free(c);
	}
	len += (size_t)snprintf(sql + len, cap - len, ") VALUES (?");
	for (int i = 0; i < t->nr_cols; i++)
		len += (size_t)snprintf(sql + len, cap - len, ", ?");
	snprintf(sql + len, cap - len, ")");
	sqlite3_finalize(t->ins);
	t->ins = NULL;
	if (sqlite3_prepare_v2(q->db, sql, -1, &t->ins, NULL) != SQLITE_OK)
		ret = db_err(q, "prepare an event's insert");
	free(sql);
	t->stale = false;
	return ret;
}

/* the sample's decoded fields into its event's table */
static int event_row(struct sqlite_sink *q, const struct rawfrag_event *ev, uint64_t id,
		     uint64_t evsel_id)
{
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = visit_field, .end = visit_end,
				     .ctx = q };
	struct etab *t = etab_of(q, rawfrag_evsel__idx(ev->evsel));
	int ret;

	if (!t)
		return -ENOMEM;
	if (!ev->sample->raw_data)
		return 0;
	for (int i = 0; i < t->nr_cols; i++)
		t->cols[i].type = C_NONE;
	q->cur = t;
	q->cur_ev = ev;
	q->cur_evsel_id = evsel_id;
	q->jdepth = 0;
	q->ret = 0;
	ret = rawfrag_session__sample_visit(q->sess, ev->evsel, ev->rec, ev->sample, &v);
	if (q->ret)
		return q->ret;
	if (ret == -ENOMEM || ret == -E2BIG)
		return ret;
	if (!t->made)
		return 0;
	/* a payload that does not decode fully keeps what was decoded (raw_check says why) */
	if (t->stale && (ret = prepare_ins(q, t)))
		return ret;
	sqlite3_bind_int64(t->ins, 1, (int64_t)id);
	for (int i = 0; i < t->nr_cols; i++) {
		struct col *c = &t->cols[i];

		switch (c->type) {
		case C_INT: sqlite3_bind_int64(t->ins, i + 2, c->i); break;
		case C_TEXT:
			sqlite3_bind_text(t->ins, i + 2, c->len ? c->buf : "", (int)c->len,
					  SQLITE_STATIC);
			break;
		case C_BLOB:
			sqlite3_bind_blob(t->ins, i + 2, c->len ? c->buf : "", (int)c->len,
					  SQLITE_STATIC);
			break;
		default: sqlite3_bind_null(t->ins, i + 2); break;
		}
	}
	return step(q, t->ins, "an event's row");
}

/* the sample's columns of an event's view, as samples_view names them */
static const struct {
	const char *name, *expr;
} view_cols[] = {
	{ "time", "s.time" }, { "cpu", "s.cpu" }, { "pid", "th.pid" }, { "tid", "th.tid" },
	{ "command", "c.comm" }, { "symbol", "sy.name" }, { "dso_short_name", "d.short_name" },
};

/* the view of an event table: its fields beside perf's sample columns */
static int make_view(struct sqlite_sink *q, struct etab *t)
{
	size_t cap = 1024 + strlen(t->name) * 4, len;
	char *sql, *qt, *qv, *view;
	int ret;

	for (int i = 0; i < t->nr_cols; i++)
		cap += strlen(t->cols[i].name) * 2 + 8;
	if (asprintf(&view, "%s_view", t->name) < 0)
		return -ENOMEM;
	qt = quote_id(t->name, strlen(t->name));
	qv = quote_id(view, strlen(view));
	free(view);
	sql = malloc(cap);
	if (!qt || !qv || !sql) {
		free(qt);
		free(qv);
		free(sql);
		return -ENOMEM;
	}
	len = (size_t)snprintf(sql, cap, "CREATE VIEW %s AS SELECT e.id AS id", qv);
	for (size_t k = 0; k < sizeof(view_cols) / sizeof(view_cols[0]); k++) {
		bool clash = false;

		/* a field of the same name keeps it: the sample's column is sample_<name> */
		for (int i = 0; i < t->nr_cols && !clash; i++)
			clash = !sqlite3_stricmp(t->cols[i].name, view_cols[k].name);
		len += (size_t)snprintf(sql + len, cap - len, ", %s AS %s%s", view_cols[k].expr,
					clash ? "sample_" : "", view_cols[k].name);
	}
	for (int i = 0; i < t->nr_cols; i++) {
		char *c = quote_id(t->cols[i].name, strlen(t->cols[i].name));

		if (!c) {
			free(qt);
			free(qv);
			free(sql);
			return -ENOMEM;
		}
		len += (size_t)snprintf(sql + len, cap - len, ", e.%s", c);
		free(c);
	}
	snprintf(sql + len, cap - len,
		 " FROM %s e INNER JOIN samples s ON s.id = e.id LEFT JOIN threads th ON th.id = "
		 "s.thread_id LEFT JOIN comms c ON c.id = s.comm_id LEFT JOIN symbols sy ON sy.id "
		 "= s.symbol_id LEFT JOIN dsos d ON d.id = s.dso_id", qt);
	ret = exec_sql(q, sql);
	free(qt);
	free(qv);
	free(sql);
	return ret;
}

/* ---- the export model's rows ---- */

static int row_evsel(void *ctx, uint64_t id, const char *name)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_EVSEL];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_text(s, 2, name ? name : "", -1, SQLITE_TRANSIENT);
	return step(q, s, "selected_events");
}

static int row_machine(void *ctx, uint64_t id, int32_t pid, const char *root_dir)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_MACHINE];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, pid);
	sqlite3_bind_text(s, 3, root_dir, -1, SQLITE_TRANSIENT);
	return step(q, s, "machines");
}

static int row_thread(void *ctx, uint64_t id, uint64_t machine_id, uint64_t process_id,
		      int32_t pid, int32_t tid)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_THREAD];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, (int64_t)machine_id);
	sqlite3_bind_int64(s, 3, (int64_t)process_id);
	sqlite3_bind_int64(s, 4, pid);
	sqlite3_bind_int64(s, 5, tid);
	return step(q, s, "threads");
}

static int row_comm(void *ctx, uint64_t id, const char *comm, uint64_t c_thread_id,
		    uint64_t c_time, bool exec)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_COMM];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_text(s, 2, comm, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, (int64_t)c_thread_id);
	sqlite3_bind_int64(s, 4, (int64_t)c_time);
	sqlite3_bind_int64(s, 5, exec);
	return step(q, s, "comms");
}

static int row_comm_thread(void *ctx, uint64_t id, uint64_t comm_id, uint64_t thread_id)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_COMM_THREAD];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, (int64_t)comm_id);
	sqlite3_bind_int64(s, 3, (int64_t)thread_id);
	return step(q, s, "comm_threads");
}

static int row_dso(void *ctx, uint64_t id, uint64_t machine_id, const char *short_name,
		   const char *long_name, const char *build_id)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_DSO];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, (int64_t)machine_id);
	sqlite3_bind_text(s, 3, short_name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 4, long_name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 5, build_id, -1, SQLITE_TRANSIENT);
	return step(q, s, "dsos");
}

static int row_symbol(void *ctx, uint64_t id, uint64_t dso_id, uint64_t sym_start,
		      uint64_t sym_end, int binding, const char *name)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_SYMBOL];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, (int64_t)dso_id);
	sqlite3_bind_int64(s, 3, (int64_t)sym_start);
	sqlite3_bind_int64(s, 4, (int64_t)sym_end);
	sqlite3_bind_int64(s, 5, binding);
	sqlite3_bind_text(s, 6, name, -1, SQLITE_TRANSIENT);
	return step(q, s, "symbols");
}

static int row_call_path(void *ctx, uint64_t id, uint64_t parent_id, uint64_t symbol_id,
			 uint64_t ip)
{
	struct sqlite_sink *q = ctx;
	sqlite3_stmt *s = q->st[S_CALL_PATH];

	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, (int64_t)parent_id);
	sqlite3_bind_int64(s, 3, (int64_t)symbol_id);
	sqlite3_bind_int64(s, 4, (int64_t)ip);
	return step(q, s, "call_paths");
}

static int row_sample(struct sqlite_sink *q, const struct rf_export_sample *es)
{
	sqlite3_stmt *s = q->st[S_SAMPLE];
	const uint64_t v[] = { es->id, es->evsel_id, es->machine_id, es->thread_id, es->comm_id,
			       es->dso_id, es->symbol_id, es->sym_offset, es->ip, es->time,
			       (uint64_t)(int64_t)es->cpu, es->to_dso_id, es->to_symbol_id,
			       es->to_sym_offset, es->to_ip, es->period, es->weight,
			       es->transaction, es->data_src, es->call_path_id };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		sqlite3_bind_int64(s, (int)i + 1, (int64_t)v[i]);
	return step(q, s, "samples");
}

static void on_violation(void *ctx, const struct rawfrag_violation *v)
{
	struct sqlite_sink *q = ctx;
	size_t n = strlen(v->kind);

	q->nr_viol++;
	if (q->kinds_len + n + 2 < sizeof(q->kinds)) {
		if (q->kinds_len)
			q->kinds[q->kinds_len++] = ',';
		memcpy(q->kinds + q->kinds_len, v->kind, n + 1);
		q->kinds_len += n;
	}
}

/* the RAW area's size, the producer's length, the pad and the checker's findings */
static int row_raw(struct sqlite_sink *q, const struct rawfrag_event *ev, uint64_t id)
{
	const struct rawfrag_sample *smp = ev->sample;
	sqlite3_stmt *s = q->st[S_RAW];
	uint32_t len = 0;

	if (!smp->raw_data)
		return 0;
	q->nr_viol = 0;
	q->kinds_len = 0;
	q->kinds[0] = '\0';
	rawfrag_session__sample_violations(q->sess, ev->evsel, ev->rec, smp, false, on_violation, q);
	sqlite3_bind_int64(s, 1, (int64_t)id);
	sqlite3_bind_int64(s, 2, smp->raw_size);
	if (!rawfrag_session__sample_length(q->sess, ev->evsel, ev->rec, smp, &len) &&
	    len <= smp->raw_size) {
		bool zero = true;

		for (uint32_t i = len; i < smp->raw_size; i++)
			zero &= !smp->raw_data[i];
		sqlite3_bind_int64(s, 3, len);
		sqlite3_bind_int64(s, 4, smp->raw_size - len);
		sqlite3_bind_int64(s, 5, zero);
	} else {
		sqlite3_bind_null(s, 3);
		sqlite3_bind_null(s, 4);
		sqlite3_bind_null(s, 5);
	}
	sqlite3_bind_int64(s, 6, q->nr_viol);
	sqlite3_bind_text(s, 7, q->kinds, (int)q->kinds_len, SQLITE_STATIC);
	return step(q, s, "raw_check");
}

/* ---- the sink ---- */

static int sqlite_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct sqlite_sink *q = priv;
	struct rf_export_sample es;
	int ret;

	q->err = rawfrag_report__err(rep);
	if ((ret = rf_export__sample(q->x, rep, ev, &es)) || (ret = row_sample(q, &es)) ||
	    (ret = event_row(q, ev, es.id, es.evsel_id)) ||
	    (q->raw_check && (ret = row_raw(q, ev, es.id))))
		goto err;
	return 0;
err:
	if (ret == -ENOMEM)
		rf_err_set(q->err, -ENOMEM, "out of memory");
	return ret;
}

static int sqlite_task(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct sqlite_sink *q = priv;

	if (rf_export__task(q->x, ev, q->swap)) {
		rf_err_set(rawfrag_report__err(rep), -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int sqlite_lost(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct sqlite_sink *q = priv;
	const struct rawfrag_record *rec = ev->rec;
	const uint8_t *d = rec->data;
	sqlite3_stmt *s = q->st[S_LOST];
	bool lost = rec->type == PERF_RECORD_LOST;

	q->err = rawfrag_report__err(rep);
	if (rec->size < (lost ? 24u : 16u))
		return 0;
	sqlite3_bind_int64(s, 1, (int64_t)++q->lost_id);
	sqlite3_bind_text(s, 2, lost ? "LOST" : "LOST_SAMPLES", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, 0);
	if (ev->sample && (ev->sample->sample_type & PERF_SAMPLE_TIME))
		sqlite3_bind_int64(s, 4, (int64_t)ev->time);
	else
		sqlite3_bind_null(s, 4);
	if (ev->sample && (ev->sample->sample_type & PERF_SAMPLE_CPU))
		sqlite3_bind_int64(s, 5, ev->sample->cpu);
	else
		sqlite3_bind_null(s, 5);
	/* after the header: LOST has its id first */
	sqlite3_bind_int64(s, 6, (int64_t)rawfrag__get64(d + (lost ? 16 : 8), q->swap));
	return step(q, s, "lost");
}

/* the path exists: refused unless overwrite=1 */
static int check_path(struct sqlite_sink *q)
{
	struct stat st;
	char msg[400];

	if (!q->overwrite && !lstat(q->path, &st)) {
		snprintf(msg, sizeof(msg), "%.300s exists (overwrite=1, or perf rawfrag report "
					   "--overwrite, to replace it)", q->path);
		rf_err_set(q->err, -EEXIST, msg);
		return -EEXIST;
	}
	return 0;
}

static int sqlite_begin(void *priv, struct rawfrag_report *rep)
{
	struct sqlite_sink *q = priv;
	const struct rf_export_store st = {
		.evsel = row_evsel, .machine = row_machine, .thread = row_thread,
		.comm = row_comm, .comm_thread = row_comm_thread, .dso = row_dso,
		.symbol = row_symbol, .call_path = row_call_path, .ctx = q,
	};
	char msg[400];
	int fd, ret;

	q->err = rawfrag_report__err(rep);
	q->sess = rawfrag_report__session(rep);
	q->swap = rawfrag_file__needs_swap(rawfrag_session__file(q->sess));
	if ((ret = check_path(q)))
		return ret;
	/* the temporary file is made here, new: never someone else's */
	fd = open(q->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(msg, sizeof(msg), "%.300s: %s", q->tmp, strerror(-ret));
		rf_err_set(q->err, ret, msg);
		return ret;
	}
	close(fd);
	q->created = true;
	/* one thread writes the file: no mutexes */
	if (sqlite3_open_v2(q->tmp, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		return db_err(q, q->tmp);
	q->x = rf_export__new(&st, q->max_stack);
	if (!q->x || rf_export__begin(q->x, rep)) {
		rf_err_set(q->err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	/* perf's script loads without a journal; a failed load is deleted anyway */
	if ((ret = exec_sql(q, "PRAGMA page_size = 65536")) ||
	    (ret = exec_sql(q, "PRAGMA journal_mode = OFF")) ||
	    (ret = exec_sql(q, "PRAGMA synchronous = OFF")) ||
	    (ret = exec_sql(q, "PRAGMA locking_mode = EXCLUSIVE")) ||
	    (ret = exec_sql(q, "PRAGMA cache_size = -65536")) ||
	    (ret = exec_sql(q, "BEGIN TRANSACTION")))
		return ret;
	for (int i = 0; perf_tables[i]; i++)
		if ((ret = exec_sql(q, perf_tables[i])))
			return ret;
	for (int i = 0; i < NR_STMTS; i++)
		if (sqlite3_prepare_v2(q->db, stmt_sql[i], -1, &q->st[i], NULL) != SQLITE_OK)
			return db_err(q, "prepare");
	for (size_t i = 0; i < sizeof(branch_names) / sizeof(branch_names[0]); i++) {
		/* perf's table also has each with trace begin / trace end */
		static const struct {
			int bits;
			const char *pre, *post;
		} tb[] = { { 0, "", "" }, { 256, "trace begin / ", "" }, { 512, "", " / trace end" } };
		sqlite3_stmt *s = NULL;

		if (sqlite3_prepare_v2(q->db, "INSERT OR IGNORE INTO branch_types VALUES (?, ?)", -1,
				       &s, NULL) != SQLITE_OK)
			return db_err(q, "prepare");
		for (size_t k = 0; k < 3; k++) {
			char name[80];
			int id = branch_names[i].id | tb[k].bits;

			/* perf names a plain jump with trace begin/end by the latter alone */
			if (k && branch_names[i].id == 0)
				snprintf(name, sizeof(name), "%s", k == 1 ? "trace begin / no branch" :
									  "no branch / trace end");
			else if (k && branch_names[i].id == 1)
				snprintf(name, sizeof(name), "%s", k == 1 ? "trace begin" : "trace end");
			else
				snprintf(name, sizeof(name), "%s%s%s", tb[k].pre,
					 branch_names[i].name, tb[k].post);
			sqlite3_bind_int(s, 1, id);
			sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
			if ((ret = step(q, s, "branch_types"))) {
				sqlite3_finalize(s);
				return ret;
			}
		}
		sqlite3_finalize(s);
	}
	return 0;
}

/* the load done: views and indexes, commit, the temporary file renamed to the path */
static int finish(struct sqlite_sink *q)
{
	char msg[400];
	int ret;

	for (int i = 0; i < q->nr_tabs; i++)
		if (q->tabs[i].made && (ret = make_view(q, &q->tabs[i])))
			return ret;
	for (int i = 0; perf_views[i]; i++)
		if ((ret = exec_sql(q, perf_views[i])))
			return ret;
	if ((ret = exec_sql(q, "END TRANSACTION")))
		return ret;
	for (int i = 0; i < NR_STMTS; i++) {
		sqlite3_finalize(q->st[i]);
		q->st[i] = NULL;
	}
	for (int i = 0; i < q->nr_tabs; i++) {
		sqlite3_finalize(q->tabs[i].ins);
		q->tabs[i].ins = NULL;
	}
	if (sqlite3_close(q->db) != SQLITE_OK)
		return db_err(q, "close");
	q->db = NULL;
	/* a path made meanwhile is not replaced without overwrite */
	ret = q->overwrite ? rename(q->tmp, q->path) :
			     renameat2(AT_FDCWD, q->tmp, AT_FDCWD, q->path, RENAME_NOREPLACE);
	if (ret) {
		ret = -errno;
		snprintf(msg, sizeof(msg), "%.300s: %s", q->path, strerror(-ret));
		rf_err_set(q->err, ret, msg);
		return ret;
	}
	q->done = true;
	return 0;
}

static int sqlite_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct sqlite_sink *q = priv;

	q->err = rawfrag_report__err(rep);
	if (status || !q->db)
		return 0; /* free() removes the temporary file */
	return finish(q);
}

static void sqlite_free(void *priv)
{
	struct sqlite_sink *q = priv;

	for (int i = 0; i < NR_STMTS; i++)
		sqlite3_finalize(q->st[i]);
	for (int i = 0; i < q->nr_tabs; i++) {
		struct etab *t = &q->tabs[i];

		sqlite3_finalize(t->ins);
		for (int c = 0; c < t->nr_cols; c++) {
			free(t->cols[c].path);
			free(t->cols[c].name);
			free(t->cols[c].buf);
		}
		free(t->cols);
	}
	if (q->db)
		sqlite3_close(q->db);
	/* a load that did not finish leaves nothing */
	if (q->created && !q->done)
		unlink(q->tmp);
	for (int i = 0; i < q->nr_names; i++)
		free(q->names[i]);
	free(q->names);
	free(q->tabs);
	rf_export__delete(q->x);
	free(q->path);
	free(q->tmp);
	free(q);
}

int rf_sink_sqlite_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "overwrite", "tmp", "max_stack", "raw_check", NULL };
	struct sqlite_sink *q;
	const char *s;
	char *end;
	int ret = -ENOMEM;

	if (rf_sink_opts_known("sqlite", opts->kv, keys, err))
		return -EINVAL;
	if (!opts->path || !*opts->path || !strcmp(opts->path, "-")) {
		rf_err_set(err, -EINVAL, "sqlite output needs a file name (-o FILE.db), not "
					 "standard output");
		return -EINVAL;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		goto nomem;
	q->raw_check = true;
	q->err = err;
	if (!(q->path = strdup(opts->path)))
		goto nomem;
	s = rf_sink_opt(opts->kv, "tmp");
	if (s && *s ? !(q->tmp = strdup(s)) :
		      asprintf(&q->tmp, "%s.tmp-%d", opts->path, (int)getpid()) < 0) {
		q->tmp = NULL;
		goto nomem;
	}
	ret = -EINVAL;
	if (rf_sink_opt_bool("sqlite", opts->kv, "overwrite", &q->overwrite, err) ||
	    rf_sink_opt_bool("sqlite", opts->kv, "raw_check", &q->raw_check, err))
		goto out;
	s = rf_sink_opt(opts->kv, "max_stack");
	if (s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*s || *end || v > 1024) {
			rf_err_set(err, -EINVAL, "sqlite output: max_stack wants a number 0..1024");
			goto out;
		}
		q->max_stack = (uint32_t)v;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "sqlite",
		.begin = sqlite_begin,
		.sample = sqlite_sample,
		.task = sqlite_task,
		.lost = sqlite_lost,
		.end = sqlite_end,
		.free = sqlite_free,
	};
	*priv = q;
	return 0;
nomem:
	rf_err_set(err, -ENOMEM, "out of memory");
out:
	if (q)
		sqlite_free(q);
	return ret;
}
