/* SPDX-License-Identifier: BSD-3-Clause */
/* How a measured row reaches rank 0, which alone writes the outputs: the kernel's lead rank
 * sends it (with its samples under --samples) as soon as it is measured, and rank 0 answers
 * whether the outputs still work. Ranks with nothing to do wait sleeping, never busy. */
#ifndef FAB_MEASURE_HANDOFF_H
#define FAB_MEASURE_HANDOFF_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "measure/row.h"

typedef struct fab_handoff {
    fab_row_t row;   /* row.iters == 0: the kernel stopped, no row */
    double *samples; /* rank 0's copy when the lead is another rank */
    size_t nsamples, cap;
    bool want_samples;
} fab_handoff_t;

/* Complete a request by testing it every millisecond, sleeping in between, so that a rank
 * with nothing to do leaves the CPU to the ranks that measure. */
fab_status_t fab_idle_wait(MPI_Request *req);
fab_status_t fab_idle_barrier(MPI_Comm comm);
/* The lead rank (not rank 0): send h->row and, with --samples, samples[0..n-1]; then take
 * rank 0's answer (a stop request when an output failed). */
fab_status_t fab_handoff_send(fab_handoff_t *h, const double *samples, uint64_t n);
/* Rank 0: receive the lead's row and samples; active: rank 0 measures too (waits busy). */
fab_status_t fab_handoff_recv(fab_handoff_t *h, int lead, bool active);
/* Rank 0: answer the lead with the stop flag as it now stands. */
fab_status_t fab_handoff_answer(int lead);

#endif
