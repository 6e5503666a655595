/* SPDX-License-Identifier: BSD-3-Clause */
/* The measurement of the run's kernels over their sizes (measure/runner.c). */
#ifndef FAB_MEASURE_RUNNER_H
#define FAB_MEASURE_RUNNER_H

#include <stdbool.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/sink.h"

/* Run kernel i of the run over its size list, together with the kernels measured with it
 * (fab_rounds_group: *count of them, from i on); rank 0 hands each row to the sinks as soon
 * as its turn comes. *agreed tells whether every rank knows the outcome (else the caller
 * must abort the job). Every rank of the run calls it alike. Not for the pairs kernels
 * (FAB_RANKS_NODES): pairs/pairs.h's fab_run_pairs runs them (the pairs subsystem uses
 * measure/, not the other way round). */
fab_status_t fab_run_kernels_at(const fab_world_t *w, const fab_launchopts_t *lopt,
                                const fab_measopts_t *mopt, const fab_netopts_t *nopt, int i,
                                int *count, fab_sinks_t *sinks, bool *agreed);

#endif
