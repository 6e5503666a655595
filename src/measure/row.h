/* SPDX-License-Identifier: BSD-3-Clause */
/* A result row: what one message size of one kernel measured, as rank 0 hands it to the
 * outputs (output/columns.c turns it into the columns of every format). */
#ifndef FAB_MEASURE_ROW_H
#define FAB_MEASURE_ROW_H

#include <mpi.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/adaptive.h"
#include "measure/arrival.h"
#include "measure/cpuload.h"
#include "measure/quality.h"
#include "measure/stats.h"
#include "net/fabcount.h"

typedef struct fab_row {
    uint64_t bytes;
    uint64_t iters;
    uint64_t warmup;
    fab_stats_t t;      /* reported time: iteration time / kernel time_divisor, seconds */
    double iter_time;   /* loop mean of one whole iteration, seconds */
    double mbps;        /* MB/s (10^6 B/s), all streams */
    double gbps;        /* Gb/s (10^9 bit/s), all streams */
    double msgps;       /* messages/s, all streams */
    double mbps_stream; /* per stream (pair) */
    double msgps_stream;
    int streams;
    long validation_errors; /* -1: not validated */
    double algbw;           /* collectives: bytes / loop-mean time, GB/s (10^9 B/s); else NaN */
    double busbw;           /* algbw x the kernel's bus factor */
    int slowest_rank;       /* the rank that was slowest in most iterations; -1 if one timer */
    double comm_time;       /* --overlap-compute: the same call without compute, s; else NaN */
    double overlap_pct;     /* how much of that the compute hid, 0..100; else NaN */
    double slowest_share;   /* the share of iterations it was slowest in */
    fab_late_t late;        /* arrivals (measure/arrival.h); ranks the world's, -1 none; times s */
    double line_pct;        /* Gb/s (collectives: busbw) / the port's data rate, %; else NaN */
    double line_rate_gbps;  /* that data rate (both ways for a duplex kernel), Gb/s; NaN none */
    int dtype, op;       /* the run's element type and reduction (FAB_DT_*, FAB_OP_*); -1 unknown */
    double cpu_rank_pct; /* mean over taking-part ranks of CPU time / wall time, % */
    double cpu_user_pct; /* node-wide shares of all CPUs, %, mean over the nodes */
    double cpu_sys_pct;
    double cpu_softirq_pct;
    double cpu_rank_min_pct, cpu_rank_max_pct; /* the least and most busy rank's share, % */
    int cpu_rank_max_rank;                     /* world rank of the busiest; -1 unknown */
    /* Disturbance (measure/quality.h), NaN unknown: the node's steal share of all CPUs' time,
     * %, and its runnable tasks per online CPU (mean of the block ends), the most of the
     * nodes; the involuntary context switches per second of the most preempted rank. */
    double cpu_steal_pct, runnable_per_cpu, ctxsw_per_s;
    int quality;              /* fab_quality_t, judged on rank 0 (fab_row_close) */
    unsigned quality_reasons; /* FAB_QR_* */
    char quality_reason[80];  /* its words, ';'-separated (all of them: 70) */
    double stall_s;           /* longest wait of a rank beyond its expected step (a stall that
                                 resumed; core/watchdog.h), s; 0 none */
    /* Precision (measure/adaptive.h): ci_pct every policy's, blocks to regimes adaptive's */
    double ci_pct;        /* half-width of the median's 95% interval, % of the median */
    uint64_t blocks;      /* adaptive: blocks (one per round the size took part in); else 0 */
    double blocks_ci_pct; /* adaptive: that interval over the block medians; NaN otherwise */
    int target_met;       /* adaptive: 1 met --precision, 0 stopped by the budget; -1 none */
    int regimes;          /* adaptive: levels in the block medians (1..3); 0 not assessed */
    double regime_level[FAB_REGIME_MAX]; /* their medians, reported time (s), ascending */
    double regime_share[FAB_REGIME_MAX]; /* fraction of the blocks in each */
    unsigned nblock_medians;
    double block_median[FAB_ADAPT_MAX_BLOCKS];     /* reported time (s), in round order */
    double osu_avg, imb_tmin, imb_tmax, rank0_avg; /* peers' (fab_row_peers), rank 0's, s; NaN */
    char component[32];               /* the kernel's ctx->component (descriptor.h) on its rank 0 */
    char group[64], group_ranks[192]; /* --split: its name (core/split.h), members "0,2"; "" */
    fab_fc_row_t fab;                 /* the fabric's counters over its blocks (fab_row_fabric) */
    double kc[FAB_KCOL_MAX]; /* its COUNTER, GAUGE columns over the blocks (fab_row_kcol) */
    int stop_status; /* not a column: the rounds' stop request (fab_status_t) for rank 0; 0 none */
} fab_row_t;

/* An empty row: zeros, and "none" where there is one (-1 ranks, validation, target; NaN). */
void fab_row_clear(fab_row_t *row);
/* After the statistics (row->t, bytes, iters, iter_time): the rates, algbw/busbw and overlap;
 * comm_mean: --overlap-compute's reference time of the call alone, s (NaN without). */
