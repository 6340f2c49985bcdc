// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF unwinding of a sample's user stack with libunwind's remote API, as
 * perf's unwind-libunwind-local.c does it: registers from REGS_USER, memory
 * from the STACK_USER copy (addresses in [SP, SP + dyn_size)) or from the
 * mapped file, unwind tables from the file's .eh_frame_hdr binary search
 * table. Caller frames get ip - 1 (as perf, for the call site's line).
 * Anything missing or out of bounds ends the chain; nothing is trusted.
 */
#define UNW_REMOTE_ONLY
#include <errno.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "internal/machine.h"

/* exported by libunwind but not declared in its public headers */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);

enum { REG_X86_BP = 6, REG_X86_SP = 7, REG_X86_IP = 8 };

struct unw_ctx {
	struct rawfrag_machine *m;
	const struct rawfrag_sample *s;
	uint64_t mask;
	struct rf_maps *maps;
	struct rf_map *last; /* the map of the previous file read */
	uint64_t sp;
	uint64_t serial; /* this chain, for the inline cache */
	/* the mapped file of the last map read: [fast_lo, fast_hi) reads 8 bytes there */
	uint64_t fast_lo, fast_hi;
	const uint8_t *fast_file; /* the file's bytes at fast_lo */
};

/*
 * libunwind's cache of register rules is keyed by ip alone, so an address
 * space serves one process at a time (perf keeps one per process and
 * flushes it at exec; what the cache holds can steer a chain, so ours
 * follow the same lives). A set of them, reused least recently used first,
 * keeps the memory bounded however many processes the file has.
 */
#define NR_AS 32

struct unw_state {
	struct {
		unw_addr_space_t as; /* made at the slot's first unwind */
		const struct rf_maps *maps;
		uint32_t gen;
		uint64_t used;
	} slot[NR_AS];
	uint64_t tick;
	uint64_t serial; /* chains built */
	/* the slot rf_unwind__touch() picked for the sample it was last given */
	const struct rf_maps *touched;
	int touched_slot;
};

static struct unw_state *unw_state(struct rawfrag_machine *m)
{
	struct unw_state *st = *rf_machine__unw_state(m);

	if (!st) {
		st = calloc(1, sizeof(*st));
		*rf_machine__unw_state(m) = st;
	}
	return st;
}

/* per-DSO facts of its .eh_frame_hdr, read once */
struct unw_dso {
	bool tried, ok;
	uint64_t table_off; /* of the search table inside .eh_frame_hdr */
	uint64_t fde_count;
	uint64_t elf_base;
};

static int reg_value(const struct unw_ctx *u, unsigned int id, uint64_t *v)
{
	int pos = rf_regs__pos(u->mask, id);

	if (pos < 0 || (uint32_t)pos >= u->s->user_regs_nr)
		return -UNW_EBADREG;
	*v = rawfrag_sample__user_reg(u->s, (uint32_t)pos);
	return 0;
}

/* libunwind's x86_64 register numbers to PERF_REG_X86_* */
static int perf_reg_id(unw_regnum_t r)
{
	static const int ids[] = {
		[UNW_X86_64_RAX] = 0,  [UNW_X86_64_RDX] = 3,  [UNW_X86_64_RCX] = 2,
		[UNW_X86_64_RBX] = 1,  [UNW_X86_64_RSI] = 4,  [UNW_X86_64_RDI] = 5,
		[UNW_X86_64_RBP] = 6,  [UNW_X86_64_RSP] = 7,  [UNW_X86_64_R8] = 16,
		[UNW_X86_64_R9] = 17,  [UNW_X86_64_R10] = 18, [UNW_X86_64_R11] = 19,
		[UNW_X86_64_R12] = 20, [UNW_X86_64_R13] = 21, [UNW_X86_64_R14] = 22,
		[UNW_X86_64_R15] = 23, [UNW_X86_64_RIP] = 8,
	};

	if (r < 0 || r > UNW_X86_64_RIP)
		return -1;
	return ids[r];
}

