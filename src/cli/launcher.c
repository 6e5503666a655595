/* SPDX-License-Identifier: BSD-3-Clause */
/* What the launcher's environment says before MPI_Init (mpirun, srun, other PMIx/PMI
 * launchers): whether this process is the job's or its host's first rank. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cli/launcher.h"

/* Before MPI_Init the rank is known only from the launcher's environment: a whole number
 * that is not one (a hostile or broken environment) counts as unknown. */
int fab_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long r;

        if (!v || !*v)
            continue;
        errno = 0;
        r = strtol(v, &end, 10);
        return *end || errno || r < 0 || r > INT_MAX || !isdigit((unsigned char)*v) ? -1 : (int)r;
    }
    return -1;
}

/* Commands that need no MPI print on the first rank only, so `mpirun -np 4 fabricbench list`
 * prints once. */
bool fab_first_rank(void)
{
    return fab_launcher_rank() <= 0;
}

/* The first rank on this host, from the launcher's environment (before MPI_Init). */
bool fab_first_local_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "SLURM_LOCALID", "PMI_LOCAL_RANK"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);

        if (v && *v)
            return atoi(v) == 0;
    }
    return true;
}
