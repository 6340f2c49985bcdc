// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorded machine as perf's machine.c builds it from the records:
 * per-process maps from MMAP/MMAP2 (a new map cuts what it overlaps, FORK of
 * a new process copies its parent's maps), the kernel map from the
 * "[kernel.kallsyms]_text" MMAP (its pgoff is the recorded _text, the
 * relocation reference), module maps, KSYMBOL (BPF) maps, [vdso] and
 * /tmp/perf-PID.map for anonymous maps. Addresses resolve to perf script's
 * (ip, sym+off, dso).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "internal/machine.h"
#include "internal/mapinfo.h"
#include "internal/opts.h"

#define NR_PROC_HASH 1024
#define MISC_BUILD_ID_SIZE (1 << 15) /* perf's PERF_RECORD_MISC_BUILD_ID_SIZE */

struct rf_proc {
	int32_t pid;
	struct rf_maps maps;
	struct rf_proc *next;
};

struct rf_bid {
	char *name;
	uint8_t bid[20], size;
};

struct rawfrag_machine {
	rawfrag_print_fn_t print;
	void *print_ctx;
	char *symfs, *kallsyms, *vmlinux, *buildid_dir;
	struct rf_proc *procs[NR_PROC_HASH];
	struct rf_maps kmaps;
	struct rf_dso *dsos;
	struct rf_bid *bids;
	int nr_bids;
	struct rf_dso *kernel;
	uint64_t ref_text; /* recorded _text, 0 if unknown */
	int vdso_fd;
	char vdso_path[64];
	void *unw_state;
	char **refused; /* paths already warned about (symfile.c), owned */
	int nr_refused;
	bool no_inline;
	uint32_t last_map_id; /* perf's map objects, numbered (rawfrag_frame.map_id) */
	uint64_t last_gen; /* every maps change takes the next: a gen names one content */
	uint32_t nr_dsos; /* DSOs made */
	int32_t exiting_pid; /* whose maps pid -1 has (rawfrag_machine__set_exiting) */
	struct rf_symstore *store; /* not owned */
};

bool rf_machine__inline(const struct rawfrag_machine *m)
{
	return !m->no_inline;
}

struct rf_dso *rf_machine__frame_dso(struct rawfrag_machine *m, int32_t pid, uint64_t addr,
				     uint64_t *map_ip)
{
	struct rf_maps *ms = rf_machine__maps(m, pid);
	struct rf_map *map = ms ? rf_maps__find(ms, addr) : NULL;

	if (!map || map->identity)
		return NULL;
	*map_ip = addr - map->start + map->pgoff;
	return map->dso;
}

int rf_machine__map_info(struct rawfrag_machine *m, int32_t pid, uint8_t cpumode, uint64_t addr,
			 struct rf_map_info *mi)
{
	struct rf_maps *ms = NULL;
	struct rf_map *map;

	if (cpumode == PERF_RECORD_MISC_USER)
		ms = rf_machine__maps(m, pid);
	else if (cpumode == PERF_RECORD_MISC_KERNEL)
		ms = &m->kmaps;
	map = ms ? rf_maps__find(ms, addr) : NULL;
	if (!map)
		return -ENOENT;
	*mi = (struct rf_map_info){ .start = map->start, .end = map->end, .pgoff = map->pgoff,
				    .name = map->dso->name, .bid = map->dso->bid,
				    .bid_size = map->dso->bid_size, .dso = map->dso,
				    .kernel = map->dso->kind == RF_DSO_KERNEL ||
					      map->dso->kind == RF_DSO_MODULE };
	return 0;
}

void **rf_machine__unw_state(struct rawfrag_machine *m)
{
	return &m->unw_state;
}

const char *rf_machine__symfs(const struct rawfrag_machine *m)
{
	return m->symfs ? m->symfs : "";
}

const char *rf_machine__buildid_dir(const struct rawfrag_machine *m)
{
	return m->buildid_dir;
}

static void call_print(const struct rawfrag_machine *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	m->print(RAWFRAG_WARN, m->print_ctx, fmt, ap);
	va_end(ap);
}

void rf_machine__set_symstore(struct rawfrag_machine *m, struct rf_symstore *st)
{
	m->store = st;
}

struct rf_symstore *rf_machine__symstore(const struct rawfrag_machine *m)
{
	return m->store;
}

void rf_machine__say(const struct rawfrag_machine *m, const char *text)
{
	size_t n = strlen(text);

	if (!m->print)
		return;
	/* the print function ends a line itself unless the format does */
	if (n && text[n - 1] == '\n')
		call_print(m, "%.*s\n", (int)(n - 1), text);
	else
		call_print(m, "%s", text);
}

void rf_machine__set_print(struct rawfrag_machine *m, rawfrag_print_fn_t print, void *ctx)
{
	m->print = print;
	m->print_ctx = ctx;
}

void rf_machine__get_print(const struct rawfrag_machine *m, rawfrag_print_fn_t *print,
			   void **ctx)
{
	*print = m->print;
	*ctx = m->print_ctx;
}

void rf_machine__warn(const struct rawfrag_machine *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!m->print)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	call_print(m, "rawfrag: %s\n", msg);
}

