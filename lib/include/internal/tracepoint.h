/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoint producer internals, shared by lib/decoders/tracepoint*.c and the
 * in-tree tests: the parsed tracing data of one perf.data file (HEADER_TRACING_DATA
 * or the pipe-mode TRACING_DATA record), in the shape perf's trace_report() leaves
 * its tep_handle, plus the saved cmdlines as a pid -> comm table.
 *
 * Ownership: a rawfrag_tp_data owns its tep_handle and its comm table; the blob it
 * was parsed from is not referenced after rawfrag_tp_data__parse() returns.
 */
#ifndef __RAWFRAG_INTERNAL_TRACEPOINT_H
#define __RAWFRAG_INTERNAL_TRACEPOINT_H

#include <string.h>

#include "internal/decoder.h"

#include "internal/dec.h"
#include "internal/out.h"

struct tep_handle;

struct rawfrag_tp_comm {
	uint32_t pid;
	char comm[20];
};

struct rawfrag_tp_data {
	struct tep_handle *tep;
	bool big_endian; /* numbers of the blob and of the payloads */
	bool swap; /* big_endian != host order */
	int long_size; /* after header_page, as perf sets it */
	uint32_t page_size;
	char version[16];
	int nr_formats; /* formats that parsed */
	int nr_bad_formats; /* formats libtraceevent refused (warned) */
	/* saved cmdlines, sorted by pid (last entry wins for duplicates) */
	struct rawfrag_tp_comm *comms;
	size_t nr_comms;
};

/*
 * Parse a tracing-data blob as perf's trace_report() does (version, byte order,
 * long size, page size, header_page, ftrace and event formats, printk formats,
 * saved cmdlines) into td. Every length is checked against size. A format that
 * libtraceevent refuses is skipped with a warning through ctx (may be NULL); a
 * blob that is cut short keeps what parsed before the cut and returns -EINVAL
 * with err->reason saying where (err->offset = offset inside the blob).
 */
int rawfrag_tp_data__parse(struct rawfrag_tp_data *td, const void *blob, uint64_t size,
			   const struct rawfrag_decoder_ctx *ctx, struct rawfrag_err *err);
void rawfrag_tp_data__fini(struct rawfrag_tp_data *td);

/* Register kernel symbols from a kallsyms text file for %ps/%pS print formats. */
int rawfrag_tp_data__load_kallsyms(struct rawfrag_tp_data *td, const char *path);

/* Saved-cmdline task name of pid, or NULL. */
const char *rawfrag_tp_data__comm(const struct rawfrag_tp_data *td, uint32_t pid);

/*
 * Text is built straight in the out's free space when it has a good stretch
 * of it, else in a stack buffer handed to the out in one write: one rawfrag_out
 * call per piece or field was a third of the fast paths' time, and the copy
 * from a stack buffer another tenth. Nothing else may write to the out while
 * an sb holds uncommitted text: flush() commits it (and starts over at the
 * out's new end).
 */
#define RAWFRAG_TP_SB_MIN 1024

struct rawfrag_tp_sb {
	struct rawfrag_out *o;
	char *b; /* the out's free space, or stack */
	size_t len, cap;
	char stack[RAWFRAG_TP_SB_MIN];
};

static inline void rawfrag_tp_sb__init(struct rawfrag_tp_sb *sb, struct rawfrag_out *o)
{
	sb->o = o;
	sb->len = 0;
	if (o->cap - o->len >= RAWFRAG_TP_SB_MIN && !o->err) {
		sb->b = o->buf + o->len;
		sb->cap = o->cap - o->len;
	} else {
		sb->b = sb->stack;
		sb->cap = sizeof(sb->stack);
	}
}

static inline void rawfrag_tp_sb__flush(struct rawfrag_tp_sb *sb)
{
	if (sb->b == sb->stack)
		rawfrag_out__write(sb->o, sb->b, sb->len);
	else
		sb->o->len += sb->len;
	rawfrag_tp_sb__init(sb, sb->o);
}

/* room for n more bytes at b + len (n <= RAWFRAG_TP_SB_MIN) */
static inline void rawfrag_tp_sb__reserve(struct rawfrag_tp_sb *sb, size_t n)
{
	if (__builtin_expect(sb->cap - sb->len < n, 0))
		rawfrag_tp_sb__flush(sb);
}

static inline void rawfrag_tp_sb__write(struct rawfrag_tp_sb *sb, const char *s, size_t n)
{
	if (sb->cap - sb->len < n) {
		rawfrag_tp_sb__flush(sb);
		if (n > sb->cap) {
			rawfrag_out__write(sb->o, s, n);
			rawfrag_tp_sb__init(sb, sb->o);
			return;
		}
	}
	memcpy(sb->b + sb->len, s, n);
	sb->len += n;
}

