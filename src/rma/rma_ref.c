/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' two-sided references (part of rma/rma.h): at set-up, the pair's MPI
 * two-sided 8-byte half round trip (the floor under an iteration that includes remote
 * completion: the implausible mark) and, for put_bw and get_bw, a two-sided window at each size
 * (osu_bw's: the window's sends and an acknowledgement), so that a row says how its bandwidth
 * compares (twosided_pct; the harness warns when it is far below). The kernels' test hooks.
 * docs/METRICS.md, "Implausible one-sided rows". */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/testhook.h"
#include "rma/rma.h"
#include "rma/rma_int.h"

#define FAB_RMA_REF_REPS 3 /* two-sided windows per size, the first untimed */

bool fab_rma_test_noop(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_RMA_NOOP", &cached);
}

bool fab_rma_test_remote(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_RMA_REMOTE", &cached);
}

bool fab_rma_test_slow(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_RMA_SLOW", &cached);
}

void fab_rma_test_stall(const fab_kctx_t *ctx, fab_rma_t *s)
{
    static int cached = -1;

    if (ctx->rank == 1 && ++s->rounds == 50 &&
        fab_test_switch("FABRICBENCH_TEST_RMA_STALL", &cached))
        raise(SIGSTOP);
}

int fab_rma_size_index(const fab_kctx_t *ctx, size_t bytes)
{
    for (int i = 0; i < ctx->nsizes; i++)
        if (ctx->sizes[i] == bytes)
            return i;
    return -1;
}

/* The least of FAB_RMA_REF_ITERS 8-byte ping-pongs, halved, on rank 0 (rank 1 answers; with
 * --rma-pattern one-to-all or all-to-all the others wait: the reference is ranks 0 and 1's). */
static fab_status_t fab_rma_ref_pingpong(fab_kctx_t *ctx, fab_rma_t *s)
{
    char b[8] = {0};
    int tag = ctx->tag + 5, peer = 1 - ctx->rank;
    double best = INFINITY;
    fab_status_t st = FAB_OK;

    if (ctx->rank > 1)
        return FAB_OK;
    for (int i = 0; i < FAB_RMA_REF_WARM + FAB_RMA_REF_ITERS && st == FAB_OK; i++) {
        double t0 = MPI_Wtime();

        if (ctx->rank == 0) {
            st = FAB_MPI(MPI_Send(b, 8, MPI_BYTE, peer, tag, ctx->comm));
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Recv(b, 8, MPI_BYTE, peer, tag, ctx->comm, MPI_STATUS_IGNORE));
        } else {
            st = FAB_MPI(MPI_Recv(b, 8, MPI_BYTE, peer, tag, ctx->comm, MPI_STATUS_IGNORE));
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Send(b, 8, MPI_BYTE, peer, tag, ctx->comm));
        }
        t0 = MPI_Wtime() - t0;
        if (i >= FAB_RMA_REF_WARM && t0 < best)
            best = t0;
    }
    if (ctx->rank == 0 && st == FAB_OK) {
        s->ref_lat = best / 2;
        s->floor = s->ref_lat * (s->same_node ? FAB_RMA_FLOOR_LOCAL : FAB_RMA_FLOOR_REMOTE);
    }
    return st;
}

/* One two-sided window of `bytes` from rank 0 to 1 (osu_bw's iteration: window sends from one
 * buffer, then a 0-byte acknowledgement), timed on rank 0. */
