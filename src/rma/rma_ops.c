/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' iterations and their validation (part of rma/rma.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rma/rma.h"
#include "rma/rma_int.h"

/* Operation j of an iteration: from/into the origin's slot j, to the target's slot j. */
static fab_status_t fab_rma_op(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int j)
{
    size_t off = fab_rma_off(s, j, bytes);
    MPI_Aint disp = s->peer_base + (MPI_Aint)off;
    char *l = s->lbuf + off;
    int n = (int)bytes, p = s->peer;

    switch (s->spec->op) {
    case FAB_RMA_PUT:
        return FAB_MPI(MPI_Put(l, n, MPI_BYTE, p, disp, n, MPI_BYTE, s->win));
    case FAB_RMA_GET:
        return FAB_MPI(MPI_Get(l, n, MPI_BYTE, p, disp, n, MPI_BYTE, s->win));
    case FAB_RMA_ACC: /* int32 elements, bytes / 4 of them (the check refuses other sizes) */
        return FAB_MPI(
            MPI_Accumulate(l, n / 4, MPI_INT32_T, p, disp, n / 4, MPI_INT32_T, MPI_SUM, s->win));
    case FAB_RMA_GET_ACC: /* the result into the harness's receive buffer (one slot) */
        return FAB_MPI(MPI_Get_accumulate(l, n / 4, MPI_INT32_T, ctx->rbuf + off, n / 4,
                                          MPI_INT32_T, p, disp, n / 4, MPI_INT32_T, MPI_SUM,
                                          s->win));
    case FAB_RMA_FOP:
        return FAB_MPI(MPI_Fetch_and_op(l, s->cbuf + 8, MPI_INT32_T, p, disp, MPI_SUM, s->win));
    case FAB_RMA_CAS:
        return FAB_MPI(MPI_Compare_and_swap(l, s->cbuf, s->cbuf + 8, MPI_INT32_T, p, disp, s->win));
    }
    return FAB_ERR_INTERNAL;
}

static fab_status_t fab_rma_ops(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_OK;
    struct timespec ms = {0, 20000000}; /* 20 ms: far above a busy machine's two-sided window */

    for (int j = 0; j < nops && st == FAB_OK; j++) {
        st = fab_rma_op(ctx, s, bytes, j);
        if (fab_rma_test_slow()) /* a component far slower than two-sided (the tests') */
            nanosleep(&ms, NULL);
    }
    return st;
}

/* Active target by fences: a ping-pong (rank 0: fence, ops, fence, fence; rank 1: fence, fence,
 * ops, fence, as osu_put_latency), one way (the target: two fences) or both ways at once. */
static fab_status_t fab_rma_fence_round(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    bool pp = fab_rma_pingpong(s->spec, s->sync), origin = fab_rma_is_origin(s, ctx->rank);
    fab_status_t st = FAB_MPI(MPI_Win_fence(0, s->win));

    fab_rma_test_stall(ctx, s); /* inside the epoch the fence opened */
    if (st == FAB_OK && pp && ctx->rank == 1)
        st = FAB_MPI(MPI_Win_fence(0, s->win));
    if (st == FAB_OK && origin)
        st = fab_rma_ops(ctx, s, bytes, nops);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Win_fence(0, s->win));
    if (st == FAB_OK && pp && ctx->rank == 0)
        st = FAB_MPI(MPI_Win_fence(0, s->win));
    return st;
}

static fab_status_t fab_rma_access(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_MPI(MPI_Win_start(s->group, 0, s->win));

    if (st == FAB_OK)
        st = fab_rma_ops(ctx, s, bytes, nops);
    return st != FAB_OK ? st : FAB_MPI(MPI_Win_complete(s->win));
}

/* Active target by post/start/complete/wait: a ping-pong (rank 0 accesses, then exposes; rank
 * 1 the reverse), one way (the target posts and waits) or both ways (each posts, accesses,
 * waits: osu_put_bibw). */
static fab_status_t fab_rma_pscw_round(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_OK;
    bool pp = fab_rma_pingpong(s->spec, s->sync);

    if (s->spec->bidir) {
        st = FAB_MPI(MPI_Win_post(s->group, 0, s->win));
        if (st == FAB_OK)
            st = fab_rma_access(ctx, s, bytes, nops);
        return st != FAB_OK ? st : FAB_MPI(MPI_Win_wait(s->win));
    }
    if (ctx->rank == 0) {
        st = fab_rma_access(ctx, s, bytes, nops);
        if (st == FAB_OK && pp)
            st = FAB_MPI(MPI_Win_post(s->group, 0, s->win));
        return st != FAB_OK || !pp ? st : FAB_MPI(MPI_Win_wait(s->win));
    }
    st = FAB_MPI(MPI_Win_post(s->group, 0, s->win));
    fab_rma_test_stall(ctx, s); /* inside the exposure epoch */
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Win_wait(s->win));
    return st != FAB_OK || !pp ? st : fab_rma_access(ctx, s, bytes, nops);
}

