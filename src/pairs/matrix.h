/* SPDX-License-Identifier: BSD-3-Clause */
/* The all-pairs matrix of a pairs kernel as rank 0 hands it to the outputs after each round,
 * and with the verdict at the end (pairs/pairs.c fills it). */
#ifndef FAB_PAIRS_MATRIX_H
#define FAB_PAIRS_MATRIX_H

#include <stddef.h>

#include "pairs/locate.h"

/* A pair's verdict bit beside locate.h's: slow in the parallel schedule (rounds, shift), not
 * when measured again alone (--retest on); the pair counts as ok. */
#define FAB_SLOW_LOAD 8

typedef struct fab_matrix {
    int n;           /* members: nodes (or ranks, --pairs-per rank) */
    char **names;    /* n: "host" (or "host:rank") */
    int *world_rank; /* n: the world rank that stood for each */
    int *group;      /* n: switch group, -1 unknown */
    char **gnames;   /* ngroups switch names */
    int ngroups;
    const char *schedule; /* "rounds", "shift", "serial" */
    const char *pairs_per;
    size_t bytes;
    int rounds, rounds_done;
    /* Per pair and direction: how the iterations were chosen ("adaptive", "fixed", "time"),
     * the pair's time (adaptive: the most, warm-up included; time: -t; NaN for fixed), and over
     * the measurements so far (schedule and retests) the fewest and most timed iterations, the
     * fewest timed blocks (adaptive) and the most warm-up iterations (0 before any). */
    const char *policy;
    double pair_time_s;
    int iterations, iterations_max, blocks_min, warmup;
    int imprecise; /* adaptive: measurements that stopped at their time before --precision */
    /* The duration stated at the start (NaN unknown) and the one taken, from before the first
     * round to the verdict (the simulated build: simulated time) */
    double expect_s, most_s, seconds;
    /* n*n, [src * n + dst]; NaN where not measured; NULL when the kernel has none */
    double *lat_p50, *lat_p99; /* one-way latency, us */
    double *bw;                /* MB/s */
    double *line_pct;          /* bw / line rate, % (NaN unknown) */
    int *round;                /* the round each pair ran in, -1: not yet */
    int *iters;                /* timed iterations of each pair's measurement, -1: none yet */
    /* --retest on after rounds or shift: the pairs the schedule found slow, measured again
     * one at a time (n*n as above, NaN where not retested; NULL: no retest) */
    double *re_lat_p50, *re_lat_p99, *re_bw, *re_line_pct;
    int *re_iters;
    int retest;       /* 1: retest on (and the schedule parallel) */
    int retests;      /* unordered pairs to retest, known once the schedule is done (-1: before) */
    int retested;     /* ... of them measured again so far */
    int load_only;    /* at the end: retested pairs slow in the schedule but not alone */
    double line_MBps; /* the line rate the verdict used, 0 unknown */
    const fab_locate_t *verdict; /* NULL until the end */
    double bw_frac, lat_factor;  /* the thresholds in effect */
    /* the fabric's counters over the kernel (measure/row.h fab_row_fabric): the port whose
     * error counters grew most ("host:mlx5_0/1", "" none) and what grew ("pause,errors") */
    char err_port[80], signals[40];
} fab_matrix_t;

#endif
