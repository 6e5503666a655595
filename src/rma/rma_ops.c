/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' iterations and their validation (part of rma/rma.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rma/rma.h"
#include "rma/rma_int.h"

/* Operation j of an iteration to target t: from/into the origin's slot j of t's region, to
 * slot j of this rank's region at t. */
static fab_status_t fab_rma_op(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int t, int j)
{
    size_t loff = fab_rma_off(s, fab_rma_reg(s, t), j, bytes);
    MPI_Aint disp = s->bases[t] + (MPI_Aint)fab_rma_off(s, fab_rma_reg(s, ctx->rank), j, bytes);
    char *l = s->lbuf + loff, *c = s->cbuf + 8 * (size_t)t;
    int n = (int)bytes;

    switch (s->spec->op) {
    case FAB_RMA_PUT:
        return FAB_MPI(MPI_Put(l, n, MPI_BYTE, t, disp, n, MPI_BYTE, s->win));
    case FAB_RMA_GET:
        return FAB_MPI(MPI_Get(l, n, MPI_BYTE, t, disp, n, MPI_BYTE, s->win));
    case FAB_RMA_ACC: /* int32 elements, bytes / 4 of them (the check refuses other sizes) */
        return FAB_MPI(
            MPI_Accumulate(l, n / 4, MPI_INT32_T, t, disp, n / 4, MPI_INT32_T, MPI_SUM, s->win));
    case FAB_RMA_GET_ACC:
        return FAB_MPI(MPI_Get_accumulate(l, n / 4, MPI_INT32_T, s->res + loff, n / 4, MPI_INT32_T,
                                          t, disp, n / 4, MPI_INT32_T, MPI_SUM, s->win));
    case FAB_RMA_FOP:
        return FAB_MPI(MPI_Fetch_and_op(l, c + 4, MPI_INT32_T, t, disp, MPI_SUM, s->win));
    case FAB_RMA_CAS:
        return FAB_MPI(MPI_Compare_and_swap(l, c, c + 4, MPI_INT32_T, t, disp, s->win));
    }
    (void)ctx;
    return FAB_ERR_INTERNAL;
}

/* The flush of target t under flush or flush_local. */
static fab_status_t fab_rma_flush(fab_rma_t *s, int t)
{
    return s->sync == FAB_RMA_SYNC_FLUSH ? FAB_MPI(MPI_Win_flush(t, s->win))
                                         : FAB_MPI(MPI_Win_flush_local(t, s->win));
}

/* Puts or gets of one window to target t, slot j at j x bytes from the first (nops at most
 * the slots): the places computed once, a loop as bare as osu_put_bw's. At 8 B an MPI_Put of
 * osc rdma costs some 310 instructions, and fab_rma_op's 70 more per operation (callgrind)
 * held put_bw at 0.84-0.93 of OSU's rate. */
static fab_status_t fab_rma_ops_plain(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int t, int nops)
{
    char *l = s->lbuf + fab_rma_off(s, fab_rma_reg(s, t), 0, bytes);
    MPI_Aint disp = s->bases[t] + (MPI_Aint)fab_rma_off(s, fab_rma_reg(s, ctx->rank), 0, bytes);
    MPI_Win win = s->win;
    int n = (int)bytes;
    fab_status_t st = FAB_OK;

    if (s->spec->op == FAB_RMA_PUT)
        for (int j = 0; j < nops && st == FAB_OK; j++, l += bytes, disp += (MPI_Aint)bytes)
            st = FAB_MPI(MPI_Put(l, n, MPI_BYTE, t, disp, n, MPI_BYTE, win));
    else
        for (int j = 0; j < nops && st == FAB_OK; j++, l += bytes, disp += (MPI_Aint)bytes)
            st = FAB_MPI(MPI_Get(l, n, MPI_BYTE, t, disp, n, MPI_BYTE, win));
    return st;
}

/* nops operations to each target in turn; --rma-flush op: each flushed alone. Puts and gets
 * not flushed one by one take fab_rma_ops_plain (the same places, fewer instructions). */
