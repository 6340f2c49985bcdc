// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf script's ip/sym/dso columns and call chains (builtin-script.c,
 * evsel_fprintf.c): a chain prints '\n' and one "\t%16lx sym+0xoff (dso)"
 * line per frame, user frames as offsets in their DSO; a single ip prints
 * " %16lx sym+0xoff (dso)" with the address as sampled.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "internal/out.h"
#include "internal/put.h"
#include "internal/sym.h"

unsigned int rs_default_fields(const struct perf_event_attr *a, bool any_tp_chain)
{
	unsigned int f = F_DEFAULT;

	if (a->type == PERF_TYPE_TRACEPOINT)
		return any_tp_chain ? f | F_SYMS : f;
	/*
	 * Raw producers (BPF output, PMUs of their own such as IBS, raw PMU
	 * events) keep their decoded payload as the text, perf's generic
	 * events get perf script's columns.
	 */
	if ((a->sample_type & PERF_SAMPLE_RAW) &&
	    ((a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT) ||
	     a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX))
		return (a->sample_type & PERF_SAMPLE_CALLCHAIN) ? f | F_SYMS : f;
	return (f & ~F_TRACE) | F_SYMS | F_PERIOD;
}

unsigned int rs_available(const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;
	unsigned int f = ~0u;

	if (!(st & PERF_SAMPLE_CPU))
		f &= ~F_CPU;
	if (!(st & PERF_SAMPLE_TIME))
		f &= ~(F_TIME | F_TOD);
	if (!(st & PERF_SAMPLE_IP))
		f &= ~F_SYMS;
	if (!(st & PERF_SAMPLE_ADDR))
		f &= ~F_ADDR;
	if (!(st & PERF_SAMPLE_REGS_INTR))
		f &= ~F_IREGS;
	if (!(st & PERF_SAMPLE_REGS_USER))
		f &= ~F_UREGS;
	if (!(st & PERF_SAMPLE_RAW))
		f &= ~F_TRACE;
	return f;
}

/*
 * printf was most of the time per frame: the columns are put with the
 * library's writers for perf script's formats (internal/put.h), as the line
 * heads are.
 */

/* "%16lx" */
static void out_hex16(struct rawfrag_out *o, uint64_t v)
{
	char *p = rf_out_room(o, 24);

	if (p)
		o->len = (size_t)(rf_put_hex16(p, v) - o->buf);
}

static void out_str(struct rawfrag_out *o, const char *s)
{
	rf_out_write(o, s, strlen(s));
}

void rs_text_comm(struct rawfrag_out *o, const char *comm, int len, bool pad)
{
	char *p = rf_out_room(o, (size_t)len + 24);

	if (p)
		o->len = (size_t)(rf_put_comm(p, comm, (size_t)len, pad) - o->buf);
}

void rs_text_pid_tid(struct rawfrag_out *o, unsigned int f, int32_t pid, int32_t tid)
{
	char *p = rf_out_room(o, 48);

	if (!p)
		return;
	if ((f & F_PID) && (f & F_TID)) {
		p = rf_put_num(p, pid, 5, false, ' ');
		*p++ = '/';
		p = rf_put_num(p, tid, 5, true, ' ');
	} else {
		p = rf_put_num(p, f & F_PID ? pid : tid, 5, false, ' ');
	}
	*p++ = ' ';
	o->len = (size_t)(p - o->buf);
}

void rs_text_time(struct rawfrag_out *o, uint64_t t)
{
	char *p = rf_out_room(o, 48);

	if (!p)
		return;
	p = rf_put_num(p, (int64_t)(t / 1000000000ULL), 5, false, ' ');
	p = rf_put_usecs(p, (uint32_t)(t % 1000000000ULL / 1000));
	o->len = (size_t)(p - o->buf);
}

