// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline chain at an address from the file's own DWARF (libdw), in
 * process, for the common case: the answer addr2line (binutils' DWARF
 * reader) would give, computed the way it computes it. The function at an
 * address is the subprogram or inlined_subroutine with the smallest range
 * that holds it (the later one in the unit on a tie); when that one is
 * inlined, its callers follow, each the nearest enclosing function DIE.
 * Names: a linkage name anywhere along abstract_origin/specification, else
 * DW_AT_name, as binutils prefers them for C units.
 *
 * Each compile unit is read once, on its first question, into a table of
 * function ranges; later questions in the unit are a scan of that table.
 * Anything this does not settle the same way for certain (no DWARF, an
 * address no unit claims, no function DIE there, units other than C, a
 * missing name, damaged DWARF) is declined: the caller then asks addr2line.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/machine.h"

#define MAX_DEPTH 256 /* DIE nesting followed; deeper units are declined */
#define MAX_FUNCS (1 << 20) /* per unit: a hostile unit is declined, not grown */
#define NR_CU_HASH 256

struct dw_fn {
	const char *name; /* libdw's string data; NULL: none */
	int32_t parent; /* the enclosing function, -1 at the top */
	bool inlined;
};

struct dw_range {
	uint64_t low, high;
	int32_t fn;
};

struct dw_cu {
	Dwarf_Off off;
	bool bad; /* declined as a whole */
	struct dw_fn *fn;
	struct dw_range *r;
	int32_t nr_fn, nr_r, cap_fn, cap_r;
	struct dw_cu *next;
};

struct rf_dwinl {
	int fd;
	Dwarf *dbg;
	struct dw_cu *cu[NR_CU_HASH];
};

struct rf_dwinl *rf_dwinl__open(const char *path)
{
	struct rf_dwinl *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w->fd >= 0)
		w->dbg = dwarf_begin(w->fd, DWARF_C_READ);
	if (!w->dbg) {
		rf_dwinl__free(w);
		return NULL;
	}
	return w;
}

void rf_dwinl__free(struct rf_dwinl *w)
{
	if (!w)
		return;
	for (int i = 0; i < NR_CU_HASH; i++) {
		for (struct dw_cu *c = w->cu[i], *n; c; c = n) {
			n = c->next;
			free(c->fn);
			free(c->r);
			free(c);
		}
	}
	if (w->dbg)
		dwarf_end(w->dbg);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

/* the C family: binutils takes DW_AT_name as the final name there */
static bool lang_c(Dwarf_Die *cudie)
{
	switch (dwarf_srclang(cudie)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return true;
	default:
		return false;
	}
}

static const char *die_name(Dwarf_Die *die)
{
	static const unsigned int at[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name,
					   DW_AT_name };
	Dwarf_Attribute a;

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		const char *s;

		if (dwarf_attr_integrate(die, at[i], &a) && (s = dwarf_formstring(&a)))
			return s;
	}
	return NULL;
}

static int add_fn(struct dw_cu *c, Dwarf_Die *die, int32_t parent, bool inlined)
{
	if (c->nr_fn == c->cap_fn) {
		int32_t cap = c->cap_fn ? c->cap_fn * 2 : 64;
		struct dw_fn *v;

		if (cap > MAX_FUNCS || !(v = realloc(c->fn, (size_t)cap * sizeof(*v))))
			return -1;
		c->fn = v;
		c->cap_fn = cap;
	}
	c->fn[c->nr_fn] = (struct dw_fn){ die_name(die), parent, inlined };
	return c->nr_fn++;
}

static int add_range(struct dw_cu *c, uint64_t low, uint64_t high, int32_t fn)
{
	if (c->nr_r == c->cap_r) {
		int32_t cap = c->cap_r ? c->cap_r * 2 : 64;
		struct dw_range *v;

		if (cap > MAX_FUNCS || !(v = realloc(c->r, (size_t)cap * sizeof(*v))))
			return -1;
		c->r = v;
		c->cap_r = cap;
	}
	c->r[c->nr_r++] = (struct dw_range){ low, high, fn };
	return 0;
}

static int fn_ranges(struct dw_cu *c, Dwarf_Die *die, int32_t fn)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo && add_range(c, lo, hi, fn))
			return -1;
	return off < 0 && dwarf_errno() != 0 ? -1 : 0;
}

/* every function DIE under die, with the nearest enclosing one as parent */
static int walk(struct dw_cu *c, Dwarf_Die *die, int32_t parent, int depth)
{
	Dwarf_Die child;
	int r;

	if (depth > MAX_DEPTH)
		return -1;
	r = dwarf_child(die, &child);
	if (r < 0)
		return -1;
	if (r > 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		int32_t fn = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_entry_point) {
			fn = add_fn(c, &child, parent, tag == DW_TAG_inlined_subroutine);
			if (fn < 0 || fn_ranges(c, &child, fn))
				return -1;
		}
		if (dwarf_haschildren(&child) && walk(c, &child, fn, depth + 1))
			return -1;
	} while ((r = dwarf_siblingof(&child, &child)) == 0);
	return r < 0 ? -1 : 0;
}

static struct dw_cu *cu_table(struct rf_dwinl *w, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct dw_cu **head = &w->cu[(off >> 4) % NR_CU_HASH], *c;

	for (c = *head; c; c = c->next)
		if (c->off == off)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->off = off;
	c->bad = !lang_c(cudie) || walk(c, cudie, -1, 0);
	if (c->bad) {
		free(c->fn);
		free(c->r);
		c->fn = NULL;
		c->r = NULL;
		c->nr_fn = c->nr_r = 0;
	}
	c->next = *head;
	*head = c;
	return c;
}

/*
 * The names at file address addr, innermost first, in *names (names[] and
 * each string malloc'ed); their number, or 0 when this is left to addr2line.
 */
int rf_dwinl__lookup(struct rf_dwinl *w, uint64_t addr, char ***names)
{
	struct dw_cu *c;
	Dwarf_Die cudie;
	int32_t best = -1, n = 0;
	uint64_t best_len = 0;
	char **v;

	if (!w || !dwarf_addrdie(w->dbg, addr, &cudie) || !(c = cu_table(w, &cudie)) || c->bad)
		return 0;
	for (int32_t i = 0; i < c->nr_r; i++) {
		const struct dw_range *r = &c->r[i];

		if (addr < r->low || addr >= r->high)
			continue;
		if (best < 0 || r->high - r->low < best_len ||
		    (r->high - r->low == best_len && r->fn > best)) {
			best = r->fn;
			best_len = r->high - r->low;
		}
	}
	if (best < 0)
		return 0;
	/* the chain: the innermost, then its callers when it was inlined */
	for (int32_t f = best; f >= 0; f = c->fn[best].inlined ? c->fn[f].parent : -1) {
		const char *s = c->fn[f].name;

		/* addr2line would print "??" or a name cut at a line end */
		if (!s || !*s || strpbrk(s, "\n\r") || strchr(" \t", s[strlen(s) - 1]) ||
		    ++n > MAX_DEPTH)
			return 0;
	}
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 0;
	n = 0;
	for (int32_t f = best; f >= 0; f = c->fn[best].inlined ? c->fn[f].parent : -1) {
		v[n] = rf_demangle_dup(c->fn[f].name);
		if (!v[n]) {
			while (n--)
				free(v[n]);
			free(v);
			return 0;
		}
		n++;
	}
	*names = v;
	return n;
}
