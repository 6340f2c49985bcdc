// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint producer: PERF_TYPE_TRACEPOINT samples, whose raw payload is the
 * trace record (Documentation/perf.data-raw-format.txt, Tracepoints), decoded from the
 * formats stored in the file.
 *
 * The tracing data is parsed once per file (tracepoint_data.c). probe() turns the
 * event's format into a field table (offset, size, element size, kind, sign,
 * __data_loc/__rel_loc), so the per-sample path reads fields by index and never
 * parses or looks up by name. Text goes through libtraceevent's print path with
 * the flags perf sets, because the print fmt has to come out exactly as
 * `perf script -F trace` prints it; fields() reads the table directly.
 *
 * Before handing a payload to libtraceevent it is checked against the table
 * (fixed part present, common_type right, dynamic fields inside the raw area):
 * libtraceevent trusts the record, this file does not.
 *
 * Decoder options (session dopts):
 *   kallsyms=PATH|none  where %ps/%pS symbols come from (default: /proc/kallsyms
 *                       for a file recorded on the running kernel, file mode only,
 *                       which is what perf script resolves with)
 *   fastprint=0         print every sample through libtraceevent
 *   fastjson=0          JSON fields through the generic emitter path, not the
 *                       per-event program (the same bytes, slower)
 *   probe_formats=0     hand formats to libtraceevent without the crash probe
 *                       (tracepoint_data.c)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "internal/decoders.h"
#include "internal/emit.h"
#include "internal/tracepoint.h"

enum tpf_kind {
	TPF_INT, /* 1, 2, 4 or 8 bytes, signed or not */
	TPF_PTR, /* integer shown as a hex string */
	TPF_STR, /* char[] or __data_loc/__rel_loc char[] */
	TPF_ARRAY, /* other arrays with elements of 1, 2, 4 or 8 bytes */
	TPF_BYTES, /* anything else: a hex byte string */
};

struct tp_field {
	const char *name; /* owned by the tep_event */
	struct rf_emit_key key; /* the name, encoded once for the emitter */
	uint32_t offset, size; /* of the field itself (for dynamic ones: the locator) */
	uint32_t elem; /* element size of arrays */
	uint8_t kind;
	bool is_signed, elem_ptr, dynamic, rel;
};

/* Per-file state: the parsed tracing data and a reused print buffer. */
struct tp_file {
	struct rawfrag_tp_data td;
	struct trace_seq seq;
	struct rawfrag_out *scratch; /* fast-path text while it is being checked */
	char *kallsyms; /* where to resolve %ps from, NULL: nowhere */
	bool kallsyms_done;
	const struct rawfrag_decoder_ctx *ctx; /* the session's, for -v messages */
	/*
	 * The events bound so far, one per format, each holding a reference:
	 * evsels of the same tracepoint share it, so a file repeating an attr
	 * costs its bytes, not a compiled layout (tens of KiB) per copy.
	 */
	struct tp_event **bound;
	int nr_bound, cap_bound;
};

#define TP_COMMON_RAW 16
#define TP_FKEY 64
#define TP_FTEXT 320
#define TP_FSLOTS 8 /* a power of two */
#define TP_CSLOTS 8 /* a power of two: samples of tasks on other CPUs interleave */
#define TP_COMMON_TEXT 224

/* Per-evsel state: the precompiled layout of one event. */
struct tp_event {
	int refs; /* evsels bound to it, plus the file's cache */
	struct tp_file *tf;
	struct tep_event *ev;
	uint16_t id;
	uint32_t fixed; /* end of the last fixed field: the shortest valid payload */
	uint32_t entry; /* fixed rounded up to the struct's alignment: sizeof(entry) */
	int type_idx; /* common_type in f[], or -1 */
	int nr_common, nr_fields; /* f[] = common fields, then the event's fields */
	int nr_dyn;
	struct tp_field *f;
	uint16_t *dyn; /* indexes of dynamic fields in f[] */
	/* compiled print fmt (NULL: libtraceevent prints), checked on some samples */
	struct rawfrag_tp_prog *prog;
	uint64_t nr_text;
	/*
	 * tp_text()'s common case, decided at bind: a program, nothing checked
	 * per sample (no counted arrays, divisors or dynamic fields), common_type
	 * a u16 at type_off (-1: none) and payloads of at least text_min bytes.
	 */
	bool text_fast;
	int32_t type_off;
	uint32_t text_min;
	uint64_t nr_prog_mismatch;
	/* __print_hex/__print_array(REC->array, REC->len...): lengths to check */
	int nr_lenchk;
	struct tp_lenchk {
		uint32_t arr_off, arr_size; /* the fixed array */
		uint32_t len_off, len_size; /* the field giving the count */
		uint32_t el_size; /* bytes per counted element */
	} lenchk[8];
	/* divisions in the print fmt: none, checked per sample, or never printed */
	enum rawfrag_tp_div div;
	/*
	 * The "common" object's value as last emitted, per emitter format: the
	 * common fields are fixed integers in the first common_end bytes, so the
	 * same bytes give the same text (one task's samples mostly repeat them).
	 * common_end 0: not kept (other common fields).
	 */
	uint32_t common_end;
	/*
	 * The common fields and the event's own as JSON programs (tp_json_compile),
	 * op NULL: emitted one by one.
	 */
	struct tp_jprog {
		struct tp_jop *op;
		int nr;
		uint32_t room; /* the most bytes stored between two room checks */
		uint32_t bound; /* the most bytes of text, 0: unbounded (JOP_OTHER ops) */
		char *keys; /* the keys of op[], each with RF_KEY_COPY zero bytes of slack */
	} jprog[2];
	/*
	 * The event's own fields as last written from the same payload bytes
	 * (fields_text()), a few per event, when all are fixed and at most
	 * TP_FKEY bytes: a task repeats its calls (read, write, the same buffer).
	 */
	uint32_t fstart, flen;
	uint64_t fticks;
	struct tp_fields_text {
		uint64_t used; /* fticks when last written or read */
		uint16_t len; /* 0: empty */
		uint8_t key[TP_FKEY];
		char text[TP_FTEXT];
	} *ftext;
	uint64_t cticks;
	struct tp_common_text {
		uint64_t used; /* cticks when last written or read */
		uint8_t raw[TP_COMMON_RAW];
		uint16_t len; /* 0: empty */
		char text[TP_COMMON_TEXT];
	} common_text[2][TP_CSLOTS]; /* per format, a few (by their bytes) each */
};

/*
 * One field of the JSON program: its key with the separator (the common
 * object always comes first), where its bytes are and how they are written,
 * decided once per event instead of per sample.
 */
enum tp_jop_op {
	JOP_U8, JOP_U16, JOP_U32, JOP_U64,
	JOP_S8, JOP_S16, JOP_S32, JOP_S64,
	JOP_PTR, /* an integer as a hex string */
	JOP_ARR, /* a fixed array of integers */
	JOP_STR, /* a fixed char[] */
	JOP_OTHER, /* the generic path (dynamic fields, bytes) */
};