/* Passive target: only rank 0 acts; the target is not called upon. */
static fab_status_t fab_rma_passive_round(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_OK;
    int p = s->peer;

    if (ctx->rank != 0)
        return FAB_OK;
    if (s->sync == FAB_RMA_SYNC_LOCK)
        st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, p, 0, s->win));
    else if (s->sync == FAB_RMA_SYNC_LOCK_ALL)
        st = FAB_MPI(MPI_Win_lock_all(0, s->win));
    if (st == FAB_OK)
        st = fab_rma_ops(ctx, s, bytes, nops);
    if (st != FAB_OK)
        return st;
    switch (s->sync) {
    case FAB_RMA_SYNC_LOCK:
        return FAB_MPI(MPI_Win_unlock(p, s->win));
    case FAB_RMA_SYNC_LOCK_ALL:
        return FAB_MPI(MPI_Win_unlock_all(s->win));
    case FAB_RMA_SYNC_FLUSH:
        return FAB_MPI(MPI_Win_flush(p, s->win));
    case FAB_RMA_SYNC_FLUSH_LOCAL:
        return FAB_MPI(MPI_Win_flush_local(p, s->win));
    default:
        return FAB_ERR_INTERNAL;
    }
}

fab_status_t fab_rma_round(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    if (fab_rma_test_noop())
        return FAB_OK; /* a component that neither moves data nor waits (the tests') */
    if (s->sync == FAB_RMA_SYNC_FENCE)
        return fab_rma_fence_round(ctx, s, bytes, nops);
    if (s->sync == FAB_RMA_SYNC_PSCW)
        return fab_rma_pscw_round(ctx, s, bytes, nops);
    return fab_rma_passive_round(ctx, s, bytes, nops);
}

fab_status_t fab_rma_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    fab_rma_t *s = state;

    return fab_rma_round(ctx, s, bytes, s->spec->bw ? ctx->window : 1);
}

/* ------------------------------------------------------------------ validation */

/* Seeds: the window's contents of rank r at slot j, and the operand rank r sends in op j. */
static uint32_t fab_rma_tseed(uint32_t seed, int r, int j)
{
    return fab_pattern_seed(seed, r, j);
}
static uint32_t fab_rma_aseed(uint32_t seed, int r, int j)
{
    return fab_pattern_seed(seed, r, 1024 + j);
}

/* This rank's local view of its window, made consistent with what others did to it: a passive
 * epoch on itself around MPI_Win_sync (active target: the closing call already did). */
static fab_status_t fab_rma_win_sync(const fab_kctx_t *ctx, fab_rma_t *s)
{
    fab_status_t st;

    if (s->sync == FAB_RMA_SYNC_FENCE || s->sync == FAB_RMA_SYNC_PSCW)
        return FAB_OK;
    st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, ctx->rank, 0, s->win));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Win_sync(s->win));
    return st != FAB_OK ? st : FAB_MPI(MPI_Win_unlock(ctx->rank, s->win));
}

/* Before the round: the target's window slots hold pattern T, the origin's operands pattern A
 * and its results zero; the compare-and-swap compares with the target's T (so it swaps). */
static fab_status_t fab_rma_vprepare(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, uint32_t seed,
                                     int nops)
{
    int me = ctx->rank;
    fab_status_t st = FAB_OK;

    if (fab_rma_is_origin(s, s->peer)) { /* this rank is a target */
        for (int j = 0; j < nops; j++)
            fab_pattern_fill(s->base + fab_rma_off(s, j, bytes), bytes, fab_rma_tseed(seed, me, j));
        st = fab_rma_win_sync(ctx, s);
    }
    if (fab_rma_is_origin(s, me)) {
        for (int j = 0; j < nops; j++)
            fab_pattern_fill(s->lbuf + fab_rma_off(s, j, bytes), bytes, fab_rma_aseed(seed, me, j));
        if (s->spec->op == FAB_RMA_GET)
            memset(s->lbuf, 0, (size_t)nops * bytes);
        memset(ctx->rbuf, 0, bytes);
        memset(s->cbuf, 0, 64);
        fab_pattern_fill(s->cbuf, 4, fab_rma_tseed(seed, s->peer, 0));
    }
    return st != FAB_OK ? st : FAB_MPI(MPI_Barrier(ctx->comm));
}

