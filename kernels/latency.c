/* SPDX-License-Identifier: BSD-3-Clause */
/* latency: ping-pong between two ranks (osu_latency). A sends `bytes` with a blocking send,
 * B receives and sends the same size back. Reported: one-way latency = round trip / 2. */
#include <string.h>

#include "fab_kernel.h"

static fab_status_t latency_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = 2; /* one each way */
    *state = NULL;
    return FAB_OK;
}

static fab_status_t latency_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return fab_pingpong_iterate(ctx, bytes);
}

/* A sends pattern A; B checks it and answers with pattern B; A checks that. */
static fab_status_t latency_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                     long *errors)
{
    int n = (int)bytes, me = ctx->rank, peer = 1 - me;
    fab_status_t st = FAB_OK;

    (void)state;
    memset(ctx->rbuf, 0, bytes);
    if (me == 1) {
        st = FAB_MPI(
            MPI_Recv(ctx->rbuf, n, MPI_CHAR, peer, ctx->tag + 2, ctx->comm, MPI_STATUS_IGNORE));
        *errors += fab_pattern_check(ctx->rbuf, bytes, fab_pattern_seed(seed, peer, 0));
    }
    fab_pattern_fill(ctx->sbuf, bytes, fab_pattern_seed(seed, me, 0));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Send(ctx->sbuf, n, MPI_CHAR, peer, ctx->tag + 2, ctx->comm));
    if (me == 0 && st == FAB_OK) {
        st = FAB_MPI(
            MPI_Recv(ctx->rbuf, n, MPI_CHAR, peer, ctx->tag + 2, ctx->comm, MPI_STATUS_IGNORE));
        *errors += fab_pattern_check(ctx->rbuf, bytes, fab_pattern_seed(seed, peer, 0));
    }
    return st;
}

const fab_kernel_t fab_kernel_latency = {
    .name = "latency",
    .summary = "ping-pong between two ranks; one-way latency = round trip / 2 (osu_latency)",
    .kind = FAB_KIND_LATENCY,
    .layer = "mpi",
    .ranks = FAB_RANKS_PAIR,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = latency_setup,
    .iterate = latency_iterate,
    .validate = latency_validate,
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0},
};
