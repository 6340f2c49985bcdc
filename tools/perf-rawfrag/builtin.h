/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of perf-rawfrag: one file each, one table (perf-rawfrag.c). */
#ifndef __PERF_RAWFRAG_BUILTIN_H
#define __PERF_RAWFRAG_BUILTIN_H

/* exit codes shared by all subcommands */
enum {
	RF_EXIT_OK = 0,
	RF_EXIT_VIOLATIONS = 1, /* check found violations */
	RF_EXIT_USAGE = 2, /* unusable input or options */
};

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
