// SPDX-License-Identifier: GPL-2.0
/*
 * The BUILD_ID feature of `perf rawfrag record` and the build-id cache, as perf
 * record writes them: the kernel, the modules and the DSOs that samples hit
 * (every mapped one with --buildid-all), each as a perf_record_header_build_id
 * entry; the binaries copied into ~/.debug in perf's layout
 * (~/.debug/<path>/<build-id>/elf, kallsyms for the kernel, and the
 * .build-id/xx/yyyy links) so that the file symbolizes on another machine.
 *
 * The maps are tracked while recording (synthesized and kernel MMAP/MMAP2,
 * FORK, COMM exec); a sample marks its DSO by pid and ip. perf instead reads
 * its file again at the end; tracking costs a lookup per user-space sample.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <rawfrag/file.h>
#include <rawfrag/writer.h>

#include "record-bidcache.h"
#include "record-buildid.h"
#include "record-int.h"

#define BID_MAX 20
#define MISC_BUILD_ID_SIZE (1 << 15) /* perf's PERF_RECORD_MISC_BUILD_ID_SIZE */
#define PROC_HASH 4096

struct bid_dso {
	char *name;
	bool hit, kernel, id_done;
	uint8_t id[BID_MAX];
	int id_len; /* 0: no build-id found */
};

struct bid_map {
	uint64_t start, end;
	int dso;
};

struct bid_proc {
	int pid; /* 0 = free slot */
	struct bid_map *maps;
	int nr, cap;
	int last; /* the map of the previous lookup */
};

struct bid {
	struct bid_dso *dsos;
	int nr_dsos;
	struct bid_proc *procs; /* open addressing by pid */
	int nr_procs, cap_procs;
	uint64_t ktext_start, ktext_end;
	struct bid_map *mods; /* kernel modules, dso = index into dsos */
	int nr_mods;
	int kernel_dso;
	bool pipe; /* no feature section: a HEADER_BUILD_ID record per DSO hit */
	struct rawfrag_writer *w;
};

static void mark_hit(struct bid *b, int d);

