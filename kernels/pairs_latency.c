/* SPDX-License-Identifier: BSD-3-Clause */
/* pairs_latency: ping-pong (as latency) between every pair of nodes, as --schedule says
 * (pairs/pairs.c runs the pairs, keeps the matrix and judges it). */
#include "fab_kernel.h"

static fab_status_t pairs_latency_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = 2;
    *state = NULL;
    return FAB_OK;
}

static fab_status_t pairs_latency_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return fab_pingpong_iterate(ctx, bytes);
}

/* --schedule shift: every member at once, sending to `to` and answering `from` */
static fab_status_t pairs_latency_shift(fab_kctx_t *ctx, void *state, size_t bytes, int to,
                                        int from)
{
    (void)state;
    return fab_pingpong_shift(ctx, bytes, to, from);
}

const fab_kernel_t fab_kernel_pairs_latency = {
    .name = "pairs_latency",
    .summary = "ping-pong latency of every pair of nodes: matrix, slow pairs, suspects",
    .kind = FAB_KIND_LATENCY,
    .ranks = FAB_RANKS_NODES,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = pairs_latency_setup,
    .iterate = pairs_latency_iterate,
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0, .shift = pairs_latency_shift},
};
