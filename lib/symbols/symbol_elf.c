// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF files through libelf: the runtime facts of a mapped file (PT_LOADs,
 * .eh_frame_hdr, build-id) and symbol tables with perf's rules
 * (symbol-elf.c): functions, objects and text/data labels of .symtab, else
 * .dynsym; user symbols converted to file offsets by their PT_LOAD.
 * Every offset and index read from the file is checked before use: the files
 * may be truncated or hostile.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/machine.h"

static Elf *elf_open_fd(const char *path, int *fdp, uint64_t *size)
{
	struct stat st;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	/*
	 * Non-blocking: a FIFO put where a DSO was (callers warn about such
	 * paths, rf_symfile__regular) must not hang us between their check and
	 * this open. No size cap: libelf reads the headers and the sections we
	 * ask for, each checked against the file's size, never the whole file.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return NULL;
	}
	/* read, not mmap: a file truncated under us must not SIGBUS */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	*size = (uint64_t)st.st_size;
	return elf;
}

/* a section's data, NULL unless it lies inside the file */
static Elf_Data *sec_data(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > fsize ||
	    sh->sh_size > fsize - sh->sh_offset)
		return NULL;
	return elf_getdata(scn, NULL);
}

static int note_build_id(Elf_Data *d, uint8_t bid[20])
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz) {
			size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;

			memset(bid, 0, 20);
			memcpy(bid, (const char *)d->d_buf + desc_off, n);
			return (int)n;
		}
	}
	return -1;
}

static int elf_build_id(Elf *elf, uint64_t fsize, uint8_t bid[20])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		int n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = sec_data(scn, &sh, fsize);
		if (d && (n = note_build_id(d, bid)) > 0)
			return n;
	}
	return -1;
}

int rf_elf__build_id(const char *path, uint8_t bid[20])
{
	uint64_t size;
	int fd, n;
	Elf *elf = elf_open_fd(path, &fd, &size);

	if (!elf)
		return -1;
	n = elf_build_id(elf, size, bid);
	elf_end(elf);
	close(fd);
	return n;
}

static const char *sec_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(elf, shstrndx, sh->sh_name);

	return n ? n : "";
}

static void elf_runtime_sections(Elf *elf, struct rf_elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = sec_name(elf, shstrndx, &sh);
		if (!strcmp(n, ".eh_frame_hdr") && sh.sh_type != SHT_NOBITS) {
			e->eh_frame_hdr_vaddr = sh.sh_addr;
			e->eh_frame_hdr_off = sh.sh_offset;
			e->eh_frame_hdr_size = sh.sh_size;
		} else if (!strcmp(n, ".text")) {
			e->text_vaddr = sh.sh_addr;
			e->text_off = sh.sh_offset;
		}
	}
}

int rf_elf__open(const char *path, struct rf_elf **out)
{
	struct rf_elf *e;
	GElf_Ehdr eh;
	size_t phnum;
	uint64_t size;
	int fd, n;
	Elf *elf = elf_open_fd(path, &fd, &size);

	if (!elf)
		return -ENOENT;
	e = calloc(1, sizeof(*e));
	if (!e || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum)) {
		free(e);
		elf_end(elf);
		close(fd);
		return e ? -EINVAL : -ENOMEM;
	}
	e->fd = fd;
	e->size = size;
	e->path = strdup(path);
	if (size && size < (1ULL << 40)) {
		void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);

		e->map = p == MAP_FAILED ? NULL : p;
	}
	e->e_type = eh.e_type;
	for (size_t i = 0; i < phnum && e->nr_load < RF_MAX_LOAD; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->load[e->nr_load].vaddr = ph.p_vaddr;
		e->load[e->nr_load].off = ph.p_offset;
		e->load[e->nr_load].filesz = ph.p_filesz > ph.p_memsz ? ph.p_filesz : ph.p_memsz;
		e->nr_load++;
	}
	elf_runtime_sections(elf, e);
	n = elf_build_id(elf, size, e->bid);
	e->bid_size = n > 0 ? (uint8_t)n : 0;
	elf_end(elf);
	*out = e;
	return 0;
}

void rf_elf__close(struct rf_elf *e)
{
	if (!e)
		return;
	if (e->map)
		munmap((void *)e->map, (size_t)e->size);
	close(e->fd);
	free(e->path);
	free(e);
}

