// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The clickhouse sink: the relational model of internal/export.h loaded into
 * a ClickHouse server through its HTTP interface, for fleets (one file per
 * host, many hosts, one cluster).
 *
 * Where the sqlite sink keeps perf's normalized ids, rows here are
 * denormalized (comm, sym, dso as strings), since ids are per file and a
 * column store compresses repeated strings well; call chains go to a stacks
 * table keyed by a hash of their frames, so one stack is stored once per
 * load and the same stack of two hosts has one key. Decoded fields go to one
 * table per event, a column per field (as the sqlite sink has them); their
 * DDL depends on the file, so --schema -i FILE prints it for a cluster's
 * shards, and a load makes them only where samples is not Distributed.
 *
 * Values travel as TabSeparated or Native bodies of INSERTs, never as SQL
 * text; names from the file (event and field names) reach SQL only as
 * backquoted identifiers, and the host, file id and table names of the
 * checks as escaped string literals. The files row is
 * inserted after every batch succeeded: a failed load is never counted.
 * ClickHouse 18.16 (Debian 12) is the oldest server aimed at: no
 * LowCardinality, CODEC, DateTime64, Map or TTL.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include <rawfrag/visit.h>

#include "internal/export.h"
#include "internal/opts.h"
#include "internal/report.h"
#include "internal/tracepoint.h"

struct buf {
	char *p;
	size_t len, cap;
};

enum { T_SAMPLES, T_STACKS, T_LOST, NR_TABLES };

static const char *const tab_names[NR_TABLES] = { "samples", "stacks", "lost" };

/* name, columns, engine, order by, sharding key */
static const struct {
	const char *name, *cols, *engine, *order, *key;
} tables[] = {
	{ "samples",
	  "host String, file_id String, id UInt64, event String, time UInt64, cpu Int32, "
	  "pid Int32, tid Int32, comm String, ip UInt64, sym String, dso String, "
	  "period UInt64, stack_hash UInt64",
	  "MergeTree", "(host, event, time)", "if(stack_hash = 0, id, stack_hash)" },
	{ "stacks",
	  "host String, file_id String, stack_hash UInt64, syms Array(String), "
	  "dsos Array(String)",
	  "ReplacingMergeTree", "stack_hash", "stack_hash" },
	{ "lost", "host String, file_id String, kind String, time UInt64, cpu Int32, lost UInt64",
	  "MergeTree", "(host, file_id, time)", "cityHash64(host, file_id)" },
	{ "files",
	  "host String, file_id String, path String, samples UInt64, loaded DateTime",
	  "MergeTree", "(host, file_id)", "cityHash64(host, file_id)" },
};
#define NR_DDL (sizeof(tables) / sizeof(tables[0]))

struct xsym {
	char *name;
	uint64_t dso_id;
};

struct xpath {
	uint64_t parent, sym, ip, hash;
};

struct ecol;

/* an event's table (per evsel) */
struct etab {
	char *name;
	void *tpriv; /* the tracepoint decoder's event: the format's integer types */
	struct ecol *cols; /* the key columns, then the fields' */
	int nr_cols, cap_cols, next_col;
	bool fresh; /* columns not checked against the server */
	uint64_t rows; /* in the batch */
	size_t bytes;
};

struct ch_sink {
	char *url, *db, *host, *cluster;
	uint32_t max_stack;
	size_t batch;
	rawfrag_print_fn_t print;
	void *print_ctx;
	char *prefix;
	CURL *curl;
	struct rawfrag_err *err;
	struct rawfrag_session *sess;
	struct rf_export *x;
	bool swap, loaded_before;
	char file_id[17];
	const char *file_path;
	uint64_t nr_samples;
	/* the model's rows, by id */
	char **evsels, **comms, **dsos;
	size_t nr_evsels, nr_comms, nr_dsos;
	int32_t (*threads)[2];
	size_t nr_threads;
	struct xsym *syms;
	size_t nr_syms;
	struct xpath *paths;
	size_t nr_paths;
	/* stack hashes sent in this load (open addressing, 0 = empty) */
	uint64_t *sent;
	size_t sent_cap, sent_nr;
	struct buf out[NR_TABLES];
	struct buf resp;
	/* the event tables, by evsel idx */
	struct etab *etabs;
	size_t nr_etabs;
	/* --schema -i: the DDL of the file's event tables, nothing loaded */
	bool schema_only;
	char *schema_cluster;
	int fd;
	/* samples is a Distributed table (of this cluster) */
	bool dist;
	char dist_cluster[128];
	/* the sample being visited */
	struct etab *cur;
	struct ecol *jcol; /* inside an array: its JSON goes to this column */
	int jdepth;
	bool jfirst[64], jobj[64];
};

/* ---- bytes ---- */

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *q = realloc(b->p, cap);

		if (!q)
			return -ENOMEM;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_str(struct buf *b, const char *s)
{
	return buf_put(b, s, strlen(s));
}

static int buf_fmt(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int buf_fmt(struct buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= sizeof(tmp) ? -EINVAL : buf_put(b, tmp, (size_t)n);
}

/* a TabSeparated value: \ tab newline (and CR, NUL) escaped, so any bytes are data */
static int tsv_str(struct buf *b, const char *s, size_t n)
{
	size_t from = 0;
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		char e[2] = { '\\', 0 };

		switch (s[i]) {
		case '\\': e[1] = '\\'; break;
		case '\t': e[1] = 't'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\0': e[1] = '0'; break;
		default: continue;
		}
		if (!(ret = buf_put(b, s + from, i - from)))
			ret = buf_put(b, e, 2);
		from = i + 1;
	}
	return ret ? ret : buf_put(b, s + from, n - from);
}

/* an element of a TabSeparated Array(String): a quoted literal, then TSV-escaped */
static int tsv_arr_str(struct buf *b, const char *s)
{
	struct buf q = { 0 };
	int ret = buf_put(&q, "'", 1);

	for (const char *p = s; !ret && *p; p++)
		ret = (*p == '\'' || *p == '\\') ? buf_put(&q, "\\", 1) ?: buf_put(&q, p, 1) :
						   buf_put(&q, p, 1);
	if (!ret && !(ret = buf_put(&q, "'", 1)))
		ret = tsv_str(b, q.p, q.len);
	free(q.p);
	return ret;
}

/* a ClickHouse string literal (the already-loaded check only) */
static int sql_str(struct buf *b, const char *s)
{
	int ret = buf_put(b, "'", 1);

	for (const char *p = s; !ret && *p; p++) {
		if (*p == '\'' || *p == '\\')
			ret = buf_put(b, "\\", 1);
		if (!ret)
			ret = buf_put(b, p, 1);
	}
	return ret ? ret : buf_put(b, "'", 1);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	uint64_t f = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		f = (f ^ (unsigned char)*s) * 0x100000001b3ull;
	return mix(h, f);
}

/* ---- HTTP ---- */

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct buf *b = ctx;

	return buf_put(b, p, size * n) ? 0 : size * n;
}

