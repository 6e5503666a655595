/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP kernels' shared parts (sock/udp.h): the pair's sockets, one iteration on each
 * side, validation, counters and derived columns. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernel/patterns.h"
#include "sock/udp.h"
#include "sock/udp_int.h"

const fab_kcol_t fab_udp_kcols[FAB_UDP_NKCOLS] = {
    [FAB_UDP_C_OFFERED] =
        {"offered_Gbps", "offered", "Gb/s",
         "paced UDP kernels: the rate the sender paces its datagrams to (--rate), "
         "payload bits; NaN for other kernels",
         FAB_KCOL_AXIS},
    [FAB_UDP_C_SENT] = {"udp_sent", "sent", "count",
                        "UDP kernels: datagrams the sender's socket took during the timed blocks; "
                        "NaN for other kernels",
                        FAB_KCOL_TOTAL},
    [FAB_UDP_C_DROPS] = {"udp_drops", "drops", "count",
                         "UDP kernels: datagrams the sender's socket refused (EAGAIN, ENOBUFS: "
                         "the host could not send them; not numbered, not network loss)",
                         FAB_KCOL_TOTAL},
    [FAB_UDP_C_RECEIVED] = {"udp_received", "recv", "count",
                            "UDP kernels: distinct datagrams the receiver got (by sequence "
                            "number)",
                            FAB_KCOL_TOTAL},
    [FAB_UDP_C_OOO] = {"udp_ooo", "ooo", "count",
                       "UDP kernels: datagrams that arrived after one with a higher sequence "
                       "number (out of order)",
                       FAB_KCOL_TOTAL},
    [FAB_UDP_C_DUP] = {"udp_dup", "dup", "count",
                       "UDP kernels: datagrams that arrived a second time (not counted again)",
                       FAB_KCOL_TOTAL},
    [FAB_UDP_C_JITTER] = {"jitter_us", "jitter_us", "us",
                          "UDP kernels: interarrival jitter (RFC 3550, as iperf3) at the end of "
                          "the timed blocks, receiver's timestamps",
                          FAB_KCOL_GAUGE},
    [FAB_UDP_C_OVERFLOW] = {"udp_rx_overflow", "rxovfl", "count",
                            "UDP kernels: datagrams the receiver's own socket dropped, its "
                            "buffer full (SO_MEMINFO drops): lost in the receiving host, not "
                            "the network (--sockbuf raises the buffer)",
                            FAB_KCOL_COUNTER},
    [FAB_UDP_C_LOSS] = {"loss_pct", "loss%", "%",
                        "UDP kernels: datagrams sent but not received, % of udp_sent (network "
                        "and receiving-host loss, udp_rx_overflow of it; sender-side drops apart)",
                        FAB_KCOL_DERIVED},
    [FAB_UDP_C_RX_GBPS] = {"rx_Gbps", "rx_Gb/s", "Gb/s",
                           "UDP kernels: payload received per second of the timed blocks "
                           "(Gbps: what was offered to the socket)",
                           FAB_KCOL_DERIVED},
    [FAB_UDP_C_UNDELIVERED] = {"undelivered_pct", "undeliv%", "%",
                               "UDP kernels: datagrams offered (taken or refused by the "
                               "sender's socket) that did not arrive, %: where the path's "
                               "limit is, on the way or in the sending host (the knee's measure)",
                               FAB_KCOL_DERIVED},
    [FAB_UDP_C_RX_PPS] = {"rx_pps", "rx_pkt/s", "1/s",
                          "UDP kernels: datagrams received per second of the timed blocks "
                          "(msgps: offered)",
                          FAB_KCOL_DERIVED},
};

static char fab_udp_where[160]; /* rank 0's sockets, for describe */

