// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Inlined functions at a DWARF-unwound frame, as perf 6.1 finds them: an
 * addr2line process per DSO ("addr2line -e FILE -i -f"), asked for the
 * address in the file's own terms and then for "," so that its "??" / "??:0"
 * answer marks the end. The first record names the innermost function; a
 * first record without a file ("??:0") means no line information, and then
 * the frame stays as it is. Answers are cached per DSO and address.
 *
 * Most answers come from the file's DWARF read in process (inline_dw.c),
 * computed as addr2line computes them; the process is started only for the
 * addresses that code leaves to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libiberty/demangle.h>

#include "internal/machine.h"

#define MAX_INLINE_NEST 1024 /* perf's */
#define NR_CACHE 4096
#define MAX_CHAIN 8 /* answers a bucket keeps: the cache is bounded per DSO */

struct a2l_entry {
	uint64_t addr;
	char **names; /* innermost first; NULL: no line information */
	int nr;
	uint64_t used; /* the last chain whose frames point at names */
	struct a2l_entry *next;
};

struct rf_a2l {
	char *path;
	struct rf_dwinl *dw;
	struct rf_dwshare *share; /* report -j: the file's DWARF, opened once for all */
	bool dw_tried, started;
	pid_t pid;
	FILE *to, *from;
	bool dead;
	struct a2l_entry *cache[NR_CACHE];
};

extern char **environ;

static void a2l_start(struct rf_a2l *a)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	char *argv[] = { "addr2line", "-e", a->path, "-i", "-f", NULL };

	a->started = true;
	a->dead = true;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		goto out;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (!posix_spawnp(&a->pid, "addr2line", &fa, NULL, argv, environ)) {
		a->to = fdopen(in[1], "w");
		a->from = fdopen(out[0], "r");
		if (a->to && a->from) {
			in[1] = out[0] = -1;
			a->dead = false;
		}
	}
	posix_spawn_file_actions_destroy(&fa);
out:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0 && !(i == 1 && a->to))
			close(in[i]);
		if (out[i] >= 0 && !(i == 0 && a->from))
			close(out[i]);
	}
}

static void entry_free(struct a2l_entry *e)
{
	for (int k = 0; k < e->nr; k++)
		free(e->names[k]);
	free(e->names);
	free(e);
}

/*
 * Past MAX_CHAIN a bucket drops its least recent answers, except those the
 * chain being built points at (they live until the next one).
 */
static void trim(struct a2l_entry **head, uint64_t serial)
{
	struct a2l_entry **pp = head, *e;
	int n = 0;

	while ((e = *pp)) {
		if (++n > MAX_CHAIN && e->used != serial) {
			*pp = e->next;
			entry_free(e);
			continue;
		}
		pp = &e->next;
	}
}

void rf_a2l__free(struct rf_a2l *a)
{
	if (!a)
		return;
	if (a->to)
		fclose(a->to);
	if (a->from)
		fclose(a->from);
	if (a->pid > 0) {
		kill(a->pid, SIGTERM);
		waitpid(a->pid, NULL, 0);
	}
	rf_dwinl__free(a->dw);
	rf_dwshare__put(a->share);
	free(a->path);
	for (int i = 0; i < NR_CACHE; i++) {
		for (struct a2l_entry *e = a->cache[i], *n; e; e = n) {
			n = e->next;
			entry_free(e);
		}
	}
	free(a);
}

/* one "function\nfile:line\n" record: 1 genuine, 0 "??:0" (none or the end), -1 error */
static int a2l_record(struct rf_a2l *a, char **func)
{
	char fn[4096], file[4096];
	size_t l;

	if (!fgets(fn, sizeof(fn), a->from) || !fgets(file, sizeof(file), a->from))
		return -1;
	file[strcspn(file, "\n")] = 0;
	if (!strcmp(file, "??:0") || !strchr(file, ':'))
		return 0;
	l = strcspn(fn, "\n");
	while (l && (fn[l - 1] == ' ' || fn[l - 1] == '\t' || fn[l - 1] == '\r'))
		l--;
	fn[l] = 0;
	*func = rf_demangle_dup(fn);
	return *func ? 1 : -1;
}

char *rf_demangle_dup(const char *name)
{
	char *s = NULL;

	if (rf_is_mangled(name, strlen(name)))
		s = cplus_demangle(name, DMGL_NO_OPTS);
	return s ? s : strdup(name);
}

static int a2l_ask(struct rf_a2l *a, uint64_t addr, struct a2l_entry *e)
{
	char *f = NULL;
	int st;

	if (fprintf(a->to, "%016llx\n,\n", (unsigned long long)addr) < 0 || fflush(a->to))
		return -1;
	st = a2l_record(a, &f);
	if (st < 0)
		return -1;
	if (st == 0) /* no line information: the "," answer follows */
		return a2l_record(a, &f) < 0 ? -1 : (free(f), 0);
	do {
		char **v;

		if (e->nr >= MAX_INLINE_NEST) {
			free(f);
			continue;
		}
		v = realloc(e->names, (size_t)(e->nr + 1) * sizeof(*v));
		if (!v) {
			free(f);
			return -1;
		}
		e->names = v;
		e->names[e->nr++] = f;
		f = NULL;
	} while ((st = a2l_record(a, &f)) == 1);
	return st < 0 ? -1 : 0;
}

/*
 * The functions at file address addr of path (innermost first) in *names,
 * valid while serial is the chain being built; their number, 0 when there
 * is no line information or no addr2line.
 */
int rf_a2l__inlines(struct rf_a2l **ap, struct rf_symstore *store, const char *path,
		    uint64_t addr, uint64_t serial, char ***names)
{
	struct rf_a2l *a = *ap;
	struct a2l_entry *e, **head, **pp;
	int n;

	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || !(a->path = strdup(path))) {
			free(a);
			return 0;
		}
		if (store)
			a->share = rf_symstore__dwinl(store, path);
		*ap = a;
	}
	head = &a->cache[(addr ^ (addr >> 12)) % NR_CACHE];
	for (pp = head; (e = *pp); pp = &e->next)
		if (e->addr == addr)
			break;
	if (e && pp != head) { /* most recent first */
		*pp = e->next;
		e->next = *head;
		*head = e;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return 0;
		e->addr = addr;
		if (!a->share && !a->dw_tried) {
			a->dw_tried = true;
			a->dw = rf_dwinl__open(a->path);
		}
		n = a->share ? rf_dwshare__lookup(a->share, addr, &e->names) :
			       rf_dwinl__lookup(a->dw, addr, &e->names);
		e->nr = n > 0 ? n : 0;
		if (n < 0 && !a->started)
			a2l_start(a);
		if (n < 0 && (a->dead || a2l_ask(a, addr, e))) {
			a->dead = true; /* out of step or gone: no more questions */
			for (int k = 0; k < e->nr; k++)
				free(e->names[k]);
			free(e->names);
			e->names = NULL;
			e->nr = 0;
		}
		e->next = *head;
		*head = e;
		e->used = serial;
		trim(head, serial);
	}
	e->used = serial;
	*names = e->names;
	return e->nr;
}
