// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Files a recording names for us to read: /tmp/perf-PID.map (the pid comes
 * from the file), build-id cache entries, .gnu_debuglink targets, the cached
 * kallsyms, the DSOs themselves. Anyone who can write a path there can plant
 * a FIFO (open blocks), a link to /dev/zero (read never ends), a directory or
 * a sparse file of many gigabytes. Only regular files are read, opened
 * without blocking, and the text ones up to a cap; a refusal is one warning
 * naming the file and the reason, and the reader goes on as if it were absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/machine.h"

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:
		return "a FIFO";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

void rf_symfile__refuse(struct rawfrag_machine *m, const char *path, const char *why)
{
	if (rf_machine__first_refusal(m, path))
		rf_machine__warn(m, "%s: %s, not read", path, why);
}

bool rf_symfile__regular(struct rawfrag_machine *m, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return false; /* absent: the usual case, no message */
	if (S_ISREG(st.st_mode))
		return true;
	rf_symfile__refuse(m, path, file_kind(st.st_mode));
	return false;
}

int rf_symfile__open(struct rawfrag_machine *m, const char *path, uint64_t cap)
{
	struct stat st;
	int fd, ret;

	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		rf_symfile__refuse(m, path, file_kind(st.st_mode));
		ret = -EPERM;
	} else if (cap && (uint64_t)st.st_size > cap) {
		char why[96];

		snprintf(why, sizeof(why), "%" PRIu64 " bytes, more than the %" PRIu64 " MiB cap",
			 (uint64_t)st.st_size, cap >> 20);
		rf_symfile__refuse(m, path, why);
		ret = -EFBIG;
	} else {
		/* back to blocking reads: a regular file never waits */
		if (fcntl(fd, F_SETFL, 0))
			ret = -errno;
		else
			return fd;
	}
	close(fd);
	return ret;
}