int rf_elf__pread(const struct rf_elf *e, void *buf, size_t len, uint64_t off)
{
	if (off > e->size || len > e->size - off)
		return -1;
	if (e->map) {
		memcpy(buf, e->map + off, len);
		return 0;
	}
	return pread(e->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

int rf_elf__debuglink(const char *path, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	uint64_t size;
	int fd, ret = -1;
	Elf *elf = elf_open_fd(path, &fd, &size);

	if (!elf)
		return -1;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || strcmp(sec_name(elf, shstrndx, &sh), ".gnu_debuglink"))
			continue;
		d = sec_data(scn, &sh, size);
		if (!d || !d->d_buf || !d->d_size)
			break;
		n = strnlen(d->d_buf, d->d_size);
		if (n && n < d->d_size && n < len && !strchr(d->d_buf, '/')) {
			memcpy(buf, d->d_buf, n + 1);
			ret = 0;
		}
		break;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

static bool sym_is_label(const GElf_Sym *s)
{
	int vis = GELF_ST_VISIBILITY(s->st_other);

	return GELF_ST_TYPE(s->st_info) == STT_NOTYPE && s->st_name && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
}

static bool sym_is_wanted(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);

	return (t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_OBJECT) && s->st_name &&
	       s->st_shndx != SHN_UNDEF;
}

/* perf's user symbols are file offsets: st_value - (p_vaddr - p_offset) */
static uint64_t sym_to_offset(const struct rf_elf *rt, uint64_t v, const GElf_Shdr *sh)
{
	for (int i = 0; rt && i < rt->nr_load; i++)
		if (rt->load[i].filesz && v >= rt->load[i].vaddr &&
		    v - rt->load[i].vaddr < rt->load[i].filesz)
			return v - (rt->load[i].vaddr - rt->load[i].off);
	return v - (sh->sh_addr - sh->sh_offset);
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh, bool *has_symtab)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB) {
			*has_symtab = true;
			return scn;
		}
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	*has_symtab = false;
	if (dyn)
		*sh = dsh;
	return dyn;
}

/*
 * C++ and Rust names as perf shows them: libiberty's demangler in its auto
 * style without parameters (perf's demangle_flags when not verbose); kernel
 * symbols stay as they are. The name is kept mangled and demangled when
 * asked for (rf_dso__demangled()).
 */
static int add_sym(struct rf_dso *d, uint64_t start, uint64_t len, uint8_t bind,
		   const char *name, size_t nlen, bool demangle)
{
	int ret = rf_dso__add_sym(d, start, len, bind, name, nlen);

	if (!ret && demangle && rf_is_mangled(name, nlen))
		d->syms[d->nr_syms - 1].mangled = true;
	return ret;
}

/* open addressing by name offset + 1 (0: empty); a NULL name: not demangled */
struct rf_demangled {
	size_t cap, nr;
	uint32_t *key;
	char **name;
};

static bool dm_grow(struct rf_demangled *m)
{
	size_t cap = m->cap ? 2 * m->cap : 256;
	uint32_t *k = calloc(cap, sizeof(*k));
	char **n = calloc(cap, sizeof(*n));

	if (!k || !n) {
		free(k);
		free(n);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->key[i])
			continue;
		for (j = m->key[i] * 0x9e3779b1u & (cap - 1); k[j]; j = (j + 1) & (cap - 1))
			;
		k[j] = m->key[i];
		n[j] = m->name[i];
	}
	free(m->key);
	free(m->name);
	m->key = k;
	m->name = n;
	m->cap = cap;
	return true;
}

const char *rf_dso__demangled(const struct rf_dso *cd, const struct rf_sym *s)
{
	/* a cache of the DSO's, filled by readers that hold it const */
	struct rf_dso *d = (struct rf_dso *)cd;
	const char *raw = d->strs + s->name;
	struct rf_demangled *m = d->dm;
	uint32_t key = s->name + 1;
	size_t j;

	if (!m && !(m = d->dm = calloc(1, sizeof(*m))))
		return raw;
	if (2 * (m->nr + 1) > m->cap && !dm_grow(m))
		return raw;
	for (j = key * 0x9e3779b1u & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == key)
			return m->name[j] ? m->name[j] : raw;
	m->key[j] = key;
	m->name[j] = cplus_demangle(raw, DMGL_NO_OPTS);
	m->nr++;
	return m->name[j] ? m->name[j] : raw;
}