/* " sym+0xoff (dso)" / " [unknown]" / " name+0xoff (inlined)" as the fields ask */
static void put_sym(struct rawfrag_out *o, unsigned int f, const struct rawfrag_frame *fr)
{
	if (f & F_SYM) {
		if (!fr->sym) {
			rf_out_write(o, " [unknown]", 10);
		} else {
			rf_out_putc(o, ' ');
			out_str(o, fr->sym);
			if (f & F_SYMOFF) {
				char *p = rf_out_room(o, 24);

				if (p) {
					memcpy(p, "+0x", 3);
					o->len = (size_t)(rf_put_hex(p + 3, fr->symoff) - o->buf);
				}
			}
		}
	}
	if ((f & F_DSO) && !fr->inlined) {
		rf_out_write(o, " (", 2);
		out_str(o, fr->dso ? fr->dso : "[unknown]");
		rf_out_putc(o, ')');
	}
	if (fr->inlined)
		rf_out_write(o, " (inlined)", 10);
}

static void text_chain(struct rs_ctx *c, struct rawfrag_out *o, unsigned int f,
		       const struct rawfrag_sample *s, const struct perf_event_attr *a)
{
	rf_out_putc(o, '\n');
	if (rawfrag_callchain__resolve(c->cc, c->m, s, a, c->max_stack) < 0)
		return;
	for (uint32_t i = 0; i < c->cc->nr; i++) {
		const struct rawfrag_frame *fr = &c->cc->frames[i];

		rf_out_putc(o, '\t');
		out_hex16(o, fr->ip);
		put_sym(o, f, fr);
		rf_out_putc(o, '\n');
	}
}

static void text_regs(struct rs_ctx *c, struct rawfrag_out *o, uint64_t abi, uint64_t mask,
		      const void *regs, uint32_t nr, bool swap)
{
	uint32_t i = 0;

	if (!abi || !regs)
		return;
	rawfrag_out__printf(o, " ABI:%" PRIu64 " ", abi);
	for (unsigned int r = 0; r < 64 && i < nr; r++) {
		const char *name;

		if (!(mask & (1ULL << r)))
			continue;
		name = rawfrag_regs__name(c->arch, r);
		rawfrag_out__printf(o, "%5s:0x%" PRIx64 " ", name ? name : "unknown",
				    rawfrag__get64((const uint8_t *)regs + 8 * i++, swap));
	}
}

void rs_text_tail(struct rs_ctx *c, struct rawfrag_out *o, unsigned int f,
		  const struct rawfrag_sample *s, const struct perf_event_attr *a)
{
	if (f & F_ADDR)
		rawfrag_out__printf(o, "%16" PRIx64, s->addr);
	if (f & F_IP) {
		if (rs_chain_line(c, a, f)) {
			text_chain(c, o, f, s, a);
		} else {
			struct rawfrag_frame fr;

			rawfrag_machine__resolve(c->m, (int32_t)s->pid, (int32_t)s->tid, s->ip,
						 s->misc & PERF_RECORD_MISC_CPUMODE_MASK, &fr);
			rf_out_putc(o, ' ');
			out_hex16(o, s->ip);
			put_sym(o, f, &fr);
		}
	}
	if (f & F_IREGS)
		text_regs(c, o, s->intr_regs_abi, a->sample_regs_intr, s->intr_regs,
			  s->intr_regs_nr, s->swap);
	if (f & F_UREGS)
		text_regs(c, o, s->user_regs_abi, a->sample_regs_user, s->user_regs,
			  s->user_regs_nr, s->swap);
}

/* perf's tod_scnprintf(): wall clock from HEADER_CLOCK_DATA */
char *rs_text_tod(struct rs_ctx *c, char *p, uint64_t t)
{
	uint64_t tod;
	struct tm tm;
	time_t sec;
	char date[32];

	if (!c->env || !c->env->has_clock_data)
		return p + sprintf(p, "disabled ");
	tod = c->env->clock_tod_ns;
	if (t > c->env->clock_clockid_ns)
		tod += t - c->env->clock_clockid_ns;
	else
		tod -= c->env->clock_clockid_ns - t;
	sec = (time_t)(tod / 1000000000ULL);
	if (!localtime_r(&sec, &tm))
		return p + sprintf(p, "failed ");
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	if (c->ns)
		return p + sprintf(p, "%.20s.%09" PRIu64 " ", date, (uint64_t)(tod % 1000000000ULL));
	return p + sprintf(p, "%.20s.%06" PRIu64 " ", date, (uint64_t)(tod % 1000000000ULL / 1000));
}

