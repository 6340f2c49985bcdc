/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal: DSOs, symbols, maps (machine.c, dso.c, symbol_elf.c, unwind.c). */
#ifndef __RAWFRAG_INTERNAL_MACHINE_H
#define __RAWFRAG_INTERNAL_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include <rawfrag/machine.h>

struct rf_sym {
	uint64_t start, end;
	uint32_t name; /* offset in the DSO's string pool */
	uint8_t bind;
	bool mangled; /* a C++ name demangled when first asked for (rf_dso__sym_name()) */
	bool object; /* STT_OBJECT: perf report shows it as name+offset */
};

enum rf_dso_kind {
	RF_DSO_USER, /* an ELF file */
	RF_DSO_KERNEL, /* [kernel.kallsyms] */
	RF_DSO_MODULE, /* [name] */
	RF_DSO_BPF, /* a KSYMBOL: one symbol, addresses relative to the map */
	RF_DSO_PERFMAP, /* /tmp/perf-PID.map */
	RF_DSO_VDSO,
};

#define RF_MAX_LOAD 16

/* The ELF the process ran (not a debug file): offsets, unwind tables, code. */
struct rf_elf {
	int fd;
	uint64_t size;
	const uint8_t *map; /* the file, read-only (unwinding reads it word by word) */
	uint16_t e_type;
	int nr_load;
	struct {
		uint64_t vaddr, off, filesz;
	} load[RF_MAX_LOAD];
	uint64_t eh_frame_hdr_vaddr, eh_frame_hdr_off, eh_frame_hdr_size;
	uint64_t text_vaddr, text_off; /* .text, for symbols outside any PT_LOAD */
	uint8_t bid[20];
	uint8_t bid_size;
	char *path;
};

struct rf_dso {
	char *name; /* as perf prints it */
	char *path; /* the file it stands for */
	enum rf_dso_kind kind;
	uint8_t bid[20];
	uint8_t bid_size;
	bool loaded, rt_tried;
	struct rf_sym *syms;
	size_t nr_syms, cap_syms;
	char *strs;
	size_t strs_len, strs_cap;
	struct rf_elf *rt; /* NULL when none was found */
	char *symsrc; /* the file the .symtab came from */
	struct rf_a2l *a2l; /* inline.c */
	struct rf_sym_cache *cache; /* recent lookups (chains repeat their addresses) */
	struct rf_symtree *tree; /* perf's tree shape, kept only where symbols overlap */
	struct rf_demangled *dm; /* names demangled so far, by name offset */
	void *unw_priv; /* per-DSO unwinding cache (unwind.c) */
	/* symbols, names and tree are a store's (symstore.c), not this DSO's */
	struct rf_symstore_entry *shared;
	uint32_t order; /* rawfrag_frame.dso_order */
	struct rf_dso *next;
};

struct rf_map {
	uint64_t start, end, pgoff;
	struct rf_dso *dso;
	bool identity; /* map_ip(addr) == addr (kernel, anon, [heap]) */
	uint32_t id; /* rawfrag_frame.map_id */
};

struct rf_maps {
	struct rf_map *v;
	int nr, cap;
	uint64_t gen; /* a new one, machine-wide, on every change */
	/*
	 * bumped where perf flushes its unwinder's cache (a new process, an
	 * exec): libunwind's cached rules then live as long as perf's, so
	 * its chains (which that cache can steer) stay perf's
	 */
	uint32_t flush_gen;
	int hint; /* rf_maps__find()'s last answer, tried first */
};

struct rawfrag_machine;

/* symstore.c: user DSOs' and kallsyms' symbols loaded once for several machines (report -j) */
struct rf_symstore;
struct rf_symstore_entry;
struct rf_symstore *rf_symstore__new(void);
/* the store's references; DSOs that took symbols from it keep theirs */
void rf_symstore__delete(struct rf_symstore *st);
/* d loaded by load(), or with the symbols another machine's load gave */
void rf_symstore__load_user(struct rf_symstore *st, struct rawfrag_machine *m, struct rf_dso *d,
			    void (*load)(struct rawfrag_machine *m, struct rf_dso *d));
/*
 * The kernel's symbols from kallsyms at path (text: the recorded _text they
 * are relocated to): load() reads them, and fills mods with kallsyms' module
 * lines; a machine that finds them loaded takes the kernel's and has split()
 * spread mods over its own modules.
 */
