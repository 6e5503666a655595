/* SPDX-License-Identifier: BSD-3-Clause */
/* What the group's rounds (measure/rounds_group.c) need of one kernel's part (measure/rounds.c).
 * Internal to measure/. */
#ifndef FAB_MEASURE_ROUNDS_INT_H
#define FAB_MEASURE_ROUNDS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "measure/row.h"

typedef struct fab_rounds fab_rounds_t; /* (measure/rounds.h) */

/* A size's state as every rank of the run learns it after each kernel's part of a round
 * (reduced with MPI_MAX, so the values only grow): */
#define FAB_RS_NONE    0 /* no block yet */
#define FAB_RS_OPEN    1 /* blocks, still measuring, below the floor (measure/adaptive.h) */
#define FAB_RS_FLOOR   2 /* blocks, still measuring, the floor met */
#define FAB_RS_PRECISE 3 /* stopped: met --precision */
#define FAB_RS_BUDGET  4 /* stopped: its share of the budget was spent (or the cap reached) */
#define FAB_RS_SKIP    5 /* never measured: fit_bytes gives the previous size's value */

/* The pace of the rounds: how long a block should last, whether the budget is spent (late:
 * a size that has met the floor stops without another block; one below it takes blocks of
 * what it lacks; one without a block gets a short one) and whether the run's overrun cap is
 * reached (hard: every size that has a block stops, below the floor or not). While sizes
 * have no block yet, each of them should have its share of the time left, so the first
 * round fits the budget even on a slow machine: block_s is then the time left over
 * FAB_PACE_MARGIN x those sizes, between FAB_PACE_MIN_S and FAB_ROUND_BLOCK_S. Decided by the
 * kernel's rank 0 (its clock) and carried with each block's reduction, so the kernel's ranks
 * agree; between kernels, with the group's agreement. */
typedef struct fab_pace {
    double block_s;
    bool late, hard;
} fab_pace_t;
#define FAB_PACE_MARGIN 2.0    /* a block's share of a size's first-round cost (warm-up, rest) */
#define FAB_PACE_MIN_S  0.0001 /* the shortest block asked for (at least one iteration) */

/* Sizes of the part (the kernel's list); this rank's rank in the kernel. */
int fab_rounds_nsizes(const fab_rounds_t *r);
int fab_rounds_rank(const fab_rounds_t *r);
/* One round of the kernel's open sizes, one block each, with left_s of the budget for them
 * (used on rank 0 of the kernel to share it between them), the budget's end deadline_ns and
 * the cap's cap_ns, and later: sizes without a block in the kernels after this one. *pace:
 * the agreed pace at the start; on return, on rank 0 of the kernel, the pace for the next
 * kernel's part. Collective over the kernel. */
fab_status_t fab_rounds_one(fab_rounds_t *r, double left_s, uint64_t deadline_ns, uint64_t cap_ns,
                            int later, fab_pace_t *pace);
/* The budget ran out (every rank of the run agreed, after the round's last part): every size
 * that has met the floor (hard: every size that has a block) stops now, so that no round is
 * started for the last blocks alone. The same on every rank without a message: who has how
 * many blocks and samples is known alike. */
void fab_rounds_close(fab_rounds_t *r, bool hard);

/* The states of the sizes (FAB_RS_*) into st[0..n-1], as the kernel's ranks know them. */
void fab_rounds_states(const fab_rounds_t *r, double *st);
/* Rank 0 of the kernel: the cost of a round of its open sizes (s, from their blocks so far,
 * or FAB_ROUND_BLOCK_S each before the first); 0 on its other ranks. */
double fab_rounds_cost(const fab_rounds_t *r);
/* Rank 0 of the kernel: what its open sizes short of the floor need to reach it (s,
 * fab_adapt_floor_reserve); 0 on its other ranks. */
double fab_rounds_reserve(const fab_rounds_t *r);
/* Fill size i's row after it stopped or the rounds were stopped with stop (FAB_OK: not);
 * its samples. Collective over the kernel (CPU, stall, --validate). */
fab_status_t fab_rounds_fill_row(fab_rounds_t *r, int i, fab_status_t stop, fab_row_t *row,
                                 const double **samples, size_t *n);

#endif
