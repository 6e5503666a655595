/* SPDX-License-Identifier: BSD-3-Clause */
/* One kernel's measurement (measure/measurement.c): its state and its steps, which the fixed
 * measurement (measure/runner.c) and the adaptive rounds (measure/rounds.c) share. Internal to
 * measure/. */
#ifndef FAB_MEASURE_MEASUREMENT_H
#define FAB_MEASURE_MEASUREMENT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/measopts.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "kernel/traits.h"
#include "measure/arrival.h"
#include "measure/stats.h"

struct fab_row;

#define FAB_BLOCK           65536 /* most timed iterations between two reductions */
#define FAB_BLOCK_SECONDS   0.2   /* about how long a block of the fixed policies lasts */
#define FAB_VALIDATE_ROUNDS 2

typedef struct fab_measure {
    const fab_measopts_t *mopt;
    const fab_kernel_t *k;
    fab_kctx_t *ctx;
    void *state;
    fab_acc_t acc;    /* the fixed policies' samples (rank 0 of the kernel) */
    uint64_t *stamps; /* FAB_BLOCK + 1 timer readings */
    double *block;    /* FAB_BLOCK samples + the block's total */
    double *reduced;
    bool reduce; /* samples are combined across ranks (more than one timer) */
    struct fab_dint {
        double v;
        int rank;
    } * pin, *pout;       /* MAXLOC reduction of a block: time and the slowest rank */
    uint64_t *slow_count; /* rank 0 of the kernel: iterations each rank was slowest in */
    double per_iter;      /* estimated seconds per iteration (0: unknown) */
    double last_per_iter; /* the previous size's, and its bytes: a first estimate */
    size_t last_bytes;
    bool node_sampler; /* this rank reads /proc/stat for its node (lowest rank there) */
    bool barrier;      /* --sync barrier: an untimed barrier after every iteration */
    double block_wall; /* the last block's wall time on this rank (barriers included), s */
    double own_s;      /* the fixed policies: this timing rank's own timed seconds over the
                          row's blocks, */
    uint64_t own_n;    /* and their iterations (for fab_row_peers; 0 on other ranks) */
    int peer;          /* the world rank a pair kernel waits for; -1: all of the kernel */
    double straggle_s; /* --straggle: this rank's busy delay before each call, s (0: none) */
    bool arrive;       /* collectives where every rank times: arrivals recorded (arrival.h) */
    double *arrival;   /* a block's arrivals at its calls, s since its aligned start */
    uint64_t *enter;   /* a straggling rank's call entries (the delay is outside the call) */
    fab_arrival_red_t ared;
    fab_arrival_t arr_own; /* rank 0 of the kernel: the fixed policies' arrivals */
    fab_arrival_t *arr;    /* where a block's arrivals go: arr_own, or a round's size's */
} fab_measure_t;

/* A timing rank's own mean time per iteration in the time columns' units (fab_row_peers):
 * its timed seconds s over n iterations / the kernel's divisor; NaN when it timed none. */
static inline double fab_own_mean(const fab_kernel_t *k, double s, uint64_t n)
{
    return n > 0 ? s / (double)n / fab_ktime_divisor(k) : NAN;
}

/* The watchdog's phase: what the kernel's ranks do now, and how long one step should take. */
void fab_measure_phase(const fab_measure_t *m, const char *phase, size_t bytes, double step_s);
/* A kernel's settle after a row (fab_kcolumns_t.settle): its expected step for the watchdog. */
#define FAB_SETTLE_S 1.0
/* Untimed iterations, each a step for the watchdog. */
fab_status_t fab_iterate_n(fab_measure_t *m, size_t bytes, uint64_t n);
/* Every rank of comm learns the largest *v and the largest *code (NULL: none), and whether
 * any rank was asked to stop (then the stop's status is returned). Also the barrier between
 * phases. */
fab_status_t fab_sync_max(MPI_Comm comm, double *v, int *code);
/* Run n iterations; every rank learns the slowest timer's elapsed time. */
fab_status_t fab_timed_round(fab_measure_t *m, size_t bytes, uint64_t n, double *elapsed);
/* One timed block of b <= FAB_BLOCK iterations. On rank 0 of the kernel *samples points to
 * the b per-iteration times (the slowest timing rank's) followed by the block's total (the
 * largest of the ranks' sums of their iterations' times), and m->slow_count has counted who
 * was slowest. On every rank m->block[b] is then its own sum (0 where it does not time) and
 * m->block_wall the block's wall time, --sync's barriers included. The caller syncs
 * afterwards. */
fab_status_t fab_block_once(fab_measure_t *m, size_t bytes, uint64_t b, const double **samples);
/* --validate: patterned rounds; *errors: the wrong bytes of all ranks (every rank). */
fab_status_t fab_validate_size(fab_measure_t *m, size_t bytes, long *errors);
/* The measurement's state for kernel k on the kernel's ranks (collective over ctx->comm,
 * then allocations); freed by fab_measure_free, also after a failed init. */
fab_status_t fab_measure_init(fab_measure_t *m, const fab_measopts_t *mopt, const fab_kernel_t *k,
                              fab_kctx_t *ctx, void *state);
void fab_measure_free(fab_measure_t *m);
/* One size under a fixed policy (-i, or --time with calibration): its row on rank 0 of the
 * kernel; m->acc holds its samples. */
fab_status_t fab_measure_size(fab_measure_t *m, size_t bytes, struct fab_row *row);

#endif
