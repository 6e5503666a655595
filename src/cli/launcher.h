/* SPDX-License-Identifier: BSD-3-Clause */
/* The launcher's environment before MPI_Init (cli/launcher.c). */
#ifndef FAB_CLI_LAUNCHER_H
#define FAB_CLI_LAUNCHER_H

#include <stdbool.h>

/* This process's rank from the launcher's environment (mpirun, srun, PMIx/PMI): the first
 * variable that holds a whole number (core/num.h); -1 without one. */
int fab_launcher_rank(void);
/* The job's first rank (true without a launcher): commands that need no MPI print there
 * only, so `mpirun -np 4 fabricbench list` prints once. */
bool fab_first_rank(void);
/* The first rank on this host (true without a launcher). */
bool fab_first_local_rank(void);

#endif
