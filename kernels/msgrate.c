/* SPDX-License-Identifier: BSD-3-Clause */
/* msgrate: multi-pair bandwidth and message rate (osu_mbw_mr). With 2P ranks, rank i < P
 * sends windows to rank i + P, all pairs at once; each window is acknowledged. An iteration
 * lasts as long as its slowest pair (the harness takes the maximum over the senders). */
#include "fab_kernel.h"

static int msgrate_peer(const fab_kctx_t *ctx)
{
    int pairs = ctx->size / 2;

    return ctx->rank < pairs ? ctx->rank + pairs : ctx->rank - pairs;
}

static fab_status_t msgrate_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank < ctx->size / 2;
    ctx->streams = ctx->size / 2;
    ctx->msgs_per_iter = (double)ctx->streams * ctx->window;
    *state = NULL;
    return FAB_OK;
}

static fab_status_t msgrate_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return fab_window_iterate(ctx, bytes, msgrate_peer(ctx), ctx->rank < ctx->size / 2);
}

static fab_status_t msgrate_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                     long *errors)
{
    (void)state;
    return fab_window_validate(ctx, bytes, msgrate_peer(ctx), ctx->rank < ctx->size / 2, seed,
                               errors);
}

const fab_kernel_t fab_kernel_msgrate = {
    .name = "msgrate",
    .summary = "P pairs at once, windows of messages: aggregate and per-pair msg/s, MB/s "
               "(osu_mbw_mr)",
    .kind = FAB_KIND_BANDWIDTH,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 2,
    .setup = msgrate_setup,
    .iterate = msgrate_iterate,
    .validate = msgrate_validate,
    .p2p = &(const fab_kp2p_t){.uses_window = true},
};