/*
 * Memory from the mapped file: 0, or as perf's access_dso_mem() -1 without a
 * map and 1 when the map's file cannot be read (libunwind takes a positive
 * answer as a read of 0, which ends the chain with one more frame, as perf's).
 */
static int dso_read(struct unw_ctx *u, uint64_t addr, void *buf, size_t len)
{
	struct rf_map *map = u->last;
	struct rf_elf *e;

	if (!map || addr < map->start || addr >= map->end) {
		map = rf_maps__find(u->maps, addr);
		if (!map)
			return -1;
		u->last = map;
	}
	if (map->identity || !(e = rf_dso__elf(u->m, map->dso)) ||
	    rf_elf__pread(e, buf, len, addr - map->start + map->pgoff))
		return 1;
	if (e->map && map->pgoff <= e->size && e->size - map->pgoff >= 8) {
		u->fast_lo = map->start;
		u->fast_hi = map->start + (e->size - map->pgoff) - 7;
		if (u->fast_hi > map->end || u->fast_hi < map->start)
			u->fast_hi = map->end;
		u->fast_file = e->map + map->pgoff;
	}
	return 0;
}

static struct unw_dso *dso_info(struct unw_ctx *u, struct rf_dso *d)
{
	struct unw_dso *ud = d->unw_priv;
	struct rf_elf *e;
	uint8_t hdr[4 + 16], *p;

	if (!ud) {
		ud = calloc(1, sizeof(*ud));
		if (!ud)
			return NULL;
		d->unw_priv = ud;
	}
	if (ud->tried)
		return ud->ok ? ud : NULL;
	ud->tried = true;
	e = rf_dso__elf(u->m, d);
	if (!e || !e->eh_frame_hdr_off || e->eh_frame_hdr_size < 12 ||
	    rf_elf__pread(e, hdr, sizeof(hdr) <= e->eh_frame_hdr_size ? sizeof(hdr) : 12,
			  e->eh_frame_hdr_off))
		return NULL;
	/*
	 * version 1; eh_frame_ptr and fde_count as 4-byte values (sdata4/udata4,
	 * pc- or data-relative), the table as datarel sdata4 pairs: what every
	 * x86_64 toolchain writes and what libunwind's search expects.
	 */
	if (hdr[0] != 1 || (hdr[1] & 0x0f) != 0x0b || (hdr[2] & 0x0f) != 0x03 ||
	    hdr[3] != 0x3b)
		return NULL;
	p = hdr + 8;
	ud->fde_count = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
			(uint64_t)p[3] << 24;
	ud->table_off = 12;
	if (ud->fde_count * 8 > e->eh_frame_hdr_size - 12)
		return NULL;
	for (int i = 0; i < e->nr_load; i++) {
		ud->elf_base = e->load[i].vaddr & ~4095ULL;
		break;
	}
	ud->ok = true;
	return ud;
}

/*
 * libunwind's binary search of the .eh_frame_hdr table reads it through
 * access_mem() a byte at a time. The entry it would end on is found here on
 * the mapped file, and libunwind then searches only that entry and the next
 * (whose start bounds it): the same reads at the end, the same result. Only
 * where every word of the table would come from one map of one file (none
 * from the stack copy), so that access_mem() could not answer otherwise.
 */
