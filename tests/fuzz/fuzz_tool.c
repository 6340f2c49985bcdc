// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the command's output modes: the input is a whole
 * perf.data handed to `perf rawfrag report` (text, JSON, --stats, pcapng) or
 * `check` through a memfd, so the tool's own printing and ordering code runs,
 * not only the library's. FUZZ_MODE (compile time, or the environment
 * variable of that name at run time) picks the modes: a comma list of text,
 * json, stats, check, pcapng, or "all" (every mode but pcapng, which is still
 * moving into the library; add it to ALL_MODES once it has).
 *
 * stdout goes to /dev/null; stderr too unless FUZZ_VERBOSE is set (each input
 * makes the tool print its error), which also hides a sanitizer report: rerun
 * a crashing input with FUZZ_VERBOSE=1 to see it.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tools/perf-rawfrag/builtin.h"

#ifndef FUZZ_MODE
#define FUZZ_MODE "all"
#endif
#define ALL_MODES "text,json,stats,check"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int devnull = -1;
static const char *modes;

static void run_mode(const char *mode, const char *path, const char *out)
{
	char *argv[12];
	int argc = 0;

	argv[argc++] = strcmp(mode, "check") ? "report" : "check";
	if (!strcmp(mode, "json")) {
		argv[argc++] = "--format";
		argv[argc++] = "json";
	} else if (!strcmp(mode, "pcapng")) {
		argv[argc++] = "--format";
		argv[argc++] = "pcapng";
	} else if (!strcmp(mode, "stats")) {
		argv[argc++] = "--stats";
	}
	if (strcmp(mode, "check")) {
		argv[argc++] = "-o";
		argv[argc++] = (char *)out;
		argv[argc++] = "-i";
	}
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	if (!strcmp(argv[0], "check"))
		cmd_check(argc, argv);
	else
		cmd_report(argc, argv);
}

static void init(void)
{
	modes = getenv("FUZZ_MODE");
	if (!modes || !*modes)
		modes = FUZZ_MODE;
	if (!strcmp(modes, "all"))
		modes = ALL_MODES;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool quiet = !getenv("FUZZ_VERBOSE");
	char path[64], list[128], *save = NULL;
	int fd, out1, err2 = -1;

	if (!modes)
		init();
	fd = memfd_create("fuzz.data", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fflush(stdout);
	fflush(stderr);
	out1 = dup(1);
	dup2(devnull, 1);
	if (quiet) {
		err2 = dup(2);
		dup2(devnull, 2);
	}
	snprintf(list, sizeof(list), "%s", modes);
	for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save))
		run_mode(m, path, "/dev/null");
	fflush(stdout);
	fflush(stderr);
	dup2(out1, 1);
	close(out1);
	if (err2 >= 0) {
		dup2(err2, 2);
		close(err2);
	}
	close(fd);
	return 0;
}
