// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The machine: perf's symbol rules (one symbol per address chosen by size,
 * binding, leading underscores, name length; sizeless symbols ending at the
 * next one, kallsyms ones at a page when they end a kernel or module run),
 * maps cut by newer maps with the file offset of the part kept, FORK copying
 * a process's maps, PERF_CONTEXT_* markers in chains, register names. The
 * expected values are worked out by hand from those rules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <cmocka.h>

#include <rawfrag/machine.h>
#include "internal/machine.h"
#include "fixture.h"

enum { LOCAL = 0, GLOBAL = 1, WEAK = 2 };

static void add(struct rf_dso *d, uint64_t start, uint64_t len, int bind, const char *name)
{
	assert_int_equal(rf_dso__add_sym(d, start, len, (uint8_t)bind, name, strlen(name)), 0);
}

static const char *at(const struct rf_dso *d, uint64_t a)
{
	const struct rf_sym *s = rf_dso__find(d, a);

	return s ? rf_dso__sym_name(d, s) : NULL;
}

static void dso_free(struct rf_dso *d)
{
	free(d->syms);
	free(d->strs);
}

static void test_alias_choice(void **state)
{
	struct rf_dso d = { 0 };

	/* libc's getppid: weak loses, then equal underscores, the longer name wins */
	add(&d, 0x100, 8, LOCAL, "__getppid");
	add(&d, 0x100, 8, LOCAL, "__GI___getppid");
	add(&d, 0x100, 8, WEAK, "getppid");
	/* a sized symbol beats a sizeless one, global beats local */
	add(&d, 0x200, 0, GLOBAL, "nosize");
	add(&d, 0x200, 16, LOCAL, "sized");
	add(&d, 0x300, 4, LOCAL, "loc");
	add(&d, 0x300, 4, GLOBAL, "glob");
	/* fewer leading underscores win over length */
	add(&d, 0x400, 4, GLOBAL, "__long_name");
	add(&d, 0x400, 4, GLOBAL, "short");
	rf_dso__finish_syms(&d, false);
	assert_int_equal(d.nr_syms, 4);
	assert_string_equal(at(&d, 0x104), "__GI___getppid");
	assert_string_equal(at(&d, 0x208), "sized");
	assert_string_equal(at(&d, 0x300), "glob");
	assert_string_equal(at(&d, 0x401), "short");
	dso_free(&d);
}

static void test_kallsyms_order(void **state)
{
	struct rf_dso d = { 0 };

	/*
	 * Ends are fixed before aliases are reduced: the last of three sizeless
	 * aliases is the only one that gets a size, so it wins.
	 */
	add(&d, 0x1000, 0, LOCAL, "__do_sys_getppid");
	add(&d, 0x1000, 0, GLOBAL, "__ia32_sys_getppid");
	add(&d, 0x1000, 0, GLOBAL, "__x64_sys_getppid");
	add(&d, 0x1040, 0, GLOBAL, "next");
	/* a kernel symbol followed by a module one ends at the next page + 4096 */
	add(&d, 0x2010, 0, GLOBAL, "last_kernel");
	add(&d, 0x9000, 0, GLOBAL, "mod_fn\t[mod]");
	rf_dso__finish_syms(&d, true);
	assert_string_equal(at(&d, 0x1020), "__x64_sys_getppid");
	assert_string_equal(at(&d, 0x1040), "next");
	assert_string_equal(at(&d, 0x2fff), "last_kernel");
	assert_string_equal(at(&d, 0x3fff), "last_kernel");
	assert_null(at(&d, 0x4000));
	/* the last symbol: rounded up to its page, plus a page */
	assert_string_equal(at(&d, 0x9fff), "mod_fn\t[mod]");
	assert_null(at(&d, 0xa000));
	dso_free(&d);
}

/*
 * Symbols that come in ascending runs (kallsyms: the kernel, then a module or
 * two) are merged through a buffer the size of the shorter side; more than 16
 * runs are sorted whole. Either way the order is by start, then by arrival.
 */