bool rf_machine__first_refusal(struct rawfrag_machine *m, const char *path)
{
	char **v, *dup;

	for (int i = 0; i < m->nr_refused; i++)
		if (!strcmp(m->refused[i], path))
			return false;
	/* without memory the warning may repeat, which is harmless */
	v = realloc(m->refused, (size_t)(m->nr_refused + 1) * sizeof(*v));
	if (!v)
		return true;
	m->refused = v;
	dup = strdup(path);
	if (dup)
		m->refused[m->nr_refused++] = dup;
	return true;
}

/* ---- maps ---- */

struct rf_map *rf_maps__find(struct rf_maps *ms, uint64_t addr)
{
	int lo = 0, hi = ms->nr, k = ms->hint;

	/*
	 * A chain's frames come from a few maps, one after another: try the
	 * last one found first. It is the search's answer when it holds addr
	 * and the next map starts above addr.
	 */
	if (k < ms->nr && ms->v[k].start <= addr && addr < ms->v[k].end &&
	    (k + 1 == ms->nr || ms->v[k + 1].start > addr))
		return &ms->v[k];
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (ms->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < ms->v[lo - 1].end) {
		ms->hint = lo - 1;
		return &ms->v[lo - 1];
	}
	return NULL;
}

static int maps_room(struct rf_maps *ms, int more)
{
	if (ms->nr + more > ms->cap) {
		int cap = ms->cap ? 2 * ms->cap : 16;
		struct rf_map *v;

		while (cap < ms->nr + more)
			cap *= 2;
		v = realloc(ms->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ms->v = v;
		ms->cap = cap;
	}
	return 0;
}

/*
 * insert a new map made of nm; what it overlaps is cut away (perf's
 * maps__fixup_overlappings: the pieces left are new maps too)
 */
static int maps_insert(struct rawfrag_machine *m, struct rf_maps *ms, const struct rf_map *map)
{
	struct rf_map left = { 0 }, right = { 0 }, n = *map, *nm = &n;
	int i = 0, j, nl = 0, nr = 0, add;

	if (nm->end <= nm->start || maps_room(ms, 3))
		return nm->end <= nm->start ? 0 : -ENOMEM;
	nm->id = ++m->last_map_id;
	while (i < ms->nr && ms->v[i].end <= nm->start)
		i++;
	j = i;
	while (j < ms->nr && ms->v[j].start < nm->end)
		j++;
	/* [i, j) overlap nm */
	if (j > i && ms->v[i].start < nm->start) {
		left = ms->v[i];
		left.end = nm->start;
		left.id = ++m->last_map_id;
		nl = 1;
	}
	if (j > i && ms->v[j - 1].end > nm->end) {
		right = ms->v[j - 1];
		right.pgoff += nm->end - right.start;
		right.start = nm->end;
		right.id = ++m->last_map_id;
		nr = 1;
	}
	add = nl + 1 + nr;
	ms->gen = ++m->last_gen;
	memmove(&ms->v[i + add], &ms->v[j], (size_t)(ms->nr - j) * sizeof(*ms->v));
	ms->nr += add - (j - i);
	if (nl)
		ms->v[i++] = left;
	ms->v[i++] = *nm;
	if (nr)
		ms->v[i] = right;
	return 0;
}

static void maps_remove(struct rawfrag_machine *m, struct rf_maps *ms, uint64_t start)
{
	for (int i = 0; i < ms->nr; i++) {
		if (ms->v[i].start == start) {
			ms->gen = ++m->last_gen;
			memmove(&ms->v[i], &ms->v[i + 1], (size_t)(ms->nr - i - 1) * sizeof(*ms->v));
			ms->nr--;
			return;
		}
	}
}

/* ---- processes ---- */

static struct rf_proc *proc_find(struct rawfrag_machine *m, int32_t pid, bool create)
{
	struct rf_proc **pp = &m->procs[(uint32_t)pid % NR_PROC_HASH], *p;

	for (p = *pp; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->next = *pp;
	*pp = p;
	return p;
}

void rawfrag_machine__set_exiting(struct rawfrag_machine *m, int32_t pid)
{
	m->exiting_pid = pid;
}

/*
 * What pid's user maps and the kernel's hold, as two generations: a frame's
 * map, DSO and symbol depend on nothing else, so a caller may keep what it
 * resolved while both stay the same. A process with no maps yet is gen 0,
 * as an empty one is.
 */
uint64_t rf_machine__maps_gen(struct rawfrag_machine *m, int32_t pid, uint64_t *kgen)
{
	struct rf_maps *ms = rf_machine__maps(m, pid);

	*kgen = m->kmaps.gen;
	return ms ? ms->gen : 0;
}

struct rf_maps *rf_machine__maps(struct rawfrag_machine *m, int32_t pid)
{
	struct rf_proc *p;

	if (pid == -1)
		pid = m->exiting_pid;
	p = proc_find(m, pid, false);

	return p ? &p->maps : NULL;
}

/* ---- DSOs ---- */

static const uint8_t *bid_of(struct rawfrag_machine *m, const char *name, uint8_t *size)
{
	for (int i = 0; i < m->nr_bids; i++)
		if (!strcmp(m->bids[i].name, name)) {
			*size = m->bids[i].size;
			return m->bids[i].bid;
		}
	return NULL;
}

static struct rf_dso *dso_findnew(struct rawfrag_machine *m, const char *name, const char *path,
				  enum rf_dso_kind kind, const uint8_t *bid, uint8_t bid_size)
{
	struct rf_dso *d;

	if (!bid)
		bid = bid_of(m, name, &bid_size);
	for (d = m->dsos; d; d = d->next)
		if (d->kind == kind && !strcmp(d->name, name) &&
		    (!bid || (d->bid_size == bid_size && !memcmp(d->bid, bid, bid_size))))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	d->path = strdup(path ? path : name);
	if (!d->name || !d->path) {
		rf_dso__free(d);
		return NULL;
	}
	d->kind = kind;
	/*
	 * perf makes a DSO for each entry of the build-id table as it reads the
	 * header, the others as the maps come: where they lie in its memory,
	 * what its call graphs order equal branches by, follows
	 */
	d->order = (1u << 24) + ++m->nr_dsos;
	for (int i = 0; i < m->nr_bids; i++)
		if (!strcmp(m->bids[i].name, d->name) || !strcmp(m->bids[i].name, d->path)) {
			d->order = (uint32_t)i + 1;
			break;
		}
	if (bid && bid_size <= 20) {
		memcpy(d->bid, bid, bid_size);
		d->bid_size = bid_size;
	}
	d->next = m->dsos;
	m->dsos = d;
	return d;
}

/* our own [vdso], the one this kernel maps (perf copies its own the same way) */
static const char *vdso_path(struct rawfrag_machine *m)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	uint64_t shoff;
	uint16_t shnum, shentsize;
	size_t size;

	if (m->vdso_fd >= 0)
		return m->vdso_path;
	if (!base || memcmp(base, "\177ELF", 4) || base[4] != 2 /* ELFCLASS64 */)
		return NULL;
	memcpy(&shoff, base + 0x28, 8);
	memcpy(&shentsize, base + 0x3a, 2);
	memcpy(&shnum, base + 0x3c, 2);
	size = shoff + (size_t)shnum * shentsize;
	if (size > (1 << 20))
		return NULL;
	m->vdso_fd = memfd_create("rawfrag-vdso", MFD_CLOEXEC);
	if (m->vdso_fd < 0)
		return NULL;
	if (write(m->vdso_fd, base, size) != (ssize_t)size) {
		close(m->vdso_fd);
		m->vdso_fd = -1;
		return NULL;
	}
	snprintf(m->vdso_path, sizeof(m->vdso_path), "/proc/self/fd/%d", m->vdso_fd);
	return m->vdso_path;
}

static bool is_anon(const char *f)
{
	return !strncmp(f, "//anon", 6) || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14);
}

