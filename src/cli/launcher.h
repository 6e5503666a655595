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
/* Before MPI_Init, a refusal that every rank reaches: the first rank prints it ("fabricbench:
 * error: ERR", then "hint: HINT" when there is one), the others pause FAB_REFUSE_LINGER_S
 * before the caller exits. mpirun ends the whole job at the first non-zero exit, and on a
 * loaded machine the first rank may not have written its message by then (beside a CPU hog
 * it had not, 0.13 s into a job of 3); its own exit ends the job sooner in the usual case. */
#define FAB_REFUSE_LINGER_S 2
void fab_refuse_before_init(const char *err, const char *hint);

#endif
