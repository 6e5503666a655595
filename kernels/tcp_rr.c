/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp_rr: TCP request/response (sockperf ping-pong, netperf TCP_RR). The two ranks of --pair
 * share one TCP connection with TCP_NODELAY (sock/sock.h: the address, port 0); A writes
 * `bytes`, B reads them all and writes as many back, A reads them: one iteration is one round
 * trip, timed by A. Reported: one-way latency = round trip / 2, as sockperf and osu_latency
 * report it (loop_us x 2 is the round trip, netperf TCP_RR's 1 / transaction rate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_kernel.h"
#include "sock/sock.h"

static char tcp_rr_where[192]; /* rank 0's connection, for describe */

static fab_status_t tcp_rr_setup(fab_kctx_t *ctx, void **state)
{
    fab_sock_link_t *l = calloc(1, sizeof(*l));
    fab_status_t st;

    *state = l;
    if (!l)
        return FAB_ERR_NOMEM;
    st = fab_sock_connect(ctx, 1 - ctx->rank, ctx->rank == 0, 1, true, "tcp_rr", l);
    if (st != FAB_OK)
        return st;
    fab_sock_blocking(l); /* a reply is waited for in recv, as sockperf waits */
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = 2; /* one each way */
    if (ctx->rank == 0)
        snprintf(tcp_rr_where, sizeof(tcp_rr_where), "%s -> %s", l->local, l->remote);
    return FAB_OK;
}

static fab_status_t tcp_rr_exchange(fab_kctx_t *ctx, fab_sock_link_t *l, size_t bytes)
{
    fab_status_t st;

    if (ctx->rank == 0) {
        st = fab_sock_write(l, 0, ctx->sbuf, bytes);
        return st == FAB_OK ? fab_sock_read(l, 0, ctx->rbuf, bytes) : st;
    }
    st = fab_sock_read(l, 0, ctx->rbuf, bytes);
    return st == FAB_OK ? fab_sock_write(l, 0, ctx->sbuf, bytes) : st;
}

static fab_status_t tcp_rr_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    return tcp_rr_exchange(ctx, state, bytes);
}

/* A's request and B's answer carry different patterns; each side checks what it got. */
static fab_status_t tcp_rr_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                    long *errors)
{
    fab_sock_link_t *l = state;
    int me = ctx->rank, peer = 1 - me;
    fab_status_t st = FAB_OK;

    memset(ctx->rbuf, 0, bytes);
    fab_pattern_fill(ctx->sbuf, bytes, fab_pattern_seed(seed, me, 0));
    if (me == 1) {
        st = fab_sock_read(l, 0, ctx->rbuf, bytes);
        if (st == FAB_OK)
            *errors += fab_pattern_check(ctx->rbuf, bytes, fab_pattern_seed(seed, peer, 0));
    }
    if (st == FAB_OK)
        st = fab_sock_write(l, 0, ctx->sbuf, bytes);
    if (me == 0 && st == FAB_OK) {
        st = fab_sock_read(l, 0, ctx->rbuf, bytes);
        if (st == FAB_OK)
            *errors += fab_pattern_check(ctx->rbuf, bytes, fab_pattern_seed(seed, peer, 0));
    }
    return st;
}

static void tcp_rr_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    (void)ctx;
    fab_sock_counters(state, c);
}

static void tcp_rr_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len,
             "one TCP connection%s%s, TCP_NODELAY; an iteration: `bytes` each way (one round "
             "trip); p50_us and the percentiles are one-way = round trip / 2 (sockperf), the "
             "round trip is twice them; blocking socket (recv waits in the kernel, 1 s "
             "time-outs), no busy-poll",
             tcp_rr_where[0] ? " " : "", tcp_rr_where);
}

static void tcp_rr_cleanup(fab_kctx_t *ctx, void *state)
{
    (void)ctx;
    if (state)
        fab_sock_close(state);
    free(state);
}

static const fab_kcol_t tcp_rr_kcols[] = {FAB_SOCK_TCP_KCOLS};

const fab_kernel_t fab_kernel_tcp_rr = {
    .name = "tcp_rr",
    .summary = "TCP ping-pong over a socket; one-way latency = round trip / 2; -m 1:64K unless "
               "given (sockperf ping-pong, netperf TCP_RR)",
    .kind = FAB_KIND_LATENCY,
    .layer = "socket",
    .ranks = FAB_RANKS_PAIR,
    .min_ranks = 2,
    .rank_multiple = 1,
    .default_sizes = "1:64K",
    .setup = tcp_rr_setup,
    .iterate = tcp_rr_iterate,
    .validate = tcp_rr_validate,
    .cleanup = tcp_rr_cleanup,
    .describe = tcp_rr_describe,
    .options = &fab_sock_kopts,
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0, .sleeps = true},
    .columns = &(const fab_kcolumns_t){.kcols = tcp_rr_kcols,
                                       .nkcols = FAB_SOCK_TCP_NKCOLS,
                                       .counters = tcp_rr_counters},
};
