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
 *
 * Where no function DIE holds the address (assembly units, files without
 * DWARF), binutils names the ELF symbol there (its elf_find_function():
 * the eligible symbol of the address's section starting closest below it).
 * That answer is given here only where it cannot depend on the order of
 * earlier questions (binutils caches its last match): one eligible symbol
 * starts closest below the address and no other one holds it; an address in
 * no allocated section has no answer at all ("??:0"), as in addr2line.
 *
 * Anything this does not settle the same way for certain (a separate debug
 * file binutils would follow, units other than C or gas's, a missing name, damaged
 * DWARF, ambiguous symbols) is declined: the caller then asks addr2line.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	bool lang_c; /* its names are binutils' final ones */
	struct dw_fn *fn;
	struct dw_range *r;
	int32_t nr_fn, nr_r, cap_fn, cap_r;
	struct dw_cu *next;
};

/* an ELF symbol binutils could name a function by, its size at least 1 */
struct dw_sym {
	uint64_t start, end;
	uint32_t shndx;
	uint32_t idx; /* in the symbol table: binutils walks it in that order */
	uint8_t info; /* type and binding */
	const char *name; /* libelf's string data */
};

struct dw_sec {
	uint64_t start, end;
	uint32_t shndx;
};

struct rf_dwinl {
	int fd;
	Elf *elf;
	Dwarf *dbg;
	bool syms_ok; /* symbols read and unambiguous enough to answer from */
	bool other_debug; /* no DWARF here, but a debug file binutils would use */
	struct dw_sym *sym; /* sorted by section, then start */
	uint64_t *max_end; /* of sym[0..i] within i's section */
	size_t nr_sym;
	struct dw_sec *sec; /* allocated sections, in header order */
	size_t nr_sec;
	struct dw_cu *cu[NR_CU_HASH];
};

static int sym_cmp(const void *a, const void *b)
{
	const struct dw_sym *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* binutils' _bfd_elf_maybe_function_sym(): which symbols may name code */
static bool sym_eligible(const GElf_Sym *es)
{
	int type = GELF_ST_TYPE(es->st_info);

	if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
	    type == STT_COMMON || type == 8 /* STT_RELC */ || type == 9 /* STT_SRELC */)
		return false;
	if (es->st_shndx == SHN_UNDEF || es->st_shndx >= SHN_LORESERVE)
		return false;
	/* annobin's hidden local zero-size markers are not functions */
	return !(es->st_size == 0 && GELF_ST_BIND(es->st_info) == STB_LOCAL &&
		 type == STT_NOTYPE && GELF_ST_VISIBILITY(es->st_other) == STV_HIDDEN);
}

static Elf_Scn *sym_table(Elf *elf, int type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == (GElf_Word)type && sh->sh_entsize)
			return scn;
	return NULL;
}

/* addr2line's symbols: .symtab, or .dynsym when there is none or it is empty */
static int read_syms(struct rf_dwinl *w)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sym_table(w->elf, SHT_SYMTAB, &sh);
	Elf_Data *d;
	size_t n;

	if (!scn || sh.sh_size / sh.sh_entsize < 2)
		scn = sym_table(w->elf, SHT_DYNSYM, &sh);
	if (!scn)
		return 0;
	if (!(d = elf_getdata(scn, NULL)))
		return -1;
	n = sh.sh_size / sh.sh_entsize;
	if (n > (1u << 24) || !(w->sym = calloc(n, sizeof(*w->sym))) ||
	    !(w->max_end = calloc(n, sizeof(*w->max_end))))
		return -1;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym es;
		const char *name;

		if (!gelf_getsym(d, (int)i, &es))
			return -1;
		if (!sym_eligible(&es))
			continue;
		name = elf_strptr(w->elf, sh.sh_link, es.st_name);
		if (!name)
			return -1;
		w->sym[w->nr_sym++] = (struct dw_sym){ es.st_value,
						       es.st_value + (es.st_size ? es.st_size : 1),
						       es.st_shndx, (uint32_t)i, es.st_info, name };
		if (w->sym[w->nr_sym - 1].end < es.st_value)
			return -1;
	}
	qsort(w->sym, w->nr_sym, sizeof(*w->sym), sym_cmp);
	for (size_t i = 0; i < w->nr_sym; i++) {
		w->max_end[i] = w->sym[i].end;
		if (i && w->sym[i - 1].shndx == w->sym[i].shndx && w->max_end[i - 1] > w->max_end[i])
			w->max_end[i] = w->max_end[i - 1];
	}
	return 0;
}

