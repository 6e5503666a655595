/* SPDX-License-Identifier: BSD-3-Clause */
/* Statistics of per-iteration times: exact moments, the first N samples for exact
 * percentiles, and a log-linear histogram of every sample beyond them. */
#ifndef FAB_MEASURE_STATS_H
#define FAB_MEASURE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Log-linear histogram: 2^FAB_HIST_SUB_BITS buckets per power of two of nanoseconds, so a
 * percentile read from it is within 1/2^(FAB_HIST_SUB_BITS+1) (0.2%) of the true sample. */
#define FAB_HIST_SUB_BITS 8
#define FAB_HIST_OCTAVES  44
#define FAB_HIST_BUCKETS  ((FAB_HIST_OCTAVES + 1) << FAB_HIST_SUB_BITS)

typedef struct fab_acc {
    double *raw;    /* first raw_cap samples, seconds, in iteration order */
    double *sorted; /* scratch for percentiles */
    size_t raw_n, raw_cap;
    size_t raw_alloc, sorted_alloc; /* allocated; raw grows by doubling up to raw_cap */
    uint64_t *hist;                 /* every sample */
    size_t n;
    double min, max;
    double mean, m2;   /* Welford */
    double loop_total; /* sum of timed-block durations, seconds */
} fab_acc_t;

typedef struct fab_stats {
    uint64_t n;
    double min, p50, p90, p99, p999, p9999, max, mean, stddev;
    double loop_mean; /* loop_total / n */
    bool exact;       /* percentiles from every sample (else from the histogram) */
} fab_stats_t;

fab_status_t fab_acc_init(fab_acc_t *a, size_t raw_cap);
void fab_acc_reset(fab_acc_t *a);
void fab_acc_free(fab_acc_t *a);
void fab_acc_add(fab_acc_t *a, double v);
/* Enough samples for the p-quantile to mean anything: n >= 10/(1-p) (p99: 1000, p99.9:
 * 10^4), i.e. at least 10 samples expected beyond it. */
bool fab_quantile_enough(size_t n, double p);
/* The r-th smallest sample (1-based, r <= n): exact while every sample is kept and n is at
 * most FAB_ACC_EXACT_ORDER (a sort), else from the histogram (within 0.2%). */
#define FAB_ACC_EXACT_ORDER 4096
double fab_acc_order(fab_acc_t *a, size_t r);
/* Every sample sorted (a copy: raw stays in iteration order), when every sample is kept and
 * n <= FAB_ACC_EXACT_ORDER; else NULL (then read order statistics with fab_acc_order). */
const double *fab_acc_sort(fab_acc_t *a);
/* Summarise; every time is divided by `divisor` (1 for plain iteration times). A quantile
 * beyond the median with too few samples for it to mean anything (fewer than 10 expected
 * beyond it: n < 10/(1-p), so p90 < 100, p99 < 1000, p99.9 < 10^4, p99.99 < 10^5) is NaN. */
void fab_acc_stats(fab_acc_t *a, double divisor, fab_stats_t *out);
/* Percentile q in [0,1] of sorted v[0..n-1], linear interpolation between closest ranks
 * (numpy's default "linear" method). */
double fab_percentile_sorted(const double *v, size_t n, double q);

#endif
