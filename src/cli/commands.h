/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands that need no MPI (cli/commands.c). */
#ifndef FAB_CLI_COMMANDS_H
#define FAB_CLI_COMMANDS_H

#include "cli/options.h"

/* Run cmd (anything but FAB_CMD_RUN); returns the exit code. */
int fab_command_without_mpi(fab_cmd_t cmd, const fab_opts_t *o);

#endif
