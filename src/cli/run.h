/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench run` after MPI_Init (cli/run.c). */
#ifndef FAB_CLI_RUN_H
#define FAB_CLI_RUN_H

#include <stdbool.h>

#include "cli/opts.h"
#include "core/status.h"
#include "core/world.h"
#include "net/fabric.h"

/* Check, set up, measure every kernel and finish the outputs, on every rank. fb: --fabric as
 * resolved on this host. *agreed: whether every rank knows the outcome (else the caller must
 * abort the job). */
fab_status_t fab_run_all(const fab_world_t *w, fab_opts_t *o, fab_fabric_t *fb, int argc,
                         char **argv, bool *agreed);

#endif
