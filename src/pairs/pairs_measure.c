/* SPDX-License-Identifier: BSD-3-Clause */
/* One pair in one direction (pairs/pairs_int.h, fab_pairs_measure): warm-up rounds, then
 * timed blocks, as the pair's iteration policy says (pairs/pairs_stop.h). After each round
 * and block the ranks agree on the next one's length (an MPI_Allreduce with MPI_MAX: the pair's
 * two ranks, or every member in a shift round, where every member times its own sends and all
 * go on while one is not done), outside the timed iterations. Within a block the timestamps
 * are contiguous (one timer reading per iteration), as in the runner's timed blocks, and they
 * are converted to seconds after it. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mpi_call.h"
#include "core/testhook.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "measure/adaptive.h"
#include "measure/buffers.h"
#include "measure/stats.h"
#include "pairs/pairs_int.h"

/* FABRICBENCH_TEST_PAIRS_LOADED=1: in the schedule (not in retests) every timed iteration of
 * a pair with member 1 takes FAB_PAIRS_TEST_DELAY_NS longer, so the tests can prove that a
 * pair slow only under the schedule is retested, and its two values are kept. The whole delay
 * is slept, also when a signal interrupts it: the tests take it as a lower bound. */
#define FAB_PAIRS_TEST_DELAY_NS 50000000L

static void fab_pairs_test_delay(const fab_pairs_t *P, int src, int dst)
{
    static int cached = -1;
    struct timespec ts = {0, FAB_PAIRS_TEST_DELAY_NS};

    if ((src == 1 || dst == 1) && !P->retesting &&
        fab_test_switch("FABRICBENCH_TEST_PAIRS_LOADED", &cached))
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) /* a signal: sleep the rest */
            ;
}

/* The next round's or block's length, agreed: the most any rank of c asks for (0: done). */
static fab_status_t fab_pairs_next(MPI_Comm c, uint64_t mine, uint64_t *agreed)
{
    *agreed = 0;
    return FAB_MPI(MPI_Allreduce(&mine, agreed, 1, MPI_UINT64_T, MPI_MAX, c));
}

/* n iterations; on the timing rank the time of each into P->ticks (when n fits there, else
 * straight into acc) and the round's time into *secs. */
static fab_status_t fab_pairs_iterations(fab_pairs_t *P, fab_kctx_t *ctx, void *state, uint64_t n,
                                         bool timed, int to, int from, int src, int dst,
                                         fab_acc_t *acc, double *secs)
{
    const fab_kernel_t *k = P->k;
    size_t bytes = P->sizes.v[0];
    bool keep = n <= FAB_PAIRS_BLOCK_MAX;
    uint64_t first = fab_ticks(), last = first;
    fab_status_t st = FAB_OK;

    for (uint64_t i = 0; i < n && st == FAB_OK; i++) {
        st = to >= 0 ? k->p2p->shift(ctx, state, bytes, to, from) : k->iterate(ctx, state, bytes);
        if (ctx->timer && timed) {
            uint64_t now;

            fab_pairs_test_delay(P, src, dst);
            now = fab_ticks();
            if (keep)
                P->ticks[i] = now - last;
            else
                fab_acc_add(acc, fab_ticks_to_s(now - last));
            last = now;
        }
        fab_watch_tick();
    }
    if (!timed || !ctx->timer)
        last = fab_ticks();
    *secs = fab_ticks_to_s(last - first);
    return st;
}

/* The timing rank, after a timed block of n: its samples into acc, the block's median, the
 * pooled median interval, and the policy's decision. */
static void fab_pairs_block_end(fab_pairs_t *P, fab_pstop_t *ps, fab_acc_t *acc, uint64_t n,
                                double secs)
{
    fab_interval_t pooled;
    double med = NAN;

    if (n <= FAB_PAIRS_BLOCK_MAX) {
        for (uint64_t i = 0; i < n; i++) {
            P->secs[i] = fab_ticks_to_s(P->ticks[i]);
            fab_acc_add(acc, P->secs[i]);
        }
        if (ps->c.policy == FAB_PSTOP_ADAPTIVE)
            med = fab_median_select(P->secs, (size_t)n);
    }
    acc->loop_total += secs;
    memset(&pooled, 0, sizeof(pooled));
    if (ps->c.policy == FAB_PSTOP_ADAPTIVE && !ps->done)
        fab_acc_median_ci(acc, &pooled);
    fab_pstop_block(ps, n, secs, med, &pooled);
}