struct tp_jop {
	const char *key; /* ,"name": */
	uint32_t klen, off, size;
	uint32_t n; /* JOP_ARR: elements of esize bytes, each written as eop */
	uint16_t idx; /* in f[] */
	uint8_t op, eop, esize;
};

/* fast-path text is compared with libtraceevent's on the first samples, then 1 in 4096 */
#define TP_VERIFY_FIRST 32
#define TP_VERIFY_EVERY 4096

/* ---- field table ---- */

/* char[] (not unsigned/signed char, not u8[]) is text; other arrays are arrays */
static bool is_char_array(const struct tep_format_field *f)
{
	const char *t = f->type;

	if (!(f->flags & TEP_FIELD_IS_STRING) || !t)
		return false;
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	else if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strncmp(t, "char", 4) && (t[4] == '[' || t[4] == ' ' || t[4] == '\0');
}

static bool int_size(uint32_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static void classify(struct tp_field *tf, const struct tep_format_field *f)
{
	tf->name = f->name;
	tf->offset = (uint32_t)f->offset;
	tf->size = (uint32_t)f->size;
	tf->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	tf->elem_ptr = f->flags & TEP_FIELD_IS_POINTER;
	tf->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	tf->rel = f->flags & TEP_FIELD_IS_RELATIVE;
	if (tf->dynamic) {
		tf->elem = f->elementsize;
		tf->kind = is_char_array(f) ? TPF_STR : int_size(tf->elem) ? TPF_ARRAY : TPF_BYTES;
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		tf->elem = f->arraylen ? tf->size / f->arraylen : tf->size;
		if (is_char_array(f))
			tf->kind = TPF_STR;
		else if (f->arraylen && int_size(tf->elem) && tf->elem * f->arraylen == tf->size)
			tf->kind = TPF_ARRAY;
		else
			tf->kind = TPF_BYTES;
	} else {
		tf->elem = tf->size;
		if (!int_size(tf->size))
			tf->kind = TPF_BYTES;
		else
			tf->kind = tf->elem_ptr ? TPF_PTR : TPF_INT;
	}
}

/*
 * Natural alignment of a field in the kernel's struct trace_event_raw_*: the
 * struct is padded to its largest member's, and dynamic data starts after it.
 * Kernels with 4-byte longs are taken as aligning u64 to 4 (i386).
 */
static uint32_t field_align(const struct tp_field *f, int long_size)
{
	uint32_t a = f->dynamic ? 4 : f->kind == TPF_STR || f->kind == TPF_BYTES ? 1 : f->elem;

	if (!int_size(a))
		a = 1;
	if (long_size == 4 && a > 4)
		a = 4;
	return a;
}

static void tp_event_free(struct tp_event *te)
{
	if (!te)
		return;
	rawfrag_tp_prog__free(te->prog);
	free(te->ftext);
	for (int i = 0; i < 2; i++) {
		free(te->jprog[i].op);
		free(te->jprog[i].keys);
	}
	for (int i = 0; te->f && i < te->nr_common + te->nr_fields; i++)
		rf_emit_key__fini(&te->f[i].key);
	free(te->f);
	free(te->dyn);
	free(te);
}

static void tp_event_put(struct tp_event *te)
{
	if (te && --te->refs <= 0)
		tp_event_free(te);
}

/* te into the file's cache (which takes a reference); no cache on ENOMEM */
static void tp_cache(struct tp_file *tf, struct tp_event *te)
{
	if (tf->nr_bound == tf->cap_bound) {
		int cap = tf->cap_bound ? 2 * tf->cap_bound : 16;
		struct tp_event **v = realloc(tf->bound, cap * sizeof(*v));

		if (!v)
			return;
		tf->bound = v;
		tf->cap_bound = cap;
	}
	te->refs++;
	tf->bound[tf->nr_bound++] = te;
}

/* may the "common" object's text be kept (see common_text)? */
static void common_keep(struct tp_event *te)
{
	uint32_t end = 0, room[2] = { 2, 2 };

	for (int i = 0; i < te->nr_common; i++) {
		const struct tp_field *f = &te->f[i];

		if (f->dynamic || (f->kind != TPF_INT && f->kind != TPF_PTR) ||
		    f->offset + f->size > TP_COMMON_RAW)
			return;
		if (f->offset + f->size > end)
			end = f->offset + f->size;
		/* separator, key, the longest number ("0x" and 16 digits, quoted: 20) */
		for (int k = 0; k < 2; k++)
			room[k] += 1 + f->key.len[k] + 21;
	}
	if (room[0] <= TP_COMMON_TEXT && room[1] <= TP_COMMON_TEXT)
		te->common_end = end;
}

static struct tp_event *tp_cached(const struct tp_file *tf, const struct tep_event *ev)
{
	for (int i = 0; i < tf->nr_bound; i++)
		if (tf->bound[i]->ev == ev)
			return tf->bound[i];
	return NULL;
}

static void find_lenchk(struct tp_event *te, struct tep_print_arg *a);

static struct tp_event *tp_event_new(struct tp_file *tf, struct tep_event *ev)
{
	struct tep_format_field *f;
	struct tp_event *te = calloc(1, sizeof(*te));
	uint32_t align = 1;
	int n = 0, nr = 0;

	if (!te)
		return NULL;
	for (f = ev->format.common_fields; f; f = f->next)
		nr++;
	for (f = ev->format.fields; f; f = f->next)
		nr++;
	te->tf = tf;
	te->ev = ev;
	te->id = (uint16_t)ev->id;
	te->type_idx = -1;
	te->f = calloc(nr ? nr : 1, sizeof(*te->f));
	te->dyn = calloc(nr ? nr : 1, sizeof(*te->dyn));
	if (!te->f || !te->dyn)
		goto err;
	for (int common = 1; common >= 0; common--) {
		f = common ? ev->format.common_fields : ev->format.fields;
		for (; f; f = f->next, n++) {
			struct tp_field *tpf = &te->f[n];

			/* a negative offset or size cannot come from a sane format */
			if (f->offset < 0 || f->size < 0 || f->offset > 0xffff || f->size > 0xffff)
				goto err;
			classify(tpf, f);
			if (rf_emit_key__init(&tpf->key, tpf->name))
				goto err;
			if (tpf->offset + tpf->size > te->fixed)
				te->fixed = tpf->offset + tpf->size;
			if (field_align(tpf, tf->td.long_size) > align)
				align = field_align(tpf, tf->td.long_size);
			if (tpf->dynamic)
				te->dyn[te->nr_dyn++] = (uint16_t)n;
			if (common && !strcmp(f->name, "common_type") && int_size(tpf->size))
				te->type_idx = n;
			if (common)
				te->nr_common++;
			else
				te->nr_fields++;
		}
	}
	te->entry = (te->fixed + align - 1) & ~(align - 1);
	common_keep(te);
	find_lenchk(te, ev->print_fmt.args);
	te->div = rawfrag_tp_div__classify(ev);
	return te;
err:
	tp_event_free(te);
	return NULL;
}

/* ---- reading a payload ---- */

static inline uint64_t rd_num(const uint8_t *p, uint32_t n, bool swap, bool sign)
{
	switch (n) {
	case 1:
		return sign ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2: {
		uint16_t v = rawfrag__get16(p, swap);

		return sign ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v = rawfrag__get32(p, swap);

		return sign ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default:
		return rawfrag__get64(p, swap);
	}
}

/*
 * Where the field's bytes are in this payload. Returns false when they are not
 * inside raw->size (the fixed part of f, or the area a locator points at).
 */
static inline bool field_span(const struct tp_field *f, const struct rawfrag_raw *raw, bool swap,
		       uint32_t *off, uint32_t *len)
{
	uint64_t o;
	uint32_t loc;

	if ((uint64_t)f->offset + f->size > raw->size)
		return false;
	if (!f->dynamic) {
		*off = f->offset;
		*len = f->size;
		return true;
	}
	if (f->size < 4)
		return false;
	/* (len << 16) | offset; __rel_loc offsets start after the locator */
	loc = rawfrag__get32(raw->data + f->offset, swap);
	o = loc & 0xffff;
	if (f->rel)
		o += (uint64_t)f->offset + f->size;
	*len = loc >> 16;
	if (o + *len > raw->size)
		return false;
	*off = (uint32_t)o;
	return true;
}

/*
 * The producer rules for one payload. Returns the number of problems found (0: the
 * layout is sound), fills *end with the true length (fixed part and dynamic data),
 * reports into sink (may be NULL) and writes the first problem into why.
 * The true length is what the kernel's entry holds: the struct with its tail
 * padding and the dynamic data; raw_size - length is then the alignment
 * the kernel adds to make raw_size % 8 == 4, which it zeroes
 * (perf_trace_buf_alloc() clears the last u64): stale bytes there are news.
 */
static int tp_check(const struct tp_event *te, const struct rawfrag_raw *raw, uint32_t *end,
		    struct rawfrag_check_sink *sink, char *why, size_t whylen)
{
	bool swap = te->tf->td.swap;
	uint64_t len, dyn_total, max_end = 0;
	uint32_t off, dlen;
	int bad = 0;

	if (why && whylen)
		why[0] = '\0';
	if (raw->size < te->fixed || raw->size < 8) {
		rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "tp_short", -1,
					   "raw size %u is shorter than the fixed fields of %s:%s (%u bytes)",
					   raw->size, te->ev->system, te->ev->name, te->fixed);
		if (why)
			snprintf(why, whylen, "raw size %u < fixed fields %u", raw->size,
				 te->fixed);
		*end = raw->size;
		return 1;
	}
	/*
	 * The kernel sizes an entry as sizeof(struct) + the dynamic lengths, but
	 * puts the dynamic data at offsetof(__data), the fixed end: so the struct's
	 * tail padding counts whether or not dynamic data moved into it.
	 */
	len = te->entry;
	dyn_total = 0;
	if (te->type_idx >= 0) {
		const struct tp_field *t = &te->f[te->type_idx];
		uint64_t type = rd_num(raw->data + t->offset, t->size, swap, false);

		if (type != te->id) {
			rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "tp_common_type",
						   t->offset,
						   "common_type %llu does not match the event id %u of %s:%s",
						   (unsigned long long)type, te->id, te->ev->system,
						   te->ev->name);
			if (why && !bad)
				snprintf(why, whylen, "common_type %llu != event id %u",
					 (unsigned long long)type, te->id);
			bad++;
		}
	}
	for (int i = 0; i < te->nr_dyn; i++) {
		const struct tp_field *f = &te->f[te->dyn[i]];

		if (!field_span(f, raw, swap, &off, &dlen)) {
			uint32_t loc = rawfrag__get32(raw->data + f->offset, swap);

			rawfrag_check_sink__report(sink, RAWFRAG_SEV_ERROR, "tp_dynamic_outside",
						   f->offset,
						   "dynamic field %s (locator 0x%08x%s) points outside the raw area of %u bytes",
						   f->name, loc, f->rel ? ", relative" : "",
						   raw->size);
			if (why && !bad)
				snprintf(why, whylen, "dynamic field %s outside the raw area",
					 f->name);
			bad++;
			continue;
		}
		dyn_total += dlen;
		if (off + dlen > max_end)
			max_end = off + dlen;
	}
	len += dyn_total;
	if (max_end > len)
		len = max_end;
	*end = len <= raw->size ? (uint32_t)len : raw->size;
	return bad;
}