#define PUTS(o, s) rf_out_write(o, s, sizeof(s) - 1)

/* one JSON frame per sample: no printf (it was half of a JSON line's cost) */
static void json_frame(struct rawfrag_out *o, const struct rawfrag_frame *fr, bool obj)
{
	if (obj)
		PUTS(o, "{\"ip\":\"");
	else
		PUTS(o, ",\"ip\":\"");
	rawfrag_out__hex(o, fr->ip);
	PUTS(o, "\",\"sym\":");
	if (fr->sym) {
		rawfrag_out__json_str(o, fr->sym, (size_t)-1);
		PUTS(o, ",\"symoff\":");
		rawfrag_out__u64(o, fr->symoff);
		PUTS(o, ",\"dso\":");
	} else {
		PUTS(o, "null,\"symoff\":null,\"dso\":");
	}
	if (fr->dso)
		rawfrag_out__json_str(o, fr->dso, (size_t)-1);
	else
		PUTS(o, "null");
	if (fr->inlined)
		PUTS(o, ",\"inlined\":true");
	if (obj)
		rf_out_putc(o, '}');
}

static void json_regs(struct rs_ctx *c, struct rawfrag_out *o, const char *key, uint64_t abi,
		      uint64_t mask, const void *regs, uint32_t nr, bool swap)
{
	uint32_t i = 0;

	rawfrag_out__printf(o, "\"%s\":{\"abi\":%" PRIu64, key, abi);
	for (unsigned int r = 0; r < 64 && i < nr && regs; r++) {
		const char *name;

		if (!(mask & (1ULL << r)))
			continue;
		name = rawfrag_regs__name(c->arch, r);
		if (name)
			rawfrag_out__printf(o, ",\"%s\":\"0x%" PRIx64 "\"", name,
					    rawfrag__get64((const uint8_t *)regs + 8 * i, swap));
		i++;
	}
	rf_out_putc(o, '}');
}

void rs_ctx__fini(struct rs_ctx *c)
{
	free(c->fjson);
	c->fjson = NULL;
	rawfrag_out__delete(c->fmem);
	c->fmem = NULL;
}

static struct rs_frame_json *fjson_slot(struct rs_ctx *c, uint64_t ip)
{
	if (!c->fjson && !(c->fjson = calloc(RS_FRAME_CACHE, sizeof(*c->fjson))))
		return NULL;
	return &c->fjson[(ip ^ ip >> 6 ^ ip >> 12) % RS_FRAME_CACHE];
}

/* json_frame() of the sample's ip, from fjson when it holds the same frame */
static void json_ip(struct rs_ctx *c, struct rawfrag_out *o, const struct rawfrag_frame *fr,
		    bool kernel)
{
	struct rs_frame_json *e = fjson_slot(c, fr->ip);
	const char *text;
	size_t len;

	if (!e)
		goto plain;
	if (!c->fmem && !(c->fmem = rawfrag_out__new(-1)))
		goto plain;
	if (e->len && e->ip == fr->ip && e->sym == fr->sym && e->dso == fr->dso &&
	    e->symoff == fr->symoff && e->inlined == fr->inlined) {
		rf_out_write(o, e->text, e->len);
		/*
		 * a lookup after the one that filled the entry (and loaded the
		 * symbols, if any were loaded) gave the same frame: valid until
		 * kernel maps change
		 */
		if (kernel && e->kernel) {
			e->verified = true;
			e->kgen = *c->kgen;
		}
		return;
	}
	rawfrag_out__reset(c->fmem);
	json_frame(c->fmem, fr, false);
	text = rawfrag_out__mem(c->fmem, &len);
	if (rawfrag_out__error(c->fmem))
		goto plain;
	rf_out_write(o, text, len);
	e->len = 0;
	if (len > RS_FRAME_TEXT)
		return;
	memcpy(e->text, text, len);
	e->len = (uint16_t)len;
	e->ip = fr->ip;
	e->sym = fr->sym;
	e->dso = fr->dso;
	e->symoff = fr->symoff;
	e->inlined = fr->inlined;
	e->kernel = kernel;
	e->verified = false;
	e->kgen = *c->kgen;
	return;
plain:
	json_frame(o, fr, false);
}

