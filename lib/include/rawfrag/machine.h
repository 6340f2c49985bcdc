/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The machine a perf.data file was recorded on, as perf's machine.c keeps it:
 * processes and their maps (MMAP/MMAP2 incl. build-ids, FORK, KSYMBOL), the
 * kernel map relocated by the recorded _text, and symbols for every map's DSO
 * (ELF .symtab, else .dynsym, through .gnu_debuglink, /usr/lib/debug/.build-id,
 * the ~/.debug build-id cache and --symfs; kallsyms for the kernel only when the
 * recorded kernel build-id matches). Call chains: PERF_SAMPLE_CALLCHAIN with its
 * PERF_CONTEXT_* markers, or DWARF unwinding of REGS_USER + STACK_USER with
 * libunwind's remote API.
 *
 * Names in frames point into the machine and stay valid until it is deleted.
 */
#ifndef __RAWFRAG_MACHINE_H
#define __RAWFRAG_MACHINE_H

#include <rawfrag/sample.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rawfrag_machine;

struct rawfrag_machine_opts {
	size_t sz;
	rawfrag_print_fn_t print;
	void *print_ctx;
	const char *symfs; /* prefix for every DSO path (perf --symfs) */
	const char *kallsyms; /* kernel symbols from this file, no build-id check */
	const char *vmlinux; /* kernel symbols from this ELF */
	const char *buildid_dir; /* build-id cache; NULL: <symfs>/.debug, else $HOME/.debug */
	/*
	 * DWARF-unwound frames stay as they are: no inlined functions from
	 * addr2line (perf script --no-inline)
	 */
	bool no_inline;
};
#define rawfrag_machine_opts__last_field no_inline

/* One resolved address, with perf script's view of it. */
struct rawfrag_frame {
	uint64_t addr; /* the address as sampled */
	uint64_t ip; /* as perf script prints it: offset in the DSO for user maps */
	const char *sym; /* NULL: not resolved ([unknown]) */
	uint64_t symoff;
	const char *dso; /* NULL: no map ([unknown]) */
	uint8_t cpumode; /* PERF_RECORD_MISC_* */
	bool inlined; /* a function inlined at this address (sym is its name, no dso shown) */
	/*
	 * perf's map object the address was found in: a new number for each
	 * mmap, for each piece of an older map one cuts off, and for each map a
	 * new process copies (0: none); one DSO in two processes has two
	 */
	uint32_t map_id;
	uint64_t symlen; /* the symbol's size as perf has it (its end - start) */
	/* an inlined frame: the symbol at the start of the one it is inlined into */
	const char *base_sym;
	/*
	 * perf's order of its DSO objects (0: no map): the build-id table's,
	 * then the maps' as they came; a call graph's equal branches follow it
	 */
	uint32_t dso_order;
	bool object; /* the symbol is data (STT_OBJECT): perf report shows name+offset */
};

struct rawfrag_callchain {
	uint32_t nr, cap;
	struct rawfrag_frame *frames; /* callee first */
	bool truncated; /* the unwinder stopped early (bad or short data) */
};

/* f: the file (its BUILD_ID feature and arch); NULL sets errno. */
RAWFRAG_API struct rawfrag_machine *
rawfrag_machine__new(struct rawfrag_file *f, const struct rawfrag_machine_opts *opts);
RAWFRAG_API void rawfrag_machine__delete(struct rawfrag_machine *m);

/*
 * Feed a non-sample record (MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL, and a
 * pipe's HEADER_BUILD_ID: one more entry of the build-id table; others are
 * ignored), in perf's delivery order. 0 or -ENOMEM; malformed records are
 * ignored, as perf does.
 */
RAWFRAG_API int rawfrag_machine__process_record(struct rawfrag_machine *m,
						const struct rawfrag_record *rec, bool swap);

/*
 * The process whose maps resolve pid -1 from now on: for a sample of pid -1
 * (a task caught exiting), what rawfrag_session__thread_pid() gives it, as
 * perf resolves it through its thread; -1 (the default): no maps.
 */
RAWFRAG_API void rawfrag_machine__set_exiting(struct rawfrag_machine *m, int32_t pid);

/* Resolve addr in process pid for cpumode (PERF_RECORD_MISC_KERNEL/USER/..). */
RAWFRAG_API int rawfrag_machine__resolve(struct rawfrag_machine *m, int32_t pid, int32_t tid,
					 uint64_t addr, uint8_t cpumode,
					 struct rawfrag_frame *fr);

RAWFRAG_API struct rawfrag_callchain *rawfrag_callchain__new(void);
RAWFRAG_API void rawfrag_callchain__delete(struct rawfrag_callchain *cc);

/*
 * The call chain of a sample, at most max_stack frames (0: perf's 127): the
 * kernel's PERF_SAMPLE_CALLCHAIN, then DWARF-unwound user frames when the
 * sample has REGS_USER and STACK_USER. Returns the number of frames (0 when
 * the sample carries neither) or -ENOMEM. Bad data ends the chain early.
 */
RAWFRAG_API int rawfrag_callchain__resolve(struct rawfrag_callchain *cc,
					   struct rawfrag_machine *m,
					   const struct rawfrag_sample *s,
					   const struct perf_event_attr *attr,
					   uint32_t max_stack);

/* perf's name of register idx (PERF_REG_*) for arch ("x86_64", ...); NULL if unknown. */
RAWFRAG_API const char *rawfrag_regs__name(const char *arch, unsigned int idx);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_MACHINE_H */