static int dso_find(struct bid *b, const char *name, bool kernel)
{
	struct bid_dso *n;

	for (int i = b->nr_dsos - 1; i >= 0; i--)
		if (!strcmp(b->dsos[i].name, name))
			return i;
	n = realloc(b->dsos, (b->nr_dsos + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	b->dsos = n;
	memset(&n[b->nr_dsos], 0, sizeof(*n));
	n[b->nr_dsos].name = strdup(name);
	n[b->nr_dsos].kernel = kernel;
	if (!n[b->nr_dsos].name)
		return -ENOMEM;
	return b->nr_dsos++;
}

static struct bid_proc *proc_get(struct bid *b, int pid, bool create)
{
	uint32_t mask, h;

	if (pid <= 0)
		return NULL;
	if (create && (b->nr_procs + 1) * 2 > b->cap_procs) {
		int cap = b->cap_procs ? b->cap_procs * 2 : PROC_HASH;
		struct bid_proc *n = calloc(cap, sizeof(*n)), *old = b->procs;

		if (!n)
			return NULL;
		for (int i = 0; i < b->cap_procs; i++) {
			if (!old[i].pid)
				continue;
			for (h = (uint32_t)old[i].pid * 2654435761u & (cap - 1); n[h].pid;
			     h = (h + 1) & (cap - 1))
				;
			n[h] = old[i];
		}
		free(old);
		b->procs = n;
		b->cap_procs = cap;
	}
	if (!b->cap_procs)
		return NULL;
	mask = b->cap_procs - 1;
	for (h = (uint32_t)pid * 2654435761u & mask; b->procs[h].pid; h = (h + 1) & mask)
		if (b->procs[h].pid == pid)
			return &b->procs[h];
	if (!create)
		return NULL;
	b->procs[h].pid = pid;
	b->nr_procs++;
	return &b->procs[h];
}

static int proc_add_map(struct bid_proc *p, uint64_t start, uint64_t end, int dso)
{
	if (p->nr == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		struct bid_map *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap = cap;
	}
	p->maps[p->nr++] = (struct bid_map){ start, end, dso };
	return 0;
}

/* files and the vdso: not //anon, memfd: or deleted ones */
static bool is_file(const char *name)
{
	return (name[0] == '/' && !strstr(name, " (deleted)")) || !strcmp(name, "[vdso]");
}

void bid__mmap(struct record *rec, int pid, uint64_t start, uint64_t len, const char *name)
{
	struct bid *b = rec->bid;
	struct bid_proc *p;
	int d;

	if (!b || !is_file(name))
		return;
	d = dso_find(b, name, false);
	p = d >= 0 ? proc_get(b, pid, true) : NULL;
	if (!p || proc_add_map(p, start, start + len, d))
		return;
	/* perf writes the vdso's build-id whenever a recorded process maps it */
	if (rec->opts.buildid_all || !strcmp(name, "[vdso]"))
		mark_hit(b, d);
}

/* a new process starts with its parent's maps; an exec drops them */
void bid__fork(struct record *rec, int pid, int ppid)
{
	struct bid_proc *pp, *p;

	if (!rec->bid || pid == ppid)
		return;
	p = proc_get(rec->bid, pid, true);
	pp = proc_get(rec->bid, ppid, false); /* after: creating may move the table */
	if (!p || !pp)
		return;
	p->nr = 0;
	for (int i = 0; i < pp->nr; i++)
		if (proc_add_map(p, pp->maps[i].start, pp->maps[i].end, pp->maps[i].dso))
			return;
}

void bid__exec(struct record *rec, int pid)
{
	struct bid_proc *p = rec->bid ? proc_get(rec->bid, pid, false) : NULL;

	if (p)
		p->nr = 0;
}

void bid__sample(struct record *rec, uint16_t misc, int pid, uint64_t ip)
{
	struct bid *b = rec->bid;
	struct bid_proc *p;
	int mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (!b)
		return;
	if (mode == PERF_RECORD_MISC_KERNEL) {
		if (!b->ktext_end || (ip >= b->ktext_start && ip < b->ktext_end)) {
			mark_hit(b, b->kernel_dso);
			return;
		}
		for (int i = 0; i < b->nr_mods; i++)
			if (ip >= b->mods[i].start && ip < b->mods[i].end) {
				mark_hit(b, b->mods[i].dso);
				return;
			}
		mark_hit(b, b->kernel_dso);
		return;
	}
	if (mode != PERF_RECORD_MISC_USER || !(p = proc_get(b, pid, false)))
		return;
	if (p->last < p->nr && ip >= p->maps[p->last].start && ip < p->maps[p->last].end) {
		mark_hit(b, p->maps[p->last].dso);
		return;
	}
	/* newest first: a later mmap over the same range wins */
	for (int i = p->nr - 1; i >= 0; i--)
		if (ip >= p->maps[i].start && ip < p->maps[i].end) {
			mark_hit(b, p->maps[i].dso);
			p->last = i;
			return;
		}
}

/* the running kernel's text range and its modules with their files */
static char *module_path(const char *rel, const char *mod)
{
	char p[512], line[1024], *res = NULL;
	FILE *f;

	snprintf(p, sizeof(p), "/lib/modules/%s/modules.dep", rel);
	f = fopen(p, "r");
	if (!f)
		return NULL;
	while (!res && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base, *dot;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		dot = strstr(base, ".ko");
		if (!dot)
			continue;
		*dot = '\0';
		for (char *c = base; *c; c++)
			if (*c == '-')
				*c = '_';
		if (strcmp(base, mod))
			continue;
		*dot = '.';
		if (asprintf(&res, "%s/lib/modules/%s/%s", line[0] == '/' ? "" : "", rel,
			     line) < 0)
			res = NULL;
	}
	fclose(f);
	return res;
}

static void load_kernel(struct bid *b)
{
	char line[512], name[256], rel[256] = "";
	unsigned long long a, size;
	struct utsname u;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;

	if (!uname(&u))
		snprintf(rel, sizeof(rel), "%s", u.release);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || strchr(line, '['))
			continue;
		if (!strcmp(name, "_text"))
			b->ktext_start = a;
		else if (!strcmp(name, "_etext"))
			b->ktext_end = a;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/modules", "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct bid_map *n;
		char *path;
		int d;

		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size, &a) != 3 || !a)
			continue;
		path = module_path(rel, name);
		if (!path && asprintf(&path, "[%s]", name) < 0)
			break;
		d = dso_find(b, path, true);
		free(path);
		n = d >= 0 ? realloc(b->mods, (b->nr_mods + 1) * sizeof(*n)) : NULL;
		if (!n)
			break;
		b->mods = n;
		n[b->nr_mods++] = (struct bid_map){ a, a + size, d };
	}
	if (f)
		fclose(f);
}

int bid__start(struct record *rec)
{
	struct bid *b;

	if (rec->opts.no_buildid)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	rec->bid = b;
	b->w = rec->w;
	b->pipe = rec->opts.output && !strcmp(rec->opts.output, "-");
	b->kernel_dso = dso_find(b, "[kernel.kallsyms]", true);
	if (b->kernel_dso < 0)
		return -ENOMEM;
	load_kernel(b);
	/* --buildid-all: the kernel and every loaded module, as perf's dsos__hit_all() */
	for (int i = 0; rec->opts.buildid_all && i < b->nr_dsos; i++)
		if (b->dsos[i].kernel)
			mark_hit(b, i);
	return 0;
}

void bid__free(struct record *rec)
{
	struct bid *b = rec->bid;

	if (!b)
		return;
	for (int i = 0; i < b->nr_dsos; i++)
		free(b->dsos[i].name);
	for (int i = 0; i < b->cap_procs; i++)
		free(b->procs[i].maps);
	free(b->dsos);
	free(b->procs);
	free(b->mods);
	free(b);
	rec->bid = NULL;
}

/* ---- build-ids ---- */

