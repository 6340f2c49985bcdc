// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A user DSO's symbols, and the kernel's from kallsyms, loaded once for
 * several machines (report -j: each worker has a machine of its own, and
 * reading a big DSO's symbol table was a third of a -g report; kallsyms took
 * each worker 27 ms and 6 MB). The first machine to need a DSO loads it; the others
 * wait for it and take its symbols, their tree and the messages the load gave,
 * which they say again as if they had loaded it (their warnings are said once
 * in the output). What a load leaves per machine stays per machine: the
 * runtime ELF, the lookup cache, demangled names, inline and unwind state.
 * Symbols, names and tree are not changed after the load, and belong to the
 * entry: the last DSO that lets go of it frees them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/machine.h"

struct rf_symstore_entry {
	struct rf_symstore_entry *next;
	/* the key: what the DSO is before its load (the kernel's: kallsyms' path, _text) */
	enum rf_dso_kind kind;
	char *path;
	uint8_t bid[20];
	uint8_t bid_size;
	uint64_t text;
	int refs; /* the store's and each DSO's */
	bool done;
	/* the load's result */
	struct rf_sym *syms;
	size_t nr_syms;
	char *strs;
	size_t strs_len;
	struct rf_symtree *tree;
	char *symsrc;
	uint8_t bid_out[20];
	uint8_t bid_out_size;
	char **msgs; /* what the loading machine said */
	int nr_msgs;
	struct rf_dso mods; /* the kernel's: kallsyms' module lines, for each machine's modules */
};

#define STORE_HASH 256

/*
 * A file's DWARF for inlined functions, opened once for all machines:
 * opening it inflates its compressed sections (a sixth of a DWARF-unwound
 * report). libdw is not made for threads, so one asks it at a time.
 */
struct rf_dwshare {
	struct rf_dwshare *next;
	char *path;
	pthread_mutex_t mu; /* held while the file is opened and while it is asked */
	struct rf_dwinl *dw;
	bool tried;
	int refs; /* the store's and each machine's that asks it */
};

struct rf_symstore {
	pthread_mutex_t mu;
	pthread_cond_t loaded;
	struct rf_symstore_entry *h[STORE_HASH];
	struct rf_dwshare *dw;
};

struct rf_symstore *rf_symstore__new(void)
{
	struct rf_symstore *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->loaded, NULL);
	return st;
}

static void entry_unref(struct rf_symstore_entry *e)
{
	if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL))
		return;
	free(e->syms);
	free(e->strs);
	rf_symtree__free(e->tree);
	free(e->symsrc);
	for (int i = 0; i < e->nr_msgs; i++)
		free(e->msgs[i]);
	free(e->msgs);
	free(e->mods.syms);
	free(e->mods.strs);
	free(e->path);
	free(e);
}

void rf_dwshare__put(struct rf_dwshare *d)
{
	if (!d || __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL))
		return;
	rf_dwinl__free(d->dw);
	pthread_mutex_destroy(&d->mu);
	free(d->path);
	free(d);
}

struct rf_dwshare *rf_symstore__dwinl(struct rf_symstore *st, const char *path)
{
	struct rf_dwshare *d;

	pthread_mutex_lock(&st->mu);
	for (d = st->dw; d; d = d->next)
		if (!strcmp(d->path, path))
			break;
	if (!d && (d = calloc(1, sizeof(*d)))) {
		if ((d->path = strdup(path))) {
			pthread_mutex_init(&d->mu, NULL);
			d->refs = 1;
			d->next = st->dw;
			st->dw = d;
		} else {
			free(d);
			d = NULL;
		}
	}
	if (d)
		__atomic_add_fetch(&d->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&st->mu);
	return d;
}

int rf_dwshare__lookup(struct rf_dwshare *d, uint64_t addr, char ***names)
{
	int n;

	pthread_mutex_lock(&d->mu);
	if (!d->tried) {
		d->tried = true;
		d->dw = rf_dwinl__open(d->path);
	}
	n = rf_dwinl__lookup(d->dw, addr, names);
	pthread_mutex_unlock(&d->mu);
	return n;
}

void rf_symstore__delete(struct rf_symstore *st)
{
	if (!st)
		return;
	while (st->dw) {
		struct rf_dwshare *d = st->dw;

		st->dw = d->next;
		rf_dwshare__put(d);
	}
	for (int i = 0; i < STORE_HASH; i++) {
		while (st->h[i]) {
			struct rf_symstore_entry *e = st->h[i];

			st->h[i] = e->next;
			entry_unref(e);
		}
	}
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->loaded);
	free(st);
}

static unsigned int hash(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % STORE_HASH;
}

/*
 * d's entry (its symbols read from path; text: the kernel's recorded _text):
 * loaded by another machine (done), or new and ours to load (not done). NULL
 * without memory: d is loaded as without a store.
 */
