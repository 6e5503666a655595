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
#include <time.h>

#include "core/testhook.h"
#include "core/watchdog.h"
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

/* FABRICBENCH_TEST_RMA_REF_SLEEP=N: in the reference's first N tries rank 1 sleeps 3 ms
 * before each answer, as a rank a busy machine does not run (the retry's test). */
static bool fab_rma_test_ref_sleep(int try_)
{
    const char *v = getenv("FABRICBENCH_TEST_RMA_REF_SLEEP");

    /* one digit 1-3 (FAB_RMA_REF_TRIES at most), anything else is off */
    return v && v[0] >= '1' && v[0] <= '0' + FAB_RMA_REF_TRIES && !v[1] && try_ < v[0] - '0';
}

static double fab_rma_cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One try: the least of FAB_RMA_REF_ITERS 8-byte ping-pongs, halved, on rank 0 (rank 1
 * answers), and the share of the try's wall time the less running of the two spent on a CPU
 * (near 1 where MPI polls while it waits, as Open MPI and UCX do, unless the machine did not
 * run one of them; an MPI that sleeps while it waits reads as a busy machine). */
static fab_status_t fab_rma_ref_try(fab_kctx_t *ctx, int try_, double *half, double *ran)
{
    char b[8] = {0};
    int tag = ctx->tag + 5, peer = 1 - ctx->rank;
    double best = INFINITY, w0 = MPI_Wtime(), c0 = fab_rma_cpu_now(), mine, theirs = 0;
    bool sleep_ = ctx->rank == 1 && fab_rma_test_ref_sleep(try_);
    fab_status_t st = FAB_OK;

    for (int i = 0; i < FAB_RMA_REF_WARM + FAB_RMA_REF_ITERS && st == FAB_OK; i++) {
        double t0 = MPI_Wtime();

        if (ctx->rank == 0) {
            st = FAB_MPI(MPI_Send(b, 8, MPI_BYTE, peer, tag, ctx->comm));
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Recv(b, 8, MPI_BYTE, peer, tag, ctx->comm, MPI_STATUS_IGNORE));
        } else {
            st = FAB_MPI(MPI_Recv(b, 8, MPI_BYTE, peer, tag, ctx->comm, MPI_STATUS_IGNORE));
            if (sleep_) {
                struct timespec ms3 = {0, 3000000};

                nanosleep(&ms3, NULL);
            }
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Send(b, 8, MPI_BYTE, peer, tag, ctx->comm));
        }
        t0 = MPI_Wtime() - t0;
        if (i >= FAB_RMA_REF_WARM && t0 < best)
            best = t0;
    }
    mine = (fab_rma_cpu_now() - c0) / (MPI_Wtime() - w0);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Sendrecv(&mine, 1, MPI_DOUBLE, peer, tag, &theirs, 1, MPI_DOUBLE, peer,
                                  tag, ctx->comm, MPI_STATUS_IGNORE));
    *half = best / 2;
    *ran = mine < theirs ? mine : theirs;
    return st;
}

/* The pair's reference (ranks 0 and 1; with --rma-pattern one-to-all or all-to-all the others
 * wait, and only the pair ticks the watchdog per try): tries until the two ranks ran for at least
 * FAB_RMA_REF_RAN of a try, at most FAB_RMA_REF_TRIES, keeping the least; a reference measured
 * while the machine did not run one of them is too high, and its floor would mark real rows
 * implausible. Both ranks see the same shares, so they agree on another try without a message. */
static fab_status_t fab_rma_ref_pingpong(fab_kctx_t *ctx, fab_rma_t *s)
{
    double best = INFINITY, ran = 0;
    int tries = 0;
    fab_status_t st = FAB_OK;

    if (ctx->rank > 1)
        return FAB_OK;
    while (st == FAB_OK && tries < FAB_RMA_REF_TRIES && ran < FAB_RMA_REF_RAN) {
        double half = INFINITY;

        st = fab_rma_ref_try(ctx, tries++, &half, &ran);
        fab_watch_tick(); /* a try done is progress: a long retry is not a stall */
        if (half < best)
            best = half;
    }
    if (ctx->rank == 0 && st == FAB_OK) {
        s->ref_lat = best;
        s->floor = s->ref_lat * (s->same_node ? FAB_RMA_FLOOR_LOCAL : FAB_RMA_FLOOR_REMOTE);
        if (ran < FAB_RMA_REF_RAN)
            FAB_WARN("kernel '%s': its two-sided reference (twosided_lat_us %.2f us) was taken "
                     "on a busy machine: in each of %d tries one rank of the pair ran under "
                     "%.0f%% of the time (%.0f%% in the last), so floor_us may be too high and a "
                     "row marked implausible by its time alone may be a false mark; --validate "
                     "checks the data itself, and a quieter moment gives a true floor",
                     s->spec->name, s->ref_lat * 1e6, tries, 100.0 * FAB_RMA_REF_RAN, 100.0 * ran);
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
