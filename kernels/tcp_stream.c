/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp_stream: TCP throughput over the kernel's socket stack (iperf3, netperf TCP_STREAM). With
 * 2P ranks, rank i < P connects --streams TCP connections to rank i + P (--pattern incast: the
 * first --receivers R ranks receive and rank r >= R connects to rank (r - R) mod R) (sock/sock.h:
 * the address, port 0, only the pair's own addresses); one iteration writes -w messages of `bytes`
 * on every connection at once (non-blocking sockets, one poll(2) loop per rank), the receiver reads
 * them all and answers with one byte on the first connection. The harness times the senders (the
 * slowest pair) and counts retransmits and buffers at block ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fab_kernel.h"
#include "sock/incast.h"

#define TCP_STREAM_CHECK_MSGS 4 /* messages per stream a validation round checks */

static char tcp_stream_where[192]; /* rank 0's connection, for describe */

/* A rank's side: a sender's connections, or a receiver's (an incast receiver's: every
 * stream of its senders in one link, so that one poll(2) loop reads them all). */
typedef struct tcp_stream_state {
    fab_sock_link_t l;
    bool lead;                       /* it paces --omit: a pair's sender, incast receiver */
    int nsend;                       /* an incast receiver's senders; 0 otherwise */
    int peer[FAB_SOCK_MAX_STREAMS];  /* their ranks in ctx->comm */
    int first[FAB_SOCK_MAX_STREAMS]; /* the index in l of each one's first stream */
    int owner[FAB_SOCK_MAX_STREAMS]; /* the sender of each stream of l */
    fab_incast_t tally;              /* an incast receiver's (tally.nsend: its senders) */
} tcp_stream_state_t;

static fab_status_t tcp_stream_iterate(fab_kctx_t *ctx, void *state, size_t bytes);

static double tcp_stream_since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* --omit: the lead says go (or stop) to its peers before each untimed iteration. */
static fab_status_t tcp_stream_omit(fab_kctx_t *ctx, tcp_stream_state_t *ts)
{
    struct timespec t0;
    fab_status_t st = FAB_OK;
    int go = 1, npeer = ts->nsend > 0 ? ts->nsend : 1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (st == FAB_OK) {
        if (ts->lead) {
            go = tcp_stream_since(&t0) < fab_sock_opt.omit;
            for (int i = 0; i < npeer && st == FAB_OK; i++)
                st = FAB_MPI(MPI_Send(&go, 1, MPI_INT, ts->nsend > 0 ? ts->peer[i] : ts->l.peer,
                                      ctx->tag + 1, ctx->comm));
        } else
            st = FAB_MPI(
                MPI_Recv(&go, 1, MPI_INT, ts->l.peer, ctx->tag + 1, ctx->comm, MPI_STATUS_IGNORE));
        if (st != FAB_OK || !go)
            break;
        st = tcp_stream_iterate(ctx, ts, ctx->max_bytes);
    }
    return st;
}

/* An incast receiver: connect each of its senders in turn, their streams into one link. */
static fab_status_t tcp_stream_gather(fab_kctx_t *ctx, int n, tcp_stream_state_t *ts)
{
    fab_sock_link_t one;
    fab_status_t st = FAB_OK;

    for (int s = 0; s < FAB_SOCK_MAX_STREAMS; s++)
        ts->l.fd[s] = -1;
    ts->l.kernel = "tcp_stream";
    for (int r = fab_incast_receivers(); r < ctx->size && st == FAB_OK; r++) {
        if (fab_incast_receiver_of(r) != ctx->rank)
            continue;
        st = fab_sock_connect(ctx, r, false, n, false, "tcp_stream", &one);
        if (st != FAB_OK)
            break;
        if (ts->nsend == 0) /* the first sender names the link in messages */
            memcpy(ts->l.local, one.local, sizeof(one.local)),
                ts->l.peer = r, memcpy(ts->l.remote, one.remote, sizeof(one.remote));
        ts->peer[ts->nsend] = r;
        ts->first[ts->nsend] = ts->l.n;
        for (int s = 0; s < one.n; s++) {
            ts->owner[ts->l.n] = ts->nsend;
            ts->l.fd[ts->l.n++] = one.fd[s];
        }
        ts->nsend++;
    }
    ts->tally.nsend = ts->nsend;
    return st;
}

static fab_status_t tcp_stream_setup(fab_kctx_t *ctx, void **state)
{
    int pairs = ctx->size / 2, nrecv = fab_incast_receivers();
    bool incast = fab_incast_on();
    bool sender = incast ? ctx->rank >= nrecv : ctx->rank < pairs;
    int peer = incast ? fab_incast_receiver_of(ctx->rank)
                      : (sender ? ctx->rank + pairs : ctx->rank - pairs);
    tcp_stream_state_t *ts = calloc(1, sizeof(*ts));
    fab_status_t st;

    *state = ts;
    if (!ts)
        return FAB_ERR_NOMEM;
    ts->lead = incast ? !sender : sender;
    if (incast && !sender)
        st = tcp_stream_gather(ctx, (int)ctx->axis, ts);
    else
        st = fab_sock_connect(ctx, peer, sender, (int)ctx->axis, false, "tcp_stream", &ts->l);
    if (st != FAB_OK)
        return st;
    ctx->timer = sender;
    ctx->streams = (incast ? ctx->size - nrecv : pairs) * (int)ctx->axis;
    ctx->msgs_per_iter = (double)ctx->streams * ctx->window;
    if (ctx->rank == 0 && ts->nsend > 0)
        snprintf(tcp_stream_where, sizeof(tcp_stream_where), "%s%s -> %s", ts->l.remote,
                 ts->nsend > 1 ? " and others" : "", ts->l.local);
    else if (ctx->rank == 0)
        snprintf(tcp_stream_where, sizeof(tcp_stream_where), "%s -> %s", ts->l.local, ts->l.remote);
    FAB_DEBUG("tcp_stream: %d connection(s) %s %s", ts->l.n, sender ? "to" : "from", ts->l.remote);
    return fab_sock_opt.omit > 0 ? tcp_stream_omit(ctx, ts) : FAB_OK;
}

/* An incast receiver's iteration: every sender's messages, then one byte to each. */
static fab_status_t tcp_stream_receive_incast(fab_kctx_t *ctx, tcp_stream_state_t *ts, size_t bytes)
{
    double got[FAB_SOCK_MAX_STREAMS] = {0};
    fab_status_t st;
    char ack = 0;

    st = fab_sock_read_incast(&ts->l, ctx->rbuf, bytes, (size_t)ctx->window, ts->owner, ts->nsend,
                              got);
    fab_incast_add(&ts->tally, got, ts->nsend);
    for (int k = 0; k < ts->nsend && st == FAB_OK; k++)
        st = fab_sock_write(&ts->l, ts->first[k], &ack, 1);
    return st;
}

static fab_status_t tcp_stream_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    tcp_stream_state_t *ts = state;
    fab_sock_link_t *l = &ts->l;
    fab_status_t st;
    char ack = 0;

    if (l->sender) {
        st = fab_sock_write_all(l, ctx->sbuf, bytes, (size_t)ctx->window);
        if (st == FAB_OK)
            fab_sock_push(l); /* the iteration's tail, which Nagle would hold for an ACK */
        return st == FAB_OK ? fab_sock_read(l, 0, &ack, 1) : st;
    }
    if (ts->nsend > 0)
        return tcp_stream_receive_incast(ctx, ts, bytes);
    st = fab_sock_read_all(l, ctx->rbuf, bytes, (size_t)ctx->window);
    return st == FAB_OK ? fab_sock_write(l, 0, &ack, 1) : st;
}

