/* SPDX-License-Identifier: BSD-3-Clause */
/* fabricbench: parse, check, run, exit code. Everything else lives in the harness. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/launcher.h"
#include "cli/options.h"
#include "cli/run.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/watchdog.h"
#include "core/world.h"
#include "measure/buffers.h"
#include "net/fabric.h"
#include "net/transport.h"
#include "out/outputs.h"

int main(int argc, char **argv)
{
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_world_t w;
    fab_fabric_t fb;
    fab_status_t fst;
    char err[1024], hint[1024], note[512];
    bool agreed = true;
    fab_status_t st;
    int code;

    if (argc > 1 && strcmp(argv[1], "completion") == 0)
        return fab_completion_command(argc, argv); /* no MPI, no options of run */
    st = fab_opts_parse(argc, argv, &cmd, &o, err, sizeof(err), hint, sizeof(hint));
    if (st != FAB_OK) {
        /* Every rank parsed the same arguments and reached the same verdict: all of them
         * exit here, before MPI_Init, so none can wait for another. */
        if (fab_first_rank()) {
            fprintf(stderr, "fabricbench: error: %s\n", err);
            if (hint[0])
                fprintf(stderr, "hint: %s\n", hint);
        }
        return fab_status_exit_code(st);
    }
    if (cmd != FAB_CMD_RUN)
        return fab_command_without_mpi(cmd, &o);

    fab_log_set_level(o.verbose >= 2 ? FAB_LOG_DEBUG : o.verbose ? FAB_LOG_INFO : FAB_LOG_WARN);
    if (o.note[0] && fab_first_rank())
        fprintf(stderr, "fabricbench: warning: %s\n", o.note);
    /* The fabric is resolved on each host before MPI_Init (UCX reads its environment there).
     * A host without it still starts MPI, so that every rank learns of the failure and none
     * waits; the first rank of that host says why right away. */
    fst = fab_fabric_prepare(&o, &fb, err, sizeof(err), hint, sizeof(hint), note, sizeof(note));
    if (fst == FAB_ERR_USAGE) {
        /* The same on every host (a bad name or option): all ranks stop here, as for any
         * other usage error. */
        if (fab_first_rank()) {
            fprintf(stderr, "fabricbench: error: %s\n", err);
            if (hint[0])
                fprintf(stderr, "hint: %s\n", hint);
        }
        return fab_status_exit_code(fst);
    }
    if (fst != FAB_OK && fab_first_local_rank()) {
        char host[FAB_HOST_MAX] = "?";

        gethostname(host, sizeof(host) - 1);
        fprintf(stderr, "[%s] fabricbench: error: %s\n", host, err);
        if (hint[0])
            fprintf(stderr, "hint: %s\n", hint);
    }
    if (note[0] && fab_first_rank())
        fprintf(stderr, "fabricbench: warning: %s\n", note);
    fab_transport_prepare(&o);
    fab_outputs_prepare(&o);
    /* A file-size limit (ulimit -f) is a write error to report, not a silent death: also
     * for the shared-memory files MPI_Init creates. */
    signal(SIGXFSZ, SIG_IGN);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "fabricbench: error: MPI_Init failed; check the MPI installation and "
                        "the launcher (mpirun/srun)\n");
        return FAB_EXIT_ENV;
    }
    /* From here a signal asks for a clean stop (the first block end sees it). */
    fab_signals_install();
    /* Errors come back as return codes so that each one is reported where it happens. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    st = fab_world_init(&w);
    if (st == FAB_OK) /* from here no rank waits without a bound (core/watchdog.h) */
        fab_watch_start(&w, (double)o.stall_timeout);
    if (st == FAB_OK)
        st = fab_agree(fst, MPI_COMM_WORLD); /* a host without the fabric said why above */
    if (st == FAB_OK)
        st = fab_run_all(&w, &o, &fb, argc, argv, &agreed);
    code = fab_status_exit_code(st);
    if (!agreed) {
        /* Only this rank knows; its peers may be blocked in a transfer with it. */
        FAB_ERROR("stopping the job: %s; rows measured so far were written", fab_status_string(st));
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    /* Every rank leaves with the same exit code, so mpirun reports the right one. */
    fab_watch_phase("agreeing on the exit code", NULL, 0, -1, 0);
    code = fab_status_exit_code(fab_agree(st, MPI_COMM_WORLD));
    fab_watch_phase("finishing (MPI_Finalize)", NULL, 0, -1, 0);
    fab_buffers_free();
    MPI_Finalize();
    fab_watch_stop();
    fab_world_free(&w);
    return code;
}