static void narrow_table(struct unw_ctx *u, unw_word_t ip, unw_dyn_info_t *di)
{
	uint64_t t = di->u.rti.table_data, len = di->u.rti.table_len, lo = 0, hi = len;
	uint64_t first = t - 8, last = t + len * 8 + 8, stack_end = u->sp + u->s->stack_dyn_size;
	int32_t rel = (int32_t)(uint32_t)(ip - di->u.rti.segbase); /* libunwind's rel_ip */
	const struct rf_map *tm = rf_maps__find(u->maps, first);
	const struct rf_elf *e;
	uint64_t off;

	if (!len || first > t || last < t || !tm || tm->identity || last > tm->end ||
	    (first < stack_end && last > u->sp) || !(e = rf_dso__elf(u->m, tm->dso)))
		return;
	off = t - tm->start + tm->pgoff;
	if (off > e->size || len * 8 > e->size - off)
		return;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		uint8_t b[4];
		int32_t start;

		if (rf_elf__pread(e, b, 4, off + mid * 8))
			return;
		start = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				  (uint32_t)b[3] << 24);
		if (rel < start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (hi) {
		di->u.rti.table_data = t + (hi - 1) * 8;
		di->u.rti.table_len = hi < len ? 2 : 1;
	} else {
		di->u.rti.table_len = 1;
	}
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct unw_ctx *u = arg;
	struct rf_map *map = rf_maps__find(u->maps, ip);
	uint64_t base = UINT64_MAX, segbase;
	struct unw_dso *ud;
	unw_dyn_info_t di;

	/*
	 * -EINVAL as perf answers, not -UNW_ENOINFO: that would let libunwind
	 * go on guessing through frame pointers where perf's chains stop
	 */
	if (!map || map->identity || !(ud = dso_info(u, map->dso)))
		return -EINVAL;
	/* where the file's address 0 is in the process (perf: lowest map of the DSO) */
	for (int i = 0; i < u->maps->nr; i++)
		if (u->maps->v[i].dso == map->dso && u->maps->v[i].start < base)
			base = u->maps->v[i].start - u->maps->v[i].pgoff;
	base -= ud->elf_base;
	segbase = base + map->dso->rt->eh_frame_hdr_vaddr;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = map->start;
	di.end_ip = map->end;
	di.u.rti.segbase = segbase;
	di.u.rti.table_data = segbase + ud->table_off;
	di.u.rti.table_len = ud->fde_count * 8 / sizeof(unw_word_t);
	narrow_table(u, ip, &di);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil_addr, void *arg)
{
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
		      void *arg)
{
	struct unw_ctx *u = arg;
	const struct rawfrag_sample *s = u->s;
	uint64_t end = u->sp + s->stack_dyn_size;
	int ret;

	*valp = 0;
	if (write)
		return 0;
	if (addr + sizeof(unw_word_t) < addr)
		return -UNW_EINVAL;
	/* perf: the copy serves [sp, sp + dyn_size - 8), the files the rest */
	if (addr >= u->sp && addr + sizeof(unw_word_t) < end) {
		*valp = rawfrag__get64((const uint8_t *)s->stack_data + (addr - u->sp), s->swap);
		return 0;
	}
	if (addr >= u->fast_lo && addr < u->fast_hi) { /* what dso_read() would read */
		memcpy(valp, u->fast_file + (addr - u->fast_lo), sizeof(*valp));
		return 0;
	}
	ret = dso_read(u, addr, valp, sizeof(*valp));
	if (ret)
		*valp = 0;
	return ret < 0 ? -UNW_EINVAL : ret;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
		      void *arg)
{
	struct unw_ctx *u = arg;
	int id = perf_reg_id(regnum);
	uint64_t v;

	*valp = 0;
	if (write)
		return 0;
	if (id < 0 || reg_value(u, (unsigned int)id, &v))
		return -UNW_EBADREG;
	*valp = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			void *arg)
{
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			 unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/*
 * The names addr2line gives for user address addr of pid (innermost first),
 * as perf's append_inlines() asks: DSOs named "[...]" (vdso) and
 * perf-PID.map have none. *dp and *ap: the DSO and the address in it.
 */
static int dso_inlines(struct rawfrag_machine *m, int32_t pid, uint64_t addr, uint64_t serial,
		       struct rf_dso **dp, uint64_t *ap, char ***names)
{
	struct rf_dso *d;
	uint64_t a;

	if (!rf_machine__inline(m) || !(d = rf_machine__frame_dso(m, pid, addr, &a)) ||
	    d->kind != RF_DSO_USER || d->name[0] == '[' || !strncmp(d->name, "/tmp/perf-", 10))
		return 0;
	*dp = d;
	*ap = a;
	/* the address as objdump sees it: perf's map__rip_2objdump() */
	if (d->rt)
		a += d->rt->text_vaddr - d->rt->text_off;
	return rf_a2l__inlines(&d->a2l, rf_machine__symstore(m), d->symsrc ? d->symsrc : d->path, a,
			       serial, names);
}

int rf_unwind__inlines(struct rawfrag_machine *m, int32_t pid, uint64_t addr, char ***names)
{
	struct unw_state *st = *rf_machine__unw_state(m);
	struct rf_dso *d;
	uint64_t a;

	/* the serial of the chain just built, whose frames may point at cached names */
	return st ? dso_inlines(m, pid, addr, st->serial, &d, &a, names) : 0;
}

/*
 * perf's append_inlines(): a frame with a symbol becomes the list addr2line
 * gives for it, innermost first; names other than the symbol's are marked
 * inlined.
 */
static int push_inlines(struct unw_ctx *u, struct rawfrag_callchain *cc,
			const struct rawfrag_frame *fr)
{
	const struct rf_sym *s;
	const char *base;
	struct rf_dso *d;
	uint64_t a;
	char **names;
	int n;

	if (!fr->sym || !(n = dso_inlines(u->m, (int32_t)u->s->pid, fr->addr, u->serial, &d, &a,
					    &names)))
		return 0;
	/*
	 * perf's inlined symbol has its container's range; perf report turns
	 * it into the symbol found at that start (hists__findnew_entry)
	 */
	s = rf_dso__find_cached(d, a);
	s = s ? rf_dso__find_cached(d, s->start) : NULL;
	base = s ? rf_dso__sym_name(d, s) : fr->sym;
	for (int i = 0; i < n; i++) {
		struct rawfrag_frame in = *fr;

		in.inlined = strcmp(names[i], fr->sym) != 0;
		if (in.inlined) {
			in.sym = names[i];
			in.base_sym = base;
		}
		if (rf_callchain__push(cc, &in))
			return -ENOMEM;
	}
	return n;
}

static int push_ip(struct unw_ctx *u, struct rawfrag_callchain *cc, uint64_t ip)
{
	struct rawfrag_frame fr;
	int n;

	if (!ip)
		return 0; /* perf skips zero entries */
	rawfrag_machine__resolve(u->m, (int32_t)u->s->pid, (int32_t)u->s->tid, ip,
				 PERF_RECORD_MISC_USER, &fr);
	n = push_inlines(u, cc, &fr);
	if (n)
		return n < 0 ? n : 0;
	return rf_callchain__push(cc, &fr);
}

/*
 * The slot of this process's maps, least recently used first: a slot taken
 * from another process is flushed before its next unwind. Which slot a
 * process gets depends on every process's samples before, so report picks
 * it for every sample that has a user stack (rf_unwind__touch()), unwound
 * or not: then a report -j worker that unwinds only its processes' samples
 * picks the slots one job would.
 */
static int slot_touch(struct unw_state *st, const struct rf_maps *maps)
{
	int pick = 0;

	st->tick++;
	for (int i = 0; i < NR_AS; i++) {
		if (st->slot[i].maps == maps) {
			pick = i;
			goto found;
		}
		if (!st->slot[i].maps || st->slot[i].used < st->slot[pick].used)
			pick = i;
		if (!st->slot[pick].maps)
			break;
	}
	st->slot[pick].maps = maps;
	st->slot[pick].gen = maps->flush_gen - 1; /* flushed before its next unwind */
found:
	st->slot[pick].used = st->tick;
	return pick;
}

/* what rf_unwind__sample() needs before it asks libunwind: regs, a stack, maps */
static struct rf_maps *unwind_maps(struct rawfrag_machine *m, const struct rawfrag_sample *s)
{
	struct rf_maps *maps;

	if (!s->user_regs_abi || !s->user_regs || !s->stack_data || !s->stack_dyn_size)
		return NULL;
	maps = rf_machine__maps(m, (int32_t)s->pid);
	return maps && maps->nr ? maps : NULL;
}

int rf_unwind__touch(struct rawfrag_machine *m, const struct rawfrag_sample *s)
{
	struct unw_state *st;
	struct rf_maps *maps;

	if (!rf_sample__unwound(s) || !(maps = unwind_maps(m, s))) {
		if ((st = *rf_machine__unw_state(m)))
			st->touched = NULL;
		return 0;
	}
	st = unw_state(m);
	if (!st)
		return -ENOMEM;
	st->touched_slot = slot_touch(st, maps);
	st->touched = maps;
	return 0;
}

/* the address space for this process's maps as they are now */
static unw_addr_space_t addr_space(struct rawfrag_machine *m, const struct rf_maps *maps)
{
	struct unw_state *st = *rf_machine__unw_state(m);
	int pick = st->touched == maps ? st->touched_slot : slot_touch(st, maps);

	st->touched = NULL;
	if (!st->slot[pick].as) {
		st->slot[pick].as = unw_create_addr_space(&accessors, 0);
		if (!st->slot[pick].as)
			return NULL;
		unw_set_caching_policy(st->slot[pick].as, UNW_CACHE_GLOBAL);
		st->slot[pick].gen = maps->flush_gen;
	}
	if (st->slot[pick].gen != maps->flush_gen) {
		unw_flush_cache(st->slot[pick].as, 0, 0);
		st->slot[pick].gen = maps->flush_gen;
	}
	return st->slot[pick].as;
}

int rf_unwind__sample(struct rawfrag_machine *m, struct rawfrag_callchain *cc,
		      const struct rawfrag_sample *s, const struct perf_event_attr *attr,
		      uint32_t max_stack)
{
	struct unw_ctx u = { .m = m, .s = s, .mask = attr->sample_regs_user };
	struct unw_state *st;
	unw_addr_space_t as;
	unw_cursor_t c;
	uint64_t ip;
	uint32_t n = 1;
	int ret;

	/* perf: nothing captured (no regs, an empty stack copy) or no maps, no frames */
	st = unw_state(m);
	if (!st)
		return -ENOMEM;
	u.serial = ++st->serial;
	u.maps = unwind_maps(m, s);
	if (!u.maps || reg_value(&u, REG_X86_IP, &ip))
		return 0;
	ret = push_ip(&u, cc, ip);
	if (ret || max_stack < 2 || reg_value(&u, REG_X86_SP, &u.sp))
		return ret;
	as = addr_space(m, u.maps);
	if (!as)
		return 0;
	if (unw_init_remote(&c, as, &u)) {
		cc->truncated = true;
		return 0;
	}
	/*
	 * perf's get_entries() steps once more than it keeps (the step comes
	 * before its count check): that step fills libunwind's cache as well
	 */
	while ((ret = unw_step(&c)) > 0 && n < max_stack) {
		unw_word_t w;

		if (unw_get_reg(&c, UNW_REG_IP, &w))
			break;
		if (unw_is_signal_frame(&c) <= 0)
			w--;
		n++;
		if (push_ip(&u, cc, w))
			return -ENOMEM;
	}
	if (ret < 0 && n < max_stack)
		cc->truncated = true;
	return 0;
}

void rf_unwind__dso_free(struct rf_dso *d)
{
	free(d->unw_priv);
	d->unw_priv = NULL;
}

void rf_unwind__state_free(void *state)
{
	struct unw_state *st = state;

	if (!st)
		return;
	for (int i = 0; i < NR_AS; i++)
		if (st->slot[i].as)
			unw_destroy_addr_space(st->slot[i].as);
	free(st);
}
