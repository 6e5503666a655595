/* SPDX-License-Identifier: BSD-3-Clause */
/* Adaptive measurement: pure statistics, no MPI, no I/O. In each round every unfinished size
 * measures one block; a size pools its blocks' samples and keeps their medians; this module
 * decides when it stops, names regimes in its block medians and splits the budget. */
/*
 * Order-statistic interval of the p-quantile (1-based ranks j <= k of n sorted samples x):
 * [x_(j), x_(k)] covers the quantile when the number X ~ Bin(n, p) of samples below it is in
 * [j, k-1], so its coverage is P(j <= X <= k-1).
 * - median, n < FAB_CI_EXACT_BELOW: exact binomial: the largest j <= (n+1)/2 with
 *   1 - 2 P(Bin(n, 1/2) < j) >= 0.95, k = n+1-j; when not even j = 1 reaches 0.95 (n <= 5),
 *   the whole range (1, n) and its coverage 1 - 2^(1-n) (n = 5: 0.9375).
 * - otherwise (and every other p): the normal approximation on Bin(n, p), z = 1.96:
 *   j = floor(np - z sqrt(np(1-p))), k = ceil(1 + np + z sqrt(np(1-p))), clamped to [1, n]
 *   (for p = 1/2: floor((n - 1.96 sqrt n)/2), ceil(1 + (n + 1.96 sqrt n)/2)); a margin of
 *   1e-9 before floor/ceil keeps exact integers from moving by one ulp. Coverage reported:
 *   the normal approximation with continuity correction, Phi((k-1/2-np)/s) - Phi((j-1/2-np)/s).
 * Precision: rel_half = (x_(k) - x_(j)) / 2 / the quantile (fab_percentile_sorted). */
#ifndef FAB_MEASURE_ADAPTIVE_H
#define FAB_MEASURE_ADAPTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "measure/quality.h"
#include "measure/stats.h"

#define FAB_CI_Z           1.96
#define FAB_CI_LEVEL       0.95
#define FAB_CI_EXACT_BELOW 20 /* the median's interval is exact binomial below this n */

typedef struct fab_ci_ranks {
    size_t lo, hi;   /* 1-based ranks j <= k; 0, 0 for n = 0 */
    double coverage; /* P(j <= X <= k-1), exact or approximated as above */
    bool exact;      /* the exact binomial was used */
} fab_ci_ranks_t;

fab_ci_ranks_t fab_median_ci_ranks(size_t n);
fab_ci_ranks_t fab_quantile_ci_ranks(size_t n, double p); /* 0 < p < 1, normal approximation */

/* An interval on sorted samples: its centre (the median or quantile), ends, precision. */
typedef struct fab_interval {
    size_t n;
    double centre, lo, hi;
    double rel_half; /* (hi - lo) / 2 / centre; 0 when hi == lo, +inf when centre <= 0 < hi-lo */
    fab_ci_ranks_t ranks;
} fab_interval_t;

void fab_median_ci(const double *sorted, size_t n, fab_interval_t *out);
/* Median of v[0..n-1] (as fab_percentile_sorted) by O(n) selection; reorders v; NaN if n = 0 */
double fab_median_select(double *v, size_t n);
void fab_quantile_ci(const double *sorted, size_t n, double p, fab_interval_t *out);
/* The median's interval of an accumulator's samples (fab_acc_order: exact up to
 * FAB_ACC_EXACT_ORDER kept samples, else from the histogram, within 0.2%). */
void fab_acc_median_ci(fab_acc_t *a, fab_interval_t *out);

/* Regimes in block medians (all > 0; a value <= 0 counts as 1e-300). Sort the log values;
 * a partition into 2 or 3 contiguous groups is cut at the largest gap (two largest for 3;
 * ties: the lower position). It is accepted when every group holds >= FAB_REGIME_MIN_BLOCKS
 * blocks and >= FAB_REGIME_MIN_SHARE of them, and every two neighbouring groups a < b have
 *   gap (least log value of b - greatest of a) > FAB_REGIME_GAP x max(spread_a, spread_b),
 *   spread = 1.4826 x MAD of the group's log values (the normal-consistent sd), and
 *   level_b / level_a >= FAB_REGIME_RATIO, level = the group's median (linear values).
 * 3 groups are tried first, then 2, else 1 (no regimes). Fewer than 4 blocks: 1. */
#define FAB_REGIME_MAX        3
#define FAB_REGIME_MIN_BLOCKS 2
#define FAB_REGIME_MIN_SHARE  0.10
#define FAB_REGIME_GAP        3.0
#define FAB_REGIME_RATIO      1.2

typedef struct fab_regimes {
    unsigned n;                     /* 1: one level; 2 or 3: separate regimes */
    double level[FAB_REGIME_MAX];   /* group medians, ascending */
    double share[FAB_REGIME_MAX];   /* fraction of the blocks in the group */
    unsigned count[FAB_REGIME_MAX]; /* blocks in the group */
} fab_regimes_t;

