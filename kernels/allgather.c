/* SPDX-License-Identifier: BSD-3-Clause */
/* allgather: MPI_Allgather. `bytes` is the gathered result on each rank (n blocks, one from
 * every rank). nccl-tests: busbw = algbw x (n-1)/n. In place (--inplace): MPI_IN_PLACE, each
 * rank's contribution already at its block of rbuf (max_bytes, as sbuf). */
#include <string.h>

#include "fab_kernel.h"

/* The call as measured (blocking or --nonblocking); --validate checks this same call. */
static fab_status_t allgather_call(fab_kctx_t *ctx, int per)
{
    /* in place: the send count and type are ignored (MPI) */
    const void *in = ctx->inplace ? MPI_IN_PLACE : ctx->sbuf;

    if (ctx->nonblocking) {
        MPI_Request q;
        fab_status_t st = FAB_MPI(
            MPI_Iallgather(in, per, ctx->dtype.mpi, ctx->rbuf, per, ctx->dtype.mpi, ctx->comm, &q));

        return st != FAB_OK ? st : fab_coll_finish(ctx, &q);
    }
    return FAB_MPI(
        MPI_Allgather(in, per, ctx->dtype.mpi, ctx->rbuf, per, ctx->dtype.mpi, ctx->comm));
}

static fab_status_t allgather_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return allgather_call(ctx, (int)(bytes / ctx->dtype.size / (size_t)ctx->size));
}

static fab_status_t allgather_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                       long *errors)
{
    size_t per = bytes / ctx->dtype.size / (size_t)ctx->size, esz = ctx->dtype.size;
    fab_status_t st;

    (void)state;
    memset(ctx->rbuf, 0xff, bytes);
    if (ctx->inplace) /* this rank's contribution at its own block of rbuf */
        fab_coll_fill(ctx, ctx->rbuf + (size_t)ctx->rank * per * esz, per, ctx->rank,
                      (size_t)ctx->rank * per, seed);
    else
        fab_coll_fill(ctx, ctx->sbuf, per, ctx->rank, (size_t)ctx->rank * per, seed);
    st = allgather_call(ctx, (int)per);
    for (int k = 0; k < ctx->size && st == FAB_OK; k++)
        *errors += fab_coll_check(ctx, ctx->rbuf + (size_t)k * per * esz, per, (size_t)k * per, k,
                                  seed, "allgather");
    return st;
}

const fab_kernel_t fab_kernel_allgather = {
    .name = "allgather",
    .summary = "MPI_Allgather; bytes = the gathered result; busbw = algbw x (n-1)/n",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .iterate = allgather_iterate,
    .validate = allgather_validate,
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_ring,
                                 .fit_bytes = fab_fit_blocks,
                                 .uses_dtype = true,
                                 .inplace = true},
};