static int read_secs(struct rf_dwinl *w)
{
	Elf_Scn *scn = NULL;
	size_t n;

	if (elf_getshdrnum(w->elf, &n) || n > (1u << 20) ||
	    !(w->sec = calloc(n ? n : 1, sizeof(*w->sec))))
		return -1;
	while ((scn = elf_nextscn(w->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size && w->nr_sec < n)
			w->sec[w->nr_sec++] = (struct dw_sec){ sh.sh_addr, sh.sh_addr + sh.sh_size,
							       (uint32_t)elf_ndxscn(scn) };
	}
	return 0;
}

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/*
 * Without DWARF of its own, binutils reads a separate debug file when one
 * is where it looks: /usr/lib/debug/.build-id/xx/rest.debug, or the
 * .gnu_debuglink name next to the file, in .debug/ there or under
 * /usr/lib/debug. Then its answers are left to it.
 */
static bool has_other_debug(struct rf_dwinl *w, const char *path)
{
	const char *dl = NULL;
	GElf_Word crc;
	const void *bid;
	ssize_t nb = dwelf_elf_gnu_build_id(w->elf, &bid);
	char p[4096];
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) : 0;

	if (nb > 1) {
		const unsigned char *b = bid;
		int o = snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%02x/", b[0]);

		for (ssize_t i = 1; i < nb && o < (int)sizeof(p) - 8; i++)
			o += snprintf(p + o, sizeof(p) - (size_t)o, "%02x", b[i]);
		snprintf(p + o, sizeof(p) - (size_t)o, ".debug");
		if (exists(p))
			return true;
	}
	dl = dwelf_elf_gnu_debuglink(w->elf, &crc);
	if (!dl)
		return false;
	if (dlen > 2048 || strlen(dl) > 1024)
		return true; /* not worth guessing: leave it to addr2line */
	snprintf(p, sizeof(p), "%.*s/%s", dlen, path, dl);
	if (exists(p) && strcmp(p, path))
		return true;
	snprintf(p, sizeof(p), "%.*s/.debug/%s", dlen, path, dl);
	if (exists(p))
		return true;
	snprintf(p, sizeof(p), "/usr/lib/debug%.*s/%s", dlen, path, dl);
	return exists(p);
}

/*
 * libdw inflates every compressed debug section when it opens a file; the
 * line tables, location lists and macros are not read here (only function
 * DIEs, their names and ranges), and in a distribution's debug file they
 * are a good part of what it would inflate. They are marked SHT_NOBITS in
 * the private copy of the headers, which libdw skips.
 */
static void hide_unused(Elf *elf)
{
	static const char *const unused[] = {
		"debug_line", "debug_loc", "debug_loclists", "debug_macro", "debug_macinfo",
		"debug_frame", "debug_pubnames", "debug_pubtypes", "debug_gnu_pubnames",
		"debug_gnu_pubtypes",
	};
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstr, sh.sh_name)) ||
		    n[0] != '.')
			continue;
		n += n[1] == 'z' ? 2 : 1; /* .zdebug_*: the old GNU compression */
		for (size_t i = 0; i < sizeof(unused) / sizeof(unused[0]); i++) {
			if (!strcmp(n, unused[i])) {
				sh.sh_type = SHT_NOBITS;
				gelf_update_shdr(scn, &sh);
				break;
			}
		}
	}
}

struct rf_dwinl *rf_dwinl__open(const char *path)
{
	struct rf_dwinl *w = calloc(1, sizeof(*w));
	struct stat st;