void rf_dso__free_demangled(struct rf_dso *d)
{
	struct rf_demangled *m = d->dm;

	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->name[i]);
	free(m->key);
	free(m->name);
	free(m);
	d->dm = NULL;
}

struct symload {
	Elf *elf;
	uint64_t fsize;
	size_t shstrndx, shnum;
	const struct rf_elf *rt;
	bool kernel;
	int64_t delta;
};

static int load_one(struct rf_dso *d, struct symload *L, const GElf_Sym *s, Elf_Data *str)
{
	bool label = sym_is_label(s);
	const char *name;
	size_t nlen;
	uint64_t v = s->st_value;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!label && !sym_is_wanted(s))
		return 0;
	if (s->st_shndx == SHN_ABS || s->st_shndx >= L->shnum || s->st_name >= str->d_size)
		return 0;
	scn = elf_getscn(L->elf, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	if (label) {
		const char *sn = sec_name(L->elf, L->shstrndx, &sh);

		if (!strstr(sn, "text") && !strstr(sn, "data"))
			return 0;
	}
	if (L->kernel)
		v += (uint64_t)L->delta;
	else
		v = sym_to_offset(L->rt, v, &sh);
	name = (const char *)str->d_buf + s->st_name;
	nlen = strnlen(name, str->d_size - s->st_name);
	/* an unterminated last name is taken as it is, not demangled */
	if (add_sym(d, v, s->st_size, GELF_ST_BIND(s->st_info), name, nlen,
		    !L->kernel && nlen < str->d_size - s->st_name))
		return -ENOMEM;
	d->syms[d->nr_syms - 1].object = GELF_ST_TYPE(s->st_info) == STT_OBJECT;
	return 0;
}

int rf_elf__symtab_kind(const char *path)
{
	uint64_t size;
	bool symtab = false;
	GElf_Shdr sh;
	int fd, kind;
	Elf *elf = elf_open_fd(path, &fd, &size);

	if (!elf)
		return 0;
	kind = find_symtab(elf, &sh, &symtab) ? (symtab ? RF_ELF_SYMTAB : RF_ELF_DYNSYM) : 0;
	elf_end(elf);
	close(fd);
	return kind;
}

struct rf_elf_file {
	Elf *elf;
	int fd;
	uint64_t size;
};

void rf_elf_file__close(struct rf_elf_file *f)
{
	if (!f)
		return;
	elf_end(f->elf);
	close(f->fd);
	free(f);
}

int rf_elf__load_syms(struct rf_dso *d, const char *path, const struct rf_elf *rt, bool kernel,
		      int64_t delta, bool *has_symtab, struct rf_elf_file **keep)
{
	struct symload L = { .rt = rt, .kernel = kernel, .delta = delta };
	struct rf_elf *own = NULL;
	Elf_Data *syms, *str;
	GElf_Shdr sh, ssh;
	Elf_Scn *scn;
	int fd, ret = -EINVAL;

	L.elf = elf_open_fd(path, &fd, &L.fsize);
	if (!L.elf)
		return -ENOENT;
	if (!rt && !kernel && rf_elf__open(path, &own) == 0)
		L.rt = own;
	if (elf_getshdrstrndx(L.elf, &L.shstrndx) || elf_getshdrnum(L.elf, &L.shnum))
		goto out;
	scn = find_symtab(L.elf, &sh, has_symtab);
	if (!scn || !sh.sh_entsize || !(syms = sec_data(scn, &sh, L.fsize)))
		goto out;
	if (sh.sh_link >= L.shnum || !(scn = elf_getscn(L.elf, sh.sh_link)) ||
	    !gelf_getshdr(scn, &ssh) || !(str = sec_data(scn, &ssh, L.fsize)) || !str->d_buf)
		goto out;
	ret = 0;
	/* room for every symbol and name at once: growing by doubling copied them over and over */
	if (!rf_dso__reserve(d, syms->d_size / sh.sh_entsize, str->d_size))
		ret = -ENOMEM;
	for (size_t i = 0; i < syms->d_size / sh.sh_entsize && !ret; i++) {
		GElf_Sym s;

		if (gelf_getsym(syms, (int)i, &s))
			ret = load_one(d, &L, &s, str);
	}
out:
	rf_elf__close(own);
	/* the sections read stay with the handle: rf_elf__plt_syms() reads them again for nothing */
	if (!ret && keep && (*keep = malloc(sizeof(**keep)))) {
		**keep = (struct rf_elf_file){ .elf = L.elf, .fd = fd, .size = L.fsize };
		return 0;
	}
	elf_end(L.elf);
	close(fd);
	return ret;
}

