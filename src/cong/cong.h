/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion kernels' support (cong_lat, cong_bw, cong_allreduce in kernels/): GPCNeT's
 * question, how much other traffic hurts a victim. The ranks are split into canaries and
 * congestors by node; each iteration is one trial: the canary measured alone, then under the
 * instance's congestor pattern (--congestor, the axis), which starts before the canary's window
 * and stops after it. The row's own columns hold the canary's statistics alone and congested,
 * the congestion impact factor (CIF) and the congestors' bandwidth (docs/METRICS.md,
 * "Congestion"). The split, the statistics and the CIF are pure functions (unit.cong). */
#ifndef FAB_CONG_CONG_H
#define FAB_CONG_CONG_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/fab_kernel.h"

typedef enum { FAB_CANARY_LAT = 0, FAB_CANARY_BW, FAB_CANARY_ALLREDUCE } fab_canary_t;
typedef enum {
    FAB_CONG_ALLTOALL = 0,
    FAB_CONG_INCAST,
    FAB_CONG_PUT_INCAST,
    FAB_CONG_GET_BCAST,
    FAB_CONG_BW,
    FAB_CONG_NONE,
} fab_congestor_t;
#define FAB_CONG_PATTERNS "alltoall|incast|put_incast|get_bcast|bw|none"

/* The structured warnings (the cong_warn column's bits). */
#define FAB_CONG_W_LOW_LOAD   1 /* the congestors reached under half their load alone */
#define FAB_CONG_W_SHARED     2 /* a node holds canaries and congestors (they share cores) */
#define FAB_CONG_W_FEW_NODES  4 /* too few nodes for the fraction: split by rank, or rounded */
#define FAB_CONG_BW_WINDOW    8 /* the bandwidth canary's messages in flight (GPCNeT's) */
#define FAB_CONG_CANARY_BYTES 8 /* the latency and allreduce canaries' message */
#define FAB_CONG_BW_BYTES     (128 * 1024)

/* The split of the ranks (fab_cong_split). */
typedef struct fab_cong_split {
    int ncanary, ncongestor; /* ranks */
    int canary_nodes, nodes;
    unsigned warn; /* FAB_CONG_W_SHARED, FAB_CONG_W_FEW_NODES */
    char why[160]; /* what is wrong, for a refusal ("" none) */
} fab_cong_split_t;

/* Which ranks are canaries: node[r] is rank r's node (0..nnodes-1, numbered by first rank);
 * names[n] node n's host name. With a host list ("a,b": those nodes' ranks are canaries), else
 * nnodes - round(frac x nnodes) canary nodes (at least 1) spread evenly over the nodes (node
 * 0 first); on one node, by rank: size - round(frac x size) canary ranks (at least 2) spread
 * the same way. Returns FAB_ERR_CONFIG with s->why when there are not 2 canaries and 1
 * congestor, or a host of the list is not in the run. */
fab_status_t fab_cong_split(int size, const int *node, int nnodes, const char *const *names,
                            double frac, const char *hosts, bool *canary, fab_cong_split_t *s);

/* Statistics of n samples (sorted in place): mean, p50, p99, p99.9 (nearest rank). */
typedef struct fab_cong_stats {
    double mean, p50, p99, p999;
} fab_cong_stats_t;
void fab_cong_stats(double *v, size_t n, fab_cong_stats_t *out);

/* The congestion impact factor from unrounded values: congested / alone of times (for a
 * rate it is alone / congested of rates, the same number); NaN when either is not positive. */
double fab_cong_cif(double alone, double congested);

/* The phase of step i of a trial: 0 alone, 1 congested (alone first: drift is shared). */
int fab_cong_phase(int i);

/* The kernels' shared options, columns and hooks. */
extern const fab_kopts_t fab_cong_kopts;
extern const fab_kcolumns_t fab_cong_kcolumns;
fab_status_t fab_cong_setup(fab_kctx_t *ctx, void **state, fab_canary_t canary);
fab_status_t fab_cong_iterate(fab_kctx_t *ctx, void *state, size_t bytes);
void fab_cong_cleanup(fab_kctx_t *ctx, void *state);
void fab_cong_describe(const fab_kctx_t *ctx, char *buf, size_t len, fab_canary_t canary);
fab_status_t fab_cong_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                            size_t hintlen);

#define FAB_CONG_HOOKS(NAME, CANARY)                                                               \
    static fab_status_t NAME##_setup(fab_kctx_t *ctx, void **state)                                \
    {                                                                                              \
        return fab_cong_setup(ctx, state, CANARY);                                                 \
    }                                                                                              \
    static void NAME##_describe(const fab_kctx_t *ctx, char *buf, size_t len)                      \
    {                                                                                              \
        fab_cong_describe(ctx, buf, len, CANARY);                                                  \
    }
#define FAB_CONG_MEMBERS(NAME)                                                                     \
    .ranks = FAB_RANKS_ALL, .min_ranks = 4, .rank_multiple = 1, .default_sizes = "4K",             \
    .family = "congestion", .setup = NAME##_setup, .iterate = fab_cong_iterate,                    \
    .cleanup = fab_cong_cleanup, .describe = NAME##_describe, .check = fab_cong_check,             \
    .options = &fab_cong_kopts, .columns = &fab_cong_kcolumns, .axis = &(const fab_kaxis_t)        \
    {                                                                                              \
        .option = "congestor"                                                                      \
    }

#endif