/* Stream by stream, message by message: patterned data, every byte checked on arrival (a
 * receiver's stream j carries its sender's stream j - first[owner]). */
static fab_status_t tcp_stream_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                        long *errors)
{
    tcp_stream_state_t *ts = state;
    fab_sock_link_t *l = &ts->l;
    int msgs = ctx->window < TCP_STREAM_CHECK_MSGS ? ctx->window : TCP_STREAM_CHECK_MSGS;
    fab_status_t st = FAB_OK;
    char ack = 0;

    for (int s = 0; s < l->n && st == FAB_OK; s++)
        for (int m = 0; m < msgs && st == FAB_OK; m++) {
            int own = ts->nsend > 0 ? s - ts->first[ts->owner[s]] : s;
            uint32_t ps = fab_pattern_seed(seed, own, m);

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
    if (l->sender) {
        fab_sock_push(l);
        return fab_sock_read(l, 0, &ack, 1);
    }
    for (int k = 0; k < (ts->nsend > 0 ? ts->nsend : 1) && st == FAB_OK; k++)
        st = fab_sock_write(l, ts->nsend > 0 ? ts->first[k] : 0, &ack, 1);
    return st;
}

/* kcols: FAB_INCAST_TCP_KCOLS (sock/incast.h): the TCP columns, streams, the incast's */
#define TS_INCAST FAB_INCAST_BASE
#define TS_NKCOLS FAB_INCAST_TCP_NKCOLS

static void tcp_stream_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    const tcp_stream_state_t *ts = state;

    (void)ctx;
    fab_sock_counters(&ts->l, c);
    fab_incast_counters(&ts->tally, c, TS_INCAST);
}

static double tcp_stream_derive(const fab_krow_t *row, int j)
{
    return fab_incast_derive(row, j, TS_INCAST);
}

