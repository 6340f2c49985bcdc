// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the subcommand's implementation. */
#include <stdio.h>

#include "builtin.h"

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "perf rawfrag record: not implemented yet\n");
	return RF_EXIT_USAGE;
}
