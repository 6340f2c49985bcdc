// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the subcommand's implementation. */
#include <stdio.h>

#include "builtin.h"

int cmd_check(int argc, char **argv)
{
	fprintf(stderr, "perf rawfrag check: not implemented yet\n");
	return RF_EXIT_USAGE;
}
