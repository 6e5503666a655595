/* SPDX-License-Identifier: BSD-3-Clause */
/* allreduce: MPI_Allreduce of `bytes` (count x element size) from every rank to every rank.
 * nccl-tests: size = count x element size; busbw = algbw x 2(n-1)/n. In place (--inplace):
 * MPI_IN_PLACE, rbuf both the input and the result. */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured: blocking, or started and waited for (--nonblocking). --validate
 * checks this same call. */
static fab_status_t allreduce_call(fab_kctx_t *ctx, int count)
{
    const void *in = ctx->inplace ? MPI_IN_PLACE : ctx->sbuf; /* in place: rbuf in and out */
    fab_status_t st;

    if (ctx->nonblocking) {
        MPI_Request q;

        st = FAB_MPI(
            MPI_Iallreduce(in, ctx->rbuf, count, ctx->dtype.mpi, ctx->dtype.op, ctx->comm, &q));
        if (st == FAB_OK)
            st = fab_coll_finish(ctx, &q);
    } else
        st = FAB_MPI(MPI_Allreduce(in, ctx->rbuf, count, ctx->dtype.mpi, ctx->dtype.op, ctx->comm));
    if (st == FAB_OK)
        fab_coll_avg(ctx, ctx->rbuf, (size_t)count); /* --op avg */
    return st;
}

static fab_status_t allreduce_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return allreduce_call(ctx, (int)(bytes / ctx->dtype.size));
}

static fab_status_t allreduce_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                       long *errors)
{
    size_t count = bytes / ctx->dtype.size;
    fab_status_t st;

    (void)state;
    if (ctx->inplace) {
        fab_coll_fill(ctx, ctx->rbuf, count, ctx->rank, 0, seed);
    } else {
        fab_coll_fill(ctx, ctx->sbuf, count, ctx->rank, 0, seed);
        memset(ctx->rbuf, 0xff, bytes);
    }
    st = allreduce_call(ctx, (int)count);
    if (st == FAB_OK)
        *errors += fab_coll_check(ctx, ctx->rbuf, count, 0, -1, seed, "allreduce");
    return st;
}

const fab_kernel_t fab_kernel_allreduce = {
    .name = "allreduce",
    .summary = "MPI_Allreduce; algbw, busbw = algbw x 2(n-1)/n (nccl-tests all_reduce)",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = allreduce_iterate,
    .validate = allreduce_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_allreduce,
                                 .fit_bytes = fab_fit_elements,
                                 .uses_dtype = true,
                                 .uses_op = true,
                                 .inplace = true},
};