static void check_sorted_runs(const size_t *lens, int nr)
{
	struct rf_dso d = { 0 };
	uint64_t sum_in = 0, sum_out = 0;
	size_t total = 0;
	char name[64];

	/* run r holds starts r, r + nr, r + 2nr, ...: every run spans the others */
	for (int r = 0; r < nr; r++)
		for (size_t i = 0; i < lens[r]; i++) {
			uint64_t start = 0x1000 + 16 * ((uint64_t)r + (uint64_t)nr * i);

			/* a tie with the next run's first start, where there is one */
			if (i == 1 && r + 1 < nr && lens[r + 1])
				start = 0x1000 + 16 * (uint64_t)(r + 1);
			snprintf(name, sizeof(name), "r%d_%zu", r, i);
			add(&d, start, 0, GLOBAL, name);
			sum_in += start;
			total++;
		}
	rf_dso__sort_syms(&d);
	assert_int_equal(d.nr_syms, total);
	for (size_t i = 0; i < d.nr_syms; i++) {
		sum_out += d.syms[i].start;
		if (i && d.syms[i - 1].start == d.syms[i].start)
			/* equal starts in arrival order: name offsets grow with it */
			assert_true(d.syms[i - 1].name < d.syms[i].name);
		else if (i)
			assert_true(d.syms[i - 1].start < d.syms[i].start);
	}
	assert_true(sum_in == sum_out);
	dso_free(&d);
}

static void test_sort_runs(void **state)
{
	const size_t kallsyms[] = { 5000, 1 }, two[] = { 300, 300 }, front[] = { 3, 900 },
		     five[] = { 10, 200, 1, 50, 7 };
	size_t many[17];

	check_sorted_runs(kallsyms, 2);
	check_sorted_runs(two, 2);
	check_sorted_runs(front, 2);
	check_sorted_runs(five, 5);
	for (int i = 0; i < 17; i++)
		many[i] = 20 + (size_t)i;
	check_sorted_runs(many, 17);
}

static void test_find_bounds(void **state)
{
	struct rf_dso d = { 0 };

	add(&d, 0x100, 0x10, GLOBAL, "a");
	add(&d, 0x200, 0x100, GLOBAL, "outer");
	add(&d, 0x220, 0x10, GLOBAL, "inner");
	rf_dso__finish_syms(&d, false);
	assert_string_equal(at(&d, 0x100), "a");
	assert_string_equal(at(&d, 0x10f), "a");
	assert_null(at(&d, 0x110)); /* end excluded */
	assert_null(at(&d, 0xff));
	assert_string_equal(at(&d, 0x225), "inner");
	assert_string_equal(at(&d, 0x240), "outer"); /* past inner, inside outer */
	dso_free(&d);
}

/* an MMAP2 record of pid (user mode) */
static size_t mmap2(uint8_t *buf, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *file)
{
	struct perf_event_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0 };
	size_t n = 72 + ((strlen(file) + 8) & ~7UL);

	memset(buf, 0, n);
	h.size = (uint16_t)n;
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &pid, 4);
	memcpy(buf + 16, &start, 8);
	memcpy(buf + 24, &len, 8);
	memcpy(buf + 32, &pgoff, 8);
	strcpy((char *)buf + 72, file);
	buf[64] = 5; /* prot: PROT_READ | PROT_EXEC */
	return n;
}

static void feed(struct rawfrag_machine *m, const uint8_t *buf)
{
	struct rawfrag_record rec = { 0 };
	const struct perf_event_header *h = (const void *)buf;

	rec.type = h->type;
	rec.misc = h->misc;
	rec.size = h->size;
	rec.data = buf;
	assert_int_equal(rawfrag_machine__process_record(m, &rec, false), 0);
}

static struct rawfrag_machine *new_machine(void)
{
	RAWFRAG_OPTS(rawfrag_machine_opts, o, .symfs = "/nonexistent", .kallsyms = "/dev/null",
		     .buildid_dir = "/nonexistent");
	struct rawfrag_machine *m = rawfrag_machine__new(NULL, &o);

	assert_non_null(m);
	return m;
}

