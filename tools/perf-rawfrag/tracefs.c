// SPDX-License-Identifier: GPL-2.0
/* Where tracefs is mounted; mount it at /sys/kernel/tracing when we may. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tracefs.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool has_events(const char *dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/events", dir);
	return access(p, F_OK) == 0;
}

const char *tracefs__path(char *msg, size_t msglen)
{
	const char *denied = NULL;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		if (has_events(tracefs_dirs[i]))
			return tracefs_dirs[i];
		if (errno == EACCES && !denied)
			denied = tracefs_dirs[i];
	}
	if (denied) {
		/* mounted, but not for us: mounting again would not help */
		snprintf(msg, msglen,
			 "no permission to read tracefs at %s: run as root or make it readable (chmod/mount -o mode=)",
			 denied);
		errno = EACCES;
		return NULL;
	}
	if (geteuid() == 0 && mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_events(tracefs_dirs[0]))
		return tracefs_dirs[0];
	snprintf(msg, msglen,
		 "tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing");
	errno = ENOENT;
	return NULL;
}
