/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the pairs kernels: the run's state shared by pairs/pairs.c (rounds, retests,
 * verdict) and pairs/pairs_setup.c (members, switch groups, the matrix). */
#ifndef FAB_PAIRS_PAIRS_INT_H
#define FAB_PAIRS_PAIRS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/pairopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "pairs/matrix.h"
#include "pairs/pairs_stop.h"

/* One direction of one pair, as its timing rank sends it to rank 0. */
typedef struct fab_pair_rec {
    int32_t src, dst;            /* members; src -1: no record */
    double p50_s, p99_s, mean_s; /* per iteration */
    double msgs_per_iter;
    int64_t iters, warm; /* timed and warm-up iterations */
    int32_t blocks, met; /* timed blocks; fab_pstop_t's met (1 precise, 0 not, -1 no target) */
} fab_pair_rec_t;

typedef struct fab_pairs {
    const fab_world_t *w;
    const fab_launchopts_t *lopt; /* --stall-timeout, -q */
    const fab_measopts_t *mopt;
    const fab_netopts_t *nopt; /* the line rate */
    const fab_pairopts_t *popt;
    const fab_kinst_t *ki;
    const fab_kernel_t *k; /* ki->k */
    fab_sizes_t sizes;
    int n, me, *member, *partner;
    MPI_Comm members;      /* shift: every member (MPI_COMM_NULL elsewhere) */
    fab_pstop_conf_t stop; /* how long each pair and direction is measured */
    int window;            /* the kernel's window (fab_plan_window) */
    uint64_t start;        /* fab_now_ns at the kernel's start */
    uint64_t *ticks;       /* a block's per-iteration timer readings (FAB_PAIRS_BLOCK_MAX) */
    double *secs;          /* ... in seconds */
    double step_s;         /* seconds this rank's pair took in the last round (0: none) */
    double iter_s;         /* an iteration's time in this rank's last pair (0: none) */
    double round_s;        /* the longest pair of the last round, every rank's (watchdog steps) */
    fab_matrix_t m;        /* rank 0 */
    fab_pair_rec_t *all;   /* rank 0: 2 per world rank */
    double msgs_per_iter;
    bool retesting;     /* measuring the flagged pairs again alone */
    uint64_t commit_at; /* rank 0: when the matrix was last handed to the outputs (ns) */
    double commit_s;    /* ... and how long that took */
} fab_pairs_t;

/* One direction of the pair on comm pc (to < 0), or this member's part of a shift round on
 * the members' comm (sending to member `to`, receiving from `from`): warm-up and timed blocks
 * as P->stop says, the ranks agreeing on each next round's length; the timing rank fills rec
 * with (src, dst). peer: the world rank waited for (pairs/pairs_measure.c). */
fab_status_t fab_pairs_measure(fab_pairs_t *P, MPI_Comm pc, int peer, fab_pair_rec_t *rec, int src,
                               int dst, int to, int from);
/* Rank 0: the matrix, all NaN, with the members' names and switch groups (--switches FILE,
 * else host names); FAB_ERR_CONFIG with msg when the file cannot be read. */
fab_status_t fab_pairs_matrix_init(fab_pairs_t *P, char *msg, size_t len);
void fab_pairs_matrix_free(fab_matrix_t *m);
/* The fabric's counters around the kernel (pairs_setup.c): a reading on each host's first rank
 * at its start; at its end the growth reduced to rank 0's matrix (err_port, signals;
 * collective over the world). */
void fab_pairs_fabric_mark(fab_pairs_t *P);
fab_status_t fab_pairs_fabric(fab_pairs_t *P);
/* An n x n matrix of NaN (NULL: out of memory). */
double *fab_nan_matrix(int n);

#endif