static bool is_no_dso(const char *f)
{
	return !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

/* ---- records ---- */

static int user_mmap(struct rawfrag_machine *m, int32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *file, const uint8_t *bid, uint8_t bid_size,
		     bool exec)
{
	struct rf_proc *p = proc_find(m, pid, true);
	struct rf_map map = { .start = start, .end = start + len, .pgoff = pgoff };
	char name[64];

	if (!p)
		return -ENOMEM;
	/* perf's map__new(): executable anonymous memory is JIT code of perf-PID.map */
	if ((is_anon(file) || is_no_dso(file)) && exec) {
		snprintf(name, sizeof(name), "/tmp/perf-%d.map", pid);
		map.dso = dso_findnew(m, name, NULL, RF_DSO_PERFMAP, NULL, 0);
		map.identity = true;
	} else if (!strcmp(file, "[vdso]")) {
		const char *path = vdso_path(m);

		map.dso = dso_findnew(m, file, path ? path : "", RF_DSO_VDSO, bid, bid_size);
	} else {
		map.dso = dso_findnew(m, file, NULL, RF_DSO_USER, bid, bid_size);
		map.identity = is_no_dso(file) || is_anon(file);
		if (map.identity || file[0] == '[')
			map.dso->loaded = true; /* no file behind it */
	}
	if (!map.dso)
		return -ENOMEM;
	return maps_insert(m, &p->maps, &map);
}

/* "[name]" of a module path: basename up to the first '.', '-' as '_' */
static void module_name(const char *file, char *out, size_t len)
{
	const char *b = strrchr(file, '/');
	size_t n = 0;

	b = b ? b + 1 : file;
	out[n++] = '[';
	for (; *b && *b != '.' && n + 2 < len; b++)
		out[n++] = *b == '-' ? '_' : *b;
	out[n++] = ']';
	out[n] = 0;
}

static int kernel_mmap(struct rawfrag_machine *m, uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *file)
{
	struct rf_map map = { .start = start, .end = start + len, .identity = true };
	char name[128];

	if (!strncmp(file, "[kernel.kallsyms]", 17)) {
		if (!strcmp(file + 17, "_text") && pgoff)
			m->ref_text = pgoff;
		for (int i = 0; i < m->kmaps.nr; i++)
			if (m->kmaps.v[i].dso == m->kernel)
				maps_remove(m, &m->kmaps, m->kmaps.v[i--].start);
		map.dso = m->kernel;
		if (!len)
			map.end = UINT64_MAX;
		return maps_insert(m, &m->kmaps, &map);
	}
	if (file[0] != '/' && file[0] != '[')
		return 0;
	module_name(file, name, sizeof(name));
	map.dso = dso_findnew(m, name, file, RF_DSO_MODULE, NULL, 0);
	if (!map.dso)
		return -ENOMEM;
	/* its symbols come from kallsyms, with the kernel's (dso_load) */
	return maps_insert(m, &m->kmaps, &map);
}

static const char *rec_str(const struct rawfrag_record *rec, uint32_t off)
{
	const char *s = (const char *)rec->data + off;

	if (rec->size <= off || !memchr(s, 0, rec->size - off))
		return NULL;
	return s;
}

static int do_mmap(struct rawfrag_machine *m, const struct rawfrag_record *rec, bool swap)
{
	const uint8_t *p = rec->data;
	bool two = rec->type == PERF_RECORD_MMAP2;
	uint32_t noff = two ? 72 : 40;
	const char *file = rec_str(rec, noff);
	int32_t pid = (int32_t)rawfrag__get32(p + 8, swap);
	uint64_t start = rawfrag__get64(p + 16, swap), len = rawfrag__get64(p + 24, swap);
	uint64_t pgoff = rawfrag__get64(p + 32, swap);
	uint8_t cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const uint8_t *bid = NULL;
	uint8_t bsize = 0;
	bool exec;

	if (!file || start + len < start)
		return 0;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return kernel_mmap(m, start, len, pgoff, file);
	if (cpumode != PERF_RECORD_MISC_USER)
		return 0; /* guests are not followed */
	if (two && (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && p[40] <= 20) {
		bid = p + 44;
		bsize = p[40];
	}
	/* MMAP has no prot: executable unless flagged as data */
	exec = two ? !!(rawfrag__get32(p + 64, swap) & 4 /* PROT_EXEC */) :
		     !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	return user_mmap(m, pid, start, len, pgoff, file, bid, bsize, exec);
}

static int do_fork(struct rawfrag_machine *m, const struct rawfrag_record *rec, bool swap)
{
	const uint8_t *p = rec->data;
	int32_t pid, ppid;
	struct rf_proc *child, *parent;

	if (rec->size < 24)
		return 0;
	pid = (int32_t)rawfrag__get32(p + 8, swap);
	ppid = (int32_t)rawfrag__get32(p + 12, swap);
	if (pid == ppid)
		return 0; /* a thread: shares its process's maps */
	parent = proc_find(m, ppid, false);
	child = proc_find(m, pid, true);
	if (!child)
		return -ENOMEM;
	child->maps.nr = 0;
	child->maps.gen = ++m->last_gen;
	child->maps.flush_gen++;
	if (!parent || !parent->maps.nr)
		return 0;
	if (maps_room(&child->maps, parent->maps.nr))
		return -ENOMEM;
	memcpy(child->maps.v, parent->maps.v, (size_t)parent->maps.nr * sizeof(*child->maps.v));
	child->maps.nr = parent->maps.nr;
	/* perf's maps__clone(): the child's maps are new objects */
	for (int i = 0; i < child->maps.nr; i++)
		child->maps.v[i].id = ++m->last_map_id;
	return 0;
}

static int do_ksymbol(struct rawfrag_machine *m, const struct rawfrag_record *rec, bool swap)
{
	const uint8_t *p = rec->data;
	const char *name = rec_str(rec, 24);
	uint64_t addr;
	uint32_t len;
	struct rf_map map = { 0 };

	if (!name || rec->size < 24)
		return 0;
	addr = rawfrag__get64(p + 8, swap);
	len = rawfrag__get32(p + 16, swap);
	if (rawfrag__get16(p + 22, swap) & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		maps_remove(m, &m->kmaps, addr);
		return 0;
	}
	if (rf_maps__find(&m->kmaps, addr) && rf_maps__find(&m->kmaps, addr)->dso != m->kernel)
		return 0;
	map.dso = dso_findnew(m, name, NULL, RF_DSO_BPF, NULL, 0);
	if (!map.dso)
		return -ENOMEM;
	if (!map.dso->loaded) {
		map.dso->loaded = true;
		if (rf_dso__add_sym(map.dso, 0, len, 1, name, strlen(name)))
			return -ENOMEM;
		rf_dso__finish_syms(map.dso, false);
	}
	map.start = addr;
	map.end = addr + len;
	return maps_insert(m, &m->kmaps, &map);
}

static int add_bid(struct rawfrag_machine *m, const uint8_t *p, uint64_t avail, bool swap,
		   uint16_t *esz_out);

int rawfrag_machine__process_record(struct rawfrag_machine *m, const struct rawfrag_record *rec,
				    bool swap)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		return rec->size >= 41 ? do_mmap(m, rec, swap) : 0;
	case PERF_RECORD_MMAP2:
		return rec->size >= 73 ? do_mmap(m, rec, swap) : 0;
	case PERF_RECORD_FORK:
		return do_fork(m, rec, swap);
	case PERF_RECORD_COMM:
		if ((rec->misc & PERF_RECORD_MISC_COMM_EXEC) && rec->size >= 16) {
			struct rf_proc *p = proc_find(m, (int32_t)rawfrag__get32(
						(const uint8_t *)rec->data + 8, swap), false);

			if (p)
				p->maps.flush_gen++;
		}
		return 0;
	case PERF_RECORD_KSYMBOL:
		return do_ksymbol(m, rec, swap);
	case RAWFRAG_RECORD_HEADER_BUILD_ID: {
		uint16_t esz;
		int ret = add_bid(m, rec->data, rec->size, swap, &esz);

		return ret == -ENOMEM ? ret : 0;
	}
	default:
		return 0;
	}
}