static uint64_t fab_udp_clock(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The counts of datagrams of `bytes` (the last size for any other length). */
static fab_udp_size_t *fab_udp_size(fab_udp_t *u, size_t bytes)
{
    for (int i = 0; i < u->nsizes; i++)
        if (u->size[i].bytes == bytes)
            return &u->size[i];
    return &u->size[u->nsizes - 1];
}

/* What setup allocates beyond the harness's buffers: the send and receive batches. */
static size_t fab_udp_own_bytes(const fab_kctx_t *ctx)
{
    size_t n = (size_t)(ctx->window > FAB_UDP_BATCH ? ctx->window : FAB_UDP_BATCH);

    return n * ctx->max_bytes;
}

const fab_kp2p_t fab_udp_p2p = {.uses_window = true, .sleeps = true};
const fab_kbudget_t fab_udp_budget = {.row_s = 1.0, .spend_all = true, .whole_block = true};
const fab_kmem_t fab_udp_mem = {fab_udp_own_bytes, "lower -w or -m"};

fab_status_t fab_udp_setup(fab_kctx_t *ctx, void **state, double rate_gbps, const char *kernel)
{
    fab_udp_t *u = calloc(1, sizeof(*u));
    fab_status_t st;

    *state = u;
    if (!u)
        return FAB_ERR_NOMEM;
    u->fd = -1;
    u->kernel = kernel;
    u->sender = ctx->rank == 0;
    u->peer = 1 - ctx->rank;
    u->rate = rate_gbps;
    u->slot = ctx->max_bytes;
    fab_udp_acct_init(&u->acct);
    u->batch = malloc(fab_udp_own_bytes(ctx));
    u->nsizes = ctx->nsizes > 0 ? ctx->nsizes : 1;
    u->size = calloc((size_t)u->nsizes, sizeof(*u->size));
    if (!u->batch || !u->size)
        return FAB_ERR_NOMEM;
    for (int i = 0; i < ctx->nsizes; i++)
        u->size[i].bytes = ctx->sizes[i];
    memset(u->batch, 0, fab_udp_own_bytes(ctx));
    st = fab_udp_open(ctx, u);
    if (st != FAB_OK)
        return st;
    ctx->timer = u->sender;
    ctx->msgs_per_iter = ctx->window;
    if (ctx->rank == 0)
        snprintf(fab_udp_where, sizeof(fab_udp_where), "%s -> %s", u->local, u->remote);
    FAB_DEBUG("%s: UDP %s %s", kernel, u->sender ? "to" : "from", u->remote);
    return FAB_OK;
}

void fab_udp_cleanup(fab_kctx_t *ctx, void *state)
{
    fab_udp_t *u = state;

    (void)ctx;
    if (!u)
        return;
    if (u->fd >= 0)
        close(u->fd);
    free(u->batch);
    free(u->size);
    free(u);
}

/* ------------------------------------------------------------------ the sender */

/* Wait until the clock reaches due (ns, CLOCK_REALTIME): sleep for the long part, spin for
 * the last 150 us (a sleep overshoots by the timer slack, about 50 us). */
static void fab_udp_wait_until(uint64_t due)
{
    for (;;) {
        uint64_t now = fab_udp_clock();

        if (now >= due)
            return;
        if (due - now > 200000) {
            uint64_t ns = due - now - 150000;
            struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

            nanosleep(&t, NULL);
        }
    }
}

/* A datagram's header (sequence number seq, sent now) or, when validating, its number with
 * the flag FAB_UDP_PATTERNED, the round's seed instead of the time and its pattern: the
 * receiver checks it against the seed it carries, whichever round it reads it in. */
static void fab_udp_fill(fab_udp_t *u, char *buf, size_t bytes, uint64_t seq, uint64_t now)
{
    if (!u->errors) {
        fab_udp_put_header(buf, seq, now);
        return;
    }
    fab_udp_put_header(buf, seq | FAB_UDP_PATTERNED, u->seed);
    fab_pattern_fill(buf + FAB_UDP_HEADER, bytes - FAB_UDP_HEADER,
                     fab_pattern_seed(u->seed, 0, (int)(seq & 0x7fffffff)));
}

static fab_status_t fab_udp_refused(fab_udp_t *u, int err)
{
    return fab_sock_fail(FAB_ERR_ENV, u->kernel,
                         "the receiving rank's socket is gone or the path refuses UDP; see the "
                         "peer's messages",
                         "sending to rank %d at %s failed: %s", u->peer, u->remote, strerror(err));
}

/* Paced: one datagram at a time at its due time; a refused one is a drop. The schedule starts
 * at the iteration's first datagram (fab_udp_pace_reset): a datagram due before the iteration
 * began (in the harness's pause, or in an earlier block whose time holds it) is never sent in
 * it, so the iteration lasts at least its n gaps and no row offers more than the rate. */
static fab_status_t fab_udp_send_paced(fab_kctx_t *ctx, fab_udp_t *u, char *buf, size_t bytes,
                                       int n)
{
    uint64_t end;
    fab_status_t st;

    fab_udp_pace_reset(&u->pace);
    for (int k = 0; k < n;) {
        uint64_t now = fab_udp_clock(), wait = fab_udp_pace_wait(&u->pace, now);
        ssize_t r;

        if (wait > 0) {
            fab_udp_wait_until(now + wait);
            continue;
        }
        fab_udp_fill(u, buf, bytes, u->seq, now);
        r = send(u->fd, buf, bytes, 0);
        if (r < 0 && errno == EINTR)
            continue;
        k++;
        if (r == (ssize_t)bytes) {
            u->seq++;
            fab_udp_size(u, bytes)->sent++;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
            fab_udp_size(u, bytes)->drops++;
        else
            return fab_udp_refused(u, r < 0 ? errno : EMSGSIZE);
    }
    /* the receiver is told during the last gap, which then ends the iteration: the next
     * one's first datagram is due a gap after this one's last */
    end = u->seq;
    st = FAB_MPI(MPI_Send(&end, 1, MPI_UINT64_T, u->peer, ctx->tag + 1, ctx->comm));
    if (st == FAB_OK)
        fab_udp_wait_until((uint64_t)u->pace.next_ns);
    return st;
}

/* Unpaced: n datagrams in batches (sendmmsg); a full socket is waited for, not dropped. */
static fab_status_t fab_udp_send_batch(fab_udp_t *u, size_t bytes, int n)
{
    int done = 0;

    while (done < n) {
        int m = n - done < FAB_UDP_BATCH ? n - done : FAB_UDP_BATCH, r;
        uint64_t now = fab_udp_clock();

        for (int k = 0; k < m; k++) {
            char *buf = u->batch + (size_t)k * u->slot;

            fab_udp_fill(u, buf, bytes, u->seq + (uint64_t)k, now);
            u->iov[k] = (struct iovec){buf, bytes};
            memset(&u->msg[k], 0, sizeof(u->msg[k]));
            u->msg[k].msg_hdr.msg_iov = &u->iov[k];
            u->msg[k].msg_hdr.msg_iovlen = 1;
        }
        r = sendmmsg(u->fd, u->msg, (unsigned)m, 0);
        if (r > 0) {
            u->seq += (uint64_t)r;
            fab_udp_size(u, bytes)->sent += (uint64_t)r;
            done += r;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
            struct pollfd p = {u->fd, POLLOUT, 0};

            poll(&p, 1, 1);
        } else if (!(r < 0 && errno == EINTR))
            return fab_udp_refused(u, r < 0 ? errno : EIO);
    }
    return FAB_OK;
}

static fab_status_t fab_udp_send(fab_kctx_t *ctx, fab_udp_t *u, size_t bytes, int n)
{
    uint64_t end;
    fab_status_t st;

    if (u->rate <= 0) {
        st = fab_udp_send_batch(u, bytes, n);
        end = u->seq;
        return st == FAB_OK
                   ? FAB_MPI(MPI_Send(&end, 1, MPI_UINT64_T, u->peer, ctx->tag + 1, ctx->comm))
                   : st;
    }
    if (u->paced != bytes) {
        fab_udp_pace_init(&u->pace, u->rate, bytes);
        u->paced = bytes;
    }
    return fab_udp_send_paced(ctx, u, ctx->sbuf, bytes, n);
}

/* ------------------------------------------------------------------ the receiver */

/* One received datagram: counted; with validation, its pattern checked. */
static void fab_udp_take(fab_udp_t *u, const char *buf, size_t len, struct msghdr *h)
{
    uint64_t seq, sent, arrival = 0;
    fab_udp_seq_t kind;
    fab_udp_size_t *sz;
    bool patterned;

    if (len < FAB_UDP_HEADER)
        return;
    fab_udp_get_header(buf, &seq, &sent);
    if (seq == FAB_UDP_PROBE)
        return;
    patterned = (seq & FAB_UDP_PATTERNED) != 0;
    seq &= ~FAB_UDP_PATTERNED;
    if (patterned) { /* a validation datagram: `sent` is its round's seed; not counted */
        if (fab_udp_acct_seq(&u->acct, seq) != FAB_UDP_DUP && u->errors)
            *u->errors +=
                fab_pattern_check(buf + FAB_UDP_HEADER, len - FAB_UDP_HEADER,
                                  fab_pattern_seed((uint32_t)sent, 0, (int)(seq & 0x7fffffff)));
        return;
    }
    for (struct cmsghdr *c = h ? CMSG_FIRSTHDR(h) : NULL; c; c = CMSG_NXTHDR(h, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec t;

            memcpy(&t, CMSG_DATA(c), sizeof(t));
            arrival = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
        }
    if (!arrival)
        arrival = fab_udp_clock();
    kind = fab_udp_acct_add(&u->acct, seq, sent, arrival);
    sz = fab_udp_size(u, len);
    if (kind == FAB_UDP_DUP) {
        sz->dup++;
        return;
    }
    sz->received++;
    sz->ooo += kind == FAB_UDP_LATE;
    fab_udp_jitter_add(&sz->jitter, sent, arrival);
}

/* Read what is there (up to a batch); the number of datagrams, or -1 with errno. */
static int fab_udp_drain(fab_udp_t *u)
{
    int r;

    for (int k = 0; k < FAB_UDP_BATCH; k++) {
        u->iov[k] = (struct iovec){u->batch + (size_t)k * u->slot, u->slot};
        memset(&u->msg[k], 0, sizeof(u->msg[k]));
        u->msg[k].msg_hdr.msg_iov = &u->iov[k];
        u->msg[k].msg_hdr.msg_iovlen = 1;
        u->msg[k].msg_hdr.msg_control = u->ctrl[k];
        u->msg[k].msg_hdr.msg_controllen = sizeof(u->ctrl[k]);
    }
    r = recvmmsg(u->fd, u->msg, FAB_UDP_BATCH, MSG_DONTWAIT, NULL);
    for (int k = 0; k < r; k++)
        fab_udp_take(u, (const char *)u->iov[k].iov_base, u->msg[k].msg_len, &u->msg[k].msg_hdr);
    return r;
}

static fab_status_t fab_udp_read_error(const fab_udp_t *u)
{
    return fab_sock_fail(FAB_ERR_ENV, u->kernel, "see the peer's messages",
                         "receiving from rank %d at %s failed: %s", u->peer, u->remote,
                         strerror(errno));
}

/* Read until the sender's number `end` or a later one is in; or, linger > 0, until nothing
 * arrived for linger s, or at most `bound` s in all: what is not in then was lost. */
static fab_status_t fab_udp_await(fab_udp_t *u, uint64_t end, double linger, double bound)
{
    double now = fab_sock_now(), quiet_until = now + linger, give_up = now + bound;

    while (u->acct.next < end) {
        int r = fab_udp_drain(u);

        now = fab_sock_now();
        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
            errno != ECONNREFUSED)
            return fab_udp_read_error(u);
        if (r > 0)
            quiet_until = now + linger;
        else if (now >= quiet_until || now >= give_up)
            break;
        else {
            struct pollfd p = {u->fd, POLLIN, 0};

            poll(&p, 1, 1);
        }
    }
    return FAB_OK;
}

/* One iteration: read until the sender says (over MPI) how far it sent. Timed (linger 0), it
 * then takes what is there and goes on, so that it never holds the sender back and the queues
 * on the way stay as full as the rate makes them; what is still in flight counts when it
 * arrives (and the row's settle waits for the rest). Validating, it waits for the last. */
static fab_status_t fab_udp_receive(fab_kctx_t *ctx, fab_udp_t *u, double linger)
{
    MPI_Request req;
    uint64_t end = 0;
    int told = 0;
    fab_status_t st =
        FAB_MPI(MPI_Irecv(&end, 1, MPI_UINT64_T, u->peer, ctx->tag + 1, ctx->comm, &req));

    while (st == FAB_OK && !told) {
        int r = fab_udp_drain(u);

        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
            errno != ECONNREFUSED)
            return fab_udp_read_error(u);
        st = FAB_MPI(MPI_Test(&req, &told, MPI_STATUS_IGNORE));
        if (r <= 0 && !told) {
            struct pollfd p = {u->fd, POLLIN, 0};

            poll(&p, 1, 1);
        }
    }
    if (st != FAB_OK)
        return st;
    if (linger > 0)
        return fab_udp_await(u, end, linger, FAB_UDP_SETTLE_S);
    for (;;) { /* what is there now */
        int r = fab_udp_drain(u);

        if (r > 0)
            continue;
        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
            errno != ECONNREFUSED)
            return fab_udp_read_error(u);
        return FAB_OK;
    }
}

