// SPDX-License-Identifier: GPL-2.0
/*
 * perf-rawfrag: record, decode and check PERF_SAMPLE_RAW payloads.
 * Runs standalone or as `perf rawfrag ...` (perf execs perf-<cmd> found on PATH).
 * One table drives dispatch and --help, as perf's commands[] does.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "record", cmd_record, "Record raw-sample events (tracepoints, PMUs, BPF skb/xdp dumps) into perf.data" },
	{ "report", cmd_report, "Decode every PERF_SAMPLE_RAW payload per producer (text, JSON, pcapng)" },
	{ "check", cmd_check, "Check raw records' size, alignment and padding against the kernel's rules" },
	{ "version", cmd_version, "Show version and build options" },
};

static void usage(FILE *f)
{
	fprintf(f, "\n usage: perf rawfrag <command> [<options>]\n\n"
		   " The most commonly used perf rawfrag commands are:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n See 'perf rawfrag <command> --help' for more information on a command.\n\n");
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc >= 3 && !strcmp(argv[1], "help")) {
			argv[1] = argv[2];
			argv[2] = "--help";
			argc = 3;
		} else {
			usage(argc < 2 ? stderr : stdout);
			return argc < 2 ? RF_EXIT_USAGE : RF_EXIT_OK;
		}
	}
	if (!strcmp(argv[1], "--version"))
		argv[1] = "version";
	cmd = argv[1];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, cmd))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "perf rawfrag: '%s' is not a perf rawfrag command. See 'perf rawfrag --help'.\n",
		cmd);
	return RF_EXIT_USAGE;
}