/*
 * A kernel ip's members without a lookup: kernel maps are the same for every
 * thread, and change only with the records rawfrag_report__kernel_gen() counts.
 */
static bool json_kernel_ip(struct rs_ctx *c, struct rawfrag_out *o, uint64_t ip)
{
	const struct rs_frame_json *e = c->fjson ? fjson_slot(c, ip) : NULL;

	char *p;

	if (!e || !e->verified || e->ip != ip || e->kgen != *c->kgen || !e->len)
		return false;
	p = rf_out_room(o, RS_FRAME_TEXT + 32);
	if (!p)
		return true;
	/* fixed-size moves: a libc call or rep movsb per line was a third of this */
	for (size_t i = 0; i < e->len; i += 32)
		memcpy(p + i, e->text + i, 32);
	o->len += e->len;
	return true;
}

void rs_json(struct rs_ctx *c, struct rawfrag_out *o, const struct rawfrag_sample *s,
	     const struct perf_event_attr *a)
{
	uint64_t st = s->sample_type;
	bool user = st & PERF_SAMPLE_REGS_USER, intr = st & PERF_SAMPLE_REGS_INTR;

	if (st & PERF_SAMPLE_IP) {
		uint8_t cm = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		bool kernel = cm == PERF_RECORD_MISC_KERNEL;
		struct rawfrag_frame fr;

		if (!kernel || !json_kernel_ip(c, o, s->ip)) {
			rawfrag_machine__resolve(c->m, (int32_t)s->pid, (int32_t)s->tid, s->ip, cm,
						 &fr);
			fr.ip = s->ip;
			json_ip(c, o, &fr, kernel);
		}
	}
	if (st & PERF_SAMPLE_ADDR) {
		PUTS(o, ",\"addr\":\"");
		rawfrag_out__hex(o, s->addr);
		rf_out_putc(o, '"');
	}
	if (st & PERF_SAMPLE_PERIOD) {
		char *p = rf_out_room(o, 32);

		if (p) {
			memcpy(p, ",\"period\":", 10);
			o->len = (size_t)(rf_put_u64(p + 10, s->period) - o->buf);
		}
	}
	if ((st & PERF_SAMPLE_CALLCHAIN) && !c->hide_cg &&
	    rawfrag_callchain__resolve(c->cc, c->m, s, a, c->max_stack) >= 0) {
		rawfrag_out__puts(o, ",\"callchain\":[");
		for (uint32_t i = 0; i < c->cc->nr; i++) {
			if (i)
				rf_out_putc(o, ',');
			json_frame(o, &c->cc->frames[i], true);
		}
		rf_out_putc(o, ']');
	}
	if ((user && s->user_regs_abi) || (intr && s->intr_regs_abi)) {
		rawfrag_out__puts(o, ",\"regs\":{");
		if (user && s->user_regs_abi)
			json_regs(c, o, "user", s->user_regs_abi, a->sample_regs_user, s->user_regs,
				  s->user_regs_nr, s->swap);
		if (intr && s->intr_regs_abi) {
			if (user && s->user_regs_abi)
				rf_out_putc(o, ',');
			json_regs(c, o, "intr", s->intr_regs_abi, a->sample_regs_intr, s->intr_regs,
				  s->intr_regs_nr, s->swap);
		}
		rf_out_putc(o, '}');
	}
}
