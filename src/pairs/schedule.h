/* SPDX-License-Identifier: BSD-3-Clause */
/* Which pairs of members (nodes, or ranks) meet in which round (pairs/schedule.c): the
 * schedules of the pairs kernels. Pure functions: unit-tested without MPI. */
#ifndef FAB_PAIRS_SCHEDULE_H
#define FAB_PAIRS_SCHEDULE_H

typedef enum {
    FAB_SCHED_ROUNDS = 0, /* n/2 disjoint pairs at a time over n-1 rounds (round robin; odd n:
                           * one member sits each round out) */
    FAB_SCHED_SHIFT = 1,  /* every member at once, n-1 rounds: in round r member m sends to
                           * m+r+1 and receives from m-r-1 (mod n), mpiGraph's pattern */
    FAB_SCHED_SERIAL = 2, /* one pair at a time: n(n-1)/2 rounds, quiet, for retests */
} fab_sched_t;

/* The schedule's name ("rounds", "shift", "serial"), and the schedule called name (-1: none). */
const char *fab_sched_name(fab_sched_t s);
int fab_sched_parse(const char *name);
/* Rounds the schedule takes for n members (n >= 2). */
int fab_sched_rounds(fab_sched_t s, int n);
/* partner[m] for each member m in round r (0 <= r < fab_sched_rounds): the member it meets,
 * or -1 when it sits this round out. Every unordered pair meets exactly once over all rounds,
 * and partner[partner[m]] == m. shift: the member m sends to; it receives from the member
 * whose partner it is, and every ordered pair meets exactly once. */
void fab_sched_round(fab_sched_t s, int n, int r, int *partner);

#endif
