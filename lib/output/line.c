// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The head of a sample's line (see rawfrag/line.h). The columns are built in
 * the out's free space with the library's number formatter (internal/dec.h):
 * printf was most of the time spent per line. Each head asks the out once for
 * room for all of it, then commits what it wrote.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/line.h>

#include "internal/out.h"
#include "internal/put.h"

#define HEAD_ROOM 128 /* the text columns but comm and event, the JSON members but comm */
#define RAW_TEXT 112 /* ',"raw":{...},"fields":{' is at most 105 bytes */
#define RAW_KEPT 8
#define JWHO_TEXT 128 /* ',"pid":..,"tid":..,"comm":' (44) and a comm of 16 escaped */
#define WHO_TEXT 48 /* "%16s " and "%5d/%-5d ": 41 bytes at most for a comm of 16 */
#define WHO_SLOTS 64
#define CPU_KEPT 256

/* whose columns a kept text holds: a task's ids and comm */
struct who_key {
	int32_t pid, tid;
	uint32_t comm_len;
	char comm[16];
};

struct rawfrag_line {
	struct rawfrag_out *o;
	unsigned int fields;
	/* JSON time_ns: the digits of time / 10^8 of the previous sample, and that 0.1 s in ns */
	uint64_t time_base;
	int time_hi_len;
	char time_hi_digits[24];
	/* text: the seconds column of the previous sample, as "%5lu" made it */
	uint64_t secs_base; /* its second in ns */
	int secs_len;
	char secs_digits[32];
	/*
	 * text: the comm and pid/tid columns of recent tasks, by tid: the same
	 * comm and ids give the same bytes. One slot per tid hash, not only the
	 * previous sample's: time order interleaves the CPUs' tasks.
	 */
	struct line_who {
		struct who_key key;
		uint32_t len; /* 0: none kept */
		char text[WHO_TEXT];
	} who[WHO_SLOTS];
	/* text: "[%03d] " of the CPUs below CPU_KEPT, made on first use ([0] 0: not yet) */
	char cpu_text[CPU_KEPT][8];
	/* JSON: the raw objects last written, by raw size (sizes repeat per event) */
	struct line_raw {
		uint32_t size;
		int64_t len;
		bool zero;
		uint32_t text_len; /* 0: none kept */
		char text[RAW_TEXT];
	} raw[RAW_KEPT];
	/*
	 * JSON: the pid, tid and comm members of recent tasks, by tid hash as
	 * the text columns: the comm's escaping was a tenth of a head.
	 */
	struct line_jwho {
		struct who_key key;
		uint32_t len; /* 0: none kept */
		char text[JWHO_TEXT];
	} jwho[WHO_SLOTS];
	/* JSON: ',"cpu":N' of the CPUs below CPU_KEPT, its length in the last byte (0: not yet) */
	char jcpu[CPU_KEPT][16];
};

struct rawfrag_line *rawfrag_line__new(struct rawfrag_out *o, unsigned int fields)
{
	struct rawfrag_line *l;

	if (!o) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->o = o;
	l->fields = fields;
	return l;
}

void rawfrag_line__delete(struct rawfrag_line *l)
{
	free(l);
}

/* "[%03d] " ("-01" for -1 as printf: a sign before the zeros) */
static char *put_cpu(char *p, uint32_t cpu)
{
	*p++ = '[';
	if ((int32_t)cpu < 0) {
		*p++ = '-';
		p = rf_put_num(p, -(int64_t)(int32_t)cpu, 2, false, '0');
	} else {
		p = rf_put_num(p, cpu, 3, false, '0');
	}
	*p++ = ']';
	*p++ = ' ';
	return p;
}

/* put_cpu() from the CPU's column as made the first time (6 bytes, an 8-byte move) */
static inline char *put_cpu_kept(struct rawfrag_line *l, char *p, uint32_t cpu)
{
	char *t;

	if (cpu >= CPU_KEPT)
		return put_cpu(p, cpu);
	t = l->cpu_text[cpu];
	if (!t[0]) {
		char tmp[24]; /* put_cpu() stores past its end */

		put_cpu(tmp, cpu);
		memcpy(t, tmp, 8);
	}
	memcpy(p, t, 8);
	return p + 6;
}