void fab_row_rates(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx, double comm_mean);
/* Rank 0 of the kernel, after a policy's timed samples acc (iters of them): statistics, ci_pct,
 * iter_time, rates, the slowest rank (slow; NULL: none) and who arrived last (arr; NULL: none). */
void fab_row_samples(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx, fab_acc_t *acc,
                     uint64_t iters, double comm_mean, const uint64_t *slow,
                     const fab_arrival_t *arr);
/* The CPU cost and disturbance of the window between two marks, with the runnable tasks
 * sampled at its block ends (load: this rank's samples, none unless it samples its node),
 * reduced over ctx->comm to its rank 0 (collective over ctx->comm). */
fab_status_t fab_row_cpu(fab_row_t *row, const fab_kctx_t *ctx, const fab_cpu_mark_t *a,
                         const fab_cpu_mark_t *b, const fab_load_t *load);
/* Rank 0 of the run closes every row (fixed, adaptive, pairs) for the outputs, which then read
 * it alone: type, reduction (mopt), line rate (nopt), line_pct, quality and the run's tally. */
void fab_row_close(fab_row_t *row, const fab_world_t *w, const fab_measopts_t *mopt,
                   const fab_netopts_t *nopt, const fab_kinst_t *ki);
/* The run's tally of its rows' qualities: reset at a run's start, read at its end. */
void fab_row_tally_reset(void);
const fab_quality_tally_t *fab_row_tally(void);
/* The longest resumed stall of the kernel's ranks (mine: this rank's) into row->stall_s on
 * its rank 0 (collective over ctx->comm). */
fab_status_t fab_row_stall(fab_row_t *row, const fab_kctx_t *ctx, double mine);
/* OSU's avg (IMB's t_avg), IMB's t_min, t_max (docs/METRICS.md) into row on rank 0 of ctx->comm:
 * the mean, least and largest of the ranks' own means per iteration (mine: this rank's, in the
 * time columns' units, s; NaN where it does not time; rank 0's own: rank0_avg), reduced once. */
fab_status_t fab_row_peers(fab_row_t *row, const fab_kctx_t *ctx, double mine);
/* The fabric counters (acc: the node sampler's) into row->fab on rank 0 (collective). */
fab_status_t fab_row_fabric(fab_row_t *row, const fab_kctx_t *ctx, const fab_fc_acc_t *acc);
/* The kernel's counters hook now: c[FAB_KCOL_MAX], NaN for what it does not count. */
void fab_kc_mark(const fab_kernel_t *k, const fab_kctx_t *ctx, void *state, double *c);
/* Add the window a..b to sum: counters their difference, gauges b's value, totals b minus
 * the first window's a (kept in first; sum and first start NaN). */
void fab_kc_add(const fab_kernel_t *k, double *sum, double *first, const double *a,
                const double *b);
/* After a row's last block: k's settle hook (if any) for size `bytes` inside a counters'
 * window added to sum (every rank of the kernel; what settle returns). */
fab_status_t fab_kc_settle(const fab_kernel_t *k, fab_kctx_t *ctx, void *state, size_t bytes,
                           double *sum, double *first);
/* The kernel's counters of the row's blocks (mine: this rank's sums) into row->kc on its rank
 * 0: counters summed over the ranks, gauges averaged over those that have them (collective
 * over ctx->comm when k has counters; nothing otherwise). */
fab_status_t fab_row_counters(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx,
                              const double *mine);
/* Column j of ki's kernel's kcols in a finished row: counters and gauges as gathered, the
 * instance's axis value, or the derive hook; NaN where none. */
double fab_row_kcol(const fab_kinst_t *ki, const fab_row_t *row, int j);
/* What rank 0 notes of a kernel's rows to say at its end (fab_row_notes_report). */
typedef struct fab_row_notes {
    long bad;         /* wrong bytes or elements, all rows */
    int idle_rows;    /* rows in which a rank ran less than FAB_DISTURB_CPU_PCT of the time */
    double idle_min;  /* the least share of them, % */
    int stall_rows;   /* rows with a stall that resumed (stall_s > 0) */
    double stall_max; /* the longest, s */
    char idle_sizes[160], stall_sizes[160];
    size_t idle_len, stall_len;
    int pair[2];        /* a pair kernel's world ranks; -1 */
    char component[32]; /* the rows' component column */
    /* rows below the kernel's low_below (kext.h), implausible (kcol.h), below the floor */
    int low_rows, implausible_rows, invalid_rows;
    char low_sizes[256], implausible_sizes[160], invalid_sizes[160];
    size_t low_len, implausible_len, invalid_len;
    fab_fc_notes_t fab; /* the fabric's counters (measure/row_fabric.c) */
} fab_row_notes_t;
void fab_row_notes_init(fab_row_notes_t *n);
void fab_row_notes_add(fab_row_notes_t *n, const fab_kinst_t *ki, const fab_row_t *r);
/* Say what the notes hold (warnings; an error for wrong data). Returns whether data was
 * wrong (the kernel then ends with FAB_ERR_VALIDATION). */
bool fab_row_notes_report(const fab_row_notes_t *n, const fab_kernel_t *k);

#endif
