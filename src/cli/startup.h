/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench run` before MPI_Init (cli/startup.c): the fabric and pml chosen on this host,
 * the outputs' descriptors, and the limits that would make MPI_Init die rather than fail. */
#ifndef FAB_CLI_STARTUP_H
#define FAB_CLI_STARTUP_H

#include <stdbool.h>

#include "core/opts.h"
#include "core/status.h"
#include "net/fabric.h"

/* The file-size limit (ulimit -f) below which a rank does not start MPI: Open MPI 4.1 with
 * UCX needed 8-10 MiB of files for 2 and 4 ranks of a host (shared-memory segments); 64 MiB
 * leaves room for other versions and for the result files of a short run. */
#define FAB_FSIZE_MIN (64ull << 20)

/* Everything between the parsed options and MPI_Init. Returns whether to go on; else *code is
 * the exit code (every rank alike for a usage error: 2; this rank only for a limit: 3).
 * *fst: the fabric's status on this host (a host without it still starts MPI, so that every
 * rank learns of the failure; it said why already). */
bool fab_startup_prepare(fab_opts_t *o, fab_fabric_t *fb, fab_status_t *fst, int *code);

#endif
