/* SPDX-License-Identifier: BSD-3-Clause */
/* bibw: bidirectional bandwidth between two ranks (osu_bibw). Per iteration each side posts a
 * window of receives and a window of sends and waits for all of them. */
#include <string.h>

#include "fab_kernel.h"

static fab_status_t bibw_setup(fab_kctx_t *ctx, void **state)
{
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = 2.0 * ctx->window; /* a window each way */
    *state = NULL;
    return FAB_OK;
}

/* `slots` > 1 only when validating: message j then has its own buffers. */
static fab_status_t bibw_exchange(fab_kctx_t *ctx, size_t bytes, int w, int slots)
{
    int n = (int)bytes, peer = 1 - ctx->rank;
    fab_status_t st = FAB_OK;

    for (int j = 0; j < w && st == FAB_OK; j++)
        st = FAB_MPI(MPI_Irecv(fab_rbuf(ctx, j % slots), n, MPI_CHAR, peer, ctx->tag, ctx->comm,
                               &ctx->reqs[j]));
    for (int j = 0; j < w && st == FAB_OK; j++)
        st = FAB_MPI(MPI_Isend(fab_sbuf(ctx, j % slots), n, MPI_CHAR, peer, ctx->tag, ctx->comm,
                               &ctx->reqs[w + j]));
    return st != FAB_OK ? st : FAB_MPI(MPI_Waitall(2 * w, ctx->reqs, MPI_STATUSES_IGNORE));
}

static fab_status_t bibw_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)state;
    return bibw_exchange(ctx, bytes, ctx->window, 1);
}

static fab_status_t bibw_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                  long *errors)
{
    int peer = 1 - ctx->rank;
    fab_status_t st;

    (void)state;
    for (int j = 0; j < ctx->slots; j++) {
        fab_pattern_fill(fab_sbuf(ctx, j), bytes, fab_pattern_seed(seed, ctx->rank, j));
        memset(fab_rbuf(ctx, j), 0, bytes);
    }
    st = bibw_exchange(ctx, bytes, ctx->slots, ctx->slots);
    for (int j = 0; j < ctx->slots && st == FAB_OK; j++)
        *errors += fab_pattern_check(fab_rbuf(ctx, j), bytes, fab_pattern_seed(seed, peer, j));
    return st;
}

const fab_kernel_t fab_kernel_bibw = {
    .name = "bibw",
    .summary = "bidirectional bandwidth: windows of sends both ways at once (osu_bibw)",
    .kind = FAB_KIND_BANDWIDTH,
    .ranks = FAB_RANKS_PAIR,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = bibw_setup,
    .iterate = bibw_iterate,
    .validate = bibw_validate,
    .p2p = &(const fab_kp2p_t){.uses_window = true, .duplex = true},
};
