/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp_stream: TCP throughput over the kernel's socket stack (iperf3, netperf TCP_STREAM). With
 * 2P ranks, rank i < P connects --streams TCP connections to rank i + P (sock/sock.h: the
 * address, port 0, only the pair's own addresses); one iteration writes -w messages of
 * `bytes` on every connection at once (non-blocking sockets, one poll(2) loop per rank), the
 * receiver reads them all and answers with one byte on the first connection. The harness
 * times the senders (the slowest pair) and counts retransmits and buffers at block ends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fab_kernel.h"
#include "sock/sock.h"

#define TCP_STREAM_CHECK_MSGS 4 /* messages per stream a validation round checks */

static char tcp_stream_where[192]; /* rank 0's connection, for describe */

static fab_status_t tcp_stream_iterate(fab_kctx_t *ctx, void *state, size_t bytes);

static fab_status_t tcp_stream_omit(fab_kctx_t *ctx, fab_sock_link_t *l)
{
    struct timespec t0, t;
    fab_status_t st = FAB_OK;
    int go = 1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (st == FAB_OK) {
        if (l->sender) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            go = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 <
                 fab_sock_opt.omit;
            st = FAB_MPI(MPI_Send(&go, 1, MPI_INT, l->peer, ctx->tag + 1, ctx->comm));
        } else
            st = FAB_MPI(
                MPI_Recv(&go, 1, MPI_INT, l->peer, ctx->tag + 1, ctx->comm, MPI_STATUS_IGNORE));
        if (st != FAB_OK || !go)
            break;
        st = tcp_stream_iterate(ctx, l, ctx->max_bytes);
    }
    return st;
}

static fab_status_t tcp_stream_setup(fab_kctx_t *ctx, void **state)
{
    int pairs = ctx->size / 2;
    bool sender = ctx->rank < pairs;
    int peer = sender ? ctx->rank + pairs : ctx->rank - pairs;
    fab_sock_link_t *l = calloc(1, sizeof(*l));
    fab_status_t st;

    *state = l;
    if (!l)
        return FAB_ERR_NOMEM;
    st = fab_sock_connect(ctx, peer, sender, (int)ctx->axis, false, "tcp_stream", l);
    if (st != FAB_OK)
        return st;
    ctx->timer = sender;
    ctx->streams = pairs * l->n;
    ctx->msgs_per_iter = (double)ctx->streams * ctx->window;
    if (ctx->rank == 0)
        snprintf(tcp_stream_where, sizeof(tcp_stream_where), "%s -> %s", l->local, l->remote);
    FAB_DEBUG("tcp_stream: %d connection(s) %s %s", l->n, sender ? "to" : "from", l->remote);
    return fab_sock_opt.omit > 0 ? tcp_stream_omit(ctx, l) : FAB_OK;
}

static fab_status_t tcp_stream_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    fab_sock_link_t *l = state;
    fab_status_t st;
    char ack = 0;

    if (l->sender) {
        st = fab_sock_write_all(l, ctx->sbuf, bytes, (size_t)ctx->window);
        if (st == FAB_OK)
            fab_sock_push(l); /* the iteration's tail, which Nagle would hold for an ACK */
        return st == FAB_OK ? fab_sock_read(l, 0, &ack, 1) : st;
    }
    st = fab_sock_read_all(l, ctx->rbuf, bytes, (size_t)ctx->window);
    return st == FAB_OK ? fab_sock_write(l, 0, &ack, 1) : st;
}