static fab_status_t fab_rma_ops(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_OK;
    struct timespec ms = {0, 20000000}; /* 20 ms: far above a busy machine's two-sided window */
    bool per_op = fab_rma_flush_per_op(s->spec, s->sync);

    if ((s->spec->op == FAB_RMA_PUT || s->spec->op == FAB_RMA_GET) && !per_op && nops <= s->slots &&
        !fab_rma_test_slow()) {
        for (int k = 0; k < s->ntg && st == FAB_OK; k++)
            st = fab_rma_ops_plain(ctx, s, bytes, s->tg[k], nops);
        return st;
    }
    for (int k = 0; k < s->ntg && st == FAB_OK; k++)
        for (int j = 0; j < nops && st == FAB_OK; j++) {
            st = fab_rma_op(ctx, s, bytes, s->tg[k], j);
            if (fab_rma_test_slow()) /* a component far slower than two-sided (the tests') */
                nanosleep(&ms, NULL);
            if (st == FAB_OK && per_op)
                st = fab_rma_flush(s, s->tg[k]);
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

    if (s->pattern != FAB_RMA_PAIRS) { /* each rank exposes to its origins, accesses its targets */
        if (s->nor > 0)
            st = FAB_MPI(MPI_Win_post(s->ogroup, 0, s->win));
        if (st == FAB_OK && s->ntg > 0)
            st = fab_rma_access(ctx, s, bytes, nops);
        return st != FAB_OK || s->nor == 0 ? st : FAB_MPI(MPI_Win_wait(s->win));
    }
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

/* Passive target: only the origins act; a target is not called upon (--rma-target-busy: it
 * computes outside MPI). lock: each target locked and unlocked in turn. */
static fab_status_t fab_rma_passive_round(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, int nops)
{
    fab_status_t st = FAB_OK;
    fab_rma_t one = *s; /* lock: the operations of one target */

    if (s->ntg == 0)
        return FAB_OK;
    if (s->sync == FAB_RMA_SYNC_LOCK) {
        one.ntg = 1;
        for (int k = 0; k < s->ntg && st == FAB_OK; k++) {
            one.tg = s->tg + k;
            st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, s->tg[k], 0, s->win));
            if (st == FAB_OK)
                st = fab_rma_ops(ctx, &one, bytes, nops);
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Win_unlock(s->tg[k], s->win));
        }
        return st;
    }
    if (s->sync == FAB_RMA_SYNC_LOCK_ALL)
        st = FAB_MPI(MPI_Win_lock_all(0, s->win));
    if (st == FAB_OK)
        st = fab_rma_ops(ctx, s, bytes, nops);
    if (st != FAB_OK)
        return st;
    if (s->sync == FAB_RMA_SYNC_LOCK_ALL)
        return FAB_MPI(MPI_Win_unlock_all(s->win));
    if (s->sync != FAB_RMA_SYNC_FLUSH && s->sync != FAB_RMA_SYNC_FLUSH_LOCAL)
        return FAB_ERR_INTERNAL;
    for (int k = 0; k < s->ntg && st == FAB_OK && !fab_rma_flush_per_op(s->spec, s->sync); k++)
        st = fab_rma_flush(s, s->tg[k]); /* the window: one flush per target */
    return st;
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

    if (s->idle_iter && s->ntg == 0) /* --rma-target-busy: a target computes */
        return fab_rma_busy(ctx, s, bytes);
    return fab_rma_round(ctx, s, bytes, s->spec->bw ? ctx->window : 1);
}

/* ------------------------------------------------------------------ validation */

/* Seeds: the window's contents of rank r at place i (its region times slots plus the slot), and
 * the operand rank r sends for place i of its target. */
static uint32_t fab_rma_tseed(uint32_t seed, int r, int i)
{
    return fab_pattern_seed(seed, r, 2 * i);
}
static uint32_t fab_rma_aseed(uint32_t seed, int r, int i)
{
    return fab_pattern_seed(seed, r, 2 * i + 1);
}
/* The place of operation j from origin o at its target t, as the seeds count them. */
static int fab_rma_place(const fab_rma_t *s, int o, int j)
{
    return fab_rma_reg(s, o) * s->slots + j;
}

/* This rank's local view of its window, made consistent with what others did to it: a passive
 * epoch on itself around MPI_Win_sync (active target: the closing call already did). */
static fab_status_t fab_rma_win_sync(const fab_kctx_t *ctx, fab_rma_t *s)
{
    fab_status_t st;

    if (s->sync == FAB_RMA_SYNC_FENCE || s->sync == FAB_RMA_SYNC_PSCW)
        return FAB_OK;
    if (s->locked_all) /* the run's lock_all covers this rank too */
        return FAB_MPI(MPI_Win_sync(s->win));
    st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, ctx->rank, 0, s->win));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Win_sync(s->win));
    return st != FAB_OK ? st : FAB_MPI(MPI_Win_unlock(ctx->rank, s->win));
}

