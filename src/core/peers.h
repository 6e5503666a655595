/* SPDX-License-Identifier: BSD-3-Clause */
/* The watchdog's side channel (docs/DEVELOPING.md, "Stalls"): a UDP socket of each rank, its
 * addresses exchanged once with one MPI_Allgather at start-up, through which a watchdog that
 * found a stall asks the ranks it may wait for what they are doing, without MPI. Each
 * watchdog thread answers from its poll loop; a rank that does not answer within a short
 * bound is stopped, dead or unreachable. A rank that ends the job tells rank 0 why, so that
 * rank 0's files carry that account even when rank 0 itself was the stopped one. */
#ifndef FAB_CORE_PEERS_H
#define FAB_CORE_PEERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/world.h"

#define FAB_PEER_PHASE_MAX  160
#define FAB_PEER_KERNEL_MAX 64
#define FAB_PEER_TEXT_MAX   768
#define FAB_PEER_WAIT_S     1.0 /* how long an asked rank has to answer */

/* What a rank says of itself (and what this rank's watchdog answers). */
typedef struct fab_peer_state {
    int mode;        /* 0 starting, 1 running, 2 ending */
    bool idle;       /* waiting by design (no deadline) */
    int waits_for;   /* the rank it waits for; -1 every rank of its step; -2 none named */
    double stuck_s;  /* seconds since its progress counter last moved */
    double frozen_s; /* it did not run at all for this long, just now (stopped, frozen) */
    uint64_t bytes;
    char phase[FAB_PEER_PHASE_MAX], kernel[FAB_PEER_KERNEL_MAX];
} fab_peer_state_t;

/* The first notice of a rank that ended the job (rank 0 receives them). */
typedef struct fab_peer_ended {
    int from; /* -1: none yet */
    char text[FAB_PEER_TEXT_MAX];
} fab_peer_ended_t;

/* Collective over MPI_COMM_WORLD, at start-up on the main thread before the watchdog uses the
 * channel: open this rank's socket (when `want`), exchange the addresses, check one path per
 * rank (a probe to the next rank on another host, answered within 2 s) and agree on the
 * outcome. false: no side channel anywhere; rank 0 said why in one warning. */
bool fab_peers_setup(const fab_world_t *w, bool want);
/* The socket to poll for input (-1: none). */
int fab_peers_fd(void);
/* On the watchdog thread: handle what arrived without waiting (answer questions with *me,
 * probes; a notice of a rank that ended the job goes to *ended if it holds none yet). */
void fab_peers_serve(const fab_peer_state_t *me, fab_peer_ended_t *ended);
/* Ask ranks[0..n) for their state and wait up to wait_s for the answers (serving meanwhile):
 * got[i] says whether ranks[i] answered, into out[i]. Returns the number that answered, -1
 * without a side channel. */
int fab_peers_ask(const int *ranks, int n, double wait_s, const fab_peer_state_t *me,
                  fab_peer_state_t *out, bool *got, fab_peer_ended_t *ended);
/* Tell rank `to` that this rank ends the job, and why (one datagram, twice). */
void fab_peers_tell_end(int to, const char *reason);
/* A peer's state as text: "in 'PHASE' (kernel 'K', B bytes), no progress for S s, waiting
 * for rank R (HOST)". */
void fab_peer_describe(const fab_peer_state_t *s, char *buf, size_t len);

#endif
