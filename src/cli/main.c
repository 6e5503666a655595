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
#include "cli/startup.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/watchdog.h"
#include "core/world.h"
#include "measure/buffers.h"

int main(int argc, char **argv)
{
    /* Static: the watchdog's thread reads the hosts until the process has ended. */
    static fab_world_t w;
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_fabric_t fb;
    fab_status_t fst;
    char err[1024], hint[2048]; /* the --columns refusal lists every column */
    bool agreed = true;
    fab_status_t st;
    int code;

    /* A file-size limit is a write error to report, never a death: also when mpirun, hitting
     * it itself, forwards SIGXFSZ to ranks that have not got further than this. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "completion") == 0)
        return fab_completion_command(argc, argv); /* no MPI, no options of run */
    /* From here no rank waits without a bound: the default until the options say more. */
    fab_opts_defaults(&o);
    fab_watch_arm(fab_launcher_rank(), (double)o.launch.startup_timeout);
    fab_watch_startup("parse", "parsing the command line");
    st = fab_opts_parse(argc, argv, &cmd, &o, err, sizeof(err), hint, sizeof(hint));
    if (st != FAB_OK) {
        /* Every rank parsed the same arguments and reached the same verdict: all of them
         * exit here, before MPI_Init, so none can wait for another. */
        fab_refuse_before_init(err, hint);
        return fab_status_exit_code(st);
    }
    fab_watch_arm(fab_launcher_rank(), cmd == FAB_CMD_RUN ? (double)o.launch.startup_timeout : 0);
    if (cmd != FAB_CMD_RUN)
        return fab_command_without_mpi(cmd, &o);
    if (!fab_startup_prepare(&o, &fb, &fst, &code))
        return code;
    fab_watch_startup("init", "in MPI_Init, which returns once every rank of the job has "
                              "started it (a rank stopped, dead or never started holds it)");
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "fabricbench: error: MPI_Init failed; check the MPI installation and "
                        "the launcher (mpirun/srun)\n");
        return FAB_EXIT_ENV;
    }
    fab_watch_startup("world", "setting up after MPI_Init (the first collectives with every "
                               "rank: host names, the watchdog's addresses)");
    /* From here a signal asks for a clean stop (the first block end sees it). */
    fab_signals_install();
    /* Errors come back as return codes so that each one is reported where it happens. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    st = fab_world_init(&w);
    if (st == FAB_OK) /* the hand-over: a step's deadline from here (core/watchdog.h) */
        fab_watch_start(&w, (double)o.launch.stall_timeout, o.launch.quiet);
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
    fab_watch_end("finalize", "in MPI_Finalize, which waits for every rank to reach it");
    fab_buffers_free();
    MPI_Finalize();
    fab_watch_end("exit", "exiting after MPI_Finalize (the MPI library's and the files' "
                          "clean-up)");
    return code; /* the watchdog's thread ends with the process, still guarding its exit */
}
