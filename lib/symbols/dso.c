// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DSOs and their symbols with perf's rules (symbol.c, dso.c): symbols sorted
 * by address, aliases at one address reduced to perf's choice, sizeless
 * symbols ended at the next one, lookups by binary search. A user DSO's
 * symbol file is searched in perf's order: .gnu_debuglink, the build-id cache
 * (~/.debug/.build-id), /usr/lib/debug/.build-id, the file itself; every
 * candidate must carry the recorded build-id.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/machine.h"

bool rf_dso__reserve(struct rf_dso *d, size_t nr_syms, size_t strs_len)
{
	if (d->shared) /* a store's symbols do not change */
		return false;
	if (d->nr_syms + nr_syms > d->cap_syms) {
		struct rf_sym *v = realloc(d->syms, (d->nr_syms + nr_syms) * sizeof(*v));

		if (!v)
			return false;
		d->syms = v;
		d->cap_syms = d->nr_syms + nr_syms;
	}
	if (d->strs_len + strs_len + 1 > d->strs_cap) {
		char *p = realloc(d->strs, d->strs_len + strs_len + 1);

		if (!p)
			return false;
		d->strs = p;
		d->strs_cap = d->strs_len + strs_len + 1;
	}
	return true;
}

int rf_dso__add_sym(struct rf_dso *d, uint64_t start, uint64_t len, uint8_t bind,
		    const char *name, size_t nlen)
{
	struct rf_sym *s;

	if (d->nr_syms == d->cap_syms) {
		size_t cap = d->cap_syms ? 2 * d->cap_syms : 256;
		struct rf_sym *v = realloc(d->syms, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->syms = v;
		d->cap_syms = cap;
	}
	if (d->strs_len + nlen + 1 > d->strs_cap || !d->strs) {
		size_t cap = d->strs_cap ? d->strs_cap : 4096;
		char *p;

		while (cap < d->strs_len + nlen + 1)
			cap *= 2;
		p = realloc(d->strs, cap);
		if (!p)
			return -ENOMEM;
		d->strs = p;
		d->strs_cap = cap;
	}
	s = &d->syms[d->nr_syms++];
	s->start = start;
	s->end = start + len;
	s->bind = bind;
	s->mangled = false;
	s->object = false;
	s->name = (uint32_t)d->strs_len;
	memcpy(d->strs + d->strs_len, name, nlen);
	d->strs[d->strs_len + nlen] = 0;
	d->strs_len += nlen + 1;
	return 0;
}

/* equal starts keep insertion order (name offsets grow with it), as perf's tree does */
static int sym_cmp(const void *a, const void *b)
{
	const struct rf_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int underscores(const char *s)
{
	int n = 0;

	while (*s++ == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a wins over b */
static bool sym_better(const struct rf_dso *d, const struct rf_sym *a, const struct rf_sym *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	const char *na = rf_dso__sym_name(d, a), *nb = rf_dso__sym_name(d, b);
	bool wa = a->bind == 2 /* STB_WEAK */, wb = b->bind == 2;
	bool ga = a->bind == 1 /* STB_GLOBAL */, gb = b->bind == 1;
	size_t sa, sb;

	if (!lb && la)
		return true;
	if (!la && lb)
		return false;
	if (wb && !wa)
		return true;
	if (wa && !wb)
		return false;
	if (ga && !gb)
		return true;
	if (gb && !ga)
		return false;
	if (underscores(nb) != underscores(na))
		return underscores(nb) > underscores(na);
	sa = strlen(na);
	sb = strlen(nb);
	return sa >= sb;
}

static uint64_t page_up(uint64_t v)
{
	return (v + 4095) & ~4095ULL;
}

/* the order is total (name offsets are unique): sorted input needs no qsort */
#define SYM_RUNS 16

/*
 * Merge the ascending runs of syms that start at run[0..nr] (run[nr]: the
 * end), left to right, each step through a buffer the size of its shorter
 * side: kallsyms comes as the kernel's run plus a symbol or two (modules, bpf
 * trampolines), which qsort took as unsorted input, and a copy of the whole
 * table faulted megabytes in again. sym_cmp is a total order, so the result
 * is qsort's. false without memory.
 */
static bool merge_runs(struct rf_sym *v, const size_t *run, int nr)
{
	size_t most = 0;
	struct rf_sym *tmp;

	for (int r = 1; r < nr; r++) {
		size_t l = run[r], rl = run[r + 1] - run[r], n = l < rl ? l : rl;

		if (n > most)
			most = n;
	}
	tmp = malloc(most * sizeof(*v));
	if (!tmp)
		return false;
	for (int r = 1; r < nr; r++) {
		size_t m = run[r], e = run[r + 1];

		if (e - m <= m) {
			/* the right run is shorter: set it aside, fill from the back */
			size_t i = m, j = e - m, k = e;

			memcpy(tmp, v + m, (e - m) * sizeof(*v));
			while (i > 0 && j > 0)
				v[--k] = sym_cmp(&tmp[j - 1], &v[i - 1]) < 0 ? v[--i] : tmp[--j];
			while (j > 0)
				v[--k] = tmp[--j];
		} else {
			size_t i = 0, j = m, k = 0;

			memcpy(tmp, v, m * sizeof(*v));
			while (i < m && j < e)
				v[k++] = sym_cmp(&v[j], &tmp[i]) < 0 ? v[j++] : tmp[i++];
			while (i < m)
				v[k++] = tmp[i++];
		}
	}
	free(tmp);
	return true;
}

static void sort_syms(struct rf_dso *d)
{
	size_t run[SYM_RUNS + 1];
	int nr = 1;

	run[0] = 0;
	for (size_t i = 1; i < d->nr_syms; i++) {
		if (sym_cmp(&d->syms[i - 1], &d->syms[i]) <= 0)
			continue;
		if (nr == SYM_RUNS) {
			qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
			return;
		}
		run[nr++] = i;
	}
	run[nr] = d->nr_syms;
	if (nr > 1 && !merge_runs(d->syms, run, nr))
		qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
}

void rf_dso__sort_syms(struct rf_dso *d)
{
	sort_syms(d);
}

void rf_dso__finish_syms(struct rf_dso *d, bool kallsyms)
{
	size_t n = 0;

	if (!d->nr_syms)
		return;
	sort_syms(d);
	/* sizeless symbols end where the next begins (symbols__fixup_end) */
	for (size_t i = 1; i < d->nr_syms; i++) {
		struct rf_sym *prev = &d->syms[i - 1], *curr = &d->syms[i];

		if (prev->end != prev->start)
			continue;
		if (kallsyms && !strchr(rf_dso__sym_name(d, prev), '[') !=
				    !strchr(rf_dso__sym_name(d, curr), '['))
			prev->end = page_up(prev->end + 4096);
		else
			prev->end = curr->start;
	}
	if (d->syms[d->nr_syms - 1].end == d->syms[d->nr_syms - 1].start)
		d->syms[d->nr_syms - 1].end = page_up(d->syms[d->nr_syms - 1].start) + 4096;
	/* one symbol per address (perf's symbols__fixup_duplicate) */
	for (size_t i = 0; i < d->nr_syms; i++) {
		if (n && d->syms[n - 1].start == d->syms[i].start) {
			bool keep = sym_better(d, &d->syms[n - 1], &d->syms[i]);

			if (d->tree)
				rf_symtree__drop(d->tree, keep ? d->syms[i].name : d->syms[n - 1].name);
			if (!keep)
				d->syms[n - 1] = d->syms[i];
			continue;
		}
		d->syms[n++] = d->syms[i];
	}
	d->nr_syms = n;
}

static bool sym_has(const struct rf_sym *s, uint64_t a)
{
	return a >= s->start && (a < s->end || a == s->start);
}

const struct rf_sym *rf_dso__find(const struct rf_dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nr_syms;

	if (d->tree)
		return rf_symtree__find(d->tree, d, addr);

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a few back for symbols that enclose smaller ones */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (sym_has(&d->syms[i - 1], addr))
			return &d->syms[i - 1];
	return NULL;
}

#define SYM_CACHE 1024

struct rf_sym_cache {
	struct {
		uint64_t addr;
		const struct rf_sym *s;
		bool valid;
	} e[SYM_CACHE];
};

const struct rf_sym *rf_dso__find_cached(struct rf_dso *d, uint64_t addr)
{
	size_t h;

	if (!d->cache && d->nr_syms > 64)
		d->cache = calloc(1, sizeof(*d->cache));
	if (!d->cache)
		return rf_dso__find(d, addr);
	h = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 54) % SYM_CACHE;
	if (!d->cache->e[h].valid || d->cache->e[h].addr != addr) {
		d->cache->e[h].addr = addr;
		d->cache->e[h].s = rf_dso__find(d, addr);
		d->cache->e[h].valid = true;
	}
	return d->cache->e[h].s;
}

void rf_dso__free(struct rf_dso *d)
{
	free(d->cache);
	rf_dso__free_demangled(d);
	if (d->shared) {
		rf_symstore__release(d->shared);
		d->syms = NULL;
		d->strs = NULL;
		d->tree = NULL;
	}
	rf_symtree__free(d->tree);
	rf_unwind__dso_free(d);
	rf_a2l__free(d->a2l);
	free(d->symsrc);
	rf_elf__close(d->rt);
	free(d->syms);
	free(d->strs);
	free(d->name);
	free(d->path);
	free(d);
}

static void bid_hex(const struct rf_dso *d, char *out)
{
	for (int i = 0; i < d->bid_size; i++)
		sprintf(out + 2 * i, "%02x", d->bid[i]);
	out[2 * d->bid_size] = 0;
}

/* a candidate file carries the recorded build-id (any when none was recorded) */
static bool bid_ok(const struct rf_dso *d, const char *path)
{
	uint8_t bid[20];
	int n;

	if (!d->bid_size)
		return true;
	n = rf_elf__build_id(path, bid);
	return n == d->bid_size && !memcmp(bid, d->bid, (size_t)n);
}

#define NR_CAND 9

static void __attribute__((format(printf, 2, 3))) cand_set(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, 4096, fmt, ap);
	va_end(ap);
}

/* perf's dso__load() order of symbol sources for a user DSO */
static int user_candidates(struct rawfrag_machine *m, struct rf_dso *d, char cand[NR_CAND][4096])
{
	const char *symfs = rf_machine__symfs(m), *cache = rf_machine__buildid_dir(m);
	char file[4096], dir[4096], link[256], hex[41];
	int n = 0;

	if (d->kind == RF_DSO_VDSO) {
		/* perf: the cached copy ("vdso"), else its own vdso unless a symfs is set */
		if (d->bid_size) {
			bid_hex(d, hex);
			cand_set(cand[n++], "%s/.build-id/%.2s/%s/vdso", cache, hex, hex + 2);
		}
		if (!symfs[0])
			cand_set(cand[n++], "%s", d->path);
		return n;
	}
	cand_set(file, "%s%s", symfs, d->path);
	cand_set(dir, "%s", file);
	/* none recorded: the file's own, for the build-id paths (perf does the same) */
	if (!d->bid_size && rf_symfile__regular(m, file)) {
		int b = rf_elf__build_id(file, d->bid);

		d->bid_size = b > 0 ? (uint8_t)b : 0;
	}
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	if (rf_symfile__regular(m, file) && !rf_elf__debuglink(file, link, sizeof(link))) {
		cand_set(cand[n++], "%s", link);
		cand_set(cand[n++], "%s/%s", dir, link);
		cand_set(cand[n++], "%s/.debug/%s", dir, link);
		cand_set(cand[n++], "/usr/lib/debug%s/%s", dir, link);
	}
	if (d->bid_size) {
		bid_hex(d, hex);
		cand_set(cand[n++], "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
		cand_set(cand[n++], "%s/.build-id/%.2s/%s/debug", cache, hex, hex + 2);
		cand_set(cand[n++], "%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs, hex,
			 hex + 2);
	}
	cand_set(cand[n++], "%s", file);
	return n;
}

struct rf_elf *rf_dso__elf(struct rawfrag_machine *m, struct rf_dso *d)
{
	char cand[NR_CAND][4096];
	int n;

	if (d->rt_tried)
		return d->rt;
	d->rt_tried = true;
	if (d->kind != RF_DSO_USER && d->kind != RF_DSO_VDSO)
		return NULL;
	n = user_candidates(m, d, cand);
	/* the code itself: the file or its copy in the cache, not a debug file */
	for (int i = 0; i < n; i++) {
		size_t l = strlen(cand[i]);

		if (l > 6 && (!strcmp(cand[i] + l - 6, "/debug") ||
			      !strcmp(cand[i] + l - 6, ".debug")))
			continue;
		if (!rf_symfile__regular(m, cand[i]) || !bid_ok(d, cand[i]) ||
		    rf_elf__open(cand[i], &d->rt))
			continue;
		if (d->rt->nr_load)
			break;
		rf_elf__close(d->rt);
		d->rt = NULL;
	}
	return d->rt;
}

/*
 * Where the symbols come from the runtime file itself, the PLT's names are
 * in the .dynsym and .dynstr just read: keep that file open for them.
 */
static struct rf_elf_file **held_for(const struct rf_elf *rt, const char *cand,
				     struct rf_elf_file **held)
{
	return rt && rt->path && !strcmp(rt->path, cand) ? held : NULL;
}

static void load_user(struct rawfrag_machine *m, struct rf_dso *d)
{
	char cand[NR_CAND][4096];
	int dyn[NR_CAND], nr_dyn = 0;
	struct rf_elf_file *held = NULL;
	struct rf_elf *rt;
	bool symtab;
	int n;

	d->loaded = true;
	rt = rf_dso__elf(m, d);
	n = user_candidates(m, d, cand);
	for (int i = 0; i < n; i++) {
		int kind;

		if (!rf_symfile__regular(m, cand[i]) || !bid_ok(d, cand[i]))
			continue;
		/*
		 * .dynsym only: keep looking for a .symtab, come back to this one.
		 * Told by the section headers: loading a stripped library's
		 * table to throw it away cost a second load of every one.
		 */
		kind = rf_elf__symtab_kind(cand[i]);
		if (kind == RF_ELF_DYNSYM)
			dyn[nr_dyn++] = i;
		if (kind != RF_ELF_SYMTAB)
			continue;
		if (rf_elf__load_syms(d, cand[i], rt, false, 0, &symtab,
				      held_for(rt, cand[i], &held)) || !d->nr_syms) {
			d->nr_syms = d->strs_len = 0;
			rf_elf_file__close(held);
			held = NULL;
			continue;
		}
		d->symsrc = strdup(cand[i]);
		break;
	}
	/* the first .dynsym that gives symbols */
	for (int k = 0; k < nr_dyn && !d->nr_syms; k++)
		if (rf_elf__load_syms(d, cand[dyn[k]], rt, false, 0, &symtab,
				      held_for(rt, cand[dyn[k]], &held)) || !d->nr_syms) {
			d->nr_syms = d->strs_len = 0;
			rf_elf_file__close(held);
			held = NULL;
		}
	/* perf's tree is built in .symtab order, so it starts before the sort */
	if (d->nr_syms)
		d->tree = rf_symtree__new(d);
	rf_dso__finish_syms(d, false);
	if (d->nr_syms && rt && rt->path) {
		size_t before = d->nr_syms;

		rf_elf__plt_syms(d, rt->path, held);
		if (d->tree && rf_symtree__add(d->tree, d, before)) {
			rf_symtree__free(d->tree);
			d->tree = NULL;
		}
		if (d->nr_syms != before)
			rf_dso__sort_syms(d);
	}
	rf_elf_file__close(held);
	if (d->tree && !rf_symtree__finish(d->tree, d)) {
		rf_symtree__free(d->tree);
		d->tree = NULL;
	}
}

void rf_dso__load_user(struct rawfrag_machine *m, struct rf_dso *d)
{
	struct rf_symstore *st = rf_machine__symstore(m);

	if (st)
		rf_symstore__load_user(st, m, d, load_user);
	else
		load_user(m, d);
}

/*
 * /tmp/perf-PID.map: "START SIZE NAME" per line, hex (perf's
 * dso__load_perf_map). The pid comes from the recording and anyone may
 * create the file: a regular one only, at most RF_PERFMAP_CAP bytes read
 * (it may grow while we read).
 */
void rf_dso__load_perfmap(struct rawfrag_machine *m, struct rf_dso *d)
{
	uint64_t total = 0;
	char line[4096];
	int fd;
	FILE *f;

	d->loaded = true;
	fd = rf_symfile__open(m, d->path, RF_PERFMAP_CAP);
	if (fd < 0)
		return;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		uint64_t start, size;
		size_t l;

		total += strlen(line);
		if (total > RF_PERFMAP_CAP) {
			rf_symfile__refuse(m, d->path, "grew past the perf map cap of 64 MiB");
			d->nr_syms = d->strs_len = 0;
			break;
		}
		start = strtoull(p, &end, 16);
		if (end == p || !isspace((unsigned char)*end))
			continue;
		p = end;
		size = strtoull(p, &end, 16);
		if (end == p || !isspace((unsigned char)*end))
			continue;
		p = end + 1;
		l = strcspn(p, "\n");
		if (!l || rf_dso__add_sym(d, start, size, 1, p, l))
			continue;
	}
	fclose(f);
	rf_dso__finish_syms(d, false);
}