/* FAB_ERR_INTERNAL when n > FAB_ADAPT_MAX_BLOCKS (out then says 1 level). */
fab_status_t fab_regimes_find(const double *v, size_t n, fab_regimes_t *out);

/* The stop rule of one size (a row). State: its block medians in arrival order (at most
 * FAB_ADAPT_MAX_BLOCKS: memory is fixed), its samples, time spent, a block's cost estimate.
 * The caller keeps the pooled samples and passes their median interval. fab_adapt_decide,
 * after a block was added, with share_s = the row's share of the remaining budget
 * (fab_adapt_schedule); the floor (measure/quality.h) is met with blocks >= min_blocks and
 * samples >= min_samples:
 *   STOP_PRECISE when the floor is met and
 *     (1) the pooled median interval has rel_half <= precision,
 *     (2) the blocks agree: the median interval of the B block medians (each block one
 *         observation: it widens with the spread across time) has rel_half <= precision;
 *         for B <= 8 it is their whole range (coverage 1 - 2^(1-B): B = 3: 0.75, 6: 0.97);
 *     (3) no regimes (fab_regimes_find gives 1 level): a median that depends on how long
 *         each regime lasted is not repeatable, whatever its interval;
 *   else STOP_BUDGET when share_s < the cost of one more block (the next block does not
 *     fit) and the floor is met or the run's overrun cap is reached (capped), or when
 *     FAB_ADAPT_MAX_BLOCKS blocks were taken;
 *   else CONTINUE (a row below the floor goes on past its share).
 * With `spend` (rows that count events, not time: UDP loss) a precise row goes on while its
 * share buys another block, then stops PRECISE. */
#define FAB_ADAPT_MAX_BLOCKS 256
#define FAB_ADAPT_MIN_BLOCKS FAB_FLOOR_BLOCKS

typedef enum {
    FAB_ADAPT_CONTINUE = 0,
    FAB_ADAPT_STOP_PRECISE = 1,
    FAB_ADAPT_STOP_BUDGET = 2,
} fab_adapt_decision_t;

typedef struct fab_adapt {
    double precision;              /* target rel_half, e.g. 0.01 */
    unsigned min_blocks;           /* the floor's blocks */
    uint64_t min_samples, samples; /* the floor's samples (FAB_FLOOR_SAMPLES); pooled so far */
    bool capped;                   /* the run's cap is reached: below the floor stops too */
    double est_block_s, spent_s;   /* a block's cost before the first; the blocks' time */
    size_t nblocks;
    double median[FAB_ADAPT_MAX_BLOCKS];
    fab_adapt_decision_t decision; /* the last decision; stopped when not CONTINUE */
    bool spend; /* go on while the share buys a block (then PRECISE when precise, else BUDGET) */
} fab_adapt_t;

typedef struct fab_adapt_verdict {
    fab_adapt_decision_t decision;
    double pooled_rel; /* (1) achieved */
    double blocks_rel; /* (2) achieved; +inf below 2 blocks */
    fab_regimes_t regimes;
} fab_adapt_verdict_t;

void fab_adapt_init(fab_adapt_t *a, double precision, unsigned min_blocks, double est_block_s);
/* One block: median, duration, samples. FAB_ERR_INTERNAL when full or already stopped. */
fab_status_t fab_adapt_add_block(fab_adapt_t *a, double block_median, double block_s,
                                 uint64_t samples);
bool fab_adapt_floor_met(const fab_adapt_t *a);    /* blocks and samples at their minimum */
double fab_adapt_block_cost(const fab_adapt_t *a); /* spent / blocks, or the estimate */
/* Iterations in a size's next block: the pace, or the floor's spread (adaptive.c). */
double fab_adapt_block_want(const fab_adapt_t *a, uint64_t samples, uint64_t nblocks,
                            double per_iter, double pace_s, bool late, bool hard);
fab_adapt_decision_t fab_adapt_decide(fab_adapt_t *a, const fab_interval_t *pooled, double share_s,
                                      fab_adapt_verdict_t *out);

/* The next round: in_round[i] = size i has not stopped (each takes one block a round);
 * share_s[i] = its floor reserve (fab_adapt_floor_reserve), all of it when the reserves fit
 * remaining_s, else in proportion to them, plus the rest x cost_i / sum of costs (an even
 * split when every cost is 0): equal rounds for all, so they meet their budget stop together,
 * and sizes short of the floor reach it in the budget. Sum max(remaining_s, 0); returns n open. */
double fab_adapt_floor_reserve(const fab_adapt_t *a); /* blocks to the floor x a block's cost */
size_t fab_adapt_schedule(const fab_adapt_t *rows, size_t n, double remaining_s, bool *in_round,
                          double *share_s);

#endif
