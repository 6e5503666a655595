/* fabricbench: parse, check, run, exit code. Everything else lives in the harness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab.h"
#include "fab_version.h"

/* Before MPI_Init the rank is known only from the launcher's environment. Commands that
 * need no MPI print on the first rank only, so `mpirun -np 4 fabricbench list` prints once. */
static bool fab_first_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);

        if (v && *v)
            return atoi(v) == 0;
    }
    return true;
}

static int fab_no_mpi_command(fab_cmd_t cmd)
{
    if (!fab_first_rank())
        return FAB_EXIT_OK;
    switch (cmd) {
    case FAB_CMD_HELP:
        fab_opts_print_help(stdout);
        break;
    case FAB_CMD_RUN_HELP:
        fab_opts_print_run_help(stdout);
        break;
    case FAB_CMD_VERSION:
        printf("fabricbench %s (git %s)\n", FAB_VERSION, FAB_GIT_COMMIT);
        break;
    case FAB_CMD_LIST:
        for (int i = 0; i < fab_nkernels; i++)
            printf("%-10s %s\n", fab_kernels[i]->name, fab_kernels[i]->summary);
        break;
    default:
        break;
    }
    return FAB_EXIT_OK;
}

static fab_status_t fab_run_all(const fab_world_t *w, const fab_opts_t *o, int argc, char **argv,
                                bool *agreed)
{
    fab_transport_t t;
    fab_sink_t text = fab_out_text_sink(stdout);
    fab_status_t st, worst = FAB_OK;

    *agreed = true;
    st = fab_run_check(w, o);
    if (st != FAB_OK)
        return st;
    fab_transport_detect(&t);
    if (w->rank == 0)
        fab_out_header(stdout, w, &t, argc, argv);
    for (int i = 0; i < o->nkernels; i++) {
        st = fab_run_kernel(w, o, o->kernels[i], &text, agreed);
        if (!*agreed)
            return st;
        /* A validation failure is a finding, not a reason to stop: run the rest. */
        if (st != FAB_OK && st != FAB_ERR_VALIDATION)
            return st;
        if (st != FAB_OK)
            worst = st;
    }
    if (fab_transport_needs_probe(&t)) {
        st = fab_agree(fab_transport_probe(w, o->pair_a, o->pair_b, &t), MPI_COMM_WORLD);
        if (st != FAB_OK)
            return st;
        if (w->rank == 0)
            fab_out_trailer(stdout, &t, o->pair_a, o->pair_b);
    }
    return worst;
}

int main(int argc, char **argv)
{
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_world_t w;
    char err[512], hint[512];
    bool agreed = true;
    fab_status_t st;
    int code;

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
        return fab_no_mpi_command(cmd);

    fab_log_set_level(o.verbose >= 2 ? FAB_LOG_DEBUG : o.verbose ? FAB_LOG_INFO : FAB_LOG_WARN);
    fab_transport_prepare(&o);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "fabricbench: error: MPI_Init failed; check the MPI installation and "
                        "the launcher (mpirun/srun)\n");
        return FAB_EXIT_ENV;
    }
    /* Errors come back as return codes so that each one is reported where it happens. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    st = fab_world_init(&w);
    if (st == FAB_OK)
        st = fab_run_all(&w, &o, argc, argv, &agreed);
    code = fab_status_exit_code(st);
    if (!agreed) {
        /* Only this rank knows; its peers may be blocked in a transfer with it. */
        FAB_ERROR("stopping the job: %s; results up to here were printed", fab_status_string(st));
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    /* Every rank leaves with the same exit code, so mpirun reports the right one. */
    code = fab_status_exit_code(fab_agree(st, MPI_COMM_WORLD));
    fab_buffers_free();
    fab_world_free(&w);
    MPI_Finalize();
    return code;
}