/* the GNU build-id note in a buffer of ELF notes */
static int note_build_id(const uint8_t *p, size_t len, uint8_t *id)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		if (namesz > len - off || ((namesz + 3) & ~3u) + (uint64_t)descsz > len - off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off, "GNU", 4) &&
		    descsz && descsz <= BID_MAX) {
			memcpy(id, p + off + 4, descsz);
			return (int)descsz;
		}
		off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
	}
	return 0;
}

static int file_notes_build_id(const char *path, uint8_t *id)
{
	uint8_t buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;
	ssize_t len;

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	n = len > 0 ? note_build_id(buf, (size_t)len, id) : 0;
	return n;
}

static int elf_build_id(const char *path, uint8_t *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && !n && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			n = note_build_id(d->d_buf, d->d_size, id);
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/* the vdso every process maps is the one in our own memory */
static int vdso_build_id(uint8_t *id)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	int n = 0;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	for (int i = 0; i < eh->e_phnum && !n; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE)
			n = note_build_id(base + ph->p_offset, ph->p_filesz, id);
	}
	return n;
}

static void dso_build_id(struct bid_dso *d)
{
	char p[512];
	const char *mod;

	if (d->id_done)
		return;
	d->id_done = true;
	if (!strcmp(d->name, "[vdso]")) {
		d->id_len = vdso_build_id(d->id);
		return;
	}
	if (!strcmp(d->name, "[kernel.kallsyms]")) {
		d->id_len = file_notes_build_id("/sys/kernel/notes", d->id);
		return;
	}
	if (d->kernel && d->name[0] == '[') {
		snprintf(p, sizeof(p), "/sys/module/%.*s/notes/.note.gnu.build-id",
			 (int)strlen(d->name) - 2, d->name + 1);
		d->id_len = file_notes_build_id(p, d->id);
		return;
	}
	if (d->kernel) {
		/* the loaded module's own note: the file may be compressed */
		char name[256], *dot;

		mod = strrchr(d->name, '/');
		snprintf(name, sizeof(name), "%s", mod ? mod + 1 : d->name);
		dot = strstr(name, ".ko");
		if (dot)
			*dot = '\0';
		for (char *c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		snprintf(p, sizeof(p), "/sys/module/%s/notes/.note.gnu.build-id", name);
		d->id_len = file_notes_build_id(p, d->id);
		return;
	}
	d->id_len = elf_build_id(d->name, d->id);
}

/*
 * Pipe mode: the DSO's PERF_RECORD_HEADER_BUILD_ID (the layout of a BUILD_ID
 * feature entry, as perf inject -b writes it) goes into the stream before the
 * sample that hit it, so a reader knows the build-id before it resolves the
 * sample. A write error shows again with the sample's own write.
 */
static void emit_build_id(struct bid *b, struct bid_dso *d)
{
	uint8_t buf[8 + 4 + 24 + 4096] = { 0 };
	struct perf_event_header h;
	size_t nlen = strlen(d->name) + 1, len;
	int32_t pid = -1; /* the host machine, as perf's HOST_KERNEL_ID */

	dso_build_id(d);
	if (!d->id_len || nlen > 4096)
		return;
	len = 8 + 4 + 24 + ((nlen + 63) & ~(size_t)63);
	h.type = RAWFRAG_RECORD_HEADER_BUILD_ID;
	h.misc = (d->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
		 MISC_BUILD_ID_SIZE;
	h.size = (uint16_t)len;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, d->id, d->id_len);
	buf[12 + 20] = (uint8_t)d->id_len;
	memcpy(buf + 36, d->name, nlen);
	rawfrag_writer__write_record(b->w, buf, len);
}

static void mark_hit(struct bid *b, int d)
{
	if (b->dsos[d].hit)
		return;
	b->dsos[d].hit = true;
	if (b->pipe)
		emit_build_id(b, &b->dsos[d]);
}

/* the entries of the DSOs hit, as perf's write_buildid() */
static int write_feature(struct record *rec)
{
	struct bid *b = rec->bid;
	int err = 0;

	for (int i = 0; !err && i < b->nr_dsos; i++) {
		struct bid_dso *d = &b->dsos[i];

		if (!d->hit || !d->id_len)
			continue;
		/* pid -1: the host machine, as perf's HOST_KERNEL_ID */
		err = rawfrag_writer__add_build_id(rec->w, d->kernel ? PERF_RECORD_MISC_KERNEL :
						   PERF_RECORD_MISC_USER, -1, d->id, d->id_len,
						   d->name);
	}
	return err;
}

int bid__finish(struct record *rec)
{
	struct bid *b = rec->bid;

	if (!b)
		return 0;
	for (int i = 0; i < b->nr_dsos; i++)
		if (b->dsos[i].hit)
			dso_build_id(&b->dsos[i]);
	for (int i = 0; !rec->opts.no_buildid_cache && i < b->nr_dsos; i++) {
		struct bid_dso *d = &b->dsos[i];
		int err = d->hit && d->id_len ? bid_cache__add(d->name, d->id, d->id_len) : 0;

		if (err)
			record__err("build-id cache: cannot add %s: %s", d->name, strerror(-err));
	}
	return b->pipe ? 0 : write_feature(rec);
}
