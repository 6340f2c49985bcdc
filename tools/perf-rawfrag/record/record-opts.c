// SPDX-License-Identifier: GPL-2.0
/*
 * The values of perf record's options that take more than a number:
 * --call-graph, --user-regs / --intr-regs and -k, with perf record's syntax and
 * defaults, so a perf user's command line means the same here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "record-opts.h"

#define DWARF_DEFAULT_STACK 8192
#define DWARF_MAX_STACK 65528 /* perf: a u16 record size, rounded down to 8 */

static int opt_err(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "perf rawfrag record: %s: '%s': %s\n", opt, arg, why);
	return -EINVAL;
}

int record_opts__call_graph(struct record_opts *o, const char *arg)
{
	char *end;
	unsigned long long sz;

	o->callchain = true;
	o->cg_stack_size = 0;
	if (!strcmp(arg, "fp")) {
		o->cg_mode = RF_CG_FP;
		return 0;
	}
	if (!strcmp(arg, "lbr")) {
		o->cg_mode = RF_CG_LBR;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return opt_err("--call-graph", arg, "expected fp, dwarf[,SIZE] or lbr");
	o->cg_mode = RF_CG_DWARF;
	o->cg_stack_size = DWARF_DEFAULT_STACK;
	if (!arg[5])
		return 0;
	errno = 0;
	sz = strtoull(arg + 6, &end, 0);
	if (errno || end == arg + 6 || *end || !sz || sz > DWARF_MAX_STACK)
		return opt_err("--call-graph", arg, "stack dump size must be 1..65528 bytes");
	/* perf rounds the size up to a multiple of 8, as the kernel wants */
	o->cg_stack_size = (sz + 7) & ~7ULL;
	return 0;
}

#ifdef __x86_64__
#include <asm/perf_regs.h>

#define REG(n) { #n, 1ULL << PERF_REG_X86_##n }
static const struct { const char *name; uint64_t mask; } regs[] = {
	REG(AX), REG(BX), REG(CX), REG(DX), REG(SI), REG(DI), REG(BP), REG(SP),
	REG(IP), REG(FLAGS), REG(CS), REG(SS), REG(R8), REG(R9), REG(R10), REG(R11),
	REG(R12), REG(R13), REG(R14), REG(R15),
};
#undef REG
/* perf's PERF_REGS_MASK: segment registers DS..GS are not sampled */
#define REGS_DEFAULT (((1ULL << PERF_REG_X86_64_MAX) - 1) & \
		      ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
			(1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
#else
static const struct { const char *name; uint64_t mask; } regs[1];
#define REGS_DEFAULT 0ULL
#endif

#define NR_REGS (REGS_DEFAULT ? sizeof(regs) / sizeof(regs[0]) : 0)

int record_opts__regs(uint64_t *mask, const char *arg, const char *opt, bool intr)
{
	char *s, *save = NULL, *t;
	int err = 0;

	if (!REGS_DEFAULT) {
		fprintf(stderr, "perf rawfrag record: %s: no register names for this architecture\n",
			opt);
		return -EOPNOTSUPP;
	}
	if (!arg) {
		*mask = REGS_DEFAULT;
		return 0;
	}
	if (!strcmp(arg, "?")) {
		printf("available registers:");
		for (size_t i = 0; i < NR_REGS; i++)
			printf(" %s", regs[i].name);
		printf("\n");
		return 1;
	}
	s = strdup(arg);
	if (!s)
		return -ENOMEM;
	*mask = 0;
	for (t = strtok_r(s, ", ", &save); t && !err; t = strtok_r(NULL, ", ", &save)) {
		size_t i;

		for (i = 0; i < NR_REGS && strcasecmp(t, regs[i].name); i++)
			;
		if (i == NR_REGS)
			err = opt_err(opt, t, "unknown register (see '=?' for the list)");
		else
			*mask |= regs[i].mask;
	}
	free(s);
	if (!err && !*mask)
		err = opt_err(opt, arg, "no register named");
	return err;
}

static const struct { const char *name; int id; } clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI }, { "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "real", CLOCK_REALTIME }, { "boot", CLOCK_BOOTTIME },
};

int record_opts__clockid(struct record_opts *o, const char *arg)
{
	const char *n = arg;
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (!errno && end != arg && !*end && v >= 0 && v < 64) {
		o->clock_set = true;
		o->clockid = (int)v;
		return 0;
	}
	if (!strncasecmp(n, "CLOCK_", 6))
		n += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(n, clocks[i].name)) {
			o->clock_set = true;
			o->clockid = clocks[i].id;
			return 0;
		}
	}
	return opt_err("-k", arg, "unknown clock (monotonic, monotonic_raw, realtime, boottime, tai)");
}

/*
 * perf record's default ring: what kernel.perf_event_mlock_kb allows per cpu
 * less the control page, rounded down to a power of two (516 KiB: 128 pages).
 */
unsigned int record_opts__default_pages(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned long pages;
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "r");
	int max = 0;

	if (!f || fscanf(f, "%d", &max) != 1)
		max = 512 + psz / 1024; /* perf's fallback: 512 KiB of data */
	if (f)
		fclose(f);
	max -= psz / 1024;
	pages = max > 0 ? (unsigned long)max * 1024 / psz : 1;
	if (!pages)
		pages = 1;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages > (1u << 20) ? 1u << 20 : (unsigned int)pages;
}

int record_opts__realtime(struct record_opts *o, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = arg ? strtol(arg, &end, 0) : 0;
	if (arg && (errno || end == arg || *end || v < 0 || v > 99))
		return opt_err("-r", arg, "SCHED_FIFO priority must be 0..99 (0: normal scheduling)");
	o->realtime_set = true;
	o->realtime_prio = (int)v;
	return 0;
}

int record_opts__threads(struct record_opts *o, const char *arg)
{
	static const char *const specs[] = { "cpu", "core", "package", "numa" };

	if (!arg) {
		o->threads = RF_THREADS_CPU;
		return 0;
	}
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (!strcmp(arg, specs[i])) {
			o->threads = RF_THREADS_CPU + i;
			return 0;
		}
	}
	/* perf's user masks ("0-3/0:4-7/4"): not here yet, say so rather than guess */
	return opt_err("--threads", arg, strchr(arg, '/') || strchr(arg, ':') || isdigit((unsigned char)arg[0]) ?
		       "user-defined masks are not supported (cpu, core, package or numa)" :
		       "unknown spec (cpu, core, package or numa)");
}