/* ------------------------------------------------------------------ the hooks */

fab_status_t fab_udp_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    fab_udp_t *u = state;

    return u->sender ? fab_udp_send(ctx, u, bytes, ctx->window) : fab_udp_receive(ctx, u, 0.0);
}

fab_status_t fab_udp_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors)
{
    fab_udp_t *u = state;
    fab_status_t st;

    u->errors = errors;
    u->seed = seed;
    st = u->sender ? fab_udp_send(ctx, u, bytes, ctx->window < 4 ? ctx->window : 4)
                   : fab_udp_receive(ctx, u, FAB_UDP_LINGER_S);
    u->errors = NULL;
    return st;
}

fab_status_t fab_udp_settle(fab_kctx_t *ctx, void *state)
{
    fab_udp_t *u = state;
    uint64_t end = u->seq;
    fab_status_t st;

    if (u->sender)
        return FAB_MPI(MPI_Send(&end, 1, MPI_UINT64_T, u->peer, ctx->tag + 2, ctx->comm));
    st = FAB_MPI(
        MPI_Recv(&end, 1, MPI_UINT64_T, u->peer, ctx->tag + 2, ctx->comm, MPI_STATUS_IGNORE));
    return st != FAB_OK ? st : fab_udp_await(u, end, FAB_UDP_LINGER_S, FAB_UDP_SETTLE_S);
}