/* Wrong bytes of got against a + b, int32 element by element (accumulate, fetch-and-op),
 * wrapping as MPI_SUM on MPI_INT32_T does. */
static long fab_rma_sum_check(const char *got, size_t bytes, uint32_t sa, uint32_t sb)
{
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    size_t w = 4;
    long bad = 0;

    if (!a || !b) {
        free(a);
        free(b);
        return (long)bytes;
    }
    fab_pattern_fill(a, bytes, sa);
    fab_pattern_fill(b, bytes, sb);
    for (size_t i = 0; i + w <= bytes; i += w) {
        uint32_t x = 0, y = 0;

        memcpy(&x, a + i, w);
        memcpy(&y, b + i, w);
        x += y; /* unsigned: wraps as the two's complement sum does */
        memcpy(a + i, &x, w);
    }
    for (size_t i = 0; i < bytes; i++)
        bad += ((const unsigned char *)got)[i] != a[i];
    free(a);
    free(b);
    return bad + fab_pattern_corrupt_for_tests();
}

/* A target's window after the round: what each operation must have left there. */
static long fab_rma_vtarget(const fab_kctx_t *ctx, const fab_rma_t *s, size_t bytes, uint32_t seed,
                            int nops)
{
    int me = ctx->rank, p = s->peer;
    long bad = 0;

    for (int j = 0; j < nops; j++) {
        const char *w = s->base + fab_rma_off(s, j, bytes);
        uint32_t t = fab_rma_tseed(seed, me, j), a = fab_rma_aseed(seed, p, j);

        switch (s->spec->op) {
        case FAB_RMA_PUT:
        case FAB_RMA_CAS:
            bad += fab_pattern_check(w, bytes, a);
            break;
        case FAB_RMA_GET:
            bad += fab_pattern_check(w, bytes, t);
            break;
        case FAB_RMA_ACC:
        case FAB_RMA_GET_ACC:
        case FAB_RMA_FOP:
            bad += fab_rma_sum_check(w, bytes, t, a);
            break;
        }
    }
    return bad;
}

/* An origin's results after the round: the target's values before the operation. */
static long fab_rma_vorigin(const fab_kctx_t *ctx, const fab_rma_t *s, size_t bytes, uint32_t seed,
                            int nops)
{
    int p = s->peer;
    long bad = 0;

    for (int j = 0; j < nops; j++) {
        uint32_t t = fab_rma_tseed(seed, p, j);

        if (s->spec->op == FAB_RMA_GET)
            bad += fab_pattern_check(s->lbuf + fab_rma_off(s, j, bytes), bytes, t);
        else if (s->spec->op == FAB_RMA_GET_ACC)
            bad += fab_pattern_check(ctx->rbuf + fab_rma_off(s, j, bytes), bytes, t);
        else if (s->spec->op == FAB_RMA_FOP || s->spec->op == FAB_RMA_CAS)
            bad += fab_pattern_check(s->cbuf + 8, 4, t);
    }
    return bad;
}

/* One round of distinct operations (one per slot) with patterned data, then every byte the
 * round wrote checked where it landed: the target's window and the origin's results. Passive
 * target: rank 0 tells the target after its synchronisation completed. */
fab_status_t fab_rma_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors)
{
    fab_rma_t *s = state;
    int nops = s->spec->bw ? (ctx->window < s->slots ? ctx->window : s->slots) : 1;
    bool passive = s->sync != FAB_RMA_SYNC_FENCE && s->sync != FAB_RMA_SYNC_PSCW;
    fab_status_t st = fab_rma_vprepare(ctx, s, bytes, seed, nops);

    if (st == FAB_OK)
        st = fab_rma_round(ctx, s, bytes, nops);
    if (st == FAB_OK && passive)
        st = ctx->rank == 0 ? FAB_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, ctx->tag + 4, ctx->comm))
                            : FAB_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, ctx->tag + 4, ctx->comm,
                                               MPI_STATUS_IGNORE));
    if (st == FAB_OK && fab_rma_is_origin(s, s->peer))
        st = fab_rma_win_sync(ctx, s);
    if (st != FAB_OK)
        return st;
    if (fab_rma_is_origin(s, s->peer))
        *errors += fab_rma_vtarget(ctx, s, bytes, seed, nops);
    if (fab_rma_is_origin(s, ctx->rank))
        *errors += fab_rma_vorigin(ctx, s, bytes, seed, nops);
    /* the next timed operations must not land before the target has read its window */
    return FAB_MPI(MPI_Barrier(ctx->comm));
}
