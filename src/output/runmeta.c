/* SPDX-License-Identifier: BSD-3-Clause */
/* The run's metadata fields (output/runmeta.h): their names, types, files and `show` labels in one
 * table, and where each value comes from. The table's order is the order `fabricbench show`
 * prints the labelled ones in. */
#include <math.h>
#include <string.h>

#include "net/fabric.h"
#include "output/h5load.h"
#include "output/runmeta.h"

#include "fab_version.h"

enum {
    M_TOOL,
    M_SIM,
    M_GIT,
    M_START,
    M_END,
    M_STATUS,
    M_STOP,
    M_COMMAND,
    M_RPN,
    M_MPI,
    M_PML,
    M_UCX,
    M_TLS,
    M_TLS_PAIRS,
    M_FABRIC,
    M_FDEVICE,
    M_FENV,
    M_FCHECK,
    M_FCHECK_WHY,
    M_LINE,
    M_LINE_FROM,
    M_TIMER,
    M_SLURM_JOB,
    M_TOOL_VERSION,
    M_PML_HOW,
    M_HWLOC,
    M_HDF5,
    M_TIMER_COST,
    M_NRANKS,
    M_NHOSTS,
    M_SLURM_STEP,
    M_SLURM_NODES,
    M_RESULTS,
    M_FREQUESTED,
    M_FDESC,
    M_FPORT,
    M_FNETDEV,
    M_FGID,
    M_FCHOICE,
    M_FEXPECT,
    M_HOSTS,
    M_PLACEMENT,
    M_INVENTORY,
    M_ENV,
    M_EXIT,
    M_DISTURBANCE,
    M_BUDGET,
    M_BUDGET_CAP,
    M_MEASURE,
    M_ROWS_INVALID,
    M_ROWS_DISTURBED,
    M_ROWS_NOISY,
    M_SYNC,
    M_COUNT
};

#define B     FAB_META_BEGIN
#define E     FAB_META_END
#define FILES FAB_META_FILES

