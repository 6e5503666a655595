/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels (FAB_RANKS_NODES): every pair of members measured in the rounds of a
 * schedule, the matrix and its verdict (pairs/pairs.c). */
#ifndef FAB_PAIRS_PAIRS_H
#define FAB_PAIRS_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/pairopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/sink.h"
#include "pairs/pairs_stop.h"

/* How long each pair and direction is measured (pairs/pairs_stop.h): -i (fixed), -t (time),
 * else adaptive with --pair-time or the kernel's default time. */
void fab_pairs_stop_conf(const fab_kernel_t *k, const fab_measopts_t *mopt,
                         const fab_pairopts_t *popt, fab_pstop_conf_t *c);
/* That policy in words (the table's header, the file's iteration_policy). */
void fab_pairs_policy(const fab_kernel_t *k, const fab_measopts_t *mopt, const fab_pairopts_t *popt,
                      char *buf, size_t len);
/* The members of the run's pairs: world ranks, one per host (the lowest) or every rank;
 * member[] holds w->size entries. Returns their count. */
int fab_pairs_members(const fab_world_t *w, const fab_pairopts_t *popt, int *member);
/* Before measuring: FAB_ERR_CONFIG with msg and hint when k cannot run (fewer than two
 * members, more than one size). */
fab_status_t fab_pairs_check(const fab_world_t *w, const fab_measopts_t *mopt,
                             const fab_pairopts_t *popt, const fab_kernel_t *k, char *msg,
                             size_t len, char *hint, size_t hlen);
/* Run instance ki of a pairs kernel (collective over MPI_COMM_WORLD). FAB_ERR_SUSPECT (exit 1)
 * when the verdict names a suspect. *agreed as for fab_run_kernels_at. */
fab_status_t fab_run_pairs(const fab_world_t *w, const fab_launchopts_t *lopt,
                           const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           const fab_pairopts_t *popt, const fab_kinst_t *ki, fab_sinks_t *sinks,
                           bool *agreed);

#endif