static fab_status_t fab_rma_ref_window(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes, double *t)
{
    int tag = ctx->tag + 6, n = (int)bytes, w = ctx->window;
    double t0 = MPI_Wtime();
    fab_status_t st = FAB_OK;

    for (int j = 0; j < w && st == FAB_OK; j++)
        st =
            ctx->rank == 0
                ? FAB_MPI(MPI_Isend(ctx->sbuf, n, MPI_BYTE, s->peer, tag, ctx->comm, &ctx->reqs[j]))
                : FAB_MPI(
                      MPI_Irecv(ctx->rbuf, n, MPI_BYTE, s->peer, tag, ctx->comm, &ctx->reqs[j]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Waitall(w, ctx->reqs, MPI_STATUSES_IGNORE));
    if (st == FAB_OK)
        st = ctx->rank == 0 ? FAB_MPI(MPI_Recv(NULL, 0, MPI_BYTE, s->peer, tag + 1, ctx->comm,
                                               MPI_STATUS_IGNORE))
                            : FAB_MPI(MPI_Send(NULL, 0, MPI_BYTE, s->peer, tag + 1, ctx->comm));
    *t = MPI_Wtime() - t0;
    return st;
}

fab_status_t fab_rma_ref_measure(fab_kctx_t *ctx, fab_rma_t *s)
{
    MPI_Comm node;
    int nn = 0;
    fab_status_t st;

    s->ref_lat = s->floor = NAN;
    s->ref_iter = malloc(sizeof(double) * (size_t)(ctx->nsizes ? ctx->nsizes : 1));
    if (!s->ref_iter)
        return FAB_ERR_NOMEM;
    for (int i = 0; i < ctx->nsizes; i++)
        s->ref_iter[i] = NAN;
#ifdef FAB_SIM
    return FAB_OK; /* simulated times: no floor to judge them by (core/sim.h) */
#endif
    st = FAB_MPI(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    if (st != FAB_OK)
        return st;
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    s->same_node = nn == ctx->size && !fab_rma_test_remote();
    st = fab_rma_ref_pingpong(ctx, s);
    if (!s->spec->bw || s->spec->bidir || s->pattern != FAB_RMA_PAIRS)
        return st; /* the patterns' aggregate has no one pair's window to compare with */
    for (int i = 0; i < ctx->nsizes && st == FAB_OK; i++)
        for (int r = 0; r < FAB_RMA_REF_REPS && st == FAB_OK; r++) {
            double t = NAN;

            st = fab_rma_ref_window(ctx, s, ctx->sizes[i], &t);
            if (r > 0 && ctx->rank == 0 && !(t >= s->ref_iter[i]))
                s->ref_iter[i] = t;
        }
    return st;
}

/* ------------------------------------------------------------------ --rma-target-busy */

static int fab_rma_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Per size: the origins' median round while every target waits inside MPI (in the barrier
 * that ends the size), then the slowest origin's median on every rank. */
fab_status_t fab_rma_idle_measure(fab_kctx_t *ctx, fab_rma_t *s)
{
    double t[FAB_RMA_IDLE_ITERS];
    int n = ctx->nsizes ? ctx->nsizes : 1, nops = s->spec->bw ? ctx->window : 1;
    fab_status_t st = FAB_OK;
    double *mine = calloc((size_t)n, sizeof(double));

    s->idle_iter = calloc((size_t)n, sizeof(double));
    if (!s->idle_iter || !mine) {
        free(mine);
        return FAB_ERR_NOMEM;
    }
    for (int i = 0; i < ctx->nsizes && st == FAB_OK; i++) {
        for (int r = 0; r < FAB_RMA_IDLE_WARM + FAB_RMA_IDLE_ITERS && s->ntg > 0 && st == FAB_OK;
             r++) {
            double t0 = MPI_Wtime();

            st = fab_rma_round(ctx, s, ctx->sizes[i], nops);
            if (r >= FAB_RMA_IDLE_WARM)
                t[r - FAB_RMA_IDLE_WARM] = MPI_Wtime() - t0;
        }
        if (s->ntg > 0) {
            qsort(t, FAB_RMA_IDLE_ITERS, sizeof(double), fab_rma_dcmp);
            mine[i] = (t[FAB_RMA_IDLE_ITERS / 2 - 1] + t[FAB_RMA_IDLE_ITERS / 2]) / 2;
        }
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Barrier(ctx->comm));
    }
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Allreduce(mine, s->idle_iter, n, MPI_DOUBLE, MPI_MAX, ctx->comm));
    free(mine);
    return st;
}

fab_status_t fab_rma_busy(fab_kctx_t *ctx, fab_rma_t *s, size_t bytes)
{
    int i = fab_rma_size_index(ctx, bytes), flag = 0;

    fab_coll_compute(i >= 0 ? FAB_RMA_BUSY_FACTOR * s->idle_iter[i]
                            : 0.0); /* no MPI call: what progresses, alone */
    /* the poll between iterations: the target's one chance to progress the origin's epoch */
    return FAB_MPI(MPI_Iprobe(MPI_ANY_SOURCE, ctx->tag + 7, ctx->comm, &flag, MPI_STATUS_IGNORE));
}
