// SPDX-License-Identifier: GPL-2.0
/*
 * sigprocmask() for libunwind without the kernel.
 *
 * libunwind blocks every signal around each use of its cache of unwind
 * rules, so that a signal handler that unwinds in the same thread cannot
 * deadlock on the cache's lock: two system calls per frame, a quarter of a
 * --call-graph dwarf report, and with report -j the threads' calls contend
 * on the process's signal lock. perf rawfrag never unwinds in a signal
 * handler, so its calls are answered here: the mask is left as it is (the
 * old mask given back is never applied, as libunwind only restores it with
 * a call that comes here too). Every other caller gets the real call.
 *
 * The command exports this symbol (the Makefile's --export-dynamic-symbol),
 * so libunwind's shared object binds to it; the library itself (used in
 * perf or Python) interposes nothing.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* the text of libunwind's objects, found at the first call */
struct span {
	uintptr_t lo, hi;
};

/* written once under pthread_once(), which orders it before every reader */
static struct span unw[4];
static int nr_unw;

static int find_unwind(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');

	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libunwind", 9))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nr_unw < (int)(sizeof(unw) / sizeof(unw[0])); i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			unw[nr_unw++] = (struct span){ info->dlpi_addr + ph->p_vaddr,
						       info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
	}
	return 0;
}

static bool from_unwind(uintptr_t ra)
{
	for (int i = 0; i < nr_unw; i++)
		if (ra >= unw[i].lo && ra < unw[i].hi)
			return true;
	return false;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_once(void)
{
	dl_iterate_phdr(find_unwind, NULL);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err;

	pthread_once(&once, find_once);
	if (from_unwind((uintptr_t)__builtin_return_address(0))) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