/* The watchdog's step (the time between its ticks: one iteration): what one took so far, or
 * in the last pair's measurement before this one's first estimate. */
static double fab_pairs_step(const fab_pairs_t *P, const fab_pstop_t *ps)
{
    return ps->per_iter > 0 ? ps->per_iter : P->iter_s;
}

fab_status_t fab_pairs_measure(fab_pairs_t *P, MPI_Comm pc, int peer, fab_pair_rec_t *rec, int src,
                               int dst, int to, int from)
{
    const fab_kernel_t *k = P->k;
    fab_kctx_t ctx;
    void *state = NULL;
    fab_acc_t acc;
    fab_stats_t s;
    fab_pstop_t ps;
    uint64_t t0 = fab_now_ns(), n = 0;
    double secs = 0;
    size_t bytes = P->sizes.v[0];
    fab_status_t st = fab_ctx_setup(P->mopt, P->nopt, P->ki, &P->sizes, pc, &ctx, &state);

    if (to >= 0)
        ctx.timer = true; /* shift: every member times its own sends */
    fab_pstop_init(&ps, &P->stop);
    if (st == FAB_OK)
        st = fab_acc_init(&acc, ctx.timer ? (size_t)P->mopt->max_samples : 0);
    if (st != FAB_OK) {
        fab_ctx_free(&ctx);
        return st;
    }
    /* warm-up rounds, each followed by the agreement on the next (0: warmed) */
    if (st == FAB_OK)
        st = fab_pairs_next(pc, ctx.timer ? fab_pstop_first(&ps) : 0, &n);
    while (st == FAB_OK && n > 0) {
        fab_watch_phase("a pair's warm-up", k->name, bytes, peer, fab_pairs_step(P, &ps));
        st = fab_pairs_iterations(P, &ctx, state, n, false, to, from, src, dst, &acc, &secs);
        if (!ctx.timer) /* its own estimate, for the watchdog only: the timer decides */
            ps.per_iter = secs / (double)n;
        if (st == FAB_OK) {
            uint64_t next = ctx.timer ? fab_pstop_warmed(&ps, n, secs) : 0;

            fab_watch_phase("agreeing on the pair's next warm-up round", k->name, bytes, peer,
                            fab_pairs_step(P, &ps));
            st = fab_pairs_next(pc, next, &n);
        }
    }
    /* timed blocks, likewise */
    if (st == FAB_OK)
        st = fab_pairs_next(pc, ctx.timer ? fab_pstop_next(&ps) : 0, &n);
    while (st == FAB_OK && n > 0) {
        fab_watch_phase("a pair's timed iterations", k->name, bytes, peer, fab_pairs_step(P, &ps));
        st = fab_pairs_iterations(P, &ctx, state, n, true, to, from, src, dst, &acc, &secs);
        if (st == FAB_OK && ctx.timer)
            fab_pairs_block_end(P, &ps, &acc, n, secs);
        else
            ps.per_iter = secs / (double)n;
        if (st == FAB_OK) {
            fab_watch_phase("agreeing on the pair's next block", k->name, bytes, peer,
                            fab_pairs_step(P, &ps));
            st = fab_pairs_next(pc, ctx.timer ? fab_pstop_next(&ps) : 0, &n);
        }
    }
    if (st == FAB_OK && ctx.timer && acc.n > 0) {
        fab_acc_stats(&acc, 1.0, &s);
        *rec = (fab_pair_rec_t){src,
                                dst,
                                s.p50,
                                s.p99,
                                s.mean,
                                ctx.msgs_per_iter,
                                (int64_t)ps.samples,
                                (int64_t)ps.warm,
                                (int32_t)ps.a.nblocks,
                                ps.met};
        if (ps.c.policy != FAB_PSTOP_ADAPTIVE) /* blocks count only where they are judged */
            rec->blocks = 0;
    }
    if (k->cleanup)
        k->cleanup(&ctx, state);
    fab_acc_free(&acc);
    fab_ctx_free(&ctx);
    P->step_s = (double)(fab_now_ns() - t0) * 1e-9;
    if (ps.per_iter > 0)
        P->iter_s = ps.per_iter;
    return st;
}