void fab_udp_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    fab_udp_t *u = state;
    const fab_udp_size_t *sz = fab_udp_size(u, ctx->bytes);

    if (u->sender) {
        c[FAB_UDP_C_SENT] = (double)sz->sent;
        c[FAB_UDP_C_DROPS] = (double)sz->drops;
        return;
    }
    c[FAB_UDP_C_RECEIVED] = (double)sz->received;
    c[FAB_UDP_C_OOO] = (double)sz->ooo;
    c[FAB_UDP_C_DUP] = (double)sz->dup;
    c[FAB_UDP_C_JITTER] = sz->jitter.j_ns * 1e-3;
    /* the socket's drops so far (sk_drops: its buffer full), whatever the size: read now, so
     * that each block counts its own */
    {
        uint32_t mem[SK_MEMINFO_VARS];
        socklen_t len = sizeof(mem);

        if (getsockopt(u->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
            len > SK_MEMINFO_DROPS * sizeof(uint32_t))
            c[FAB_UDP_C_OVERFLOW] = mem[SK_MEMINFO_DROPS];
    }
}

double fab_udp_derive(const fab_krow_t *row, int j)
{
    double sent = row->c[FAB_UDP_C_SENT], got = row->c[FAB_UDP_C_RECEIVED];
    double offered = sent + (isnan(row->c[FAB_UDP_C_DROPS]) ? 0 : row->c[FAB_UDP_C_DROPS]);

    if (j == FAB_UDP_C_UNDELIVERED)
        return offered > 0 && !isnan(got)
                   ? (got >= offered ? 0.0 : 100.0 * (offered - got) / offered)
                   : NAN;
    if (!(sent > 0) || isnan(got))
        return NAN;
    switch (j) {
    case FAB_UDP_C_LOSS: /* stragglers of an earlier row cannot make it negative */
        return got >= sent ? 0.0 : 100.0 * (sent - got) / sent;
    case FAB_UDP_C_RX_GBPS:
        return row->seconds > 0 ? got * (double)row->bytes * 8.0 / row->seconds * 1e-9 : NAN;
    case FAB_UDP_C_RX_PPS:
        return row->seconds > 0 ? got / row->seconds : NAN;
    default:
        return NAN;
    }
}

