/* SPDX-License-Identifier: BSD-3-Clause */
/* What describes a run: versions, hosts, placement counts, Slurm ids, the relevant
 * environment and what the transport detection found. Filled on rank 0. */
#include <hwloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/envrec.h"
#include "core/sim.h"
#include "core/status.h"
#include "core/timing.h"
#include "core/world.h"
#include "net/runinfo.h"
#include "net/transport.h"

extern char **environ;

void fab_utc_now(char *buf, size_t len, const char *fmt)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, len, fmt, &tm);
}

static int fab_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *fab_join_args(int argc, char **argv)
{
    size_t len = 1;
    char *s;

    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) * 2 + 3;
    s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t'\"$\\") != NULL;

        if (i)
            strcat(s, " ");
        if (!quote) {
            strcat(s, argv[i]);
            continue;
        }
        /* Single quotes, with embedded ones as '\'' so the line can be pasted into a shell. */
        strcat(s, "'");
        for (const char *p = argv[i]; *p; p++) {
            if (*p == '\'')
                strcat(s, "'\\''");
            else
                strncat(s, p, 1);
        }
        strcat(s, "'");
    }
    return s;
}

static void fab_count_ranks_per_node(const fab_world_t *w, char *out, size_t len)
{
    size_t n = 0;

    out[0] = '\0';
    for (int i = 0; i < w->size; i++) {
        int count = 0;
        bool first = true;

        for (int j = 0; j < w->size; j++) {
            if (strcmp(w->hosts[j], w->hosts[i]) != 0)
                continue;
            first = first && j >= i;
            count++;
        }
        if (first && n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s:%d", n ? "," : "", w->hosts[i], count);
    }
}

static void fab_copy_env(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", fab_env_value(name));
}

/* Only variables that shape a run are recorded, never anything else of the environment, and
 * never a secret (core/envrec.h, docs/SCHEMA.md). */
static void fab_record_env(fab_run_info_t *info, fab_env_ours_fn ours)
{
    for (char **e = environ; *e && info->nenv < FAB_MAX_ENV; e++) {
        fab_env_rule_t r = fab_env_rule(*e, ours);
        char *kv = NULL;

        if (r == FAB_ENV_RECORD) {
            kv = strdup(*e);
        } else if (r == FAB_ENV_WITHHOLD) {
            size_t n = strcspn(*e, "=") + 1;

            if ((kv = malloc(n + sizeof(FAB_ENV_WITHHELD))) != NULL) {
                memcpy(kv, *e, n);
                memcpy(kv + n, FAB_ENV_WITHHELD, sizeof(FAB_ENV_WITHHELD));
            }
        }
        if (kv)
            info->env[info->nenv++] = kv;
    }
    qsort(info->env, (size_t)info->nenv, sizeof(info->env[0]), fab_cmp_str);
}

fab_status_t fab_run_info_fill(fab_run_info_t *info, const fab_world_t *w, const fab_transport_t *t,
                               int argc, char **argv, fab_env_ours_fn ours)
{
    unsigned hw = hwloc_get_api_version();
    char **placement = info->placement, *inventory = info->inventory_json;
    int nremote = info->nwarn_remote;

    memset(info, 0, sizeof(*info));
    info->budget_s = info->budget_cap_s = info->measure_s = NAN;
    info->placement = placement; /* gathered before (fab_setup_*) */
    info->inventory_json = inventory;
    info->nwarn_remote = nremote;
    fab_utc_now(info->start_time, sizeof(info->start_time), "%Y-%m-%dT%H:%M:%SZ");
    info->command_line = fab_join_args(argc, argv);
    snprintf(info->mpi_library, sizeof(info->mpi_library), "%s", t->mpi_library);
    snprintf(info->ucx_version, sizeof(info->ucx_version), "%s", t->ucx_version);
    snprintf(info->hwloc_version, sizeof(info->hwloc_version), "%u.%u.%u", hw >> 16,
             (hw >> 8) & 0xff, hw & 0xff);
    snprintf(info->pml, sizeof(info->pml), "%s", t->pml);
    snprintf(info->pml_how, sizeof(info->pml_how), "%s", t->pml_how);
    snprintf(info->ucx_tls, sizeof(info->ucx_tls), "%s", t->ucx_tls);
    snprintf(info->ucx_pairs, sizeof(info->ucx_pairs), "%s", t->ucx_pairs);
    snprintf(info->timer, sizeof(info->timer), "%s", fab_timer_describe());
#ifdef FAB_SIM
    snprintf(info->simulated, sizeof(info->simulated), "%s", FAB_SIM_NOTE);
#endif
    info->timer_cost_ns = fab_timer_cost_ns(11);
    info->nranks = w->size;
    info->nhosts = w->nhosts;
    info->hosts = w->hosts;
    fab_count_ranks_per_node(w, info->ranks_per_node, sizeof(info->ranks_per_node));
    fab_copy_env("SLURM_JOB_ID", info->slurm_job, sizeof(info->slurm_job));
    fab_copy_env("SLURM_STEP_ID", info->slurm_step, sizeof(info->slurm_step));
    fab_copy_env("SLURM_JOB_NODELIST", info->slurm_nodelist, sizeof(info->slurm_nodelist));
    fab_record_env(info, ours);
    snprintf(info->status, sizeof(info->status), "running");
    return info->command_line ? FAB_OK : FAB_ERR_NOMEM;
}

void fab_run_info_free(fab_run_info_t *info)
{
    free(info->command_line);
    for (int i = 0; i < info->nenv; i++)
        free(info->env[i]);
    for (int i = 0; info->placement && i < info->nranks; i++)
        free(info->placement[i]);
    free(info->placement);
    free(info->inventory_json);
    memset(info, 0, sizeof(*info));
}
