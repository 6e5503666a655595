/* SPDX-License-Identifier: BSD-3-Clause */
/* The run's metadata fields (output/runmeta.h): their names, types, files and `show` labels in one
 * table, and where each value comes from. The table's order is the order `fabricbench show`
 * prints the labelled ones in. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "net/fabric.h"
#include "output/h5load.h"
#include "output/runmeta.h"

#include "fab_version.h"

/* Where a field's value comes from, written in its row: a member of fab_run_info_t (RUN) or of
 * its resolved fabric (FAB; the field is absent without one), whose C type gives the field's:
 * a char array a string, int a whole number, double a number, char ** one string per rank
 * (absent while NULL). FAB_ANY: a fabric string that is "any" when empty (--fabric any).
 * GET(TYPE, what): a value of its own, fab_meta_what below. */
#define FAB_META_TYPE(x)                                                                           \
    _Generic(&(x),                                                                                 \
        char(*)[sizeof(x)]: FAB_META_STR,                                                          \
        int *: FAB_META_INT,                                                                       \
        double *: FAB_META_F64,                                                                    \
        char ***: FAB_META_STRS)
#define RUN(m) FAB_META_TYPE(((fab_run_info_t *)0)->m), fab_meta_run, offsetof(fab_run_info_t, m)
#define FAB(m) FAB_META_TYPE(((fab_fabric_t *)0)->m), fab_meta_fabric, offsetof(fab_fabric_t, m)
#define FAB_ANY(m)                                                                                 \
    FAB_META_TYPE(((fab_fabric_t *)0)->m), fab_meta_fabric_any, offsetof(fab_fabric_t, m)
#define GET(type, what) FAB_META_##type, fab_meta_##what, 0
#define B               FAB_META_BEGIN
#define E               FAB_META_END
#define FILES           FAB_META_FILES

/* The member at f->off of the struct at base, of the field's type. */
static bool fab_meta_member(const fab_meta_field_t *f, const char *base, fab_meta_value_t *v)
{
    const char *p = base + f->off;

    switch (f->type) {
    case FAB_META_STR:
        v->s = p;
        return true;
    case FAB_META_INT:
        v->i = *(const int *)p;
        return true;
    case FAB_META_F64:
        v->d = *(const double *)p;
        return true;
    default:
        return false;
    }
}

static bool fab_meta_run(const fab_meta_field_t *f, const fab_run_info_t *info, fab_meta_value_t *v)
{
    if (f->type == FAB_META_STRS) {
        char **list = *(char **const *)((const char *)info + f->off);

        v->list = list;
        v->n = list ? info->nranks : 0;
        return list != NULL;
    }
    return fab_meta_member(f, (const char *)info, v);
}

static bool fab_meta_fabric(const fab_meta_field_t *f, const fab_run_info_t *info,
                            fab_meta_value_t *v)
{
    return info->fabric && fab_meta_member(f, (const char *)info->fabric, v);
}

static bool fab_meta_fabric_any(const fab_meta_field_t *f, const fab_run_info_t *info,
                                fab_meta_value_t *v)
{
    if (!fab_meta_fabric(f, info, v))
        return false;
    if (!v->s[0])
        v->s = "any";
    return true;
}

/* The values of their own (GET). */
static bool fab_meta_tool(const fab_meta_field_t *f, const fab_run_info_t *info,
                          fab_meta_value_t *v)
{
    (void)f;
    (void)info;
    v->s = "fabricbench " FAB_VERSION;
    return true;
}

static bool fab_meta_version(const fab_meta_field_t *f, const fab_run_info_t *info,
                             fab_meta_value_t *v)
{
    (void)f;
    (void)info;
    v->s = FAB_VERSION;
    return true;
}

static bool fab_meta_git(const fab_meta_field_t *f, const fab_run_info_t *info, fab_meta_value_t *v)
{
    (void)f;
    (void)info;
    v->s = FAB_GIT_COMMIT;
    return true;
}

