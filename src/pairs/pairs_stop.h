/* SPDX-License-Identifier: BSD-3-Clause */
/* How long one pair is measured in one direction (pairs/pairs_stop.c): the pairs kernels'
 * iteration policy. Pure, no MPI (unit.pairs tests it). The pair's timing rank feeds it its
 * warm-up rounds and timed blocks, and it says how many iterations come next (0: done); the
 * ranks of the pair agree on that number (pairs/pairs_measure.c). docs/METRICS.md ("The
 * pairs kernels") defines the rule:
 * - adaptive (the default): warm-up rounds of 1, 2, 4, ... iterations until the time per
 *   iteration has settled (FAB_WARM_SETTLE, as every adaptive row: never a single call), then
 *   blocks of about FAB_PAIRS_BLOCK_S, at least the floor (FAB_FLOOR_SAMPLES timed iterations
 *   in FAB_FLOOR_BLOCKS blocks), until the pair's median is within --precision and its blocks
 *   agree (adaptive.h's stop rule), or the pair's time (--pair-time, warm-up included) cannot
 *   pay for another block. A pair short of the floor goes on until fab_quality_cap of its time;
 *   past that it stops as it is (its rows then say `samples`).
 * - fixed (-i N): N timed iterations after -x (default N/10) warm-up, in one block.
 * - time (-t SEC): SEC of timed iterations after the warm-up above, at least --min-iters. */
#ifndef FAB_PAIRS_PAIRS_STOP_H
#define FAB_PAIRS_PAIRS_STOP_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/adaptive.h"

/* The pair's time without --pair-time (per pair and direction, warm-up included). */
#define FAB_PAIRS_TIME_BW  1.0
#define FAB_PAIRS_TIME_LAT 0.25
/* A timed block's target length, and its most iterations. */
#define FAB_PAIRS_BLOCK_S   0.005
#define FAB_PAIRS_BLOCK_MAX 65536
/* An unsettled warm-up ends after this share of the pair's time (two iterations at least,
 * one when a single iteration takes the pair's whole time). */
#define FAB_PAIRS_WARM_SHARE 0.25

typedef enum {
    FAB_PSTOP_ADAPTIVE = 0,
    FAB_PSTOP_FIXED = 1,
    FAB_PSTOP_TIME = 2,
} fab_pstop_policy_t;

typedef struct fab_pstop_conf {
    fab_pstop_policy_t policy;
    uint64_t fixed;     /* FIXED: timed iterations */
    int64_t warmup;     /* -x: warm-up iterations; < 0: the rule above */
    double time_s;      /* ADAPTIVE: the pair's time, warm-up included; TIME: timed seconds */
    double precision;   /* ADAPTIVE: the target half-width, a fraction (0.01) */
    uint64_t min_iters; /* TIME: --min-iters (ADAPTIVE: FAB_FLOOR_SAMPLES) */
    uint64_t max_iters; /* TIME: --max-iters */
} fab_pstop_conf_t;

typedef struct fab_pstop {
    fab_pstop_conf_t c;
    double cap_s; /* below the floor the pair goes on until warm-up + blocks take this long */
    fab_adapt_t a;
    uint64_t warm, samples; /* warm-up and timed iterations so far */
    unsigned warm_rounds;
    double warm_prev, warm_s, timed_s;
    double per_iter; /* the latest estimate of one iteration, s (0: none) */
    bool warm_done, done;
    int met; /* 1: stopped precise, 0: not (the bound, the cap), -1: no target (fixed, time) */
} fab_pstop_t;

void fab_pstop_init(fab_pstop_t *p, const fab_pstop_conf_t *c);
/* The first warm-up round's iterations (0: no warm-up). */
uint64_t fab_pstop_first(fab_pstop_t *p);
/* After a warm-up round of k iterations that took round_s: the next round's (0: warmed). */
uint64_t fab_pstop_warmed(fab_pstop_t *p, uint64_t k, double round_s);
/* The next timed block's iterations (0: the pair is done). */
uint64_t fab_pstop_next(const fab_pstop_t *p);
/* After a timed block of n iterations that took block_s, with median block_median (s), and the
 * median interval of all timed samples so far (pooled): decides whether the pair is done. */
void fab_pstop_block(fab_pstop_t *p, uint64_t n, double block_s, double block_median,
                     const fab_interval_t *pooled);
/* Seconds one pair and direction takes under c, when one iteration takes iter_s (0: far
 * less than a block, as a ping-pong; NaN: unknown): *expect, stopping at the floor (adaptive:
 * a warm-up of two iterations or FAB_ROUND_WARM_S, then FAB_FLOOR_SAMPLES iterations or
 * FAB_FLOOR_BLOCKS blocks, whichever takes longer; NaN when iter_s is unknown, or 0 for a
 * fixed count), and *most (adaptive: the pair's time, or the cap when the floor needs more;
 * time: the cap; NaN for a fixed count, which has no bound). */
void fab_pstop_estimate(const fab_pstop_conf_t *c, double iter_s, double *expect, double *most);
/* The policy's pair time: --pair-time, else the kernel kind's default above. */
double fab_pstop_default_time(bool latency, double pair_time_s);

#endif