/*
 * What tp_check() finds for the usual payload, without its reporting set-up:
 * no dynamic fields, long enough, common_type right. True means tp_check()
 * would return 0 with *end = min(entry, size); false: ask tp_check().
 */
static inline bool tp_plain_ok(const struct tp_event *te, const struct rawfrag_raw *raw)
{
	const struct tp_field *t;

	if (te->nr_dyn || raw->size < te->fixed || raw->size < 8)
		return false;
	if (te->type_idx < 0)
		return true;
	t = &te->f[te->type_idx];
	return rd_num(raw->data + t->offset, t->size, te->tf->td.swap, false) == te->id;
}

/* ---- typed fields ---- */

/* "common" as the emitter keys it, encoded once (with the zero slack keys have) */
static const char common_text[40] = "common=", common_json[40] = "\"common\":";
static const struct rf_emit_key common_key = {
	.form = { [RAWFRAG_EMIT_TEXT] = (char *)common_text,
		  [RAWFRAG_EMIT_JSON] = (char *)common_json,
		  [RAWFRAG_EMIT_VISIT] = (char *)common_text },
	.len = { [RAWFRAG_EMIT_TEXT] = 7, [RAWFRAG_EMIT_JSON] = 9, [RAWFRAG_EMIT_VISIT] = 6 },
};

static inline __attribute__((always_inline)) void
emit_elem(struct rawfrag_emit *em, const struct rf_emit_key *k,
			     const struct tp_field *f, const uint8_t *p, uint32_t n, bool swap)
{
	uint64_t v = rd_num(p, n, swap, f->is_signed);

	if (f->elem_ptr)
		rf_emit__hexk(em, k, v);
	else if (f->is_signed)
		rf_emit__s64k(em, k, (int64_t)v);
	else
		rf_emit__u64k(em, k, v);
}

static void emit_field(struct rawfrag_emit *em, const struct tp_field *f,
		       const struct rawfrag_raw *raw, bool swap)
{
	const uint8_t *p;
	uint32_t off, len;

	if (!field_span(f, raw, swap, &off, &len)) {
		rf_emit__nullk(em, &f->key);
		return;
	}
	p = raw->data + off;
	switch (f->kind) {
	case TPF_INT:
	case TPF_PTR:
		emit_elem(em, &f->key, f, p, f->size, swap);
		break;
	case TPF_STR:
		rf_emit__strk(em, &f->key, (const char *)p, strnlen((const char *)p, len));
		break;
	case TPF_ARRAY:
		rf_emit__openk(em, &f->key, '[');
		for (uint32_t i = 0; i + f->elem <= len; i += f->elem)
			emit_elem(em, NULL, f, p + i, f->elem, swap);
		rf_emit__close(em, ']');
		break;
	default:
		rf_emit__bytesk(em, &f->key, p, len);
		break;
	}
}