/* one statement (query) with an optional body; the answer in c->resp */
static int http(struct ch_sink *c, const char *query, const struct buf *body)
{
	char *q = curl_easy_escape(c->curl, query, 0), *url = NULL, msg[512];
	long code = 0;
	CURLcode rc;
	int ret = -ENOMEM;

	c->resp.len = 0;
	/* a Distributed table's insert returns once every shard has the rows */
	if (!q || asprintf(&url, "%s%sinsert_distributed_sync=1&query=%s", c->url,
			   strchr(c->url, '?') ? "&" : "?", q) < 0) {
		url = NULL;
		rf_err_set(c->err, -ENOMEM, "out of memory");
		goto out;
	}
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body && body->len ? body->p : "");
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(body ? body->len : 0));
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->resp);
	rc = curl_easy_perform(c->curl);
	if (rc != CURLE_OK) {
		ret = rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
		snprintf(msg, sizeof(msg), "clickhouse output: %.200s: %s", c->url,
			 curl_easy_strerror(rc));
		rf_err_set(c->err, ret, msg);
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		size_t n = c->resp.len;

		/* the server's message: its first line */
		if (c->resp.p && strchr(c->resp.p, '\n'))
			n = (size_t)(strchr(c->resp.p, '\n') - c->resp.p);
		ret = -EIO;
		snprintf(msg, sizeof(msg), "clickhouse output: %.200s: HTTP %ld: %.*s", c->url,
			 code, (int)(n > 250 ? 250 : n), c->resp.p ? c->resp.p : "");
		rf_err_set(c->err, ret, msg);
		goto out;
	}
	ret = 0;
out:
	free(url);
	curl_free(q);
	return ret;
}

static int flush(struct ch_sink *c, int t)
{
	char q[80];
	int ret;

	if (!c->out[t].len)
		return 0;
	snprintf(q, sizeof(q), "INSERT INTO %s FORMAT TabSeparated", tab_names[t]);
	ret = http(c, q, &c->out[t]);
	c->out[t].len = 0;
	return ret;
}

static int row_done(struct ch_sink *c, int t)
{
	int ret = buf_put(&c->out[t], "\n", 1);

	return ret || c->out[t].len < c->batch ? ret : flush(c, t);
}

/* ---- the schema ---- */

/* the DDL: plain tables, or <t>_local and Distributed <t> over cluster */
static int ddl(struct buf *b, const char *db, const char *cluster, bool if_not, size_t i)
{
	const char *ine = if_not ? "IF NOT EXISTS " : "";
	int ret;

	if (!cluster)
		return buf_str(b, "CREATE TABLE ") ?: buf_str(b, ine) ?: buf_str(b, tables[i].name) ?:
		       buf_str(b, " (") ?: buf_str(b, tables[i].cols) ?: buf_str(b, ") ENGINE = ") ?:
		       buf_str(b, tables[i].engine) ?: buf_str(b, " ORDER BY ") ?:
		       buf_str(b, tables[i].order);
	ret = buf_str(b, "CREATE TABLE ") ?: buf_str(b, ine) ?: buf_str(b, tables[i].name) ?:
	      buf_str(b, "_local (") ?: buf_str(b, tables[i].cols) ?: buf_str(b, ") ENGINE = ") ?:
	      buf_str(b, tables[i].engine) ?: buf_str(b, " ORDER BY ") ?:
	      buf_str(b, tables[i].order) ?: buf_str(b, ";\n");
	return ret ?: buf_str(b, "CREATE TABLE ") ?: buf_str(b, ine) ?:
		      buf_str(b, tables[i].name) ?: buf_str(b, " AS ") ?:
		      buf_str(b, tables[i].name) ?: buf_str(b, "_local ENGINE = Distributed(") ?:
		      buf_str(b, cluster) ?: buf_str(b, ", ") ?: buf_str(b, db) ?:
		      buf_str(b, ", ") ?: buf_str(b, tables[i].name) ?: buf_str(b, "_local, ") ?:
		      buf_str(b, tables[i].key) ?: buf_str(b, ")");
}