static inline void rawfrag_tp_sb__puts(struct rawfrag_tp_sb *sb, const char *s)
{
	rawfrag_tp_sb__write(sb, s, strlen(s));
}

/* v in decimal where the caller made room for 20 bytes (the library's one formatter) */
static inline void rawfrag_tp_sb__u64_room(struct rawfrag_tp_sb *sb, uint64_t v)
{
	char *d = sb->b + sb->len;

	sb->len += (size_t)(rf_put_u64(d, v) - d);
}

static inline void rawfrag_tp_sb__u64(struct rawfrag_tp_sb *sb, uint64_t v)
{
	rawfrag_tp_sb__reserve(sb, 20);
	rawfrag_tp_sb__u64_room(sb, v);
}

/* v in decimal where the caller made room for 21 bytes */
static inline void rawfrag_tp_sb__s64_room(struct rawfrag_tp_sb *sb, int64_t v)
{
	if (v < 0) {
		sb->b[sb->len++] = '-';
		rawfrag_tp_sb__u64_room(sb, 0 - (uint64_t)v);
	} else {
		rawfrag_tp_sb__u64_room(sb, (uint64_t)v);
	}
}

static inline void rawfrag_tp_sb__s64(struct rawfrag_tp_sb *sb, int64_t v)
{
	rawfrag_tp_sb__reserve(sb, 21);
	rawfrag_tp_sb__s64_room(sb, v);
}

/*
 * A print fmt compiled for the fast text path (tracepoint_print.c). compile()
 * returns NULL when the format uses something only libtraceevent can print;
 * print() renders one payload whose fixed part and dynamic locators have been
 * checked to lie inside size bytes.
 */
struct tep_event;
struct rawfrag_tp_prog;
struct rawfrag_tp_prog *rawfrag_tp_prog__compile(const struct tep_event *ev, bool swap,
						 int long_size);
void rawfrag_tp_prog__free(struct rawfrag_tp_prog *p);
void rawfrag_tp_prog__print(const struct rawfrag_tp_prog *p, const uint8_t *data, uint32_t size,
			    struct rawfrag_out *o);

/*
 * The tracepoint decoder's probe without an evsel: bind event id config using the
 * file state in ctx->file_priv (from the decoder's file_init). Returns 100 and the
 * per-event state in *priv (free with the decoder's release), 0 if the tracing
 * data has no such event. For tests and tools that have payloads but no evsel.
 */
int rawfrag_tp__bind(struct rawfrag_decoder_ctx *ctx, uint64_t config, void **priv);

/*
 * Divisions in a print fmt (tracepoint_div.c): libtraceevent divides without
 * looking at the divisor, so an event whose divisor can be 0 must not reach it
 * with that payload.
 */
enum rawfrag_tp_div {
	RAWFRAG_TP_DIV_NONE, /* no division, or only by non-zero constants */
	RAWFRAG_TP_DIV_SAMPLE, /* a divisor reads the payload: ask per sample */
	RAWFRAG_TP_DIV_NEVER, /* a divisor is 0 or cannot be evaluated */
};
struct tep_event;
enum rawfrag_tp_div rawfrag_tp_div__classify(const struct tep_event *ev);
/* true when printing this payload divides by 0; why names the divisor */
bool rawfrag_tp_div__zero(const struct tep_event *ev, const uint8_t *data, uint32_t size,
			  bool swap, char *why, size_t whylen);
/* what libtraceevent's eval_type_str() keeps of a value cast to type (0: all) */
uint64_t rawfrag_tp__cast_mask(const char *type);

/*
 * A field of a bound event (priv: the tracepoint decoder's per-evsel state), as
 * perf's report keys and sizes a tracepoint field's column: where its bytes
 * are (a dynamic field's: its locator, 4 bytes) and whether it is a string.
 */
struct rawfrag_tp_field_info {
	uint32_t offset, size;
	bool is_string, dynamic, rel;
	/* an integer of 1, 2, 4 or 8 bytes in place (is_ptr: shown in hex) */
	bool is_int, is_signed, is_ptr;
};
/* name: a field's, or "common.<name>" for a common field (as the visit's path has it) */
int rawfrag_tp__field_info(const void *priv, const char *name, size_t len,
			   struct rawfrag_tp_field_info *fi);
/* the name of a bound event's field i (common fields left out), NULL past the last */
const char *rawfrag_tp__field_name(const void *priv, int i);

#endif /* __RAWFRAG_INTERNAL_TRACEPOINT_H */
