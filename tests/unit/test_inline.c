// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Inline chains read in process (inline_dw.c) against addr2line itself,
 * the oracle perf uses: every address the in-process reader answers must
 * get the same function names, innermost first, as "addr2line -i -f" gives.
 * Inputs: a program built here with nested static inline functions, and
 * libc's separate debug file when this machine has one (libc6-dbg).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <fcntl.h>

#include <cmocka.h>

#include "internal/machine.h"

static char dir[] = "/tmp/test_inline.XXXXXX";

/* the oracle: without binutils' addr2line the checks skip */
static int have_addr2line(void)
{
	return !system("addr2line --version >/dev/null 2>&1");
}

/* the executable sections of path (.plt to .fini): [lo, hi) as file addresses */
static int text_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;
	int ret = -1;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstr)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstr, sh.sh_name)) &&
			    (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
				if (ret || sh.sh_addr < *lo)
					*lo = sh.sh_addr;
				if (ret || sh.sh_addr + sh.sh_size > *hi)
					*hi = sh.sh_addr + sh.sh_size;
				ret = 0;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/* one "function\nfile:line" record: 1 genuine, 0 "??:0", -1 end of input */
static int record(FILE *f, char *fn, size_t len)
{
	char file[4096];
	size_t l;

	if (!fgets(fn, (int)len, f) || !fgets(file, sizeof(file), f))
		return -1;
	l = strcspn(fn, "\n");
	while (l && (fn[l - 1] == ' ' || fn[l - 1] == '\t'))
		l--;
	fn[l] = 0;
	file[strcspn(file, "\n")] = 0;
	return strcmp(file, "??:0") && strchr(file, ':') ? 1 : 0;
}

/*
 * Every stride-th address of .text through both; returns how many the
 * in-process reader answered (each one checked against addr2line).
 */
struct counts {
	int answered, chains, nones, declined;
};

static int compare(const char *path, uint64_t stride, int max, struct counts *ct)
{
	char q[512], a[512], cmd[1400], fn[4096];
	struct rf_dwinl *w = rf_dwinl__open(path);
	uint64_t lo = 0, hi = 0, addr;
	FILE *qf, *af;
	int n = 0;

	assert_non_null(w);
	assert_int_equal(text_range(path, &lo, &hi), 0);
	snprintf(q, sizeof(q), "%s/q", dir);
	snprintf(a, sizeof(a), "%s/a", dir);
	qf = fopen(q, "w");
	assert_non_null(qf);
	for (addr = lo, n = 0; addr < hi && n < max; addr += stride, n++)
		fprintf(qf, "%016llx\n,\n", (unsigned long long)addr);
	fclose(qf);
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' -i -f <'%s' >'%s'", path, q, a);
	assert_int_equal(system(cmd), 0);
	af = fopen(a, "r");
	assert_non_null(af);
	for (addr = lo, n = 0; addr < hi && n < max; addr += stride, n++) {
		char **names = NULL;
		int nr = rf_dwinl__lookup(w, addr, &names), k = 0, st;

		st = record(af, fn, sizeof(fn));
		assert_int_not_equal(st, -1);
		if (st == 0) { /* no information: the "," answer follows */
			assert_int_equal(record(af, fn, sizeof(fn)), 0);
			if (nr > 0)
				fail_msg("%s %#llx: addr2line has nothing, ours %d frames (%s)", path,
					 (unsigned long long)addr, nr, names[0]);
			if (nr == 0)
				ct->nones++;
		} else {
			if (nr == 0)
				fail_msg("%s %#llx: addr2line names '%s', ours nothing", path,
					 (unsigned long long)addr, fn);
			do {
				char *d = rf_demangle_dup(fn);

				if (nr > 0) {
					if (k >= nr || strcmp(d, names[k]))
						fail_msg("%s %#llx: frame %d: addr2line '%s', ours '%s'",
							 path, (unsigned long long)addr, k, d,
							 k < nr ? names[k] : "(none)");
				}
				free(d);
				k++;
			} while ((st = record(af, fn, sizeof(fn))) == 1);
			assert_int_equal(st, 0);
		}
		if (nr > 1)
			ct->chains++;
		if (nr > 0) {
			if (k != nr)
				fail_msg("%s %#llx: addr2line %d frames, ours %d", path,
					 (unsigned long long)addr, k, nr);
			ct->answered++;
		}
		for (int i = 0; i < nr; i++)
			free(names[i]);
		if (nr < 0)
			ct->declined++;
		free(names);
	}
	fclose(af);
	rf_dwinl__free(w);
	printf("# %s: %d addresses: %d named in process (%d inline chains), %d without a name, "
	       "%d left to addr2line; all as addr2line\n", path, n, ct->answered, ct->chains,
	       ct->nones, ct->declined);
	return ct->answered;
}

static const char prog[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"static inline int sq(int x) { return x * x + (x & 3); }\n"
	"static inline int twice(int x) { int s = 0; for (int i = 0; i < x; i++) s += sq(i); return s; }\n"
	"static inline int thrice(int x) { return twice(x) + twice(x + 1) * sq(x); }\n"
	"__attribute__((noinline)) int outer(int x) { return thrice(x) ^ twice(x * 3); }\n"
	"int main(int argc, char **argv) { printf(\"%d\\n\", outer(argc > 1 ? atoi(argv[1]) : 7)); return 0; }\n";

static void build_and_compare(const char *flags, const char *post, int want_chains)
{
	char src[256], bin[256], cmd[1200];
	struct counts ct = { 0 };
	FILE *f;

	if (!have_addr2line())
		skip();
	snprintf(src, sizeof(src), "%s/p.c", dir);
	snprintf(bin, sizeof(bin), "%s/p", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(prog, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -O2 %s -o '%s' '%s' 2>/dev/null && %s '%s'", flags, bin,
		 src, post, bin);
	if (system(cmd))
		skip();
	compare(bin, 1, 100000, &ct);
	assert_true(ct.answered + ct.nones > 0);
	if (want_chains)
		assert_true(ct.chains > 0);
}

/* DWARF with nested inlines: the chains */
static void test_program(void **state)
{
	build_and_compare("-g", "true", 1);
}

/* no DWARF, a .symtab: the symbols as binutils picks them */
static void test_program_nodebug(void **state)
{
	build_and_compare("", "true", 0);
}

/* nothing but .dynsym */
static void test_program_stripped(void **state)
{
	build_and_compare("-g", "strip", 0);
}

/* Debian's own stripped binaries (their debug links lead nowhere here) */
static void test_system_binaries(void **state)
{
	const char *bins[] = { "/usr/bin/ls", "/usr/bin/dd",
			       "/usr/lib/x86_64-linux-gnu/libselinux.so.1" };
	int done = 0;

	if (!have_addr2line())
		skip();
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		struct counts ct = { 0 };

		if (access(bins[i], R_OK))
			continue;
		compare(bins[i], 13, 3000, &ct);
		done++;
	}
	if (!done)
		skip();
}

static void test_libc(void **state)
{
	const char *cands[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6" };
	char dbg[512] = "", cmd[600];
	struct counts ct = { 0 };

	if (!have_addr2line())
		skip();
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && !dbg[0]; i++) {
		FILE *p;
		char bid[128];

		snprintf(cmd, sizeof(cmd),
			 "readelf -n '%s' 2>/dev/null | awk '/Build ID/ { print $3 }'", cands[i]);
		p = popen(cmd, "r");
		if (p && fgets(bid, sizeof(bid), p) && strlen(bid) > 3) {
			bid[strcspn(bid, "\n")] = 0;
			snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid,
				 bid + 2);
			if (access(dbg, R_OK))
				dbg[0] = 0;
		}
		if (p)
			pclose(p);
	}
	if (!dbg[0])
		skip(); /* no libc6-dbg */
	compare(dbg, 97, 4000, &ct);
	assert_true(ct.answered > 0 && ct.chains > 0);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}



/*
 * Demangling as perf's: libiberty in its auto style without parameters or
 * crate hashes (perf's DMGL_NO_OPTS), which is what "c++filt -i -p" prints,
 * for the C++ and Rust (legacy and v0) names of a binary that has them
 */
static void test_demangle(void **state)
{
	static const char *const bins[] = { "/usr/lib/chromium/chrome_crashpad_handler",
					    "/usr/lib/chromium/chromium" };
	char cmd[512], raw[4096], want[4096];
	int rust = 0, cxx = 0;
	FILE *in, *out;
	const char *bin = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]) && !bin; i++)
		if (!access(bins[i], R_OK))
			bin = bins[i];
	if (!bin || system("c++filt --version >/dev/null 2>&1 && nm --version >/dev/null 2>&1")) {
		printf("# SKIP demangle: no Rust-built binary (chromium) or no binutils here\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' | awk '$3 ~ /^_[ZR]/ { print $3 }' "
		 ">'%s/names'; c++filt -i -p <'%s/names' >'%s/want'", bin, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/names", dir);
	in = fopen(cmd, "r");
	snprintf(cmd, sizeof(cmd), "%s/want", dir);
	out = fopen(cmd, "r");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(raw, sizeof(raw), in)) {
		char *got;

		assert_non_null(fgets(want, sizeof(want), out));
		raw[strcspn(raw, "\n")] = 0;
		want[strcspn(want, "\n")] = 0;
		got = rf_demangle_dup(raw);
		assert_non_null(got);
		if (strcmp(got, want))
			fail_msg("%s: ours '%s', c++filt -i -p '%s'", raw, got, want);
		rust += raw[1] == 'R';
		cxx += raw[1] == 'Z';
		free(got);
	}
	fclose(in);
	fclose(out);
	printf("# %s: %d Rust v0 and %d _Z names demangled as c++filt -i -p\n", bin, rust, cxx);
	assert_true(rust > 0);
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_program_nodebug),
		cmocka_unit_test(test_program_stripped),
		cmocka_unit_test(test_system_binaries),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_demangle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