/* Only in a simulated build's files. */
static bool fab_meta_simulated(const fab_meta_field_t *f, const fab_run_info_t *info,
                               fab_meta_value_t *v)
{
    (void)f;
    v->s = info->simulated;
    return info->simulated[0] != '\0';
}

static bool fab_meta_command(const fab_meta_field_t *f, const fab_run_info_t *info,
                             fab_meta_value_t *v)
{
    (void)f;
    v->s = info->command_line ? info->command_line : "";
    return true;
}

/* NaN (unknown) for 0. */
static bool fab_meta_line_rate(const fab_meta_field_t *f, const fab_run_info_t *info,
                               fab_meta_value_t *v)
{
    (void)f;
    v->d = info->line_rate_gbps > 0 ? info->line_rate_gbps : NAN;
    return true;
}

/* Loads the library: asked only for a file (output/h5load.h). */
static bool fab_meta_hdf5(const fab_meta_field_t *f, const fab_run_info_t *info,
                          fab_meta_value_t *v)
{
    (void)f;
    (void)info;
    v->s = fab_h5_version();
    return true;
}

static bool fab_meta_inventory(const fab_meta_field_t *f, const fab_run_info_t *info,
                               fab_meta_value_t *v)
{
    (void)f;
    v->s = info->inventory_json;
    return info->inventory_json != NULL;
}

static bool fab_meta_env(const fab_meta_field_t *f, const fab_run_info_t *info, fab_meta_value_t *v)
{
    (void)f;
    v->list = info->env;
    v->n = info->nenv;
    return true;
}

static bool fab_meta_ladder(const fab_meta_field_t *f, const fab_run_info_t *info,
                            fab_meta_value_t *v)
{
    (void)f;
    v->s = info->ladder;
    return info->ladder && info->ladder[0];
}

static bool fab_meta_sync(const fab_meta_field_t *f, const fab_run_info_t *info,
                          fab_meta_value_t *v)
{
    (void)f;
    v->s = info->sync ? info->sync : "none";
    return true;
}

static bool fab_meta_straggle(const fab_meta_field_t *f, const fab_run_info_t *info,
                              fab_meta_value_t *v)
{
    (void)f;
    v->s = info->straggle ? info->straggle : "";
    return true;
}

