/* SPDX-License-Identifier: BSD-3-Clause */
/* bcast: MPI_Bcast of `bytes` from a root (rotating by default, --root to fix it).
 * nccl-tests: busbw = algbw. */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured (blocking or --nonblocking); --validate checks this same call. */
static fab_status_t bcast_call(fab_kctx_t *ctx, int count, int root)
{
    if (ctx->nonblocking) {
        MPI_Request q;
        fab_status_t st =
            FAB_MPI(MPI_Ibcast(ctx->sbuf, count, ctx->dtype.mpi, root, ctx->comm, &q));

        return st != FAB_OK ? st : fab_coll_finish(ctx, &q);
    }
    return FAB_MPI(MPI_Bcast(ctx->sbuf, count, ctx->dtype.mpi, root, ctx->comm));
}

static fab_status_t bcast_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return bcast_call(ctx, (int)(bytes / ctx->dtype.size), fab_coll_root(ctx, ctx->iteration++));
}

static fab_status_t bcast_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                   long *errors)
{
    size_t count = bytes / ctx->dtype.size;
    int root = fab_coll_root(ctx, seed);
    fab_status_t st;

    (void)state;
    if (ctx->rank == root)
        fab_coll_fill(ctx, ctx->sbuf, count, root, 0, seed);
    else
        memset(ctx->sbuf, 0xff, bytes);
    st = bcast_call(ctx, (int)count, root);
    if (st == FAB_OK)
        *errors += fab_coll_check(ctx, ctx->sbuf, count, 0, root, seed, "bcast");
    return st;
}

const fab_kernel_t fab_kernel_bcast = {
    .name = "bcast",
    .summary = "MPI_Bcast from a rotating root (--root N to fix it); busbw = algbw",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = bcast_iterate,
    .validate = bcast_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_one,
                                 .fit_bytes = fab_fit_elements,
                                 .uses_dtype = true,
                                 .uses_root = true},
};
