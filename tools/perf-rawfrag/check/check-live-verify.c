// SPDX-License-Identifier: GPL-2.0
/*
 * The rings of `perf rawfrag check --live` and the rules every record must
 * meet: raw_size == round_up(sum + 4, 8) - 4 for the sum of the fragments
 * sent, the raw data byte for byte what was sent, the record ending with the
 * raw data, and each pad byte zero or what the ring held at that place before
 * (the ring is filled with LIVE_FILL first and a shadow copy follows every
 * record, so a pad byte from anywhere else is a leak).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rawfrag/writer.h>

#include "check-live-verify.h"

#define RAW_OFF 52 /* header, IDENTIFIER, IP, TID, TIME, CPU, then the u32 raw size */
#define PID_OFF 24

uint32_t live_raw_size(uint32_t sum)
{
	return ((sum + 4 + 7) & ~7u) - 4;
}

void live_case__violation(struct live_case *c, const char *fmt, ...)
{
	va_list ap;

	if (c->first[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->first, sizeof(c->first), fmt, ap);
	va_end(ap);
}

void live_missing(struct live *L, const char *fmt, ...)
{
	va_list ap;

	if (L->nr_missing >= (int)(sizeof(L->missing) / sizeof(L->missing[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(L->missing[L->nr_missing++], sizeof(L->missing[0]), fmt, ap);
	va_end(ap);
}

/*
 * The kernel maps a ring's data pages read-only, so the fill pattern cannot be
 * written from here: the shadow starts as a copy of what the pages hold, and
 * live_ring__prefill() (check-live-cases.c) then has the kernel cover the ring
 * with pattern records that leave no pad. A tracepoint event (out_fd >= 0)
 * gets no ring of its own: its records go to out_fd's ring.
 */
int live_ring__open(struct live *L, struct live_ring *lr, bool tracepoint, unsigned int pages,
		    int out_fd)
{
	struct perf_event_attr a = {
		.type = tracepoint ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = tracepoint ? (uint64_t)L->tp_id : PERF_COUNT_SW_BPF_OUTPUT,
		/* IP: perf script's default fields want it */
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
		.sample_period = 1,
		.wakeup_events = 1,
		.sample_id_all = 1,
	};
	long psz = sysconf(_SC_PAGESIZE);
	int err;

	memset(lr, 0, sizeof(*lr));
	lr->fd = syscall(SYS_perf_event_open, &a, -1, L->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (lr->fd < 0)
		return -errno;
	if (ioctl(lr->fd, PERF_EVENT_IOC_ID, &lr->id) < 0)
		goto fail_errno;
	if (out_fd >= 0) {
		if (ioctl(lr->fd, PERF_EVENT_IOC_SET_OUTPUT, out_fd) < 0)
			goto fail_errno;
	} else {
		err = ring__mmap(&lr->r, lr->fd, L->cpu, pages);
		if (err)
			goto fail;
		lr->pages = pages;
		lr->shadow = malloc((size_t)pages * psz);
		if (!lr->shadow) {
			err = -ENOMEM;
			goto fail;
		}
		memcpy(lr->shadow, (char *)lr->r.base + psz, (size_t)pages * psz);
	}
	if (L->w) {
		const char *name = tracepoint ? "sched:sched_process_exec" : "bpf-output";

		err = rawfrag_writer__add_evsel(L->w, &a, name, &lr->id, 1);
		if (err < 0)
			goto fail;
	}
	return 0;
fail_errno:
	err = -errno;
fail:
	live_ring__close(lr);
	return err;
}

void live_ring__close(struct live_ring *lr)
{
	if (lr->r.base)
		ring__munmap(&lr->r);
	free(lr->shadow);
	lr->shadow = NULL;
	if (lr->fd > 0)
		close(lr->fd);
	lr->fd = -1;
}

/* RAWFRAG_LIVE_TAMPER: damage one record per case after it is read (negative controls) */
static const unsigned char *tamper(struct live *L, struct live_ring *lr, const unsigned char *rec,
				   size_t *len, uint64_t off, unsigned char *buf)
{
	uint32_t raw_size, sum = L->want.sum, pid;
	unsigned char *raw = buf + RAW_OFF;
	uint64_t id;

	if (L->tamper == TAMPER_NONE || L->cur->tampered || !L->want.exp || *len < RAW_OFF + 8)
		return rec;
	memcpy(&id, rec + 8, 8);
	memcpy(&pid, rec + PID_OFF, 4);
	if (L->have_tp && id == L->tp.id && pid != (uint32_t)L->want.tp_pid)
		return rec; /* another process's exec: not what this case checks */
	memcpy(&raw_size, rec + RAW_OFF - 4, 4);
	if (L->tamper == TAMPER_PAD && raw_size == sum)
		return rec; /* no pad to damage: wait for one with pad */
	if (L->tamper == TAMPER_SHIFT && sum < 2)
		return rec;
	if (L->tamper == TAMPER_SIZE && *len + 8 > 0xffff)
		return rec; /* header.size could not say it */
	memcpy(buf, rec, *len);
	switch (L->tamper) {
	case TAMPER_SIZE:
		/* framed and 8 bytes longer: only the size rule can catch it */
		raw_size += 8;
		memcpy(buf + RAW_OFF - 4, &raw_size, 4);
		memset(buf + *len, 0, 8);
		*len += 8;
		buf[6] = (unsigned char)*len;
		buf[7] = (unsigned char)(*len >> 8);
		break;
	case TAMPER_SHIFT: {
		/* the second fragment (or the only one's tail) one byte early */
		uint32_t at = L->want.frag1 && L->want.frag1 < sum ? L->want.frag1 : sum / 2;

		memmove(raw + at - 1, raw + at, sum - at);
		break;
	}
	case TAMPER_PAD: {
		uint64_t pos = (off + RAW_OFF + sum) & lr->r.mask;
		unsigned char v = lr->shadow[pos] ^ 0xff;

		raw[sum] = v ? v : 1;
		break;
	}
	case TAMPER_TRUNC:
		*len -= 8;
		buf[6] = (unsigned char)*len;
		buf[7] = (unsigned char)(*len >> 8);
		break;
	default:
		break;
	}
	L->cur->tampered = true;
	return buf;
}

static void note_size(struct live_case *c, uint32_t sum)
{
	if (!c->records || sum < c->min_sum)
		c->min_sum = sum;
	if (sum > c->max_sum)
		c->max_sum = sum;
	if (sum < LIVE_SIZES_MAX && !(c->seen[sum / 8] & (1 << (sum % 8)))) {
		c->seen[sum / 8] |= 1 << (sum % 8);
		c->nsizes++;
	}
}

/* content and pad of a record whose framing holds; returns false on a violation */
static bool check_bytes(struct live *L, struct live_ring *lr, const unsigned char *raw,
			uint32_t raw_size, uint64_t off)
{
	const struct live_expect *w = &L->want;
	struct live_case *c = L->cur;
	uint32_t n = w->sum < raw_size ? w->sum : raw_size;
	bool zero = true;

	for (uint32_t i = 0; i < n; i++) {
		if (i >= w->skip_off && i < w->skip_off + w->skip_len)
			continue;
		if (raw[i] == w->exp[i])
			continue;
		live_case__violation(c, "%s: size %u: raw byte %u (fragment %d +%u) is 0x%02x, sent 0x%02x",
				     c->name, w->sum, i, i < w->frag1 ? 1 : 2,
				     i < w->frag1 ? i : i - w->frag1, raw[i], w->exp[i]);
		return false;
	}
	for (uint32_t i = w->sum; i < raw_size; i++) {
		unsigned char before = lr->shadow[(off + RAW_OFF + i) & lr->r.mask];

		if (!raw[i])
			continue;
		zero = false;
		if (raw[i] == before)
			continue;
		live_case__violation(c, "%s: size %u: pad byte %u is 0x%02x: neither zero nor what the ring held there (0x%02x): leak",
				     c->name, w->sum, i - w->sum, raw[i], before);
		return false;
	}
	if (raw_size == w->sum)
		c->pad_none++;
	else if (zero)
		c->pad_zero++;
	else
		c->pad_stale++;
	return true;
}

/* 1 ok, 0 not ours (another process's exec), -1 a violation */
static int check_sample(struct live *L, struct live_ring *lr, const unsigned char *rec,
			 size_t len, uint64_t off)
{
	struct live_case *c = L->cur;
	uint32_t raw_size, pid, want;
	uint64_t id;

	if (len < RAW_OFF + 4) {
		if (L->want.beyond) {
			c->corrupt++;
			L->got++;
			return 0;
		}
		live_case__violation(c, "%s: a sample of %zu bytes has no room for RAW", c->name, len);
		return -1;
	}
	memcpy(&pid, rec + PID_OFF, 4);
	memcpy(&id, rec + 8, 8);
	if (L->have_tp && id == L->tp.id && !L->want.tp_pid) {
		c->foreign++; /* an exec on this cpu while another case runs */
		return 0;
	}
	if (L->want.tp_pid && pid != (uint32_t)L->want.tp_pid) {
		c->foreign++; /* another process's exec on this cpu */
		return 0;
	}
	if (!L->want.exp) {
		live_case__violation(c, "%s: a sample nothing was sent for", c->name);
		return -1;
	}
	if (++L->got > 1) {
		live_case__violation(c, "%s: size %u: more than one record for one output",
				     c->name, L->want.sum);
		return -1;
	}
	memcpy(&raw_size, rec + RAW_OFF - 4, 4);
	L->last_hsize = (int)len;
	if (L->want.beyond && (len < RAW_OFF + 4 || RAW_OFF + (uint64_t)raw_size != len)) {
		c->corrupt++; /* what the kernel does past the limit: reported, not judged */
		L->got++;
		return 0;
	}
	note_size(c, L->want.sum);
	c->records++;
	if (RAW_OFF + (uint64_t)raw_size > len) {
		live_case__violation(c, "%s: size %u: raw_size %u runs past the record's end (%zu bytes): truncated",
				     c->name, L->want.sum, raw_size, len);
		return -1;
	}
	if (RAW_OFF + raw_size != len) {
		live_case__violation(c, "%s: size %u: %zu bytes after the raw data", c->name,
				     L->want.sum, len - RAW_OFF - raw_size);
		return -1;
	}
	want = live_raw_size(L->want.sum);
	if (raw_size != want) {
		live_case__violation(c, "%s: size %u: raw_size %u, want %u (round_up(sum + 4, 8) - 4)",
				     c->name, L->want.sum, raw_size, want);
		return -1;
	}
	return check_bytes(L, lr, rec + RAW_OFF, raw_size, off) ? 1 : -1;
}

static bool framed(const unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t raw_size;

	if (h->type != PERF_RECORD_SAMPLE)
		return true;
	if (len < RAW_OFF + 4)
		return false;
	memcpy(&raw_size, rec + RAW_OFF - 4, 4);
	return RAW_OFF + (uint64_t)raw_size == len;
}

struct drain_ctx {
	struct live *L;
	struct live_ring *lr;
	unsigned char *buf;
};

static int on_record(void *ctx, struct rf_ring *r, const void *rec, size_t len)
{
	struct drain_ctx *d = ctx;
	struct live *L = d->L;
	struct live_ring *lr = d->lr;
	struct live_case *c = L->cur;
	const struct perf_event_header *h = rec;
	uint64_t off = r->bytes & r->mask, size = r->mask + 1;
	const unsigned char *p = rec;

	if (off + len > size)
		c->wrapped++;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t n = len;
		const unsigned char *t = tamper(L, lr, rec, &n, off, d->buf);

		int v = check_sample(L, lr, t, n, off);

		if (v < 0)
			c->violations++;
		else if (v > 0)
			c->ok++;
	} else if (h->type == PERF_RECORD_LOST && len >= 24) {
		uint64_t lost;

		memcpy(&lost, p + 16, 8);
		c->lost += lost;
	}
	/* a record without a frame (the kernel's past the size limit) would break the file */
	if (L->w && framed(rec, len) && rawfrag_writer__write_record(L->w, rec, len) < 0)
		return -EIO;
	for (size_t i = 0; i < len; i++)
		lr->shadow[(off + i) & r->mask] = p[i];
	return 0;
}

int live_ring__drain(struct live *L, struct live_ring *lr)
{
	struct drain_ctx d = { .L = L, .lr = lr, .buf = L->tbuf };
	int n;

	n = ring__read(&lr->r, on_record, &d);
	if (n == -EBADMSG)
		live_case__violation(L->cur, "%s: size %u: the ring holds a record header that does not frame (header.size wrapped?)",
				     L->cur->name, L->want.sum);
	return n;
}