static struct rf_symstore_entry *claim(struct rf_symstore *st, const struct rf_dso *d,
				       const char *path, uint64_t text)
{
	unsigned int h = hash(path);
	struct rf_symstore_entry *e;

	pthread_mutex_lock(&st->mu);
	for (e = st->h[h]; e; e = e->next)
		if (e->kind == d->kind && e->bid_size == d->bid_size && e->text == text &&
		    !memcmp(e->bid, d->bid, d->bid_size) && !strcmp(e->path, path))
			break;
	if (e) {
		while (!e->done)
			pthread_cond_wait(&st->loaded, &st->mu);
	} else if ((e = calloc(1, sizeof(*e))) && (e->path = strdup(path))) {
		e->kind = d->kind;
		e->bid_size = d->bid_size;
		memcpy(e->bid, d->bid, d->bid_size);
		e->text = text;
		e->refs = 1;
		e->next = st->h[h];
		st->h[h] = e;
	} else {
		free(e);
		e = NULL;
	}
	pthread_mutex_unlock(&st->mu);
	return e;
}

/* the loading machine's messages go to the entry too */
struct tee {
	struct rf_symstore_entry *e;
	rawfrag_print_fn_t print;
	void *ctx;
};

static int tee_print(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	struct tee *t = ctx;
	char buf[1024], **v;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, copy);
	va_end(copy);
	v = n >= 0 ? realloc(t->e->msgs, (t->e->nr_msgs + 1) * sizeof(*v)) : NULL;
	if (v) {
		t->e->msgs = v;
		if ((v[t->e->nr_msgs] = strdup(buf)))
			t->e->nr_msgs++;
	}
	return t->print ? t->print(level, t->ctx, fmt, ap) : n;
}

/* d takes e's symbols (a reference) */
static void adopt(struct rf_dso *d, struct rf_symstore_entry *e)
{
	__atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQ_REL);
	d->shared = e;
	d->syms = e->syms;
	d->nr_syms = d->cap_syms = e->nr_syms;
	d->strs = e->strs;
	d->strs_len = d->strs_cap = e->strs_len;
	d->tree = e->tree;
	d->bid_size = e->bid_out_size;
	memcpy(d->bid, e->bid_out, e->bid_out_size);
	if (e->symsrc)
		d->symsrc = strdup(e->symsrc);
}

/* the loader's messages go to e too while load runs */
static void tee_begin(struct tee *t, struct rf_symstore_entry *e, struct rawfrag_machine *m)
{
	*t = (struct tee){ .e = e };
	rf_machine__get_print(m, &t->print, &t->ctx);
	rf_machine__set_print(m, tee_print, t);
}

static void say_again(struct rf_symstore_entry *e, struct rawfrag_machine *m)
{
	for (int i = 0; i < e->nr_msgs; i++)
		rf_machine__say(m, e->msgs[i]);
}

/* d's symbols, loaded, are e's from now on; the machines waiting for them go on */
static void publish(struct rf_symstore *st, struct rf_symstore_entry *e, struct rf_dso *d)
{
	e->syms = d->syms;
	e->nr_syms = d->nr_syms;
	e->strs = d->strs;
	e->strs_len = d->strs_len;
	e->tree = d->tree;
	e->symsrc = d->symsrc ? strdup(d->symsrc) : NULL;
	e->bid_out_size = d->bid_size;
	memcpy(e->bid_out, d->bid, d->bid_size);
	/* the loader's DSO holds its reference like the others */
	__atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQ_REL);
	d->shared = e;
	pthread_mutex_lock(&st->mu);
	e->done = true;
	pthread_cond_broadcast(&st->loaded);
	pthread_mutex_unlock(&st->mu);
}

void rf_symstore__load_user(struct rf_symstore *st, struct rawfrag_machine *m, struct rf_dso *d,
			    void (*load)(struct rawfrag_machine *m, struct rf_dso *d))
{
	struct rf_symstore_entry *e = claim(st, d, d->path, 0);
	struct tee t;

	if (!e) {
		load(m, d);
		return;
	}
	if (e->done) {
		d->loaded = true;
		rf_dso__elf(m, d); /* the runtime ELF is each machine's */
		adopt(d, e);
		say_again(e, m);
		return;
	}
	tee_begin(&t, e, m);
	load(m, d);
	rf_machine__set_print(m, t.print, t.ctx);
	publish(st, e, d);
}

void rf_symstore__load_kernel(struct rf_symstore *st, struct rawfrag_machine *m, struct rf_dso *k,
			      const char *path, uint64_t text,
			      void (*load)(struct rawfrag_machine *m, const char *path,
					   struct rf_dso *mods),
			      void (*split)(struct rawfrag_machine *m, struct rf_dso *mods))
{
	struct rf_symstore_entry *e = claim(st, k, path, text);
	struct tee t;

	if (!e) {
		load(m, path, NULL);
		return;
	}
	if (e->done) {
		adopt(k, e);
		split(m, &e->mods); /* read only: the kernel has its symbols */
		say_again(e, m);
		return;
	}
	tee_begin(&t, e, m);
	load(m, path, &e->mods);
	rf_machine__set_print(m, t.print, t.ctx);
	publish(st, e, k);
}

void rf_symstore__release(struct rf_symstore_entry *e)
{
	if (e)
		entry_unref(e);
}