/* "%5lu.%06lu: ", the seconds kept from the previous sample (they change once a second) */
static char *put_time(struct rawfrag_line *l, char *p, uint64_t t)
{
	/* in the same second as the previous sample: one subtraction, no division by 10^9 */
	uint64_t rem = t - l->secs_base;
	uint32_t usecs;

	if (rem >= 1000000000ULL || !l->secs_len) {
		uint64_t secs = t / 1000000000ULL;

		l->secs_base = secs * 1000000000ULL;
		rem = t - l->secs_base;
		l->secs_len = (int)(rf_put_num(l->secs_digits, (int64_t)secs, 5, false, ' ') -
				    l->secs_digits);
	}
	usecs = (uint32_t)(rem / 1000);
	memcpy(p, l->secs_digits, 24);
	return rf_put_usecs(p + l->secs_len, usecs);
}

/* the slot of a task in who[] and jwho[] (WHO_SLOTS = 2^6) */
_Static_assert(WHO_SLOTS == 64, "who_idx() keeps 6 bits");
static inline uint32_t who_idx(uint32_t tid)
{
	return (tid * 2654435761u) >> 26;
}

/* the kept text is the task's: same ids and comm */
static inline bool who_hit(const struct who_key *k, const struct rawfrag_sample *smp,
			   const char *comm, size_t comm_len)
{
	return (int32_t)smp->pid == k->pid && (int32_t)smp->tid == k->tid &&
	       comm_len == k->comm_len && rf_eq_small(comm, k->comm, comm_len);
}

/* comm_len <= sizeof(k->comm) */
static inline void who_keep(struct who_key *k, const struct rawfrag_sample *smp,
			    const char *comm, size_t comm_len)
{
	k->pid = (int32_t)smp->pid;
	k->tid = (int32_t)smp->tid;
	k->comm_len = (uint32_t)comm_len;
	rf_copy_small(k->comm, comm, comm_len);
}

/* the comm and pid/tid columns, kept for the task's next sample when they fit */
static char *put_who(struct rawfrag_line *l, char *p, const struct rawfrag_sample *smp,
		     const char *comm, size_t comm_len)
{
	struct line_who *w = &l->who[who_idx(smp->tid)];
	unsigned int f = l->fields;
	char *start = p;

	if (f & RAWFRAG_LINE_COMM)
		p = rf_put_comm(p, comm ? comm : "", comm_len, true);
	if ((f & RAWFRAG_LINE_PID) && (f & RAWFRAG_LINE_TID)) {
		p = rf_put_num(p, (int32_t)smp->pid, 5, false, ' ');
		*p++ = '/';
		p = rf_put_num(p, (int32_t)smp->tid, 5, true, ' ');
		*p++ = ' ';
	} else if (f & (RAWFRAG_LINE_PID | RAWFRAG_LINE_TID)) {
		p = rf_put_num(p, (int32_t)(f & RAWFRAG_LINE_PID ? smp->pid : smp->tid), 5, false,
			    ' ');
		*p++ = ' ';
	}
	w->len = 0;
	if (comm_len <= sizeof(w->key.comm) && p - start <= WHO_TEXT) {
		who_keep(&w->key, smp, comm, comm_len);
		memcpy(w->text, start, WHO_TEXT);
		w->len = (uint32_t)(p - start);
	}
	return p;
}