void rf_symstore__load_kernel(struct rf_symstore *st, struct rawfrag_machine *m, struct rf_dso *k,
			      const char *path, uint64_t text,
			      void (*load)(struct rawfrag_machine *m, const char *path,
					   struct rf_dso *mods),
			      void (*split)(struct rawfrag_machine *m, struct rf_dso *mods));
void rf_symstore__release(struct rf_symstore_entry *e);
/* path's DWARF for inlined functions, shared by the store's machines (a reference) */
struct rf_dwshare;
struct rf_dwshare *rf_symstore__dwinl(struct rf_symstore *st, const char *path);
/* rf_dwinl__lookup() on it (opened at the first), one caller at a time */
int rf_dwshare__lookup(struct rf_dwshare *d, uint64_t addr, char ***names);
void rf_dwshare__put(struct rf_dwshare *d);
/* the store user DSOs are loaded through (NULL: none) */
void rf_machine__set_symstore(struct rawfrag_machine *m, struct rf_symstore *st);
struct rf_symstore *rf_machine__symstore(const struct rawfrag_machine *m);
/* a message as the machine said it (text formatted, maybe ending in a newline) again */
void rf_machine__say(const struct rawfrag_machine *m, const char *text);

/* where the machine's warnings go (report -j moves them for a run) */
void rf_machine__set_print(struct rawfrag_machine *m, rawfrag_print_fn_t print, void *ctx);
void rf_machine__get_print(const struct rawfrag_machine *m, rawfrag_print_fn_t *print,
			   void **ctx);

/* dso.c */
/* room for nr_syms more symbols and strs_len more bytes of names; false: no memory */
bool rf_dso__reserve(struct rf_dso *d, size_t nr_syms, size_t strs_len);
int rf_dso__add_sym(struct rf_dso *d, uint64_t start, uint64_t len, uint8_t bind,
		    const char *name, size_t nlen);
void rf_dso__finish_syms(struct rf_dso *d, bool kallsyms);
void rf_dso__sort_syms(struct rf_dso *d);
const struct rf_sym *rf_dso__find(const struct rf_dso *d, uint64_t addr);
/* the same through a small per-DSO cache */
const struct rf_sym *rf_dso__find_cached(struct rf_dso *d, uint64_t addr);
/*
 * The demangled name of a mangled symbol, made once: a big C++ binary has
 * hundreds of thousands of names and a profile meets a few of them (the
 * demangler was a sixth of a folded report). The mangled name without memory.
 */
const char *rf_dso__demangled(const struct rf_dso *d, const struct rf_sym *s);
static inline const char *rf_dso__sym_name(const struct rf_dso *d, const struct rf_sym *s)
{
	if (__builtin_expect(s->mangled, 0))
		return rf_dso__demangled(d, s);
	return d->strs + s->name;
}
void rf_dso__free_demangled(struct rf_dso *d);
void rf_dso__free(struct rf_dso *d);
/* the runtime ELF (opened once); NULL when none */
struct rf_elf *rf_dso__elf(struct rawfrag_machine *m, struct rf_dso *d);
/* read len bytes at file offset off of the runtime ELF; -1 on failure */
int rf_elf__pread(const struct rf_elf *e, void *buf, size_t len, uint64_t off);

void rf_dso__load_perfmap(struct rawfrag_machine *m, struct rf_dso *d);

/*
 * symfile.c: files a recording names (perf maps, build-id cache entries,
 * debug links, cached kallsyms, DSOs) are read only when they are regular
 * files; a refusal is warned once per path and reads as a missing file.
 * Caps on the text files we read whole, far above real ones, keep a planted
 * giant to a refusal: a perf map has a line (~100 bytes) per JIT-compiled
 * function, 64 MiB holds ~650k of them; kallsyms is ~10 MiB with modules.
 */
#define RF_PERFMAP_CAP (64ULL << 20)
#define RF_KALLSYMS_CAP (128ULL << 20)
/* symbols reserved before reading kallsyms (a distribution kernel has 100k-200k) */
#define RF_KALLSYMS_SYMS (1u << 18)
/* path exists and is a regular file (stat only: nothing is opened) */
bool rf_symfile__regular(struct rawfrag_machine *m, const char *path);
/*
 * An fd for reading path: opened without blocking, a regular file of at most
 * cap bytes (0: any size). -errno (-ENOENT ...) when it cannot be opened,
 * -EPERM or -EFBIG after the refusal's warning.
 */
