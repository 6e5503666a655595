/* SPDX-License-Identifier: BSD-3-Clause */
/* Arrivals at a collective's timed calls (docs/METRICS.md, "Stragglers"): which rank entered
 * each call last and by how much after the second-to-last, against a clock aligned by a barrier
 * at every timed block's start; and --straggle RANK:DELAY, the busy delay one rank adds before
 * each call (what-if studies, the tests). The parser and the accumulator are pure functions
 * (tests/unit/test_arrival.c); the reduction is collective over the kernel's ranks. */
#ifndef FAB_MEASURE_ARRIVAL_H
#define FAB_MEASURE_ARRIVAL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* --straggle RANK:DELAY: DELAY a number with its unit ns, us, ms or s, above 0, at most
 * FAB_STRAGGLE_MAX_S. */
#define FAB_STRAGGLE_MAX_S 10.0
typedef struct fab_straggle {
    int rank;       /* world rank; -1: none */
    double delay_s; /* seconds of busy compute before each call */
} fab_straggle_t;

/* s as RANK:DELAY into *out. On error FAB_ERR_USAGE and err names the bad part ("the delay
 * '20' has no unit: ..."), without the option's name. NULL or "" is none (rank -1). */
fab_status_t fab_straggle_parse(const char *s, fab_straggle_t *out, char *err, size_t errlen);
/* The option row's check (core/opt.h): fab_straggle_parse's verdict. */
fab_status_t fab_straggle_check(const char *s, char *err, size_t errlen);
/* The delay itself is fab_coll_compute (kernel/collective.h): busy, a slow node, not an idle one.
 */

/* Rank 0 of the kernel: which rank arrived last in each call and its lateness. */
typedef struct fab_arrival {
    int nranks;
    uint64_t calls;   /* calls counted */
    uint64_t *last;   /* per rank: calls it arrived last in */
    double *late_sum; /* per rank: its lateness summed over those calls, s */
    float *late;      /* the first `cap` calls' lateness, s, */
    int *late_rank;   /* and who was last in them */
    size_t n, cap;
} fab_arrival_t;

fab_status_t fab_arrival_init(fab_arrival_t *a, int nranks, size_t cap);
void fab_arrival_reset(fab_arrival_t *a);
void fab_arrival_free(fab_arrival_t *a);
/* One call: `rank` (the kernel's) arrived last, `late_s` after the second-to-last; rank -1: a
 * call no rank entered last (equal arrivals: back to back, a block's first call enters as the
 * aligning barrier ends on every rank), counted among the calls. */
void fab_arrival_add(fab_arrival_t *a, int rank, double late_s);

/* What a row stores (measure/row.h): the rank last in most calls (the kernel's; -1 none), its
 * share of calls, the median and 99th percentile of its lateness in the calls it was last in,
 * and that lateness summed over the row's summed call time (call_s, s). */
typedef struct fab_late {
    int rank;
    double share, p50, p99, explains;
    int straggler; /* a row's straggler_rank: rank when fab_late_names, else -1 */
} fab_late_t;
void fab_arrival_summary(const fab_arrival_t *a, double call_s, fab_late_t *out);
/* Whether a row names its straggler: last in at least FAB_STRAGGLER_SHARE of the calls, and its
 * lateness at least FAB_STRAGGLER_EXPLAINS of the time (the one rule: the table, the files'
 * straggler_rank and the analysis read it). */
#define FAB_STRAGGLER_SHARE    0.5
#define FAB_STRAGGLER_EXPLAINS 0.5
bool fab_late_names(const fab_late_t *l);

/* The reduction of a block's arrivals: per call the latest arrival, its rank and the second
 * latest (three doubles each). Made and freed with the measurement (collective: none). */
typedef struct fab_arrival_red {
    MPI_Datatype type;
    MPI_Op op;
    double *in, *out; /* 3 x (FAB_BLOCK + 1); out on rank 0 */
} fab_arrival_red_t;
fab_status_t fab_arrival_red_init(fab_arrival_red_t *r, size_t calls, bool root);
void fab_arrival_red_free(fab_arrival_red_t *r);
/* This rank's arrivals at b calls (s since the block's aligned start) reduced to rank 0 of
 * comm, which adds each call to a (collective over comm). */
fab_status_t fab_arrival_reduce(fab_arrival_red_t *r, const double *arrive, uint64_t b, int rank,
                                MPI_Comm comm, fab_arrival_t *a);

#endif
