/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench run` before MPI_Init (cli/startup.c): the fabric and pml chosen on this host,
 * the outputs' descriptors, and the limits that would make MPI_Init die rather than fail. */
#ifndef FAB_CLI_STARTUP_H
#define FAB_CLI_STARTUP_H

#include <stdbool.h>

#include "cli/opts.h"
#include "core/status.h"
#include "net/fabric.h"

/* The file-size limit (ulimit -f) below which a rank does not start MPI: Open MPI 4.1 with
 * UCX 1.13 failed in MPI_Init under 4200 KiB, for 2 and 8 ranks alike (UCX's shared-memory
 * receive pool is one file of 4,292,720 bytes), and started above it. A limit above this
 * that MPI still cannot live with ends in MPI_Init with MPI's own message. */
#define FAB_FSIZE_MIN (4608ull << 10)

/* Everything between the parsed options and MPI_Init. Returns whether to go on; else *code is
 * the exit code (every rank alike for a usage error: 2; this rank only for a limit: 3).
 * *fst: the fabric's status on this host (a host without it still starts MPI, so that every
 * rank learns of the failure; it said why already). */
bool fab_startup_prepare(fab_opts_t *o, fab_fabric_t *fb, fab_status_t *fst, int *code);

#endif