/* ---- the JSON program ---- */

/* JOP_U8.. for an integer of n (1, 2, 4, 8) bytes */
static uint8_t jop_int(uint32_t n, bool sign, bool ptr)
{
	uint8_t op = n == 1 ? JOP_U8 : n == 2 ? JOP_U16 : n == 4 ? JOP_U32 : JOP_U64;

	if (ptr)
		return JOP_PTR;
	return sign ? op + (JOP_S8 - JOP_U8) : op;
}

/* what the op of f stores at most after its key; *op the op */
static uint32_t jop_of(const struct tp_field *f, struct tp_jop *j)
{
	j->op = JOP_OTHER;
	if (f->dynamic || !f->key.form[RAWFRAG_EMIT_JSON])
		return 0;
	switch (f->kind) {
	case TPF_INT:
	case TPF_PTR:
		j->op = jop_int(f->size, f->is_signed, f->elem_ptr);
		return 21; /* "-9223372036854775808", "0x" and 16 digits quoted: 20 */
	case TPF_STR:
		j->op = JOP_STR; /* written by the out's string escaper */
		return 0;
	case TPF_ARRAY:
		j->n = f->size / f->elem;
		/* long arrays: not worth a room that large */
		if (!j->n || j->n > 256)
			return 0;
		j->op = JOP_ARR;
		j->eop = jop_int(f->elem, f->is_signed, f->elem_ptr);
		j->esize = (uint8_t)f->elem;
		return 2 + 22 * j->n;
	default:
		return 0;
	}
}

/*
 * The n fields from f[from] as JSON ops into pr; left empty (the generic path)
 * without memory. Keys carry the ',' before them but for the first of the
 * common object ("common" itself always comes first in "fields").
 */
static void jprog_compile(struct tp_jprog *pr, const struct tp_event *te, int from, int n,
			  bool comma_first)
{
	size_t kbytes = 0, at = 0, room = 16, bound = 0;
	bool unbounded = false;
	struct tp_jop *jop;
	char *keys;

	if (n <= 0)
		return;
	for (int i = from; i < from + n; i++)
		kbytes += 1 + te->f[i].key.len[RAWFRAG_EMIT_JSON] + RF_KEY_COPY;
	jop = calloc(n, sizeof(*jop));
	keys = calloc(1, kbytes);
	if (!jop || !keys) {
		free(jop);
		free(keys);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct tp_field *f = &te->f[from + i];
		struct tp_jop *j = &jop[i];
		uint32_t sep = i || comma_first;
		uint32_t kl = sep + f->key.len[RAWFRAG_EMIT_JSON];

		j->idx = (uint16_t)(from + i);
		j->off = f->offset;
		j->size = f->size;
		room += jop_of(f, j);
		if (j->op == JOP_OTHER) {
			unbounded = true;
			continue;
		}
		/* escaped strings: six bytes per byte at most, and the quotes */
		bound += kl + (j->op == JOP_STR ? 6 * j->size + 2 : j->op == JOP_ARR ?
			     2 + 22 * j->n : 21);
		keys[at] = ',';
		memcpy(keys + at + sep, f->key.form[RAWFRAG_EMIT_JSON], kl - sep);
		j->key = keys + at;
		j->klen = kl;
		at += kl + RF_KEY_COPY;
		room += kl > RF_KEY_COPY ? kl : RF_KEY_COPY;
	}
	pr->op = jop;
	pr->nr = n;
	pr->keys = keys;
	pr->room = (uint32_t)room;
	pr->bound = unbounded ? 0 : (uint32_t)bound;
}

/* may the event's fields text be kept (see ftext)? */
static void fields_keep(struct tp_event *te)
{
	uint32_t start = UINT32_MAX;

	if (te->nr_dyn || !te->jprog[1].op || !te->jprog[1].bound)
		return;
	for (int i = te->nr_common; i < te->nr_common + te->nr_fields; i++)
		if (te->f[i].offset < start)
			start = te->f[i].offset;
	if (start >= te->fixed || te->fixed - start > TP_FKEY || te->fixed - start < 8)
		return;
	te->ftext = calloc(TP_FSLOTS, sizeof(*te->ftext));
	te->fstart = start;
	te->flen = te->fixed - start;
}

static void tp_json_compile(struct tp_event *te)
{
	jprog_compile(&te->jprog[0], te, 0, te->nr_common, false);
	jprog_compile(&te->jprog[1], te, te->nr_common, te->nr_fields, true);
	fields_keep(te);
}

/* one integer of the op's kind from q at p (room: 21 bytes); the end */
static inline __attribute__((always_inline)) char *jop_num(char *p, uint8_t op, uint32_t size,
							   const uint8_t *q)
{
	uint64_t v;
	int64_t sv;

	switch (op) {
	case JOP_U8:
		return rf_put_u64(p, q[0]);
	case JOP_U16:
		return rf_put_u64(p, rawfrag__get16(q, false));
	case JOP_U32:
		return rf_put_u64(p, rawfrag__get32(q, false));
	case JOP_U64:
		return rf_put_u64(p, rawfrag__get64(q, false));
	case JOP_S8:
		sv = (int8_t)q[0];
		break;
	case JOP_S16:
		sv = (int16_t)rawfrag__get16(q, false);
		break;
	case JOP_S32:
		sv = (int32_t)rawfrag__get32(q, false);
		break;
	case JOP_S64:
		sv = (int64_t)rawfrag__get64(q, false);
		break;
	default: /* JOP_PTR */
		v = rd_num(q, size, false, false);
		memcpy(p, "\"0x", 3);
		p = rf_put_hex(p + 3, v);
		*p = '"';
		return p + 1;
	}
	return rf_put_s64(p, sv);
}

static char *jop_array(char *p, const struct tp_jop *j, const uint8_t *q)
{
	*p++ = '[';
	for (uint32_t i = 0; i < j->n; i++, q += j->esize) {
		*p = ',';
		p += i != 0;
		p = jop_num(p, j->eop, j->esize, q);
	}
	*p = ']';
	return p + 1;
}

/*
 * Fields by a program, for a payload holding all fixed fields in the file's
 * byte order: one room check for the fixed part, each field its key copy and
 * its number. The bytes are emit_field()'s.
 */