/* Stream by stream, message by message: patterned data, every byte checked on arrival. */
static fab_status_t tcp_stream_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                        long *errors)
{
    fab_sock_link_t *l = state;
    int msgs = ctx->window < TCP_STREAM_CHECK_MSGS ? ctx->window : TCP_STREAM_CHECK_MSGS;
    fab_status_t st = FAB_OK;
    char ack = 0;

    for (int s = 0; s < l->n && st == FAB_OK; s++)
        for (int m = 0; m < msgs && st == FAB_OK; m++) {
            uint32_t ps = fab_pattern_seed(seed, s, m);

            if (l->sender) {
                fab_pattern_fill(ctx->sbuf, bytes, ps);
                st = fab_sock_write(l, s, ctx->sbuf, bytes);
            } else {
                memset(ctx->rbuf, 0, bytes);
                st = fab_sock_read(l, s, ctx->rbuf, bytes);
                if (st == FAB_OK)
                    *errors += fab_pattern_check(ctx->rbuf, bytes, ps);
            }
        }
    if (st != FAB_OK)
        return st;
    if (l->sender)
        fab_sock_push(l);
    return l->sender ? fab_sock_read(l, 0, &ack, 1) : fab_sock_write(l, 0, &ack, 1);
}

static void tcp_stream_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    (void)ctx;
    fab_sock_counters(state, c);
}

static void tcp_stream_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    char bufs[64];

    if (fab_sock_opt.sockbuf > 0)
        snprintf(bufs, sizeof(bufs), "SO_SNDBUF/SO_RCVBUF %zu B", fab_sock_opt.sockbuf);
    else
        snprintf(bufs, sizeof(bufs), "the OS's buffer autotuning");
    snprintf(buf, len,
             "%d pair(s) x %d TCP connection(s)%s%s; an iteration: %d writes of `bytes` per "
             "connection, then a 1-byte answer; non-blocking sockets in one poll(2) loop per "
             "rank (no busy-poll), Nagle on within an iteration and its tail pushed, %s; %g s "
             "untimed after connecting (--omit); "
             "payload bytes only, Gbps decimal",
             ctx->size / 2, (int)ctx->axis, tcp_stream_where[0] ? ", " : "", tcp_stream_where,
             ctx->window, bufs, fab_sock_opt.omit);
}

static void tcp_stream_cleanup(fab_kctx_t *ctx, void *state)
{
    (void)ctx;
    if (state)
        fab_sock_close(state);
    free(state);
}

static const fab_kcol_t tcp_stream_kcols[] = {
    FAB_SOCK_TCP_KCOLS,
    {"streams", "streams", "count",
     "tcp_stream: TCP connections per pair of this row (--streams, iperf3 -P); NaN for other "
     "kernels",
     FAB_KCOL_AXIS},
};

const fab_kernel_t fab_kernel_tcp_stream = {
    .name = "tcp_stream",
    .summary = "TCP throughput over sockets, --streams connections per pair, retransmits; "
               "-m 128K unless given (iperf3, netperf TCP_STREAM)",
    .kind = FAB_KIND_BANDWIDTH,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 2,
    .default_sizes = "128K", /* iperf3's default write length */
    .setup = tcp_stream_setup,
    .iterate = tcp_stream_iterate,
    .validate = tcp_stream_validate,
    .cleanup = tcp_stream_cleanup,
    .describe = tcp_stream_describe,
    .options = &fab_sock_kopts,
    .p2p = &(const fab_kp2p_t){.uses_window = true, .sleeps = true},
    .columns = &(const fab_kcolumns_t){.kcols = tcp_stream_kcols,
                                       .nkcols = FAB_SOCK_TCP_NKCOLS + 1,
                                       .counters = tcp_stream_counters,
                                       .table = "bytes,MBps,Gbps,line_rate_pct,tcp_retrans,p50_us,"
                                                "ci_pct,validation_errors,cpu_rank_pct,"
                                                "cpu_node_sys_pct,cpu_node_softirq_pct"},
    /* A row is one continuous stream of 2 s (docs/METRICS.md, "tcp_stream's duration"): the
     * harness's warm-up covers slow start, and a stream never paused for the harness keeps
     * its window; 2 s of a 100 Gb/s link is 25 GB, its ramp under 0.5% of it. */
    .budget = &(const fab_kbudget_t){.row_s = 2.0, .spend_all = true, .whole_block = true},
    .axis = &(const fab_kaxis_t){.option = "streams"},
};