const fab_meta_field_t fab_meta_fields[] = {
    [M_TOOL] = {"tool", NULL, FAB_META_STR, B, FILES, "tool"},
    /* only in a simulated build's files (core/sim.h) */
    [M_SIM] = {"simulated", NULL, FAB_META_STR, B, FILES, "SIMULATED"},
    [M_GIT] = {"git_commit", NULL, FAB_META_STR, B, FILES, "git"},
    [M_START] = {"start_time", NULL, FAB_META_STR, B, FILES, "date"},
    [M_END] = {"end_time", NULL, FAB_META_STR, E, FILES, "ended"},
    [M_STATUS] = {"status", NULL, FAB_META_STR, E, FILES, "status"},
    [M_STOP] = {"stop_reason", NULL, FAB_META_STR, E, FILES, "reason"},
    [M_COMMAND] = {"command_line", NULL, FAB_META_STR, B, FILES, "command"},
    [M_RPN] = {"ranks_per_node", NULL, FAB_META_STR, B, FILES, "ranks per node"},
    [M_MPI] = {"mpi_library", NULL, FAB_META_STR, B, FILES, "mpi"},
    [M_PML] = {"pml", NULL, FAB_META_STR, B, FILES, "pml"},
    [M_UCX] = {"ucx_version", NULL, FAB_META_STR, B, FILES, "ucx"},
    [M_TLS] = {"ucx_transports", NULL, FAB_META_STR, E, FILES, "ucx transports"},
    [M_TLS_PAIRS] = {"ucx_transports_by_pair", NULL, FAB_META_STR, E, FILES,
                     "ucx transports by probed pair"},
    [M_FABRIC] = {"fabric", NULL, FAB_META_STR, B, FILES, "fabric"},
    [M_FDEVICE] = {"fabric_device", NULL, FAB_META_STR, B, FILES, "fabric device"},
    [M_FENV] = {"fabric_env", NULL, FAB_META_STR, B, FILES, "fabric environment"},
    [M_FCHECK] = {"fabric_check", NULL, FAB_META_STR, E, FILES, "fabric check"},
    [M_FCHECK_WHY] = {"fabric_check_reason", NULL, FAB_META_STR, E, FILES, "fabric check reason"},
    [M_LINE] = {"line_rate_gbps", NULL, FAB_META_F64, B, FILES, "line rate Gb/s"},
    [M_LINE_FROM] = {"line_rate_source", NULL, FAB_META_STR, B, FILES, "line rate from"},
    [M_TIMER] = {"timer", NULL, FAB_META_STR, B, FILES, "timer"},
    [M_SLURM_JOB] = {"slurm_job_id", NULL, FAB_META_STR, B, FILES, "slurm job"},
    [M_TOOL_VERSION] = {"tool_version", NULL, FAB_META_STR, B, FILES, NULL},
    [M_PML_HOW] = {"pml_detection", NULL, FAB_META_STR, B, FILES, NULL},
    [M_HWLOC] = {"hwloc_version", NULL, FAB_META_STR, B, FILES, NULL},
    [M_HDF5] = {"hdf5_version", NULL, FAB_META_STR, B, FILES, NULL},
    [M_TIMER_COST] = {"timer_cost_ns", NULL, FAB_META_F64, B, FILES, NULL},
    [M_NRANKS] = {"nranks", NULL, FAB_META_INT, B, FILES, NULL},
    [M_NHOSTS] = {"nhosts", NULL, FAB_META_INT, B, FILES, NULL},
    [M_SLURM_STEP] = {"slurm_step_id", NULL, FAB_META_STR, B, FILES, NULL},
    [M_SLURM_NODES] = {"slurm_nodelist", NULL, FAB_META_STR, B, FILES, NULL},
    /* the HDF5 file is where the results go: only the exports name it */
    [M_RESULTS] = {"results_file", NULL, FAB_META_STR, B, FAB_META_JSONL, NULL},
    [M_FREQUESTED] = {"fabric_requested", NULL, FAB_META_STR, B, FILES, NULL},
    [M_FDESC] = {"fabric_description", NULL, FAB_META_STR, B, FILES, NULL},
    [M_FPORT] = {"fabric_port", NULL, FAB_META_INT, B, FILES, NULL},
    [M_FNETDEV] = {"fabric_netdev", NULL, FAB_META_STR, B, FILES, NULL},
    [M_FGID] = {"fabric_gid_index", NULL, FAB_META_INT, B, FILES, NULL},
    [M_FCHOICE] = {"fabric_choice", NULL, FAB_META_STR, B, FILES, NULL},
    [M_FEXPECT] = {"fabric_expect", NULL, FAB_META_STR, B, FILES, NULL},
    [M_HOSTS] = {"hostnames", NULL, FAB_META_STRS, B, FILES, NULL},
    [M_PLACEMENT] = {"placement", NULL, FAB_META_STRS, B, FILES, NULL},
    [M_INVENTORY] = {"inventory_json", "inventory", FAB_META_JSON, B, FILES, NULL},
    [M_ENV] = {"env", NULL, FAB_META_ENV, B, FILES, NULL},
    /* what the run alone exits with (the HDF5 status says the same in words) */
    [M_EXIT] = {"exit_code", NULL, FAB_META_INT, E, FAB_META_JSONL, NULL},
    /* the measurement's time and the rows' quality (measure/quality.h), at the end */
    [M_DISTURBANCE] = {"disturbance", NULL, FAB_META_STR, E, FILES, "disturbance"},
    [M_BUDGET] = {"budget_s", NULL, FAB_META_F64, E, FILES, "budget s"},
    [M_BUDGET_CAP] = {"budget_cap_s", NULL, FAB_META_F64, E, FILES, NULL},
    [M_MEASURE] = {"measure_s", NULL, FAB_META_F64, E, FILES, "measured s"},
    [M_ROWS_INVALID] = {"rows_invalid", NULL, FAB_META_INT, E, FILES, "rows invalid"},
    [M_ROWS_DISTURBED] = {"rows_disturbed", NULL, FAB_META_INT, E, FILES, "rows disturbed"},
    [M_ROWS_NOISY] = {"rows_noisy", NULL, FAB_META_INT, E, FILES, "rows noisy"},
    /* shown in every kernel's iteration policy instead */
    [M_SYNC] = {"sync", NULL, FAB_META_STR, B, FILES, NULL},
};
const int fab_nmeta = M_COUNT;

/* A fabric string that is empty for --fabric any. */
static const char *fab_meta_any(const char *s)
{
    return s[0] ? s : "any";
}