static void jprog_run(struct rawfrag_emit *em, const struct tp_event *te,
		      const struct tp_jprog *pr, const struct rawfrag_raw *raw)
{
	struct rawfrag_out *o = em->out;
	const uint8_t *d = raw->data;
	char *p = rf_out_room(o, pr->room);

	for (int i = 0; p && i < pr->nr; i++) {
		const struct tp_jop *j = &pr->op[i];

		if (j->op == JOP_OTHER) {
			o->len = (size_t)(p - o->buf);
			emit_field(em, &te->f[j->idx], raw, false);
			p = rf_out_room(o, pr->room);
			continue;
		}
		/* the first key written: the emitter's level has a member now */
		em->first[em->depth] = false;
		if (j->klen <= RF_KEY_COPY)
			memcpy(p, j->key, RF_KEY_COPY);
		else
			memcpy(p, j->key, j->klen);
		p += j->klen;
		if (j->op == JOP_STR) {
			o->len = (size_t)(p - o->buf);
			rawfrag_out__json_str(o, (const char *)d + j->off, j->size);
			p = rf_out_room(o, pr->room);
		} else if (j->op == JOP_ARR) {
			p = jop_array(p, j, d + j->off);
		} else {
			p = jop_num(p, j->op, j->size, d + j->off);
		}
	}
	if (p)
		o->len = (size_t)(p - o->buf);
}

/* may the programs write this payload? (JSON bytes: text and visits go field by field) */
static inline bool jprog_ok(const struct tp_event *te, const struct rawfrag_raw *raw, bool swap,
			    const struct rawfrag_emit *em)
{
	return !swap && em->fmt == RAWFRAG_EMIT_JSON && raw->size >= te->fixed;
}

/* the common fields, inside the object emit_common() opened */
static void emit_common_body(struct rawfrag_emit *em, const struct tp_event *te,
			     const struct rawfrag_raw *raw, bool swap)
{
	if (te->jprog[0].op && jprog_ok(te, raw, swap, em)) {
		jprog_run(em, te, &te->jprog[0], raw);
	} else {
		for (int i = 0; i < te->nr_common; i++)
			emit_field(em, &te->f[i], raw, swap);
	}
}

static void emit_common(struct rawfrag_emit *em, const struct tp_event *te,
			const struct rawfrag_raw *raw, bool swap)
{
	rf_emit__openk(em, &common_key, '{');
	emit_common_body(em, te, raw, swap);
	rf_emit__close(em, '}');
}

/* a slot index from 64 bits of payload (murmur3's finalizer) */
static inline uint64_t slot_hash(uint64_t h)
{
	h = (h ^ h >> 31) * 0xff51afd7ed558ccdULL;
	return h ^ h >> 33;
}

/* the first n bytes of a and b are equal (8: perf's common fields, one compare) */
static inline bool same_head(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint64_t x, y;

	if (n != 8)
		return !memcmp(a, b, n);
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	return x == y;
}

/*
 * The common object from common_text when the payload starts with the same
 * bytes; else emitted and kept. The room asked first holds all of it, so the
 * out does not flush while it is written and its bytes can be taken back.
 */
static void emit_common_kept(struct rawfrag_emit *em, struct tp_event *te,
			     const struct rawfrag_raw *raw, bool swap)
{
	struct rawfrag_out *o = em->out;
	struct tp_common_text *ct, *alt;
	uint64_t h = 0;
	size_t start;
	bool hit, alt_hit;
	char *p;

	if (te->common_end >= 8)
		memcpy(&h, raw->data, 8);
	h = slot_hash(h);
	/* two places it may be in, the less recently used one replaced */
	ct = &te->common_text[em->fmt == RAWFRAG_EMIT_JSON][h & (TP_CSLOTS - 1)];
	alt = &te->common_text[em->fmt == RAWFRAG_EMIT_JSON][(h >> 8) & (TP_CSLOTS - 1)];
	hit = ct->len && same_head(ct->raw, raw->data, te->common_end);
	alt_hit = !hit && alt->len && same_head(alt->raw, raw->data, te->common_end);
	if (!hit && (alt_hit || alt->used < ct->used)) {
		ct = alt;
		hit = alt_hit;
	}
	ct->used = ++te->cticks;
	if (hit) {
		p = rf_emit__key(em, &common_key, ct->len);
		if (p)
			rf_emit__commit(em, (char *)memcpy(p, ct->text, ct->len) + ct->len);
		else
			emit_common(em, te, raw, swap); /* a visit: field by field */
		return;
	}
	/* no room (always so for a visit): field by field, nothing kept */
	if (!rf_out_room(o, 2 * TP_COMMON_TEXT + te->jprog[0].room)) {
		emit_common(em, te, raw, swap);
		return;
	}
	rf_emit__openk(em, &common_key, '{');
	start = o->len - 1; /* the '{' */
	emit_common_body(em, te, raw, swap);
	rf_emit__close(em, '}');
	ct->len = 0;
	if (o->err || o->len < start || o->len - start > TP_COMMON_TEXT)
		return;
	memcpy(ct->raw, raw->data, te->common_end);
	memcpy(ct->text, o->buf + start, o->len - start);
	ct->len = (uint16_t)(o->len - start);
}

/*
 * The event's fields from ftext when the payload has the same bytes there;
 * else written by the program and kept. The room asked first holds the
 * longest text the fields can give, so the out does not flush while they are
 * written and their bytes can be taken back.
 */
static void fields_text(struct rawfrag_emit *em, struct tp_event *te,
			const struct rawfrag_raw *raw)
{
	const struct tp_jprog *pr = &te->jprog[1];
	const uint8_t *key = raw->data + te->fstart;
	struct rawfrag_out *o = em->out;
	struct tp_fields_text *ft, *alt;
	bool hit, alt_hit;
	uint64_t h, w;
	size_t start;
	char *p;

	/* the slot from the first and last 8 bytes: a call number alone is shared by tasks */
	memcpy(&h, key, 8);
	memcpy(&w, key + te->flen - 8, 8);
	h = slot_hash(h * 0x9e3779b97f4a7c15ULL + w);
	/* two places a text may be in, the less recently used one replaced */
	ft = &te->ftext[h & (TP_FSLOTS - 1)];
	alt = &te->ftext[(h >> 8) & (TP_FSLOTS - 1)];
	hit = ft->len && !memcmp(ft->key, key, te->flen);
	alt_hit = !hit && alt->len && !memcmp(alt->key, key, te->flen);
	if (!hit && (alt_hit || alt->used < ft->used)) {
		ft = alt;
		hit = alt_hit;
	}
	if (hit) {
		ft->used = ++te->fticks;
		p = rf_out_room(o, ft->len);
		if (p) {
			memcpy(p, ft->text, ft->len);
			o->len += ft->len;
		}
		em->first[em->depth] = false;
		return;
	}
	if (!rf_out_room(o, (size_t)pr->bound + pr->room)) {
		jprog_run(em, te, pr, raw);
		return;
	}
	start = o->len;
	jprog_run(em, te, pr, raw);
	ft->len = 0;
	if (o->err || o->len < start || o->len - start > TP_FTEXT || o->len == start)
		return;
	memcpy(ft->key, key, te->flen);
	memcpy(ft->text, o->buf + start, o->len - start);
	ft->len = (uint16_t)(o->len - start);
	ft->used = ++te->fticks;
}

