/* SPDX-License-Identifier: BSD-3-Clause */
/* alltoall: MPI_Alltoall. `bytes` is what one rank sends in all (n blocks, one per rank,
 * itself included). nccl-tests: busbw = algbw x (n-1)/n. In place (--inplace): MPI_IN_PLACE,
 * rbuf (max_bytes, as sbuf) holds the input and then the result. */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured (blocking or --nonblocking); --validate checks this same call. */
static fab_status_t alltoall_call(fab_kctx_t *ctx, int per)
{
    /* in place: the send count and type are ignored (MPI) */
    const void *in = ctx->inplace ? MPI_IN_PLACE : ctx->sbuf;

    if (ctx->nonblocking) {
        MPI_Request q;
        fab_status_t st = FAB_MPI(
            MPI_Ialltoall(in, per, ctx->dtype.mpi, ctx->rbuf, per, ctx->dtype.mpi, ctx->comm, &q));

        return st != FAB_OK ? st : fab_coll_finish(ctx, &q);
    }
    return FAB_MPI(
        MPI_Alltoall(in, per, ctx->dtype.mpi, ctx->rbuf, per, ctx->dtype.mpi, ctx->comm));
}

static fab_status_t alltoall_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return alltoall_call(ctx, (int)(bytes / ctx->dtype.size / (size_t)ctx->size));
}

/* Block p of rank r's input holds r's values for elements p*per...; after the exchange,
 * block k on rank me must hold rank k's values for elements me*per... */
static fab_status_t alltoall_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                      long *errors)
{
    size_t per = bytes / ctx->dtype.size / (size_t)ctx->size, esz = ctx->dtype.size;
    size_t me = (size_t)ctx->rank;
    fab_status_t st;

    (void)state;
    if (!ctx->inplace)
        memset(ctx->rbuf, 0xff, bytes);
    for (int p = 0; p < ctx->size; p++) /* in place: the input in rbuf */
        fab_coll_fill(ctx, (ctx->inplace ? ctx->rbuf : ctx->sbuf) + (size_t)p * per * esz, per,
                      ctx->rank, (size_t)p * per, seed);
    st = alltoall_call(ctx, (int)per);
    for (int k = 0; k < ctx->size && st == FAB_OK; k++)
        *errors += fab_coll_check(ctx, ctx->rbuf + (size_t)k * per * esz, per, me * per, k, seed,
                                  "alltoall");
    return st;
}

const fab_kernel_t fab_kernel_alltoall = {
    .name = "alltoall",
    .summary = "MPI_Alltoall; bytes = what one rank sends; busbw = algbw x (n-1)/n",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = alltoall_iterate,
    .validate = alltoall_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_ring,
                                 .fit_bytes = fab_fit_blocks,
                                 .uses_dtype = true,
                                 .inplace = true},
};