bool fab_meta_get(int i, const fab_run_info_t *info, fab_meta_value_t *v)
{
    const fab_fabric_t *fb = info->fabric;

    memset(v, 0, sizeof(*v));
    if (i >= M_FABRIC && i <= M_FCHECK_WHY && !fb)
        return false;
    if (i >= M_FREQUESTED && i <= M_FEXPECT && !fb)
        return false;
    switch (i) {
    case M_TOOL:
        v->s = "fabricbench " FAB_VERSION;
        break;
    case M_SIM:
        v->s = info->simulated;
        return info->simulated[0] != '\0';
    case M_GIT:
        v->s = FAB_GIT_COMMIT;
        break;
    case M_START:
        v->s = info->start_time;
        break;
    case M_END:
        v->s = info->end_time;
        break;
    case M_STATUS:
        v->s = info->status;
        break;
    case M_STOP:
        v->s = info->stop_reason;
        break;
    case M_COMMAND:
        v->s = info->command_line ? info->command_line : "";
        break;
    case M_RPN:
        v->s = info->ranks_per_node;
        break;
    case M_MPI:
        v->s = info->mpi_library;
        break;
    case M_PML:
        v->s = info->pml;
        break;
    case M_UCX:
        v->s = info->ucx_version;
        break;
    case M_TLS:
        v->s = info->ucx_tls;
        break;
    case M_TLS_PAIRS:
        v->s = info->ucx_pairs;
        break;
    case M_FABRIC:
        v->s = fab_meta_any(fb->name);
        break;
    case M_FDEVICE:
        v->s = fb->device;
        break;
    case M_FENV:
        v->s = fb->env;
        break;
    case M_FCHECK:
        v->s = fb->verdict;
        break;
    case M_FCHECK_WHY:
        v->s = fb->verdict_why;
        break;
    case M_LINE:
        v->d = info->line_rate_gbps > 0 ? info->line_rate_gbps : NAN;
        break;
    case M_LINE_FROM:
        v->s = info->line_rate_from;
        break;
    case M_TIMER:
        v->s = info->timer;
        break;
    case M_SLURM_JOB:
        v->s = info->slurm_job;
        break;
    case M_TOOL_VERSION:
        v->s = FAB_VERSION;
        break;
    case M_PML_HOW:
        v->s = info->pml_how;
        break;
    case M_HWLOC:
        v->s = info->hwloc_version;
        break;
    case M_HDF5:
        v->s = fab_h5_version(); /* loads the library: asked only for a file (output/h5load.h) */
        break;
    case M_TIMER_COST:
        v->d = info->timer_cost_ns;
        break;
    case M_NRANKS:
        v->i = info->nranks;
        break;
    case M_NHOSTS:
        v->i = info->nhosts;
        break;
    case M_SLURM_STEP:
        v->s = info->slurm_step;
        break;
    case M_SLURM_NODES:
        v->s = info->slurm_nodelist;
        break;
    case M_RESULTS:
        v->s = info->results_file;
        break;
    case M_FREQUESTED:
        v->s = fab_meta_any(fb->requested);
        break;
    case M_FDESC:
        v->s = fb->description;
        break;
    case M_FPORT:
        v->i = fb->port;
        break;
    case M_FNETDEV:
        v->s = fb->netdev;
        break;
    case M_FGID:
        v->i = fb->gid_index;
        break;
    case M_FCHOICE:
        v->s = fb->why;
        break;
    case M_FEXPECT:
        v->s = fb->expect;
        break;
    case M_HOSTS:
        v->list = info->hosts;
        v->n = info->hosts ? info->nranks : 0;
        return info->hosts != NULL;
    case M_PLACEMENT:
        v->list = info->placement;
        v->n = info->placement ? info->nranks : 0;
        return info->placement != NULL;
    case M_INVENTORY:
        v->s = info->inventory_json;
        return info->inventory_json != NULL;
    case M_ENV:
        v->list = info->env;
        v->n = info->nenv;
        break;
    case M_EXIT:
        v->i = info->exit_code;
        break;
    case M_DISTURBANCE:
        v->s = info->disturbance;
        break;
    case M_BUDGET:
        v->d = info->budget_s;
        break;
    case M_BUDGET_CAP:
        v->d = info->budget_cap_s;
        break;
    case M_MEASURE:
        v->d = info->measure_s;
        break;
    case M_ROWS_INVALID:
        v->i = info->rows_invalid;
        break;
    case M_ROWS_DISTURBED:
        v->i = info->rows_disturbed;
        break;
    case M_ROWS_NOISY:
        v->i = info->rows_noisy;
        break;
    case M_SYNC:
        v->s = info->sync ? info->sync : "none";
        break;
    default:
        return false;
    }
    return true;
}