static int tp_fields(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		     struct rawfrag_emit *em)
{
	struct tp_event *te = priv;
	bool swap = te->tf->td.swap;
	int i;

	if (te->common_end && raw->size >= te->common_end)
		emit_common_kept(em, te, raw, swap);
	else
		emit_common(em, te, raw, swap);
	if (te->jprog[1].op && jprog_ok(te, raw, swap, em)) {
		if (te->ftext)
			fields_text(em, te, raw);
		else
			jprog_run(em, te, &te->jprog[1], raw);
		return 0;
	}
	for (i = te->nr_common; i < te->nr_common + te->nr_fields; i++)
		emit_field(em, &te->f[i], raw, swap);
	return 0;
}

/* ---- text ---- */

/* what perf's event_format__fprintf() hands to libtraceevent; text in tf->seq */
static int tep_text(struct tp_event *te, const struct rawfrag_raw *raw,
		    const struct rawfrag_sample *s)
{
	struct tp_file *tf = te->tf;
	struct tep_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.cpu = s ? (int)s->cpu : 0;
	rec.ts = s ? s->time : 0;
	rec.size = (int)raw->size;
	rec.data = (void *)raw->data;
	trace_seq_reset(&tf->seq);
	tep_print_event(tf->td.tep, &tf->seq, &rec, "%s", TEP_PRINT_INFO);
	return tf->seq.state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

/*
 * The compiled print fmt, checked against libtraceevent on some samples: on a
 * difference the program is dropped and libtraceevent prints from then on.
 */
static int fast_text(struct tp_event *te, const struct rawfrag_raw *raw,
		     const struct rawfrag_sample *s, struct rawfrag_out *out)
{
	struct tp_file *tf = te->tf;
	uint64_t n = te->nr_text++;
	const char *mine;
	size_t len;
	int ret;

	if (n >= TP_VERIFY_FIRST && n % TP_VERIFY_EVERY) {
		rawfrag_tp_prog__print(te->prog, raw->data, raw->size, out);
		return 0;
	}
	rawfrag_out__reset(tf->scratch);
	rawfrag_tp_prog__print(te->prog, raw->data, raw->size, tf->scratch);
	mine = rawfrag_out__mem(tf->scratch, &len);
	ret = tep_text(te, raw, s);
	if (ret)
		return ret;
	if (len != tf->seq.len || memcmp(mine, tf->seq.buffer, len)) {
		/* never silent: a difference is a bug in the compiled printer */
		rawfrag_decoder_ctx__log(tf->ctx, RAWFRAG_INFO,
					 "%s:%s: compiled printer differs from libtraceevent on "
					 "sample %llu of the event; libtraceevent prints it from now on",
					 te->ev->system, te->ev->name, (unsigned long long)n + 1);
		te->nr_prog_mismatch++;
		rawfrag_tp_prog__free(te->prog);
		te->prog = NULL;
	}
	rawfrag_out__write(out, tf->seq.buffer, tf->seq.len);
	return 0;
}

/*
 * __print_hex(REC->array, REC->len) and __print_array(REC->array, REC->count, N)
 * make libtraceevent read as many bytes as a payload field says, from a fixed
 * array: remember them so text() can refuse a count past the array.
 */
static void find_lenchk(struct tp_event *te, struct tep_print_arg *a)
{
	struct tep_print_arg *arr = NULL, *cnt = NULL, *el = NULL;
	const struct tep_format_field *fa, *fc;

	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			arr = a->hex.field;
			cnt = a->hex.size;
			el = NULL;
			break;
		case TEP_PRINT_INT_ARRAY:
			arr = a->int_array.field;
			cnt = a->int_array.count;
			el = a->int_array.el_size;
			break;
		case TEP_PRINT_OP:
			find_lenchk(te, a->op.left);
			find_lenchk(te, a->op.right);
			continue;
		case TEP_PRINT_TYPE:
			find_lenchk(te, a->typecast.item);
			continue;
		default:
			continue;
		}
		if (!arr || !cnt || arr->type != TEP_PRINT_FIELD || cnt->type != TEP_PRINT_FIELD ||
		    te->nr_lenchk >= (int)(sizeof(te->lenchk) / sizeof(te->lenchk[0])))
			continue;
		fa = tep_find_any_field(te->ev, arr->field.name);
		fc = tep_find_any_field(te->ev, cnt->field.name);
		if (!fa || !fc || !int_size((uint32_t)fc->size) || (fa->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		te->lenchk[te->nr_lenchk++] = (struct tp_lenchk){
			.arr_off = (uint32_t)fa->offset,
			.arr_size = (uint32_t)fa->size,
			.len_off = (uint32_t)fc->offset,
			.len_size = (uint32_t)fc->size,
			.el_size = el && el->type == TEP_PRINT_ATOM ? (uint32_t)strtoul(el->atom.atom, NULL, 0) : 1,
		};
	}
}

/*
 * libtraceevent prints __get_str() up to the NUL, wherever that is: a dynamic
 * string with no NUL before the end of the raw area would be read past it.
 * (The kernel always stores the NUL; its length counts it.)
 */
static bool strings_unterminated(const struct tp_event *te, const struct rawfrag_raw *raw,
				 char *why, size_t whylen)
{
	bool swap = te->tf->td.swap;
	uint32_t off, len;

	for (int i = 0; i < te->nr_dyn; i++) {
		const struct tp_field *f = &te->f[te->dyn[i]];

		if (f->kind != TPF_STR || !field_span(f, raw, swap, &off, &len))
			continue;
		if (off >= raw->size || !memchr(raw->data + off, 0, raw->size - off)) {
			snprintf(why, whylen, "string field %s not terminated inside the raw area",
				 f->name);
			return true;
		}
	}
	for (int i = 0; i < te->nr_lenchk; i++) {
		const struct tp_lenchk *l = &te->lenchk[i];
		uint64_t n = rd_num(raw->data + l->len_off, l->len_size, swap, false);

		if (n * (l->el_size ? l->el_size : 1) > l->arr_size ||
		    (uint64_t)l->arr_off + l->arr_size > raw->size) {
			snprintf(why, whylen, "a length of %llu elements past its %u-byte array",
				 (unsigned long long)n, l->arr_size);
			return true;
		}
	}
	return false;
}

/* A payload the quick test did not pass: the full checks, "[bad ...]" when they fail. */
static __attribute__((noinline)) int tp_text_checked(const struct tp_event *te,
						     const struct rawfrag_raw *raw,
						     struct rawfrag_out *out)
{
	char why[128];
	uint32_t end;

	if (tp_check(te, raw, &end, NULL, why, sizeof(why)) ||
	    strings_unterminated(te, raw, why, sizeof(why)) ||
	    (te->div == RAWFRAG_TP_DIV_SAMPLE &&
	     rawfrag_tp_div__zero(te->ev, raw->data, raw->size, te->tf->td.swap, why,
				  sizeof(why)))) {
		rawfrag_out__printf(out, "[bad %s:%s payload: %s]", te->ev->system, te->ev->name,
				    why);
		return -EINVAL;
	}
	return 0;
}

static __attribute__((noinline)) int tp_text_slow(void *priv, const struct rawfrag_raw *raw,
						   const struct rawfrag_sample *s,
						   struct rawfrag_out *out, bool verbose)
{
	struct tp_event *te = priv;
	struct tp_file *tf = te->tf;
	int ret = 0;

	/* counted arrays, divisors and strings need the long way */
	if ((te->nr_lenchk || te->div == RAWFRAG_TP_DIV_SAMPLE || !tp_plain_ok(te, raw)) &&
	    tp_text_checked(te, raw, out))
		return -EINVAL;
	if (te->div == RAWFRAG_TP_DIV_NEVER) {
		rawfrag_out__printf(out, "[%s:%s: print format not used: it divides by a value "
					 "that may be 0]",
				    te->ev->system, te->ev->name);
		verbose = true;
	} else if (te->prog) {
		ret = fast_text(te, raw, s, out);
	} else {
		ret = tep_text(te, raw, s);
		if (!ret)
			rawfrag_out__write(out, tf->seq.buffer, tf->seq.len);
	}
	if (ret)
		return ret;
	if (verbose) {
		struct rawfrag_emit *em = rawfrag_emit__new(out, RAWFRAG_EMIT_TEXT);

		if (!em)
			return -ENOMEM;
		rawfrag_out__puts(out, " | ");
		tp_fields(priv, raw, s, em);
		rawfrag_emit__delete(em);
	}
	return 0;
}

static int tp_text(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		   struct rawfrag_out *out, bool verbose)
{
	struct tp_event *te = priv;
	uint64_t n = te->nr_text;

	/*
	 * The common case in one test, without the long way's frame: compiled,
	 * nothing to check per sample, not a sample fast_text() compares with
	 * libtraceevent.
	 */
	if (te->text_fast && te->prog && !verbose && n >= TP_VERIFY_FIRST && n % TP_VERIFY_EVERY &&
	    raw->size >= te->text_min &&
	    (te->type_off < 0 ||
	     rawfrag__get16(raw->data + te->type_off, te->tf->td.swap) == te->id)) {
		te->nr_text = n + 1;
		rawfrag_tp_prog__print(te->prog, raw->data, raw->size, out);
		return 0;
	}
	return tp_text_slow(priv, raw, s, out, verbose);
}

static int tp_length(void *priv, const struct rawfrag_raw *raw, const struct rawfrag_sample *s,
		     uint32_t *len, struct rawfrag_check_sink *sink)
{
	const struct tp_event *te = priv;
	int bad;

	if (tp_plain_ok(te, raw)) {
		*len = te->entry <= raw->size ? te->entry : raw->size;
		return 0;
	}
	bad = tp_check(te, raw, len, sink, NULL, 0);
	return bad ? -EINVAL : 0;
}

/* ---- per-file and per-evsel setup ---- */

/* %ps/%pS/%pF/%pf/%pB in the print fmt: kernel addresses shown as symbols */
static bool needs_symbols(const struct tep_event *ev)
{
	const char *p = ev->print_fmt.format;

	while (p && (p = strstr(p, "%p"))) {
		p += 2;
		if (*p && strchr("sSfFB", *p))
			return true;
	}
	return false;
}

/*
 * The copy of the recording kernel's kallsyms perf record keeps in its build-id
 * cache ($HOME/.debug/[kernel.kallsyms]/<build-id>/kallsyms), found from the
 * file's BUILD_ID feature; NULL if there is none. It stays right after a reboot,
 * when /proc/kallsyms has moved (KASLR).
 */
static char *cached_kallsyms(const struct rawfrag_file *f)
{
	static const char kname[] = "[kernel.kallsyms]";
	const char *home = getenv("HOME");
	bool swap = rawfrag_file__needs_swap(f);
	uint64_t size = 0, off = 0;
	const uint8_t *p = rawfrag_file__feature(f, RAWFRAG_FEAT_BUILD_ID, &size);

	/*
	 * build_id_event: header, pid, build_id[24] (20 + size byte), filename;
	 * 2.6.33 - 2.6.34 without the pid (perf's "ABI quirk": the kernel's name
	 * then reads "nel.kallsyms]")
	 */
	while (p && home && off + 37 <= size) {
		uint16_t misc = rawfrag__get16(p + off + 4, swap);
		uint16_t hsize = rawfrag__get16(p + off + 6, swap);
		const uint8_t *e = p + off;
		unsigned int n = 20, id = 12, name = 36;
		char path[4096], hex[41];

		if (hsize < 37 || hsize > size - off)
			break;
		off += hsize;
		if (hsize >= 49 && !memcmp(e + 36, "nel.kallsyms]", 13)) {
			id = 8;
			name = 32;
		}
		if (strnlen((const char *)e + name, hsize - name) != sizeof(kname) - 1 ||
		    memcmp(e + name, kname, sizeof(kname) - 1))
			continue;
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid */
		if (id == 12 && (misc & (1 << 15)) && e[32] && e[32] <= 20)
			n = e[32];
		for (unsigned int i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", e[id + i]);
		snprintf(path, sizeof(path), "%s/.debug/%s/%s/kallsyms", home, kname, hex);
		return access(path, R_OK) ? NULL : strdup(path);
	}
	return NULL;
}

/*
 * perf resolves kernel addresses through the kernel map of the recording host:
 * for a file recorded here, the build-id cache copy or /proc/kallsyms. Default:
 * the cache copy when there is one, else /proc/kallsyms when the file's
 * osrelease is the running kernel's; file mode only (perf script on a pipe
 * prints the bare addresses). "kallsyms=PATH" or "kallsyms=none" override.
 */
static int pick_kallsyms(struct tp_file *tf, const struct rawfrag_decoder_ctx *ctx)
{
	const char *opt = rawfrag_decoder_ctx__opt(ctx, "kallsyms");
	struct utsname u;

	if (opt) {
		if (!*opt || !strcmp(opt, "none"))
			return 0;
		tf->kallsyms = strdup(opt);
		return tf->kallsyms ? 0 : -ENOMEM;
	}
	/* perf 6.1 leaves addresses unresolved when it reads a pipe: so do we */
	if (!ctx->file || rawfrag_file__mode(ctx->file) == RAWFRAG_MODE_PIPE)
		return 0;
	tf->kallsyms = cached_kallsyms(ctx->file);
	if (tf->kallsyms)
		return 0;
	if (ctx->env && ctx->env->osrelease && !uname(&u) &&
	    !strcmp(u.release, ctx->env->osrelease)) {
		tf->kallsyms = strdup("/proc/kallsyms");
		return tf->kallsyms ? 0 : -ENOMEM;
	}
	return 0;
}

static void tp_file_fini(void *file_priv)
{
	struct tp_file *tf = file_priv;

	if (!tf)
		return;
	for (int i = 0; i < tf->nr_bound; i++)
		tp_event_put(tf->bound[i]);
	free(tf->bound);
	rawfrag_tp_data__fini(&tf->td);
	trace_seq_destroy(&tf->seq);
	rawfrag_out__delete(tf->scratch);
	free(tf->kallsyms);
	free(tf);
}

static int tp_file_init(struct rawfrag_decoder_ctx *ctx, void **file_priv)
{
	const struct rawfrag_env *env = ctx->env;
	struct rawfrag_err err = { 0 };
	struct tp_file *tf;
	int ret;

	*file_priv = NULL;
	/* no tracing data (yet, in pipe mode): nothing to bind */
	if (!env || !env->tracing_data || !env->tracing_data_size)
		return 0;
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return -ENOMEM;
	tf->ctx = ctx;
	trace_seq_init(&tf->seq);
	tf->scratch = rawfrag_out__new(-1);
	if (!tf->scratch) {
		ret = -ENOMEM;
		goto err;
	}
	ret = rawfrag_tp_data__parse(&tf->td, env->tracing_data, env->tracing_data_size, ctx,
				     &err);
	if (ret == -ENOMEM)
		goto err;
	/* keep what parsed before a cut: those events still decode */
	if (ret)
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN, "%s", err.reason);
	ret = pick_kallsyms(tf, ctx);
	if (ret)
		goto err;
	*file_priv = tf;
	return 0;
err:
	tp_file_fini(tf);
	return ret;
}

static bool opt_is_false(const char *v)
{
	return v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off"));
}

/* Name the evsel "sys:name" as perf does when the file gave no name. */
static void name_evsel(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		       const struct tep_event *ev)
{
	const char *cur = rawfrag_evsel__name(evsel);
	struct rawfrag_evsel *e;
	char name[256], generated[64];

	/* the reader's stand-in for a nameless tracepoint is "tracepoint:<id>" */
	snprintf(generated, sizeof(generated), "tracepoint:%llu",
		 (unsigned long long)rawfrag_evsel__attr(evsel)->config);
	if (cur && *cur && strcmp(cur, generated))
		return;
	e = ctx->file ? rawfrag_file__evsel(ctx->file, rawfrag_evsel__idx(evsel)) : NULL;
	if (!e)
		return;
	snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
	rawfrag_evsel__set_name(e, name);
}

int rawfrag_tp__bind(struct rawfrag_decoder_ctx *ctx, uint64_t config, void **priv)
{
	struct tp_file *tf = ctx->file_priv;
	struct tep_event *ev;
	struct tp_event *te;

	if (!tf || !tf->td.tep)
		return 0;
	ev = config <= 0xffff ? tep_find_event(tf->td.tep, (int)config) : NULL;
	if (!ev) {
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
					 "tracing data has no format for tracepoint id %llu",
					 (unsigned long long)config);
		return 0;
	}
	te = tp_cached(tf, ev);
	if (te) {
		te->refs++;
		*priv = te;
		return 100;
	}
	te = tp_event_new(tf, ev);
	if (!te) {
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
					 "format of %s:%s has impossible field offsets",
					 ev->system, ev->name);
		return 0;
	}
	if (te->div == RAWFRAG_TP_DIV_NEVER)
		rawfrag_decoder_ctx__log(ctx, RAWFRAG_INFO,
					 "%s:%s: print format not used: it divides by a value that "
					 "is 0 or cannot be evaluated",
					 ev->system, ev->name);
	/* "fastprint=0": libtraceevent prints every sample */
	if (!opt_is_false(rawfrag_decoder_ctx__opt(ctx, "fastprint")))
		te->prog = rawfrag_tp_prog__compile(ev, tf->td.swap, tf->td.long_size);
	/* tp_plain_ok() and tp_text()'s tests, those that do not change per sample */
	te->text_fast = te->prog && !te->nr_lenchk && te->div == RAWFRAG_TP_DIV_NONE &&
			!te->nr_dyn && (te->type_idx < 0 || te->f[te->type_idx].size == 2);
	te->type_off = te->type_idx < 0 ? -1 : (int32_t)te->f[te->type_idx].offset;
	te->text_min = te->fixed > 8 ? te->fixed : 8;
	/* "fastjson=0": JSON fields one by one through the generic path */
	if (!opt_is_false(rawfrag_decoder_ctx__opt(ctx, "fastjson")))
		tp_json_compile(te);
	if (tf->kallsyms && !tf->kallsyms_done && needs_symbols(ev)) {
		int ret = rawfrag_tp_data__load_kallsyms(&tf->td, tf->kallsyms);

		tf->kallsyms_done = true;
		if (ret)
			rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
						 "%s: cannot load kernel symbols (%s)",
						 tf->kallsyms, strerror(-ret));
	}
	te->refs = 1;
	tp_cache(tf, te);
	*priv = te;
	return 100;
}