void rawfrag_line__text_head(struct rawfrag_line *l, const struct rawfrag_sample *smp,
			     const char *comm, size_t comm_len, const char *event,
			     size_t event_len)
{
	unsigned int f = l->fields;
	struct rawfrag_out *o = l->o;
	const struct line_who *w;
	char *p;

	if (!(f & RAWFRAG_LINE_COMM) || !comm)
		comm_len = 0;
	if (!(f & RAWFRAG_LINE_EVENT) || !event)
		event_len = 0;
	p = rf_out_room(o, HEAD_ROOM + comm_len + event_len);
	if (!p)
		return;
	w = &l->who[who_idx(smp->tid)];
	if (w->len && who_hit(&w->key, smp, comm, comm_len)) {
		memcpy(p, w->text, WHO_TEXT);
		p += w->len;
	} else {
		p = put_who(l, p, smp, comm, comm_len);
	}
	if (f & RAWFRAG_LINE_CPU)
		p = put_cpu_kept(l, p, smp->cpu);
	if (f & RAWFRAG_LINE_TIME)
		p = put_time(l, p, smp->time);
	rf_copy_small(p, event, event_len);
	p += event_len;
	o->len = (size_t)(p - o->buf);
}

/*
 * ',"time_ns":' and the time: the digits above the low eight change every
 * 0.1 s only, so they are kept from the previous sample, and while the time
 * stays in that 0.1 s the low eight are one subtraction away.
 */
static inline char *json_time(struct rawfrag_line *l, char *p, uint64_t t)
{
	uint64_t lo = t - l->time_base;

	memcpy(p, ",\"time_ns\":", 11);
	p += 11;
	if (__builtin_expect(lo >= 100000000 || !l->time_hi_len, 0)) {
		uint64_t hi = t / 100000000;

		if (!hi)
			return rf_put_u64(p, t);
		l->time_base = hi * 100000000;
		l->time_hi_len = (int)(rf_put_u64(l->time_hi_digits, hi) - l->time_hi_digits);
		lo = t - l->time_base;
	}
	memcpy(p, l->time_hi_digits, 16);
	p += l->time_hi_len;
	rf_put8(p, (uint32_t)lo);
	return p + 8;
}

#define PUT(p, s) (memcpy(p, s, sizeof(s) - 1), (p) + sizeof(s) - 1)

/* ',"cpu":N' from the CPU's member as made the first time (a 16-byte move) */
static inline char *json_cpu(struct rawfrag_line *l, char *p, uint32_t cpu)
{
	char *t;

	if (cpu >= CPU_KEPT)
		return rf_put_u64(PUT(p, ",\"cpu\":"), cpu);
	t = l->jcpu[cpu];
	if (!t[15])
		t[15] = (char)(rf_put_u64(PUT(t, ",\"cpu\":"), cpu) - t);
	memcpy(p, t, 16);
	return p + t[15];
}

/*
 * ',"pid":..,"tid":..,"comm":"..."', put and kept for the task's next
 * sample. tid is written again even when it is the pid: copying the pid's
 * digits back was a load over the stores just made, which stalls.
 */
static void json_who_put(struct rawfrag_line *l, char *p, const struct rawfrag_sample *smp,
			 const char *comm, size_t comm_len)
{
	struct line_jwho *w = &l->jwho[who_idx(smp->tid)];
	struct rawfrag_out *o = l->o;
	char *start = p;
	size_t n;

	p = rf_put_s64(PUT(p, ",\"pid\":"), (int32_t)smp->pid);
	p = rf_put_s64(PUT(p, ",\"tid\":"), (int32_t)smp->tid);
	p = PUT(p, ",\"comm\":");
	o->len = (size_t)(p - o->buf);
	rawfrag_out__json_str(o, comm, comm_len);
	w->len = 0;
	/* kept when the out did not flush in between (it had the room) and it fits */
	n = o->len - (size_t)(start - o->buf);
	if (o->err || o->buf + o->len < start || n > JWHO_TEXT || comm_len > sizeof(w->key.comm))
		return;
	memcpy(w->text, start, n);
	w->len = (uint32_t)n;
	who_keep(&w->key, smp, comm, comm_len);
}

/* the members of a task seen before with the same ids and comm, else put */
static inline void json_who(struct rawfrag_line *l, char *p, const struct rawfrag_sample *smp,
			    const char *comm, size_t comm_len)
{
	const struct line_jwho *w = &l->jwho[who_idx(smp->tid)];

	if (w->len && who_hit(&w->key, smp, comm, comm_len)) {
		if (w->len <= 64)
			memcpy(p, w->text, 64);
		else
			memcpy(p, w->text, JWHO_TEXT);
		l->o->len = (size_t)(p + w->len - l->o->buf);
		return;
	}
	json_who_put(l, p, smp, comm, comm_len);
}