/* The incast's refusals (sock/incast.h); pairs need an even rank count, an incast at most
 * FAB_SOCK_MAX_STREAMS streams into one receiver. */
static fab_status_t tcp_stream_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                                     size_t hintlen)
{
    int nrecv = fab_incast_receivers(), streams = ctx->axis > 0 ? (int)ctx->axis : 1;
    int per = ctx->size > nrecv ? (ctx->size - nrecv + nrecv - 1) / nrecv : 0;
    fab_status_t st = fab_incast_check(ctx, msg, msglen, hint, hintlen);

    if (st != FAB_OK)
        return st;
    if (!fab_incast_on() && ctx->size % 2 != 0) {
        snprintf(msg, msglen, "tcp_stream --pattern pairs needs an even number of ranks, not %d",
                 ctx->size);
        snprintf(hint, hintlen, "use mpirun -np %d or -np %d, or --pattern incast", ctx->size - 1,
                 ctx->size + 1);
        return FAB_ERR_CONFIG;
    }
    if (fab_incast_on() && per * streams > FAB_SOCK_MAX_STREAMS) {
        snprintf(msg, msglen,
                 "tcp_stream --pattern incast: %d sender(s) x %d stream(s) into one "
                 "receiver, more than %d",
                 per, streams, FAB_SOCK_MAX_STREAMS);
        snprintf(hint, hintlen, "lower --streams or raise --receivers");
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

static void tcp_stream_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    char bufs[64];

    if (fab_sock_opt.sockbuf > 0)
        snprintf(bufs, sizeof(bufs), "SO_SNDBUF/SO_RCVBUF %zu B", fab_sock_opt.sockbuf);
    else
        snprintf(bufs, sizeof(bufs), "the OS's buffer autotuning");
    char who[96];

    if (fab_incast_on())
        snprintf(who, sizeof(who), "incast: %d sender(s) into %d receiver(s), each sender",
                 ctx->size - fab_incast_receivers(), fab_incast_receivers());
    else
        snprintf(who, sizeof(who), "%d pair(s)", ctx->size / 2);
    snprintf(buf, len,
             "%s x %d TCP connection(s)%s%s; an iteration: %d writes of `bytes` per "
             "connection, then a 1-byte answer; non-blocking sockets in one poll(2) loop per "
             "rank (no busy-poll), Nagle on within an iteration and its tail pushed, %s; %g s "
             "untimed after connecting (--omit); "
             "payload bytes only, Gbps decimal",
             who, (int)ctx->axis, tcp_stream_where[0] ? ", " : "", tcp_stream_where, ctx->window,
             bufs, fab_sock_opt.omit);
}

static void tcp_stream_cleanup(fab_kctx_t *ctx, void *state)
{
    (void)ctx;
    if (state)
        fab_sock_close(&((tcp_stream_state_t *)state)->l);
    free(state);
}

static const fab_kcol_t tcp_stream_kcols[] = {
    FAB_INCAST_TCP_KCOLS,
};

const fab_kernel_t fab_kernel_tcp_stream = {
    .name = "tcp_stream",
    .summary = "TCP throughput over sockets, --streams connections per pair, retransmits; "
               "-m 128K unless given (iperf3, netperf TCP_STREAM)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "socket",
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,      /* pairs: even (its check); incast: any */
    .default_sizes = "128K", /* iperf3's default write length */
    .setup = tcp_stream_setup,
    .iterate = tcp_stream_iterate,
    .validate = tcp_stream_validate,
    .cleanup = tcp_stream_cleanup,
    .describe = tcp_stream_describe,
    .check = tcp_stream_check,
    .options = &fab_sock_stream_kopts,
    .p2p = &(const fab_kp2p_t){.uses_window = true, .sleeps = true},
    .columns = &(const fab_kcolumns_t){.kcols = tcp_stream_kcols,
                                       .nkcols = TS_NKCOLS,
                                       .counters = tcp_stream_counters,
                                       .derive = tcp_stream_derive,
                                       .table = "bytes,MBps,Gbps,line_rate_pct,tcp_retrans,p50_us,"
                                                "ci_pct,validation_errors,cpu_rank_pct,"
                                                "cpu_node_sys_pct,cpu_node_softirq_pct"},
    /* A row is one continuous stream of 2 s (docs/METRICS.md, "tcp_stream's duration"): the
     * harness's warm-up covers slow start, and a stream never paused for the harness keeps
     * its window; 2 s of a 100 Gb/s link is 25 GB, its ramp under 0.5% of it. */
    .budget = &(const fab_kbudget_t){.row_s = 2.0, .spend_all = true, .whole_block = true},
    .axis = &(const fab_kaxis_t){.option = "streams"},
};