const fab_meta_field_t fab_meta_fields[] = {
    {"tool", NULL, GET(STR, tool), B, FILES, "tool"},
    /* only in a simulated build's files (core/sim.h) */
    {"simulated", NULL, GET(STR, simulated), B, FILES, "SIMULATED"},
    {"git_commit", NULL, GET(STR, git), B, FILES, "git"},
    {"start_time", NULL, RUN(start_time), B, FILES, "date"},
    {"end_time", NULL, RUN(end_time), E, FILES, "ended"},
    {"status", NULL, RUN(status), E, FILES, "status"},
    {"stop_reason", NULL, RUN(stop_reason), E, FILES, "reason"},
    {"command_line", NULL, GET(STR, command), B, FILES, "command"},
    {"ranks_per_node", NULL, RUN(ranks_per_node), B, FILES, "ranks per node"},
    {"mpi_library", NULL, RUN(mpi_library), B, FILES, "mpi"},
    {"pml", NULL, RUN(pml), B, FILES, "pml"},
    {"ucx_version", NULL, RUN(ucx_version), B, FILES, "ucx"},
    {"ucx_transports", NULL, RUN(ucx_tls), E, FILES, "ucx transports"},
    {"ucx_transports_by_pair", NULL, RUN(ucx_pairs), E, FILES, "ucx transports by probed pair"},
    {"fabric", NULL, FAB_ANY(name), B, FILES, "fabric"},
    {"fabric_device", NULL, FAB(device), B, FILES, "fabric device"},
    {"fabric_env", NULL, FAB(env), B, FILES, "fabric environment"},
    {"fabric_check", NULL, FAB(verdict), E, FILES, "fabric check"},
    {"fabric_check_reason", NULL, FAB(verdict_why), E, FILES, "fabric check reason"},
    {"line_rate_gbps", NULL, GET(F64, line_rate), B, FILES, "line rate Gb/s"},
    {"line_rate_source", NULL, RUN(line_rate_from), B, FILES, "line rate from"},
    {"timer", NULL, RUN(timer), B, FILES, "timer"},
    {"slurm_job_id", NULL, RUN(slurm_job), B, FILES, "slurm job"},
    {"tool_version", NULL, GET(STR, version), B, FILES, NULL},
    {"pml_detection", NULL, RUN(pml_how), B, FILES, NULL},
    {"hwloc_version", NULL, RUN(hwloc_version), B, FILES, NULL},
    {"hdf5_version", NULL, GET(STR, hdf5), B, FILES, NULL},
    {"timer_cost_ns", NULL, RUN(timer_cost_ns), B, FILES, NULL},
    {"nranks", NULL, RUN(nranks), B, FILES, NULL},
    {"nhosts", NULL, RUN(nhosts), B, FILES, NULL},
    {"slurm_step_id", NULL, RUN(slurm_step), B, FILES, NULL},
    {"slurm_nodelist", NULL, RUN(slurm_nodelist), B, FILES, NULL},
    /* the HDF5 file is where the results go: only the exports name it */
    {"results_file", NULL, RUN(results_file), B, FAB_META_JSONL, NULL},
    {"fabric_requested", NULL, FAB_ANY(requested), B, FILES, NULL},
    {"fabric_description", NULL, FAB(description), B, FILES, NULL},
    {"fabric_port", NULL, FAB(port), B, FILES, NULL},
    {"fabric_netdev", NULL, FAB(netdev), B, FILES, NULL},
    {"fabric_gid_index", NULL, FAB(gid_index), B, FILES, NULL},
    {"fabric_choice", NULL, FAB(why), B, FILES, NULL},
    {"fabric_expect", NULL, FAB(expect), B, FILES, NULL},
    {"hostnames", NULL, RUN(hosts), B, FILES, NULL},
    {"placement", NULL, RUN(placement), B, FILES, NULL},
    {"inventory_json", "inventory", GET(JSON, inventory), B, FILES, NULL},
    {"env", NULL, GET(ENV, env), B, FILES, NULL},
    /* what the run alone exits with (the HDF5 status says the same in words) */
    {"exit_code", NULL, RUN(exit_code), E, FAB_META_JSONL, NULL},
    /* the measurement's time and the rows' quality (measure/quality.h), at the end */
    {"disturbance", NULL, RUN(disturbance), E, FILES, "disturbance"},
    {"budget_s", NULL, RUN(budget_s), E, FILES, "budget s"},
    {"budget_cap_s", NULL, RUN(budget_cap_s), E, FILES, NULL},
    {"measure_s", NULL, RUN(measure_s), E, FILES, "measured s"},
    {"rows_invalid", NULL, RUN(rows_invalid), E, FILES, "rows invalid"},
    {"rows_disturbed", NULL, RUN(rows_disturbed), E, FILES, "rows disturbed"},
    {"rows_noisy", NULL, RUN(rows_noisy), E, FILES, "rows noisy"},
    /* `run ladder`: the layer ladder (output/ladder.h), JSON */
    {"ladder", NULL, GET(JSON, ladder), E, FILES, NULL},
    /* shown in every kernel's iteration policy instead */
    {"sync", NULL, GET(STR, sync), B, FILES, NULL},
    /* a what-if: the busy delay one rank adds before every call ("" none) */
    {"straggle", NULL, GET(STR, straggle), B, FILES, NULL},
};
const int fab_nmeta = (int)(sizeof(fab_meta_fields) / sizeof(fab_meta_fields[0]));

bool fab_meta_get(int i, const fab_run_info_t *info, fab_meta_value_t *v)
{
    memset(v, 0, sizeof(*v));
    return i >= 0 && i < fab_nmeta && fab_meta_fields[i].get(&fab_meta_fields[i], info, v);
}
