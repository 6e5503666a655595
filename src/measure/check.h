/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks before anything is measured (measure/check.c). */
#ifndef FAB_MEASURE_CHECK_H
#define FAB_MEASURE_CHECK_H

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"

/* The check of a kernel that measures pairs of nodes (FAB_RANKS_NODES), given by the caller
 * with its argument (cli/run.c: pairs/pairs.h's fab_pairs_check and the pairs kernels'
 * options; the pairs subsystem uses measure/, not the other way round). The same verdict on
 * every rank; msg and hint say why it refuses. */
typedef fab_status_t (*fab_nodes_check_fn)(const fab_world_t *w, const fab_measopts_t *mopt,
                                           const void *arg, const fab_kernel_t *k, char *msg,
                                           size_t len, char *hint, size_t hlen);

/* Check the timer, every kernel's rank needs (a pairs kernel's by nodes_check, given
 * nodes_arg) and the memory the run needs, on every rank, agreeing on the outcome. On failure
 * rank 0 has printed the reason. */
fab_status_t fab_run_check(const fab_world_t *w, const fab_launchopts_t *lopt,
                           const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           fab_nodes_check_fn nodes_check, const void *nodes_arg);

#endif