void rawfrag_line__json_head(struct rawfrag_line *l, const char *prefix, size_t prefix_len,
			     const struct rawfrag_sample *smp, const char *comm, size_t comm_len)
{
	uint64_t st = smp->sample_type;
	struct rawfrag_out *o = l->o;
	char *p = rf_out_room(o, HEAD_ROOM + JWHO_TEXT + prefix_len);

	if (!p)
		return;
	rf_copy_small(p, prefix, prefix_len);
	p += prefix_len;
	if (st & PERF_SAMPLE_TIME)
		p = json_time(l, p, smp->time);
	else
		p = PUT(p, ",\"time_ns\":null");
	if (st & PERF_SAMPLE_CPU)
		p = json_cpu(l, p, smp->cpu);
	else
		p = PUT(p, ",\"cpu\":null");
	if (!(st & PERF_SAMPLE_TID)) {
		p = PUT(p, ",\"pid\":null,\"tid\":null,\"comm\":null");
		o->len = (size_t)(p - o->buf);
		return;
	}
	json_who(l, p, smp, comm ? comm : "", comm ? comm_len : 0);
}

/*
 * The bytes of raw past len are all zero: the pad of a tracepoint is under 8
 * bytes, so one load of the last 8 and a mask, not a loop of byte tests.
 */
static inline bool pad_zero(const struct rawfrag_raw *raw, uint32_t len)
{
	uint32_t pad = raw->size - len;
	uint64_t w;
	bool zero = true;

	if (pad == 0)
		return true;
	if (pad <= 8 && raw->size >= 8) {
		memcpy(&w, raw->data + raw->size - 8, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		return !(w >> (64 - 8 * pad));
#else
		return !(w << (64 - 8 * pad));
#endif
	}
	for (uint32_t i = len; i < raw->size; i++)
		zero &= !raw->data[i];
	return zero;
}

void rawfrag_line__json_raw(struct rawfrag_line *l, const struct rawfrag_raw *raw, int64_t len)
{
	struct rawfrag_out *o = l->o;
	char *p = rf_out_room(o, HEAD_ROOM), *start = p;
	struct line_raw *kept;
	bool zero = true;

	if (!p)
		return;
	if (!raw) {
		p = PUT(p, ",\"raw\":null,\"fields\":{}}\n");
		o->len = (size_t)(p - o->buf);
		return;
	}
	if (len >= 0 && (uint64_t)len <= raw->size)
		zero = pad_zero(raw, (uint32_t)len);
	kept = &l->raw[(raw->size >> 2) % RAW_KEPT];
	if (kept->text_len && raw->size == kept->size && len == kept->len && zero == kept->zero) {
		if (kept->text_len <= 64)
			memcpy(p, kept->text, 64);
		else
			memcpy(p, kept->text, RAW_TEXT);
		o->len = (size_t)(p + kept->text_len - o->buf);
		return;
	}
	p = rf_put_u64(PUT(p, ",\"raw\":{\"size\":"), raw->size);
	if (len >= 0 && (uint64_t)len <= raw->size) {
		p = rf_put_u64(PUT(p, ",\"len\":"), (uint64_t)len);
		p = rf_put_u64(PUT(p, ",\"pad\":"), raw->size - (uint64_t)len);
		p = zero ? PUT(p, ",\"pad_zero\":true}") : PUT(p, ",\"pad_zero\":false}");
	} else {
		p = PUT(p, ",\"len\":null,\"pad\":null,\"pad_zero\":null}");
	}
	p = PUT(p, ",\"fields\":{");
	o->len = (size_t)(p - o->buf);
	kept->text_len = 0;
	if (p - start <= RAW_TEXT) {
		memcpy(kept->text, start, (size_t)(p - start));
		kept->text_len = (uint32_t)(p - start);
		kept->size = raw->size;
		kept->len = len;
		kept->zero = zero;
	}
}
