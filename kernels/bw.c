/* SPDX-License-Identifier: BSD-3-Clause */
/* bw: unidirectional bandwidth between two ranks (osu_bw). Per iteration A posts a window of
 * non-blocking sends, B the matching receives, and B acknowledges the window.
 *
 * --pattern incast (sock/incast.h): every rank takes part; the first --receivers ranks
 * receive and rank r >= R sends to rank (r - R) mod R. Per iteration every sender posts its
 * window at once; a receiver posts the receives of all its senders' windows, completes them
 * with MPI_Waitsome, noting what each sender had delivered when the first one's window was
 * complete (each sender's share, counted in whole messages), and then acknowledges each
 * sender. The senders time: the row's rate is the receivers' aggregate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_kernel.h"
#include "sock/incast.h"

#define BW_ACK_BYTES 4 /* what fab_window_iterate's sender waits for */

typedef struct bw_state {
    int peer;           /* a sender's receiver */
    int nsend;          /* a receiver's senders (0 otherwise) */
    int *from;          /* their ranks */
    int *cnt, *idx;     /* messages completed per sender; MPI_Waitsome's indices */
    double *got;        /* bytes per sender when the first one's window was complete */
    MPI_Request *reqs;  /* nsend x window */
    fab_incast_t tally; /* a receiver's shares (tally.nsend its senders) */
} bw_state_t;

static fab_status_t bw_incast_setup(fab_kctx_t *ctx, bw_state_t *s)
{
    int nrecv = fab_incast_receivers(), w = ctx->window;

    ctx->timer = ctx->rank >= nrecv;
    ctx->streams = ctx->size - nrecv;
    ctx->msgs_per_iter = (double)ctx->streams * w;
    if (ctx->rank >= nrecv) {
        s->peer = fab_incast_receiver_of(ctx->rank);
        return FAB_OK;
    }
    s->from = calloc((size_t)ctx->size, sizeof(int));
    if (!s->from)
        return FAB_ERR_NOMEM;
    for (int r = nrecv; r < ctx->size; r++)
        if (fab_incast_receiver_of(r) == ctx->rank)
            s->from[s->nsend++] = r;
    s->cnt = calloc((size_t)s->nsend, sizeof(int));
    s->got = calloc((size_t)s->nsend, sizeof(double));
    s->idx = calloc((size_t)s->nsend * (size_t)w, sizeof(int));
    s->reqs = calloc((size_t)s->nsend * (size_t)w, sizeof(MPI_Request));
    s->tally.nsend = s->nsend;
    return s->cnt && s->got && s->idx && s->reqs ? FAB_OK : FAB_ERR_NOMEM;
}

static fab_status_t bw_setup(fab_kctx_t *ctx, void **state)
{
    bw_state_t *s = calloc(1, sizeof(*s));

    *state = s;
    if (!s)
        return FAB_ERR_NOMEM;
    if (fab_incast_on())
        return bw_incast_setup(ctx, s);
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = ctx->window;
    return FAB_OK;
}

/* A receiver's iteration: every sender's window, the shares when the first is complete, an
 * acknowledgement to each. */
static fab_status_t bw_receive_incast(fab_kctx_t *ctx, bw_state_t *s, size_t bytes)
{
    int w = ctx->window, n = s->nsend * w, left = n, done;
    bool seen = false;
    fab_status_t st = FAB_OK;

    for (int k = 0; k < s->nsend; k++)
        s->cnt[k] = 0;
    for (int i = 0; i < n && st == FAB_OK; i++)
        st = FAB_MPI(MPI_Irecv(ctx->rbuf, (int)bytes, MPI_CHAR, s->from[i / w], ctx->tag, ctx->comm,
                               &s->reqs[i]));
    while (st == FAB_OK && left > 0) {
        bool full = false;

        st = FAB_MPI(MPI_Waitsome(n, s->reqs, &done, s->idx, MPI_STATUSES_IGNORE));
        for (int i = 0; st == FAB_OK && i < done; i++)
            full = ++s->cnt[s->idx[i] / w] == w || full;
        left -= st == FAB_OK ? done : 0;
        if (full && !seen) { /* the first sender's window is in: the others' parts so far */
            for (int k = 0; k < s->nsend; k++)
                s->got[k] = (double)s->cnt[k] * (double)bytes;
            fab_incast_add(&s->tally, s->got, s->nsend);
            seen = true;
        }
    }
    for (int k = 0; k < s->nsend && st == FAB_OK; k++)
        st = FAB_MPI(
            MPI_Send(ctx->sbuf, BW_ACK_BYTES, MPI_CHAR, s->from[k], ctx->tag + 1, ctx->comm));
    return st;
}