fab_status_t fab_udp_check(const fab_kctx_t *ctx, char *msg, size_t len, char *hint, size_t hlen)
{
    for (int i = 0; i < ctx->nsizes; i++)
        if (ctx->sizes[i] < FAB_UDP_HEADER || ctx->sizes[i] > FAB_UDP_MAX) {
            snprintf(msg, len,
                     "-m: %zu bytes is not a UDP datagram size these kernels send (%d to %d: a "
                     "%d-byte header of sequence number and send time, at most IPv4's largest "
                     "UDP payload)",
                     ctx->sizes[i], FAB_UDP_HEADER, FAB_UDP_MAX, FAB_UDP_HEADER);
            snprintf(hint, hlen, "give sizes from %d to %d, e.g. -m 64 or -m 1460", FAB_UDP_HEADER,
                     FAB_UDP_MAX);
            return FAB_ERR_CONFIG;
        }
    return FAB_OK;
}

void fab_udp_describe(const fab_kctx_t *ctx, char *buf, size_t len, double rate_gbps)
{
    char pace[96];

    if (rate_gbps > 0)
        snprintf(pace, sizeof(pace), "paced to %g Gb/s of payload (each datagram at its time)",
                 rate_gbps); /* Gb/s as the offered_Gbps column */
    else
        snprintf(pace, sizeof(pace), "as fast as the socket takes them (sendmmsg)");
    snprintf(buf, len,
             "UDP %s; an iteration: %d datagrams of `bytes` (payload, with a %d-byte sequence "
             "header), %s; loss by sequence numbers, received rate and jitter (RFC 3550) at "
             "the receiver; Gbps and msgps are what was offered to the socket",
             fab_udp_where, ctx->window, FAB_UDP_HEADER, pace);
}