/* Before the round: a target's regions hold pattern T, an origin's operands pattern A and its
 * results zero; the compare-and-swap compares with the target's T (so it swaps). */
static fab_status_t fab_rma_vprepare(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, uint32_t seed,
                                     int nops)
{
    int me = ctx->rank;
    fab_status_t st = FAB_OK;

    for (int k = 0; k < s->nor; k++) /* this rank is a target of orig[k] */
        for (int j = 0; j < nops; j++)
            fab_pattern_fill(s->base + fab_rma_off(s, fab_rma_reg(s, s->orig[k]), j, bytes), bytes,
                             fab_rma_tseed(seed, me, fab_rma_place(s, s->orig[k], j)));
    if (s->nor > 0)
        st = fab_rma_win_sync(ctx, s);
    for (int k = 0; k < s->ntg; k++) {
        int t = s->tg[k];

        for (int j = 0; j < nops; j++) {
            char *l = s->lbuf + fab_rma_off(s, fab_rma_reg(s, t), j, bytes);

            fab_pattern_fill(l, bytes, fab_rma_aseed(seed, me, fab_rma_place(s, t, j)));
            if (s->spec->op == FAB_RMA_GET)
                memset(l, 0, bytes);
            if (s->res)
                memset(s->res + fab_rma_off(s, fab_rma_reg(s, t), j, bytes), 0, bytes);
        }
        memset(s->cbuf + 8 * (size_t)t, 0, 8);
        fab_pattern_fill(s->cbuf + 8 * (size_t)t, 4,
                         fab_rma_tseed(seed, t, fab_rma_place(s, me, 0)));
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

/* A target's window after the round: what each origin's operations must have left there. */
static long fab_rma_vtarget(const fab_kctx_t *ctx, const fab_rma_t *s, size_t bytes, uint32_t seed,
                            int nops)
{
    int me = ctx->rank;
    long bad = 0;

    for (int k = 0; k < s->nor; k++)
        for (int j = 0; j < nops; j++) {
            int o = s->orig[k];
            const char *w = s->base + fab_rma_off(s, fab_rma_reg(s, o), j, bytes);
            uint32_t t = fab_rma_tseed(seed, me, fab_rma_place(s, o, j)),
                     a = fab_rma_aseed(seed, o, fab_rma_place(s, me, j));

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

/* An origin's results after the round: each target's values before the operation. */
static long fab_rma_vorigin(const fab_kctx_t *ctx, const fab_rma_t *s, size_t bytes, uint32_t seed,
                            int nops)
{
    long bad = 0;

    for (int k = 0; k < s->ntg; k++)
        for (int j = 0; j < nops; j++) {
            int t = s->tg[k];
            size_t off = fab_rma_off(s, fab_rma_reg(s, t), j, bytes);
            uint32_t v = fab_rma_tseed(seed, t, fab_rma_place(s, ctx->rank, j));

            if (s->spec->op == FAB_RMA_GET)
                bad += fab_pattern_check(s->lbuf + off, bytes, v);
            else if (s->spec->op == FAB_RMA_GET_ACC)
                bad += fab_pattern_check(s->res + off, bytes, v);
            else if (s->spec->op == FAB_RMA_FOP || s->spec->op == FAB_RMA_CAS)
                bad += fab_pattern_check(s->cbuf + 8 * (size_t)t + 4, 4, v);
        }
    return bad;
}

/* One round of distinct operations (one per slot and target) with patterned data, then every
 * byte the round wrote checked where it landed: the targets' windows and the origins' results.
 * Passive target: the targets wait in a barrier until every origin's synchronisation is done. */
fab_status_t fab_rma_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors)
{
    fab_rma_t *s = state;
    int nops = s->spec->bw ? (ctx->window < s->slots ? ctx->window : s->slots) : 1;
    fab_status_t st = fab_rma_vprepare(ctx, s, bytes, seed, nops);

    if (st == FAB_OK)
        st = fab_rma_round(ctx, s, bytes, nops);
    if (st == FAB_OK && fab_rma_passive(s->sync))
        st = FAB_MPI(MPI_Barrier(ctx->comm));
    if (st == FAB_OK && s->nor > 0)
        st = fab_rma_win_sync(ctx, s);
    if (st != FAB_OK)
        return st;
    *errors += fab_rma_vtarget(ctx, s, bytes, seed, nops);
    *errors += fab_rma_vorigin(ctx, s, bytes, seed, nops);
    /* the next timed operations must not land before the targets have read their windows */
    return FAB_MPI(MPI_Barrier(ctx->comm));
}
