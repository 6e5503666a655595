/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce: MPI_Reduce of `bytes` to a root (rotating by default, --root to fix it).
 * nccl-tests: busbw = algbw. In place (--inplace): the root passes MPI_IN_PLACE, its input
 * and the result in rbuf (max_bytes, as sbuf); the other ranks send from sbuf as usual. */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured (blocking or --nonblocking); --validate checks this same call. */
static fab_status_t reduce_call(fab_kctx_t *ctx, int count, int root)
{
    /* in place: only the root's send buffer is MPI_IN_PLACE (MPI: it is erroneous elsewhere) */
    const void *in = ctx->inplace && ctx->rank == root ? MPI_IN_PLACE : ctx->sbuf;
    fab_status_t st;

    if (ctx->nonblocking) {
        MPI_Request q;

        st = FAB_MPI(
            MPI_Ireduce(in, ctx->rbuf, count, ctx->dtype.mpi, ctx->dtype.op, root, ctx->comm, &q));
        if (st == FAB_OK)
            st = fab_coll_finish(ctx, &q);
    } else
        st = FAB_MPI(
            MPI_Reduce(in, ctx->rbuf, count, ctx->dtype.mpi, ctx->dtype.op, root, ctx->comm));
    if (st == FAB_OK && ctx->rank == root)
        fab_coll_avg(ctx, ctx->rbuf, (size_t)count); /* --op avg: the root's result */
    return st;
}

static fab_status_t reduce_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return reduce_call(ctx, (int)(bytes / ctx->dtype.size), fab_coll_root(ctx, ctx->iteration++));
}

static fab_status_t reduce_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                    long *errors)
{
    size_t count = bytes / ctx->dtype.size;
    int root = fab_coll_root(ctx, seed);
    fab_status_t st;

    (void)state;
    if (ctx->inplace && ctx->rank == root) {
        fab_coll_fill(ctx, ctx->rbuf, count, ctx->rank, 0, seed);
    } else {
        fab_coll_fill(ctx, ctx->sbuf, count, ctx->rank, 0, seed);
        memset(ctx->rbuf, 0xff, bytes);
    }
    st = reduce_call(ctx, (int)count, root);
    if (st == FAB_OK && ctx->rank == root)
        *errors += fab_coll_check(ctx, ctx->rbuf, count, 0, -1, seed, "reduce");
    return st;
}

const fab_kernel_t fab_kernel_reduce = {
    .name = "reduce",
    .summary = "MPI_Reduce to a rotating root (--root N to fix it); busbw = algbw",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = reduce_iterate,
    .validate = reduce_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_one,
                                 .fit_bytes = fab_fit_elements,
                                 .uses_dtype = true,
                                 .uses_op = true,
                                 .uses_root = true,
                                 .inplace = true},
};