/* ---- kernel symbols ---- */

/* the running kernel's build-id: the GNU note in /sys/kernel/notes (raw notes) */
static int host_build_id(uint8_t bid[20])
{
	uint8_t buf[4096];
	FILE *f = fopen("/sys/kernel/notes", "re");
	size_t n, off = 0;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (namesz > n || descsz > n)
			break;
		desc_at = name_at + ((namesz + 3) & ~3u);
		if (desc_at + descsz > n)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4)) {
			n = descsz > 20 ? 20 : descsz;
			memcpy(bid, buf + desc_at, n);
			return (int)n;
		}
		off = desc_at + ((descsz + 3) & ~3u);
	}
	return -1;
}

static bool kernel_bid_is_host(const struct rf_dso *k)
{
	uint8_t bid[20];
	int n = host_build_id(bid);

	return n == k->bid_size && !memcmp(bid, k->bid, (size_t)n);
}

/* perf's dso__find_kallsyms(): --kallsyms, the running one, the build-id cache */
static const char *kallsyms_path(struct rawfrag_machine *m, char *buf, size_t len)
{
	struct rf_dso *k = m->kernel;
	char hex[41];
	struct stat st;

	if (m->kallsyms)
		return m->kallsyms;
	/* perf: no local kernel files when a symfs was given */
	if (m->symfs && m->symfs[0])
		return NULL;
	if (!k->bid_size || kernel_bid_is_host(k))
		return "/proc/kallsyms";
	for (int i = 0; i < k->bid_size; i++)
		sprintf(hex + 2 * i, "%02x", k->bid[i]);
	snprintf(buf, len, "%s/[kernel.kallsyms]/%s/kallsyms", m->buildid_dir, hex);
	if (!stat(buf, &st))
		return buf;
	rf_machine__warn(m, "No kallsyms or vmlinux with build-id %s was found", hex);
	return NULL;
}