	if (!w)
		return NULL;
	elf_version(EV_CURRENT);
	/* as symbol_elf.c opens ELF files: never blocked by a FIFO, regular files only */
	w->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	/* a private map: hide_unused() may change section headers in memory */
	if (w->fd < 0 || fstat(w->fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(w->fd, F_SETFL, 0) || !(w->elf = elf_begin(w->fd, ELF_C_READ_MMAP_PRIVATE, NULL)) ||
	    elf_kind(w->elf) != ELF_K_ELF) {
		rf_dwinl__free(w);
		return NULL;
	}
	hide_unused(w->elf);
	w->dbg = dwarf_begin_elf(w->elf, DWARF_C_READ, NULL);
	if (!w->dbg)
		w->other_debug = has_other_debug(w, path);
	w->syms_ok = !read_secs(w) && !read_syms(w);
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
	if (w->elf)
		elf_end(w->elf);
	if (w->fd >= 0)
		close(w->fd);
	free(w->sym);
	free(w->max_end);
	free(w->sec);
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
	case DW_LANG_Mips_Assembler: /* gas's units */
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
	c->lang_c = lang_c(cudie);
	c->bad = walk(c, cudie, -1, 0);
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

/* the section addr2line looks in: the first allocated one holding addr */
static const struct dw_sec *sec_of(const struct rf_dwinl *w, uint64_t addr)
{
	for (size_t i = 0; i < w->nr_sec; i++)
		if (addr >= w->sec[i].start && addr < w->sec[i].end)
			return &w->sec[i];
	return NULL;
}

/*
 * binutils' symbol at addr when it is certain (see the top): the name, or
 * NULL with *none set when no eligible symbol starts at or below addr.
 */
static const char *sym_at(const struct rf_dwinl *w, uint32_t shndx, uint64_t addr, bool *none)
{
	size_t lo = 0, hi = w->nr_sym, first, j, g, pick;

	*none = false;
	/* the first symbol of the section, then the last one starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->sym[mid].shndx < shndx)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = w->nr_sym;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->sym[mid].shndx == shndx && w->sym[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first) {
		*none = true;
		return NULL;
	}
	j = lo - 1;
	g = j;
	while (g > first && w->sym[g - 1].start == w->sym[j].start)
		g--;
	/*
	 * no symbol starting lower holds addr (binutils' cached match is reused
	 * only for an address it holds): the same answer whatever was asked
	 * before, even where the symbol ends short of addr. Aliases at the same
	 * start count only when alike in size and type: binutils keeps the first
	 * of them it meets in the table then, whatever their binding.
	 */
	if (g > first && w->max_end[g - 1] > addr)
		return NULL;
	pick = j;
	for (size_t k = g; k < j; k++) {
		if (w->sym[k].end != w->sym[j].end ||
		    GELF_ST_TYPE(w->sym[k].info) != GELF_ST_TYPE(w->sym[j].info))
			return NULL;
		if (w->sym[k].idx < w->sym[pick].idx)
			pick = k;
	}
	return w->sym[pick].name;
}

static int one_name(const char *s, char ***names)
{
	char **v;

	if (!*s || strpbrk(s, "\n\r") || strchr(" \t", s[strlen(s) - 1]) || !(v = calloc(1, sizeof(*v))))
		return -1;
	if (!(v[0] = rf_demangle_dup(s))) {
		free(v);
		return -1;
	}
	*names = v;
	return 1;
}

/* where no function DIE holds addr: binutils' symbol, or "??:0" (0), or -1 */
static int by_symbol(const struct rf_dwinl *w, const struct dw_sec *sec, uint64_t addr,
		     bool dwarf_line_possible, char ***names)
{
	const char *s;
	bool none;

	if (!w->syms_ok)
		return -1;
	s = sym_at(w, sec->shndx, addr, &none);
	if (s)
		return one_name(s, names);
	/* nothing to name it by: "??:0", unless DWARF lines could still answer */
	return none && !dwarf_line_possible ? 0 : -1;
}

/*
 * The names at file address addr, innermost first, in *names (names[] and
 * each string malloc'ed): their number; 0 where addr2line has no answer
 * ("??:0"); -1 when this is left to addr2line.
 */
int rf_dwinl__lookup(struct rf_dwinl *w, uint64_t addr, char ***names)
{
	const struct dw_sec *sec;
	struct dw_cu *c;
	Dwarf_Die cudie;
	int32_t best = -1, n = 0;
	uint64_t best_len = 0;
	char **v;

	if (!w || w->other_debug)
		return -1;
	sec = sec_of(w, addr);
	if (!sec)
		return 0; /* addr2line looks in no section: "??:0" */
	if (!w->dbg)
		return by_symbol(w, sec, addr, false, names);
	if (!dwarf_addrdie(w->dbg, addr, &cudie)) /* no unit: no DWARF answer either */
		return by_symbol(w, sec, addr, false, names);
	if (!(c = cu_table(w, &cudie)) || c->bad)
		return -1;
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
	if (best < 0) /* a unit without a function there (assembly): lines and the symbol */
		return by_symbol(w, sec, addr, true, names);
	if (!c->lang_c)
		return -1; /* binutils may take the symbol's name for the innermost */
	/* the chain: the innermost, then its callers when it was inlined */
	for (int32_t f = best; f >= 0; f = c->fn[best].inlined ? c->fn[f].parent : -1) {
		const char *s = c->fn[f].name;

		/* addr2line would print "??" or a name cut at a line end */
		if (!s || !*s || strpbrk(s, "\n\r") || strchr(" \t", s[strlen(s) - 1]) ||
		    ++n > MAX_DEPTH)
			return -1;
	}
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return -1;
	n = 0;
	for (int32_t f = best; f >= 0; f = c->fn[best].inlined ? c->fn[f].parent : -1) {
		v[n] = rf_demangle_dup(c->fn[f].name);
		if (!v[n]) {
			while (n--)
				free(v[n]);
			free(v);
			return -1;
		}
		n++;
	}
	*names = v;
	return n;
}