int rf_symfile__open(struct rawfrag_machine *m, const char *path, uint64_t cap);
/* warn that path is not read, and why (once per path) */
void rf_symfile__refuse(struct rawfrag_machine *m, const char *path, const char *why);

/* symtree.c: perf's red-black symbol tree replayed, for DSOs whose symbols overlap */
struct rf_symtree;
/* a tree of d's symbols inserted in their current (insertion) order */
struct rf_symtree *rf_symtree__new(const struct rf_dso *d);
/* insert d->syms[from..] in order */
int rf_symtree__add(struct rf_symtree *t, const struct rf_dso *d, size_t from);
/* erase the symbol named at offset id, as perf erases an alias */
void rf_symtree__drop(struct rf_symtree *t, uint32_t id);
/* bind the nodes to d's sorted symbols; false when the tree is not needed (no overlap) */
bool rf_symtree__finish(struct rf_symtree *t, const struct rf_dso *d);
const struct rf_sym *rf_symtree__find(const struct rf_symtree *t, const struct rf_dso *d,
				      uint64_t addr);
void rf_symtree__free(struct rf_symtree *t);

/* symbol_elf.c */
int rf_elf__open(const char *path, struct rf_elf **out);
void rf_elf__close(struct rf_elf *e);
/*
 * Load d's symbols from the ELF at path (its .symtab, else .dynsym); rt gives
 * the runtime PT_LOADs for the perf-style file offset conversion (NULL: path
 * itself). kernel: addresses kept as they are, shifted by delta.
 */
struct rf_elf_file;
int rf_elf__load_syms(struct rf_dso *d, const char *path, const struct rf_elf *rt,
		      bool kernel, int64_t delta, bool *has_symtab, struct rf_elf_file **keep);
/* keep non-NULL: on success *keep holds path open, with the sections read, until this */
void rf_elf_file__close(struct rf_elf_file *f);
/*
 * Which symbol table the ELF at path would give rf_elf__load_syms():
 * RF_ELF_SYMTAB, RF_ELF_DYNSYM (no .symtab), or 0 (neither, or not an ELF).
 * Section headers only, nothing loaded.
 */
enum { RF_ELF_DYNSYM = 1, RF_ELF_SYMTAB = 2 };
int rf_elf__symtab_kind(const char *path);
/* perf's "name@plt" symbols of path's .plt (added unsorted to d); open: path kept open, or NULL */
int rf_elf__plt_syms(struct rf_dso *d, const char *path, struct rf_elf_file *open);
/* the .gnu_debuglink name of path into buf; -1 if none */
int rf_elf__debuglink(const char *path, char *buf, size_t len);
/* build-id of an ELF file; its size or -1 */
int rf_elf__build_id(const char *path, uint8_t bid[20]);

