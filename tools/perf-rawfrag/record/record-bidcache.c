// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache in perf's layout, so `perf report` (and `perf buildid-cache`)
 * find our binaries by build-id on another machine:
 *   <dir>/<path>/<build-id>/elf            the binary (hard link, else a copy)
 *   <dir>/[kernel.kallsyms]/<build-id>/kallsyms   a copy of /proc/kallsyms
 *   <dir>/[vdso]/<build-id>/vdso    the vdso image (ours: every process maps the same)
 *   <dir>/.build-id/<2 hex>/<38 hex> -> ../../<path>/<build-id>
 * <dir> is $PERF_BUILDID_DIR or ~/.debug, as perf's default.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record-bidcache.h"

static int mkdir_p(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (err)
		unlink(to);
	return err;
}

/* our own [vdso] mapping, whole, as perf copies its own */
static int copy_vdso(const char *to)
{
	unsigned long long start = 0, end = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int out, err = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	if (f)
		fclose(f);
	if (!start || end <= start)
		return -ENOENT;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	if (write(out, (const void *)(uintptr_t)start, end - start) != (ssize_t)(end - start))
		err = -EIO;
	if (close(out) && !err)
		err = -errno;
	if (err)
		unlink(to);
	return err;
}

static const char *cache_dir(char *buf, size_t len)
{
	const char *d = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (d && *d)
		return d;
	if (!home || !*home)
		return NULL;
	snprintf(buf, len, "%s/.debug", home);
	return buf;
}

int bid_cache__add(const char *name, const uint8_t *id, int id_len)
{
	char base[PATH_MAX], sb[2 * 20 + 1], dir[PATH_MAX], file[PATH_MAX + 16];
	char lnk[PATH_MAX], target[PATH_MAX];
	bool kallsyms = !strcmp(name, "[kernel.kallsyms]"), vdso = !strcmp(name, "[vdso]");
	const char *root = cache_dir(base, sizeof(base));
	const char *slash = kallsyms || vdso ? "/" : "";
	int err;

	if (!root || !id_len || (!kallsyms && !vdso && name[0] != '/'))
		return 0; /* nothing to copy (unresolved modules) */
	for (int i = 0; i < id_len; i++)
		snprintf(sb + 2 * i, 3, "%02x", id[i]);
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s%s/%s", root, slash, name, sb) >= sizeof(dir))
		return -ENAMETOOLONG;
	err = mkdir_p(dir);
	if (err)
		return err;
	snprintf(file, sizeof(file), "%s/%s", dir, kallsyms ? "kallsyms" : vdso ? "vdso" : "elf");
	if (access(file, F_OK)) {
		if (kallsyms)
			err = copy_file("/proc/kallsyms", file);
		else if (vdso)
			err = copy_vdso(file);
		else if (link(name, file))
			err = copy_file(name, file);
		if (err)
			return err;
	}
	if ((size_t)snprintf(lnk, sizeof(lnk), "%s/.build-id/%.2s", root, sb) >= sizeof(lnk) - 40)
		return -ENAMETOOLONG;
	err = mkdir_p(lnk);
	if (err)
		return err;
	snprintf(lnk + strlen(lnk), sizeof(lnk) - strlen(lnk), "/%s", sb + 2);
	if ((size_t)snprintf(target, sizeof(target), "../..%s%s/%s", slash, name, sb) >=
	    sizeof(target))
		return -ENAMETOOLONG;
	if (symlink(target, lnk) && errno != EEXIST)
		return -errno;
	return 0;
}
