/* SPDX-License-Identifier: BSD-3-Clause */
/* The plan of a run (measure/plan.c): sizes, buffers, taking part, warm-up, probed pairs. */
#ifndef FAB_MEASURE_PLAN_H
#define FAB_MEASURE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/sizes.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"

/* The default size lists: point-to-point kernels, collectives. */
#define FAB_SIZES_P2P  "1:4M"
#define FAB_SIZES_COLL "8:4M"
/* Pairs kernels measure one size per pair: latency-like ones, bandwidth-like ones. */
#define FAB_SIZES_PAIRS_LAT "8"
#define FAB_SIZES_PAIRS_BW  "1M"

/* The window kernel k uses: -w, else its default_window, else -w's default. */
int fab_plan_window(const fab_kernel_t *k, const fab_measopts_t *mopt);
/* Distinct message buffers (slots) kernel k uses: more than one only under --validate. */
int fab_slots(const fab_kernel_t *k, const fab_measopts_t *mopt);
/* Bytes of buffer memory one rank of kernel k needs for max_bytes messages. */
size_t fab_buffer_bytes(const fab_kernel_t *k, const fab_measopts_t *mopt, size_t max_bytes);
/* The ranks kernel k runs on in world w: 2 for a pair or pairs kernel, else all. */
int fab_plan_ranks(const fab_kernel_t *k, const fab_world_t *w);
/* The context instance ki gets on nranks ranks, before it has a communicator and buffers:
 * sizes, window, root, dtype and op, slots, max_bytes (the largest size fitted, at least a
 * slot), its axis value. The caller frees ctx->dtype (fab_dtype_free). */
fab_status_t fab_plan_ctx(const fab_kinst_t *ki, const fab_measopts_t *mopt,
                          const fab_netopts_t *nopt, int nranks, const fab_sizes_t *sizes,
                          fab_kctx_t *ctx);
/* Bytes of the buffers instance ki allocates itself in its setup (fab_kmem_t), 0 if none. */
size_t fab_own_bytes(const fab_kinst_t *ki, const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                     int nranks, const fab_sizes_t *sizes);
/* The default size list for a kernel. */
void fab_default_sizes(const fab_kernel_t *k, fab_sizes_t *out);
/* The sizes kernel k measures: -m, its defaults, or one row of 0 bytes (tmp holds them). */
const fab_sizes_t *fab_kernel_sizes(const fab_kernel_t *k, const fab_measopts_t *mopt,
                                    fab_sizes_t *tmp);
/* Whether a rank takes part in kernel k (all ranks, or one of --pair). */
bool fab_rank_active(const fab_kernel_t *k, const fab_measopts_t *mopt, int rank);
/* Untimed iterations before each size: --warmup, else a tenth of -i (rounded up), or none
 * under --time, whose calibration rounds are the warm-up (and are counted in it). */
uint64_t fab_plan_warmup(const fab_measopts_t *mopt);
/* The pair the UCX transport probe connects: what the run's first kernel measures. */
void fab_probe_pair(const fab_world_t *w, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                    int *a, int *b);
/* Every pair whose transport the run checks: first the one of fab_probe_pair, then, when a
 * kernel uses all ranks, rank i with rank i + size/2 (msgrate's pairs; across nodes, each
 * rank's link to a rank on another node under a block placement). pairs 1.. share no rank.
 * a and b hold at least size/2 + 1 entries. Returns the count. */
int fab_probe_pairs(const fab_world_t *w, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                    int *a, int *b);

#endif
