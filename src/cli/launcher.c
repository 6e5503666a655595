/* SPDX-License-Identifier: BSD-3-Clause */
/* What the launcher's environment says before MPI_Init (mpirun, srun, other PMIx/PMI
 * launchers): this process's rank, whether it is the job's or its host's first rank. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/launcher.h"
#include "core/num.h"

/* The rank that the first of vars holding a rank number (core/num.h, a whole number from 0)
 * says; a variable that holds something else is passed over (it is not the launcher's);
 * none: -1. */
static int fab_rank_from(const char *const *vars, size_t n)
{
    fab_range_t r = {0, 1e9, false, true, NULL};
    char err[256];
    double rank;

    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);

        if (v && fab_num_parse(v, &r, &rank, err, sizeof(err)) == FAB_OK)
            return (int)rank;
    }
    return -1;
}

int fab_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};

    return fab_rank_from(vars, sizeof(vars) / sizeof(vars[0]));
}

/* Commands that need no MPI print on the first rank only, so `mpirun -np 4 fabricbench list`
 * prints once; a process started alone is the first. */
bool fab_first_rank(void)
{
    return fab_launcher_rank() <= 0;
}

/* The first rank on this host, from the launcher's environment (before MPI_Init). */
bool fab_first_local_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "SLURM_LOCALID", "PMI_LOCAL_RANK"};

    return fab_rank_from(vars, sizeof(vars) / sizeof(vars[0])) <= 0;
}

void fab_refuse_before_init(const char *err, const char *hint)
{
    struct timespec ts = {FAB_REFUSE_LINGER_S, 0};

    if (!fab_first_rank()) {
        nanosleep(&ts, NULL); /* a signal (mpirun's teardown) ends it, as it should */
        return;
    }
    fprintf(stderr, "fabricbench: error: %s\n", err);
    if (hint[0])
        fprintf(stderr, "hint: %s\n", hint);
}