static void where(struct rawfrag_machine *m, int32_t pid, uint64_t a, const char *dso,
		  uint64_t ip)
{
	struct rawfrag_frame fr;

	assert_int_equal(rawfrag_machine__resolve(m, pid, pid, a, PERF_RECORD_MISC_USER, &fr), 0);
	if (!dso) {
		assert_null(fr.dso);
		return;
	}
	assert_non_null(fr.dso);
	assert_string_equal(fr.dso, dso);
	assert_int_equal(fr.ip, ip);
}

static void test_maps_cut_and_fork(void **state)
{
	struct rawfrag_machine *m = new_machine();
	uint8_t buf[256];
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} fork = { { PERF_RECORD_FORK, 0, sizeof(fork) }, 2, 1, 2, 1, 0 };

	mmap2(buf, 1, 0x10000, 0x4000, 0x1000, "/a");
	feed(m, buf);
	mmap2(buf, 1, 0x11000, 0x1000, 0, "/b");
	feed(m, buf);
	/* /a keeps [0x10000,0x11000) at offset 0x1000 and [0x12000,0x14000) at 0x3000 */
	where(m, 1, 0x10800, "/a", 0x1800);
	where(m, 1, 0x11800, "/b", 0x800);
	where(m, 1, 0x12800, "/a", 0x3800);
	where(m, 1, 0x14000, NULL, 0);
	where(m, 2, 0x11800, NULL, 0);
	feed(m, (const uint8_t *)&fork);
	where(m, 2, 0x11800, "/b", 0x800);
	/* executable anonymous memory: perf's JIT map name, addresses as they are */
	mmap2(buf, 1, 0x20000, 0x1000, 0, "//anon");
	feed(m, buf);
	where(m, 1, 0x20010, "/tmp/perf-1.map", 0x20010);
	/* not executable: its own name */
	mmap2(buf, 1, 0x30000, 0x1000, 0, "//anon");
	buf[64] = 3; /* PROT_READ | PROT_WRITE */
	feed(m, buf);
	where(m, 1, 0x30010, "//anon", 0x30010);
	rawfrag_machine__delete(m);
}

static void test_chain_contexts(void **state)
{
	struct rawfrag_machine *m = new_machine();
	struct rawfrag_callchain *cc = rawfrag_callchain__new();
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_CALLCHAIN };
	uint64_t ips[] = { (uint64_t)PERF_CONTEXT_USER, 0x10800, 0x11800 };
	uint64_t bad[] = { (uint64_t)PERF_CONTEXT_USER, 0x10800, (uint64_t)PERF_CONTEXT_GUEST,
			   0x11800 };
	struct rawfrag_sample s = { .sample_type = PERF_SAMPLE_CALLCHAIN, .pid = 1, .tid = 1,
				    .callchain_nr = 3, .callchain = ips };
	uint8_t buf[256];

	mmap2(buf, 1, 0x10000, 0x4000, 0, "/a");
	feed(m, buf);
	assert_int_equal(rawfrag_callchain__resolve(cc, m, &s, &attr, 0), 2);
	assert_int_equal(cc->frames[0].ip, 0x800);
	assert_int_equal(cc->frames[1].ip, 0x1800);
	assert_int_equal(cc->frames[1].cpumode, PERF_RECORD_MISC_USER);
	/* --max-stack counts frames, not context markers */
	assert_int_equal(rawfrag_callchain__resolve(cc, m, &s, &attr, 1), 1);
	/* a context perf does not know drops the whole chain */
	s.callchain = bad;
	s.callchain_nr = 4;
	assert_int_equal(rawfrag_callchain__resolve(cc, m, &s, &attr, 0), 0);
	rawfrag_callchain__delete(cc);
	rawfrag_machine__delete(m);
}

/*
 * Each frame in the maps of its context only (perf's thread__find_map): the
 * kernel's address in the user part (stale frame-pointer data on a user
 * stack) has no map, a user address in the kernel part neither.
 */
