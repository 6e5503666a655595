/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_scatter: MPI_Reduce_scatter_block. `bytes` is the whole input of a rank (n blocks);
 * each rank receives its reduced block. nccl-tests: busbw = algbw x (n-1)/n. In place
 * (--inplace): MPI_IN_PLACE, the whole input (n blocks) in rbuf, whose room is max_bytes like
 * sbuf's (fab_fit_blocks' `bytes` is the whole input), and the rank's block at its start. */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured (blocking or --nonblocking); --validate checks this same call. */
static fab_status_t reduce_scatter_call(fab_kctx_t *ctx, int per)
{
    const void *in = ctx->inplace ? MPI_IN_PLACE : ctx->sbuf; /* in place: rbuf in and out */
    fab_status_t st;

    if (ctx->nonblocking) {
        MPI_Request q;

        st = FAB_MPI(MPI_Ireduce_scatter_block(in, ctx->rbuf, per, ctx->dtype.mpi, ctx->dtype.op,
                                               ctx->comm, &q));
        if (st == FAB_OK)
            st = fab_coll_finish(ctx, &q);
    } else
        st = FAB_MPI(
            MPI_Reduce_scatter_block(in, ctx->rbuf, per, ctx->dtype.mpi, ctx->dtype.op, ctx->comm));
    if (st == FAB_OK)
        fab_coll_avg(ctx, ctx->rbuf, (size_t)per); /* --op avg: this rank's block */
    return st;
}

static fab_status_t reduce_scatter_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return reduce_scatter_call(ctx, (int)(bytes / ctx->dtype.size / (size_t)ctx->size));
}

static fab_status_t reduce_scatter_validate(fab_kctx_t *ctx, void *state, size_t bytes,
                                            uint32_t seed, long *errors)
{
    size_t count = bytes / ctx->dtype.size, per = count / (size_t)ctx->size;
    fab_status_t st;

    (void)state;
    if (ctx->inplace) {
        fab_coll_fill(ctx, ctx->rbuf, count, ctx->rank, 0, seed); /* the whole input */
    } else {
        fab_coll_fill(ctx, ctx->sbuf, count, ctx->rank, 0, seed);
        memset(ctx->rbuf, 0xff, per * ctx->dtype.size);
    }
    st = reduce_scatter_call(ctx, (int)per);
    if (st == FAB_OK)
        *errors += fab_coll_check(ctx, ctx->rbuf, per, (size_t)ctx->rank * per, -1, seed,
                                  "reduce_scatter");
    return st;
}

const fab_kernel_t fab_kernel_reduce_scatter = {
    .name = "reduce_scatter",
    .summary = "MPI_Reduce_scatter_block; busbw = algbw x (n-1)/n (nccl-tests reduce_scatter)",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = reduce_scatter_iterate,
    .validate = reduce_scatter_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_ring,
                                 .fit_bytes = fab_fit_blocks,
                                 .uses_dtype = true,
                                 .uses_op = true,
                                 .inplace = true},
};
