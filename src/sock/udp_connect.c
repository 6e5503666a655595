/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP kernels' sockets (sock/udp.h): each rank binds its address (sock/sock.h's
 * rules) on port 0, the two exchange ports over MPI, connect to each other, and the sender
 * probes the path until the receiver says a datagram came (at most FAB_SOCK_CONNECT_S). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sock/sock.h"
#include "sock/udp.h"
#include "sock/udp_int.h"

/* Bind to me->addr port 0 (port into me->port). */
static fab_status_t fab_udp_bind(fab_udp_t *u, fab_sock_end_t *me)
{
    fab_sockaddr_t a;
    socklen_t len;
    int on = 1;

    fab_sa_parse(me->addr, 0, &a);
    u->fd = socket(a.sa.sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u->fd < 0)
        return fab_sock_fail(FAB_ERR_ENV, u->kernel, "check the limit on open files (ulimit -n)",
                             "cannot open a UDP socket on %s: %s", me->host, strerror(errno));
    fab_sock_tune(u->fd, false);
    setsockopt(u->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
    len = fab_sa_len(&a);
    if (bind(u->fd, &a.sa, len) != 0 || getsockname(u->fd, &a.sa, &len) != 0)
        return fab_sock_fail(
            FAB_ERR_ENV, u->kernel, "check that the address is up and that the OS has free ports",
            "cannot bind a UDP socket to %s port 0 on %s: %s", me->addr, me->host, strerror(errno));
    me->port = ntohs(a.sa.sa_family == AF_INET6 ? a.in6.sin6_port : a.in.sin_port);
    return FAB_OK;
}

/* The receiver: wait for a probe datagram from the sender (bounded), say whether it came. */
static fab_status_t fab_udp_await_probe(fab_udp_t *u, const fab_sock_end_t *them)
{
    double end = fab_sock_now() + FAB_SOCK_CONNECT_S;
    char buf[FAB_UDP_HEADER];

    while (fab_sock_now() < end) {
        struct pollfd p = {u->fd, POLLIN, 0};
        ssize_t r;

        poll(&p, 1, 100);
        while ((r = recv(u->fd, buf, sizeof(buf), MSG_TRUNC)) > 0)
            if ((size_t)r >= FAB_UDP_HEADER)
                return FAB_OK;
    }
    return fab_sock_fail(FAB_ERR_ENV, u->kernel,
                         "check the route and firewall between the two addresses (UDP), or "
                         "choose another with --bind / --device",
                         "no UDP datagram from rank %d (host %s, %s) reached %s within %d s",
                         u->peer, them->host, them->addr, u->local, FAB_SOCK_CONNECT_S);
}

/* The sender: probe datagrams every 50 ms until the receiver says (over MPI) how it went. */
static fab_status_t fab_udp_probe(fab_kctx_t *ctx, fab_udp_t *u, int *verdict)
{
    MPI_Request req;
    int done = 0;
    char buf[FAB_UDP_HEADER];
    fab_status_t st =
        FAB_MPI(MPI_Irecv(verdict, 1, MPI_INT, u->peer, ctx->tag + 14, ctx->comm, &req));

    fab_udp_put_header(buf, FAB_UDP_PROBE, 0);
    while (st == FAB_OK && !done) {
        struct timespec pause = {0, 50 * 1000 * 1000};

        if (send(u->fd, buf, sizeof(buf), 0) < 0 && errno != EAGAIN && errno != ECONNREFUSED &&
            errno != EINTR && errno != ENOBUFS)
            FAB_DEBUG("%s: probe datagram: %s", u->kernel, strerror(errno));
        nanosleep(&pause, NULL);
        st = FAB_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    }
    return st;
}

fab_status_t fab_udp_open(fab_kctx_t *ctx, fab_udp_t *u)
{
    fab_sock_end_t me, them;
    fab_sockaddr_t to;
    int len = 0, verdict = FAB_OK;
    char host[MPI_MAX_PROCESSOR_NAME];
    fab_status_t st;

    memset(&me, 0, sizeof(me));
    MPI_Get_processor_name(me.host, &len);
    st = FAB_MPI(MPI_Sendrecv(me.host, sizeof(me.host), MPI_CHAR, u->peer, ctx->tag + 15, them.host,
                              sizeof(them.host), MPI_CHAR, u->peer, ctx->tag + 15, ctx->comm,
                              MPI_STATUS_IGNORE));
    if (st != FAB_OK)
        return st;
    st = fab_sock_choose(ctx, them.host, u->kernel, &me);
    if (st == FAB_OK) {
        snprintf(u->local, sizeof(u->local), "%s", me.addr);
        st = fab_udp_bind(u, &me);
    }
    me.st = (int)st;
    memcpy(host, them.host, sizeof(host));
    st =
        FAB_MPI(MPI_Sendrecv(&me, sizeof(me), MPI_BYTE, u->peer, ctx->tag + 15, &them, sizeof(them),
                             MPI_BYTE, u->peer, ctx->tag + 15, ctx->comm, MPI_STATUS_IGNORE));
    memcpy(them.host, host, sizeof(host));
    if (st != FAB_OK)
        return st;
    if (me.st != FAB_OK || them.st != FAB_OK) /* said by the rank that found it */
        return me.st != FAB_OK ? (fab_status_t)me.st : (fab_status_t)them.st;
    fab_sa_parse(them.addr, them.port, &to);
    fab_sa_text(&to, u->remote, sizeof(u->remote));
    if (connect(u->fd, &to.sa, fab_sa_len(&to)) != 0)
        verdict = fab_sock_fail(FAB_ERR_ENV, u->kernel, "check the route to the address",
                                "cannot connect a UDP socket from %s to %s: %s", me.addr, u->remote,
                                strerror(errno));
    /* both ends connected (the receiver takes datagrams from the sender's port only) before
     * the probe: a probe sent earlier could be taken from anyone */
    st = FAB_MPI(MPI_Sendrecv(&verdict, 1, MPI_INT, u->peer, ctx->tag + 13, &len, 1, MPI_INT,
                              u->peer, ctx->tag + 13, ctx->comm, MPI_STATUS_IGNORE));
    if (st != FAB_OK || verdict != FAB_OK || len != FAB_OK)
        return st != FAB_OK ? st : verdict != FAB_OK ? (fab_status_t)verdict : (fab_status_t)len;
    if (u->sender)
        return (st = fab_udp_probe(ctx, u, &verdict)) != FAB_OK ? st : (fab_status_t)verdict;
    if (fab_sock_refuse_for_tests()) { /* the port closed: the probe finds nobody */
        close(u->fd);
        u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
    verdict = (int)fab_udp_await_probe(u, &them);
    st = FAB_MPI(MPI_Send(&verdict, 1, MPI_INT, u->peer, ctx->tag + 14, ctx->comm));
    return st != FAB_OK ? st : (fab_status_t)verdict;
}