/* machine.c: paths and messages for dso.c */
const char *rf_machine__symfs(const struct rawfrag_machine *m);
const char *rf_machine__buildid_dir(const struct rawfrag_machine *m);
void rf_machine__warn(const struct rawfrag_machine *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* true the first time path is refused (its warning is due), false after */
bool rf_machine__first_refusal(struct rawfrag_machine *m, const char *path);
/* load a user DSO's symbols (debug files, build-id cache, the file) */
void rf_dso__load_user(struct rawfrag_machine *m, struct rf_dso *d);
/* the map holding addr (perf's search: the last to start at or below it), or NULL */
struct rf_map *rf_maps__find(struct rf_maps *ms, uint64_t addr);
/* process pid's maps, NULL if unknown; pid -1: see rawfrag_machine__set_exiting() */
struct rf_maps *rf_machine__maps(struct rawfrag_machine *m, int32_t pid);
/* pid's user maps' generation, *kgen the kernel's: equal ones hold the same maps */
uint64_t rf_machine__maps_gen(struct rawfrag_machine *m, int32_t pid, uint64_t *kgen);

/* the sample carries user registers and stack: its user frames are unwound (unwind.c) */
static inline bool rf_sample__unwound(const struct rawfrag_sample *s)
{
	const uint64_t dwarf = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	return (s->sample_type & dwarf) == dwarf;
}

/*
 * unwind.c: the names addr2line gives for a user address of pid, innermost
 * first, valid until the next chain is unwound; 0 where perf asks none
 */
int rf_unwind__inlines(struct rawfrag_machine *m, int32_t pid, uint64_t addr, char ***names);
/* unwind.c: DWARF-unwound user frames appended to cc (after its kernel part) */
int rf_unwind__sample(struct rawfrag_machine *m, struct rawfrag_callchain *cc,
		      const struct rawfrag_sample *s, const struct perf_event_attr *attr,
		      uint32_t max_stack);
/*
 * unwind.c: the libunwind cache slot of s's process picked as an unwind of
 * s would pick it (report: every sample, so that slots do not depend on
 * which samples a -j worker unwinds); the unwind of s that may follow uses it
 */
int rf_unwind__touch(struct rawfrag_machine *m, const struct rawfrag_sample *s);
void rf_unwind__dso_free(struct rf_dso *d);
void rf_unwind__state_free(void *state);
/* the machine's unwinding state (address spaces; created by unwind.c) */
void **rf_machine__unw_state(struct rawfrag_machine *m);
/*
 * rawfrag_callchain__resolve() with a limit for each part: the kernel's
 * first kmax frames (*nk of them), the unwinder's first umax addresses
 */
int rf_callchain__resolve_parts(struct rawfrag_callchain *cc, struct rawfrag_machine *m,
				const struct rawfrag_sample *s, const struct perf_event_attr *attr,
				uint32_t kmax, uint32_t umax, uint32_t *nk);
/* append a frame to cc; -ENOMEM */
int rf_callchain__push(struct rawfrag_callchain *cc, const struct rawfrag_frame *fr);

/*
 * An entry of PERF_SAMPLE_CALLCHAIN: 0 an address (in *cpumode's space), 1 a
 * context marker (PERF_CONTEXT_*, *cpumode switched), -1 an unknown marker,
 * on which perf discards the whole chain
 */
static inline int rf_callchain__context(uint64_t ip, uint8_t *cpumode)
{
	if (ip < (uint64_t)PERF_CONTEXT_MAX)
		return 0;
	if (ip == (uint64_t)PERF_CONTEXT_HV)
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
	else if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
		*cpumode = PERF_RECORD_MISC_KERNEL;
	else if (ip == (uint64_t)PERF_CONTEXT_USER)
		*cpumode = PERF_RECORD_MISC_USER;
	else
		return -1;
	return 1;
}

/* inline.c */
struct rf_a2l;
/* names valid while serial stays the chain being built (the cache is bounded) */
int rf_a2l__inlines(struct rf_a2l **a, struct rf_symstore *store, const char *path,
		    uint64_t addr, uint64_t serial, char ***names);
void rf_a2l__free(struct rf_a2l *a);
/* a malloc'ed copy of a function name, demangled as perf demangles addr2line's */
char *rf_demangle_dup(const char *name);
/*
 * a name libiberty may demangle: C++ and legacy Rust (_Z), Rust v0 (_R);
 * perf asks of every name, a look at the prefix spares the others the call
 */
static inline bool rf_is_mangled(const char *name, size_t len)
{
	return len > 2 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}
/* inline_dw.c: addr2line's answer in process (libdw); -1 leaves it to addr2line */
struct rf_dwinl;
struct rf_dwinl *rf_dwinl__open(const char *path);
int rf_dwinl__lookup(struct rf_dwinl *w, uint64_t addr, char ***names);
void rf_dwinl__free(struct rf_dwinl *w);
/* machine.c: the DSO and file address of a resolved user frame, for inline.c */
struct rf_dso *rf_machine__frame_dso(struct rawfrag_machine *m, int32_t pid, uint64_t addr,
				     uint64_t *map_ip);
bool rf_machine__inline(const struct rawfrag_machine *m);
/* the DSO (NULL: no map) and symbol (NULL: none) of a resolved frame, and its DSO address */
struct rf_dso *rf_machine__frame_sym(struct rawfrag_machine *m, int32_t pid, uint64_t addr,
				     uint8_t cpumode, uint64_t *map_ip, const struct rf_sym **sym);

/* regs.c */
/* index in the sample's register array of PERF_REG idx, or -1 */
static inline int rf_regs__pos(uint64_t mask, unsigned int idx)
{
	if (idx >= 64 || !(mask & (1ULL << idx)))
		return -1;
	return __builtin_popcountll(mask & ((1ULL << idx) - 1));
}

#endif
