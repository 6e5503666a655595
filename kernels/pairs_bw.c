/* SPDX-License-Identifier: BSD-3-Clause */
/* pairs_bw: windowed bandwidth (as bw) of every pair of nodes, each direction in turn, as
 * --schedule says (pairs/pairs.c runs the pairs, keeps the matrix and judges it). */
#include "fab_kernel.h"

static fab_status_t pairs_bw_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = ctx->window;
    *state = NULL;
    return FAB_OK;
}

static fab_status_t pairs_bw_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return fab_window_iterate(ctx, bytes, 1 - ctx->rank, ctx->rank == 0);
}

/* --schedule shift: every member at once, sending to `to` and answering `from` */
static fab_status_t pairs_bw_shift(fab_kctx_t *ctx, void *state, size_t bytes, int to, int from)
{
    (void)state;
    return fab_window_shift(ctx, bytes, to, from);
}

const fab_kernel_t fab_kernel_pairs_bw = {
    .name = "pairs_bw",
    .summary = "bandwidth of every pair of nodes, both directions: matrix, slow pairs, suspects",
    .kind = FAB_KIND_BANDWIDTH,
    .ranks = FAB_RANKS_NODES,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = pairs_bw_setup,
    .iterate = pairs_bw_iterate,
    /* 8 MiB in flight at the default 1 MiB: many times any fabric's bandwidth-delay product, and
     * an iteration short enough for the floor of timed iterations per pair (70 ms at 1 Gb/s) */
    .p2p = &(const fab_kp2p_t){.uses_window = true, .default_window = 8, .shift = pairs_bw_shift},
};