static void test_chain_context_maps(void **state)
{
	struct rawfrag_machine *m = new_machine();
	struct rawfrag_callchain *cc = rawfrag_callchain__new();
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_CALLCHAIN };
	const uint64_t k = 0xffffffff81000100ULL;
	uint64_t ips[] = { (uint64_t)PERF_CONTEXT_KERNEL, k, 0x10800, (uint64_t)PERF_CONTEXT_USER,
			   0x10800, k };
	struct rawfrag_sample s = { .sample_type = PERF_SAMPLE_CALLCHAIN, .pid = 1, .tid = 1,
				    .callchain_nr = 6, .callchain = ips };
	struct rawfrag_frame fr;
	uint8_t buf[256];

	mmap2(buf, 1, 0x10000, 0x4000, 0, "/a");
	feed(m, buf);
	mmap2(buf, -1, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
	      "[kernel.kallsyms]_text");
	((struct perf_event_header *)buf)->misc = PERF_RECORD_MISC_KERNEL;
	feed(m, buf);
	assert_int_equal(rawfrag_callchain__resolve(cc, m, &s, &attr, 0), 4);
	assert_non_null(cc->frames[0].dso);
	assert_string_equal(cc->frames[0].dso, "[kernel.kallsyms]");
	assert_null(cc->frames[1].dso);
	assert_string_equal(cc->frames[2].dso, "/a");
	assert_null(cc->frames[3].dso);
	assert_null(cc->frames[3].sym);
	assert_int_equal(cc->frames[3].ip, k);
	/* a sample's own ip: its header's cpumode decides the same way */
	assert_int_equal(rawfrag_machine__resolve(m, 1, 1, k, PERF_RECORD_MISC_USER, &fr), 0);
	assert_null(fr.dso);
	assert_int_equal(rawfrag_machine__resolve(m, 1, 1, k, PERF_RECORD_MISC_KERNEL, &fr), 0);
	assert_non_null(fr.dso);
	rawfrag_callchain__delete(cc);
	rawfrag_machine__delete(m);
}

static void test_reg_names(void **state)
{
	assert_string_equal(rawfrag_regs__name("x86_64", 0), "AX");
	assert_string_equal(rawfrag_regs__name("x86_64", 8), "IP");
	assert_string_equal(rawfrag_regs__name("x86_64", 23), "R15");
	assert_string_equal(rawfrag_regs__name("x86_64", 32), "XMM0");
	assert_string_equal(rawfrag_regs__name("x86_64", 33), "XMM0");
	assert_string_equal(rawfrag_regs__name("x86_64", 63), "XMM15");
	assert_null(rawfrag_regs__name("x86_64", 24));
	assert_null(rawfrag_regs__name("s390x", 0));
}

static void test_opts_past_last_field(void **state)
{
	struct {
		struct rawfrag_machine_opts o;
		uint64_t future;
	} big = { .o = { .sz = sizeof(big) }, .future = 1 };

	errno = 0;
	assert_null(rawfrag_machine__new(NULL, &big.o));
	assert_int_equal(errno, EINVAL);
}


/*
 * ---- kallsyms relocated to the recorded _text ----
 * A file recorded on another boot (KASLR) says where _text was in its kernel
 * MMAP's pgoff; the kallsyms read now has the running _text. Every kernel
 * address of the file must resolve to the symbol and offset it had there, for a
 * recorded _text above and below the running one (a sign error in the shift
 * goes unseen with a shift of 0, which is all a same-boot recording gives).
 */

#define KTEXT 0xffffffff81000000ULL

/* a kernel-side MMAP as perf writes it: pid -1, kernel cpumode */
static void kmmap(struct rawfrag_machine *m, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *file)
{
	uint8_t buf[128] = { 0 };
	struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 0 };
	int32_t pid = -1;
	size_t n = 40 + ((strlen(file) + 8) & ~7UL);

	h.size = (uint16_t)n;
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &pid, 4);
	memcpy(buf + 16, &start, 8);
	memcpy(buf + 24, &len, 8);
	memcpy(buf + 32, &pgoff, 8);
	strcpy((char *)buf + 40, file);
	feed(m, buf);
}

/* the kernel's: "[kernel.kallsyms]_text", pgoff = _text */
static void kernel_mmap(struct rawfrag_machine *m, uint64_t text)
{
	kmmap(m, text, ~0ULL - text, text, "[kernel.kallsyms]_text");
}

static struct rawfrag_machine *kernel_machine(const char *kallsyms, uint64_t text)
{
	RAWFRAG_OPTS(rawfrag_machine_opts, o, .symfs = "/nonexistent", .kallsyms = kallsyms,
		     .buildid_dir = "/nonexistent");
	struct rawfrag_machine *m = rawfrag_machine__new(NULL, &o);