/* identifiers put into DDL: letters, digits, _ */
static bool plain_name(const char *s)
{
	if (!s || !*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* the database of the URL's database= parameter ("default" without one) */
static int url_db(const char *url, char **db, struct rawfrag_err *err)
{
	const char *q = url ? strchr(url, '?') : NULL, *p = q;
	size_t n;

	*db = NULL;
	while (p && *p) {
		p++;
		if (!strncmp(p, "database=", 9)) {
			p += 9;
			n = strcspn(p, "&#");
			*db = strndup(p, n);
			break;
		}
		p = strchr(p, '&');
	}
	if (!*db)
		*db = strdup("default");
	if (!*db) {
		rf_err_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (!plain_name(*db)) {
		rf_err_set(err, -EINVAL, "clickhouse output: the database name wants letters, "
					 "digits and _");
		free(*db);
		*db = NULL;
		return -EINVAL;
	}
	return 0;
}

int rf_sink_clickhouse_schema(const struct rawfrag_sink_opts *opts, struct rawfrag_err *err)
{
	const char *cluster = rf_sink_opt(opts->kv, "cluster");
	struct buf b = { 0 };
	char *db = NULL;
	int ret, fd = opts->path ? 1 : opts->fd;

	if (cluster && !plain_name(cluster)) {
		rf_err_set(err, -EINVAL, "clickhouse output: the cluster name wants letters, "
					 "digits and _");
		return -EINVAL;
	}
	if ((ret = url_db(opts->path && strcmp(opts->path, "-") ? opts->path : NULL, &db, err)))
		return ret;
	ret = 0;
	for (size_t i = 0; !ret && i < NR_DDL; i++)
		ret = ddl(&b, db, cluster, true, i) ?: buf_str(&b, ";\n");
	if (ret) {
		rf_err_set(err, -ENOMEM, "out of memory");
	} else {
		for (size_t off = 0; off < b.len;) {
			ssize_t n = write(fd, b.p + off, b.len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				ret = n < 0 ? -errno : -EIO;
				rf_err_set(err, ret, "clickhouse schema: write error");
				break;
			}
			off += (size_t)n;
		}
	}
	free(b.p);
	free(db);
	return ret;
}

/* ---- the model's rows ---- */

static int set_str(char ***v, size_t *nr, uint64_t id, const char *s)
{
	if (id >= *nr) {
		size_t n = id + 1 > *nr * 2 ? id + 1 : *nr * 2;
		char **p = realloc(*v, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + *nr, 0, (n - *nr) * sizeof(*p));
		*v = p;
		*nr = n;
	}
	free((*v)[id]);
	(*v)[id] = strdup(s ? s : "");
	return (*v)[id] ? 0 : -ENOMEM;
}

static const char *str_of(char **v, size_t nr, uint64_t id)
{
	return id < nr && v[id] ? v[id] : "";
}

static int row_evsel(void *ctx, uint64_t id, const char *name)
{
	struct ch_sink *c = ctx;

	return set_str(&c->evsels, &c->nr_evsels, id, name);
}

static int row_machine(void *ctx, uint64_t id, int32_t pid, const char *root_dir)
{
	return 0;
}

static int row_thread(void *ctx, uint64_t id, uint64_t machine_id, uint64_t process_id,
		      int32_t pid, int32_t tid)
{
	struct ch_sink *c = ctx;

	if (id >= c->nr_threads) {
		size_t n = id + 1 > c->nr_threads * 2 ? id + 1 : c->nr_threads * 2;
		int32_t(*p)[2] = realloc(c->threads, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + c->nr_threads, 0, (n - c->nr_threads) * sizeof(*p));
		c->threads = p;
		c->nr_threads = n;
	}
	c->threads[id][0] = pid;
	c->threads[id][1] = tid;
	return 0;
}

static int row_comm(void *ctx, uint64_t id, const char *comm, uint64_t c_thread_id,
		    uint64_t c_time, bool exec)
{
	struct ch_sink *c = ctx;

	return set_str(&c->comms, &c->nr_comms, id, comm);
}

static int row_comm_thread(void *ctx, uint64_t id, uint64_t comm_id, uint64_t thread_id)
{
	return 0;
}

static int row_dso(void *ctx, uint64_t id, uint64_t machine_id, const char *short_name,
		   const char *long_name, const char *build_id)
{
	struct ch_sink *c = ctx;

	return set_str(&c->dsos, &c->nr_dsos, id, short_name);
}

static int row_symbol(void *ctx, uint64_t id, uint64_t dso_id, uint64_t sym_start,
		      uint64_t sym_end, int binding, const char *name)
{
	struct ch_sink *c = ctx;

	if (id >= c->nr_syms) {
		size_t n = id + 1 > c->nr_syms * 2 ? id + 1 : c->nr_syms * 2;
		struct xsym *p = realloc(c->syms, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + c->nr_syms, 0, (n - c->nr_syms) * sizeof(*p));
		c->syms = p;
		c->nr_syms = n;
	}
	free(c->syms[id].name);
	c->syms[id].dso_id = dso_id;
	return (c->syms[id].name = strdup(name ? name : "")) ? 0 : -ENOMEM;
}

static const char *sym_name(struct ch_sink *c, uint64_t id)
{
	return id && id < c->nr_syms && c->syms[id].name ? c->syms[id].name : "[unknown]";
}

static const char *sym_dso(struct ch_sink *c, uint64_t id)
{
	return id && id < c->nr_syms ? str_of(c->dsos, c->nr_dsos, c->syms[id].dso_id) :
				       "[unknown]";
}

/* true when h is new in this load (remembered) */
static int sent_add(struct ch_sink *c, uint64_t h)
{
	size_t i;

	if (c->sent_nr * 2 >= c->sent_cap) {
		size_t cap = c->sent_cap ? c->sent_cap * 2 : 4096;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < c->sent_cap; k++)
			if (c->sent[k]) {
				for (i = c->sent[k] & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
					;
				v[i] = c->sent[k];
			}
		free(c->sent);
		c->sent = v;
		c->sent_cap = cap;
	}
	for (i = h & (c->sent_cap - 1); c->sent[i]; i = (i + 1) & (c->sent_cap - 1))
		if (c->sent[i] == h)
			return 0;
	c->sent[i] = h;
	c->sent_nr++;
	return 1;
}

/* the stacks row of a call path: frames leaf first, as perf script prints them */
static int stack_row(struct ch_sink *c, uint64_t id)
{
	struct buf *b = &c->out[T_STACKS];
	int ret, pass;

	ret = tsv_str(b, c->host, strlen(c->host)) ?: buf_put(b, "\t", 1) ?:
	      buf_str(b, c->file_id) ?: buf_fmt(b, "\t%" PRIu64 "\t", c->paths[id].hash);
	for (pass = 0; !ret && pass < 2; pass++) {
		bool first = true;

		ret = buf_put(b, "[", 1);
		for (uint64_t p = id; !ret && p && p < c->nr_paths && c->paths[p].sym | c->paths[p].parent;
		     p = c->paths[p].parent) {
			char ip[24];
			const char *s = ip;

			if (pass == 1)
				s = sym_dso(c, c->paths[p].sym);
			else if (c->paths[p].sym)
				s = sym_name(c, c->paths[p].sym);
			else
				snprintf(ip, sizeof(ip), "0x%" PRIx64, c->paths[p].ip);
			ret = (first ? 0 : buf_put(b, ",", 1)) ?: tsv_arr_str(b, s);
			first = false;
		}
		ret = ret ?: buf_put(b, pass ? "]" : "]\t", pass ? 1 : 2);
	}
	return ret ?: row_done(c, T_STACKS);
}

static int row_call_path(void *ctx, uint64_t id, uint64_t parent_id, uint64_t symbol_id,
			 uint64_t ip)
{
	struct ch_sink *c = ctx;
	uint64_t h;

	if (id >= c->nr_paths) {
		size_t n = id + 1 > c->nr_paths * 2 ? id + 1 : c->nr_paths * 2;
		struct xpath *p = realloc(c->paths, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + c->nr_paths, 0, (n - c->nr_paths) * sizeof(*p));
		c->paths = p;
		c->nr_paths = n;
	}
	/* by names, not ids: the same stack in two files has one hash */
	h = parent_id < c->nr_paths ? c->paths[parent_id].hash : 0;
	h = symbol_id ? mix_str(mix_str(h, sym_name(c, symbol_id)), sym_dso(c, symbol_id)) :
			mix(h, ip);
	c->paths[id] = (struct xpath){ .parent = parent_id, .sym = symbol_id, .ip = ip,
				       .hash = h ? h : 1 };
	return 0;
}

/* ---- per-event tables ---- */

/*
 * One table per event with decoded fields, its columns the fields' dotted
 * paths: the types of a tracepoint's integers are the format's (size and
 * sign), the others the visit's (u64, s64, bool as UInt8; strings, bytes and
 * arrays as String, arrays as JSON). Rows go as Native blocks: column bytes as
 * the server keeps them, which cost 18.16 about half the CPU of TabSeparated
 * or RowBinary rows (Documentation/perf-rawfrag-sql.txt has the figures).
 */
enum { CT_UINT8, CT_INT8, CT_UINT16, CT_INT16, CT_UINT32, CT_INT32, CT_UINT64, CT_INT64,
       CT_STRING, NR_CT };

static const char *const ct_names[NR_CT] = { "UInt8", "Int8", "UInt16", "Int16", "UInt32",
					     "Int32", "UInt64", "Int64", "String" };
static const uint8_t ct_size[NR_CT] = { 1, 1, 2, 2, 4, 4, 8, 8, 0 };

/* the key columns every event table starts with */
enum { EC_HOST, EC_FILE_ID, EC_ID, EC_TIME, EC_STACK, NR_EC };
static const char *const ec_names[NR_EC] = { "host", "file_id", "id", "time", "stack_hash" };
static const int ec_types[NR_EC] = { CT_STRING, CT_STRING, CT_UINT64, CT_UINT64, CT_UINT64 };

struct ecol {
	char *path; /* the field's dotted path (NULL: a key column) */
	size_t path_len;
	char *name; /* the column's name */
	int type;
	bool fresh; /* not yet checked against the server's table */
	struct buf data; /* the batch's values, as a Native column */
	/* this row's value */
	bool set;
	uint64_t u;
	struct buf s;
};

static void ecol_free(struct ecol *e)
{
	free(e->path);
	free(e->name);
	free(e->data.p);
	free(e->s.p);
}

static int put_varuint(struct buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = v & 0x7f;
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	return buf_put(b, x, n);
}

static int put_nstr(struct buf *b, const char *s, size_t n)
{
	return put_varuint(b, n) ?: buf_put(b, s, n);
}

/* a value of the column's type: little-endian integers, strings with their length */
static int ecol_put(struct ecol *e, uint64_t u, const char *s, size_t n)
{
	uint8_t x[8];

	if (e->type == CT_STRING)
		return put_nstr(&e->data, s ? s : "", s ? n : 0);
	for (int i = 0; i < ct_size[e->type]; i++)
		x[i] = (uint8_t)(u >> (8 * i));
	return buf_put(&e->data, x, ct_size[e->type]);
}

/* a name from the file, control bytes made '_' (the server keeps names as file names) */
static char *clean_name(const char *s, size_t n, const char *suffix)
{
	char *o = malloc(n + strlen(suffix) + 1);

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		o[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '_' : s[i];
	strcpy(o + n, suffix);
	return o;
}

/* an identifier in backquotes, ` and \ escaped: a name from the file stays a name */
static int sql_id(struct buf *b, const char *s)
{
	int ret = buf_put(b, "`", 1);

	for (const char *p = s; !ret && *p; p++) {
		if (*p == '`' || *p == '\\')
			ret = buf_put(b, "\\", 1);
		if (!ret)
			ret = buf_put(b, p, 1);
	}
	return ret ? ret : buf_put(b, "`", 1);
}

static const char *const fixed_tables[] = { "samples", "stacks", "lost", "files", NULL };

/*
 * The event's table name: the event's, but never one of ours or a name that
 * ends in _local (a cluster's local tables), and not so long that the
 * server's file name (bytes escaped to %XX) passes 255 bytes.
 */
static char *etab_name(const char *ev)
{
	size_t n = strlen(ev);
	bool clash = n > 6 && !strcmp(ev + n - 6, "_local");
	char sfx[24] = "";

	for (int i = 0; fixed_tables[i]; i++)
		clash |= !strcmp(ev, fixed_tables[i]);
	if (clash || n > 60) {
		snprintf(sfx, sizeof(sfx), "#%08" PRIx64, mix_str(0, ev) & 0xffffffffu);
		if (n > 60)
			n = 48;
	}
	return clean_name(ev, n, sfx);
}

static struct etab *etab_of(struct ch_sink *c, const struct rawfrag_event *ev)
{
	int idx = rawfrag_evsel__idx(ev->evsel);
	struct etab *t;

	if ((size_t)idx >= c->nr_etabs) {
		struct etab *v = realloc(c->etabs, (idx + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + c->nr_etabs, 0, (idx + 1 - c->nr_etabs) * sizeof(*v));
		c->etabs = v;
		c->nr_etabs = idx + 1;
	}
	t = &c->etabs[idx];
	if (!t->name) {
		const struct perf_event_attr *a = rawfrag_evsel__attr(ev->evsel);
		const char *name = rawfrag_evsel__name(ev->evsel);

		if (!(t->name = etab_name(name ? name : "event")))
			return NULL;
		if (a->type == PERF_TYPE_TRACEPOINT) {
			const struct rawfrag_decoder *d = rawfrag_session__decoder(c->sess, ev->evsel);

			if (d && !strcmp(rawfrag_decoder__name(d), "tracepoint"))
				t->tpriv = rawfrag_session__decoder_priv(c->sess, ev->evsel);
		}
		t->cols = calloc(NR_EC, sizeof(*t->cols));
		if (!t->cols)
			return NULL;
		t->nr_cols = t->cap_cols = NR_EC;
		for (int i = 0; i < NR_EC; i++) {
			t->cols[i].type = ec_types[i];
			t->cols[i].fresh = true;
			if (!(t->cols[i].name = strdup(ec_names[i])))
				return NULL;
		}
	}
	return t;
}

/* the column type of a field: a tracepoint's integer as its format declares it */
static int field_type(const struct etab *t, const struct rawfrag_field *f)
{
	struct rawfrag_tp_field_info fi;

	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX:
	case RAWFRAG_FIELD_S64:
		if (t->tpriv && f->depth <= 1 &&
		    !rawfrag_tp__field_info(t->tpriv, f->path, f->path_len, &fi) && fi.is_int &&
		    !fi.is_ptr) {
			int w = fi.size == 1 ? 0 : fi.size == 2 ? 2 : fi.size == 4 ? 4 : 6;

			return CT_UINT8 + w + fi.is_signed;
		}
		return f->type == RAWFRAG_FIELD_S64 ? CT_INT64 : CT_UINT64;
	case RAWFRAG_FIELD_BOOL: return CT_UINT8;
	default: return CT_STRING;
	}
}

static struct ecol *ecol_of(struct ch_sink *c, struct etab *t, const struct rawfrag_field *f)
{
	struct ecol *e;

	/* the fields come in the same order sample after sample */
	for (int k = 0; k < t->nr_cols - NR_EC; k++) {
		int i = NR_EC + (t->next_col + k) % (t->nr_cols - NR_EC);

		if (t->cols[i].path_len == f->path_len && !memcmp(t->cols[i].path, f->path, f->path_len)) {
			t->next_col = i + 1 - NR_EC;
			return &t->cols[i];
		}
	}
	if (t->nr_cols == t->cap_cols) {
		int cap = t->cap_cols * 2;
		struct ecol *v = realloc(t->cols, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->cols = v;
		t->cap_cols = cap;
	}
	e = &t->cols[t->nr_cols];
	*e = (struct ecol){ .path_len = f->path_len, .type = field_type(t, f), .fresh = true };
	if (!(e->path = clean_name(f->path, f->path_len, "")))
		return NULL;
	/* a field named as a key column is "<name>#2" */
	for (int i = 0; i < NR_EC && !e->name; i++)
		if (!strcmp(e->path, ec_names[i]) && !(e->name = clean_name(f->path, f->path_len, "#2"))) {
			free(e->path);
			return NULL;
		}
	if (!e->name && !(e->name = strdup(e->path))) {
		free(e->path);
		return NULL;
	}
	t->nr_cols++;
	t->fresh = true;
	return e;
}

/* an array's elements as JSON into its column's value */
static int json_put(struct buf *b, const struct rawfrag_field *f)
{
	int ret = 0;

	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: return buf_fmt(b, "%" PRIu64, f->v.u);
	case RAWFRAG_FIELD_S64: return buf_fmt(b, "%" PRId64, f->v.s);
	case RAWFRAG_FIELD_BOOL: return buf_str(b, f->v.b ? "true" : "false");
	case RAWFRAG_FIELD_OBJECT: return buf_put(b, "{", 1);
	case RAWFRAG_FIELD_ARRAY: return buf_put(b, "[", 1);
	case RAWFRAG_FIELD_STR:
		ret = buf_put(b, "\"", 1);
		for (size_t i = 0; !ret && i < f->v.str.len; i++) {
			unsigned char ch = (unsigned char)f->v.str.p[i];

			if (ch == '"' || ch == '\\')
				ret = buf_put(b, "\\", 1) ?: buf_put(b, &f->v.str.p[i], 1);
			else if (ch < 0x20)
				ret = buf_fmt(b, "\\u%04x", ch);
			else
				ret = buf_put(b, &f->v.str.p[i], 1);
		}
		return ret ?: buf_put(b, "\"", 1);
	case RAWFRAG_FIELD_BYTES:
		ret = buf_put(b, "\"", 1);
		for (size_t i = 0; !ret && i < f->v.str.len; i++)
			ret = buf_fmt(b, "%02x", (unsigned char)f->v.str.p[i]);
		return ret ?: buf_put(b, "\"", 1);
	default: return buf_str(b, "null");
	}
}

static int evisit_field(void *ctx, const struct rawfrag_field *f)
{
	struct ch_sink *c = ctx;
	struct ecol *e;

	if (c->jdepth) {
		struct buf *b = &c->jcol->s;
		int ret = 0;

		if (!c->jfirst[c->jdepth])
			ret = buf_put(b, ",", 1);
		c->jfirst[c->jdepth] = false;
		if (!ret && c->jobj[c->jdepth] && f->name) {
			struct rawfrag_field k = { .type = RAWFRAG_FIELD_STR,
						   .v.str = { f->name, f->name_len } };

			ret = json_put(b, &k) ?: buf_put(b, ":", 1);
		}
		ret = ret ?: json_put(b, f);
		if (!ret && (f->type == RAWFRAG_FIELD_OBJECT || f->type == RAWFRAG_FIELD_ARRAY)) {
			if (c->jdepth == 63)
				return -E2BIG;
			c->jdepth++;
			c->jfirst[c->jdepth] = true;
			c->jobj[c->jdepth] = f->type == RAWFRAG_FIELD_OBJECT;
		}
		return ret;
	}
	/* an object's members are columns of their own (dotted paths) */
	if (f->type == RAWFRAG_FIELD_OBJECT)
		return 0;
	if (!(e = ecol_of(c, c->cur, f)))
		return -ENOMEM;
	e->set = true;
	e->u = 0;
	e->s.len = 0;
	switch (f->type) {
	case RAWFRAG_FIELD_U64:
	case RAWFRAG_FIELD_HEX: e->u = f->v.u; break;
	case RAWFRAG_FIELD_S64: e->u = (uint64_t)f->v.s; break;
	case RAWFRAG_FIELD_BOOL: e->u = f->v.b; break;
	case RAWFRAG_FIELD_STR:
	case RAWFRAG_FIELD_BYTES: return buf_put(&e->s, f->v.str.p, f->v.str.len);
	case RAWFRAG_FIELD_ARRAY:
		c->jcol = e;
		c->jdepth = 1;
		c->jfirst[1] = true;
		c->jobj[1] = false;
		return buf_put(&e->s, "[", 1);
	default: break;
	}
	/* a number in a String column (its first value was a string): its decimal text */
	if (e->type == CT_STRING)
		return f->type == RAWFRAG_FIELD_S64 ? buf_fmt(&e->s, "%" PRId64, f->v.s) :
						    buf_fmt(&e->s, "%" PRIu64, e->u);
	return 0;
}

static int evisit_end(void *ctx, const struct rawfrag_field *f)
{
	struct ch_sink *c = ctx;

	if (!c->jdepth)
		return 0;
	c->jdepth--;
	return buf_put(&c->jcol->s, f->type == RAWFRAG_FIELD_OBJECT ? "}" : "]", 1);
}

/* the DDL of an event table (plain, or <t>_local and Distributed <t>) */
static int etab_ddl(struct ch_sink *c, struct buf *b, const struct etab *t, const char *cluster,
		    bool if_not)
{
	const char *ine = if_not ? "IF NOT EXISTS " : "";
	char *local = NULL;
	int ret;

	if (cluster && asprintf(&local, "%s_local", t->name) < 0)
		return -ENOMEM;
	ret = buf_str(b, "CREATE TABLE ") ?: buf_str(b, ine) ?: sql_id(b, local ? local : t->name) ?:
	      buf_str(b, " (");
	for (int i = 0; !ret && i < t->nr_cols; i++)
		ret = (i ? buf_str(b, ", ") : 0) ?: sql_id(b, t->cols[i].name) ?: buf_put(b, " ", 1) ?:
		      buf_str(b, ct_names[t->cols[i].type]);
	ret = ret ?: buf_str(b, ") ENGINE = MergeTree ORDER BY (host, file_id, id)");
	if (!ret && cluster)
		ret = buf_str(b, ";\nCREATE TABLE ") ?: buf_str(b, ine) ?: sql_id(b, t->name) ?:
		      buf_str(b, " AS ") ?: sql_id(b, local) ?: buf_str(b, " ENGINE = Distributed(") ?:
		      buf_str(b, cluster) ?: buf_str(b, ", ") ?: buf_str(b, c->db) ?: buf_str(b, ", ") ?:
		      sql_str(b, local) ?: buf_str(b, ", if(stack_hash = 0, id, stack_hash))");
	free(local);
	return ret;
}

/* an answer's TabSeparated value unescaped in place */
static char *tsv_unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == '0' ? '\0' : *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return s;
}

/*
 * The event's table on the server, for the columns not checked yet: made if
 * missing, a missing column added; a column the server has keeps the
 * server's type (one of ours). A cluster's tables are made by --schema
 * --cluster on every server: there a missing one is an error.
 */
static int etab_ensure(struct ch_sink *c, struct etab *t)
{
	struct buf q = { 0 };
	char msg[1024];
	int ret, have = 0;

	if (c->schema_only)
		goto done;
	ret = buf_str(&q, "SELECT name, type FROM system.columns WHERE database = ") ?:
	      sql_str(&q, c->db) ?: buf_str(&q, " AND table = ") ?: sql_str(&q, t->name) ?:
	      buf_str(&q, " FORMAT TabSeparated");
	if (ret)
		goto nomem;
	if ((ret = http(c, q.p, NULL)))
		goto out;
	/* the server's columns: adopt their types */
	for (char *line = c->resp.p, *next; line && *line; line = next) {
		char *tab, *name, *type;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!(tab = strchr(line, '\t')))
			continue;
		*tab = '\0';
		name = tsv_unescape(line);
		type = tsv_unescape(tab + 1);
		have++;
		for (int i = 0; i < t->nr_cols; i++) {
			struct ecol *e = &t->cols[i];

			if (!e->fresh || strcmp(e->name, name))
				continue;
			e->fresh = false;
			for (int k = 0; k < NR_CT; k++)
				if (!strcmp(type, ct_names[k]))
					e->type = k;
			if (strcmp(type, ct_names[e->type])) {
				snprintf(msg, sizeof(msg), "clickhouse output: column %.100s of table "
					 "%.100s is %.40s on the server, not a type of ours", name,
					 t->name, type);
				rf_err_set(c->err, -EINVAL, msg);
				ret = -EINVAL;
				goto out;
			}
		}
	}
	if (!have) {
		if (c->dist) {
			snprintf(msg, sizeof(msg), "clickhouse output: no table %.100s for event %.100s: "
				 "samples is Distributed over cluster %.60s, so make the event tables "
				 "on every server with: perf rawfrag report --schema --cluster %.60s -i "
				 "%.100s", t->name, t->name, c->dist_cluster, c->dist_cluster, c->file_path);
			rf_err_set(c->err, -ENOENT, msg);
			ret = -ENOENT;
			goto out;
		}
		q.len = 0;
		if (etab_ddl(c, &q, t, NULL, true))
			goto nomem;
		if ((ret = http(c, q.p, NULL)))
			goto out;
	} else {
		for (int i = 0; i < t->nr_cols; i++) {
			struct ecol *e = &t->cols[i];

			if (!e->fresh)
				continue;
			if (c->dist) {
				snprintf(msg, sizeof(msg), "clickhouse output: table %.100s has no column "
					 "%.100s; in a cluster, add it on every server (ALTER TABLE ... ADD "
					 "COLUMN on %.100s_local and %.100s)", t->name, e->name, t->name,
					 t->name);
				rf_err_set(c->err, -ENOENT, msg);
				ret = -ENOENT;
				goto out;
			}
			q.len = 0;
			if (buf_str(&q, "ALTER TABLE ") || sql_id(&q, t->name) ||
			    buf_str(&q, " ADD COLUMN ") || sql_id(&q, e->name) || buf_put(&q, " ", 1) ||
			    buf_str(&q, ct_names[e->type]))
				goto nomem;
			if ((ret = http(c, q.p, NULL)))
				goto out;
		}
	}
done:
	/* columns new to the batch: defaults for the rows before them */
	for (int i = 0; i < t->nr_cols; i++) {
		struct ecol *e = &t->cols[i];

		for (uint64_t r = 0; e->fresh && r < t->rows; r++)
			if (ecol_put(e, 0, NULL, 0))
				goto nomem;
		e->fresh = false;
	}
	t->fresh = false;
	ret = 0;
	goto out;
nomem:
	rf_err_set(c->err, -ENOMEM, "out of memory");
	ret = -ENOMEM;
out:
	free(q.p);
	return ret;
}

/* the batch of an event table as one Native block */
static int etab_flush(struct ch_sink *c, struct etab *t)
{
	struct buf q = { 0 }, body = { 0 };
	size_t need = 64;
	int ret = 0;

	if (!t->rows || c->schema_only)
		goto out;
	ret = buf_str(&q, "INSERT INTO ") ?: sql_id(&q, t->name) ?: buf_str(&q, " (");
	for (int i = 0; !ret && i < t->nr_cols; i++)
		ret = (i ? buf_str(&q, ", ") : 0) ?: sql_id(&q, t->cols[i].name);
	/* one allocation: the block is as large as the batch */
	for (int i = 0; i < t->nr_cols; i++)
		need += t->cols[i].data.len + strlen(t->cols[i].name) + 32;
	if (!ret && !(body.p = malloc(need)))
		ret = -ENOMEM;
	body.cap = need;
	ret = ret ?: buf_str(&q, ") FORMAT Native") ?: put_varuint(&body, (uint64_t)t->nr_cols) ?:
	      put_varuint(&body, t->rows);
	for (int i = 0; !ret && i < t->nr_cols; i++) {
		struct ecol *e = &t->cols[i];

		ret = put_nstr(&body, e->name, strlen(e->name)) ?:
		      put_nstr(&body, ct_names[e->type], strlen(ct_names[e->type])) ?:
		      buf_put(&body, e->data.p, e->data.len);
		e->data.len = 0;
	}
	if (ret) {
		rf_err_set(c->err, -ENOMEM, "out of memory");
		goto out;
	}
	t->rows = 0;
	t->bytes = 0;
	ret = http(c, q.p, &body);
out:
	free(q.p);
	free(body.p);
	return ret;
}

/* the sample's decoded fields as a row of its event's table */
static int event_row(struct ch_sink *c, const struct rawfrag_event *ev, uint64_t id,
		     uint64_t stack)
{
	struct rawfrag_visitor v = { .sz = sizeof(v), .field = evisit_field, .end = evisit_end,
				     .ctx = c };
	struct etab *t;
	int ret;

	if (!ev->sample->raw_data)
		return 0;
	if (!(t = etab_of(c, ev)))
		return -ENOMEM;
	for (int i = NR_EC; i < t->nr_cols; i++)
		t->cols[i].set = false;
	c->cur = t;
	c->jdepth = 0;
	ret = rawfrag_session__sample_visit(c->sess, ev->evsel, ev->rec, ev->sample, &v);
	/* a payload that does not decode fully keeps what was decoded */
	if (ret == -ENOMEM || ret == -E2BIG)
		return ret;
	if (t->nr_cols == NR_EC)
		return 0; /* no field: no table */
	if (t->fresh && (ret = etab_ensure(c, t)))
		return ret;
	if (c->schema_only)
		return 0;
	ret = ecol_put(&t->cols[EC_HOST], 0, c->host, strlen(c->host)) ?:
	      ecol_put(&t->cols[EC_FILE_ID], 0, c->file_id, strlen(c->file_id)) ?:
	      ecol_put(&t->cols[EC_ID], id, NULL, 0) ?: ecol_put(&t->cols[EC_TIME], ev->time, NULL, 0) ?:
	      ecol_put(&t->cols[EC_STACK], stack, NULL, 0);
	for (int i = NR_EC; !ret && i < t->nr_cols; i++) {
		struct ecol *e = &t->cols[i];

		/* a field this sample does not have, or a string where a number was: 0 or "" */
		if (!e->set)
			ret = ecol_put(e, 0, NULL, 0);
		else
			ret = ecol_put(e, e->u, e->s.p, e->s.len);
		t->bytes += e->type == CT_STRING ? e->s.len + 1 : ct_size[e->type];
	}
	if (ret)
		return ret;
	t->rows++;
	t->bytes += 40 + strlen(c->host);
	/*
	 * samples first: rows of a failed load are found by their samples, so no
	 * event row may reach the server before its sample
	 */
	return t->bytes < c->batch ? 0 : flush(c, T_SAMPLES) ?: etab_flush(c, t);
}

/* ---- the sink ---- */

static int ch_sample(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct ch_sink *c = priv;
	struct buf *b = &c->out[T_SAMPLES];
	struct rf_export_sample es;
	const char *event, *comm;
	uint64_t stack = 0;
	int32_t pid = -1, tid = -1;
	int ret;

	c->err = rawfrag_report__err(rep);
	if (c->loaded_before)
		return 0;
	if (c->schema_only) {
		if ((ret = event_row(c, ev, 0, 0)))
			goto err;
		return 0;
	}
	if ((ret = rf_export__sample(c->x, rep, ev, &es)))
		goto err;
	if (es.call_path_id && es.call_path_id < c->nr_paths) {
		stack = c->paths[es.call_path_id].hash;
		if ((ret = sent_add(c, stack)) < 0 ||
		    (ret && (ret = stack_row(c, es.call_path_id))))
			goto err;
	}
	if (es.thread_id < c->nr_threads) {
		pid = c->threads[es.thread_id][0];
		tid = c->threads[es.thread_id][1];
	}
	event = str_of(c->evsels, c->nr_evsels, es.evsel_id);
	comm = str_of(c->comms, c->nr_comms, es.comm_id);
	ret = tsv_str(b, c->host, strlen(c->host)) ?:
	      buf_fmt(b, "\t%s\t%" PRIu64 "\t", c->file_id, es.id) ?:
	      tsv_str(b, event, strlen(event)) ?:
	      buf_fmt(b, "\t%" PRIu64 "\t%" PRId32 "\t%" PRId32 "\t%" PRId32 "\t", es.time, es.cpu,
		      pid, tid) ?:
	      tsv_str(b, comm, strlen(comm)) ?: buf_fmt(b, "\t%" PRIu64 "\t", es.ip) ?:
	      tsv_str(b, sym_name(c, es.symbol_id), strlen(sym_name(c, es.symbol_id))) ?:
	      buf_put(b, "\t", 1) ?:
	      tsv_str(b, str_of(c->dsos, c->nr_dsos, es.dso_id),
		      strlen(str_of(c->dsos, c->nr_dsos, es.dso_id))) ?:
	      buf_fmt(b, "\t%" PRIu64 "\t%" PRIu64, es.period, stack) ?: row_done(c, T_SAMPLES);
	if (ret || (ret = event_row(c, ev, es.id, stack)))
		goto err;
	c->nr_samples++;
	return 0;
err:
	if (ret == -ENOMEM)
		rf_err_set(c->err, -ENOMEM, "out of memory");
	else if (ret == -E2BIG)
		rf_err_set(c->err, ret, "clickhouse output: fields nested deeper than 63 arrays");
	return ret;
}

static int ch_task(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct ch_sink *c = priv;

	if (!c->loaded_before && !c->schema_only && rf_export__task(c->x, ev, c->swap)) {
		rf_err_set(rawfrag_report__err(rep), -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int ch_lost(void *priv, struct rawfrag_report *rep, const struct rawfrag_event *ev)
{
	struct ch_sink *c = priv;
	const struct rawfrag_record *rec = ev->rec;
	struct buf *b = &c->out[T_LOST];
	bool lost = rec->type == PERF_RECORD_LOST;
	int ret;

	c->err = rawfrag_report__err(rep);
	if (c->loaded_before || c->schema_only || rec->size < (lost ? 24u : 16u))
		return 0;
	ret = tsv_str(b, c->host, strlen(c->host)) ?:
	      buf_fmt(b, "\t%s\t%s\t%" PRIu64 "\t%" PRId32 "\t%" PRIu64, c->file_id,
		      lost ? "LOST" : "LOST_SAMPLES",
		      ev->sample && (ev->sample->sample_type & PERF_SAMPLE_TIME) ? ev->time : 0,
		      ev->sample && (ev->sample->sample_type & PERF_SAMPLE_CPU) ?
			      (int32_t)ev->sample->cpu : -1,
		      rawfrag__get64((const uint8_t *)rec->data + (lost ? 16 : 8), c->swap)) ?:
	      row_done(c, T_LOST);
	if (ret == -ENOMEM)
		rf_err_set(c->err, -ENOMEM, "out of memory");
	return ret;
}

/* the file's id: a hash of its size and first MiB (header, attrs, first records) */
static int file_id(struct ch_sink *c, const char *path)
{
	char msg[400];
	uint64_t h = 0x84222325cbf29ce4ull;
	char *b = malloc(1 << 20);
	ssize_t n;
	off_t size;
	int fd = -1, ret = -ENOMEM;

	if (!b)
		goto out;
	fd = path && strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		ret = -EINVAL;
		snprintf(msg, sizeof(msg), "clickhouse output: the input must be a file (its "
					   "first bytes identify it), not %.300s", path ? path : "a pipe");
		rf_err_set(c->err, ret, msg);
		goto out;
	}
	size = lseek(fd, 0, SEEK_END);
	n = pread(fd, b, 1 << 20, 0);
	if (n < 0 || size < 0) {
		ret = -errno;
		snprintf(msg, sizeof(msg), "%.300s: %s", path, strerror(errno));
		rf_err_set(c->err, ret, msg);
		goto out;
	}
	h = mix(h, (uint64_t)size);
	for (ssize_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, b + i, 8);
		h = mix(h, v);
	}
	for (ssize_t i = n & ~7; i < n; i++)
		h = mix(h, (unsigned char)b[i]);
	snprintf(c->file_id, sizeof(c->file_id), "%016" PRIx64, h);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(b);
	return ret;
}

/* whether samples is a Distributed table, and over which cluster */
static int dist_of(struct ch_sink *c)
{
	struct buf q = { 0 };
	int ret = buf_str(&q, "SELECT engine_full FROM system.tables WHERE database = ") ?:
		  sql_str(&q, c->db) ?: buf_str(&q, " AND name = 'samples'");

	if (ret) {
		rf_err_set(c->err, -ENOMEM, "out of memory");
	} else if (!(ret = http(c, q.p, NULL)) && c->resp.p &&
		   !strncmp(c->resp.p, "Distributed(", 12)) {
		size_t n = strcspn(c->resp.p + 12, ",)\n");

		c->dist = true;
		snprintf(c->dist_cluster, sizeof(c->dist_cluster), "%.*s",
			 (int)(n < sizeof(c->dist_cluster) ? n : sizeof(c->dist_cluster) - 1),
			 c->resp.p + 12);
	}
	free(q.p);
	return ret;
}

/* a count() answer */
static int count_of(struct ch_sink *c, const char *table, uint64_t *n)
{
	struct buf q = { 0 };
	int ret = buf_str(&q, "SELECT count() FROM ") ?: buf_str(&q, table) ?:
		  buf_str(&q, " WHERE host = ") ?: sql_str(&q, c->host) ?:
		  buf_str(&q, " AND file_id = ") ?: sql_str(&q, c->file_id);

	if (ret) {
		rf_err_set(c->err, -ENOMEM, "out of memory");
	} else if (!(ret = http(c, q.p, NULL))) {
		*n = c->resp.p ? strtoull(c->resp.p, NULL, 10) : 0;
	}
	free(q.p);
	return ret;
}

static int ch_begin(void *priv, struct rawfrag_report *rep)
{
	struct ch_sink *c = priv;
	const struct rf_export_store st = {
		.evsel = row_evsel, .machine = row_machine, .thread = row_thread,
		.comm = row_comm, .comm_thread = row_comm_thread, .dso = row_dso,
		.symbol = row_symbol, .call_path = row_call_path, .ctx = c,
	};
	const struct rawfrag_env *env;
	struct rawfrag_file *f;
	uint64_t n = 0;
	int ret;

	c->err = rawfrag_report__err(rep);
	c->sess = rawfrag_report__session(rep);
	f = rawfrag_session__file(c->sess);
	c->swap = rawfrag_file__needs_swap(f);
	c->file_path = rawfrag_file__path(f);
	if (c->schema_only)
		return 0;
	env = rawfrag_file__env(f);
	if (!c->host && env && env->hostname && *env->hostname && !(c->host = strdup(env->hostname)))
		goto nomem;
	if (!c->host) {
		rf_err_set(c->err, -EINVAL, "clickhouse output: the file has no hostname header "
					    "(host=NAME, or perf rawfrag report --host NAME)");
		return -EINVAL;
	}
	if ((ret = file_id(c, c->file_path)))
		return ret;
	/* the tables, unless made before (by --schema for a cluster, or an earlier load) */
	for (size_t i = 0; i < NR_DDL; i++) {
		struct buf q = { 0 };

		if (ddl(&q, c->db, NULL, true, i))
			goto nomem;
		ret = http(c, q.p, NULL);
		free(q.p);
		if (ret)
			return ret;
	}
	if ((ret = dist_of(c)) || (ret = count_of(c, "files", &n)))
		return ret;
	if (n) {
		c->loaded_before = true;
		rf_sink_note(c->print, c->print_ctx, c->prefix, RAWFRAG_WARN,
			     "clickhouse: %s (host %s, file id %s) was loaded before: nothing added",
			     c->file_path, c->host, c->file_id);
		return 0;
	}
	/* rows of an earlier load that failed: loading again would count them twice */
	if ((ret = count_of(c, "samples", &n)))
		return ret;
	if (n) {
		char msg[400];

		snprintf(msg, sizeof(msg), "clickhouse output: %" PRIu64 " rows of an unfinished "
			 "load of this file (host %.100s, file id %s) are in samples; delete them "
			 "(ALTER TABLE ... DELETE WHERE file_id = '%s') and load again", n, c->host,
			 c->file_id, c->file_id);
		rf_err_set(c->err, -EEXIST, msg);
		return -EEXIST;
	}
	c->x = rf_export__new(&st, c->max_stack);
	if (!c->x || rf_export__begin(c->x, rep))
		goto nomem;
	return 0;
nomem:
	rf_err_set(c->err, -ENOMEM, "out of memory");
	return -ENOMEM;
}

static int write_all(int fd, const struct buf *b, struct rawfrag_err *err)
{
	for (size_t off = 0; off < b->len;) {
		ssize_t n = write(fd, b->p + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int ret = n < 0 ? -errno : -EIO;

			rf_err_set(err, ret, "clickhouse schema: write error");
			return ret;
		}
		off += (size_t)n;
	}
	return 0;
}

/* --schema -i FILE: our tables, then the file's event tables */
static int schema_of_file(struct ch_sink *c)
{
	struct buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; !ret && i < NR_DDL; i++)
		ret = ddl(&b, c->db, c->schema_cluster, true, i) ?: buf_str(&b, ";\n");
	for (size_t i = 0; !ret && i < c->nr_etabs; i++)
		if (c->etabs[i].name && c->etabs[i].nr_cols > NR_EC)
			ret = etab_ddl(c, &b, &c->etabs[i], c->schema_cluster, true) ?:
			      buf_str(&b, ";\n");
	if (ret)
		rf_err_set(c->err, -ENOMEM, "out of memory");
	else
		ret = write_all(c->fd, &b, c->err);
	free(b.p);
	return ret;
}

static int ch_end(void *priv, struct rawfrag_report *rep, int status)
{
	struct ch_sink *c = priv;
	struct buf row = { 0 };
	int ret = 0;

	c->err = rawfrag_report__err(rep);
	if (!status && c->schema_only)
		return schema_of_file(c);
	if (status || c->loaded_before || !c->curl)
		return 0;
	/* samples before the event rows (see event_row()) */
	for (int t = 0; !ret && t < NR_TABLES; t++)
		ret = flush(c, t);
	for (size_t i = 0; !ret && i < c->nr_etabs; i++)
		ret = etab_flush(c, &c->etabs[i]);
	if (ret)
		return ret;
	/* last: only a load whose every batch went in is counted */
	ret = tsv_str(&row, c->host, strlen(c->host)) ?: buf_fmt(&row, "\t%s\t", c->file_id) ?:
	      tsv_str(&row, c->file_path, strlen(c->file_path)) ?:
	      buf_fmt(&row, "\t%" PRIu64 "\t%lld\n", c->nr_samples, (long long)time(NULL));
	if (ret)
		rf_err_set(c->err, -ENOMEM, "out of memory");
	else
		ret = http(c, "INSERT INTO files FORMAT TabSeparated", &row);
	free(row.p);
	if (!ret)
		rf_sink_note(c->print, c->print_ctx, c->prefix, RAWFRAG_WARN,
			     "clickhouse: %s loaded as host %s, file id %s: %" PRIu64 " samples",
			     c->file_path, c->host, c->file_id, c->nr_samples);
	return ret;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void ch_free(void *priv)
{
	struct ch_sink *c = priv;

	if (c->curl)
		curl_easy_cleanup(c->curl);
	rf_export__delete(c->x);
	free_strs(c->evsels, c->nr_evsels);
	free_strs(c->comms, c->nr_comms);
	free_strs(c->dsos, c->nr_dsos);
	for (size_t i = 0; i < c->nr_syms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c->threads);
	free(c->paths);
	free(c->sent);
	for (int t = 0; t < NR_TABLES; t++)
		free(c->out[t].p);
	free(c->resp.p);
	for (size_t i = 0; i < c->nr_etabs; i++) {
		for (int k = 0; k < c->etabs[i].nr_cols; k++)
			ecol_free(&c->etabs[i].cols[k]);
		free(c->etabs[i].cols);
		free(c->etabs[i].name);
	}
	free(c->etabs);
	free(c->schema_cluster);
	free(c->url);
	free(c->db);
	free(c->host);
	free(c->cluster);
	free(c->prefix);
	free(c);
}

static void ch_free(void *priv);

/* schema=1: read the file for its events' fields, print the DDL at the end */
static int schema_open(const struct rawfrag_sink_opts *opts, const char *cluster,
		       struct rawfrag_sink_ops *ops, void **priv, struct rawfrag_err *err)
{
	struct ch_sink *c = calloc(1, sizeof(*c));
	int ret;

	if (!c || (cluster && !(c->schema_cluster = strdup(cluster)))) {
		rf_err_set(err, -ENOMEM, "out of memory");
		free(c);
		return -ENOMEM;
	}
	c->err = err;
	c->schema_only = true;
	c->fd = opts->path || opts->fd <= 0 ? 1 : opts->fd;
	c->batch = 64u << 20;
	if ((ret = url_db(opts->path && strcmp(opts->path, "-") ? opts->path : NULL, &c->db, err))) {
		ch_free(c);
		return ret;
	}
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "clickhouse",
		.begin = ch_begin,
		.sample = ch_sample,
		.end = ch_end,
		.free = ch_free,
	};
	*priv = c;
	return 0;
}

int rf_sink_clickhouse_open(const struct rawfrag_sink_opts *opts, struct rawfrag_sink_ops *ops,
			    void **priv, struct rawfrag_err *err)
{
	static const char *const keys[] = { "host", "max_stack", "batch_mb", "schema", "cluster",
					    NULL };
	struct ch_sink *c;
	const char *s;
	char *end;
	int ret = -ENOMEM;

	bool schema = false;

	if (rf_sink_opts_known("clickhouse", opts->kv, keys, err) ||
	    rf_sink_opt_bool("clickhouse", opts->kv, "schema", &schema, err))
		return -EINVAL;
	s = rf_sink_opt(opts->kv, "cluster");
	if (s && !schema) {
		rf_err_set(err, -EINVAL, "clickhouse output: cluster goes with schema (a load goes "
					 "through the Distributed tables the schema made)");
		return -EINVAL;
	}
	if (s && !plain_name(s)) {
		rf_err_set(err, -EINVAL, "clickhouse output: the cluster name wants letters, "
					 "digits and _");
		return -EINVAL;
	}
	if (schema)
		return schema_open(opts, s, ops, priv, err);
	if (!opts->path || (strncmp(opts->path, "http://", 7) && strncmp(opts->path, "https://", 8))) {
		rf_err_set(err, -EINVAL, "clickhouse output needs the server's HTTP URL "
					 "(-o 'http://HOST:8123/?database=DB')");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->err = err;
	c->batch = 64u << 20;
	c->print = opts->print;
	c->print_ctx = opts->print_ctx;
	if (!(c->url = strdup(opts->path)) || !(c->prefix = strdup(opts->prefix)))
		goto nomem;
	if ((ret = url_db(c->url, &c->db, err)))
		goto out;
	ret = -EINVAL;
	s = rf_sink_opt(opts->kv, "host");
	if (s && !*s) {
		rf_err_set(err, -EINVAL, "clickhouse output: host wants a name");
		goto out;
	}
	if (s && !(c->host = strdup(s)))
		goto nomem;
	s = rf_sink_opt(opts->kv, "max_stack");
	if (s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*s || *end || v > 1024) {
			rf_err_set(err, -EINVAL, "clickhouse output: max_stack wants a number 0..1024");
			goto out;
		}
		c->max_stack = (uint32_t)v;
	}
	s = rf_sink_opt(opts->kv, "batch_mb");
	if (s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*s || *end || !v || v > 1024) {
			rf_err_set(err, -EINVAL, "clickhouse output: batch_mb wants a number 1..1024");
			goto out;
		}
		c->batch = v << 20;
	}
	if (!(c->curl = curl_easy_init()))
		goto nomem;
	*ops = (struct rawfrag_sink_ops){
		.sz = sizeof(*ops),
		.name = "clickhouse",
		.begin = ch_begin,
		.sample = ch_sample,
		.task = ch_task,
		.lost = ch_lost,
		.end = ch_end,
		.free = ch_free,
	};
	*priv = c;
	return 0;
nomem:
	ret = -ENOMEM;
	rf_err_set(err, -ENOMEM, "out of memory");
out:
	if (c)
		ch_free(c);
	return ret;
}