static fab_status_t bw_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    bw_state_t *s = state;

    if (!fab_incast_on())
        return fab_window_iterate(ctx, bytes, 1 - ctx->rank, ctx->rank == 0);
    if (s->nsend > 0)
        return bw_receive_incast(ctx, s, bytes);
    return fab_window_iterate(ctx, bytes, s->peer, true);
}

static fab_status_t bw_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                long *errors)
{
    bw_state_t *s = state;
    fab_status_t st = FAB_OK;

    if (!fab_incast_on())
        return fab_window_validate(ctx, bytes, 1 - ctx->rank, ctx->rank == 0, seed, errors);
    if (s->nsend == 0)
        return fab_window_validate(ctx, bytes, s->peer, true, seed, errors);
    for (int k = 0; k < s->nsend && st == FAB_OK; k++) /* sender by sender */
        st = fab_window_validate(ctx, bytes, s->from[k], false, seed, errors);
    return st;
}

static void bw_cleanup(fab_kctx_t *ctx, void *state)
{
    bw_state_t *s = state;

    (void)ctx;
    if (s) {
        free(s->from);
        free(s->cnt);
        free(s->idx);
        free(s->got);
        free(s->reqs);
    }
    free(s);
}

static void bw_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    if (fab_incast_on()) /* pairs: nothing beyond the summary */
        snprintf(buf, len,
                 "incast: %d sender(s) into %d receiver(s), each sender a window of %d "
                 "non-blocking sends per iteration, its receiver every window's receives at once "
                 "(MPI_Waitsome) and one acknowledgement per sender; shares counted in whole "
                 "messages",
                 ctx->size - fab_incast_receivers(), fab_incast_receivers(), ctx->window);
}

static void bw_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    (void)ctx;
    if (state)
        fab_incast_counters(&((const bw_state_t *)state)->tally, c, FAB_INCAST_BASE);
}

static double bw_derive(const fab_krow_t *row, int j)
{
    return fab_incast_derive(row, j, FAB_INCAST_BASE);
}

/* --wide shows the incast's columns under the pattern, never the TCP ones (NaN here) */
static bool bw_wide_shows(int j)
{
    return fab_incast_on() && j >= FAB_INCAST_BASE;
}

/* the incast's columns after the TCP ones, NaN here (sock/incast.h: the files' column order) */
static const fab_kcol_t bw_kcols[] = {FAB_INCAST_TCP_KCOLS};

const fab_kernel_t fab_kernel_bw = {
    .name = "bw",
    .summary = "unidirectional bandwidth: a window of sends, one ack per window (osu_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "mpi",
    .ranks = FAB_RANKS_PAIR,
    .ranks_now = fab_incast_ranks, /* --pattern incast: every rank */
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = bw_setup,
    .iterate = bw_iterate,
    .validate = bw_validate,
    .cleanup = bw_cleanup,
    .describe = bw_describe,
    .check = fab_incast_check,    /* --receivers without --pattern incast; no sender */
    .options = &fab_incast_kopts, /* --pattern, --receivers (sock/sock.h, sock/incast.h) */
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    .columns = &(const fab_kcolumns_t){.kcols = bw_kcols,
                                       .nkcols = FAB_INCAST_TCP_NKCOLS,
                                       .counters = bw_counters,
                                       .derive = bw_derive,
                                       .wide_shows = bw_wide_shows},
};