	assert_non_null(m);
	kernel_mmap(m, text);
	return m;
}

static bool kresolve(struct rawfrag_machine *m, uint64_t a, struct rawfrag_frame *fr)
{
	assert_int_equal(rawfrag_machine__resolve(m, -1, -1, a, PERF_RECORD_MISC_KERNEL, fr), 0);
	return fr->sym != NULL;
}

static const int64_t shifts[] = { 0x200000, -0x200000, 0x1000, -0x1000, 0 };

static void test_kallsyms_reloc(void **state)
{
	static const struct {
		uint64_t off;
		const char *type, *name;
	} syms[] = {
		/* _text loses the one-symbol-per-address choice, as on this kernel */
		{ 0x0, "T", "srso_alias_untrain_ret" },
		{ 0x0, "T", "_stext" },
		{ 0x0, "T", "_text" },
		{ 0x0, "T", "__pi__text" },
		{ 0x1000, "T", "alpha" },
		{ 0x1800, "t", "beta" },
		{ 0x3000, "W", "gamma" },
		{ 0x5000, "D", "delta" },
	};
	static const uint64_t offs[] = { 0, 1, 0x10, 0x7ff };
	const char *path = fx_tmpfile("kallsyms");
	FILE *f = fopen(path, "w");
	int checked = 0;

	assert_non_null(f);
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		fprintf(f, "%016llx %s %s\n", (unsigned long long)(KTEXT + syms[i].off), syms[i].type,
			syms[i].name);
	assert_int_equal(fclose(f), 0);
	for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
		uint64_t text = KTEXT + (uint64_t)shifts[s];
		struct rawfrag_machine *m = kernel_machine(path, text);

		for (size_t i = 4; i < sizeof(syms) / sizeof(syms[0]); i++) {
			for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]); j++) {
				struct rawfrag_frame fr;
				uint64_t a = text + syms[i].off + offs[j];

				if (!kresolve(m, a, &fr))
					fail_msg("shift %+lld: %#llx (%s+%#llx): no symbol",
						 (long long)shifts[s], (unsigned long long)a,
						 syms[i].name, (unsigned long long)offs[j]);
				if (strcmp(fr.sym, syms[i].name) || fr.symoff != offs[j])
					fail_msg("shift %+lld: %#llx: expected %s+%#llx, got %s+%#llx",
						 (long long)shifts[s], (unsigned long long)a,
						 syms[i].name, (unsigned long long)offs[j], fr.sym,
						 (unsigned long long)fr.symoff);
				assert_non_null(fr.dso);
				assert_string_equal(fr.dso, "[kernel.kallsyms]");
				checked++;
			}
		}
		rawfrag_machine__delete(m);
	}
	unlink(path);
	assert_int_equal(checked, 5 * 4 * 4);
}

/* kallsyms with _text at KTEXT, alpha, beta and two symbols of [mymod] at mod */
static void write_kallsyms(const char *path, uint64_t mod)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "%016llx T _text\n%016llx T alpha\n%016llx t beta\n",
		(unsigned long long)KTEXT, (unsigned long long)KTEXT + 0x1000,
		(unsigned long long)KTEXT + 0x1800);
	fprintf(f, "%016llx t modfn\t[mymod]\n%016llx t modfn2\t[mymod]\n",
		(unsigned long long)mod + 0x1000, (unsigned long long)mod + 0x1400);
	assert_int_equal(fclose(f), 0);
}

/*
 * report -j: kallsyms read once for all machines of a store. The second
 * machine reads no file (it is gone by then), shares the first's kernel
 * symbols, and spreads the module lines over its own module maps; both
 * resolve what one machine alone resolves, relocated to the same _text.
 */
