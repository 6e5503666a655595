/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench run` before MPI_Init (cli/startup.h). */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/launcher.h"
#include "cli/startup.h"
#include "core/log.h"
#include "core/watchdog.h"
#include "core/world.h"
#include "net/topology.h"
#include "net/transport.h"
#include "output/outputs.h"

/* A file-size limit makes MPI_Init's shared-memory files fail (Open MPI then aborts the
 * rank with its own exit code) and every result file a write error: said here, before MPI,
 * as the write error it is (exit 3), on the rank and host that have it. */
static bool fab_startup_fsize(int *code)
{
    struct rlimit rl;
    char host[FAB_HOST_MAX] = "?";
    int rank = fab_launcher_rank();

    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= FAB_FSIZE_MIN)
        return true;
    gethostname(host, sizeof(host) - 1);
    fab_log_init(rank, host);
    FAB_ERROR("the file-size limit here (ulimit -f) is %llu KiB: MPI_Init's shared-memory files "
              "(over 4 MiB) cannot be written under it; not starting (exit 3)",
              (unsigned long long)(rl.rlim_cur >> 10));
    fprintf(stderr,
            "hint: raise it where the job starts (ulimit -f unlimited, or at least %llu "
            "KiB), e.g. in the job script before mpirun or srun\n",
            (unsigned long long)(FAB_FSIZE_MIN >> 10));
    *code = fab_status_exit_code(FAB_ERR_IO);
    return false;
}

bool fab_startup_prepare(fab_opts_t *o, fab_fabric_t *fb, fab_status_t *fst, int *code)
{
    char err[1024], hint[2048], note[512]; /* hint: as main's */

    fab_log_set_level(o->launch.verbose >= 2 ? FAB_LOG_DEBUG
                      : o->launch.verbose    ? FAB_LOG_INFO
                                             : FAB_LOG_WARN);
    if (o->note[0] && fab_first_rank())
        fprintf(stderr, "fabricbench: warning: %s\n", o->note);
    /* The fabric is resolved on each host before MPI_Init (UCX reads its environment there).
     * A host without it still starts MPI, so that every rank learns of the failure and none
     * waits; the first rank of that host says why right away. */
    fab_watch_startup("fabric", "preparing the fabric before MPI_Init (--fabric, the pml)");
    *fst =
        fab_fabric_prepare(&o->net, fb, err, sizeof(err), hint, sizeof(hint), note, sizeof(note));
    if (*fst == FAB_ERR_USAGE) {
        /* The same on every host (a bad name or option): all ranks stop here, as for any
         * other usage error. */
        fab_refuse_before_init(err, hint);
        *code = fab_status_exit_code(*fst);
        return false;
    }
    if (*fst != FAB_OK && fab_first_local_rank()) {
        char host[FAB_HOST_MAX] = "?";

        gethostname(host, sizeof(host) - 1);
        fprintf(stderr, "[%s] fabricbench: error: %s\n", host, err);
        if (hint[0])
            fprintf(stderr, "hint: %s\n", hint);
    }
    if (note[0] && fab_first_rank())
        fprintf(stderr, "fabricbench: warning: %s\n", note);
    fab_transport_prepare(&o->net);
    fab_topo_env_prepare(); /* before MPI_Init's topology */
    fab_outputs_prepare(&o->out);
    return fab_startup_fsize(code);
}