static Elf_Scn *sec_by_name(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh,
			    size_t *idx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && !strcmp(sec_name(elf, shstrndx, sh), name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

static int plt_add(struct rf_dso *d, Elf_Data *dsyms, Elf_Data *dstr, uint64_t symidx,
		   uint64_t off, uint64_t size)
{
	const char *name = "";
	char buf[1024], *dm = NULL;
	GElf_Sym s;

	if (symidx <= INT32_MAX && gelf_getsym(dsyms, (int)symidx, &s) && s.st_name < dstr->d_size &&
	    memchr((const char *)dstr->d_buf + s.st_name, 0, dstr->d_size - s.st_name))
		name = (const char *)dstr->d_buf + s.st_name;
	if (rf_is_mangled(name, strlen(name)) && (dm = cplus_demangle(name, DMGL_NO_OPTS)))
		name = dm;
	snprintf(buf, sizeof(buf), "%.*s@plt", (int)strnlen(name, 1000), name);
	free(dm);
	return rf_dso__add_sym(d, off, size, 1, buf, strlen(buf));
}

/* perf's dso__synthesize_plt_symbols(): "name@plt" per .rela.plt entry, in .plt order */
int rf_elf__plt_syms(struct rf_dso *d, const char *path, struct rf_elf_file *open)
{
	GElf_Shdr rsh, psh, dsh, ssh;
	Elf_Scn *rel, *dyn, *str;
	Elf_Data *rd, *dsyms, *dstr;
	size_t shstrndx, dynidx, nrel;
	uint64_t size, off, ent;
	int fd = -1, ret = 0;
	Elf *elf;

	if (open) {
		elf = open->elf;
		size = open->size;
	} else if (!(elf = elf_open_fd(path, &fd, &size))) {
		return 0;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) ||
	    !(dyn = sec_by_name(elf, shstrndx, ".dynsym", &dsh, &dynidx)) ||
	    dsh.sh_type != SHT_DYNSYM)
		goto out;
	rel = sec_by_name(elf, shstrndx, ".rela.plt", &rsh, NULL);
	if (!rel)
		rel = sec_by_name(elf, shstrndx, ".rel.plt", &rsh, NULL);
	if (!rel || rsh.sh_link != dynidx || !rsh.sh_entsize ||
	    !sec_by_name(elf, shstrndx, ".plt", &psh, NULL))
		goto out;
	if (!(rd = sec_data(rel, &rsh, size)) || !(dsyms = sec_data(dyn, &dsh, size)) ||
	    !(str = elf_getscn(elf, dsh.sh_link)) || !gelf_getshdr(str, &ssh) ||
	    !(dstr = sec_data(str, &ssh, size)) || !dstr->d_size)
		goto out;
	ent = psh.sh_entsize;
	off = psh.sh_offset + ent;
	nrel = rsh.sh_size / rsh.sh_entsize;
	/*
	 * Room for the entries at once (names guessed at 32 bytes: add_sym grows
	 * past that): appended to a library's table one at a time, they doubled
	 * its arrays, megabytes for a C++ library, to add a few thousand names.
	 * Each entry names a .dynsym symbol, so a count past theirs is a broken
	 * file, not one to reserve for.
	 */
	if (dsh.sh_entsize && nrel <= dsh.sh_size / dsh.sh_entsize)
		rf_dso__reserve(d, nrel, 32 * nrel);
	for (size_t i = 0; i < nrel && !ret; i++, off += ent) {
		uint64_t info;

		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rd, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rd, (int)i, &r))
				break;
			info = r.r_info;
		}
		ret = plt_add(d, dsyms, dstr, GELF_R_SYM(info), off, ent);
	}
out:
	if (!open) {
		elf_end(elf);
		close(fd);
	}
	return ret;
}