static void test_kallsyms_shared(void **state)
{
	const char *path = fx_tmpfile("kallsyms");
	struct rf_symstore *st = rf_symstore__new();
	struct rawfrag_machine *m[3];
	struct rf_dso *k[3];
	const uint64_t text = KTEXT + 0x200000, mod = 0xffffffffc0000000ULL;

	assert_non_null(st);
	write_kallsyms(path, mod);
	for (int i = 0; i < 3; i++) {
		m[i] = kernel_machine(path, text);
		kmmap(m[i], mod, 0x10000, 0, "/lib/modules/6.1.0/extra/mymod.ko");
		if (i < 2)
			rf_machine__set_symstore(m[i], st);
	}
	for (int i = 0; i < 3; i++) {
		struct rawfrag_frame fr;

		assert_true(kresolve(m[i], text + 0x1810, &fr));
		assert_string_equal(fr.sym, "beta");
		assert_int_equal(fr.symoff, 0x10);
		assert_true(kresolve(m[i], mod + 0x1404, &fr));
		assert_string_equal(fr.sym, "modfn2");
		assert_int_equal(fr.symoff, 4);
		assert_string_equal(fr.dso, "[mymod]");
		/* the first machine read the file; the one without the store reads it too */
		if (i == 0)
			assert_int_equal(unlink(path), 0);
		if (i == 1)
			write_kallsyms(path, mod);
	}
	/* one copy of the kernel's symbols for the store's machines */
	for (int i = 0; i < 3; i++) {
		uint64_t ip;
		const struct rf_sym *sym;

		k[i] = rf_machine__frame_sym(m[i], -1, text + 0x1810, PERF_RECORD_MISC_KERNEL, &ip,
					     &sym);
		assert_non_null(k[i]);
		assert_non_null(sym);
	}
	assert_ptr_equal(k[0]->syms, k[1]->syms);
	assert_ptr_not_equal(k[0]->syms, k[2]->syms);
	for (int i = 0; i < 3; i++)
		rawfrag_machine__delete(m[i]);
	rf_symstore__delete(st);
	unlink(path);
}

/* the running kernel's /proc/kallsyms: the same symbol at every shift, as unshifted */
static void test_kallsyms_reloc_running(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t text = 0, addrs[512];
	unsigned long long a;
	char line[512], t, name[256];
	int n = 0, nr = 0, same = 0;

	if (!f)
		skip();
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3 || strchr(line, '['))
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		/* text symbols spread over the kernel: every 97th */
		if ((t == 'T' || t == 't') && a && nr < 512 && n++ % 97 == 0)
			addrs[nr++] = a + (uint64_t)(n % 64);
	}
	fclose(f);
	if (!text || nr < 16)
		skip(); /* addresses hidden (kptr_restrict, not root) */
	struct rawfrag_machine *ref = kernel_machine("/proc/kallsyms", text);

	for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
		struct rawfrag_machine *m = kernel_machine("/proc/kallsyms", text + (uint64_t)shifts[s]);

		for (int i = 0; i < nr; i++) {
			struct rawfrag_frame want, got;

			if (!kresolve(ref, addrs[i], &want))
				continue;
			if (!kresolve(m, addrs[i] + (uint64_t)shifts[s], &got) ||
			    strcmp(got.sym, want.sym) || got.symoff != want.symoff)
				fail_msg("shift %+lld: %#llx: expected %s+%#llx, got %s+%#llx",
					 (long long)shifts[s], (unsigned long long)addrs[i], want.sym,
					 (unsigned long long)want.symoff,
					 got.sym ? got.sym : "(none)", (unsigned long long)got.symoff);
			same++;
		}
		rawfrag_machine__delete(m);
	}
	rawfrag_machine__delete(ref);
	print_message("# %d running-kernel addresses resolved alike at %zu shifts\n", same / 5,
		      sizeof(shifts) / sizeof(shifts[0]));
	assert_true(same > 5 * nr / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_choice),
		cmocka_unit_test(test_kallsyms_order),
		cmocka_unit_test(test_sort_runs),
		cmocka_unit_test(test_find_bounds),
		cmocka_unit_test(test_maps_cut_and_fork),
		cmocka_unit_test(test_chain_contexts),
		cmocka_unit_test(test_chain_context_maps),
		cmocka_unit_test(test_reg_names),
		cmocka_unit_test(test_opts_past_last_field),
		cmocka_unit_test(test_kallsyms_reloc),
		cmocka_unit_test(test_kallsyms_shared),
		cmocka_unit_test(test_kallsyms_reloc_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
