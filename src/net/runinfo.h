/* SPDX-License-Identifier: BSD-3-Clause */
/* What describes a run (net/runinfo.c): filled on rank 0, written by every output. */
#ifndef FAB_NET_RUNINFO_H
#define FAB_NET_RUNINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/envrec.h"
#include "core/world.h"
#include "net/transport.h"

struct fab_fabric;

/* What a run is: written by rank 0's sinks at the start and (updated) at the end. */
#define FAB_MAX_ENV 256
typedef struct fab_run_info {
    char start_time[32], end_time[32]; /* UTC, ISO 8601 */
    char *command_line;
    char mpi_library[256], ucx_version[32], hwloc_version[32];
    char pml[32], pml_how[64];
    char ucx_tls[512];    /* the UCX transports of the first probed pair (known at the end) */
    char ucx_pairs[2048]; /* every probed pair's, grouped; "" when one pair was probed */
    bool probed_early;    /* --strict-fabric: probed before the measurements */
    char timer[192];
    char simulated[192]; /* the simulated build's note (core/sim.h); "" for a real run */
    double timer_cost_ns;
    int nranks, nhosts;
    char **hosts;              /* per rank */
    char ranks_per_node[1024]; /* "host:N,host:N" */
    char slurm_job[64], slurm_step[64], slurm_nodelist[512];
    char *env[FAB_MAX_ENV]; /* "NAME=value", sorted: what core/envrec.h allows */
    int nenv;
    char status[32]; /* running, complete, interrupted, failed, check-failed */
    char stop_reason[128];
    int exit_code;                   /* at the end: what this run alone exits with */
    char results_file[1024];         /* where the HDF5 file goes ("" for none) */
    const struct fab_fabric *fabric; /* --fabric as resolved on rank 0's host, and its check */
    char *inventory_json;     /* {"host": inventory, ...}: one per host (NULL if not gathered) */
    char **placement;         /* per rank: where it runs, one line (NULL if not gathered) */
    int nwarn_remote;         /* ranks placed away from their NIC */
    double line_rate_gbps;    /* what line_rate_pct compares with; 0 unknown */
    char line_rate_from[128]; /* --line-rate, or the port it was read from */
    /* At the end: the adaptive measurement's budget, its overrun cap and what it took (NaN
     * when not adaptive; capped: rows below the floor were stopped at the cap), and the
     * rows' quality (measure/quality.h): counts and how disturbed the machine was. */
    double budget_s, budget_cap_s, measure_s;
    bool capped;
    int rows, rows_invalid, rows_disturbed, rows_noisy;
    char disturbance[320];
    const char *ladder;   /* `run ladder`: the ladder as JSON (output/ladder.h), "" until the
                             run's end; NULL for other runs */
    const char *sync;     /* --sync: "none" or "barrier" (what is between timed iterations) */
    const char *straggle; /* --straggle RANK:DELAY as given; NULL none (an injected delay) */
} fab_run_info_t;

/* Rank 0: describe the run (start time, versions, hosts, environment, transport). ours: the
 * FABRICBENCH_ variables the program reads (the only ones recorded, core/envrec.h). */
fab_status_t fab_run_info_fill(fab_run_info_t *info, const fab_world_t *w, const fab_transport_t *t,
                               int argc, char **argv, fab_env_ours_fn ours);
void fab_run_info_free(fab_run_info_t *info);
/* The current UTC time formatted with strftime's fmt. */
void fab_utc_now(char *buf, size_t len, const char *fmt);

#endif