static int tp_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
		    void **priv)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	int ret;

	if (!attr || attr->type != PERF_TYPE_TRACEPOINT)
		return 0;
	ret = rawfrag_tp__bind(ctx, attr->config, priv);
	if (ret > 0)
		name_evsel(ctx, evsel, ((struct tp_event *)*priv)->ev);
	return ret;
}

static void tp_release(void *priv)
{
	tp_event_put(priv);
}

static const char *tp_pid_comm(void *file_priv, uint32_t pid)
{
	struct tp_file *tf = file_priv;

	return tf ? rawfrag_tp_data__comm(&tf->td, pid) : NULL;
}

const struct rawfrag_decoder rawfrag_decoder_tracepoint = {
	.name = "tracepoint",
	.description = "tracepoint records, decoded from the file's tracing data",
	.file_init = tp_file_init,
	.file_fini = tp_file_fini,
	.probe = tp_probe,
	.release = tp_release,
	.length = tp_length,
	.text = tp_text,
	.fields = tp_fields,
	.pid_comm = tp_pid_comm,
};

int rawfrag_tp__field_info(const void *priv, const char *name, size_t len,
			   struct rawfrag_tp_field_info *fi)
{
	const struct tp_event *te = priv;
	int from, to;

	if (!te || !te->f)
		return -ENOENT;
	from = te->nr_common;
	to = te->nr_common + te->nr_fields;
	/* a common field as the visit names it: "common.common_pid" */
	if (len > 7 && !strncmp(name, "common.", 7)) {
		name += 7;
		len -= 7;
		from = 0;
		to = te->nr_common;
	}
	for (int i = from; i < to; i++) {
		const struct tp_field *f = &te->f[i];

		if (strlen(f->name) != len || strncmp(f->name, name, len))
			continue;
		fi->offset = f->offset;
		fi->size = f->size;
		fi->is_string = f->kind == TPF_STR;
		fi->dynamic = f->dynamic;
		fi->rel = f->rel;
		fi->is_int = !f->dynamic && (f->kind == TPF_INT || f->kind == TPF_PTR) &&
			     (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
		fi->is_signed = f->is_signed && f->kind == TPF_INT;
		fi->is_ptr = f->kind == TPF_PTR;
		return 0;
	}
	return -ENOENT;
}

const char *rawfrag_tp__field_name(const void *priv, int i)
{
	const struct tp_event *te = priv;

	if (!te || !te->f || i < 0 || i >= te->nr_fields)
		return NULL;
	return te->f[te->nr_common + i].name;
}
