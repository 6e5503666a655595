/* SPDX-License-Identifier: BSD-3-Clause */
/* bw: unidirectional bandwidth between two ranks (osu_bw). Per iteration A posts a window of
 * non-blocking sends, B the matching receives, and B acknowledges the window. */
#include "fab_kernel.h"

static fab_status_t bw_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = ctx->window;
    *state = NULL;
    return FAB_OK;
}

static fab_status_t bw_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return fab_window_iterate(ctx, bytes, 1 - ctx->rank, ctx->rank == 0);
}

static fab_status_t bw_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                long *errors)
{
    (void)state;
    return fab_window_validate(ctx, bytes, 1 - ctx->rank, ctx->rank == 0, seed, errors);
}

const fab_kernel_t fab_kernel_bw = {
    .name = "bw",
    .summary = "unidirectional bandwidth: a window of sends, one ack per window (osu_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "mpi",
    .ranks = FAB_RANKS_PAIR,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = bw_setup,
    .iterate = bw_iterate,
    .validate = bw_validate,
    .p2p = &(const fab_kp2p_t){.uses_window = true},
};