static uint8_t kallsyms_bind(char t)
{
	if (t == 'W')
		return 2;
	return isupper((unsigned char)t) ? 1 : 0;
}

/* a hex digit's value plus one, 0: not a hex digit */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
};

/* one "ADDR T name[\tmodule]" line of kallsyms (perf's kallsyms__parse) */
static int kallsyms_line(struct rf_dso *all, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t a = 0;
	char t;

	/* a digit per table load: 100k+ lines of 16 digits */
	for (; p < end && hex1[(unsigned char)*p]; p++)
		a = a << 4 | (uint64_t)(hex1[(unsigned char)*p] - 1);
	if (p == line || end - p < 4 || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	t = p[1];
	p += 3;
	if (p[0] == '$' || !strchr("TWDB", toupper((unsigned char)t)))
		return 0;
	return rf_dso__add_sym(all, a, 0, kallsyms_bind(t), p, (size_t)(end - p));
}

/*
 * Read in large blocks: /proc/kallsyms is 100k+ lines. A cached copy is a
 * file the recording points at (its build-id): a regular one, and at most
 * RF_KALLSYMS_CAP bytes read (/proc's size is 0, so the cap counts reads).
 * -EPERM and -EFBIG come with their warning.
 */
static int kallsyms_read(struct rawfrag_machine *m, struct rf_dso *all, const char *path)
{
	int fd = rf_symfile__open(m, path, RF_KALLSYMS_CAP), ret = 0;
	size_t cap = 1 << 18, have = 0;
	uint64_t total = 0;
	char *buf = malloc(cap);
	ssize_t n;

	/*
	 * Room for a distribution kernel's table at once (untouched pages cost
	 * nothing): doubling from small copied megabytes, each copy faulting in
	 * fresh pages. A failure here only means growing as usual.
	 */
	if (fd >= 0)
		rf_dso__reserve(all, RF_KALLSYMS_SYMS, RF_KALLSYMS_SYMS * 32);
	if (fd < 0 || !buf) {
		ret = fd < 0 ? fd : -ENOMEM;
		goto out;
	}
	while (!ret && (n = read(fd, buf + have, cap - have)) > 0) {
		char *p = buf, *nl;

		total += (uint64_t)n;
		if (total > RF_KALLSYMS_CAP) {
			rf_symfile__refuse(m, path, "more than the kallsyms cap of 128 MiB");
			ret = -EFBIG;
			break;
		}
		have += (size_t)n;
		while (!ret && (nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			ret = kallsyms_line(all, p, (size_t)(nl - p));
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == cap)
			have = 0; /* a line longer than the buffer: dropped */
	}
	if (!ret && have)
		ret = kallsyms_line(all, buf, have);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

static struct rf_dso *module_dso(struct rawfrag_machine *m, const char *name)
{
	for (int i = 0; i < m->kmaps.nr; i++)
		if (m->kmaps.v[i].dso->kind == RF_DSO_MODULE && !strcmp(m->kmaps.v[i].dso->name, name))
			return m->kmaps.v[i].dso;
	return NULL;
}

/*
 * The running _text, looked for before the one-symbol-per-address choice: that
 * can drop it for an alias (_stext, __pi__text ... share its address), and the
 * symbols would then keep the running addresses. 0 when there is none.
 */
static uint64_t kallsyms_text(const struct rf_dso *all)
{
	for (size_t i = 0; i < all->nr_syms; i++) {
		const char *n = rf_dso__sym_name(all, &all->syms[i]);

		if (n[0] == '_' && n[1] == 't' && !strcmp(n, "_text"))
			return all->syms[i].start;
	}
	return 0;
}

/*
 * Kernel symbols relocated to the recorded _text; module ones to their maps.
 * The kernel takes all's arrays, compacted in place, when it has none yet: a
 * copy of 100k+ symbols and their names faulted megabytes in a second time
 * (a third of a small report's time on a virtual machine).
 */
static int kallsyms_split(struct rawfrag_machine *m, struct rf_dso *all, uint64_t text)
{
	struct rf_dso *k = m->kernel;
	uint64_t delta = text && m->ref_text ? text - m->ref_text : 0;
	bool take = !k->nr_syms && !k->shared && !k->tree;
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < all->nr_syms && !ret; i++) {
		struct rf_sym s = all->syms[i];
		const char *nm = rf_dso__sym_name(all, &s), *tab = strchr(nm, '\t');
		struct rf_dso *d = k;

		if (tab) {
			d = module_dso(m, tab + 1);
			if (!d)
				continue;
			ret = rf_dso__add_sym(d, s.start, s.end - s.start, s.bind, nm,
					      (size_t)(tab - nm));
			continue;
		}
		/* the first bytes first: a libc call per kernel symbol showed in a profile */
		if (nm[0] == '_' && nm[1] == '_' && !strcmp(nm, "__entry_SYSCALL_64_trampoline"))
			continue; /* perf drops it */
		if (take) {
			s.start -= delta;
			s.end -= delta;
			all->syms[n++] = s; /* n <= i: what is read is never overwritten first */
			continue;
		}
		ret = rf_dso__add_sym(d, s.start - delta, s.end - s.start, s.bind, nm, strlen(nm));
	}
	if (take && !ret) {
		free(k->syms);
		free(k->strs);
		k->syms = all->syms;
		k->nr_syms = n;
		k->cap_syms = all->cap_syms;
		k->strs = all->strs;
		k->strs_len = all->strs_len;
		k->strs_cap = all->strs_cap;
		all->syms = NULL;
		all->strs = NULL;
		all->nr_syms = all->cap_syms = all->strs_len = all->strs_cap = 0;
	}
	return ret;
}

static int map_cmp(const void *a, const void *b)
{
	const struct rf_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* perf's map__fixup_start/end after kallsyms: the kernel map spans its symbols */
static void kernel_map_fixup(struct rawfrag_machine *m)
{
	struct rf_dso *k = m->kernel;

	if (!k->nr_syms || m->vmlinux)
		return;
	for (int i = 0; i < m->kmaps.nr; i++) {
		if (m->kmaps.v[i].dso != k)
			continue;
		m->kmaps.v[i].start = k->syms[0].start;
		m->kmaps.v[i].end = k->syms[k->nr_syms - 1].end;
	}
	m->kmaps.gen = ++m->last_gen;
	qsort(m->kmaps.v, (size_t)m->kmaps.nr, sizeof(*m->kmaps.v), map_cmp);
}

/* kallsyms' module lines (a name with a tab), copied into mods */
static void kallsyms_modules(const struct rf_dso *all, struct rf_dso *mods)
{
	for (size_t i = 0; i < all->nr_syms; i++) {
		const struct rf_sym *s = &all->syms[i];
		const char *nm = rf_dso__sym_name(all, s);

		/* without memory a module has fewer symbols, as when it has no map */
		if (strchr(nm, '\t') &&
		    rf_dso__add_sym(mods, s->start, s->end - s->start, s->bind, nm, strlen(nm)))
			break;
	}
}

/*
 * The kernel's symbols and its modules' from kallsyms at path; mods (when a
 * store shares them) gets the module lines, which every machine splits over
 * its own modules.
 */
static void kallsyms_load(struct rawfrag_machine *m, const char *path, struct rf_dso *mods)
{
	struct rf_dso all = { 0 };
	int ret = kallsyms_read(m, &all, path);

	if (ret && ret != -EPERM && ret != -EFBIG) { /* those two were warned about */
		rf_machine__warn(m, "%s: cannot read kernel symbols", path);
	} else if (!ret) {
		uint64_t text = kallsyms_text(&all);

		rf_dso__finish_syms(&all, true);
		if (mods)
			kallsyms_modules(&all, mods);
		kallsyms_split(m, &all, text);
	}
	free(all.syms);
	free(all.strs);
	rf_dso__finish_syms(m->kernel, false);
}

/* another machine's kallsyms_load(): its module lines over this machine's modules */
static void kallsyms_split_mods(struct rawfrag_machine *m, struct rf_dso *mods)
{
	kallsyms_split(m, mods, 0);
}

static void load_kernel(struct rawfrag_machine *m)
{
	struct rf_dso *k = m->kernel;
	const char *path;
	char buf[4096];

	k->loaded = true;
	if (m->vmlinux) {
		bool symtab;

		snprintf(buf, sizeof(buf), "%s%s", rf_machine__symfs(m), m->vmlinux);
		if (rf_elf__load_syms(k, buf, NULL, true, 0, &symtab, NULL))
			rf_machine__warn(m, "%s: no symbols read", buf);
		/* relocated to the recorded _text (KASLR), as perf's ref_reloc_sym */
		for (size_t i = 0; i < k->nr_syms && m->ref_text; i++) {
			if (strcmp(rf_dso__sym_name(k, &k->syms[i]), "_text"))
				continue;
			uint64_t delta = m->ref_text - k->syms[i].start;

			for (size_t j = 0; j < k->nr_syms; j++) {
				k->syms[j].start += delta;
				k->syms[j].end += delta;
			}
			break;
		}
		rf_dso__finish_syms(k, false);
		return;
	}
	path = kallsyms_path(m, buf, sizeof(buf));
	if (!path)
		return;
	/* report -j: one worker reads kallsyms, the others take its kernel symbols */
	if (m->store && !k->nr_syms && !k->tree && !k->shared)
		rf_symstore__load_kernel(m->store, m, k, path, m->ref_text, kallsyms_load,
					 kallsyms_split_mods);
	else
		kallsyms_load(m, path, NULL);
	for (int i = 0; i < m->kmaps.nr; i++) {
		if (m->kmaps.v[i].dso->kind != RF_DSO_MODULE)
			continue;
		rf_dso__finish_syms(m->kmaps.v[i].dso, false);
		m->kmaps.v[i].dso->loaded = true;
	}
	kernel_map_fixup(m);
}

/* ---- lookups ---- */

static void dso_load(struct rawfrag_machine *m, struct rf_dso *d)
{
	switch (d->kind) {
	case RF_DSO_KERNEL:
		load_kernel(m);
		break;
	case RF_DSO_MODULE:
		/* a module mapped after the kernel symbols were split has none */
		if (!m->kernel->loaded)
			load_kernel(m);
		d->loaded = true;
		break;
	case RF_DSO_PERFMAP:
		rf_dso__load_perfmap(m, d);
		break;
	default:
		rf_dso__load_user(m, d);
		break;
	}
}

int rawfrag_machine__resolve(struct rawfrag_machine *m, int32_t pid, int32_t tid, uint64_t addr,
			     uint8_t cpumode, struct rawfrag_frame *fr)
{
	struct rf_maps *ms = NULL;
	struct rf_map *found = NULL, *map, copy;
	const struct rf_sym *s;
	struct rf_dso *d;
	uint64_t a;

	*fr = (struct rawfrag_frame){ .addr = addr, .ip = addr, .cpumode = cpumode };
	if (cpumode == PERF_RECORD_MISC_USER)
		ms = rf_machine__maps(m, pid);
	else if (cpumode == PERF_RECORD_MISC_KERNEL)
		ms = &m->kmaps; /* hypervisor and guest addresses have no map in perf */
	/*
	 * Only the maps of the address space cpumode names, as perf's
	 * thread__find_map(): a kernel-range address in user context (stale
	 * frame-pointer data on a user stack) stays [unknown] unless the process
	 * maps it, as [vsyscall].
	 */
	if (ms)
		found = rf_maps__find(ms, addr);
	if (!found)
		return 0;
	/* loading kernel symbols moves the kernel map: this lookup keeps the one found */
	copy = *found;
	map = &copy;
	d = map->dso;
	fr->dso = d->name;
	fr->dso_order = d->order;
	fr->map_id = map->id;
	a = map->identity ? addr : addr - map->start + map->pgoff;
	if (d->kind != RF_DSO_KERNEL && d->kind != RF_DSO_MODULE && d->kind != RF_DSO_BPF)
		fr->ip = a;
	if (!d->loaded)
		dso_load(m, d);
	s = rf_dso__find_cached(d, a);
	if (s) {
		fr->sym = rf_dso__sym_name(d, s);
		fr->symoff = a < s->end ? a - s->start : a - map->start - s->start;
		fr->symlen = s->end - s->start;
		fr->object = s->object;
	}
	return 0;
}

/*
 * The DSO and symbol rawfrag_machine__resolve() found for addr (after it ran:
 * the DSO is loaded), for the export model's dsos and symbols tables. NULL
 * when no map holds addr; *sym NULL when no symbol does.
 */
struct rf_dso *rf_machine__frame_sym(struct rawfrag_machine *m, int32_t pid, uint64_t addr,
				     uint8_t cpumode, uint64_t *map_ip, const struct rf_sym **sym)
{
	struct rf_maps *ms = NULL;
	struct rf_map *map = NULL;

	*sym = NULL;
	if (cpumode == PERF_RECORD_MISC_USER)
		ms = rf_machine__maps(m, pid);
	else if (cpumode == PERF_RECORD_MISC_KERNEL)
		ms = &m->kmaps;
	if (ms)
		map = rf_maps__find(ms, addr);
	if (!map)
		return NULL;
	*map_ip = map->identity ? addr : addr - map->start + map->pgoff;
	if (map->dso->loaded)
		*sym = rf_dso__find_cached(map->dso, *map_ip);
	return map->dso;
}

/* ---- setup ---- */

/*
 * One build_id_event (header, pid, 24 bytes of id, name): an entry of the
 * HEADER_BUILD_ID feature, or a PERF_RECORD_HEADER_BUILD_ID record of a pipe
 * (perf inject -b). A DSO met before its id, whose symbols are not loaded
 * yet, takes it as perf's dso__set_build_id() does. 0, -EINVAL (malformed),
 * -ENOMEM.
 */
static int add_bid(struct rawfrag_machine *m, const uint8_t *p, uint64_t avail, bool swap,
		   uint16_t *esz_out)
{
	uint16_t misc, esz;
	struct rf_bid *b;
	size_t nlen;

	if (avail < 37)
		return -EINVAL;
	misc = rawfrag__get16(p + 4, swap);
	esz = rawfrag__get16(p + 6, swap);
	if (esz < 37 || esz > avail)
		return -EINVAL;
	*esz_out = esz;
	nlen = strnlen((const char *)p + 36, esz - 36);
	b = realloc(m->bids, (size_t)(m->nr_bids + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	m->bids = b;
	b = &m->bids[m->nr_bids];
	b->name = strndup((const char *)p + 36, nlen);
	if (!b->name)
		return -ENOMEM;
	memcpy(b->bid, p + 12, 20);
	b->size = (misc & MISC_BUILD_ID_SIZE) && p[32] <= 20 ? p[32] : 20;
	m->nr_bids++;
	for (struct rf_dso *d = m->dsos; d; d = d->next)
		if (!d->bid_size && !d->loaded && !strcmp(d->name, b->name)) {
			memcpy(d->bid, b->bid, b->size);
			d->bid_size = b->size;
		}
	return 0;
}

/* the HEADER_BUILD_ID feature: build_id_event entries one after the other */
static int read_build_ids(struct rawfrag_machine *m, struct rawfrag_file *f)
{
	bool swap = rawfrag_file__needs_swap(f);
	uint64_t size, off = 0;
	const uint8_t *p = rawfrag_file__feature(f, RAWFRAG_FEAT_BUILD_ID, &size);

	while (p && off + 36 < size) {
		uint16_t esz = 0;
		int ret = add_bid(m, p + off, size - off, swap, &esz);

		if (ret == -EINVAL)
			break;
		if (ret)
			return ret;
		off += esz;
	}
	return 0;
}

static char *dup_opt(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	*fail |= !d;
	return d;
}

struct rawfrag_machine *rawfrag_machine__new(struct rawfrag_file *f,
					     const struct rawfrag_machine_opts *opts)
{
	struct rawfrag_machine *m;
	const char *home = getenv("HOME");
	bool fail = false;

	if (RF_OPTS_CHECK(opts, rawfrag_machine_opts, NULL))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->vdso_fd = -1;
	m->exiting_pid = -1;
	m->print = RAWFRAG_OPTS_GET(opts, print, NULL);
	m->no_inline = RAWFRAG_OPTS_GET(opts, no_inline, false);
	m->print_ctx = RAWFRAG_OPTS_GET(opts, print_ctx, NULL);
	m->symfs = dup_opt(RAWFRAG_OPTS_GET(opts, symfs, NULL), &fail);
	m->kallsyms = dup_opt(RAWFRAG_OPTS_GET(opts, kallsyms, NULL), &fail);
	m->vmlinux = dup_opt(RAWFRAG_OPTS_GET(opts, vmlinux, NULL), &fail);
	if (RAWFRAG_OPTS_GET(opts, buildid_dir, NULL))
		m->buildid_dir = strdup(opts->buildid_dir);
	else if (m->symfs && m->symfs[0]) /* perf: the cache under the symfs */
		fail |= asprintf(&m->buildid_dir, "%s/.debug", m->symfs) < 0;
	else if (asprintf(&m->buildid_dir, "%s/.debug", home ? home : "") < 0)
		m->buildid_dir = NULL;
	fail |= !m->buildid_dir;
	if (!fail && f)
		fail = read_build_ids(m, f) != 0;
	if (!fail) {
		m->kernel = dso_findnew(m, "[kernel.kallsyms]", NULL, RF_DSO_KERNEL, NULL, 0);
		fail = !m->kernel;
	}
	if (!fail) {
		/* until the file's kernel MMAP says where it is */
		struct rf_map km = { .start = 1ULL << 63, .end = UINT64_MAX, .dso = m->kernel,
				     .identity = true };

		fail = maps_insert(m, &m->kmaps, &km) != 0;
	}
	if (fail) {
		rawfrag_machine__delete(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void rawfrag_machine__delete(struct rawfrag_machine *m)
{
	if (!m)
		return;
	for (int i = 0; i < NR_PROC_HASH; i++) {
		for (struct rf_proc *p = m->procs[i], *n; p; p = n) {
			n = p->next;
			free(p->maps.v);
			free(p);
		}
	}
	for (struct rf_dso *d = m->dsos, *n; d; d = n) {
		n = d->next;
		rf_dso__free(d);
	}
	for (int i = 0; i < m->nr_bids; i++)
		free(m->bids[i].name);
	free(m->bids);
	for (int i = 0; i < m->nr_refused; i++)
		free(m->refused[i]);
	free(m->refused);
	free(m->kmaps.v);
	rf_unwind__state_free(m->unw_state);
	if (m->vdso_fd >= 0)
		close(m->vdso_fd);
	free(m->symfs);
	free(m->kallsyms);
	free(m->vmlinux);
	free(m->buildid_dir);
	free(m);
}
