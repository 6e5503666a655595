/* SPDX-License-Identifier: BSD-3-Clause */
/* barrier: MPI_Barrier; one row, no message size. */
#include "fab_kernel.h"

static fab_status_t barrier_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    (void)bytes;
    if (ctx->nonblocking) {
        MPI_Request q;
        fab_status_t st = FAB_MPI(MPI_Ibarrier(ctx->comm, &q));

        return st != FAB_OK ? st : fab_coll_finish(ctx, &q);
    }
    return FAB_MPI(MPI_Barrier(ctx->comm));
}

const fab_kernel_t fab_kernel_barrier = {
    .name = "barrier",
    .summary = "MPI_Barrier: time per call as its slowest rank (one row, no size)",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = barrier_iterate,
    .coll = &(const fab_kcoll_t){.no_sizes = true},
};
